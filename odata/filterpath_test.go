package odata_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// TestFilterPathSegment reads collections through the 4.01 /$filter path segment, on SQLite and PostgreSQL: each
// answer is the answer of the query that states the same filter as options.
func TestFilterPathSegment(t *testing.T) {
	cases := []struct {
		name, path, same string
	}{
		{"alone", "/odata/Book/$filter(Pages%20gt%20100)?$select=Id",
			"/odata/Book?$filter=Pages%20gt%20100&$select=Id"},
		{"with $filter", "/odata/Book/$filter(Pages%20gt%20100)?$filter=Title%20ne%20'Gamma'&$select=Id",
			"/odata/Book?$filter=Pages%20gt%20100%20and%20Title%20ne%20'Gamma'&$select=Id"},
		{"parameter alias", "/odata/Book/$filter(Pages%20gt%20@p)?@p=150&$select=Id&$orderby=Pages%20desc",
			"/odata/Book?$filter=Pages%20gt%20150&$select=Id&$orderby=Pages%20desc"},
		{"two segments and $count", "/odata/Book/$filter(Pages%20gt%20100)/$filter(Title%20ne%20'Gamma')/$count",
			"/odata/Book/$count?$filter=Pages%20gt%20100%20and%20Title%20ne%20'Gamma'"},
		{"before $apply", "/odata/Book/$filter(Pages%20gt%20100)?$apply=aggregate($count%20as%20n)",
			"/odata/Book?$apply=filter(Pages%20gt%20100)/aggregate($count%20as%20n)"},
		{"plus sign", "/odata/Book/$filter(Title%20eq%20'Al+pha'%20or%20Pages%20eq%20100)?$select=Id",
			"/odata/Book?$filter=Title%20eq%20'Al%2Bpha'%20or%20Pages%20eq%20100&$select=Id"},
		{"percent-encoded", "/odata/Book/%24filter%28Pages%20gt%20100%29/%24count",
			"/odata/Book/$count?$filter=Pages%20gt%20100"},
		{"navigation", "/odata/Publisher('p1')/Books/$filter(Pages%20lt%20300)?$select=Id",
			"/odata/Publisher('p1')/Books?$filter=Pages%20lt%20300&$select=Id"},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				f.t = t
				got := f.must(200, "GET", c.path, "")
				want := f.must(200, "GET", c.same, "")
				if diff := cmp.Diff(want.Body, got.Body); diff != "" {
					t.Errorf("GET %s answers other than GET %s (-want +got):\n%s", c.path, c.same, diff)
				}
			})
		}
	})
}

// TestFilterPathSegmentRefused checks the answers to $filter segments the engine does not serve or that are
// wrong.
func TestFilterPathSegmentRefused(t *testing.T) {
	cases := []struct {
		method, path string
		status       int
		code         string
	}{
		{"POST", "/odata/Book/$filter(true)", 405, "MethodNotAllowed"},
		{"DELETE", "/odata/Book/$filter(Pages%20gt%20100)/$count", 405, "MethodNotAllowed"},
		{"GET", "/odata/Book('b1')/$filter(true)", 400, "BadRequest"},
		{"GET", "/odata/Book/$filter(Nope%20gt%201)", 400, "UnknownProperty"},
		{"GET", "/odata/Book/$filter(Pages%20gt)", 400, "SyntaxError"},
		{"GET", "/odata/Book/$filter(true)/$each", 501, "NotImplemented"},
		{"GET", "/odata/$filter(true)", 400, "SyntaxError"},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, c := range cases {
			t.Run(c.method+" "+c.path, func(t *testing.T) {
				f.t = t
				resp := f.do(c.method, c.path, "")
				var body struct {
					Error struct{ Code string } `json:"error"`
				}
				if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
					t.Fatalf("%v\n%s", err, resp.Body)
				}
				got := []any{resp.Status, body.Error.Code}
				if diff := cmp.Diff([]any{c.status, c.code}, got); diff != "" {
					t.Errorf("%s %s (-want +got):\n%s\n%s", c.method, c.path, diff, resp.Body)
				}
			})
		}
	})
}

// TestFilterPathSegmentInBatch reads through a $filter segment in a request of a JSON batch.
func TestFilterPathSegmentInBatch(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		body := `{"requests":[{"id":"1","method":"GET","url":"Book/$filter(Pages%20gt%20100)/$count"}]}`
		resp := f.must(200, "POST", "/odata/$batch", body, "Accept", "application/json")
		var answer struct {
			Responses []struct {
				Status int
				Body   json.RawMessage
			}
		}
		if err := json.Unmarshal([]byte(resp.Body), &answer); err != nil {
			t.Fatalf("%v\n%s", err, resp.Body)
		}
		var got []any
		for _, r := range answer.Responses {
			got = append(got, r.Status, string(r.Body))
		}
		if diff := cmp.Diff([]any{200, `"2"`}, got); diff != "" {
			t.Errorf("batch answer (-want +got):\n%s\n%s", diff, resp.Body)
		}
	})
}

package odata_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

func TestService_Actions(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct {
			name, path, body string
			status           int
			want             string // the whole body, when set
		}{
			{"bound to an entity", "/odata/Book('b1')/Rate", `{"Stars":4,"Comment":"good"}`, 200,
				`{"@odata.context":"http://example.com/odata/$metadata#Edm.Boolean","value":true}`},
			{"qualified and in other case", "/odata/book('b1')/lib.rate", `{"stars":5}`, 200,
				`{"@odata.context":"http://example.com/odata/$metadata#Edm.Boolean","value":true}`},
			{"by key name", "/odata/Book(Id='b1')/Lib.Rate", `{"Stars":5,"@odata.type":"#x"}`, 200, ""},
			{"bound to a collection", "/odata/Book/Discount", `{"Percent":10}`, 200,
				`{"@odata.context":"http://example.com/odata/$metadata#Edm.Int32","value":3}`},
			{"returns an entity", "/odata/Book('b2')/Reprint", ``, 200, ""},
			{"returns a complex value", "/odata/Publisher('p1')/Relocate", `{"Address":{"City":"Leeds"}}`, 200,
				`{"@odata.context":"http://example.com/odata/$metadata#Lib.Address","Street":null,"City":"Leeds","Zip":null}`},
			{"returns a collection", "/odata/Book('b1')/Labels", `{}`, 200,
				`{"@odata.context":"http://example.com/odata/$metadata#Collection(Edm.String)","value":["classic","paper"]}`},
			{"unbound", "/odata/Ping", ``, 200,
				`{"@odata.context":"http://example.com/odata/$metadata#Lib.Genre","value":"Science"}`},
			{"through a navigation", "/odata/Publisher('p1')/Books('b2')/Rate", `{"Stars":2}`, 200, ""},
			{"through a to-one navigation", "/odata/Loan(BookId='b1',MemberNo=7)/Book/Lib.Rate", `{"Stars":5}`, 200, ""},
			{"through a navigation, unknown entity", "/odata/Publisher('p1')/Books('zz')/Rate", `{"Stars":1}`, 404, ""},
			{"through a navigation, unknown parent", "/odata/Publisher('zz')/Books('b2')/Rate", `{"Stars":1}`, 404, ""},
			{"unknown entity", "/odata/Book('zz')/Rate", `{"Stars":1}`, 404, ""},
			{"unknown action", "/odata/Book('b1')/Burn", `{}`, 404, ""},
			{"action of another type", "/odata/Author('a1')/Rate", `{"Stars":1}`, 404, ""},
			{"collection action on an entity", "/odata/Book('b1')/Discount", `{"Percent":1}`, 404, ""},
			{"collection action through a navigation", "/odata/Publisher('p1')/Books/Discount", `{"Percent":1}`, 501, ""},
			{"handler refuses", "/odata/Book('b1')/Fail", ``, 409, ""},
			{"not JSON", "/odata/Book('b1')/Rate", `Stars=1`, 415, ""},
		} {
			headers := []string{}
			if tc.name == "not JSON" {
				headers = []string{"Content-Type", "application/x-www-form-urlencoded"}
			}
			resp := f.do("POST", tc.path, tc.body, headers...)
			if resp.Status != tc.status || tc.want != "" && resp.Body != tc.want {
				t.Errorf("%s: POST %s = %d %s, want %d %s", tc.name, tc.path, resp.Status, resp.Body, tc.status, tc.want)
			}
		}
		if got := decodeJSON(t, f.must(200, "GET", "/odata/Book('b2')?$select=Rating", "").Body); fmtValue(got["Rating"]) != "2" {
			t.Errorf("Rate through a navigation: Rating %v, want 2", got["Rating"])
		}
		got := decodeJSON(t, f.must(200, "GET", "/odata/Book('b1')", "").Body)
		if fmtValue(got["Rating"]) != "5" || fmtValue(got["Price"]) != "11.25" || got["Title"] != "Alpha" {
			t.Errorf("after the actions: Rating %v, Price %v, Title %v; want 5, 11.25 and the title unchanged by Fail",
				got["Rating"], got["Price"], got["Title"])
		}
		resp := f.must(200, "POST", "/odata/Book('b2')/Reprint", "")
		m := decodeJSON(t, resp.Body)
		if m["@odata.context"] != "http://example.com/odata/$metadata#Book/$entity" || fmtValue(m["Edition"]) != "3" ||
			resp.Header.Get("ETag") != m["@odata.etag"] {
			t.Errorf("Reprint: %s (ETag %s)", resp.Body, resp.Header.Get("ETag"))
		}
	})
}

func TestService_ActionParameters(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct {
			name, path, body string
			want             []string
		}{
			{"missing required", "/odata/Book('b1')/Rate", `{}`, []string{"Required:Stars"}},
			{"missing required, empty body", "/odata/Book('b1')/Rate", ``, []string{"Required:Stars"}},
			{"wrong type", "/odata/Book('b1')/Rate", `{"Stars":"four"}`, []string{"TypeMismatch:Stars"}},
			{"unknown parameter", "/odata/Book('b1')/Rate", `{"Stars":1,"Mood":"x"}`, []string{"UnknownField:Mood"}},
			{"too long", "/odata/Book('b1')/Rate", `{"Stars":1,"Comment":"` + strings.Repeat("x", 51) + `"}`, []string{"InvalidValue:Comment"}},
			{"null for non-nullable", "/odata/Book/Discount", `{"Percent":null}`, []string{"InvalidValue:Percent"}},
			{"scale", "/odata/Book/Discount", `{"Percent":1.234}`, []string{"InvalidValue:Percent"}},
			{"complex member", "/odata/Publisher('p1')/Relocate", `{"Address":{"Town":"x"}}`, []string{"UnknownField:Address/Town"}},
			{"handler validation", "/odata/Book('b1')/Rate", `{"Stars":9}`, []string{"InvalidValue:Stars"}},
			{"parameter given twice", "/odata/Book('b1')/Rate", `{"Stars":1,"stars":2}`, []string{"InvalidValue:Stars"}},
		} {
			resp := f.do("POST", tc.path, tc.body)
			if resp.Status != 400 {
				t.Errorf("%s: POST %s = %d, want 400\n%s", tc.name, tc.path, resp.Status, resp.Body)
				continue
			}
			if diff := cmp.Diff(tc.want, detailTargets(t, resp.Body)); diff != "" {
				t.Errorf("%s: details mismatch (-want +got):\n%s", tc.name, diff)
			}
		}
	})
}

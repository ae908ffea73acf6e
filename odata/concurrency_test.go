package odata_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// TestService_RequireIfMatch: the changes of an entity of a set with RequireIfMatch need If-Match (428
// PreconditionRequired without one, changing nothing), whatever way they change it; creates, reads and other sets
// need none; a stale ETag is still 412.
func TestService_RequireIfMatch(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixtureWith(t, db, func(cfg *odata.Config) {
			book := cfg.Sets["Book"]
			book.RequireIfMatch = true
			cfg.Sets["Book"] = book
		})
		f.seed()
		etag := func(path string) string { return f.must(200, "GET", path, "").Header.Get("ETag") }
		const stale = `W/"0000000000000000"`
		for _, tc := range []struct {
			name, method, path, body string
			ifMatch                  string // "" for none; "current" for the entity's ETag
			ifNoneMatch              string
			status                   int
			code                     string
		}{
			{"PATCH without If-Match", "PATCH", "/odata/Book('b1')", `{"Title":"New"}`, "", "", 428, odata.CodePreconditionRequired},
			{"PATCH with only If-None-Match", "PATCH", "/odata/Book('b1')", `{"Title":"New"}`, "", stale, 428, odata.CodePreconditionRequired},
			{"PUT without If-Match", "PUT", "/odata/Book('b1')", `{"Title":"New","Price":1,"Pages":1,"Edition":1,"InPrint":true,"Genre":"Fiction","Formats":"Paperback"}`, "", "", 428, odata.CodePreconditionRequired},
			{"DELETE without If-Match", "DELETE", "/odata/Book('b3')", "", "", "", 428, odata.CodePreconditionRequired},
			{"collection write without If-Match", "PUT", "/odata/Book('b1')/Tags", `{"value":["x"]}`, "", "", 428, odata.CodePreconditionRequired},
			{"collection item write without If-Match", "POST", "/odata/Book('b1')/Tags", `{"value":"x"}`, "", "", 428, odata.CodePreconditionRequired},
			{"bound action without If-Match", "POST", "/odata/Book('b1')/Lib.Rate", `{"Stars":4}`, "", "", 428, odata.CodePreconditionRequired},
			{"PATCH with a stale ETag", "PATCH", "/odata/Book('b1')", `{"Title":"New"}`, stale, "", 412, odata.CodePreconditionFailed},
			{"PATCH with the ETag", "PATCH", "/odata/Book('b1')", `{"Title":"New"}`, "current", "", 200, ""},
			{"PATCH with *", "PATCH", "/odata/Book('b1')", `{"Title":"Newer"}`, "*", "", 200, ""},
			{"bound action with the ETag", "POST", "/odata/Book('b1')/Lib.Rate", `{"Stars":4}`, "current", "", 200, ""},
			{"collection write with the ETag", "PUT", "/odata/Book('b1')/Tags", `{"value":["x"]}`, "current", "", 204, ""},
			{"DELETE with the ETag", "DELETE", "/odata/Book('b3')", "", "current", "", 204, ""},
			{"create", "POST", "/odata/Book", `{"Id":"b9","Title":"Nine","Price":1,"Pages":1,"Edition":1,"InPrint":true,"Genre":"Fiction","Formats":"Paperback"}`, "", "", 201, ""},
			{"another set", "PATCH", "/odata/Publisher('p1')", `{"Name":"Puffin"}`, "", "", 200, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ifMatch := tc.ifMatch
				if ifMatch == "current" {
					entity := tc.path
					if i := len("/odata/Book('b1')"); len(entity) > i && entity[:len("/odata/Book(")] == "/odata/Book(" {
						entity = entity[:i]
					}
					ifMatch = etag(entity)
				}
				before := f.must(200, "GET", "/odata/Book('b1')?$select=Title,Rating,Tags", "").Body
				resp := f.do(tc.method, tc.path, tc.body, "Content-Type", "application/json", "If-Match", ifMatch, "If-None-Match", tc.ifNoneMatch)
				got := struct {
					Status int
					Code   string
				}{resp.Status, errorCode(resp.Body, resp.Status)}
				if diff := cmp.Diff(struct {
					Status int
					Code   string
				}{tc.status, tc.code}, got); diff != "" {
					t.Fatalf("%s %s (-want +got):\n%s%s", tc.method, tc.path, diff, resp.Body)
				}
				if tc.status >= 400 {
					if after := f.must(200, "GET", "/odata/Book('b1')?$select=Title,Rating,Tags", "").Body; after != before {
						t.Errorf("a refused request changed the book:\nbefore %s\nafter  %s", before, after)
					}
				}
			})
		}
	})
}

// TestService_OptimisticConcurrencyMetadata: $metadata annotates the sets with RequireIfMatch, and only them,
// with Core.OptimisticConcurrency listing the properties of the ETag (none for a row version).
func TestService_OptimisticConcurrencyMetadata(t *testing.T) {
	db := dbtest.SQLite(t)
	f := newFixtureWith(t, db, func(cfg *odata.Config) {
		book := cfg.Sets["Book"]
		book.RequireIfMatch = true
		cfg.Sets["Book"] = book
	})
	// Book's table has a row version: its ETag comes from no property, which the empty collection says.
	want := []any{}
	var doc struct {
		Lib struct {
			Annotations map[string]map[string]any `json:"$Annotations"`
		}
	}
	if err := json.Unmarshal([]byte(f.must(200, "GET", "/odata/$metadata?$format=json", "").Body), &doc); err != nil {
		t.Fatal(err)
	}
	m := libraryModel()
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	container := "Lib." + m.Container
	got := map[string]any{}
	for _, set := range []string{"Book", "Publisher", "Author"} {
		if v, ok := doc.Lib.Annotations[container+"/"+set]["@Org.OData.Core.V1.OptimisticConcurrency"]; ok {
			got[set] = v
		}
	}
	if diff := cmp.Diff(map[string]any{"Book": want}, got); diff != "" {
		t.Errorf("OptimisticConcurrency by set (-want +got):\n%s", diff)
	}
}

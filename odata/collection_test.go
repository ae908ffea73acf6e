package odata_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// TestCollectionWrites edits the ordered collection Tags of book b1 (classic, paper) step by step, on SQLite and
// PostgreSQL: positional inserts with $index, members addressed by ordinal, replacement and removal; after each
// step the stored collection is read back whole.
func TestCollectionWrites(t *testing.T) {
	cases := []struct {
		name, method, path, body string
		headers                  []string
		status                   int
		want                     []any  // the tags after the request
		has                      string // a text the answer holds
	}{
		{"append without $index", "POST", "/odata/Book('b1')/Tags", `{"value":"new"}`, nil, 204, []any{"classic", "paper", "new"}, ""},
		{"insert at the start", "POST", "/odata/Book('b1')/Tags?$index=0", `{"value":"first"}`, nil, 204, []any{"first", "classic", "paper", "new"}, ""},
		{"insert in the middle", "POST", "/odata/Book('b1')/Tags?$index=2", `{"@odata.context":"x","value":"mid"}`, nil, 204, []any{"first", "classic", "mid", "paper", "new"}, ""},
		{"insert at the end by -1", "POST", "/odata/Book('b1')/Tags?$index=-1", `{"value":"last"}`, nil, 204, []any{"first", "classic", "mid", "paper", "new", "last"}, ""},
		{"insert before the last by -2", "POST", "/odata/Book('b1')/Tags?%24INDEX=-2", `{"value":"penult"}`, nil, 204, []any{"first", "classic", "mid", "paper", "new", "penult", "last"}, ""},
		{"insert at the length", "POST", "/odata/Book('b1')/Tags?$index=7", `{"value":"end"}`, nil, 204, []any{"first", "classic", "mid", "paper", "new", "penult", "last", "end"}, ""},
		{"$index past the end", "POST", "/odata/Book('b1')/Tags?$index=9", `{"value":"x"}`, nil, 400, nil, `"target":"$index"`},
		{"$index before the start", "POST", "/odata/Book('b1')/Tags?$index=-10", `{"value":"x"}`, nil, 400, nil, "outside Tags"},
		{"$index that is no integer", "POST", "/odata/Book('b1')/Tags?$index=one", `{"value":"x"}`, nil, 400, nil, `"SyntaxError"`},
		{"an item too long", "POST", "/odata/Book('b1')/Tags?$index=0", `{"value":"abcdefghijklmnopqrstuvwxyz"}`, nil, 400, nil, `"target":"value"`},
		{"an item of the wrong type", "POST", "/odata/Book('b1')/Tags", `{"value":5}`, nil, 400, nil, `"TypeMismatch"`},
		{"a body without value", "POST", "/odata/Book('b1')/Tags", `{"Tag":"x"}`, nil, 400, nil, `"UnknownField"`},
		{"a null item", "POST", "/odata/Book('b1')/Tags", `{"value":null}`, nil, 400, nil, "cannot be null"},
		{"read a member", "GET", "/odata/Book('b1')/Tags/2", "", nil, 200, nil, `{"@odata.context":"http://example.com/odata/$metadata#Edm.String","value":"mid"}`},
		{"read a member from the end", "GET", "/odata/Book('b1')/Tags/-1", "", nil, 200, nil, `"value":"end"`},
		{"read past the end", "GET", "/odata/Book('b1')/Tags/8", "", nil, 404, nil, "has no member 8"},
		{"replace a member", "PUT", "/odata/Book('b1')/Tags/1", `{"value":"CLASSIC"}`, nil, 204, []any{"first", "CLASSIC", "mid", "paper", "new", "penult", "last", "end"}, ""},
		{"remove a member", "DELETE", "/odata/Book('b1')/Tags/2", "", nil, 204, []any{"first", "CLASSIC", "paper", "new", "penult", "last", "end"}, ""},
		{"remove the last member", "DELETE", "/odata/Book('b1')/Tags/-1", "", nil, 204, []any{"first", "CLASSIC", "paper", "new", "penult", "last"}, ""},
		{"remove past the end", "DELETE", "/odata/Book('b1')/Tags/6", "", nil, 404, nil, "has no member 6"},
		{"PATCH of a primitive member", "PATCH", "/odata/Book('b1')/Tags/0", `{"value":"x"}`, nil, 405, nil, "GET, PUT, DELETE"},
		{"a stale If-Match", "POST", "/odata/Book('b1')/Tags", `{"value":"x"}`, []string{"If-Match", `W/"0000000000000000"`}, 412, nil, ""},
		{"replace the collection", "PUT", "/odata/Book('b1')/Tags", `{"value":["a","b"]}`, nil, 204, []any{"a", "b"}, ""},
		{"a member after a member", "GET", "/odata/Book('b1')/Tags/0/1", "", nil, 404, nil, ""},
		{"a member that is no ordinal", "GET", "/odata/Book('b1')/Tags/abc", "", nil, 404, nil, "addressed by its ordinal"},
		{"$index on a read", "GET", "/odata/Book?$index=1", "", nil, 400, nil, "$index applies to a POST"},
		{"$index on an entity", "GET", "/odata/Book('b1')?$index=1", "", nil, 400, nil, "$index applies to a POST"},
		{"$index on a create", "POST", "/odata/Book?$index=0", `{"Title":"X"}`, nil, 400, nil, "$index applies to a POST"},
		{"$index on a member", "PUT", "/odata/Book('b1')/Tags/0?$index=0", `{"value":"x"}`, nil, 400, nil, "$index applies to a POST"},
		{"a collection through a navigation is read-only", "POST", "/odata/Publisher('p1')/Books('b1')/Tags", `{"value":"x"}`, nil, 405, nil, ""},
		{"a missing entity", "POST", "/odata/Book('nope')/Tags", `{"value":"x"}`, nil, 404, nil, ""},
		{"remove every member", "DELETE", "/odata/Book('b1')/Tags", "", nil, 204, []any{}, ""},
		{"insert into an empty collection", "POST", "/odata/Book('b1')/Tags?$index=-1", `{"value":"only"}`, nil, 204, []any{"only"}, ""},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range cases {
			resp := f.do(tc.method, tc.path, tc.body, tc.headers...)
			if resp.Status != tc.status {
				t.Fatalf("%s: %s %s = %d, want %d\n%s", tc.name, tc.method, tc.path, resp.Status, tc.status, resp.Body)
			}
			if tc.has != "" {
				checkBody(t, tc.name, resp.Body+" "+resp.Header.Get("Allow"), []string{tc.has}, nil)
			}
			if tc.want == nil {
				continue
			}
			if resp.Header.Get("ETag") == "" {
				t.Errorf("%s: no ETag", tc.name)
			}
			got := decodeJSON(t, f.must(200, "GET", "/odata/Book('b1')/Tags", "").Body)["value"]
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: %s %s: Tags (-want +got):\n%s", tc.name, tc.method, tc.path, diff)
			}
			if etag := f.must(200, "GET", "/odata/Book('b1')", "").Header.Get("ETag"); etag != resp.Header.Get("ETag") {
				t.Errorf("%s: ETag %s, the entity's is %s", tc.name, resp.Header.Get("ETag"), etag)
			}
		}
		// A side table that refers to another column than the key (member.id), the key matched without case.
		f.must(204, "POST", "/odata/Member('reader@example.com')/Roles?$index=1", `{"value":"editor"}`)
		f.must(204, "DELETE", "/odata/Member('READER@example.com')/Roles/0", "")
		got := decodeJSON(t, f.must(200, "GET", "/odata/Member('Reader@Example.com')/Roles", "").Body)["value"]
		if diff := cmp.Diff([]any{"editor", "reader"}, got); diff != "" {
			t.Errorf("Member Roles (-want +got):\n%s", diff)
		}
		// The hook of Book ran for each write: it stamps UpdatedOnUtc.
		checkBody(t, "Book('b1')", f.must(200, "GET", "/odata/Book('b1')?$select=UpdatedOnUtc", "").Body, []string{`"UpdatedOnUtc":"20`}, nil)
	})
}

// TestCollectionWrites_Redacted writes a collection as "titleless", who may not read Book's Title: the answer's
// ETag is the one its reads give and its If-Match takes.
func TestCollectionWrites_Redacted(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newRedactionFixture(t, db)
		resp := f.doAs("titleless", "POST", "/odata/Book('b1')/Tags?$index=0", `{"value":"x"}`)
		if resp.Status != 204 {
			t.Fatalf("POST Tags = %d %s", resp.Status, resp.Body)
		}
		read := f.doAs("titleless", "GET", "/odata/Book('b1')", "")
		if got, want := resp.Header.Get("ETag"), read.Header.Get("ETag"); got != want || got == "" {
			t.Errorf("ETag after the insert = %q, the read's is %q", got, want)
		}
		// Book's ETag is its row version, which tells nothing of the Title: the admin's is the same.
		if admin := f.doAs("admin", "GET", "/odata/Book('b1')", ""); admin.Header.Get("ETag") != resp.Header.Get("ETag") {
			t.Errorf("the ETag of titleless is not the admin's, though both are the row version's")
		}
		if again := f.doAs("titleless", "DELETE", "/odata/Book('b1')/Tags/0", ""); again.Status != 204 {
			t.Errorf("DELETE Tags/0 = %d %s", again.Status, again.Body)
		}
	})
}

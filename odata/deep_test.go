package odata_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// TestService_DeepInsert creates entities with related ones inline on both databases: a collection by back
// reference (Publisher/Books), a single-valued navigation created first (Book/Publisher), contained entities
// (Book/Chapters), nested twice; the mistakes roll everything back.
func TestService_DeepInsert(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		created := f.must(201, "POST", "/odata/Publisher",
			`{"Name":"Inline House","Books":[{"Title":"One","Chapters":[{"Number":1,"Title":"Start"}]},{"Title":"Two"}]}`)
		var publisher struct{ Id string }
		if err := json.Unmarshal([]byte(created.Body), &publisher); err != nil {
			t.Fatal(err)
		}
		got := f.must(200, "GET", "/odata/Publisher('"+publisher.Id+"')?$expand=Books($select=Title;$orderby=Title;$expand=Chapters($select=Title))", "").Body
		for _, want := range []string{`"Title":"One","Chapters":[{`, `"Title":"Start"}]`, `"Title":"Two","Chapters":[]`} {
			if !strings.Contains(got, want) {
				t.Errorf("the publisher created with its books = %s, want it to hold %s", got, want)
			}
		}
		book := f.must(201, "POST", "/odata/Book", `{"Title":"Three","Publisher":{"Name":"Made First"}}`).Body
		if !strings.Contains(book, `"PublisherId":"`) || strings.Contains(book, `"PublisherId":null`) {
			t.Errorf("POST with an inline publisher = %s, want its PublisherId set", book)
		}
		if got := f.count("/odata/Publisher?$filter=Name%20eq%20'Made%20First'"); got != "1" {
			t.Errorf("the inline publisher exists %s times, want 1", got)
		}
		before := f.count("/odata/Publisher") + "/" + f.count("/odata/Book")
		for _, tc := range []struct{ name, body, want string }{
			{"a read-only set", `{"Title":"Four","Authors":[{"Name":"Zed"}]}`, `Author takes no POST`},
			{"an invalid inline entity", `{"Title":"Four","Publisher":{"Founded":"not a date"}}`, `"code":"ValidationFailed"`},
			{"not an array", `{"Title":"Four","Chapters":{"Number":1}}`, `"target":"Chapters"`},
		} {
			if resp := f.do("POST", "/odata/Book", tc.body); resp.Status != 400 || !strings.Contains(resp.Body, tc.want) {
				t.Errorf("%s: POST = %d %s, want 400 with %s", tc.name, resp.Status, resp.Body, tc.want)
			}
		}
		if after := f.count("/odata/Publisher") + "/" + f.count("/odata/Book"); after != before {
			t.Errorf("failed deep inserts left %s publishers/books, want %s", after, before)
		}
	})
}

// TestService_DeepUpdate: a PATCH or PUT body with related entities inline updates those with a key and creates
// the others in the update's transaction, makes them the related entities (link rows, back references, foreign
// keys of the entity) and removes the related entities a collection leaves out (unlinked, their reference
// cleared, or deleted when contained), on both databases; a failure changes nothing.
func TestService_DeepUpdate(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixtureWith(t, db, func(cfg *odata.Config) { cfg.Sets["Author"] = odata.SetOptions{Writes: odata.WriteAll} })
		f.seed()
		read := func(path string) any {
			t.Helper()
			return withoutControls(decodeJSON(t, f.must(200, "GET", path, "").Body))
		}
		for _, tc := range []struct {
			name, method, path, body string
			check                    string // a GET whose answer shows the result
			want                     string // that answer without control information
		}{
			{"a new related entity", "PATCH", "/odata/Book('b1')", `{"Publisher":{"Name":"Inline Press"}}`,
				"/odata/Book('b1')?$select=Title&$expand=Publisher($select=Name)", `{"Title":"Alpha","Publisher":{"Name":"Inline Press"}}`},
			{"an existing related entity, updated", "PATCH", "/odata/Book('b1')", `{"Title":"Alpha 2","Publisher":{"Id":"p1","Name":"Penguin Books"}}`,
				"/odata/Book('b1')?$select=Title&$expand=Publisher($select=Id,Name)", `{"Title":"Alpha 2","Publisher":{"Id":"p1","Name":"Penguin Books"}}`},
			{"a many-to-many collection replaced", "PATCH", "/odata/Book('b2')", `{"Authors":[{"Id":"a1","Name":"Ada L."},{"Name":"Cy"}]}`,
				"/odata/Book('b2')?$select=Id&$expand=Authors($select=Name;$orderby=Name)", `{"Id":"b2","Authors":[{"Name":"Ada L."},{"Name":"Cy"}]}`},
			{"the author left out still exists", "", "", "",
				"/odata/Author('a2')?$select=Name", `{"Name":"Brian"}`},
			{"contained entities replaced", "PUT", "/odata/Book('b1')", `{"Title":"Alpha 3","Chapters":[{"Id":"c1","Title":"First"},{"Number":3,"Title":"Three"}]}`,
				"/odata/Book('b1')?$select=Title&$expand=Chapters($select=Number,Title;$orderby=Number)",
				`{"Title":"Alpha 3","Chapters":[{"Number":1,"Title":"First"},{"Number":3,"Title":"Three"}]}`},
			{"a single-valued navigation set to null", "PATCH", "/odata/Book('b2')", `{"Publisher":null}`,
				"/odata/Book('b2')?$select=PublisherId", `{"PublisherId":null}`},
			{"back references cleared", "PATCH", "/odata/Publisher('p1')", `{"Books":[{"Id":"b3"}]}`,
				"/odata/Book?$select=Id,PublisherId&$orderby=Id", `{"value":[{"Id":"b1","PublisherId":null},{"Id":"b2","PublisherId":null},{"Id":"b3","PublisherId":"p1"}]}`},
		} {
			if tc.method != "" {
				f.must(200, tc.method, tc.path, tc.body)
			}
			if diff := cmp.Diff(withoutControls(decodeJSON(t, tc.want)), read(tc.check)); diff != "" {
				t.Errorf("%s: %s %s, then GET %s (-want +got):\n%s", tc.name, tc.method, tc.path, tc.check, diff)
			}
		}
		if got := f.count("/odata/Book('b1')/Chapters?$filter=Id%20eq%20'c2'"); got != "0" {
			t.Errorf("the chapter left out still exists (%s)", got)
		}

		f.exec(`INSERT INTO cover (id, book_id, mime_type, data) VALUES ('v1', 'b2', 'image/png', ?)`, []byte{1, 2})
		before := read("/odata/Book('b2')?$select=Title&$expand=Authors($select=Name;$orderby=Name)")
		for _, tc := range []struct{ name, body, want string }{
			{"an invalid related entity", `{"Title":"Changed","Authors":[{"Id":"a1","Name":"Ada"},{"Name":""}]}`, `"code":"ValidationFailed"`},
			{"a related set without PATCH", `{"Title":"Changed","Covers":[{"Id":"v1","MimeType":"image/gif"}]}`, `Cover takes no PATCH`},
			{"one level deep", `{"Title":"Changed","Authors":[{"Id":"a1","Books":[]}]}`, `one level deep`},
		} {
			if resp := f.do("PATCH", "/odata/Book('b2')", tc.body); resp.Status != 400 || !strings.Contains(resp.Body, tc.want) {
				t.Errorf("%s: PATCH = %d %s, want 400 with %s", tc.name, resp.Status, resp.Body, tc.want)
			}
		}
		if diff := cmp.Diff(before, read("/odata/Book('b2')?$select=Title&$expand=Authors($select=Name;$orderby=Name)")); diff != "" {
			t.Errorf("failed deep updates changed the book (-before +after):\n%s", diff)
		}
	})
}

// TestService_IgnoreInline: a set with SetOptions.IgnoreInline ignores related entities given inline in a
// create or an update, as it ignores read-only values, and writes the rest.
func TestService_IgnoreInline(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixtureWith(t, db, func(cfg *odata.Config) {
			book := cfg.Sets["Book"]
			book.IgnoreInline = true
			cfg.Sets["Book"] = book
		})
		f.seed()
		publishers := f.count("/odata/Publisher")
		f.must(200, "PATCH", "/odata/Book('b1')", `{"Title":"Sent back","Publisher":{"Id":"p1","Name":"Renamed"},"Chapters":[]}`)
		f.must(201, "POST", "/odata/Book", `{"Title":"New","Publisher":{"Name":"Inline"},"Chapters":[{"Number":1,"Title":"One"}]}`)
		got := withoutControls(decodeJSON(t, f.must(200, "GET", "/odata/Book?$filter=Title%20in%20('Sent%20back','New')&$select=Title&$orderby=Title&$expand=Chapters($select=Id),Publisher($select=Name)", "").Body))
		want := withoutControls(decodeJSON(t, `{"value":[{"Title":"New","Chapters":[],"Publisher":null},{"Title":"Sent back","Chapters":[{"Id":"c1"},{"Id":"c2"}],"Publisher":{"Name":"Penguin"}}]}`))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("writes with inline entities ignored (-want +got):\n%s", diff)
		}
		if after := f.count("/odata/Publisher"); after != publishers {
			t.Errorf("publishers %s after writes with inline ones, want %s", after, publishers)
		}
	})
}

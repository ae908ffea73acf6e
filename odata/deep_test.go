package odata_test

import (
	"encoding/json"
	"strings"
	"testing"

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
		if resp := f.do("PATCH", "/odata/Book('b1')", `{"Publisher":{"Name":"x"}}`); resp.Status != 400 {
			t.Errorf("PATCH with an inline entity = %d, want 400", resp.Status)
		}
		if after := f.count("/odata/Publisher") + "/" + f.count("/odata/Book"); after != before {
			t.Errorf("failed deep inserts left %s publishers/books, want %s", after, before)
		}
	})
}

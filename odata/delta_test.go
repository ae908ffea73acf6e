package odata_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// trackingFixture returns the library fixture (seeded) whose Book and Loan sets track changes, its configuration
// changed further by edit (nil for none).
func trackingFixture(t *testing.T, db *dbtest.DB, edit func(cfg *odata.Config)) *fixture {
	t.Helper()
	f := newFixtureWith(t, db, func(cfg *odata.Config) { trackBooksAndLoans(cfg, edit) })
	return f
}

// trackBooksAndLoans turns change tracking on for Book and Loan, then applies edit.
func trackBooksAndLoans(cfg *odata.Config, edit func(cfg *odata.Config)) {
	for _, name := range []string{"Book", "Loan"} {
		o := cfg.Sets[name]
		o.TrackChanges = true
		cfg.Sets[name] = o
	}
	if edit != nil {
		edit(cfg)
	}
}

// node returns another service of the deployment over the fixture's database, with the same tracked sets.
func (f *fixture) node(t *testing.T) *fixture {
	t.Helper()
	return &fixture{t: t, db: f.db, svc: libraryService(t, f.db, func(cfg *odata.Config) { trackBooksAndLoans(cfg, nil) })}
}

// page is the JSON of a page of a collection or delta answer.
type page struct {
	Context   string           `json:"@odata.context"`
	Value     []map[string]any `json:"value"`
	NextLink  string           `json:"@odata.nextLink"`
	DeltaLink string           `json:"@odata.deltaLink"`
}

// getPage reads a page at the absolute URL link (or a path below the host).
func (f *fixture) getPage(t *testing.T, link string, headers ...string) (page, response) {
	t.Helper()
	resp := f.must(200, "GET", strings.TrimPrefix(link, "http://example.com"), "", headers...)
	var p page
	if err := json.Unmarshal([]byte(resp.Body), &p); err != nil {
		t.Fatalf("GET %s: %v\n%s", link, err, resp.Body)
	}
	return p, resp
}

// deltaLinkOf reads path with Prefer: odata.track-changes, following its next links, and returns its delta
// link, which only the last page has.
func (f *fixture) deltaLinkOf(t *testing.T, path string) string {
	t.Helper()
	p, resp := f.getPage(t, path, "Prefer", "odata.track-changes")
	if got := resp.Header.Get("Preference-Applied"); got != "odata.track-changes" {
		t.Fatalf("GET %s: Preference-Applied %q, want odata.track-changes", path, got)
	}
	for p.NextLink != "" {
		if p.DeltaLink != "" {
			t.Fatalf("GET %s: a page with a next link has a delta link", path)
		}
		p, _ = f.getPage(t, p.NextLink)
	}
	if !strings.HasPrefix(p.DeltaLink, "http://example.com/") || !strings.Contains(p.DeltaLink, "?$deltatoken=") {
		t.Fatalf("GET %s: delta link %q", path, p.DeltaLink)
	}
	return p.DeltaLink
}

// readDelta reads the delta answer at link, following its next links; it returns the entries of every page and
// the new delta link.
func (f *fixture) readDelta(t *testing.T, link string, headers ...string) ([]map[string]any, string) {
	t.Helper()
	var entries []map[string]any
	for {
		p, _ := f.getPage(t, link, headers...)
		if !strings.HasSuffix(p.Context, "/$delta") {
			t.Errorf("delta context %q, want .../$delta", p.Context)
		}
		entries = append(entries, p.Value...)
		if p.NextLink == "" {
			if p.DeltaLink == "" {
				t.Fatalf("the last page of the delta answer has no delta link")
			}
			return entries, p.DeltaLink
		}
		if p.DeltaLink != "" {
			t.Fatalf("a delta page with a next link has a delta link")
		}
		link = p.NextLink
	}
}

// summary writes the entries of a delta answer as sorted lines: "entity <Title>" for an entity, "<reason>
// <id>" for a removed one (4.0 and 4.01 forms), the id relative to the service root.
func summary(entries []map[string]any) []string {
	out := []string{}
	for _, e := range entries {
		switch {
		case e["@odata.removed"] != nil:
			reason := e["@odata.removed"].(map[string]any)["reason"]
			out = append(out, reason.(string)+" "+strings.TrimPrefix(e["@odata.id"].(string), "http://example.com/odata/"))
		case e["reason"] != nil:
			out = append(out, e["reason"].(string)+" "+strings.TrimPrefix(e["id"].(string), "http://example.com/odata/"))
		default:
			out = append(out, "entity "+e["Title"].(string))
		}
	}
	sort.Strings(out)
	return out
}

type write struct{ method, path, body string }

// TestDelta_Changes: each case takes a delta link of books under 20 (Prefer: odata.track-changes), writes, and
// reads the delta: created and changed books that match as entities, those changed out of the filter as
// removed (changed), deleted ones as removed (deleted), through every way the service writes a book (PATCH,
// POST, DELETE, deep insert and update, $ref, an action's Tx helper, a JSON batch) and none for writes that roll
// back or touch another set. Both databases.
func TestDelta_Changes(t *testing.T) {
	const query = "/odata/Book?$select=Id,Title,Price&$filter=Price%20lt%2020"
	cases := []struct {
		name   string
		writes []write
		want   []string
	}{
		{"no change", nil, []string{}},
		{"change", []write{{"PATCH", "/odata/Book('b1')", `{"Title":"Alpha 2"}`}}, []string{"entity Alpha 2"}},
		{"create", []write{{"POST", "/odata/Book", `{"Title":"Delta","Price":5}`}}, []string{"entity Delta"}},
		{"changed out of the filter", []write{{"PATCH", "/odata/Book('b2')", `{"Price":30}`}}, []string{"changed Book('b2')"}},
		// A change of an entity that matched neither before nor after is reported as removed too: the log does
		// not know whether it matched before.
		{"changed outside the filter", []write{{"PATCH", "/odata/Book('b2')", `{"Title":"Beta 2"}`}}, []string{"changed Book('b2')"}},
		{"changed into the filter", []write{{"PATCH", "/odata/Book('b2')", `{"Price":10}`}}, []string{"entity Beta 2"}},
		{"delete", []write{{"DELETE", "/odata/Book('b3')", ""}}, []string{"deleted Book('b3')"}},
		{"several writes of one entity", []write{
			{"PATCH", "/odata/Book('b1')", `{"Title":"Alpha 3"}`},
			{"PATCH", "/odata/Book('b1')", `{"Title":"Alpha 4"}`},
		}, []string{"entity Alpha 4"}},
		// Deep update: b1 is updated, b2 (left out) loses its publisher.
		{"deep update", []write{{"PATCH", "/odata/Publisher('p1')", `{"Books":[{"Id":"b1","Title":"Deep"}]}`}},
			[]string{"entity Beta 2", "entity Deep"}},
		{"deep insert", []write{{"POST", "/odata/Publisher", `{"Name":"Orbit","Books":[{"Title":"Inline","Price":1}]}`}},
			[]string{"entity Inline"}},
		{"$ref", []write{{"DELETE", "/odata/Book('b1')/Publisher/$ref", ""}}, []string{"entity Deep"}},
		{"action through Tx.Update", []write{{"POST", "/odata/Book('b1')/Reprint", ""}}, []string{"entity Deep"}},
		{"batch", []write{{"POST", "/odata/$batch", `{"requests":[
			{"id":"1","atomicityGroup":"g","method":"post","url":"Book","body":{"Title":"Batched","Price":2}},
			{"id":"2","atomicityGroup":"g","method":"patch","url":"Book('b1')","body":{"Title":"Alpha 5"}},
			{"id":"3","method":"delete","url":"Book('b2')"}]}`}},
			[]string{"deleted Book('b2')", "entity Alpha 5", "entity Batched"}},
		{"batch group rolled back", []write{{"POST", "/odata/$batch", `{"requests":[
			{"id":"1","atomicityGroup":"g","method":"patch","url":"Book('b1')","body":{"Title":"Never"}},
			{"id":"2","atomicityGroup":"g","method":"patch","url":"Book('none')","body":{"Title":"Missing"}}]}`}},
			[]string{}},
		{"write refused", []write{{"PATCH", "/odata/Book('b1')", `{"Price":-1}`}}, []string{}},
		{"another set", []write{{"POST", "/odata/Publisher", `{"Name":"Tor"}`}}, []string{}},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := trackingFixture(t, db, nil)
		f.seed()
		for _, tc := range cases {
			link := f.deltaLinkOf(t, query)
			for _, w := range tc.writes {
				if resp := f.do(w.method, w.path, w.body); resp.Status >= 500 {
					t.Fatalf("%s: %s %s = %d\n%s", tc.name, w.method, w.path, resp.Status, resp.Body)
				}
			}
			entries, next := f.readDelta(t, link)
			if diff := cmp.Diff(tc.want, summary(entries)); diff != "" {
				t.Errorf("%s: delta (-want +got):\n%s", tc.name, diff)
			}
			// The new delta link starts after these changes.
			if again, _ := f.readDelta(t, next); len(again) != 0 {
				t.Errorf("%s: the next delta link answers %v, want nothing", tc.name, summary(again))
			}
		}
	})
}

// TestDelta_Format: the delta payload in OData 4.0 (deleted entities with their context, id and reason) and 4.01
// (@odata.removed, @odata.id and the key properties, whatever odata.metadata says), for the composite key of Loan,
// with the context URL of the defining query's select list.
func TestDelta_Format(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := trackingFixture(t, db, func(cfg *odata.Config) { cfg.MaxVersion = odata.Version401 })
		f.seed()
		f.must(201, "POST", "/odata/Loan", `{"BookId":"b2","MemberNo":8,"Due":"2026-12-24"}`)
		link := f.deltaLinkOf(t, "/odata/Loan?$select=Due&$filter=Due%20lt%202027-01-01")
		f.must(200, "PATCH", "/odata/Loan(BookId='b1',MemberNo=7)", `{"Due":"2026-12-31"}`)
		f.must(200, "PATCH", "/odata/Loan(BookId='b2',MemberNo=8)", `{"Due":"2027-06-01"}`)
		f.must(204, "DELETE", "/odata/Loan(BookId='b1',MemberNo=7)", "")
		f.must(201, "POST", "/odata/Loan", `{"BookId":"b3","MemberNo":9,"Due":"2026-12-25"}`)
		base := "http://example.com/odata/"
		for _, tc := range []struct {
			name, maxVersion, format string
			context                  string
			want                     []map[string]any
		}{
			{"4.0", "", "", base + "$metadata#Loan(Due)/$delta", []map[string]any{
				{"@odata.id": base + "Loan(BookId='b3',MemberNo=9)", "Due": "2026-12-25"},
				{"@odata.context": base + "$metadata#Loan/$deletedEntity", "id": base + "Loan(BookId='b1',MemberNo=7)", "reason": "deleted"},
				{"@odata.context": base + "$metadata#Loan/$deletedEntity", "id": base + "Loan(BookId='b2',MemberNo=8)", "reason": "changed"},
			}},
			{"4.01", "4.01", "", base + "$metadata#Loan(Due)/$delta", []map[string]any{
				{"@odata.id": base + "Loan(BookId='b3',MemberNo=9)", "Due": "2026-12-25"},
				{"@odata.removed": map[string]any{"reason": "deleted"}, "@odata.id": base + "Loan(BookId='b1',MemberNo=7)", "BookId": "b1", "MemberNo": 7.0},
				{"@odata.removed": map[string]any{"reason": "changed"}, "@odata.id": base + "Loan(BookId='b2',MemberNo=8)", "BookId": "b2", "MemberNo": 8.0},
			}},
			{"4.01 without metadata", "4.01", "application/json;odata.metadata=none", "", []map[string]any{
				{"Due": "2026-12-25"},
				{"@odata.removed": map[string]any{"reason": "deleted"}, "@odata.id": base + "Loan(BookId='b1',MemberNo=7)", "BookId": "b1", "MemberNo": 7.0},
				{"@odata.removed": map[string]any{"reason": "changed"}, "@odata.id": base + "Loan(BookId='b2',MemberNo=8)", "BookId": "b2", "MemberNo": 8.0},
			}},
		} {
			p, resp := f.getPage(t, link, "OData-MaxVersion", tc.maxVersion, "Accept", tc.format)
			if p.Context != tc.context {
				t.Errorf("%s: context %q, want %q", tc.name, p.Context, tc.context)
			}
			if tc.maxVersion == "" && resp.Header.Get("OData-Version") != "4.0" {
				t.Errorf("%s: OData-Version %q", tc.name, resp.Header.Get("OData-Version"))
			}
			for _, e := range p.Value {
				delete(e, "@odata.etag")
			}
			if diff := cmp.Diff(tc.want, p.Value); diff != "" {
				t.Errorf("%s: entries (-want +got):\n%s", tc.name, diff)
			}
		}
	})
}

// TestDelta_Keys: keys with characters that URLs and the log's text encode (quotes, &, +, /, %, #, ?, spaces,
// non-ASCII) go through the log and the $filter of a delta page and come back as written, in ids and key
// properties.
func TestDelta_Keys(t *testing.T) {
	const weird = "o'n & c+x/y%z é#?"
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := trackingFixture(t, db, func(cfg *odata.Config) { cfg.MaxVersion = odata.Version401 })
		f.seed()
		f.exec(`INSERT INTO book (id, title, price, pages, edition, flag, level, in_print, genre, formats, size_width, size_height)
			VALUES (?, 'Odd', ?, 1, 1, 0, 0, ?, 1, 2, 1, 1)`, weird, priceArg(f.db, "1"), boolArg(f.db, true))
		link := f.deltaLinkOf(t, "/odata/Loan")
		body, _ := json.Marshal(map[string]any{"BookId": weird, "MemberNo": 1})
		f.must(201, "POST", "/odata/Loan", string(body))
		f.must(201, "POST", "/odata/Loan", `{"BookId":"b2","MemberNo":2}`)
		p, _ := f.getPage(t, link, "OData-MaxVersion", "4.01")
		var got []string
		for _, e := range p.Value {
			got = append(got, e["BookId"].(string))
		}
		sort.Strings(got)
		if diff := cmp.Diff([]string{"b2", weird}, got); diff != "" {
			t.Errorf("created loans (-want +got):\n%s", diff)
		}
		link = p.DeltaLink
		path := "/odata/Loan(BookId='" + url.PathEscape(strings.ReplaceAll(weird, "'", "''")) + "',MemberNo=1)"
		f.must(204, "DELETE", path, "")
		p, _ = f.getPage(t, link, "OData-MaxVersion", "4.01")
		if len(p.Value) != 1 || p.Value[0]["BookId"] != weird || p.Value[0]["MemberNo"] != 1.0 {
			t.Fatalf("delta of the deleted loan: %v", p.Value)
		}
		// The id reads back as the entity's path.
		id, _ := strings.CutPrefix(p.Value[0]["@odata.id"].(string), "http://example.com")
		if resp := f.do("GET", id, ""); resp.Status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404 (the loan is deleted)\n%s", id, resp.Status, resp.Body)
		}
		f.must(201, "POST", "/odata/Loan", string(body))
		f.must(200, "GET", id, "")
	})
}

// TestDelta_Paging: a delta answer larger than the page size comes in pages (Prefer: odata.maxpagesize), each
// change once, the delta link on the last; a read that tracks changes in pages gets its delta link on its last
// page, and a change between its pages to an entity already read is in that link's delta.
func TestDelta_Paging(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := trackingFixture(t, db, nil)
		f.seed()
		const query = "/odata/Book?$select=Id,Title&$orderby=Id"
		link := f.deltaLinkOf(t, query)
		for _, w := range []write{
			{"PATCH", "/odata/Book('b1')", `{"Title":"A1"}`},
			{"PATCH", "/odata/Book('b2')", `{"Title":"B1"}`},
			{"DELETE", "/odata/Book('b3')", ""},
			{"POST", "/odata/Book", `{"Title":"D1"}`},
			{"POST", "/odata/Book", `{"Title":"E1"}`},
		} {
			if resp := f.do(w.method, w.path, w.body); resp.Status >= 300 {
				t.Fatalf("%s %s = %d\n%s", w.method, w.path, resp.Status, resp.Body)
			}
		}
		var pages [][]string
		next := link
		for next != "" {
			p, resp := f.getPage(t, next, "Prefer", "odata.maxpagesize=2")
			if got := resp.Header.Get("Preference-Applied"); got != "odata.maxpagesize=2" {
				t.Errorf("delta page: Preference-Applied %q", got)
			}
			pages = append(pages, summary(p.Value))
			if (p.NextLink == "") == (p.DeltaLink == "") {
				t.Fatalf("delta page: next link %q, delta link %q: want exactly one", p.NextLink, p.DeltaLink)
			}
			next = p.NextLink
		}
		var all []string
		for _, p := range pages {
			all = append(all, p...)
		}
		sort.Strings(all)
		if diff := cmp.Diff([]string{"deleted Book('b3')", "entity A1", "entity B1", "entity D1", "entity E1"}, all); diff != "" || len(pages) != 3 {
			t.Errorf("%d pages, changes (-want +got):\n%s", len(pages), diff)
		}

		// The read that tracks changes, a book a page: a change between its pages is in the delta.
		p, resp := f.getPage(t, query, "Prefer", "odata.track-changes, odata.maxpagesize=1")
		if got := resp.Header.Get("Preference-Applied"); got != "odata.track-changes, odata.maxpagesize=1" {
			t.Errorf("Preference-Applied %q", got)
		}
		first := p.Value[0]["Id"].(string)
		f.must(200, "PATCH", "/odata/Book('"+first+"')", `{"Title":"Between"}`)
		n := 1
		for p.NextLink != "" {
			if p.DeltaLink != "" {
				t.Fatalf("page %d has a next link and a delta link", n)
			}
			p, _ = f.getPage(t, p.NextLink, "Prefer", "odata.maxpagesize=1") // track-changes need not be sent again
			n++
		}
		if n != 4 || p.DeltaLink == "" {
			t.Fatalf("%d pages, delta link %q: want 4 pages and a delta link on the last", n, p.DeltaLink)
		}
		entries, _ := f.readDelta(t, p.DeltaLink)
		if diff := cmp.Diff([]string{"entity Between"}, summary(entries)); diff != "" {
			t.Errorf("delta of the paged read (-want +got):\n%s", diff)
		}
	})
}

// TestDelta_Nodes: two services on one database are two nodes of a deployment: a delta link one issues is served
// by the other, with the changes written through either.
func TestDelta_Nodes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		a := trackingFixture(t, db, nil)
		a.seed()
		b := a.node(t)
		link := a.deltaLinkOf(t, "/odata/Book?$select=Id,Title")
		a.must(200, "PATCH", "/odata/Book('b1')", `{"Title":"From A"}`)
		b.must(200, "PATCH", "/odata/Book('b2')", `{"Title":"From B"}`)
		b.must(204, "DELETE", "/odata/Book('b3')", "")
		want := []string{"deleted Book('b3')", "entity From A", "entity From B"}
		for name, node := range map[string]*fixture{"a": a, "b": b} {
			entries, _ := node.readDelta(t, link)
			if diff := cmp.Diff(want, summary(entries)); diff != "" {
				t.Errorf("node %s: delta (-want +got):\n%s", name, diff)
			}
		}
	})
}

// TestDelta_InFlight: a write that began before a delta link was issued and commits after it is in that link's
// delta (on PostgreSQL, where writes run concurrently; SQLite runs one at a time).
func TestDelta_InFlight(t *testing.T) {
	if dbtest.PostgresURL() == "" {
		t.Skip("STORE_TEST_POSTGRES is not set")
	}
	db := dbtest.Postgres(t)
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	f := trackingFixture(t, db, func(cfg *odata.Config) {
		o := cfg.Sets["Book"]
		before := o.Hooks.BeforeSave
		o.Hooks.BeforeSave = func(ctx context.Context, tx *odata.Tx, c *odata.Change) error {
			if c.New["Title"] == "Slow" {
				once.Do(func() {
					close(entered)
					<-release
				})
			}
			return before(ctx, tx, c)
		}
		cfg.Sets["Book"] = o
	})
	f.seed()
	done := make(chan response)
	go func() { done <- f.do("PATCH", "/odata/Book('b1')", `{"Title":"Slow"}`) }()
	<-entered
	f.must(200, "PATCH", "/odata/Book('b2')", `{"Title":"Quick"}`)
	link := f.deltaLinkOf(t, "/odata/Book?$select=Id,Title")
	close(release)
	if resp := <-done; resp.Status != 200 {
		t.Fatalf("slow PATCH = %d\n%s", resp.Status, resp.Body)
	}
	entries, _ := f.readDelta(t, link)
	if diff := cmp.Diff([]string{"entity Slow"}, summary(entries)); diff != "" {
		t.Errorf("delta (-want +got):\n%s", diff)
	}
}

// TestDelta_Cascade: what the database changes on its own when an entity is deleted is in the delta of the sets
// it touches: the loans of a deleted book go with it (ON DELETE CASCADE), the books of a deleted publisher lose
// their reference (ON DELETE SET NULL).
func TestDelta_Cascade(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := trackingFixture(t, db, nil)
		f.seed()
		loans := f.deltaLinkOf(t, "/odata/Loan")
		books := f.deltaLinkOf(t, "/odata/Book?$select=Id,Title,PublisherId")
		f.must(204, "DELETE", "/odata/Book('b1')", "")
		f.must(204, "DELETE", "/odata/Publisher('p1')", "")
		entries, _ := f.readDelta(t, loans)
		if diff := cmp.Diff([]string{"deleted Loan(BookId='b1',MemberNo=7)"}, summary(entries)); diff != "" {
			t.Errorf("loans (-want +got):\n%s", diff)
		}
		entries, _ = f.readDelta(t, books)
		if diff := cmp.Diff([]string{"deleted Book('b1')", "entity Beta", "entity Gamma"}, summary(entries)); diff != "" {
			t.Errorf("books (-want +got):\n%s", diff)
		}
		for _, e := range entries {
			if e["Title"] != nil && e["PublisherId"] != nil {
				t.Errorf("book %v still refers to its publisher", e["Id"])
			}
		}
	})
}

// TestDelta_Prune: a write deletes the rows of the change log kept past ChangeTrackingOptions.Keep (and its margin
// for the clocks of nodes), and keeps the others.
func TestDelta_Prune(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := trackingFixture(t, db, nil)
		f.seed()
		old := time.Now().Add(-odata.DefaultChangeKeep - 2*time.Hour).UnixMilli()
		recent := time.Now().Add(-odata.DefaultChangeKeep + time.Hour).UnixMilli()
		f.exec(`INSERT INTO odata_changes (set_name, entity_key, changed_at) VALUES ('Book', '(''old'')', ?), ('Book', '(''recent'')', ?)`, old, recent)
		f.must(200, "PATCH", "/odata/Book('b1')", `{"Title":"Pruned"}`)
		rows, err := f.db.DB.Query(`SELECT entity_key FROM odata_changes ORDER BY seq`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var keys []string
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
		}
		if diff := cmp.Diff([]string{"('recent')", "('b1')"}, keys); diff != "" {
			t.Errorf("change log (-want +got):\n%s", diff)
		}
	})
}

// TestDelta_Errors: a $deltatoken the service did not issue, one of another set, one on a set that tracks no
// changes and other options beside a delta token are 400s; a delta link older than the log keeps is 410 Gone with
// the URL of a full read of its defining query.
func TestDelta_Errors(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := trackingFixture(t, db, func(cfg *odata.Config) { cfg.ChangeTracking.Keep = time.Millisecond })
		f.seed()
		loans := f.deltaLinkOf(t, "/odata/Loan")
		_, loanToken, _ := strings.Cut(loans, "?")
		forged := base64.RawURLEncoding.EncodeToString([]byte(`[1,"d","Book","",-5,1,0,0,""]`))
		for _, tc := range []struct {
			name, path string
			status     int
			code       string
		}{
			{"not base64", "/odata/Book?$deltatoken=%25%25", 400, "InvalidValue"},
			{"not a token", "/odata/Book?$deltatoken=" + base64.RawURLEncoding.EncodeToString([]byte(`{"a":1}`)), 400, "InvalidValue"},
			{"out of shape", "/odata/Book?$deltatoken=" + forged, 400, "InvalidValue"},
			{"another set's", "/odata/Book?" + loanToken, 400, "InvalidValue"},
			{"a set without tracking", "/odata/Publisher?$deltatoken=abc", 400, "InvalidValue"},
			{"with other options", strings.TrimPrefix(loans, "http://example.com") + "&$top=1", 400, "BadRequest"},
		} {
			resp := f.do("GET", tc.path, "")
			var body struct{ Error struct{ Code string } }
			_ = json.Unmarshal([]byte(resp.Body), &body)
			if resp.Status != tc.status || body.Error.Code != tc.code {
				t.Errorf("%s: GET %s = %d %s, want %d %s\n%s", tc.name, tc.path, resp.Status, body.Error.Code, tc.status, tc.code, resp.Body)
			}
		}

		link := f.deltaLinkOf(t, "/odata/Book?$select=Id,Title&$filter=Price%20lt%2020&$count=true")
		time.Sleep(5 * time.Millisecond)
		resp := f.do("GET", strings.TrimPrefix(link, "http://example.com"), "")
		want := "http://example.com/odata/Book?$select=Id,Title&$filter=Price%20lt%2020"
		if resp.Status != http.StatusGone || resp.Header.Get("Location") != want || !strings.Contains(resp.Body, `"code":"Gone"`) {
			t.Errorf("expired delta link = %d, Location %q, want 410 and %q\n%s", resp.Status, resp.Header.Get("Location"), want, resp.Body)
		}
	})
}

// TestDelta_NotApplied: the preference is ignored (no Preference-Applied, no delta link) by sets that do not track
// changes, by single entities, navigations and by reads with $top, $skip, $expand or $apply.
func TestDelta_NotApplied(t *testing.T) {
	f := trackingFixture(t, dbtest.SQLite(t), nil)
	f.seed()
	for _, path := range []string{
		"/odata/Publisher",
		"/odata/Book('b1')",
		"/odata/Book?$top=2",
		"/odata/Book?$skip=1",
		"/odata/Book?$expand=Publisher",
		"/odata/Book?$apply=filter(Pages%20gt%201)",
		"/odata/Book('b1')/Chapters",
	} {
		resp := f.must(200, "GET", path, "", "Prefer", "odata.track-changes")
		if got := resp.Header.Get("Preference-Applied"); got != "" || strings.Contains(resp.Body, "deltaLink") {
			t.Errorf("GET %s: Preference-Applied %q, body %s; want neither", path, got, resp.Body)
		}
	}
}

// TestDelta_Metadata: $metadata annotates the sets that track changes with Capabilities.ChangeTracking (and no
// other), and still validates against the OASIS schemas.
func TestDelta_Metadata(t *testing.T) {
	f := trackingFixture(t, dbtest.SQLite(t), nil)
	var doc map[string]any
	if err := json.Unmarshal([]byte(f.must(200, "GET", "/odata/$metadata?$format=json", "").Body), &doc); err != nil {
		t.Fatal(err)
	}
	annotations, _ := doc["Lib"].(map[string]any)["$Annotations"].(map[string]any)
	got := map[string]any{}
	for _, set := range []string{"Book", "Loan", "Publisher"} {
		if record, ok := annotations["Lib.Container/"+set].(map[string]any)["@Org.OData.Capabilities.V1.ChangeTracking"].(map[string]any); ok {
			got[set] = []any{record["Supported"], record["ExpandableProperties"], len(record["FilterableProperties"].([]any))}
		}
	}
	m := libraryModel()
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	// Every property is filterable: neither type has a stream.
	want := map[string]any{"Book": []any{true, []any{}, len(m.EntityType("Book").Properties)},
		"Loan": []any{true, []any{}, len(m.EntityType("Loan").Properties)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ChangeTracking (-want +got):\n%s", diff)
	}
	xml := f.must(200, "GET", "/odata/$metadata", "").Body
	t.Run("xmllint", func(t *testing.T) { validateMetadataXML(t, xml) })
}

// TestNewService_TrackChanges: NewService refuses TrackChanges with a ReadFilter or a CaseInsensitiveKey.
func TestNewService_TrackChanges(t *testing.T) {
	db := dbtest.SQLite(t)
	createLibrarySchema(t, db)
	for _, tc := range []struct {
		name, set, want string
		edit            func(o *odata.SetOptions)
	}{
		{"ReadFilter", "Book", `Sets["Book"]: TrackChanges cannot be combined with ReadFilter or CaseInsensitiveKey`,
			func(o *odata.SetOptions) {
				o.ReadFilter = func(context.Context) (string, error) { return "", nil }
			}},
		{"CaseInsensitiveKey", "Member", `Sets["Member"]: TrackChanges cannot be combined with ReadFilter or CaseInsensitiveKey`, nil},
	} {
		m := libraryModel()
		if err := m.Build(); err != nil {
			t.Fatal(err)
		}
		sets, actions := libraryConfig(m)
		o := sets[tc.set]
		o.TrackChanges = true
		if tc.edit != nil {
			tc.edit(&o)
		}
		sets[tc.set] = o
		_, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Sets: sets, Actions: actions})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: NewService error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestDelta_Hierarchy: a tracked set of a type with derived types sees the writes of entities of every type of
// its hierarchy, those written through the set of a derived type included, each with its @odata.type.
func TestDelta_Hierarchy(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f, _ := newHierarchyService(t, db, "", func(o *odata.SetOptions) { o.ReadFilter, o.TrackChanges = nil, true })
		link := f.deltaLinkOf(t, "/Items?$select=Id,Name")
		f.must(200, "PATCH", "/Books('i2')", `{"Name":"Atlas 2"}`)
		f.must(201, "POST", "/Books", `{"@odata.type":"#Shop.Ebook","Id":"i4","Name":"Manual","Megabytes":2}`)
		f.must(204, "DELETE", "/Items('i3')", "")
		p, _ := f.getPage(t, link)
		var got []string
		for _, e := range p.Value {
			switch {
			case e["reason"] != nil:
				got = append(got, e["reason"].(string)+" "+strings.TrimPrefix(e["id"].(string), "http://example.com/"))
			default:
				typ, _ := e["@odata.type"].(string)
				got = append(got, typ+" "+e["Id"].(string)+" "+e["Name"].(string))
			}
		}
		sort.Strings(got)
		want := []string{"#Shop.Book i2 Atlas 2", "#Shop.Ebook i4 Manual", "deleted Items('i3')"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("delta of Items (-want +got):\n%s", diff)
		}
	})
}

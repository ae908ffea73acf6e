package odata_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// TestCrossJoin reads $crossjoin of the library's sets on SQLite and PostgreSQL: the rows of each answer (the
// value array) are compared whole.
func TestCrossJoin(t *testing.T) {
	const root = "http://example.com/odata/"
	link := func(set, key string) string { return root + set + "('" + key + "')" }
	bookPublisher := func(book string) map[string]any {
		return map[string]any{"Book@odata.navigationLink": link("Book", book), "Publisher@odata.navigationLink": link("Publisher", "p1")}
	}
	cases := []struct {
		name, path string
		want       []any
	}{
		{"the product of two sets, in key order", "/odata/$crossjoin(Publisher,Author)", []any{
			map[string]any{"Publisher@odata.navigationLink": link("Publisher", "p1"), "Author@odata.navigationLink": link("Author", "a1")},
			map[string]any{"Publisher@odata.navigationLink": link("Publisher", "p1"), "Author@odata.navigationLink": link("Author", "a2")},
		}},
		{"a join written as $filter", "/odata/$crossjoin(Book,Publisher)?$filter=Book/PublisherId eq Publisher/Id and Book/Pages gt 100",
			[]any{bookPublisher("b2"), bookPublisher("b3")}},
		{"$orderby on a member, descending", "/odata/$crossjoin(Book,Publisher)?$orderby=Book/Title desc",
			[]any{bookPublisher("b3"), bookPublisher("b2"), bookPublisher("b1")}},
		{"$top and $skip", "/odata/$crossjoin(Book,Author)?$top=2&$skip=3", []any{
			map[string]any{"Book@odata.navigationLink": link("Book", "b2"), "Author@odata.navigationLink": link("Author", "a2")},
			map[string]any{"Book@odata.navigationLink": link("Book", "b3"), "Author@odata.navigationLink": link("Author", "a1")},
		}},
		{"$expand with nested $select", "/odata/$crossjoin(Book,Author)?$filter=Book/Authors/any(a:a/Id eq Author/Id)&$expand=Book($select=Title),Author($select=Name)&$orderby=Author/Name,Book/Title", []any{
			map[string]any{"Book": map[string]any{"@odata.id": link("Book", "b1"), "Title": "Alpha"}, "Author": map[string]any{"@odata.id": link("Author", "a1"), "Name": "Ada"}},
			map[string]any{"Book": map[string]any{"@odata.id": link("Book", "b2"), "Title": "Beta"}, "Author": map[string]any{"@odata.id": link("Author", "a1"), "Name": "Ada"}},
			map[string]any{"Book": map[string]any{"@odata.id": link("Book", "b2"), "Title": "Beta"}, "Author": map[string]any{"@odata.id": link("Author", "a2"), "Name": "Brian"}},
		}},
		{"$select of one set", "/odata/$crossjoin(Book,Publisher)?$select=Publisher&$filter=Book/Id eq 'b1'", []any{
			map[string]any{"Publisher@odata.navigationLink": link("Publisher", "p1")},
		}},
		{"an expanded member not selected", "/odata/$crossjoin(Book,Publisher)?$select=Book&$expand=Publisher&$filter=Book/Id eq 'b3'", []any{
			map[string]any{"Book@odata.navigationLink": link("Book", "b3")},
		}},
		{"nested $expand of a member", "/odata/$crossjoin(Book,Member)?$filter=Book/Id eq 'b2'&$expand=Book($select=Id;$expand=Chapters($select=Title)),Member($select=Name;$expand=Cards($select=Number;$orderby=Number desc))", []any{
			map[string]any{
				"Book": map[string]any{"Id": "b2", "Chapters": []any{map[string]any{"@odata.id": root + "Book('b2')/Chapters('c3')", "Title": "Uno"}}},
				"Member": map[string]any{"@odata.id": link("Member", "Reader@Example.com"), "Name": "Rita", "Cards": []any{
					map[string]any{"@odata.id": link("Member", "Reader@Example.com") + "/Cards('d2')", "Number": "0002"},
					map[string]any{"@odata.id": link("Member", "Reader@Example.com") + "/Cards('d1')", "Number": "0001"}}},
			},
		}},
		{"a to-one path and a lambda", "/odata/$crossjoin(Loan,Author)?$filter=Loan/Book/Title eq 'Alpha' and Author/Books/any(b:b/Id eq Loan/BookId)&$select=Author", []any{
			map[string]any{"Author@odata.navigationLink": link("Author", "a1")},
		}},
		{"no row", "/odata/$crossjoin(Book,Author)?$filter=Book/Pages gt Author/Books/$count and Book/Pages lt 0", []any{}},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range cases {
			resp := f.do("GET", encodeURL(tc.path), "")
			if resp.Status != 200 {
				t.Errorf("%s: GET %s = %d %s", tc.name, tc.path, resp.Status, resp.Body)
				continue
			}
			body := decodeJSON(t, resp.Body)
			if got := body["@odata.context"]; got != root+"$metadata#Collection(Edm.ComplexType)" {
				t.Errorf("%s: @odata.context = %v", tc.name, got)
			}
			if diff := cmp.Diff(tc.want, withoutETags(body["value"])); diff != "" {
				t.Errorf("%s: GET %s: value (-want +got):\n%s", tc.name, tc.path, diff)
			}
		}
	})
}

// withoutETags returns v (decoded JSON) without its @odata.etag members, at every depth: the ETags of entities
// are tested with their reads.
func withoutETags(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, item := range x {
			if k != "@odata.etag" {
				out[k] = withoutETags(item)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = withoutETags(item)
		}
		return out
	}
	return v
}

// TestCrossJoin_Paging follows the next links of a cross join on SQLite and PostgreSQL: server-driven pages
// of two rows, in the order of $orderby and then of every set's key, with the count on the first page and the
// rest of $top carried along.
func TestCrossJoin_Paging(t *testing.T) {
	cases := []struct {
		name, path string
		want       [][2]string // book and author of each row, over all pages
		count      int
	}{
		{"key order", "/odata/$crossjoin(Book,Author)?$count=true", [][2]string{
			{"b1", "a1"}, {"b1", "a2"}, {"b2", "a1"}, {"b2", "a2"}, {"b3", "a1"}, {"b3", "a2"}}, 6},
		{"descending order, ties by the keys", "/odata/$crossjoin(Book,Author)?$orderby=Author/Name desc&$expand=Book($select=Id),Author($select=Id)", [][2]string{
			{"b3", "a2"}, {"b2", "a2"}, {"b1", "a2"}, {"b3", "a1"}, {"b2", "a1"}, {"b1", "a1"}}, -1},
		{"$top across pages and $skip", "/odata/$crossjoin(Book,Author)?$top=3&$skip=2&$count=true", [][2]string{
			{"b2", "a1"}, {"b2", "a2"}, {"b3", "a1"}}, 6},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range cases {
			var got [][2]string
			count := -1
			next := encodeURL(tc.path)
			for pages := 0; next != "" && pages < 10; pages++ {
				resp := f.do("GET", strings.TrimPrefix(next, "http://example.com"), "", "Prefer", "odata.maxpagesize=2")
				if resp.Status != 200 {
					t.Fatalf("%s: GET %s = %d %s", tc.name, next, resp.Status, resp.Body)
				}
				body := decodeJSON(t, resp.Body)
				if n, ok := body["@odata.count"]; ok {
					c, _ := n.(json.Number).Int64()
					count = int(c)
				}
				for _, row := range body["value"].([]any) {
					got = append(got, [2]string{memberID(row, "Book"), memberID(row, "Author")})
				}
				next, _ = body["@odata.nextLink"].(string)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: rows (-want +got):\n%s", tc.name, diff)
			}
			if count != tc.count {
				t.Errorf("%s: @odata.count = %d, want %d", tc.name, count, tc.count)
			}
		}
	})
}

// memberID returns the key of the member set of a cross join's row: the Id of its expanded entity, or the key
// in its navigation link.
func memberID(row any, set string) string {
	m := row.(map[string]any)
	if e, ok := m[set].(map[string]any); ok {
		id, _ := e["Id"].(string)
		return id
	}
	link, _ := m[set+"@odata.navigationLink"].(string)
	_, key, _ := strings.Cut(link, set+"('")
	return strings.TrimSuffix(key, "')")
}

// TestCrossJoin_Answers checks the errors and formats of cross joins (SQLite only: the answers are decided
// before or apart from the SQL).
func TestCrossJoin_Answers(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	f.seed()
	cases := []struct {
		name, path  string
		headers     []string
		status      int
		has, hasNot []string
	}{
		{"an unknown set", "/odata/$crossjoin(Book,Nope)", nil, 404, []string{"no entity set Nope"}, nil},
		{"a set twice", "/odata/$crossjoin(Book,Book)", nil, 400, []string{"Book twice"}, nil},
		{"past the limit of sets", "/odata/$crossjoin(Book,Author,Publisher,Loan,Member)", nil, 400, []string{`"LimitExceeded"`, "at most 4"}, nil},
		{"at the limit of sets", "/odata/$crossjoin(Book,Author,Publisher,Loan)?$count=true&$top=1", nil, 200, []string{`"@odata.count":6`}, nil},
		{"one set", "/odata/$crossjoin(Author)?$expand=Author($select=Name)", nil, 200, []string{`{"Author":{"@odata.id":"http://example.com/odata/Author('a1')"`}, nil},
		{"names of sets without regard to case", "/odata/$crossjoin(book,AUTHOR)?$filter=BOOK/Pages gt 250 and Author/Name eq 'Ada'&$expand=author($select=Name)&$select=Author,book",
			nil, 200, []string{`{"Book@odata.navigationLink":"http://example.com/odata/Book('b3')","Author":{"@odata.id":"http://example.com/odata/Author('a1')"`}, nil},
		{"a path without a set", "/odata/$crossjoin(Book,Author)?$filter=Title eq 'Alpha'", nil, 400, []string{`"UnknownProperty"`, "starts with the name of one of its entity sets"}, nil},
		{"$it", "/odata/$crossjoin(Book,Author)?$orderby=$it/Title", nil, 400, []string{`"UnknownProperty"`}, nil},
		{"an unknown property", "/odata/$crossjoin(Book,Author)?$filter=Book/Nope eq 1", nil, 400, []string{`"UnknownProperty"`, "Nope"}, nil},
		{"a type mismatch", "/odata/$crossjoin(Book,Author)?$filter=Book/Pages eq Author/Name", nil, 400, []string{`"TypeMismatch"`}, nil},
		{"$orderby of an entity", "/odata/$crossjoin(Book,Author)?$orderby=Book", nil, 400, []string{`"TypeMismatch"`}, nil},
		{"$select of a property", "/odata/$crossjoin(Book,Author)?$select=Book/Title", nil, 400, []string{"names its entity sets"}, nil},
		{"$expand of an unknown set", "/odata/$crossjoin(Book,Author)?$expand=Publisher", nil, 400, []string{"names its entity sets"}, nil},
		{"$expand twice", "/odata/$crossjoin(Book,Author)?$expand=Book,*", nil, 400, []string{"expanded twice"}, nil},
		{"nested $top", "/odata/$crossjoin(Book,Author)?$expand=Book($top=1)", nil, 400, []string{"$top does not apply to a member"}, nil},
		{"$ref of a member", "/odata/$crossjoin(Book,Author)?$expand=Book/$ref", nil, 501, []string{`"NotImplemented"`}, nil},
		{"$search", "/odata/$crossjoin(Book,Author)?$search=Alpha", nil, 501, []string{`"NotImplemented"`}, nil},
		{"$apply that does not aggregate", "/odata/$crossjoin(Book,Author)?$apply=filter(Book/Pages gt 1)", nil, 501, []string{`"NotImplemented"`, "$apply"}, nil},
		{"a GET of its /$query (POST only)", "/odata/$crossjoin(Book,Author)/$query", nil, 405, []string{"allowed: POST"}, nil},
		{"a tampered $skiptoken", "/odata/$crossjoin(Book,Author)?$skiptoken=WzEsMl0", nil, 400, []string{`"InvalidValue"`}, nil},
		{"odata.metadata=none", "/odata/$crossjoin(Book,Author)?$top=1&$expand=Author($select=Name)", []string{"Accept", "application/json;odata.metadata=none"},
			200, []string{`{"value":[{"Author":{"Name":"Ada"}}]}`}, []string{"navigationLink", "@odata.context"}},
		{"odata.metadata=full", "/odata/$crossjoin(Book,Author)?$top=1&$expand=Author($select=Name)", []string{"Accept", "application/json;odata.metadata=full"},
			200, []string{`"Book@odata.navigationLink":"http://example.com/odata/Book('b1')"`, `"@odata.type":"#Lib.Author"`, `"Books@odata.navigationLink":"http://example.com/odata/Author('a1')/Books"`}, nil},
	}
	for _, tc := range cases {
		resp := f.do("GET", encodeURL(tc.path), "", tc.headers...)
		if resp.Status != tc.status {
			t.Errorf("%s: GET %s = %d, want %d\n%s", tc.name, tc.path, resp.Status, tc.status, resp.Body)
			continue
		}
		checkBody(t, tc.name, resp.Body, tc.has, tc.hasNot)
	}
	if resp := f.do("POST", "/odata/$crossjoin(Book,Author)", "{}"); resp.Status != 405 || resp.Header.Get("Allow") != "GET" {
		t.Errorf("POST $crossjoin = %d, Allow %q, want 405 and GET", resp.Status, resp.Header.Get("Allow"))
	}
}

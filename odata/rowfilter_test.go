package odata_test

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// principalKey is the context key under which the tests' embedding service puts the principal.
type principalKey struct{}

// bookReadFilter is the row filter of Book in the tests: reader "r1" does not see Beta (b2), reader "r2" does
// not see Alpha (b1), "admin" sees every book, "plus" sees Alpha (a
// filter whose literal holds characters a query string encodes), "unknown" and "alias" have filters that do not
// bind (a row filter cannot use the client's parameter aliases), and a request without principal is refused.
func bookReadFilter(ctx context.Context) (string, error) {
	switch principal, _ := ctx.Value(principalKey{}).(string); principal {
	case "r1":
		return "Title ne 'Beta'", nil
	case "r2":
		return "Title ne 'Alpha'", nil
	case "admin":
		return "", nil
	case "unknown":
		return "Nope eq 1", nil
	case "alias":
		return "Title ne @p", nil
	case "plus":
		return "Title eq 'C++ 100%' or Title eq 'Alpha'", nil
	}
	return "", odata.Forbidden("No principal.")
}

// newRowFilterFixture is the library fixture, seeded, with bookReadFilter on Book and a loan of the hidden b2.
func newRowFilterFixture(t *testing.T, db *dbtest.DB) *fixture {
	f := newFixtureWith(t, db, func(cfg *odata.Config) {
		book := cfg.Sets["Book"]
		book.ReadFilter = bookReadFilter
		cfg.Sets["Book"] = book
	})
	f.seed()
	f.exec(`INSERT INTO loan (book_id, member_no, due) VALUES ('b2', 8, NULL)`)
	return f
}

// checkBody reports the texts of has that the answer body of the request named by label lacks, and those of
// hasNot that it holds.
func checkBody(t *testing.T, label, body string, has, hasNot []string) {
	t.Helper()
	for _, s := range has {
		if !strings.Contains(body, s) {
			t.Errorf("%.100s: the answer lacks %s\n%.800s", label, s, body)
		}
	}
	for _, s := range hasNot {
		if strings.Contains(body, s) {
			t.Errorf("%.100s: the answer holds %s\n%.800s", label, s, body)
		}
	}
}

// doAs sends a request with principal in its context.
func (f *fixture) doAs(principal, method, path, body string) response {
	f.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, "http://example.com"+path, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if principal != "" {
		req = req.WithContext(context.WithValue(req.Context(), principalKey{}, principal))
	}
	w := httptest.NewRecorder()
	f.svc.ServeHTTP(w, req)
	return response{Status: w.Code, Header: w.Header(), Body: w.Body.String()}
}

// TestRowFilterBypass reaches the hidden book b2 (Beta) by every access path as reader r1: none answers it or a
// count that includes it.
func TestRowFilterBypass(t *testing.T) {
	cases := []struct {
		name, method, path, body string
		status                   int
		has, hasNot              []string
	}{
		{"collection", "GET", "/odata/Book", "", 200, []string{`"b1"`, `"b3"`}, []string{"Beta", `"b2"`}},
		{"collection with $count", "GET", "/odata/Book?$count=true", "", 200, []string{`"@odata.count":2`}, []string{"Beta"}},
		{"$filter naming the hidden row", "GET", "/odata/Book?$filter=Id%20eq%20'b2'", "", 200, []string{`"value":[]`}, nil},
		{"by key", "GET", "/odata/Book('b2')", "", 404, nil, []string{"Beta"}},
		{"property of a hidden entity", "GET", "/odata/Book('b2')/Title", "", 404, nil, []string{"Beta"}},
		{"$count", "GET", "/odata/Book/$count", "", 200, []string{"2"}, nil},
		{"navigation to the set", "GET", "/odata/Author('a2')/Books", "", 200, []string{`"value":[]`}, nil},
		{"navigation $count", "GET", "/odata/Author('a1')/Books/$count", "", 200, []string{"1"}, nil},
		{"navigation by key to a hidden row", "GET", "/odata/Publisher('p1')/Books('b2')", "", 404, nil, []string{"Beta"}},
		{"navigation through a hidden row", "GET", "/odata/Book('b2')/Chapters", "", 404, nil, []string{"Uno"}},
		{"contained entity of a hidden row", "GET", "/odata/Book('b2')/Chapters('c3')", "", 404, nil, []string{"Uno"}},
		{"single-valued navigation to a hidden row", "GET", "/odata/Loan(BookId='b2',MemberNo=8)/Book", "", 204, nil, []string{"Beta"}},
		{"$expand from another set", "GET", "/odata/Author?$expand=Books", "", 200, []string{"Alpha"}, []string{"Beta"}},
		{"$expand with $count", "GET", "/odata/Author('a1')?$expand=Books($count=true)", "", 200, []string{`"Books@odata.count":1`}, []string{"Beta"}},
		{"$expand $count only", "GET", "/odata/Author('a2')?$expand=Books/$count", "", 200, []string{`"Books@odata.count":0`}, nil},
		{"$expand $ref", "GET", "/odata/Author('a2')?$expand=Books/$ref", "", 200, []string{`"Books":[]`}, []string{"b2"}},
		{"$expand to-one", "GET", "/odata/Loan?$expand=Book", "", 200, []string{"Alpha", `"Book":null`}, []string{"Beta"}},
		{"$expand with a $filter", "GET", "/odata/Publisher?$expand=Books($filter=Title%20eq%20'Beta')", "", 200, []string{`"Books":[]`}, nil},
		{"any()", "GET", "/odata/Author?$filter=Books/any()", "", 200, []string{`"a1"`}, []string{`"a2"`}},
		{"any over the hidden row", "GET", "/odata/Author?$filter=Books/any(b:b/Title%20eq%20'Beta')", "", 200, []string{`"value":[]`}, nil},
		{"all", "GET", "/odata/Author?$filter=Books/all(b:b/Title%20ne%20'Beta')&$select=Id", "", 200, []string{`"a1"`, `"a2"`}, nil},
		{"$count in $filter", "GET", "/odata/Author?$filter=Books/$count%20eq%202", "", 200, []string{`"value":[]`}, nil},
		{"to-one path in $filter", "GET", "/odata/Loan?$filter=Book/Title%20eq%20'Beta'", "", 200, []string{`"value":[]`}, nil},
		{"to-one path is null", "GET", "/odata/Loan?$filter=Book%20eq%20null", "", 200, []string{`"MemberNo":8`}, nil},
		{"to-one path in $orderby", "GET", "/odata/Loan?$orderby=Book/Title%20desc&$select=BookId", "", 200, []string{`"value":[{"@odata.id":"http://example.com/odata/Loan(BookId='b1'`}, nil},
		{"$batch", "POST", "/odata/$batch", `{"requests":[{"id":"1","method":"GET","url":"Book('b2')"},{"id":"2","method":"GET","url":"Book/$count"},{"id":"3","method":"PATCH","url":"Book('b2')","body":{"Title":"X"}}]}`,
			200, []string{`"status":404`}, []string{"Beta", `"status":200`}},
		{"$ref path", "GET", "/odata/Author('a2')/Books/$ref", "", 200, []string{`"value":[]`}, []string{"b2"}},
		{"$ref to a hidden row", "POST", "/odata/Publisher('p1')/Books/$ref", `{"@odata.id":"Book('b2')"}`, 400, nil, []string{"Beta"}},
		{"$ref from a hidden row", "PUT", "/odata/Book('b2')/Publisher/$ref", `{"@odata.id":"Publisher('p1')"}`, 404, nil, nil},
		{"$apply groups the visible rows", "GET", "/odata/Book?$apply=groupby((Title))", "", 200, []string{`{"Title":"Alpha"}`}, []string{"Beta"}},
		{"$apply joins the visible rows", "GET", "/odata/Publisher?$apply=join(Books%20as%20B)/groupby((B/Title))", "", 200,
			[]string{`{"B":{"Title":"Alpha"}}`}, []string{"Beta"}},
		{"$apply nests the visible rows", "GET", "/odata/Book?$apply=nest(groupby((Title))%20as%20T)", "", 200, []string{`{"Title":"Alpha"}`}, []string{"Beta"}},
		{"$apply adds the visible related rows", "GET", "/odata/Publisher?$apply=addnested(Books,groupby((Title))%20as%20B)", "", 200,
			[]string{`"B":[{"Title":"Alpha"},{"Title":"Gamma"}]`}, []string{"Beta"}},
		{"$crossjoin", "GET", "/odata/$crossjoin(Book,Author)", "", 200, []string{"Book('b1')", "Book('b3')"}, []string{"Book('b2')"}},
		{"$crossjoin with $count", "GET", "/odata/$crossjoin(Author,Book)?$count=true&$top=0", "", 200, []string{`"@odata.count":4`}, nil},
		{"$crossjoin expanded", "GET", "/odata/$crossjoin(Book,Publisher)?$expand=Book", "", 200, []string{"Alpha"}, []string{"Beta"}},
		{"$crossjoin filtered on the hidden row", "GET", "/odata/$crossjoin(Book,Author)?$filter=Book/Title%20eq%20'Beta'", "", 200, []string{`"value":[]`}, nil},
		{"$crossjoin through a to-one path", "GET", "/odata/$crossjoin(Loan,Author)?$filter=Loan/Book/Title%20eq%20'Beta'", "", 200, []string{`"value":[]`}, nil},
		{"PATCH a hidden row", "PATCH", "/odata/Book('b2')", `{"Title":"Changed"}`, 404, nil, nil},
		{"PUT a hidden row", "PUT", "/odata/Book('b2')", `{"Title":"Changed"}`, 404, nil, nil},
		{"DELETE a hidden row", "DELETE", "/odata/Book('b2')", "", 404, nil, nil},
		{"insert into a collection of a hidden row", "POST", "/odata/Book('b2')/Tags?$index=0", `{"value":"x"}`, 404, nil, nil},
		{"a member of a collection of a hidden row", "DELETE", "/odata/Book('b2')/Tags/0", "", 404, nil, nil},
		{"action bound to a hidden row", "POST", "/odata/Book('b2')/Rate", `{"Stars":4}`, 404, nil, nil},
		{"action through a navigation to a hidden row", "POST", "/odata/Publisher('p1')/Books('b2')/Rate", `{"Stars":4}`, 404, nil, nil},
		{"create of a hidden row", "POST", "/odata/Book", `{"Title":"Beta"}`, 403, nil, nil},
		{"update into a hidden row", "PATCH", "/odata/Book('b1')", `{"Title":"Beta"}`, 403, nil, nil},
		{"create of a visible row", "POST", "/odata/Book", `{"Title":"Delta"}`, 201, []string{"Delta"}, nil},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newRowFilterFixture(t, db)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f.t = t
				resp := f.doAs("r1", tc.method, tc.path, tc.body)
				if resp.Status != tc.status {
					t.Fatalf("%s %s = %d, want %d\n%s", tc.method, tc.path, resp.Status, tc.status, resp.Body)
				}
				checkBody(t, tc.method+" "+tc.path, resp.Body, tc.has, tc.hasNot)
			})
		}
		f.t = t
		// Nothing the refused or 404 writes tried reached the database.
		for path, want := range map[string]string{
			"/odata/Book('b2')/Title": `"Beta"`, "/odata/Book('b1')/Title": `"Alpha"`,
			"/odata/Book/$count": "4", "/odata/Book?$filter=Title%20eq%20'Beta'&$select=Rating": `"Rating":null`,
		} {
			if resp := f.doAs("admin", "GET", path, ""); resp.Status != 200 || !strings.Contains(resp.Body, want) {
				t.Errorf("admin GET %s = %d %s, want %s", path, resp.Status, resp.Body, want)
			}
		}
	})
}

// TestRowFilterPrincipals checks that the plan of one principal never serves another: the same queries, in turn,
// hide another book.
func TestRowFilterPrincipals(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newRowFilterFixture(t, db)
		cases := []struct {
			principal, path string
			status          int
		}{
			{"r1", "/odata/Book('b2')", 404},
			{"r2", "/odata/Book('b2')", 200},
			{"r2", "/odata/Book('b1')", 404},
			{"r1", "/odata/Book('b1')", 200},
			{"admin", "/odata/Book('b1')", 200},
			{"admin", "/odata/Book('b2')", 200},
			{"", "/odata/Book('b1')", 403},
			{"", "/odata/Author?$expand=Books", 403},
			{"", "/odata/Publisher", 403},
			{"unknown", "/odata/Book", 500},
			{"alias", "/odata/Book?@p='Beta'", 500},
			{"alias", "/odata/Author?$expand=Books&@p='Beta'", 500},
			{"alias", "/odata/Loan?$filter=Book/Title%20eq%20@p&@p='Beta'", 500},
		}
		for _, tc := range cases {
			if resp := f.doAs(tc.principal, "GET", tc.path, ""); resp.Status != tc.status {
				t.Errorf("%q GET %s = %d, want %d\n%s", tc.principal, tc.path, resp.Status, tc.status, resp.Body)
			}
		}
		counts := []struct{ principal, path, want string }{
			{"r1", "/odata/Book/$count", "2"},
			{"r2", "/odata/Book/$count", "2"},
			{"admin", "/odata/Book/$count", "3"},
			{"r1", "/odata/Author('a1')/Books/$count", "1"},
			{"r2", "/odata/Author('a1')/Books/$count", "1"},
			{"admin", "/odata/Author('a1')/Books/$count", "2"},
			{"r1", "/odata/Author?$filter=Books/$count%20eq%202&$select=Id", `"value":[]`},
			{"admin", "/odata/Author?$filter=Books/$count%20eq%202&$select=Id", `"a1"`},
			{"plus", "/odata/Book/$count", "1"},
		}
		for _, tc := range counts {
			if resp := f.doAs(tc.principal, "GET", tc.path, ""); !strings.Contains(resp.Body, tc.want) {
				t.Errorf("%s: GET %s = %d %s, want %s", tc.principal, tc.path, resp.Status, resp.Body, tc.want)
			}
		}
	})
}

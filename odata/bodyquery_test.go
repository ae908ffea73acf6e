package odata_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// postQuery sends POST path with the query options body, of the content type given ("" for none), as principal
// ("" for none).
func (f *fixture) postQuery(principal, path, contentType, body string) response {
	f.t.Helper()
	req := httptest.NewRequest("POST", "http://example.com"+path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if principal != "" {
		req = req.WithContext(context.WithValue(req.Context(), principalKey{}, principal))
	}
	w := httptest.NewRecorder()
	f.svc.ServeHTTP(w, req)
	return response{Status: w.Code, Header: w.Header(), Body: w.Body.String()}
}

// bodyQueryCases are POSTs to /$query and the GETs they stand for (OData 4.01 URL Conventions 4.17), sent by
// the same principal: each POST must be answered exactly as its GET, status and body.
var bodyQueryCases = []struct {
	name, principal, post, body, get string
}{
	{"entity set", "admin", "/odata/Book/$query", "$filter=Title%20eq%20'Alpha'&$select=Title",
		"/odata/Book?$filter=Title%20eq%20'Alpha'&$select=Title"},
	{"form-encoded spaces and options without $", "admin", "/odata/Book/$query", "filter=Pages+gt+100&orderby=Title+desc&count=true",
		"/odata/Book?filter=Pages+gt+100&orderby=Title+desc&count=true"},
	{"entity", "admin", "/odata/Book('b1')/$query", "$select=Title,Pages", "/odata/Book('b1')?$select=Title,Pages"},
	{"navigation", "admin", "/odata/Author('a1')/Books/$query", "$orderby=Title%20desc&$expand=Authors($select=Name)",
		"/odata/Author('a1')/Books?$orderby=Title%20desc&$expand=Authors($select=Name)"},
	{"options in the URL and in the body", "admin", "/odata/Book/$query?$select=Title", "$filter=Pages%20lt%20300&@p=100",
		"/odata/Book?$select=Title&$filter=Pages%20lt%20300&@p=100"},
	{"parameter alias from the body used in the URL", "admin", "/odata/Book/$query?$filter=Pages%20gt%20@p", "@p=100",
		"/odata/Book?$filter=Pages%20gt%20@p&@p=100"},
	{"paging", "admin", "/odata/Book/$query", "$top=2&$orderby=Title", "/odata/Book?$top=2&$orderby=Title"},
	{"$crossjoin", "admin", "/odata/$crossjoin(Book,Author)/$query", "$filter=Book/Pages%20eq%20100&$expand=Author",
		"/odata/$crossjoin(Book,Author)?$filter=Book/Pages%20eq%20100&$expand=Author"},
	{"a final line break", "admin", "/odata/Book/$query", "$select=Title\n", "/odata/Book?$select=Title"},
	{"syntax error", "admin", "/odata/Book/$query", "$filter=Title%20eq", "/odata/Book?$filter=Title%20eq"},
	{"unknown property", "admin", "/odata/Book/$query", "$select=Nope", "/odata/Book?$select=Nope"},
	{"row filter", "r1", "/odata/Book/$query", "$filter=Id%20eq%20'b2'", "/odata/Book?$filter=Id%20eq%20'b2'"},
	{"row filter, whole set", "r1", "/odata/Book/$query", "$count=true", "/odata/Book?$count=true"},
	{"row filter, by key", "r1", "/odata/Book('b2')/$query", "$select=Title", "/odata/Book('b2')?$select=Title"},
	{"row filter, no principal", "", "/odata/Book/$query", "$select=Title", "/odata/Book?$select=Title"},
}

// TestQueryInBody answers each POST to /$query as the GET it stands for, on SQLite and PostgreSQL, row filters
// included.
func TestQueryInBody(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newRowFilterFixture(t, db)
		for _, c := range bodyQueryCases {
			t.Run(c.name, func(t *testing.T) {
				f.t = t
				post := f.postQuery(c.principal, c.post, "text/plain; charset=utf-8", c.body)
				get := f.doAs(c.principal, "GET", c.get, "")
				if post.Status != get.Status {
					t.Fatalf("POST %s = %d, GET %s = %d\n%s", c.post, post.Status, c.get, get.Status, post.Body)
				}
				if diff := cmp.Diff(get.Body, post.Body); diff != "" {
					t.Errorf("POST %s answers other than GET %s (-get +post):\n%s", c.post, c.get, diff)
				}
			})
		}
	})
}

// TestQueryInBodyRedaction checks that POST /$query reveals no redacted value and refuses the queries that use
// one, as the GETs do.
func TestQueryInBodyRedaction(t *testing.T) {
	cases := []struct{ name, post, body, get string }{
		{"$select", "/odata/Book/$query", "$select=Isbn", "/odata/Book?$select=Isbn"},
		{"$filter", "/odata/Book/$query", "$filter=Price%20gt%204000", "/odata/Book?$filter=Price%20gt%204000"},
		{"$orderby", "/odata/Book/$query", "$orderby=Isbn", "/odata/Book?$orderby=Isbn"},
		{"whole entities", "/odata/Book/$query", "$filter=Id%20eq%20'b1'", "/odata/Book?$filter=Id%20eq%20'b1'"},
		{"$expand", "/odata/Publisher/$query", "$expand=Books", "/odata/Publisher?$expand=Books"},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newRedactionFixture(t, db)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				f.t = t
				post := f.postQuery("r1", c.post, "text/plain", c.body)
				get := f.doAs("r1", "GET", c.get, "")
				if post.Status != get.Status || post.Body != get.Body {
					t.Errorf("POST %s = %d %s\nGET %s = %d %s", c.post, post.Status, post.Body, c.get, get.Status, get.Body)
				}
				if got := revealed(post.Body); len(got) > 0 {
					t.Errorf("POST %s reveals %v:\n%s", c.post, got, post.Body)
				}
			})
		}
	})
}

// TestQueryInBodyRefused checks the requests to /$query that are refused (another method, another media type, a
// body past its limit, an option in both the URL and the body, an expression past its limit) and the CSRF token
// fetch that SAP clients send before a POST, answered 200 without a body.
func TestQueryInBodyRefused(t *testing.T) {
	cases := []struct {
		name, method, path, header, body string
		status                           int
		has                              string
	}{
		{"GET", "GET", "/odata/Book/$query", "", "", 405, "allowed: POST"},
		{"HEAD without a CSRF token fetch", "HEAD", "/odata/Book/$query", "", "", 405, ""},
		{"CSRF token fetch", "HEAD", "/odata/Book/$query", "X-CSRF-Token: Fetch", "", 200, ""},
		{"PATCH", "PATCH", "/odata/Book/$query", "Content-Type: text/plain", "$top=1", 405, "allowed: POST"},
		{"JSON", "POST", "/odata/Book/$query", "Content-Type: application/json", `{"$top":1}`, 415, "text/plain"},
		{"no content type", "POST", "/odata/Book/$query", "", "$top=1", 415, "text/plain"},
		{"body past the limit", "POST", "/odata/Book/$query", "Content-Type: text/plain", "$filter=" + strings.Repeat("x", 2<<20), 413, "limit"},
		{"system option in both", "POST", "/odata/Book/$query?$top=1", "Content-Type: text/plain", "top=2", 400, "$top"},
		{"alias in both", "POST", "/odata/Book/$query?@p=1", "Content-Type: text/plain", "@p=2", 400, "@p"},
		{"expression past its limit", "POST", "/odata/Book/$query", "Content-Type: text/plain",
			"$filter=Title%20eq%20'" + strings.Repeat("x", 20<<10) + "'", 400, "LimitExceeded"},
		{"$query not last", "POST", "/odata/Book/$query/$count", "Content-Type: text/plain", "", 400, ""},
		{"unknown set", "POST", "/odata/Nope/$query", "Content-Type: text/plain", "$top=1", 404, "Nope"},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				req := httptest.NewRequest(c.method, "http://example.com"+c.path, strings.NewReader(c.body))
				if name, value, ok := strings.Cut(c.header, ": "); ok {
					req.Header.Set(name, value)
				}
				w := httptest.NewRecorder()
				f.svc.ServeHTTP(w, req)
				if w.Code != c.status || !strings.Contains(w.Body.String(), c.has) {
					t.Errorf("%s %s = %d %.300s, want %d with %q", c.method, c.path, w.Code, w.Body.String(), c.status, c.has)
				}
				if c.status == 405 && w.Header().Get("Allow") != "POST" || c.status == 200 && w.Body.Len() > 0 {
					t.Errorf("%s %s: Allow = %q (want POST), body %q", c.method, c.path, w.Header().Get("Allow"), w.Body.String())
				}
			})
		}
	})
}

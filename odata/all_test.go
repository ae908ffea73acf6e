package odata_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// allPage is the part of an answer of $all the tests read.
type allPage struct {
	Context  string `json:"@odata.context"`
	Count    *int64 `json:"@odata.count"`
	NextLink string `json:"@odata.nextLink"`
	Value    []struct {
		Type string `json:"@odata.type"`
		ID   string `json:"@odata.id"`
	} `json:"value"`
}

// walkAll follows the next links of a read of path as principal, with headers, and returns the ids of the
// entities of every page (without the service root), the count of the first page (-1 for none) and the number
// of pages.
func (f *fixture) walkAll(principal, path string, headers ...string) (ids []string, count int64, pages int) {
	f.t.Helper()
	count = -1
	for path != "" && pages < 50 {
		resp := f.doAsWith(principal, "GET", path, headers...)
		if resp.Status != 200 {
			f.t.Fatalf("GET %s = %d %s", path, resp.Status, resp.Body)
		}
		var page allPage
		if err := json.Unmarshal([]byte(resp.Body), &page); err != nil {
			f.t.Fatalf("GET %s: %v\n%s", path, err, resp.Body)
		}
		if !strings.HasSuffix(page.Context, "$metadata#Collection(Edm.EntityType)") {
			f.t.Errorf("GET %s: context %q", path, page.Context)
		}
		if pages == 0 && page.Count != nil {
			count = *page.Count
		}
		for _, v := range page.Value {
			id := strings.TrimPrefix(v.ID, "http://example.com/odata/")
			if v.Type == "" || !strings.HasPrefix(id, strings.TrimPrefix(v.Type, "#Lib.")) {
				f.t.Errorf("GET %s: entity %q of type %q", path, v.ID, v.Type)
			}
			ids = append(ids, id)
		}
		path = strings.TrimPrefix(page.NextLink, "http://example.com")
		pages++
	}
	return ids, count, pages
}

// doAsWith sends a request without body as principal ("" for none), headers in name, value pairs.
func (f *fixture) doAsWith(principal, method, path string, headers ...string) response {
	f.t.Helper()
	req := httptest.NewRequest(method, "http://example.com"+path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if principal != "" {
		req = req.WithContext(context.WithValue(req.Context(), principalKey{}, principal))
	}
	w := httptest.NewRecorder()
	f.svc.ServeHTTP(w, req)
	return response{Status: w.Code, Header: w.Header(), Body: w.Body.String()}
}

// everything is what $all holds for reader r1 of the row filter fixture, in order: the sets as the model
// declares them, each in key order, without the hidden book b2.
var everything = []string{"Publisher('p1')", "Author('a1')", "Author('a2')", "Book('b1')", "Book('b3')",
	"Loan(BookId='b1',MemberNo=7)", "Loan(BookId='b2',MemberNo=8)", "Member('Reader@Example.com')"}

// TestAll reads $all page by page, on SQLite and PostgreSQL, as a reader with a row filter on Book: every page
// size, $top and $skip across the sets, $count, a type cast, options applied to each set.
func TestAll(t *testing.T) {
	cases := []struct {
		name, path string
		pageSize   string
		want       []string
		count      int64
		pages      int
	}{
		{"one page", "/odata/$all", "", everything, -1, 1},
		{"pages of 1", "/odata/$all", "1", everything, -1, len(everything)},
		{"pages of 2", "/odata/$all?$count=true", "2", everything, int64(len(everything)), 4},
		{"pages of 3", "/odata/$all", "3", everything, -1, 3},
		{"$top across sets", "/odata/$all?$top=4", "", everything[:4], -1, 1},
		{"$top across pages", "/odata/$all?$top=5&$count=true", "2", everything[:5], int64(len(everything)), 3},
		{"$skip across sets", "/odata/$all?$skip=4", "", everything[4:], -1, 1},
		{"$skip and $top across pages", "/odata/$all?$skip=2&$top=4", "3", everything[2:6], -1, 2},
		{"$skip past the end", "/odata/$all?$skip=100&$count=true", "", nil, int64(len(everything)), 1},
		{"type cast", "/odata/$all/Lib.Book?$count=true", "1", []string{"Book('b1')", "Book('b3')"}, 2, 2},
		{"type cast with options", "/odata/$all/Lib.Book?$filter=Pages%20gt%20100&$select=Title&$orderby=Title%20desc", "",
			[]string{"Book('b3')"}, -1, 1},
		{"type cast, the hidden row by name", "/odata/$all/Lib.Book?$filter=Id%20eq%20'b2'", "", nil, -1, 1},
		{"$search in the sets that can be searched", "/odata/$all?$search=Gamma%20OR%20Alpha", "", []string{"Book('b1')", "Book('b3')"}, -1, 1},
		{"$search for the hidden row", "/odata/$all?$search=Beta", "", nil, -1, 1},
		{"type cast with $expand", "/odata/$all/Lib.Book?$expand=Authors&$orderby=Title%20desc", "1",
			[]string{"Book('b3')", "Book('b1')"}, -1, 2},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newRowFilterFixture(t, db)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				f.t = t
				var headers []string
				if c.pageSize != "" {
					headers = []string{"Prefer", "odata.maxpagesize=" + c.pageSize}
				}
				ids, count, pages := f.walkAll("r1", c.path, headers...)
				if diff := cmp.Diff(c.want, ids); diff != "" {
					t.Errorf("GET %s: ids (-want +got):\n%s", c.path, diff)
				}
				if count != c.count || pages != c.pages {
					t.Errorf("GET %s: count %d in %d pages, want %d in %d", c.path, count, pages, c.count, c.pages)
				}
			})
		}
	})
}

// TestAllAnswers checks what is not a page of entities: the errors of $all, its POST /$query form, and that no
// row of a set the principal may not read and no redacted value appears.
func TestAllAnswers(t *testing.T) {
	cases := []struct {
		name, principal, method, path, body string
		status                              int
		has, hasNot                         []string
	}{
		{"unknown type", "admin", "GET", "/odata/$all/Lib.Nope", "", 404, []string{"Lib.Nope"}, nil},
		{"POST", "admin", "POST", "/odata/$all", "", 405, []string{"GET"}, nil},
		{"$filter on a property not every set has", "admin", "GET", "/odata/$all?$filter=Title%20eq%20'Alpha'", "", 400, []string{"Title"}, nil},
		{"bad $skiptoken", "admin", "GET", "/odata/$all?$skiptoken=99.x", "", 400, []string{"$skiptoken"}, nil},
		{"no principal: the row filter refuses", "", "GET", "/odata/$all", "", 403, nil, []string{"Alpha"}},
		{"row filter", "r1", "GET", "/odata/$all", "", 200, []string{"Alpha", "Gamma"}, []string{"Beta"}},
		{"$query", "r1", "POST", "/odata/$all/$query", "$top=1&$count=true", 200,
			[]string{`"@odata.count":8`, "Publisher('p1')"}, []string{"Author('a1')"}},
		{"$query with a cast", "r1", "POST", "/odata/$all/Lib.Book/$query", "$filter=Id%20eq%20'b2'", 200, []string{`"value":[]`}, nil},
		{"$batch parts", "r1", "POST", "/odata/$batch", `{"requests":[` +
			`{"id":"1","method":"POST","url":"Book/$query","headers":{"content-type":"text/plain"},"body":"$orderby=Title%20desc&$select=Title"},` +
			`{"id":"2","method":"GET","url":"$all/Lib.Book?$count=true"}]}`, 200,
			[]string{`"value":[{"@odata.id":"http://example.com/odata/Book('b3')"`, `"@odata.count":2`, `"@odata.type":"#Lib.Book"`}, []string{"Beta"}},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newRowFilterFixture(t, db)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				f.t = t
				var resp response
				if strings.HasSuffix(c.path, "/$query") && c.body != "" {
					resp = f.postQuery(c.principal, c.path, "text/plain", c.body)
				} else {
					resp = f.doAs(c.principal, c.method, c.path, c.body)
				}
				if resp.Status != c.status {
					t.Errorf("%s %s = %d, want %d\n%s", c.method, c.path, resp.Status, c.status, resp.Body)
				}
				checkBody(t, c.method+" "+c.path, resp.Body, c.has, c.hasNot)
			})
		}
	})
}

// TestAllRedaction reads $all as principal r1 of the redaction fixture: no redacted value appears, and a query
// that uses one is refused as the GET of its set refuses it.
func TestAllRedaction(t *testing.T) {
	cases := []struct{ all, set string }{
		{"/odata/$all", ""},
		{"/odata/$all/Lib.Book?$select=Isbn", "/odata/Book?$select=Isbn"},
		{"/odata/$all/Lib.Book?$filter=Price%20gt%204000", "/odata/Book?$filter=Price%20gt%204000"},
		{"/odata/$all/Lib.Author?$orderby=Email", "/odata/Author?$orderby=Email"},
		{"/odata/$all/Lib.Publisher?$expand=Books", "/odata/Publisher?$expand=Books"},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newRedactionFixture(t, db)
		for _, c := range cases {
			t.Run(c.all, func(t *testing.T) {
				f.t = t
				all := f.doAs("r1", "GET", c.all, "")
				if got := revealed(all.Body); len(got) > 0 {
					t.Errorf("GET %s reveals %v:\n%s", c.all, got, all.Body)
				}
				if c.set == "" {
					if all.Status != 200 {
						t.Errorf("GET %s = %d %s", c.all, all.Status, all.Body)
					}
					return
				}
				set := f.doAs("r1", "GET", c.set, "")
				if all.Status != set.Status || set.Status != 200 && all.Body != set.Body {
					t.Errorf("GET %s = %d %s\nGET %s = %d %s", c.all, all.Status, all.Body, c.set, set.Status, set.Body)
				}
			})
		}
	})
}

// TestAllSingletons reads $all of a service with two singletons and no entity set, on SQLite and PostgreSQL: each
// singleton is one entity of $all with its own id, counted and paged as a set's entities are, and left out when
// the request filters or searches.
func TestAllSingletons(t *testing.T) {
	cases := []struct {
		path, pageSize string
		want           []string
		count          int64
		pages          int
	}{
		{"/$all?$count=true", "", []string{"Shop", "Notice"}, 2, 1},
		{"/$all/Site.Shop?$select=Name", "1", []string{"Shop", "Notice"}, -1, 2},
		{"/$all?$skip=1&$count=true", "", []string{"Notice"}, 2, 1},
		{"/$all?$top=1", "", []string{"Shop"}, -1, 1},
		{"/$all?$filter=Name%20eq%20'Corner'&$count=true", "", nil, 0, 1},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newSingletonService(t, db)
		for _, c := range cases {
			t.Run(c.path, func(t *testing.T) {
				f.t = t
				var headers []string
				if c.pageSize != "" {
					headers = []string{"Prefer", "odata.maxpagesize=" + c.pageSize}
				}
				var ids []string
				count, pages := int64(-1), 0
				for path := c.path; path != "" && pages < 10; pages++ {
					resp := f.doAsWith("", "GET", path, headers...)
					var page allPage
					if err := json.Unmarshal([]byte(resp.Body), &page); err != nil || resp.Status != 200 {
						t.Fatalf("GET %s = %d %s", path, resp.Status, resp.Body)
					}
					if pages == 0 && page.Count != nil {
						count = *page.Count
					}
					for _, v := range page.Value {
						if v.Type != "#Site.Shop" {
							t.Errorf("GET %s: type %q", path, v.Type)
						}
						ids = append(ids, strings.TrimPrefix(v.ID, "http://example.com/"))
					}
					path = strings.TrimPrefix(page.NextLink, "http://example.com")
				}
				if diff := cmp.Diff(c.want, ids); diff != "" || count != c.count || pages != c.pages {
					t.Errorf("GET %s: count %d in %d pages (want %d in %d), ids (-want +got):\n%s", c.path, count, pages, c.count, c.pages, diff)
				}
			})
		}
	})
}

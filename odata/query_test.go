package odata_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// queryCases are GETs whose whole answers (status, then the body, indented) are recorded in
// testdata/queries.golden: the same on SQLite and PostgreSQL. Queries are written plainly; the test
// percent-encodes what a URL cannot hold.
var queryCases = []string{
	// $filter, $orderby, $select (with member paths), $search, $top, $skip, $count.
	"Book?$filter=Pages gt 150&$select=Title,Pages",
	"Book?$filter=contains(Title,'a') and Price le 12.5&$orderby=Pages desc&$select=Title",
	"Book?$filter=Publisher/Name eq 'Penguin'&$select=Title",
	"Book?$filter=Publisher eq null&$select=Title",
	"Book?$filter=Authors/any(a:a/Name eq 'Brian')&$select=Title",
	"Book?$filter=Authors/$count ge 1 and not (Title eq 'Alpha')&$select=Title",
	"Book?$filter=Tags/any(t:t eq 'paper')&$select=Title,Tags",
	"Book?$filter=Genre eq Lib.Genre'Fiction' and Formats has Lib.Format'Paperback'&$select=Title&$top=1",
	"Book?$orderby=Publisher/Name desc,Title desc&$select=Title",
	"Book?$select=Size/Width,Title",
	"Publisher?$select=Address/City,Name",
	"Book?$search=alp OR gam&$select=Title",
	"Book?$search=\"BET\"&$count=true&$select=Title",
	"Book?$top=2&$skip=1&$count=true&$select=Title",
	"Book?$filter=Pages gt 150&$count=true&$top=1&$select=Id",
	"book?$FILTER=pages GT 150&select=title&$orderby=PAGES",
	"Book/$count?$filter=Pages gt 150",
	"Book/$count?$search=beta",
	// $expand: to-one (object or null), to-many (arrays), many-to-many, contained, nested options, $ref, $count.
	"Book?$expand=Publisher($select=Name)&$select=Title",
	"Publisher?$expand=Books($select=Title;$orderby=Pages desc;$top=1;$count=true)&$select=Name",
	"Publisher?$expand=Books/$count&$select=Name",
	"Book('b2')?$expand=Authors($select=Name;$expand=Books($select=Title;$orderby=Title desc))&$select=Title",
	"Book?$expand=Chapters($filter=Number gt 1;$select=Title),Authors/$ref&$select=Title",
	"Book('b1')?$expand=Chapters/$ref&$select=Id",
	"Author?$expand=Books($select=Title,Tags;$filter=Pages lt 300)&$select=Name",
	"Book?$expand=*&$select=Title&$top=1",
	"Loan?$expand=Book($select=Title)",
	"Member?$expand=Cards&$select=Email,Roles",
	"Book?$filter=Id eq 'b1'&$expand=Publisher($expand=Books($select=Title;$count=true))&$select=Title",
	// Navigation scopes.
	"Publisher('p1')/Books?$filter=Pages gt 100&$select=Title",
	"Book('b1')/Chapters?$orderby=Number desc&$select=Number",
	"Book('b1')/Chapters('c2')?$select=Title",
	"Author('a1')/Books/$count",
	"Book('b2')/Authors?$orderby=Name desc&$select=Name",
	"Member('READER@EXAMPLE.COM')/Cards?$select=Number",
	"Member('reader@example.com')?$select=Email,Roles",
	"Member?$filter=Roles/any(r:r eq 'admin')&$select=Email",
	"Book('b1')/Publisher?$select=Name",
	"Loan(BookId='b1',MemberNo=7)/Book?$select=Title",
	// Errors.
	"Book?$filter=Nope eq 1",
	"Book?$filter=Title eq 1",
	"Book?$orderby=Tags",
	"Book?$expand=Nope",
	"Book?$expand=Publisher($top=1)",
	"Book?$select=Size/Depth",
	"Book?$compute=Pages add 1 as P",
	"Book?$search=x&$filter=(",
	"Book('b1')?$filter=Pages gt 1",
	"Book?$filter=matchesPattern(Title,'(')",
	"Book?$top=-1",
	"Publisher('zz')/Books",
	"Publisher('zz')/Books/$count",
	"Book('zz')/Publisher",
	"Book('b3')/Publisher",
}

// TestService_Queries checks the answers of queryCases against testdata/queries.golden on every database.
func TestService_Queries(t *testing.T) {
	var got string
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newQueryFixture(t, db)
		var b strings.Builder
		b.WriteString("# Answers of TestService_Queries (go test -update rewrites this file).\n")
		for _, q := range queryCases {
			resp := f.do("GET", "/odata/"+encodeURL(q), "")
			fmt.Fprintf(&b, "\n### GET %s\n%d %s\n", q, resp.Status, resp.Header.Get("Content-Type"))
			b.WriteString(indentBody(t, resp.Body))
			if resp.Status >= 500 && resp.Status != 501 {
				t.Errorf("GET %s = %d, want no server error\n%s", q, resp.Status, resp.Body)
			}
		}
		text := b.String()
		path := filepath.Join("testdata", "queries.golden")
		if *update && db.Dialect.Name() == "sqlite" {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), text); diff != "" {
			t.Errorf("answers differ from %s (-want +got):\n%s", path, diff)
		}
		if got != "" && got != text {
			t.Errorf("answers differ between databases")
		}
		got = text
	})
}

// newQueryFixture is the seeded fixture with fixed creation times, so answers are reproducible.
func newQueryFixture(t *testing.T, db *dbtest.DB) *fixture {
	f := newFixture(t, db)
	f.seed()
	f.exec(`UPDATE book SET publisher_id = NULL, pages = 300, title = 'Gamma' WHERE id = 'b3'`)
	f.exec(`UPDATE book SET price = ? WHERE id = 'b2'`, priceArg(db, "20"))
	if db.Dialect.Name() == "sqlite" {
		f.exec(`UPDATE publisher SET created_on_utc = '2020-01-02T03:04:05.000000Z'`)
	} else {
		f.exec(`UPDATE publisher SET created_on_utc = '2020-01-02T03:04:05Z'`)
	}
	return f
}

// encodeURL percent-encodes the characters of a path and query written plainly that a URL cannot hold.
func encodeURL(s string) string {
	path, query, _ := strings.Cut(s, "?")
	path = strings.NewReplacer(" ", "%20", "'", "%27").Replace(path)
	if query == "" {
		return path
	}
	parts := strings.Split(query, "&")
	for i, p := range parts {
		name, value, ok := strings.Cut(p, "=")
		if ok {
			parts[i] = name + "=" + queryEscaper.Replace(value)
		}
	}
	return path + "?" + strings.Join(parts, "&")
}

var queryEscaper = strings.NewReplacer("%", "%25", " ", "%20", "&", "%26", "#", "%23", "\"", "%22", "+", "%2B")

// indentBody returns a JSON body indented (other bodies as they are), ending in a newline.
func indentBody(t *testing.T, body string) string {
	t.Helper()
	if body == "" {
		return ""
	}
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(body), "", "  "); err != nil {
		return body + "\n"
	}
	return strings.TrimRight(out.String(), "\n") + "\n"
}

// TestService_QueryDataErrors sends queries whose values a database may refuse to compute with: the answer is
// the result or a 400, never a server error.
func TestService_QueryDataErrors(t *testing.T) {
	long := strings.Repeat("x", 60000)
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newQueryFixture(t, db)
		pg := db.Dialect.Name() == "postgres"
		for _, c := range []struct {
			query      string
			sqlite, pg int
		}{
			{"Book?$filter=Pages mul 2147483647 mul 2147483647 mul 4 gt 0", 200, 400},
			{"Book?$filter=Pages add 9223372036854775807 gt 0", 200, 400},
			{"Book?$filter=matchesPattern(Title,concat('(',Title))", 400, 400},
			{"Book?$filter=Price div 0 gt 1", 200, 200},
			{"Book?$filter=Pages mod 0 eq 1", 200, 200},
			{"Book?$filter=contains(Title,'" + long + "')", 400, 200},
			{"Book?$orderby=Pages mul 9223372036854775807 mul 2", 200, 400},
		} {
			want := c.sqlite
			if pg {
				want = c.pg
			}
			resp := f.do("GET", "/odata/"+encodeURL(c.query), "")
			if resp.Status != want {
				t.Errorf("GET %.80s = %d, want %d\n%.300s", c.query, resp.Status, want, resp.Body)
				continue
			}
			if want == 400 {
				if e := decodeError(t, resp.Body); e.Code == "" || e.Message == "" {
					t.Errorf("GET %.80s: error body %s", c.query, resp.Body)
				}
			}
		}
	})
}

// TestService_ConcurrentReads sends the same reads from several goroutines at once (the plans, their row
// shapes and the statement caches are shared): every answer equals the one read alone.
func TestService_ConcurrentReads(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newQueryFixture(t, db)
		queries := []string{
			"Book?$expand=Authors($select=Name;$expand=Books($select=Title))&$select=Title",
			"Publisher?$expand=Books($select=Title;$count=true)",
			"Book('b1')?$select=Title,Tags",
			"Book?$filter=Pages gt 100&$orderby=Title desc",
			"Member('READER@example.com')/Cards",
		}
		want := map[string]string{}
		for _, q := range queries {
			want[q] = f.must(200, "GET", "/odata/"+encodeURL(q), "").Body
		}
		errs := make(chan string, 100)
		done := make(chan bool)
		for g := 0; g < 8; g++ {
			go func(g int) {
				defer func() { done <- true }()
				for i := 0; i < 20; i++ {
					q := queries[(g+i)%len(queries)]
					if resp := f.do("GET", "/odata/"+encodeURL(q), ""); resp.Status != 200 || resp.Body != want[q] {
						errs <- fmt.Sprintf("GET %s = %d %s", q, resp.Status, resp.Body)
						return
					}
				}
			}(g)
		}
		for g := 0; g < 8; g++ {
			<-done
		}
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	})
}

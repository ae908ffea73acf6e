package odata_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
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
	"Book?$search=alp* OR gam*&$select=Title",
	"Book?$search=\"BETA\"&$count=true&$select=Title",
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
		if *update && db.Dialect().Name() == "sqlite" {
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
	if db.Dialect().Name() == "sqlite" {
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
		pg := db.Dialect().Name() == "postgres"
		for _, c := range []struct {
			query      string
			sqlite, pg int
		}{
			{"Book?$filter=Pages mul 2147483647 mul 2147483647 mul 4 gt 0", 200, 400},
			{"Book?$filter=Pages add 9223372036854775807 gt 0", 200, 400},
			{"Book?$filter=matchesPattern(Title,concat('(',Title))", 400, 400},
			{"Book?$filter=Price div 0 gt 1", 200, 200},
			{"Book?$filter=Pages mod 0 eq 1", 200, 200},
			{"Book?$filter=contains(Title,'" + long + "')", 400, 400}, // past the literal limit (SPEC part 9)
			{"Book?$filter=contains(Title,'" + strings.Repeat("x", 1000) + "')", 200, 200},
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

// TestService_FormEncodedQueries sends queries as clients build them with url.Values.Encode (a space as "+",
// "+" and the delimiters ( ) = ; , $ ' percent-encoded): the answer is the one to the same query written
// plainly, and finds what the plain query finds.
func TestService_FormEncodedQueries(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newQueryFixture(t, db)
		f.exec(`UPDATE book SET title = 'Alpha Omega' WHERE id = 'b1'`)
		f.exec(`UPDATE book SET title = 'C++ in a Day' WHERE id = 'b2'`)
		for _, c := range []struct {
			path    string
			options [][2]string
			want    string // the titles or names of the answer, in order
		}{
			{"Book", [][2]string{{"$filter", "Title eq 'Alpha Omega'"}, {"$select", "Title"}}, "Alpha Omega"},
			{"Book", [][2]string{{"$filter", "Title eq 'C++ in a Day'"}, {"$select", "Title"}}, "C++ in a Day"},
			{"Book", [][2]string{{"$filter", "contains(Title,'+') or startswith(Title,'Alpha O')"}, {"$orderby", "Title"}, {"$select", "Title"}},
				"Alpha Omega|C++ in a Day"},
			{"Book", [][2]string{{"$filter", "Pages gt 150 and Price le 20"}, {"$orderby", "Pages desc"}, {"$select", "Title,Pages"}},
				"Gamma|C++ in a Day"},
			{"Book", [][2]string{{"$orderby", "Publisher/Name desc,Title desc"}, {"$select", "Title"}}, "C++ in a Day|Alpha Omega|Gamma"},
			{"Book", [][2]string{{"$search", "Alpha Omega"}, {"$select", "Title"}}, "Alpha Omega"},
			{"Book", [][2]string{{"$search", `"a Day" OR Gamma`}, {"$orderby", "Title"}, {"$select", "Title"}}, "C++ in a Day|Gamma"},
			{"Book", [][2]string{{"$search", "NOT Alpha"}, {"$orderby", "Title"}, {"$select", "Title"}}, "C++ in a Day|Gamma"},
			{"Book", [][2]string{{"$orderby", "Title"}, {"$top", "1"}, {"$skip", "1"}, {"$count", "true"}, {"$select", "Title"}}, "C++ in a Day"},
			{"Book", [][2]string{{"$filter", "Pages gt @p and Title ne @t"}, {"@p", "150"}, {"@t", "'C++ in a Day'"}, {"$select", "Title"}}, "Gamma"},
			{"Publisher", [][2]string{{"$filter", "CreatedOnUtc gt 2020-01-02T04:00:00+01:00"}, {"$select", "Name"}}, "Penguin"},
			{"Publisher", [][2]string{{"$filter", "CreatedOnUtc gt 2020-01-02T04:05:00+01:00"}, {"$select", "Name"}}, ""},
			{"Publisher", [][2]string{
				{"$expand", "Books($filter=Pages ge 200 and Title ne 'x;y';$orderby=Title desc;$select=Title,Pages;$top=1;$count=true)"},
				{"$select", "Name"}}, "Penguin"},
			{"Book", [][2]string{
				{"$filter", "Id eq 'b2'"},
				{"$expand", "Authors($select=Name;$orderby=Name desc;$expand=Books($select=Title;$orderby=Title desc;$filter=Title ne 'Alpha Omega'))"},
				{"$select", "Title"}}, "C++ in a Day"},
		} {
			values := url.Values{}
			var plain []string
			for _, o := range c.options {
				values.Add(o[0], o[1])
				plain = append(plain, o[0]+"="+o[1])
			}
			form := "/odata/" + c.path + "?" + values.Encode()
			written := c.path + "?" + strings.Join(plain, "&")
			resp := f.do("GET", form, "")
			if resp.Status != 200 {
				t.Errorf("GET %s = %d, want 200\n%s", form, resp.Status, resp.Body)
				continue
			}
			if want := f.do("GET", "/odata/"+encodeURL(written), ""); resp.Body != want.Body {
				t.Errorf("GET %s = %s\nwant the answer to %s: %s", form, resp.Body, written, want.Body)
			}
			var names []string
			for _, v := range decodeJSON(t, resp.Body)["value"].([]any) {
				e := v.(map[string]any)
				name, _ := e["Title"].(string)
				if name == "" {
					name, _ = e["Name"].(string)
				}
				names = append(names, name)
			}
			if got := strings.Join(names, "|"); got != c.want {
				t.Errorf("GET %s = %q, want %q", form, got, c.want)
			}
		}

		// The nested options of the last answers, checked in full.
		resp := f.must(200, "GET", "/odata/Publisher?"+url.Values{
			"$expand": {"Books($filter=Pages ge 100;$orderby=Title desc;$select=Title;$top=1;$count=true)"},
			"$select": {"Name"}}.Encode(), "")
		if want := `"Books@odata.count":2,"Books":[{"@odata.id":"http://example.com/odata/Book('b2')","@odata.etag":`; !strings.Contains(resp.Body, want) || !strings.Contains(resp.Body, `"Title":"C++ in a Day"}]`) {
			t.Errorf("nested options: body %s, want %s... C++ in a Day", resp.Body, want)
		}

		// A date-time offset's "+" left unencoded reads as a space, which is its sign.
		for _, query := range []string{
			"$filter=CreatedOnUtc+gt+2020-01-02T04:00:00+01:00",
			"$filter=CreatedOnUtc+gt+2020-01-02T04:00:00%2B01:00",
			"$filter=CreatedOnUtc%20gt%202020-01-02T04:00:00%2001:00",
		} {
			if body := f.must(200, "GET", "/odata/Publisher?"+query, "").Body; !strings.Contains(body, `"Name":"Penguin"`) {
				t.Errorf("GET Publisher?%s = %s, want Penguin", query, body)
			}
		}

		// Next links keep the query as sent, and the next page reads it the same way.
		next := "/odata/Book?" + url.Values{"$filter": {"Title ne 'Gamma Ray'"}, "$orderby": {"Title desc"}, "$select": {"Title"}}.Encode()
		var titles []string
		for page := 0; next != "" && page < 5; page++ {
			m := decodeJSON(t, f.must(200, "GET", next, "", "Prefer", "odata.maxpagesize=1").Body)
			for _, v := range m["value"].([]any) {
				titles = append(titles, v.(map[string]any)["Title"].(string))
			}
			next = ""
			if l, ok := m["@odata.nextLink"].(string); ok {
				next = strings.TrimPrefix(l, "http://example.com")
			}
		}
		if diff := cmp.Diff([]string{"Gamma", "C++ in a Day", "Alpha Omega"}, titles); diff != "" {
			t.Errorf("pages of a form-encoded query (-want +got):\n%s", diff)
		}

		// Errors quote the decoded text; the position counts bytes of the value as sent (Title+eq+%27a%27+or+%7E).
		e := decodeError(t, f.must(400, "GET", "/odata/Book?"+url.Values{"$filter": {"Title eq 'a' or ~"}}.Encode(), "").Body)
		if e.Target != "$filter" || e.Message != `$filter:1:21: unexpected "~" (invalid $filter)` {
			t.Errorf("error of a form-encoded $filter: %+v", e)
		}

		// A "+" in the path is a plus: keys are not form-encoded.
		f.exec(`INSERT INTO book (id, title, price, pages, edition, flag, level, in_print, genre, formats, size_width, size_height)
			VALUES ('b+4', 'Plus', 0, 1, 1, 0, 0, ?, 1, 2, 0, 0)`, boolArg(db, true))
		for _, path := range []string{"/odata/Book('b+4')?$select=Title", "/odata/Book('b%2B4')?$select=Title", "/odata/Book/b+4?$select=Title"} {
			if body := f.must(200, "GET", path, "").Body; !strings.Contains(body, `"Title":"Plus"`) {
				t.Errorf("GET %s = %s", path, body)
			}
		}
	})
}

// TestService_ComplexNull checks a complex value compared with null: null when it may be (a nullable property,
// or one reached through a to-one navigation) and every member is null, as answers write it; a complex value
// that cannot be null is never equal to null.
func TestService_ComplexNull(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		f.exec(`INSERT INTO publisher (id, name) VALUES ('p2', 'Nowhere')`)
		f.exec(`INSERT INTO publisher (id, name, address_city) VALUES ('p3', 'Somewhere', 'Oslo')`)
		f.exec(`INSERT INTO book (id, title, price, pages, edition, flag, level, in_print, genre, formats, size_width, size_height, publisher_id)
			VALUES ('b4', 'Orphan', 0, 1, 1, 0, 0, ?, 1, 2, 0, 0, NULL), ('b5', 'Homeless', 0, 1, 1, 0, 0, ?, 1, 2, 0, 0, 'p2')`,
			boolArg(db, true), boolArg(db, true))
		for _, tc := range []struct {
			query string
			want  string // the ids of the answer, in order
		}{
			{"Publisher?$filter=Address eq null", "p2"},
			{"Publisher?$filter=null eq Address", "p2"},
			{"Publisher?$filter=Address ne null", "p1 p3"},
			{"Publisher?$filter=not (Address eq null)", "p1 p3"},
			{"Publisher?$filter=$it/Address eq null or Name eq 'Penguin'", "p1 p2"},
			{"Book?$filter=Size eq null", ""},
			{"Book?$filter=Size ne null", "b1 b2 b3 b4 b5"},
			{"Book?$filter=Publisher/Address eq null", "b4 b5"},
			{"Book?$filter=Publisher/Address ne null", "b1 b2 b3"},
			{"Publisher?$filter=Books/any(b: b/Publisher/Address eq null)", "p2"},
			{"Publisher?$filter=Books/all(b: b/Size ne null)", "p1 p2 p3"},
		} {
			resp := f.do("GET", "/odata/"+strings.ReplaceAll(tc.query, " ", "%20")+"&$select=Id&$orderby=Id", "")
			if resp.Status != 200 {
				t.Errorf("GET %s = %d\n%s", tc.query, resp.Status, resp.Body)
				continue
			}
			var ids []string
			for _, e := range decodeJSON(t, resp.Body)["value"].([]any) {
				ids = append(ids, e.(map[string]any)["Id"].(string))
			}
			if got := strings.Join(ids, " "); got != tc.want {
				t.Errorf("GET %s: %q, want %q", tc.query, got, tc.want)
			}
		}
		// A complex value compares with nothing else: no operator takes one, a client's mistake.
		for _, q := range []string{"Address%20eq%20'x'", "Address%20gt%20null"} {
			if e := decodeError(t, f.must(400, "GET", "/odata/Publisher?$filter="+q, "").Body); e.Target != "$filter" || e.Code != "TypeMismatch" {
				t.Errorf("%s: %s %q, want TypeMismatch on $filter", q, e.Code, e.Target)
			}
		}
	})
}

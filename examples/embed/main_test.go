package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/sqlite"
)

// TestRun starts the program on a free port and reads and writes books through it. SQLite only: the program
// serves a SQLite file and nothing else (the engine's own tests cover PostgreSQL).
func TestRun(t *testing.T) {
	base, stop := start(t, filepath.Join(t.TempDir(), "books.db"))

	var page struct {
		Value []struct {
			Title  string
			Author struct{ Name string }
		} `json:"value"`
	}
	get(t, base+"/odata/Books?$filter=Year%20lt%201960&$orderby=Year&$expand=Author($select=Name)&$select=Title", &page)
	var got []string
	for _, b := range page.Value {
		got = append(got, b.Title+" by "+b.Author.Name)
	}
	want := []string{"The Hobbit by J. R. R. Tolkien", "The Lord of the Rings by J. R. R. Tolkien"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET Books mismatch (-want +got):\n%s", diff)
	}

	// A new book without an Id gets the next integer from the database, in the body and in Location.
	resp, err := http.Post(base+"/odata/Books", "application/json",
		strings.NewReader(`{"Title":"The Dispossessed","Year":1974,"AuthorId":"le-guin"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ Id any }
	err = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || err != nil {
		t.Fatalf("POST Books = %d (%v), want 201", resp.StatusCode, err)
	}
	if created.Id != float64(4) || resp.Header.Get("Location") != base+"/odata/Books(4)" {
		t.Errorf("POST Books: Id %v, Location %q; want 4 and %s/odata/Books(4)", created.Id, resp.Header.Get("Location"), base)
	}
	var count struct {
		Count int `json:"@odata.count"`
	}
	get(t, base+"/odata/Authors('le-guin')/Books?$count=true&$search=dispossessed", &count)
	if count.Count != 1 {
		t.Errorf("books of le-guin matching dispossessed = %d, want 1", count.Count)
	}

	// The OpenAPI document has the OData paths and the program's own; /docs is the page that shows it.
	var doc struct {
		Paths map[string]any `json:"paths"`
	}
	get(t, base+"/odata/$openapi", &doc)
	for _, path := range []string{"/odata/Books", "/odata/Authors('{Id}')/Books", "/healthz"} {
		if doc.Paths[path] == nil {
			t.Errorf("GET /odata/$openapi has no path %s", path)
		}
	}
	for _, path := range []string{"/docs", "/docs/swagger-ui-bundle.js"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", path, resp.StatusCode)
		}
	}

	if err := stop(); err != nil {
		t.Errorf("run = %v", err)
	}
}

// TestRun_Readers reads as different readers: a club's book is seen only by that club (absent elsewhere, 404 by
// key, not counted), and an author's e-mail only by a librarian (not selectable by others, nor usable in $filter).
func TestRun_Readers(t *testing.T) {
	base, stop := start(t, filepath.Join(t.TempDir(), "books.db"))
	ask := func(path string, headers ...string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	club := []string{"X-Tenant", "earthsea-club"}
	librarian := []string{"X-Role", "librarian"}
	for _, tc := range []struct {
		name    string
		path    string
		headers []string
		status  int
		has     string
		hasNot  string
	}{
		{"the public shelf", "/odata/Books/$count", nil, 200, "2", ""},
		{"the club's shelf too", "/odata/Books/$count", club, 200, "3", ""},
		{"another club's book by key", "/odata/Books(3)", nil, 404, "NotFound", "Earthsea"},
		{"the club's book by key", "/odata/Books(3)", club, 200, "Earthsea", ""},
		{"through the author", "/odata/Authors('le-guin')?$expand=Books", nil, 200, `"Books":[]`, "Earthsea"},
		{"an author without e-mail", "/odata/Authors('tolkien')", nil, 200, "Tolkien", "jrrt@"},
		{"an author for a librarian", "/odata/Authors('tolkien')", librarian, 200, "jrrt@example.org", ""},
		{"selecting the e-mail", "/odata/Authors?$select=Email", nil, 400, "NotReadable", "@example.org"},
		{"guessing the e-mail", "/odata/Authors?$filter=startswith(Email,'j')", nil, 400, "NotReadable", "jrrt"},
	} {
		status, body := ask(tc.path, tc.headers...)
		if status != tc.status || !strings.Contains(body, tc.has) || tc.hasNot != "" && strings.Contains(body, tc.hasNot) {
			t.Errorf("%s: GET %s = %d %s, want %d with %q and without %q", tc.name, tc.path, status, body, tc.status, tc.has, tc.hasNot)
		}
	}
	if err := stop(); err != nil {
		t.Errorf("run = %v", err)
	}
}

// TestRun_MissingColumn starts the program on a file whose book table was made without the year column:
// without -migrate the start stops with an error that names the column; with it the column is added (0 for the
// books stored before) and the books are served.
func TestRun_MissingColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "books.db")
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`CREATE TABLE author (id TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL)`,
		`CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT NOT NULL, author_id TEXT NOT NULL REFERENCES author (id))`,
		`INSERT INTO author VALUES ('austen', 'Jane Austen')`,
		`INSERT INTO book VALUES (10, 'Emma', 'austen')`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	args := []string{"embed", "-addr", "127.0.0.1:0", "-db", path, "-migrate=false"}
	err = run(context.Background(), args, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `table "book", column "year": the column does not exist (Book/Year, Edm.Int32)`) {
		t.Fatalf("run(-migrate=false) = %v, want an error naming book.year", err)
	}

	base, stop := start(t, path)
	var book struct{ Title string }
	get(t, base+"/odata/Books(10)?$select=Title,Year", &book)
	var page struct {
		Value []struct {
			Title string
			Year  int
		} `json:"value"`
	}
	get(t, base+"/odata/Books?$filter=Year%20lt%201940&$orderby=Year&$select=Title,Year", &page)
	want := []struct {
		Title string
		Year  int
	}{{"Emma", 0}, {"The Hobbit", 1937}}
	if diff := cmp.Diff(want, page.Value); diff != "" {
		t.Errorf("GET Books after the migration (-want +got):\n%s", diff)
	}
	if err := stop(); err != nil {
		t.Errorf("run = %v", err)
	}
}

// start runs the program on the SQLite file path and returns its root URL and the function that stops it.
func start(t *testing.T, path string) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	out, w := io.Pipe()
	done := make(chan error, 1)
	args := []string{"embed", "-addr", "127.0.0.1:0", "-db", path}
	go func() {
		done <- run(ctx, args, func(string) string { return "" }, w, io.Discard)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("no first line: %v (run: %v)", err, <-done)
	}
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first line = %q, want listening on http://ADDR", line)
	}
	go io.Copy(io.Discard, out)
	return base, func() error {
		cancel()
		return <-done
	}
}

func get(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s = %d %s", url, resp.StatusCode, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

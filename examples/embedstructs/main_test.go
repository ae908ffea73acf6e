package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRun starts the program on a free port and reads and writes books through it, the struct hook and action
// included. SQLite only, as examples/embed: the engine's own tests cover PostgreSQL.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"embedstructs", "-addr", "127.0.0.1:0", "-db", filepath.Join(t.TempDir(), "books.db")},
			func(string) string { return "" }, w, io.Discard)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("first line %q, %v (run: %v)", line, err, <-done)
	}
	go io.Copy(io.Discard, out)

	var page struct {
		Value []struct {
			Title  string
			Author struct{ Name string }
		} `json:"value"`
	}
	call(t, "GET", base+"/odata/Books?$filter=Year%20lt%201960&$orderby=Year&$expand=Author($select=Name)&$select=Title", "", 200, &page)
	var got []string
	for _, b := range page.Value {
		got = append(got, b.Title+" by "+b.Author.Name)
	}
	if diff := cmp.Diff([]string{"The Hobbit by J. R. R. Tolkien", "The Lord of the Rings by J. R. R. Tolkien"}, got); diff != "" {
		t.Errorf("GET Books mismatch (-want +got):\n%s", diff)
	}

	// A new book gets the next integer from the database; the hook trimmed its title and refuses a future year.
	var book struct {
		Id    int64
		Title string
		Year  int
	}
	loc := call(t, "POST", base+"/odata/Books", `{"Title":"  The Dispossessed ","Year":1974,"AuthorId":"le-guin"}`, 201, &book)
	if book.Id != 4 || book.Title != "The Dispossessed" || loc != base+"/odata/Books(4)" {
		t.Errorf("POST Books = %+v at %q, want Id 4, the title trimmed, at %s/odata/Books(4)", book, loc, base)
	}
	call(t, "POST", base+"/odata/Books", `{"Title":"Later","Year":3000,"AuthorId":"le-guin"}`, 400, nil)

	// The action inserts a Book struct and answers it.
	call(t, "POST", base+"/odata/Authors('le-guin')/Library.AddBook", `{"Title":"The Lathe of Heaven","Year":1971}`, 200, &book)
	if book.Id != 5 || book.Title != "The Lathe of Heaven" || book.Year != 1971 {
		t.Errorf("AddBook = %+v, want book 5, The Lathe of Heaven, 1971", book)
	}
	var count struct {
		Count int `json:"@odata.count"`
	}
	call(t, "GET", base+"/odata/Authors('le-guin')/Books?$count=true&$top=0", "", 200, &count)
	if count.Count != 3 {
		t.Errorf("books of le-guin = %d, want 3", count.Count)
	}

	var doc struct {
		Paths map[string]any `json:"paths"`
	}
	call(t, "GET", base+"/odata/$openapi", "", 200, &doc)
	for _, path := range []string{"/odata/Books", "/odata/Authors('{Id}')/Books", "/odata/Authors('{Id}')/Library.AddBook", "/healthz"} {
		if doc.Paths[path] == nil {
			t.Errorf("GET /odata/$openapi has no path %s", path)
		}
	}
	call(t, "GET", base+"/docs", "", 200, nil)

	cancel()
	if err := <-done; err != nil {
		t.Errorf("run = %v", err)
	}
}

// call sends a request with a JSON body (none when empty), checks the status, decodes the answer into v (when
// not nil) and returns the Location header.
func call(t *testing.T, method, url, body string, status int, v any) string {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("%s %s = %d, want %d\n%s", method, url, resp.StatusCode, status, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(fmt.Errorf("%s %s: %w", method, url, err))
		}
	}
	return resp.Header.Get("Location")
}

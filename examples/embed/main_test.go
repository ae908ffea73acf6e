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
)

// TestRun starts the program on a free port and reads and writes books through it. SQLite only: the program
// serves a SQLite file and nothing else (the engine's own tests cover PostgreSQL).
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	done := make(chan error, 1)
	args := []string{"embed", "-addr", "127.0.0.1:0", "-db", filepath.Join(t.TempDir(), "books.db")}
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

	resp, err := http.Post(base+"/odata/Books", "application/json",
		strings.NewReader(`{"Title":"The Dispossessed","Year":1974,"AuthorId":"le-guin"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST Books = %d, want 201", resp.StatusCode)
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

	cancel()
	if err := <-done; err != nil {
		t.Errorf("run = %v", err)
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

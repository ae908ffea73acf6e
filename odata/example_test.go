package odata_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqlite"
)

// ExampleNewService serves a table of notes: a model, a database, a Service mounted under /odata, with
// creates and updates allowed and a hook that fills in a field.
//
// SQLite only: an Example is documentation that runs with nothing beside it (no database server) and prints
// fixed output; the tests of the package run the same code on both databases.
func ExampleNewService() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(filepath.Join(dir, "notes.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE note (id TEXT NOT NULL PRIMARY KEY, text TEXT NOT NULL, words INTEGER NOT NULL)`); err != nil {
		fmt.Println(err)
		return
	}

	model := &edm.Model{
		Namespace: "Notes",
		EntityTypes: []*edm.EntityType{{
			Name: "Note",
			Key:  []string{"Id"},
			Properties: []*edm.Property{
				{Name: "Id", Type: edm.KindString, ReadOnly: true},
				{Name: "Text", Type: edm.KindString, MaxLength: 1000, Required: true},
				{Name: "Words", Type: edm.KindInt32, ReadOnly: true},
			},
		}},
		EntitySets: []*edm.EntitySet{{Name: "Note", Type: "Note"}},
	}
	if err := model.Build(); err != nil {
		fmt.Println(err)
		return
	}
	svc, err := odata.NewService(odata.Config{
		Model: model,
		DB:    db,
		Mount: "/odata",
		Sets: map[string]odata.SetOptions{
			"Note": {
				Writes: odata.WritePost | odata.WritePatch,
				NewKey: func() any { return "n1" }, // odata.NewID() by default
				Hooks: odata.Hooks{BeforeSave: func(ctx context.Context, tx *odata.Tx, c *odata.Change) error {
					text, _ := c.New["Text"].(string)
					c.New["Words"] = int64(len(strings.Fields(text)))
					return nil
				}},
			},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/odata/", svc)

	req := httptest.NewRequest("POST", "http://example.com/odata/Note", strings.NewReader(`{"Text":"buy milk and bread"}`))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Header().Get("Location"))

	w = httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("GET", "http://example.com/odata/Note('n1')?$select=Text,Words", nil))
	fmt.Println(w.Code, w.Body)
	// Output:
	// 201 http://example.com/odata/Note('n1')
	// 200 {"@odata.context":"http://example.com/odata/$metadata#Note(Text,Words)/$entity","@odata.id":"http://example.com/odata/Note('n1')","@odata.etag":"W/\"9282cd6f22dd760e\"","Text":"buy milk and bread","Words":4}
}

// exampleLibrary serves a SQLite file of authors and books for the examples; done removes it.
func exampleLibrary() (svc *odata.Service, done func(), err error) {
	dir, _ := os.MkdirTemp("", "example")
	done = func() { os.RemoveAll(dir) }
	db, err := sqlite.Open(filepath.Join(dir, "books.db"))
	if err != nil {
		done()
		return nil, nil, err
	}
	closeAll := func() { db.Close(); os.RemoveAll(dir) }
	_, err = db.Exec(`
		CREATE TABLE author (id TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL);
		CREATE TABLE book (id TEXT NOT NULL PRIMARY KEY, title TEXT NOT NULL, year INTEGER NOT NULL,
			author_id TEXT NOT NULL REFERENCES author (id));
		INSERT INTO author VALUES ('a1', 'Mary Shelley'), ('a2', 'H. G. Wells');
		INSERT INTO book VALUES ('b1', 'Frankenstein', 1818, 'a1'), ('b2', 'The Time Machine', 1895, 'a2'),
			('b3', 'The War of the Worlds', 1898, 'a2')`)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	model := &edm.Model{
		Namespace: "Library",
		EntityTypes: []*edm.EntityType{
			{Name: "Author", Key: []string{"Id"},
				Properties: []*edm.Property{{Name: "Id", Type: edm.KindString}, {Name: "Name", Type: edm.KindString}}},
			{Name: "Book", Key: []string{"Id"},
				Properties: []*edm.Property{{Name: "Id", Type: edm.KindString}, {Name: "Title", Type: edm.KindString},
					{Name: "Year", Type: edm.KindInt32}, {Name: "AuthorId", Type: edm.KindString}},
				Navigations: []*edm.NavigationProperty{{Name: "Author", Target: "Author",
					Join: edm.Join{SourceColumns: []string{"author_id"}}}}},
		},
		EntitySets: []*edm.EntitySet{{Name: "Authors", Type: "Author"}, {Name: "Books", Type: "Book"}},
	}
	if err := model.Build(); err != nil {
		closeAll()
		return nil, nil, err
	}
	svc, err = odata.NewService(odata.Config{Model: model, DB: db, Mount: "/odata"})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return svc, closeAll, nil
}

// ExampleService_ServeHTTP_apply groups books by their author's name and aggregates each group with $apply
// (OData Data Aggregation): one SQL statement, GROUP BY through the navigation's join. SQLite only, as
// ExampleNewService.
func ExampleService_ServeHTTP_apply() {
	svc, done, err := exampleLibrary()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	query := "$apply=" + url.PathEscape("groupby((Author/Name),aggregate($count as Books,Year with min as First))") +
		"&$orderby=" + url.PathEscape("Books desc")
	req := httptest.NewRequest("GET", "http://example.com/odata/Books?"+query, nil)
	req.Header.Set("Accept", "application/json;odata.metadata=none")
	w := httptest.NewRecorder()
	svc.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Body)
	// Output:
	// 200 {"value":[{"Author":{"Name":"H. G. Wells"},"Books":2,"First":1895},{"Author":{"Name":"Mary Shelley"},"Books":1,"First":1818}]}
}

// ExampleService_ServeHTTP_query reads a filtered, ordered page of books with their authors expanded: one
// statement for the page and one for the authors of all its books. SQLite only, as ExampleNewService.
func ExampleService_ServeHTTP_query() {
	svc, done, err := exampleLibrary()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	query := "$filter=" + url.PathEscape("Year gt 1800 and startswith(Author/Name,'H')") +
		"&$orderby=" + url.PathEscape("Year desc") + "&$select=Title,Year&$expand=Author($select=Name)"
	req := httptest.NewRequest("GET", "http://example.com/odata/Books?"+query, nil)
	req.Header.Set("Accept", "application/json;odata.metadata=none")
	w := httptest.NewRecorder()
	svc.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Body)
	// Output:
	// 200 {"value":[{"Title":"The War of the Worlds","Year":1898,"Author":{"Name":"H. G. Wells"}},{"Title":"The Time Machine","Year":1895,"Author":{"Name":"H. G. Wells"}}]}
}

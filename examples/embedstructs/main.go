// Command embedstructs is examples/embed with its model declared as Go structs: the same books and authors in a
// SQLite file, served under /odata/ with the same tables, $metadata, OpenAPI document (/odata/$openapi) and API
// page (/docs), and a migration at start-up (-migrate=false only checks). The structs are also what its Go code
// works with: a hook reads a new or changed book as a Book, and the action Author/AddBook inserts a Book and
// answers it.
//
//	go run ./examples/embedstructs -addr 127.0.0.1:8080 -db books.db
//	curl -d '{"Title":"The Lathe of Heaven","Year":1971}' -H 'Content-Type: application/json' \
//		"http://127.0.0.1:8080/odata/Authors('le-guin')/Library.AddBook"
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/openapi"
	"github.com/storekit/store/odata/openapiui"
	"github.com/storekit/store/odata/sqlite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "embedstructs: %v\n", err)
		os.Exit(1)
	}
}

// Author is a table author; its key is a string the engine generates (odata.NewID).
type Author struct {
	Id    string `odata:",key,readonly"`
	Name  string `odata:",maxlength=100,required,searchable"`
	Books []Book `odata:",fk=AuthorId,partner=Author"` // book.author_id = author.id
}

// Book is a table book; its key is an integer the database generates (INTEGER PRIMARY KEY).
type Book struct {
	Id       int64  `odata:",key,generated"`
	Title    string `odata:",maxlength=200,required,searchable"`
	Year     int32
	AuthorId string  `odata:",required"`
	Author   *Author `odata:",fk=AuthorId,partner=Books"`
}

// library declares what the structs cannot: the namespace and the action AddBook. NewService adds the structs'
// entity types and their sets (Authors, Books) to it and builds it (Config.Structs).
func library() *edm.Model {
	return &edm.Model{Namespace: "Library",
		Actions: []*edm.Action{{Name: "AddBook", Bound: true, BindingType: "Author", ReturnType: &edm.ReturnType{Entity: "Book"},
			Parameters: []edm.Parameter{{Name: "Title", Type: edm.KindString, Required: true}, {Name: "Year", Type: edm.KindInt32}}}}}
}

// checkBook trims a book's title and refuses a year still to come.
func checkBook(_ context.Context, _ *odata.Tx, c *odata.Change) error {
	var b Book
	if err := c.New.Decode(&b); err != nil {
		return err
	}
	if b.Year > int32(time.Now().Year()) {
		return odata.ValidationError(odata.ErrorDetail{Code: odata.CodeInvalidValue, Target: "Year", Message: "The book is not out yet."})
	}
	c.New["Title"] = strings.TrimSpace(b.Title)
	return nil
}

// addBook is Author/AddBook: a new book of the author, answered as the Book stored.
func addBook(ctx context.Context, call *odata.ActionCall) (any, error) {
	var a Author
	if err := call.Entity.Decode(&a); err != nil {
		return nil, err
	}
	b := Book{Title: call.Params["Title"].(string), AuthorId: a.Id}
	if year, ok := call.Params["Year"].(int64); ok {
		b.Year = int32(year)
	}
	return b, call.Tx.InsertStruct(ctx, &b) // b.Id is the generated key
}

// seed is the first books, for a new file.
const seed = `
INSERT OR IGNORE INTO author (id, name) VALUES ('tolkien', 'J. R. R. Tolkien'), ('le-guin', 'Ursula K. Le Guin');
INSERT OR IGNORE INTO book (id, title, year, author_id) VALUES (1, 'The Hobbit', 1937, 'tolkien'),
	(2, 'The Lord of the Rings', 1954, 'tolkien'), (3, 'A Wizard of Earthsea', 1968, 'le-guin');`

// run serves until ctx is cancelled.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", "127.0.0.1:8080", "address to listen on")
	path := flags.String("db", "books.db", "SQLite database file (env BOOKS_DB)")
	migrateSchema := flags.Bool("migrate", true, "add the tables and columns of the model the file lacks (else only check)")
	if err := flags.Parse(args[1:]); err != nil {
		return err
	}
	if v := getenv("BOOKS_DB"); v != "" {
		*path = v
	}
	db, err := sqlite.Open(*path)
	if err != nil {
		return err
	}
	defer db.Close()
	svc, err := odata.NewService(odata.Config{Model: library(), Structs: []any{Author{}, Book{}}, DB: db, Mount: "/odata",
		Migrate: *migrateSchema,
		Sets: map[string]odata.SetOptions{
			"Authors": {Writes: odata.WritePost | odata.WritePatch},
			"Books":   {Writes: odata.WriteAll, Hooks: odata.Hooks{BeforeSave: checkBook}},
		},
		Actions: map[string]odata.ActionFunc{"Author/AddBook": addBook},
		OpenAPI: openapi.Options{Title: "Library", Version: "1", Operations: []openapi.Operation{{
			Method: "GET", Path: "/healthz", OperationID: "health", Summary: "Check that the service is up",
			Responses: []openapi.Response{{Status: "200", ContentType: "text/plain", Schema: openapi.Schema{"const": "ok"}}},
		}}},
	})
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, seed); err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/odata/", svc)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	docs := openapiui.Handler("Library", "/odata/$openapi", "/docs")
	mux.Handle("GET /docs", docs)
	mux.Handle("GET /docs/", docs)
	return serve(ctx, mux, *addr, stdout)
}

// serve answers with h on addr until ctx is cancelled, then lets the requests under way finish.
func serve(ctx context.Context, h http.Handler, addr string, stdout io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

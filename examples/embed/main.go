// Command embed is a Go service of its own that serves its tables through the OData engine: books with their
// authors in a SQLite file, readable with $filter, $orderby, $select, $expand and $search, writable with POST,
// PATCH and DELETE, under /odata/ beside the program's other handlers. A POST of a book without an Id gets the
// next integer from the database (201, Location /odata/Books(4)). The tables come from the model: at
// start-up a migration creates what the file lacks (-migrate=false only checks, and a missing table or column
// stops the start with its name). The engine describes the API as an OpenAPI document at /odata/$openapi, with
// the program's own /healthz in it; /docs shows it with Swagger UI (assets embedded in the binary).
//
// Who asks changes what they see, as a service with tenants would have it: the X-Tenant header names a reading
// club, and a book on a club's shelf is seen only by that club (a row filter: a 404 for others, absent from every
// list, count and expansion); an author's e-mail is read only with X-Role: librarian (a redacted property).
//
//	go run ./examples/embed -addr 127.0.0.1:8080 -db books.db
//	curl 'http://127.0.0.1:8080/odata/Books?$filter=Year%20lt%201950&$expand=Author'
//	open http://127.0.0.1:8080/docs
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
		fmt.Fprintf(os.Stderr, "embed: %v\n", err)
		os.Exit(1)
	}
}

// model describes the tables: each entity type is a table named after it in snake case (author, book), each
// property a column, the Author navigation a foreign key (odata/schema derives them). An author's key is a
// string the engine generates (odata.NewID); a book's an integer the database generates (INTEGER PRIMARY KEY).
func model() *edm.Model {
	return &edm.Model{
		Namespace: "Library",
		EntityTypes: []*edm.EntityType{
			{Name: "Author", Key: []string{"Id"},
				Properties: []*edm.Property{{Name: "Id", Type: edm.KindString, ReadOnly: true},
					{Name: "Name", Type: edm.KindString, MaxLength: 100, Required: true, Searchable: true},
					{Name: "Email", Type: edm.KindString, MaxLength: 100, Nullable: true}},
				Navigations: []*edm.NavigationProperty{{Name: "Books", Target: "Book", Collection: true, Partner: "Author",
					Join: edm.Join{TargetColumns: []string{"author_id"}}}}},
			{Name: "Book", Key: []string{"Id"},
				Properties: []*edm.Property{{Name: "Id", Type: edm.KindInt64, Generated: true},
					{Name: "Title", Type: edm.KindString, MaxLength: 200, Required: true, Searchable: true},
					{Name: "Year", Type: edm.KindInt32},
					{Name: "AuthorId", Type: edm.KindString, Required: true},
					{Name: "Shelf", Type: edm.KindString, MaxLength: 40, Default: "public"}},
				Navigations: []*edm.NavigationProperty{{Name: "Author", Target: "Author", Partner: "Books",
					Join: edm.Join{SourceColumns: []string{"author_id"}}}}},
		},
		EntitySets: []*edm.EntitySet{{Name: "Authors", Type: "Author"}, {Name: "Books", Type: "Book"}},
	}
}

// seed is the first books, for a new file.
const seed = `
INSERT OR IGNORE INTO author (id, name, email) VALUES ('tolkien', 'J. R. R. Tolkien', 'jrrt@example.org'),
	('le-guin', 'Ursula K. Le Guin', 'ukl@example.org');
INSERT OR IGNORE INTO book (id, title, year, author_id, shelf) VALUES (1, 'The Hobbit', 1937, 'tolkien', 'public'),
	(2, 'The Lord of the Rings', 1954, 'tolkien', 'public'), (3, 'A Wizard of Earthsea', 1968, 'le-guin', 'earthsea-club');`

// reader is who asks, from the request's headers: a reading club (X-Tenant) and a role (X-Role).
type reader struct{ club, role string }

type readerKey struct{}

// withReader puts the reader of each request in its context, for the row filter and the redaction.
func withReader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := reader{club: r.Header.Get("X-Tenant"), role: r.Header.Get("X-Role")}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), readerKey{}, who)))
	})
}

// visibleBooks is the row filter of Books: the public shelf, and the reader's club's shelf. The club's name is
// an OData string literal (quotes doubled), never SQL.
func visibleBooks(ctx context.Context) (string, error) {
	who, _ := ctx.Value(readerKey{}).(reader)
	if who.club == "" {
		return "Shelf eq 'public'", nil
	}
	return "Shelf eq 'public' or Shelf eq '" + strings.ReplaceAll(who.club, "'", "''") + "'", nil
}

// hiddenFromReaders is the redaction of Authors: their e-mail is for librarians.
func hiddenFromReaders(ctx context.Context) ([]string, error) {
	if who, _ := ctx.Value(readerKey{}).(reader); who.role == "librarian" {
		return nil, nil
	}
	return []string{"Email"}, nil
}

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
	m := model()
	if err := m.Build(); err != nil {
		return err
	}
	// NewService adds the tables and columns the file lacks, as a versioned migration (Migrate, see
	// schema_migrations), and checks them against the model: a missing table or column stops the start here.
	svc, err := odata.NewService(odata.Config{Model: m, DB: db, Mount: "/odata", Migrate: *migrateSchema,
		Sets: map[string]odata.SetOptions{
			"Authors": {Writes: odata.WritePost | odata.WritePatch, Redact: hiddenFromReaders},
			"Books":   {Writes: odata.WriteAll, ReadFilter: visibleBooks},
		},
		// The OpenAPI document at /odata/$openapi: the OData paths, and the program's own endpoint.
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
	mux.Handle("/odata/", withReader(svc))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	// The API reference page: Swagger UI on the document, its assets served from the binary below /docs/.
	docs := openapiui.Handler("Library", "/odata/$openapi", "/docs")
	mux.Handle("GET /docs", docs)
	mux.Handle("GET /docs/", docs)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
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

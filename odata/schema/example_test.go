package schema_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/schema"
	"github.com/storekit/store/odata/sqlite"
)

// Examples are SQLite only: an Example is documentation that runs with nothing beside it (no database server)
// and prints fixed output; the tests of the package run the same code on both databases.

// books is a small model: authors and their books, each book with tags.
func books(extra ...*edm.Property) *edm.Model {
	m := &edm.Model{Namespace: "Library", EntityTypes: []*edm.EntityType{
		{Name: "Author", Key: []string{"Id"}, Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindString, ReadOnly: true},
			{Name: "Name", Type: edm.KindString, MaxLength: 100}}},
		{Name: "Book", Key: []string{"Id"}, Properties: append([]*edm.Property{
			{Name: "Id", Type: edm.KindString, ReadOnly: true},
			{Name: "Title", Type: edm.KindString},
			{Name: "AuthorId", Type: edm.KindString},
			{Name: "Tags", Type: edm.KindString, Collection: true}}, extra...),
			Navigations: []*edm.NavigationProperty{{Name: "Author", Target: "Author",
				Join: edm.Join{SourceColumns: []string{"author_id"}}}}},
	}}
	if err := m.Build(); err != nil {
		panic(err)
	}
	return m
}

// ExampleCreate prints the DDL of a model, to review or to hand to a migration tool.
func ExampleCreate() {
	statements, err := schema.Create(sqlite.Dialect{}, books())
	if err != nil {
		panic(err)
	}
	for _, s := range statements {
		fmt.Println(s + ";")
	}
	// Output:
	// CREATE TABLE "author" (
	// 	"id" TEXT NOT NULL,
	// 	"name" TEXT NOT NULL,
	// 	"row_version" INTEGER NOT NULL DEFAULT (random() & 281474976710655),
	// 	PRIMARY KEY ("id")
	// ) STRICT;
	// CREATE TRIGGER "author_row_version" AFTER UPDATE ON "author" FOR EACH ROW WHEN NEW."row_version" IS OLD."row_version" BEGIN UPDATE "author" SET "row_version" = OLD."row_version" + 1 WHERE "id" = NEW."id"; END;
	// CREATE TABLE "book" (
	// 	"id" TEXT NOT NULL,
	// 	"title" TEXT NOT NULL,
	// 	"author_id" TEXT NOT NULL,
	// 	"row_version" INTEGER NOT NULL DEFAULT (random() & 281474976710655),
	// 	PRIMARY KEY ("id"),
	// 	CONSTRAINT "book_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "author" ("id") ON DELETE CASCADE
	// ) STRICT;
	// CREATE TRIGGER "book_row_version" AFTER UPDATE ON "book" FOR EACH ROW WHEN NEW."row_version" IS OLD."row_version" BEGIN UPDATE "book" SET "row_version" = OLD."row_version" + 1 WHERE "id" = NEW."id"; END;
	// CREATE TABLE "book_tags" (
	// 	"book_id" TEXT NOT NULL,
	// 	"value" TEXT NOT NULL,
	// 	"ordinal" INTEGER NOT NULL,
	// 	PRIMARY KEY ("book_id", "ordinal"),
	// 	CONSTRAINT "book_tags_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("id") ON DELETE CASCADE
	// ) STRICT;
	// CREATE INDEX "book_author_id_idx" ON "book" ("author_id");
}

// ExampleCheck compares tables written by hand with the model: every problem, by table and column.
func ExampleCheck() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(filepath.Join(dir, "books.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE author (id TEXT PRIMARY KEY, name INTEGER);
		CREATE TABLE book (id TEXT, title TEXT NOT NULL)`); err != nil {
		panic(err)
	}
	fmt.Println(schema.Check(context.Background(), db, books()))
	// Output:
	// schema: the database does not match the model (4 problems):
	// 	table "author", column "name": the column's type INTEGER cannot hold Author/Name, Edm.String(100) (sqlite wants TEXT)
	// 	table "book", column "author_id": the column does not exist (Book/AuthorId, Edm.String)
	// 	table "book", column "id": no primary key or unique index on the key of entity type Book
	// 	table "book_tags": the table does not exist (it stores collection Book/Tags)
}

// ExampleMigration keeps a database in step with its model at each start: the first start creates the tables,
// a start after the model gained a property adds its column, each as a version of the component "library".
func ExampleMigration() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(filepath.Join(dir, "books.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, m := range []*edm.Model{
		books(),
		books(), // nothing to do
		books(&edm.Property{Name: "Year", Type: edm.KindInt32}),
	} {
		n, err := migrate.Up(ctx, db, schema.Migration("library", m))
		fmt.Println("applied", n, err)
	}
	rows, err := db.Query(`SELECT version, name FROM schema_migrations WHERE component = 'library' ORDER BY version`)
	if err != nil {
		panic(err)
	}
	defer rows.Close()
	for rows.Next() {
		var version int
		var name string
		if err := rows.Scan(&version, &name); err != nil {
			panic(err)
		}
		fmt.Println(version, name)
	}
	// Output:
	// applied 1 <nil>
	// applied 0 <nil>
	// applied 1 <nil>
	// 1 create table author; create table book; create table book_tags; create index book_author_id_idx
	// 2 add column book.year
}

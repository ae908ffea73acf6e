package schema_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/schema"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestCreate compares the DDL of libraryModel with testdata/library.<dialect>.sql.
func TestCreate(t *testing.T) {
	m := builtModel(t, nil)
	for _, d := range []sqldb.Dialect{sqlite.Dialect{}, postgres.Dialect{}} {
		statements, err := schema.Create(d, m)
		if err != nil {
			t.Fatalf("Create(%s) error = %v", d.Name(), err)
		}
		got := strings.Join(statements, ";\n") + ";\n"
		path := filepath.Join("testdata", "library."+d.Name()+".sql")
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("Create(%s) differs from %s (-want +got; go test -update rewrites it):\n%s", d.Name(), path, diff)
		}
	}
}

// TestCreate_Applies runs the DDL on each database: the database then matches the model, needs no change, and
// its constraints do what the package documentation says.
func TestCreate_Applies(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := context.Background()
		m := builtModel(t, nil)
		create(t, db, m)
		if err := schema.Check(ctx, db.DB, m); err != nil {
			t.Errorf("Check after Create = %v", err)
		}
		if changes, err := schema.Changes(ctx, db.DB, m); err != nil || len(changes) != 0 {
			t.Errorf("Changes after Create = %q, %v, want none", changes, err)
		}
		exec(t, db, `INSERT INTO publisher (id, name) VALUES ('p1', 'Penguin')`)
		exec(t, db, `INSERT INTO book (id, title, pages, flag, level, publisher_id) VALUES ('b1', 'Alpha', 10, 0, 0, 'p1')`)
		exec(t, db, `INSERT INTO book_tags (book_id, value, ordinal) VALUES ('b1', 'x', 0)`)
		exec(t, db, `INSERT INTO chapter (book_id, number) VALUES ('b1', 1)`)
		exec(t, db, `INSERT INTO loan (book_id, member_no) VALUES ('b1', 7)`)
		var price, sold, created any
		if err := db.QueryRow(`SELECT price, sold, created_on_utc FROM book, publisher`).Scan(&price, &sold, &created); err != nil {
			t.Fatal(err)
		}
		if price == nil || sold == nil || created == nil {
			t.Errorf("defaults: price %v, sold %v, created_on_utc %v, want values", price, sold, created)
		}
		if _, err := db.Exec(`INSERT INTO loan (book_id, member_no) VALUES ('missing', 1)`); db.Dialect().ClassifyError(err) != sqldb.ErrForeignKeyViolation {
			t.Errorf("a loan of a missing book: error %v, want a foreign key violation", err)
		}
		exec(t, db, `DELETE FROM publisher`)
		exec(t, db, `DELETE FROM book`)
		for _, table := range []string{"book_tags", "chapter", "loan"} {
			var n int
			if err := db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil || n != 0 {
				t.Errorf("rows of %s after the book's delete: %d, %v, want 0", table, n, err)
			}
		}
	})
}

// TestCheck gives the check a database that differs from the model in one way per case, and all at once.
func TestCheck(t *testing.T) {
	// Each case edits the DDL of the model (a statement at a time; "" drops it) and wants its problems.
	type edit func(d sqldb.Dialect, statement string) string
	type text func(d sqldb.Dialect) string
	replace := func(table string, old, new text) edit {
		return func(d sqldb.Dialect, s string) string {
			if !strings.HasPrefix(s, "CREATE TABLE "+d.QuoteIdent(table)+" (") {
				return s
			}
			if !strings.Contains(s, old(d)) {
				panic("no " + old(d) + " in " + s)
			}
			return strings.Replace(s, old(d), new(d), 1)
		}
	}
	column := func(name string, k edm.Kind, precision, scale int) text {
		return func(d sqldb.Dialect) string {
			return d.QuoteIdent(name) + " " + d.ColumnType(k, precision, scale)
		}
	}
	fixed := func(s string) text { return func(sqldb.Dialect) string { return s } }
	dropTable := func(table string) edit {
		return func(d sqldb.Dialect, s string) string {
			if strings.Contains(s, d.QuoteIdent(table)) {
				return ""
			}
			return s
		}
	}
	// perDialect is a text that differs by database, such as the catalog's spelling of a type.
	perDialect := func(sqliteText, postgresText string) text {
		return func(d sqldb.Dialect) string {
			return map[string]string{"sqlite": sqliteText, "postgres": postgresText}[d.Name()]
		}
	}
	// cannotHold is the message of a column whose type (found, as the catalog spells it) cannot hold what.
	cannotHold := func(found text, what string, k edm.Kind, precision, scale int) text {
		return func(d sqldb.Dialect) string {
			msg := "the column's type " + found(d) + " cannot hold " + what + " (" + d.Name() + " wants " +
				d.ColumnType(k, precision, scale) + ")"
			if k == edm.KindDecimal {
				msg += "; if the column keeps its values in another way, say how in the property's DecimalStorage"
			}
			return msg
		}
	}
	type problem struct {
		table, column string
		message       text
	}
	cases := []struct {
		name  string
		edits []edit
		want  []problem
	}{
		{"missing table", []edit{dropTable("book_tags")},
			[]problem{{"book_tags", "", fixed("the table does not exist (it stores collection Book/Tags)")}}},
		{"missing link table", []edit{dropTable("book_related")},
			[]problem{{"book_related", "", fixed("the table does not exist (it stores link table of Book/Related)")}}},
		{"missing column", []edit{replace("book", column("pages", edm.KindInt32, 0, 0), fixed(`"pages_count" INTEGER`))},
			[]problem{{"book", "pages", fixed("the column does not exist (Book/Pages, Edm.Int32)")}}},
		{"missing complex member", []edit{replace("publisher", column("address_geo_lat", edm.KindDouble, 0, 0), fixed(`"lat" REAL`))},
			[]problem{{"publisher", "address_geo_lat", fixed("the column does not exist (Publisher/Address/Geo/Lat, Edm.Double)")}}},
		{"text for a number", []edit{replace("book", column("pages", edm.KindInt32, 0, 0), column("pages", edm.KindString, 0, 0))},
			[]problem{{"book", "pages", cannotHold(perDialect("TEXT", "text"), "Book/Pages, Edm.Int32", edm.KindInt32, 0, 0)}}},
		{"a narrower decimal", []edit{replace("book", column("price", edm.KindDecimal, 19, 4), perDialect(`"price" REAL`, `"price" NUMERIC(19,2)`))},
			[]problem{{"book", "price", cannotHold(perDialect("REAL", "numeric(19,2)"), "Book/Price, Edm.Decimal(19,4)", edm.KindDecimal, 19, 4)}}},
		{"an enum's values", []edit{replace("book", column("genre", edm.KindInt16, 0, 0), column("genre", edm.KindString, 0, 0))},
			[]problem{{"book", "genre", cannotHold(perDialect("TEXT", "text"), "Book/Genre, Genre, stored as Edm.Int16", edm.KindInt16, 0, 0)}}},
		{"NOT NULL for a nullable property", []edit{replace("book", column("rating", edm.KindDouble, 0, 0), func(d sqldb.Dialect) string {
			return column("rating", edm.KindDouble, 0, 0)(d) + " NOT NULL"
		})},
			[]problem{{"book", "rating", fixed("the column is NOT NULL but Book/Rating, Edm.Double is nullable")}}},
		{"a key without a unique index", []edit{replace("loan", fixed(`PRIMARY KEY ("book_id", "member_no")`), fixed(`UNIQUE ("book_id", "due")`))},
			[]problem{{"loan", "book_id,member_no", fixed("no primary key or unique index on the key of entity type Loan")}}},
		{"a link without a unique index", []edit{replace("book_related", fixed(`PRIMARY KEY ("book_id", "related_book_id")`), fixed(`CHECK (book_id <> '')`))},
			[]problem{{"book_related", "book_id,related_book_id", fixed("no primary key or unique index on the key of link table of Book/Related")}}},
		{"everything at once", []edit{
			dropTable("book_tags"),
			replace("book", column("pages", edm.KindInt32, 0, 0), column("pages", edm.KindString, 0, 0)),
			replace("book", column("flag", edm.KindByte, 0, 0), fixed(`"flags" INTEGER`)),
			replace("loan", fixed(`PRIMARY KEY ("book_id", "member_no")`), fixed(`UNIQUE ("book_id", "due")`)),
		}, []problem{
			{"book", "pages", cannotHold(perDialect("TEXT", "text"), "Book/Pages, Edm.Int32", edm.KindInt32, 0, 0)},
			{"book", "flag", fixed("the column does not exist (Book/Flag, Edm.Byte)")},
			{"loan", "book_id,member_no", fixed("no primary key or unique index on the key of entity type Loan")},
			{"book_tags", "", fixed("the table does not exist (it stores collection Book/Tags)")},
		}},
	}
	m := builtModel(t, nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, fresh *dbtest.DB) {
				statements, err := schema.Create(fresh.Dialect(), m)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range statements {
					for _, e := range c.edits {
						if s != "" {
							s = e(fresh.Dialect(), s)
						}
					}
					if s != "" {
						exec(t, fresh, s)
					}
				}
				var want []schema.Problem
				for _, p := range c.want {
					want = append(want, schema.Problem{Table: p.table, Column: p.column, Message: p.message(fresh.Dialect())})
				}
				err = schema.Check(context.Background(), fresh.DB, m)
				var mismatch *schema.MismatchError
				if !errors.As(err, &mismatch) {
					t.Fatalf("Check() = %v, want a *MismatchError", err)
				}
				if diff := cmp.Diff(want, mismatch.Problems); diff != "" {
					t.Errorf("Check() problems (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestCheck_HandWritten checks tables written by hand as a team would: other type names for the same storage,
// a unique lower(email) for the key, an INTEGER PRIMARY KEY, extra columns and tables, no foreign keys.
func TestCheck_HandWritten(t *testing.T) {
	ddl := map[string][]string{
		"sqlite": {
			`CREATE TABLE author (id VARCHAR(24) PRIMARY KEY, name NVARCHAR(100) NOT NULL, photo BLOB, extra TEXT)`,
			`CREATE TABLE book (id TEXT PRIMARY KEY, author_id TEXT, year INT NOT NULL, price BIGINT, rating DOUBLE)`,
			`CREATE TABLE member (email TEXT NOT NULL, nickname TEXT)`,
			`CREATE UNIQUE INDEX member_email ON member (lower(email))`,
			`CREATE TABLE counter (n INTEGER PRIMARY KEY)`,
		},
		"postgres": {
			`CREATE TABLE author (id VARCHAR(24) PRIMARY KEY, name VARCHAR(100) NOT NULL, photo BYTEA, extra TEXT)`,
			`CREATE TABLE book (id TEXT PRIMARY KEY, author_id TEXT, year BIGINT NOT NULL, price NUMERIC, rating FLOAT8)`,
			`CREATE TABLE member (email TEXT NOT NULL, nickname TEXT)`,
			`CREATE UNIQUE INDEX member_email ON member (lower(email))`,
			`CREATE TABLE counter (n BIGINT PRIMARY KEY)`,
		},
	}
	m := &edm.Model{Namespace: "Hand", EntityTypes: []*edm.EntityType{
		{Name: "Author", Key: []string{"Id"}, Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindString, MaxLength: 24}, {Name: "Name", Type: edm.KindString, MaxLength: 100},
			{Name: "Photo", Type: edm.KindBinary, Nullable: true}}},
		{Name: "Book", Key: []string{"Id"}, Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindString}, {Name: "AuthorId", Type: edm.KindString, Nullable: true},
			{Name: "Year", Type: edm.KindInt32}, {Name: "Price", Type: edm.KindDecimal, Precision: 19, Scale: 4, Nullable: true},
			{Name: "Rating", Type: edm.KindDouble, Nullable: true}},
			Navigations: []*edm.NavigationProperty{{Name: "Author", Target: "Author", Nullable: true,
				Join: edm.Join{SourceColumns: []string{"author_id"}}}}},
		{Name: "Member", Key: []string{"Email"}, Properties: []*edm.Property{{Name: "Email", Type: edm.KindString}}},
		{Name: "Counter", Key: []string{"N"}, Properties: []*edm.Property{{Name: "N", Type: edm.KindInt64}}},
	}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		for _, s := range ddl[db.Dialect().Name()] {
			exec(t, db, s)
		}
		if err := schema.Check(context.Background(), db.DB, m); err != nil {
			t.Errorf("Check(hand-written tables) = %v", err)
		}
	})
}

// TestMigration applies the model as migrations: to an empty database, again (nothing to do), to a database
// whose book table lacks columns (added, rows kept), after the model gained a type and a reference to it, and
// refuses what adding cannot do.
func TestMigration(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := context.Background()
		withoutPagesAndPublisher := builtModel(t, func(m *edm.Model) {
			m.EntityTypes = m.EntityTypes[1:] // no Publisher
			m.EntitySets = m.EntitySets[1:]
			book := m.EntityTypes[1]
			book.Properties = slicesDelete(book.Properties, "Pages", "PublisherId")
			book.Navigations = book.Navigations[1:]
		})
		up := func(m *edm.Model) (int, error) {
			return migrate.Up(ctx, db.DB, schema.Migration("library", m))
		}
		if n, err := up(withoutPagesAndPublisher); err != nil || n != 1 {
			t.Fatalf("Up(empty database) = %d, %v, want 1, nil", n, err)
		}
		if n, err := up(withoutPagesAndPublisher); err != nil || n != 0 {
			t.Fatalf("Up(again) = %d, %v, want 0, nil", n, err)
		}
		exec(t, db, `INSERT INTO book (id, title, flag, level) VALUES ('b1', 'Alpha', 0, 0)`)

		m := builtModel(t, nil)
		changes, err := schema.Changes(ctx, db.DB, m)
		if err != nil {
			t.Fatal(err)
		}
		q := db.Dialect().QuoteIdent
		trigger := []string{"CREATE TRIGGER " + q("publisher_row_version")}
		if db.Dialect().Name() == "postgres" {
			trigger = []string{"CREATE OR REPLACE FUNCTION " + q("publisher_row_version"), "CREATE TRIGGER " + q("publisher_row_version")}
		}
		wantStart := append(append([]string{"CREATE TABLE " + q("publisher") + " ("}, trigger...),
			"ALTER TABLE "+q("book")+" ADD COLUMN "+q("pages")+" "+db.Dialect().ColumnType(edm.KindInt32, 0, 0)+" NOT NULL DEFAULT 0",
			"ALTER TABLE "+q("book")+" ADD COLUMN "+q("publisher_id")+" "+db.Dialect().ColumnType(edm.KindString, 0, 0),
			"CREATE INDEX "+q("book_publisher_id_idx"),
		)
		if len(changes) < len(wantStart) {
			t.Fatalf("Changes = %q, want %d or more", changes, len(wantStart))
		}
		for i, w := range wantStart {
			if !strings.HasPrefix(changes[i], w) {
				t.Errorf("Changes[%d] = %q, want it to start with %q", i, changes[i], w)
			}
		}
		if n, err := up(m); err != nil || n != 1 {
			t.Fatalf("Up(model with Publisher and Book/Pages) = %d, %v, want 1, nil", n, err)
		}
		if err := schema.Check(ctx, db.DB, m); err != nil {
			t.Errorf("Check after the migration = %v", err)
		}
		var pages int
		if err := db.QueryRow(`SELECT pages FROM book WHERE id = 'b1'`).Scan(&pages); err != nil || pages != 0 {
			t.Errorf("pages of the book stored before = %d, %v, want 0", pages, err)
		}
		if _, err := db.Exec(`UPDATE book SET publisher_id = 'missing'`); db.Dialect().ClassifyError(err) != sqldb.ErrForeignKeyViolation {
			t.Errorf("a reference to a missing publisher: error %v, want a foreign key violation", err)
		}
		var versions []string
		rows, err := db.Query(`SELECT name FROM schema_migrations WHERE component = 'library' ORDER BY version`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				t.Fatal(err)
			}
			versions = append(versions, name)
		}
		if len(versions) != 2 || !strings.HasPrefix(versions[0], "create table author; create table book;") ||
			!strings.HasPrefix(versions[1], "create table publisher; add column book.pages; add column book.publisher_id; create index book_publisher_id_idx") {
			t.Errorf("schema_migrations names = %q", versions)
		}

		withTitle2 := builtModel(t, func(m *edm.Model) {
			m.EntityTypes[2].Properties = append(m.EntityTypes[2].Properties, &edm.Property{Name: "Subtitle", Type: edm.KindString})
		})
		_, err = up(withTitle2)
		var mismatch *schema.MismatchError
		if !errors.As(err, &mismatch) {
			t.Fatalf("Up(a required string added) = %v, want a *MismatchError", err)
		}
		want := []schema.Problem{{Table: "book", Column: "subtitle", Message: "the column does not exist and cannot be " +
			"added to a table that may hold rows: Book/Subtitle, Edm.String is not nullable and has no Default " +
			"(declare one, or add the column yourself)"}}
		if diff := cmp.Diff(want, mismatch.Problems); diff != "" {
			t.Errorf("Up(a required string added) problems (-want +got):\n%s", diff)
		}
	})
}

// slicesDelete returns properties without those named.
func slicesDelete(properties []*edm.Property, names ...string) []*edm.Property {
	var out []*edm.Property
	for _, p := range properties {
		keep := true
		for _, n := range names {
			keep = keep && p.Name != n
		}
		if keep {
			out = append(out, p)
		}
	}
	return out
}

// create runs the DDL of m on db.
func create(t *testing.T, db *dbtest.DB, m *edm.Model) {
	t.Helper()
	statements, err := schema.Create(db.Dialect(), m)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range statements {
		exec(t, db, s)
	}
}

func exec(t *testing.T, db *dbtest.DB, statement string) {
	t.Helper()
	if _, err := db.Exec(statement); err != nil {
		t.Fatalf("%s: %v", statement, err)
	}
}

// TestCreate_Errors gives Create models whose tables cannot be (beyond what edm.Model.Build refuses): each
// mistake is reported, naming the declarations.
func TestCreate_Errors(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(m *edm.Model)
		want   string
	}{
		{"a link table named like a side table", func(m *edm.Model) {
			m.EntityTypes[6].Navigations = []*edm.NavigationProperty{{Name: "Tagged", Target: "Book", Collection: true,
				Join: edm.Join{Through: &edm.LinkTable{Table: "book_tags", SourceColumns: []string{"shelf_id"},
					TargetColumns: []string{"book_id"}}}}}
		}, `schema: navigation Shelf/Tagged: its link table "book_tags" is also the table of collection Book/Tags`},
		{"a join to a column that does not exist", func(m *edm.Model) {
			m.EntityTypes[4].Navigations[0].Join.TargetColumns = []string{"isbn_number"}
		}, `schema: navigation Loan/Book: table "book" (entity type Book) has no column "isbn_number"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := builtModel(t, c.change)
			_, err := schema.Create(sqlite.Dialect{}, m)
			if err == nil || err.Error() != c.want {
				t.Errorf("Create() error = %v, want %s", err, c.want)
			}
		})
	}
}

// TestNotBuilt gives every function of the package a model whose Build was forgotten: each answers
// edm.ErrNotBuilt, which names the fix, rather than a problem of the tables an unbuilt model seems to imply.
func TestNotBuilt(t *testing.T) {
	ctx := context.Background()
	db := dbtest.SQLite(t)
	for _, c := range []struct {
		name string
		call func(m *edm.Model) error
	}{
		{"Create", func(m *edm.Model) error {
			_, err := schema.Create(db.Dialect(), m)
			return err
		}},
		{"Check", func(m *edm.Model) error { return schema.Check(ctx, db.DB, m) }},
		{"Changes", func(m *edm.Model) error {
			_, err := schema.Changes(ctx, db.DB, m)
			return err
		}},
		{"Migration", func(m *edm.Model) error {
			_, err := migrate.Up(ctx, db.DB, schema.Migration("library", m))
			var n int
			if db.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n) == nil {
				t.Error("the refused migration left a schema_migrations table behind")
			}
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.call(libraryModel())
			if !errors.Is(err, edm.ErrNotBuilt) {
				t.Fatalf("%s(model not built) error = %v, want edm.ErrNotBuilt", c.name, err)
			}
			if !strings.Contains(err.Error(), "call its Build method") {
				t.Errorf("%s(model not built) error = %q, want it to name the fix", c.name, err)
			}
		})
	}
}

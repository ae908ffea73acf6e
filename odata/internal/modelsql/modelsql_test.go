package modelsql_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
)

// model is a person keyed by e-mail with a collection of nicknames, and a membership keyed by two columns.
func model(t *testing.T) *edm.Model {
	t.Helper()
	m := &edm.Model{Namespace: "Test", EntityTypes: []*edm.EntityType{
		{Name: "Person", Key: []string{"Email"}, Properties: []*edm.Property{
			{Name: "Email", Type: edm.KindString},
			{Name: "Id", Type: edm.KindString},
			{Name: "Nicknames", Type: edm.KindString, Collection: true, CollectionTable: &edm.CollectionTable{SourceColumns: []string{"id"}}},
			{Name: "Badges", Type: edm.KindBinary, Collection: true},
		}},
		{Name: "Membership", Key: []string{"GroupId", "PersonId"}, Properties: []*edm.Property{
			{Name: "GroupId", Type: edm.KindString},
			{Name: "PersonId", Type: edm.KindString},
		}},
	}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	return m
}

// schema creates the tables of model on db and fills them.
func schema(t *testing.T, db *dbtest.DB) {
	t.Helper()
	text := "TEXT"
	binary := "BLOB"
	if db.Dialect().Name() == "postgres" {
		text, binary = `TEXT COLLATE "C"`, "BYTEA"
	}
	ddl := strings.NewReplacer("TEXT", text, "BLOB", binary).Replace(`
CREATE TABLE person (email TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE);
CREATE TABLE person_nicknames (person_id TEXT NOT NULL, value TEXT, ordinal INTEGER NOT NULL);
CREATE TABLE person_badges (person_email TEXT NOT NULL, value BLOB, ordinal INTEGER NOT NULL);
CREATE TABLE membership (group_id TEXT NOT NULL, person_id TEXT NOT NULL, PRIMARY KEY (group_id, person_id));
INSERT INTO person VALUES ('ann@example.com', 'p1'), ('ÉLAN@example.com', 'p2');
INSERT INTO person_nicknames VALUES ('p1', 'Annie', 1), ('p1', 'A', 0);
INSERT INTO membership VALUES ('g1', 'p1'), ('g1', 'p2'), ('g2', 'p1')`)
	for _, stmt := range strings.Split(ddl, ";") {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	insert, _ := db.Dialect().Placeholder().ReplacePlaceholders(`INSERT INTO person_badges VALUES (?, ?, 0)`)
	if _, err := db.Exec(insert, "ann@example.com", []byte{0xca, 0xfe}); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, db *dbtest.DB, where sqldb.Statement, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(where.For(db.Dialect()), args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", where.For(db.Dialect()), err)
	}
	return n
}

// TestEquals checks key conditions, folded ones included: only ASCII letters fold, on both databases.
func TestEquals(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		schema(t, db)
		d := db.Dialect()
		for _, tc := range []struct {
			value string
			fold  bool
			want  int
		}{
			{"ann@example.com", false, 1},
			{"ANN@example.com", false, 0},
			{"ANN@EXAMPLE.COM", true, 1},
			{"élan@example.com", true, 0}, // É is not ASCII: it does not fold
			{"ÉLAN@EXAMPLE.COM", true, 1},
		} {
			cond := modelsql.Equals(d, modelsql.Column(d, "person", "email"), "?", tc.fold)
			if got := count(t, db, sqldb.NewStatement(`SELECT COUNT(*) FROM person WHERE `+cond), tc.value); got != tc.want {
				t.Errorf("Equals(%q, fold %v) matches %d rows, want %d (%s)", tc.value, tc.fold, got, tc.want, cond)
			}
		}
	})
}

// TestTupleIn checks a composite tuple IN on both databases.
func TestTupleIn(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		schema(t, db)
		d := db.Dialect()
		cols := modelsql.Columns(d, "m", []string{"group_id", "person_id"})
		cond := modelsql.Tuple(cols) + " IN (SELECT 'g1', id FROM person WHERE email = ?)"
		if got := count(t, db, sqldb.NewStatement(`SELECT COUNT(*) FROM membership AS "m" WHERE `+cond), "ann@example.com"); got != 1 {
			t.Errorf("%s matches %d rows, want 1", cond, got)
		}
	})
}

// TestCollectionArray reads the items of collections as JSON arrays, in item order, on both databases.
func TestCollectionArray(t *testing.T) {
	m := model(t)
	person := m.EntityType("Person")
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		schema(t, db)
		d := db.Dialect()
		names := modelsql.NewNames(d, m, "p")
		cols := modelsql.Select(d, names, "p", []*edm.Property{person.Property("Email"), person.Property("Nicknames"), person.Property("Badges")})
		rows, err := db.Query(`SELECT ` + strings.Join(cols, ", ") + ` FROM person AS "p" ORDER BY "p"."email"`)
		if err != nil {
			t.Fatalf("%v: %v", cols, err)
		}
		defer rows.Close()
		var got []string
		for rows.Next() {
			var email string
			var nicknames, badges *string
			if err := rows.Scan(&email, &nicknames, &badges); err != nil {
				t.Fatal(err)
			}
			got = append(got, email+" "+text(nicknames)+" "+strings.ToLower(text(badges)))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		want := []string{`ann@example.com ["A","Annie"] ["cafe"]`, `ÉLAN@example.com [] []`}
		if d.Name() == "postgres" { // json_agg spaces its items and is NULL over no rows
			want = []string{`ann@example.com ["A", "Annie"] ["cafe"]`, `ÉLAN@example.com null null`}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("CollectionArray (-want +got):\n%s", diff)
		}
	})
}

func text(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// TestNames checks that the quoted names of a model are those the dialect quotes, also for names it did not know.
func TestNames(t *testing.T) {
	m := model(t)
	d := postgres.Dialect{}
	names := modelsql.NewNames(d, m, "t0")
	for _, name := range []string{"person", "email", "person_nicknames", "ordinal", "t0", `un"known`} {
		if got, want := names.QuoteIdent(name), d.QuoteIdent(name); got != want {
			t.Errorf("Names.QuoteIdent(%q) = %q, want %q", name, got, want)
		}
	}
}

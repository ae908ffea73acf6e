package schema_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/schema"
	"github.com/storekit/store/odata/sqldb"
)

// generatedModel has a key of each kind the database generates.
func generatedModel(t *testing.T) *edm.Model {
	t.Helper()
	m := &edm.Model{Namespace: "Generated", EntityTypes: []*edm.EntityType{
		{Name: "Ticket", Key: []string{"Id"}, Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindInt64, Generated: true}, {Name: "Name", Type: edm.KindString, Nullable: true}}},
		{Name: "Badge", Key: []string{"Id"}, Properties: []*edm.Property{{Name: "Id", Type: edm.KindGuid, Generated: true}}},
	}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCheck_GeneratedKeys checks tables for keys the database generates: those Create writes (with the key
// declared by Dialect.GeneratedKey), hand-written ones that generate (rowid, serial, a default), and ones that
// do not, a problem naming the column.
func TestCheck_GeneratedKeys(t *testing.T) {
	notGenerated := func(d sqldb.Dialect) []schema.Problem {
		message := func(of string, k edm.Kind) string {
			return "the column gets no value when an insert leaves it out, but the database generates " + of + ", " +
				k.String() + " (" + d.Name() + " wants " + d.GeneratedKey(k) + ")"
		}
		return []schema.Problem{
			{Table: "ticket", Column: "id", Message: message("Ticket/Id", edm.KindInt64)},
			{Table: "badge", Column: "id", Message: message("Badge/Id", edm.KindGuid)},
		}
	}
	for _, c := range []struct {
		name string
		ddl  map[string][]string // by dialect; nil: what Create writes
		want func(d sqldb.Dialect) []schema.Problem
	}{
		{name: "created from the model"},
		{name: "hand-written, generating", ddl: map[string][]string{
			"sqlite": {`CREATE TABLE ticket (id INTEGER PRIMARY KEY, name TEXT)`,
				`CREATE TABLE badge (id TEXT PRIMARY KEY DEFAULT (lower(hex(randomblob(16)))))`},
			"postgres": {`CREATE TABLE ticket (id BIGSERIAL PRIMARY KEY, name TEXT)`,
				`CREATE TABLE badge (id UUID PRIMARY KEY DEFAULT gen_random_uuid())`},
		}},
		{name: "hand-written, not generating", ddl: map[string][]string{
			"sqlite":   {`CREATE TABLE ticket (id BIGINT PRIMARY KEY, name TEXT)`, `CREATE TABLE badge (id TEXT PRIMARY KEY)`},
			"postgres": {`CREATE TABLE ticket (id BIGINT PRIMARY KEY, name TEXT)`, `CREATE TABLE badge (id UUID PRIMARY KEY)`},
		}, want: notGenerated},
	} {
		t.Run(c.name, func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
				m := generatedModel(t)
				if c.ddl == nil {
					create(t, db, m)
				}
				for _, s := range c.ddl[db.Dialect().Name()] {
					exec(t, db, s)
				}
				err := schema.Check(context.Background(), db.DB, m)
				if c.want == nil {
					if err != nil {
						t.Fatalf("Check() = %v", err)
					}
					return
				}
				var mismatch *schema.MismatchError
				if !errors.As(err, &mismatch) {
					t.Fatalf("Check() = %v, want a *MismatchError", err)
				}
				if diff := cmp.Diff(c.want(db.Dialect()), mismatch.Problems); diff != "" {
					t.Errorf("Check() problems (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestCreate_GeneratedKeys checks the CREATE TABLE of a generated key: the column declared by the dialect, no
// separate primary key.
func TestCreate_GeneratedKeys(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		statements, err := schema.Create(db.Dialect(), generatedModel(t))
		if err != nil {
			t.Fatal(err)
		}
		q := db.Dialect().QuoteIdent
		want := "CREATE TABLE " + q("ticket") + " (\n\t" + q("id") + " " + db.Dialect().GeneratedKey(edm.KindInt64) + ",\n\t" +
			q("name") + " " + db.Dialect().ColumnType(edm.KindString, 0, 0) + ",\n\t" + rowVersionColumn(db.Dialect()) +
			"\n)" + db.Dialect().TableOptions()
		if diff := cmp.Diff(want, statements[0]); diff != "" {
			t.Errorf("Create() ticket (-want +got):\n%s", diff)
		}
	})
}

// rowVersionColumn is the definition of the row version column in a CREATE TABLE of d.
func rowVersionColumn(d sqldb.Dialect) string {
	if d.Name() == "postgres" {
		return `"row_version" BIGINT NOT NULL DEFAULT floor(random() * 281474976710655)::bigint`
	}
	return `"row_version" INTEGER NOT NULL DEFAULT (random() & 281474976710655)`
}

package schema_test

import (
	"context"
	"testing"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/schema"
)

// versionedNoteModel is one entity type Note (table note) without declared ETag properties, or with them when declared.
func versionedNoteModel(t *testing.T, declared bool) *edm.Model {
	t.Helper()
	note := &edm.EntityType{Name: "Note", Key: []string{"Id"}, Properties: []*edm.Property{
		{Name: "Id", Type: edm.KindString},
		{Name: "Body", Type: edm.KindString, Nullable: true},
	}}
	if declared {
		note.ETag = []string{"Body"}
	}
	m := &edm.Model{Namespace: "Notes", EntityTypes: []*edm.EntityType{note}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMigration_RowVersion gives a table another program made, with rows, the row version: Adapt does not use a
// table without it, the migration adds the column (random versions for the rows) and the trigger, Adapt then
// uses it, and another program's UPDATE that leaves the version bumps it while one that sets it keeps it. A
// type with declared ETag properties gets none.
func TestMigration_RowVersion(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := context.Background()
		exec(t, db, `CREATE TABLE note (id TEXT PRIMARY KEY, body TEXT)`)
		exec(t, db, `INSERT INTO note (id, body) VALUES ('n1', 'one'), ('n2', 'two')`)
		before := versionedNoteModel(t, false)
		if err := schema.Adapt(ctx, db, before); err != nil {
			t.Fatal(err)
		}
		if before.EntityType("Note").RowVersion() != nil {
			t.Fatal("Adapt gave a table without the row version one")
		}
		if n, err := migrate.Up(ctx, db.DB, schema.Migration("notes", versionedNoteModel(t, false))); err != nil || n != 1 {
			t.Fatalf("Up = %d, %v, want 1, nil", n, err)
		}
		version := func(id string) int64 {
			t.Helper()
			var v int64
			if err := db.QueryRowContext(ctx, `SELECT row_version FROM note WHERE id = '`+id+`'`).Scan(&v); err != nil {
				t.Fatal(err)
			}
			return v
		}
		if v1, v2 := version("n1"), version("n2"); v1 == v2 || v1 < 0 || v1 >= 1<<48 || v2 < 0 || v2 >= 1<<48 {
			t.Errorf("versions of the rows after the migration %d, %d: want two random ones below 2^48", v1, v2)
		}
		m := versionedNoteModel(t, false)
		if err := schema.Adapt(ctx, db, m); err != nil {
			t.Fatal(err)
		}
		if rv := m.EntityType("Note").RowVersion(); rv == nil || rv.Column != edm.RowVersionColumn {
			t.Fatalf("RowVersion after the migration = %v, want the column %s", rv, edm.RowVersionColumn)
		}
		if p := m.EntityType("Note").ETagProperties(); len(p) != 1 || p[0] != m.EntityType("Note").RowVersion() {
			t.Errorf("ETagProperties = %v, want the row version alone", p)
		}
		v := version("n1")
		exec(t, db, `UPDATE note SET body = 'uno' WHERE id = 'n1'`)
		if got := version("n1"); got != v+1 {
			t.Errorf("version after another program's UPDATE = %d, want %d", got, v+1)
		}
		exec(t, db, `UPDATE note SET body = 'one', row_version = 7 WHERE id = 'n1'`)
		if got := version("n1"); got != 7 {
			t.Errorf("version after an UPDATE that sets it = %d, want 7", got)
		}
		exec(t, db, `INSERT INTO note (id, body) VALUES ('n3', 'three')`)
		if statements, err := schema.Changes(ctx, db, m); err != nil || len(statements) != 0 {
			t.Errorf("Changes after the migration = %q, %v; want none", statements, err)
		}
		declared := versionedNoteModel(t, true)
		if err := schema.Adapt(ctx, db, declared); err != nil {
			t.Fatal(err)
		}
		if declared.EntityType("Note").RowVersion() != nil {
			t.Error("a type with declared ETag properties got the row version")
		}
	})
}

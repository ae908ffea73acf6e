package schema_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/schema"
)

// noteModel is a model of one entity type with two searchable properties.
func noteModel(t *testing.T) *edm.Model {
	t.Helper()
	m := &edm.Model{Namespace: "N", EntityTypes: []*edm.EntityType{{Name: "Note", Key: []string{"Id"},
		Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindString},
			{Name: "Title", Type: edm.KindString, Searchable: true},
			{Name: "Text", Type: edm.KindString, Nullable: true, Searchable: true},
		}}}, EntitySets: []*edm.EntitySet{{Name: "Note", Type: "Note"}}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	return m
}

// createWithoutSearch runs the statements schema.Create gives for m but those of the full-text index of
// noteModel, and returns those, in Create's order.
func createWithoutSearch(t *testing.T, db *dbtest.DB, m *edm.Model) []string {
	t.Helper()
	statements, err := schema.Create(db.Dialect(), m)
	if err != nil {
		t.Fatal(err)
	}
	search := map[string]bool{}
	for _, s := range db.Dialect().FullText().Create("note", "note_search", []string{"title", "text"}) {
		search[s] = true
	}
	var skipped []string
	for _, s := range statements {
		if search[s] {
			skipped = append(skipped, s)
			continue
		}
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
	return skipped
}

// searchable returns the names of the entity types Searchable finds indexed and missing.
func searchable(t *testing.T, db *dbtest.DB, m *edm.Model) (indexed, missing []string) {
	t.Helper()
	in, out, err := schema.Searchable(context.Background(), db.DB, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, et := range in {
		indexed = append(indexed, et.Name)
	}
	for _, et := range out {
		missing = append(missing, et.Name)
	}
	return indexed, missing
}

// TestSearchable_CreateAndChanges: Create makes the full-text index, which Searchable finds; a table made without
// it gets it from Changes, filled with the rows the table holds; an object of the index's name with another
// definition is no index, and Changes leaves it alone.
func TestSearchable_CreateAndChanges(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := context.Background()
		m := noteModel(t)
		fromCreate := createWithoutSearch(t, db, m) // made by Changes below
		if _, err := db.Exec(`INSERT INTO note (id, title, text) VALUES ('n1', 'Blue lamp', NULL), ('n2', 'red', 'oak Lamp')`); err != nil {
			t.Fatal(err)
		}
		indexed, missing := searchable(t, db, m)
		if diff := cmp.Diff([]string{"Note"}, missing); diff != "" || indexed != nil {
			t.Errorf("Searchable without index: indexed %v, missing (-want +got):\n%s", indexed, diff)
		}
		changes, err := schema.Changes(ctx, db.DB, m)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(fromCreate, changes); diff != "" {
			t.Errorf("Changes (-want the statements of Create +got):\n%s", diff)
		}
		for _, s := range changes {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%v\n%s", err, s)
			}
		}
		indexed, missing = searchable(t, db, m)
		if diff := cmp.Diff([]string{"Note"}, indexed); diff != "" || missing != nil {
			t.Errorf("Searchable after Changes: missing %v, indexed (-want +got):\n%s", missing, diff)
		}
		if again, err := schema.Changes(ctx, db.DB, m); err != nil || len(again) != 0 {
			t.Errorf("Changes after applying them = %q, %v; want none", again, err)
		}
		// The rows the table held are in the index.
		q := db.Dialect().FullText().Match("note_search", "t0", []string{`t0.title`, `t0.text`}, "$1")
		arg := "'lamp'"
		if db.Dialect().Name() == "sqlite" {
			q, arg = strings.Replace(q, "$1", "?", 1), "lamp"
		}
		var n int
		if err := db.QueryRow("SELECT count(*) FROM note AS t0 WHERE "+q, arg).Scan(&n); err != nil || n != 2 {
			t.Errorf("rows matching lamp in the index made by Changes = %d, %v; want 2", n, err)
		}
	})
}

// TestSearchable_OtherDefinition: an index of the right name over other columns is not the full-text index.
func TestSearchable_OtherDefinition(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		m := noteModel(t)
		createWithoutSearch(t, db, m)
		for _, s := range db.Dialect().FullText().Create("note", "note_search", []string{"title"}) {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%v\n%s", err, s)
			}
		}
		indexed, missing := searchable(t, db, m)
		if diff := cmp.Diff([]string{"Note"}, missing); diff != "" || indexed != nil {
			t.Errorf("Searchable with an index over Title only: indexed %v, missing (-want +got):\n%s", indexed, diff)
		}
		if changes, err := schema.Changes(context.Background(), db.DB, m); err != nil || len(changes) != 0 {
			t.Errorf("Changes with another object named note_search = %q, %v; want none", changes, err)
		}
	})
}

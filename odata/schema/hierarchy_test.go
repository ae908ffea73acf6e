package schema_test

import (
	"context"
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

// hierarchyModel is Item with the derived types Book (a required Pages, a collection of Tags) and Ebook
// (derived from Book); with derived false, Item alone.
func hierarchyModel(t *testing.T, derived bool) *edm.Model {
	t.Helper()
	m := &edm.Model{Namespace: "Shop", EntityTypes: []*edm.EntityType{
		{Name: "Item", Key: []string{"Id"}, Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindString, MaxLength: 24},
			{Name: "Name", Type: edm.KindString}}},
	}, EntitySets: []*edm.EntitySet{{Name: "Items", Type: "Item"}}}
	if derived {
		m.EntityTypes = append(m.EntityTypes,
			&edm.EntityType{Name: "Book", BaseType: "Item", Properties: []*edm.Property{
				{Name: "Pages", Type: edm.KindInt32},
				{Name: "Tags", Type: edm.KindString, Collection: true}}},
			&edm.EntityType{Name: "Ebook", BaseType: "Book", Properties: []*edm.Property{
				{Name: "Bytes", Type: edm.KindInt64, Nullable: true}}})
	}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCreate_Hierarchy checks the one table of a hierarchy: the derived types' properties are nullable columns
// of the root's table, the discriminator is not null with the root's name as default, and the derived types'
// collections have side tables that refer to the root's table.
func TestCreate_Hierarchy(t *testing.T) {
	want := map[string][]string{
		"sqlite": {
			`CREATE TABLE "item" (` + "\n" +
				`	"id" TEXT NOT NULL,` + "\n" +
				`	"name" TEXT NOT NULL,` + "\n" +
				`	"pages" INTEGER,` + "\n" +
				`	"bytes" INTEGER,` + "\n" +
				`	"odata_type" TEXT NOT NULL DEFAULT 'Shop.Item',` + "\n" +
				`	"row_version" INTEGER NOT NULL DEFAULT (random() & 281474976710655),` + "\n" +
				`	PRIMARY KEY ("id")` + "\n" +
				`) STRICT`,
		},
		"postgres": {
			`CREATE TABLE "item" (` + "\n" +
				`	"id" TEXT COLLATE "C" NOT NULL,` + "\n" +
				`	"name" TEXT COLLATE "C" NOT NULL,` + "\n" +
				`	"pages" INTEGER,` + "\n" +
				`	"bytes" BIGINT,` + "\n" +
				`	"odata_type" TEXT COLLATE "C" NOT NULL DEFAULT 'Shop.Item',` + "\n" +
				`	"row_version" BIGINT NOT NULL DEFAULT floor(random() * 281474976710655)::bigint,` + "\n" +
				`	PRIMARY KEY ("id")` + "\n" +
				`)`,
		},
	}
	m := hierarchyModel(t, true)
	for _, d := range []sqldb.Dialect{sqlite.Dialect{}, postgres.Dialect{}} {
		statements, err := schema.Create(d, m)
		if err != nil {
			t.Fatalf("Create(%s) = %v", d.Name(), err)
		}
		if diff := cmp.Diff(want[d.Name()], statements[:1]); diff != "" {
			t.Errorf("Create(%s) table of the hierarchy (-want +got):\n%s", d.Name(), diff)
		}
		if len(statements) < 2 {
			t.Errorf("Create(%s) = %q, want the side table of Book/Tags too", d.Name(), statements)
		}
	}
}

// TestMigration_Hierarchy adds derived types to a database made for the root alone: the migration adds their
// columns and the discriminator, the rows stored before become the root's, and Check is content.
func TestMigration_Hierarchy(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := context.Background()
		up := func(m *edm.Model) (int, error) {
			return migrate.Up(ctx, db.DB, schema.Migration("shop", m))
		}
		if n, err := up(hierarchyModel(t, false)); err != nil || n != 1 {
			t.Fatalf("Up(root alone) = %d, %v, want 1, nil", n, err)
		}
		exec(t, db, `INSERT INTO item (id, name) VALUES ('i1', 'Old')`)
		m := hierarchyModel(t, true)
		if err := schema.Check(ctx, db.DB, m); err == nil {
			t.Error("Check(database without the hierarchy's columns) = nil, want the missing columns")
		}
		if n, err := up(m); err != nil || n != 1 {
			t.Fatalf("Up(hierarchy) = %d, %v, want 1, nil", n, err)
		}
		if err := schema.Check(ctx, db.DB, m); err != nil {
			t.Errorf("Check after the migration = %v", err)
		}
		exec(t, db, `INSERT INTO item (id, name, pages, odata_type) VALUES ('b1', 'Book', 10, 'Shop.Book')`)
		exec(t, db, `INSERT INTO item_tags (item_id, value, ordinal) VALUES ('b1', 'x', 0)`)
		var got [][2]string
		rows, err := db.Query(`SELECT id, odata_type FROM item ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var r [2]string
			if err := rows.Scan(&r[0], &r[1]); err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		if diff := cmp.Diff([][2]string{{"b1", "Shop.Book"}, {"i1", "Shop.Item"}}, got); diff != "" {
			t.Errorf("types of the rows (-want +got):\n%s", diff)
		}
	})
}

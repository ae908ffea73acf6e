package plan_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqlite"
)

// TestRead_SelectETagColumns checks the columns a $select reads for each source of ETags: the selection and the
// key, and then the row version (edm.EntityType.UseRowVersion), the declared ETag property, or every property
// (the hash of all, the last resort). The whole ETag, and no more, is read beside the selection.
func TestRead_SelectETagColumns(t *testing.T) {
	product := func(name string, etag []string) *edm.EntityType {
		return &edm.EntityType{Name: name, Key: []string{"Id"}, ETag: etag, Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindString},
			{Name: "Name", Type: edm.KindString},
			{Name: "Price", Type: edm.KindInt32},
			{Name: "Description", Type: edm.KindString},
			{Name: "UpdatedOnUtc", Type: edm.KindDateTimeOffset},
		}}
	}
	m := &edm.Model{Namespace: "Store",
		EntityTypes: []*edm.EntityType{product("Versioned", nil), product("Declared", []string{"UpdatedOnUtc"}), product("Hashed", nil)},
		EntitySets: []*edm.EntitySet{{Name: "Versioned", Type: "Versioned"}, {Name: "Declared", Type: "Declared"},
			{Name: "Hashed", Type: "Hashed"}}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	m.EntityType("Versioned").UseRowVersion(edm.RowVersionColumn)
	p := plan.NewPlanner(m, sqlite.Dialect{}, plan.Options{})
	for _, c := range []struct{ set, want string }{
		{"Versioned", `SELECT "t0"."id", "t0"."name", "t0"."price", "t0"."row_version" FROM "versioned" AS "t0" ORDER BY "t0"."id" LIMIT 101`},
		{"Declared", `SELECT "t0"."id", "t0"."name", "t0"."price", "t0"."updated_on_utc" FROM "declared" AS "t0" ORDER BY "t0"."id" LIMIT 101`},
		{"Hashed", `SELECT "t0"."id", "t0"."name", "t0"."price", "t0"."description", "t0"."updated_on_utc" FROM "hashed" AS "t0" ORDER BY "t0"."id" LIMIT 101`},
	} {
		r, err := p.Read(plan.Scope{Set: m.EntitySet(c.set)}, "$select=Id,Name,Price")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := r.Select(100)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s $select=Id,Name,Price (-want +got):\n%s", c.set, diff)
		}
		var etag []string
		for _, i := range r.Projection.ETag {
			path := r.Projection.Columns[i].Path
			etag = append(etag, path[len(path)-1].Column)
		}
		if c.set != "Hashed" && len(etag) != 1 {
			t.Errorf("%s ETag columns %v, want one", c.set, etag)
		}
	}
}

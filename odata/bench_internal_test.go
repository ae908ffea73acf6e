package odata

import (
	"database/sql"
	"testing"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
	"github.com/storekit/store/odata/syntax"
)

// BenchmarkRowWriter_100 measures the JSON writer alone: 100 rows of a 14-property entity, as SQLite's driver
// returns them, converted and written with their ETags.
func BenchmarkRowWriter_100(b *testing.B) {
	m := &edm.Model{Namespace: "Bench", EntityTypes: []*edm.EntityType{{
		Name: "Product",
		Key:  []string{"Id"},
		Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindString},
			{Name: "Name", Type: edm.KindString},
			{Name: "Sku", Type: edm.KindString, Nullable: true},
			{Name: "Price", Type: edm.KindDecimal, Precision: 19, Scale: 4},
			{Name: "OldPrice", Type: edm.KindDecimal, Precision: 19, Scale: 4},
			{Name: "StockQuantity", Type: edm.KindInt32},
			{Name: "Published", Type: edm.KindBoolean},
			{Name: "Weight", Type: edm.KindDouble},
			{Name: "ProductType", Enum: &edm.EnumType{Name: "ProductType", Members: []edm.EnumMember{{Name: "Simple", Value: 5}, {Name: "Grouped", Value: 10}}}},
			{Name: "CreatedOnUtc", Type: edm.KindDateTimeOffset},
			{Name: "UpdatedOnUtc", Type: edm.KindDateTimeOffset},
			{Name: "ShortDescription", Type: edm.KindString, Nullable: true},
			{Name: "DisplayOrder", Type: edm.KindInt32},
			{Name: "Gtin", Type: edm.KindString, Nullable: true},
		},
	}}}
	if err := m.Build(); err != nil {
		b.Fatal(err)
	}
	l := newLayout(m.EntityType("Product"), nil)
	row := []any{"0192f3a4b5c6d7e8f9a0b1c2", "Classic leather notebook, A5", "NB-A5-001", int64(199900), int64(249900),
		int64(120), int64(1), 0.35, int64(5), "2026-11-22T01:02:03.456000Z", "2026-11-22T01:02:03.000000Z",
		"A notebook with \"quotes\" and é", int64(3), nil}
	rw := newRowWriter(l)
	rw.format = minimalFormat
	out := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out = out[:0]
		for r := 0; r < 100; r++ {
			copy(rw.values, row)
			if err := rw.convert(); err != nil {
				b.Fatal(err)
			}
			out = rw.appendObject(out)
		}
	}
	b.SetBytes(int64(len(out)))
}

// BenchmarkPlanByKey measures the planning part of a request for one entity by key, without the database:
// the path parsed and resolved against the model, the cached plan found and its key literal converted, the
// row writer's shape looked up, and the statement and arguments produced.
func BenchmarkPlanByKey(b *testing.B) {
	m := &edm.Model{Namespace: "Bench", EntityTypes: []*edm.EntityType{{
		Name: "Product", Key: []string{"Id"},
		Properties: []*edm.Property{{Name: "Id", Type: edm.KindString}, {Name: "Name", Type: edm.KindString},
			{Name: "Price", Type: edm.KindDecimal, Precision: 19, Scale: 4}},
	}}, EntitySets: []*edm.EntitySet{{Name: "Product", Type: "Product"}}}
	if err := m.Build(); err != nil {
		b.Fatal(err)
	}
	s, err := NewService(Config{Model: m, DB: sqldb.NewDB(&sql.DB{}, sqlite.Dialect{}), SkipSchemaCheck: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		raw := "/Product('0192f3a4b5c6d7e8f9a0b1c2')"
		rp, err := syntax.ParsePath(raw)
		if err != nil {
			b.Fatal(err)
		}
		t, err := s.resolve(raw, rp)
		if err != nil {
			b.Fatal(err)
		}
		r, err := s.planner.Read(t.scope, "")
		if err != nil {
			b.Fatal(err)
		}
		_ = r.Memo(s.shapeFn).(*readShape)
		r.Select(1)
	}
}

package plan_test

import (
	"testing"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/schema"
	"github.com/storekit/store/odata/sqldb"
)

// scalarColumns lists the stored scalar properties of t with their full column names (complex members flattened).
func scalarColumns(t *edm.EntityType) []*edm.Property {
	var out []*edm.Property
	var walk func(p *edm.Property)
	walk = func(p *edm.Property) {
		if p.Complex != nil {
			for _, m := range p.Properties() {
				walk(m)
			}
			return
		}
		out = append(out, p)
	}
	for _, p := range t.Properties {
		if p.SQL != "" || p.Collection {
			continue
		}
		walk(p)
	}
	return out
}

func propertyOfColumn(t *edm.EntityType, col string) *edm.Property {
	for _, p := range scalarColumns(t) {
		if p.Column == col {
			return p
		}
	}
	return nil
}

// createSchema creates the tables of m as the engine derives them from the model (odata/schema.Create).
func createSchema(t testing.TB, db *dbtest.DB, m *edm.Model) {
	t.Helper()
	statements, err := schema.Create(db.Dialect(), m)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range statements {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// insert adds one row; values are Go values of the properties (by column name) or of link and side columns.
func insert(t testing.TB, db *dbtest.DB, table string, cols []string, vals []any) {
	t.Helper()
	b := sqldb.Builder(db.Dialect()).Insert(db.Dialect().QuoteIdent(table))
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = db.Dialect().QuoteIdent(c)
	}
	s, args, err := b.Columns(q...).Values(vals...).ToSql()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(s, args...); err != nil {
		t.Fatalf("%s %v: %v", s, args, err)
	}
}

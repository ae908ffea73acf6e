package plan_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// columnType is the column type of a property per odata/DESIGN.md.
func columnType(d sqldb.Dialect, p *edm.Property) string {
	pg := d.Name() == "postgres"
	if p.Enum != nil {
		return "INTEGER"
	}
	switch p.Type {
	case edm.KindString:
		if pg {
			return `TEXT COLLATE "C"`
		}
		return "TEXT"
	case edm.KindBoolean:
		if pg {
			return "BOOLEAN"
		}
		return "INTEGER"
	case edm.KindByte, edm.KindSByte, edm.KindInt16:
		if pg {
			return "SMALLINT"
		}
		return "INTEGER"
	case edm.KindInt32:
		return "INTEGER"
	case edm.KindInt64, edm.KindDuration:
		if pg {
			return "BIGINT"
		}
		return "INTEGER"
	case edm.KindDecimal:
		if pg {
			return fmt.Sprintf("NUMERIC(%d,%d)", p.Precision, p.Scale)
		}
		return "INTEGER"
	case edm.KindDouble:
		if pg {
			return "DOUBLE PRECISION"
		}
		return "REAL"
	case edm.KindSingle:
		if pg {
			return "REAL"
		}
		return "REAL"
	case edm.KindDate:
		if pg {
			return "DATE"
		}
		return "TEXT"
	case edm.KindTimeOfDay:
		if pg {
			return "TIME"
		}
		return "TEXT"
	case edm.KindDateTimeOffset:
		if pg {
			return "TIMESTAMPTZ"
		}
		return "TEXT"
	case edm.KindGuid:
		if pg {
			return "UUID"
		}
		return "TEXT"
	case edm.KindBinary, edm.KindStream:
		if pg {
			return "BYTEA"
		}
		return "BLOB"
	}
	return "TEXT"
}

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

// schemaSQL returns the CREATE TABLE statements of m: one table per entity type, the side tables of collections
// and the link tables of many-to-many navigations.
func schemaSQL(d sqldb.Dialect, m *edm.Model) []string {
	q := d.QuoteIdent
	strict := ""
	if d.Name() == "sqlite" {
		strict = " STRICT"
	}
	var out []string
	links := map[string]string{}
	for _, t := range m.EntityTypes {
		var cols []string
		for _, p := range scalarColumns(t) {
			c := q(p.Column) + " " + columnType(d, p)
			if !p.Nullable {
				c += " NOT NULL"
			}
			cols = append(cols, c)
		}
		var keys []string
		for _, k := range t.KeyProperties() {
			keys = append(keys, q(k.Column))
		}
		cols = append(cols, "PRIMARY KEY ("+strings.Join(keys, ", ")+")")
		out = append(out, "CREATE TABLE "+q(t.Table)+" (\n\t"+strings.Join(cols, ",\n\t")+"\n)"+strict)
		for _, p := range t.Properties {
			if !p.Collection {
				continue
			}
			ct := p.CollectionTable
			var sc []string
			for i, col := range ct.SourceColumns {
				sc = append(sc, q(ct.OwnerColumns[i])+" "+columnType(d, propertyOfColumn(t, col))+" NOT NULL")
			}
			item := *p
			item.Collection = false
			vt := q(ct.ValueColumn) + " " + columnType(d, &item)
			if !p.Nullable {
				vt += " NOT NULL"
			}
			sc = append(sc, vt, q(ct.OrdinalColumn)+" INTEGER NOT NULL")
			out = append(out, "CREATE TABLE "+q(ct.Table)+" (\n\t"+strings.Join(sc, ",\n\t")+"\n)"+strict)
		}
		for _, n := range t.Navigations {
			l := n.Join.Through
			if l == nil || links[l.Table] != "" {
				continue
			}
			var lc []string
			for i, c := range l.SourceColumns {
				lc = append(lc, q(c)+" "+columnType(d, propertyOfColumn(t, n.Join.SourceColumns[i]))+" NOT NULL")
			}
			for i, c := range l.TargetColumns {
				lc = append(lc, q(c)+" "+columnType(d, propertyOfColumn(n.TargetType(), n.Join.TargetColumns[i]))+" NOT NULL")
			}
			links[l.Table] = "CREATE TABLE " + q(l.Table) + " (\n\t" + strings.Join(lc, ",\n\t") + "\n)" + strict
		}
	}
	var names []string
	for n := range links {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, links[n])
	}
	return out
}

func createSchema(t testing.TB, db *dbtest.DB, m *edm.Model) {
	t.Helper()
	for _, s := range schemaSQL(db.Dialect, m) {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// insert adds one row; values are Go values of the properties (by column name) or of link and side columns.
func insert(t testing.TB, db *dbtest.DB, table string, cols []string, vals []any) {
	t.Helper()
	b := sqldb.Builder(db.Dialect).Insert(db.Dialect.QuoteIdent(table))
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = db.Dialect.QuoteIdent(c)
	}
	s, args, err := b.Columns(q...).Values(vals...).ToSql()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(s, args...); err != nil {
		t.Fatalf("%s %v: %v", s, args, err)
	}
}

package schema

import (
	"context"
	"database/sql"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// SearchIndex is the name of the full-text index of the searchable properties of the entity types stored in
// table: table + "_search".
func SearchIndex(table string) string { return table + "_search" }

// searchColumns are the columns of the Searchable properties of et, in declaration order: those stored in a
// column of et's table (not computed by SQL).
func searchColumns(et *edm.EntityType) []string {
	var out []string
	for _, p := range et.Properties {
		if p.Searchable && p.SQL == "" && !p.Collection && p.Complex == nil {
			out = append(out, p.Column)
		}
	}
	return out
}

// createSearch returns the statements that create the full-text index of t, none for a table without
// searchable columns.
func createSearch(d sqldb.Dialect, t *table) []string {
	if len(t.search) == 0 {
		return nil
	}
	return d.FullText().Create(t.name, SearchIndex(t.name), t.search)
}

// readSearch reads the definitions of the full-text index of t from the catalog: nil when there is none.
func readSearch(ctx context.Context, q Querier, t *table) ([]string, error) {
	var defs []string
	err := queryArgs(ctx, q, q.Dialect().FullText().Catalog(), t.name, []any{SearchIndex(t.name), t.name},
		func(rows *sql.Rows) error {
			var s string
			if err := rows.Scan(&s); err != nil {
				return err
			}
			defs = append(defs, s)
			return nil
		})
	return defs, err
}

// Searchable returns the entity types of the built model m whose searchable properties database q indexes for
// full-text search (see Create), in the model's order, and those that have searchable properties and no such
// index: an object named SearchIndex(table) that is not the index Create makes (other columns, a different
// definition) counts as none. The engine searches the first through their index and scans the columns of the
// others. A type whose table holds other types too (a hierarchy) is indexed only as its root, whose searchable
// properties the index covers.
func Searchable(ctx context.Context, q Querier, m *edm.Model) (indexed, missing []*edm.EntityType, err error) {
	tables, err := describe(m)
	if err != nil {
		return nil, nil, err
	}
	byName := map[string]*table{}
	for _, t := range tables {
		byName[t.name] = t
	}
	ft := q.Dialect().FullText()
	for _, et := range m.EntityTypes {
		if len(searchColumns(et)) == 0 {
			continue
		}
		t := byName[et.Table]
		if et.Base() != nil || t == nil || len(et.DerivedTypes()) > 0 {
			missing = append(missing, et)
			continue
		}
		defs, err := readSearch(ctx, q, t)
		if err != nil {
			return nil, nil, err
		}
		if ft.Matches(t.name, SearchIndex(t.name), t.search, defs) {
			indexed = append(indexed, et)
		} else {
			missing = append(missing, et)
		}
	}
	return indexed, missing, nil
}

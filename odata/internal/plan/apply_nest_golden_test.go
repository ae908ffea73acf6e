package plan_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqldb"
)

// nestCases are the $apply cases of nest and addnested, whose collections are JSON in a column.
var nestCases = []struct{ set, apply, extra string }{
	{"Product", "nest(groupby((Published)) as Kinds)", ""},
	{"Product", "nest(aggregate($count as N) as Count,filter(Price gt 100)/groupby((ManufacturerId),aggregate(Price with sum as Total)) as Makers)", ""},
	{"Product", "nest(orderby(Price desc)/top(2) as Top)", "$select=Top"},
	{"Product", "filter(Price gt 1000)/nest(identity as All)/compute(1 as One)", ""},
	{"Product", "nest(compute(Price mul 2 as Twice)/filter(Twice gt 2000)/orderby(Name) as Dear,filter(Price lt 6) as Cheap)", ""},
	{"Product", "groupby((Manufacturer/Name),nest(orderby(Price)/top(1)/groupby((Name,Price)) as Cheapest))", ""},
	{"Product", "groupby((Published),nest(aggregate(Price with sum as Total) as Sum))/orderby(Published desc)", ""},
	{"Product", "nest(groupby((Published),nest(aggregate($count as N) as Count)) as Kinds)", ""},
	{"Category", "addnested(Products,filter(Price gt 100)/orderby(Price desc)/compute(Price mul 2 as Twice) as Dear)", "$select=Name,Dear"},
	{"Category", "orderby(Name desc)/addnested(Products,aggregate($count as N) as Count)/filter(Name ne 'Books')", "$select=Name,Count"},
	{"Product", "addnested(Manufacturer,compute(length(Name) as Letters) as Maker)", "$select=Name,Maker&$top=4"},
	{"Order", "addnested(Items,groupby((ProductId),aggregate(Quantity with sum as Units)) as Lines)", "$select=Id,Lines&$top=3"},
}

// TestGoldenNest translates every nest and addnested case for both dialects, compares the AST, the SQL of the
// first page and its arguments with testdata/nest.golden, and executes it on SQLite (and PostgreSQL when
// STORE_TEST_POSTGRES is set): the rows, collections read back from their JSON, must be the same on both.
func TestGoldenNest(t *testing.T) {
	m := builtModel(t)
	dbs := fixtureDBs(t, m)
	var b strings.Builder
	b.WriteString("# nest and addnested cases: the transformations as parsed (ast), the rows of the fixture (a\n" +
		"# collection as [row ; row]), and the page query of each dialect with its arguments. go test -update rewrites it.\n\n")
	goldenApplyCases(t, m, dbs, nestCases, &b)
	golden(t, "nest.golden", b.String())
}

// nestedRows formats the collection held in src, a column of plan.AggregateColumn.Nested: "[row ; row]", each
// row "Path=value,...".
func nestedRows(agg *plan.Aggregation, src any) (string, error) {
	var text []byte
	switch v := src.(type) {
	case string:
		text = []byte(v)
	case []byte:
		text = v
	default:
		return "", fmt.Errorf("a collection of type %T", src)
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var rows [][]any
	if err := dec.Decode(&rows); err != nil {
		return "", err
	}
	out := make([]string, len(rows))
	for n, row := range rows {
		var parts []string
		for i, col := range agg.Columns {
			path := strings.Join(col.Path, "/")
			if col.Nested != nil {
				inner, err := nestedRows(col.Nested, row[i])
				if err != nil {
					return "", err
				}
				parts = append(parts, path+"="+inner)
				continue
			}
			v, err := sqldb.Scan(col.Property, driverValue(col.Property, row[i]))
			if err != nil {
				return "", fmt.Errorf("%s: %w", path, err)
			}
			parts = append(parts, path+"="+fmt.Sprint(v))
		}
		out[n] = strings.Join(parts, ",")
	}
	return "[" + strings.Join(out, " ; ") + "]", nil
}

// driverValue is the value of a JSON item of a collection's row as the database driver would scan the column of p.
func driverValue(p *edm.Property, v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil && (p.Enum != nil || p.Type != edm.KindDouble && p.Type != edm.KindSingle) {
			return n
		}
		f, _ := x.Float64()
		return f
	case string:
		if p.Enum == nil && p.Type == edm.KindBinary {
			b, _ := hex.DecodeString(x)
			return b
		}
	}
	return v
}

// TestNestedRows: a collection of nest reads at most Limits.NestedRows rows and one more, which tells the writer
// it is too large (Aggregation.MaxRows); without the limit it holds every row, on both databases.
func TestNestedRows(t *testing.T) {
	m := builtModel(t)
	for _, db := range fixtureDBs(t, m) {
		for _, tc := range []struct {
			limit, rows int
		}{{0, 12}, {2, 3}, {20, 12}} {
			opts := plan.ReadOptions{Limits: plan.Limits{NestedRows: tc.limit}}
			r, err := newPlanner(m, db.Dialect()).ReadWith(plan.Scope{Set: m.EntitySet("Product")}, "$apply=nest(groupby((Id))%20as%20P)", opts)
			if err != nil {
				t.Fatalf("%s: %v", db.Dialect().Name(), err)
			}
			nested := r.Aggregation().Columns[0].Nested
			if nested == nil || nested.MaxRows != tc.limit {
				t.Fatalf("%s: limit %d: nested %+v, want MaxRows %d", db.Dialect().Name(), tc.limit, nested, tc.limit)
			}
			s, args := r.Select(100)
			rows, _, err := fetchSQL(db, s, args, nil)
			if err != nil {
				t.Fatal(err)
			}
			text, _ := nestedRows(nested, rows[0][0])
			if got := strings.Count(text, "Id="); len(rows) != 1 || got != tc.rows {
				t.Errorf("%s: limit %d: %d rows holding %s, want 1 holding %d", db.Dialect().Name(), tc.limit, len(rows), text, tc.rows)
			}
		}
	}
}

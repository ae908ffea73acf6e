package plan_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
	"github.com/storekit/store/odata/syntax"
)

// applyCases are $apply values (with other options of the same request in extra) per entity set.
var applyCases = []struct{ set, apply, extra string }{
	// Entities out: the rows stay the set's entities.
	{"Product", "identity", ""},
	{"Product", "filter(Price gt 100)", ""},
	{"Product", "filter(Price gt 100)/filter(Published)", ""},
	{"Product", "search(laptop)", ""},
	{"Product", "filter(Manufacturer/Name eq 'Acme')", ""},
	{"Product", "orderby(Price desc)/top(3)", ""},
	{"Product", "orderby(Name)/skip(2)/top(3)", ""},
	{"Product", "top(5)/filter(Price gt 50)", ""},
	{"Product", "skip(10)", ""},
	{"Product", "topcount(2,Price)", ""},
	{"Product", "bottomcount(3,StockQuantity)", ""},
	{"Product", "topsum(2000,Price)", ""},
	{"Product", "bottomsum(100,Price)", ""},
	{"Product", "toppercent(50,Price)", ""},
	{"Product", "bottompercent(20,Weight)", ""},
	{"Product", "compute(Price mul 2 as Doubled)/filter(Doubled gt 2000)", ""},
	{"Product", "filter(Price gt 10)", "$orderby=Name desc&$top=4"},
	{"Product", "orderby(Weight desc)", "$filter=Published"},
	{"Product", "filter(Price gt 100)/expand(Manufacturer)", ""},
	{"Category", "expand(Products,filter(Price gt 100))/orderby(Name)", ""},
	// Aggregates of all rows.
	{"Product", "aggregate($count as Total)", ""},
	{"Product", "aggregate(Price with sum as Total)", ""},
	{"Product", "aggregate(Price with min as Lowest,Price with max as Highest)", ""},
	{"Product", "aggregate(Price with average as Mean)", ""},
	{"Product", "aggregate(StockQuantity with sum as Stock,StockQuantity with average as MeanStock)", ""},
	{"Product", "aggregate(Weight with sum as Weight)", ""},
	{"Product", "aggregate(Rating with max as Best)", ""},
	{"Product", "aggregate(ManufacturerId with countdistinct as Makers)", ""},
	{"Product", "aggregate(Name with min as First,Name with max as Last)", ""},
	{"Product", "aggregate(CreatedOnUtc with max as Latest)", ""},
	{"Product", "aggregate(Price mul StockQuantity with sum as Value)", ""},
	{"Product", "aggregate(Dimensions/Width with max as Widest)", ""},
	{"Product", "aggregate(Categories/$count as Links)", ""},
	{"Product", "filter(Published)/aggregate(Price with sum as Total,$count as N)", ""},
	{"Product", "topcount(3,Price)/aggregate(Price with sum as Top3)", ""},
	{"Order", "aggregate(OrderTotal with sum as Revenue)", ""},
	{"Order", "aggregate(Tax with countdistinct as Taxes)", ""},
	{"OrderItem", "aggregate(UnitPrice mul Quantity with sum as Value,Quantity with sum as Units)", ""},
	{"Order", "aggregate(Tax with min as Least,Tax with max as Most)", ""},
	// Groups.
	{"Product", "groupby((Published))", ""},
	{"Product", "groupby((ManufacturerId),aggregate($count as N))", ""},
	{"Product", "groupby((Manufacturer/Name),aggregate(Price with sum as Total))", ""},
	{"Product", "groupby((Published,ProductType),aggregate(StockQuantity with sum as Stock))", ""},
	{"Product", "groupby((Dimensions/Width))", ""},
	{"Product", "groupby((ProductType),aggregate(Price with average as Mean,Price with max as Top))", ""},
	{"Product", "filter(Price gt 50)/groupby((Published),aggregate($count as N))", ""},
	{"Product", "groupby((ManufacturerId),aggregate(Price with sum as Total))/filter(Total gt 1000)", ""},
	{"Product", "groupby((ManufacturerId),aggregate(Price with sum as Total)/filter(Total gt 1000))", ""},
	{"Product", "groupby((ManufacturerId),aggregate($count as N))/orderby(N desc)/top(2)", ""},
	{"Product", "groupby((Published),aggregate(Price with sum as Total))/aggregate(Total with max as Best)", ""},
	{"Product", "groupby((Published),aggregate(Price with sum as Total))/compute(Total mul 2 as Twice)", ""},
	{"Product", "groupby((rollup(Published,ManufacturerId)),aggregate($count as N))", ""},
	{"Product", "groupby((rollup($all,Published)),aggregate(Price with sum as Total))", ""},
	{"Product", "groupby((ProductType,rollup(null,Published)),aggregate($count as N))", ""},
	{"Product", "groupby((ManufacturerId),aggregate($count as N))/groupby((N),aggregate($count as Makers))", ""},
	// Transformations within each group before its aggregate.
	{"Product", "groupby((ManufacturerId),topcount(1,Price)/aggregate(Price with sum as Top))", ""},
	{"Product", "groupby((Published),orderby(Name)/top(2)/aggregate($count as N,Name with max as Last))", ""},
	{"Product", "groupby((ManufacturerId),filter(Price gt 10)/bottomcount(2,Price)/aggregate(Price with sum as Cheapest))", ""},
	{"Product", "groupby((Published),topsum(100,Price)/aggregate($count as N))", ""},
	{"Product", "groupby((Published),skip(1)/aggregate($count as N))", ""},
	{"Product", "groupby((ManufacturerId),aggregate(Price with sum as Total))/groupby((Total),bottompercent(50,Total)/aggregate($count as N))", ""},
	{"Product", "groupby((Manufacturer/Name),aggregate($count as N))", "$filter=N ge 2&$orderby=N desc"},
	{"Product", "groupby((Published),aggregate($count as N))", "$count=true&$select=N"},
	{"Product", "groupby((ManufacturerId),aggregate($count as N))", "$top=2&$skip=1"},
	{"Customer", "groupby((BillingAddress/City),aggregate($count as N))", ""},
	{"Order", "groupby((Status),aggregate(OrderTotal with sum as Revenue,Tax with max as MaxTax))", ""},
	{"Order", "groupby((Customer/LastName),aggregate(OrderTotal with average as Mean))", ""},
	{"OrderItem", "groupby((Order/Status),aggregate(Quantity with sum as Units))", ""},
	{"Category", "groupby((Parent/Name),aggregate($count as Children))", ""},
	// Aggregates in expressions: of related entities, of the input set ($these).
	{"Category", "compute(Products/aggregate(Price with sum) as Total)/filter(Total gt 100)", ""},
	{"Category", "compute(Products/aggregate($count) as N)/groupby((N),aggregate($count as Categories))", ""},
	{"Product", "compute(Price div $these/aggregate(Price with sum) as Share)/topcount(2,Share)", ""},
	{"Product", "filter(Price gt $these/aggregate(Price with average))", ""},
	{"Product", "filter(Published)/filter(StockQuantity lt $these/aggregate(StockQuantity with average))", ""},
	{"Product", "groupby((ManufacturerId),aggregate(Price with sum as Total))/filter(Total gt $these/aggregate(Total with average))", ""},
	{"Product", "groupby((Published),aggregate($count as N))/compute(N mul 100 div $these/aggregate(N with sum) as Percent)", ""},
	// Sequences side by side, joins.
	{"Product", "concat(topcount(2,Price),bottomcount(2,Price))/aggregate($count as N)", ""},
	{"Product", "concat(filter(Price gt 1000),filter(Price lt 20))", "$select=Name,Price"},
	{"Product", "concat(identity,aggregate($count as Rows))/aggregate(Rows with sum as Sum,$count as Rows)", ""},
	{"Product", "filter(Price lt 20)/concat(aggregate($count as N),aggregate(Price with sum as Total))", ""},
	{"Product", "concat(filter(Price lt 20)/orderby(Price desc)/top(2),filter(Price gt 1000))/compute(Price mul 2 as Twice)", "$select=Name,Twice"},
	{"Product", "join(Categories as Category)/groupby((Category/Name),aggregate($count as N))", ""},
	{"Product", "outerjoin(Categories as Category)/aggregate($count as Rows)", ""},
	{"Product", "join(Categories as Category,filter(Published))/aggregate($count as Rows)", ""},
	{"Category", "join(Products as Product)/groupby((Name),aggregate(Product/Price with sum as Total))", ""},
	// Recursive hierarchies: Category's Tree (c1 > c2 > c6, c1 > c3; c4 and c5 are roots).
	{"Category", "descendants($root/Category,Tree,Id,filter(Id eq 'c1'))", ""},
	{"Category", "descendants($root/Category,Tree,Id,filter(Id eq 'c1'),1)", ""},
	{"Category", "descendants($root/Category,Tree,Id,filter(Id eq 'c1'),1,keep start)", ""},
	{"Category", "descendants($root/Category,Tree,Id,filter(Published eq false or Id eq 'c2'),keep start)", "$orderby=Name"},
	{"Category", "ancestors($root/Category,Tree,Id,filter(Name eq 'Laptops'))", ""},
	{"Category", "ancestors($root/Category,Tree,Id,filter(Id eq 'c6'),1,keep start)", ""},
	{"Category", "filter(Id ne 'c2')/ancestors($root/Category,Tree,Id,filter(Id eq 'c6'),keep start)", ""},
	{"Category", "ancestors($root/Category,Tree,Id,filter(Id eq 'c6' or Id eq 'c3'),keep start)/aggregate($count as N)", ""},
	{"Category", "ancestors($root/Category,Tree,Id,descendants($root/Category,Tree,Id,filter(Id eq 'c1')))", ""},
	{"Category", "traverse($root/Category,Tree,Id,preorder)", ""},
	{"Category", "traverse($root/Category,Tree,Id,postorder)", ""},
	{"Category", "traverse($root/Category,Tree,Id,preorder,Name desc)", ""},
	{"Category", "traverse($root/Category,Tree,Id,postorder,DisplayOrder desc,Name)", "$select=Name"},
	{"Category", "filter(Published)/traverse($root/Category,Tree,Id,preorder,DisplayOrder)/top(3)", ""},
}

// TestGoldenApply translates every $apply case for both dialects, compares the AST (printed), the SQL of the
// first page and its arguments with testdata/apply.golden, and executes it on SQLite (and PostgreSQL when
// STORE_TEST_POSTGRES is set): the rows (entity keys, or the aggregated values) must be the same on both.
func TestGoldenApply(t *testing.T) {
	m := builtModel(t)
	dbs := fixtureDBs(t, m)
	var b strings.Builder
	b.WriteString("# $apply cases: the transformations as parsed (ast), the rows of the fixture (entity keys, or the\n" +
		"# aggregated values), and the page query of each dialect with its arguments. go test -update rewrites it.\n\n")
	goldenApplyCases(t, m, dbs, applyCases, &b)
	golden(t, "apply.golden", b.String())
	if n := len(applyCases) + countComputeCases(); n < 60 {
		t.Errorf("only %d $apply and $compute golden cases", n)
	}
}

// goldenApplyCases translates each $apply case for both dialects and writes to b the AST (printed), the rows of
// the fixture and the SQL of the first page with its arguments, after executing it on each of dbs: the rows
// must be the same on all.
func goldenApplyCases(t *testing.T, m *edm.Model, dbs []*dbtest.DB, cases []struct{ set, apply, extra string }, b *strings.Builder) {
	texts := []sqldb.Dialect{sqlite.Dialect{}, postgres.Dialect{}}
	for _, c := range cases {
		raw := "$apply=" + encodeQuery(c.apply)
		if c.extra != "" {
			raw += "&" + encodeOptions(c.extra)
		}
		q, err := syntax.ParseQuery(raw)
		if err != nil {
			t.Errorf("ParseQuery(%q) = %v", raw, err)
			continue
		}
		fmt.Fprintf(b, "### %s $apply=%s", c.set, c.apply)
		if c.extra != "" {
			fmt.Fprintf(b, "&%s", c.extra)
		}
		fmt.Fprintf(b, "\nast: %s\n", syntax.PrintApply(q.Apply))
		scope := plan.Scope{Set: m.EntitySet(c.set)}
		var want string
		for i, db := range dbs {
			r, err := newPlanner(m, db.Dialect()).Read(scope, raw)
			if err != nil {
				t.Errorf("%s: Read(%q) = %v", db.Dialect().Name(), raw, err)
				break
			}
			rows, err := applyRows(db.Dialect().Name(), r, func(s string, args []any) ([][]any, error) {
				out, _, err := fetchSQL(db, s, args, nil)
				return out, err
			})
			if err != nil {
				t.Errorf("%s: %s: %v", db.Dialect().Name(), raw, err)
				break
			}
			cs, cargs := r.Count()
			n, err := count(db, cs, cargs)
			if err != nil {
				t.Errorf("%s: %s: count: %v", db.Dialect().Name(), raw, err)
			}
			if i == 0 {
				want = rows
				fmt.Fprintf(b, "rows: %s\n", rows)
				if q.Top == nil && q.Skip == nil && int(n) != strings.Count(rows, " | ")+1 && rows != "" {
					t.Errorf("%s: count %d for rows %s", raw, n, rows)
				}
			} else if rows != want {
				t.Errorf("%s: rows of %s = %s, want %s (as on %s)", db.Dialect().Name(), raw, rows, want, dbs[0].Dialect().Name())
			}
		}
		for _, d := range texts {
			r, err := newPlanner(m, d).Read(scope, raw)
			if err != nil {
				t.Errorf("Read(%q) = %v", raw, err)
				break
			}
			s, args := r.Select(100)
			fmt.Fprintf(b, "%s: %s\n  args: %s\n", d.Name(), s, formatArgs(args))
		}
		b.WriteByte('\n')
	}
}

// countComputeCases counts the $filter and $orderby golden cases with $compute.
func countComputeCases() int {
	n := 0
	for _, c := range filterCases {
		if strings.Contains(c.extra, "$compute") {
			n++
		}
	}
	for _, c := range orderCases {
		if strings.Contains(c.extra, "$compute") {
			n++
		}
	}
	return n
}

// applyRows reads every page of r and formats its rows: entity keys, or each aggregated row as
// "Path=value,...", rows separated by " | ".
func applyRows(name string, r *plan.Read, query func(string, []any) ([][]any, error)) (string, error) {
	s, args := r.Select(1000)
	rows, err := query(s, args)
	if err != nil {
		return "", err
	}
	agg := r.Aggregation()
	var out []string
	for _, row := range rows {
		if agg == nil {
			off := len(row) - len(r.Projection.Columns)
			var parts []string
			for _, i := range r.Projection.Key {
				p := r.Projection.Columns[i].Path
				v, err := sqldb.Scan(p[len(p)-1], row[off+i])
				if err != nil {
					return "", err
				}
				parts = append(parts, fmt.Sprint(v))
			}
			out = append(out, strings.Join(parts, "/"))
			continue
		}
		var parts []string
		for i, col := range agg.Columns {
			if agg.Sequence && col.In != nil && !slices.Contains(col.In, int(sequenceOf(row[len(row)-1]))) {
				continue
			}
			if col.Nested != nil {
				text, err := nestedRows(col.Nested, row[i])
				if err != nil {
					return "", fmt.Errorf("%s: column %s: %w", name, strings.Join(col.Path, "/"), err)
				}
				parts = append(parts, strings.Join(col.Path, "/")+"="+text)
				continue
			}
			v, err := sqldb.Scan(col.Property, row[i])
			if err != nil {
				return "", fmt.Errorf("%s: column %s: %w", name, strings.Join(col.Path, "/"), err)
			}
			if f, ok := v.(float64); ok && col.Property.Type == edm.KindSingle {
				v = strconv.FormatFloat(f, 'g', -1, 32)
			}
			parts = append(parts, strings.Join(col.Path, "/")+"="+fmt.Sprint(v))
		}
		out = append(out, strings.Join(parts, ","))
	}
	return strings.Join(out, " | "), nil
}

// sequenceOf is the concat sequence number of an aggregated row as the driver scanned it.
func sequenceOf(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int32:
		return int64(n)
	}
	return -1
}

package plan_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqldb"
)

// pagingRow is the part of a generated product the orderings of TestKeysetPaging use.
type pagingRow struct {
	id     string
	rating *float64
	price  decimal.Decimal
	old    *decimal.Decimal
	name   string
}

// loadProducts fills the product table with n generated rows: many ties, nulls in Rating (every 7th) and
// OldPrice (every 3rd), and returns them.
func loadProducts(t testing.TB, db *dbtest.DB, m *edm.Model, n int) []pagingRow {
	t.Helper()
	createSchema(t, db, m)
	for i := 0; i < 50; i++ { // the manufacturers the products refer to
		insertEntity(t, db, m.EntityType("Manufacturer"), row{"Id": fmt.Sprintf("m%02d", i), "Name": "maker"})
	}
	pt := m.EntityType("Product")
	cols := scalarColumns(pt)
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = db.Dialect().QuoteIdent(c.Column)
	}
	newInsert := func() sq.InsertBuilder {
		return sqldb.Builder(db.Dialect()).Insert(db.Dialect().QuoteIdent(pt.Table)).Columns(names...)
	}
	ins := newInsert()
	flush := func() {
		s, args, err := ins.ToSql()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(s, args...); err != nil {
			t.Fatal(err)
		}
		ins = newInsert()
	}
	var out []pagingRow
	seed := uint32(12345)
	rnd := func(k uint32) uint32 { seed = seed*1664525 + 1013904223; return (seed >> 8) % k }
	for i := 0; i < n; i++ {
		r := pagingRow{id: fmt.Sprintf("k%04d", i), name: []string{"alpha", "Beta", "gamma", "Delta", "beta"}[rnd(5)]}
		if i%7 != 3 {
			v := float64(rnd(9))/2 + 1
			r.rating = &v
		}
		r.price = decimal.New(int64(rnd(40)*25), -2)
		if i%3 != 1 {
			v := decimal.New(int64(rnd(12)*100+99), -2)
			r.old = &v
		}
		out = append(out, r)
		values := row{"Id": r.id, "ProductType": int64(5), "Name": r.name, "Price": r.price,
			"CreatedOnUtc": time.Date(2024, 1, 1, 0, 0, i, 0, time.UTC), "Weight": 1.0}
		if r.rating != nil {
			values["Rating"] = *r.rating
		}
		if r.old != nil {
			values["OldPrice"] = *r.old
		}
		if i%10 != 0 {
			values["ManufacturerId"] = fmt.Sprintf("m%02d", i%50)
		}
		vals := make([]any, len(cols))
		for j, c := range cols {
			v, ok := values[c.Name]
			if !ok && !c.Nullable && !strings.HasPrefix(c.Column, "dimensions_") {
				v = zero(c)
			} else if !ok && strings.HasPrefix(c.Column, "dimensions_") {
				v = decimal.Zero
			}
			a, err := sqldb.Arg(db.Dialect(), c, v)
			if err != nil {
				t.Fatal(err)
			}
			vals[j] = a
		}
		ins = ins.Values(vals...)
		if (i+1)%500 == 0 || i == n-1 {
			flush()
		}
	}
	return out
}

// TestKeysetPaging walks every page of a 1,000-row table for orderings with nullable and descending keys, through
// the next links (so through the plan cache and the $skiptoken), and checks that no row is missed or repeated and
// that the order is OData's (nulls first ascending, last descending, ties broken by the key).
func TestKeysetPaging(t *testing.T) {
	m := builtModel(t)
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		data := loadProducts(t, db, m, 1000)
		p := newPlanner(m, db.Dialect())
		cmpNullFloat := func(a, b *float64, desc bool) int {
			switch {
			case a == nil && b == nil:
				return 0
			case a == nil:
				if desc {
					return 1
				}
				return -1
			case b == nil:
				if desc {
					return -1
				}
				return 1
			}
			c := 0
			if *a < *b {
				c = -1
			} else if *a > *b {
				c = 1
			}
			if desc {
				c = -c
			}
			return c
		}
		expected := map[string][]string{}
		// sorted orders the rows by less, ties by the key in the direction of the last key asked for.
		sorted := func(tieDescending bool, less func(a, b pagingRow) int) []string {
			rows := append([]pagingRow(nil), data...)
			sort.SliceStable(rows, func(i, j int) bool {
				if c := less(rows[i], rows[j]); c != 0 {
					return c < 0
				}
				if tieDescending {
					return rows[i].id > rows[j].id
				}
				return rows[i].id < rows[j].id
			})
			ids := make([]string, len(rows))
			for i, r := range rows {
				ids[i] = r.id
			}
			return ids
		}
		expected["$orderby=Rating desc,Price"] = sorted(false, func(a, b pagingRow) int {
			if c := cmpNullFloat(a.rating, b.rating, true); c != 0 {
				return c
			}
			return a.price.Cmp(b.price)
		})
		expected["$orderby=OldPrice desc,Name desc"] = sorted(true, func(a, b pagingRow) int {
			switch {
			case a.old == nil && b.old != nil:
				return 1
			case a.old != nil && b.old == nil:
				return -1
			case a.old != nil && b.old != nil:
				if c := b.old.Cmp(*a.old); c != 0 {
					return c
				}
			}
			return -strings.Compare(a.name, b.name)
		})
		expected["$orderby=Rating,Name"] = sorted(false, func(a, b pagingRow) int {
			if c := cmpNullFloat(a.rating, b.rating, false); c != 0 {
				return c
			}
			return strings.Compare(a.name, b.name)
		})
		for _, q := range []string{
			"$orderby=Rating desc,Price",
			"$orderby=OldPrice desc,Name desc",
			"$orderby=Rating,Name",
			"$orderby=OldPrice,Rating desc,Name",
			"$filter=Rating ne 3&$orderby=tolower(Name) desc,Price sub OldPrice",
			"$orderby=Id desc",
		} {
			for _, pageSize := range []int{37, 100} {
				var got []string
				raw := encodeOptions(q)
				pages := 0
				for raw != "" {
					r, err := p.Read(plan.Scope{Set: m.EntitySet("Product")}, raw)
					if err != nil {
						t.Fatalf("Read(%q) = %v", raw, err)
					}
					rows, keys, err := fetch(db, r, pageSize)
					if err != nil {
						t.Fatal(err)
					}
					raw = ""
					if len(rows) > pageSize {
						keys = keys[:pageSize]
						if raw, err = r.NextQuery(rows[pageSize-1], pageSize); err != nil {
							t.Fatal(err)
						}
					}
					got = append(got, keys...)
					if pages++; pages > 1000 {
						t.Fatal("too many pages")
					}
				}
				// One query without paging gives the reference order.
				r, _ := p.Read(plan.Scope{Set: m.EntitySet("Product")}, encodeOptions(q))
				_, all, err := fetch(db, r, 5000)
				if err != nil {
					t.Fatal(err)
				}
				if want, ok := expected[q]; ok {
					if diff := cmp.Diff(want, all); diff != "" {
						t.Errorf("order of %s (-want +got):\n%s", q, diff)
					}
				}
				if diff := cmp.Diff(all, got); diff != "" {
					t.Errorf("pages of %d for %s differ from one query (-want +got):\n%s", pageSize, q, diff)
				}
				seen := map[string]bool{}
				for _, k := range got {
					if seen[k] {
						t.Errorf("%s: %s repeated", q, k)
					}
					seen[k] = true
				}
				if !strings.Contains(q, "$filter") && len(got) != len(data) {
					t.Errorf("%s: %d rows in pages, want %d", q, len(got), len(data))
				}
			}
		}
	})
}

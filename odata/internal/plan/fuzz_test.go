package plan_test

import (
	"testing"

	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqlite"
)

// FuzzTranslate parses, binds and translates random $filter and $orderby values against the test model, for both
// dialects: any input either fails with an error or yields SQL, never a panic.
func FuzzTranslate(f *testing.F) {
	for _, c := range filterCases {
		f.Add(encodeQuery(c.filter))
	}
	for _, c := range orderCases {
		f.Add(encodeQuery(c.orderby))
	}
	m := builtModel(f)
	planners := []*plan.Planner{
		plan.NewPlanner(m, sqlite.Dialect{}, plan.Options{CacheSize: -1}),
		plan.NewPlanner(m, postgres.Dialect{}, plan.Options{CacheSize: -1}),
	}
	sets := []string{"Product", "Customer", "Order", "Category"}
	f.Fuzz(func(t *testing.T, expr string) {
		for i, p := range planners {
			scope := plan.Scope{Set: m.EntitySet(sets[(len(expr)+i)%len(sets)])}
			for _, opt := range []string{"$filter=", "$orderby=", "$search=", "$select=Id&$expand=", "$filter=Id eq 'x'&$orderby="} {
				r, err := p.Read(scope, opt+expr)
				if err != nil {
					if _, ok := err.(*plan.Error); !ok {
						t.Fatalf("Read(%q) = %T %v, want *plan.Error", opt+expr, err, err)
					}
					continue
				}
				r.Select(10)
				r.Count()
				row := make([]any, len(r.Columns))
				if tok, err := r.SkipToken(row); err == nil {
					if _, err := p.Read(scope, opt+expr+"&$skiptoken="+tok); err != nil {
						if _, ok := err.(*plan.Error); !ok {
							t.Fatalf("Read with token = %v", err)
						}
					}
				}
				for _, e := range r.Expands {
					e.Select([][]any{row})
				}
			}
		}
	})
}

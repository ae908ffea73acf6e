package plan_test

import (
	"testing"

	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
	"github.com/storekit/store/odata/syntax"
)

const (
	// benchShort is one string equality or one decimal comparison (the store's "Category eq 'electronics' or
	// Price gt 100" on this model).
	benchShort = "$filter=Name eq 'electronics' or Price gt 100"
	benchLong  = "$filter=Name eq 'electronics' and Price gt 100 and Price le 2000.50 and contains(tolower(Name),'phone') and " +
		"not startswith(Sku,'X-') and Published eq true and ProductType eq Store.ProductType'SimpleProduct' and " +
		"StockQuantity add 5 gt MinStockQuantity mul 2 and Categories/any(c:c/Id eq '5f1c2b3a4d5e6f7a8b9c0d1e') and " +
		"TierPrices/all(t:t/Price ge 0) and year(CreatedOnUtc) ge 2020 and CreatedOnUtc lt 2030-01-01T00:00:00Z and " +
		"Id in ('a','b','c','d') and length(Name) gt 3 and round(Weight) eq 2 and (Rating gt 1 or Weight gt 1) and " +
		"Manufacturer/Name ne null and substring(Name,1,2) eq 'ho' and MarkAsNew eq false and DisplayOrder mod 2 eq 0"
)

// BenchmarkPlan measures parse + bind + SQL of a page query: uncached (a planner without a cache) and cached
// (the same query text again), for both dialects.
func BenchmarkPlan(b *testing.B) {
	m := builtModel(b)
	scope := plan.Scope{Set: m.EntitySet("Product")}
	for _, d := range []sqldb.Dialect{sqlite.Dialect{}, postgres.Dialect{}} {
		for _, q := range []struct{ name, raw string }{{"short", benchShort}, {"long", benchLong}} {
			raw := encodeOptions(q.raw)
			b.Run(d.Name()+"/"+q.name+"/uncached", func(b *testing.B) {
				p := plan.NewPlanner(m, d, plan.Options{CacheSize: -1})
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					r, err := p.Read(scope, raw)
					if err != nil {
						b.Fatal(err)
					}
					r.Select(100)
				}
			})
			b.Run(d.Name()+"/"+q.name+"/cached", func(b *testing.B) {
				p := plan.NewPlanner(m, d, plan.Options{})
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					r, err := p.Read(scope, raw)
					if err != nil {
						b.Fatal(err)
					}
					r.Select(100)
				}
			})
		}
	}
}

// BenchmarkPlanByKey measures the most frequent request, Set('k'), planned once per shape: only the key literal
// is read afresh.
func BenchmarkPlanByKey(b *testing.B) {
	m := builtModel(b)
	rp, err := syntax.ParsePath("Product('5f1c2b3a4d5e6f7a8b9c0d1e')")
	if err != nil {
		b.Fatal(err)
	}
	scope := plan.Scope{Set: m.EntitySet("Product"), Key: rp.Segments[0].Args[0].Args}
	for _, d := range []sqldb.Dialect{sqlite.Dialect{}, postgres.Dialect{}} {
		b.Run(d.Name(), func(b *testing.B) {
			p := plan.NewPlanner(m, d, plan.Options{})
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r, err := p.Read(scope, "")
				if err != nil {
					b.Fatal(err)
				}
				r.Select(1)
			}
		})
	}
}

// BenchmarkParse is the parser alone, for comparison.
func BenchmarkParse(b *testing.B) {
	for _, q := range []struct{ name, raw string }{{"short", benchShort}, {"long", benchLong}} {
		raw := encodeOptions(q.raw)
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := syntax.ParseQuery(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

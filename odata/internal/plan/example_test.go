package plan_test

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

// Translating a $filter (and an $orderby) to the SQL of each database: the page query and the COUNT query.
func ExamplePlanner_Read() {
	m := &edm.Model{
		Namespace: "Store",
		EntityTypes: []*edm.EntityType{{
			Name: "Product", Key: []string{"Id"},
			Properties: []*edm.Property{
				{Name: "Id", Type: edm.KindString},
				{Name: "Name", Type: edm.KindString},
				{Name: "Price", Type: edm.KindDecimal, Precision: 19, Scale: 4, Default: decimal.Zero},
			},
		}},
		EntitySets: []*edm.EntitySet{{Name: "Product", Type: "Product"}},
	}
	if err := m.Build(); err != nil {
		panic(err)
	}
	for _, d := range []sqldb.Dialect{sqlite.Dialect{}, postgres.Dialect{}} {
		p := plan.NewPlanner(m, d, plan.Options{})
		r, err := p.Read(plan.Scope{Set: m.EntitySet("Product")},
			"$filter=contains(Name,'50%25') or Price gt 19.99&$orderby=Price desc")
		if err != nil {
			panic(err)
		}
		sql, args := r.Select(20)
		fmt.Println(sql)
		fmt.Println(args)
		sql, args = r.Count()
		fmt.Println(sql)
		fmt.Println(args)
	}
	// Output:
	// SELECT "t0"."id", "t0"."name", "t0"."price" FROM "product" AS "t0" WHERE ("t0"."name" LIKE ? ESCAPE '\' OR "t0"."price" > ?) ORDER BY "t0"."price" DESC, "t0"."id" DESC LIMIT 21
	// [%50\%% 199900]
	// SELECT COUNT(*) FROM "product" AS "t0" WHERE ("t0"."name" LIKE ? ESCAPE '\' OR "t0"."price" > ?)
	// [%50\%% 199900]
	// SELECT "t0"."id", "t0"."name", "t0"."price" FROM "product" AS "t0" WHERE ("t0"."name" LIKE $1::text ESCAPE '\' OR "t0"."price" > $2::numeric) ORDER BY "t0"."price" DESC, "t0"."id" DESC LIMIT $3
	// [%50\%% 19.99 21]
	// SELECT COUNT(*) FROM "product" AS "t0" WHERE ("t0"."name" LIKE $1::text ESCAPE '\' OR "t0"."price" > $2::numeric)
	// [%50\%% 19.99]
}

package plan_test

import (
	"fmt"
	"testing"

	"github.com/storekit/store/odata/dbtest"
)

// BenchmarkNavigationPath compares the two ways of reading a property through a single-valued navigation
// (Product/Manufacturer/Name) on 20,000 products and 50 manufacturers: a LEFT JOIN (what the translator emits)
// and a correlated scalar subquery, in a filter and in an ORDER BY with a page of 100.
func BenchmarkNavigationPath(b *testing.B) {
	m := builtModel(b)
	dbs := []*dbtest.DB{dbtest.SQLite(b)}
	if dbtest.PostgresURL() != "" {
		dbs = append(dbs, dbtest.Postgres(b))
	}
	for _, db := range dbs {
		loadProducts(b, db, m, 20000)
		for i := 0; i < 50; i++ {
			insert(b, db, "manufacturer", []string{"id", "name"}, []any{fmt.Sprintf("m%02d", i), fmt.Sprintf("Maker %02d", 49-i)})
		}
		if db.Dialect().Name() == "postgres" {
			if _, err := db.Exec("ANALYZE"); err != nil {
				b.Fatal(err)
			}
		} else if _, err := db.Exec("CREATE INDEX product_manufacturer_id ON product (manufacturer_id)"); err != nil {
			b.Fatal(err)
		}
		ph := "?"
		if db.Dialect().Name() == "postgres" {
			ph = "$1"
		}
		for _, c := range []struct{ name, sql string }{
			{"filter/join", `SELECT "t0"."id" FROM "product" AS "t0" LEFT JOIN "manufacturer" AS "t1" ON "t1"."id" = "t0"."manufacturer_id" WHERE "t1"."name" = ` + ph + ` ORDER BY "t0"."id" LIMIT 101`},
			{"filter/subquery", `SELECT "t0"."id" FROM "product" AS "t0" WHERE (SELECT "t1"."name" FROM "manufacturer" AS "t1" WHERE "t1"."id" = "t0"."manufacturer_id") = ` + ph + ` ORDER BY "t0"."id" LIMIT 101`},
			{"orderby/join", `SELECT "t0"."id", "t1"."name" FROM "product" AS "t0" LEFT JOIN "manufacturer" AS "t1" ON "t1"."id" = "t0"."manufacturer_id" WHERE "t0"."id" > ` + ph + ` ORDER BY "t1"."name" NULLS FIRST, "t0"."id" LIMIT 101`},
			{"orderby/subquery", `SELECT "t0"."id", (SELECT "t1"."name" FROM "manufacturer" AS "t1" WHERE "t1"."id" = "t0"."manufacturer_id") AS "n" FROM "product" AS "t0" WHERE "t0"."id" > ` + ph + ` ORDER BY "n" NULLS FIRST, "t0"."id" LIMIT 101`},
		} {
			arg := "Maker 07"
			if c.name[:7] == "orderby" {
				arg = "k"
			}
			b.Run(db.Dialect().Name()+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					rows, err := db.Query(c.sql, arg)
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for rows.Next() {
						n++
					}
					rows.Close()
					if n == 0 {
						b.Fatal("no rows")
					}
				}
			})
		}
	}
}

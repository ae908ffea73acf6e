package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/internal/plan"
)

// BenchmarkDescendants reads the descendants of one node of a tree of 100,000 categories (every node has ten
// children; the node's subtree holds 11,110 of them) on each database: as the engine plans and runs
// descendants($root/Category,Tree,Id,filter(Id eq 'n000001')), and as the same recursive SQL written by hand,
// both reading every column of every row.
func BenchmarkDescendants(b *testing.B) {
	const nodes = 100000
	m := builtModel(b)
	dbs := []*dbtest.DB{dbtest.SQLite(b)}
	if dbtest.PostgresURL() != "" {
		dbs = append(dbs, dbtest.Postgres(b))
	}
	for _, db := range dbs {
		createSchema(b, db, m)
		name := db.Dialect().Name()
		for start := 0; start < nodes; start += 1000 {
			var values []string
			var args []any
			for i := start; i < start+1000; i++ {
				var parent any
				if i > 0 {
					parent = fmt.Sprintf("n%06d", (i-1)/10)
				}
				values = append(values, "(?, ?, ?, ?, ?)")
				args = append(args, fmt.Sprintf("n%06d", i), fmt.Sprintf("Node %d", i), parent, true, i%10)
			}
			s := `INSERT INTO "category" ("id", "name", "parent_category_id", "published", "display_order") VALUES ` + strings.Join(values, ", ")
			if name == "postgres" {
				s = placeholders(s)
			}
			if _, err := db.Exec(s, args...); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := db.Exec(`CREATE INDEX "category_parent" ON "category" ("parent_category_id")`); err != nil {
			b.Fatal(err)
		}
		if _, err := db.Exec("ANALYZE"); err != nil {
			b.Fatal(err)
		}
		p := newPlanner(m, db.Dialect())
		scope := plan.Scope{Set: m.EntitySet("Category")}
		const apply = "$apply=descendants($root/Category,Tree,Id,filter(Id eq 'n000001'))"
		hand := `WITH RECURSIVE "d"(n) AS (SELECT "id" FROM "category" WHERE "parent_category_id" = ? ` +
			`UNION SELECT "c"."id" FROM "category" AS "c" JOIN "d" ON "c"."parent_category_id" = "d".n) ` +
			`SELECT "id", "name", "parent_category_id", "published", "display_order", "flag" FROM "category" ` +
			`WHERE "id" IN (SELECT n FROM "d") ORDER BY "id" LIMIT ?`
		if name == "postgres" {
			hand = placeholders(hand)
		}
		const want = 11110
		b.Run(name+"/engine", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r, err := p.Read(scope, apply)
				if err != nil {
					b.Fatal(err)
				}
				s, args := r.Select(nodes)
				if n := scanAll(b, db, s, args); n != want {
					b.Fatalf("%d rows, want %d", n, want)
				}
			}
		})
		b.Run(name+"/handwritten", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if n := scanAll(b, db, hand, []any{"n000001", nodes + 1}); n != want {
					b.Fatalf("%d rows, want %d", n, want)
				}
			}
		})
	}
}

// placeholders numbers the ? placeholders of s for PostgreSQL ($1, $2, ...).
func placeholders(s string) string {
	var out strings.Builder
	n := 0
	for _, c := range s {
		if c == '?' {
			n++
			fmt.Fprintf(&out, "$%d", n)
			continue
		}
		out.WriteRune(c)
	}
	return out.String()
}

// scanAll runs the query and scans every column of every row; it returns the number of rows.
func scanAll(b *testing.B, db *dbtest.DB, s string, args []any) int {
	rows, err := db.Query(s, args...)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

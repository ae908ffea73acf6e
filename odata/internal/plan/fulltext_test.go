package plan_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

// TestFullText_Conditions records the condition and the query argument a $search becomes where the entity type
// has a full-text index: FTS4 says a NOT only as the right side of x NOT y, so other NOTs are SQL NOTs of a
// MATCH; tsquery says the whole expression; a term without tokens is false.
func TestFullText_Conditions(t *testing.T) {
	m := builtModel(t)
	const match = `t0.rowid IN (SELECT docid FROM "product_search" WHERE "product_search" MATCH ?)`
	const vector = `t0."search_vector"` // the stored vector of the searchable columns
	for _, tc := range []struct {
		search       string
		fts4         string
		fts4Args     []any
		tsquery      []any
		tsqueryWhere string
	}{
		{search: "Lamp", fts4: match, fts4Args: []any{`"lamp"`}, tsquery: []any{`'Lamp'`}},
		{search: "lamp*", fts4Args: []any{`"lamp*"`}, tsquery: []any{`'lamp':*`}},
		{search: `"Red lamp*" OR AB-12`, fts4Args: []any{`("red lamp" OR "ab 12")`}, tsquery: []any{`('Red lamp*' | 'AB-12')`}},
		{search: "red NOT blue", fts4Args: []any{`("red" NOT "blue")`}, tsquery: []any{`('red' & !'blue')`}},
		{search: "NOT blue AND (red OR tan*)", fts4Args: []any{`(("red" OR "tan*") NOT "blue")`},
			tsquery: []any{`(!'blue' & ('red' | 'tan':*))`}},
		{search: "NOT red", fts4: "NOT (" + match + ")", fts4Args: []any{`"red"`}, tsquery: []any{`!'red'`}},
		{search: "red OR NOT blue", fts4: "(" + match + " OR NOT (" + match + "))", fts4Args: []any{`"red"`, `"blue"`},
			tsquery: []any{`('red' | !'blue')`}},
		{search: "it's", fts4Args: []any{`"it s"`}, tsquery: []any{`'it''s'`}},
		{search: "red AND -", fts4: "(" + match + " AND 1 = 0)", fts4Args: []any{`"red"`},
			tsqueryWhere: "(" + vector + " @@ to_tsquery('simple'::regconfig, $1::text) AND 1 = 0)", tsquery: []any{`'red'`}},
	} {
		for _, d := range []sqldb.Dialect{sqlite.Dialect{}, postgres.Dialect{}} {
			p := plan.NewPlanner(m, d, plan.Options{SearchIndexes: map[string]string{"Product": "product_search"}})
			r, err := p.Read(scopeOf(t, m, "Product"), encodeOptions("$select=Id&$search="+tc.search))
			if err != nil {
				t.Fatalf("%s: $search=%s: %v", d.Name(), tc.search, err)
			}
			sql, args := r.Select(10)
			where := sql[strings.Index(sql, " WHERE ")+len(" WHERE "):]
			where = where[:strings.Index(where, " ORDER BY ")]
			wantWhere, wantArgs := tc.fts4, tc.fts4Args
			if d.Name() == "postgres" {
				wantWhere, wantArgs = tc.tsqueryWhere, tc.tsquery
				if wantWhere == "" && len(wantArgs) == 1 {
					wantWhere = vector + " @@ to_tsquery('simple'::regconfig, $1::text)"
				}
			} else if wantWhere == "" {
				wantWhere = match
			}
			if diff := cmp.Diff(wantWhere, where); diff != "" {
				t.Errorf("%s: $search=%s: condition (-want +got):\n%s", d.Name(), tc.search, diff)
			}
			if diff := cmp.Diff(wantArgs, args[:len(wantArgs)]); diff != "" {
				t.Errorf("%s: $search=%s: arguments (-want +got):\n%s", d.Name(), tc.search, diff)
			}
		}
	}
}

// TestFullText_Count: on SQLite a count whose only condition is the $search reads the FTS4 table alone; with
// another condition, or on PostgreSQL, it counts the table's rows.
func TestFullText_Count(t *testing.T) {
	m := builtModel(t)
	for _, tc := range []struct {
		dialect sqldb.Dialect
		query   string
		want    string
	}{
		{sqlite.Dialect{}, "$search=lamp", `SELECT COUNT(*) FROM "product_search" WHERE "product_search" MATCH ?`},
		{sqlite.Dialect{}, "$search=lamp&$filter=Price gt 1", `SELECT COUNT(*) FROM "product" AS "t0" WHERE`},
		{sqlite.Dialect{}, "$apply=top(3)/search(lamp)", `SELECT COUNT(*) FROM "product" AS "t0" WHERE "t0"."id" IN`},
		{postgres.Dialect{}, "$search=lamp", `SELECT COUNT(*) FROM "product" AS "t0" WHERE`},
	} {
		p := plan.NewPlanner(m, tc.dialect, plan.Options{SearchIndexes: map[string]string{"Product": "product_search"}})
		r, err := p.Read(scopeOf(t, m, "Product"), encodeOptions(tc.query))
		if err != nil {
			t.Fatalf("%s: %s: %v", tc.dialect.Name(), tc.query, err)
		}
		if sql, _ := r.Count(); !strings.HasPrefix(sql, tc.want) {
			t.Errorf("%s: %s: count %s, want it to start with %s", tc.dialect.Name(), tc.query, sql, tc.want)
		}
	}
}

// TestFullText_Walk: on SQLite a first page in key order whose only condition is the $search asks for the number
// of matches and the table's size, and walks the key's index (the rowid hidden by unary +) when the matches are
// many against the entries the walk passes; other reads, and PostgreSQL, have one plan.
func TestFullText_Walk(t *testing.T) {
	m := builtModel(t)
	const walk = `+t0.rowid IN (SELECT docid FROM "product_search" WHERE "product_search" MATCH ?)`
	for _, tc := range []struct {
		name          string
		dialect       sqldb.Dialect
		query         string
		matches, size int64
		page          int
		wantMatches   bool
		wantWalk      bool
	}{
		{"frequent", sqlite.Dialect{}, "$search=lamp&$top=100", 4886, 100000, 100, true, true},
		{"rare", sqlite.Dialect{}, "$search=oak lamp&$top=100", 430, 100000, 100, true, false},
		{"page size", sqlite.Dialect{}, "$search=lamp", 4886, 100000, 1000, true, false},
		{"skip", sqlite.Dialect{}, "$search=lamp&$skip=900&$top=100", 4886, 100000, 100, true, false},
		{"none", sqlite.Dialect{}, "$search=lamp&$top=100", 0, 100000, 100, true, false},
		{"orderby", sqlite.Dialect{}, "$search=lamp&$orderby=Price&$top=100", 4886, 100000, 100, false, false},
		{"filter", sqlite.Dialect{}, "$search=lamp&$filter=Price gt 1&$top=100", 4886, 100000, 100, false, false},
		{"postgres", postgres.Dialect{}, "$search=lamp&$top=100", 4886, 100000, 100, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plan.NewPlanner(m, tc.dialect, plan.Options{SearchIndexes: map[string]string{"Product": "product_search"}})
			r, err := p.Read(scopeOf(t, m, "Product"), encodeOptions("$select=Id&"+tc.query))
			if err != nil {
				t.Fatal(err)
			}
			matches, _ := r.Matches()
			if got := matches != ""; got != tc.wantMatches {
				t.Errorf("Matches() = %q, want one: %v", matches, tc.wantMatches)
			}
			r.UseMatches(tc.matches, tc.size, tc.page)
			sql, _ := r.Select(tc.page)
			if got := strings.Contains(sql, walk); got != tc.wantWalk {
				t.Errorf("Select walks: %v, want %v\n%s", got, tc.wantWalk, sql)
			}
		})
	}
}

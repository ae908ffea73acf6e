package plan_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqlite"
)

// TestPlanCache checks that a cached plan reads the key values, $top and $skiptoken of each request afresh, with
// $top spelt in any of the ways OData allows.
func TestPlanCache(t *testing.T) {
	m := builtModel(t)
	cached := newPlanner(m, postgres.Dialect{})
	fresh := plan.NewPlanner(m, postgres.Dialect{}, plan.Options{CacheSize: -1, CaseInsensitiveKeys: []string{"Customer"}})
	for _, c := range []struct{ path, query string }{
		{"Product('p01')", ""},
		{"Product('p02')", ""},
		{"Product('p02')", "$select=Name"},
		{"Customer('a@b.c')/Orders", "$filter=OrderTotal gt 5&$top=3"},
		{"Customer('x@y.z')/Orders", "$filter=OrderTotal gt 5&$top=4"},
		{"Customer('x@y.z')/Orders", "$filter=OrderTotal gt 5&%24top=5"},
		{"Customer('x@y.z')/Orders", "$filter=OrderTotal gt 5&TOP=6"},
		{"Customer('x@y.z')/Orders", "top=7&$filter=OrderTotal gt 5"},
		{"Customer('x@y.z')/Orders", "$filter=OrderTotal gt 5"},
		{"Product", "$orderby=Name&$skiptoken=" + nameToken(t, "a", "p01")},
		{"Product", "$orderby=Name&$skiptoken=" + nameToken(t, "b", "p02") + "&$top=2"},
		{"Product", "$orderby=Name&$top=2"},
	} {
		for round := 0; round < 2; round++ {
			want, err := fresh.Read(scopeOf(t, m, c.path), c.query)
			if err != nil {
				t.Fatalf("Read(%s?%s) = %v", c.path, c.query, err)
			}
			got, err := cached.Read(scopeOf(t, m, c.path), c.query)
			if err != nil {
				t.Fatalf("cached Read(%s?%s) = %v", c.path, c.query, err)
			}
			ws, wa := want.Select(10)
			gs, ga := got.Select(10)
			if diff := cmp.Diff(ws+fmt.Sprint(wa), gs+fmt.Sprint(ga)); diff != "" {
				t.Errorf("round %d: %s?%s (-fresh +cached):\n%s", round, c.path, c.query, diff)
			}
		}
	}
}

// nameToken returns the $skiptoken of Product?$orderby=Name after a row with that name and id.
func nameToken(t *testing.T, name, id string) string {
	m := builtModel(t)
	r, err := newPlanner(m, sqlite.Dialect{}).Read(plan.Scope{Set: m.EntitySet("Product")}, "$orderby=Name")
	if err != nil {
		t.Fatal(err)
	}
	row := make([]any, len(r.Columns))
	for i, c := range r.Columns {
		switch c.Path[len(c.Path)-1].Name {
		case "Name":
			row[i] = name
		case "Id":
			row[i] = id
		}
	}
	tok, err := r.SkipToken(row)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestPlanCacheConcurrent reads many shapes and queries from many goroutines through a small cache (so plans are
// evicted and compiled again) and checks every answer against an uncached planner. Run with -race.
func TestPlanCacheConcurrent(t *testing.T) {
	m := builtModel(t)
	cached := plan.NewPlanner(m, sqlite.Dialect{}, plan.Options{CacheSize: 20})
	fresh := plan.NewPlanner(m, sqlite.Dialect{}, plan.Options{CacheSize: -1})
	var queries []string
	for _, c := range filterCases {
		if c.set == "Product" && c.extra == "" {
			queries = append(queries, "$filter="+encodeQuery(c.filter))
		}
	}
	want := make([]string, len(queries))
	for i, q := range queries {
		r, err := fresh.Read(plan.Scope{Set: m.EntitySet("Product")}, q)
		if err != nil {
			t.Fatal(err)
		}
		s, a := r.Select(10)
		want[i] = s + fmt.Sprint(a)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 3*len(queries); i++ {
				j := (i*7 + g*13) % len(queries)
				r, err := cached.Read(plan.Scope{Set: m.EntitySet("Product")}, queries[j])
				if err != nil {
					t.Error(err)
					return
				}
				s, a := r.Select(10)
				if got := s + fmt.Sprint(a); got != want[j] {
					t.Errorf("%s: got %s, want %s", queries[j], got, want[j])
					return
				}
				r.Count()
			}
		}(g)
	}
	wg.Wait()
}

// TestReadMemo checks that Memo keeps one value per compiled plan.
func TestReadMemo(t *testing.T) {
	m := builtModel(t)
	p := newPlanner(m, sqlite.Dialect{})
	scope := plan.Scope{Set: m.EntitySet("Product")}
	calls := 0
	build := func(*plan.Read) any { calls++; return calls }
	memo := func(query string) any {
		r, err := p.Read(scope, query)
		if err != nil {
			t.Fatal(err)
		}
		return r.Memo(build)
	}
	a, b, c := memo("$select=Name"), memo("$select=Name&$top=3"), memo("$select=Id")
	if a != 1 || b != 1 || c != 2 {
		t.Errorf("Memo = %v, %v, %v, want 1, 1 (same plan), 2", a, b, c)
	}
}

// TestLiteralLimitsRendered reads pages of many sizes and offsets of one cached plan on SQLite, whose statements
// take LIMIT and OFFSET as literals kept per statement for the first few values, from many goroutines, and checks
// every statement against an uncached planner's. Run with -race.
func TestLiteralLimitsRendered(t *testing.T) {
	m := builtModel(t)
	cached := plan.NewPlanner(m, sqlite.Dialect{}, plan.Options{})
	fresh := plan.NewPlanner(m, sqlite.Dialect{}, plan.Options{CacheSize: -1})
	scope := plan.Scope{Set: m.EntitySet("Product")}
	type page struct {
		query string
		size  int
	}
	var pages []page
	want := map[page]string{}
	for skip := 0; skip < 4; skip++ {
		for size := 1; size <= 10; size++ {
			p := page{fmt.Sprintf("$orderby=Name&$skip=%d", skip), size}
			r, err := fresh.Read(scope, p.query)
			if err != nil {
				t.Fatal(err)
			}
			s, a := r.Select(p.size)
			want[p] = s + fmt.Sprint(a)
			pages = append(pages, p)
		}
	}
	if w := want[page{"$orderby=Name&$skip=3", 7}]; !strings.Contains(w, "LIMIT 8 OFFSET 3") {
		t.Fatalf("want LIMIT and OFFSET as literals, got %s", w)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 3*len(pages); i++ {
				p := pages[(i*7+g*13)%len(pages)]
				r, err := cached.Read(scope, p.query)
				if err != nil {
					t.Error(err)
					return
				}
				s, a := r.Select(p.size)
				if got := s + fmt.Sprint(a); got != want[p] {
					t.Errorf("%s, page of %d: got %s, want %s", p.query, p.size, got, want[p])
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

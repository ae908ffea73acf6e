package plan_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/postgres"
)

// TestRowFilterArguments checks that the values of a row filter are SQL arguments, never SQL text, and that the
// plan cache keeps the plans of different row filters apart.
func TestRowFilterArguments(t *testing.T) {
	m := builtModel(t)
	p := newPlanner(m, postgres.Dialect{})
	product := m.EntityType("Product")
	cases := []struct {
		name, filter string
		wantArg      string
	}{
		{"a quote in the literal", "Name ne 'x'' OR 1=1 --'", "x' OR 1=1 --"},
		{"another principal, the same query", "Name ne 'principal two'", "principal two"},
		{"characters a query string encodes", "Name ne 'C++ 100%'", "C++ 100%"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			filters := plan.NewRowFilters(map[*edm.EntityType]string{product: tc.filter})
			for _, query := range []string{"", "$filter=Price gt 1"} {
				r, err := p.ReadFiltered(plan.Scope{Set: m.EntitySet("Product")}, query, filters)
				if err != nil {
					t.Fatalf("ReadFiltered(%q) = %v", query, err)
				}
				sql, args := r.Select(10)
				if strings.Contains(sql, tc.wantArg) {
					t.Errorf("%q: the value is in the SQL: %s", query, sql)
				}
				if !slices.Contains(args, any(tc.wantArg)) {
					t.Errorf("%q: args %v lack %q", query, args, tc.wantArg)
				}
			}
		})
	}
}

// TestNewRowFilters checks that empty texts filter nothing.
func TestNewRowFilters(t *testing.T) {
	m := builtModel(t)
	product := m.EntityType("Product")
	got := []bool{
		plan.NewRowFilters(nil) == nil,
		plan.NewRowFilters(map[*edm.EntityType]string{product: " "}) == nil,
		plan.NewRowFilters(map[*edm.EntityType]string{product: "Name ne 'x'"}) == nil,
	}
	if diff := cmp.Diff([]bool{true, true, false}, got); diff != "" {
		t.Error(diff)
	}
}

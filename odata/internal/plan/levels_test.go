package plan_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqlite"
	"github.com/storekit/store/odata/syntax"
)

// expansionTree describes the expansions of a projection: each navigation with its own, nested in parentheses.
func expansionTree(p *plan.Projection) string {
	var parts []string
	for _, e := range p.Expands {
		parts = append(parts, e.Nav.Name+"("+expansionTree(&e.Projection)+")")
	}
	return strings.Join(parts, ",")
}

// TestLevels: $levels in $expand plans as the nested expansions it stands for: a recursive navigation repeated
// with the same options, one level less each time; max as deep as the ExpandDepth limit allows (a fixed depth
// without one); a navigation that is not recursive once; a number past the limit meets it.
func TestLevels(t *testing.T) {
	m := builtModel(t)
	for _, tc := range []struct {
		query string
		limit int
		want  string // the expansion tree, or the error message
	}{
		{"$expand=Children($levels=2)", 0, "Children(Children())"},
		{"$expand=Children($levels=3;$select=Name;$orderby=Name)", 0, "Children(Children(Children()))"},
		{"$expand=Parent($levels=2)", 0, "Parent(Parent())"},
		{"$expand=Children($levels=1)", 0, "Children()"},
		{"$expand=Children($levels=2;$expand=Products)", 0, "Children(Products(),Children(Products()))"},
		{"$expand=Children($levels=max)", 3, "Children(Children(Children()))"},
		{"$expand=Children($expand=Children($levels=max))", 3, "Children(Children(Children()))"},
		{"$expand=Children($levels=max)", -1, "Children(Children(Children(Children(Children(Children(Children(Children())))))))"},
		{"$expand=Products($levels=2)", 0, "Products()"},
		{"$expand=Children($levels=4)", 3, "$expand nests deeper than 3 levels"},
	} {
		p := newPlanner(m, sqlite.Dialect{})
		r, err := p.ReadWith(plan.Scope{Set: m.EntitySet("Category")}, encodeQuery(tc.query),
			plan.ReadOptions{Limits: plan.Limits{Query: syntax.Limits{ExpandDepth: tc.limit}.WithDefaults()}})
		got := ""
		if err != nil {
			got = err.(*plan.Error).Msg
		} else {
			got = expansionTree(r.Projection)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (ExpandDepth %d) (-want +got):\n%s", tc.query, tc.limit, diff)
		}
	}
}

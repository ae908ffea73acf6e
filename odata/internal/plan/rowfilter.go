package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// RowFilters are the read conditions of one request, by entity type: OData $filter text that every row of the
// type must satisfy wherever a read reaches it (the FROM of a read, the parents of a navigation path, $expand,
// lambdas and $count over a navigation, to-one joins of paths). The text is parsed, bound and type-checked as a
// client's $filter, its literals become SQL arguments; it cannot use the client's parameter aliases. Navigations
// inside a row filter are not filtered themselves. The texts are part of the plan cache key, so a plan compiled
// for one set of conditions never serves another. A nil *RowFilters filters nothing.
type RowFilters struct {
	byType map[*edm.EntityType]string
	key    string
}

// NewRowFilters returns the row filters of the texts by entity type; empty texts are left out. It returns nil
// when no text is left.
func NewRowFilters(byType map[*edm.EntityType]string) *RowFilters {
	filters := &RowFilters{byType: map[*edm.EntityType]string{}}
	var parts []string
	for t, text := range byType {
		if strings.TrimSpace(text) == "" {
			continue
		}
		filters.byType[t] = text
		parts = append(parts, t.Name+"\x00"+text)
	}
	if len(parts) == 0 {
		return nil
	}
	sort.Strings(parts)
	filters.key = strings.Join(parts, "\x01")
	return filters
}

// cacheKey is the part of the plan cache key that the filters make.
func (f *RowFilters) cacheKey() string {
	if f == nil {
		return ""
	}
	return f.key
}

// serviceText are the limits of parsing the service's own texts (row filters): none but the nesting every
// parse has, since the clients' limits do not apply to them.
var serviceText = syntax.Limits{ExpandDepth: -1, LambdaDepth: -1, Lambdas: -1, LiteralLength: -1, PatternSize: -1,
	InListItems: -1, ExpressionNodes: -1, ExpressionLength: -1}

// parse parses every text; an error is the service's mistake, not the client's, so it is no *Error.
func (f *RowFilters) parse() (map[*edm.EntityType]syntax.Expr, error) {
	if f == nil {
		return nil, nil
	}
	out := make(map[*edm.EntityType]syntax.Expr, len(f.byType))
	for t, text := range f.byType {
		// ParseFilter reads a raw query-string value ('+' a space, %XX decoded): escape the text so it is read
		// as written, 'C++' and '100%' included.
		expr, err := serviceText.ParseFilter(syntax.Escape(text))
		if err != nil {
			return nil, fmt.Errorf("row filter of %s: %v", t.Name, err)
		}
		out[t] = expr
	}
	return out, nil
}

// rowFilter returns the condition of the row filter of r's type on r itself, "" when the type has none (or
// inside a row filter). Its to-one joins are added to r, so call it before r's joins are rendered. A row filter
// that does not bind is remembered in c.rowFilterError and fails the compilation.
func (c *compiler) rowFilter(r *tableRange) string {
	if r.typ == nil || c.inRowFilter {
		return ""
	}
	expr, ok := c.rowFilters[r.typ]
	if !ok {
		return ""
	}
	c.inRowFilter = true
	aliases := c.aliases
	c.aliases = nil // the client's parameter aliases never reach into a row filter
	defer func() { c.inRowFilter, c.aliases = false, aliases }()
	b := &binder{c: c, option: "row filter", it: r}
	bound, err := b.boolean(expr)
	if err != nil {
		if c.rowFilterError == nil {
			c.rowFilterError = fmt.Errorf("row filter of %s: %v", r.typ.Name, err)
		}
		return c.constantCondition(false)
	}
	return c.condition(bound, false)
}

// rowFilterOfAlias returns the row filter of typ for the row aliased alias, whose joins are already rendered
// (or that has none): EXISTS of the same row, by key, in a subquery that holds the filter and its joins; "" when
// typ has no row filter.
func (c *compiler) rowFilterOfAlias(typ *edm.EntityType, alias string) string {
	if c.inRowFilter || c.rowFilters[typ] == nil {
		return ""
	}
	inner := &tableRange{alias: c.newAlias(), typ: typ}
	condition := c.rowFilter(inner)
	var sameRow []string
	for _, k := range typ.KeyProperties() {
		sameRow = append(sameRow, c.qualifiedColumn(inner.alias, k.Column)+" = "+c.qualifiedColumn(alias, k.Column))
	}
	return "EXISTS (SELECT 1 FROM " + c.quote(typ.Table) + " AS " + c.quote(inner.alias) + c.joins(inner) +
		" WHERE " + strings.Join(sameRow, " AND ") + " AND " + condition + ")"
}

// RowCondition returns the row filter of t as a condition on the table's own name, with ? placeholders and its
// arguments, for the engine's own reads of an entity before a write; "" when filters have none for t.
func (p *Planner) RowCondition(t *edm.EntityType, filters *RowFilters) (string, []any, error) {
	rowFilters, err := filters.parse()
	if err != nil || rowFilters[t] == nil {
		return "", nil, err
	}
	c := &compiler{p: p, d: p.dialect, m: p.model, rowFilters: rowFilters}
	condition := c.rowFilterOfAlias(t, t.Table)
	if c.rowFilterError != nil {
		return "", nil, c.rowFilterError
	}
	if c.tooBig {
		return "", nil, fmt.Errorf("row filter of %s: too complex to translate", t.Name)
	}
	sql, args := c.finishQuestionMarks(condition)
	return sql, args, nil
}

package plan

import (
	"strconv"
	"strings"

	"github.com/storekit/store/odata/syntax"
)

// The transformations that keep some rows of their input by a rank: top, skip, topcount and bottomcount,
// topsum, bottomsum, toppercent and bottompercent, in the whole input or within each group of a groupby.

// count returns the integer value of top, skip or topcount's first argument.
func (a *applier) count(t *syntax.Transformation) (int64, error) {
	l, ok := t.N.(*syntax.Literal)
	if !ok || l.Kind != syntax.LitInt {
		return 0, a.fail(CodeNotSupported, t.N, "the number of %s must be an integer literal", t.Name)
	}
	n := l.Value.(int64)
	if n < 0 || n == 0 && t.Name != "top" && t.Name != "skip" {
		return 0, a.fail(CodeInvalidValue, t.N, "the number of %s must be positive", t.Name)
	}
	return n, nil
}

func (a *applier) topSkip(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	n, err := a.count(t)
	if err != nil {
		return nil, err
	}
	if rel.limit != "" || t.Name == "skip" && rel.offset != "" {
		rel = a.settled(rel)
	}
	out := *rel
	if t.Name == "top" {
		out.limit = a.c.arg(n)
	} else {
		out.offset = a.c.arg(n)
	}
	return &out, nil
}

// measure binds the measure of topcount and its kin: a number.
func (a *applier) measure(rel *applyRel, t *syntax.Transformation) (boundExpr, error) {
	e, err := a.binder(rel).expr(t.Measure)
	if err != nil {
		return nil, err
	}
	if !e.typeOf().isNumeric() {
		return nil, a.fail(CodeTypeMismatch, t.Measure, "the measure of %s must be a number, not %s", t.Name, e.typeOf())
	}
	return e, nil
}

// topCount keeps the n rows of the highest (bottomcount: lowest) measure.
func (a *applier) topCount(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	n, err := a.count(t)
	if err != nil {
		return nil, err
	}
	rel = a.settled(rel)
	if _, err := a.measure(rel, t); err != nil {
		return nil, err
	}
	order, err := a.orderKeys(rel, []syntax.OrderItem{{Pos: t.Measure.Position(), Expr: t.Measure, Desc: t.Name == "topcount"}})
	if err != nil {
		return nil, err
	}
	out := *rel
	out.order, out.limit = order, a.c.arg(n)
	out.orderItems = []syntax.OrderItem{{Pos: t.Measure.Position(), Expr: t.Measure, Desc: t.Name == "topcount"}}
	return &out, nil
}

// topSum keeps, in the order of the measure (descending for top..., ascending for bottom...), the fewest rows
// whose measures add up to at least the value given (topsum, bottomsum) or that percentage of the total
// (toppercent, bottompercent): the rows whose running total before them is still short of it.
func (a *applier) topSum(rel *applyRel, t *syntax.Transformation, partition []string) (*applyRel, error) {
	c := a.c
	rel = a.settled(rel)
	m, err := a.measure(rel, t)
	if err != nil {
		return nil, err
	}
	limit, err := a.literalNumber(t)
	if err != nil {
		return nil, err
	}
	percent := strings.HasSuffix(t.Name, "percent")
	if percent && (limit <= 0 || limit > 100) {
		return nil, a.fail(CodeInvalidValue, t.N, "the percentage of %s must be more than 0 and at most 100", t.Name)
	}
	value := c.natural(m)
	items := []syntax.OrderItem{{Pos: t.Measure.Position(), Expr: t.Measure, Desc: strings.HasPrefix(t.Name, "top")}}
	order, err := a.orderKeys(rel, items)
	if err != nil {
		return nil, err
	}
	over := partitionBy(partition)
	running := "SUM(" + value + ") OVER (" + over + "ORDER BY " + strings.Join(order, ", ") + " ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)"
	threshold := c.param(typeDouble, limit)
	if percent {
		threshold = c.param(typeDouble, limit/100) + " * SUM(" + value + ") OVER (" + strings.TrimSuffix(over, " ") + ")"
	}
	out := a.keepByWindow(rel, []string{running, threshold}, func(w []string) string {
		return "(" + w[0] + " IS NULL OR " + w[0] + " < " + w[1] + ")"
	})
	if len(partition) == 0 {
		out.order, out.orderItems = order, items
	}
	return out, nil
}

// partitionBy is the PARTITION BY clause of a window over the groups partition, "" for none.
func partitionBy(partition []string) string {
	if len(partition) == 0 {
		return ""
	}
	return "PARTITION BY " + strings.Join(partition, ", ") + " "
}

// keepByWindow keeps the rows of rel (settled) for which keep, given the SQL of each window value (over the
// rows of rel) as a column of a subquery, is true: entities by their keys, derived rows by a new relation.
func (a *applier) keepByWindow(rel *applyRel, windows []string, keep func(columns []string) string) *applyRel {
	c := a.c
	named := make([]string, len(windows))
	for i, w := range windows {
		named[i] = w + " AS " + c.quote("w"+strconv.Itoa(i))
	}
	refer := func(alias string) []string {
		out := make([]string, len(windows))
		for i := range windows {
			out[i] = c.qualifiedColumn(alias, "w"+strconv.Itoa(i))
		}
		return out
	}
	if !rel.entity {
		sub := a.derive(a.render(rel, a.columnList(rel.cols)+", "+strings.Join(named, ", ")), rel.cols)
		sub.where = []string{keep(refer(sub.r.alias))}
		return sub
	}
	var keys, inner []string
	alias := c.newAlias()
	for _, k := range rel.r.typ.KeyProperties() {
		keys = append(keys, c.columnSQL(rel.r, k))
		inner = append(inner, c.qualifiedColumn(alias, k.Column))
	}
	key := strings.Join(keys, ", ")
	if len(keys) > 1 {
		key = "(" + key + ")"
	}
	ranked := a.render(rel, strings.Join(keys, ", ")+", "+strings.Join(named, ", "))
	condition := key + " IN (SELECT " + strings.Join(inner, ", ") + " FROM (" + ranked + ") AS " + c.quote(alias) +
		" WHERE " + keep(refer(alias)) + ")"
	return &applyRel{r: rel.r, entity: true, where: []string{condition}}
}

// rankWithin keeps the rows whose rank in their group (partition) in the order of items is kept by keep
// ("<= n" for top and topcount, "> n" for skip): per-group top, skip and topcount in groupby.
func (a *applier) rankWithin(rel *applyRel, partition []string, items []syntax.OrderItem, keep string) (*applyRel, error) {
	rel = a.settled(rel)
	order, err := a.orderKeys(rel, items)
	if err != nil {
		return nil, err
	}
	if len(order) == 0 {
		order = []string{"1"}
	}
	rank := "ROW_NUMBER() OVER (" + partitionBy(partition) + "ORDER BY " + strings.Join(order, ", ") + ")"
	return a.keepByWindow(rel, []string{rank}, func(w []string) string { return w[0] + " " + keep }), nil
}

// literalNumber is the number of topsum and its kin, a numeric literal.
func (a *applier) literalNumber(t *syntax.Transformation) (float64, error) {
	l, ok := t.N.(*syntax.Literal)
	if ok {
		switch v := l.Value.(type) {
		case int64:
			return float64(v), nil
		case float64:
			return v, nil
		case string:
			if l.Kind == syntax.LitDecimal {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					return f, nil
				}
			}
		}
	}
	return 0, a.fail(CodeNotSupported, t.N, "the number of %s must be a numeric literal", t.Name)
}

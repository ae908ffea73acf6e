package plan

import (
	"math"
	"strconv"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// $apply (OData Data Aggregation) is translated into one SQL statement: each transformation takes the rows the
// one before produced (an applyRel) and gives the next. While the rows are still the entities of the set
// (filter, search, compute, orderby, top, skip, topcount and kin, identity), a relation is the read's own
// table with conditions, an order and a limit, so the answer is written as entities by the ordinary read
// (Read.Aggregation is nil). aggregate, groupby, concat, join and outerjoin produce rows of their own: a
// derived relation, "(SELECT ... ) AS tN", whose columns are named a0, a1, ... and bound by name as computed
// properties of a range over it (tableRange.derived), so later transformations and the query options after
// $apply ($filter, $orderby, $select, $count, $top, $skip) bind "Total" or "Category/Name" as any property.
// Such an answer is written row by row from Aggregation.Columns.

// Aggregation describes the rows of a $apply whose result is not entities: their columns, each written at its
// path (nested objects for a grouping through a navigation or a complex property).
type Aggregation struct {
	Columns []AggregateColumn
	// Select is the context URL's select list: the top-level names of the columns, "(Category(Name),Total)".
	Select string
}

// AggregateColumn is one column of an aggregated row: Path is its place in the answer ("Category", "Name"),
// Property how to scan and write it (sqldb.Scan, its Type, Scale and DecimalStorage).
type AggregateColumn struct {
	Path     []string
	Property *edm.Property
}

// applyRel is the input of a transformation.
type applyRel struct {
	r      *tableRange // the range names are bound on
	entity bool        // the rows are the entities of the set: r is the read's root range
	from   string      // derived: "(SELECT ...) AS tN"
	where  []string
	// order is the SQL order; orderItems the orderby items that made it, for the read of entities.
	order      []string
	orderItems []syntax.OrderItem
	limit      string // LIMIT value SQL, "" without
	offset     string // OFFSET value SQL, "" without
	cols       []*applyCol
	// expands are the navigations the expand transformation adds to entities, read as $expand items.
	expands []syntax.ExpandItem
	// cross holds the ranges of the entity sets of a $crossjoin whose combinations are the rows (paths start
	// with a set's name, vars); only filter, groupby and aggregate take them.
	cross []*tableRange
	vars  []lambdaVariable
}

// applyCol is a column of a derived relation: its path in the answer, the property it is scanned as (Column
// "aN") and, while the relation is built, the SQL of its value.
type applyCol struct {
	path string
	prop *edm.Property
	sql  string
}

// applier translates one $apply.
type applier struct {
	c      *compiler
	root   *tableRange
	option string
}

func (a *applier) fail(code string, node syntax.Node, format string, args ...any) *Error {
	e := errorf(code, node, format, args...)
	e.Option = a.option
	return e
}

// binder binds on rel, with $these the rows of rel: an aggregate of them is a scalar subquery over rel.
func (a *applier) binder(rel *applyRel) *binder {
	b := &binder{c: a.c, option: a.option, it: rel.r, variables: rel.vars}
	if rel.cross != nil {
		b.it = nil
	}
	b.these = func(n *syntax.Aggregate) (boundExpr, error) {
		r, err := (&binder{c: a.c, option: a.option, it: b.it, variables: rel.vars}).aggregation(n, &n.Item)
		if err != nil {
			return nil, err
		}
		return &boundSQL{t: r.t, sql: "(" + a.render(a.settled(rel), r.sql) + ")", scale: r.scale}, nil
	}
	return b
}

// sequence applies the transformations of seq to rel in order.
func (a *applier) sequence(rel *applyRel, seq []syntax.Transformation) (*applyRel, error) {
	var err error
	for i := range seq {
		if rel, err = a.transformation(rel, &seq[i]); err != nil {
			return nil, err
		}
	}
	return rel, nil
}

func (a *applier) transformation(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	if len(rel.expands) > 0 {
		switch t.Name {
		case "aggregate", "groupby", "concat", "join", "outerjoin":
			return nil, a.fail(CodeNotSupported, nil, "%s after expand is not supported", t.Name)
		}
	}
	if rel.cross != nil && t.Name != "filter" && t.Name != "groupby" && t.Name != "aggregate" && t.Name != "identity" {
		return nil, a.fail(CodeNotSupported, nil, "on a $crossjoin, %s before an aggregation is not supported", t.Name)
	}
	switch t.Name {
	case "expand":
		return a.expand(rel, t)
	case "identity":
		return rel, nil
	case "filter":
		return a.filter(rel, t.Filter)
	case "search":
		return a.search(rel, t)
	case "compute":
		return a.compute(rel, t.Compute)
	case "orderby":
		return a.orderBy(rel, t.OrderBy)
	case "top", "skip":
		return a.topSkip(rel, t)
	case "topcount", "bottomcount":
		return a.topCount(rel, t)
	case "toppercent", "bottompercent", "topsum", "bottomsum":
		return a.topSum(rel, t, nil)
	case "aggregate":
		return a.aggregate(rel, t.Aggregates)
	case "groupby":
		return a.groupBy(rel, t)
	case "concat":
		return a.concat(rel, t)
	case "join", "outerjoin":
		return a.join(rel, t)
	}
	return nil, a.fail(CodeNotSupported, nil, "the transformation %s is not supported", t.Name)
}

// expand adds the navigation of expand(Nav, filter(...), expand(...)) to the entities, as the $expand item
// Nav($filter=...;$expand=...) of their read.
func (a *applier) expand(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	if !rel.entity {
		return nil, a.fail(CodeNotSupported, t.Path, "expand applies to entities, before they are aggregated")
	}
	item, err := a.expandItem(t)
	if err != nil {
		return nil, err
	}
	out := *rel
	out.expands = append(rel.expands[:len(rel.expands):len(rel.expands)], item)
	return &out, nil
}

// expandItem is the $expand item of an expand transformation: its navigation, its filters and nested expands.
func (a *applier) expandItem(t *syntax.Transformation) (syntax.ExpandItem, error) {
	item := syntax.ExpandItem{Pos: t.Path.Pos, Path: t.Path.Segments, Options: &syntax.Query{}}
	for i := range t.Sequence {
		step := &t.Sequence[i]
		switch step.Name {
		case "filter":
			if item.Options.Filter == nil {
				item.Options.Filter = step.Filter
			} else {
				item.Options.Filter = &syntax.Binary{Pos: step.Pos, Op: syntax.OpAnd, Left: item.Options.Filter, Right: step.Filter}
			}
		case "expand":
			nested, err := a.expandItem(step)
			if err != nil {
				return item, err
			}
			item.Options.Expand = append(item.Options.Expand, nested)
		default:
			return item, a.fail(CodeNotSupported, nil, "in expand, %s is not supported", step.Name)
		}
	}
	return item, nil
}

// settled returns rel ready for conditions and an order: a relation without a limit, or with one turned into a
// condition (entities: their keys among those of the limited rows) or a new derived relation over it.
func (a *applier) settled(rel *applyRel) *applyRel {
	if rel.limit == "" && rel.offset == "" {
		return rel
	}
	if rel.entity {
		return a.restart(rel)
	}
	return a.wrap(rel)
}

// restart turns the limited entities of rel into a relation of the same range whose condition is that their
// key is among those rows' keys.
func (a *applier) restart(rel *applyRel) *applyRel {
	c := a.c
	var keys []string
	for _, k := range rel.r.typ.KeyProperties() {
		keys = append(keys, c.columnSQL(rel.r, k))
	}
	key := strings.Join(keys, ", ")
	if len(keys) > 1 {
		key = "(" + key + ")"
	}
	inner := a.render(rel, strings.Join(keys, ", "))
	return &applyRel{r: rel.r, entity: true, where: []string{key + " IN (" + inner + ")"},
		order: rel.order, orderItems: rel.orderItems}
}

// fromClause is the FROM of rel: the root table with its joins, or the derived subquery.
func (a *applier) fromClause(rel *applyRel) string {
	c := a.c
	if rel.cross != nil {
		from := make([]string, len(rel.cross))
		for i, r := range rel.cross {
			from[i] = c.quote(r.typ.Table) + " AS " + c.quote(r.alias) + c.joins(r)
		}
		return strings.Join(from, " CROSS JOIN ")
	}
	if !rel.entity {
		return rel.from
	}
	from := c.quote(rel.r.typ.Table) + " AS " + c.quote(rel.r.alias)
	for _, j := range rel.r.joins {
		from += c.joinClause(j) + c.joins(j)
	}
	return from
}

// render is the SELECT of columns over rel with its conditions, order and limit.
func (a *applier) render(rel *applyRel, columns string) string {
	var b strings.Builder
	b.WriteString("SELECT " + columns + " FROM " + a.fromClause(rel))
	if len(rel.where) > 0 {
		b.WriteString(" WHERE " + strings.Join(rel.where, " AND "))
	}
	a.tail(&b, rel)
	return b.String()
}

// tail writes ORDER BY, LIMIT and OFFSET of rel.
func (a *applier) tail(b *strings.Builder, rel *applyRel) {
	if len(rel.order) > 0 && (rel.limit != "" || rel.offset != "") {
		b.WriteString(" ORDER BY " + strings.Join(rel.order, ", "))
	}
	switch {
	case rel.limit != "":
		b.WriteString(" LIMIT " + rel.limit)
	case rel.offset != "":
		b.WriteString(" LIMIT " + a.c.arg(int64(math.MaxInt64)))
	}
	if rel.offset != "" {
		b.WriteString(" OFFSET " + rel.offset)
	}
}

// columnList is the select list of the columns of a derived relation, each as its name.
func (a *applier) columnList(cols []*applyCol) string {
	list := make([]string, len(cols))
	for i, col := range cols {
		list[i] = col.sql + " AS " + a.c.quote(col.prop.Column)
	}
	return strings.Join(list, ", ")
}

// derive makes a derived relation of the SELECT sql whose columns are cols (their SQL already in it): a new
// range over it on which each column is a computed property named by its path.
func (a *applier) derive(sql string, cols []*applyCol) *applyRel {
	r := &tableRange{alias: a.c.newAlias(), typ: a.root.typ, derived: true}
	out := &applyRel{r: r, from: "(" + sql + ") AS " + a.c.quote(r.alias)}
	for _, col := range cols {
		next := &applyCol{path: col.path, prop: col.prop}
		next.sql = a.c.columnSQL(r, col.prop)
		t := propType(col.prop)
		r.computed = append(r.computed, &computed{alias: col.path, expr: &boundColumn{t: t, r: r, p: col.prop}})
		out.cols = append(out.cols, next)
	}
	return out
}

// wrap makes rel, a derived relation, the input of a new one: its rows as they are, conditions and order
// applied, selected by name.
func (a *applier) wrap(rel *applyRel) *applyRel {
	out := a.derive(a.render(rel, a.columnList(rel.cols)), rel.cols)
	// The order goes on over the same columns of the new range: the rows keep it (orderby, then top).
	from, to := a.c.quote(rel.r.alias)+".", a.c.quote(out.r.alias)+"."
	for _, o := range rel.order {
		out.order = append(out.order, strings.ReplaceAll(o, from, to))
	}
	return out
}

// newColumn is a column of a derived relation being built: its value's SQL, the property it is scanned as.
func (a *applier) newColumn(path string, sql string, p *edm.Property) *applyCol {
	a.c.n++
	p.Column = "a" + strconv.Itoa(a.c.n)
	p.Name = path[strings.LastIndexByte(path, '/')+1:]
	return &applyCol{path: path, prop: p, sql: sql}
}

// entityColumns are the columns of the entities of range r as a derived relation holds them: every property
// that is read by default (complex members at their paths), prefixed by prefix, and r's computed properties.
func (a *applier) entityColumns(r *tableRange, prefix string) []*applyCol {
	c := a.c
	var out []*applyCol
	var add func(p *edm.Property, path string, nullable bool)
	add = func(p *edm.Property, path string, nullable bool) {
		if p.Collection || p.Lazy || p.Type == edm.KindStream || c.hidden(r.typ, p) {
			return
		}
		if p.Complex != nil {
			for _, member := range p.Properties() {
				add(member, path+"/"+member.Name, nullable || p.Nullable)
			}
			return
		}
		col := &edm.Property{Type: p.Type, Enum: p.Enum, Nullable: true, Precision: p.Precision, Scale: p.Scale,
			DecimalStorage: p.DecimalStorage, MaxLength: p.MaxLength}
		out = append(out, a.newColumn(path, c.columnSQL(r, p), col))
	}
	for _, p := range r.typ.Properties {
		add(p, prefix+p.Name, false)
	}
	for _, cp := range r.computed {
		sql, scale := c.value(cp.expr)
		out = append(out, a.newColumn(prefix+cp.alias, sql, c.computedProperty(cp.alias, cp.expr.typeOf(), scale)))
	}
	return out
}

// materialize returns rel as a derived relation: entities become a relation of their columns.
func (a *applier) materialize(rel *applyRel) *applyRel {
	if !rel.entity {
		return rel
	}
	cols := a.entityColumns(rel.r, "")
	return a.derive(a.render(rel, a.columnList(cols)), cols)
}

func (a *applier) filter(rel *applyRel, e syntax.Expr) (*applyRel, error) {
	rel = a.settled(rel)
	f, err := a.binder(rel).boolean(e)
	if err != nil {
		return nil, err
	}
	out := *rel
	out.where = append(rel.where[:len(rel.where):len(rel.where)], a.c.condition(f, false))
	return &out, nil
}

func (a *applier) search(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	rel = a.settled(rel)
	if !rel.entity {
		return nil, a.fail(CodeNotSupported, nil, "search applies to the entities of the set, before they are aggregated")
	}
	s, err := a.c.bindSearch(a.option, rel.r, t.Search)
	if err != nil {
		return nil, err
	}
	out := *rel
	out.where = append(rel.where[:len(rel.where):len(rel.where)], a.c.condition(s, false))
	return &out, nil
}

func (a *applier) compute(rel *applyRel, items []syntax.ComputeItem) (*applyRel, error) {
	if rel.entity {
		rel = a.settled(rel)
		if err := a.c.bindComputeWith(a.binder(rel), items); err != nil {
			return nil, err
		}
		return rel, nil
	}
	rel = a.wrap(rel)
	cols := append([]*applyCol(nil), rel.cols...)
	for _, it := range items {
		if rel.r.computedNamed(it.Alias) != nil {
			return nil, a.fail(CodeSyntax, it.Expr, "the computed property %s has the name of another property", it.Alias)
		}
		e, err := a.binder(rel).expr(it.Expr)
		if err != nil {
			return nil, err
		}
		if t := e.typeOf(); !t.isScalar() && !t.null {
			return nil, a.fail(CodeTypeMismatch, it.Expr, "a computed property must be a primitive value, not %s", t)
		}
		sql, scale := a.c.value(e)
		cols = append(cols, a.newColumn(it.Alias, sql, a.c.computedProperty(it.Alias, e.typeOf(), scale)))
	}
	return a.derive(a.render(rel, a.columnList(cols)), cols), nil
}

// orderKeys binds order items on rel; entities get their key as the last keys, so the order is total.
func (a *applier) orderKeys(rel *applyRel, items []syntax.OrderItem) ([]string, error) {
	var keys []orderKey
	for _, it := range items {
		e, err := a.binder(rel).expr(it.Expr)
		if err != nil {
			return nil, err
		}
		if t := e.typeOf(); !t.isScalar() || t.kind == edm.KindStream {
			return nil, a.fail(CodeTypeMismatch, it.Expr, "cannot order by a value of type %s", t)
		}
		sql, scale := a.c.value(e)
		keys = append(keys, orderKey{e: e, sql: sql, scale: scale, descending: it.Desc, nullable: nullable(e)})
	}
	if rel.entity {
		for _, p := range rel.r.typ.KeyProperties() {
			e := &boundColumn{t: propType(p), r: rel.r, p: p}
			sql, scale := a.c.value(e)
			keys = append(keys, orderKey{e: e, sql: sql, scale: scale})
		}
		return orderSQL(a.c, keys), nil
	}
	return append(orderSQL(a.c, keys), a.columnOrder(rel.cols)...), nil
}

// columnOrder orders by every column of a derived relation (ascending, nulls first): the ties of an order
// broken the same way on every database, and a total order for paging when there is none.
func (a *applier) columnOrder(cols []*applyCol) []string {
	c := a.c
	order := make([]string, len(cols))
	for i, col := range cols {
		s := col.sql
		if col.prop.Type == edm.KindString {
			s = c.d.CollateBinary(s)
		}
		order[i] = s + c.d.NullsOrder(false)
	}
	return order
}

func (a *applier) orderBy(rel *applyRel, items []syntax.OrderItem) (*applyRel, error) {
	rel = a.settled(rel)
	order, err := a.orderKeys(rel, items)
	if err != nil {
		return nil, err
	}
	out := *rel
	out.order, out.orderItems = order, items
	return &out, nil
}

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

// aggregateValue is the column of one aggregate item over rel (binder.aggregation): the average of decimals
// is a Decimal read from the double at scale 9.
func (a *applier) aggregateValue(rel *applyRel, item *syntax.AggregateItem) (*applyCol, error) {
	if item.Expr != nil {
		if _, ok := item.Expr.(*syntax.Count); ok && item.Method == "" && item.Alias == "" {
			return nil, a.fail(CodeSyntax, item.Expr, "a count of related entities needs an alias")
		}
	}
	r, err := a.binder(rel).aggregation(item.Expr, item)
	if err != nil {
		return nil, err
	}
	if item.Method == "average" && r.input.kind == edm.KindDecimal {
		return a.newColumn(item.Alias, r.sql, &edm.Property{Type: edm.KindDecimal, Precision: edm.MaxFloatDecimalPrecision,
			Scale: 9, DecimalStorage: edm.DecimalFloat}), nil
	}
	p := a.c.computedProperty(item.Alias, r.t, r.scale)
	p.Nullable = r.t.nullable
	return a.newColumn(item.Alias, r.sql, p), nil
}

// aggregate makes the relation of the one row of rel's aggregate values.
func (a *applier) aggregate(rel *applyRel, items []syntax.AggregateItem) (*applyRel, error) {
	rel = a.settled(rel)
	cols, err := a.aggregateColumns(rel, items, nil)
	if err != nil {
		return nil, err
	}
	return a.derive(a.groupSQL(rel, cols, nil), cols), nil
}

// groupSQL is the SELECT of cols over rel grouped by groups.
func (a *applier) groupSQL(rel *applyRel, cols, groups []*applyCol) string {
	var b strings.Builder
	b.WriteString("SELECT " + a.columnList(cols) + " FROM " + a.fromClause(rel))
	if len(rel.where) > 0 {
		b.WriteString(" WHERE " + strings.Join(rel.where, " AND "))
	}
	if len(groups) > 0 {
		list := make([]string, len(groups))
		for i, g := range groups {
			list[i] = g.sql
		}
		b.WriteString(" GROUP BY " + strings.Join(list, ", "))
	}
	return b.String()
}

// groupBy groups rel by the grouping properties and applies the sequence to each group. The sequence starts
// with aggregate (one row per group) and may go on with what works row by row (filter, compute, orderby,
// top of at least one), which then applies to the groups' rows; a rollup adds the groups of its shorter
// prefixes (rollup($all, ...) and rollup(null, ...) the grand total), with null for the properties rolled up.
func (a *applier) groupBy(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	rel = a.settled(rel)
	var items []syntax.AggregateItem
	rest := t.Sequence
	if len(rest) > 0 {
		var err error
		if rel, rest, err = a.withinGroups(rel, t.Groups, rest); err != nil {
			return nil, err
		}
		items, rest = rest[0].Aggregates, rest[1:]
		var kept []syntax.Transformation
		for _, r := range rest {
			switch r.Name {
			case "filter", "compute", "orderby", "identity":
				kept = append(kept, r)
			case "top":
				if n, err := a.count(&r); err != nil || n < 1 {
					return nil, a.fail(CodeNotSupported, r.N, "in groupby, top after aggregate must keep the group's row")
				}
			default:
				return nil, a.fail(CodeNotSupported, nil, "in groupby, %s after aggregate is not supported", r.Name)
			}
		}
		rest = kept
	}
	var groups []*applyCol
	var rollup *syntax.GroupItem
	var rolled []*applyCol
	for i := range t.Groups {
		g := &t.Groups[i]
		switch {
		case g.Recursive != nil:
			return nil, a.fail(CodeNotSupported, nil, "rolluprecursive is not supported")
		case g.Path != nil:
			col, err := a.groupColumn(rel, g.Path, groups)
			if err != nil {
				return nil, err
			}
			groups = append(groups, col)
		case rollup != nil:
			return nil, a.fail(CodeNotSupported, nil, "groupby supports one rollup")
		default:
			rollup = g
			for _, p := range g.Rollup {
				col, err := a.groupColumn(rel, p, append(groups, rolled...))
				if err != nil {
					return nil, err
				}
				rolled = append(rolled, col)
			}
		}
	}
	all := append(append([]*applyCol(nil), groups...), rolled...)
	cols, err := a.aggregateColumns(rel, items, all)
	if err != nil {
		return nil, err
	}
	var sql string
	if rollup == nil {
		sql = a.groupSQL(rel, cols, all)
	} else {
		lowest := 1
		if rollup.RollupAll {
			lowest = 0
		}
		var sets []string
		for k := len(rolled); k >= lowest; k-- {
			set := append([]*applyCol(nil), cols...)
			for i := range rolled[k:] {
				null := *set[len(groups)+k+i]
				null.sql = a.c.d.TypedNull(storedKind(propType(null.prop)))
				set[len(groups)+k+i] = &null
			}
			used := append(append([]*applyCol(nil), groups...), rolled[:k]...)
			sets = append(sets, a.groupSQL(rel, set, used))
		}
		sql = strings.Join(sets, " UNION ALL ")
	}
	return a.sequence(a.derive(sql, cols), rest)
}

// withinGroups applies the transformations of a groupby's sequence before its aggregate to each group of rel:
// those that work row by row (filter, search, compute) to all rows, and top, skip, orderby, topcount,
// bottomcount and their sum and percent kin ranked within each group by window functions partitioned by the
// grouping properties. It returns the rows and the sequence from its aggregate on. (A group whose rows a
// filter removes has no row, where the specification would aggregate its empty set.)
func (a *applier) withinGroups(rel *applyRel, groups []syntax.GroupItem, seq []syntax.Transformation) (*applyRel, []syntax.Transformation, error) {
	var order []syntax.OrderItem
	for len(seq) > 0 && seq[0].Name != "aggregate" {
		t := &seq[0]
		seq = seq[1:]
		partition, err := a.partition(rel, groups)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case rel.cross != nil && t.Name != "filter" && t.Name != "identity":
			err = a.fail(CodeNotSupported, nil, "on a $crossjoin, %s within groups is not supported", t.Name)
		case t.Name == "filter" || t.Name == "search" || t.Name == "compute" || t.Name == "identity":
			rel, err = a.transformation(rel, t)
		case t.Name == "orderby":
			order = t.OrderBy
		case t.Name == "top" || t.Name == "skip":
			var n int64
			if n, err = a.count(t); err == nil {
				keep := "<= " + a.c.arg(n)
				if t.Name == "skip" {
					keep = "> " + a.c.arg(n)
				}
				rel, err = a.rankWithin(rel, partition, order, keep)
			}
		case t.Name == "topcount" || t.Name == "bottomcount":
			var n int64
			if n, err = a.count(t); err == nil {
				items := []syntax.OrderItem{{Pos: t.Measure.Position(), Expr: t.Measure, Desc: t.Name == "topcount"}}
				rel, err = a.rankWithin(rel, partition, items, "<= "+a.c.arg(n))
			}
		case t.Name == "topsum" || t.Name == "bottomsum" || t.Name == "toppercent" || t.Name == "bottompercent":
			rel, err = a.topSum(rel, t, partition)
		default:
			err = a.fail(CodeNotSupported, nil, "in groupby, %s is not supported", t.Name)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if len(seq) == 0 {
		return nil, nil, a.fail(CodeNotSupported, nil, "groupby supports a transformation sequence with aggregate")
	}
	return rel, seq, nil
}

// partition is the SQL of the grouping properties of groups on rel, for the windows of withinGroups.
func (a *applier) partition(rel *applyRel, groups []syntax.GroupItem) ([]string, error) {
	var out []string
	for i := range groups {
		g := &groups[i]
		if g.Path == nil {
			return nil, a.fail(CodeNotSupported, nil, "transformations within the groups of a rollup are not supported")
		}
		e, err := a.binder(rel).expr(g.Path)
		if err != nil {
			return nil, err
		}
		sql, _ := a.c.value(e)
		out = append(out, sql)
	}
	return out, nil
}

// groupColumn binds a grouping property path: a primitive value, named by its path without type casts.
func (a *applier) groupColumn(rel *applyRel, p *syntax.Path, taken []*applyCol) (*applyCol, error) {
	e, err := a.binder(rel).expr(p)
	if err != nil {
		return nil, err
	}
	t := e.typeOf()
	if !t.isScalar() || t.kind == edm.KindStream {
		if t.entity != nil || t.complex != nil {
			return nil, a.fail(CodeNotSupported, p, "grouping by an entity or a complex value is not supported: group by its properties")
		}
		return nil, a.fail(CodeTypeMismatch, p, "cannot group by a value of type %s", t)
	}
	var names []string
	for _, s := range p.Segments {
		if !s.IsQualified() {
			names = append(names, s.Name)
		}
	}
	path := strings.Join(names, "/")
	for _, col := range taken {
		if col.path == path {
			return nil, a.fail(CodeSyntax, p, "%s is grouped by twice", path)
		}
	}
	sql, scale := a.c.value(e)
	return a.newColumn(path, sql, a.c.computedProperty(path, t, scale)), nil
}

// aggregateColumns are the groups' columns followed by the aggregate values of items.
func (a *applier) aggregateColumns(rel *applyRel, items []syntax.AggregateItem, groups []*applyCol) ([]*applyCol, error) {
	cols := append([]*applyCol(nil), groups...)
	for i := range items {
		item := &items[i]
		for _, col := range cols {
			if col.path == item.Alias || strings.HasPrefix(col.path, item.Alias+"/") {
				return nil, a.fail(CodeSyntax, item.Expr, "the alias %s is the name of another property of the result", item.Alias)
			}
		}
		col, err := a.aggregateValue(rel, item)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	return cols, nil
}

// concat applies each sequence to rel and puts their rows one after the other: every column of any of them,
// null where a sequence has none.
func (a *applier) concat(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	var branches []*applyRel
	var final []*applyCol
	seen := map[string]int{}
	for _, seq := range t.Sequences {
		start := *rel
		b, err := a.sequence(&start, seq)
		if err != nil {
			return nil, err
		}
		b = a.materialize(b)
		branches = append(branches, b)
		for _, col := range b.cols {
			if i, ok := seen[col.path]; ok {
				if have := final[i].prop; have.Type != col.prop.Type || have.Enum != col.prop.Enum {
					return nil, a.fail(CodeTypeMismatch, nil, "the sequences of concat give %s different types", col.path)
				}
				continue
			}
			seen[col.path] = len(final)
			p := *col.prop
			final = append(final, a.newColumn(col.path, "", &p))
		}
	}
	parts := make([]string, len(branches))
	for i, b := range branches {
		list := make([]string, len(final))
		for j, col := range final {
			value := a.c.d.TypedNull(storedKind(propType(col.prop)))
			for _, have := range b.cols {
				if have.path == col.path {
					value = have.sql
				}
			}
			list[j] = value + " AS " + a.c.quote(col.prop.Column)
		}
		alias := a.c.newAlias()
		parts[i] = "SELECT * FROM (" + a.render(b, strings.Join(list, ", ")) + ") AS " + a.c.quote(alias)
	}
	return a.derive(strings.Join(parts, " UNION ALL "), final), nil
}

// join puts each entity of rel beside each entity its collection navigation reaches (filtered by the
// sequence's filters), the latter as a nested object named by the alias; outerjoin keeps the entities without
// any, with null there.
func (a *applier) join(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	c := a.c
	rel = a.settled(rel)
	if !rel.entity {
		return nil, a.fail(CodeNotSupported, t.Path, "%s applies to entities, before they are aggregated", t.Name)
	}
	if len(t.Path.Segments) != 1 {
		return nil, a.fail(CodeNotSupported, t.Path, "%s supports a navigation property of the entities", t.Name)
	}
	s := t.Path.Segments[0]
	nav := rel.r.typ.Navigation(s.Name)
	if nav == nil || !nav.Collection || c.hiddenNavigation(rel.r.typ, nav) {
		if p := rel.r.typ.Property(s.Name); p != nil && p.Collection {
			return nil, a.fail(CodeNotSupported, t.Path, "%s of a collection property is not supported", t.Name)
		}
		return nil, a.fail(CodeUnknownProperty, t.Path, "%s is not a collection navigation property of %s", s.Name, rel.r.typ.Name)
	}
	target := &tableRange{typ: nav.TargetType(), from: rel.r, nav: nav, nullable: t.Name == "outerjoin"}
	if nav.Join.Through != nil {
		target.linkAlias = c.newAlias()
	}
	target.alias = c.newAlias()
	var conditions []string
	for _, step := range t.Sequence {
		switch step.Name {
		case "identity":
		case "filter":
			f, err := (&binder{c: c, option: a.option, it: target}).boolean(step.Filter)
			if err != nil {
				return nil, err
			}
			conditions = append(conditions, c.condition(f, false))
		default:
			return nil, a.fail(CodeNotSupported, nil, "in %s, %s is not supported", t.Name, step.Name)
		}
	}
	clause := c.joinClause(target)
	if t.Name == "join" {
		clause = strings.ReplaceAll(clause, " LEFT JOIN ", " JOIN ")
	} else if len(conditions) > 0 {
		clause += " AND " + strings.Join(conditions, " AND ")
	}
	cols := append(a.entityColumns(rel.r, ""), a.entityColumns(target, t.Alias+"/")...)
	from := a.fromClause(rel) + clause + c.joins(target)
	where := rel.where
	if t.Name == "join" {
		where = append(where[:len(where):len(where)], conditions...)
	}
	sql := "SELECT " + a.columnList(cols) + " FROM " + from
	if len(where) > 0 {
		sql += " WHERE " + strings.Join(where, " AND ")
	}
	return a.derive(sql, cols), nil
}

// compileApply translates q.Apply over the root range, whose rows the conditions where select. When the
// result is entities it adds its conditions to the read and returns the options to read them with (the
// orderby of $apply as the order when $orderby gives none); otherwise it completes pl as the read of an
// Aggregation, with $filter, $orderby, $select, $count, $top and $skip over the aggregated rows, and returns nil.
func (pl *compiledRead) compileApply(q *syntax.Query, root *tableRange, where []string) (*syntax.Query, error) {
	c := pl.c
	a := &applier{c: c, root: root, option: c.optionSpelt("$apply")}
	rel, err := a.sequence(&applyRel{r: root, entity: true, where: where}, q.Apply)
	if err != nil {
		return nil, err
	}
	if c.tooBig {
		return nil, &Error{Code: CodeLimitExceeded, Option: a.option, Msg: "$apply is too complex to translate"}
	}
	if rel.entity {
		rel = a.settled(rel)
		pl.where = rel.where
		applied := *q
		if len(q.OrderBy) == 0 {
			applied.OrderBy = rel.orderItems
		}
		applied.Expand = append(q.Expand[:len(q.Expand):len(q.Expand)], rel.expands...)
		pageless := applied
		pageless.Top, pageless.SkipToken = nil, ""
		pl.query = &pageless
		return &applied, nil
	}
	return nil, pl.aggregated(a, a.settled(rel), q)
}

// crossJoinApply translates q.Apply over the combinations of the entity sets of a $crossjoin (ranges, named
// by vars), whose rows the conditions where select; the sequence must aggregate them.
func (pl *compiledRead) crossJoinApply(q *syntax.Query, ranges []*tableRange, vars []lambdaVariable, where []string) error {
	c := pl.c
	a := &applier{c: c, root: ranges[0], option: c.optionSpelt("$apply")}
	rel, err := a.sequence(&applyRel{r: ranges[0], cross: ranges, vars: vars, where: where}, q.Apply)
	if err != nil {
		return err
	}
	if rel.cross != nil {
		return &Error{Code: CodeNotSupported, Option: a.option, Msg: "$apply on a $crossjoin is supported when it aggregates (groupby, aggregate)"}
	}
	return pl.aggregated(a, a.settled(rel), q)
}

// aggregated completes pl as the read of the aggregated rows of rel with the query options after $apply.
func (pl *compiledRead) aggregated(a *applier, rel *applyRel, q *syntax.Query) error {
	c := pl.c
	for _, o := range q.Options {
		switch o.Name {
		case "$expand", "$compute", "$search":
			return &Error{Code: CodeNotSupported, Option: o.Spelt, Pos: 1, Msg: o.Name + " after an aggregating $apply is not supported"}
		}
	}
	a.option = c.optionSpelt("$filter")
	if q.Filter != nil {
		var err error
		if rel, err = a.filter(rel, q.Filter); err != nil {
			return err
		}
	}
	a.option = c.optionSpelt("$orderby")
	if len(q.OrderBy) > 0 {
		var err error
		if rel, err = a.orderBy(rel, q.OrderBy); err != nil {
			return err
		}
	}
	order := rel.order
	if len(order) == 0 {
		order = a.columnOrder(rel.cols) // a total order for paging
	}
	cols := rel.cols
	if len(q.Select) > 0 && !selectsAll(q.Select) {
		cols = nil
		for _, it := range q.Select {
			name, found := it.Path[0].Name, false
			for _, col := range rel.cols {
				if top, _, _ := strings.Cut(col.path, "/"); top == name {
					cols, found = append(cols, col), true
				}
			}
			if !found {
				return &Error{Code: CodeUnknownProperty, Option: c.optionSpelt("$select"), Pos: it.Pos + 1,
					Msg: name + " is not a property of the aggregated result"}
			}
		}
	}
	agg := &Aggregation{}
	list := make([]string, len(cols))
	var names []string
	nested := map[string][]string{}
	for i, col := range cols {
		agg.Columns = append(agg.Columns, AggregateColumn{Path: strings.Split(col.path, "/"), Property: col.prop})
		list[i] = col.sql
		top, rest, ok := strings.Cut(col.path, "/")
		if _, seen := nested[top]; !seen {
			names = append(names, top)
			nested[top] = nil
		}
		if ok {
			nested[top] = append(nested[top], rest)
		}
	}
	for i, name := range names {
		if members := nested[name]; len(members) > 0 {
			names[i] = name + "(" + strings.Join(members, ",") + ")"
		}
	}
	agg.Select = "(" + strings.Join(names, ",") + ")"
	counted := *rel
	counted.order = nil
	count := "SELECT COUNT(*) FROM (" + a.render(&counted, "1") + ") AS " + c.quote(c.newAlias())
	paged := *rel
	paged.order, paged.limit, paged.offset = order, c.arg(slotLimit), c.arg(slotOffset)
	sql, args := c.finish(a.render(&paged, strings.Join(list, ", ")))
	pl.first = sqlStatement{sql: sql, args: args}
	countSQL, countArgs := c.finish(count)
	pl.count = &sqlStatement{sql: countSQL, args: countArgs}
	pl.aggregation = agg
	pl.projection = &Projection{Type: pl.typ}
	if c.rowFilterError != nil {
		return c.rowFilterError
	}
	if c.tooBig {
		return &Error{Code: CodeLimitExceeded, Msg: "the query is too complex to translate"}
	}
	return nil
}

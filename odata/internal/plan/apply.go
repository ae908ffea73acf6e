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
// derived relation, "(SELECT ... ) AS tN", whose columns are named a1, a2, ... and bound by name as computed
// properties of a range over it (tableRange.derived), so later transformations and the query options after
// $apply ($filter, $orderby, $select, $count, $top, $skip) bind "Total" or "Category/Name" as any property.
// Such an answer is written row by row from Aggregation.Columns.

// ApplyTransformations lists the transformations of $apply the planner translates, for the
// Aggregation.ApplySupported annotation of $metadata.
func ApplyTransformations() []string {
	return []string{"addnested", "aggregate", "ancestors", "bottomcount", "bottompercent", "bottomsum", "compute",
		"concat", "descendants", "expand", "filter", "groupby", "identity", "join", "nest", "orderby", "outerjoin",
		"search", "skip", "top", "topcount", "toppercent", "topsum", "traverse"}
}

// Aggregation describes the rows of a $apply whose result is not entities: their columns, each written at its
// path (nested objects for a grouping through a navigation or a complex property).
type Aggregation struct {
	Columns []AggregateColumn
	// Select is the context URL's select list: the top-level names of the columns, "(Category(Name),Total)".
	Select string
	// Sequence reports that each row has one more column after Columns: the number (from 0) of the sequence of
	// a concat the row comes from, which tells the members the row has (AggregateColumn.In).
	Sequence bool
	// MaxRows is, for the rows of a nested collection (AggregateColumn.Nested), the most it may hold: its
	// column holds one row more when the collection has more, which the answer refuses. 0 for no limit.
	MaxRows int
	// Single marks, for a nested collection, the result of addnested over a single-valued navigation: its one
	// row is written as an object, and the property is left out without one.
	Single bool
}

// AggregateColumn is one column of an aggregated row: Path is its place in the answer ("Category", "Name"),
// Property how to scan and write it (sqldb.Scan, its Type, Scale and DecimalStorage).
type AggregateColumn struct {
	Path     []string
	Property *edm.Property
	// In lists the sequences of a concat whose rows have the column, nil when every row has it: a row of
	// another sequence leaves the member out (Data Aggregation 4.0, 3.3.2: the rows of each sequence keep
	// their own structure), rather than writing it as null.
	In []int
	// Nested describes the rows of the collection that nest or addnested put in the column, nil for a value:
	// the column holds the text of a JSON array of rows, each a JSON array of the values of Nested.Columns
	// (and its sequence number) as the database driver would scan them (sqldb.Dialect.JSONRow).
	Nested *Aggregation
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
	// in lists the sequences of a concat whose rows have the column (nil: all rows).
	in []int
	// hidden marks the columns a concat adds to keep its rows in order, which are not bound by name nor
	// written: the number of the sequence (sequence) and the row's place in it.
	hidden, sequence bool
	// nested describes the rows of a collection of nest or addnested, which the column holds as JSON; it is
	// not bound by name, nor ordered by.
	nested *Aggregation
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
		case "aggregate", "groupby", "concat", "join", "outerjoin", "nest", "addnested":
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
	case "ancestors", "descendants":
		return a.ancestorsDescendants(rel, t)
	case "traverse":
		return a.traverse(rel, t)
	case "nest":
		return a.nest(rel, t)
	case "addnested":
		return a.addNested(rel, t)
	}
	return nil, a.untranslated(t)
}

// untranslated is the error for a transformation the planner does not translate: a service-defined one the model
// does not define is the client's mistake, as an unknown function in an expression is (segmentWithArguments); any
// other is valid OData not translated.
func (a *applier) untranslated(t *syntax.Transformation) error {
	if strings.Contains(t.Name, ".") && a.c.m.FunctionOverloads(t.Name) == nil {
		return a.fail(CodeSyntax, nil, "unknown function %s", t.Name)
	}
	return a.fail(CodeNotSupported, nil, "the transformation %s is not supported", t.Name)
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
		next := &applyCol{path: col.path, prop: col.prop, in: col.in, hidden: col.hidden, sequence: col.sequence,
			nested: col.nested}
		next.sql = a.c.columnSQL(r, col.prop)
		out.cols = append(out.cols, next)
		if col.hidden || col.nested != nil {
			continue
		}
		t := propType(col.prop)
		r.computed = append(r.computed, &computed{alias: col.path, expr: &boundColumn{t: t, r: r, p: col.prop}})
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
			DecimalStorage: p.DecimalStorage, TimeStorage: p.TimeStorage, MaxLength: p.MaxLength}
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
// broken the same way on every database, and a total order for paging when there is none. The rows of a
// concat come first by their sequence, then in the order each sequence gave them.
func (a *applier) columnOrder(cols []*applyCol) []string {
	c := a.c
	var order, hidden []string
	for _, col := range cols {
		if col.nested != nil {
			continue
		}
		s := col.sql
		if col.prop.Type == edm.KindString {
			s = c.d.CollateBinary(s)
		}
		if col.hidden {
			hidden = append(hidden, s)
			continue
		}
		order = append(order, s+c.d.NullsOrder(false))
	}
	// The columns a concat adds to keep its rows in order come first.
	return append(hidden, order...)
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

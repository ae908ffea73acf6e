package plan

import (
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// nest and addnested put collections in rows (Data Aggregation 4.0, 3.4.3 and 3.5.2). Each collection is a
// correlated subquery in the select list of its row: it applies the transformation sequence to the input set
// (nest; within groupby, to the rows of the row's group) or to the entities a navigation reaches from the
// row's entity (addnested), and aggregates the rows it gives, in their order, into the text of one JSON array
// of rows (sqldb.Dialect.ArrayAgg of Dialect.JSONRow). It holds at most Limits.NestedRows rows and one more,
// which tells the answer that the collection is too large. The column is not bound by name nor ordered by;
// the answer writes it as an array of objects (AggregateColumn.Nested).

// nest makes the one row of nest(sequence as Alias, ...): a collection per sequence, each applied to rel.
func (a *applier) nest(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	if rel.cross != nil {
		return nil, a.fail(CodeNotSupported, nil, "on a $crossjoin, nest is not supported")
	}
	rel = a.settled(rel)
	cols, err := a.nestColumns(rel, t, nil, nil)
	if err != nil {
		return nil, err
	}
	return a.derive("SELECT "+a.columnList(cols), cols), nil
}

// groupNest groups rel by the grouping properties of t, a groupby whose sequence starts with nest: one row per
// group, its grouping properties and a collection per sequence of the nest, applied to the group's rows. What
// follows nest in the sequence applies to these rows.
func (a *applier) groupNest(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	if rel.cross != nil {
		return nil, a.fail(CodeNotSupported, nil, "on a $crossjoin, nest is not supported")
	}
	var groups []*applyCol
	for i := range t.Groups {
		g := &t.Groups[i]
		if g.Path == nil || g.Recursive != nil {
			return nil, a.fail(CodeNotSupported, nil, "nest within the groups of a rollup is not supported")
		}
		col, err := a.groupColumn(rel, g.Path, groups)
		if err != nil {
			return nil, err
		}
		groups = append(groups, col)
	}
	keys := a.derive(a.groupSQL(rel, groups, groups), groups)
	// The group's rows: those whose grouping values are the row's, null equal to null where the value may be
	// null (PostgreSQL uses no index for IS NOT DISTINCT FROM).
	correlate := make([]string, len(groups))
	for i, g := range groups {
		correlate[i] = g.sql + " = " + keys.cols[i].sql
		if e, err := a.binder(rel).expr(t.Groups[i].Path); err != nil || nullable(e) {
			correlate[i] = a.c.d.NullSafeEqual(g.sql, keys.cols[i].sql, true)
		}
	}
	nested, err := a.nestColumns(rel, &t.Sequence[0], correlate, keys.cols)
	if err != nil {
		return nil, err
	}
	cols := append(keys.cols[:len(keys.cols):len(keys.cols)], nested...)
	out := a.derive("SELECT "+a.columnList(cols)+" FROM "+keys.from, cols)
	for _, r := range t.Sequence[1:] {
		switch r.Name {
		case "filter", "compute", "orderby", "identity":
		default:
			return nil, a.fail(CodeNotSupported, nil, "in groupby, %s after nest is not supported", r.Name)
		}
	}
	return a.sequence(out, t.Sequence[1:])
}

// nestColumns are the collections of the nest t over rel, whose rows the conditions correlate select; their
// aliases differ from each other and from the paths of the columns taken.
func (a *applier) nestColumns(rel *applyRel, t *syntax.Transformation, correlate []string, taken []*applyCol) ([]*applyCol, error) {
	var cols []*applyCol
	for i, seq := range t.Sequences {
		alias := t.Aliases[i]
		for _, col := range append(taken[:len(taken):len(taken)], cols...) {
			if top, _, _ := strings.Cut(col.path, "/"); top == alias {
				return nil, a.fail(CodeSyntax, nil, "the alias %s of nest is the name of another property of the result", alias)
			}
		}
		col, err := a.collection(rel, seq, alias, correlate)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	return cols, nil
}

// addNested adds to each entity of rel what addnested(Nav, sequence as Alias) makes: the sequence applied to the
// entities the navigation Nav reaches from it, a collection, or for a single-valued Nav the one entity (left out
// without one). The entities become rows of their properties and Alias, in their order.
func (a *applier) addNested(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	c := a.c
	rel = a.settled(rel)
	if !rel.entity {
		return nil, a.fail(CodeNotSupported, t.Path, "addnested applies to entities, before they are aggregated")
	}
	if len(t.Path.Segments) != 1 {
		return nil, a.fail(CodeNotSupported, t.Path, "addnested supports a navigation property of the entities")
	}
	if len(t.Sequences) > 0 {
		return nil, a.fail(CodeNotSupported, t.Path, "addnested supports one \"sequence as alias\"")
	}
	s := t.Path.Segments[0]
	typ := rel.r.typ
	nav := typ.Navigation(s.Name)
	switch {
	case nav == nil || c.hiddenNavigation(typ, nav):
		if p := typ.Property(s.Name); p != nil && (p.Complex != nil || p.Collection) && !c.hidden(typ, p) {
			return nil, a.fail(CodeNotSupported, t.Path, "addnested of a structural property is not supported")
		}
		return nil, a.fail(CodeUnknownProperty, t.Path, "%s is not a navigation property of %s", s.Name, typ.Name)
	case typ.Property(t.Alias) != nil || typ.Navigation(t.Alias) != nil || rel.r.computedNamed(t.Alias) != nil:
		return nil, a.fail(CodeSyntax, t.Path, "the alias %s of addnested is the name of a property of %s", t.Alias, typ.Name)
	}
	// The related entities: those of the target's table whose key is among the navigation's targets from the
	// row's entity (which also applies the target's row filter).
	target := &tableRange{alias: c.newAlias(), typ: nav.TargetType()}
	item := &tableRange{alias: c.newAlias(), typ: target.typ}
	var same []string
	for _, k := range target.typ.KeyProperties() {
		same = append(same, c.columnSQL(item, k)+" = "+c.columnSQL(target, k))
	}
	related := "EXISTS (" + c.subquery("1", &boundCollection{from: rel.r, nav: nav}, item, strings.Join(same, " AND "), true) + ")"
	if !nav.Collection {
		// One entity or none: the sequence must keep it one (3.4.3).
		for _, step := range t.Sequence {
			if step.Name != "identity" && step.Name != "compute" && step.Name != "addnested" {
				return nil, a.fail(CodeSyntax, t.Path, "addnested of the single-valued %s takes identity, compute and addnested, not %s", s.Name, step.Name)
			}
		}
	}
	inner := &applier{c: c, root: target, option: a.option}
	col, err := inner.collection(&applyRel{r: target, entity: true}, t.Sequence, t.Alias, []string{related})
	if err != nil {
		return nil, err
	}
	col.nested.Single = !nav.Collection
	return a.ordered(rel, col), nil
}

// collection is the column of alias holding the rows of seq applied to rel with the conditions correlate, in
// their order (by all their columns when the sequence gives none), at most Limits.NestedRows and one more.
func (a *applier) collection(rel *applyRel, seq []syntax.Transformation, alias string, correlate []string) (*applyCol, error) {
	c := a.c
	start := *rel
	start.where = append(rel.where[:len(rel.where):len(rel.where)], correlate...)
	if rel.entity {
		// compute in the sequence adds to the range's computed properties, joins to its joins: those of a copy,
		// so that the other sequences of a nest do not see them.
		r := *rel.r
		r.computed, r.joins = r.computed[:len(r.computed):len(r.computed)], r.joins[:len(r.joins):len(r.joins)]
		start.r = &r
	}
	b, err := a.sequence(&start, seq)
	if err != nil {
		return nil, err
	}
	if len(b.expands) > 0 {
		return nil, a.fail(CodeNotSupported, nil, "expand within nest or addnested is not supported")
	}
	if b.entity {
		b = a.ordered(b)
	}
	b = a.settled(b)
	order := b.order
	if len(order) == 0 {
		order = a.columnOrder(b.cols)
	}
	visible, sequence := visibleColumns(b.cols)
	shape, _ := rowShape(visible, sequence)
	limited := *b
	limited.order = order
	if n := c.limits.NestedRows; n > 0 {
		shape.MaxRows = n
		limited.limit = c.arg(int64(n) + 1)
	}
	w := a.wrap(&limited)
	// The values of a row, as rowShape lists them: the visible columns, then the sequence number.
	index := map[*applyCol]int{}
	for i, col := range b.cols {
		index[col] = i
	}
	values := make([]string, 0, len(visible)+1)
	kinds := make([]edm.Kind, 0, len(visible)+1)
	if sequence != nil {
		visible = append(visible, sequence)
	}
	for _, col := range visible {
		v, k := w.cols[index[col]].sql, storedKind(propType(col.prop))
		if col.nested != nil {
			// The text of a nested collection, as a JSON string rather than the array SQLite would embed.
			v, k = "("+v+" || '')", edm.KindString
		}
		values, kinds = append(values, v), append(kinds, k)
	}
	rowOrder := strings.Join(w.order, ", ")
	if rowOrder == "" {
		rowOrder = "NULL" // rows of collections only: one row, from a nest
	}
	rows := c.d.ArrayAgg(c.d.JSONRow(values, kinds), rowOrder, edm.KindString)
	sql := "CAST((SELECT COALESCE(" + rows + ", '[]') FROM " + w.from + ") AS TEXT)"
	col := a.newColumn(alias, sql, &edm.Property{Type: edm.KindString, Nullable: true})
	col.nested = shape
	return col, nil
}

// ordered returns the entities of rel as a derived relation of their columns and the columns extra, in rel's
// order: a hidden column numbers the rows in it, which the relation is ordered by.
func (a *applier) ordered(rel *applyRel, extra ...*applyCol) *applyRel {
	cols := append(a.entityColumns(rel.r, ""), extra...)
	if len(rel.order) == 0 {
		return a.derive(a.render(rel, a.columnList(cols)), cols)
	}
	place := a.newColumn("$place", "ROW_NUMBER() OVER (ORDER BY "+strings.Join(rel.order, ", ")+")", &edm.Property{Type: edm.KindInt64})
	place.hidden = true
	cols = append(cols, place)
	out := a.derive(a.render(rel, a.columnList(cols)), cols)
	out.order = []string{out.cols[len(out.cols)-1].sql}
	return out
}

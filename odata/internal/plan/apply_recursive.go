package plan

import (
	"strconv"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// The hierarchical transformations of Data Aggregation 4.0 (section 6) over a recursive hierarchy (an entity
// type's edm.RecursiveHierarchy: a node property, a parent navigation by one foreign key column that holds the
// parent's node value). Each is one recursive common table expression inside the statement, on both
// databases; no tree is walked outside the database.
//
//   - ancestors(H,Q,p,T,d,keep start) and descendants(...) keep the input rows whose node value p is an
//     ancestor (descendant) in H of a start node, at most d edges away; the start nodes are the values of p in
//     the rows T leaves of the input, and keep start keeps those too. The walk is
//     "WITH RECURSIVE h(n) AS (start UNION step)": UNION drops a node already reached, so a cycle in the data
//     ends the walk instead of looping; with a distance the rows are (node, distance), bounded by d.
//   - traverse(H,Q,p,preorder|postorder,orderby) orders the input rows by the place of their node in a
//     depth-first walk from the roots (a null or dangling parent), siblings in the given order then by node
//     value. Each node's place is the path of its ranks among its siblings, ten digits each, compared as
//     binary text; postorder appends "~" (after every digit) so that a node follows its descendants. A node on a
//     cycle, or below one, is reached from no root: it is not part of the hierarchy and traverse leaves it out.
//     The rows become a derived relation (written as rows of their columns) ordered by a hidden column.

// hierarchyStartTransformations are the transformations that may find the start nodes of ancestors and
// descendants: those that keep some of the input rows as they are.
var hierarchyStartTransformations = map[string]bool{"filter": true, "search": true, "identity": true,
	"orderby": true, "top": true, "skip": true, "topcount": true, "bottomcount": true, "toppercent": true,
	"bottompercent": true, "topsum": true, "bottomsum": true, "ancestors": true, "descendants": true}

// recursiveHierarchy is a recursive hierarchy as the SQL walks it: its entity type, its table, the columns of
// the node value and of the parent's.
type recursiveHierarchy struct {
	typ         *edm.EntityType
	node        *edm.Property
	table       string
	nodeCol, fk string
}

// hierarchyOf resolves the node set and qualifier of a hierarchical transformation.
func (a *applier) hierarchyOf(t *syntax.Transformation) (*recursiveHierarchy, error) {
	h := t.Hierarchy
	rh, err := a.c.recursiveHierarchy(h.Set, h.Qualifier, h.QualifierPos)
	if err != nil {
		err.Option = a.option
		return nil, err
	}
	return rh, nil
}

// recursiveHierarchy resolves a hierarchy named by its nodes ($root/Set) and the qualifier of its annotation
// (at qualifierPos, from 0).
func (c *compiler) recursiveHierarchy(nodes *syntax.Path, qualifier string, qualifierPos int) (*recursiveHierarchy, *Error) {
	var set *edm.EntitySet
	if seg := nodes.Segments; nodes.Base == syntax.BaseRoot && len(seg) == 1 && len(seg[0].Args) == 0 {
		set = c.m.EntitySet(seg[0].Name)
	}
	if set == nil {
		return nil, errorf(CodeInvalidValue, nodes, "the nodes of a hierarchy are an entity set ($root/Set)")
	}
	typ := set.EntityType()
	rh, ok := typ.RecursiveHierarchy(qualifier)
	if !ok {
		return nil, &Error{Code: CodeInvalidValue, Pos: qualifierPos + 1,
			Msg: set.Name + " has no recursive hierarchy " + strconv.Quote(qualifier)}
	}
	node := typ.Property(rh.NodeProperty)
	nav := typ.Navigation(rh.ParentNavigation)
	return &recursiveHierarchy{typ: typ, node: node, table: typ.Root().Table, nodeCol: node.Column,
		fk: nav.Join.SourceColumns[0]}, nil
}

// nodes is the FROM of the hierarchy's rows aliased alias (joined to the walk by join when not empty) and
// its conditions: where, the row filter of the request and the condition of the set's type.
func (c *compiler) nodes(h *recursiveHierarchy, alias, join string, where ...string) string {
	if cond := c.typeCondition(h.typ, alias); cond != "" {
		where = append(where, cond)
	}
	if cond := c.rowFilterOfAlias(h.typ, alias); cond != "" {
		where = append(where, cond)
	}
	from := c.quote(h.table) + " AS " + c.quote(alias) + join
	if len(where) > 0 {
		from += " WHERE " + strings.Join(where, " AND ")
	}
	return from
}

// nodeValue binds the node path of t on rel: a primitive value.
func (a *applier) nodeValue(rel *applyRel, t *syntax.Transformation) (string, error) {
	e, err := a.binder(rel).expr(t.Hierarchy.Node)
	if err != nil {
		return "", err
	}
	if typ := e.typeOf(); !typ.isScalar() {
		return "", a.fail(CodeTypeMismatch, t.Hierarchy.Node, "the node value must be a primitive value, not %s", typ)
	}
	sql, _ := a.c.value(e)
	return sql, nil
}

// ancestorsDescendants keeps the rows of rel whose node value is an ancestor (descendant) of a start node.
func (a *applier) ancestorsDescendants(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	h, err := a.hierarchyOf(t)
	if err != nil {
		return nil, err
	}
	for i := range t.Sequence {
		if step := &t.Sequence[i]; !hierarchyStartTransformations[step.Name] {
			return nil, a.fail(CodeInvalidValue, nil, "the start nodes of %s are found by transformations that keep rows as they are (filter, search, top, ...), not by %s", t.Name, step.Name)
		}
	}
	rel = a.settled(rel)
	start, err := a.sequence(rel, t.Sequence)
	if err != nil {
		return nil, err
	}
	start = a.settled(start)
	startNode, err := a.nodeValue(start, t)
	if err != nil {
		return nil, err
	}
	startSQL := a.render(start, startNode)
	node, err := a.nodeValue(rel, t)
	if err != nil {
		return nil, err
	}
	walk := a.c.walk(h, t.Name == "ancestors", startSQL, t.Hierarchy.Distance)
	condition := node + " IN (" + walk + ")"
	if t.Hierarchy.KeepStart {
		condition = "(" + condition + " OR " + node + " IN (" + startSQL + "))"
	}
	out := *rel
	out.where = append(rel.where[:len(rel.where):len(rel.where)], condition)
	return &out, nil
}

// walk is the SELECT of the node values of the ancestors (up) or descendants of the nodes startSQL selects,
// at most distance edges away (0: any).
func (c *compiler) walk(h *recursiveHierarchy, up bool, startSQL string, distance int64) string {
	cte, x := c.quote(c.newAlias()), c.newAlias()
	col := func(column string) string { return c.qualifiedColumn(x, column) }
	// Up, a row's parent is the value of its foreign key; down, a row's children are the rows whose foreign
	// key is its node value.
	from, to := col(h.nodeCol), col(h.fk)
	if !up {
		from, to = to, from
	}
	var base, step []string
	if up {
		base = append(base, to+" IS NOT NULL")
		step = append(step, to+" IS NOT NULL")
	}
	base = append(base, from+" IN ("+startSQL+")")
	columns, next := to, to
	if distance > 0 {
		columns, next = to+", 1", to+", "+cte+".d + 1"
		step = append(step, cte+".d < "+c.arg(distance))
	}
	names := "(n)"
	if distance > 0 {
		names = "(n, d)"
	}
	return "WITH RECURSIVE " + cte + names + " AS (SELECT " + columns + " FROM " + c.nodes(h, x, "", base...) +
		" UNION SELECT " + next + " FROM " + c.nodes(h, x, " JOIN "+cte+" ON "+from+" = "+cte+".n", step...) +
		") SELECT n FROM " + cte
}

// traverse orders the rows of rel by the place of their node in a depth-first walk of the hierarchy.
func (a *applier) traverse(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	h, err := a.hierarchyOf(t)
	if err != nil {
		return nil, err
	}
	c := a.c
	if len(rel.expands) > 0 {
		return nil, a.fail(CodeNotSupported, nil, "traverse after expand is not supported")
	}
	rel = a.settled(rel)
	node, err := a.nodeValue(rel, t)
	if err != nil {
		return nil, err
	}
	// The rows as a derived relation, with their node value in a hidden column.
	var cols []*applyCol
	if rel.entity {
		cols = a.entityColumns(rel.r, "")
	} else {
		cols = append(cols, rel.cols...)
	}
	nodeCol := a.newColumn("$node", node, &edm.Property{Type: h.node.Type, Nullable: true})
	nodeCol.hidden = true
	rows := a.derive(a.render(rel, a.columnList(append(cols, nodeCol))), append(cols, nodeCol))
	// The siblings' order, bound on the hierarchy's rows.
	sr := &tableRange{alias: c.newAlias(), typ: h.typ}
	var order []string
	if len(t.OrderBy) > 0 {
		var keys []orderKey
		b := &binder{c: c, option: a.option, it: sr}
		for _, it := range t.OrderBy {
			e, err := b.expr(it.Expr)
			if err != nil {
				return nil, err
			}
			if typ := e.typeOf(); !typ.isScalar() || typ.kind == edm.KindStream {
				return nil, a.fail(CodeTypeMismatch, it.Expr, "cannot order by a value of type %s", typ)
			}
			sql, scale := c.value(e)
			keys = append(keys, orderKey{e: e, sql: sql, scale: scale, descending: it.Desc, nullable: nullable(e)})
		}
		order = orderSQL(c, keys)
	}
	nodeSQL := c.qualifiedColumn(sr.alias, h.nodeCol)
	fkSQL := c.qualifiedColumn(sr.alias, h.fk)
	order = append(order, nodeSQL)
	ranked, tree, parent := c.quote(c.newAlias()), c.quote(c.newAlias()), c.newAlias()
	rankText := "CAST(ROW_NUMBER() OVER (PARTITION BY " + fkSQL + " ORDER BY " + strings.Join(order, ", ") + ") AS TEXT)"
	var b strings.Builder
	// ranked(n, f, r): each node, its parent, its rank among its siblings as ten digits.
	b.WriteString("WITH RECURSIVE " + ranked + "(n, f, r) AS (SELECT " + nodeSQL + ", " + fkSQL +
		", substr('0000000000' || " + rankText + ", length(" + rankText + ") + 1, 10) FROM " +
		c.quote(h.table) + " AS " + c.quote(sr.alias) + c.joins(sr))
	var where []string
	if cond := c.typeCondition(h.typ, sr.alias); cond != "" {
		where = append(where, cond)
	}
	if cond := c.rowFilterOfAlias(h.typ, sr.alias); cond != "" {
		where = append(where, cond)
	}
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	// tree(n, k): each node reached from a root, and its path of ranks.
	b.WriteString("), " + tree + "(n, k) AS (SELECT n, r FROM " + ranked + " WHERE f IS NULL OR NOT EXISTS (SELECT 1 FROM " +
		ranked + " AS " + c.quote(parent) + " WHERE " + c.quote(parent) + ".n = " + ranked + ".f)")
	b.WriteString(" UNION ALL SELECT " + ranked + ".n, " + tree + ".k || " + ranked + ".r FROM " + ranked + " JOIN " + tree +
		" ON " + ranked + ".f = " + tree + ".n) SELECT n, k FROM " + tree)
	place := c.quote(c.newAlias())
	key := place + ".k"
	if t.Hierarchy.Postorder {
		key = "(" + key + " || '~')"
	}
	placeCol := a.newColumn("$place", key, &edm.Property{Type: edm.KindString, Nullable: true})
	placeCol.hidden = true
	all := append(append([]*applyCol(nil), rows.cols...), placeCol)
	sql := "SELECT " + a.columnList(all) + " FROM " + rows.from + " JOIN (" + b.String() + ") AS " + place +
		" ON " + place + ".n = " + rows.cols[len(rows.cols)-1].sql
	out := a.derive(sql, all)
	out.order = []string{c.d.CollateBinary(out.cols[len(out.cols)-1].sql)}
	return out, nil
}

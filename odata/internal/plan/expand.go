package plan

import (
	"strconv"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

// maxExpandDepth is the SPEC part 9 limit on nested $expand.
const maxExpandDepth = 3

// Expand is one expanded navigation property ($expand=Nav, with nested options). Its query reads the children
// of all the parent rows of a page at once; the caller stitches them to their parents by the link values:
//
//	links := page rows          // the parent rows as scanned
//	sql, args := e.Select(links)
//	// each child row: len(e.Link) link values, then the columns of e.Columns
//	// a child belongs to every parent row whose values at e.Link equal its link values
//	// (compare with LinkKey(parent[e.Link...]) == LinkKey(child[:len(e.Link)]))
//
// Children come ordered by their link values, then by the nested $orderby and the key; a nested $top and $skip
// apply per parent (ROW_NUMBER() OVER (PARTITION BY the link values)). For a single-valued navigation there is
// at most one child per parent.
type Expand struct {
	// Nav is the expanded navigation property.
	Nav *edm.NavigationProperty
	// Ref marks $expand=Nav/$ref: the child rows hold the key columns only (Columns has just those).
	Ref bool
	// CountOnly marks $expand=Nav/$count: there are no child rows, only Counts.
	CountOnly bool
	// WithCount marks a nested $count=true: Counts gives the number of children per parent.
	WithCount bool
	// Link holds the indexes (into the parent's Columns) of the values that join a parent to its children.
	Link []int
	// Projection is the shape of the child rows (after the link values) and their own expansions.
	Projection
	// Query is the nested options, nil when there are none.
	Query *syntax.Query

	d                           sqldb.Dialect
	pre, post                   string
	preArgs, postArgs           []any
	countPre, countPost         string
	countPreArgs, countPostArgs []any
}

// Select returns the query of the children of the given parent rows, "" when there is nothing to read.
func (e *Expand) Select(parents [][]any) (string, []any) {
	if e.CountOnly {
		return "", nil
	}
	return assemble(e.d, e.pre, e.preArgs, e.Link, parents, e.post, e.postArgs)
}

// Counts returns the query of the number of children per parent: each row is the link values, then the count
// (parents without children have no row). "" when there is nothing to read.
func (e *Expand) Counts(parents [][]any) (string, []any) {
	return assemble(e.d, e.countPre, e.countPreArgs, e.Link, parents, e.countPost, e.countPostArgs)
}

// expand compiles one $expand item.
func (lv *level) expand(it syntax.ExpandItem, option string, depth int) error {
	t := lv.r.typ
	if depth+1 > maxExpandDepth {
		return &Error{Code: CodeLimitExceeded, Option: option, Pos: it.Pos + 1, Msg: "$expand nests deeper than 3 levels"}
	}
	segs := it.Path
	var navs []*edm.NavigationProperty
	switch {
	case len(segs) == 1 && segs[0].Name == "*":
		navs = t.Navigations
	default:
		for len(segs) > 0 && segs[0].IsQualified() && lv.isType(segs[0].Name, t.Name) {
			segs = segs[1:]
		}
		if len(segs) == 0 {
			return &Error{Code: CodeSyntax, Option: option, Pos: it.Pos + 1, Msg: "expected a navigation property"}
		}
		nav := t.Navigation(segs[0].Name)
		if nav == nil {
			if t.Property(segs[0].Name) != nil {
				return &Error{Code: CodeNotSupported, Option: option, Pos: segs[0].Pos + 1, Msg: segs[0].Name + " is not a navigation property; expanding through complex properties is not supported"}
			}
			return &Error{Code: CodeUnknownProperty, Option: option, Pos: segs[0].Pos + 1, Msg: t.Name + " has no navigation property " + segs[0].Name}
		}
		for _, s := range segs[1:] {
			if s.IsQualified() && lv.isType(s.Name, nav.TargetType().Name) {
				continue
			}
			return &Error{Code: CodeNotSupported, Option: option, Pos: s.Pos + 1, Msg: "unsupported $expand segment " + s.Name}
		}
		navs = []*edm.NavigationProperty{nav}
	}
	for _, nav := range navs {
		for _, e := range lv.projection.Expands {
			if e.Nav == nav {
				return &Error{Code: CodeSyntax, Option: option, Pos: it.Pos + 1, Msg: nav.Name + " is expanded twice"}
			}
		}
		e, err := lv.expandNav(nav, it, option, depth)
		if err != nil {
			return err
		}
		lv.projection.Expands = append(lv.projection.Expands, e)
	}
	return nil
}

func (lv *level) expandNav(nav *edm.NavigationProperty, it syntax.ExpandItem, option string, depth int) (*Expand, error) {
	c := lv.c
	q := it.Options
	if q == nil {
		q = &syntax.Query{}
	}
	if err := unsupported(q, c, option); err != nil {
		return nil, err
	}
	if !nav.Collection {
		for _, o := range q.Options {
			switch o.Name {
			case "$orderby", "$top", "$skip", "$count", "$search":
				return nil, &Error{Code: CodeSyntax, Option: option, Pos: o.Pos + 1, Msg: o.Name + " does not apply to the single-valued " + nav.Name}
			}
		}
	}
	e := &Expand{Nav: nav, Ref: it.Ref, CountOnly: it.Count, Query: it.Options, d: c.d}
	e.WithCount = q.Count != nil && *q.Count
	j := nav.Join
	for _, col := range j.SourceColumns {
		e.Link = append(e.Link, lv.column(col))
	}
	child := &tableRange{alias: c.newAlias(), typ: nav.TargetType()}
	cl := &level{c: c, r: child}
	if it.Ref {
		cl.projection = &Projection{Type: child.typ}
		for _, k := range child.typ.KeyProperties() {
			cl.projection.Key = append(cl.projection.Key, len(cl.projection.Columns))
			cl.projection.Columns = append(cl.projection.Columns, Column{Path: []*edm.Property{k}, Selected: true})
			cl.selectList = append(cl.selectList, c.columnSQL(child, k))
		}
	} else if !it.Count {
		if err := cl.project(q, option, option, depth+1); err != nil {
			return nil, err
		}
	}
	if cl.projection == nil {
		cl.projection = &Projection{Type: child.typ}
	}
	// Conditions: the nested $filter and $search.
	var conds []string
	if q.Filter != nil {
		b := &binder{c: c, option: option, it: child}
		f, err := b.boolean(q.Filter)
		if err != nil {
			return nil, err
		}
		conds = append(conds, c.condition(f, false))
	}
	if q.Search != nil {
		s, err := c.bindSearch(option, child, q.Search)
		if err != nil {
			return nil, err
		}
		conds = append(conds, c.condition(s, false))
	}
	var order []orderKey
	if nav.Collection && !it.Count {
		var err error
		if order, err = cl.orderBy(q.OrderBy, option, false); err != nil {
			return nil, err
		}
	}
	e.Projection = *cl.projection

	// FROM, link values and the IN test.
	var from []string
	var link []string
	if j.Through != nil {
		la := c.newAlias()
		on := make([]string, len(j.TargetColumns))
		for i, col := range j.TargetColumns {
			on[i] = c.qualifiedColumn(child.alias, col) + " = " + c.qualifiedColumn(la, j.Through.TargetColumns[i])
		}
		from = append(from, c.quote(j.Through.Table)+" AS "+c.quote(la),
			"JOIN "+c.quote(child.typ.Table)+" AS "+c.quote(child.alias)+" ON "+strings.Join(on, " AND "))
		for _, col := range j.Through.SourceColumns {
			link = append(link, c.qualifiedColumn(la, col))
		}
	} else {
		from = append(from, c.quote(child.typ.Table)+" AS "+c.quote(child.alias))
		for _, col := range j.TargetColumns {
			link = append(link, c.qualifiedColumn(child.alias, col))
		}
	}
	for _, jn := range child.joins {
		from = append(from, strings.TrimPrefix(c.joinClause(jn)+c.joins(jn), " "))
	}
	fromSQL := strings.Join(from, " ")
	in := modelsql.Tuple(link) + " IN ("
	rest := ")"
	for _, w := range conds {
		rest += " AND " + w
	}

	// Counts.
	if e.WithCount || it.Count {
		s := "SELECT " + strings.Join(link, ", ") + ", COUNT(*) FROM " + fromSQL + " WHERE " + in
		e.countPre, e.countPreArgs = c.finishQuestionMarks(s)
		e.countPost, e.countPostArgs = c.finishQuestionMarks(rest + " GROUP BY " + strings.Join(link, ", "))
	}
	if it.Count {
		return e, nil
	}

	// Rows.
	var top, skip int64 = -1, 0
	if q.Top != nil {
		top = *q.Top
	}
	if q.Skip != nil {
		skip = *q.Skip
	}
	ob := orderSQL(c, order)
	if !nav.Collection || (top < 0 && skip == 0) {
		var sel []string
		sel = append(sel, link...)
		sel = append(sel, cl.selectList...)
		s := "SELECT " + strings.Join(sel, ", ") + " FROM " + fromSQL + " WHERE " + in
		post := rest
		if len(ob) > 0 {
			post += " ORDER BY " + strings.Join(append(append([]string(nil), link...), ob...), ", ")
		}
		e.pre, e.preArgs = c.finishQuestionMarks(s)
		e.post, e.postArgs = c.finishQuestionMarks(post)
		return e, nil
	}
	// Per-parent $top and $skip: number the children of each parent.
	var inner, outer []string
	for i, l := range link {
		a := "l" + strconv.Itoa(i)
		inner = append(inner, l+" AS "+c.quote(a))
		outer = append(outer, c.quote(a))
	}
	linkAliases := append([]string(nil), outer...)
	for i, s := range cl.selectList {
		a := "c" + strconv.Itoa(i)
		inner = append(inner, s+" AS "+c.quote(a))
		outer = append(outer, c.quote(a))
	}
	inner = append(inner, "ROW_NUMBER() OVER (PARTITION BY "+strings.Join(link, ", ")+" ORDER BY "+strings.Join(ob, ", ")+") AS "+c.quote("rn"))
	s := "SELECT " + strings.Join(outer, ", ") + " FROM (SELECT " + strings.Join(inner, ", ") + " FROM " + fromSQL + " WHERE " + in
	post := rest + ") AS " + c.quote("w") + " WHERE " + c.quote("rn") + " > " + c.arg(skip)
	if top >= 0 {
		post += " AND " + c.quote("rn") + " <= " + c.arg(skip+top)
	}
	post += " ORDER BY " + strings.Join(linkAliases, ", ") + ", " + c.quote("rn")
	e.pre, e.preArgs = c.finishQuestionMarks(s)
	e.post, e.postArgs = c.finishQuestionMarks(post)
	return e, nil
}

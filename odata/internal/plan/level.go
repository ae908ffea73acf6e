package plan

import (
	"strconv"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/syntax"
)

// level builds the projection of one level of a read: the root entities or the children of an expansion.
type level struct {
	c    *compiler
	r    *rng
	proj *Projection
	sqls []string
}

// selection is what $select picked from a property: all of it, or some members of a complex property.
type selection struct {
	all     bool
	members map[*edm.Property]*selection
}

func (s *selection) member(p *edm.Property) *selection {
	if s == nil {
		return nil
	}
	if s.all {
		return s
	}
	return s.members[p]
}

// project computes the columns, collections and expansions of the level from its $select and $expand.
func (lv *level) project(q *syntax.Query, selOpt, expOpt string, depth int) error {
	c := lv.c
	t := lv.r.typ
	if rt := c.p.roots[t]; rt != nil && q.Select == nil && lv.r.alias == "t0" {
		// The default projection at the top level: shared, so every slice is capped (appends copy).
		pr := rt.proj
		pr.Columns = pr.Columns[:len(pr.Columns):len(pr.Columns)]
		pr.Collections = pr.Collections[:len(pr.Collections):len(pr.Collections)]
		lv.proj = &pr
		lv.sqls = rt.sqls[:len(rt.sqls):len(rt.sqls)]
		for _, it := range q.Expand {
			if err := lv.expand(it, expOpt, depth); err != nil {
				return err
			}
		}
		return nil
	}
	lv.proj = &Projection{Type: t}
	sel, err := lv.selection(q.Select, selOpt)
	if err != nil {
		return err
	}
	etag := map[*edm.Property]bool{}
	for _, p := range t.ETagProperties() {
		etag[p] = true
	}
	colOf := map[*edm.Property]int{}
	var add func(path []*edm.Property, p *edm.Property, s *selection, always bool)
	add = func(path []*edm.Property, p *edm.Property, s *selection, always bool) {
		path = append(path[:len(path):len(path)], p)
		if p.Complex != nil {
			for _, m := range p.Properties() {
				add(path, m, s.member(m), always)
			}
			return
		}
		if s == nil && !always {
			return
		}
		colOf[p] = len(lv.proj.Columns)
		lv.proj.Columns = append(lv.proj.Columns, Column{Path: path, Selected: s != nil})
		lv.sqls = append(lv.sqls, c.colSQL(lv.r, p))
	}
	for _, p := range t.Properties {
		s := sel[p]
		if sel == nil && !p.Lazy && p.Type != edm.KindStream {
			s = &selection{all: true}
		}
		if p.Collection {
			if c.p.inline {
				if s != nil || etag[p] {
					colOf[p] = len(lv.proj.Columns)
					lv.proj.Columns = append(lv.proj.Columns, Column{Path: []*edm.Property{p}, Selected: s != nil})
					lv.sqls = append(lv.sqls, modelsql.CollectionArray(c.d, &c.p.names, p, lv.r.alias, "s"))
				}
			} else if s != nil {
				lv.proj.Collections = append(lv.proj.Collections, &Collection{Property: p})
			}
			continue
		}
		add(nil, p, s, p.IsKey() || etag[p])
	}
	for _, k := range t.KeyProperties() {
		lv.proj.Key = append(lv.proj.Key, colOf[k])
	}
	for _, p := range t.ETagProperties() {
		switch {
		case p.Collection:
			if c.p.inline {
				lv.proj.ETag = append(lv.proj.ETag, colOf[p])
			}
		case p.Complex != nil:
			var walk func(p *edm.Property)
			walk = func(p *edm.Property) {
				for _, m := range p.Properties() {
					if m.Complex != nil {
						walk(m)
					} else {
						lv.proj.ETag = append(lv.proj.ETag, colOf[m])
					}
				}
			}
			walk(p)
		default:
			lv.proj.ETag = append(lv.proj.ETag, colOf[p])
		}
	}
	for _, coll := range lv.proj.Collections {
		for _, col := range coll.Property.CollectionTable.SourceColumns {
			coll.Owner = append(coll.Owner, lv.column(col))
		}
		lv.collection(coll)
	}
	for _, it := range q.Expand {
		if err := lv.expand(it, expOpt, depth); err != nil {
			return err
		}
	}
	return nil
}

// selection reads $select; nil means the default projection.
func (lv *level) selection(items []syntax.SelectItem, option string) (map[*edm.Property]*selection, error) {
	if items == nil {
		return nil, nil
	}
	t := lv.r.typ
	out := map[*edm.Property]*selection{}
	star := false
	for _, it := range items {
		segs := it.Path
		if len(segs) == 1 && segs[0].Name == "*" {
			star = true
			continue
		}
		if it.Options != nil {
			return nil, &Error{Code: CodeNotSupported, Option: option, Pos: it.Pos + 1, Msg: "nested options in $select are not supported"}
		}
		// Leading casts to the type itself.
		for len(segs) > 0 && segs[0].IsQualified() && lv.isType(segs[0].Name, t.Name) {
			segs = segs[1:]
		}
		if len(segs) == 0 {
			star = true
			continue
		}
		first := segs[0]
		if strings.HasPrefix(first.Name, "@") || strings.HasSuffix(first.Name, ".*") || first.IsQualified() {
			continue // annotations, operations: nothing to read
		}
		p := t.Property(first.Name)
		if p == nil {
			if t.Navigation(first.Name) != nil {
				continue // a navigation link: nothing to read
			}
			return nil, &Error{Code: CodeUnknownProperty, Option: option, Pos: first.Pos + 1, Msg: t.Name + " has no property " + first.Name}
		}
		// Validate the member path, then mark what it selects.
		path := []*edm.Property{p}
		cur := p
		for _, seg := range segs[1:] {
			if seg.IsQualified() && cur.Complex != nil && lv.isType(seg.Name, cur.Complex.Name) {
				continue
			}
			if cur.Complex == nil {
				return nil, &Error{Code: CodeTypeMismatch, Option: option, Pos: seg.Pos + 1, Msg: cur.Name + " has no members"}
			}
			m := cur.Property(seg.Name)
			if m == nil {
				return nil, &Error{Code: CodeUnknownProperty, Option: option, Pos: seg.Pos + 1, Msg: cur.Complex.Name + " has no property " + seg.Name}
			}
			path = append(path, m)
			cur = m
		}
		node := out[p]
		if node == nil {
			node = &selection{members: map[*edm.Property]*selection{}}
			out[p] = node
		}
		for _, m := range path[1:] {
			if node.all {
				break
			}
			child := node.members[m]
			if child == nil {
				child = &selection{members: map[*edm.Property]*selection{}}
				node.members[m] = child
			}
			node = child
		}
		node.all = true
	}
	if star {
		for _, p := range t.Properties {
			if !p.Lazy && p.Type != edm.KindStream && out[p] == nil {
				out[p] = &selection{all: true}
			} else if !p.Lazy && p.Type != edm.KindStream {
				out[p].all = true
			}
		}
	}
	return out, nil
}

func (lv *level) isType(name, simple string) bool {
	return strings.EqualFold(name, simple) || strings.EqualFold(name, lv.c.m.Namespace+"."+simple)
}

// internal adds a column the planner needs for itself.
func (lv *level) internal(sql string) int {
	lv.proj.Columns = append(lv.proj.Columns, Column{})
	lv.sqls = append(lv.sqls, sql)
	return len(lv.sqls) - 1
}

// column returns the index of the column named col of the level's table, adding it when it is not projected.
func (lv *level) column(col string) int {
	for i, cl := range lv.proj.Columns {
		if n := len(cl.Path); n > 0 && cl.Path[n-1].Column == col && cl.Path[n-1].SQL == "" && !cl.Path[n-1].Collection {
			return i
		}
	}
	return lv.internal(lv.c.rawCol(lv.r.alias, col))
}

// orderBy binds order-by items on the level's range and completes them with the key. With cols, each key gets
// the column that holds its value (added when needed), for $skiptoken.
func (lv *level) orderBy(items []syntax.OrderItem, option string, cols bool) ([]orderKey, error) {
	c := lv.c
	var keys []orderKey
	covered := map[*edm.Property]bool{}
	for _, it := range items {
		b := &binder{c: c, option: option, it: lv.r}
		e, err := b.expr(it.Expr)
		if err != nil {
			return nil, err
		}
		t := e.btyp()
		if !t.isScalar() || t.kind == edm.KindStream {
			if t.null {
				continue // ordering by null orders nothing
			}
			return nil, &Error{Code: CodeTypeMismatch, Option: option, Pos: it.Expr.Position() + 1, Msg: "cannot order by a value of type " + t.String()}
		}
		if isLit(e) {
			continue // a constant orders nothing
		}
		sql, rep := c.val(e)
		k := orderKey{e: e, sql: sql, rep: rep, desc: it.Desc, nullable: nullable(e), col: -1}
		if col, ok := e.(*bCol); ok && col.r == lv.r {
			for i, cl := range lv.proj.Columns {
				if n := len(cl.Path); n > 0 && cl.Path[n-1] == col.p {
					k.col = i
				}
			}
			if col.p.IsKey() {
				covered[col.p] = true
			}
		}
		if k.col < 0 && cols {
			k.col = lv.internal(sql)
		}
		keys = append(keys, k)
	}
	for i, p := range lv.r.typ.KeyProperties() {
		if covered[p] {
			continue
		}
		e := &bCol{t: propType(p), r: lv.r, p: p}
		sql, rep := c.val(e)
		keys = append(keys, orderKey{e: e, sql: sql, rep: rep, col: lv.proj.Key[i]})
	}
	return keys, nil
}

// collection compiles the query of a collection property's items.
func (lv *level) collection(coll *Collection) {
	c := lv.c
	ct := coll.Property.CollectionTable
	a := "s"
	owner := make([]string, len(ct.OwnerColumns))
	for i, col := range ct.OwnerColumns {
		owner[i] = c.rawCol(a, col)
	}
	sel := strings.Join(owner, ", ") + ", " + c.rawCol(a, ct.ValueColumn)
	coll.d = c.d
	coll.pre = "SELECT " + sel + " FROM " + c.q(ct.Table) + " AS " + c.q(a) + " WHERE " + modelsql.Tuple(owner) + " IN ("
	coll.post = ") ORDER BY " + strings.Join(owner, ", ") + ", " + c.rawCol(a, ct.OrdinalColumn)
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
		for _, e := range lv.proj.Expands {
			if e.Nav == nav {
				return &Error{Code: CodeSyntax, Option: option, Pos: it.Pos + 1, Msg: nav.Name + " is expanded twice"}
			}
		}
		e, err := lv.expandNav(nav, it, option, depth)
		if err != nil {
			return err
		}
		lv.proj.Expands = append(lv.proj.Expands, e)
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
	child := &rng{alias: c.newAlias(), typ: nav.TargetType()}
	cl := &level{c: c, r: child}
	if it.Ref {
		cl.proj = &Projection{Type: child.typ}
		for _, k := range child.typ.KeyProperties() {
			cl.proj.Key = append(cl.proj.Key, len(cl.proj.Columns))
			cl.proj.Columns = append(cl.proj.Columns, Column{Path: []*edm.Property{k}, Selected: true})
			cl.sqls = append(cl.sqls, c.colSQL(child, k))
		}
	} else if !it.Count {
		if err := cl.project(q, option, option, depth+1); err != nil {
			return nil, err
		}
	}
	if cl.proj == nil {
		cl.proj = &Projection{Type: child.typ}
	}
	// Conditions: the nested $filter and $search.
	var conds []string
	if q.Filter != nil {
		b := &binder{c: c, option: option, it: child}
		f, err := b.boolean(q.Filter)
		if err != nil {
			return nil, err
		}
		conds = append(conds, c.cond(f, false))
	}
	if q.Search != nil {
		s, err := c.bindSearch(option, child, q.Search)
		if err != nil {
			return nil, err
		}
		conds = append(conds, c.cond(s, false))
	}
	var order []orderKey
	if nav.Collection && !it.Count {
		var err error
		if order, err = cl.orderBy(q.OrderBy, option, false); err != nil {
			return nil, err
		}
	}
	e.Projection = *cl.proj

	// FROM, link values and the IN test.
	var from []string
	var link []string
	if j.Through != nil {
		la := c.newAlias()
		on := make([]string, len(j.TargetColumns))
		for i, col := range j.TargetColumns {
			on[i] = c.rawCol(child.alias, col) + " = " + c.rawCol(la, j.Through.TargetColumns[i])
		}
		from = append(from, c.q(j.Through.Table)+" AS "+c.q(la),
			"JOIN "+c.q(child.typ.Table)+" AS "+c.q(child.alias)+" ON "+strings.Join(on, " AND "))
		for _, col := range j.Through.SourceColumns {
			link = append(link, c.rawCol(la, col))
		}
	} else {
		from = append(from, c.q(child.typ.Table)+" AS "+c.q(child.alias))
		for _, col := range j.TargetColumns {
			link = append(link, c.rawCol(child.alias, col))
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
		e.cpre, e.cpreArgs = c.finishQ(s)
		e.cpost, e.cpostArgs = c.finishQ(rest + " GROUP BY " + strings.Join(link, ", "))
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
		sel = append(sel, cl.sqls...)
		s := "SELECT " + strings.Join(sel, ", ") + " FROM " + fromSQL + " WHERE " + in
		post := rest
		if len(ob) > 0 {
			post += " ORDER BY " + strings.Join(append(append([]string(nil), link...), ob...), ", ")
		}
		e.pre, e.preArgs = c.finishQ(s)
		e.post, e.postArgs = c.finishQ(post)
		return e, nil
	}
	// Per-parent $top and $skip: number the children of each parent.
	var inner, outer []string
	for i, l := range link {
		a := "l" + strconv.Itoa(i)
		inner = append(inner, l+" AS "+c.q(a))
		outer = append(outer, c.q(a))
	}
	linkAliases := append([]string(nil), outer...)
	for i, s := range cl.sqls {
		a := "c" + strconv.Itoa(i)
		inner = append(inner, s+" AS "+c.q(a))
		outer = append(outer, c.q(a))
	}
	inner = append(inner, "ROW_NUMBER() OVER (PARTITION BY "+strings.Join(link, ", ")+" ORDER BY "+strings.Join(ob, ", ")+") AS "+c.q("rn"))
	s := "SELECT " + strings.Join(outer, ", ") + " FROM (SELECT " + strings.Join(inner, ", ") + " FROM " + fromSQL + " WHERE " + in
	post := rest + ") AS " + c.q("w") + " WHERE " + c.q("rn") + " > " + c.arg(skip)
	if top >= 0 {
		post += " AND " + c.q("rn") + " <= " + c.arg(skip+top)
	}
	post += " ORDER BY " + strings.Join(linkAliases, ", ") + ", " + c.q("rn")
	e.pre, e.preArgs = c.finishQ(s)
	e.post, e.postArgs = c.finishQ(post)
	return e, nil
}

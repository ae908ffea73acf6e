package plan

import (
	"strconv"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

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
	if limit := lv.c.query.ExpandDepth; exceeds(depth+1, limit) {
		return &Error{Code: CodeLimitExceeded, Option: option, Pos: it.Pos + 1, Msg: "$expand nests deeper than " + strconv.Itoa(limit) + " levels"}
	}
	segments := it.Path
	var navs []*edm.NavigationProperty
	var cast *edm.EntityType // a cast after the navigation to a type derived from its target's
	switch {
	case len(segments) == 1 && segments[0].Name == "*":
		for _, nav := range t.Navigations {
			if !lv.c.hiddenNavigation(t, nav) {
				navs = append(navs, nav)
			}
		}
	default:
		for len(segments) > 0 && segments[0].IsQualified() && lv.isType(segments[0].Name, t.Name) {
			segments = segments[1:]
		}
		if len(segments) == 0 {
			return &Error{Code: CodeSyntax, Option: option, Pos: it.Pos + 1, Msg: "expected a navigation property"}
		}
		nav := t.Navigation(segments[0].Name)
		if nav == nil {
			if t.Property(segments[0].Name) != nil {
				return &Error{Code: CodeNotSupported, Option: option, Pos: segments[0].Pos + 1, Msg: segments[0].Name + " is not a navigation property; expanding through complex properties is not supported"}
			}
			return &Error{Code: CodeUnknownProperty, Option: option, Pos: segments[0].Pos + 1, Msg: t.Name + " has no navigation property " + segments[0].Name}
		}
		if lv.c.hiddenNavigation(t, nav) {
			return notReadable(option, segments[0].Pos+1, t, nav.Name)
		}
		for _, s := range segments[1:] {
			if s.IsQualified() && lv.isType(s.Name, nav.TargetType().Name) {
				continue
			}
			if d := lv.c.m.EntityType(s.Name); s.IsQualified() && d != nil && d.IsA(castOr(nav.TargetType(), cast)) && cast == nil {
				cast = d
				continue
			}
			return &Error{Code: CodeNotSupported, Option: option, Pos: s.Pos + 1, Msg: "unsupported $expand segment " + s.Name}
		}
		navs = []*edm.NavigationProperty{nav}
	}
	if err := lv.c.countExpands(len(navs), option, it.Pos+1); err != nil {
		return err
	}
	for _, nav := range navs {
		for _, e := range lv.projection.Expands {
			if e.Nav == nav {
				return &Error{Code: CodeSyntax, Option: option, Pos: it.Pos + 1, Msg: nav.Name + " is expanded twice"}
			}
		}
		e, err := lv.expandNav(nav, cast, it, option, depth)
		if err != nil {
			return err
		}
		lv.projection.Expands = append(lv.projection.Expands, e)
	}
	return nil
}

// expandNav compiles the expansion of one navigation property with the options of its $expand item.
func (lv *level) expandNav(nav *edm.NavigationProperty, cast *edm.EntityType, it syntax.ExpandItem, option string, depth int) (*Expand, error) {
	c := lv.c
	q := it.Options
	if q == nil {
		q = &syntax.Query{}
	}
	if q.Levels != nil {
		q = withLevels(nav, it, q, depth, c.query.ExpandDepth)
		it.Options = q
	}
	if err := unsupported(q, c, option); err != nil {
		return nil, err
	}
	if err := checkSingleValued(nav, q, option); err != nil {
		return nil, err
	}
	if err := c.limits.checkTop(q.Top, option, it.Pos+1); err != nil {
		return nil, err
	}
	e := &Expand{Nav: nav, Ref: it.Ref, CountOnly: it.Count, Query: it.Options, d: c.d}
	e.WithCount = q.Count != nil && *q.Count
	for _, column := range nav.Join.SourceColumns {
		e.Link = append(e.Link, lv.column(column))
	}
	child := &tableRange{alias: c.newAlias(), typ: castOr(nav.TargetType(), cast)}
	if err := c.bindCompute(child, q, option); err != nil {
		return nil, err
	}
	childLevel, err := lv.childLevel(child, it, q, option, depth)
	if err != nil {
		return nil, err
	}
	conditions, err := c.expandConditions(child, q, option)
	if err != nil {
		return nil, err
	}
	if condition := c.typeCondition(child.typ, child.alias); condition != "" {
		conditions = append(conditions, condition) // the entities of the cast's type only
	}
	var order []orderKey
	if nav.Collection && !it.Count {
		if order, err = childLevel.orderBy(q.OrderBy, option, false); err != nil {
			return nil, err
		}
	}
	e.Projection = *childLevel.projection
	query := c.expansionQuery(nav, child, conditions)
	if e.WithCount || it.Count {
		e.compileCounts(c, query)
	}
	if it.Count {
		return e, nil
	}
	top, skip := int64(-1), int64(0)
	if q.Top != nil {
		top = *q.Top
	}
	if q.Skip != nil {
		skip = *q.Skip
	}
	if !nav.Collection || (top < 0 && skip == 0) {
		e.compileRows(c, query, childLevel.selectList, orderSQL(c, order))
	} else {
		e.compileNumberedRows(c, query, childLevel.selectList, orderSQL(c, order), top, skip)
	}
	return e, nil
}

// checkSingleValued rejects the options that apply to collections only in the expansion of a single-valued
// navigation.
func checkSingleValued(nav *edm.NavigationProperty, q *syntax.Query, option string) error {
	if nav.Collection {
		return nil
	}
	for _, o := range q.Options {
		switch o.Name {
		case "$orderby", "$top", "$skip", "$count", "$search":
			return &Error{Code: CodeSyntax, Option: option, Pos: o.Pos + 1, Msg: o.Name + " does not apply to the single-valued " + nav.Name}
		}
	}
	return nil
}

// childLevel builds the level of an expansion's children: their key columns for $ref, nothing for $count, else
// their projection with its own expansions.
func (lv *level) childLevel(child *tableRange, it syntax.ExpandItem, q *syntax.Query, option string, depth int) (*level, error) {
	c := lv.c
	childLevel := &level{c: c, r: child}
	switch {
	case it.Ref:
		childLevel.projection = &Projection{Type: child.typ}
		for _, k := range child.typ.KeyProperties() {
			childLevel.projection.Key = append(childLevel.projection.Key, len(childLevel.projection.Columns))
			childLevel.projection.Columns = append(childLevel.projection.Columns, Column{Path: []*edm.Property{k}, Selected: true})
			childLevel.selectList = append(childLevel.selectList, c.columnSQL(child, k))
		}
	case it.Count:
		childLevel.projection = &Projection{Type: child.typ}
	default:
		if err := childLevel.project(q, option, option, depth+1); err != nil {
			return nil, err
		}
	}
	return childLevel, nil
}

// expandConditions binds and translates the nested $filter and $search of an expansion.
func (c *compiler) expandConditions(child *tableRange, q *syntax.Query, option string) ([]string, error) {
	var conditions []string
	if condition := c.rowFilter(child); condition != "" {
		conditions = append(conditions, condition)
	}
	if q.Filter != nil {
		b := &binder{c: c, option: option, it: child}
		f, err := b.boolean(q.Filter)
		if err != nil {
			return nil, err
		}
		conditions = append(conditions, c.condition(f, false))
	}
	if q.Search != nil {
		s, err := c.bindSearch(option, child, q.Search)
		if err != nil {
			return nil, err
		}
		conditions = append(conditions, c.condition(s, false))
	}
	return conditions, nil
}

// expansionQuery holds what the queries of an expansion share: the FROM clause of the children (through the link
// table of a many-to-many navigation, with the children's to-one joins), the link values that tie a child to its
// parents, and what follows the list of parents' link values (the closing parenthesis and the conditions).
type expansionQuery struct {
	from string
	link []string
	rest string
}

// in is the start of the WHERE clause: the link values IN the list of parents' values that assemble completes.
func (q expansionQuery) in() string { return modelsql.Tuple(q.link) + " IN (" }

// expansionQuery builds the shared parts of the queries of the expansion of nav.
func (c *compiler) expansionQuery(nav *edm.NavigationProperty, child *tableRange, conditions []string) expansionQuery {
	j := nav.Join
	var from, link []string
	if j.Through != nil {
		linkAlias := c.newAlias()
		on := make([]string, len(j.TargetColumns))
		for i, column := range j.TargetColumns {
			on[i] = c.qualifiedColumn(child.alias, column) + " = " + c.qualifiedColumn(linkAlias, j.Through.TargetColumns[i])
		}
		from = append(from, c.quote(j.Through.Table)+" AS "+c.quote(linkAlias),
			"JOIN "+c.quote(child.typ.Table)+" AS "+c.quote(child.alias)+" ON "+strings.Join(on, " AND "))
		for _, column := range j.Through.SourceColumns {
			link = append(link, c.qualifiedColumn(linkAlias, column))
		}
	} else {
		from = append(from, c.quote(child.typ.Table)+" AS "+c.quote(child.alias))
		for _, column := range j.TargetColumns {
			link = append(link, c.qualifiedColumn(child.alias, column))
		}
	}
	for _, join := range child.joins {
		from = append(from, strings.TrimPrefix(c.joinClause(join)+c.joins(join), " "))
	}
	rest := ")"
	for _, condition := range conditions {
		rest += " AND " + condition
	}
	return expansionQuery{from: strings.Join(from, " "), link: link, rest: rest}
}

// compileCounts compiles the query of the number of children per parent.
func (e *Expand) compileCounts(c *compiler, q expansionQuery) {
	links := strings.Join(q.link, ", ")
	e.countPre, e.countPreArgs = c.finishQuestionMarks("SELECT " + links + ", COUNT(*) FROM " + q.from + " WHERE " + q.in())
	e.countPost, e.countPostArgs = c.finishQuestionMarks(q.rest + " GROUP BY " + links)
}

// compileRows compiles the query of all the children of the parents, ordered by parent and then by order.
func (e *Expand) compileRows(c *compiler, q expansionQuery, selectList, order []string) {
	columns := append(append([]string(nil), q.link...), selectList...)
	post := q.rest
	if len(order) > 0 {
		post += " ORDER BY " + strings.Join(append(append([]string(nil), q.link...), order...), ", ")
	}
	e.pre, e.preArgs = c.finishQuestionMarks("SELECT " + strings.Join(columns, ", ") + " FROM " + q.from + " WHERE " + q.in())
	e.post, e.postArgs = c.finishQuestionMarks(post)
}

// compileNumberedRows compiles the query of the children of the parents with a nested $top or $skip: the
// children of each parent are numbered in order (ROW_NUMBER() OVER (PARTITION BY the link values)) and those
// after skip, up to top of them (top < 0 for all), are read.
func (e *Expand) compileNumberedRows(c *compiler, q expansionQuery, selectList, order []string, top, skip int64) {
	var inner, outer []string
	for i, l := range q.link {
		alias := "l" + strconv.Itoa(i)
		inner = append(inner, l+" AS "+c.quote(alias))
		outer = append(outer, c.quote(alias))
	}
	linkAliases := append([]string(nil), outer...)
	for i, s := range selectList {
		alias := "c" + strconv.Itoa(i)
		inner = append(inner, s+" AS "+c.quote(alias))
		outer = append(outer, c.quote(alias))
	}
	rowNumber := c.quote("rn")
	inner = append(inner, "ROW_NUMBER() OVER (PARTITION BY "+strings.Join(q.link, ", ")+" ORDER BY "+strings.Join(order, ", ")+") AS "+rowNumber)
	s := "SELECT " + strings.Join(outer, ", ") + " FROM (SELECT " + strings.Join(inner, ", ") + " FROM " + q.from + " WHERE " + q.in()
	post := q.rest + ") AS " + c.quote("w") + " WHERE " + rowNumber + " > " + c.arg(skip)
	if top >= 0 {
		post += " AND " + rowNumber + " <= " + c.arg(skip+top)
	}
	post += " ORDER BY " + strings.Join(linkAliases, ", ") + ", " + rowNumber
	e.pre, e.preArgs = c.finishQuestionMarks(s)
	e.post, e.postArgs = c.finishQuestionMarks(post)
}

// maxLevels is how many levels $levels=max expands when no ExpandDepth limits the nesting.
const maxLevels = 8

// withLevels returns the options q of the $expand item it of nav, which hold $levels, as the nested expansions
// they stand for: the same options without $levels, and, when nav is recursive (its target type has a
// navigation property of the same name), the same item nested inside with one level less. $levels=max expands
// as deep as the ExpandDepth limit allows (maxLevels without one); a number beyond the limit meets it as a
// nested $expand would. depth is the nesting of it's level.
func withLevels(nav *edm.NavigationProperty, it syntax.ExpandItem, q *syntax.Query, depth, limit int) *syntax.Query {
	levels := q.Levels.N
	if q.Levels.Max {
		levels = maxLevels
		if limit > 0 {
			levels = int64(max(limit-depth, 1))
		}
	}
	out := *q
	out.Levels = nil
	out.Options = nil
	for _, o := range q.Options {
		if o.Name != "$levels" {
			out.Options = append(out.Options, o)
		}
	}
	if levels <= 1 || nav.TargetType().Navigation(nav.Name) == nil {
		return &out
	}
	for _, e := range q.Expand {
		if len(e.Path) > 0 && e.Path[len(e.Path)-1].Name == nav.Name {
			return &out // the options expand the navigation themselves
		}
	}
	inner := *q
	inner.Levels = &syntax.Levels{N: levels - 1}
	next := syntax.ExpandItem{Pos: it.Pos, Path: it.Path[len(it.Path)-1:], Ref: it.Ref, Count: it.Count, Options: &inner}
	out.Expand = append(append([]syntax.ExpandItem(nil), q.Expand...), next)
	return &out
}

package plan

import (
	"hash/fnv"
	"slices"
	"strings"
	"sync"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

// maxExpandDepth is the SPEC part 9 limit on nested $expand.
const maxExpandDepth = 3

// Column is one column of a SELECT the planner generates. Columns come in this order: the properties of the
// entity type in declaration order (a complex property as its members, in member order), each included when it
// is selected (explicitly, or by default: every property that is not Lazy), is part of the key, or is part of
// the ETag; then the columns the planner needs for itself (join values of expansions, order-by values for the
// $skiptoken), which have an empty Path.
type Column struct {
	// Path is the property the column holds: a primitive or enum property, or a complex property followed by
	// its member (members of nested complex properties add a step). The last element has the full column
	// name; convert a scanned value with Scan(Path[len(Path)-1], v). With Options.InlineCollections it may be a
	// collection property, whose column holds the JSON array of its items. Empty for the planner's own columns.
	Path []*edm.Property
	// Selected reports whether the property is part of the $select projection and belongs in the answer.
	Selected bool
}

// Projection is the shape of the rows of one level of a read (the entities read, or the children of one
// expansion): their columns and the queries that complete them.
type Projection struct {
	// Type is the entity type of the rows.
	Type *edm.EntityType
	// Columns are the columns of each row, in the order documented on Column.
	Columns []Column
	// Key holds the indexes (into Columns) of the key properties, in key order.
	Key []int
	// ETag holds the indexes of the columns the ETag is computed over: the scalar properties and complex
	// members of Type.ETagProperties(), in declaration order, and with Options.InlineCollections its collection
	// properties. (Without it, collection properties have no column.)
	ETag []int
	// Collections are the selected collections of primitive values, one query per property per page.
	Collections []*Collection
	// Expands are the expanded navigation properties, one query per navigation per page.
	Expands []*Expand
}

// Collection is a selected collection of primitive or enum values, stored in a side table. Its query reads the
// items of all the owners of a page at once.
type Collection struct {
	// Property is the collection property; Scan its items with Scan(Property, v).
	Property *edm.Property
	// Owner holds the indexes (into the owner's Columns) of the owner's columns the side table refers to
	// (edm.CollectionTable.SourceColumns, by default the key), in that order.
	Owner []int

	d         sqldb.Dialect
	pre, post string
}

// Select returns the query of the items of the given owners: owners[i] is the i-th owner row as scanned (only
// the columns at Owner are read). Each result row is the owner's key values, then the item; rows come ordered by
// owner and then by the item's position. It returns "" when there is nothing to read.
func (c *Collection) Select(owners [][]any) (string, []any) {
	return assemble(c.d, c.pre, nil, c.Owner, owners, c.post, nil)
}

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

	d                   sqldb.Dialect
	pre, post           string
	preArgs, postArgs   []any
	cpre, cpost         string
	cpreArgs, cpostArgs []any
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
	return assemble(e.d, e.cpre, e.cpreArgs, e.Link, parents, e.cpost, e.cpostArgs)
}

// assemble puts the distinct non-null link tuples of rows (the values at cols) between pre and post.
func assemble(d sqldb.Dialect, pre string, preArgs []any, cols []int, rows [][]any, post string, postArgs []any) (string, []any) {
	seen := make(map[string]bool, len(rows))
	var b strings.Builder
	args := append([]any(nil), preArgs...)
	n := 0
	for _, row := range rows {
		tuple := make([]any, len(cols))
		skip := false
		for i, c := range cols {
			if row[c] == nil {
				skip = true
				break
			}
			tuple[i] = row[c]
		}
		if skip {
			continue
		}
		k := LinkKey(tuple...)
		if seen[k] {
			continue
		}
		seen[k] = true
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		if len(cols) > 1 {
			b.WriteByte('(')
		}
		for i := range tuple {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('?')
		}
		if len(cols) > 1 {
			b.WriteByte(')')
		}
		args = append(args, tuple...)
	}
	if n == 0 {
		return "", nil
	}
	s := pre + b.String() + post
	args = append(args, postArgs...)
	if d.Placeholder() != sq.Question {
		s, _ = d.Placeholder().ReplacePlaceholders(s)
	}
	return s, args
}

// plan is a compiled read, shared by every request with the same scope shape and query text.
type plan struct {
	c      *compiler
	mu     sync.Mutex
	query  *syntax.Query
	typ    *edm.EntityType
	single bool
	one    bool // LIMIT 1 on a single entity (a singleton's table)
	proj   *Projection
	rest   string
	skip   int64
	keys   []keyPred

	table   string   // FROM table AS alias
	joins   []string // LEFT JOIN clauses
	cols    []string // column SQL (marker form)
	where   []string
	order   []orderKey
	orderBy []string
	fp      uint32

	first  stmt
	count  *stmt
	resume map[uint64]*stmt

	memoOnce sync.Once
	memo     any
}

// keyPred is one key predicate of the scope: the entity type it addresses and where its values are.
type keyPred struct {
	typ  *edm.EntityType
	args func(s Scope) []syntax.Arg
}

type stmt struct {
	sql  string
	args []any
}

// orderKey is one item of the total order of a read: an $orderby item, or a key property.
type orderKey struct {
	e        bexpr
	sql      string
	rep      int
	desc     bool
	nullable bool
	col      int
}

const (
	slotLimit  slot = 1 << 20
	slotOffset slot = slotLimit + 1
	slotToken  slot = slotLimit + 2
)

// compile builds the plan of a read.
func (p *Planner) compile(s Scope, q *syntax.Query, rest string) (*plan, error) {
	c := &compiler{p: p, d: p.dialect, m: p.model, aliases: q.Aliases, options: q.Options}
	qc := *q
	qc.Top, qc.SkipToken = nil, ""
	pl := &plan{c: c, query: &qc, rest: rest}
	if q.Skip != nil {
		pl.skip = *q.Skip
	}
	if err := unsupported(q, c, ""); err != nil {
		return nil, err
	}
	typ, single, err := pl.scope(p, s)
	if err != nil {
		return nil, err
	}
	pl.typ, pl.single = typ, single
	root := &rng{alias: "t0", typ: typ}
	if single {
		for _, o := range []string{"$filter", "$orderby", "$search"} {
			for _, opt := range q.Options {
				if opt.Name == o {
					return nil, &Error{Code: CodeSyntax, Option: opt.Spelt, Msg: o + " does not apply to a single entity"}
				}
			}
		}
	}
	pl.where = append(pl.where, pl.scopeConds(s, root)...)
	if q.Filter != nil {
		b := &binder{c: c, option: c.optionSpelt("$filter"), it: root}
		f, err := b.boolean(q.Filter)
		if err != nil {
			return nil, err
		}
		pl.where = append(pl.where, c.cond(f, false))
		if c.tooBig {
			return nil, &Error{Code: CodeLimitExceeded, Option: b.option, Msg: "$filter is too complex to translate"}
		}
	}
	if q.Search != nil {
		sb, err := c.bindSearch(c.optionSpelt("$search"), root, q.Search)
		if err != nil {
			return nil, err
		}
		pl.where = append(pl.where, c.cond(sb, false))
	}
	lv := &level{c: c, r: root}
	if err := lv.project(q, c.optionSpelt("$select"), c.optionSpelt("$expand"), 0); err != nil {
		return nil, err
	}
	if !single {
		if err := pl.orderKeys(lv, q); err != nil {
			return nil, err
		}
	} else if s.Set == nil && len(s.Path) == 0 {
		// A singleton: the first row in key order.
		keys, err := lv.orderBy(nil, "", false)
		if err != nil {
			return nil, err
		}
		pl.orderBy, pl.one = orderSQL(c, keys), true
	}
	pl.proj = lv.proj
	pl.cols = lv.sqls
	pl.table = c.q(typ.Table) + " AS " + c.q(root.alias)
	for _, j := range root.joins {
		pl.joins = append(pl.joins, strings.TrimPrefix(c.joinClause(j)+c.joins(j), " "))
	}
	pl.first = pl.statement(nil, !single, pl.skip > 0)
	if c.tooBig {
		return nil, &Error{Code: CodeLimitExceeded, Msg: "the query is too complex to translate"}
	}
	return pl, nil
}

// unsupported rejects the options this engine does not implement.
func unsupported(q *syntax.Query, c *compiler, top string) error {
	for _, o := range q.Options {
		switch o.Name {
		case "$compute", "$index", "$levels", "$deltatoken", "$schemaversion":
			opt := o.Spelt
			if top != "" {
				opt = top
			}
			return &Error{Code: CodeNotSupported, Option: opt, Pos: 1, Msg: o.Name + " is not supported"}
		}
	}
	return nil
}

// root is the entity type of the scope's entity set or singleton.
func (s Scope) root() *edm.EntityType {
	if s.Set != nil {
		return s.Set.EntityType()
	}
	return s.Singleton.EntityType()
}

// scope resolves the entity type a scope reaches and whether it is a single entity.
func (pl *plan) scope(p *Planner, s Scope) (*edm.EntityType, bool, error) {
	t := s.root()
	single := s.Key != nil || s.Set == nil
	if s.Key != nil {
		pl.keys = append(pl.keys, keyPred{typ: t, args: func(s Scope) []syntax.Arg { return s.Key }})
	}
	for i, st := range s.Path {
		if st.Nav == nil || t.Navigation(st.Nav.Name) != st.Nav {
			return nil, false, &Error{Code: CodeUnknownProperty, Option: "path", Msg: t.Name + " has no such navigation property"}
		}
		if !single {
			return nil, false, &Error{Code: CodeSyntax, Option: "path", Msg: "navigation " + st.Nav.Name + " needs a single entity before it"}
		}
		t = st.Nav.TargetType()
		single = !st.Nav.Collection || st.Key != nil
		if st.Key != nil {
			if !st.Nav.Collection {
				return nil, false, &Error{Code: CodeSyntax, Option: "path", Msg: st.Nav.Name + " is single-valued and takes no key"}
			}
			i := i
			pl.keys = append(pl.keys, keyPred{typ: t, args: func(s Scope) []syntax.Arg { return s.Path[i].Key }})
		}
	}
	return t, single, nil
}

// scopeConds returns the conditions that restrict alias r to the rows of the scope. Key values are slots.
func (pl *plan) scopeConds(s Scope, r *rng) []string {
	c := pl.c
	// levels[i] describes level i: 0 is the entity set, i > 0 the target of s.Path[i-1].
	type lvl struct {
		typ    *edm.EntityType
		keyed  bool
		fold   bool
		slot0  int
		parent *edm.NavigationProperty // the navigation from level i-1
	}
	levels := []lvl{{typ: s.root(), keyed: s.Key != nil}}
	for _, st := range s.Path {
		levels = append(levels, lvl{typ: st.Nav.TargetType(), keyed: st.Key != nil, parent: st.Nav})
	}
	next := 0
	for i := range levels {
		levels[i].fold = c.p.fold[levels[i].typ]
		if levels[i].keyed {
			levels[i].slot0 = next
			next += len(levels[i].typ.KeyProperties())
		}
	}
	keyCond := func(l lvl, alias string) []string {
		var out []string
		for j, k := range l.typ.KeyProperties() {
			v := c.param(propType(k), slot(l.slot0+j))
			out = append(out, modelsql.Equals(c.d, c.rawCol(alias, k.Column), v, l.fold && k.Type == edm.KindString))
		}
		return out
	}
	var conds func(i int, alias string) []string
	conds = func(i int, alias string) []string {
		l := levels[i]
		var out []string
		if l.keyed {
			out = keyCond(l, alias)
		}
		if i == 0 {
			return out
		}
		nav := l.parent
		j := nav.Join
		par := levels[i-1]
		// The values the parent level contributes: its SourceColumns, read in a subquery, or directly its key
		// values when the join starts at the parent's key and the parent is addressed by key alone.
		var parentVals string
		direct := i-1 == 0 && par.keyed && !par.fold && slices.Equal(j.SourceColumns, modelsql.KeyColumns(par.typ))
		if !direct {
			pa := c.newAlias()
			sub := "SELECT " + c.columnList(pa, j.SourceColumns) + " FROM " + c.q(par.typ.Table) + " AS " + c.q(pa)
			if pc := conds(i-1, pa); len(pc) > 0 {
				sub += " WHERE " + strings.Join(pc, " AND ")
			}
			if i-1 == 0 && s.Set == nil {
				// A singleton is the first row of its table.
				sub += " ORDER BY " + c.columnList(pa, modelsql.KeyColumns(par.typ)) + " LIMIT 1"
			}
			parentVals = sub
		}
		match := func(left []string) string {
			// left (columns) equal the parent's values.
			if direct {
				parts := make([]string, len(left))
				for k, col := range left {
					parts[k] = modelsql.Equals(c.d, col, c.param(propType(par.typ.KeyProperties()[k]), slot(par.slot0+k)), false)
				}
				return strings.Join(parts, " AND ")
			}
			return modelsql.Tuple(left) + " IN (" + parentVals + ")"
		}
		if j.Through == nil {
			left := make([]string, len(j.TargetColumns))
			for k, col := range j.TargetColumns {
				left[k] = c.rawCol(alias, col)
			}
			out = append(out, match(left))
			return out
		}
		la := c.newAlias()
		left := make([]string, len(j.Through.SourceColumns))
		for k, col := range j.Through.SourceColumns {
			left[k] = c.rawCol(la, col)
		}
		tcols := make([]string, len(j.TargetColumns))
		for k, col := range j.TargetColumns {
			tcols[k] = c.rawCol(alias, col)
		}
		out = append(out, modelsql.Tuple(tcols)+" IN (SELECT "+c.columnList(la, j.Through.TargetColumns)+" FROM "+
			c.q(j.Through.Table)+" AS "+c.q(la)+" WHERE "+match(left)+")")
		return out
	}
	return conds(len(levels)-1, r.alias)
}

// columnList is the comma-separated columns of the table aliased alias.
func (c *compiler) columnList(alias string, columns []string) string {
	return strings.Join(modelsql.Columns(&c.p.names, alias, columns), ", ")
}

// orderKeys binds $orderby and completes the order with the key.
func (pl *plan) orderKeys(lv *level, q *syntax.Query) error {
	c := pl.c
	keys, err := lv.orderBy(q.OrderBy, c.optionSpelt("$orderby"), true)
	if err != nil {
		return err
	}
	pl.order = keys
	h := fnv.New32a()
	h.Write([]byte(pl.typ.Name))
	for _, it := range q.OrderBy {
		h.Write([]byte{0})
		h.Write([]byte(it.Expr.String()))
		if it.Desc {
			h.Write([]byte(" desc"))
		}
	}
	pl.fp = h.Sum32()
	pl.orderBy = orderSQL(c, keys)
	return nil
}

func orderSQL(c *compiler, keys []orderKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		s := k.sql
		if k.e != nil && k.e.btyp().isString() && !isColumn(k.e) {
			s = c.d.CollateBinary(s)
		}
		if k.desc {
			s += " DESC"
		}
		if k.nullable {
			s += c.d.NullsOrder(k.desc)
		}
		out[i] = s
	}
	return out
}

// statement renders the page SELECT with extra conditions; limit adds LIMIT (a slot), offset adds OFFSET.
func (pl *plan) statement(extra []string, limit, offset bool) stmt {
	c := pl.c
	from := pl.table
	if len(pl.joins) > 0 {
		from += " " + strings.Join(pl.joins, " ")
	}
	b := sq.Select(strings.Join(pl.cols, ", ")).From(from)
	if where := append(pl.where[:len(pl.where):len(pl.where)], extra...); len(where) > 0 {
		b = b.Where(strings.Join(where, " AND "))
	}
	if len(pl.orderBy) > 0 {
		b = b.OrderBy(strings.Join(pl.orderBy, ", "))
	}
	if limit {
		b = b.Suffix("LIMIT " + c.arg(slotLimit))
		if offset {
			b = b.Suffix("OFFSET " + c.arg(slotOffset))
		}
	} else if pl.one {
		b = b.Suffix("LIMIT 1")
	}
	s, _, err := b.ToSql()
	if err != nil {
		panic("plan: " + err.Error())
	}
	sql, args := c.finish(s)
	return stmt{sql: sql, args: args}
}

// countStatement renders SELECT COUNT(*) with the read's conditions.
func (pl *plan) countStatement() *stmt {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.count != nil {
		return pl.count
	}
	b := sq.Select("COUNT(*)").From(pl.table)
	for _, j := range pl.joins {
		b = b.JoinClause(j)
	}
	for _, w := range pl.where {
		b = b.Where(w)
	}
	s, _, err := b.ToSql()
	if err != nil {
		panic("plan: " + err.Error())
	}
	sql, args := pl.c.finish(s)
	pl.count = &stmt{sql: sql, args: args}
	return pl.count
}

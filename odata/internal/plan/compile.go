package plan

import (
	"strings"
	"sync"
	"sync/atomic"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// compiledRead is a compiled read, shared by every request with the same scope shape and query text.
type compiledRead struct {
	c          *compiler
	mu         sync.Mutex
	query      *syntax.Query
	typ        *edm.EntityType
	single     bool
	one        bool // LIMIT 1 on a single entity (a singleton's table)
	projection *Projection
	rest       string
	skip       int64
	keys       []keyPredicate

	table string   // FROM table AS alias
	joins []string // LEFT JOIN clauses
	// countMatches is the count of a read whose only condition is a $search the full-text index counts alone
	// (sqldb.FullText.CountMatches), "" otherwise.
	countMatches string
	// inOrder is the condition of the search in the form that walks the order's index (FullText.MatchInOrder),
	// matches the SELECT of the number of matches and of the table's size, and walk the first page with it:
	// set when a read ordered by its key has the search as its only condition (see chooseWalk).
	inOrder, matches string
	walk             *sqlStatement
	columns          []string // column SQL (marker form)
	where            []string
	order            []orderKey
	orderBy          []string
	fingerprint      uint32

	// members are the entity sets of a $crossjoin read (crossjoin.go), in a row's order; nil for other reads.
	members []*Member

	first  sqlStatement
	count  *sqlStatement
	resume map[uint64]*sqlStatement
	// resumeWalk are the resumed pages that walk the order's index (see walkStatement).
	resumeWalk map[uint64]*sqlStatement

	// aggregation describes the rows of a $apply that aggregates (apply.go); nil for a read of entities.
	aggregation *Aggregation

	memoOnce sync.Once
	memo     any
}

// keyPredicate is one key predicate of the scope: the entity type it addresses and where its values are.
type keyPredicate struct {
	typ  *edm.EntityType
	args func(s Scope) []syntax.Arg
}

type sqlStatement struct {
	sql  string
	args []any
	// literals are the places in sql where the LIMIT and OFFSET of the request go as integer literals, on a
	// dialect that wants them so (literalLimits); their values are not in args.
	literals []literalSlot
	// rendered keeps the SQL of the statement with the literal values of the first few requests (render), so
	// that the requests of a frequent page size do not build it again; nil when the statement has no literals.
	rendered *renderedTexts
}

// renderedTexts is the SQL of a statement with literals, rendered with a few sets of values: at most
// maxRenderedTexts of them, kept from the first requests on. Readers load the list without a lock; a writer
// replaces it with a longer copy.
type renderedTexts struct {
	list atomic.Pointer[[]renderedText]
}

// maxRenderedTexts bounds the renderings a statement keeps: page sizes and offsets of requests vary little in
// practice ($top of the usual page sizes, no $skip), and a request whose values are not kept only builds its SQL.
const maxRenderedTexts = 4

// renderedText is a statement's SQL with the literal values values (in the order of its literals).
type renderedText struct {
	values [2]int64
	sql    string
}

// find returns the SQL kept for values.
func (t *renderedTexts) find(values [2]int64) (string, bool) {
	if list := t.list.Load(); list != nil {
		for _, r := range *list {
			if r.values == values {
				return r.sql, true
			}
		}
	}
	return "", false
}

// keep keeps sql as the SQL for values, unless the list is full or another request changed it meanwhile.
func (t *renderedTexts) keep(values [2]int64, sql string) {
	old := t.list.Load()
	var list []renderedText
	if old != nil {
		if len(*old) >= maxRenderedTexts {
			return
		}
		list = append(list, *old...)
	}
	list = append(list, renderedText{values: values, sql: sql})
	t.list.CompareAndSwap(old, &list)
}

// literalSlot is a place in a statement's SQL where the value of slot s goes as an integer literal.
type literalSlot struct {
	at int
	s  slot
}

// newCompiledRead starts the plan of a read of the query q (rest: its text without the paging options): its
// compiler with the request's row filters, aliases and limits, the query without $top and $skiptoken, $skip.
func (p *Planner) newCompiledRead(q *syntax.Query, rest string, opts ReadOptions) (*compiledRead, error) {
	rowFilters, err := opts.Filters.parse()
	if err != nil {
		return nil, err
	}
	c := &compiler{p: p, d: p.dialect, m: p.model, aliases: q.Aliases, options: q.Options, rowFilters: rowFilters,
		reading: newReading(opts)}
	pageless := *q
	pageless.Top, pageless.SkipToken = nil, ""
	pl := &compiledRead{c: c, query: &pageless, rest: rest}
	if q.Skip != nil {
		pl.skip = *q.Skip
	}
	if err := unsupported(q, c, ""); err != nil {
		return nil, err
	}
	return pl, nil
}

// compile builds the plan of a read.
func (p *Planner) compile(s Scope, q *syntax.Query, rest string, opts ReadOptions) (*compiledRead, error) {
	pl, err := p.newCompiledRead(q, rest, opts)
	if err != nil {
		return nil, err
	}
	c := pl.c
	typ, single, err := pl.scope(p, s)
	if err != nil {
		return nil, err
	}
	pl.typ, pl.single = typ, single
	root := &tableRange{alias: "t0", typ: typ}
	if err := c.bindCompute(root, q, c.optionSpelt("$compute")); err != nil {
		return nil, err
	}
	if single {
		if err := checkSingleOptions(q); err != nil {
			return nil, err
		}
	}
	pl.where = append(pl.where, pl.scopeConds(s, root)...)
	if condition := c.rowFilter(root); condition != "" {
		pl.where = append(pl.where, condition)
	}
	if len(q.Apply) > 0 {
		applied, err := pl.compileApply(q, root, pl.where)
		if err != nil {
			return nil, err
		}
		if applied == nil {
			return pl, nil
		}
		q = applied
	}
	if q.Filter != nil {
		b := &binder{c: c, option: c.optionSpelt("$filter"), it: root}
		f, err := b.boolean(q.Filter)
		if err != nil {
			return nil, err
		}
		pl.where = append(pl.where, c.condition(f, false))
		if c.tooBig {
			return nil, &Error{Code: CodeLimitExceeded, Option: b.option, Msg: "$filter is too complex to translate"}
		}
	}
	if q.Search != nil {
		if err := pl.search(q.Search, root); err != nil {
			return nil, err
		}
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
	pl.projection = lv.projection
	pl.columns = lv.selectList
	pl.table = c.quote(typ.Table) + " AS " + c.quote(root.alias)
	for _, j := range root.joins {
		pl.joins = append(pl.joins, strings.TrimPrefix(c.joinClause(j)+c.joins(j), " "))
	}
	pl.first = pl.statement(nil, !single, pl.skip > 0)
	pl.walkStatement(single, q)
	if c.rowFilterError != nil {
		return nil, c.rowFilterError
	}
	if c.tooBig {
		return nil, &Error{Code: CodeLimitExceeded, Msg: "the query is too complex to translate"}
	}
	return pl, nil
}

// walkStatement renders the first page in the form that walks the order's index (pl.walk), where the read
// allows it: the full-text search is its only condition, it is ordered by the key alone (the planner does not
// know which other columns are indexed; without an index the walk would read the whole table) and joins
// nothing, and its $skip is below deepSkip.
func (pl *compiledRead) walkStatement(single bool, q *syntax.Query) {
	if pl.inOrder == "" || single || len(pl.where) != 1 || len(q.OrderBy) > 0 || len(pl.joins) > 0 ||
		pl.skip >= deepSkip || pl.members != nil {
		pl.inOrder, pl.matches = "", ""
		return
	}
	where := pl.where
	pl.where = []string{pl.inOrder}
	walk := pl.statement(nil, true, pl.skip > 0)
	pl.where = where
	pl.walk = &walk
}

// walkRatio weighs reading the matches against walking the order's index (see Read.UseMatches): reading and
// sorting a match costs about this many times what testing an index entry does (2.8 us against 0.5 us measured
// on SQLite, rounded down in favour of reading the matches).
const walkRatio = 4

// checkSingleOptions returns the error of the first option of q, in a fixed order, that does not apply to the read
// of a single entity.
func checkSingleOptions(q *syntax.Query) error {
	for _, name := range []string{"$filter", "$orderby", "$search", "$top", "$skip", "$count", "$apply"} {
		for _, option := range q.Options {
			if option.Name == name {
				return &Error{Code: CodeSyntax, Option: option.Spelt, Msg: name + " does not apply to a single entity"}
			}
		}
	}
	return nil
}

// unsupported rejects the options this engine does not implement.
func unsupported(q *syntax.Query, c *compiler, top string) error {
	for _, o := range q.Options {
		switch o.Name {
		case "$index":
			return &Error{Code: CodeSyntax, Option: o.Spelt, Pos: 1,
				Msg: "$index applies to a POST that inserts into an ordered collection, not to a read"}
		case "$levels", "$deltatoken", "$apply":
			if o.Name == "$apply" && top == "" {
				continue // translated by compileApply
			}
			spelt := o.Spelt
			if top != "" {
				spelt = top
			}
			return &Error{Code: CodeNotSupported, Option: spelt, Pos: 1, Msg: o.Name + " is not supported"}
		case "$at", "$from", "$to", "$toInclusive":
			return &Error{Code: CodeNotSupported, Option: o.Spelt, Pos: 1,
				Msg: o.Name + " is an option of the Temporal extension: the service keeps no history of its entities"}
		}
	}
	return nil
}

// statement renders the page SELECT with extra conditions; limit adds LIMIT (a slot), offset adds OFFSET.
func (pl *compiledRead) statement(extra []string, limit, offset bool) sqlStatement {
	c := pl.c
	from := pl.table
	if len(pl.joins) > 0 {
		from += " " + strings.Join(pl.joins, " ")
	}
	b := sq.Select(strings.Join(pl.columns, ", ")).From(from)
	if where := append(pl.where[:len(pl.where):len(pl.where)], extra...); len(where) > 0 {
		b = b.Where(strings.Join(where, " AND "))
	}
	if len(pl.orderBy) > 0 {
		b = b.OrderBy(strings.Join(pl.orderBy, ", "))
	}
	if limit && offset && pl.skip >= deepSkip && pl.members == nil {
		return pl.deepStatement(from, extra)
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
	return c.finishStatement(s)
}

// deepSkip is the $skip from which a page is read in two steps (deepStatement); a variable for the tests.
var deepSkip int64 = 1000

// deepStatement renders the page SELECT of a deep $skip in two steps: a subquery finds the keys of the page
// (conditions, order, LIMIT and OFFSET) and the outer query reads the rows of those keys, in the same order.
// The rows skipped are then only stepped over in an index that holds the order and the key, never read from
// the table: on 100,000 products, $orderby=Price desc&$skip=49900 reads 100 rows rather than 50,000 (about 4x
// faster on SQLite).
func (pl *compiledRead) deepStatement(from string, extra []string) sqlStatement {
	c := pl.c
	root := &tableRange{alias: "t0", typ: pl.typ}
	var keys []string
	for _, k := range pl.typ.KeyProperties() {
		keys = append(keys, c.columnSQL(root, k))
	}
	key := strings.Join(keys, ", ")
	if len(keys) > 1 {
		key = "(" + key + ")"
	}
	inner := sq.Select(strings.Join(keys, ", ")).From(from)
	if where := append(pl.where[:len(pl.where):len(pl.where)], extra...); len(where) > 0 {
		inner = inner.Where(strings.Join(where, " AND "))
	}
	inner = inner.OrderBy(strings.Join(pl.orderBy, ", ")).
		Suffix("LIMIT " + c.arg(slotLimit)).Suffix("OFFSET " + c.arg(slotOffset))
	innerSQL, _, err := inner.ToSql()
	if err != nil {
		panic("plan: " + err.Error())
	}
	s, _, err := sq.Select(strings.Join(pl.columns, ", ")).From(from).
		Where(key + " IN (" + innerSQL + ")").OrderBy(strings.Join(pl.orderBy, ", ")).ToSql()
	if err != nil {
		panic("plan: " + err.Error())
	}
	return c.finishStatement(s)
}

// search adds the condition of $search s on root, and the count of a full-text index that counts it alone when
// it is the read's only condition.
func (pl *compiledRead) search(s syntax.SearchExpr, root *tableRange) error {
	c := pl.c
	search, err := c.bindSearch(c.optionSpelt("$search"), root, s)
	if err != nil {
		return err
	}
	if ft, ok := search.(*boundFullText); ok && len(pl.where) == 0 && len(pl.query.Apply) == 0 {
		pl.countMatches = c.d.FullText().CountMatches(ft.index, c.param(typeString, ft.query))
		if size := c.d.FullText().Size(root.typ.Table); size != "" && pl.countMatches != "" {
			columns := make([]string, len(ft.props))
			for i, p := range ft.props {
				columns[i] = c.columnSQL(ft.r, p)
			}
			pl.inOrder = c.d.FullText().MatchInOrder(ft.index, root.alias, columns, c.param(typeString, ft.query))
			pl.matches = "SELECT (" + pl.countMatches + "), (" + size + ")"
		}
	}
	pl.where = append(pl.where, c.condition(search, false))
	return nil
}

// countStatement renders SELECT COUNT(*) with the read's conditions.
func (pl *compiledRead) countStatement() *sqlStatement {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.count != nil {
		return pl.count
	}
	if pl.countMatches != "" && len(pl.where) == 1 {
		// A $search through a full-text index that can count, and nothing else: joins are to-one
		// (LEFT JOINs of $orderby paths) and change no count.
		sql, args := pl.c.finish(pl.countMatches)
		pl.count = &sqlStatement{sql: sql, args: args}
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
	pl.count = &sqlStatement{sql: sql, args: args}
	return pl.count
}

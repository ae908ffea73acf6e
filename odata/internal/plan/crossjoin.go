package plan

import (
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// MaxCrossJoinSets is the most entity sets a $crossjoin may name. Without a $filter that joins them, the rows of a
// cross join multiply with every set, and with one each set is one more join of the statement: four sets serve a
// table of facts with three of its dimensions, and a fifth is a 400 LimitExceeded.
const MaxCrossJoinSets = 4

// Member is one entity set of a $crossjoin read (Scope.CrossJoin): where its columns are in the rows of the read
// and what they hold. Each row of the read is an instance of the cross join's complex type, with one
// navigation property per entity set, named as the set.
type Member struct {
	// Set is the entity set; its name is the navigation property's.
	Set *edm.EntitySet
	// Offset is the index (into the read's Columns) of the member's first column; its columns are
	// Columns[Offset:Offset+len(Projection.Columns)], and the indexes of Projection count from Offset.
	Offset int
	// Expanded reports whether $expand names the set: the answer has the entity (its Projection, with its own
	// expansions). Otherwise the member's columns are its key, for the navigation link to the entity.
	Expanded bool
	// Selected reports whether the answer has the member at all: $select names the set, or there is no $select.
	Selected bool
	// Projection is the shape of the member's columns (see Offset).
	Projection
}

// Members returns the entity sets of a $crossjoin read in the order of the path, nil for any other read. The
// read's Projection then has no Type; its Columns are those of the members one after the other, then the
// planner's own, and its Key the keys of all members, first set first.
func (r *Read) Members() []*Member { return r.plan.members }

// crossJoinRange is one entity set of a cross join being compiled: its range and the level of its columns.
type crossJoinRange struct {
	member *Member
	r      *tableRange
	level  *level
}

// compileCrossJoin builds the plan of $crossjoin(Set1,...,SetN): one statement over the sets' tables, each
// with its own alias (t0 for the first) and its row filter, joined by CROSS JOIN and restricted by $filter, whose
// paths start with the name of a set (Products/Price); ordered by $orderby and then by the key of every set, so
// that the order is total and keyset paging works as for an entity set.
func (p *Planner) compileCrossJoin(s Scope, q *syntax.Query, rest string, opts ReadOptions) (*compiledRead, error) {
	pl, err := p.newCompiledRead(q, rest, opts)
	if err != nil {
		return nil, err
	}
	c := pl.c
	for _, name := range []string{"$search", "$compute"} {
		for _, o := range q.Options {
			if o.Name == name {
				return nil, &Error{Code: CodeNotSupported, Option: o.Spelt, Pos: 1, Msg: name + " is not supported with $crossjoin"}
			}
		}
	}
	ranges, err := crossJoinRanges(c, s.CrossJoin)
	if err != nil {
		return nil, err
	}
	variables := make([]lambdaVariable, len(ranges))
	for i, cr := range ranges {
		variables[i] = lambdaVariable{name: cr.member.Set.Name, item: cr.r, set: true}
		if condition := c.rowFilter(cr.r); condition != "" {
			pl.where = append(pl.where, condition)
		}
	}
	if len(q.Apply) > 0 {
		rs := make([]*tableRange, len(ranges))
		for i, cr := range ranges {
			rs[i] = cr.r
		}
		if err := pl.crossJoinApply(q, rs, variables, pl.where); err != nil {
			return nil, err
		}
		return pl, nil
	}
	if q.Filter != nil {
		b := &binder{c: c, option: c.optionSpelt("$filter"), variables: variables}
		f, err := b.boolean(q.Filter)
		if err != nil {
			return nil, err
		}
		pl.where = append(pl.where, c.condition(f, false))
	}
	if err := pl.crossJoinMembers(ranges, q); err != nil {
		return nil, err
	}
	if err := pl.crossJoinOrder(ranges, variables, q); err != nil {
		return nil, err
	}
	var from []string
	for _, cr := range ranges {
		from = append(from, c.quote(cr.r.typ.Table)+" AS "+c.quote(cr.r.alias)+c.joins(cr.r))
	}
	pl.table = strings.Join(from, " CROSS JOIN ")
	pl.first = pl.statement(nil, true, pl.skip > 0)
	if c.rowFilterError != nil {
		return nil, c.rowFilterError
	}
	if c.tooBig {
		return nil, &Error{Code: CodeLimitExceeded, Msg: "the query is too complex to translate"}
	}
	return pl, nil
}

// crossJoinRanges checks the entity sets of a cross join and gives each its range: t0 for the first, then
// aliases of the compiler.
func crossJoinRanges(c *compiler, sets []*edm.EntitySet) ([]*crossJoinRange, error) {
	if len(sets) > MaxCrossJoinSets {
		return nil, &Error{Code: CodeLimitExceeded, Option: "path",
			Msg: "$crossjoin names " + strconv.Itoa(len(sets)) + " entity sets; at most " + strconv.Itoa(MaxCrossJoinSets) + " are served"}
	}
	ranges := make([]*crossJoinRange, len(sets))
	for i, es := range sets {
		for _, before := range sets[:i] {
			if before == es {
				return nil, &Error{Code: CodeSyntax, Option: "path", Msg: "$crossjoin names " + es.Name + " twice"}
			}
		}
		alias := "t0"
		if i > 0 {
			alias = c.newAlias()
		}
		r := &tableRange{alias: alias, typ: es.EntityType()}
		ranges[i] = &crossJoinRange{member: &Member{Set: es, Selected: true}, r: r, level: &level{c: c, r: r}}
	}
	return ranges, nil
}

// crossJoinMembers reads $select (the sets in the answer) and $expand (the sets whose entities it has, with
// their own $select and $expand), and lays out the columns of each member: its projection when expanded, else
// its key.
func (pl *compiledRead) crossJoinMembers(ranges []*crossJoinRange, q *syntax.Query) error {
	c := pl.c
	if q.Select != nil {
		if err := crossJoinSelect(c, ranges, q.Select); err != nil {
			return err
		}
	}
	options := map[*crossJoinRange]*syntax.Query{}
	expandOption := c.optionSpelt("$expand")
	for _, it := range q.Expand {
		expanded, err := crossJoinExpand(c, ranges, it, expandOption)
		if err != nil {
			return err
		}
		for _, cr := range expanded {
			if _, twice := options[cr]; twice {
				return &Error{Code: CodeSyntax, Option: expandOption, Pos: it.Pos + 1, Msg: cr.member.Set.Name + " is expanded twice"}
			}
			nested := it.Options
			if nested == nil {
				nested = &syntax.Query{}
			}
			options[cr] = nested
		}
	}
	if err := c.countExpands(len(options), expandOption, 1); err != nil {
		return err
	}
	projection := &Projection{}
	for _, cr := range ranges {
		m, lv := cr.member, cr.level
		if nested, ok := options[cr]; ok {
			m.Expanded = true
			if err := c.bindCompute(cr.r, nested, expandOption); err != nil {
				return err
			}
			if err := lv.project(nested, expandOption, expandOption, 1); err != nil {
				return err
			}
		} else {
			lv.projection = &Projection{Type: cr.r.typ}
			for _, k := range cr.r.typ.KeyProperties() {
				lv.projection.Key = append(lv.projection.Key, len(lv.projection.Columns))
				lv.projection.Columns = append(lv.projection.Columns, Column{Path: []*edm.Property{k}, Selected: true})
				lv.selectList = append(lv.selectList, c.columnSQL(cr.r, k))
			}
		}
		m.Offset = len(projection.Columns)
		m.Projection = *lv.projection
		for _, k := range m.Key {
			projection.Key = append(projection.Key, m.Offset+k)
		}
		projection.Columns = append(projection.Columns, lv.projection.Columns...)
		pl.columns = append(pl.columns, lv.selectList...)
		pl.members = append(pl.members, m)
	}
	pl.projection = projection
	return nil
}

// crossJoinSelect marks the members $select names: entity sets, or * for all of them.
func crossJoinSelect(c *compiler, ranges []*crossJoinRange, items []syntax.SelectItem) error {
	option := c.optionSpelt("$select")
	for _, cr := range ranges {
		cr.member.Selected = false
	}
	for _, it := range items {
		if len(it.Path) == 1 && it.Path[0].Name == "*" {
			for _, cr := range ranges {
				cr.member.Selected = true
			}
			continue
		}
		cr := crossJoinNamed(ranges, it.Path)
		if cr == nil || len(it.Path) != 1 || it.Options != nil {
			return &Error{Code: CodeUnknownProperty, Option: option, Pos: it.Pos + 1,
				Msg: "$select of a $crossjoin names its entity sets: " + pathText(it.Path) + " is none"}
		}
		cr.member.Selected = true
	}
	return nil
}

// crossJoinExpand returns the members an $expand item names: a set, or * for all; the nested options must suit
// a single entity.
func crossJoinExpand(c *compiler, ranges []*crossJoinRange, it syntax.ExpandItem, option string) ([]*crossJoinRange, error) {
	if it.Ref || it.Count {
		return nil, &Error{Code: CodeNotSupported, Option: option, Pos: it.Pos + 1, Msg: "$ref and $count of the members of a $crossjoin are not supported"}
	}
	var expanded []*crossJoinRange
	if len(it.Path) == 1 && it.Path[0].Name == "*" {
		expanded = ranges
	} else if cr := crossJoinNamed(ranges, it.Path); cr != nil && len(it.Path) == 1 {
		expanded = []*crossJoinRange{cr}
	} else {
		return nil, &Error{Code: CodeUnknownProperty, Option: option, Pos: it.Pos + 1,
			Msg: "$expand of a $crossjoin names its entity sets: " + pathText(it.Path) + " is none"}
	}
	if it.Options != nil {
		for _, o := range it.Options.Options {
			switch o.Name {
			case "$filter", "$orderby", "$top", "$skip", "$count", "$search", "$levels":
				return nil, &Error{Code: CodeSyntax, Option: option, Pos: o.Pos + 1,
					Msg: o.Name + " does not apply to a member of a $crossjoin: it is one entity"}
			}
		}
		if err := unsupported(it.Options, c, option); err != nil {
			return nil, err
		}
	}
	return expanded, nil
}

// crossJoinNamed returns the member whose set the first segment of path names, nil for none.
func crossJoinNamed(ranges []*crossJoinRange, path []syntax.Segment) *crossJoinRange {
	if len(path) == 0 || len(path[0].Args) > 0 {
		return nil
	}
	for _, cr := range ranges {
		if strings.EqualFold(cr.member.Set.Name, path[0].Name) {
			return cr
		}
	}
	return nil
}

// pathText writes a $select or $expand path as the client wrote it.
func pathText(path []syntax.Segment) string {
	names := make([]string, len(path))
	for i, s := range path {
		names[i] = s.Name
	}
	return strings.Join(names, "/")
}

// crossJoinOrder binds $orderby (paths start with a set's name) and completes the order with the key of every
// set, first set first, each value in a column of the rows for the $skiptoken.
func (pl *compiledRead) crossJoinOrder(ranges []*crossJoinRange, variables []lambdaVariable, q *syntax.Query) error {
	c := pl.c
	option := c.optionSpelt("$orderby")
	var keys []orderKey
	internal := func(sql string) int {
		pl.projection.Columns = append(pl.projection.Columns, Column{})
		pl.columns = append(pl.columns, sql)
		return len(pl.columns) - 1
	}
	for _, it := range q.OrderBy {
		b := &binder{c: c, option: option, variables: variables}
		e, err := b.expr(it.Expr)
		if err != nil {
			return err
		}
		t := e.typeOf()
		if !t.isScalar() || t.kind == edm.KindStream {
			if t.null {
				continue
			}
			return &Error{Code: CodeTypeMismatch, Option: option, Pos: it.Expr.Position() + 1, Msg: "cannot order by a value of type " + t.String()}
		}
		if isLiteral(e) {
			continue
		}
		sql, scale := c.value(e)
		keys = append(keys, orderKey{e: e, sql: sql, scale: scale, descending: it.Desc, nullable: nullable(e), column: internal(sql)})
	}
	tieDescending := len(keys) > 0 && keys[len(keys)-1].descending
	for _, cr := range ranges {
		for i, p := range cr.r.typ.KeyProperties() {
			e := &boundColumn{t: propType(p), r: cr.r, p: p}
			sql, scale := c.value(e)
			keys = append(keys, orderKey{e: e, sql: sql, scale: scale, descending: tieDescending,
				column: cr.member.Offset + cr.member.Key[i]})
		}
	}
	pl.order = keys
	hash := fnv.New32a()
	hash.Write([]byte("$crossjoin"))
	for _, cr := range ranges {
		hash.Write([]byte{0})
		hash.Write([]byte(cr.member.Set.Name))
	}
	for _, it := range q.OrderBy {
		hash.Write([]byte{0})
		hash.Write([]byte(it.Expr.String()))
		if it.Desc {
			hash.Write([]byte(" desc"))
		}
	}
	pl.fingerprint = hash.Sum32()
	pl.orderBy = orderSQL(c, keys)
	return nil
}

package plan

import (
	"slices"
	"strconv"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// The transformations that make rows of their own: aggregate, groupby (with rollup and the transformations
// within groups), concat, join and outerjoin.

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

// groupSQL is the SELECT of cols over rel grouped by groups. A grouping value with an argument (compute(Price
// mul 2 as P)/groupby((P))) is grouped by its place in the select list: written twice, its arguments would be
// two placeholders, which PostgreSQL takes for two expressions.
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
			if place := slices.Index(cols, g); place >= 0 && strings.ContainsRune(g.sql, 0) {
				list[i] = strconv.Itoa(place + 1)
			}
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
	if len(t.Sequence) > 0 && t.Sequence[0].Name == "nest" {
		return a.groupNest(rel, t)
	}
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

// concat applies each sequence to rel and puts their rows one after the other, the rows of each sequence in
// its order (Data Aggregation 4.0, 3.3.2): every column of any of them, a column absent from a sequence null
// in its rows and listed as not in them (applyCol.in), so the answer leaves it out there. Two hidden columns
// keep the order: the number of the sequence and the place of the row in it.
func (a *applier) concat(rel *applyRel, t *syntax.Transformation) (*applyRel, error) {
	var branches []*applyRel
	var final []*applyCol
	seen := map[string]int{}
	for n, seq := range t.Sequences {
		start := *rel
		b, err := a.sequence(&start, seq)
		if err != nil {
			return nil, err
		}
		b = a.materialize(b)
		branches = append(branches, b)
		for _, col := range b.cols {
			if col.hidden {
				continue
			}
			if i, ok := seen[col.path]; ok {
				if col.nested != nil || final[i].nested != nil {
					return nil, a.fail(CodeNotSupported, nil, "the sequences of concat both give %s: a nested collection is supported in one", col.path)
				}
				if have := final[i].prop; have.Type != col.prop.Type || have.Enum != col.prop.Enum {
					return nil, a.fail(CodeTypeMismatch, nil, "the sequences of concat give %s different types", col.path)
				}
				final[i].in = append(final[i].in, n)
				continue
			}
			seen[col.path] = len(final)
			p := *col.prop
			next := a.newColumn(col.path, "", &p)
			next.in, next.nested = []int{n}, col.nested
			final = append(final, next)
		}
	}
	for _, col := range final {
		if len(col.in) == len(branches) {
			col.in = nil
		}
	}
	sequence := a.newColumn("$sequence", "", &edm.Property{Type: edm.KindInt64})
	sequence.hidden, sequence.sequence = true, true
	place := a.newColumn("$place", "", &edm.Property{Type: edm.KindInt64})
	place.hidden = true
	parts := make([]string, len(branches))
	for i, b := range branches {
		list := make([]string, len(final), len(final)+2)
		for j, col := range final {
			value := a.c.d.TypedNull(storedKind(propType(col.prop)))
			for _, have := range b.cols {
				if have.path == col.path && !have.hidden {
					value = have.sql
				}
			}
			list[j] = value + " AS " + a.c.quote(col.prop.Column)
		}
		order := b.order
		if len(order) == 0 {
			order = a.columnOrder(b.cols)
		}
		if len(order) == 0 {
			order = []string{"NULL"} // the one row of a nest: no column to order by
		}
		list = append(list, strconv.Itoa(i)+" AS "+a.c.quote(sequence.prop.Column),
			"ROW_NUMBER() OVER (ORDER BY "+strings.Join(order, ", ")+") AS "+a.c.quote(place.prop.Column))
		alias := a.c.newAlias()
		parts[i] = "SELECT * FROM (" + a.render(b, strings.Join(list, ", ")) + ") AS " + a.c.quote(alias)
	}
	cols := append(final, sequence, place)
	out := a.derive(strings.Join(parts, " UNION ALL "), cols)
	out.order = a.columnOrder(out.cols[len(out.cols)-2:])
	return out, nil
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

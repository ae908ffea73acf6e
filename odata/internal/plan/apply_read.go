package plan

import (
	"strings"

	"github.com/storekit/store/odata/syntax"
)

// The read of a $apply: its result as the entities of an ordinary read, or as the aggregated rows of an
// Aggregation with the query options after it.

// compileApply translates q.Apply over the root range, whose rows the conditions where select. When the
// result is entities it adds its conditions to the read and returns the options to read them with (the
// orderby of $apply as the order when $orderby gives none); otherwise it completes pl as the read of an
// Aggregation, with $filter, $orderby, $select, $count, $top and $skip over the aggregated rows, and returns nil.
func (pl *compiledRead) compileApply(q *syntax.Query, root *tableRange, where []string) (*syntax.Query, error) {
	c := pl.c
	a := &applier{c: c, root: root, option: c.optionSpelt("$apply")}
	rel, err := a.sequence(&applyRel{r: root, entity: true, where: where}, q.Apply)
	if err != nil {
		return nil, err
	}
	if c.tooBig {
		return nil, &Error{Code: CodeLimitExceeded, Option: a.option, Msg: "$apply is too complex to translate"}
	}
	if rel.entity {
		rel = a.settled(rel)
		pl.where = rel.where
		applied := *q
		if len(q.OrderBy) == 0 {
			applied.OrderBy = rel.orderItems
		}
		applied.Expand = append(q.Expand[:len(q.Expand):len(q.Expand)], rel.expands...)
		pageless := applied
		pageless.Top, pageless.SkipToken = nil, ""
		pl.query = &pageless
		return &applied, nil
	}
	return nil, pl.aggregated(a, a.settled(rel), q)
}

// crossJoinApply translates q.Apply over the combinations of the entity sets of a $crossjoin (ranges, named
// by vars), whose rows the conditions where select; the sequence must aggregate them.
func (pl *compiledRead) crossJoinApply(q *syntax.Query, ranges []*tableRange, vars []lambdaVariable, where []string) error {
	c := pl.c
	a := &applier{c: c, root: ranges[0], option: c.optionSpelt("$apply")}
	rel, err := a.sequence(&applyRel{r: ranges[0], cross: ranges, vars: vars, where: where}, q.Apply)
	if err != nil {
		return err
	}
	if rel.cross != nil {
		return &Error{Code: CodeNotSupported, Option: a.option, Msg: "$apply on a $crossjoin is supported when it aggregates (groupby, aggregate)"}
	}
	return pl.aggregated(a, a.settled(rel), q)
}

// aggregated completes pl as the read of the aggregated rows of rel with the query options after $apply.
func (pl *compiledRead) aggregated(a *applier, rel *applyRel, q *syntax.Query) error {
	c := pl.c
	for _, o := range q.Options {
		switch o.Name {
		case "$expand", "$compute", "$search":
			return &Error{Code: CodeNotSupported, Option: o.Spelt, Pos: 1, Msg: o.Name + " after an aggregating $apply is not supported"}
		}
	}
	a.option = c.optionSpelt("$filter")
	if q.Filter != nil {
		var err error
		if rel, err = a.filter(rel, q.Filter); err != nil {
			return err
		}
	}
	a.option = c.optionSpelt("$orderby")
	if len(q.OrderBy) > 0 {
		var err error
		if rel, err = a.orderBy(rel, q.OrderBy); err != nil {
			return err
		}
	}
	order := rel.order
	if len(order) == 0 {
		order = a.columnOrder(rel.cols) // a total order for paging
	}
	visible, sequence := visibleColumns(rel.cols)
	cols := visible
	if len(q.Select) > 0 && !selectsAll(q.Select) {
		cols = nil
		for _, it := range q.Select {
			name, found := it.Path[0].Name, false
			for _, col := range visible {
				if top, _, _ := strings.Cut(col.path, "/"); top == name {
					cols, found = append(cols, col), true
				}
			}
			if !found {
				return &Error{Code: CodeUnknownProperty, Option: c.optionSpelt("$select"), Pos: it.Pos + 1,
					Msg: name + " is not a property of the aggregated result"}
			}
		}
	}
	agg, list := rowShape(cols, sequence)
	counted := *rel
	counted.order = nil
	count := "SELECT COUNT(*) FROM (" + a.render(&counted, "1") + ") AS " + c.quote(c.newAlias())
	paged := *rel
	paged.order, paged.limit, paged.offset = order, c.arg(slotLimit), c.arg(slotOffset)
	pl.first = c.finishStatement(a.render(&paged, strings.Join(list, ", ")))
	countSQL, countArgs := c.finish(count)
	pl.count = &sqlStatement{sql: countSQL, args: countArgs}
	pl.aggregation = agg
	pl.projection = &Projection{Type: pl.typ}
	if c.rowFilterError != nil {
		return c.rowFilterError
	}
	if c.tooBig {
		return &Error{Code: CodeLimitExceeded, Msg: "the query is too complex to translate"}
	}
	return nil
}

// rowShape is the Aggregation of rows of the columns cols (and the hidden column of a concat's sequence number,
// nil without), and the SQL of the values of a row, in order.
func rowShape(cols []*applyCol, sequence *applyCol) (*Aggregation, []string) {
	agg := &Aggregation{}
	list := make([]string, len(cols))
	var names []string
	nested := map[string][]string{}
	for i, col := range cols {
		agg.Columns = append(agg.Columns, AggregateColumn{Path: strings.Split(col.path, "/"), Property: col.prop, In: col.in,
			Nested: col.nested})
		list[i] = col.sql
		if col.nested != nil {
			names = append(names, col.path+"()")
			continue
		}
		top, rest, ok := strings.Cut(col.path, "/")
		if _, seen := nested[top]; !seen {
			names = append(names, top)
			nested[top] = nil
		}
		if ok {
			nested[top] = append(nested[top], rest)
		}
	}
	for i, name := range names {
		if members := nested[name]; len(members) > 0 {
			names[i] = name + "(" + strings.Join(members, ",") + ")"
		}
	}
	agg.Select = "(" + strings.Join(names, ",") + ")"
	if sequence != nil {
		agg.Sequence = true
		list = append(list, sequence.sql)
	}
	return agg, list
}

// visibleColumns are the columns of cols the answer writes, and the hidden column of a concat's sequence number
// (nil without).
func visibleColumns(cols []*applyCol) (visible []*applyCol, sequence *applyCol) {
	for _, col := range cols {
		switch {
		case col.sequence:
			sequence = col
		case !col.hidden:
			visible = append(visible, col)
		}
	}
	return visible, sequence
}

package edm

import (
	"fmt"
	"slices"
)

// navigation validates a navigation property of t, resolves its target and fills in the join's default
// columns and the referential constraints of a foreign key.
func (b *builder) navigation(t *EntityType, n *NavigationProperty) {
	where := fmt.Sprintf("entity type %q: navigation %q", t.Name, n.Name)
	reported := len(b.problems.list)
	defer func() { b.badJoin[n] = len(b.problems.list) > reported }()
	report := func(msg string) { b.problems.add(where, msg) }
	n.source, n.target, n.partner, n.constraints = t, nil, nil, nil
	checkMemberName(n.Name, report)
	n.target = b.entityTypeNamed(n.Target)
	if n.target == nil {
		report(fmt.Sprintf("target entity type %q does not exist", n.Target))
		return
	}
	if n.Collection && n.Nullable {
		report("Nullable does not apply to a collection")
	}
	j := &n.Join
	if j.Through == nil {
		directJoin(t, n, report)
	} else {
		linkJoin(t, n, report)
	}
	checkJoinColumns("join source", j.SourceColumns, report)
	checkJoinColumns("join target", j.TargetColumns, report)
	if !n.Collection && j.Through == nil && len(j.SourceColumns) == len(j.TargetColumns) {
		n.constraints = referentialConstraints(t, n)
	}
}

// directJoin fills in and checks the columns of a join without a link table: a to-many join defaults its
// source columns to the source's key, a to-one join its target columns to the target's key.
func directJoin(t *EntityType, n *NavigationProperty, report func(msg string)) {
	j := &n.Join
	if n.Collection {
		if len(j.SourceColumns) == 0 {
			j.SourceColumns = keyColumns(t)
		}
		if len(j.TargetColumns) == 0 {
			report("a to-many join needs TargetColumns (the target's columns referring to the source)")
		}
	} else {
		if len(j.TargetColumns) == 0 {
			j.TargetColumns = keyColumns(n.target)
		}
		if len(j.SourceColumns) == 0 {
			report("a to-one join needs SourceColumns (the source's foreign key columns)")
		}
	}
	if len(j.SourceColumns) > 0 && len(j.TargetColumns) > 0 && len(j.SourceColumns) != len(j.TargetColumns) {
		report(fmt.Sprintf("join has %d source columns and %d target columns", len(j.SourceColumns), len(j.TargetColumns)))
	}
}

// linkJoin fills in and checks the columns of a join through a link table; they default to the keys of the
// source and the target.
func linkJoin(t *EntityType, n *NavigationProperty, report func(msg string)) {
	j, link := &n.Join, n.Join.Through
	if len(j.SourceColumns) == 0 {
		j.SourceColumns = keyColumns(t)
	}
	if len(j.TargetColumns) == 0 {
		j.TargetColumns = keyColumns(n.target)
	}
	if !isSQLName(link.Table) {
		report(fmt.Sprintf("link table %q is not a valid table name", link.Table))
	}
	if len(link.SourceColumns) != len(j.SourceColumns) {
		report(fmt.Sprintf("link table %q has %d source columns for %d source columns of the join", link.Table, len(link.SourceColumns), len(j.SourceColumns)))
	}
	if len(link.TargetColumns) != len(j.TargetColumns) {
		report(fmt.Sprintf("link table %q has %d target columns for %d target columns of the join", link.Table, len(link.TargetColumns), len(j.TargetColumns)))
	}
	checkJoinColumns("link table", append(slices.Clone(link.SourceColumns), link.TargetColumns...), report)
}

// checkJoinColumns reports invalid and repeated column names in a list of join columns.
func checkJoinColumns(what string, columns []string, report func(msg string)) {
	seen := map[string]bool{}
	for _, c := range columns {
		if !isSQLName(c) {
			report(fmt.Sprintf("%s: %q is not a valid column name", what, c))
		}
		if seen[c] {
			report(fmt.Sprintf("%s: column %q is listed twice", what, c))
		}
		seen[c] = true
	}
}

// referentialConstraints returns the constraints of a to-one navigation whose source and target columns are
// all columns of primitive or enum properties; nil otherwise.
func referentialConstraints(t *EntityType, n *NavigationProperty) []ReferentialConstraint {
	var constraints []ReferentialConstraint
	for i, c := range n.Join.SourceColumns {
		source, target := columnProperty(t, c), columnProperty(n.target, n.Join.TargetColumns[i])
		if source == nil || target == nil {
			return nil
		}
		constraints = append(constraints, ReferentialConstraint{Property: source.Name, ReferencedProperty: target.Name})
	}
	return constraints
}

// columnProperty returns the primitive or enum property of t stored in column c.
func columnProperty(t *EntityType, c string) *Property {
	return primitiveProperty(t, func(p *Property) bool { return p.Column == c })
}

// primitiveProperty returns the first primitive or enum property of t that match accepts, nil if there is none.
func primitiveProperty(t *EntityType, match func(p *Property) bool) *Property {
	for _, p := range t.Properties {
		if p.Complex == nil && !p.Collection && match(p) {
			return p
		}
	}
	return nil
}

func (b *builder) partner(t *EntityType, n *NavigationProperty) {
	if n.Partner == "" || n.target == nil {
		return
	}
	where := fmt.Sprintf("entity type %q: navigation %q", t.Name, n.Name)
	p := n.target.navigationIndex.exact[n.Partner]
	switch {
	case p == nil:
		b.problems.add(where, fmt.Sprintf("partner %q does not exist on entity type %q", n.Partner, n.target.Name))
		return
	case p.target == nil:
		return // reported on p
	case p.target != t:
		b.problems.add(where, fmt.Sprintf("partner %q leads to %q, not back to %q", n.Partner, p.Target, t.Name))
		return
	case p.Partner != "" && p.Partner != n.Name:
		// Report only when p's own partner is valid, else the error is p's and reported there.
		if q := t.navigationIndex.exact[p.Partner]; q != nil && q.target == n.target {
			b.problems.add(where, fmt.Sprintf("partner %q names %q as its partner", n.Partner, p.Partner))
		}
		return
	}
	n.partner = p
	if b.badJoin[n] || b.badJoin[p] || b.mirrored[p] {
		return
	}
	b.mirrored[n] = true
	j, partnerJoin := n.Join, p.Join
	mirrored := slices.Equal(j.SourceColumns, partnerJoin.TargetColumns) && slices.Equal(j.TargetColumns, partnerJoin.SourceColumns)
	switch {
	case (j.Through == nil) != (partnerJoin.Through == nil):
		mirrored = false
	case j.Through != nil:
		mirrored = mirrored && j.Through.Table == partnerJoin.Through.Table &&
			slices.Equal(j.Through.SourceColumns, partnerJoin.Through.TargetColumns) &&
			slices.Equal(j.Through.TargetColumns, partnerJoin.Through.SourceColumns)
	}
	if !mirrored {
		b.problems.add(where, fmt.Sprintf("join does not mirror the join of partner %q", n.Partner))
	}
}

package plan

import (
	"slices"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/syntax"
)

// Scope names the rows a read addresses: the entity set's table, one entity of it by key, or the rows reached
// from there through navigation properties (Category('x')/Products, Customer('e')/Addresses('a'),
// Order('o')/Customer). Key predicates are given as parsed (a segment's Args of syntax.ParsePath) and are read
// afresh by every Read; the plan is cached by the scope's shape.
//
// A scope does not check that the entities along the path exist: a caller that must answer 404 for
// Category('missing')/Products reads the parent first.
type Scope struct {
	Set *edm.EntitySet
	// Singleton, when Set is nil, is the singleton the path starts at: the one row of its type's table (the
	// first in key order, should there be several).
	Singleton *edm.Singleton
	Key       []syntax.Arg // the key predicate after the set; nil for the whole set
	// Cast, when not nil, is a type cast after the set or its key predicate (Products/Ns.Special,
	// Products('k')/Ns.Special): the scope holds only the entities of that type, derived from the set's.
	Cast *edm.EntityType
	Path []Step
	// CrossJoin, when Set and Singleton are nil, are the entity sets of $crossjoin(Set1,...,SetN): the rows
	// are the combinations of their entities (see Member); Key and Path are then nil.
	CrossJoin []*edm.EntitySet
}

// Parent returns the scope of the entity the last navigation of s starts from, and false when s has no
// navigation (Category('x') for Category('x')/Products).
func (s Scope) Parent() (Scope, bool) {
	if len(s.Path) == 0 {
		return s, false
	}
	s.Path = s.Path[:len(s.Path)-1]
	return s, true
}

// Step is one navigation of a Scope, with the key predicate that follows a collection navigation, if any.
type Step struct {
	Nav *edm.NavigationProperty
	Key []syntax.Arg
	// Cast, when not nil, is a type cast after the navigation or its key predicate.
	Cast *edm.EntityType
}

func (s Scope) shape() string {
	if len(s.CrossJoin) > 0 {
		names := make([]string, len(s.CrossJoin))
		for i, es := range s.CrossJoin {
			names[i] = es.Name
		}
		return "$crossjoin(" + strings.Join(names, ",") + ")"
	}
	if len(s.Path) == 0 && s.Cast == nil {
		if s.Key != nil {
			return "()"
		}
		return ""
	}
	var b strings.Builder
	if s.Key != nil {
		b.WriteString("()")
	}
	if s.Cast != nil {
		b.WriteString("/" + s.Cast.Name)
	}
	for _, step := range s.Path {
		b.WriteByte('/')
		b.WriteString(step.Nav.Name)
		if step.Key != nil {
			b.WriteString("()")
		}
		if step.Cast != nil {
			b.WriteString("/" + step.Cast.Name)
		}
	}
	return b.String()
}

// rootType is the entity type of the scope's entity set or singleton.
func (s Scope) rootType() *edm.EntityType {
	if s.Set != nil {
		return s.Set.EntityType()
	}
	return s.Singleton.EntityType()
}

// scope resolves the entity type a scope reaches and whether it is a single entity.
func (pl *compiledRead) scope(p *Planner, s Scope) (*edm.EntityType, bool, error) {
	t := s.rootType()
	single := s.Key != nil || s.Set == nil
	if s.Key != nil {
		pl.keys = append(pl.keys, keyPredicate{typ: t, args: func(s Scope) []syntax.Arg { return s.Key }})
	}
	t, err := castTo(t, s.Cast)
	if err != nil {
		return nil, false, err
	}
	for i, step := range s.Path {
		if step.Nav == nil || t.Navigation(step.Nav.Name) != step.Nav {
			return nil, false, &Error{Code: CodeUnknownProperty, Option: "path", Msg: t.Name + " has no such navigation property"}
		}
		if !single {
			return nil, false, &Error{Code: CodeSyntax, Option: "path", Msg: "navigation " + step.Nav.Name + " needs a single entity before it"}
		}
		t = step.Nav.TargetType()
		single = !step.Nav.Collection || step.Key != nil
		if step.Key != nil {
			if !step.Nav.Collection {
				return nil, false, &Error{Code: CodeSyntax, Option: "path", Msg: step.Nav.Name + " is single-valued and takes no key"}
			}
			i := i
			pl.keys = append(pl.keys, keyPredicate{typ: t, args: func(s Scope) []syntax.Arg { return s.Path[i].Key }})
		}
		if t, err = castTo(t, step.Cast); err != nil {
			return nil, false, err
		}
	}
	return t, single, nil
}

// castTo returns the type a cast to cast leaves of entities of type t: cast itself, which must be t or derived
// from it; t when there is no cast.
func castTo(t, cast *edm.EntityType) (*edm.EntityType, error) {
	if cast == nil {
		return t, nil
	}
	if !cast.IsA(t) {
		return nil, &Error{Code: CodeTypeMismatch, Option: "path", Msg: cast.Name + " is not derived from " + t.Name}
	}
	return cast, nil
}

// scopeConds returns the conditions that restrict alias r to the rows of the scope. Key values are slots.
func (pl *compiledRead) scopeConds(s Scope, r *tableRange) []string {
	c := pl.c
	// levels[i] describes level i: 0 is the entity set, i > 0 the target of s.Path[i-1].
	type scopeLevel struct {
		typ       *edm.EntityType
		keyed     bool
		fold      bool
		firstSlot int
		parent    *edm.NavigationProperty // the navigation from level i-1
	}
	levels := []scopeLevel{{typ: castOr(s.rootType(), s.Cast), keyed: s.Key != nil}}
	for _, step := range s.Path {
		levels = append(levels, scopeLevel{typ: castOr(step.Nav.TargetType(), step.Cast), keyed: step.Key != nil, parent: step.Nav})
	}
	next := 0
	for i := range levels {
		levels[i].fold = c.p.fold[levels[i].typ]
		if levels[i].keyed {
			levels[i].firstSlot = next
			next += len(levels[i].typ.KeyProperties())
		}
	}
	keyConditions := func(l scopeLevel, alias string) []string {
		var out []string
		for j, k := range l.typ.KeyProperties() {
			v := c.param(propType(k), slot(l.firstSlot+j))
			out = append(out, modelsql.Equals(c.d, c.qualifiedColumn(alias, k.Column), v, l.fold && k.Type == edm.KindString))
		}
		return out
	}
	var conds func(i int, alias string) []string
	conds = func(i int, alias string) []string {
		l := levels[i]
		var out []string
		if l.keyed {
			out = keyConditions(l, alias)
		}
		if condition := c.typeCondition(l.typ, alias); condition != "" {
			out = append(out, condition)
		}
		if i == 0 {
			return out
		}
		nav := l.parent
		j := nav.Join
		parentLevel := levels[i-1]
		// The values the parent level contributes: its SourceColumns, read in a subquery, or directly its key
		// values when the join starts at the parent's key and the parent is addressed by key alone.
		var parentVals string
		direct := i-1 == 0 && c.rowFilters[parentLevel.typ] == nil && parentLevel.typ.Base() == nil && parentLevel.keyed && !parentLevel.fold && slices.Equal(j.SourceColumns, modelsql.KeyColumns(parentLevel.typ))
		if !direct {
			parentAlias := c.newAlias()
			subquery := "SELECT " + c.columnList(parentAlias, j.SourceColumns) + " FROM " + c.quote(parentLevel.typ.Table) + " AS " + c.quote(parentAlias)
			parentConditions := conds(i-1, parentAlias)
			if condition := c.rowFilterOfAlias(parentLevel.typ, parentAlias); condition != "" {
				parentConditions = append(parentConditions, condition)
			}
			if len(parentConditions) > 0 {
				subquery += " WHERE " + strings.Join(parentConditions, " AND ")
			}
			if i-1 == 0 && s.Set == nil {
				// A singleton is the first row of its table.
				subquery += " ORDER BY " + c.columnList(parentAlias, modelsql.KeyColumns(parentLevel.typ)) + " LIMIT 1"
			}
			parentVals = subquery
		}
		match := func(left []string) string {
			// left (columns) equal the parent's values.
			if direct {
				parts := make([]string, len(left))
				for k, column := range left {
					parts[k] = modelsql.Equals(c.d, column, c.param(propType(parentLevel.typ.KeyProperties()[k]), slot(parentLevel.firstSlot+k)), false)
				}
				return strings.Join(parts, " AND ")
			}
			return modelsql.Tuple(left) + " IN (" + parentVals + ")"
		}
		if j.Through == nil {
			left := make([]string, len(j.TargetColumns))
			for k, column := range j.TargetColumns {
				left[k] = c.qualifiedColumn(alias, column)
			}
			out = append(out, match(left))
			return out
		}
		linkAlias := c.newAlias()
		left := make([]string, len(j.Through.SourceColumns))
		for k, column := range j.Through.SourceColumns {
			left[k] = c.qualifiedColumn(linkAlias, column)
		}
		targetColumns := make([]string, len(j.TargetColumns))
		for k, column := range j.TargetColumns {
			targetColumns[k] = c.qualifiedColumn(alias, column)
		}
		out = append(out, modelsql.Tuple(targetColumns)+" IN (SELECT "+c.columnList(linkAlias, j.Through.TargetColumns)+" FROM "+
			c.quote(j.Through.Table)+" AS "+c.quote(linkAlias)+" WHERE "+match(left)+")")
		return out
	}
	return conds(len(levels)-1, r.alias)
}

// columnList is the comma-separated columns of the table aliased alias.
func (c *compiler) columnList(alias string, columns []string) string {
	return strings.Join(modelsql.Columns(c.p.names, alias, columns), ", ")
}

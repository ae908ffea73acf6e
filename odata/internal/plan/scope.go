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
	Path      []Step
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
}

func (s Scope) shape() string {
	if len(s.Path) == 0 {
		if s.Key != nil {
			return "()"
		}
		return ""
	}
	var b strings.Builder
	if s.Key != nil {
		b.WriteString("()")
	}
	for _, st := range s.Path {
		b.WriteByte('/')
		b.WriteString(st.Nav.Name)
		if st.Key != nil {
			b.WriteString("()")
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
			pl.keys = append(pl.keys, keyPredicate{typ: t, args: func(s Scope) []syntax.Arg { return s.Path[i].Key }})
		}
	}
	return t, single, nil
}

// scopeConds returns the conditions that restrict alias r to the rows of the scope. Key values are slots.
func (pl *compiledRead) scopeConds(s Scope, r *tableRange) []string {
	c := pl.c
	// levels[i] describes level i: 0 is the entity set, i > 0 the target of s.Path[i-1].
	type scopeLevel struct {
		typ    *edm.EntityType
		keyed  bool
		fold   bool
		slot0  int
		parent *edm.NavigationProperty // the navigation from level i-1
	}
	levels := []scopeLevel{{typ: s.rootType(), keyed: s.Key != nil}}
	for _, st := range s.Path {
		levels = append(levels, scopeLevel{typ: st.Nav.TargetType(), keyed: st.Key != nil, parent: st.Nav})
	}
	next := 0
	for i := range levels {
		levels[i].fold = c.p.fold[levels[i].typ]
		if levels[i].keyed {
			levels[i].slot0 = next
			next += len(levels[i].typ.KeyProperties())
		}
	}
	keyCond := func(l scopeLevel, alias string) []string {
		var out []string
		for j, k := range l.typ.KeyProperties() {
			v := c.param(propType(k), slot(l.slot0+j))
			out = append(out, modelsql.Equals(c.d, c.qualifiedColumn(alias, k.Column), v, l.fold && k.Type == edm.KindString))
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
			sub := "SELECT " + c.columnList(pa, j.SourceColumns) + " FROM " + c.quote(par.typ.Table) + " AS " + c.quote(pa)
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
				left[k] = c.qualifiedColumn(alias, col)
			}
			out = append(out, match(left))
			return out
		}
		la := c.newAlias()
		left := make([]string, len(j.Through.SourceColumns))
		for k, col := range j.Through.SourceColumns {
			left[k] = c.qualifiedColumn(la, col)
		}
		tcols := make([]string, len(j.TargetColumns))
		for k, col := range j.TargetColumns {
			tcols[k] = c.qualifiedColumn(alias, col)
		}
		out = append(out, modelsql.Tuple(tcols)+" IN (SELECT "+c.columnList(la, j.Through.TargetColumns)+" FROM "+
			c.quote(j.Through.Table)+" AS "+c.quote(la)+" WHERE "+match(left)+")")
		return out
	}
	return conds(len(levels)-1, r.alias)
}

// columnList is the comma-separated columns of the table aliased alias.
func (c *compiler) columnList(alias string, columns []string) string {
	return strings.Join(modelsql.Columns(c.p.names, alias, columns), ", ")
}

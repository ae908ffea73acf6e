package plan

import (
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// The bound tree: a syntax tree with every name resolved against the model and every node typed. The binder
// produces it; the translator turns it into SQL. Nodes are unexported; the set is closed.
type boundExpr interface {
	typeOf() boundType
}

// tableRange is a table of a FROM clause that expressions refer to: the table of the entity set being read, a table
// reached through a to-one navigation (a LEFT JOIN), the item of a lambda or $count over a collection
// navigation, or the side-table row of a lambda over a collection of primitives.
type tableRange struct {
	alias    string
	typ      *edm.EntityType // nil for a side-table item
	side     *edm.Property   // the collection property of a side-table item
	nullable bool            // the row may be missing (reached through LEFT JOINs)

	// A to-one join: the range it is joined from and the navigation.
	from      *tableRange
	nav       *edm.NavigationProperty
	linkAlias string // the link table's alias when the navigation goes through one

	joins []*tableRange // to-one joins made from this range, in order of first use

	computed []*computed // the $compute items over the range's entities (compute.go)
	// derived: the rows of an aggregating $apply (apply.go), whose only members are the computed properties.
	derived bool
}

// join returns the range of the to-one navigation nav from r, adding a LEFT JOIN the first time.
func (r *tableRange) join(c *compiler, nav *edm.NavigationProperty) *tableRange {
	for _, j := range r.joins {
		if j.nav == nav {
			return j
		}
	}
	j := &tableRange{typ: nav.TargetType(), from: r, nav: nav, nullable: true}
	if nav.Join.Through != nil {
		j.linkAlias = c.newAlias()
	}
	j.alias = c.newAlias()
	r.joins = append(r.joins, j)
	return j
}

func (r *tableRange) hasJoins() bool { return len(r.joins) > 0 }

// boundLiteral is a literal (or a constant computed at bind time) holding the Go value of its type (odata/DESIGN.md),
// nil for null.
type boundLiteral struct {
	t boundType
	v any
}

// boundColumn is a column (or the SQL expression of a computed property) of a range.
type boundColumn struct {
	t boundType
	r *tableRange
	p *edm.Property // for a member of a complex property: the member with its full column name
}

// boundItem is the value of a side-table item in a lambda over a collection of primitives.
type boundItem struct {
	t boundType
	r *tableRange
}

// boundNavigation is a single-valued navigation used as a value (only to compare it with null).
type boundNavigation struct {
	t   boundType
	r   *tableRange // the range it starts from
	nav *edm.NavigationProperty
}

// boundRange is an entity instance used as a value ($it, a lambda variable): only isof and null comparisons apply.
// With only set (cast to a derived type) it is null unless the row is an instance of that type.
type boundRange struct {
	t    boundType
	r    *tableRange
	only *edm.EntityType
}

// boundTypeTest is true when the row of a range is an instance of a type of its hierarchy (isof with an entity
// type derived from the range's): a test of the discriminator column.
type boundTypeTest struct {
	r   *tableRange
	typ *edm.EntityType
}

// boundCollection is a collection valued path: a collection navigation or a collection property of a range.
type boundCollection struct {
	t    boundType
	from *tableRange
	nav  *edm.NavigationProperty
	prop *edm.Property
}

type boundBinary struct {
	t    boundType
	op   syntax.BinaryOp
	l, r boundExpr
}

type boundNot struct{ x boundExpr }

type boundNegation struct {
	t boundType
	x boundExpr
}

type boundCall struct {
	t    boundType
	name string
	args []boundExpr
	to   edm.Kind // cast target
}

type boundIn struct {
	x          boundExpr
	items      []boundExpr
	collection *boundCollection // x in a collection of primitives
	item       *tableRange
}

type boundLambda struct {
	all    bool
	source *boundCollection
	item   *tableRange
	body   boundExpr // nil for any()
}

type boundCount struct {
	source *boundCollection
	item   *tableRange
	filter boundExpr // nil when not filtered
}

type boundHas struct {
	x boundExpr
	v int64
}

type boundCase struct {
	t     boundType
	whens []boundExpr
	thens []boundExpr
}

// boundSearch is one $search term: true when a searchable property contains it, ignoring ASCII case.
type boundSearch struct {
	r     *tableRange
	term  string
	props []*edm.Property
}

// boundFullText is a $search expression, or a part of one, that the full-text index of its range's type answers:
// true for the rows that match query, written in the syntax of the dialect's index (sqldb.FullText).
type boundFullText struct {
	r     *tableRange
	index string
	props []*edm.Property
	query string
}

// boundSlot is a value known only per request (a $skiptoken value), compared with an order-by expression whose
// representation it shares (scale, see compiler.value).
type boundSlot struct {
	t     boundType
	i     int
	scale int
}

func (e *boundLiteral) typeOf() boundType { return e.t }

func (e *boundColumn) typeOf() boundType { return e.t }

func (e *boundItem) typeOf() boundType { return e.t }

func (e *boundNavigation) typeOf() boundType { return e.t }

func (e *boundRange) typeOf() boundType { return e.t }

func (e *boundCollection) typeOf() boundType { return e.t }

func (e *boundBinary) typeOf() boundType { return e.t }

func (e *boundNot) typeOf() boundType {
	return boundType{kind: edm.KindBoolean, nullable: nullable(e.x)}
}

func (e *boundNegation) typeOf() boundType { return e.t }

func (e *boundCall) typeOf() boundType { return e.t }

func (e *boundIn) typeOf() boundType {
	return boundType{kind: edm.KindBoolean, nullable: nullable(e.x)}
}

func (e *boundLambda) typeOf() boundType { return typeBoolean }

func (e *boundCount) typeOf() boundType { return typeInt64 }

// boundSQL is a value whose SQL is made when it is bound: an aggregate of related entities or of the input set of
// a $apply transformation ($these), a scalar subquery.
type boundSQL struct {
	t     boundType
	sql   string
	scale int
}

func (e *boundSQL) typeOf() boundType { return e.t }

func (e *boundHas) typeOf() boundType {
	return boundType{kind: edm.KindBoolean, nullable: nullable(e.x)}
}

func (e *boundCase) typeOf() boundType { return e.t }

func (e *boundSearch) typeOf() boundType { return typeBoolean }

func (e *boundFullText) typeOf() boundType { return typeBoolean }

func (e *boundTypeTest) typeOf() boundType { return typeBoolean }

func (e *boundSlot) typeOf() boundType { return e.t }

func nullable(e boundExpr) bool { return e.typeOf().nullable }

func isNullLiteral(e boundExpr) bool {
	l, ok := e.(*boundLiteral)
	return ok && l.v == nil
}

package plan

import (
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// The bound tree: a syntax tree with every name resolved against the model and every node typed. The binder
// produces it; the translator turns it into SQL. Nodes are unexported; the set is closed.
type bexpr interface {
	btyp() btype
}

// rng is a table of a FROM clause that expressions refer to: the table of the entity set being read, a table
// reached through a to-one navigation (a LEFT JOIN), the item of a lambda or $count over a collection
// navigation, or the side-table row of a lambda over a collection of primitives.
type rng struct {
	alias    string
	typ      *edm.EntityType // nil for a side-table item
	side     *edm.Property   // the collection property of a side-table item
	nullable bool            // the row may be missing (reached through LEFT JOINs)

	// A to-one join: the range it is joined from and the navigation.
	from      *rng
	nav       *edm.NavigationProperty
	linkAlias string // the link table's alias when the navigation goes through one

	joins []*rng // to-one joins made from this range, in order of first use
}

// join returns the range of the to-one navigation nav from r, adding a LEFT JOIN the first time.
func (r *rng) join(c *compiler, nav *edm.NavigationProperty) *rng {
	for _, j := range r.joins {
		if j.nav == nav {
			return j
		}
	}
	j := &rng{typ: nav.TargetType(), from: r, nav: nav, nullable: true}
	if nav.Join.Through != nil {
		j.linkAlias = c.newAlias()
	}
	j.alias = c.newAlias()
	r.joins = append(r.joins, j)
	return j
}

func (r *rng) hasJoins() bool { return len(r.joins) > 0 }

// bLit is a literal (or a constant computed at bind time) holding the Go value of its type (odata/DESIGN.md),
// nil for null.
type bLit struct {
	t btype
	v any
}

// bCol is a column (or the SQL expression of a computed property) of a range.
type bCol struct {
	t btype
	r *rng
	p *edm.Property // for a member of a complex property: the member with its full column name
}

// bItem is the value of a side-table item in a lambda over a collection of primitives.
type bItem struct {
	t btype
	r *rng
}

// bNavRef is a single-valued navigation used as a value (only to compare it with null).
type bNavRef struct {
	t   btype
	r   *rng // the range it starts from
	nav *edm.NavigationProperty
}

// bRange is an entity instance used as a value ($it, a lambda variable): only isof and null comparisons apply.
type bRange struct {
	t btype
	r *rng
}

// bColl is a collection valued path: a collection navigation or a collection property of a range.
type bColl struct {
	t    btype
	from *rng
	nav  *edm.NavigationProperty
	prop *edm.Property
}

type bBin struct {
	t    btype
	op   syntax.BinaryOp
	l, r bexpr
}

type bNot struct{ x bexpr }

type bNeg struct {
	t btype
	x bexpr
}

type bCall struct {
	t    btype
	fn   string
	args []bexpr
	to   edm.Kind // cast target
}

type bIn struct {
	x     bexpr
	items []bexpr
	coll  *bColl // x in a collection of primitives
	item  *rng
}

type bLambda struct {
	all  bool
	src  *bColl
	item *rng
	body bexpr // nil for any()
}

type bCount struct {
	src    *bColl
	item   *rng
	filter bexpr // nil when not filtered
}

type bHas struct {
	x bexpr
	v int64
}

type bCase struct {
	t     btype
	whens []bexpr
	thens []bexpr
}

// bSearch is one $search term: true when a searchable property contains it, ignoring ASCII case.
type bSearch struct {
	r     *rng
	term  string
	props []*edm.Property
}

// bSlot is a value known only per request (a $skiptoken value), compared with an order-by expression whose
// representation it shares (rep, see compiler.val).
type bSlot struct {
	t   btype
	i   int
	rep int
}

func (e *bLit) btyp() btype { return e.t }

func (e *bCol) btyp() btype { return e.t }

func (e *bItem) btyp() btype { return e.t }

func (e *bNavRef) btyp() btype { return e.t }

func (e *bRange) btyp() btype { return e.t }

func (e *bColl) btyp() btype { return e.t }

func (e *bBin) btyp() btype { return e.t }

func (e *bNot) btyp() btype { return btype{kind: edm.KindBoolean, nullable: nullable(e.x)} }

func (e *bNeg) btyp() btype { return e.t }

func (e *bCall) btyp() btype { return e.t }

func (e *bIn) btyp() btype { return btype{kind: edm.KindBoolean, nullable: nullable(e.x)} }

func (e *bLambda) btyp() btype { return tBool }

func (e *bCount) btyp() btype { return tInt64 }

func (e *bHas) btyp() btype { return btype{kind: edm.KindBoolean, nullable: nullable(e.x)} }

func (e *bCase) btyp() btype { return e.t }

func (e *bSearch) btyp() btype { return tBool }

func (e *bSlot) btyp() btype { return e.t }

func nullable(e bexpr) bool { return e.btyp().nullable }

func isNullLit(e bexpr) bool {
	l, ok := e.(*bLit)
	return ok && l.v == nil
}

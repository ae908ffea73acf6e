package plan

import (
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// A complex value is no expression of its own (its members are columns), but OData lets a filter compare one
// with null: Address eq null, null ne Address, Publisher/Address eq null. The binder rewrites such a comparison
// into its members before binding it. A complex value is null when it may be (the property, or a complex
// property around it, is nullable, or the path goes through a to-one navigation, whose target may be missing)
// and every member column is null, as the service writes it: Address eq null is (Address/Street eq null and
// Address/City eq null and ...), Address ne null is (Address/Street ne null or ...). A complex value that cannot
// be null is never equal to null: Size eq null is false, Size ne null is true.

// complexNull binds n when it compares a complex value with null; ok is false for any other expression, which
// the caller binds as usual.
func (b *binder) complexNull(n *syntax.Binary) (x boundExpr, ok bool, err error) {
	if n.Op != syntax.OpEq && n.Op != syntax.OpNe {
		return nil, false, nil
	}
	path, other := memberPath(n.Left), n.Right
	if path == nil {
		path, other = memberPath(n.Right), n.Left
	}
	if path == nil || !isNullSyntax(other) {
		return nil, false, nil
	}
	start, segments := b.startType(path)
	if start == nil {
		return nil, false, nil
	}
	complexProperty, nullable := complexAt(start, segments)
	if complexProperty == nil {
		return nil, false, nil
	}
	x, err = b.expr(membersNull(n, path, complexProperty, nullable))
	return x, true, err
}

// memberPath returns e when it is a member path (not a parameter alias or $root), else nil.
func memberPath(e syntax.Expr) *syntax.Path {
	p, ok := e.(*syntax.Path)
	if !ok || p.Base == syntax.BaseAlias || p.Base == syntax.BaseRoot || len(p.Segments) == 0 {
		return nil
	}
	return p
}

// isNullSyntax reports whether e is the literal null.
func isNullSyntax(e syntax.Expr) bool {
	l, ok := e.(*syntax.Literal)
	return ok && l.Kind == syntax.LitNull
}

// startType returns the entity type a member path starts from, as the binder of paths resolves it (the instance,
// $it, $this, or a lambda variable its first segment names), and the segments that follow it; nil when the path
// starts from a collection item.
func (b *binder) startType(path *syntax.Path) (*edm.EntityType, []syntax.Segment) {
	start, segments := b.pathStart(path)
	if start == nil || start.side != nil {
		return nil, nil
	}
	return start.typ, segments
}

// complexAt returns the complex property a path of segments from entity type et ends at, through to-one
// navigations and complex properties, and whether its value may be null; nil when the path ends elsewhere or
// has segments the rewrite leaves to the binder (casts, arguments), which reports them.
func complexAt(et *edm.EntityType, segments []syntax.Segment) (*edm.Property, bool) {
	var complexProperty *edm.Property
	nullable := false
	for _, s := range segments {
		if len(s.Args) > 0 || s.IsQualified() {
			return nil, false
		}
		var p *edm.Property
		switch {
		case complexProperty != nil:
			p = complexProperty.Property(s.Name)
		case et != nil:
			p = et.Property(s.Name)
			if p == nil {
				if n := et.Navigation(s.Name); n != nil && !n.Collection {
					et, nullable = n.TargetType(), true
					continue
				}
			}
		}
		if p == nil || p.Complex == nil || p.Collection {
			return nil, false
		}
		complexProperty, et = p, nil
		nullable = nullable || p.Nullable
	}
	return complexProperty, nullable
}

// membersNull returns the comparison n (eq or ne) of the complex value at path (of the property p) with null,
// written with its members: every member null for eq, any not null for ne; a constant when it cannot be null.
func membersNull(n *syntax.Binary, path *syntax.Path, p *edm.Property, nullable bool) syntax.Expr {
	leaves := leafPaths(path, p, nil)
	if !nullable || len(leaves) == 0 {
		isNull := len(leaves) == 0 && nullable
		value := isNull == (n.Op == syntax.OpEq)
		text := "false"
		if value {
			text = "true"
		}
		return &syntax.Literal{Pos: n.Pos, Kind: syntax.LitBool, Value: value, Text: text}
	}
	join := syntax.OpAnd
	if n.Op == syntax.OpNe {
		join = syntax.OpOr
	}
	var out syntax.Expr
	for _, leaf := range leaves {
		test := &syntax.Binary{Pos: n.Pos, Op: n.Op, Left: leaf, Right: &syntax.Literal{Pos: n.Pos, Kind: syntax.LitNull, Text: "null"}}
		if out == nil {
			out = test
			continue
		}
		out = &syntax.Binary{Pos: n.Pos, Op: join, Left: out, Right: test}
	}
	return out
}

// leafPaths appends to out the paths of the primitive members of the complex property p at path, nested
// complex members' included (collections are not part of a complex value's nullness).
func leafPaths(path *syntax.Path, p *edm.Property, out []*syntax.Path) []*syntax.Path {
	last := path.Segments[len(path.Segments)-1]
	for _, m := range p.Properties() {
		if m.Collection {
			continue
		}
		member := *path
		member.Segments = append(append([]syntax.Segment(nil), path.Segments...), syntax.Segment{Pos: last.Pos, Name: m.Name})
		if m.Complex != nil {
			out = leafPaths(&member, m, out)
			continue
		}
		out = append(out, &member)
	}
	return out
}

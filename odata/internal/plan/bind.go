package plan

import (
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// maxLambdaDepth is the SPEC part 9 limit on nested any/all.
const maxLambdaDepth = 4

// maxAliasDepth bounds parameter aliases that refer to other aliases.
const maxAliasDepth = 8

// binder binds the expressions of one query option.
type binder struct {
	c      *compiler
	option string // the option as spelt, for errors
	it     *rng   // $it: the instance the option applies to
	vars   []lambdaVar
	depth  int // lambda nesting
	adepth int // alias nesting
}

type lambdaVar struct {
	name string
	item *rng
}

func (b *binder) fail(code string, node syntax.Node, format string, args ...any) *Error {
	e := errorf(code, node, format, args...)
	e.Option = b.option
	return e
}

// boolean binds a boolean expression ($filter, a lambda body, a case condition).
func (b *binder) boolean(e syntax.Expr) (bexpr, error) {
	x, err := b.expr(e)
	if err != nil {
		return nil, err
	}
	if t := x.btyp(); !t.isBool() && !t.null {
		return nil, b.fail(CodeTypeMismatch, e, "expected a Boolean expression, found %s", t)
	}
	return x, nil
}

func (b *binder) expr(e syntax.Expr) (bexpr, error) {
	switch n := e.(type) {
	case *syntax.Literal:
		return b.literal(n)
	case *syntax.Path:
		return b.path(n)
	case *syntax.Binary:
		return b.binary(n)
	case *syntax.Unary:
		return b.unary(n)
	case *syntax.Call:
		return b.call(n)
	case *syntax.Lambda:
		return b.lambda(n)
	case *syntax.Count:
		return b.count(n)
	case *syntax.Case:
		return b.caseExpr(n)
	case *syntax.List:
		return nil, b.fail(CodeTypeMismatch, n, "a list is allowed only after in")
	case *syntax.JSON:
		return nil, b.fail(CodeNotSupported, n, "JSON object literals are not supported in expressions")
	case *syntax.TypeName:
		return nil, b.fail(CodeTypeMismatch, n, "a type name is allowed only as the type argument of cast and isof")
	}
	return nil, b.fail(CodeNotSupported, e, "unsupported expression")
}

func (b *binder) literal(n *syntax.Literal) (bexpr, error) {
	t, v, err := literalValue(b.c.m, n)
	if err != nil {
		err.Option = b.option
		return nil, err
	}
	return &bLit{t: t, v: v}, nil
}

// literalValue returns the type and Go value of a literal.
func literalValue(m *edm.Model, n *syntax.Literal) (btype, any, *Error) {
	switch n.Kind {
	case syntax.LitNull:
		return tNull, nil, nil
	case syntax.LitBool:
		return tBool, n.Value, nil
	case syntax.LitInt:
		return tInt64, n.Value, nil
	case syntax.LitDecimal:
		d, err := decimal.NewFromString(n.Value.(string))
		if err != nil {
			return btype{}, nil, errorf(CodeSyntax, n, "invalid decimal %s", n.Text)
		}
		return tDecimal, d, nil
	case syntax.LitDouble:
		return tDouble, n.Value, nil
	case syntax.LitString:
		return tString, n.Value, nil
	case syntax.LitDate:
		return tDate, edm.DateOf(n.Value.(time.Time)), nil
	case syntax.LitDateTimeOffset:
		return tDateTime, n.Value.(time.Time).UTC(), nil
	case syntax.LitTimeOfDay:
		return tTime, edm.TimeOfDay(n.Value.(time.Duration)), nil
	case syntax.LitDuration:
		return tDuration, n.Value, nil
	case syntax.LitGuid:
		return primitive(edm.KindGuid), n.Value, nil
	case syntax.LitBinary:
		return primitive(edm.KindBinary), n.Value, nil
	case syntax.LitEnum:
		et := m.EnumType(n.Type)
		if et == nil {
			return btype{}, nil, errorf(CodeUnknownProperty, n, "unknown enum type %s", n.Type)
		}
		v, err := et.Parse(n.Value.(string))
		if err != nil {
			return btype{}, nil, errorf(CodeTypeMismatch, n, "%s is not a value of %s", strings.TrimPrefix(n.Text, n.Type), et.Name)
		}
		return btype{enum: et}, v, nil
	case syntax.LitGeography, syntax.LitGeometry:
		return btype{}, nil, errorf(CodeNotSupported, n, "geography and geometry values are not supported")
	}
	return btype{}, nil, errorf(CodeNotSupported, n, "unsupported literal")
}

// path binds a member path: a property, a complex member, a property through single-valued navigations, a
// lambda variable, $it, or a parameter alias.
func (b *binder) path(p *syntax.Path) (bexpr, error) {
	segs := p.Segments
	var cur *rng
	switch p.Base {
	case syntax.BaseAlias:
		if len(segs) > 0 {
			return nil, b.fail(CodeNotSupported, p, "member access on a parameter alias is not supported")
		}
		return b.alias(p)
	case syntax.BaseRoot:
		return nil, b.fail(CodeNotSupported, p, "$root paths are not supported")
	case syntax.BaseIt:
		cur = b.it
	case syntax.BaseThis:
		cur = b.it
		if len(b.vars) > 0 {
			cur = b.vars[len(b.vars)-1].item
		}
	default:
		cur = b.it
		if len(segs) > 0 {
			for i := len(b.vars) - 1; i >= 0; i-- {
				if b.vars[i].name == segs[0].Name {
					cur, segs = b.vars[i].item, segs[1:]
					break
				}
			}
		}
	}
	if cur.side != nil {
		if len(segs) > 0 {
			return nil, b.fail(CodeTypeMismatch, p, "%s is a primitive value and has no member %s", propType(cur.side).single(), segs[0].Name)
		}
		t := propType(cur.side).single()
		return &bItem{t: t, r: cur}, nil
	}
	if len(segs) == 0 {
		return &bRange{t: btype{entity: cur.typ, nullable: cur.nullable}, r: cur}, nil
	}
	var complexProp *edm.Property // the complex property being walked, if any
	for i, s := range segs {
		last := i == len(segs)-1
		if len(s.Args) > 0 {
			return nil, b.fail(CodeNotSupported, segAt(p, s), "key predicates and function calls in member paths are not supported")
		}
		if s.IsQualified() {
			if complexProp == nil && cur.typ != nil && b.isTypeName(s.Name, cur.typ.Name) {
				if last {
					return &bRange{t: btype{entity: cur.typ, nullable: cur.nullable}, r: cur}, nil
				}
				continue // a cast to the type itself
			}
			if complexProp != nil && b.isTypeName(s.Name, complexProp.Complex.Name) {
				continue
			}
			if b.c.m.EntityType(s.Name) != nil || b.c.m.ComplexType(s.Name) != nil {
				return nil, b.fail(CodeTypeMismatch, segAt(p, s), "%s is not derived from the type of the path", s.Name)
			}
			return nil, b.fail(CodeNotSupported, segAt(p, s), "bound functions and unknown types in member paths are not supported: %s", s.Name)
		}
		var prop *edm.Property
		if complexProp != nil {
			prop = complexProp.Property(s.Name)
			if prop == nil {
				return nil, b.fail(CodeUnknownProperty, segAt(p, s), "%s has no property %s", complexProp.Complex.Name, s.Name)
			}
			nullableParent := complexProp.Nullable
			if prop.Complex != nil {
				if last {
					return nil, b.fail(CodeNotSupported, segAt(p, s), "complex values cannot be used in expressions: %s", s.Name)
				}
				cp := *prop
				cp.Nullable = cp.Nullable || nullableParent
				complexProp = &cp
				continue
			}
			if !last {
				return nil, b.fail(CodeTypeMismatch, segAt(p, segs[i+1]), "%s is a primitive value and has no member %s", s.Name, segs[i+1].Name)
			}
			t := propType(prop).withNullable(prop.Nullable || nullableParent || cur.nullable)
			return &bCol{t: t, r: cur, p: prop}, nil
		}
		if prop = cur.typ.Property(s.Name); prop != nil {
			switch {
			case prop.Collection:
				if !last {
					return nil, b.fail(CodeTypeMismatch, segAt(p, segs[i+1]), "%s is a collection; use any, all or $count", s.Name)
				}
				return &bColl{t: propType(prop), from: cur, prop: prop}, nil
			case prop.Complex != nil:
				if last {
					return nil, b.fail(CodeNotSupported, segAt(p, s), "complex values cannot be used in expressions: %s", s.Name)
				}
				cp := *prop
				cp.Nullable = cp.Nullable || cur.nullable
				complexProp = &cp
				continue
			case prop.Type == edm.KindStream:
				return nil, b.fail(CodeNotSupported, segAt(p, s), "stream properties cannot be used in expressions: %s", s.Name)
			}
			if !last {
				return nil, b.fail(CodeTypeMismatch, segAt(p, segs[i+1]), "%s is a primitive value and has no member %s", s.Name, segs[i+1].Name)
			}
			return &bCol{t: propType(prop).withNullable(prop.Nullable || cur.nullable), r: cur, p: prop}, nil
		}
		nav := cur.typ.Navigation(s.Name)
		if nav == nil {
			return nil, b.fail(CodeUnknownProperty, segAt(p, s), "%s has no property %s", cur.typ.Name, s.Name)
		}
		if nav.Collection {
			if !last {
				return nil, b.fail(CodeTypeMismatch, segAt(p, segs[i+1]), "%s is a collection; use any, all or $count", s.Name)
			}
			return &bColl{t: btype{entity: nav.TargetType(), coll: true}, from: cur, nav: nav}, nil
		}
		if last {
			return &bNavRef{t: btype{entity: nav.TargetType(), nullable: true}, r: cur, nav: nav}, nil
		}
		cur = cur.join(b.c, nav)
	}
	return nil, b.fail(CodeTypeMismatch, p, "incomplete path")
}

// segAt returns a node positioned at segment s for errors.
func segAt(p *syntax.Path, s syntax.Segment) syntax.Node {
	return &syntax.Path{Pos: s.Pos, Segments: []syntax.Segment{s}}
}

// isTypeName reports whether name (simple or qualified) names the type called simple in the model's namespace.
func (b *binder) isTypeName(name, simple string) bool {
	if strings.EqualFold(name, simple) {
		return true
	}
	return strings.EqualFold(name, b.c.m.Namespace+"."+simple)
}

func (b *binder) alias(p *syntax.Path) (bexpr, error) {
	v, ok := b.c.aliases[p.Alias]
	if !ok {
		return nil, b.fail(CodeSyntax, p, "parameter alias @%s is not defined", p.Alias)
	}
	if b.adepth >= maxAliasDepth {
		return nil, b.fail(CodeLimitExceeded, p, "parameter aliases nest deeper than %d", maxAliasDepth)
	}
	saved := b.option
	b.option = b.c.optionSpelt("@" + p.Alias)
	b.adepth++
	x, err := b.expr(v)
	b.adepth--
	b.option = saved
	return x, err
}

func (b *binder) unary(n *syntax.Unary) (bexpr, error) {
	x, err := b.expr(n.X)
	if err != nil {
		return nil, err
	}
	t := x.btyp()
	if n.Op == syntax.OpNot {
		if !t.isBool() && !t.null {
			return nil, b.fail(CodeTypeMismatch, n, "not needs a Boolean operand, found %s", t)
		}
		return &bNot{x: x}, nil
	}
	if !t.isNumeric() && !(t.isScalar() && t.kind == edm.KindDuration && t.enum == nil) && !t.null {
		return nil, b.fail(CodeTypeMismatch, n, "- needs a numeric or duration operand, found %s", t)
	}
	if l, ok := x.(*bLit); ok {
		switch v := l.v.(type) {
		case int64:
			return &bLit{t: l.t, v: -v}, nil
		case float64:
			return &bLit{t: l.t, v: -v}, nil
		case decimal.Decimal:
			return &bLit{t: l.t, v: v.Neg()}, nil
		case time.Duration:
			return &bLit{t: l.t, v: -v}, nil
		case nil:
			return l, nil
		}
	}
	return &bNeg{t: t, x: x}, nil
}

func (b *binder) binary(n *syntax.Binary) (bexpr, error) {
	if n.Op == syntax.OpIn {
		return b.in(n)
	}
	l, err := b.expr(n.Left)
	if err != nil {
		return nil, err
	}
	r, err := b.expr(n.Right)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case syntax.OpAnd, syntax.OpOr:
		for i, x := range []bexpr{l, r} {
			if t := x.btyp(); !t.isBool() && !t.null {
				side := n.Left
				if i == 1 {
					side = n.Right
				}
				return nil, b.fail(CodeTypeMismatch, side, "%s needs Boolean operands, found %s", n.Op, t)
			}
		}
		return &bBin{t: btype{kind: edm.KindBoolean}, op: n.Op, l: l, r: r}, nil
	case syntax.OpEq, syntax.OpNe, syntax.OpGt, syntax.OpGe, syntax.OpLt, syntax.OpLe:
		return b.compare(n, l, r)
	case syntax.OpHas:
		return b.has(n, l, r)
	}
	return b.arith(n, l, r)
}

// unify makes the operands of a comparison (or of arithmetic, or in) the same type: a literal takes the type of
// the other side where OData allows it ('SimpleProduct' as an enum member, 'P1D' as a duration, 5 as a decimal);
// numeric operands of different kinds are promoted. It returns the converted operands and the common type.
func (b *binder) unify(node syntax.Node, what string, l, r bexpr) (bexpr, bexpr, btype, error) {
	lt, rt := l.btyp(), r.btyp()
	if lt.null && rt.null {
		return l, r, tNull, nil
	}
	for _, t := range []btype{lt, rt} {
		if t.coll || t.complex != nil {
			return nil, nil, btype{}, b.fail(CodeTypeMismatch, node, "%s cannot compare %s values", what, t)
		}
	}
	if lt.null {
		return l, r, rt, nil
	}
	if rt.null {
		return l, r, lt, nil
	}
	if lt.entity != nil || rt.entity != nil {
		return nil, nil, btype{}, b.fail(CodeTypeMismatch, node, "%s cannot compare entities except with null", what)
	}
	if ll, ok := l.(*bLit); ok {
		if _, rl := r.(*bLit); !rl {
			if v, ok := coerce(ll.v, lt, rt.withNullable(false)); ok && !(rt.isNumeric() && numRank(rt.kind) < numRank(lt.kind)) {
				l, lt = &bLit{t: rt.withNullable(false), v: v}, rt.withNullable(false)
			}
		}
	}
	if rl, ok := r.(*bLit); ok {
		if _, ll := l.(*bLit); !ll {
			if v, ok := coerce(rl.v, rt, lt.withNullable(false)); ok && !(lt.isNumeric() && numRank(lt.kind) < numRank(rt.kind)) {
				r, rt = &bLit{t: lt.withNullable(false), v: v}, lt.withNullable(false)
			}
		}
	}
	if lt.isNumeric() && rt.isNumeric() {
		k := promote(lt.kind, rt.kind)
		// Literals take the promoted kind; columns keep theirs (the translator converts them).
		for _, x := range []*bexpr{&l, &r} {
			if lit, ok := (*x).(*bLit); ok && lit.t.kind != k {
				if v, ok := coerce(lit.v, lit.t, primitive(k)); ok {
					*x = &bLit{t: primitive(k), v: v}
				}
			}
		}
		return l, r, primitive(k).withNullable(lt.nullable || rt.nullable), nil
	}
	if lt.enum != nil || rt.enum != nil {
		for _, pair := range [][2]bexpr{{l, r}, {r, l}} {
			if lit, ok := pair[1].(*bLit); ok && pair[0].btyp().enum != nil && lit.t.isString() {
				return nil, nil, btype{}, b.fail(CodeTypeMismatch, node, "%s is not a member of %s", formatLiteral(lit.v), pair[0].btyp().enum.Name)
			}
		}
		if lt.enum != rt.enum {
			return nil, nil, btype{}, b.fail(CodeTypeMismatch, node, "%s cannot compare %s with %s", what, lt, rt)
		}
		return l, r, lt.withNullable(lt.nullable || rt.nullable), nil
	}
	if lt.kind != rt.kind {
		return nil, nil, btype{}, b.fail(CodeTypeMismatch, node, "%s cannot compare %s with %s", what, lt, rt)
	}
	return l, r, lt.withNullable(lt.nullable || rt.nullable), nil
}

func (b *binder) compare(n *syntax.Binary, l, r bexpr) (bexpr, error) {
	lt, rt := l.btyp(), r.btyp()
	// A single-valued navigation or an instance compares with null only.
	for _, x := range []bexpr{l, r} {
		switch x.(type) {
		case *bNavRef, *bRange:
			other := r
			if x == r {
				other = l
			}
			if !isNullLit(other) || (n.Op != syntax.OpEq && n.Op != syntax.OpNe) {
				return nil, b.fail(CodeTypeMismatch, n, "%s compares an entity, which can only be compared with null using eq or ne", n.Op)
			}
			return &bBin{t: tBool, op: n.Op, l: l, r: r}, nil
		}
	}
	l, r, t, err := b.unify(n, n.Op.String(), l, r)
	if err != nil {
		return nil, err
	}
	if n.Op != syntax.OpEq && n.Op != syntax.OpNe && !t.null {
		if t.kind == edm.KindBinary || t.kind == edm.KindStream {
			return nil, b.fail(CodeTypeMismatch, n, "%s cannot order %s values", n.Op, t)
		}
	}
	_ = lt
	_ = rt
	return &bBin{t: btype{kind: edm.KindBoolean}, op: n.Op, l: l, r: r}, nil
}

func (b *binder) has(n *syntax.Binary, l, r bexpr) (bexpr, error) {
	lt := l.btyp()
	if lt.enum == nil || !lt.enum.Flags || !lt.isScalar() {
		return nil, b.fail(CodeTypeMismatch, n.Left, "has needs a flags enumeration on the left, found %s", lt)
	}
	lit, ok := r.(*bLit)
	if !ok {
		return nil, b.fail(CodeNotSupported, n.Right, "has needs an enumeration literal on the right")
	}
	v, ok := coerce(lit.v, lit.t, btype{enum: lt.enum})
	if !ok || v == nil {
		return nil, b.fail(CodeTypeMismatch, n.Right, "%s is not a value of %s", formatLiteral(lit.v), lt.enum.Name)
	}
	return &bHas{x: l, v: v.(int64)}, nil
}

func (b *binder) arith(n *syntax.Binary, l, r bexpr) (bexpr, error) {
	lt, rt := l.btyp(), r.btyp()
	isDur := func(t btype) bool { return t.isScalar() && t.enum == nil && t.kind == edm.KindDuration }
	isTime := func(t btype) bool {
		return t.isScalar() && t.enum == nil && (t.kind == edm.KindDate || t.kind == edm.KindDateTimeOffset || t.kind == edm.KindTimeOfDay)
	}
	switch {
	case isTime(lt) || isTime(rt):
		return nil, b.fail(CodeNotSupported, n, "%s on dates and times is not supported", n.Op)
	case (isDur(lt) || lt.null) && (isDur(rt) || rt.null || (rt.isString() && isLit(r))) && (n.Op == syntax.OpAdd || n.Op == syntax.OpSub):
		l, r, t, err := b.unify(n, n.Op.String(), l, r)
		if err != nil {
			return nil, err
		}
		return &bBin{t: t, op: n.Op, l: l, r: r}, nil
	case !(lt.isNumeric() || lt.null) || !(rt.isNumeric() || rt.null):
		bad := lt
		if lt.isNumeric() || lt.null {
			bad = rt
		}
		return nil, b.fail(CodeTypeMismatch, n, "%s needs numeric operands, found %s", n.Op, bad)
	}
	l, r, t, err := b.unify(n, n.Op.String(), l, r)
	if err != nil {
		return nil, err
	}
	if t.null {
		t = tInt64.withNullable(true)
	}
	switch n.Op {
	case syntax.OpDivBy:
		if numRank(t.kind) < 2 {
			t.kind = edm.KindDecimal
		}
	case syntax.OpMod:
		if t.kind == edm.KindDouble || t.kind == edm.KindSingle {
			return nil, b.fail(CodeNotSupported, n, "mod on floating-point values is not supported")
		}
	}
	if numRank(t.kind) == 1 {
		t.kind = edm.KindInt64
	}
	if n.Op == syntax.OpDiv || n.Op == syntax.OpDivBy || n.Op == syntax.OpMod {
		t.nullable = true // division by zero is null
	}
	return &bBin{t: t, op: n.Op, l: l, r: r}, nil
}

func isLit(e bexpr) bool { _, ok := e.(*bLit); return ok }

func (b *binder) in(n *syntax.Binary) (bexpr, error) {
	x, err := b.expr(n.Left)
	if err != nil {
		return nil, err
	}
	xt := x.btyp()
	if !xt.isScalar() && !xt.null {
		return nil, b.fail(CodeTypeMismatch, n.Left, "in needs a primitive or enumeration value on the left, found %s", xt)
	}
	switch rhs := n.Right.(type) {
	case *syntax.List:
		out := &bIn{x: x}
		for _, it := range rhs.Items {
			v, err := b.expr(it)
			if err != nil {
				return nil, err
			}
			_, lv, _, err := b.unify(it, "in", x, v)
			if err != nil {
				return nil, err
			}
			out.items = append(out.items, lv)
		}
		return out, nil
	case *syntax.Path:
		c, err := b.path(rhs)
		if err != nil {
			return nil, err
		}
		coll, ok := c.(*bColl)
		if !ok || coll.prop == nil {
			return nil, b.fail(CodeTypeMismatch, n.Right, "in needs a list or a collection of primitive values on the right")
		}
		item := &rng{alias: b.c.newAlias(), side: coll.prop}
		iv := &bItem{t: propType(coll.prop).single(), r: item}
		if _, _, _, err := b.unify(n, "in", x, iv); err != nil {
			return nil, err
		}
		if lit, ok := x.(*bLit); ok {
			if v, ok := coerce(lit.v, lit.t, iv.t); ok {
				x = &bLit{t: iv.t, v: v}
			}
		}
		return &bIn{x: x, coll: coll, item: item}, nil
	}
	return nil, b.fail(CodeTypeMismatch, n.Right, "in needs a list or a collection on the right")
}

// collection binds the path of a lambda or $count and creates the range of its items.
func (b *binder) collection(p *syntax.Path) (*bColl, *rng, error) {
	x, err := b.path(p)
	if err != nil {
		return nil, nil, err
	}
	coll, ok := x.(*bColl)
	if !ok {
		return nil, nil, b.fail(CodeTypeMismatch, p, "%s is not a collection", p)
	}
	item := &rng{alias: b.c.newAlias()}
	if coll.nav != nil {
		item.typ = coll.nav.TargetType()
	} else {
		item.side = coll.prop
	}
	return coll, item, nil
}

func (b *binder) lambda(n *syntax.Lambda) (bexpr, error) {
	coll, item, err := b.collection(n.Path)
	if err != nil {
		return nil, err
	}
	out := &bLambda{all: n.Kind == syntax.All, src: coll, item: item}
	if n.Body == nil {
		if out.all {
			return nil, b.fail(CodeSyntax, n, "all needs a lambda expression")
		}
		return out, nil
	}
	if b.depth >= maxLambdaDepth {
		return nil, &Error{Code: CodeLimitExceeded, Option: b.option, Pos: n.Pos + 1, Msg: "lambda expressions nest deeper than 4 levels"}
	}
	for _, v := range b.vars {
		if v.name == n.Var {
			return nil, b.fail(CodeSyntax, n, "lambda variable %s is already defined", n.Var)
		}
	}
	b.vars = append(b.vars, lambdaVar{name: n.Var, item: item})
	b.depth++
	body, err := b.boolean(n.Body)
	b.depth--
	b.vars = b.vars[:len(b.vars)-1]
	if err != nil {
		return nil, err
	}
	out.body = body
	return out, nil
}

func (b *binder) count(n *syntax.Count) (bexpr, error) {
	coll, item, err := b.collection(n.Path)
	if err != nil {
		return nil, err
	}
	out := &bCount{src: coll, item: item}
	if n.Options != nil {
		if item.typ == nil && (n.Options.Search != nil) {
			return nil, b.fail(CodeNotSupported, n, "$search in $count of a collection of primitives is not supported")
		}
		var conds []bexpr
		if n.Options.Filter != nil {
			nb := &binder{c: b.c, option: b.option, it: item, depth: b.depth}
			if item.side != nil {
				nb.vars = []lambdaVar{{name: "$this", item: item}}
			}
			f, err := nb.boolean(n.Options.Filter)
			if err != nil {
				return nil, err
			}
			conds = append(conds, f)
		}
		if n.Options.Search != nil {
			s, err := b.c.bindSearch(b.option, item, n.Options.Search)
			if err != nil {
				return nil, err
			}
			conds = append(conds, s)
		}
		out.filter = andAll(conds)
	}
	return out, nil
}

// andAll joins conditions with and; nil for none.
func andAll(conds []bexpr) bexpr {
	var out bexpr
	for _, c := range conds {
		if c == nil {
			continue
		}
		if out == nil {
			out = c
		} else {
			out = &bBin{t: tBool, op: syntax.OpAnd, l: out, r: c}
		}
	}
	return out
}

func (b *binder) caseExpr(n *syntax.Case) (bexpr, error) {
	out := &bCase{}
	for _, br := range n.Branches {
		w, err := b.boolean(br.When)
		if err != nil {
			return nil, err
		}
		v, err := b.expr(br.Then)
		if err != nil {
			return nil, err
		}
		if vt := v.btyp(); !vt.isScalar() && !vt.null {
			return nil, b.fail(CodeTypeMismatch, br.Then, "case needs primitive values, found %s", vt)
		}
		out.whens = append(out.whens, w)
		out.thens = append(out.thens, v)
	}
	// The result type: the type of the first value that is not a literal, else of the first literal; numeric
	// values are promoted together.
	var t btype
	found := false
	for pass := 0; pass < 2 && !found; pass++ {
		for _, v := range out.thens {
			if vt := v.btyp(); !vt.null && (pass == 1 || !isLit(v)) {
				t, found = vt, true
				break
			}
		}
	}
	if !found {
		return &bLit{t: tNull}, nil
	}
	if t.isNumeric() {
		for _, v := range out.thens {
			if vt := v.btyp(); vt.isNumeric() {
				t.kind = promote(t.kind, vt.kind)
			}
		}
		if numRank(t.kind) == 1 {
			t.kind = edm.KindInt64
		}
	}
	for i, v := range out.thens {
		vt := v.btyp()
		if vt.null {
			continue
		}
		if lit, ok := v.(*bLit); ok {
			c, ok := coerce(lit.v, vt, t.withNullable(false))
			if !ok {
				return nil, b.fail(CodeTypeMismatch, n.Branches[i].Then, "case mixes %s and %s values", t, vt)
			}
			out.thens[i] = &bLit{t: t.withNullable(false), v: c}
			continue
		}
		if !(t.isNumeric() && vt.isNumeric()) && !sameType(t.withNullable(false), vt.withNullable(false)) {
			return nil, b.fail(CodeTypeMismatch, n.Branches[i].Then, "case mixes %s and %s values", t, vt)
		}
	}
	t.nullable = true
	out.t = t
	return out, nil
}

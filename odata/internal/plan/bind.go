package plan

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// maxAliasDepth bounds parameter aliases that refer to other aliases.
const maxAliasDepth = 8

// binder binds the expressions of one query option.
type binder struct {
	c           *compiler
	option      string      // the option as spelt, for errors
	it          *tableRange // $it: the instance the option applies to
	variables   []lambdaVariable
	lambdaDepth int // lambda nesting
	aliasDepth  int // alias nesting
	// these binds $these/aggregate(...) and $these/$count: the input set of the $apply transformation being
	// bound (apply.go); nil elsewhere.
	these func(*syntax.Aggregate) (boundExpr, error)
}

type lambdaVariable struct {
	name string
	item *tableRange
	// set marks the entity set of a $crossjoin, named by the first segment of a path (without regard to case, as
	// entity sets are), which is no lambda variable: $this does not refer to it.
	set bool
}

func (b *binder) fail(code string, node syntax.Node, format string, args ...any) *Error {
	e := errorf(code, node, format, args...)
	e.Option = b.option
	return e
}

// boolean binds a boolean expression ($filter, a lambda body, a case condition).
func (b *binder) boolean(e syntax.Expr) (boundExpr, error) {
	x, err := b.expr(e)
	if err != nil {
		return nil, err
	}
	if t := x.typeOf(); !t.isBool() && !t.null {
		return nil, b.fail(CodeTypeMismatch, e, "expected a Boolean expression, found %s", t)
	}
	return x, nil
}

func (b *binder) expr(e syntax.Expr) (boundExpr, error) {
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
		if n.Path.Base == syntax.BaseThese && len(n.Path.Segments) == 0 {
			return b.aggregateOfThese(&syntax.Aggregate{Pos: n.Pos, Path: n.Path, Item: syntax.AggregateItem{Pos: n.Pos, Count: true}})
		}
		return b.count(n)
	case *syntax.Aggregate:
		return b.aggregate(n)
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

func (b *binder) literal(n *syntax.Literal) (boundExpr, error) {
	t, v, err := literalValue(b.c.m, n)
	if err == nil {
		err = databaseText(n)
	}
	if err != nil {
		err.Option = b.option
		return nil, err
	}
	return &boundLiteral{t: t, v: v}, nil
}

// databaseText refuses a string literal holding the NUL character where its value goes to the database (an
// operand of an expression, a key): no column can hold it (PostgreSQL's text cannot) and PostgreSQL refuses it
// as an argument, so every database answers the same. Elsewhere (a parameter of a function, an alias for one)
// the text is the function's.
func databaseText(n *syntax.Literal) *Error {
	if s, ok := n.Value.(string); ok && n.Kind == syntax.LitString && strings.IndexByte(s, 0) >= 0 {
		return errorf(CodeSyntax, n, "the string holds the NUL character %%00, which no database column can hold")
	}
	return nil
}

// literalValue returns the type and Go value of a literal.
func literalValue(m *edm.Model, n *syntax.Literal) (boundType, any, *Error) {
	switch n.Kind {
	case syntax.LitNull:
		return typeNull, nil, nil
	case syntax.LitBool:
		return typeBoolean, n.Value, nil
	case syntax.LitInt:
		return typeInt64, n.Value, nil
	case syntax.LitDecimal:
		d, err := decimal.NewFromString(n.Value.(string))
		if err != nil {
			return boundType{}, nil, errorf(CodeSyntax, n, "invalid decimal %s", n.Text)
		}
		return typeDecimal, d, nil
	case syntax.LitDouble:
		return typeDouble, n.Value, nil
	case syntax.LitString:
		return typeString, n.Value, nil
	case syntax.LitDate:
		return typeDate, edm.DateOf(n.Value.(time.Time)), nil
	case syntax.LitDateTimeOffset:
		return typeDateTimeOffset, n.Value.(time.Time).UTC(), nil
	case syntax.LitTimeOfDay:
		return typeTimeOfDay, edm.TimeOfDay(n.Value.(time.Duration)), nil
	case syntax.LitDuration:
		return typeDuration, n.Value, nil
	case syntax.LitGuid:
		return primitive(edm.KindGuid), n.Value, nil
	case syntax.LitBinary:
		return primitive(edm.KindBinary), n.Value, nil
	case syntax.LitEnum:
		enumType := m.EnumType(n.Type)
		if enumType == nil {
			return boundType{}, nil, errorf(CodeUnknownProperty, n, "unknown enum type %s", n.Type)
		}
		v, err := enumType.Parse(n.Value.(string))
		if err != nil {
			return boundType{}, nil, errorf(CodeTypeMismatch, n, "%s is not a value of %s", strings.TrimPrefix(n.Text, n.Type), enumType.Name)
		}
		return boundType{enum: enumType}, v, nil
	case syntax.LitGeography, syntax.LitGeometry:
		return boundType{}, nil, errorf(CodeNotSupported, n, "geography and geometry values are not supported")
	}
	return boundType{}, nil, errorf(CodeNotSupported, n, "unsupported literal")
}

// path binds a member path: a property, a complex member, a property through single-valued navigations, a
// lambda variable, $it, or a parameter alias.
func (b *binder) path(p *syntax.Path) (boundExpr, error) {
	switch p.Base {
	case syntax.BaseAlias:
		if len(p.Segments) > 0 {
			return nil, b.fail(CodeNotSupported, p, "member access on a parameter alias is not supported")
		}
		return b.alias(p)
	case syntax.BaseRoot:
		return nil, b.fail(CodeNotSupported, p, "$root paths are not supported")
	}
	if name := hierarchyFunctionName(p); name != "" {
		return b.hierarchyFunction(p, name)
	}
	start, segments := b.pathStart(p)
	if start == nil {
		return nil, b.fail(CodeUnknownProperty, p, "a path of a $crossjoin starts with the name of one of its entity sets")
	}
	if start.side != nil {
		return b.sideItem(p, start, segments)
	}
	if len(segments) == 1 && len(segments[0].Args) == 0 {
		if cp := start.computedNamed(segments[0].Name); cp != nil {
			return cp.expr, nil // a computed property: its expression
		}
	}
	if start.derived {
		return b.derivedMember(p, start, segments)
	}
	if len(segments) == 0 {
		return instance(start), nil
	}
	walk := pathWalk{segments: segments, at: start}
	for i := range segments {
		bound, err := b.segment(&walk, i)
		if bound != nil || err != nil {
			return bound, err
		}
	}
	return nil, b.fail(CodeTypeMismatch, p, "incomplete path")
}

// derivedMember binds a path on the rows of an aggregating $apply: the name of one of their columns, a path
// ("Category/Name") for a column grouped through a navigation or complex property.
func (b *binder) derivedMember(p *syntax.Path, r *tableRange, segments []syntax.Segment) (boundExpr, error) {
	names := make([]string, 0, len(segments))
	for _, s := range segments {
		if len(s.Args) > 0 {
			return nil, b.fail(CodeNotSupported, p, "functions are not supported on aggregated results")
		}
		if !s.IsQualified() {
			names = append(names, s.Name)
		}
	}
	path := strings.Join(names, "/")
	if cp := r.computedNamed(path); cp != nil {
		return cp.expr, nil
	}
	if len(segments) == 0 {
		return nil, b.fail(CodeNotSupported, p, "the aggregated rows cannot be used as a value")
	}
	return nil, b.fail(CodeUnknownProperty, p, "%s is not a property of the aggregated result", path)
}

// pathStart returns the range a path starts from and the segments that follow: $it; $this, the innermost
// lambda variable (else $it); a lambda variable named by the first segment; else $it.
func (b *binder) pathStart(p *syntax.Path) (*tableRange, []syntax.Segment) {
	segments := p.Segments
	switch p.Base {
	case syntax.BaseIt:
		return b.it, segments
	case syntax.BaseThis:
		return b.innermost(), segments
	}
	if len(segments) > 0 {
		for i := len(b.variables) - 1; i >= 0; i-- {
			if v := b.variables[i]; v.name == segments[0].Name || v.set && strings.EqualFold(v.name, segments[0].Name) {
				return b.variables[i].item, segments[1:]
			}
		}
	}
	return b.it, segments
}

// innermost is the range of the innermost lambda variable, $it outside lambdas.
func (b *binder) innermost() *tableRange {
	if n := len(b.variables); n > 0 && !b.variables[n-1].set {
		return b.variables[n-1].item
	}
	return b.it
}

// instance is the entity of range r used as a value.
func instance(r *tableRange) *boundRange {
	return &boundRange{t: boundType{entity: r.typ, nullable: r.nullable}, r: r}
}

// sideItem binds a path on the item of a lambda over a collection of primitives: the item itself, which has no
// members.
func (b *binder) sideItem(p *syntax.Path, item *tableRange, segments []syntax.Segment) (boundExpr, error) {
	t := propType(item.side).single()
	if len(segments) > 0 {
		return nil, b.fail(CodeTypeMismatch, p, "%s is a primitive value and has no member %s", t, segments[0].Name)
	}
	return &boundItem{t: t, r: item}, nil
}

// pathWalk is a member path being bound segment by segment: the range reached so far and, inside a complex
// property, that property (nullable when any step to it is).
type pathWalk struct {
	segments []syntax.Segment
	at       *tableRange
	complex  *edm.Property
	// complexStart is the segment of the entity's complex property the path is in.
	complexStart int
	// cast is the type derived from at's that a type segment cast the entity to, nil for none: the members it
	// declares follow.
	cast *edm.EntityType
}

// typ is the entity type whose members the path may name next: the cast's, else the range's.
func (w *pathWalk) typ() *edm.EntityType {
	if w.cast != nil {
		return w.cast
	}
	return w.at.typ
}

// memberPath returns the names of the path's segments from the complex property it is in to segment i, a
// member of it: "Address/City".
func (w *pathWalk) memberPath(i int) string {
	var names []string
	for _, s := range w.segments[w.complexStart : i+1] {
		if !s.IsQualified() {
			names = append(names, s.Name)
		}
	}
	return strings.Join(names, "/")
}

// last reports whether segment i ends the path.
func (w *pathWalk) last(i int) bool { return i == len(w.segments)-1 }

// segment binds segment i of a member path. It returns the bound path when the segment ends it, nil to go on.
func (b *binder) segment(w *pathWalk, i int) (boundExpr, error) {
	s := w.segments[i]
	switch {
	case len(s.Args) > 0:
		return nil, b.segmentWithArguments(w, i)
	case s.IsQualified():
		return b.typeSegment(w, i)
	case w.complex != nil:
		return b.complexMember(w, i)
	}
	if prop := w.typ().Property(s.Name); prop != nil {
		if w.cast != nil && w.at.typ.Property(s.Name) == prop {
			return nil, b.fail(CodeNotSupported, segmentAt(s), "after a cast to %s, only the properties it declares are supported: %s", w.cast.Name, s.Name)
		}
		return b.propertySegment(w, i, prop)
	}
	return b.navigationSegment(w, i)
}

// segmentWithArguments reports segment i, which has arguments. A property or navigation of the type the path
// has reached followed by a key predicate, and a function of the model, are valid OData the engine does not
// translate; any other name is an unknown function, a client error that names it.
func (b *binder) segmentWithArguments(w *pathWalk, i int) error {
	s := w.segments[i]
	if w.hasMember(s.Name) || b.c.m.FunctionOverloads(s.Name) != nil {
		return b.fail(CodeNotSupported, segmentAt(s), "key predicates and function calls in member paths are not supported")
	}
	return b.fail(CodeSyntax, segmentAt(s), "unknown function %s", s.Name)
}

// hasMember reports whether the complex property or the entity the path has reached has a member called name.
func (w *pathWalk) hasMember(name string) bool {
	if w.complex != nil {
		return w.complex.Property(name) != nil
	}
	return w.typ().Property(name) != nil || w.typ().Navigation(name) != nil
}

// typeSegment binds a qualified segment, which can only be a cast to the type the path has reached (the model
// has no derived types): it is skipped, and at the end of a path on an entity it is the instance.
func (b *binder) typeSegment(w *pathWalk, i int) (boundExpr, error) {
	s := w.segments[i]
	if w.complex == nil && w.at.typ != nil && b.isTypeName(s.Name, w.typ().Name) {
		if w.last(i) {
			return instance(w.at), nil
		}
		return nil, nil
	}
	if d := b.c.m.EntityType(s.Name); w.complex == nil && w.at.typ != nil && d != nil && d.IsA(w.typ()) {
		// A cast to a derived type: its own members follow; alone it is the instance when of that type.
		w.cast = d
		if w.last(i) {
			return &boundRange{t: boundType{entity: d, nullable: true}, r: w.at, only: d}, nil
		}
		return nil, nil
	}
	if w.complex != nil && b.isTypeName(s.Name, w.complex.Complex.Name) {
		return nil, nil
	}
	if b.c.m.EntityType(s.Name) != nil || b.c.m.ComplexType(s.Name) != nil {
		return nil, b.fail(CodeTypeMismatch, segmentAt(s), "%s is not derived from the type of the path", s.Name)
	}
	return nil, b.fail(CodeNotSupported, segmentAt(s), "bound functions and unknown types in member paths are not supported: %s", s.Name)
}

// complexMember binds a member of the complex property the path is in: a column, or a step into a nested
// complex property.
func (b *binder) complexMember(w *pathWalk, i int) (boundExpr, error) {
	s := w.segments[i]
	member := w.complex.Property(s.Name)
	if member == nil {
		return nil, b.fail(CodeUnknownProperty, segmentAt(s), "%s has no property %s (%s)", w.complex.Complex.Name, s.Name, w.memberPath(i))
	}
	if b.c.hidden(w.at.typ, member) {
		return nil, notReadable(b.option, s.Pos+1, w.at.typ, w.memberPath(i))
	}
	if member.Complex != nil {
		return nil, b.enterComplex(w, i, member, w.complex.Nullable)
	}
	if err := b.primitiveEnds(w, i); err != nil {
		return nil, err
	}
	t := propType(member).withNullable(member.Nullable || w.complex.Nullable || w.at.nullable)
	return &boundColumn{t: t, r: w.at, p: member}, nil
}

// propertySegment binds a property of the entity the path has reached: a column, a collection, or a step into a
// complex property.
func (b *binder) propertySegment(w *pathWalk, i int, prop *edm.Property) (boundExpr, error) {
	s := w.segments[i]
	if b.c.hidden(w.at.typ, prop) {
		return nil, notReadable(b.option, s.Pos+1, w.at.typ, prop.Name)
	}
	switch {
	case prop.Collection:
		if err := b.collectionEnds(w, i); err != nil {
			return nil, err
		}
		return &boundCollection{t: propType(prop), from: w.at, prop: prop}, nil
	case prop.Complex != nil:
		return nil, b.enterComplex(w, i, prop, w.at.nullable || w.cast != nil)
	case prop.Type == edm.KindStream:
		return nil, b.fail(CodeNotSupported, segmentAt(s), "stream properties cannot be used in expressions: %s", s.Name)
	}
	if err := b.primitiveEnds(w, i); err != nil {
		return nil, err
	}
	return &boundColumn{t: propType(prop).withNullable(prop.Nullable || w.at.nullable || w.cast != nil), r: w.at, p: prop}, nil
}

// navigationSegment binds a navigation property: a collection, a single-valued navigation that ends the path
// (to compare it with null), or a to-one join the path goes on through.
func (b *binder) navigationSegment(w *pathWalk, i int) (boundExpr, error) {
	s := w.segments[i]
	nav := w.typ().Navigation(s.Name)
	if nav == nil {
		return nil, b.fail(CodeUnknownProperty, segmentAt(s), "%s has no property %s", w.typ().Name, s.Name)
	}
	if w.cast != nil && w.at.typ.Navigation(s.Name) == nav {
		return nil, b.fail(CodeNotSupported, segmentAt(s), "after a cast to %s, only the navigation properties it declares are supported: %s", w.cast.Name, s.Name)
	}
	if b.c.hiddenNavigation(w.at.typ, nav) {
		return nil, notReadable(b.option, s.Pos+1, w.at.typ, nav.Name)
	}
	if nav.Collection {
		if err := b.collectionEnds(w, i); err != nil {
			return nil, err
		}
		return &boundCollection{t: boundType{entity: nav.TargetType(), collection: true}, from: w.at, nav: nav}, nil
	}
	if w.last(i) {
		return &boundNavigation{t: boundType{entity: nav.TargetType(), nullable: true}, r: w.at, nav: nav}, nil
	}
	w.at, w.cast = w.at.join(b.c, nav), nil
	return nil, nil
}

// complexOperand starts the message refusing a complex value where a value is expected: the engine does not
// serve complex values as function arguments yet (501), and no operator but eq and ne with null takes one (400,
// see binder.operand).
const complexOperand = "complex values cannot be used in expressions: "

// enterComplex steps into the complex property p at segment i, nullable when its parent is. A path cannot end
// there: complex values are not operands.
func (b *binder) enterComplex(w *pathWalk, i int, p *edm.Property, parentNullable bool) error {
	if w.last(i) {
		s := w.segments[i]
		return b.fail(CodeNotSupported, segmentAt(s), complexOperand+"%s", s.Name)
	}
	if w.complex == nil {
		w.complexStart = i
	}
	stepped := *p
	stepped.Nullable = stepped.Nullable || parentNullable
	w.complex = &stepped
	return nil
}

// primitiveEnds fails when a segment follows segment i, a primitive value.
func (b *binder) primitiveEnds(w *pathWalk, i int) error {
	if w.last(i) {
		return nil
	}
	next := w.segments[i+1]
	return b.fail(CodeTypeMismatch, segmentAt(next), "%s is a primitive value and has no member %s", w.segments[i].Name, next.Name)
}

// collectionEnds fails when a segment follows segment i, a collection (whose items any, all and $count reach).
func (b *binder) collectionEnds(w *pathWalk, i int) error {
	if w.last(i) {
		return nil
	}
	return b.fail(CodeTypeMismatch, segmentAt(w.segments[i+1]), "%s is a collection; use any, all or $count", w.segments[i].Name)
}

// segmentAt returns a node positioned at segment s for errors.
func segmentAt(s syntax.Segment) syntax.Node {
	return &syntax.Path{Pos: s.Pos, Segments: []syntax.Segment{s}}
}

// isTypeName reports whether name (simple or qualified) names the type called simple in the model's namespace.
func (b *binder) isTypeName(name, simple string) bool {
	if strings.EqualFold(name, simple) {
		return true
	}
	return strings.EqualFold(name, b.c.m.Namespace+"."+simple)
}

func (b *binder) alias(p *syntax.Path) (boundExpr, error) {
	v, ok := b.c.aliases[p.Alias]
	if !ok {
		return nil, b.fail(CodeSyntax, p, "parameter alias @%s is not defined", p.Alias)
	}
	if b.aliasDepth >= maxAliasDepth {
		return nil, b.fail(CodeLimitExceeded, p, "parameter aliases nest deeper than %d", maxAliasDepth)
	}
	saved := b.option
	b.option = b.c.optionSpelt("@" + p.Alias)
	b.aliasDepth++
	x, err := b.expr(v)
	b.aliasDepth--
	b.option = saved
	return x, err
}

func (b *binder) unary(n *syntax.Unary) (boundExpr, error) {
	x, err := b.expr(n.X)
	if err != nil {
		return nil, err
	}
	t := x.typeOf()
	if n.Op == syntax.OpNot {
		if !t.isBool() && !t.null {
			return nil, b.fail(CodeTypeMismatch, n, "not needs a Boolean operand, found %s", t)
		}
		return &boundNot{x: x}, nil
	}
	if !t.isNumericOrNull() && !t.isDuration() {
		return nil, b.fail(CodeTypeMismatch, n, "- needs a numeric or duration operand, found %s", t)
	}
	if l, ok := x.(*boundLiteral); ok {
		switch v := l.v.(type) {
		case int64:
			return &boundLiteral{t: l.t, v: -v}, nil
		case float64:
			return &boundLiteral{t: l.t, v: -v}, nil
		case decimal.Decimal:
			return &boundLiteral{t: l.t, v: v.Neg()}, nil
		case time.Duration:
			return &boundLiteral{t: l.t, v: -v}, nil
		case nil:
			return l, nil
		}
	}
	return &boundNegation{t: t, x: x}, nil
}

// operand binds an operand of the binary operator op. A complex value is a client's mistake there (400): no
// operator takes one, but eq and ne with null (complexNull).
func (b *binder) operand(e syntax.Expr, op syntax.BinaryOp) (boundExpr, error) {
	x, err := b.expr(e)
	_, isPath := e.(*syntax.Path) // the operand itself, not a function argument inside it
	var refused *Error
	if isPath && errors.As(err, &refused) && refused.Code == CodeNotSupported && strings.HasPrefix(refused.Msg, complexOperand) {
		refused.Code = CodeTypeMismatch
		refused.Msg = fmt.Sprintf("%s cannot take a complex value: %s", op, strings.TrimPrefix(refused.Msg, complexOperand))
	}
	return x, err
}

func (b *binder) binary(n *syntax.Binary) (boundExpr, error) {
	if n.Op == syntax.OpIn {
		return b.in(n)
	}
	if x, ok, err := b.complexNull(n); ok {
		return x, err
	}
	l, err := b.operand(n.Left, n.Op)
	if err != nil {
		return nil, err
	}
	r, err := b.operand(n.Right, n.Op)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case syntax.OpAnd, syntax.OpOr:
		for i, x := range []boundExpr{l, r} {
			if t := x.typeOf(); !t.isBool() && !t.null {
				side := n.Left
				if i == 1 {
					side = n.Right
				}
				return nil, b.fail(CodeTypeMismatch, side, "%s needs Boolean operands, found %s", n.Op, t)
			}
		}
		return &boundBinary{t: boundType{kind: edm.KindBoolean}, op: n.Op, l: l, r: r}, nil
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
func (b *binder) unify(node syntax.Node, what string, l, r boundExpr) (boundExpr, boundExpr, boundType, error) {
	leftType, rightType := l.typeOf(), r.typeOf()
	if leftType.null && rightType.null {
		return l, r, typeNull, nil
	}
	for _, t := range [2]boundType{leftType, rightType} {
		if t.collection || t.complex != nil {
			return nil, nil, boundType{}, b.fail(CodeTypeMismatch, node, "%s cannot compare %s values", what, t)
		}
	}
	switch {
	case leftType.null:
		return l, r, rightType, nil
	case rightType.null:
		return l, r, leftType, nil
	case leftType.entity != nil || rightType.entity != nil:
		return nil, nil, boundType{}, b.fail(CodeTypeMismatch, node, "%s cannot compare entities except with null", what)
	}
	l = adoptType(l, r)
	r = adoptType(r, l)
	leftType, rightType = l.typeOf(), r.typeOf()
	switch {
	case leftType.isNumeric() && rightType.isNumeric():
		kind := promote(leftType.kind, rightType.kind)
		return literalOfKind(l, kind), literalOfKind(r, kind), primitive(kind).withNullable(leftType.nullable || rightType.nullable), nil
	case leftType.enum != nil || rightType.enum != nil:
		if err := b.checkEnums(node, what, l, r); err != nil {
			return nil, nil, boundType{}, err
		}
	case leftType.kind != rightType.kind:
		return nil, nil, boundType{}, b.fail(CodeTypeMismatch, node, "%s cannot compare %s with %s", what, leftType, rightType)
	}
	return l, r, leftType.withNullable(leftType.nullable || rightType.nullable), nil
}

// adoptType gives the literal e the type of other, an operand that is not a literal, where OData lets the literal
// stand for a value of that type; a numeric literal is never narrowed. Any other e is returned as it is.
func adoptType(e, other boundExpr) boundExpr {
	literal, ok := e.(*boundLiteral)
	if !ok || isLiteral(other) {
		return e
	}
	to := other.typeOf().withNullable(false)
	if to.isNumeric() && numericRank(to.kind) < numericRank(literal.t.kind) {
		return e
	}
	v, ok := coerce(literal.v, literal.t, to)
	if !ok {
		return e
	}
	return &boundLiteral{t: to, v: v}
}

// literalOfKind converts a numeric literal to kind, the kind numeric operands are promoted to; other operands
// keep their kind (the translator converts them).
func literalOfKind(e boundExpr, kind edm.Kind) boundExpr {
	literal, ok := e.(*boundLiteral)
	if !ok || literal.t.kind == kind {
		return e
	}
	if v, ok := coerce(literal.v, literal.t, primitive(kind)); ok {
		return &boundLiteral{t: primitive(kind), v: v}
	}
	return e
}

// checkEnums checks operands of which one at least is an enumeration value: both must be of the same
// enumeration, and a string literal that is not one of its members says so.
func (b *binder) checkEnums(node syntax.Node, what string, l, r boundExpr) error {
	for _, pair := range [2][2]boundExpr{{l, r}, {r, l}} {
		enum := pair[0].typeOf().enum
		if literal, ok := pair[1].(*boundLiteral); ok && enum != nil && literal.t.isString() {
			return b.fail(CodeTypeMismatch, node, "%s is not a member of %s", formatLiteral(literal.v), enum.Name)
		}
	}
	if leftType, rightType := l.typeOf(), r.typeOf(); leftType.enum != rightType.enum {
		return b.fail(CodeTypeMismatch, node, "%s cannot compare %s with %s", what, leftType, rightType)
	}
	return nil
}

func (b *binder) compare(n *syntax.Binary, l, r boundExpr) (boundExpr, error) {
	// A single-valued navigation or an instance compares with null only.
	for _, x := range [2]boundExpr{l, r} {
		switch x.(type) {
		case *boundNavigation, *boundRange:
			other := r
			if x == r {
				other = l
			}
			if !isNullLiteral(other) || (n.Op != syntax.OpEq && n.Op != syntax.OpNe) {
				return nil, b.fail(CodeTypeMismatch, n, "%s compares an entity, which can only be compared with null using eq or ne", n.Op)
			}
			return &boundBinary{t: typeBoolean, op: n.Op, l: l, r: r}, nil
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
	return &boundBinary{t: boundType{kind: edm.KindBoolean}, op: n.Op, l: l, r: r}, nil
}

func (b *binder) has(n *syntax.Binary, l, r boundExpr) (boundExpr, error) {
	leftType := l.typeOf()
	if leftType.enum == nil || !leftType.enum.Flags || !leftType.isScalar() {
		return nil, b.fail(CodeTypeMismatch, n.Left, "has needs a flags enumeration on the left, found %s", leftType)
	}
	literal, ok := r.(*boundLiteral)
	if !ok {
		return nil, b.fail(CodeNotSupported, n.Right, "has needs an enumeration literal on the right")
	}
	v, ok := coerce(literal.v, literal.t, boundType{enum: leftType.enum})
	if !ok || v == nil {
		return nil, b.fail(CodeTypeMismatch, n.Right, "%s is not a value of %s", formatLiteral(literal.v), leftType.enum.Name)
	}
	return &boundHas{x: l, v: v.(int64)}, nil
}

// arith binds arithmetic: on numbers, and add and sub on durations; not on dates and times.
func (b *binder) arith(n *syntax.Binary, l, r boundExpr) (boundExpr, error) {
	leftType, rightType := l.typeOf(), r.typeOf()
	switch {
	case leftType.isDateOrTime() || rightType.isDateOrTime():
		return nil, b.fail(CodeNotSupported, n, "%s on dates and times is not supported", n.Op)
	case isDurationArithmetic(n.Op, l, r):
		l, r, t, err := b.unify(n, n.Op.String(), l, r)
		if err != nil {
			return nil, err
		}
		return &boundBinary{t: t, op: n.Op, l: l, r: r}, nil
	case !leftType.isNumericOrNull():
		return nil, b.fail(CodeTypeMismatch, n, "%s needs numeric operands, found %s", n.Op, leftType)
	case !rightType.isNumericOrNull():
		return nil, b.fail(CodeTypeMismatch, n, "%s needs numeric operands, found %s", n.Op, rightType)
	}
	l, r, t, err := b.unify(n, n.Op.String(), l, r)
	if err != nil {
		return nil, err
	}
	if t, err = b.arithmeticType(n, t); err != nil {
		return nil, err
	}
	return &boundBinary{t: t, op: n.Op, l: l, r: r}, nil
}

// isDurationArithmetic reports whether l op r adds or subtracts durations (one may be a duration string literal,
// either null).
func isDurationArithmetic(op syntax.BinaryOp, l, r boundExpr) bool {
	if op != syntax.OpAdd && op != syntax.OpSub {
		return false
	}
	leftType, rightType := l.typeOf(), r.typeOf()
	return (leftType.isDuration() || leftType.null) && (rightType.isDuration() || rightType.null || (rightType.isString() && isLiteral(r)))
}

// arithmeticType is the type of numeric arithmetic whose operands have the common type t: integers compute in
// Int64 and divby of integers in Decimal; div, divby and mod are null on division by zero; mod on floating
// point is not supported.
func (b *binder) arithmeticType(n *syntax.Binary, t boundType) (boundType, error) {
	if t.null {
		t = typeInt64.withNullable(true)
	}
	switch n.Op {
	case syntax.OpDivBy:
		if numericRank(t.kind) < 2 {
			t.kind = edm.KindDecimal
		}
		t.nullable = true
	case syntax.OpMod:
		if t.kind == edm.KindDouble || t.kind == edm.KindSingle {
			return boundType{}, b.fail(CodeNotSupported, n, "mod on floating-point values is not supported")
		}
		t.nullable = true
	case syntax.OpDiv:
		t.nullable = true
	}
	if numericRank(t.kind) == 1 {
		t.kind = edm.KindInt64
	}
	return t, nil
}

func isLiteral(e boundExpr) bool { _, ok := e.(*boundLiteral); return ok }

func (b *binder) in(n *syntax.Binary) (boundExpr, error) {
	x, err := b.expr(n.Left)
	if err != nil {
		return nil, err
	}
	valueType := x.typeOf()
	if !valueType.isScalar() && !valueType.null {
		return nil, b.fail(CodeTypeMismatch, n.Left, "in needs a primitive or enumeration value on the left, found %s", valueType)
	}
	switch right := n.Right.(type) {
	case *syntax.List:
		if len(right.Items) == 0 {
			// OData Part 2, 5.1.1.1.12: a list of one or more values.
			return nil, b.fail(CodeSyntax, right, "in needs a list of one or more values")
		}
		out := &boundIn{x: x}
		for _, it := range right.Items {
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
		bound, err := b.path(right)
		if err != nil {
			return nil, err
		}
		collection, ok := bound.(*boundCollection)
		if !ok || collection.prop == nil {
			return nil, b.fail(CodeTypeMismatch, n.Right, "in needs a list or a collection of primitive values on the right")
		}
		item := &tableRange{alias: b.c.newAlias(), side: collection.prop}
		itemValue := &boundItem{t: propType(collection.prop).single(), r: item}
		if _, _, _, err := b.unify(n, "in", x, itemValue); err != nil {
			return nil, err
		}
		if literal, ok := x.(*boundLiteral); ok {
			if v, ok := coerce(literal.v, literal.t, itemValue.t); ok {
				x = &boundLiteral{t: itemValue.t, v: v}
			}
		}
		return &boundIn{x: x, collection: collection, item: item}, nil
	}
	return nil, b.fail(CodeTypeMismatch, n.Right, "in needs a list or a collection on the right")
}

// collection binds the path of a lambda or $count and creates the range of its items.
func (b *binder) collection(p *syntax.Path) (*boundCollection, *tableRange, error) {
	x, err := b.path(p)
	if err != nil {
		return nil, nil, err
	}
	collection, ok := x.(*boundCollection)
	if !ok {
		return nil, nil, b.fail(CodeTypeMismatch, p, "%s is not a collection", p)
	}
	item := &tableRange{alias: b.c.newAlias()}
	if collection.nav != nil {
		item.typ = collection.nav.TargetType()
	} else {
		item.side = collection.prop
	}
	return collection, item, nil
}

func (b *binder) lambda(n *syntax.Lambda) (boundExpr, error) {
	collection, item, err := b.collection(n.Path)
	if err != nil {
		return nil, err
	}
	out := &boundLambda{all: n.Kind == syntax.All, source: collection, item: item}
	if n.Body == nil {
		if out.all {
			return nil, b.fail(CodeSyntax, n, "all needs a lambda expression")
		}
		return out, nil
	}
	if limit := b.c.query.LambdaDepth; limit > 0 && !b.c.inRowFilter && b.lambdaDepth >= limit {
		return nil, &Error{Code: CodeLimitExceeded, Option: b.option, Pos: n.Pos + 1, Msg: "lambda expressions nest deeper than " + strconv.Itoa(limit) + " levels"}
	}
	for _, v := range b.variables {
		if v.name == n.Var {
			return nil, b.fail(CodeSyntax, n, "lambda variable %s is already defined", n.Var)
		}
	}
	b.variables = append(b.variables, lambdaVariable{name: n.Var, item: item})
	b.lambdaDepth++
	body, err := b.boolean(n.Body)
	b.lambdaDepth--
	b.variables = b.variables[:len(b.variables)-1]
	if err != nil {
		return nil, err
	}
	out.body = body
	return out, nil
}

func (b *binder) count(n *syntax.Count) (boundExpr, error) {
	collection, item, err := b.collection(n.Path)
	if err != nil {
		return nil, err
	}
	out := &boundCount{source: collection, item: item}
	if n.Options != nil {
		if item.typ == nil && (n.Options.Search != nil) {
			return nil, b.fail(CodeNotSupported, n, "$search in $count of a collection of primitives is not supported")
		}
		var conds []boundExpr
		if n.Options.Filter != nil {
			nested := &binder{c: b.c, option: b.option, it: item, lambdaDepth: b.lambdaDepth}
			if item.side != nil {
				nested.variables = []lambdaVariable{{name: "$this", item: item}}
			}
			f, err := nested.boolean(n.Options.Filter)
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
func andAll(conds []boundExpr) boundExpr {
	var out boundExpr
	for _, c := range conds {
		if c == nil {
			continue
		}
		if out == nil {
			out = c
		} else {
			out = &boundBinary{t: typeBoolean, op: syntax.OpAnd, l: out, r: c}
		}
	}
	return out
}

func (b *binder) caseExpr(n *syntax.Case) (boundExpr, error) {
	out := &boundCase{}
	for _, branch := range n.Branches {
		w, err := b.boolean(branch.When)
		if err != nil {
			return nil, err
		}
		v, err := b.expr(branch.Then)
		if err != nil {
			return nil, err
		}
		if valueType := v.typeOf(); !valueType.isScalar() && !valueType.null {
			return nil, b.fail(CodeTypeMismatch, branch.Then, "case needs primitive values, found %s", valueType)
		}
		out.whens = append(out.whens, w)
		out.thens = append(out.thens, v)
	}
	// The result type: the type of the first value that is not a literal, else of the first literal; numeric
	// values are promoted together.
	var t boundType
	found := false
	for pass := 0; pass < 2 && !found; pass++ {
		for _, v := range out.thens {
			if valueType := v.typeOf(); !valueType.null && (pass == 1 || !isLiteral(v)) {
				t, found = valueType, true
				break
			}
		}
	}
	if !found {
		return &boundLiteral{t: typeNull}, nil
	}
	if t.isNumeric() {
		for _, v := range out.thens {
			if valueType := v.typeOf(); valueType.isNumeric() {
				t.kind = promote(t.kind, valueType.kind)
			}
		}
		if numericRank(t.kind) == 1 {
			t.kind = edm.KindInt64
		}
	}
	for i, v := range out.thens {
		valueType := v.typeOf()
		if valueType.null {
			continue
		}
		if literal, ok := v.(*boundLiteral); ok {
			c, ok := coerce(literal.v, valueType, t.withNullable(false))
			if !ok {
				return nil, b.fail(CodeTypeMismatch, n.Branches[i].Then, "case mixes %s and %s values", t, valueType)
			}
			out.thens[i] = &boundLiteral{t: t.withNullable(false), v: c}
			continue
		}
		if !(t.isNumeric() && valueType.isNumeric()) && !sameType(t.withNullable(false), valueType.withNullable(false)) {
			return nil, b.fail(CodeTypeMismatch, n.Branches[i].Then, "case mixes %s and %s values", t, valueType)
		}
	}
	t.nullable = true
	out.t = t
	return out, nil
}

// aggregate binds Path/aggregate(...): the aggregate of the entities (or primitive items) the collection Path
// reaches from each instance, a scalar subquery; $these/aggregate(...) is the aggregate of the input set of the
// $apply transformation being bound.
func (b *binder) aggregate(n *syntax.Aggregate) (boundExpr, error) {
	if n.Path.Base == syntax.BaseThese {
		return b.aggregateOfThese(n)
	}
	if n.Path.Base == syntax.BaseImplicit && len(n.Path.Segments) == 0 {
		return nil, b.fail(CodeTypeMismatch, n, "aggregate needs the collection it aggregates before it: Path/aggregate(...) or $these/aggregate(...)")
	}
	collection, item, err := b.collection(n.Path)
	if err != nil {
		return nil, err
	}
	nested := &binder{c: b.c, option: b.option, it: item, lambdaDepth: b.lambdaDepth}
	if item.side != nil {
		nested.variables = []lambdaVariable{{name: "$this", item: item}}
	}
	a, err := nested.aggregation(n, &n.Item)
	if err != nil {
		return nil, err
	}
	return &boundSQL{t: a.t, sql: "(" + b.c.subquery(a.sql, collection, item, "", true) + ")", scale: a.scale}, nil
}

// aggregateOfThese binds $these/aggregate(...) and $these/$count through the $apply transformation being bound.
func (b *binder) aggregateOfThese(n *syntax.Aggregate) (boundExpr, error) {
	if b.these == nil {
		return nil, b.fail(CodeNotSupported, n, "$these is the input set of a $apply transformation: it is supported in compute and filter of $apply")
	}
	return b.these(n)
}

// aggregationResult is the SQL of an aggregation method over a bound value and its result's type and
// representation; input is the type of the value aggregated.
type aggregationResult struct {
	sql   string
	t     boundType
	scale int
	input boundType
}

// aggregation binds the value of an aggregate item (without its alias) on the binder's range and applies its
// method: sum (Int64 of integers, the decimal's own representation, Double of floats), min and max (the value's
// type), average (in double precision: the same digits on every database), countdistinct and $count (Int64),
// and a path ending in /$count without method (the sum of each instance's count, 0 for none).
func (b *binder) aggregation(node syntax.Node, item *syntax.AggregateItem) (aggregationResult, error) {
	c := b.c
	if item.Count {
		return aggregationResult{sql: c.d.Cast("COUNT(*)", edm.KindInt64), t: typeInt64, scale: c.exactScale(typeInt64, 0)}, nil
	}
	if len(item.From) > 0 {
		return aggregationResult{}, b.fail(CodeNotSupported, item.Expr, "aggregation with from is not supported")
	}
	e, err := b.expr(item.Expr)
	if err != nil {
		return aggregationResult{}, err
	}
	t := e.typeOf()
	if _, ok := e.(*boundCount); ok && item.Method == "" {
		sql, _ := c.value(e)
		return aggregationResult{sql: "COALESCE(" + c.d.Cast("SUM("+sql+")", edm.KindInt64) + ", 0)", t: typeInt64, input: t,
			scale: c.exactScale(typeInt64, 0)}, nil
	}
	if err := b.checkAggregationMethod(item, t); err != nil {
		return aggregationResult{}, err
	}
	sql, scale := c.value(e)
	if scale == textScale && (item.Method == "sum" || item.Method == "average") {
		return aggregationResult{}, b.fail(CodeNotSupported, item.Expr, "%s of a decimal kept as text is not supported", item.Method)
	}
	out := aggregationResult{input: t, scale: -1}
	switch item.Method {
	case "countdistinct":
		out.sql, out.t = c.d.Cast("COUNT(DISTINCT "+sql+")", edm.KindInt64), typeInt64
	case "average":
		out.sql, out.t = "AVG("+c.d.Cast(c.asReal(sql, scale), edm.KindDouble)+")", typeDouble
	case "sum":
		switch t.kind {
		case edm.KindDecimal:
			out.sql, out.t, out.scale = "SUM("+sql+")", typeDecimal, scale
		case edm.KindDouble, edm.KindSingle:
			out.sql, out.t = "SUM("+sql+")", typeDouble
		default:
			out.sql, out.t = c.d.Cast("SUM("+sql+")", edm.KindInt64), typeInt64
		}
	default:
		switch {
		case t.isString():
			sql = c.d.CollateBinary(sql)
		case scale == textScale:
			sql = c.d.CollateDecimal(sql)
		}
		out.sql, out.t, out.scale = strings.ToUpper(item.Method)+"("+sql+")", t.withNullable(true), scale
	}
	out.t = out.t.withNullable(item.Method != "countdistinct") // no value to aggregate: null, but a count is 0
	if out.scale == -1 && out.t.kind == edm.KindInt64 {
		out.scale = c.exactScale(typeInt64, 0)
	}
	return out, nil
}

// checkAggregationMethod returns the error of an aggregation method that does not apply to a value of type t:
// none (a custom aggregate), sum and average of other than numbers, min and max of other than primitive
// values but binary ones, countdistinct of other than primitive values, and a method the engine does not know.
func (b *binder) checkAggregationMethod(item *syntax.AggregateItem, t boundType) error {
	switch item.Method {
	case "":
		return b.fail(CodeSyntax, item.Expr, "%s is not a custom aggregate (the model declares none): name an aggregation method (with sum, min, max, average or countdistinct)",
			fmt.Sprint(item.Expr))
	case "sum", "average":
		if !t.isNumeric() {
			return b.fail(CodeTypeMismatch, item.Expr, "%s needs a number, not %s", item.Method, t)
		}
	case "min", "max":
		if !t.isScalar() || t.kind == edm.KindStream || t.kind == edm.KindBinary {
			return b.fail(CodeTypeMismatch, item.Expr, "%s needs a primitive value, not %s", item.Method, t)
		}
	case "countdistinct":
		if !t.isScalar() {
			return b.fail(CodeTypeMismatch, item.Expr, "countdistinct needs a primitive value, not %s", t)
		}
	default:
		if strings.IndexByte(item.Method, '.') > 0 {
			return b.fail(CodeNotSupported, item.Expr, "the custom aggregation method %s is not supported", item.Method)
		}
		return b.fail(CodeSyntax, item.Expr, "unknown aggregation method %s (sum, min, max, average, countdistinct)", item.Method)
	}
	return nil
}

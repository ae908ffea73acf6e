package plan

import (
	"errors"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// param kinds of canonical function arguments.
type argumentKind uint8

const (
	argString argumentKind = iota
	argInteger
	argNumber   // any numeric kind
	argDate     // Date or DateTimeOffset
	argTime     // TimeOfDay or DateTimeOffset
	argDateTime // DateTimeOffset
	argDuration
)

// functionSignature is what binding a canonical function needs: the kinds of its parameters, the type of its
// result, and what else a function checks or computes.
type functionSignature struct {
	params   []argumentKind
	optional int       // how many trailing params are optional
	result   boundType // the type of the result (nullable when an argument is)
	// complete, when set, finishes the bound call: it checks a literal argument, sets the result type, or
	// computes a constant.
	complete func(n *syntax.Call, call *boundCall) (boundExpr, *Error)
}

var functionSignatures = map[string]functionSignature{
	"contains":           {params: []argumentKind{argString, argString}, result: typeBoolean},
	"startswith":         {params: []argumentKind{argString, argString}, result: typeBoolean},
	"endswith":           {params: []argumentKind{argString, argString}, result: typeBoolean},
	"matchespattern":     {params: []argumentKind{argString, argString}, result: typeBoolean, complete: completeMatchesPattern},
	"length":             {params: []argumentKind{argString}, result: typeInt32},
	"indexof":            {params: []argumentKind{argString, argString}, result: typeInt32},
	"substring":          {params: []argumentKind{argString, argInteger, argInteger}, optional: 1, result: typeString, complete: completeSubstring},
	"tolower":            {params: []argumentKind{argString}, result: typeString},
	"toupper":            {params: []argumentKind{argString}, result: typeString},
	"trim":               {params: []argumentKind{argString}, result: typeString},
	"concat":             {params: []argumentKind{argString, argString}, result: typeString},
	"year":               {params: []argumentKind{argDate}, result: typeInt32},
	"month":              {params: []argumentKind{argDate}, result: typeInt32},
	"day":                {params: []argumentKind{argDate}, result: typeInt32},
	"hour":               {params: []argumentKind{argTime}, result: typeInt32},
	"minute":             {params: []argumentKind{argTime}, result: typeInt32},
	"second":             {params: []argumentKind{argTime}, result: typeInt32},
	"fractionalseconds":  {params: []argumentKind{argTime}, result: typeDecimal},
	"totalseconds":       {params: []argumentKind{argDuration}, result: typeDecimal},
	"date":               {params: []argumentKind{argDateTime}, result: typeDate},
	"time":               {params: []argumentKind{argDateTime}, result: typeTimeOfDay},
	"totaloffsetminutes": {params: []argumentKind{argDateTime}, result: typeInt32},
	"now":                {result: typeDateTimeOffset},
	"maxdatetime":        {result: typeDateTimeOffset, complete: constantTime(time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC))},
	"mindatetime":        {result: typeDateTimeOffset, complete: constantTime(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC))},
	"round":              {params: []argumentKind{argNumber}, complete: completeRounding},
	"floor":              {params: []argumentKind{argNumber}, complete: completeRounding},
	"ceiling":            {params: []argumentKind{argNumber}, complete: completeRounding},
}

// FilterFunctions lists the canonical functions expressions may call, by their names in the OData
// specification, for the Capabilities.FilterFunctions of $metadata: the signatures above, cast, isof and case
// (geo.* and hassubset/hassubsequence are not among them), and the hierarchy functions of the Aggregation
// vocabulary by their qualified names.
func FilterFunctions() []string {
	out := []string{"cast", "isof", "case"}
	for name := range functionSignatures {
		out = append(out, functionName(name))
	}
	for name := range hierarchyFunctionParameters {
		out = append(out, "Org.OData.Aggregation.V1."+name)
	}
	slices.Sort(out)
	return out
}

// functionNames maps the lower-case names the parser produces to the canonical spelling for messages.
var functionNames = map[string]string{"matchespattern": "matchesPattern", "fractionalseconds": "fractionalseconds",
	"totaloffsetminutes": "totaloffsetminutes"}

func functionName(n string) string {
	if s, ok := functionNames[n]; ok {
		return s
	}
	return n
}

func (p argumentKind) String() string {
	return [...]string{"Edm.String", "an integer", "a number", "Edm.Date or Edm.DateTimeOffset",
		"Edm.TimeOfDay or Edm.DateTimeOffset", "Edm.DateTimeOffset", "Edm.Duration"}[p]
}

func (p argumentKind) accepts(t boundType) bool {
	if t.null {
		return true
	}
	if !t.isScalar() || t.enum != nil {
		return false
	}
	switch p {
	case argString:
		return t.kind == edm.KindString
	case argInteger:
		return numericRank(t.kind) == 1
	case argNumber:
		return numericRank(t.kind) > 0
	case argDate:
		return t.kind == edm.KindDate || t.kind == edm.KindDateTimeOffset
	case argTime:
		return t.kind == edm.KindTimeOfDay || t.kind == edm.KindDateTimeOffset
	case argDateTime:
		return t.kind == edm.KindDateTimeOffset
	case argDuration:
		return t.kind == edm.KindDuration
	}
	return false
}

// geoArity is the number of arguments of each geo function (none is served: geography is not supported).
var geoArity = map[string]int{"geo.distance": 2, "geo.length": 1, "geo.intersects": 2}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// call binds a call of a canonical function: cast and isof, which take a type, or a function of
// functionSignatures.
func (b *binder) call(n *syntax.Call) (boundExpr, error) {
	switch n.Name {
	case "cast":
		return b.cast(n)
	case "isof":
		return b.isof(n)
	case "hassubset", "hassubsequence":
		if len(n.Args) != 2 {
			return nil, b.fail(CodeSyntax, n, "%s takes 2 arguments, not %d", n.Name, len(n.Args))
		}
		return nil, b.fail(CodeNotSupported, n, "%s is not supported", n.Name)
	}
	if arity, geo := geoArity[n.Name]; geo && len(n.Args) != arity {
		// A call the specification does not allow is the client's mistake even where the function is not served.
		return nil, b.fail(CodeSyntax, n, "%s takes %d argument%s, not %d", n.Name, arity, plural(arity), len(n.Args))
	}
	signature, ok := functionSignatures[n.Name]
	if !ok {
		return nil, b.fail(CodeNotSupported, n, "function %s is not supported", n.Name)
	}
	if err := b.checkArity(n, signature); err != nil {
		return nil, err
	}
	args := make([]boundExpr, len(n.Args))
	anyNullable := false
	for i := range n.Args {
		x, err := b.argument(n, i, signature.params[i])
		if err != nil {
			return nil, err
		}
		anyNullable = anyNullable || x.typeOf().nullable
		args[i] = x
	}
	call := &boundCall{t: signature.result.withNullable(anyNullable), name: n.Name, args: args}
	if signature.complete == nil {
		return call, nil
	}
	bound, err := signature.complete(n, call)
	if err != nil {
		err.Option = b.option
		return nil, err
	}
	return bound, nil
}

// checkArity checks the number of arguments of a call.
func (b *binder) checkArity(n *syntax.Call, signature functionSignature) error {
	want := len(signature.params)
	if len(n.Args) <= want && len(n.Args) >= want-signature.optional {
		return nil
	}
	name := functionName(n.Name)
	if signature.optional > 0 {
		return b.fail(CodeTypeMismatch, n, "%s takes %d or %d arguments, found %d", name, want-signature.optional, want, len(n.Args))
	}
	plural := "s"
	if want == 1 {
		plural = ""
	}
	return b.fail(CodeTypeMismatch, n, "%s takes %d argument%s, found %d", name, want, plural, len(n.Args))
}

// argument binds argument i of a call and checks it against its parameter's kind: an integer literal becomes an
// Int64, a null string argument a typed null.
func (b *binder) argument(n *syntax.Call, i int, kind argumentKind) (boundExpr, error) {
	a := n.Args[i]
	if a.Name != "" {
		return nil, b.fail(CodeSyntax, a.Value, "%s takes no named arguments", functionName(n.Name))
	}
	x, err := b.expr(a.Value)
	if err != nil {
		return nil, err
	}
	t := x.typeOf()
	if !kind.accepts(t) {
		return nil, b.fail(CodeTypeMismatch, a.Value, "argument %d of %s must be %s, found %s", i+1, functionName(n.Name), kind, t)
	}
	if literal, ok := x.(*boundLiteral); ok && kind == argInteger && literal.v != nil {
		return &boundLiteral{t: typeInt64, v: literal.v}, nil
	}
	if t.null && kind == argString {
		return &boundLiteral{t: typeString.withNullable(true)}, nil
	}
	return x, nil
}

// completeMatchesPattern checks a literal pattern of matchesPattern.
func completeMatchesPattern(n *syntax.Call, call *boundCall) (boundExpr, *Error) {
	if literal, ok := call.args[1].(*boundLiteral); ok && literal.v != nil {
		if err := checkPattern(literal.v.(string)); err != nil {
			return nil, errorf(CodeInvalidValue, n.Args[1].Value, "invalid pattern: %v", err)
		}
	}
	return call, nil
}

// completeSubstring makes substring with a length nullable: a negative length is null.
func completeSubstring(_ *syntax.Call, call *boundCall) (boundExpr, *Error) {
	if len(call.args) == 3 {
		call.t.nullable = true
	}
	return call, nil
}

// constantTime is the completion of a function that is the constant v (maxdatetime, mindatetime).
func constantTime(v time.Time) func(*syntax.Call, *boundCall) (boundExpr, *Error) {
	return func(*syntax.Call, *boundCall) (boundExpr, *Error) {
		return &boundLiteral{t: typeDateTimeOffset, v: v}, nil
	}
}

// completeRounding gives round, floor and ceiling the type of their argument (Decimal for null) and computes
// them on a literal.
func completeRounding(n *syntax.Call, call *boundCall) (boundExpr, *Error) {
	if literal, ok := call.args[0].(*boundLiteral); ok {
		return foldRounding(n.Name, literal), nil
	}
	t := call.args[0].typeOf()
	call.t = t.withNullable(false)
	if call.t.null {
		call.t = typeDecimal
	}
	call.t.nullable = t.nullable
	return call, nil
}

// foldRounding computes round, floor or ceiling of a literal.
func foldRounding(name string, l *boundLiteral) boundExpr {
	switch v := l.v.(type) {
	case float64:
		switch name {
		case "round":
			v = math.Round(v)
		case "floor":
			v = math.Floor(v)
		default:
			v = math.Ceil(v)
		}
		return &boundLiteral{t: l.t, v: v}
	case decimal.Decimal:
		d := v
		switch name {
		case "round":
			d = d.Round(0)
		case "floor":
			d = d.Floor()
		default:
			d = d.Ceil()
		}
		return &boundLiteral{t: l.t, v: d}
	}
	return l // integers and null
}

// typeArg returns the type named by the last argument of cast or isof.
func (b *binder) typeArg(n *syntax.Call) (*syntax.TypeName, error) {
	if len(n.Args) == 0 || len(n.Args) > 2 {
		return nil, b.fail(CodeTypeMismatch, n, "%s takes 1 or 2 arguments, found %d", n.Name, len(n.Args))
	}
	typeName, ok := n.Args[len(n.Args)-1].Value.(*syntax.TypeName)
	if !ok {
		return nil, b.fail(CodeTypeMismatch, n.Args[len(n.Args)-1].Value, "the last argument of %s must be a type name", n.Name)
	}
	return typeName, nil
}

// cast binds cast(value, type): a null or a literal is converted at once; other values convert in SQL where the
// conversion is one the engine translates (castConversion).
func (b *binder) cast(n *syntax.Call) (boundExpr, error) {
	if typeName, err := b.typeArg(n); err == nil {
		if t := b.c.m.EntityType(typeName.Name); t != nil {
			return b.castEntity(n, t)
		}
	}
	k, err := b.castTarget(n)
	if err != nil {
		return nil, err
	}
	x, err := b.expr(n.Args[0].Value)
	if err != nil {
		return nil, err
	}
	valueType := x.typeOf()
	to := primitive(k)
	if valueType.null {
		return &boundLiteral{t: to.withNullable(true)}, nil
	}
	if !valueType.isScalar() {
		return nil, b.fail(CodeTypeMismatch, n.Args[0].Value, "cast needs a primitive value, found %s", valueType)
	}
	if literal, ok := x.(*boundLiteral); ok {
		if converted, ok := castLiteral(literal, to); ok {
			return converted, nil
		}
	}
	if valueType.enum == nil && valueType.kind == k {
		return x, nil
	}
	if conversion := castConversion(valueType, k); conversion != "" {
		return &boundCall{t: to.withNullable(valueType.nullable), name: conversion, args: []boundExpr{x}, to: k}, nil
	}
	return nil, b.fail(CodeNotSupported, n, "cast from %s to %s is not supported", valueType, k)
}

// castTarget returns the primitive kind a cast converts to: a cast of the instance, or to a type that is not a
// primitive kind of edm, is not supported; a name that is no type at all is a client error.
func (b *binder) castTarget(n *syntax.Call) (edm.Kind, error) {
	typeName, err := b.typeArg(n)
	if err != nil {
		return 0, err
	}
	if len(n.Args) == 1 {
		return 0, b.fail(CodeTypeMismatch, n, "cast of the instance takes an entity type, not %s", typeName.Name)
	}
	k, ok := edm.ParseKind(typeName.Name)
	if !ok {
		if !b.knownType(typeName.Name) {
			return 0, b.fail(CodeTypeMismatch, typeName, "%s is not a type", typeName.Name)
		}
		return 0, b.fail(CodeNotSupported, typeName, "cast to %s is not supported", typeName.Name)
	}
	return k, nil
}

// castLiteral converts a literal to the type to where a literal of its type may stand for one of type to,
// formats numbers and GUIDs as strings, and reads a string as a number of the kind to, null where the text
// is no literal of that kind (castNumber).
func castLiteral(literal *boundLiteral, to boundType) (boundExpr, bool) {
	if v, ok := coerce(literal.v, literal.t, to); ok {
		return &boundLiteral{t: to, v: v}, true
	}
	if literal.t.enum != nil || to.enum != nil {
		return nil, false
	}
	if to.kind == edm.KindString && (numericRank(literal.t.kind) > 0 || literal.t.kind == edm.KindGuid) {
		text := formatLiteral(literal.v)
		if f, ok := literal.v.(float64); ok {
			text = edm.FormatDouble(f)
		}
		return &boundLiteral{t: to, v: text}, true
	}
	if text, ok := literal.v.(string); ok && literal.t.kind == edm.KindString && numericRank(to.kind) > 0 {
		v := castNumber(text, to.kind)
		return &boundLiteral{t: to.withNullable(v == nil), v: v}, true
	}
	return nil, false
}

// Casts between strings and numbers (OData 4.01 URL Conventions, 5.1.1.10.1): "Primitive types are cast to
// Edm.String [...] by using the literal representation used in payloads", and "Edm.String [...] can be cast to
// a primitive type if the string contains a literal representation for the target type"; "If the cast fails,
// the cast function returns null". The patterns are the ABNF's number literals (int64Value, decimalValue,
// doubleValue) without NaN and INF, which the SQL translation does not read; a literal reads them.
const (
	integerText = `^[+-]?[0-9]+$`
	decimalText = `^[+-]?[0-9]+([.][0-9]+)?([eE][+-]?[0-9]+)?$`
)

var integerPattern, decimalPattern = regexp.MustCompile(integerText), regexp.MustCompile(decimalText)

// castNumber reads text as a number of kind k (int64, decimal.Decimal or float64), nil when it is no literal of
// k or, for an integer kind, its value lies outside k's range.
func castNumber(text string, k edm.Kind) any {
	if r, ok := integerRanges[k]; ok {
		if !integerPattern.MatchString(text) {
			return nil
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil || n < r[0] || n > r[1] {
			return nil
		}
		return n
	}
	switch text {
	case "NaN", "INF", "-INF":
		if k == edm.KindDecimal {
			return nil
		}
		f, _ := strconv.ParseFloat(strings.Replace(text, "INF", "Inf", 1), 64)
		return f
	}
	if !decimalPattern.MatchString(text) {
		return nil
	}
	if k == edm.KindDecimal {
		d, err := decimal.NewFromString(text)
		if err != nil {
			return nil
		}
		return d
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil
	}
	if k == edm.KindSingle && math.Abs(f) > math.MaxFloat32 {
		return nil
	}
	return f
}

// castConversion names the function that converts a value of type from to kind to in SQL ("cast", "narrow",
// "parse", "date" or "time"), "" when the engine does not translate that cast: integers and GUIDs to strings
// (the text of a decimal or a double differs between the databases: 9.50, 1e+20); strings to numbers, null where the text is no literal of the kind (parse); numbers to
// Decimal, Single and Double; integers to the integer kinds that hold all their values (Byte to Int32), and to
// the others, null where a value does not fit (Int64 to Int32, as OData's cast fails to null); an enum to an
// integer kind (its underlying value, null where it does not fit); a DateTimeOffset to its Date or TimeOfDay.
func castConversion(from boundType, to edm.Kind) string {
	_, toInteger := integerRanges[to]
	_, fromInteger := integerRanges[from.kind]
	switch {
	case from.enum != nil && toInteger:
		return "narrow"
	case from.enum != nil:
		return ""
	case to == edm.KindString && (numericRank(from.kind) == 1 || from.kind == edm.KindGuid):
		return "cast"
	case from.kind == edm.KindString && numericRank(to) > 0:
		return "parse"
	case numericRank(from.kind) > 0 && numericRank(to) > 1:
		return "cast"
	case widensInteger(from.kind, to):
		return "cast"
	case fromInteger && toInteger:
		return "narrow"
	case from.kind == edm.KindDateTimeOffset && to == edm.KindDate:
		return "date"
	case from.kind == edm.KindDateTimeOffset && to == edm.KindTimeOfDay:
		return "time"
	}
	return ""
}

// integerRanges are the smallest and largest values of the integer kinds.
var integerRanges = map[edm.Kind][2]int64{
	edm.KindByte:  {0, math.MaxUint8},
	edm.KindSByte: {math.MinInt8, math.MaxInt8},
	edm.KindInt16: {math.MinInt16, math.MaxInt16},
	edm.KindInt32: {math.MinInt32, math.MaxInt32},
	edm.KindInt64: {math.MinInt64, math.MaxInt64},
}

// widensInteger reports whether every value of the integer kind from is a value of the integer kind to.
func widensInteger(from, to edm.Kind) bool {
	fromRange, fromInteger := integerRanges[from]
	toRange, toInteger := integerRanges[to]
	return fromInteger && toInteger && toRange[0] <= fromRange[0] && fromRange[1] <= toRange[1]
}

func (b *binder) isof(n *syntax.Call) (boundExpr, error) {
	typeName, err := b.typeArg(n)
	if err != nil {
		return nil, err
	}
	entityType := b.c.m.EntityType(typeName.Name)
	if len(n.Args) == 1 {
		current := b.innermost()
		if current == nil || current.typ == nil || entityType == nil {
			return &boundLiteral{t: typeBoolean, v: false}, nil
		}
		return entityTypeTest(current, current.typ, entityType), nil
	}
	x, err := b.expr(n.Args[0].Value)
	if err != nil {
		return nil, err
	}
	if r := b.entityRange(x); r != nil && entityType != nil {
		return entityTypeTest(r, r.typ, entityType), nil
	}
	valueType := x.typeOf()
	match := false
	if k, ok := edm.ParseKind(typeName.Name); ok {
		match = valueType.isScalar() && valueType.enum == nil && valueType.kind == k
		if l, isLiteral := x.(*boundLiteral); isLiteral && !match && valueType.isScalar() {
			_, match = coerce(l.v, valueType, primitive(k))
		}
	} else {
		switch {
		case valueType.enum != nil:
			match = b.isTypeName(typeName.Name, valueType.enum.Name)
		case valueType.entity != nil && !valueType.collection:
			match = b.isTypeName(typeName.Name, valueType.entity.Name)
		case valueType.complex != nil:
			match = b.isTypeName(typeName.Name, valueType.complex.Name)
		}
	}
	if !match || valueType.null {
		return &boundLiteral{t: typeBoolean, v: false}, nil
	}
	if !valueType.nullable {
		return &boundLiteral{t: typeBoolean, v: true}, nil
	}
	return &boundBinary{t: typeBoolean, op: syntax.OpNe, l: x, r: &boundLiteral{t: typeNull}}, nil
}

// checkPattern rejects patterns that neither database can use.
func checkPattern(p string) error {
	if strings.IndexByte(p, 0) >= 0 {
		return errNulInPattern
	}
	_, err := compilePattern(p)
	return err
}

var errNulInPattern = errors.New("NUL character")

// compilePattern compiles a matchesPattern pattern with Go's regexp syntax, which the SQLite REGEXP function
// uses; PostgreSQL's regular expressions accept the common subset (classes, anchors, alternation, repetition).
func compilePattern(p string) (*regexp.Regexp, error) { return regexp.Compile(p) }

// knownType reports whether name is a type OData or the model defines, though not a primitive kind of edm: a
// geography or geometry type, an abstract Edm type, or a type of the model.
func (b *binder) knownType(name string) bool {
	if rest, ok := cutPrefixFold(name, "Edm."); ok {
		for _, p := range []string{"Geography", "Geometry", "Untyped", "PrimitiveType", "ComplexType", "EntityType",
			"AnnotationPath", "PropertyPath", "NavigationPropertyPath", "ModelElementPath", "AnyPropertyPath"} {
			if _, ok := cutPrefixFold(rest, p); ok {
				return true
			}
		}
		return false
	}
	m := b.c.m
	return m.EntityType(name) != nil || m.ComplexType(name) != nil || m.EnumType(name) != nil
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// entityRange returns the range of an entity-valued expression: an instance ($it, a lambda variable) or a
// single-valued navigation, joined; nil for other expressions and for an instance cast to a derived type.
func (b *binder) entityRange(x boundExpr) *tableRange {
	switch e := x.(type) {
	case *boundRange:
		if e.only == nil {
			return e.r
		}
	case *boundNavigation:
		return e.r.join(b.c, e.nav)
	}
	return nil
}

// castEntity binds cast to the entity type t: of the instance (one argument) or of an entity-valued expression.
// The result is the instance when it is of type t, else null; it compares with null and is an operand of isof.
func (b *binder) castEntity(n *syntax.Call, t *edm.EntityType) (boundExpr, error) {
	r := b.innermost()
	if len(n.Args) == 2 {
		x, err := b.expr(n.Args[0].Value)
		if err != nil {
			return nil, err
		}
		if r = b.entityRange(x); r == nil {
			return nil, b.fail(CodeTypeMismatch, n.Args[0].Value, "cast to the entity type %s needs an entity, found %s", t.Name, x.typeOf())
		}
	}
	switch {
	case r.typ == nil:
		return nil, b.fail(CodeTypeMismatch, n, "cast to the entity type %s needs an entity", t.Name)
	case r.typ.IsA(t):
		return instance(r), nil
	case t.IsA(r.typ):
		return &boundRange{t: boundType{entity: t, nullable: true}, r: r, only: t}, nil
	}
	return &boundLiteral{t: typeNull}, nil
}

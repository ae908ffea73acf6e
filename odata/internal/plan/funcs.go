package plan

import (
	"errors"
	"math"
	"regexp"
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
	complete func(b *binder, n *syntax.Call, call *boundCall) (boundExpr, error)
}

var functionSignatures = map[string]functionSignature{
	"contains":           {params: []argumentKind{argString, argString}, result: tBool},
	"startswith":         {params: []argumentKind{argString, argString}, result: tBool},
	"endswith":           {params: []argumentKind{argString, argString}, result: tBool},
	"matchespattern":     {params: []argumentKind{argString, argString}, result: tBool, complete: completeMatchesPattern},
	"length":             {params: []argumentKind{argString}, result: tInt32},
	"indexof":            {params: []argumentKind{argString, argString}, result: tInt32},
	"substring":          {params: []argumentKind{argString, argInteger, argInteger}, optional: 1, result: tString, complete: completeSubstring},
	"tolower":            {params: []argumentKind{argString}, result: tString},
	"toupper":            {params: []argumentKind{argString}, result: tString},
	"trim":               {params: []argumentKind{argString}, result: tString},
	"concat":             {params: []argumentKind{argString, argString}, result: tString},
	"year":               {params: []argumentKind{argDate}, result: tInt32},
	"month":              {params: []argumentKind{argDate}, result: tInt32},
	"day":                {params: []argumentKind{argDate}, result: tInt32},
	"hour":               {params: []argumentKind{argTime}, result: tInt32},
	"minute":             {params: []argumentKind{argTime}, result: tInt32},
	"second":             {params: []argumentKind{argTime}, result: tInt32},
	"fractionalseconds":  {params: []argumentKind{argTime}, result: tDecimal},
	"totalseconds":       {params: []argumentKind{argDuration}, result: tDecimal},
	"date":               {params: []argumentKind{argDateTime}, result: tDate},
	"time":               {params: []argumentKind{argDateTime}, result: tTime},
	"totaloffsetminutes": {params: []argumentKind{argDateTime}, result: tInt32},
	"now":                {result: tDateTime},
	"maxdatetime":        {result: tDateTime, complete: constantTime(time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC))},
	"mindatetime":        {result: tDateTime, complete: constantTime(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC))},
	"round":              {params: []argumentKind{argNumber}, complete: completeRounding},
	"floor":              {params: []argumentKind{argNumber}, complete: completeRounding},
	"ceiling":            {params: []argumentKind{argNumber}, complete: completeRounding},
}

// funcNames maps the lower-case names the parser produces to the canonical spelling for messages.
var funcNames = map[string]string{"matchespattern": "matchesPattern", "fractionalseconds": "fractionalseconds",
	"totaloffsetminutes": "totaloffsetminutes"}

func funcName(n string) string {
	if s, ok := funcNames[n]; ok {
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

// call binds a call of a canonical function: cast and isof, which take a type, or a function of
// functionSignatures.
func (b *binder) call(n *syntax.Call) (boundExpr, error) {
	switch n.Name {
	case "cast":
		return b.cast(n)
	case "isof":
		return b.isof(n)
	case "hassubset", "hassubsequence":
		return nil, b.fail(CodeNotSupported, n, "%s is not supported", n.Name)
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
	call := &boundCall{t: signature.result.withNullable(anyNullable), fn: n.Name, args: args}
	if signature.complete != nil {
		return signature.complete(b, n, call)
	}
	return call, nil
}

// checkArity checks the number of arguments of a call.
func (b *binder) checkArity(n *syntax.Call, signature functionSignature) error {
	want := len(signature.params)
	if len(n.Args) <= want && len(n.Args) >= want-signature.optional {
		return nil
	}
	name := funcName(n.Name)
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
		return nil, b.fail(CodeSyntax, a.Value, "%s takes no named arguments", funcName(n.Name))
	}
	x, err := b.expr(a.Value)
	if err != nil {
		return nil, err
	}
	t := x.typeOf()
	if !kind.accepts(t) {
		return nil, b.fail(CodeTypeMismatch, a.Value, "argument %d of %s must be %s, found %s", i+1, funcName(n.Name), kind, t)
	}
	if literal, ok := x.(*boundLiteral); ok && kind == argInteger && literal.v != nil {
		return &boundLiteral{t: tInt64, v: literal.v}, nil
	}
	if t.null && kind == argString {
		return &boundLiteral{t: tString.withNullable(true)}, nil
	}
	return x, nil
}

// completeMatchesPattern checks a literal pattern of matchesPattern.
func completeMatchesPattern(b *binder, n *syntax.Call, call *boundCall) (boundExpr, error) {
	if literal, ok := call.args[1].(*boundLiteral); ok && literal.v != nil {
		if err := checkPattern(literal.v.(string)); err != nil {
			return nil, b.fail(CodeInvalidValue, n.Args[1].Value, "invalid pattern: %v", err)
		}
	}
	return call, nil
}

// completeSubstring makes substring with a length nullable: a negative length is null.
func completeSubstring(_ *binder, _ *syntax.Call, call *boundCall) (boundExpr, error) {
	if len(call.args) == 3 {
		call.t.nullable = true
	}
	return call, nil
}

// constantTime is the completion of a function that is the constant v (maxdatetime, mindatetime).
func constantTime(v time.Time) func(*binder, *syntax.Call, *boundCall) (boundExpr, error) {
	return func(*binder, *syntax.Call, *boundCall) (boundExpr, error) {
		return &boundLiteral{t: tDateTime, v: v}, nil
	}
}

// completeRounding gives round, floor and ceiling the type of their argument (Decimal for null) and computes
// them on a literal.
func completeRounding(_ *binder, n *syntax.Call, call *boundCall) (boundExpr, error) {
	if literal, ok := call.args[0].(*boundLiteral); ok {
		return foldRounding(n.Name, literal), nil
	}
	t := call.args[0].typeOf()
	call.t = t.withNullable(false)
	if call.t.null {
		call.t = tDecimal
	}
	call.t.nullable = t.nullable
	return call, nil
}

// foldRounding computes round, floor or ceiling of a literal.
func foldRounding(fn string, l *boundLiteral) boundExpr {
	switch v := l.v.(type) {
	case float64:
		switch fn {
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
		switch fn {
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
	tn, ok := n.Args[len(n.Args)-1].Value.(*syntax.TypeName)
	if !ok {
		return nil, b.fail(CodeTypeMismatch, n.Args[len(n.Args)-1].Value, "the last argument of %s must be a type name", n.Name)
	}
	return tn, nil
}

func (b *binder) cast(n *syntax.Call) (boundExpr, error) {
	tn, err := b.typeArg(n)
	if err != nil {
		return nil, err
	}
	if len(n.Args) == 1 {
		return nil, b.fail(CodeNotSupported, n, "cast of the instance is not supported (the model has no derived types)")
	}
	k, ok := edm.ParseKind(tn.Name)
	if !ok {
		if !b.knownType(tn.Name) {
			return nil, b.fail(CodeTypeMismatch, tn, "%s is not a type", tn.Name)
		}
		return nil, b.fail(CodeNotSupported, tn, "cast to %s is not supported", tn.Name)
	}
	x, err := b.expr(n.Args[0].Value)
	if err != nil {
		return nil, err
	}
	xt := x.typeOf()
	to := primitive(k)
	if xt.null {
		return &boundLiteral{t: to.withNullable(true)}, nil
	}
	if !xt.isScalar() {
		return nil, b.fail(CodeTypeMismatch, n.Args[0].Value, "cast needs a primitive value, found %s", xt)
	}
	if l, ok := x.(*boundLiteral); ok {
		if v, ok := coerce(l.v, xt, to); ok {
			return &boundLiteral{t: to, v: v}, nil
		}
		if k == edm.KindString && xt.enum == nil && (numericRank(xt.kind) == 1 || xt.kind == edm.KindGuid) {
			return &boundLiteral{t: to, v: formatLiteral(l.v)}, nil
		}
	}
	if xt.enum == nil && xt.kind == k {
		return x, nil
	}
	to.nullable = xt.nullable
	switch {
	case xt.enum != nil:
	case k == edm.KindString && (numericRank(xt.kind) == 1 || xt.kind == edm.KindGuid):
		return &boundCall{t: to, fn: "cast", args: []boundExpr{x}, to: k}, nil
	case numericRank(xt.kind) > 0 && numericRank(k) > 1:
		return &boundCall{t: to, fn: "cast", args: []boundExpr{x}, to: k}, nil
	case xt.kind == edm.KindDateTimeOffset && k == edm.KindDate:
		return &boundCall{t: to, fn: "date", args: []boundExpr{x}}, nil
	}
	return nil, b.fail(CodeNotSupported, n, "cast from %s to %s is not supported", xt, k)
}

func (b *binder) isof(n *syntax.Call) (boundExpr, error) {
	tn, err := b.typeArg(n)
	if err != nil {
		return nil, err
	}
	if len(n.Args) == 1 {
		current := b.innermost()
		ok := current.typ != nil && b.isTypeName(tn.Name, current.typ.Name)
		return &boundLiteral{t: tBool, v: ok}, nil
	}
	x, err := b.expr(n.Args[0].Value)
	if err != nil {
		return nil, err
	}
	xt := x.typeOf()
	match := false
	if k, ok := edm.ParseKind(tn.Name); ok {
		match = xt.isScalar() && xt.enum == nil && xt.kind == k
		if l, isLiteral := x.(*boundLiteral); isLiteral && !match && xt.isScalar() {
			_, match = coerce(l.v, xt, primitive(k))
		}
	} else {
		switch {
		case xt.enum != nil:
			match = b.isTypeName(tn.Name, xt.enum.Name)
		case xt.entity != nil && !xt.coll:
			match = b.isTypeName(tn.Name, xt.entity.Name)
		case xt.complex != nil:
			match = b.isTypeName(tn.Name, xt.complex.Name)
		}
	}
	if !match || xt.null {
		return &boundLiteral{t: tBool, v: false}, nil
	}
	if !xt.nullable {
		return &boundLiteral{t: tBool, v: true}, nil
	}
	return &boundBinary{t: tBool, op: syntax.OpNe, l: x, r: &boundLiteral{t: tNull}}, nil
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

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

type functionSignature struct {
	params   []argumentKind
	optional int // how many trailing params are optional
}

var functionSignatures = map[string]functionSignature{
	"contains":           {params: []argumentKind{argString, argString}},
	"startswith":         {params: []argumentKind{argString, argString}},
	"endswith":           {params: []argumentKind{argString, argString}},
	"matchespattern":     {params: []argumentKind{argString, argString}},
	"length":             {params: []argumentKind{argString}},
	"indexof":            {params: []argumentKind{argString, argString}},
	"substring":          {params: []argumentKind{argString, argInteger, argInteger}, optional: 1},
	"tolower":            {params: []argumentKind{argString}},
	"toupper":            {params: []argumentKind{argString}},
	"trim":               {params: []argumentKind{argString}},
	"concat":             {params: []argumentKind{argString, argString}},
	"year":               {params: []argumentKind{argDate}},
	"month":              {params: []argumentKind{argDate}},
	"day":                {params: []argumentKind{argDate}},
	"hour":               {params: []argumentKind{argTime}},
	"minute":             {params: []argumentKind{argTime}},
	"second":             {params: []argumentKind{argTime}},
	"fractionalseconds":  {params: []argumentKind{argTime}},
	"totalseconds":       {params: []argumentKind{argDuration}},
	"date":               {params: []argumentKind{argDateTime}},
	"time":               {params: []argumentKind{argDateTime}},
	"totaloffsetminutes": {params: []argumentKind{argDateTime}},
	"now":                {},
	"maxdatetime":        {},
	"mindatetime":        {},
	"round":              {params: []argumentKind{argNumber}},
	"floor":              {params: []argumentKind{argNumber}},
	"ceiling":            {params: []argumentKind{argNumber}},
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

func (b *binder) call(n *syntax.Call) (boundExpr, error) {
	switch n.Name {
	case "cast":
		return b.cast(n)
	case "isof":
		return b.isof(n)
	case "hassubset", "hassubsequence":
		return nil, b.fail(CodeNotSupported, n, "%s is not supported", n.Name)
	}
	sig, ok := functionSignatures[n.Name]
	if !ok {
		return nil, b.fail(CodeNotSupported, n, "function %s is not supported", n.Name)
	}
	name := funcName(n.Name)
	if len(n.Args) > len(sig.params) || len(n.Args) < len(sig.params)-sig.optional {
		want := len(sig.params)
		if sig.optional > 0 {
			return nil, b.fail(CodeTypeMismatch, n, "%s takes %d or %d arguments, found %d", name, want-sig.optional, want, len(n.Args))
		}
		plural := "s"
		if want == 1 {
			plural = ""
		}
		return nil, b.fail(CodeTypeMismatch, n, "%s takes %d argument%s, found %d", name, want, plural, len(n.Args))
	}
	args := make([]boundExpr, len(n.Args))
	anyNullable := false
	for i, a := range n.Args {
		if a.Name != "" {
			return nil, b.fail(CodeSyntax, a.Value, "%s takes no named arguments", name)
		}
		x, err := b.expr(a.Value)
		if err != nil {
			return nil, err
		}
		t := x.typeOf()
		if !sig.params[i].accepts(t) {
			return nil, b.fail(CodeTypeMismatch, a.Value, "argument %d of %s must be %s, found %s", i+1, name, sig.params[i], t)
		}
		if sig.params[i] == argInteger {
			if l, ok := x.(*boundLiteral); ok && l.v != nil {
				x = &boundLiteral{t: tInt64, v: l.v}
			}
		}
		if t.null && sig.params[i] == argString {
			x = &boundLiteral{t: tString.withNullable(true)}
		}
		anyNullable = anyNullable || t.nullable
		args[i] = x
	}
	var t boundType
	switch n.Name {
	case "contains", "startswith", "endswith", "matchespattern":
		t = tBool
		if n.Name == "matchespattern" {
			if l, ok := args[1].(*boundLiteral); ok && l.v != nil {
				if err := checkPattern(l.v.(string)); err != nil {
					return nil, b.fail(CodeInvalidValue, n.Args[1].Value, "invalid pattern: %v", err)
				}
			}
		}
	case "length", "indexof", "year", "month", "day", "hour", "minute", "second", "totaloffsetminutes":
		t = tInt32
	case "substring", "tolower", "toupper", "trim", "concat":
		t = tString
	case "fractionalseconds", "totalseconds":
		t = tDecimal
	case "date":
		t = tDate
	case "time":
		t = tTime
	case "now":
		t = tDateTime
	case "maxdatetime":
		return &boundLiteral{t: tDateTime, v: time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)}, nil
	case "mindatetime":
		return &boundLiteral{t: tDateTime, v: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)}, nil
	case "round", "floor", "ceiling":
		t = args[0].typeOf().withNullable(false)
		if t.null {
			t = tDecimal
		}
		if l, ok := args[0].(*boundLiteral); ok {
			return foldRounding(n.Name, l), nil
		}
	}
	t.nullable = anyNullable
	if n.Name == "substring" && len(args) == 3 {
		t.nullable = true // a negative length is null
	}
	return &boundCall{t: t, fn: n.Name, args: args}, nil
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
		cur := b.it
		if len(b.vars) > 0 {
			cur = b.vars[len(b.vars)-1].item
		}
		ok := cur.typ != nil && b.isTypeName(tn.Name, cur.typ.Name)
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

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
type pkind uint8

const (
	pString pkind = iota
	pInt
	pNumber   // any numeric kind
	pDate     // Date or DateTimeOffset
	pTime     // TimeOfDay or DateTimeOffset
	pDateTime // DateTimeOffset
	pDuration
)

type fnSig struct {
	params []pkind
	opt    int // how many trailing params are optional
}

var fnSigs = map[string]fnSig{
	"contains":           {params: []pkind{pString, pString}},
	"startswith":         {params: []pkind{pString, pString}},
	"endswith":           {params: []pkind{pString, pString}},
	"matchespattern":     {params: []pkind{pString, pString}},
	"length":             {params: []pkind{pString}},
	"indexof":            {params: []pkind{pString, pString}},
	"substring":          {params: []pkind{pString, pInt, pInt}, opt: 1},
	"tolower":            {params: []pkind{pString}},
	"toupper":            {params: []pkind{pString}},
	"trim":               {params: []pkind{pString}},
	"concat":             {params: []pkind{pString, pString}},
	"year":               {params: []pkind{pDate}},
	"month":              {params: []pkind{pDate}},
	"day":                {params: []pkind{pDate}},
	"hour":               {params: []pkind{pTime}},
	"minute":             {params: []pkind{pTime}},
	"second":             {params: []pkind{pTime}},
	"fractionalseconds":  {params: []pkind{pTime}},
	"totalseconds":       {params: []pkind{pDuration}},
	"date":               {params: []pkind{pDateTime}},
	"time":               {params: []pkind{pDateTime}},
	"totaloffsetminutes": {params: []pkind{pDateTime}},
	"now":                {},
	"maxdatetime":        {},
	"mindatetime":        {},
	"round":              {params: []pkind{pNumber}},
	"floor":              {params: []pkind{pNumber}},
	"ceiling":            {params: []pkind{pNumber}},
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

func (p pkind) String() string {
	return [...]string{"Edm.String", "an integer", "a number", "Edm.Date or Edm.DateTimeOffset",
		"Edm.TimeOfDay or Edm.DateTimeOffset", "Edm.DateTimeOffset", "Edm.Duration"}[p]
}

func (p pkind) accepts(t btype) bool {
	if t.null {
		return true
	}
	if !t.isScalar() || t.enum != nil {
		return false
	}
	switch p {
	case pString:
		return t.kind == edm.KindString
	case pInt:
		return numRank(t.kind) == 1
	case pNumber:
		return numRank(t.kind) > 0
	case pDate:
		return t.kind == edm.KindDate || t.kind == edm.KindDateTimeOffset
	case pTime:
		return t.kind == edm.KindTimeOfDay || t.kind == edm.KindDateTimeOffset
	case pDateTime:
		return t.kind == edm.KindDateTimeOffset
	case pDuration:
		return t.kind == edm.KindDuration
	}
	return false
}

func (b *binder) call(n *syntax.Call) (bexpr, error) {
	switch n.Name {
	case "cast":
		return b.cast(n)
	case "isof":
		return b.isof(n)
	case "hassubset", "hassubsequence":
		return nil, b.fail(CodeNotSupported, n, "%s is not supported", n.Name)
	}
	sig, ok := fnSigs[n.Name]
	if !ok {
		return nil, b.fail(CodeNotSupported, n, "function %s is not supported", n.Name)
	}
	name := funcName(n.Name)
	if len(n.Args) > len(sig.params) || len(n.Args) < len(sig.params)-sig.opt {
		want := len(sig.params)
		if sig.opt > 0 {
			return nil, b.fail(CodeTypeMismatch, n, "%s takes %d or %d arguments, found %d", name, want-sig.opt, want, len(n.Args))
		}
		plural := "s"
		if want == 1 {
			plural = ""
		}
		return nil, b.fail(CodeTypeMismatch, n, "%s takes %d argument%s, found %d", name, want, plural, len(n.Args))
	}
	args := make([]bexpr, len(n.Args))
	anyNullable := false
	for i, a := range n.Args {
		if a.Name != "" {
			return nil, b.fail(CodeSyntax, a.Value, "%s takes no named arguments", name)
		}
		x, err := b.expr(a.Value)
		if err != nil {
			return nil, err
		}
		t := x.btyp()
		if !sig.params[i].accepts(t) {
			return nil, b.fail(CodeTypeMismatch, a.Value, "argument %d of %s must be %s, found %s", i+1, name, sig.params[i], t)
		}
		if sig.params[i] == pInt {
			if l, ok := x.(*bLit); ok && l.v != nil {
				x = &bLit{t: tInt64, v: l.v}
			}
		}
		if t.null && sig.params[i] == pString {
			x = &bLit{t: tString.withNullable(true)}
		}
		anyNullable = anyNullable || t.nullable
		args[i] = x
	}
	var t btype
	switch n.Name {
	case "contains", "startswith", "endswith", "matchespattern":
		t = tBool
		if n.Name == "matchespattern" {
			if l, ok := args[1].(*bLit); ok && l.v != nil {
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
		return &bLit{t: tDateTime, v: time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)}, nil
	case "mindatetime":
		return &bLit{t: tDateTime, v: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)}, nil
	case "round", "floor", "ceiling":
		t = args[0].btyp().withNullable(false)
		if t.null {
			t = tDecimal
		}
		if l, ok := args[0].(*bLit); ok {
			return foldRounding(n.Name, l), nil
		}
	}
	t.nullable = anyNullable
	if n.Name == "substring" && len(args) == 3 {
		t.nullable = true // a negative length is null
	}
	return &bCall{t: t, fn: n.Name, args: args}, nil
}

// foldRounding computes round, floor or ceiling of a literal.
func foldRounding(fn string, l *bLit) bexpr {
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
		return &bLit{t: l.t, v: v}
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
		return &bLit{t: l.t, v: d}
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

func (b *binder) cast(n *syntax.Call) (bexpr, error) {
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
	xt := x.btyp()
	to := primitive(k)
	if xt.null {
		return &bLit{t: to.withNullable(true)}, nil
	}
	if !xt.isScalar() {
		return nil, b.fail(CodeTypeMismatch, n.Args[0].Value, "cast needs a primitive value, found %s", xt)
	}
	if l, ok := x.(*bLit); ok {
		if v, ok := coerce(l.v, xt, to); ok {
			return &bLit{t: to, v: v}, nil
		}
		if k == edm.KindString && xt.enum == nil && (numRank(xt.kind) == 1 || xt.kind == edm.KindGuid) {
			return &bLit{t: to, v: formatLiteral(l.v)}, nil
		}
	}
	if xt.enum == nil && xt.kind == k {
		return x, nil
	}
	to.nullable = xt.nullable
	switch {
	case xt.enum != nil:
	case k == edm.KindString && (numRank(xt.kind) == 1 || xt.kind == edm.KindGuid):
		return &bCall{t: to, fn: "cast", args: []bexpr{x}, to: k}, nil
	case numRank(xt.kind) > 0 && numRank(k) > 1:
		return &bCall{t: to, fn: "cast", args: []bexpr{x}, to: k}, nil
	case xt.kind == edm.KindDateTimeOffset && k == edm.KindDate:
		return &bCall{t: to, fn: "date", args: []bexpr{x}}, nil
	}
	return nil, b.fail(CodeNotSupported, n, "cast from %s to %s is not supported", xt, k)
}

func (b *binder) isof(n *syntax.Call) (bexpr, error) {
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
		return &bLit{t: tBool, v: ok}, nil
	}
	x, err := b.expr(n.Args[0].Value)
	if err != nil {
		return nil, err
	}
	xt := x.btyp()
	match := false
	if k, ok := edm.ParseKind(tn.Name); ok {
		match = xt.isScalar() && xt.enum == nil && xt.kind == k
		if l, isLit := x.(*bLit); isLit && !match && xt.isScalar() {
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
		return &bLit{t: tBool, v: false}, nil
	}
	if !xt.nullable {
		return &bLit{t: tBool, v: true}, nil
	}
	return &bBin{t: tBool, op: syntax.OpNe, l: x, r: &bLit{t: tNull}}, nil
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

package syntax

import (
	"fmt"
	"regexp"
	regexpsyntax "regexp/syntax"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// converter turns grammar trees into the AST, enforcing what the grammar cannot: nesting limits, where lists and
// lambdas may appear, literal ranges.
type converter struct {
	operators   []lexer.Token // binary operator tokens in source order (scanner.operators)
	source      string        // raw text of the option value; token offsets are relative to source minus base
	base        int
	lambdas     int  // current lambda nesting
	lambdaCount int  // lambdas converted so far in this expression
	inPath      bool // resource path: key and parameter values must be literals or aliases
	expand      int  // current $expand nesting (for nested options)
	limits      *Limits
}

func nestingError(off int) *Error {
	return limitErrorAt(off, "nesting exceeds the limit of 64 levels")
}

// canonicalFunctions lists the canonical functions (lower case); a call to one of them is a *Call.
var canonicalFunctions = map[string]bool{
	"contains": true, "startswith": true, "endswith": true, "length": true, "indexof": true, "substring": true,
	"tolower": true, "toupper": true, "trim": true, "concat": true, "matchespattern": true, "year": true,
	"month": true, "day": true, "hour": true, "minute": true, "second": true, "fractionalseconds": true,
	"totalseconds": true, "date": true, "time": true, "now": true, "totaloffsetminutes": true,
	"maxdatetime": true, "mindatetime": true, "round": true, "floor": true, "ceiling": true, "cast": true,
	"isof": true, "hassubset": true, "hassubsequence": true, "case": true,
	"geo.distance": true, "geo.length": true, "geo.intersects": true,
}

func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// noOperator marks the left operand of a level in binaryLevel's callbacks.
const noOperator BinaryOp = 255

// binaryLevel converts one precedence level: first (op rest[i])*, left-associative. A level with operators
// counts one nesting level.
func binaryLevel[T any, PT interface {
	*T
	start() int
}](c *converter, first PT, rest []PT, depth int,
	sub func(*converter, PT, int, BinaryOp) (Expr, *Error)) (Expr, *Error) {
	if len(rest) == 0 {
		return sub(c, first, depth, noOperator)
	}
	operators := make([]lexer.Token, len(rest))
	for i, r := range rest {
		t, ok := c.operatorBefore(r.start())
		if !ok {
			return nil, syntaxErrorAt(r.start(), "expected operator")
		}
		operators[i] = t
	}
	depth++
	if depth > maxNesting {
		return nil, nestingError(operators[0].Pos.Offset)
	}
	left, err := sub(c, first, depth, noOperator)
	if err != nil {
		return nil, err
	}
	for i, r := range rest {
		op := binaryOperators[operators[i].Value]
		right, err := sub(c, r, depth, op)
		if err != nil {
			return nil, err
		}
		left = &Binary{Pos: operators[i].Pos.Offset, Op: op, Left: left, Right: right}
	}
	return left, nil
}

// operatorBefore returns the last binary operator token before offset off.
func (c *converter) operatorBefore(off int) (lexer.Token, bool) {
	lo, hi := 0, len(c.operators)
	for lo < hi {
		m := (lo + hi) / 2
		if c.operators[m].Pos.Offset < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return lexer.Token{}, false
	}
	return c.operators[lo-1], true
}

var binaryOperators = map[string]BinaryOp{"or": OpOr, "and": OpAnd, "eq": OpEq, "ne": OpNe, "gt": OpGt, "ge": OpGe,
	"lt": OpLt, "le": OpLe, "has": OpHas, "in": OpIn, "add": OpAdd, "sub": OpSub, "mul": OpMul, "div": OpDiv,
	"divby": OpDivBy, "mod": OpMod}

func (c *converter) expr(g *grammarExpr, depth int) (Expr, *Error) {
	if g == nil {
		return nil, syntaxErrorAt(0, "expected expression")
	}
	return binaryLevel(c, &g.grammarAnd, g.Right, depth, (*converter).and)
}

func (c *converter) and(g *grammarAnd, depth int, _ BinaryOp) (Expr, *Error) {
	return binaryLevel(c, &g.grammarEquality, g.Right, depth, (*converter).eq)
}

func (c *converter) eq(g *grammarEquality, depth int, _ BinaryOp) (Expr, *Error) {
	return binaryLevel(c, &g.grammarRelational, g.Right, depth, (*converter).rel)
}

func (c *converter) rel(g *grammarRelational, depth int, _ BinaryOp) (Expr, *Error) {
	return binaryLevel(c, &g.grammarAdditive, g.Right, depth, (*converter).relOperand)
}

// relOperand converts an operand of the relational level; after in, a parenthesised group is a list.
func (c *converter) relOperand(g *grammarAdditive, depth int, op BinaryOp) (Expr, *Error) {
	if p := bareParen(g); op == OpIn && p != nil {
		return c.list(p, depth)
	}
	return c.add(g, depth, op)
}

func (c *converter) add(g *grammarAdditive, depth int, _ BinaryOp) (Expr, *Error) {
	return binaryLevel(c, &g.grammarMultiplicative, g.Right, depth, (*converter).mul)
}

func (c *converter) mul(g *grammarMultiplicative, depth int, _ BinaryOp) (Expr, *Error) {
	unary := func(c *converter, u *grammarUnary, depth int, _ BinaryOp) (Expr, *Error) { return c.unary(u, depth) }
	return binaryLevel(c, &g.grammarUnary, g.Right, depth, unary)
}

// bareParen returns the parenthesis group that is all of g, if it is one.
func bareParen(g *grammarAdditive) *grammarParenthesised {
	if len(g.Right) > 0 || len(g.grammarMultiplicative.Right) > 0 {
		return nil
	}
	return g.Paren
}

// list converts the parenthesised list after in: every item must be a literal (or a parameter alias), except
// that a single non-literal item is an ordinary parenthesised expression ("x in (Names)").
func (c *converter) list(p *grammarParenthesised, depth int) (Expr, *Error) {
	depth++
	if depth > maxNesting {
		return nil, nestingError(p.Open.Pos.Offset)
	}
	if len(p.Items) > c.limits.InListItems {
		return nil, limitErrorAt(p.Open.Pos.Offset, fmt.Sprintf("the list holds more than the limit of %d items", c.limits.InListItems))
	}
	l := &List{Pos: p.Open.Pos.Offset, Items: make([]Expr, 0, len(p.Items))}
	for _, it := range p.Items {
		e, err := c.expr(it, depth)
		if err != nil {
			return nil, err
		}
		if !isListItem(e) {
			if len(p.Items) == 1 {
				return e, nil
			}
			return nil, syntaxErrorAt(e.Position(), "expected literal in list")
		}
		l.Items = append(l.Items, e)
	}
	return l, nil
}

func isListItem(e Expr) bool {
	switch e := e.(type) {
	case *Literal:
		return true
	case *Path:
		return e.Base == BaseAlias && len(e.Segments) == 0
	}
	return false
}

// unary converts an operand: a literal, a path, a prefix operator, a parenthesised expression, a JSON array or
// a JSON object.
func (c *converter) unary(g *grammarUnary, depth int) (Expr, *Error) {
	switch {
	case g.Literal.Type != 0:
		return literal(g.Literal, c.limits)
	case g.Path != nil:
		return c.path(g.Path, depth)
	case g.Op.Type != 0:
		return c.prefixOperator(g, depth)
	case g.JSONString.Type != 0:
		return literal(g.JSONString, c.limits)
	case g.Paren != nil:
		if len(g.Paren.Items) != 1 {
			return nil, syntaxErrorAt(g.Paren.Open.Pos.Offset, "a parenthesised list is only allowed after in")
		}
		return c.nestedAt(g.Paren.Items[0], g.Paren.Open.Pos.Offset, depth)
	case g.Array != nil:
		return c.array(g.Array, depth)
	case g.Object != nil:
		return c.object(g.Object, depth)
	}
	return nil, syntaxErrorAt(0, "expected expression")
}

// prefixOperator converts not X or -X.
func (c *converter) prefixOperator(g *grammarUnary, depth int) (Expr, *Error) {
	if g.X == nil {
		return nil, syntaxErrorAt(g.Op.Pos.Offset, "expected expression")
	}
	depth++
	if depth > maxNesting {
		return nil, nestingError(g.Op.Pos.Offset)
	}
	x, err := c.unary(g.X, depth)
	if err != nil {
		return nil, err
	}
	op := OpNot
	if g.Op.Value == "-" {
		op = OpNeg
	}
	return &Unary{Pos: g.Op.Pos.Offset, Op: op, X: x}, nil
}

// nestedAt converts an expression one nesting level deeper, inside brackets that open at offset open.
func (c *converter) nestedAt(g *grammarExpr, open, depth int) (Expr, *Error) {
	depth++
	if depth > maxNesting {
		return nil, nestingError(open)
	}
	return c.expr(g, depth)
}

// array converts a JSON array, whose items may be any expressions.
func (c *converter) array(g *grammarArray, depth int) (Expr, *Error) {
	depth++
	if depth > maxNesting {
		return nil, nestingError(g.Open.Pos.Offset)
	}
	l := &List{Pos: g.Open.Pos.Offset, Brackets: true, Items: make([]Expr, 0, len(g.Items))}
	for _, it := range g.Items {
		e, err := c.expr(it, depth)
		if err != nil {
			return nil, err
		}
		l.Items = append(l.Items, e)
	}
	return l, nil
}

// object checks a JSON object's members and returns its source text, percent-decoded.
func (c *converter) object(g *grammarObject, depth int) (Expr, *Error) {
	depth++
	if depth > maxNesting {
		return nil, nestingError(g.Open.Pos.Offset)
	}
	for _, m := range g.Members {
		if _, err := literal(m.Name, c.limits); err != nil {
			return nil, err
		}
		if _, err := c.expr(m.Value, depth); err != nil {
			return nil, err
		}
	}
	start, end := g.Open.Pos.Offset-c.base, g.Close.Pos.Offset-c.base
	_, w := decodeAt(c.source, end)
	end += w
	if start < 0 || end > len(c.source) || start > end {
		return nil, syntaxErrorAt(g.Open.Pos.Offset, "invalid JSON object")
	}
	return &JSON{Pos: g.Open.Pos.Offset, Raw: decode(c.source[start:end])}, nil
}

func hasBlob(args []*grammarArguments) bool {
	for _, a := range args {
		if a.Blob.Type != 0 {
			return true
		}
	}
	return false
}

func isDollar(t lexer.Token, name string) bool {
	return nameKind(t) == tokenDollar && strings.EqualFold(t.Value, name)
}

// path converts a member path, a canonical function call, a lambda or a $count.
func (c *converter) path(g *grammarPath, depth int) (Expr, *Error) {
	first := &grammarSegment{Name: g.Name, Args: g.Args}
	p := &Path{Pos: g.Name.Pos.Offset}
	segments := g.Rest
	switch nameKind(g.Name) {
	case tokenDollar:
		if err := dollarBase(p, first, len(g.Rest)); err != nil {
			return nil, err
		}
	case tokenAtName:
		if !strings.ContainsAny(g.Name.Value, ".#") && len(first.Args) == 0 {
			p.Base, p.Alias = BaseAlias, g.Name.Value[1:]
		} else {
			segments = withFirst(first, g.Rest) // an annotation or a qualified function
		}
	default:
		name := lower(g.Name.Value)
		if len(first.Args) == 1 && len(g.Rest) == 0 && canonicalFunctions[name] {
			return c.call(first, name, depth)
		}
		if err := checkPathStart(g, name); err != nil {
			return nil, err
		}
		segments = withFirst(first, g.Rest)
	}
	return c.pathSegments(p, segments, depth)
}

// withFirst returns first followed by rest, in a new slice.
func withFirst(first *grammarSegment, rest []*grammarSegment) []*grammarSegment {
	return append(append(make([]*grammarSegment, 0, 1+len(rest)), first), rest...)
}

// dollarBase sets the base of a path that starts with $it, $this or $root; restCount is the number of segments
// after it.
func dollarBase(p *Path, first *grammarSegment, restCount int) *Error {
	name := first.Name
	switch {
	case isDollar(name, "$it"):
		p.Base = BaseIt
	case isDollar(name, "$this"):
		p.Base = BaseThis
	case isDollar(name, "$root"):
		p.Base = BaseRoot
		if restCount == 0 {
			return syntaxErrorAt(name.Pos.Offset+len(name.Value), `expected "/" after $root`)
		}
	case isDollar(name, "$these"):
		p.Base = BaseThese
		if restCount == 0 {
			return syntaxErrorAt(name.Pos.Offset+len(name.Value), `expected "/aggregate(...)" or "/$count" after $these`)
		}
	default:
		return syntaxErrorAt(name.Pos.Offset, "unexpected "+describe(name))
	}
	if len(first.Args) > 0 {
		return syntaxErrorAt(name.Pos.Offset+len(name.Value), "unexpected "+`"("`)
	}
	return nil
}

// checkPathStart rejects a path that starts with any or all (a lambda needs a collection before it) or that
// is a type name alone. lowerName is the first name in lower case.
func checkPathStart(g *grammarPath, lowerName string) *Error {
	end := g.Name.Pos.Offset + len(g.Name.Value)
	if lowerName == "any" || lowerName == "all" {
		return syntaxErrorAt(end, lowerName+" must follow a collection path")
	}
	if len(g.Rest) == 0 && len(g.Args) == 0 && strings.IndexByte(g.Name.Value, '.') > 0 {
		return syntaxErrorAt(end, `expected "/" after type name `+g.Name.Value)
	}
	return nil
}

// pathSegments converts the segments of p; a $count or a lambda ends the path and becomes the expression.
func (c *converter) pathSegments(p *Path, segments []*grammarSegment, depth int) (Expr, *Error) {
	p.Segments = make([]Segment, 0, len(segments))
	for i, s := range segments {
		n := s.Name
		var segment Segment
		var err *Error
		switch {
		case isDollar(n, "$count"):
			if i < len(segments)-1 {
				return nil, syntaxErrorAt(segments[i+1].Name.Pos.Offset-1, "$count must be the last segment")
			}
			return c.count(p, s)
		case isDollar(n, "$filter"):
			segment, err = c.filterSegment(s, depth)
		case isAggregateCall(s):
			if i < len(segments)-1 {
				return nil, syntaxErrorAt(segments[i+1].Name.Pos.Offset-1, "aggregate() must be the last segment")
			}
			return c.aggregateCall(p, s, depth)
		case p.Base == BaseThese && !isDollar(n, "$count"):
			return nil, syntaxErrorAt(n.Pos.Offset, `expected "aggregate(...)" or "$count" after $these`)
		case nameKind(n) == tokenDollar:
			return nil, syntaxErrorAt(n.Pos.Offset, "unexpected "+describe(n))
		case isLambda(s):
			if i < len(segments)-1 {
				return nil, syntaxErrorAt(segments[i+1].Name.Pos.Offset-1, n.Value+"() must be the last segment")
			}
			return c.lambda(p, s, depth)
		default:
			segment, err = c.memberSegment(s, depth)
		}
		if err != nil {
			return nil, err
		}
		p.Segments = append(p.Segments, segment)
	}
	return p, nil
}

// isLambda reports whether s is any(...) or all(...).
func isLambda(s *grammarSegment) bool {
	return nameKind(s.Name) == tokenIdentifier && len(s.Args) > 0 &&
		(strings.EqualFold(s.Name.Value, "any") || strings.EqualFold(s.Name.Value, "all"))
}

// count converts path/$count, with its nested options in parentheses.
func (c *converter) count(p *Path, s *grammarSegment) (Expr, *Error) {
	count := &Count{Pos: s.Name.Pos.Offset, Path: p}
	switch {
	case len(s.Args) == 1 && s.Args[0].Blob.Type != 0:
		q, err := c.nestedOptions(s.Args[0].Blob, countOptions)
		if err != nil {
			return nil, err
		}
		count.Options = q
	case len(s.Args) > 0:
		return nil, syntaxErrorAt(s.Args[0].Open.Pos.Offset, "unexpected "+`"("`)
	}
	return count, nil
}

// filterSegment converts $filter(expression), possibly followed by a key predicate.
func (c *converter) filterSegment(s *grammarSegment, depth int) (Segment, *Error) {
	n := s.Name
	if len(s.Args) == 0 || !isSingleExpression(s.Args[0]) {
		return Segment{}, syntaxErrorAt(n.Pos.Offset+len(n.Value), "expected (expression) after $filter")
	}
	e, err := c.nested(s.Args[0].Args[0].Value, depth)
	if err != nil {
		return Segment{}, err
	}
	segment := Segment{Pos: n.Pos.Offset, Name: "$filter",
		Args: []ArgList{{Pos: s.Args[0].Open.Pos.Offset, Args: []Arg{{Pos: e.Position(), Value: e}}}}}
	if err := c.appendArgLists(&segment, s.Args[1:], depth); err != nil {
		return Segment{}, err
	}
	return segment, nil
}

// isSingleExpression reports whether an argument list is one unnamed expression.
func isSingleExpression(a *grammarArguments) bool {
	return len(a.Args) == 1 && a.Args[0].Name.Type == 0 && a.Args[0].Then == nil && a.Args[0].Tail == nil
}

// tailError refuses the tail of an argument ("as Alias", "desc", "with sum") outside $apply.
func tailError(a *grammarArgument) *Error {
	if a.Tail == nil {
		return nil
	}
	t := a.Tail
	switch {
	case t.Direction.Type != 0:
		return syntaxErrorAt(t.Direction.Pos.Offset, "unexpected "+describe(t.Direction))
	case t.As.Type != 0:
		return syntaxErrorAt(t.As.Pos.Offset, `unexpected alias `+strconv.Quote(t.As.Value))
	case t.Start.Type != 0:
		return syntaxErrorAt(t.Start.Pos.Offset, `unexpected "start"`)
	}
	return syntaxErrorAt(exprStart(a.Value), "unexpected aggregation outside $apply")
}

// memberSegment converts a property, navigation, type cast or function segment with its argument lists.
func (c *converter) memberSegment(s *grammarSegment, depth int) (Segment, *Error) {
	if hasBlob(s.Args) {
		return Segment{}, syntaxErrorAt(s.Args[0].Open.Pos.Offset, "unexpected "+`"("`)
	}
	segment := Segment{Pos: s.Name.Pos.Offset, Name: s.Name.Value}
	if err := c.appendArgLists(&segment, s.Args, depth); err != nil {
		return Segment{}, err
	}
	return segment, nil
}

// appendArgLists converts argument lists and appends them to the segment's.
func (c *converter) appendArgLists(segment *Segment, lists []*grammarArguments, depth int) *Error {
	for _, a := range lists {
		args, err := c.args(a, depth)
		if err != nil {
			return err
		}
		segment.Args = append(segment.Args, ArgList{Pos: a.Open.Pos.Offset, Args: args})
	}
	return nil
}

// nested converts an expression inside parentheses of a path ($filter(...), arguments).
func (c *converter) nested(g *grammarExpr, depth int) (Expr, *Error) {
	depth++
	if depth > maxNesting {
		return nil, nestingError(exprStart(g))
	}
	return c.expr(g, depth)
}

func (c *converter) args(a *grammarArguments, depth int) ([]Arg, *Error) {
	depth++
	if depth > maxNesting {
		return nil, nestingError(a.Open.Pos.Offset)
	}
	out := make([]Arg, 0, len(a.Args))
	for _, argument := range a.Args {
		if argument.Then != nil {
			return nil, syntaxErrorAt(exprStart(argument.Then)-1, `unexpected ":"`)
		}
		if err := tailError(argument); err != nil {
			return nil, err
		}
		e, err := c.expr(argument.Value, depth)
		if err != nil {
			return nil, err
		}
		if c.inPath && !isListItem(e) {
			return nil, syntaxErrorAt(e.Position(), "expected literal or parameter alias")
		}
		out = append(out, Arg{Pos: e.Position(), Name: argument.Name.Value, Value: e})
		if argument.Name.Type != 0 {
			out[len(out)-1].Pos = argument.Name.Pos.Offset
		}
	}
	return out, nil
}

func (c *converter) lambda(p *Path, s *grammarSegment, depth int) (Expr, *Error) {
	n := s.Name
	kind := Any
	if strings.EqualFold(n.Value, "all") {
		kind = All
	}
	if len(s.Args) != 1 {
		return nil, syntaxErrorAt(s.Args[1].Open.Pos.Offset, "unexpected "+`"("`)
	}
	l := &Lambda{Pos: n.Pos.Offset, Path: p, Kind: kind}
	args := s.Args[0].Args
	if len(args) == 0 {
		if kind == All {
			return nil, syntaxErrorAt(s.Args[0].Open.Pos.Offset+1, "all() needs a lambda variable and a predicate")
		}
		return l, nil
	}
	a := args[0]
	if err := tailError(a); err != nil {
		return nil, err
	}
	if len(args) > 1 {
		return nil, syntaxErrorAt(exprStart(args[1].Value), "expected \")\" after the lambda predicate")
	}
	v, err := c.expr(a.Value, depth)
	if err != nil {
		return nil, err
	}
	variable, ok := v.(*Path)
	if !ok || a.Name.Type != 0 || variable.Base != BaseImplicit || len(variable.Segments) != 1 ||
		len(variable.Segments[0].Args) > 0 || variable.Segments[0].IsQualified() {
		return nil, syntaxErrorAt(v.Position(), "expected lambda variable name")
	}
	if a.Then == nil {
		return nil, syntaxErrorAt(v.Position()+len(variable.Segments[0].Name), `expected ":" after the lambda variable`)
	}
	c.lambdas++
	defer func() { c.lambdas-- }()
	if c.lambdas > c.limits.LambdaDepth {
		return nil, limitErrorAt(n.Pos.Offset, fmt.Sprintf("lambda nesting exceeds the limit of %d levels", c.limits.LambdaDepth))
	}
	if c.lambdaCount++; c.lambdaCount > c.limits.Lambdas {
		return nil, limitErrorAt(n.Pos.Offset, fmt.Sprintf("the expression holds more than the limit of %d lambdas (any/all)", c.limits.Lambdas))
	}
	depth++
	if depth > maxNesting {
		return nil, nestingError(n.Pos.Offset)
	}
	body, err := c.expr(a.Then, depth)
	if err != nil {
		return nil, err
	}
	l.Var, l.Body = variable.Segments[0].Name, body
	return l, nil
}

// call converts a canonical function call.
func (c *converter) call(s *grammarSegment, name string, depth int) (Expr, *Error) {
	depth++
	if depth > maxNesting {
		return nil, nestingError(s.Name.Pos.Offset)
	}
	arguments := s.Args[0]
	pos := s.Name.Pos.Offset
	if name == "case" {
		cs := &Case{Pos: pos}
		if len(arguments.Args) == 0 {
			return nil, syntaxErrorAt(arguments.Open.Pos.Offset+1, "case() needs at least one condition:value pair")
		}
		for _, a := range arguments.Args {
			if err := tailError(a); err != nil {
				return nil, err
			}
			if a.Then == nil || a.Name.Type != 0 {
				return nil, syntaxErrorAt(arguments.Open.Pos.Offset+1, `expected "condition:value" in case()`)
			}
			w, err := c.expr(a.Value, depth)
			if err != nil {
				return nil, err
			}
			t, err := c.expr(a.Then, depth)
			if err != nil {
				return nil, err
			}
			cs.Branches = append(cs.Branches, CaseBranch{When: w, Then: t})
		}
		return cs, nil
	}
	call := &Call{Pos: pos, Name: name, Args: make([]Arg, 0, len(arguments.Args))}
	for i, a := range arguments.Args {
		if a.Then != nil {
			return nil, syntaxErrorAt(exprStart(a.Then)-1, `unexpected ":"`)
		}
		if err := tailError(a); err != nil {
			return nil, err
		}
		if a.Name.Type != 0 {
			return nil, syntaxErrorAt(a.Name.Pos.Offset, "unexpected parameter name in "+name+"()")
		}
		if (name == "cast" || name == "isof") && i == len(arguments.Args)-1 {
			typeArgument, ok := typeName(a.Value)
			if !ok {
				return nil, syntaxErrorAt(exprStart(a.Value), "expected type name")
			}
			call.Args = append(call.Args, Arg{Pos: typeArgument.Pos, Value: typeArgument})
			continue
		}
		e, err := c.expr(a.Value, depth)
		if err != nil {
			return nil, err
		}
		call.Args = append(call.Args, Arg{Pos: e.Position(), Value: e})
	}
	if name == "matchespattern" && len(call.Args) == 2 {
		if err := checkPatternSize(call.Args[1].Value, c.limits.PatternSize); err != nil {
			return nil, err
		}
	}
	return call, nil
}

// checkPatternSize refuses a matchesPattern pattern literal whose compiled program is past the limit: a
// regular expression engine's time grows with the program times the text ("(a{1,100}){1,10}c" compiles to
// about 2,000 instructions). A pattern Go's parser does not read is left to the database to judge.
func checkPatternSize(pattern Expr, limit int) *Error {
	l, ok := pattern.(*Literal)
	if !ok || l.Kind != LitString {
		return nil
	}
	re, err := regexpsyntax.Parse(l.Value.(string), regexpsyntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := regexpsyntax.Compile(re.Simplify())
	if err != nil || len(prog.Inst) > limit {
		return limitErrorAt(l.Pos, fmt.Sprintf("the pattern of matchesPattern exceeds the limit of %d compiled instructions", limit))
	}
	return nil
}

// exprStart returns the offset where a grammar expression starts.
func exprStart(g *grammarExpr) int { return g.start() }

// quotedTypeName is what a quoted type argument of cast or isof may spell: a (qualified) name or
// Collection(name).
var quotedTypeName = regexp.MustCompile(`^(?:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*|Collection\([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\))$`)

// typeName reads the type argument of cast or isof: a (qualified) name or Collection(name).
func typeName(g *grammarExpr) (*TypeName, bool) {
	if len(g.Right) > 0 || len(g.grammarAnd.Right) > 0 || len(g.grammarEquality.Right) > 0 ||
		len(g.grammarRelational.Right) > 0 || len(g.grammarAdditive.Right) > 0 || len(g.grammarMultiplicative.Right) > 0 {
		return nil, false
	}
	u := &g.grammarUnary
	if quoted, ok := strings.CutPrefix(u.Literal.Value, "'"); ok && strings.HasSuffix(quoted, "'") {
		// A type name in quotes, cast(CreatedAt, 'Edm.Date'): not in the ABNF (the name is bare), but written
		// by clients of OData 2 and 3, where it was a string; accepted as the name it spells.
		name := quoted[:len(quoted)-1]
		if !quotedTypeName.MatchString(name) {
			return nil, false
		}
		return &TypeName{Pos: u.Literal.Pos.Offset + 1, Name: name}, true
	}
	if u.Path == nil || len(u.Path.Rest) > 0 {
		return nil, false
	}
	s := &grammarSegment{Name: u.Path.Name, Args: u.Path.Args}
	if nameKind(s.Name) != tokenIdentifier || hasBlob(s.Args) {
		return nil, false
	}
	switch len(s.Args) {
	case 0:
		return &TypeName{Pos: s.Name.Pos.Offset, Name: s.Name.Value}, true
	case 1:
		if s.Name.Value != "Collection" || len(s.Args[0].Args) != 1 || s.Args[0].Args[0].Name.Type != 0 || s.Args[0].Args[0].Then != nil ||
			s.Args[0].Args[0].Tail != nil {
			return nil, false
		}
		inner, ok := typeName(s.Args[0].Args[0].Value)
		if !ok || strings.HasPrefix(inner.Name, "Collection(") {
			return nil, false
		}
		return &TypeName{Pos: s.Name.Pos.Offset, Name: "Collection(" + inner.Name + ")"}, true
	}
	return nil, false
}

package syntax

import (
	"fmt"
	"math"
)

// Limits bound what the parsers accept, so that no request makes the engine do unbounded work: past one, a parse
// fails with an *Error of Code LimitExceeded whose message names the limit. A zero field takes its default (the
// limits of SPEC part 9 where it names them); a negative field means no limit. Whatever the limits say, brackets,
// prefix operators and operator levels nest at most 64 deep: that bound keeps the parser's recursion finite.
//
// The package-level parsers (ParseQuery, ParseFilter, ...) parse with the defaults; the methods of the same
// names parse with l.
type Limits struct {
	// ExpandDepth is the deepest nesting of $expand ($expand=A($expand=B($expand=C)) is 3): DefaultExpandDepth
	// by default.
	ExpandDepth int
	// LambdaDepth is the deepest nesting of any/all in one expression: DefaultLambdaDepth by default.
	LambdaDepth int
	// Lambdas is the number of any/all in one expression: DefaultLambdas by default.
	Lambdas int
	// LiteralLength is the number of characters of one literal (a string's text without its quotes):
	// DefaultLiteralLength by default.
	LiteralLength int
	// PatternSize is the size of a matchesPattern pattern, in instructions of its compiled program (Go's
	// regexp/syntax): DefaultPatternSize by default. A regular expression engine's time grows with the program
	// times the text.
	PatternSize int
	// InListItems is the number of items of the list after in: DefaultInListItems by default.
	InListItems int
	// ExpressionNodes is the number of nodes (operands, operators, function calls, list items) of one
	// expression: a $filter, a parameter alias, all the items of an $orderby or a $compute, each nested option on
	// its own: DefaultExpressionNodes by default.
	ExpressionNodes int
	// ExpressionLength is the number of bytes of the raw (still percent-encoded) value of one expression option
	// ($filter, $orderby, $search, $compute, $apply, a parameter alias; each nested option on its own):
	// DefaultExpressionLength by default.
	ExpressionLength int
	// ApplyTransformations is the number of transformations of one $apply, those of nested sequences (groupby,
	// concat, join, ...) included: DefaultApplyTransformations by default. Each is a step of the SQL the
	// planner writes.
	ApplyTransformations int
}

// The defaults of the fields of Limits, one each: the value a zero field stands for. Those SPEC part 9 names
// are its values.
const (
	// DefaultExpandDepth is the default of Limits.ExpandDepth.
	DefaultExpandDepth = 3
	// DefaultLambdaDepth is the default of Limits.LambdaDepth.
	DefaultLambdaDepth = 4
	// DefaultLambdas is the default of Limits.Lambdas.
	DefaultLambdas = 32
	// DefaultLiteralLength is the default of Limits.LiteralLength.
	DefaultLiteralLength = 1000
	// DefaultPatternSize is the default of Limits.PatternSize.
	DefaultPatternSize = 1000
	// DefaultInListItems is the default of Limits.InListItems.
	DefaultInListItems = 1000
	// DefaultExpressionNodes is the default of Limits.ExpressionNodes.
	DefaultExpressionNodes = 3000
	// DefaultExpressionLength is the default of Limits.ExpressionLength: 16 KiB, the longest URL of SPEC part 9.
	DefaultExpressionLength = 16 << 10
	// DefaultApplyTransformations is the default of Limits.ApplyTransformations.
	DefaultApplyTransformations = 32
)

// WithDefaults returns l with every zero field set to its default; negative fields (no limit) stay as they are.
func (l Limits) WithDefaults() Limits {
	orDefault := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	orDefault(&l.ExpandDepth, DefaultExpandDepth)
	orDefault(&l.LambdaDepth, DefaultLambdaDepth)
	orDefault(&l.Lambdas, DefaultLambdas)
	orDefault(&l.LiteralLength, DefaultLiteralLength)
	orDefault(&l.PatternSize, DefaultPatternSize)
	orDefault(&l.InListItems, DefaultInListItems)
	orDefault(&l.ExpressionNodes, DefaultExpressionNodes)
	orDefault(&l.ExpressionLength, DefaultExpressionLength)
	orDefault(&l.ApplyTransformations, DefaultApplyTransformations)
	return l
}

// bounds returns the limits the parsers check: the defaults for zero fields, math.MaxInt for negative ones.
func (l Limits) bounds() *Limits {
	b := l.WithDefaults()
	for _, v := range []*int{&b.ExpandDepth, &b.LambdaDepth, &b.Lambdas, &b.LiteralLength, &b.PatternSize,
		&b.InListItems, &b.ExpressionNodes, &b.ExpressionLength, &b.ApplyTransformations} {
		if *v < 0 {
			*v = math.MaxInt
		}
	}
	return &b
}

// defaultBounds are the bounds of the package-level parsers.
var defaultBounds = Limits{}.bounds()

// ParseQuery is the package-level ParseQuery with the limits l.
func (l Limits) ParseQuery(raw string) (*Query, error) {
	q, err := parseQuery(formSpaces(raw), l.bounds())
	if err != nil {
		return nil, err
	}
	return q, nil
}

// ParsePath is the package-level ParsePath with the limits l (on the literals of key predicates and function
// parameters).
func (l Limits) ParsePath(raw string) (*ResourcePath, error) { return l.ParsePathIn(raw, nil) }

// PathRoom is memory for the tree of one frequent path (ParsePath reads them without the grammar), which a caller
// that holds memory per request gives ParsePathIn to save the tree's allocation.
type PathRoom struct{ simple simplePath }

// ParsePathIn is ParsePath making the tree of a frequent path in room, when room is not nil: the tree then
// points into room, which must outlive it and hold no other tree.
func (l Limits) ParsePathIn(raw string, room *PathRoom) (*ResourcePath, error) {
	var into *simplePath
	if room != nil {
		into = &room.simple
	}
	if p := parseSimplePath(raw, into); p != nil { // before the bounds, which the simple paths do not need
		return p, nil
	}
	return parseResourcePath(raw, l.bounds())
}

// ParseFilter is the package-level ParseFilter with the limits l.
func (l Limits) ParseFilter(raw string) (Expr, error) {
	return parseFilter(raw, l.bounds())
}

// ParseExpr is the package-level ParseExpr with the limits l.
func (l Limits) ParseExpr(raw string) (Expr, error) {
	return parseExpr(raw, l.bounds())
}

// checkLength refuses the raw value of an expression option that is longer than the limit.
func checkLength(value string, base int, lim *Limits) *Error {
	if len(value) > lim.ExpressionLength {
		return limitErrorAt(base, fmt.Sprintf("the value is longer than the limit of %d bytes", lim.ExpressionLength))
	}
	return nil
}

// checkNodes refuses expressions that hold more nodes, in all, than the limit; pos is where they start.
func checkNodes(pos int, lim *Limits, exprs ...Expr) *Error {
	if lim.ExpressionNodes == math.MaxInt {
		return nil
	}
	budget := lim.ExpressionNodes
	for _, e := range exprs {
		if budget = countNodes(e, budget); budget < 0 {
			return limitErrorAt(pos, fmt.Sprintf("the expression holds more than the limit of %d nodes", lim.ExpressionNodes))
		}
	}
	return nil
}

// countNodes returns budget less the number of nodes of e, or a negative number as soon as it runs out. Nodes
// are the expressions of the tree: operands (literals, paths and their key and function arguments), operators,
// calls, lambdas, $count, list items. The nested options of a $count are counted on their own when they are
// parsed.
func countNodes(e Expr, budget int) int {
	if p, ok := e.(*Path); ok || e == nil {
		return countPathNodes(p, budget)
	}
	if budget--; budget < 0 {
		return budget
	}
	switch n := e.(type) {
	case *Binary:
		return countNodes(n.Right, countNodes(n.Left, budget))
	case *Unary:
		return countNodes(n.X, budget)
	case *Call:
		for _, a := range n.Args {
			budget = countNodes(a.Value, budget)
		}
	case *Lambda:
		return countNodes(n.Body, countPathNodes(n.Path, budget))
	case *Count:
		return countPathNodes(n.Path, budget)
	case *Aggregate:
		budget = countPathNodes(n.Path, budget)
		if n.Item.Expr != nil {
			budget = countNodes(n.Item.Expr, budget)
		}
		for _, f := range n.Item.From {
			for _, e := range f.Exprs {
				budget = countNodes(e, budget)
			}
		}
	case *List:
		for _, it := range n.Items {
			budget = countNodes(it, budget)
		}
	case *Case:
		for _, branch := range n.Branches {
			budget = countNodes(branch.Then, countNodes(branch.When, budget))
		}
	}
	return budget
}

// countPathNodes counts the node of path p and the arguments of its segments.
func countPathNodes(p *Path, budget int) int {
	if p == nil {
		return budget
	}
	if budget--; budget < 0 {
		return budget
	}
	for _, s := range p.Segments {
		for _, list := range s.Args {
			for _, a := range list.Args {
				if budget = countNodes(a.Value, budget); budget < 0 {
					return budget
				}
			}
		}
	}
	return budget
}

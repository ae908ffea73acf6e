package syntax

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// $apply (OData Data Aggregation 4.0 and its 4.01 additions): a sequence of transformations separated by "/".
// The participle grammar reads the sequence as a member path whose segments are the transformations and whose
// argument lists may end in a tail (grammarTail: "with sum as Total", "as Alias", "desc"); the converter below
// checks what each transformation takes and builds Transformation values.

// Transformation is one transformation of a $apply sequence. Name says which one, and which of the fields
// below hold its arguments.
type Transformation struct {
	Pos int
	// Name is the transformation in lower case ("aggregate", "groupby", "filter", "search", "compute",
	// "orderby", "top", "skip", "topcount", "bottomcount", "toppercent", "bottompercent", "topsum",
	// "bottomsum", "concat", "identity", "join", "outerjoin", "addnested", "nest", "expand", "ancestors",
	// "descendants", "traverse"), or the qualified name of a custom function as spelt ("Self.TopCount").
	Name string
	// Aggregates are the items of aggregate.
	Aggregates []AggregateItem
	// Groups are the grouping properties of groupby.
	Groups []GroupItem
	// Sequence is the transformation sequence of groupby (after the grouping properties), join, outerjoin,
	// addnested and expand (after the navigation path), and the one that finds the start nodes of ancestors
	// and descendants.
	Sequence []Transformation
	// Sequences are the sequences of concat and nest (nest: Aliases[i] names Sequences[i]), and those of
	// addnested after its first "sequence as alias" (Aliases[i] names Sequences[i] there too).
	Sequences [][]Transformation
	Aliases   []string
	// Filter is the condition of filter; Search the expression of search.
	Filter Expr
	Search SearchExpr
	// Compute are the items of compute; OrderBy the items of orderby and the order of siblings in traverse.
	Compute []ComputeItem
	OrderBy []OrderItem
	// N is the number of top, skip, topcount, bottomcount, toppercent, bottompercent, topsum and bottomsum;
	// Measure the value the last six rank by.
	N       Expr
	Measure Expr
	// Path is the navigation of join, outerjoin, addnested and expand; Alias the name join, outerjoin and
	// addnested give their result.
	Path  *Path
	Alias string
	// Args are the arguments of a custom function.
	Args []Arg
	// Hierarchy holds the arguments of ancestors, descendants and traverse other than Sequence and OrderBy.
	Hierarchy *HierarchyArgs
}

// AggregateItem is one item of aggregate: "Expr with Method as Alias", "$count as Alias", a path ending in
// /$count, or a custom aggregate ("Forecast", "Forecast as F").
type AggregateItem struct {
	Pos int
	// Count is true for "$count as Alias" (Expr is nil).
	Count bool
	// Expr is the aggregated value: a property path, an expression, or a *Count of a navigation.
	Expr Expr
	// Method is "sum", "min", "max", "average", "countdistinct" or a qualified custom method, as spelt; ""
	// for $count, a /$count path and a custom aggregate.
	Method string
	// From are the "from" steps of an aggregation over a grouping property, in order.
	From []AggregateFrom
	// Alias is the name of the result; "" for a custom aggregate without one (it keeps its own name).
	Alias string
}

// AggregateFrom is one "from Paths with Method" step of an aggregate item: its grouping properties, in order,
// and its method ("" when not given).
type AggregateFrom struct {
	Exprs  []Expr
	Method string
}

// GroupItem is one grouping property of groupby: a path, or rollup(...) (Rollup holds its paths; RollupAll
// says the first argument was $all or null, which adds the grand total), or rolluprecursive(...) (Recursive
// holds its arguments: Name "rolluprecursive", the hierarchy in Hierarchy and the transformations that pick
// its nodes, if any, in Sequence).
type GroupItem struct {
	Pos       int
	Path      *Path
	Rollup    []*Path
	RollupAll bool
	Recursive *Transformation
}

// hierarchyTransformations take a hierarchy's arguments, kept as Args.
var hierarchyTransformations = map[string]bool{"ancestors": true, "descendants": true, "traverse": true}

// rankTransformations take a number and a measure.
var rankTransformations = map[string]bool{"topcount": true, "bottomcount": true, "toppercent": true,
	"bottompercent": true, "topsum": true, "bottomsum": true}

// parseApply parses the value of $apply.
func parseApply(source string, base int, lim *Limits) ([]Transformation, *Error) {
	if err := noLeadingSpace(source, base); err != nil {
		return nil, err
	}
	s := newScanner(source, base, modeExpression)
	s.apply = true
	g, err := parse(applyParser, s, expectation)
	if err != nil {
		return nil, err
	}
	c := &converter{operators: s.operators, source: source, base: base, limits: lim}
	seq, err := c.sequence(g.Sequence, 0)
	if err != nil {
		return nil, err
	}
	if n := countTransformations(seq); n > lim.ApplyTransformations {
		return nil, limitErrorAt(base, fmt.Sprintf("$apply holds %d transformations, more than the limit of %d", n, lim.ApplyTransformations))
	}
	if err := checkNodes(base, lim, transformationExprs(nil, seq)...); err != nil {
		return nil, err
	}
	return seq, nil
}

// solePath returns the member path g consists of, nil when g is anything else.
func solePath(g *grammarExpr) *grammarPath {
	if len(g.Right) > 0 || len(g.grammarAnd.Right) > 0 || len(g.grammarEquality.Right) > 0 ||
		len(g.grammarRelational.Right) > 0 || len(g.grammarAdditive.Right) > 0 || len(g.grammarMultiplicative.Right) > 0 {
		return nil
	}
	return g.grammarUnary.Path
}

// sequence converts a transformation sequence.
func (c *converter) sequence(g *grammarExpr, depth int) ([]Transformation, *Error) {
	depth++
	if depth > maxNesting {
		return nil, nestingError(exprStart(g))
	}
	p := solePath(g)
	if p == nil {
		return nil, syntaxErrorAt(exprStart(g), "expected a transformation")
	}
	steps := withFirst(&grammarSegment{Name: p.Name, Args: p.Args}, p.Rest)
	out := make([]Transformation, 0, len(steps))
	for _, s := range steps {
		t, err := c.transformation(s, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// transformation converts one transformation and its arguments.
func (c *converter) transformation(s *grammarSegment, depth int) (Transformation, *Error) {
	if nameKind(s.Name) != tokenIdentifier {
		return Transformation{}, syntaxErrorAt(s.Name.Pos.Offset, "expected a transformation, found "+describe(s.Name))
	}
	if len(s.Args) > 1 {
		return Transformation{}, syntaxErrorAt(s.Args[1].Open.Pos.Offset, `unexpected "("`)
	}
	name := lower(s.Name.Value)
	t := Transformation{Pos: s.Name.Pos.Offset, Name: name}
	if len(s.Args) == 0 {
		if name == "identity" {
			return t, nil
		}
		return t, syntaxErrorAt(s.Name.Pos.Offset+len(s.Name.Value), `expected "(" after `+s.Name.Value)
	}
	a := s.Args[0]
	if name == "identity" {
		return t, syntaxErrorAt(a.Open.Pos.Offset, `unexpected "(" after identity`)
	}
	if name == "search" {
		if a.Blob.Type == 0 {
			return t, syntaxErrorAt(a.Open.Pos.Offset+1, "expected search expression")
		}
		search, err := parseSearch(a.Blob.Value, a.Blob.Pos.Offset)
		t.Search = search
		return t, err
	}
	if len(a.Args) == 0 {
		if strings.IndexByte(name, '.') > 0 { // a custom function without parameters (Self.Condense())
			t.Name = s.Name.Value
			return t, nil
		}
		return t, syntaxErrorAt(a.Open.Pos.Offset+1, "expected the arguments of "+s.Name.Value)
	}
	return t, c.transformationArgs(&t, s, a, depth)
}

// transformationArgs converts the arguments a of the transformation t (named by s) other than identity and
// search, by its name.
func (c *converter) transformationArgs(t *Transformation, s *grammarSegment, a *grammarArguments, depth int) *Error {
	name := t.Name
	var err *Error
	switch {
	case name == "aggregate":
		err = c.aggregate(t, a, depth)
	case name == "groupby":
		err = c.groupBy(t, a, depth)
	case name == "filter":
		t.Filter, err = c.soleExpression(a, depth)
	case name == "compute":
		err = c.applyCompute(t, a, depth)
	case name == "orderby":
		err = c.applyOrderBy(t, a, depth)
	case name == "top" || name == "skip":
		t.N, err = c.soleExpression(a, depth)
		if err == nil && !isNonNegativeInteger(t.N) {
			err = syntaxErrorAt(t.N.Position(), "expected a non-negative integer in "+name+"()")
		}
	case rankTransformations[name]:
		err = c.rank(t, a, depth)
	case name == "concat":
		err = c.concat(t, a, depth)
	case name == "join" || name == "outerjoin" || name == "addnested" || name == "expand":
		err = c.navigationTransformation(t, a, depth)
	case name == "nest":
		err = c.nest(t, a, depth)
	case hierarchyTransformations[name]:
		err = c.hierarchy(t, a, depth)
	case strings.IndexByte(name, '.') > 0:
		t.Name = s.Name.Value
		t.Args, err = c.looseArgs(a, depth)
	default:
		err = syntaxErrorAt(s.Name.Pos.Offset, "unknown transformation "+strconv.Quote(s.Name.Value))
	}
	return err
}

// isNonNegativeInteger reports whether e is an integer literal of at least 0.
func isNonNegativeInteger(e Expr) bool {
	l, ok := e.(*Literal)
	if !ok || l.Kind != LitInt {
		return false
	}
	n, ok := l.Value.(int64)
	return ok && n >= 0
}

// plainValue converts an argument that is one expression without a name or tail.
func (c *converter) plainValue(a *grammarArgument, depth int) (Expr, *Error) {
	if a.Name.Type != 0 {
		return nil, syntaxErrorAt(a.Name.Pos.Offset, "unexpected parameter name")
	}
	if a.Then != nil {
		return nil, syntaxErrorAt(exprStart(a.Then)-1, `unexpected ":"`)
	}
	if err := tailError(a); err != nil {
		return nil, err
	}
	return c.nested(a.Value, depth)
}

// soleExpression converts an argument list of exactly one plain expression.
func (c *converter) soleExpression(a *grammarArguments, depth int) (Expr, *Error) {
	if len(a.Args) > 1 {
		return nil, syntaxErrorAt(exprStart(a.Args[1].Value), `expected ")"`)
	}
	return c.plainValue(a.Args[0], depth)
}

// isDollarCount reports whether g is the bare $count.
func isDollarCount(g *grammarExpr) bool {
	p := solePath(g)
	return p != nil && isDollar(p.Name, "$count") && len(p.Args) == 0 && len(p.Rest) == 0
}

func (c *converter) aggregate(t *Transformation, a *grammarArguments, depth int) *Error {
	for i := 0; i < len(a.Args); i++ {
		arg := a.Args[i]
		var more map[*grammarExpr][]*grammarExpr
		// A "from" list: "Amount with average from Time,Product/Name with max as A" arrives as the arguments
		// "Amount with average from Time" and "Product/Name with max as A". An item whose last "from" lacks the
		// method it needs takes the grouping paths after it, up to the one that has the method.
		for danglingFrom(arg) && i+1 < len(a.Args) && continuesFrom(a.Args[i+1]) {
			steps := arg.Tail.Steps
			last := steps[len(steps)-1].From
			next := a.Args[i+1]
			if more == nil {
				more = map[*grammarExpr][]*grammarExpr{}
			}
			more[last] = append(more[last], next.Value)
			tail := &grammarTail{Steps: steps}
			if next.Tail != nil {
				tail = &grammarTail{Steps: append(steps[:len(steps):len(steps)], next.Tail.Steps...), Alias: next.Tail.Alias}
			}
			arg = &grammarArgument{Value: arg.Value, Tail: tail}
			i++
		}
		item, err := c.aggregateItem(arg, depth, true, more)
		if err != nil {
			return err
		}
		t.Aggregates = append(t.Aggregates, item)
	}
	return nil
}

// isCastAggregation reports whether p, followed by tail, is a type name alone aggregated by a method that may
// take a value that is not primitive: countdistinct or a qualified custom method (Data Aggregation's
// aggrCastPath with nonprimAggMethod).
func isCastAggregation(p *grammarPath, tail *grammarTail) bool {
	if len(p.Args) > 0 || len(p.Rest) > 0 || nameKind(p.Name) != tokenIdentifier || strings.IndexByte(p.Name.Value, '.') <= 0 ||
		tail == nil || len(tail.Steps) == 0 || tail.Steps[0].Method.Type == 0 {
		return false
	}
	m := tail.Steps[0].Method.Value
	return m == "countdistinct" || strings.IndexByte(m, '.') > 0
}

// danglingFrom reports whether a is an aggregate item with a method whose last "from" has none yet.
func danglingFrom(a *grammarArgument) bool {
	if a.Name.Type != 0 || a.Then != nil || a.Tail == nil || a.Tail.Alias.Type != 0 || len(a.Tail.Steps) == 0 ||
		a.Tail.Steps[len(a.Tail.Steps)-1].From == nil {
		return false
	}
	for _, s := range a.Tail.Steps {
		if s.Method.Type != 0 {
			return true
		}
	}
	return false
}

// continuesFrom reports whether a can be a further grouping path of a "from" list: a path, alone or followed by
// "with method ...".
func continuesFrom(a *grammarArgument) bool {
	if a.Name.Type != 0 || a.Then != nil || solePath(a.Value) == nil {
		return false
	}
	return a.Tail == nil || len(a.Tail.Steps) > 0 && a.Tail.Steps[0].Method.Type != 0
}

// aggregateItem converts one aggregate item; the grammar of its tail is checked here: in aggregate() a method
// needs an alias (named says so; in an expression there is none), every "from" after a method has a method of
// its own, and only a custom aggregate may end in a "from" without one.
// more holds the further grouping paths of a "from" list, by its first path.
func (c *converter) aggregateItem(a *grammarArgument, depth int, named bool, more map[*grammarExpr][]*grammarExpr) (AggregateItem, *Error) {
	item := AggregateItem{Pos: exprStart(a.Value)}
	if a.Name.Type != 0 || a.Then != nil {
		return item, syntaxErrorAt(item.Pos, "expected an aggregate expression")
	}
	if isDollarCount(a.Value) {
		item.Count = true
	} else {
		e, err := c.aggregateOperand(a, depth)
		if err != nil {
			return item, err
		}
		item.Expr = e
	}
	tail := a.Tail
	if tail == nil {
		if item.Count && named {
			return item, syntaxErrorAt(item.Pos+len("$count"), `expected "as" and an alias after $count`)
		}
		return item, nil
	}
	if tail.Direction.Type != 0 {
		return item, syntaxErrorAt(tail.Direction.Pos.Offset, "unexpected "+describe(tail.Direction))
	}
	if tail.As.Type != 0 {
		item.Alias = tail.As.Value
		return item, checkAlias(tail.As)
	}
	steps := tail.Steps
	if steps[0].Method.Type != 0 {
		if item.Count {
			return item, syntaxErrorAt(steps[0].Method.Pos.Offset, "$count takes no aggregation method")
		}
		item.Method = steps[0].Method.Value
		steps = steps[1:]
	}
	from, err := c.aggregateFroms(steps, item.Method != "", depth, more)
	if err != nil {
		return item, err
	}
	item.From = from
	if tail.Alias.Type == 0 {
		if named && (item.Method != "" || len(item.From) > 0 && item.From[len(item.From)-1].Method != "") {
			return item, syntaxErrorAt(exprStart(a.Value), `expected "as" and an alias after the aggregation`)
		}
		return item, nil
	}
	item.Alias = tail.Alias.Value
	return item, checkAlias(tail.Alias)
}

// aggregateOperand converts what an aggregate item aggregates: an expression, or a type cast alone, aggregated
// whole by countdistinct or a custom method (Self.Digital with Custom.Discount as D).
func (c *converter) aggregateOperand(a *grammarArgument, depth int) (Expr, *Error) {
	if p := solePath(a.Value); p != nil && isCastAggregation(p, a.Tail) {
		return &Path{Pos: p.Name.Pos.Offset, Base: BaseImplicit,
			Segments: []Segment{{Pos: p.Name.Pos.Offset, Name: p.Name.Value}}}, nil
	}
	return c.nested(a.Value, depth)
}

// aggregateFroms converts the "from" steps of an aggregate item (after its method, if any; hasMethod says so):
// each "from" path list with the method that follows it, which only the last may lack, and only without a method
// on the item (a custom aggregate). more holds the further paths of a list, by its first.
func (c *converter) aggregateFroms(steps []*grammarAggregationStep, hasMethod bool, depth int, more map[*grammarExpr][]*grammarExpr) ([]AggregateFrom, *Error) {
	var froms []AggregateFrom
	for i := 0; i < len(steps); i++ {
		step := steps[i]
		if step.From == nil {
			return nil, syntaxErrorAt(step.Method.Pos.Offset, `expected "from" or "as", found "with"`)
		}
		var from AggregateFrom
		for _, g := range append([]*grammarExpr{step.From}, more[step.From]...) {
			e, err := c.nested(g, depth)
			if err != nil {
				return nil, err
			}
			from.Exprs = append(from.Exprs, e)
		}
		if i+1 < len(steps) && steps[i+1].Method.Type != 0 {
			from.Method = steps[i+1].Method.Value
			i++
		} else if hasMethod || i+1 < len(steps) {
			return nil, syntaxErrorAt(exprStart(step.From), `expected "with" and a method after the "from" path`)
		}
		froms = append(froms, from)
	}
	return froms, nil
}

// checkAlias refuses a qualified alias.
func checkAlias(t lexer.Token) *Error {
	if nameKind(t) != tokenIdentifier || strings.IndexByte(t.Value, '.') >= 0 {
		return syntaxErrorAt(t.Pos.Offset, "expected alias name, found "+describe(t))
	}
	return nil
}

// groupBy converts groupby((grouping properties)[, sequence]).
func (c *converter) groupBy(t *Transformation, a *grammarArguments, depth int) *Error {
	if len(a.Args) > 2 {
		return syntaxErrorAt(exprStart(a.Args[2].Value), `expected ")"`)
	}
	first := a.Args[0]
	paren := first.Value.grammarUnary.Paren
	if paren == nil || solePath(first.Value) != nil || first.Tail != nil || first.Name.Type != 0 || len(paren.Items) == 0 ||
		len(first.Value.Right) > 0 || len(first.Value.grammarAnd.Right) > 0 || len(first.Value.grammarEquality.Right) > 0 ||
		len(first.Value.grammarRelational.Right) > 0 || len(first.Value.grammarAdditive.Right) > 0 ||
		len(first.Value.grammarMultiplicative.Right) > 0 {
		return syntaxErrorAt(exprStart(first.Value), "expected the grouping properties in parentheses")
	}
	for _, item := range paren.Items {
		g, err := c.groupItem(item, depth)
		if err != nil {
			return err
		}
		t.Groups = append(t.Groups, g)
	}
	if len(a.Args) == 2 {
		if err := tailError(a.Args[1]); err != nil {
			return err
		}
		seq, err := c.sequence(a.Args[1].Value, depth)
		if err != nil {
			return err
		}
		t.Sequence = seq
	}
	return nil
}

// groupItem converts one grouping property: a path, rollup(...) or rolluprecursive(...).
func (c *converter) groupItem(g *grammarExpr, depth int) (GroupItem, *Error) {
	item := GroupItem{Pos: exprStart(g)}
	p := solePath(g)
	if p != nil && len(p.Args) == 1 && len(p.Rest) == 0 && nameKind(p.Name) == tokenIdentifier {
		switch lower(p.Name.Value) {
		case "rollup":
			return item, c.rollup(&item, p.Args[0], depth)
		case "rolluprecursive":
			r, err := c.rollupRecursive(p.Args[0], depth)
			item.Recursive = r
			return item, err
		}
	}
	path, err := c.groupingPath(g, depth)
	item.Path = path
	return item, err
}

// groupingPath converts a grouping property path: properties, navigations and type casts, not ending in an
// annotation or a type cast.
func (c *converter) groupingPath(g *grammarExpr, depth int) (*Path, *Error) {
	e, err := c.nested(g, depth)
	if err != nil {
		return nil, err
	}
	p, ok := e.(*Path)
	if !ok || p.Base != BaseImplicit || len(p.Segments) == 0 {
		return nil, syntaxErrorAt(exprStart(g), "expected a grouping property path")
	}
	for _, s := range p.Segments {
		if len(s.Args) > 0 || strings.HasPrefix(s.Name, "@") || strings.HasPrefix(s.Name, "$") {
			return nil, syntaxErrorAt(s.Pos, "expected a grouping property path")
		}
	}
	if p.Segments[len(p.Segments)-1].IsQualified() {
		return nil, syntaxErrorAt(p.Segments[len(p.Segments)-1].Pos, "a grouping property path cannot end in a type cast")
	}
	return p, nil
}

// rollup converts the arguments of rollup: $all or null first (the grand total), then grouping paths.
func (c *converter) rollup(item *GroupItem, a *grammarArguments, depth int) *Error {
	for i, arg := range a.Args {
		if err := tailError(arg); err != nil {
			return err
		}
		if arg.Name.Type != 0 || arg.Then != nil {
			return syntaxErrorAt(exprStart(arg.Value), "expected a grouping property path")
		}
		if i == 0 && isAllOrNull(arg.Value) {
			item.RollupAll = true
			continue
		}
		p, err := c.groupingPath(arg.Value, depth)
		if err != nil {
			return err
		}
		item.Rollup = append(item.Rollup, p)
	}
	if len(item.Rollup) == 0 {
		return syntaxErrorAt(a.Open.Pos.Offset+1, "rollup needs a grouping property")
	}
	return nil
}

// isAllOrNull reports whether g is $all or null, the first argument of a rollup with a grand total.
func isAllOrNull(g *grammarExpr) bool {
	if p := solePath(g); p != nil {
		return isDollar(p.Name, "$all") && len(p.Args) == 0 && len(p.Rest) == 0
	}
	l := g.grammarUnary.Literal
	return l.Type != 0 && strings.EqualFold(l.Value, "null") && len(g.Right) == 0
}

// applyCompute converts compute(expression as alias, ...).
func (c *converter) applyCompute(t *Transformation, a *grammarArguments, depth int) *Error {
	for _, arg := range a.Args {
		if arg.Tail == nil || arg.Tail.As.Type == 0 || arg.Name.Type != 0 || arg.Then != nil {
			return syntaxErrorAt(exprStart(arg.Value), `expected "expression as alias" in compute()`)
		}
		e, err := c.nested(arg.Value, depth)
		if err != nil {
			return err
		}
		if err := checkAlias(arg.Tail.As); err != nil {
			return err
		}
		t.Compute = append(t.Compute, ComputeItem{Pos: e.Position(), Expr: e, Alias: arg.Tail.As.Value})
	}
	return nil
}

// applyOrderBy converts orderby(expression [asc|desc], ...).
func (c *converter) applyOrderBy(t *Transformation, a *grammarArguments, depth int) *Error {
	for _, arg := range a.Args {
		desc := false
		if tail := arg.Tail; tail != nil {
			if tail.Direction.Type == 0 {
				return tailError(arg)
			}
			desc = tail.Direction.Value == "desc"
			arg = &grammarArgument{Name: arg.Name, Value: arg.Value, Then: arg.Then}
		}
		e, err := c.plainValue(arg, depth)
		if err != nil {
			return err
		}
		t.OrderBy = append(t.OrderBy, OrderItem{Pos: e.Position(), Expr: e, Desc: desc})
	}
	return nil
}

// rank converts topcount and its kin: (number, measure).
func (c *converter) rank(t *Transformation, a *grammarArguments, depth int) *Error {
	if len(a.Args) != 2 {
		return syntaxErrorAt(a.Open.Pos.Offset, t.Name+"() takes a number and a measure")
	}
	var err *Error
	if t.N, err = c.plainValue(a.Args[0], depth); err != nil {
		return err
	}
	t.Measure, err = c.plainValue(a.Args[1], depth)
	return err
}

// concat converts concat(sequence, sequence, ...): at least two.
func (c *converter) concat(t *Transformation, a *grammarArguments, depth int) *Error {
	if len(a.Args) < 2 {
		return syntaxErrorAt(a.Open.Pos.Offset, "concat() takes at least two transformation sequences")
	}
	for _, arg := range a.Args {
		if err := tailError(arg); err != nil {
			return err
		}
		seq, err := c.sequence(arg.Value, depth)
		if err != nil {
			return err
		}
		t.Sequences = append(t.Sequences, seq)
	}
	return nil
}

// navigationTransformation converts join(Nav as Alias[, sequence]), outerjoin (the same), addnested(Nav,
// sequence as Alias, ...) and expand(Nav[, filter(...)][, expand(...)...]).
func (c *converter) navigationTransformation(t *Transformation, a *grammarArguments, depth int) *Error {
	first := a.Args[0]
	tail := first.Tail
	first = &grammarArgument{Value: first.Value}
	e, err := c.plainValue(first, depth)
	if err != nil {
		return err
	}
	p, ok := e.(*Path)
	if !ok || p.Base != BaseImplicit {
		return syntaxErrorAt(e.Position(), "expected a navigation path in "+t.Name+"()")
	}
	t.Path = p
	rest := a.Args[1:]
	switch t.Name {
	case "join", "outerjoin":
		if tail == nil || tail.As.Type == 0 {
			return syntaxErrorAt(e.Position(), `expected "path as alias" in `+t.Name+"()")
		}
		t.Alias = tail.As.Value
		if len(rest) > 1 {
			return syntaxErrorAt(exprStart(rest[1].Value), `expected ")"`)
		}
	case "addnested":
		if tail != nil {
			return tailError(a.Args[0])
		}
		if len(rest) == 0 {
			return syntaxErrorAt(a.Open.Pos.Offset, `addnested() takes a path and "sequence as alias"`)
		}
		for i, arg := range rest {
			if arg.Tail == nil || arg.Tail.As.Type == 0 || arg.Name.Type != 0 {
				return syntaxErrorAt(exprStart(arg.Value), `expected "sequence as alias" in addnested()`)
			}
			seq, err := c.sequence(arg.Value, depth)
			if err != nil {
				return err
			}
			if i == 0 {
				t.Sequence, t.Alias = seq, arg.Tail.As.Value
				continue
			}
			t.Sequences = append(t.Sequences, seq)
			t.Aliases = append(t.Aliases, arg.Tail.As.Value)
		}
		return nil
	case "expand":
		if tail != nil {
			return tailError(a.Args[0])
		}
	}
	for _, arg := range rest {
		if err := tailError(arg); err != nil {
			return err
		}
		seq, err := c.sequence(arg.Value, depth)
		if err != nil {
			return err
		}
		t.Sequence = append(t.Sequence, seq...)
	}
	return nil
}

// nest converts nest(sequence as alias, ...).
func (c *converter) nest(t *Transformation, a *grammarArguments, depth int) *Error {
	for _, arg := range a.Args {
		if arg.Tail == nil || arg.Tail.As.Type == 0 || arg.Name.Type != 0 {
			return syntaxErrorAt(exprStart(arg.Value), `expected "sequence as alias" in nest()`)
		}
		seq, err := c.sequence(arg.Value, depth)
		if err != nil {
			return err
		}
		t.Sequences = append(t.Sequences, seq)
		t.Aliases = append(t.Aliases, arg.Tail.As.Value)
	}
	return nil
}

// looseArgs converts the arguments of a custom function: expressions, named or not, without tails.
func (c *converter) looseArgs(a *grammarArguments, depth int) ([]Arg, *Error) {
	out := make([]Arg, 0, len(a.Args))
	for _, arg := range a.Args {
		named := arg.Name
		arg = &grammarArgument{Value: arg.Value, Then: arg.Then, Tail: arg.Tail}
		e, err := c.plainValue(arg, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, Arg{Pos: e.Position(), Name: named.Value, Value: e})
	}
	return out, nil
}

// isAggregateCall reports whether s is aggregate(...) with one argument in a member path.
func isAggregateCall(s *grammarSegment) bool {
	return strings.EqualFold(s.Name.Value, "aggregate") && nameKind(s.Name) == tokenIdentifier && len(s.Args) == 1 &&
		s.Args[0].Blob.Type == 0 && len(s.Args[0].Args) == 1
}

// aggregateCall converts Path/aggregate(item) in an expression: an aggregate item without alias.
func (c *converter) aggregateCall(p *Path, s *grammarSegment, depth int) (Expr, *Error) {
	a := s.Args[0].Args[0]
	item, err := c.aggregateItem(a, depth+1, false, nil)
	if err != nil {
		return nil, err
	}
	if item.Alias != "" {
		return nil, syntaxErrorAt(exprStart(a.Value), "an aggregate in an expression takes no alias")
	}
	if item.Method == "" && !item.Count && len(item.From) == 0 {
		if _, ok := item.Expr.(*Count); !ok {
			// A custom aggregate: its name alone (Sales/aggregate(Forecast)).
			if path, ok := item.Expr.(*Path); !ok || path.Base != BaseImplicit {
				return nil, syntaxErrorAt(exprStart(a.Value), "expected an aggregation method (with ...)")
			}
		}
	}
	return &Aggregate{Pos: s.Name.Pos.Offset, Path: p, Item: item}, nil
}

// countTransformations counts the transformations of seq, those of nested sequences included.
func countTransformations(seq []Transformation) int {
	n := len(seq)
	for i := range seq {
		n += countTransformations(seq[i].Sequence)
		for _, nested := range seq[i].Sequences {
			n += countTransformations(nested)
		}
		for _, g := range seq[i].Groups {
			if g.Recursive != nil {
				n += countTransformations(g.Recursive.Sequence)
			}
		}
	}
	return n
}

// transformationExprs appends the expressions of a sequence (for the node limit).
func transformationExprs(out []Expr, seq []Transformation) []Expr {
	for i := range seq {
		t := &seq[i]
		for _, a := range t.Aggregates {
			if a.Expr != nil {
				out = append(out, a.Expr)
			}
			for _, f := range a.From {
				out = append(out, f.Exprs...)
			}
		}
		for _, g := range t.Groups {
			if g.Path != nil {
				out = append(out, g.Path)
			}
			for _, p := range g.Rollup {
				out = append(out, p)
			}
			if g.Recursive != nil {
				out = transformationExprs(out, []Transformation{*g.Recursive})
			}
		}
		for _, e := range []Expr{t.Filter, t.N, t.Measure} {
			if e != nil {
				out = append(out, e)
			}
		}
		for _, it := range t.Compute {
			out = append(out, it.Expr)
		}
		for _, it := range t.OrderBy {
			out = append(out, it.Expr)
		}
		for _, a := range t.Args {
			out = append(out, a.Value)
		}
		if h := t.Hierarchy; h != nil {
			out = append(out, h.Set, h.Node)
		}
		out = transformationExprs(out, t.Sequence)
		for _, s := range t.Sequences {
			out = transformationExprs(out, s)
		}
	}
	return out
}

// PrintApply returns a transformation sequence printed as canonical $apply text.
func PrintApply(seq []Transformation) string {
	var b strings.Builder
	writeSequence(&b, seq)
	return b.String()
}

func writeSequence(b *strings.Builder, seq []Transformation) {
	for i := range seq {
		if i > 0 {
			b.WriteByte('/')
		}
		writeTransformation(b, &seq[i])
	}
}

// writeTransformation prints one transformation with its arguments.
func writeTransformation(b *strings.Builder, t *Transformation) {
	b.WriteString(t.Name)
	if t.Name == "identity" {
		return
	}
	b.WriteByte('(')
	list := func(n int, item func(i int)) {
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			item(i)
		}
	}
	switch {
	case t.Name == "aggregate":
		list(len(t.Aggregates), func(i int) { writeAggregateItem(b, &t.Aggregates[i]) })
	case t.Name == "groupby":
		b.WriteByte('(')
		list(len(t.Groups), func(i int) { writeGroupItem(b, &t.Groups[i]) })
		b.WriteByte(')')
		if len(t.Sequence) > 0 {
			b.WriteByte(',')
			writeSequence(b, t.Sequence)
		}
	case t.Name == "filter":
		writeExpr(b, t.Filter, 0)
	case t.Name == "search":
		writeSearch(b, t.Search, 0)
	case t.Name == "compute":
		list(len(t.Compute), func(i int) {
			writeExpr(b, t.Compute[i].Expr, 0)
			b.WriteString(" as " + t.Compute[i].Alias)
		})
	case t.Name == "orderby":
		list(len(t.OrderBy), func(i int) {
			writeExpr(b, t.OrderBy[i].Expr, 0)
			if t.OrderBy[i].Desc {
				b.WriteString(" desc")
			}
		})
	case t.Name == "top" || t.Name == "skip":
		writeExpr(b, t.N, 0)
	case rankTransformations[t.Name]:
		writeExpr(b, t.N, 0)
		b.WriteByte(',')
		writeExpr(b, t.Measure, 0)
	case t.Name == "concat":
		list(len(t.Sequences), func(i int) { writeSequence(b, t.Sequences[i]) })
	case t.Name == "nest":
		list(len(t.Sequences), func(i int) {
			writeSequence(b, t.Sequences[i])
			b.WriteString(" as " + t.Aliases[i])
		})
	case t.Hierarchy != nil:
		writeHierarchy(b, t)
	case t.Path != nil:
		writeMemberPath(b, t.Path)
		if t.Name == "join" || t.Name == "outerjoin" {
			b.WriteString(" as " + t.Alias)
		}
		if len(t.Sequence) > 0 {
			b.WriteByte(',')
			writeSequence(b, t.Sequence)
			if t.Name == "addnested" {
				b.WriteString(" as " + t.Alias)
			}
		}
		for i := range t.Sequences {
			b.WriteByte(',')
			writeSequence(b, t.Sequences[i])
			b.WriteString(" as " + t.Aliases[i])
		}
	default:
		var args strings.Builder
		writeArgs(&args, t.Args)
		text := args.String()
		b.WriteString(text[1 : len(text)-1])
	}
	b.WriteByte(')')
}

func writeAggregateItem(b *strings.Builder, a *AggregateItem) {
	if a.Count {
		b.WriteString("$count")
	} else {
		writeExpr(b, a.Expr, 0)
	}
	if a.Method != "" {
		b.WriteString(" with " + a.Method)
	}
	for _, f := range a.From {
		b.WriteString(" from ")
		for i, e := range f.Exprs {
			if i > 0 {
				b.WriteByte(',')
			}
			writeExpr(b, e, 0)
		}
		if f.Method != "" {
			b.WriteString(" with " + f.Method)
		}
	}
	if a.Alias != "" {
		b.WriteString(" as " + a.Alias)
	}
}

func writeGroupItem(b *strings.Builder, g *GroupItem) {
	switch {
	case g.Path != nil:
		writeMemberPath(b, g.Path)
	case g.Recursive != nil:
		b.WriteString("rolluprecursive(")
		writeHierarchy(b, g.Recursive)
		b.WriteByte(')')
	default:
		b.WriteString("rollup(")
		if g.RollupAll {
			b.WriteString("$all,")
		}
		for i, p := range g.Rollup {
			if i > 0 {
				b.WriteByte(',')
			}
			writeMemberPath(b, p)
		}
		b.WriteByte(')')
	}
}

package syntax

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The grammar: one struct per production, operator precedence by layering (or > and > eq/ne > relational,
// has, in > add/sub > mul/div/divby/mod > unary not/- > primary), no left recursion. Operator keywords and
// literals are classified by the lexer, so the grammar matches token types only.

// grammarExpr is the or level, the top of an expression. Each level embeds the next tighter level for its first
// operand (participle inlines an embedded struct, so the first operand costs no struct of its own) and holds
// the operands after its operators in Right; the operator tokens themselves are recorded by the lexer (see
// scanner.operators), which saves participle a capture per operand and level.
type grammarExpr struct {
	grammarAnd
	Right []*grammarAnd `parser:"( Or @@ )*"`
}

type grammarAnd struct {
	grammarEquality
	Right []*grammarEquality `parser:"( And @@ )*"`
}

type grammarEquality struct {
	grammarRelational
	Right []*grammarRelational `parser:"( EqualityOperator @@ )*"`
}

// grammarRelational is the relational level: gt ge lt le has in.
type grammarRelational struct {
	grammarAdditive
	Right []*grammarAdditive `parser:"( RelationalOperator @@ )*"`
}

type grammarAdditive struct {
	grammarMultiplicative
	Right []*grammarMultiplicative `parser:"( AdditiveOperator @@ )*"`
}

type grammarMultiplicative struct {
	grammarUnary
	Right []*grammarUnary `parser:"( MultiplicativeOperator @@ )*"`
}

// grammarUnary is a prefix operator applied to an operand, or a primary operand.
type grammarUnary struct {
	Literal    lexer.Token           `parser:"( @Literal"`
	Path       *grammarPath          `parser:"| @@"`
	Op         lexer.Token           `parser:"| @PrefixOperator"`
	X          *grammarUnary         `parser:"  @@"`
	JSONString lexer.Token           `parser:"| @JSONString"`
	Paren      *grammarParenthesised `parser:"| @@"`
	Array      *grammarArray         `parser:"| @@"`
	Object     *grammarObject        `parser:"| @@ )"`
}

// grammarParenthesised is a parenthesised expression, or a parenthesised list of literals (after in).
type grammarParenthesised struct {
	Open  lexer.Token    `parser:"@LeftParenthesis"`
	Items []*grammarExpr `parser:"( @@ ( Comma @@ )* )? RightParenthesis"`
}

type grammarArray struct {
	Open  lexer.Token    `parser:"@LeftBracket"`
	Items []*grammarExpr `parser:"( @@ ( Comma @@ )* )? RightBracket"`
}

type grammarObject struct {
	Open    lexer.Token      `parser:"@LeftBrace"`
	Members []*grammarMember `parser:"( @@ ( Comma @@ )* )?"`
	Close   lexer.Token      `parser:"@RightBrace"`
}

type grammarMember struct {
	Name  lexer.Token  `parser:"@JSONString Colon"`
	Value *grammarExpr `parser:"@@"`
}

// grammarPath is a member path; its first segment (inline) may be $it, $this, $root, @alias or a function call.
type grammarPath struct {
	Name lexer.Token         `parser:"@Name"`
	Args []*grammarArguments `parser:"@@*"`
	Rest []*grammarSegment   `parser:"( Slash @@ )*"`
}

type grammarSegment struct {
	Name lexer.Token         `parser:"@Name"`
	Args []*grammarArguments `parser:"@@*"`
}

// grammarArguments is a parenthesised argument list, or the balanced text of the nested options after $count.
type grammarArguments struct {
	Open lexer.Token        `parser:"@LeftParenthesis"`
	Blob lexer.Token        `parser:"@Blob?"`
	Args []*grammarArgument `parser:"( @@ ( Comma @@ )* )? RightParenthesis"`
}

// grammarBlob is the balanced text of nested options in $select and $expand items.
type grammarBlob struct {
	Open lexer.Token `parser:"@LeftParenthesis"`
	Text lexer.Token `parser:"@Blob RightParenthesis"`
}

// grammarArgument is an argument: "name=value", a plain value, or "when:then" (case branches and lambda bodies).
// In $apply an argument may end in a tail ("with sum as Total", "as Alias", "desc"); elsewhere the converter
// refuses one.
type grammarArgument struct {
	Name  lexer.Token  `parser:"( @Name Equals )?"`
	Value *grammarExpr `parser:"@@"`
	Then  *grammarExpr `parser:"( Colon @@ )?"`
	Tail  *grammarTail `parser:"@@?"`
}

// grammarTail is the end of an argument of a $apply transformation: the aggregation of an aggregate item
// ("with sum", "from Time with average", then "as Alias"), an alias (compute, join, nest), a direction (orderby)
// or the "start" of "keep start" (ancestors, descendants).
type grammarTail struct {
	Steps     []*grammarAggregationStep `parser:"( @@+"`
	Alias     lexer.Token               `parser:"  ( As @Name )?"`
	As        lexer.Token               `parser:"| As @Name"`
	Direction lexer.Token               `parser:"| @Direction"`
	Start     lexer.Token               `parser:"| @Start )"`
}

// grammarAggregationStep is "with method" or "from path" in an aggregate item.
type grammarAggregationStep struct {
	Method lexer.Token  `parser:"( With @Name"`
	From   *grammarExpr `parser:"| From @@ )"`
}

// grammarOrderBy is a $orderby list.
type grammarOrderBy struct {
	Items []*grammarOrderByItem `parser:"@@ ( Comma @@ )*"`
}

type grammarOrderByItem struct {
	Expr      *grammarExpr `parser:"@@"`
	Direction lexer.Token  `parser:"@Direction?"`
}

// grammarCompute is a $compute list.
type grammarCompute struct {
	Items []*grammarComputeItem `parser:"@@ ( Comma @@ )*"`
}

type grammarComputeItem struct {
	Expr  *grammarExpr `parser:"@@"`
	As    lexer.Token  `parser:"@As"`
	Alias lexer.Token  `parser:"@Name"`
}

// grammarApply is a $apply value: a transformation sequence, read as a member path whose segments are the
// transformations with their argument lists ("filter(...)/groupby(...)"); the converter checks the rest.
type grammarApply struct {
	Sequence *grammarExpr `parser:"@@"`
}

// grammarItems is a $select or $expand list.
type grammarItems struct {
	Items []*grammarItem `parser:"@@ ( Comma @@ )*"`
}

type grammarItem struct {
	Segments []*grammarItemSegment `parser:"@@ ( Slash @@ )*"`
	Blob     *grammarBlob          `parser:"@@?"`
}

type grammarItemSegment struct {
	Name lexer.Token `parser:"  @(Name | Star)"`
	Star lexer.Token `parser:"  ( Dot @Star )?"`
}

func buildParser[G any]() *participle.Parser[G] {
	return participle.MustBuild[G](participle.Lexer(lexerDefinition{symbols}), participle.UseLookahead(1))
}

var (
	exprParser    = buildParser[grammarExpr]()
	orderByParser = buildParser[grammarOrderBy]()
	computeParser = buildParser[grammarCompute]()
	applyParser   = buildParser[grammarApply]()
	itemsParser   = buildParser[grammarItems]()
)

// parse runs parser p over the tokens of scanner s; expect words the "expected X" part of error messages.
func parse[G any](p *participle.Parser[G], s *scanner, expect func(lexer.TokenType, bool) string) (
	g *G, parseError *Error) {
	defer func() {
		// The grammar is built so that participle never panics; this is a last line of defence so that no
		// input can crash a request.
		if r := recover(); r != nil {
			g, parseError = nil, syntaxErrorAt(s.base, "invalid syntax")
		}
	}()
	peek, err := lexer.Upgrade(s)
	if err != nil {
		return nil, translate(err, nil, expect)
	}
	g, err = p.ParseFromLexer(peek)
	if err != nil {
		return nil, translate(err, peek, expect)
	}
	return g, nil
}

// start is the offset where the operand starts; the expression levels inherit it through embedding.
func (g *grammarUnary) start() int {
	switch {
	case g.Literal.Type != 0:
		return g.Literal.Pos.Offset
	case g.Path != nil:
		return g.Path.Name.Pos.Offset
	case g.Op.Type != 0:
		return g.Op.Pos.Offset
	case g.JSONString.Type != 0:
		return g.JSONString.Pos.Offset
	case g.Paren != nil:
		return g.Paren.Open.Pos.Offset
	case g.Array != nil:
		return g.Array.Open.Pos.Offset
	case g.Object != nil:
		return g.Object.Open.Pos.Offset
	}
	return 0
}

package syntax

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The grammar: one struct per production, operator precedence by layering (or > and > eq/ne > relational,
// has, in > add/sub > mul/div/divby/mod > unary not/- > primary), no left recursion. Operator keywords and
// literals are classified by the lexer, so the grammar matches token types only.

// gExpr is the or level, the top of an expression. Each level embeds the next tighter level for its first
// operand (participle inlines an embedded struct, so the first operand costs no struct of its own) and holds
// the operands after its operators in Right; the operator tokens themselves are recorded by the lexer (see
// scanner.ops), which saves participle a capture per operand and level.
type gExpr struct {
	gAnd
	Right []*gAnd `parser:"( Or @@ )*"`
}

type gAnd struct {
	gEq
	Right []*gEq `parser:"( And @@ )*"`
}

type gEq struct {
	gRel
	Right []*gRel `parser:"( EqOp @@ )*"`
}

// gRel is the relational level: gt ge lt le has in.
type gRel struct {
	gAdd
	Right []*gAdd `parser:"( RelOp @@ )*"`
}

type gAdd struct {
	gMul
	Right []*gMul `parser:"( AddOp @@ )*"`
}

type gMul struct {
	gUnary
	Right []*gUnary `parser:"( MulOp @@ )*"`
}

// gUnary is a prefix operator applied to an operand, or a primary operand.
type gUnary struct {
	Literal lexer.Token `parser:"( @Lit"`
	Path    *gPath      `parser:"| @@"`
	Op      lexer.Token `parser:"| @Prefix"`
	X       *gUnary     `parser:"  @@"`
	JSONStr lexer.Token `parser:"| @JSONString"`
	Paren   *gParen     `parser:"| @@"`
	Array   *gArray     `parser:"| @@"`
	Object  *gObject    `parser:"| @@ )"`
}

// gParen is a parenthesised expression, or a parenthesised list of literals (after in).
type gParen struct {
	Open  lexer.Token `parser:"@LParen"`
	Items []*gExpr    `parser:"( @@ ( Comma @@ )* )? RParen"`
}

type gArray struct {
	Open  lexer.Token `parser:"@LBracket"`
	Items []*gExpr    `parser:"( @@ ( Comma @@ )* )? RBracket"`
}

type gObject struct {
	Open    lexer.Token `parser:"@LBrace"`
	Members []*gMember  `parser:"( @@ ( Comma @@ )* )?"`
	Close   lexer.Token `parser:"@RBrace"`
}

type gMember struct {
	Name  lexer.Token `parser:"@JSONString Colon"`
	Value *gExpr      `parser:"@@"`
}

// gPath is a member path; its first segment (inline) may be $it, $this, $root, @alias or a function call.
type gPath struct {
	Name lexer.Token `parser:"@Name"`
	Args []*gArgs    `parser:"@@*"`
	Rest []*gSegment `parser:"( Slash @@ )*"`
}

type gSegment struct {
	Name lexer.Token `parser:"@Name"`
	Args []*gArgs    `parser:"@@*"`
}

// gArgs is a parenthesised argument list, or the balanced text of the nested options after $count.
type gArgs struct {
	Open lexer.Token `parser:"@LParen"`
	Blob lexer.Token `parser:"@Blob?"`
	Args []*gArg     `parser:"( @@ ( Comma @@ )* )? RParen"`
}

// gBlob is the balanced text of nested options in $select and $expand items.
type gBlob struct {
	Open lexer.Token `parser:"@LParen"`
	Text lexer.Token `parser:"@Blob RParen"`
}

// gArg is an argument: "name=value", a plain value, or "when:then" (case branches and lambda bodies).
type gArg struct {
	Name  lexer.Token `parser:"( @Name Equals )?"`
	Value *gExpr      `parser:"@@"`
	Then  *gExpr      `parser:"( Colon @@ )?"`
}

// gOrderBy is a $orderby list.
type gOrderBy struct {
	Items []*gOrderItem `parser:"@@ ( Comma @@ )*"`
}

type gOrderItem struct {
	Expr *gExpr      `parser:"@@"`
	Dir  lexer.Token `parser:"@Dir?"`
}

// gCompute is a $compute list.
type gCompute struct {
	Items []*gComputeItem `parser:"@@ ( Comma @@ )*"`
}

type gComputeItem struct {
	Expr  *gExpr      `parser:"@@"`
	As    lexer.Token `parser:"@As"`
	Alias lexer.Token `parser:"@Name"`
}

// gItems is a $select or $expand list.
type gItems struct {
	Items []*gItem `parser:"@@ ( Comma @@ )*"`
}

type gItem struct {
	Segments []*gItemSegment `parser:"@@ ( Slash @@ )*"`
	Blob     *gBlob          `parser:"@@?"`
}

type gItemSegment struct {
	Name lexer.Token `parser:"  @(Name | Star)"`
	Star lexer.Token `parser:"  ( Dot @Star )?"`
}

func build[G any]() *participle.Parser[G] {
	return participle.MustBuild[G](participle.Lexer(lexDef{symbols}), participle.UseLookahead(1))
}

var (
	exprParser    = build[gExpr]()
	orderByParser = build[gOrderBy]()
	computeParser = build[gCompute]()
	itemsParser   = build[gItems]()
)

// parse runs parser p over the tokens of scanner s; expect words the "expected X" part of error messages.
func parse[G any](p *participle.Parser[G], s *scanner, expect func(lexer.TokenType, bool) string) (g *G, perr *Error) {
	defer func() {
		// The grammar is built so that participle never panics; this is a last line of defence so that no
		// input can crash a request.
		if r := recover(); r != nil {
			g, perr = nil, errAt(s.base, "invalid syntax")
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
func (g *gUnary) start() int {
	switch {
	case g.Literal.Type != 0:
		return g.Literal.Pos.Offset
	case g.Path != nil:
		return g.Path.Name.Pos.Offset
	case g.Op.Type != 0:
		return g.Op.Pos.Offset
	case g.JSONStr.Type != 0:
		return g.JSONStr.Pos.Offset
	case g.Paren != nil:
		return g.Paren.Open.Pos.Offset
	case g.Array != nil:
		return g.Array.Open.Pos.Offset
	case g.Object != nil:
		return g.Object.Open.Pos.Offset
	}
	return 0
}

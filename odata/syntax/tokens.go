package syntax

import "github.com/alecthomas/participle/v2/lexer"

// Token types.
const (
	tokenEOF lexer.TokenType = lexer.EOF

	// tokenIdentifier is an identifier, possibly namespace-qualified: Name, Model.Customer, geo.distance.
	tokenIdentifier lexer.TokenType = iota + 1
	tokenDollar                     // $it, $this, $root, $count, $filter, $ref, ...
	tokenAtName                     // @alias, @Namespace.Term#Qualifier
	tokenNull
	tokenBoolean
	tokenInteger
	tokenDecimal
	tokenDouble
	tokenString     // 'text' (Value: decoded source text with quotes)
	tokenJSONString // "text" (Value: decoded source text with quotes)
	tokenDate
	tokenDateTime
	tokenTimeOfDay
	tokenGUID
	tokenTypedLiteral // prefix'text': binary'..', duration'..', geography'..', Namespace.Enum'..'

	// tokenLiteral is the one token type the grammar sees for every literal above (one type keeps the grammar's
	// choice among literals a single comparison); literalKind recovers the kind from the text.
	tokenLiteral
	// tokenPrefixOperator is a prefix operator: not or "-" (Value "not" or "-").
	tokenPrefixOperator
	// tokenName is the one token type the grammar sees for tokenIdentifier, tokenDollar and tokenAtName; nameKind
	// tells them apart.
	tokenName

	tokenOr
	tokenAnd
	tokenEqualityOperator   // eq ne
	tokenRelationalOperator // gt ge lt le has
	tokenIn
	tokenAdditiveOperator       // add sub
	tokenMultiplicativeOperator // mul div divby mod
	tokenNot
	tokenMinus
	tokenDirection // asc desc
	tokenAs
	tokenWith  // with, in $apply only
	tokenFrom  // from, in $apply only
	tokenStart // start of "keep start", in $apply only

	tokenLeftParenthesis
	tokenRightParenthesis
	tokenLeftBracket
	tokenRightBracket
	tokenLeftBrace
	tokenRightBrace
	tokenComma
	tokenColon
	tokenSlash
	tokenEquals
	tokenSemicolon
	tokenStar
	tokenDot

	tokenBlob   // balanced text between parentheses in $select/$expand items (nested options or parameter names)
	tokenWord   // $search word
	tokenPhrase // $search "phrase"
	tokenSearchAnd
	tokenSearchOr
	tokenSearchNot
)

var symbols = map[string]lexer.TokenType{
	"EOF": tokenEOF, "Name": tokenName, "Literal": tokenLiteral, "JSONString": tokenJSONString, "Or": tokenOr,
	"And": tokenAnd, "EqualityOperator": tokenEqualityOperator, "RelationalOperator": tokenRelationalOperator,
	"AdditiveOperator": tokenAdditiveOperator, "MultiplicativeOperator": tokenMultiplicativeOperator,
	"PrefixOperator": tokenPrefixOperator, "Direction": tokenDirection, "As": tokenAs,
	"With": tokenWith, "From": tokenFrom, "Start": tokenStart,
	"LeftParenthesis": tokenLeftParenthesis, "RightParenthesis": tokenRightParenthesis,
	"LeftBracket": tokenLeftBracket, "RightBracket": tokenRightBracket, "LeftBrace": tokenLeftBrace,
	"RightBrace": tokenRightBrace, "Comma": tokenComma, "Colon": tokenColon, "Slash": tokenSlash,
	"Equals": tokenEquals, "Semicolon": tokenSemicolon, "Star": tokenStar, "Dot": tokenDot, "Blob": tokenBlob,
	"Word": tokenWord, "Phrase": tokenPhrase, "SearchAnd": tokenSearchAnd, "SearchOr": tokenSearchOr,
	"SearchNot": tokenSearchNot,
}

// nameKind tells an identifier from a $-keyword and an @-name in a tokenName token.
func nameKind(t lexer.Token) lexer.TokenType {
	if t.Type != tokenName || t.Value == "" {
		return t.Type
	}
	switch t.Value[0] {
	case '$':
		return tokenDollar
	case '@':
		return tokenAtName
	}
	return tokenIdentifier
}

func describeByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		const hexDigits = "0123456789ABCDEF"
		return "byte %" + string([]byte{hexDigits[c>>4], hexDigits[c&15]})
	}
	return `"` + string(c) + `"`
}

package syntax

import (
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Error codes.
const (
	CodeSyntax        = "SyntaxError"
	CodeLimitExceeded = "LimitExceeded"
	// CodeNotSupported is valid OData that the parser recognizes but the engine does not implement.
	CodeNotSupported = "NotSupported"
)

// Error is a syntax error, or a syntactic limit of the service contract that was exceeded, in one query option
// or in the resource path.
type Error struct {
	Option string // the query option as the client spelt it ("$filter", "filter", "@p"), or "path"
	Pos    int    // 1-based column in the option's raw (still percent-encoded) value; 0 when not known
	Code   string // CodeSyntax, CodeLimitExceeded or CodeNotSupported
	Msg    string // "expected expression, found \")\""
}

// Error formats the error as "$filter:1:14: expected expression, found \")\"".
func (e *Error) Error() string {
	s := e.Option
	if e.Pos > 0 {
		s += ":1:" + strconv.Itoa(e.Pos)
	}
	if s != "" {
		s += ": "
	}
	return s + e.Msg
}

// syntaxErrorAt returns a syntax error at byte offset off.
func syntaxErrorAt(off int, msg string) *Error {
	return &Error{Pos: off + 1, Code: CodeSyntax, Msg: msg}
}

// limitErrorAt returns a LimitExceeded error at byte offset off.
func limitErrorAt(off int, msg string) *Error {
	return &Error{Pos: off + 1, Code: CodeLimitExceeded, Msg: msg}
}

// describe names a token for "found X".
func describe(t lexer.Token) string {
	if t.EOF() {
		return "end of input"
	}
	v := t.Value
	if t.Type == tokenBlob {
		v = decode(v)
	}
	if len(v) > 40 {
		cut := 40
		for cut > 0 && !utf8.RuneStart(v[cut]) {
			cut--
		}
		v = v[:cut] + "..."
	}
	return strconv.Quote(v)
}

// expectation says what an expression grammar wanted after the token prev.
func expectation(prev lexer.TokenType, hasPrev bool) string {
	if !hasPrev {
		return "expression"
	}
	switch prev {
	case tokenName, tokenLiteral, tokenJSONString, tokenRightParenthesis, tokenRightBracket, tokenRightBrace:
		return "operator"
	case tokenSlash:
		return "path segment"
	case tokenDirection:
		return `"," or end of input`
	case tokenAs:
		return "alias name"
	}
	return "expression"
}

// translate turns an error from the lexer or participle into an *Error. tokens are the tokens lexed so far
// (for the "expected" part of the message); expect computes it.
func translate(err error, peek *lexer.PeekingLexer, expect func(prev lexer.TokenType, hasPrev bool) string) *Error {
	var lexical *lexicalError
	if errors.As(err, &lexical) {
		if lexical.limit {
			return limitErrorAt(lexical.pos, lexical.msg)
		}
		return syntaxErrorAt(lexical.pos, lexical.msg)
	}
	var unexpected *participle.UnexpectedTokenError
	if errors.As(err, &unexpected) {
		prev, hasPrev := tokenBefore(peek, unexpected.Unexpected.Pos.Offset)
		want := expect(prev, hasPrev)
		if unexpected.Unexpected.EOF() && want == "operator" {
			if closer := unclosed(peek); closer != "" {
				want = closer
			}
		}
		return syntaxErrorAt(unexpected.Unexpected.Pos.Offset, "expected "+want+", found "+describe(unexpected.Unexpected))
	}
	var participleError participle.Error
	if errors.As(err, &participleError) {
		off := participleError.Position().Offset
		token := lexer.Token{Type: tokenEOF}
		if peek != nil {
			if t, ok := tokenAt(peek, off); ok {
				token = t
			}
		}
		prev, hasPrev := tokenBefore(peek, off)
		return syntaxErrorAt(off, "expected "+expect(prev, hasPrev)+", found "+describe(token))
	}
	return syntaxErrorAt(0, err.Error())
}

func tokenAt(peek *lexer.PeekingLexer, off int) (lexer.Token, bool) {
	if peek == nil {
		return lexer.Token{}, false
	}
	for _, t := range peek.Range(0, lexer.RawCursor(tokenCount(peek))) {
		if t.Pos.Offset == off {
			return t, true
		}
	}
	return lexer.Token{}, false
}

func tokenCount(peek *lexer.PeekingLexer) int {
	// The token slice always ends with EOF; find it by walking from the current checkpoint.
	n := 0
	for {
		ts := peek.Range(lexer.RawCursor(n), lexer.RawCursor(n+1))
		if len(ts) == 0 || ts[0].EOF() {
			return n + 1
		}
		n++
	}
}

func tokenBefore(peek *lexer.PeekingLexer, off int) (lexer.TokenType, bool) {
	if peek == nil {
		return 0, false
	}
	var prev lexer.TokenType
	has := false
	for _, t := range peek.Range(0, lexer.RawCursor(tokenCount(peek))) {
		if t.EOF() || t.Pos.Offset >= off {
			break
		}
		prev, has = t.Type, true
	}
	return prev, has
}

// unclosed returns the closing bracket that the innermost unclosed bracket among the tokens needs.
func unclosed(peek *lexer.PeekingLexer) string {
	if peek == nil {
		return ""
	}
	var stack []lexer.TokenType
	for _, t := range peek.Range(0, lexer.RawCursor(tokenCount(peek))) {
		switch t.Type {
		case tokenLeftParenthesis, tokenLeftBracket, tokenLeftBrace:
			stack = append(stack, t.Type)
		case tokenRightParenthesis, tokenRightBracket, tokenRightBrace:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if len(stack) == 0 {
		return ""
	}
	switch stack[len(stack)-1] {
	case tokenLeftBracket:
		return `"]"`
	case tokenLeftBrace:
		return `"}"`
	}
	return `")"`
}

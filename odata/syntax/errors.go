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
)

// Error is a syntax error, or a syntactic limit of the service contract that was exceeded, in one query option
// or in the resource path.
type Error struct {
	Option string // the query option as the client spelt it ("$filter", "filter", "@p"), or "path"
	Pos    int    // 1-based column in the option's raw (still percent-encoded) value; 0 when not known
	Code   string // CodeSyntax or CodeLimitExceeded
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

// errAt returns a syntax error at byte offset off.
func errAt(off int, msg string) *Error { return &Error{Pos: off + 1, Code: CodeSyntax, Msg: msg} }

// limitAt returns a LimitExceeded error at byte offset off.
func limitAt(off int, msg string) *Error {
	return &Error{Pos: off + 1, Code: CodeLimitExceeded, Msg: msg}
}

// describe names a token for "found X".
func describe(t lexer.Token) string {
	if t.EOF() {
		return "end of input"
	}
	v := t.Value
	if t.Type == tBlob {
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
	case tName, tLit, tJSONString, tRParen, tRBracket, tRBrace:
		return "operator"
	case tSlash:
		return "path segment"
	case tDir:
		return `"," or end of input`
	case tAs:
		return "alias name"
	}
	return "expression"
}

// translate turns an error from the lexer or participle into an *Error. tokens are the tokens lexed so far
// (for the "expected" part of the message); expect computes it.
func translate(err error, peek *lexer.PeekingLexer, expect func(prev lexer.TokenType, hasPrev bool) string) *Error {
	var le *lexError
	if errors.As(err, &le) {
		if le.limit {
			return limitAt(le.pos, le.msg)
		}
		return errAt(le.pos, le.msg)
	}
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		prev, hasPrev := prevToken(peek, ute.Unexpected.Pos.Offset)
		want := expect(prev, hasPrev)
		if ute.Unexpected.EOF() && want == "operator" {
			if closer := unclosed(peek); closer != "" {
				want = closer
			}
		}
		return errAt(ute.Unexpected.Pos.Offset, "expected "+want+", found "+describe(ute.Unexpected))
	}
	var pe participle.Error
	if errors.As(err, &pe) {
		off := pe.Position().Offset
		tok := lexer.Token{Type: tEOF}
		if peek != nil {
			if t, ok := tokenAt(peek, off); ok {
				tok = t
			}
		}
		prev, hasPrev := prevToken(peek, off)
		return errAt(off, "expected "+expect(prev, hasPrev)+", found "+describe(tok))
	}
	return errAt(0, err.Error())
}

func tokenAt(peek *lexer.PeekingLexer, off int) (lexer.Token, bool) {
	if peek == nil {
		return lexer.Token{}, false
	}
	for _, t := range peek.Range(0, lexer.RawCursor(peekLen(peek))) {
		if t.Pos.Offset == off {
			return t, true
		}
	}
	return lexer.Token{}, false
}

func peekLen(peek *lexer.PeekingLexer) int {
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

func prevToken(peek *lexer.PeekingLexer, off int) (lexer.TokenType, bool) {
	if peek == nil {
		return 0, false
	}
	var prev lexer.TokenType
	has := false
	for _, t := range peek.Range(0, lexer.RawCursor(peekLen(peek))) {
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
	for _, t := range peek.Range(0, lexer.RawCursor(peekLen(peek))) {
		switch t.Type {
		case tLParen, tLBracket, tLBrace:
			stack = append(stack, t.Type)
		case tRParen, tRBracket, tRBrace:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if len(stack) == 0 {
		return ""
	}
	switch stack[len(stack)-1] {
	case tLBracket:
		return `"]"`
	case tLBrace:
		return `"}"`
	}
	return `")"`
}

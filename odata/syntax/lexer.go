package syntax

import (
	"io"

	"github.com/alecthomas/participle/v2/lexer"
)

// The lexer is hand-written: it works on the raw, still percent-encoded text, decodes a %XX escape wherever the
// grammar allows the character it stands for, and reports raw byte offsets. It is context-aware where OData's
// grammar is: a word after an operand and whitespace is a binary operator keyword ("Name eq 1"), the same word
// in operand position is an identifier, so a property called "android" or "order" never splits at a keyword.
// Whitespace is not emitted as tokens; it only decides keywords.

type lexerMode uint8

const (
	modeExpression lexerMode = iota // expressions ($filter, $orderby, $compute, alias values, path keys)
	modeItems                       // $select and $expand item lists
	modeSearch                      // $search
)

// maxNesting is the SPEC part 9 limit on $filter nesting (parentheses, unary operators, operator levels).
const maxNesting = 64

// lexicalError is an error found while lexing; the parse functions turn it into an *Error.
type lexicalError struct {
	pos   int // raw byte offset
	msg   string
	limit bool
}

func (e *lexicalError) Error() string { return e.msg }

// scanner implements lexer.Definition (through lexerDefinition) and lexer.Lexer over one option value.
type scanner struct {
	source string
	base   int // offset of source within the text positions refer to
	mode   lexerMode
	// inPath: a raw "/" ends a string literal with an error (resource path keys must encode it as %2F).
	inPath bool
	// apply: $apply, where search(...) holds a blob.
	apply  bool
	cursor int

	afterOperand bool // the previous token ends an operand, so a keyword after whitespace is an operator
	depth        int  // bracket nesting
	unaryRun     int  // consecutive prefix operators
	pending      []lexer.Token
	err          *lexicalError
	// operators records every binary operator token in source order; the converter finds the operator of a
	// right operand as the last one before the operand's start.
	operators []lexer.Token
}

func newScanner(source string, base int, mode lexerMode) *scanner {
	return &scanner{source: source, base: base, mode: mode}
}

// lexerDefinition is the participle lexer definition; the parse functions construct scanners directly, so Lex is only
// used by participle's own tooling.
type lexerDefinition struct{ symbols map[string]lexer.TokenType }

func (d lexerDefinition) Symbols() map[string]lexer.TokenType { return d.symbols }

func (lexerDefinition) Lex(_ string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return newScanner(string(b), 0, modeExpression), nil
}

func (lexerDefinition) LexString(_ string, s string) (lexer.Lexer, error) {
	return newScanner(s, 0, modeExpression), nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

func isIdentifierStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentifierPart(c byte) bool { return isIdentifierStart(c) || '0' <= c && c <= '9' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (s *scanner) charAt(i int) byte {
	c, _ := decodeAt(s.source, i)
	return c
}

// fail records a lexical error at offset pos of source and returns it.
func (s *scanner) fail(pos int, msg string) (lexer.Token, error) {
	return lexer.Token{}, s.errorAt(pos, msg)
}

// nestingErrorAt records that the nesting at offset pos of source exceeds maxNesting and returns the error.
func (s *scanner) nestingErrorAt(pos int) *lexicalError {
	s.err = &lexicalError{pos: s.base + pos, msg: "nesting exceeds the limit of 64 levels", limit: true}
	return s.err
}

// errorAt records a lexical error at offset pos of source and returns it.
func (s *scanner) errorAt(pos int, msg string) *lexicalError {
	s.err = &lexicalError{pos: s.base + pos, msg: msg}
	return s.err
}

func (s *scanner) token(t lexer.TokenType, start, end int, value string) lexer.Token {
	switch t {
	case tokenNull, tokenBoolean, tokenInteger, tokenDecimal, tokenDouble, tokenString, tokenDate, tokenDateTime,
		tokenTimeOfDay, tokenGUID, tokenTypedLiteral:
		t = tokenLiteral
	case tokenNot, tokenMinus:
		t = tokenPrefixOperator
	case tokenIdentifier, tokenDollar, tokenAtName:
		t = tokenName
	}
	off := s.base + start
	return lexer.Token{Type: t, Value: value, Pos: lexer.Position{Offset: off, Line: 1, Column: off + 1}}
}

// text returns the decoded source text of source[start:end].
func (s *scanner) text(start, end int) string { return decode(s.source[start:end]) }

// skipSpace skips whitespace and reports whether there was any.
func (s *scanner) skipSpace() bool {
	saw := false
	for {
		c, w := decodeAt(s.source, s.cursor)
		if w == 0 || !isSpace(c) {
			return saw
		}
		saw = true
		s.cursor += w
	}
}

// Next implements lexer.Lexer.
func (s *scanner) Next() (lexer.Token, error) {
	if s.err != nil {
		return lexer.Token{}, s.err
	}
	if len(s.pending) > 0 {
		t := s.pending[0]
		s.pending = s.pending[1:]
		return t, nil
	}
	switch s.mode {
	case modeItems:
		return s.nextItem()
	case modeSearch:
		return s.nextSearch()
	}
	return s.nextExpr()
}

// pendBlob queues "(", the balanced text and ")" for the parenthesis (openWidth bytes) at open.
func (s *scanner) pendBlob(open, openWidth int) *lexicalError {
	end, err := s.balanced(open + openWidth)
	if err != nil {
		return err
	}
	_, closeWidth := decodeAt(s.source, end)
	s.pending = append(s.pending[:0],
		s.token(tokenLeftParenthesis, open, open+openWidth, "("),
		s.token(tokenBlob, open+openWidth, end, s.source[open+openWidth:end]),
		s.token(tokenRightParenthesis, end, end+closeWidth, ")"))
	s.cursor = end + closeWidth
	return nil
}

// scanWord scans an identifier starting at start; with dots, it continues over ".ident" parts (a qualified
// name). It returns the raw end offset.
func (s *scanner) scanWord(start int, dots bool) int {
	i := start
	for {
		c, w := decodeAt(s.source, i)
		if w == 0 {
			return i
		}
		if isIdentifierPart(c) {
			i += w
			continue
		}
		if c == '.' && dots {
			if n, _ := decodeAt(s.source, i+w); isIdentifierStart(n) {
				i += w
				continue
			}
		}
		return i
	}
}

// skipChars advances over n decoded characters.
func (s *scanner) skipChars(i, n int) int {
	for ; n > 0; n-- {
		_, w := decodeAt(s.source, i)
		if w == 0 {
			break
		}
		i += w
	}
	return i
}

// scanQuoted scans a single-quoted text starting at start (the quote has raw width quoteWidth); ” is an escaped quote.
// It returns the raw end offset after the closing quote.
func (s *scanner) scanQuoted(start, quoteWidth int) (int, *lexicalError) {
	i := start + quoteWidth
	for {
		c, w := decodeAt(s.source, i)
		switch {
		case w == 0:
			return 0, s.errorAt(i, "unterminated string literal")
		case c == '\'':
			if n, nextWidth := decodeAt(s.source, i+w); n == '\'' {
				i += w + nextWidth
				continue
			}
			return i + w, nil
		case w == 1 && c == '%':
			return 0, s.errorAt(i, "invalid percent-encoding")
		case w == 1 && c == '/' && s.inPath:
			return 0, s.errorAt(i, `"/" in a key literal must be percent-encoded as %2F`)
		}
		i += w
	}
}

func (s *scanner) scanJSONString(start int) (int, *lexicalError) {
	i := start + 1
	if s.source[start] == '%' {
		i = start + 3
	}
	for {
		c, w := decodeAt(s.source, i)
		switch {
		case w == 0:
			return 0, s.errorAt(i, "unterminated JSON string")
		case c == '"':
			return i + w, nil
		case c == '\\':
			_, nextWidth := decodeAt(s.source, i+w)
			if nextWidth == 0 {
				return 0, s.errorAt(i+w, "unterminated JSON string")
			}
			i += w + nextWidth
			continue
		case w == 1 && c == '%':
			return 0, s.errorAt(i, "invalid percent-encoding")
		}
		i += w
	}
}

// digits advances over decimal digits and returns the new offset and the count.
func (s *scanner) digits(i int) (int, int) {
	n := 0
	for {
		c, w := decodeAt(s.source, i)
		if w == 0 || !isDigit(c) {
			return i, n
		}
		i += w
		n++
	}
}

// expect advances over the decoded character want, or returns -1.
func (s *scanner) expect(i int, want byte) int {
	c, w := decodeAt(s.source, i)
	if w == 0 || c != want {
		return -1
	}
	return i + w
}

// scanAt scans a parameter alias or an annotation, @name or @name#term, whose '@' (w bytes) is at start.
func (s *scanner) scanAt(start, w int) (lexer.Token, error) {
	if !isIdentifierStart(s.charAt(start + w)) {
		return s.fail(start+w, "expected a name after @")
	}
	end := s.scanWord(start+w, true)
	if h, hw := decodeAt(s.source, end); h == '#' && isIdentifierStart(s.charAt(end+hw)) {
		end = s.scanWord(end+hw, false)
	}
	s.cursor = end
	return s.token(tokenAtName, start, end, s.text(start, end)), nil
}

// scanDollar scans a $name word whose '$' (w bytes) is at start.
func (s *scanner) scanDollar(start, w int) (lexer.Token, error) {
	if !isIdentifierStart(s.charAt(start + w)) {
		return s.fail(start, `unexpected "$"`)
	}
	end := s.scanWord(start+w, false)
	s.cursor = end
	return s.token(tokenDollar, start, end, s.text(start, end)), nil
}

// balanced finds the raw offset of the ")" that closes a "(" whose content starts at i. Quoted strings ('...'
// and "...") are skipped so parentheses inside them do not count. Every delimiter counts whether it arrives as
// itself or percent-encoded.
func (s *scanner) balanced(i int) (int, *lexicalError) {
	depth := 0
	prev := byte('(') // the decoded character before i
	for {
		c, w := decodeAt(s.source, i)
		switch {
		case w == 0:
			return 0, s.errorAt(i, `missing ")"`)
		case c == '(':
			depth++
			if depth > maxNesting {
				return 0, s.nestingErrorAt(i)
			}
		case c == ')':
			if depth == 0 {
				return i, nil
			}
			depth--
		case c == '\'' && isIdentifierPart(prev):
			// A quote inside a word (Daniel's in $search) is not a string delimiter.
		case c == '\'' || c == '"':
			e, err := s.skipQuoted(i, w, c)
			if err != nil {
				return 0, err
			}
			i, prev = e, c
			continue
		}
		i += w
		prev = c
	}
}

func (s *scanner) skipQuoted(i, w int, q byte) (int, *lexicalError) {
	start := i
	i += w
	for {
		c, w := decodeAt(s.source, i)
		switch {
		case w == 0:
			return 0, s.errorAt(start, "unterminated quoted text")
		case c == '\\' && q == '"':
			_, nextWidth := decodeAt(s.source, i+w)
			i += w + nextWidth
			continue
		case c == q:
			if n, nextWidth := decodeAt(s.source, i+w); n == q && q == '\'' {
				i += w + nextWidth
				continue
			}
			return i + w, nil
		}
		i += w
	}
}

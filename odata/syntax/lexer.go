package syntax

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// The lexer is hand-written: it works on the raw, still percent-encoded text, decodes a %XX escape wherever the
// grammar allows the character it stands for, and reports raw byte offsets. It is context-aware where OData's
// grammar is: a word after an operand and whitespace is a binary operator keyword ("Name eq 1"), the same word
// in operand position is an identifier, so a property called "android" or "order" never splits at a keyword.
// Whitespace is not emitted as tokens; it only decides keywords.

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
	"LeftParenthesis": tokenLeftParenthesis, "RightParenthesis": tokenRightParenthesis,
	"LeftBracket": tokenLeftBracket, "RightBracket": tokenRightBracket, "LeftBrace": tokenLeftBrace,
	"RightBrace": tokenRightBrace, "Comma": tokenComma, "Colon": tokenColon, "Slash": tokenSlash,
	"Equals": tokenEquals, "Semicolon": tokenSemicolon, "Star": tokenStar, "Dot": tokenDot, "Blob": tokenBlob,
	"Word": tokenWord, "Phrase": tokenPhrase, "SearchAnd": tokenSearchAnd, "SearchOr": tokenSearchOr,
	"SearchNot": tokenSearchNot,
}

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

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func hexValue(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// decodeAt returns the decoded character at raw offset i and its raw width (3 for %XX, else 1; 0 at the end).
// A '%' that does not start a valid escape is returned as '%' with width 1; callers reject it.
func decodeAt(s string, i int) (byte, int) {
	if i >= len(s) {
		return 0, 0
	}
	c := s[i]
	if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
		return hexValue(s[i+1])<<4 | hexValue(s[i+2]), 3
	}
	return c, 1
}

// Unescape percent-decodes s as the parsers do: %XX with two hex digits is one byte, anything else (a '%'
// without them, a '+') stays as it is. It returns s itself when there is nothing to do.
func Unescape(s string) string { return decode(s) }

// decode percent-decodes s (no '+' handling: a plus is a plus). It returns s itself when there is nothing to do.
func decode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c, w := decodeAt(s, i)
		b.WriteByte(c)
		i += w
	}
	return b.String()
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

// operatorKeyword is a word that is an operator (or asc, desc, as) after an operand.
type operatorKeyword struct {
	token lexer.TokenType
	text  string // lower case
}

// operatorKeywords maps the lower-case words to their tokens.
var operatorKeywords = map[string]operatorKeyword{
	"or": {tokenOr, "or"}, "and": {tokenAnd, "and"}, "eq": {tokenEqualityOperator, "eq"},
	"ne": {tokenEqualityOperator, "ne"}, "gt": {tokenRelationalOperator, "gt"},
	"ge": {tokenRelationalOperator, "ge"}, "lt": {tokenRelationalOperator, "lt"},
	"le": {tokenRelationalOperator, "le"}, "has": {tokenRelationalOperator, "has"},
	"in": {tokenRelationalOperator, "in"}, "add": {tokenAdditiveOperator, "add"},
	"sub": {tokenAdditiveOperator, "sub"}, "mul": {tokenMultiplicativeOperator, "mul"},
	"div": {tokenMultiplicativeOperator, "div"}, "divby": {tokenMultiplicativeOperator, "divby"},
	"mod": {tokenMultiplicativeOperator, "mod"}, "asc": {tokenDirection, "asc"}, "desc": {tokenDirection, "desc"},
	"as": {tokenAs, "as"},
}

// keyword classifies a word in operator position, case-insensitively.
func keyword(w string) (lexer.TokenType, string) {
	if len(w) < 2 || len(w) > 5 {
		return 0, ""
	}
	var buf [5]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	k := operatorKeywords[string(buf[:len(w)])]
	return k.token, k.text
}

func (s *scanner) open(start int) *lexicalError {
	s.depth++
	if s.depth > maxNesting {
		return s.nestingErrorAt(start)
	}
	return nil
}

func (s *scanner) nextExpr() (lexer.Token, error) {
	sawSpace := s.skipSpace()
	start := s.cursor
	c, w := decodeAt(s.source, s.cursor)
	if w == 0 {
		return s.token(tokenEOF, start, start, ""), nil
	}
	operand := !s.afterOperand
	// Operators after an operand and whitespace.
	if !operand && sawSpace && isIdentifierStart(c) {
		end := s.scanWord(start, false)
		if t, v := keyword(s.source[start:end]); t != 0 {
			s.cursor = end
			s.afterOperand = false
			token := s.token(t, start, end, v)
			if t != tokenDirection && t != tokenAs {
				s.unaryRun = 0
				if s.operators == nil {
					s.operators = make([]lexer.Token, 0, 8)
				}
				s.operators = append(s.operators, token)
			}
			return token, nil
		}
	}
	t, err := s.scanExprToken(c, w, start, operand)
	if err != nil {
		return t, err
	}
	switch t.Type {
	case tokenPrefixOperator:
		s.unaryRun++
		if s.unaryRun+s.depth > maxNesting {
			return t, s.nestingErrorAt(start)
		}
		s.afterOperand = false
	case tokenRightParenthesis, tokenRightBracket, tokenRightBrace:
		s.depth--
		s.afterOperand = true
	case tokenLeftParenthesis, tokenLeftBracket, tokenLeftBrace:
		s.afterOperand = false
	case tokenComma, tokenColon, tokenSlash, tokenEquals, tokenSemicolon, tokenDot:
		s.afterOperand = false
	default:
		s.unaryRun = 0
		s.afterOperand = true
	}
	return t, nil
}

// scanExprToken scans the token that starts with the decoded character c (raw width w) at start; operand says
// whether an operand may stand there (so "-" before a digit is a sign and "not" is the operator).
func (s *scanner) scanExprToken(c byte, w, start int, operand bool) (lexer.Token, error) {
	switch {
	case c == '\'':
		return s.scanStringLiteral(start, w)
	case c == '"':
		return s.scanJSONStringLiteral(start)
	case isHex(c) && s.isGUID(start):
		return s.scanGUID(start)
	case isDigit(c) || (c == '-' || c == '+') && operand && isDigit(s.charAt(start+w)):
		return s.scanNumber(start)
	case c == '-':
		return s.scanMinus(start, w, operand)
	case isIdentifierStart(c):
		return s.scanIdentifier(c, start, operand)
	case c == '@':
		return s.scanAt(start, w)
	case c == '$':
		return s.scanDollarInExpression(start, w)
	}
	return s.scanPunctuation(c, start, w)
}

// scanStringLiteral scans a '...' literal whose quote (w bytes) is at start.
func (s *scanner) scanStringLiteral(start, w int) (lexer.Token, error) {
	end, err := s.scanQuoted(start, w)
	if err != nil {
		return lexer.Token{}, err
	}
	s.cursor = end
	return s.token(tokenString, start, end, s.text(start, end)), nil
}

// scanJSONStringLiteral scans a "..." string of a JSON array or object that starts at start.
func (s *scanner) scanJSONStringLiteral(start int) (lexer.Token, error) {
	end, err := s.scanJSONString(start)
	if err != nil {
		return lexer.Token{}, err
	}
	s.cursor = end
	return s.token(tokenJSONString, start, end, s.text(start, end)), nil
}

// scanGUID scans the 36 characters of a GUID literal (isGUID checked the form).
func (s *scanner) scanGUID(start int) (lexer.Token, error) {
	end := s.skipChars(start, 36)
	s.cursor = end
	if isIdentifierPart(s.charAt(end)) {
		return s.fail(end, "invalid GUID literal")
	}
	return s.token(tokenGUID, start, end, s.text(start, end)), nil
}

// scanMinus scans a "-" (w bytes) that is not the sign of a number: the literal -INF in operand position, else
// the negation operator.
func (s *scanner) scanMinus(start, w int, operand bool) (lexer.Token, error) {
	if operand && strings.HasPrefix(s.source[start+w:], "INF") && !isIdentifierPart(s.charAt(start+w+3)) {
		s.cursor = start + w + 3
		return s.token(tokenDouble, start, s.cursor, "-INF"), nil
	}
	s.cursor = start + w
	return s.token(tokenMinus, start, s.cursor, "-"), nil
}

// scanIdentifier scans a (qualified) name that starts with c at start: an identifier, a prefix'text' literal
// (binary'..', duration'..', Namespace.Enum'..') or, in operand position, one of the words null, true, false,
// INF, NaN and not.
func (s *scanner) scanIdentifier(c byte, start int, operand bool) (lexer.Token, error) {
	end := s.scanWord(start, true)
	if q, quoteWidth := decodeAt(s.source, end); q == '\'' {
		e, err := s.scanQuoted(end, quoteWidth)
		if err != nil {
			return lexer.Token{}, err
		}
		s.cursor = e
		return s.token(tokenTypedLiteral, start, e, s.text(start, e)), nil
	}
	s.cursor = end
	word := s.source[start:end]
	if strings.IndexByte(word, '%') >= 0 {
		word = decode(word)
		if !utf8.ValidString(word) {
			return s.fail(start, "invalid UTF-8 in identifier")
		}
	} else if c >= 0x80 && !utf8.ValidString(word) {
		return s.fail(start, "invalid UTF-8 in identifier")
	}
	if operand {
		if t, ok := s.operandWord(word, start, end); ok {
			return t, nil
		}
	}
	return s.token(tokenIdentifier, start, end, word), nil
}

// operandWord classifies a word in operand position that is a literal or the not operator.
func (s *scanner) operandWord(word string, start, end int) (lexer.Token, bool) {
	switch {
	case strings.EqualFold(word, "null"):
		return s.token(tokenNull, start, end, "null"), true
	case strings.EqualFold(word, "true"):
		return s.token(tokenBoolean, start, end, "true"), true
	case strings.EqualFold(word, "false"):
		return s.token(tokenBoolean, start, end, "false"), true
	case word == "INF" || word == "NaN":
		return s.token(tokenDouble, start, end, word), true
	case strings.EqualFold(word, "not"):
		if next, _ := decodeAt(s.source, end); isSpace(next) || next == '(' {
			return s.token(tokenNot, start, end, "not"), true
		}
	}
	return lexer.Token{}, false
}

// scanDollarInExpression scans a $name (its '$', w bytes, at start). $count(...) carries nested options, which
// have their own lexical rules ($search): their text becomes one blob token between the parentheses.
func (s *scanner) scanDollarInExpression(start, w int) (lexer.Token, error) {
	t, err := s.scanDollar(start, w)
	if err != nil {
		return t, err
	}
	end := s.cursor
	open, openWidth := decodeAt(s.source, end)
	if open != '(' || !strings.EqualFold(t.Value, "$count") {
		return t, nil
	}
	if err := s.pendBlob(end, openWidth); err != nil {
		return lexer.Token{}, err
	}
	s.afterOperand = true
	return t, nil
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

// punctuation maps each punctuation character of expressions to its token.
var punctuation = [256]struct {
	token lexer.TokenType
	text  string
}{
	'(': {tokenLeftParenthesis, "("}, ')': {tokenRightParenthesis, ")"}, '[': {tokenLeftBracket, "["},
	']': {tokenRightBracket, "]"}, '{': {tokenLeftBrace, "{"}, '}': {tokenRightBrace, "}"}, ',': {tokenComma, ","},
	':': {tokenColon, ":"}, '/': {tokenSlash, "/"}, '=': {tokenEquals, "="}, ';': {tokenSemicolon, ";"},
	'*': {tokenStar, "*"}, '.': {tokenDot, "."},
}

// scanPunctuation scans a punctuation character c (w bytes) at start; an opening bracket counts a nesting level.
func (s *scanner) scanPunctuation(c byte, start, w int) (lexer.Token, error) {
	p := punctuation[c]
	if p.token == 0 {
		return s.fail(start, "unexpected "+describeByte(c))
	}
	s.cursor = start + w
	if p.token == tokenLeftParenthesis || p.token == tokenLeftBracket || p.token == tokenLeftBrace {
		if err := s.open(start); err != nil {
			return lexer.Token{}, err
		}
	}
	return s.token(p.token, start, s.cursor, p.text), nil
}

func describeByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		const hexDigits = "0123456789ABCDEF"
		return "byte %" + string([]byte{hexDigits[c>>4], hexDigits[c&15]})
	}
	return `"` + string(c) + `"`
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

func (s *scanner) isGUID(i int) bool {
	for k := 0; k < 36; k++ {
		c, w := decodeAt(s.source, i)
		if w == 0 {
			return false
		}
		switch k {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isHex(c) {
				return false
			}
		}
		i += w
	}
	return true
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

// scanTime scans hh:mm[:ss[.fff]] from i; it returns -1 if there is no time there.
func (s *scanner) scanTime(i int) int {
	j, n := s.digits(i)
	if n != 2 {
		return -1
	}
	if j = s.expect(j, ':'); j < 0 {
		return -1
	}
	j, n = s.digits(j)
	if n != 2 {
		return -1
	}
	if k := s.expect(j, ':'); k >= 0 {
		k2, n := s.digits(k)
		if n != 2 {
			return -1
		}
		j = k2
		if k = s.expect(j, '.'); k >= 0 {
			k2, n := s.digits(k)
			if n == 0 {
				return -1
			}
			j = k2
		}
	}
	return j
}

// scanNumber scans a number, a date, a date-time or a time of day that starts at start (with a sign for a
// number or a date).
func (s *scanner) scanNumber(start int) (lexer.Token, error) {
	i := start
	if c, w := decodeAt(s.source, i); c == '-' || c == '+' {
		i += w
	}
	j, n := s.digits(i)
	if n >= 4 {
		if month := s.expect(j, '-'); month >= 0 {
			return s.scanDate(start, j, month)
		}
	}
	if n == 2 && i == start {
		if e := s.scanTime(start); e >= 0 {
			if isIdentifierPart(s.charAt(e)) {
				return s.fail(e, "invalid time-of-day literal")
			}
			s.cursor = e
			return s.token(tokenTimeOfDay, start, e, s.text(start, e)), nil
		}
	}
	return s.scanDecimal(start, j)
}

// scanDate scans the month and day of a date yyyy-mm-dd whose year ends at yearEnd and whose month starts at
// month, then a time of day with a time zone after a "T": yyyy-mm-ddThh:mm[:ss[.f]](Z|+hh:mm|-hh:mm).
func (s *scanner) scanDate(start, yearEnd, month int) (lexer.Token, error) {
	monthEnd, monthDigits := s.digits(month)
	day := s.expect(monthEnd, '-')
	if monthDigits != 2 || day < 0 {
		return s.fail(yearEnd, "invalid date literal")
	}
	end, dayDigits := s.digits(day)
	if dayDigits != 2 {
		return s.fail(yearEnd, "invalid date literal")
	}
	kind := tokenDate
	if clock := s.expect(end, 'T'); clock >= 0 {
		e, err := s.scanClockWithZone(clock)
		if err != nil {
			return lexer.Token{}, err
		}
		end, kind = e, tokenDateTime
	}
	if isIdentifierPart(s.charAt(end)) {
		return s.fail(end, "invalid date literal")
	}
	s.cursor = end
	return s.token(kind, start, end, s.text(start, end)), nil
}

// scanClockWithZone scans the time and the time zone of a date-time from clock (after the "T") and returns its
// end.
func (s *scanner) scanClockWithZone(clock int) (int, *lexicalError) {
	e := s.scanTime(clock)
	if e < 0 {
		return 0, s.errorAt(clock, "invalid date-time literal")
	}
	switch c, w := decodeAt(s.source, e); c {
	case 'Z':
		return e + w, nil
	case '+', '-':
		zoneEnd := s.scanTime(e + w)
		if zoneEnd < 0 {
			return 0, s.errorAt(e+w, "invalid time zone offset in date-time literal")
		}
		return zoneEnd, nil
	}
	return 0, s.errorAt(e, "date-time literal needs a time zone (Z or +hh:mm)")
}

// scanDecimal scans the fraction and the exponent of a number whose integer digits end at j.
func (s *scanner) scanDecimal(start, j int) (lexer.Token, error) {
	kind := tokenInteger
	if c, w := decodeAt(s.source, j); c == '.' {
		k, m := s.digits(j + w)
		if m == 0 {
			return s.fail(j+w, "expected digits after the decimal point")
		}
		j, kind = k, tokenDecimal
	}
	if c, w := decodeAt(s.source, j); c == 'e' || c == 'E' {
		k := j + w
		if sign, signWidth := decodeAt(s.source, k); sign == '+' || sign == '-' {
			k += signWidth
		}
		exponentEnd, m := s.digits(k)
		if m == 0 {
			return s.fail(k, "expected digits in the exponent")
		}
		j, kind = exponentEnd, tokenDouble
	}
	if isIdentifierPart(s.charAt(j)) {
		return s.fail(j, "invalid number literal")
	}
	s.cursor = j
	return s.token(kind, start, j, s.text(start, j)), nil
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

// Items mode: $select and $expand. A "(" after an item starts a balanced blob that the option parser splits
// into nested options (or, in $select, parameter names).
func (s *scanner) nextItem() (lexer.Token, error) {
	if s.skipSpace() {
		return s.fail(s.cursor-1, "unexpected whitespace")
	}
	start := s.cursor
	c, w := decodeAt(s.source, s.cursor)
	if w == 0 {
		return s.token(tokenEOF, start, start, ""), nil
	}
	switch {
	case isIdentifierStart(c):
		end := s.scanWord(start, true)
		s.cursor = end
		word := s.text(start, end)
		if !utf8.ValidString(word) {
			return s.fail(start, "invalid UTF-8 in identifier")
		}
		return s.token(tokenIdentifier, start, end, word), nil
	case c == '@':
		return s.scanAt(start, w)
	case c == '$':
		return s.scanDollar(start, w)
	case c == '(':
		if err := s.pendBlob(start, w); err != nil {
			return lexer.Token{}, err
		}
		return s.Next()
	}
	s.cursor = start + w
	switch c {
	case '/':
		return s.token(tokenSlash, start, s.cursor, "/"), nil
	case ',':
		return s.token(tokenComma, start, s.cursor, ","), nil
	case '*':
		return s.token(tokenStar, start, s.cursor, "*"), nil
	case '.':
		return s.token(tokenDot, start, s.cursor, "."), nil
	}
	return s.fail(start, "unexpected "+describeByte(c))
}

// balanced finds the raw offset of the ")" that closes a "(" whose content starts at i. Quoted strings ('...'
// and "...") are skipped so parentheses inside them do not count.
func (s *scanner) balanced(i int) (int, *lexicalError) {
	depth := 0
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
		case c == '\'':
			// A quote inside a word (Daniel's in $search) is not a string delimiter.
			if i > 0 {
				if p := s.source[i-1]; isIdentifierPart(p) && w == 1 {
					break
				}
			}
			e, err := s.skipQuoted(i, w, '\'')
			if err != nil {
				return 0, err
			}
			i = e
			continue
		case c == '"':
			e, err := s.skipQuoted(i, w, '"')
			if err != nil {
				return 0, err
			}
			i = e
			continue
		}
		i += w
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

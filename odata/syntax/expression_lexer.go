package syntax

import (
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// nextExpr returns the next token of an expression. A word after an operand and whitespace is an operator
// keyword; the nesting of brackets and prefix operators is counted against maxNesting.
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
		word := s.source[start:end]
		if strings.IndexByte(word, '%') >= 0 {
			word = decode(word) // a letter may arrive percent-encoded too
		}
		if t, v := keyword(word); t != 0 {
			s.cursor = end
			s.afterOperand = false
			token := s.token(t, start, end, v)
			if t != tokenDirection && t != tokenAs && t != tokenWith && t != tokenFrom && t != tokenStart {
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
	"as": {tokenAs, "as"}, "with": {tokenWith, "with"}, "from": {tokenFrom, "from"},
	"start": {tokenStart, "start"},
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

// open counts the bracket at start as one nesting level.
func (s *scanner) open(start int) *lexicalError {
	s.depth++
	if s.depth > maxNesting {
		return s.nestingErrorAt(start)
	}
	return nil
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
	if s.apply && strings.EqualFold(word, "search") {
		// search(...) in $apply holds a $search expression, lexed by its own grammar: keep its text whole.
		if open, w := decodeAt(s.source, end); open == '(' {
			if err := s.pendBlob(end, w); err != nil {
				return lexer.Token{}, err
			}
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
	kind, sign := tokenDate, -1
	if clock := s.expect(end, 'T'); clock >= 0 {
		e, zone, err := s.scanClockWithZone(clock)
		if err != nil {
			return lexer.Token{}, err
		}
		end, kind, sign = e, tokenDateTime, zone
	}
	if isIdentifierPart(s.charAt(end)) {
		return s.fail(end, "invalid date literal")
	}
	s.cursor = end
	return s.token(kind, start, end, s.signedText(start, sign, end)), nil
}

// scanClockWithZone scans the time and the time zone of a date-time from clock (after the "T"). It returns the
// end and the offset of the zone's sign (-1 for "Z"). A space stands for "+": form encoding turns an unencoded
// "+" into one.
func (s *scanner) scanClockWithZone(clock int) (end, sign int, err *lexicalError) {
	e := s.scanTime(clock)
	if e < 0 {
		return 0, 0, s.errorAt(clock, "invalid date-time literal")
	}
	switch c, w := decodeAt(s.source, e); c {
	case 'Z':
		return e + w, -1, nil
	case ' ':
		if zoneEnd := s.scanTime(e + w); zoneEnd >= 0 {
			return zoneEnd, e, nil
		}
	case '+', '-':
		zoneEnd := s.scanTime(e + w)
		if zoneEnd < 0 {
			return 0, 0, s.errorAt(e+w, "invalid time zone offset in date-time literal")
		}
		return zoneEnd, e, nil
	}
	return 0, 0, s.errorAt(e, "date-time literal needs a time zone (Z or +hh:mm)")
}

// signedText returns the decoded source text of source[start:end] whose character at sign (unless sign is -1) is
// a sign: a space there, which is how a "+" reads in a query string, becomes "+".
func (s *scanner) signedText(start, sign, end int) string {
	if sign < 0 {
		return s.text(start, end)
	}
	if c, w := decodeAt(s.source, sign); c == ' ' {
		return s.text(start, sign) + "+" + s.text(sign+w, end)
	}
	return s.text(start, end)
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
	sign := -1
	if c, w := decodeAt(s.source, j); c == 'e' || c == 'E' {
		k := j + w
		// A space before the exponent's digits is its "+", unencoded in a query string.
		if signChar, signWidth := decodeAt(s.source, k); signChar == '+' || signChar == '-' ||
			signChar == ' ' && isDigit(s.charAt(k+signWidth)) {
			sign = k
			k += signWidth
		}
		exponentEnd, m := s.digits(k)
		if m == 0 {
			return s.fail(k, "expected digits in the exponent")
		}
		j, kind = exponentEnd, tokenDouble
	}
	end := j
	if suffix, w := decodeAt(s.source, j); isTypeSuffix(suffix, kind) && !isIdentifierPart(s.charAt(j+w)) {
		end = j + w // OData 2 and 3's type suffix (1.5f, 2d, 9.99m, 5L): the number stands as written without it
	}
	if isIdentifierPart(s.charAt(end)) {
		return s.fail(end, "invalid number literal")
	}
	s.cursor = end
	return s.token(kind, start, j, s.signedText(start, sign, j)), nil
}

// isTypeSuffix reports whether c is a type suffix of OData 2 and 3 number literals, which clients still send:
// f (Single), d (Double), m (Decimal), and L (Int64) after an integer.
func isTypeSuffix(c byte, kind lexer.TokenType) bool {
	switch c {
	case 'f', 'F', 'd', 'D', 'm', 'M':
		return true
	case 'L', 'l':
		return kind == tokenInteger
	}
	return false
}

package syntax

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// SearchExpr is a $search expression: *SearchTerm, *SearchNot or *SearchBinary.
type SearchExpr interface {
	Node
	search()
}

// SearchTerm is a search word (blue) or a phrase ("blue green", Phrase true). Text is percent-decoded, without
// the quotes of a phrase.
type SearchTerm struct {
	Pos    int
	Text   string
	Phrase bool
}

// SearchNot is NOT X.
type SearchNot struct {
	Pos int
	X   SearchExpr
}

// SearchOp is AND or OR.
type SearchOp uint8

// Search operators. Juxtaposed terms ("blue green") are an implicit SearchAnd.
const (
	SearchAnd SearchOp = iota
	SearchOr
)

// String returns "AND" or "OR".
func (op SearchOp) String() string {
	if op == SearchOr {
		return "OR"
	}
	return "AND"
}

// SearchBinary is Left AND Right or Left OR Right.
type SearchBinary struct {
	Pos   int
	Op    SearchOp
	Left  SearchExpr
	Right SearchExpr
}

func (*SearchTerm) node()     {}
func (*SearchNot) node()      {}
func (*SearchBinary) node()   {}
func (*SearchTerm) search()   {}
func (*SearchNot) search()    {}
func (*SearchBinary) search() {}

// Position returns the node's byte offset.
func (n *SearchTerm) Position() int { return n.Pos }

// Position returns the node's byte offset.
func (n *SearchNot) Position() int { return n.Pos }

// Position returns the node's byte offset.
func (n *SearchBinary) Position() int { return n.Pos }

// String prints the node.
func (n *SearchTerm) String() string { return printSearch(n) }

// String prints the node.
func (n *SearchNot) String() string { return printSearch(n) }

// String prints the node.
func (n *SearchBinary) String() string { return printSearch(n) }

func printSearch(e SearchExpr) string {
	var b strings.Builder
	writeSearch(&b, e, 0)
	return b.String()
}

func searchPrecedence(e SearchExpr) int {
	switch e := e.(type) {
	case *SearchBinary:
		if e.Op == SearchOr {
			return 1
		}
		return 2
	case *SearchNot:
		return 3
	}
	return 4
}

func writeSearch(b *strings.Builder, e SearchExpr, min int) {
	if searchPrecedence(e) < min {
		b.WriteByte('(')
		writeSearch(b, e, 0)
		b.WriteByte(')')
		return
	}
	switch e := e.(type) {
	case *SearchTerm:
		if e.Phrase && (e.Text == "" || strings.ContainsAny(e.Text, `"\`)) {
			// Only the 4.01 single-quoted form can hold a double quote, and a backslash inside double quotes
			// would read as an escape in a nested option.
			b.WriteByte('\'')
			escapeText(b, strings.ReplaceAll(e.Text, "'", "''"))
			b.WriteByte('\'')
		} else if e.Phrase || e.Text == "AND" || e.Text == "OR" || e.Text == "NOT" {
			// A word that spells an operator prints as a phrase, so it cannot turn into one.
			b.WriteByte('"')
			writeSearchText(b, e.Text, true)
			b.WriteByte('"')
		} else {
			writeSearchText(b, e.Text, false)
		}
	case *SearchNot:
		b.WriteString("NOT ")
		writeSearch(b, e.X, 3)
	case *SearchBinary:
		p := searchPrecedence(e)
		writeSearch(b, e.Left, p)
		b.WriteByte(' ')
		b.WriteString(e.Op.String())
		b.WriteByte(' ')
		writeSearch(b, e.Right, p+1)
	}
}

// writeSearchText percent-encodes what would end or split a search word or phrase, and a '+' (which reads as a
// space).
func writeSearchText(b *strings.Builder, s string, phrase bool) {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		enc := c == '%' || c == '&' || c == '#' || c == '"' || c == ';' || c == '+' || c < ' ' || c == 0x7f
		if !phrase {
			enc = enc || c == ' ' || c == '(' || c == ')' || (i == 0 && c == '\'')
		}
		if enc {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		} else {
			b.WriteByte(c)
		}
	}
}

// Search grammar: OR binds weaker than AND (explicit or implicit), which binds weaker than NOT.
type grammarSearch struct {
	Left *grammarSearchAnd       `parser:"@@"`
	Rest []*grammarSearchOrRight `parser:"@@*"`
}

type grammarSearchOrRight struct {
	Op    lexer.Token       `parser:"@SearchOr"`
	Right *grammarSearchAnd `parser:"@@"`
}

type grammarSearchAnd struct {
	Left *grammarSearchUnary      `parser:"@@"`
	Rest []*grammarSearchAndRight `parser:"@@*"`
}

type grammarSearchAndRight struct {
	Op    lexer.Token         `parser:"@SearchAnd?"`
	Right *grammarSearchUnary `parser:"@@"`
}

type grammarSearchUnary struct {
	Not     lexer.Token           `parser:"( @SearchNot"`
	X       *grammarSearchUnary   `parser:"  @@"`
	Primary *grammarSearchPrimary `parser:"| @@ )"`
}

type grammarSearchPrimary struct {
	Term  lexer.Token    `parser:"  @(Word | Phrase)"`
	Paren *grammarSearch `parser:"| LeftParenthesis @@ RightParenthesis"`
}

var searchParser = buildParser[grammarSearch]()

func searchExpect(prev lexer.TokenType, hasPrev bool) string {
	switch {
	case !hasPrev, prev == tokenLeftParenthesis, prev == tokenSearchAnd, prev == tokenSearchOr, prev == tokenSearchNot:
		return "search term"
	}
	return "search operator"
}

// rawSearchToken is a search token before keyword classification.
type rawSearchToken struct {
	token lexer.Token
	space bool // whitespace before it
}

// lexSearch tokenises a whole $search value, then decides which AND, OR and NOT words are operators, and
// queues the tokens.
func (s *scanner) lexSearch() *lexicalError {
	raw, err := s.searchTokens()
	if err != nil {
		return err
	}
	tokens, err := classifySearchWords(raw)
	if err != nil {
		return err
	}
	s.pending = append(tokens, s.token(tokenEOF, s.cursor, s.cursor, ""))
	return nil
}

// searchTokens splits a $search value into words, phrases and parentheses.
func (s *scanner) searchTokens() ([]rawSearchToken, *lexicalError) {
	var raw []rawSearchToken
	depth := 0
	for {
		space := s.skipSpace()
		start := s.cursor
		c, w := decodeAt(s.source, s.cursor)
		if w == 0 {
			return raw, nil
		}
		if err := s.searchSeparation(raw, space, c, start); err != nil {
			return nil, err
		}
		var t lexer.Token
		var err *lexicalError
		switch c {
		case '(':
			if depth++; depth > maxNesting {
				return nil, &lexicalError{pos: s.base + start, msg: "nesting exceeds the limit of 64 levels", limit: true}
			}
			s.cursor += w
			t = s.token(tokenLeftParenthesis, start, s.cursor, "(")
		case ')':
			depth--
			s.cursor += w
			t = s.token(tokenRightParenthesis, start, s.cursor, ")")
		case '"':
			t, err = s.scanSearchPhrase(start, w)
		case '\'':
			err = &lexicalError{pos: s.base + start, msg: `a search word cannot start with "'"`}
		default:
			t, err = s.scanSearchWord(c, start)
		}
		if err != nil {
			return nil, err
		}
		raw = append(raw, rawSearchToken{t, space})
	}
}

// searchSeparation checks that the token starting with c at start is separated from the tokens before it as
// it must be: by whitespace after a phrase or ")", unless it is a ")" too; a "(" right after a word would be
// part of it.
func (s *scanner) searchSeparation(raw []rawSearchToken, space bool, c byte, start int) *lexicalError {
	if len(raw) == 0 || space {
		return nil
	}
	switch prev := raw[len(raw)-1].token.Type; {
	case (prev == tokenPhrase || prev == tokenRightParenthesis) && c != ')':
		return &lexicalError{pos: s.base + start, msg: "expected whitespace"}
	case prev == tokenWord && c == '(':
		return &lexicalError{pos: s.base + start, msg: `unexpected "(" in search word`}
	}
	return nil
}

// scanSearchPhrase scans a "phrase" whose opening quote (w bytes) is at start.
func (s *scanner) scanSearchPhrase(start, w int) (lexer.Token, *lexicalError) {
	i := start + w
	for {
		c, width := decodeAt(s.source, i)
		if width == 0 {
			return lexer.Token{}, &lexicalError{pos: s.base + i, msg: "unterminated search phrase"}
		}
		if c == '"' {
			break
		}
		if width == 1 && (c == '%' || c == '#' || c == '&') {
			return lexer.Token{}, &lexicalError{pos: s.base + i, msg: "unexpected " + describeByte(c)}
		}
		i += width
	}
	if i == start+w {
		return lexer.Token{}, &lexicalError{pos: s.base + i, msg: "empty search phrase"}
	}
	text := s.text(start+w, i)
	_, closeWidth := decodeAt(s.source, i)
	s.cursor = i + closeWidth
	return s.token(tokenPhrase, start, s.cursor, text), nil
}

// scanSearchWord scans a search word that starts with c at start: everything up to whitespace, a parenthesis,
// a quote or a raw ";".
func (s *scanner) scanSearchWord(c byte, start int) (lexer.Token, *lexicalError) {
	i := start
	for {
		d, width := decodeAt(s.source, i)
		if width == 0 || isSpace(d) || d == '(' || d == ')' || d == '"' || (width == 1 && d == ';') {
			break
		}
		if width == 1 && (d == '%' || d == '#' || d == '&') || d < ' ' || d == 0x7f {
			return lexer.Token{}, &lexicalError{pos: s.base + i, msg: "unexpected " + describeByte(d)}
		}
		i += width
	}
	if i == start {
		return lexer.Token{}, &lexicalError{pos: s.base + start, msg: "unexpected " + describeByte(c)}
	}
	s.cursor = i
	return s.token(tokenWord, start, i, s.text(start, i)), nil
}

// classifySearchWords turns the words AND, OR and NOT into operators where they are ones, left to right: NOT
// when a term follows it, AND and OR when a term precedes and one follows; elsewhere they are words. It limits
// runs of NOT to the nesting limit.
func classifySearchWords(raw []rawSearchToken) ([]lexer.Token, *lexicalError) {
	tokens := make([]lexer.Token, 0, len(raw)+1)
	afterTerm := false // the previous token ends a term
	nots := 0
	for i, r := range raw {
		t := r.token
		if t.Type == tokenWord {
			beforeTerm := i+1 < len(raw) && raw[i+1].token.Type != tokenRightParenthesis
			t.Type = searchWordType(t.Value, afterTerm, beforeTerm)
		}
		afterTerm = t.Type == tokenWord || t.Type == tokenPhrase || t.Type == tokenRightParenthesis
		if t.Type != tokenSearchNot {
			nots = 0
		} else if nots++; nots > maxNesting {
			return nil, &lexicalError{pos: t.Pos.Offset, msg: "nesting exceeds the limit of 64 levels", limit: true}
		}
		tokens = append(tokens, t)
	}
	return tokens, nil
}

// searchWordType returns the operator a word is, given whether a term precedes and follows it, or tokenWord.
func searchWordType(word string, afterTerm, beforeTerm bool) lexer.TokenType {
	switch {
	case word == "NOT" && beforeTerm:
		return tokenSearchNot
	case word == "AND" && afterTerm && beforeTerm:
		return tokenSearchAnd
	case word == "OR" && afterTerm && beforeTerm:
		return tokenSearchOr
	}
	return tokenWord
}

func (s *scanner) nextSearch() (lexer.Token, error) {
	if s.pending == nil {
		if err := s.lexSearch(); err != nil {
			s.err = err
			return lexer.Token{}, err
		}
	}
	if len(s.pending) == 0 {
		return s.token(tokenEOF, s.cursor, s.cursor, ""), nil
	}
	t := s.pending[0]
	s.pending = s.pending[1:]
	return t, nil
}

// parseSearch parses a $search value that starts at offset base.
func parseSearch(source string, base int) (SearchExpr, *Error) {
	c, w := decodeAt(source, 0)
	if w == 0 {
		return nil, syntaxErrorAt(base, "expected search term, found end of input")
	}
	if c == '\'' {
		// 4.01 "incomplete" search expression: a single-quoted string taken as one phrase.
		s := newScanner(source, base, modeExpression)
		end, err := s.scanQuoted(0, w)
		if err != nil {
			return nil, syntaxErrorAt(err.pos, err.msg)
		}
		if end != len(source) {
			return nil, syntaxErrorAt(base+end, "expected end of input after the quoted search text")
		}
		text := unquote(decode(source))
		if err := checkText(text, base); err != nil {
			return nil, err
		}
		return &SearchTerm{Pos: base, Text: text, Phrase: true}, nil
	}
	s := newScanner(source, base, modeSearch)
	g, err := parse(searchParser, s, searchExpect)
	if err != nil {
		return nil, err
	}
	e := convertSearch(g)
	return e, checkSearchText(e)
}

// checkSearchText applies checkText to every term of e.
func checkSearchText(e SearchExpr) *Error {
	switch n := e.(type) {
	case *SearchTerm:
		return checkText(n.Text, n.Pos)
	case *SearchNot:
		return checkSearchText(n.X)
	case *SearchBinary:
		if err := checkSearchText(n.Left); err != nil {
			return err
		}
		return checkSearchText(n.Right)
	}
	return nil
}

func convertSearch(g *grammarSearch) SearchExpr {
	left := convertSearchAnd(g.Left)
	for _, r := range g.Rest {
		left = &SearchBinary{Pos: r.Op.Pos.Offset, Op: SearchOr, Left: left, Right: convertSearchAnd(r.Right)}
	}
	return left
}

func convertSearchAnd(g *grammarSearchAnd) SearchExpr {
	left := convertSearchUnary(g.Left)
	for _, r := range g.Rest {
		right := convertSearchUnary(r.Right)
		pos := right.Position()
		if r.Op.Type != 0 {
			pos = r.Op.Pos.Offset
		}
		left = &SearchBinary{Pos: pos, Op: SearchAnd, Left: left, Right: right}
	}
	return left
}

func convertSearchUnary(g *grammarSearchUnary) SearchExpr {
	if g.Primary == nil {
		return &SearchNot{Pos: g.Not.Pos.Offset, X: convertSearchUnary(g.X)}
	}
	if g.Primary.Paren != nil {
		return convertSearch(g.Primary.Paren)
	}
	t := g.Primary.Term
	return &SearchTerm{Pos: t.Pos.Offset, Text: t.Value, Phrase: t.Type == tokenPhrase}
}

package plan

import (
	"strings"
	"unicode"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

// bindSearch binds a $search expression over the Searchable properties of r's entity type that the request may
// read (see Redactions). Where the type has a full-text index (Options.SearchIndexes) and the request may read
// every searchable property, the index answers (see fullTextBinder); otherwise a term matches an
// entity when one of those properties contains it, ignoring the case of ASCII letters (what users expect of a
// search box; lower() folds ASCII only on SQLite, and on PostgreSQL under COLLATE "C"). Phrases match as one
// string; AND, OR and NOT combine terms, and a null property contains nothing.
func (c *compiler) bindSearch(option string, r *tableRange, s syntax.SearchExpr) (boundExpr, error) {
	var props []*edm.Property
	hidden := false
	for _, p := range r.typ.Properties {
		switch {
		case !p.Searchable:
		case c.hidden(r.typ, p):
			hidden = true
		default:
			props = append(props, p)
		}
	}
	switch {
	case len(props) == 0 && hidden:
		return nil, &Error{Code: CodeNotReadable, Option: option, Pos: s.Position() + 1,
			Msg: "$search is not available on " + r.typ.Name + ": no searchable property is readable by this request"}
	case len(props) == 0:
		return nil, &Error{Code: CodeNotSupported, Option: option, Pos: s.Position() + 1,
			Msg: "$search is not supported on " + r.typ.Name + ": it has no searchable properties"}
	}
	if index := c.p.search[r.typ]; index != "" && !hidden {
		// Every searchable property is readable: the index, which covers them all, may answer.
		ft := &fullTextBinder{r: r, index: index, props: props, syntax: c.d.FullText().Syntax()}
		return ft.bind(s), nil
	}
	var bind func(s syntax.SearchExpr) boundExpr
	bind = func(s syntax.SearchExpr) boundExpr {
		switch n := s.(type) {
		case *syntax.SearchTerm:
			return &boundSearch{r: r, term: n.Text, props: props}
		case *syntax.SearchNot:
			return &boundNot{x: bind(n.X)}
		case *syntax.SearchBinary:
			op := syntax.OpAnd
			if n.Op == syntax.SearchOr {
				op = syntax.OpOr
			}
			return &boundBinary{t: typeBoolean, op: op, l: bind(n.Left), r: bind(n.Right)}
		}
		return &boundLiteral{t: typeBoolean, v: false}
	}
	return bind(s), nil
}

// fullTextBinder binds a $search expression to queries of a full-text index (sqldb.FullText). Each term becomes
// the phrase of its tokens (searchTokens; on PostgreSQL those of its parser, see phrase), a word ending in * a
// phrase whose last token is a prefix; a term without tokens matches nothing. The largest parts of the expression the index's syntax can say become one
// query each, combined in SQL otherwise: PostgreSQL's tsquery says every expression; SQLite's FTS4 has a
// binary NOT only, so a NOT is said there as "x NOT y" when it is the right or left side of an AND whose other
// side it can say, and elsewhere as SQL NOT of the query of its operand.
type fullTextBinder struct {
	r      *tableRange
	index  string
	props  []*edm.Property
	syntax sqldb.FullTextSyntax
}

// bind binds s.
func (b *fullTextBinder) bind(s syntax.SearchExpr) boundExpr {
	if q, ok := b.query(s); ok {
		if q == "" {
			return &boundLiteral{t: typeBoolean, v: false}
		}
		return &boundFullText{r: b.r, index: b.index, props: b.props, query: q}
	}
	switch n := s.(type) {
	case *syntax.SearchNot:
		return &boundNot{x: b.bind(n.X)}
	case *syntax.SearchBinary:
		op := syntax.OpAnd
		if n.Op == syntax.SearchOr {
			op = syntax.OpOr
		}
		return &boundBinary{t: typeBoolean, op: op, l: b.bind(n.Left), r: b.bind(n.Right)}
	}
	return &boundLiteral{t: typeBoolean, v: false}
}

// query returns s as one query of the index's syntax, and whether the syntax can say it; "" for a term without
// tokens, which matches nothing.
func (b *fullTextBinder) query(s syntax.SearchExpr) (string, bool) {
	switch n := s.(type) {
	case *syntax.SearchTerm:
		return b.phrase(n), true
	case *syntax.SearchNot:
		if b.syntax != sqldb.TSQuery {
			return "", false
		}
		x, ok := b.query(n.X)
		if !ok || x == "" {
			return "", false
		}
		return "!" + x, true
	case *syntax.SearchBinary:
		return b.binary(n)
	}
	return "", false
}

// binary is query of an AND or OR.
func (b *fullTextBinder) binary(n *syntax.SearchBinary) (string, bool) {
	and, or, not := " AND ", " OR ", " NOT "
	if b.syntax == sqldb.TSQuery {
		and, or, not = " & ", " | ", " & !"
	}
	if n.Op == syntax.SearchAnd && b.syntax == sqldb.FTS4 {
		// x AND NOT y, or NOT y AND x: x NOT y.
		if x, y, ok := b.andNot(n.Left, n.Right); ok {
			return "(" + x + not + y + ")", true
		}
		if x, y, ok := b.andNot(n.Right, n.Left); ok {
			return "(" + x + not + y + ")", true
		}
	}
	l, ok := b.query(n.Left)
	if !ok {
		return "", false
	}
	r, ok := b.query(n.Right)
	if !ok || l == "" || r == "" {
		// A side without tokens matches nothing: the SQL combination says it (bind).
		return "", false
	}
	if n.Op == syntax.SearchOr {
		return "(" + l + or + r + ")", true
	}
	return "(" + l + and + r + ")", true
}

// andNot returns the queries of x and of y where not is NOT y and both can be said and have tokens.
func (b *fullTextBinder) andNot(x, not syntax.SearchExpr) (string, string, bool) {
	n, ok := not.(*syntax.SearchNot)
	if !ok {
		return "", "", false
	}
	l, ok := b.query(x)
	if !ok || l == "" {
		return "", "", false
	}
	r, ok := b.query(n.X)
	if !ok || r == "" {
		return "", "", false
	}
	return l, r, true
}

// phrase is the query of a term: "" when it has no tokens. FTS4 gets the phrase of the tokens, its last one a
// prefix; tsquery the term's own text quoted, which PostgreSQL's parser splits as it splits the documents (a
// phrase of several words, every word a prefix with :*).
func (b *fullTextBinder) phrase(n *syntax.SearchTerm) string {
	tokens, prefix := searchTokens(n.Text, !n.Phrase)
	if len(tokens) == 0 {
		return ""
	}
	if b.syntax == sqldb.TSQuery {
		text := n.Text
		if prefix {
			text = strings.TrimRight(text, "*")
		}
		q := "'" + strings.NewReplacer(`\`, `\\`, "'", "''").Replace(text) + "'"
		if prefix {
			q += ":*"
		}
		return q
	}
	q := `"` + strings.Join(tokens, " ")
	if prefix {
		q += "*"
	}
	return q + `"`
}

// searchTokens splits a $search term into the tokens the full-text index holds: the runs of letters and digits,
// lower-cased, everything else separating them (as SQLite's unicode61 tokenizer does; PostgreSQL's parser
// agrees but for text it reads as one token, such as host names, e-mail addresses and decimal numbers). With
// word, a term ending in * asks for a prefix.
func searchTokens(term string, word bool) ([]string, bool) {
	prefix := word && strings.HasSuffix(term, "*")
	tokens := strings.FieldsFunc(term, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	for i, t := range tokens {
		tokens[i] = strings.ToLower(t)
	}
	return tokens, prefix && len(tokens) > 0
}

// asciiLower lower-cases ASCII letters only, as SQL lower() does on both databases.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// escapeLike escapes the LIKE wildcards % and _ and the escape character \ itself.
func escapeLike(s string) string {
	if !strings.ContainsAny(s, `%_\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 4)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '%', '_', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

package plan

import (
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// bindSearch binds a $search expression over the Searchable properties of r's entity type that the request may
// read (see Redactions). A term matches an
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

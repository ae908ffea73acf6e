package postgres

import (
	"regexp"
	"strings"

	"github.com/storekit/store/odata/sqldb"
)

// FullText returns PostgreSQL's full-text index: a GIN index on a tsvector expression (see fullText).
func (Dialect) FullText() sqldb.FullText { return fullText{} }

// fullText indexes the searchable columns of a table with a GIN index on to_tsvector('simple', ...) of the
// columns joined by spaces (a null column as the empty string); 'simple' lower-cases words and does not stem
// them, as SQLite's unicode61 tokenizer. A query repeats the expression, so the planner can use the index; the
// database keeps it in step on every write, whichever program makes it.
type fullText struct{}

// document is the tsvector expression over columns (SQL values).
func document(columns []string) string {
	parts := make([]string, len(columns))
	for i, c := range columns {
		parts[i] = "coalesce(" + c + ", '')"
	}
	return "to_tsvector('simple'::regconfig, " + strings.Join(parts, " || ' ' || ") + ")"
}

func (fullText) Create(table, index string, columns []string) []string {
	q := sqldb.Standard{}.QuoteIdent
	cols := make([]string, len(columns))
	for i, c := range columns {
		cols[i] = q(c)
	}
	return []string{"CREATE INDEX " + q(index) + " ON " + q(table) + " USING gin (" + document(cols) + ")"}
}

func (fullText) Catalog() string {
	return `SELECT pg_get_indexdef(x.indexrelid) FROM pg_index AS x JOIN pg_class AS c ON c.oid = x.indexrelid
WHERE c.relname = $1 AND x.indrelid = to_regclass(quote_ident($2)) AND x.indpred IS NULL`
}

// casts matches the casts pg_get_indexdef adds to the literals of an expression ('simple'::regconfig,
// ”::text).
var casts = regexp.MustCompile(`::[a-z]+( varying)?`)

func (f fullText) Matches(table, index string, columns []string, definitions []string) bool {
	if len(definitions) != 1 {
		return false
	}
	using := func(s string) string {
		s = strings.ToLower(s)
		i := strings.Index(s, " using ")
		if i < 0 {
			return ""
		}
		return strings.Map(func(r rune) rune {
			switch r {
			case ' ', '\t', '\n', '"', '(', ')':
				return -1
			}
			return r
		}, casts.ReplaceAllString(s[i:], ""))
	}
	got := using(definitions[0])
	return got != "" && got == using(f.Create(table, index, columns)[0])
}

func (fullText) Match(_, _ string, columns []string, param string) string {
	return document(columns) + " @@ to_tsquery('simple'::regconfig, " + param + ")"
}

// CountMatches returns "": a GIN index does not know which rows a transaction sees.
func (fullText) CountMatches(string, string) string { return "" }

func (fullText) Syntax() sqldb.FullTextSyntax { return sqldb.TSQuery }

package postgres

import (
	"regexp"
	"strings"

	"github.com/storekit/store/odata/sqldb"
)

// FullText returns PostgreSQL's full-text index: a stored generated tsvector column with a GIN index (see
// fullText).
func (Dialect) FullText() sqldb.FullText { return fullText{} }

// searchColumn is the column of a table, generated and stored by PostgreSQL, that holds the tsvector of its
// searchable columns; the model declares no property of it, so reads never select it and writes never name it.
const searchColumn = "search_vector"

// fullText indexes the searchable columns of a table with a stored generated column, searchColumn, of
// to_tsvector('simple', ...) of the columns joined by spaces (a null column as the empty string), and a GIN
// index on it; 'simple' lower-cases words and does not stem them, as SQLite's unicode61 tokenizer. The database
// keeps both in step on every write, whichever program makes it. A stored column rather than an index on the
// expression: a query that walks another index (the key's, for a page of a frequent word) tests each row's
// stored vector instead of parsing its text again (about 20 us a row).
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
	return []string{
		"ALTER TABLE " + q(table) + " ADD COLUMN " + q(searchColumn) + " tsvector GENERATED ALWAYS AS (" +
			document(cols) + ") STORED",
		"CREATE INDEX " + q(index) + " ON " + q(table) + " USING gin (" + q(searchColumn) + ")",
	}
}

// Catalog reads the generated column's definition (as "column <name> <type> generated <expression>") and the
// index's.
func (fullText) Catalog() string {
	return `SELECT 'column ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' generated ' ||
	pg_get_expr(d.adbin, d.adrelid)
FROM pg_attribute AS a JOIN pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attrelid = to_regclass(quote_ident($2)) AND a.attname = '` + searchColumn + `' AND a.attgenerated = 's'
UNION ALL
SELECT pg_get_indexdef(x.indexrelid) FROM pg_index AS x JOIN pg_class AS c ON c.oid = x.indexrelid
WHERE c.relname = $1 AND x.indrelid = to_regclass(quote_ident($2)) AND x.indpred IS NULL`
}

// casts matches the casts pg_get_indexdef and pg_get_expr add to the literals of an expression
// ('simple'::regconfig, ”::text).
var casts = regexp.MustCompile(`::[a-z]+( varying)?`)

// canonical is a definition without case, casts, white space, quotes and parentheses (pg_get_expr nests the
// concatenations in them).
func canonical(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '"', '(', ')':
			return -1
		}
		return r
	}, casts.ReplaceAllString(strings.ToLower(s), ""))
}

func (f fullText) Matches(table, index string, columns []string, definitions []string) bool {
	if len(definitions) != 2 {
		return false
	}
	want := f.Create(table, index, columns)
	var column, idx string
	for _, d := range definitions {
		if strings.HasPrefix(d, "column ") {
			column = d
		} else {
			idx = d
		}
	}
	// The column: "ALTER TABLE t ADD COLUMN c tsvector GENERATED ALWAYS AS (e) STORED" against "column c
	// tsvector generated e".
	wantColumn := want[0][strings.Index(want[0], " ADD COLUMN ")+len(" ADD COLUMN "):]
	wantColumn = strings.Replace(strings.TrimSuffix(wantColumn, " STORED"), " GENERATED ALWAYS AS ", " generated ", 1)
	if column == "" || canonical(strings.TrimPrefix(column, "column ")) != canonical(wantColumn) {
		return false
	}
	using := func(s string) string {
		i := strings.Index(strings.ToLower(s), " using ")
		if i < 0 {
			return ""
		}
		return canonical(s[i:])
	}
	got := using(idx)
	return got != "" && got == using(want[1])
}

// Match tests the stored vector of the row.
func (fullText) Match(_, alias string, _ []string, param string) string {
	return alias + "." + sqldb.Standard{}.QuoteIdent(searchColumn) + " @@ to_tsquery('simple'::regconfig, " + param + ")"
}

// CountMatches returns "": a GIN index does not know which rows a transaction sees.
func (fullText) CountMatches(string, string) string { return "" }

func (fullText) Syntax() sqldb.FullTextSyntax { return sqldb.TSQuery }

// MatchInOrder returns "": PostgreSQL's planner chooses between the GIN index and a walk of the order's index
// by its statistics.
func (fullText) MatchInOrder(string, string, []string, string) string { return "" }

// Size returns "" (see MatchInOrder).
func (fullText) Size(string) string { return "" }

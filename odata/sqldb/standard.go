package sqldb

import "strings"

// Standard implements the Dialect methods whose SQL both supported databases spell the same way, as the SQL
// standard and PostgreSQL do (SQLite adopted PostgreSQL's syntax for these clauses): double-quoted identifiers,
// NULLS FIRST and NULLS LAST, RETURNING and ON CONFLICT. An adapter's Dialect embeds it and adds the rest.
type Standard struct{}

// QuoteIdent quotes name with double quotes, doubling the double quotes inside it.
func (Standard) QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// NullsOrder spells OData's order of nulls: NULLS FIRST ascending, NULLS LAST descending.
func (Standard) NullsOrder(desc bool) string {
	if desc {
		return " NULLS LAST"
	}
	return " NULLS FIRST"
}

// Returning returns "RETURNING" and the quoted columns, "" without columns.
func (s Standard) Returning(columns ...string) string {
	if len(columns) == 0 {
		return ""
	}
	return "RETURNING " + s.quoteAll(columns)
}

// Upsert returns "ON CONFLICT (conflict) DO UPDATE SET" each update column to its excluded value, or DO NOTHING
// without update columns.
func (s Standard) Upsert(conflict, update []string) string {
	clause := "ON CONFLICT (" + s.quoteAll(conflict) + ") DO "
	if len(update) == 0 {
		return clause + "NOTHING"
	}
	set := make([]string, len(update))
	for i, c := range update {
		set[i] = s.QuoteIdent(c) + " = excluded." + s.QuoteIdent(c)
	}
	return clause + "UPDATE SET " + strings.Join(set, ", ")
}

func (s Standard) quoteAll(columns []string) string {
	quoted := make([]string, len(columns))
	for i, c := range columns {
		quoted[i] = s.QuoteIdent(c)
	}
	return strings.Join(quoted, ", ")
}

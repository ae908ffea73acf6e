// Package modelsql writes the SQL that follows from the model alone, in one place for the two parts of the
// engine that build SQL from it: the read planner (odata/internal/plan) and the Service's own reads and writes
// of whole entities (odata.Tx). It knows tables, columns, keys, computed properties and the side tables of
// collections: qualified column lists, key conditions (also case-insensitive ones), tuple IN and the JSON array
// of a collection's items.
//
// Identifiers come from the model only and are quoted through a Quoter (Names, the model's identifiers quoted once,
// which the planner and the Service share; or a Dialect); values are never written into the SQL: the caller
// passes a placeholder ("?", or the planner's argument marker) where a value goes.
package modelsql

import (
	"strings"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// Quoter quotes identifiers of the model: a sqldb.Dialect, or a cache of the names it quoted.
type Quoter interface {
	QuoteIdent(name string) string
}

// Column is column qualified by the table alias, both quoted ("alias"."column"); a bare quoted column when
// alias is "".
func Column(q Quoter, alias, column string) string {
	if alias == "" {
		return q.QuoteIdent(column)
	}
	return q.QuoteIdent(alias) + "." + q.QuoteIdent(column)
}

// Columns is Column of each of columns.
func Columns(q Quoter, alias string, columns []string) []string {
	qualifier := prefix(q, alias)
	out := make([]string, len(columns))
	for i, c := range columns {
		out[i] = qualifier + q.QuoteIdent(c)
	}
	return out
}

// prefix is the quoted alias and a dot, "" for no alias.
func prefix(q Quoter, alias string) string {
	if alias == "" {
		return ""
	}
	return q.QuoteIdent(alias) + "."
}

// Tuple is the row value of exprs: the expression itself when there is one, else "(e1, e2, ...)". It is the left
// side of a tuple IN, which works for composite keys on both databases.
func Tuple(exprs []string) string {
	if len(exprs) == 1 {
		return exprs[0]
	}
	return "(" + strings.Join(exprs, ", ") + ")"
}

// Value is the SQL of property p on the table aliased alias: its column, or for a property computed by SQL
// its expression (edm.Property.ExpandSQL) in parentheses.
func Value(q Quoter, p *edm.Property, alias string) string {
	if p.SQL != "" {
		return "(" + p.ExpandSQL(q.QuoteIdent(alias)) + ")"
	}
	return Column(q, alias, p.Column)
}

// Equals is the condition that the key column (SQL) equals value (a placeholder). fold matches a string key
// ignoring case: lower() of both sides, the value's under the binary collation, so that only ASCII letters
// fold, on both databases alike (a parameter would otherwise follow the database's default collation).
func Equals(d sqldb.Dialect, column, value string, fold bool) string {
	if fold {
		return "lower(" + column + ") = lower(" + d.CollateBinary(value) + ")"
	}
	return column + " = " + value
}

// CollectionArray is the correlated subquery that aggregates the items of the collection property p of the
// entity on the table aliased owner into the text of one JSON array, in item order (sqldb.Dialect.ArrayAgg;
// enum items as their integers, Binary items as hex). The side table is aliased side. A page of entities with
// collections is so one statement whose rows can be written as they arrive.
func CollectionArray(d sqldb.Dialect, q Quoter, p *edm.Property, owner, side string) string {
	ct := p.CollectionTable
	sidePrefix, ownerPrefix := prefix(q, side), prefix(q, owner)
	var where strings.Builder
	for i, col := range ct.SourceColumns {
		if i > 0 {
			where.WriteString(" AND ")
		}
		where.WriteString(sidePrefix)
		where.WriteString(q.QuoteIdent(ct.OwnerColumns[i]))
		where.WriteString(" = ")
		where.WriteString(ownerPrefix)
		where.WriteString(q.QuoteIdent(col))
	}
	k := p.Type
	if p.Enum != nil {
		k = edm.KindInt64
	}
	value, order := sidePrefix+q.QuoteIdent(ct.ValueColumn), sidePrefix+q.QuoteIdent(ct.OrdinalColumn)
	return "(SELECT " + d.ArrayAgg(value, order, k) + " FROM " + q.QuoteIdent(ct.Table) + " AS " +
		q.QuoteIdent(side) + " WHERE " + where.String() + ")"
}

// Select is the select list of the given columns of an entity type on the table aliased alias: each a
// primitive or enum property, a complex member (with its full column name) or a collection property, whose
// items are aggregated by CollectionArray (the side table aliased by its own name).
func Select(d sqldb.Dialect, q Quoter, alias string, columns []*edm.Property) []string {
	quoted := q.QuoteIdent(alias)
	out := make([]string, len(columns))
	for i, p := range columns {
		switch {
		case p.Collection:
			out[i] = CollectionArray(d, q, p, alias, p.CollectionTable.Table)
		case p.SQL != "":
			out[i] = "(" + p.ExpandSQL(quoted) + ")"
		default:
			out[i] = quoted + "." + q.QuoteIdent(p.Column)
		}
	}
	return out
}

// PropertyEquals is the condition that the column of p on the table aliased alias equals arg, an argument as
// sqldb.Arg converts it; fold as Equals.
func PropertyEquals(d sqldb.Dialect, q Quoter, p *edm.Property, alias string, arg any, fold bool) sq.Sqlizer {
	return sq.Expr(Equals(d, Column(q, alias, p.Column), "?", fold && p.Type == edm.KindString), arg)
}

// TupleIn is the condition that the columns of the table aliased alias (bare when "") are a row of in, a
// SELECT of as many columns.
func TupleIn(q Quoter, alias string, columns []string, in sq.SelectBuilder) sq.Sqlizer {
	return sq.Expr(Tuple(Columns(q, alias, columns))+" IN (?)", in)
}

// KeyColumns is the columns of the key properties of et, in key order.
func KeyColumns(et *edm.EntityType) []string {
	keys := et.KeyProperties()
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Column
	}
	return out
}

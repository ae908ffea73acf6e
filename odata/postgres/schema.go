package postgres

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/storekit/store/odata/edm"
)

// ColumnType returns the column type of kind k: TEXT COLLATE "C" for strings (so text compares and sorts by
// bytes, as on SQLite), BOOLEAN, SMALLINT for Byte, SByte and Int16, INTEGER, BIGINT for Int64 and Duration
// (microseconds), NUMERIC(precision,scale), DOUBLE PRECISION, REAL, DATE, TIME, TIMESTAMPTZ, UUID, BYTEA.
func (Dialect) ColumnType(k edm.Kind, precision, scale int) string {
	if k == edm.KindDecimal {
		return fmt.Sprintf("NUMERIC(%d,%d)", precision, scale)
	}
	if k == edm.KindString {
		return `TEXT COLLATE "C"`
	}
	return strings.ToUpper(catalogType(k))
}

// catalogType is the type of kind k as format_type spells it, the type a stored value of k is read as.
func catalogType(k edm.Kind) string {
	switch k {
	case edm.KindByte, edm.KindSByte, edm.KindInt16:
		return "smallint"
	case edm.KindInt32:
		return "integer"
	case edm.KindTimeOfDay:
		return "time"
	}
	return parameterType(k)
}

// ColumnHolds reports whether a column of type columnType (as format_type spells it) keeps every value of kind
// k: text, or a character varying at least maxLength long, for strings, an integer type at least as wide, a numeric with as many integer digits and at least
// the scale for decimals, double precision for Double (or Single), and the one type of the other kinds.
func (Dialect) ColumnHolds(columnType string, k edm.Kind, maxLength, precision, scale int) bool {
	t := strings.ToLower(strings.TrimSpace(columnType))
	switch k {
	case edm.KindString:
		return t == "text" || varcharHolds(t, maxLength)
	case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64, edm.KindDuration:
		return integerWidth(t) >= integerWidth(catalogType(k))
	case edm.KindDecimal:
		return numericHolds(t, precision, scale)
	case edm.KindSingle:
		return t == "real" || t == "double precision"
	case edm.KindTimeOfDay, edm.KindDateTimeOffset:
		return timeHolds(t, k, edm.TimeAuto, precision)
	}
	return t == catalogType(k)
}

// TimeColumnType returns TIMESTAMP (without time zone; TIME for a TimeOfDay) for edm.TimeSQL and BIGINT for
// edm.TimeUnix; ColumnType's for edm.TimeAuto.
func (d Dialect) TimeColumnType(k edm.Kind, s edm.TimeStorage) string {
	switch {
	case s == edm.TimeUnix:
		return "BIGINT"
	case s == edm.TimeSQL && k == edm.KindDateTimeOffset:
		return "TIMESTAMP"
	}
	return d.ColumnType(k, 0, 0)
}

// TimeColumnHolds accepts for edm.TimeAuto timestamp with time zone (time for a TimeOfDay), for edm.TimeSQL
// timestamp without time zone (time), each with at least precision fraction digits, and for edm.TimeUnix bigint.
func (Dialect) TimeColumnHolds(columnType string, k edm.Kind, s edm.TimeStorage, precision int) bool {
	return timeHolds(strings.ToLower(strings.TrimSpace(columnType)), k, s, precision)
}

// timeHolds is TimeColumnHolds of t, a type as format_type spells it.
func timeHolds(t string, k edm.Kind, s edm.TimeStorage, precision int) bool {
	if s == edm.TimeUnix {
		return k == edm.KindDateTimeOffset && t == "bigint"
	}
	name, zone := "timestamp", " with time zone"
	switch {
	case k == edm.KindTimeOfDay:
		name, zone = "time", " without time zone"
	case s == edm.TimeSQL:
		zone = " without time zone"
	}
	rest, ok := strings.CutSuffix(t, zone)
	if !ok {
		return k == edm.KindTimeOfDay && t == "time"
	}
	if rest == name {
		return true
	}
	if precision == 0 {
		precision = 6 // edm.Build makes 0 the storage precision
	}
	n, ok := typeModifiers(rest, name)
	return ok && len(n) == 1 && n[0] >= precision
}

// integerWidth is the width in bytes of a PostgreSQL integer type, 0 for other types.
func integerWidth(t string) int {
	switch t {
	case "smallint":
		return 2
	case "integer":
		return 4
	case "bigint":
		return 8
	}
	return 0
}

// varcharHolds reports whether t is "character varying" without a length or with one of at least maxLength (a
// String property without MaxLength needs an unlimited type).
func varcharHolds(t string, maxLength int) bool {
	if t == "character varying" {
		return true
	}
	n, ok := typeModifiers(t, "character varying")
	return ok && len(n) == 1 && maxLength > 0 && n[0] >= maxLength
}

// numericHolds reports whether t, a numeric without modifiers or numeric(p,s), keeps every decimal of the given
// precision and scale: as many integer digits and at least the scale.
func numericHolds(t string, precision, scale int) bool {
	if t == "numeric" {
		return true
	}
	n, ok := typeModifiers(t, "numeric")
	if !ok || len(n) != 2 {
		return false
	}
	return n[1] >= scale && n[0]-n[1] >= precision-scale
}

// typeModifiers parses "name(a,b)" into [a b]; ok is false when t is not name with modifiers.
func typeModifiers(t, name string) ([]int, bool) {
	rest, ok := strings.CutPrefix(t, name+"(")
	if !ok || !strings.HasSuffix(rest, ")") {
		return nil, false
	}
	var out []int
	for _, s := range strings.Split(strings.TrimSuffix(rest, ")"), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// GeneratedKey returns INTEGER or BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY for Int32 and Int64, and
// for Guid a UUID primary key whose default is gen_random_uuid() (PostgreSQL 13 or later); "" for other kinds.
func (Dialect) GeneratedKey(k edm.Kind) string {
	switch k {
	case edm.KindInt32, edm.KindInt64:
		return strings.ToUpper(catalogType(k)) + " GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
	case edm.KindGuid:
		return "UUID NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY"
	}
	return ""
}

// TableOptions returns "": PostgreSQL columns are typed.
func (Dialect) TableOptions() string { return "" }

// AddForeignKey returns ALTER TABLE table ADD constraint.
func (d Dialect) AddForeignKey(table, constraint string) string {
	return "ALTER TABLE " + d.QuoteIdent(table) + " ADD " + constraint
}

// TableColumns reads pg_attribute of the table the name resolves to on the search path, with format_type; a
// column with a default (serial's nextval included) or an identity column is generated.
func (Dialect) TableColumns() string {
	return `SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef OR a.attidentity <> ''
FROM pg_attribute AS a
WHERE a.attrelid = to_regclass(quote_ident($1)) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`
}

// TableIndexes reads pg_index: the key columns of each index without a predicate (INCLUDE columns left out),
// an expression as pg_get_indexdef writes it.
func (Dialect) TableIndexes() string {
	return `SELECT c.relname, x.indisunique,
	CASE WHEN k.attnum = 0 THEN pg_get_indexdef(x.indexrelid, k.position::int, true) ELSE a.attname END
FROM pg_index AS x
JOIN pg_class AS c ON c.oid = x.indexrelid
CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, position)
LEFT JOIN pg_attribute AS a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
WHERE x.indrelid = to_regclass(quote_ident($1)) AND x.indpred IS NULL AND k.position <= x.indnkeyatts
ORDER BY c.relname, k.position`
}

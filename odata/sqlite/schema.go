package sqlite

import (
	"strings"

	"github.com/storekit/store/odata/edm"
)

// ColumnType returns the storage class of kind k: TEXT for strings and the text forms of dates, times and
// Guids, INTEGER for Booleans, integers, Durations (microseconds) and Decimals (scaled by 10^scale), REAL for
// Double and Single, BLOB for Binary and Stream.
func (Dialect) ColumnType(k edm.Kind, _, _ int) string { return storageClass(k) }

func storageClass(k edm.Kind) string {
	switch k {
	case edm.KindBoolean, edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64,
		edm.KindDuration, edm.KindDecimal:
		return "INTEGER"
	case edm.KindDouble, edm.KindSingle:
		return "REAL"
	case edm.KindBinary, edm.KindStream:
		return "BLOB"
	}
	return "TEXT"
}

// ColumnHolds reports whether the column's affinity, which SQLite derives from the declared type, keeps values
// of kind k as the engine stores them: TEXT affinity for text, INTEGER or NUMERIC for integers, INTEGER for
// scaled decimals (a NUMERIC or DECIMAL(p,s) column keeps 19.99 as a REAL, which another program may have
// written: edm.DecimalFloat serves such a column), REAL or NUMERIC for floating-point numbers, BLOB for bytes. A
// column declared without a type or as ANY keeps every value as it is given.
func (Dialect) ColumnHolds(columnType string, k edm.Kind, _, _, _ int) bool {
	got := affinity(columnType)
	if got == "" {
		return true
	}
	switch k {
	case edm.KindDecimal:
		return got == "INTEGER"
	case edm.KindDate:
		// A DATE column keeps the engine's YYYY-MM-DD text as it is (it does not look like a number).
		return got == "TEXT" || got == "NUMERIC" && names(columnType, "DATE") && !names(columnType, "DATETIME", "TIME")
	}
	switch want := storageClass(k); want {
	case "INTEGER":
		return got == want || got == "NUMERIC"
	case "REAL":
		return got == want || got == "NUMERIC"
	default:
		return got == want
	}
}

// TimeColumnType returns TEXT for edm.TimeSQL (a STRICT table knows no DATETIME; the affinity is the same as
// far as the text is concerned) and INTEGER for edm.TimeUnix; ColumnType's for edm.TimeAuto.
func (Dialect) TimeColumnType(k edm.Kind, s edm.TimeStorage) string {
	if s == edm.TimeUnix {
		return "INTEGER"
	}
	return storageClass(k)
}

// TimeColumnHolds accepts, besides a column without a type: for edm.TimeAuto a TEXT column (the engine's own
// text); for edm.TimeSQL a TEXT column or one declared DATETIME or TIMESTAMP (a DateTimeOffset) or TIME (a
// TimeOfDay), whose NUMERIC affinity keeps the text as it is; for edm.TimeUnix an INTEGER column or one declared
// DATETIME or TIMESTAMP.
// The precision does not matter: text and integers keep what they are given.
func (Dialect) TimeColumnHolds(columnType string, k edm.Kind, s edm.TimeStorage, _ int) bool {
	got := affinity(columnType)
	switch {
	case got == "":
		return true
	case s == edm.TimeUnix:
		return k == edm.KindDateTimeOffset && (got == "INTEGER" || got == "NUMERIC" && names(columnType, "DATETIME", "TIMESTAMP"))
	case got == "TEXT":
		return true
	case s == edm.TimeSQL && got == "NUMERIC" && k == edm.KindDateTimeOffset:
		return names(columnType, "DATETIME", "TIMESTAMP")
	case s == edm.TimeSQL && got == "NUMERIC" && k == edm.KindTimeOfDay:
		return names(columnType, "TIME") && !names(columnType, "DATETIME", "TIMESTAMP")
	}
	return false
}

// names reports whether the declared type contains one of the words (upper case).
func names(declared string, words ...string) bool {
	t := strings.ToUpper(declared)
	for _, w := range words {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// affinity is the type affinity of a declared column type by SQLite's rules (section 3.1 of "Datatypes In
// SQLite"): INTEGER, TEXT, BLOB, REAL or NUMERIC; "" for no type or ANY, which keep values unchanged.
func affinity(declared string) string {
	t := strings.ToUpper(strings.TrimSpace(declared))
	switch {
	case t == "" || t == "ANY":
		return ""
	case strings.Contains(t, "INT"):
		return "INTEGER"
	case strings.Contains(t, "CHAR"), strings.Contains(t, "CLOB"), strings.Contains(t, "TEXT"):
		return "TEXT"
	case strings.Contains(t, "BLOB"):
		return "BLOB"
	case strings.Contains(t, "REAL"), strings.Contains(t, "FLOA"), strings.Contains(t, "DOUB"):
		return "REAL"
	}
	return "NUMERIC"
}

// GeneratedKey returns INTEGER PRIMARY KEY AUTOINCREMENT for Int32 and Int64, which makes the column the
// rowid and never reuses the value of a deleted row; for Guid a TEXT primary key whose default is a random
// (version 4) UUID in lower case, as edm.NewGuid writes it; "" for other kinds.
func (Dialect) GeneratedKey(k edm.Kind) string {
	switch k {
	case edm.KindInt32, edm.KindInt64:
		return "INTEGER PRIMARY KEY AUTOINCREMENT"
	case edm.KindGuid:
		return "TEXT NOT NULL PRIMARY KEY DEFAULT " + randomUUID
	}
	return ""
}

// randomUUID is the SQL expression of a random version 4 UUID: 122 random bits, the version nibble 4 and the
// variant bits 10.
const randomUUID = `(lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' ||
	substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))))`

// TableOptions returns " STRICT": a value of the wrong storage class is an error rather than stored.
func (Dialect) TableOptions() string { return " STRICT" }

// AddForeignKey returns "": SQLite cannot add a constraint to an existing table.
func (Dialect) AddForeignKey(string, string) string { return "" }

// TableColumns reads pragma_table_info. A column is generated when it has a default or is the rowid: the one
// column of the primary key, declared INTEGER (a WITHOUT ROWID table, rare, would be taken for one).
func (Dialect) TableColumns() string {
	return `WITH t(name) AS (SELECT ?)
SELECT c.name, c.type, c."notnull" <> 0, c.dflt_value IS NOT NULL OR (c.pk = 1 AND upper(c.type) = 'INTEGER'
	AND (SELECT count(*) FROM t, pragma_table_info(t.name) AS k WHERE k.pk > 0) = 1)
FROM t, pragma_table_info(t.name) AS c ORDER BY c.cid`
}

// TableIndexes reads the primary key from pragma_table_info (an INTEGER PRIMARY KEY has no index of its own)
// and the other indexes from pragma_index_list and pragma_index_info; for an expression, which has no name
// there, the column list of the index's CREATE INDEX statement.
func (Dialect) TableIndexes() string {
	return `WITH t(name) AS (SELECT ?)
SELECT index_name, is_unique, column_name FROM (
	SELECT 'primary key' AS index_name, 1 AS is_unique, c.name AS column_name, c.pk AS position
	FROM t, pragma_table_info(t.name) AS c WHERE c.pk > 0
	UNION ALL
	SELECT l.name, l."unique" <> 0, coalesce(i.name, (SELECT substr(s.sql, instr(s.sql, '(') + 1,
		length(s.sql) - instr(s.sql, '(') - 1) FROM sqlite_master AS s WHERE s.type = 'index' AND s.name = l.name)),
		i.seqno + 1
	FROM t, pragma_index_list(t.name) AS l, pragma_index_info(l.name) AS i
	WHERE l.origin <> 'pk' AND l.partial = 0
) ORDER BY index_name, position`
}

package sqldb

import (
	"errors"
	"strconv"
	"strings"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
)

// SQLite is the SQL text of SQLite. It does not classify driver errors; odata/sqlite.Dialect embeds it and adds
// that. Its Regexp needs the REGEXP function, which odata/sqlite.Open registers.
type SQLite struct{}

// Name returns "sqlite".
func (SQLite) Name() string { return "sqlite" }

// Placeholder returns the ? format.
func (SQLite) Placeholder() sq.PlaceholderFormat { return sq.Question }

// QuoteIdent quotes name with double quotes.
func (SQLite) QuoteIdent(name string) string { return quoteIdent(name) }

// ClassifyError returns ErrOther; the driver-aware adapter overrides it.
func (SQLite) ClassifyError(error) ErrorClass { return ErrOther }

// Param returns "?": SQLite parameters need no type.
func (SQLite) Param(edm.Kind) string { return "?" }

// ScaledDecimals returns true: decimal columns hold value x 10^scale.
func (SQLite) ScaledDecimals() bool { return true }

// Unscale divides a scaled decimal by 10^scale in REAL arithmetic.
func (SQLite) Unscale(expr string, scale int) string {
	if scale == 0 {
		return expr
	}
	return "(CAST(" + expr + " AS REAL) / 1" + strings.Repeat("0", scale) + ")"
}

// Cast converts with CAST to TEXT, INTEGER or REAL.
func (SQLite) Cast(expr string, k edm.Kind) string {
	switch {
	case k == edm.KindString:
		return "CAST(" + expr + " AS TEXT)"
	case isInteger(k):
		return "CAST(" + expr + " AS INTEGER)"
	}
	return "CAST(" + expr + " AS REAL)"
}

// BoolValue returns 1 or 0.
func (SQLite) BoolValue(v bool) string {
	if v {
		return "1"
	}
	return "0"
}

// NullSafeEqual uses IS and IS NOT.
func (SQLite) NullSafeEqual(a, b string, equal bool) string {
	if equal {
		return a + " IS " + b
	}
	return a + " IS NOT " + b
}

// Like uses LIKE, which is case-sensitive on connections opened with _cslike=1 (odata/sqlite.Open).
func (SQLite) Like(expr, pattern string) string { return expr + " LIKE " + pattern + ` ESCAPE '\'` }

// Position uses instr.
func (SQLite) Position(s, needle string) string { return "instr(" + s + ", " + needle + ")" }

// Substring uses substr, whose positions are 1-based.
func (SQLite) Substring(s, from, n string) string {
	if n == "" {
		return "substr(" + s + ", " + from + " + 1)"
	}
	return "substr(" + s + ", " + from + " + 1, " + n + ")"
}

// EndsWith compares the tail of s taken with a negative substr start.
func (SQLite) EndsWith(s, suffix string) string {
	return "(length(" + suffix + ") = 0 OR substr(" + s + ", -length(" + suffix + ")) = " + suffix + ")"
}

// Regexp uses the REGEXP operator (the function odata/sqlite registers, Go regexp syntax).
func (SQLite) Regexp(s, pattern string) string { return s + " REGEXP " + pattern }

// DatePart cuts the field out of the fixed-width storage text (YYYY-MM-DD, HH:MM:SS.ffffff,
// YYYY-MM-DDTHH:MM:SS.ffffffZ).
func (SQLite) DatePart(part DatePart, k edm.Kind, expr string) string {
	type span struct{ at, n int }
	var s span
	switch k {
	case edm.KindDate:
		s = [...]span{Year: {1, 4}, Month: {6, 2}, Day: {9, 2}}[min(part, Day)]
	case edm.KindTimeOfDay:
		s = [...]span{Hour: {1, 2}, Minute: {4, 2}, Second: {7, 2}, FractionalSeconds: {9, 7}}[part]
	default:
		s = [...]span{{1, 4}, {6, 2}, {9, 2}, {12, 2}, {15, 2}, {18, 2}, {20, 7}}[part]
	}
	cut := "substr(" + expr + ", " + strconv.Itoa(s.at) + ", " + strconv.Itoa(s.n) + ")"
	if part == FractionalSeconds {
		return "CAST(" + cut + " AS REAL)"
	}
	return "CAST(" + cut + " AS INTEGER)"
}

// DateOf takes the YYYY-MM-DD prefix of the UTC text.
func (SQLite) DateOf(expr string) string { return "substr(" + expr + ", 1, 10)" }

// TimeOf takes the HH:MM:SS.ffffff part of the UTC text.
func (SQLite) TimeOf(expr string) string { return "substr(" + expr + ", 12, 15)" }

// Now formats the current time as the storage text (microseconds padded from SQLite's milliseconds).
func (SQLite) Now() string { return "(strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')" }

// Round uses round, which rounds half away from zero.
func (SQLite) Round(expr string, k edm.Kind) string {
	if isInteger(k) {
		return expr
	}
	return "round(" + expr + ")"
}

// Floor is spelt with CAST, which works without SQLite's optional math functions.
func (SQLite) Floor(expr string, k edm.Kind) string {
	if isInteger(k) {
		return expr
	}
	i := "CAST(" + expr + " AS INTEGER)"
	return "(CASE WHEN " + expr + " < " + i + " THEN " + i + " - 1 ELSE " + i + " END)"
}

// Ceiling is spelt with CAST, as Floor.
func (SQLite) Ceiling(expr string, k edm.Kind) string {
	if isInteger(k) {
		return expr
	}
	i := "CAST(" + expr + " AS INTEGER)"
	return "(CASE WHEN " + expr + " > " + i + " THEN " + i + " + 1 ELSE " + i + " END)"
}

// CollateBinary returns expr: SQLite compares text with BINARY unless told otherwise.
func (SQLite) CollateBinary(expr string) string { return expr }

// NullsOrder spells OData's null order (SQLite's default, said explicitly).
func (SQLite) NullsOrder(desc bool) string { return nullsOrder(desc) }

// Returning returns a RETURNING clause (SQLite 3.35 and later).
func (SQLite) Returning(columns ...string) string { return returning(columns) }

// Upsert returns an ON CONFLICT clause.
func (SQLite) Upsert(conflict, update []string) string { return upsert(conflict, update) }

// LockForUpdate returns "": the write transaction already holds the database lock (_txlock=immediate).
func (SQLite) LockForUpdate() string { return "" }

// ArrayAgg uses json_group_array (SQLite 3.44 or later for its ORDER BY) and hex for Binary values.
func (SQLite) ArrayAgg(value, order string, k edm.Kind) string {
	if k == edm.KindBinary {
		value = "hex(" + value + ")"
	}
	return "json_group_array(" + value + " ORDER BY " + order + ")"
}

// PostgreSQL is the SQL text of PostgreSQL (and of the databases that speak its dialect).
type PostgreSQL struct{}

// Name returns "postgres".
func (PostgreSQL) Name() string { return "postgres" }

// Placeholder returns the $n format.
func (PostgreSQL) Placeholder() sq.PlaceholderFormat { return sq.Dollar }

// QuoteIdent quotes name with double quotes.
func (PostgreSQL) QuoteIdent(name string) string { return quoteIdent(name) }

// ClassifyError reads the SQLSTATE of a driver error (pgx's *pgconn.PgError has SQLState()): class 23
// (integrity constraints), 40001 and 40P01 (retry), class 22 (data exceptions: numeric overflow 22003, division
// by zero 22012, invalid regular expression 2201B, string data 22001 and 22P02, ...) as ErrInvalidData.
func (PostgreSQL) ClassifyError(err error) ErrorClass {
	var s interface{ SQLState() string }
	if !errors.As(err, &s) {
		return ErrOther
	}
	switch s.SQLState() {
	case "23505":
		return ErrUniqueViolation
	case "23503":
		return ErrForeignKeyViolation
	case "23514", "23502":
		return ErrCheckViolation
	case "40001", "40P01":
		return ErrRetry
	}
	if strings.HasPrefix(s.SQLState(), "22") {
		return ErrInvalidData
	}
	return ErrOther
}

// Param returns "?::type" with the column type of kind k.
func (PostgreSQL) Param(k edm.Kind) string { return "?::" + postgresType(k) }

// ScaledDecimals returns false: decimals are NUMERIC.
func (PostgreSQL) ScaledDecimals() bool { return false }

// Unscale returns expr unchanged (decimals are not scaled).
func (PostgreSQL) Unscale(expr string, _ int) string { return expr }

// Cast converts with CAST to TEXT, BIGINT, NUMERIC, DOUBLE PRECISION or REAL.
func (PostgreSQL) Cast(expr string, k edm.Kind) string {
	t := "DOUBLE PRECISION"
	switch {
	case k == edm.KindString:
		t = "TEXT"
	case isInteger(k):
		t = "BIGINT"
	case k == edm.KindDecimal:
		t = "NUMERIC"
	case k == edm.KindSingle:
		t = "REAL"
	}
	return "CAST(" + expr + " AS " + t + ")"
}

// BoolValue returns TRUE or FALSE.
func (PostgreSQL) BoolValue(v bool) string {
	if v {
		return "TRUE"
	}
	return "FALSE"
}

// NullSafeEqual uses IS [NOT] DISTINCT FROM.
func (PostgreSQL) NullSafeEqual(a, b string, equal bool) string {
	if equal {
		return a + " IS NOT DISTINCT FROM " + b
	}
	return a + " IS DISTINCT FROM " + b
}

// Like uses LIKE, which is always case-sensitive.
func (PostgreSQL) Like(expr, pattern string) string { return expr + " LIKE " + pattern + ` ESCAPE '\'` }

// Position uses strpos.
func (PostgreSQL) Position(s, needle string) string { return "strpos(" + s + ", " + needle + ")" }

// Substring uses substr, whose positions are 1-based INTEGERs.
func (PostgreSQL) Substring(s, from, n string) string {
	if n == "" {
		return "substr(" + s + ", CAST(" + from + " AS INTEGER) + 1)"
	}
	return "substr(" + s + ", CAST(" + from + " AS INTEGER) + 1, CAST(" + n + " AS INTEGER))"
}

// EndsWith uses right.
func (PostgreSQL) EndsWith(s, suffix string) string {
	return "right(" + s + ", length(" + suffix + ")) = " + suffix
}

// Regexp uses the ~ operator (POSIX regular expressions).
func (PostgreSQL) Regexp(s, pattern string) string { return s + " ~ " + pattern }

// DatePart uses EXTRACT, on the UTC wall clock for timestamps.
func (PostgreSQL) DatePart(part DatePart, k edm.Kind, expr string) string {
	if k == edm.KindDateTimeOffset {
		expr = "(" + expr + " AT TIME ZONE 'UTC')"
	}
	switch part {
	case Second:
		return "CAST(FLOOR(EXTRACT(SECOND FROM " + expr + ")) AS INTEGER)"
	case FractionalSeconds:
		return "(MOD(EXTRACT(MICROSECONDS FROM " + expr + "), 1000000) / 1000000)"
	}
	name := [...]string{"YEAR", "MONTH", "DAY", "HOUR", "MINUTE"}[part]
	return "CAST(EXTRACT(" + name + " FROM " + expr + ") AS INTEGER)"
}

// DateOf casts the UTC wall clock to DATE.
func (PostgreSQL) DateOf(expr string) string {
	return "CAST((" + expr + " AT TIME ZONE 'UTC') AS DATE)"
}

// TimeOf casts the UTC wall clock to TIME.
func (PostgreSQL) TimeOf(expr string) string {
	return "CAST((" + expr + " AT TIME ZONE 'UTC') AS TIME)"
}

// Now returns CURRENT_TIMESTAMP.
func (PostgreSQL) Now() string { return "CURRENT_TIMESTAMP" }

// Round uses round on NUMERIC, which rounds half away from zero (round on DOUBLE PRECISION rounds half to even).
func (PostgreSQL) Round(expr string, k edm.Kind) string {
	switch {
	case isInteger(k):
		return expr
	case k == edm.KindDecimal:
		return "round(" + expr + ")"
	}
	return "CAST(round(CAST(" + expr + " AS NUMERIC)) AS DOUBLE PRECISION)"
}

// Floor uses floor.
func (PostgreSQL) Floor(expr string, k edm.Kind) string {
	if isInteger(k) {
		return expr
	}
	return "floor(" + expr + ")"
}

// Ceiling uses ceil.
func (PostgreSQL) Ceiling(expr string, k edm.Kind) string {
	if isInteger(k) {
		return expr
	}
	return "ceil(" + expr + ")"
}

// CollateBinary adds COLLATE "C".
func (PostgreSQL) CollateBinary(expr string) string { return "(" + expr + `) COLLATE "C"` }

// NullsOrder spells OData's null order (PostgreSQL's default is the opposite).
func (PostgreSQL) NullsOrder(desc bool) string { return nullsOrder(desc) }

// Returning returns a RETURNING clause.
func (PostgreSQL) Returning(columns ...string) string { return returning(columns) }

// Upsert returns an ON CONFLICT clause.
func (PostgreSQL) Upsert(conflict, update []string) string { return upsert(conflict, update) }

// LockForUpdate returns " FOR UPDATE".
func (PostgreSQL) LockForUpdate() string { return " FOR UPDATE" }

// ArrayAgg uses json_agg and encode(..., 'hex') for Binary values.
func (PostgreSQL) ArrayAgg(value, order string, k edm.Kind) string {
	if k == edm.KindBinary {
		value = "encode(" + value + ", 'hex')"
	}
	return "json_agg(" + value + " ORDER BY " + order + ")"
}

func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func nullsOrder(desc bool) string {
	if desc {
		return " NULLS LAST"
	}
	return " NULLS FIRST"
}

func quoteAll(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = quoteIdent(c)
	}
	return strings.Join(q, ", ")
}

func returning(cols []string) string {
	if len(cols) == 0 {
		return ""
	}
	return "RETURNING " + quoteAll(cols)
}

func upsert(conflict, update []string) string {
	s := "ON CONFLICT (" + quoteAll(conflict) + ") DO "
	if len(update) == 0 {
		return s + "NOTHING"
	}
	set := make([]string, len(update))
	for i, c := range update {
		set[i] = quoteIdent(c) + " = excluded." + quoteIdent(c)
	}
	return s + "UPDATE SET " + strings.Join(set, ", ")
}

// isInteger reports whether k is an integer kind (Byte, SByte, Int16, Int32, Int64).
func isInteger(k edm.Kind) bool {
	switch k {
	case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64:
		return true
	}
	return false
}

// postgresType is the PostgreSQL type a parameter of kind k is cast to, so that every parameter has a known
// type.
func postgresType(k edm.Kind) string {
	switch k {
	case edm.KindString:
		return "text"
	case edm.KindBoolean:
		return "boolean"
	case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64, edm.KindDuration:
		return "bigint"
	case edm.KindDecimal:
		return "numeric"
	case edm.KindDouble:
		return "double precision"
	case edm.KindSingle:
		return "real"
	case edm.KindDate:
		return "date"
	case edm.KindTimeOfDay:
		return "time"
	case edm.KindDateTimeOffset:
		return "timestamptz"
	case edm.KindGuid:
		return "uuid"
	case edm.KindBinary, edm.KindStream:
		return "bytea"
	}
	return "text"
}

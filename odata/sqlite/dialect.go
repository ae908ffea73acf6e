package sqlite

import (
	"errors"
	"strconv"
	"strings"

	sq "github.com/Masterminds/squirrel"
	"github.com/mattn/go-sqlite3"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// Dialect is SQLite's sqldb.Dialect: the SQL text of its flavour and the classes of its driver's errors. Its
// Regexp needs the REGEXP function, which Open registers (through DriverName); its case-sensitive Like needs the
// _cslike=1 that Open sets.
type Dialect struct{ sqldb.Standard }

// Name returns "sqlite".
func (Dialect) Name() string { return "sqlite" }

// Placeholder returns the ? format.
func (Dialect) Placeholder() sq.PlaceholderFormat { return sq.Question }

// LiteralLimits returns true: the engine writes the LIMIT and OFFSET of a page into the statement as integer
// literals. SQLite compiles a statement anew at every run when its LIMIT is a parameter (the value may change
// the plan), which costs a page read about 18 us and 80 allocations; with literals the connection's statement
// cache serves it (one statement per page size, as clients keep theirs).
func (Dialect) LiteralLimits() bool { return true }

// Param returns "?": SQLite parameters need no type.
func (Dialect) Param(edm.Kind) string { return "?" }

// ScaledDecimals returns true: decimal columns hold value x 10^scale.
func (Dialect) ScaledDecimals() bool { return true }

// TextDecimals returns true: an exact decimal column holds text, compared under DecimalCollation and computed
// with the odata_decimal functions Open registers.
func (Dialect) TextDecimals() bool { return true }

// CollateDecimal appends COLLATE odata_decimal (DecimalCollation).
func (Dialect) CollateDecimal(expr string) string { return expr + " COLLATE " + DecimalCollation }

// decimalFunctionNames are the names of the functions of decimal.go, by sqldb.DecimalFunction.
var decimalFunctionNames = [...]string{
	sqldb.DecimalOfNumber: "odata_decimal",
	sqldb.DecimalAdd:      "odata_decimal_add",
	sqldb.DecimalSub:      "odata_decimal_sub",
	sqldb.DecimalMul:      "odata_decimal_mul",
	sqldb.DecimalDiv:      "odata_decimal_div",
	sqldb.DecimalMod:      "odata_decimal_mod",
	sqldb.DecimalNeg:      "odata_decimal_neg",
	sqldb.DecimalRound:    "odata_decimal_round",
	sqldb.DecimalFloor:    "odata_decimal_floor",
	sqldb.DecimalCeiling:  "odata_decimal_ceiling",
}

// DecimalFunc calls the odata_decimal function of f (decimal.go), which Open registers.
func (Dialect) DecimalFunc(f sqldb.DecimalFunction, args ...string) string {
	return decimalFunctionNames[f] + "(" + strings.Join(args, ", ") + ")"
}

// TextTimestamps returns true: DateTimeOffset columns hold text in sqldb.TimestampTextLayout.
func (Dialect) TextTimestamps() bool { return true }

// TimeValue rewrites the text of edm.TimeSQL ('2006-01-02 15:04:05[.fff]', a 'T' for the space and a
// trailing 'Z' or '+00:00' accepted; '15:04:05[.fff]' for a TimeOfDay) to the engine's fixed-width text, the
// fraction cut or padded to six digits, and formats the seconds of edm.TimeUnix with strftime. NULL stays NULL.
func (Dialect) TimeValue(expr string, k edm.Kind, s edm.TimeStorage) string {
	switch {
	case s == edm.TimeUnix:
		return "strftime('%Y-%m-%dT%H:%M:%S.000000Z', " + expr + ", 'unixepoch')"
	case k == edm.KindTimeOfDay:
		return "(substr(" + expr + ", 1, 8) || " + sixDigits("substr("+expr+", 9)") + ")"
	}
	return "(substr(" + expr + ", 1, 10) || 'T' || substr(" + expr + ", 12, 8) || " +
		sixDigits("substr("+expr+", 20)") + " || 'Z')"
}

// sixDigits is the fraction of a second of rest, the text after the seconds ("", ".5", ".123Z", "+00:00"), as
// "." and six digits.
func sixDigits(rest string) string {
	return "'.' || substr(substr(rtrim(replace(" + rest + ", '+00:00', ''), 'Z'), 2) || '000000', 1, 6)"
}

// StoresNaN returns false: SQLite stores a NaN as NULL.
func (Dialect) StoresNaN() bool { return false }

// TypedNull returns NULL: SQLite values carry their own types.
func (Dialect) TypedNull(edm.Kind) string { return "NULL" }

// Unscale divides a scaled decimal by 10^scale in REAL arithmetic.
func (Dialect) Unscale(expr string, scale int) string {
	if scale == 0 {
		return expr
	}
	return "(CAST(" + expr + " AS REAL) / 1" + strings.Repeat("0", scale) + ")"
}

// DecimalValue turns a Decimal column kept as REAL (DecimalFloat) into the exact integer value x 10^scale: the
// value in REAL, scaled and rounded to the nearest integer, which is exact for the at most 15 digits such columns
// have (edm.MaxFloatDecimalPrecision). A scaled column is returned as it is. (The planner compares and computes
// with a DecimalExact column, decimal text, as it is: TextDecimals.)
func (Dialect) DecimalValue(expr string, storage edm.DecimalStorage, scale int) string {
	if storage == edm.DecimalScaled {
		return expr
	}
	return "CAST(round(CAST(" + expr + " AS REAL) * 1" + strings.Repeat("0", scale) + ") AS INTEGER)"
}

// Cast converts with CAST to TEXT, INTEGER or REAL.
func (Dialect) Cast(expr string, k edm.Kind) string {
	switch {
	case k == edm.KindString:
		return "CAST(" + expr + " AS TEXT)"
	case isInteger(k):
		return "CAST(" + expr + " AS INTEGER)"
	}
	return "CAST(" + expr + " AS REAL)"
}

// BoolValue returns 1 or 0.
func (Dialect) BoolValue(v bool) string {
	if v {
		return "1"
	}
	return "0"
}

// NullSafeEqual uses IS and IS NOT.
func (Dialect) NullSafeEqual(a, b string, equal bool) string {
	if equal {
		return a + " IS " + b
	}
	return a + " IS NOT " + b
}

// Like uses LIKE, which is case-sensitive on connections opened with _cslike=1 (odata/sqlite.Open).
func (Dialect) Like(expr, pattern string) string { return expr + " LIKE " + pattern + ` ESCAPE '\'` }

// Position uses instr.
func (Dialect) Position(s, needle string) string { return "instr(" + s + ", " + needle + ")" }

// Substring uses substr, whose positions are 1-based.
func (Dialect) Substring(s, from, n string) string {
	if n == "" {
		return "substr(" + s + ", " + from + " + 1)"
	}
	return "substr(" + s + ", " + from + " + 1, " + n + ")"
}

// EndsWith compares the tail of s taken with a negative substr start.
func (Dialect) EndsWith(s, suffix string) string {
	return "(length(" + suffix + ") = 0 OR substr(" + s + ", -length(" + suffix + ")) = " + suffix + ")"
}

// Regexp uses the REGEXP operator (the function odata/sqlite registers, Go regexp syntax).
func (Dialect) Regexp(s, pattern string) string { return s + " REGEXP " + pattern }

// DatePart cuts the field out of the fixed-width storage text (YYYY-MM-DD, HH:MM:SS.ffffff,
// YYYY-MM-DDTHH:MM:SS.ffffffZ).
func (Dialect) DatePart(part sqldb.DatePart, k edm.Kind, expr string) string {
	type span struct{ at, n int }
	var s span
	switch k {
	case edm.KindDate:
		s = [...]span{sqldb.Year: {1, 4}, sqldb.Month: {6, 2}, sqldb.Day: {9, 2}}[min(part, sqldb.Day)]
	case edm.KindTimeOfDay:
		s = [...]span{sqldb.Hour: {1, 2}, sqldb.Minute: {4, 2}, sqldb.Second: {7, 2}, sqldb.FractionalSeconds: {9, 7}}[part]
	default:
		s = [...]span{{1, 4}, {6, 2}, {9, 2}, {12, 2}, {15, 2}, {18, 2}, {20, 7}}[part]
	}
	cut := "substr(" + expr + ", " + strconv.Itoa(s.at) + ", " + strconv.Itoa(s.n) + ")"
	if part == sqldb.FractionalSeconds {
		return "CAST(" + cut + " AS REAL)"
	}
	return "CAST(" + cut + " AS INTEGER)"
}

// DateOf takes the YYYY-MM-DD prefix of the UTC text.
func (Dialect) DateOf(expr string) string { return "substr(" + expr + ", 1, 10)" }

// TimeOf takes the HH:MM:SS.ffffff part of the UTC text.
func (Dialect) TimeOf(expr string) string { return "substr(" + expr + ", 12, 15)" }

// Now formats the current time as the storage text (microseconds padded from SQLite's milliseconds).
func (Dialect) Now() string { return "(strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')" }

// Round uses round, which rounds half away from zero.
func (Dialect) Round(expr string, k edm.Kind) string {
	if isInteger(k) {
		return expr
	}
	return "round(" + expr + ")"
}

// Floor is spelt with CAST, which works without SQLite's optional math functions.
func (Dialect) Floor(expr string, k edm.Kind) string {
	if isInteger(k) {
		return expr
	}
	i := "CAST(" + expr + " AS INTEGER)"
	return "(CASE WHEN " + expr + " < " + i + " THEN " + i + " - 1 ELSE " + i + " END)"
}

// Ceiling is spelt with CAST, as Floor.
func (Dialect) Ceiling(expr string, k edm.Kind) string {
	if isInteger(k) {
		return expr
	}
	i := "CAST(" + expr + " AS INTEGER)"
	return "(CASE WHEN " + expr + " > " + i + " THEN " + i + " + 1 ELSE " + i + " END)"
}

// CollateBinary returns expr: SQLite compares text with BINARY unless told otherwise.
func (Dialect) CollateBinary(expr string) string { return expr }

// LockForUpdate returns "": the write transaction already holds the database lock (_txlock=immediate).
func (Dialect) LockForUpdate() string { return "" }

// TransactionLock returns "": write transactions run one at a time.
func (Dialect) TransactionLock() string { return "" }

// NextValue returns "": SQLite has no sequences.
func (Dialect) NextValue(string) string { return "" }

// ArrayAgg uses json_group_array (SQLite 3.44 or later for its ORDER BY) and hex for Binary values.
func (Dialect) ArrayAgg(value, order string, k edm.Kind) string {
	if k == edm.KindBinary {
		value = "hex(" + value + ")"
	}
	return "json_group_array(" + value + " ORDER BY " + order + ")"
}

// JSONRow uses json_array, with hex for Binary values (a null stays null, where hex gives an empty string).
func (Dialect) JSONRow(values []string, kinds []edm.Kind) string {
	items := make([]string, len(values))
	for i, v := range values {
		if kinds[i] == edm.KindBinary {
			v = "CASE WHEN " + v + " IS NULL THEN NULL ELSE hex(" + v + ") END"
		}
		items[i] = v
	}
	return "json_array(" + strings.Join(items, ", ") + ")"
}

// ClassifyError maps SQLite's extended result codes to error classes: the constraints, BUSY and LOCKED (retry),
// the values a request gives that SQLite cannot compute with, and the faults of the file: FULL (the disk, or
// max_page_count) as sqldb.ErrFull, READONLY as sqldb.ErrReadOnly, CANTOPEN and IOERR as sqldb.ErrUnavailable.
func (Dialect) ClassifyError(err error) sqldb.ErrorClass {
	var e sqlite3.Error
	if !errors.As(err, &e) {
		return sqldb.ErrOther
	}
	switch e.ExtendedCode {
	case sqlite3.ErrConstraintUnique, sqlite3.ErrConstraintPrimaryKey:
		return sqldb.ErrUniqueViolation
	case sqlite3.ErrConstraintForeignKey:
		return sqldb.ErrForeignKeyViolation
	case sqlite3.ErrConstraintCheck, sqlite3.ErrConstraintNotNull:
		return sqldb.ErrCheckViolation
	}
	switch e.Code {
	case sqlite3.ErrBusy, sqlite3.ErrLocked:
		return sqldb.ErrRetry
	case sqlite3.ErrTooBig:
		return sqldb.ErrInvalidData
	case sqlite3.ErrFull:
		return sqldb.ErrFull
	case sqlite3.ErrReadonly:
		return sqldb.ErrReadOnly
	case sqlite3.ErrCantOpen, sqlite3.ErrIoErr:
		return sqldb.ErrUnavailable
	case sqlite3.ErrError:
		// SQLite reports these only with the generic SQLITE_ERROR code, so the message is all there is to tell
		// them from a broken statement: values of a request that SQLite cannot compute with, and the errors of
		// the REGEXP function this package registers.
		msg := e.Error()
		for _, prefix := range invalidData {
			if strings.HasPrefix(msg, prefix) {
				return sqldb.ErrInvalidData
			}
		}
	}
	return sqldb.ErrOther
}

// invalidData are the beginnings of SQLITE_ERROR messages that a request's values cause.
var invalidData = []string{
	regexpError,
	"integer overflow",
	"LIKE or GLOB pattern too complex",
	"Expression tree is too large",
	"too many SQL variables",
	"parser stack overflow",
	"Recursion limit", // the parser stack overflow of SQLite 3.46 and later
}

// regexpError begins the message of an invalid pattern given to REGEXP.
const regexpError = "invalid regular expression: "

// isInteger reports whether k is an integer kind (Byte, SByte, Int16, Int32, Int64).
func isInteger(k edm.Kind) bool {
	switch k {
	case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64:
		return true
	}
	return false
}

package postgres

import (
	"errors"
	"strconv"
	"strings"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// Dialect is PostgreSQL's sqldb.Dialect: the SQL text of its flavour and the classes of its errors, read from
// their SQLSTATE through an interface, so it needs no driver types.
type Dialect struct{ sqldb.Standard }

// Name returns "postgres".
func (Dialect) Name() string { return "postgres" }

// Placeholder returns the $n format.
func (Dialect) Placeholder() sq.PlaceholderFormat { return sq.Dollar }

// ClassifyError reads the SQLSTATE of a driver error (pgx's *pgconn.PgError has SQLState()): class 23
// (integrity constraints), 40001 and 40P01 (retry), class 22 (data exceptions: numeric overflow 22003, division
// by zero 22012, invalid regular expression 2201B, string data 22001 and 22P02, ...) as sqldb.ErrInvalidData;
// the faults of faults.go (a server unreachable, restarting, read-only or out of disk, a broken connection).
func (Dialect) ClassifyError(err error) sqldb.ErrorClass {
	var s interface{ SQLState() string }
	if !errors.As(err, &s) {
		return connectionFault(err)
	}
	switch s.SQLState() {
	case "23505":
		return sqldb.ErrUniqueViolation
	case "23503":
		return sqldb.ErrForeignKeyViolation
	case "23514", "23502":
		return sqldb.ErrCheckViolation
	case "40001", "40P01":
		return sqldb.ErrRetry
	}
	if strings.HasPrefix(s.SQLState(), "22") {
		return sqldb.ErrInvalidData
	}
	return stateFault(s.SQLState())
}

// Param returns "?::type" with the column type of kind k.
func (Dialect) Param(k edm.Kind) string { return "?::" + parameterType(k) }

// ScaledDecimals returns false: decimals are NUMERIC.
func (Dialect) ScaledDecimals() bool { return false }

// TextDecimals returns false: exact decimals are NUMERIC.
func (Dialect) TextDecimals() bool { return false }

// CollateDecimal returns expr: NUMERIC compares as numbers.
func (Dialect) CollateDecimal(expr string) string { return expr }

// DecimalFunc spells the exact decimal function f in NUMERIC arithmetic (the planner uses NUMERIC directly, as
// TextDecimals is false).
func (Dialect) DecimalFunc(f sqldb.DecimalFunction, args ...string) string {
	operators := [...]string{sqldb.DecimalAdd: " + ", sqldb.DecimalSub: " - ", sqldb.DecimalMul: " * ",
		sqldb.DecimalDiv: " / ", sqldb.DecimalMod: " % "}
	switch f {
	case sqldb.DecimalOfNumber:
		return "(CAST(" + args[0] + " AS NUMERIC) / (10::NUMERIC ^ " + args[1] + "))"
	case sqldb.DecimalDiv, sqldb.DecimalMod:
		return "(" + args[0] + operators[f] + "NULLIF(" + args[1] + ", 0))"
	case sqldb.DecimalNeg:
		return "(-" + args[0] + ")"
	case sqldb.DecimalRound:
		return "round(" + args[0] + ")"
	case sqldb.DecimalFloor:
		return "floor(" + args[0] + ")"
	case sqldb.DecimalCeiling:
		return "ceil(" + args[0] + ")"
	}
	return "(" + args[0] + operators[f] + args[1] + ")"
}

// TimeValue reads the UTC wall clock of a timestamp without time zone (edm.TimeSQL) AT TIME ZONE 'UTC' and
// the seconds of edm.TimeUnix with to_timestamp; a TimeOfDay column is a time either way.
func (Dialect) TimeValue(expr string, k edm.Kind, s edm.TimeStorage) string {
	switch {
	case k == edm.KindTimeOfDay:
		return expr
	case s == edm.TimeUnix:
		return "to_timestamp(" + expr + ")"
	}
	return "(" + expr + " AT TIME ZONE 'UTC')"
}

// TextTimestamps returns false: DateTimeOffset columns are TIMESTAMPTZ.
func (Dialect) TextTimestamps() bool { return false }

// StoresNaN returns true: DOUBLE PRECISION and REAL hold NaN and the infinities.
func (Dialect) StoresNaN() bool { return true }

// TypedNull casts NULL to the parameter type of kind k.
func (Dialect) TypedNull(k edm.Kind) string { return "CAST(NULL AS " + parameterType(k) + ")" }

// Unscale returns expr unchanged (decimals are not scaled).
func (Dialect) Unscale(expr string, _ int) string { return expr }

// DecimalValue turns a Decimal column kept as a scaled integer or a floating-point number (DecimalScaled,
// DecimalFloat) into NUMERIC: the integer divided by 10^scale exactly, or the floating-point number (which
// PostgreSQL converts to NUMERIC with 15 significant digits) rounded to the scale. A NUMERIC column is returned
// as it is.
func (Dialect) DecimalValue(expr string, storage edm.DecimalStorage, scale int) string {
	switch storage {
	case edm.DecimalScaled:
		return "(CAST(" + expr + " AS NUMERIC) / 1" + strings.Repeat("0", scale) + ")"
	case edm.DecimalFloat:
		return "round(CAST(" + expr + " AS NUMERIC), " + strconv.Itoa(scale) + ")"
	}
	return expr
}

// Cast converts with CAST to TEXT, BIGINT, NUMERIC, DOUBLE PRECISION or REAL.
func (Dialect) Cast(expr string, k edm.Kind) string {
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
func (Dialect) BoolValue(v bool) string {
	if v {
		return "TRUE"
	}
	return "FALSE"
}

// NullSafeEqual uses IS [NOT] DISTINCT FROM.
func (Dialect) NullSafeEqual(a, b string, equal bool) string {
	if equal {
		return a + " IS NOT DISTINCT FROM " + b
	}
	return a + " IS DISTINCT FROM " + b
}

// Like uses LIKE, which is always case-sensitive.
func (Dialect) Like(expr, pattern string) string { return expr + " LIKE " + pattern + ` ESCAPE '\'` }

// Position uses strpos.
func (Dialect) Position(s, needle string) string { return "strpos(" + s + ", " + needle + ")" }

// Substring uses substr, whose positions are 1-based INTEGERs.
func (Dialect) Substring(s, from, n string) string {
	if n == "" {
		return "substr(" + s + ", CAST(" + from + " AS INTEGER) + 1)"
	}
	return "substr(" + s + ", CAST(" + from + " AS INTEGER) + 1, CAST(" + n + " AS INTEGER))"
}

// EndsWith uses right.
func (Dialect) EndsWith(s, suffix string) string {
	return "right(" + s + ", length(" + suffix + ")) = " + suffix
}

// Regexp uses the ~ operator (POSIX regular expressions).
func (Dialect) Regexp(s, pattern string) string { return s + " ~ " + pattern }

// DatePart uses EXTRACT, on the UTC wall clock for timestamps.
func (Dialect) DatePart(part sqldb.DatePart, k edm.Kind, expr string) string {
	if k == edm.KindDateTimeOffset {
		expr = "(" + expr + " AT TIME ZONE 'UTC')"
	}
	switch part {
	case sqldb.Second:
		return "CAST(FLOOR(EXTRACT(SECOND FROM " + expr + ")) AS INTEGER)"
	case sqldb.FractionalSeconds:
		return "(MOD(EXTRACT(MICROSECONDS FROM " + expr + "), 1000000) / 1000000)"
	}
	name := [...]string{"YEAR", "MONTH", "DAY", "HOUR", "MINUTE"}[part]
	return "CAST(EXTRACT(" + name + " FROM " + expr + ") AS INTEGER)"
}

// DateOf casts the UTC wall clock to DATE.
func (Dialect) DateOf(expr string) string {
	return "CAST((" + expr + " AT TIME ZONE 'UTC') AS DATE)"
}

// TimeOf casts the UTC wall clock to TIME.
func (Dialect) TimeOf(expr string) string {
	return "CAST((" + expr + " AT TIME ZONE 'UTC') AS TIME)"
}

// Now returns CURRENT_TIMESTAMP.
func (Dialect) Now() string { return "CURRENT_TIMESTAMP" }

// Round uses round on NUMERIC, which rounds half away from zero (round on DOUBLE PRECISION rounds half to even).
func (Dialect) Round(expr string, k edm.Kind) string {
	switch {
	case isInteger(k):
		return expr
	case k == edm.KindDecimal:
		return "round(" + expr + ")"
	}
	return "CAST(round(CAST(" + expr + " AS NUMERIC)) AS DOUBLE PRECISION)"
}

// Floor uses floor.
func (Dialect) Floor(expr string, k edm.Kind) string {
	if isInteger(k) {
		return expr
	}
	return "floor(" + expr + ")"
}

// Ceiling uses ceil.
func (Dialect) Ceiling(expr string, k edm.Kind) string {
	if isInteger(k) {
		return expr
	}
	return "ceil(" + expr + ")"
}

// CollateBinary adds COLLATE "C".
func (Dialect) CollateBinary(expr string) string { return "(" + expr + `) COLLATE "C"` }

// LockForUpdate returns " FOR UPDATE".
func (Dialect) LockForUpdate() string { return " FOR UPDATE" }

// TransactionLock uses pg_advisory_xact_lock.
func (Dialect) TransactionLock() string { return "SELECT pg_advisory_xact_lock($1)" }

// MaintenanceTransaction returns the statement that lifts the statement_timeout of Open's sessions (see
// Pool.StatementTimeout) for the rest of one transaction (SET LOCAL, which a transaction-mode pooler passes
// through), for work that may run long, such as each migration of package migrate.
func (Dialect) MaintenanceTransaction() string { return "SET LOCAL statement_timeout = 0" }

// NextValue uses nextval.
func (Dialect) NextValue(sequence string) string {
	return "SELECT nextval('" + strings.ReplaceAll(sequence, "'", "''") + "')"
}

// ArrayAgg uses json_agg and encode(..., 'hex') for Binary values.
func (Dialect) ArrayAgg(value, order string, k edm.Kind) string {
	if k == edm.KindBinary {
		value = "encode(" + value + ", 'hex')"
	}
	return "json_agg(" + value + " ORDER BY " + order + ")"
}

// JSONRow uses json_build_array, with encode(..., 'hex') for Binary values and Decimals as text (NUMERIC
// reads as text, and json_build_array would write it as a number).
func (Dialect) JSONRow(values []string, kinds []edm.Kind) string {
	items := make([]string, len(values))
	for i, v := range values {
		switch kinds[i] {
		case edm.KindBinary:
			v = "encode(" + v + ", 'hex')"
		case edm.KindDecimal:
			v = "CAST(" + v + " AS TEXT)"
		}
		items[i] = v
	}
	return "json_build_array(" + strings.Join(items, ", ") + ")"
}

// isInteger reports whether k is an integer kind (Byte, SByte, Int16, Int32, Int64).
func isInteger(k edm.Kind) bool {
	switch k {
	case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64:
		return true
	}
	return false
}

// parameterType is the PostgreSQL type a parameter of kind k is cast to, so that every parameter has a known
// type.
func parameterType(k edm.Kind) string {
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

package sqldb

import (
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// TimestampTextLayout is how a dialect whose TextTimestamps is true (SQLite) stores Edm.DateTimeOffset: UTC
// with always six fraction digits, so that text order is time order.
const TimestampTextLayout = "2006-01-02T15:04:05.000000Z"

// maxDecimalDigits is the precision of the widest Edm.Decimal column (NUMERIC(19,s)).
const maxDecimalDigits = 19

// TimeArg returns t as d stores a DateTimeOffset column, to microseconds: text in TimestampTextLayout when
// d.TextTimestamps() (SQLite), else a time.Time in UTC (PostgreSQL TIMESTAMPTZ).
func TimeArg(d Dialect, t time.Time) any {
	t = t.UTC().Truncate(time.Microsecond)
	if d.TextTimestamps() {
		return t.Format(TimestampTextLayout)
	}
	return t
}

// ScanTime reads a DateTimeOffset column value as the driver returns it (text on SQLite, time.Time on
// PostgreSQL) and returns it in UTC.
func ScanTime(v any) (time.Time, error) {
	switch v := v.(type) {
	case time.Time:
		return v.UTC(), nil
	case string:
		t, err := time.Parse(time.RFC3339Nano, v)
		return t.UTC(), err
	case []byte:
		t, err := time.Parse(time.RFC3339Nano, string(v))
		return t.UTC(), err
	}
	return time.Time{}, fmt.Errorf("sqldb: unexpected DateTimeOffset value of type %T", v)
}

// DecimalArg returns m as d stores an Edm.Decimal column of the given scale: the exact integer m x 10^scale when
// d.ScaledDecimals() (SQLite), else the decimal text (PostgreSQL NUMERIC). Digits beyond the scale are an error,
// never rounded away, and so is a value outside NUMERIC(19,scale) (scaled, outside int64).
func DecimalArg(d Dialect, m decimal.Decimal, scale int32) (any, error) {
	scaled := m.Shift(scale)
	if !scaled.IsInteger() {
		return nil, fmt.Errorf("%s has more than %d decimal places", m, scale)
	}
	if len(scaled.Abs().BigInt().String()) > maxDecimalDigits {
		return nil, fmt.Errorf("%s is out of range", m)
	}
	if d.ScaledDecimals() {
		if !scaled.BigInt().IsInt64() {
			return nil, fmt.Errorf("%s is out of range", m)
		}
		return scaled.IntPart(), nil
	}
	return m.StringFixed(scale), nil
}

// ScanDecimal reads an Edm.Decimal column value of the given scale as the driver returns it: the scaled integer
// on SQLite, NUMERIC text on PostgreSQL.
func ScanDecimal(v any, scale int32) (decimal.Decimal, error) {
	switch v := v.(type) {
	case int64:
		return decimal.New(v, -scale), nil
	case string:
		return decimal.NewFromString(v)
	case []byte:
		return decimal.NewFromString(string(v))
	case float64:
		// Only reached for a value computed by SQL arithmetic; stored columns are never REAL.
		return decimal.NewFromString(strconv.FormatFloat(v, 'f', -1, 64))
	}
	return decimal.Decimal{}, fmt.Errorf("sqldb: unexpected Decimal value of type %T", v)
}

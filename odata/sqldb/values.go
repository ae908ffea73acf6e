package sqldb

import (
	"encoding/hex"
	"fmt"
	"math"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
)

// TimestampTextLayout is how a dialect whose TextTimestamps is true (SQLite) stores Edm.DateTimeOffset: UTC
// with always six fraction digits, so that text order is time order.
const TimestampTextLayout = "2006-01-02T15:04:05.000000Z"

// maxDecimalDigits is the precision of the widest Edm.Decimal the engine serves (NUMERIC(38,s)).
const maxDecimalDigits = 38

// TimeArg returns t as d stores a DateTimeOffset column, to microseconds: text in TimestampTextLayout when
// d.TextTimestamps() (SQLite), else a time.Time in UTC (PostgreSQL TIMESTAMPTZ).
func TimeArg(d Dialect, t time.Time) any {
	t = t.UTC().Truncate(time.Microsecond)
	if d.TextTimestamps() {
		return t.Format(TimestampTextLayout)
	}
	return t
}

// SQLTimestampLayout is how a DateTimeOffset column stored as edm.TimeSQL holds its values where timestamps are
// text (SQLite): the UTC wall clock with a space, the fraction of the second without trailing zeros (none for a
// whole second), as SQLite's datetime() and CURRENT_TIMESTAMP write it.
const SQLTimestampLayout = "2006-01-02 15:04:05.999999"

// ScanTime reads a DateTimeOffset column value as the driver returns it and returns it in UTC, to microseconds:
// a time.Time (PostgreSQL), RFC 3339 text (SQLite's own form), SQL's text without a zone read as UTC
// ('2006-01-02 15:04:05[.fff]', a 'T' for the space and a trailing 'Z' or offset too; edm.TimeSQL) or an
// integer of seconds since 1970 (edm.TimeUnix).
func ScanTime(v any) (time.Time, error) {
	switch v := v.(type) {
	case time.Time:
		return v.UTC().Truncate(time.Microsecond), nil
	case string:
		return parseTimestamp(v)
	case []byte:
		return parseTimestamp(string(v))
	case int64:
		return time.Unix(v, 0).UTC(), nil
	case float64:
		sec, frac := math.Modf(v)
		return time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("sqldb: unexpected DateTimeOffset value of type %T", v)
}

// parseTimestamp parses the text of a DateTimeOffset column: RFC 3339, or without an offset (UTC) and with a
// space or a 'T' between date and time, seconds and fraction optional.
func parseTimestamp(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		layout := "2006-01-02 15:04:05.999999999Z07:00"
		if len(s) > 10 && s[10] == 'T' {
			layout = "2006-01-02T15:04:05.999999999Z07:00"
		}
		var err2 error
		if t, err2 = time.Parse(layout, s); err2 != nil {
			if t, err2 = time.Parse(layout[:len(layout)-6], s); err2 != nil {
				return time.Time{}, err
			}
		}
	}
	return t.UTC().Truncate(time.Microsecond), nil
}

// timeStorageArg returns t, a value of a DateTimeOffset (or, as an edm.TimeOfDay, TimeOfDay) column stored as
// s, as d binds it, to microseconds: for edm.TimeAuto as TimeArg (or the 6-digit text of a TimeOfDay); for
// edm.TimeSQL text in SQLTimestampLayout (a TimeOfDay without trailing zeros) where d.TextTimestamps(), else a
// time.Time in UTC (timestamp without time zone) or the time of day's text; for edm.TimeUnix the whole seconds
// since 1970, an error for a value with a fraction of a second.
func timeStorageArg(d Dialect, s edm.TimeStorage, v any) (any, error) {
	switch v := v.(type) {
	case edm.TimeOfDay:
		v = edm.TimeOfDay(time.Duration(v).Truncate(time.Microsecond))
		if s == edm.TimeSQL && d.TextTimestamps() {
			return v.String(), nil
		}
		return v.Format(6), nil
	case time.Time:
		t := v.UTC().Truncate(time.Microsecond)
		switch {
		case s == edm.TimeUnix && t.Nanosecond() != 0:
			return nil, fmt.Errorf("%s has a fraction of a second, which a column of whole seconds cannot hold", t.Format(time.RFC3339Nano))
		case s == edm.TimeUnix:
			return t.Unix(), nil
		case s == edm.TimeSQL && d.TextTimestamps():
			return t.Format(SQLTimestampLayout), nil
		}
		return TimeArg(d, t), nil
	}
	return nil, fmt.Errorf("sqldb: unexpected time value of type %T", v)
}

// NativeTime reports whether the column of the DateTimeOffset or TimeOfDay property p stores its values as d
// does itself (edm.TimeAuto), so that the planner can compare the column as it is; otherwise it goes through
// d.TimeValue.
func NativeTime(p *edm.Property) bool {
	return p.TimeStorage == edm.TimeAuto || p.SQL != "" || p.Enum != nil
}

// DecimalArg returns m as d stores an Edm.Decimal column of the given scale in its own way: the exact integer
// m x 10^scale when d.ScaledDecimals() (SQLite), else the decimal text (PostgreSQL NUMERIC). Digits beyond the
// scale are an error, never rounded away, and so is a value outside NUMERIC(38,scale) (scaled, outside int64).
func DecimalArg(d Dialect, m decimal.Decimal, scale int32) (any, error) {
	return decimalArg(m, scale, defaultDecimalStorage(d))
}

// decimalArg returns m as a column of the given storage (never DecimalAuto) and scale holds it: the scaled
// integer, the decimal text or the float64.
func decimalArg(m decimal.Decimal, scale int32, storage edm.DecimalStorage) (any, error) {
	scaled := m.Shift(scale)
	if !scaled.IsInteger() {
		return nil, fmt.Errorf("%s has more than %d decimal places", m, scale)
	}
	if len(scaled.Abs().BigInt().String()) > maxDecimalDigits {
		return nil, fmt.Errorf("%s is out of range", m)
	}
	switch storage {
	case edm.DecimalScaled:
		if !scaled.BigInt().IsInt64() {
			return nil, fmt.Errorf("%s is out of range", m)
		}
		return scaled.IntPart(), nil
	case edm.DecimalFloat:
		f, _ := m.Float64()
		return f, nil
	}
	return m.StringFixed(scale), nil
}

// defaultDecimalStorage is how d stores decimals itself: scaled integers or exact decimals.
func defaultDecimalStorage(d Dialect) edm.DecimalStorage {
	if d.ScaledDecimals() {
		return edm.DecimalScaled
	}
	return edm.DecimalExact
}

// DecimalStorage returns how the column of the Decimal property p stores its values on d: p.DecimalStorage, or
// for edm.DecimalAuto the dialect's own (DecimalScaled where d.ScaledDecimals() and the Precision is at most
// edm.MaxScaledDecimalPrecision, else DecimalExact).
func DecimalStorage(d Dialect, p *edm.Property) edm.DecimalStorage {
	return storageOn(d, p.DecimalStorage, p.Precision)
}

// storageOn is the storage of a Decimal of the given precision declared as storage on d (see DecimalStorage).
func storageOn(d Dialect, storage edm.DecimalStorage, precision int) edm.DecimalStorage {
	switch {
	case storage != edm.DecimalAuto:
		return storage
	case d.ScaledDecimals() && precision > edm.MaxScaledDecimalPrecision:
		return edm.DecimalExact
	}
	return defaultDecimalStorage(d)
}

// TextDecimal reports whether the column of the property p holds decimal text that the planner compares under
// d.CollateDecimal and computes with through d.DecimalFunc: a stored Decimal kept as edm.DecimalExact where
// d.TextDecimals() (SQLite).
func TextDecimal(d Dialect, p *edm.Property) bool {
	return p.Type == edm.KindDecimal && p.SQL == "" && p.Enum == nil && d.TextDecimals() &&
		DecimalStorage(d, p) == edm.DecimalExact
}

// NativeDecimal reports whether the column of the Decimal property p stores its values as d does itself, so
// that the planner can compare the column as it is; otherwise it goes through d.DecimalValue.
func NativeDecimal(d Dialect, p *edm.Property) bool {
	return DecimalStorage(d, p) == defaultDecimalStorage(d)
}

// ColumnKind returns the kind of value the column of a property of kind k (precision its Decimal precision)
// holds on d when it is stored as storage: for a Decimal stored in another way than d's own, the integer kind
// as wide as the precision needs (DecimalScaled), Double, or Single up to 6 digits (DecimalFloat), or String
// (DecimalExact on a database without a decimal type, which declares the column d.CollateDecimal of the
// String column type); k otherwise. odata/schema declares and checks columns of this kind.
func ColumnKind(d Dialect, k edm.Kind, storage edm.DecimalStorage, precision int) edm.Kind {
	if k != edm.KindDecimal {
		return k
	}
	if storage = storageOn(d, storage, precision); storage == defaultDecimalStorage(d) {
		return k
	}
	switch storage {
	case edm.DecimalScaled:
		switch {
		case precision <= 4:
			return edm.KindInt16
		case precision <= 9:
			return edm.KindInt32
		}
		return edm.KindInt64
	case edm.DecimalFloat:
		if precision <= 6 {
			return edm.KindSingle
		}
		return edm.KindDouble
	}
	return edm.KindString
}

// ScanDecimal reads an Edm.Decimal column value of the given scale as the driver returns it from a column d
// stores in its own way (see DecimalArg): the scaled integer on SQLite, NUMERIC text on PostgreSQL.
func ScanDecimal(v any, scale int32) (decimal.Decimal, error) {
	return scanDecimal(v, scale, true)
}

// scanDecimal reads a Decimal column value: an integer is the value x 10^scale when scaled, else the value; a
// floating-point number is rounded to the scale; text is the exact decimal.
func scanDecimal(v any, scale int32, scaled bool) (decimal.Decimal, error) {
	switch v := v.(type) {
	case int64:
		if scaled {
			return decimal.New(v, -scale), nil
		}
		return decimal.New(v, 0), nil
	case string:
		return decimal.NewFromString(v)
	case []byte:
		return decimal.NewFromString(string(v))
	case float64:
		// A DecimalFloat column, or a value computed by SQL arithmetic: the nearest decimal at the scale.
		return decimal.NewFromFloat(v).Round(scale), nil
	}
	return decimal.Decimal{}, fmt.Errorf("sqldb: unexpected Decimal value of type %T", v)
}

// ScaledColumn reports whether an integer read from the column of the Decimal property p is the value x
// 10^Scale: the property is stored as DecimalScaled, or as DecimalAuto of at most edm.MaxScaledDecimalPrecision
// digits, which is scaled wherever a decimal column returns integers (SQLite). An integer from a DecimalExact or
// DecimalFloat column (SQLite keeps 20 in a NUMERIC column as an integer) is the value itself.
func ScaledColumn(p *edm.Property) bool {
	return p.DecimalStorage.Scaled(p.Precision)
}

// Arg converts the Go value of a scalar property (the types of odata/DESIGN.md's storage table) to the argument
// d binds for its column. nil stays nil (SQL NULL). Complex and collection properties are stored in several
// columns or a side table and are not converted here.
func Arg(d Dialect, p *edm.Property, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if p.Enum != nil {
		n, ok := v.(int64)
		if !ok {
			return nil, typeErr(p, v)
		}
		return n, nil
	}
	switch p.Type {
	case edm.KindDecimal:
		if m, ok := v.(decimal.Decimal); ok {
			return decimalArg(m, int32(p.Scale), DecimalStorage(d, p))
		}
	case edm.KindDouble, edm.KindSingle:
		if f, ok := v.(float64); ok {
			return floatArg(d, p, f)
		}
	case edm.KindDate:
		if t, ok := v.(edm.Date); ok {
			return t.String(), nil
		}
	case edm.KindTimeOfDay, edm.KindDateTimeOffset:
		return timeArg(d, p, v)
	case edm.KindDuration:
		if t, ok := v.(time.Duration); ok {
			return int64(t / time.Microsecond), nil
		}
	default:
		if boundAsIs(p.Type, v) {
			return v, nil
		}
	}
	return nil, typeErr(p, v)
}

// floatArg is Arg of a Double or Single property: f, unless d cannot store it (NaN, the infinities on SQLite).
func floatArg(d Dialect, p *edm.Property, f float64) (any, error) {
	if !d.StoresNaN() && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return nil, fmt.Errorf("%s: %v cannot be stored", p.Name, f)
	}
	return f, nil
}

// timeArg is Arg of a TimeOfDay or DateTimeOffset property.
func timeArg(d Dialect, p *edm.Property, v any) (any, error) {
	_, timeOfDay := v.(edm.TimeOfDay)
	_, instant := v.(time.Time)
	if timeOfDay != (p.Type == edm.KindTimeOfDay) || instant != (p.Type == edm.KindDateTimeOffset) {
		return nil, typeErr(p, v)
	}
	arg, err := timeStorageArg(d, p.TimeStorage, v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	return arg, nil
}

func typeErr(p *edm.Property, v any) error {
	return fmt.Errorf("%s: a value of type %T does not fit %s", p.Name, v, typeName(p))
}

func typeName(p *edm.Property) string {
	if p.Enum != nil {
		return p.Enum.Name
	}
	return p.Type.String()
}

// boundAsIs reports whether v is the Go value of kind k that its column binds unchanged: a string (String,
// Guid), a bool, an int64 (the integer kinds), a []byte (Binary, Stream).
func boundAsIs(k edm.Kind, v any) bool {
	var ok bool
	switch k {
	case edm.KindString, edm.KindGuid:
		_, ok = v.(string)
	case edm.KindBoolean:
		_, ok = v.(bool)
	case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64:
		_, ok = v.(int64)
	case edm.KindBinary, edm.KindStream:
		_, ok = v.([]byte)
	}
	return ok
}

// Scan converts the value the driver returned for a scalar property's column (scanned into an *any) to the
// property's Go value. nil stays nil.
func Scan(p *edm.Property, src any) (any, error) {
	if src == nil {
		return nil, nil
	}
	if p.Enum != nil {
		return scanInt(p, src)
	}
	switch p.Type {
	case edm.KindString:
		switch s := src.(type) {
		case string:
			return s, nil
		case []byte:
			return string(s), nil
		}
	case edm.KindBoolean:
		switch b := src.(type) {
		case bool:
			return b, nil
		case int64:
			return b != 0, nil
		}
	case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64:
		return scanInt(p, src)
	case edm.KindDecimal:
		return scanDecimal(src, int32(p.Scale), ScaledColumn(p))
	case edm.KindDouble, edm.KindSingle:
		return scanFloat(p, src)
	case edm.KindDate, edm.KindTimeOfDay:
		return scanDateOrTime(p, src)
	case edm.KindDateTimeOffset:
		return ScanTime(src)
	case edm.KindDuration:
		if n, ok := src.(int64); ok {
			return time.Duration(n) * time.Microsecond, nil
		}
	case edm.KindGuid:
		return scanGuid(p, src)
	case edm.KindBinary, edm.KindStream:
		switch b := src.(type) {
		case []byte:
			return append([]byte(nil), b...), nil
		case string:
			return []byte(b), nil
		}
	}
	return nil, unexpectedValue(p, src)
}

func unexpectedValue(p *edm.Property, src any) error {
	return fmt.Errorf("sqldb: %s: unexpected column value of type %T for %s", p.Name, src, typeName(p))
}

func scanInt(p *edm.Property, src any) (any, error) {
	switch n := src.(type) {
	case int64:
		return n, nil
	case int32:
		return int64(n), nil
	case int16:
		return int64(n), nil
	}
	return nil, unexpectedValue(p, src)
}

func scanFloat(p *edm.Property, src any) (any, error) {
	switch f := src.(type) {
	case float64:
		return f, nil
	case float32:
		return float64(f), nil
	case int64:
		return float64(f), nil
	}
	return nil, unexpectedValue(p, src)
}

// scanDateOrTime reads a Date or TimeOfDay column: a time.Time (PostgreSQL DATE, TIME) or the text SQLite stores.
func scanDateOrTime(p *edm.Property, src any) (any, error) {
	var text string
	switch t := src.(type) {
	case time.Time:
		if p.Type == edm.KindDate {
			return edm.DateOf(t), nil
		}
		return edm.TimeOfDayOf(t), nil
	case string:
		text = t
	case []byte:
		text = string(t)
	default:
		return nil, unexpectedValue(p, src)
	}
	if p.Type == edm.KindDate {
		return edm.ParseDate(text)
	}
	return edm.ParseTimeOfDay(text)
}

// scanGuid reads a Guid column: text, or the 16 bytes of a PostgreSQL UUID.
func scanGuid(p *edm.Property, src any) (any, error) {
	switch g := src.(type) {
	case string:
		return edm.ParseGuid(g)
	case []byte:
		if len(g) == 16 {
			h := hex.EncodeToString(g)
			return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
		}
		return edm.ParseGuid(string(g))
	case [16]byte:
		return scanGuid(p, g[:])
	}
	return nil, unexpectedValue(p, src)
}

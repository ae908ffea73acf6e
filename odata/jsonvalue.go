package odata

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// This file turns values into OData JSON (4.0, odata.metadata=minimal) with appends: no reflection and no
// intermediate strings on the paths a collection answer takes for every row.
//
// There are two entry points that must agree byte for byte, because ETags hash their output:
//   - appendValue writes the Go value of a property (odata/DESIGN.md's types), as hooks and actions hold them;
//   - appendColumn writes the value a driver returned for a property's column, with fast paths for the common
//     storage forms and sqldb.Scan + appendValue for the rest.

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD; U+2028 and U+2029 are escaped so the
// output is also valid JavaScript.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendBytesString is appendString for a []byte without converting it.
func appendBytesString(b []byte, s []byte) []byte {
	for _, c := range s {
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return appendString(b, string(s))
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendFloat appends f as a JSON number (the shortest form that reads back exactly, as encoding/json writes
// it); NaN and the infinities, which JSON numbers cannot hold, are the strings OData uses: "NaN", "INF", "-INF".
func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"INF"`...)
	case math.IsInf(f, -1):
		return append(b, `"-INF"`...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendDecimal appends d as a JSON number with its exact digits and no trailing fraction zeros.
func appendDecimal(b []byte, d decimal.Decimal) []byte {
	if d.Exponent() >= 0 && d.Exponent() < 19 {
		if c := d.Coefficient(); c.IsInt64() {
			n := c.Int64()
			b = strconv.AppendInt(b, n, 10)
			if n != 0 {
				for i := int32(0); i < d.Exponent(); i++ {
					b = append(b, '0')
				}
			}
			return b
		}
	}
	if d.Exponent() < 0 && d.Exponent() > -19 {
		if c := d.Coefficient(); c.IsInt64() {
			return appendScaled(b, c.Int64(), int(-d.Exponent()))
		}
	}
	return trimDecimalText(b, d.String())
}

// pow10 holds the powers of ten that fit in a uint64.
var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
	1e17, 1e18, 1e19}

// appendScaled appends the decimal n x 10^-scale (0 <= scale <= 19) without trailing fraction zeros: the form
// SQLite stores Edm.Decimal in.
func appendScaled(b []byte, n int64, scale int) []byte {
	u := uint64(n)
	if n < 0 {
		u = -u
	}
	if scale == 0 {
		if n < 0 {
			b = append(b, '-')
		}
		return strconv.AppendUint(b, u, 10)
	}
	p := pow10[scale]
	whole, fraction := u/p, u%p
	if n < 0 {
		b = append(b, '-')
	}
	b = strconv.AppendUint(b, whole, 10)
	if fraction == 0 {
		return b
	}
	var digits [20]byte
	for i := scale - 1; i >= 0; i-- {
		digits[i] = byte('0' + fraction%10)
		fraction /= 10
	}
	end := scale
	for end > 0 && digits[end-1] == '0' {
		end--
	}
	b = append(b, '.')
	return append(b, digits[:end]...)
}

// trimDecimalText appends the decimal text s (digits, an optional sign and point, as PostgreSQL returns NUMERIC)
// without trailing fraction zeros, "-0" as "0".
func trimDecimalText(b []byte, s string) []byte {
	if i := indexByte(s, '.'); i >= 0 {
		end := len(s)
		for end > i+1 && s[end-1] == '0' {
			end--
		}
		if end == i+1 {
			end = i
		}
		s = s[:end]
	}
	if s == "-0" {
		s = "0"
	}
	return append(b, s...)
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// appendTime appends a DateTimeOffset in RFC 3339, UTC, to microseconds (as every storage keeps it), with a
// fraction of seconds only when it is not zero.
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.UTC().Truncate(time.Microsecond).AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendStoredTime appends a DateTimeOffset stored as text ("2026-11-22T01:02:03.456000Z",
// sqldb.TimestampTextLayout) as JSON, the fraction's trailing zeros dropped, without parsing it. ok is false for
// text of another shape.
func appendStoredTime(b []byte, s string) ([]byte, bool) {
	if len(s) != len(sqldb.TimestampTextLayout) || s[19] != '.' || s[26] != 'Z' {
		return b, false
	}
	end := 26
	for end > 20 && s[end-1] == '0' {
		end--
	}
	if end == 20 {
		end = 19
	}
	b = append(b, '"')
	b = append(b, s[:end]...)
	return append(b, 'Z', '"'), true
}

// appendValue appends the JSON of v, the Go value of a primitive or enum property or of one item of a collection
// property (p describes the item type). Complex values are written by the entity writer, member by member.
func appendValue(b []byte, p *edm.Property, v any) ([]byte, error) {
	if v == nil {
		return append(b, "null"...), nil
	}
	if p.Enum != nil {
		n, ok := v.(int64)
		if !ok {
			return b, valueTypeErr(p, v)
		}
		return appendString(b, enumText(p.Enum, n)), nil
	}
	switch p.Type {
	case edm.KindString:
		if s, ok := v.(string); ok {
			return appendString(b, s), nil
		}
	case edm.KindBoolean:
		if x, ok := v.(bool); ok {
			return strconv.AppendBool(b, x), nil
		}
	case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64:
		if n, ok := v.(int64); ok {
			return strconv.AppendInt(b, n, 10), nil
		}
	case edm.KindDecimal:
		if d, ok := v.(decimal.Decimal); ok {
			return appendDecimal(b, d), nil
		}
	case edm.KindDouble:
		if f, ok := v.(float64); ok {
			return appendFloat(b, f, 64), nil
		}
	case edm.KindSingle:
		if f, ok := v.(float64); ok {
			return appendFloat(b, float64(float32(f)), 32), nil
		}
	case edm.KindDate, edm.KindTimeOfDay, edm.KindDateTimeOffset, edm.KindDuration:
		if out, ok := appendTemporal(b, p.Type, v); ok {
			return out, nil
		}
	case edm.KindGuid:
		if s, ok := v.(string); ok {
			return appendString(b, s), nil
		}
	case edm.KindBinary, edm.KindStream:
		if x, ok := v.([]byte); ok {
			b = append(b, '"')
			if p.StandardBase64 {
				b = base64.StdEncoding.AppendEncode(b, x)
			} else {
				b = base64.RawURLEncoding.AppendEncode(b, x) // base64url without padding, as OData JSON has it
			}
			return append(b, '"'), nil
		}
	}
	return b, valueTypeErr(p, v)
}

// appendTemporal appends the JSON of v, a value of the date or time kind k, and reports whether v is of k's Go
// type (when it is not, b is returned unchanged).
func appendTemporal(b []byte, k edm.Kind, v any) ([]byte, bool) {
	var text string
	ok := false
	switch x := v.(type) {
	case edm.Date:
		text, ok = x.String(), k == edm.KindDate
	case edm.TimeOfDay:
		text, ok = x.String(), k == edm.KindTimeOfDay
	case time.Duration:
		text, ok = edm.FormatDuration(x), k == edm.KindDuration
	case time.Time:
		if k == edm.KindDateTimeOffset {
			return appendTime(b, x), true
		}
	}
	if !ok {
		return b, false
	}
	b = append(b, '"')
	b = append(b, text...)
	return append(b, '"'), true
}

func valueTypeErr(p *edm.Property, v any) error {
	t := p.Type.String()
	if p.Enum != nil {
		t = p.Enum.Name
	}
	return fmt.Errorf("odata: property %s: a value of type %T does not fit %s", p.Name, v, t)
}

// appendColumn appends the JSON of src, the value the driver returned for the column of a primitive or enum
// property. It must produce what appendValue produces for the scanned Go value.
func appendColumn(b []byte, p *edm.Property, src any) ([]byte, error) {
	if src == nil {
		return append(b, "null"...), nil
	}
	if p.Enum == nil {
		switch p.Type {
		case edm.KindString:
			switch s := src.(type) {
			case string:
				return appendString(b, s), nil
			case []byte:
				return appendBytesString(b, s), nil
			}
		case edm.KindBoolean:
			switch x := src.(type) {
			case bool:
				return strconv.AppendBool(b, x), nil
			case int64:
				return strconv.AppendBool(b, x != 0), nil
			}
		case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64:
			if n, ok := src.(int64); ok {
				return strconv.AppendInt(b, n, 10), nil
			}
		case edm.KindDecimal:
			if out, ok := appendDecimalColumn(b, p, src); ok {
				return out, nil
			}
		case edm.KindDouble:
			if f, ok := src.(float64); ok {
				return appendFloat(b, f, 64), nil
			}
		case edm.KindDateTimeOffset:
			if out, ok := appendTimeColumn(b, src); ok {
				return out, nil
			}
		case edm.KindGuid:
			if s, ok := src.(string); ok && len(s) == 36 && isLowerGuid(s) {
				b = append(b, '"')
				b = append(b, s...)
				return append(b, '"'), nil
			}
		}
	}
	v, err := sqldb.Scan(p, src)
	if err != nil {
		return b, err
	}
	return appendValue(b, p, v)
}

// appendDecimalColumn appends the JSON of src, the value of the column of the Decimal property p, when it is in a
// form written without scanning it: a scaled integer or plain decimal text. It reports whether it appended.
func appendDecimalColumn(b []byte, p *edm.Property, src any) ([]byte, bool) {
	switch x := src.(type) {
	case int64:
		if p.Scale >= 0 && p.Scale <= 19 && sqldb.ScaledColumn(p) {
			return appendScaled(b, x, p.Scale), true
		}
	case string:
		if plainDecimal(x) {
			return trimDecimalText(b, x), true
		}
	}
	return b, false
}

// appendTimeColumn appends the JSON of src, the value of a DateTimeOffset column, when it is in a form written
// without scanning it: the engine's stored text or a time.Time. It reports whether it appended.
func appendTimeColumn(b []byte, src any) ([]byte, bool) {
	switch x := src.(type) {
	case string:
		return appendStoredTime(b, x)
	case time.Time:
		return appendTime(b, x), true
	}
	return b, false
}

// plainDecimal reports whether s is [-]digits[.digits] with no leading zeros that matter (as PostgreSQL writes
// NUMERIC), so trimming its fraction gives the canonical form.
func plainDecimal(s string) bool {
	if s == "" {
		return false
	}
	i := 0
	if s[0] == '-' {
		i = 1
	}
	start, dot := i, false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c == '.' && !dot && i > start:
			dot = true
		default:
			return false
		}
	}
	if s[len(s)-1] == '.' || len(s) == start {
		return false
	}
	// "007" is not canonical; "0.5" is.
	return !(s[start] == '0' && len(s) > start+1 && s[start+1] != '.')
}

func isLowerGuid(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// decodeHex decodes the hexadecimal text of a Binary item of an aggregated collection.
func decodeHex(s string) ([]byte, error) { return hex.DecodeString(s) }

// enumTexts caches the text of flags enum values that are combinations of members (edm.EnumType.Format builds
// them anew on every call); it stops growing at maxEnumTexts entries.
var (
	enumTexts     sync.Map // enumValue -> string
	enumTextCount atomic.Int64
)

const maxEnumTexts = 4096

type enumValue struct {
	e *edm.EnumType
	v int64
}

// enumText returns the JSON text of the enum value v: its member name, or for flags the comma-joined names.
func enumText(e *edm.EnumType, v int64) string {
	if m, ok := e.MemberByValue(v); ok || !e.Flags {
		if ok {
			return m.Name
		}
		return e.Format(v)
	}
	k := enumValue{e, v}
	if s, ok := enumTexts.Load(k); ok {
		return s.(string)
	}
	s := e.Format(v)
	if enumTextCount.Load() < maxEnumTexts {
		if _, loaded := enumTexts.LoadOrStore(k, s); !loaded {
			enumTextCount.Add(1)
		}
	}
	return s
}

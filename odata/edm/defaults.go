package edm

import (
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// normalizeDefault checks a property's Default against its type and returns it as the canonical Go value.
func normalizeDefault(p *Property) (any, error) {
	var v any
	var err error
	switch {
	case p.Enum != nil:
		v, err = enumDefault(p.Enum, p.Default)
	case p.Type < kindCount && defaultNormalizers[p.Type] != nil:
		v, err = defaultNormalizers[p.Type](p, p.Default)
	default:
		return nil, fmt.Errorf("%s properties have no default", p.Type)
	}
	if err == errDefaultType {
		return nil, fmt.Errorf("default %#v (%T) is not a value of %s", p.Default, p.Default, typeLabel(p))
	}
	return v, err
}

// errDefaultType says that a default is not a Go value of its property's type; normalizeDefault words it.
var errDefaultType = errors.New("default of the wrong type")

// defaultNormalizer checks a default v of a property of one kind and returns its canonical Go value.
type defaultNormalizer func(p *Property, v any) (any, error)

// defaultNormalizers has the normalizer of each kind that can have a default (Stream has none).
var defaultNormalizers = [kindCount]defaultNormalizer{
	KindString:         stringDefault,
	KindBoolean:        typedDefault[bool](nil),
	KindByte:           integerDefault,
	KindSByte:          integerDefault,
	KindInt16:          integerDefault,
	KindInt32:          integerDefault,
	KindInt64:          integerDefault,
	KindDecimal:        decimalDefault,
	KindDouble:         floatDefault,
	KindSingle:         floatDefault,
	KindDate:           typedDefault(Date.IsValid),
	KindTimeOfDay:      typedDefault(TimeOfDay.IsValid),
	KindDateTimeOffset: dateTimeDefault,
	KindDuration:       typedDefault[time.Duration](nil),
	KindGuid:           guidDefault,
	KindBinary:         typedDefault[[]byte](nil),
}

// typedDefault accepts a default of the Go type T, and that valid accepts when it is not nil, as it is.
func typedDefault[T any](valid func(T) bool) defaultNormalizer {
	return func(_ *Property, v any) (any, error) {
		x, ok := v.(T)
		if !ok || valid != nil && !valid(x) {
			return nil, errDefaultType
		}
		return x, nil
	}
}

// enumDefault accepts a member name or a value of the enum type, as an int64.
func enumDefault(e *EnumType, v any) (any, error) {
	if s, ok := v.(string); ok {
		n, err := e.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("default %q is not a member of enum type %q", s, e.Name)
		}
		return n, nil
	}
	n, ok := asInt64(v)
	if !ok {
		return nil, errDefaultType
	}
	if !e.valid(n) {
		return nil, fmt.Errorf("default %d is not a value of enum type %q", n, e.Name)
	}
	return n, nil
}

// stringDefault accepts a string within MaxLength that CSDL XML can carry.
func stringDefault(p *Property, v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, errDefaultType
	}
	if p.MaxLength > 0 && utf8.RuneCountInString(s) > p.MaxLength {
		return nil, fmt.Errorf("default %q is longer than MaxLength %d", s, p.MaxLength)
	}
	if !xmlSafe(s) {
		return nil, fmt.Errorf("default %q holds characters CSDL XML cannot carry (control characters or invalid UTF-8)", s)
	}
	return s, nil
}

// integerDefault accepts any Go integer in the range of the property's kind, as an int64.
func integerDefault(p *Property, v any) (any, error) {
	n, ok := asInt64(v)
	if !ok {
		return nil, errDefaultType
	}
	if lo, hi := p.Type.intRange(); n < lo || n > hi {
		return nil, fmt.Errorf("default %d does not fit %s", n, p.Type)
	}
	return n, nil
}

// decimalDefault accepts a decimal.Decimal or a Go integer that fits the property's Precision and Scale.
func decimalDefault(p *Property, v any) (any, error) {
	d, ok := v.(decimal.Decimal)
	if !ok {
		n, ok := asInt64(v)
		if !ok {
			return nil, errDefaultType
		}
		d = decimal.NewFromInt(n)
	}
	if !fitsDecimal(d, p.Precision, p.Scale) {
		return nil, fmt.Errorf("default %s does not fit Precision %d and Scale %d", d, p.Precision, p.Scale)
	}
	return d, nil
}

// floatDefault accepts a float64, a float32 or a Go integer, as a float64.
func floatDefault(_ *Property, v any) (any, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	}
	n, ok := asInt64(v)
	if !ok {
		return nil, errDefaultType
	}
	return float64(n), nil
}

// dateTimeDefault accepts a time.Time, in UTC.
func dateTimeDefault(_ *Property, v any) (any, error) {
	t, ok := v.(time.Time)
	if !ok {
		return nil, errDefaultType
	}
	return t.UTC(), nil
}

// guidDefault accepts a GUID string, in canonical lower-case form.
func guidDefault(_ *Property, v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, errDefaultType
	}
	g, err := ParseGuid(s)
	if err != nil {
		return nil, errDefaultType
	}
	return g, nil
}

// xmlSafe reports whether s is valid UTF-8 made of characters XML 1.0 allows.
func xmlSafe(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r >= 0xFFFE {
			return false
		}
	}
	return true
}

// asInt64 converts any Go integer to int64.
func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		if uint64(x) <= math.MaxInt64 {
			return int64(x), true
		}
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	}
	return 0, false
}

// fitsDecimal reports whether d has at most scale digits after the point and precision digits in all.
func fitsDecimal(d decimal.Decimal, precision, scale int) bool {
	if !d.Equal(d.Truncate(int32(scale))) {
		return false
	}
	intDigits := len(d.Abs().Truncate(0).String())
	if d.Abs().LessThan(decimal.NewFromInt(1)) {
		intDigits = 0
	}
	return intDigits <= precision-scale
}

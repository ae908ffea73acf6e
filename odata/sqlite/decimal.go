package sqlite

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/mattn/go-sqlite3"
	"github.com/shopspring/decimal"
)

// DecimalCollation is the collation that Open's connections compare decimal text with: two texts compare as the
// exact decimals they spell ("0.30" equals "0.3", "-1" is below "0.000000000000000001", "10" above "9"). A
// Decimal kept as text (edm.DecimalExact, and edm.DecimalAuto beyond edm.MaxScaledDecimalPrecision digits) is a
// TEXT column declared with it, so that comparisons with the column, ORDER BY and indexes on it are exact; the
// planner spells it (COLLATE odata_decimal) where an operand is computed. Text that is not a decimal sorts after
// every decimal, byte by byte. Another program that compares or indexes such a column must register a
// collation of this name that orders the same way; SQLite refuses the statement otherwise, rather than compare
// the digits as bytes.
const DecimalCollation = "odata_decimal"

// decimalFunctions are the SQL functions over exact decimals that Open registers, each deterministic. Their
// operands are decimal text, integers or REAL numbers; NULL gives NULL, and so does division by zero; they
// return the decimal text of the result, which DecimalCollation compares. The results are PostgreSQL's NUMERIC
// results, digit for digit, so that a $filter answers the same on both databases: the text keeps the scale
// PostgreSQL gives the result (its display scale: the larger scale of a sum or difference, the sum of the
// scales of a product, 0 after rounding), and a quotient is rounded to the scale PostgreSQL chooses
// (divisionScale), which depends on the operands' scales.
var decimalFunctions = map[string]any{
	// odata_decimal(x, scale) is the decimal text of x x 10^-scale: a scaled integer (19.99 kept as 1999 at
	// scale 2), a REAL (the shortest decimal that reads back as it), or decimal text (scale 0).
	"odata_decimal":         decimalText,
	"odata_decimal_add":     decimalOp(func(a, b decimal.Decimal) (decimal.Decimal, bool) { return a.Add(b), true }),
	"odata_decimal_sub":     decimalOp(func(a, b decimal.Decimal) (decimal.Decimal, bool) { return a.Sub(b), true }),
	"odata_decimal_mul":     decimalOp(func(a, b decimal.Decimal) (decimal.Decimal, bool) { return a.Mul(b), true }),
	"odata_decimal_div":     decimalOp(divide),
	"odata_decimal_mod":     decimalOp(remainder),
	"odata_decimal_neg":     decimalFunc(decimal.Decimal.Neg),
	"odata_decimal_round":   decimalFunc(func(d decimal.Decimal) decimal.Decimal { return d.Round(0) }),
	"odata_decimal_floor":   decimalFunc(decimal.Decimal.Floor),
	"odata_decimal_ceiling": decimalFunc(decimal.Decimal.Ceil),
}

// registerDecimals registers DecimalCollation and decimalFunctions on a connection.
func registerDecimals(c *sqlite3.SQLiteConn) error {
	if err := c.RegisterCollation(DecimalCollation, compareDecimalText); err != nil {
		return err
	}
	for name, impl := range decimalFunctions {
		if err := c.RegisterFunc(name, impl, true); err != nil {
			return err
		}
	}
	return nil
}

// errNotDecimal begins the message of a value that the decimal functions cannot read as a number.
const errNotDecimal = "not a decimal: "

// decimalOf reads an operand of the decimal functions: ok is false for NULL (the driver passes it as a nil
// []byte); an error for text that is no decimal, NaN and the infinities.
func decimalOf(v any) (d decimal.Decimal, ok bool, err error) {
	switch x := v.(type) {
	case nil:
		return d, false, nil
	case int64:
		return decimal.NewFromInt(x), true, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return d, false, errors.New(errNotDecimal + fmt.Sprint(x))
		}
		return decimal.NewFromFloat(x), true, nil
	case []byte:
		if x == nil {
			return d, false, nil
		}
		return decimalOfText(string(x))
	case string:
		return decimalOfText(x)
	}
	return d, false, fmt.Errorf("%s%T", errNotDecimal, v)
}

func decimalOfText(s string) (decimal.Decimal, bool, error) {
	d, err := decimal.NewFromString(strings.TrimSpace(s))
	if err != nil {
		return d, false, errors.New(errNotDecimal + fmt.Sprintf("%q", s))
	}
	return d, true, nil
}

// decimalText implements odata_decimal(x, scale).
func decimalText(x any, scale int64) (any, error) {
	d, ok, err := decimalOf(x)
	if !ok {
		return nil, err
	}
	return decimalString(d.Shift(int32(-scale))), nil
}

// decimalString is the text of d with as many fraction digits as its exponent says (19.90 stays 19.90).
func decimalString(d decimal.Decimal) string {
	return d.StringFixed(max(-d.Exponent(), 0))
}

// decimalOp makes a two-operand decimal function of op, which returns false where the result is NULL.
func decimalOp(op func(a, b decimal.Decimal) (decimal.Decimal, bool)) func(a, b any) (any, error) {
	return func(a, b any) (any, error) {
		x, ok, err := decimalOf(a)
		if !ok {
			return nil, err
		}
		y, ok, err := decimalOf(b)
		if !ok {
			return nil, err
		}
		r, ok := op(x, y)
		if !ok {
			return nil, nil
		}
		return decimalString(r), nil
	}
}

// decimalFunc makes a one-operand decimal function of f.
func decimalFunc(f func(decimal.Decimal) decimal.Decimal) func(a any) (any, error) {
	return func(a any) (any, error) {
		x, ok, err := decimalOf(a)
		if !ok {
			return nil, err
		}
		return decimalString(f(x)), nil
	}
}

// divide is a / b rounded half away from zero to divisionScale(a, b) fraction digits, NULL when b is zero.
func divide(a, b decimal.Decimal) (decimal.Decimal, bool) {
	if b.IsZero() {
		return decimal.Decimal{}, false
	}
	return a.DivRound(b, divisionScale(a, b)), true
}

// divisionScale is the number of fraction digits of the quotient a / b as PostgreSQL's NUMERIC division chooses
// them (select_div_scale in its numeric.c): at least 16 significant digits, estimated from the weights and
// first digits of the operands in base 10000, and at least the scale of either operand.
func divisionScale(a, b decimal.Decimal) int32 {
	weightA, firstA := base10000Lead(a)
	weightB, firstB := base10000Lead(b)
	quotientWeight := weightA - weightB
	if firstA <= firstB {
		quotientWeight--
	}
	return min(max(16-quotientWeight*4, -a.Exponent(), -b.Exponent(), 0), 1000)
}

// base10000Lead returns the weight of the first non-zero digit of |d| written in base 10000 with the groups
// aligned on the decimal point (d = first x 10000^weight + ...), and that digit; 0, 0 for zero.
func base10000Lead(d decimal.Decimal) (weight int32, first int64) {
	if d.IsZero() {
		return 0, 0
	}
	d = d.Abs()
	// The position of the leading decimal digit: |d| is in [10^e, 10^(e+1)).
	e := int32(d.NumDigits()) + d.Exponent() - 1
	weight = e / 4
	if e < 0 && e%4 != 0 {
		weight-- // floor division
	}
	return weight, d.Shift(-4 * weight).IntPart()
}

// remainder is a mod b with the sign of a (truncated division, as SQL's % and PostgreSQL's NUMERIC mod), NULL
// when b is zero.
func remainder(a, b decimal.Decimal) (decimal.Decimal, bool) {
	if b.IsZero() {
		return decimal.Decimal{}, false
	}
	return a.Mod(b), true
}

// compareDecimalText is DecimalCollation: a and b compared as exact decimals, plain decimal text ([+-]digits
// [.digits], as the engine writes it) without allocating; other text through decimal.NewFromString (an
// exponent, spaces); text that is no decimal after every decimal, byte by byte.
func compareDecimalText(a, b string) int {
	x, okA := parsePlain(a)
	y, okB := parsePlain(b)
	if okA && okB {
		return comparePlain(x, y)
	}
	da, errA := decimal.NewFromString(strings.TrimSpace(a))
	db, errB := decimal.NewFromString(strings.TrimSpace(b))
	switch {
	case errA == nil && errB == nil:
		return da.Cmp(db)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// plainDecimal is a decimal text cut into its parts: the integer digits without leading zeros, the fraction
// digits without trailing zeros; zero is never negative.
type plainDecimal struct {
	negative        bool
	whole, fraction string
}

// parsePlain cuts s, [+-]digits[.digits] or [+-].digits, into a plainDecimal; ok is false for other text.
func parsePlain(s string) (d plainDecimal, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		d.negative = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	d.whole = s[start:i]
	if i < len(s) && s[i] == '.' {
		i++
		fractionStart := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		d.fraction = s[fractionStart:i]
	}
	if i != len(s) || d.whole == "" && d.fraction == "" {
		return d, false
	}
	d.whole = strings.TrimLeft(d.whole, "0")
	d.fraction = strings.TrimRight(d.fraction, "0")
	if d.whole == "" && d.fraction == "" {
		d.negative = false
	}
	return d, true
}

// comparePlain compares two plainDecimals: by sign, then by the magnitude, negated for negative numbers.
func comparePlain(x, y plainDecimal) int {
	if x.negative != y.negative {
		if x.negative {
			return -1
		}
		return 1
	}
	c := len(x.whole) - len(y.whole)
	if c == 0 {
		c = strings.Compare(x.whole, y.whole)
	}
	if c == 0 {
		// Without trailing zeros, fractions compare as text: "45" < "5", "5" < "51".
		c = strings.Compare(x.fraction, y.fraction)
	}
	switch {
	case c < 0:
		c = -1
	case c > 0:
		c = 1
	}
	if x.negative {
		return -c
	}
	return c
}

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

// decimalDivisionScale is the least number of fraction digits of a quotient computed by odata_decimal_div:
// more than the largest Scale of a Decimal the engine serves (18), as PostgreSQL's NUMERIC division keeps at
// least 16 significant digits and 20 fraction digits for small operands.
const decimalDivisionScale = 20

// decimalFunctions are the SQL functions over exact decimals that Open registers, each deterministic. Their
// operands are decimal text, integers or REAL numbers; NULL gives NULL, and so does division by zero; they
// return the decimal text of the exact result (no trailing fraction zeros), which DecimalCollation compares.
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
	return d.Shift(int32(-scale)).String(), nil
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
		return r.String(), nil
	}
}

// decimalFunc makes a one-operand decimal function of f.
func decimalFunc(f func(decimal.Decimal) decimal.Decimal) func(a any) (any, error) {
	return func(a any) (any, error) {
		x, ok, err := decimalOf(a)
		if !ok {
			return nil, err
		}
		return f(x).String(), nil
	}
}

// divide is a / b rounded half away from zero to decimalDivisionScale fraction digits (more when an operand
// has more, and at least 16 significant digits), NULL when b is zero.
func divide(a, b decimal.Decimal) (decimal.Decimal, bool) {
	if b.IsZero() {
		return decimal.Decimal{}, false
	}
	// The quotient is about 10^magnitude; keep at least 16 significant digits of it.
	magnitude := (int32(a.NumDigits()) + a.Exponent()) - (int32(b.NumDigits()) + b.Exponent())
	scale := max(int32(decimalDivisionScale), -a.Exponent(), -b.Exponent(), 16-magnitude)
	return a.DivRound(b, scale), true
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

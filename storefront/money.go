package storefront

import (
	"fmt"
	"math"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata"
)

// The store's currency is USD, written the en-US way: "$1,234.50", "-$1.00".

// moneyScale is the scale of money columns (NUMERIC(19,4); SQLite stores value x 10^4).
const moneyScale = 4

// The money range both databases hold: NUMERIC(19,4) on PostgreSQL holds more, but SQLite keeps value x 10^4 in
// 64 bits, so -922337203685477.5808 to 922337203685477.5807 is the store's range.
var (
	minMoney = decimal.New(math.MinInt64, -moneyScale)
	maxMoney = decimal.New(math.MaxInt64, -moneyScale)
)

// inMoneyRange reports whether the store can hold m as an amount.
func inMoneyRange(m decimal.Decimal) bool {
	return m.GreaterThanOrEqual(minMoney) && m.LessThanOrEqual(maxMoney)
}

// errAmountTooLarge is the 400 LimitExceeded of an amount (what: "cart total", ...) past the money range, on
// target.
func errAmountTooLarge(what, target string) *odata.Error {
	return &odata.Error{Code: odata.CodeLimitExceeded, Target: target,
		Message: fmt.Sprintf("The %s would be more than the largest amount the store holds, %s.", what, maxMoney)}
}

// formatMoney writes m as the storefront shows money: a dollar sign, thousands separators, two decimal places
// (rounded half away from zero; the exact value travels beside it as a number).
func formatMoney(m decimal.Decimal) string {
	s := m.StringFixed(2)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	b.Grow(len(s) + len(s)/3 + 2)
	if neg && s != "0.00" {
		b.WriteByte('-')
	}
	b.WriteByte('$')
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	b.WriteByte('.')
	b.WriteString(frac)
	return b.String()
}

// number is a decimal written as a JSON number with its exact digits (19.99, not "19.99" and never through a
// float).
type number decimal.Decimal

// MarshalJSON writes the decimal's digits as a JSON number.
func (n number) MarshalJSON() ([]byte, error) {
	return []byte(decimal.Decimal(n).String()), nil
}

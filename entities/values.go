package entities

import (
	"fmt"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/sqlgen"
)

// sqliteTimeLayout is how SQLite stores Edm.DateTimeOffset: UTC with always six fraction digits, so that text
// order is time order.
const sqliteTimeLayout = "2006-01-02T15:04:05.000000Z"

// moneyScale is the scale of Edm.Decimal money columns; SQLite stores value x 10^moneyScale as an integer.
const moneyScale = 4

// maxScaledMoney is the largest scaled value of a NUMERIC(19,4) column (15 integer digits, 4 fraction digits).
var maxScaledMoney = decimal.New(1, 19).Sub(decimal.New(1, 0))

func isSQLite(d sqlgen.Dialect) bool { return d.Name() == "sqlite" }

// timeValue returns t as the dialect stores a DateTimeOffset column.
func timeValue(d sqlgen.Dialect, t time.Time) any {
	t = t.UTC()
	if isSQLite(d) {
		return t.Format(sqliteTimeLayout)
	}
	return t
}

// parseTime reads a DateTimeOffset column value as the driver returns it (text on SQLite, time.Time on
// PostgreSQL).
func parseTime(v any) (time.Time, error) {
	switch v := v.(type) {
	case time.Time:
		return v.UTC(), nil
	case string:
		return time.Parse(time.RFC3339Nano, v)
	case []byte:
		return time.Parse(time.RFC3339Nano, string(v))
	}
	return time.Time{}, fmt.Errorf("entities: unexpected time value %T", v)
}

// moneyValue returns m as the dialect stores an Edm.Decimal(19,4) column: the exact scaled integer on SQLite, the
// decimal text on PostgreSQL. Digits beyond the scale are an error, never rounded away silently.
func moneyValue(d sqlgen.Dialect, m decimal.Decimal) (any, error) {
	scaled := m.Shift(moneyScale)
	if !scaled.IsInteger() {
		return nil, fmt.Errorf("entities: %s has more than %d decimal places", m, moneyScale)
	}
	if scaled.Abs().Cmp(maxScaledMoney) > 0 {
		return nil, fmt.Errorf("entities: %s is out of the range of a money column", m)
	}
	if isSQLite(d) {
		// An int64 holds +/-922,337,203,685,477.5807: a little less than NUMERIC(19,4).
		if !scaled.BigInt().IsInt64() {
			return nil, fmt.Errorf("entities: %s is out of the range of a money column", m)
		}
		return scaled.IntPart(), nil
	}
	return m.StringFixed(moneyScale), nil
}

// statement is a fixed SQL statement with its text for both placeholder styles, prepared once.
type statement struct{ question, dollar string }

func newStatement(q string) statement {
	d, err := sq.Dollar.ReplacePlaceholders(q)
	if err != nil {
		panic(err)
	}
	return statement{question: q, dollar: d}
}

// For returns the statement's text for d.
func (s statement) For(d sqlgen.Dialect) string {
	if d.Placeholder() == sq.Question {
		return s.question
	}
	return s.dollar
}

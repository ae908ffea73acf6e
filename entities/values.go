package entities

import (
	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/sqlgen"
)

// moneyScale is the scale of Edm.Decimal money columns (NUMERIC(19,4); SQLite stores value x 10^4).
const moneyScale = 4

func isSQLite(d sqlgen.Dialect) bool { return d.Name() == "sqlite" }

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

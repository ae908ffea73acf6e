package sqldb

import (
	sq "github.com/Masterminds/squirrel"
)

// Statement is a fixed SQL statement written with ? placeholders, converted once to the $n form too, so code that
// runs the same hand-written statement on both databases does not rebuild it per call.
type Statement struct{ question, dollar string }

// NewStatement returns the Statement of q; it panics when q's placeholders cannot be converted (a programming
// error found at start-up, since statements are package-level values).
func NewStatement(q string) Statement {
	d, err := sq.Dollar.ReplacePlaceholders(q)
	if err != nil {
		panic(err)
	}
	return Statement{question: q, dollar: d}
}

// For returns the statement's text for d.
func (s Statement) For(d Dialect) string {
	if d.Placeholder() == sq.Question {
		return s.question
	}
	return s.dollar
}

// Builder returns a squirrel statement builder with the dialect's placeholder format.
func Builder(d Dialect) sq.StatementBuilderType {
	return sq.StatementBuilder.PlaceholderFormat(d.Placeholder())
}

package sqlgen

import (
	"errors"
	"strings"

	sq "github.com/Masterminds/squirrel"
)

// SQLite is the SQL text of SQLite. It does not classify driver errors; odata/sqlite.Dialect embeds it and adds
// that.
type SQLite struct{}

// Name returns "sqlite".
func (SQLite) Name() string { return "sqlite" }

// Placeholder returns the ? format.
func (SQLite) Placeholder() sq.PlaceholderFormat { return sq.Question }

// QuoteIdent quotes name with double quotes.
func (SQLite) QuoteIdent(name string) string { return quoteIdent(name) }

// ClassifyError returns ErrOther; the driver-aware adapter overrides it.
func (SQLite) ClassifyError(error) ErrorClass { return ErrOther }

// PostgreSQL is the SQL text of PostgreSQL (and of the databases that speak its dialect).
type PostgreSQL struct{}

// Name returns "postgres".
func (PostgreSQL) Name() string { return "postgres" }

// Placeholder returns the $n format.
func (PostgreSQL) Placeholder() sq.PlaceholderFormat { return sq.Dollar }

// QuoteIdent quotes name with double quotes.
func (PostgreSQL) QuoteIdent(name string) string { return quoteIdent(name) }

// ClassifyError reads the SQLSTATE of a driver error (pgx's *pgconn.PgError has SQLState()).
func (PostgreSQL) ClassifyError(err error) ErrorClass {
	var s interface{ SQLState() string }
	if !errors.As(err, &s) {
		return ErrOther
	}
	switch s.SQLState() {
	case "23505":
		return ErrUniqueViolation
	case "23503":
		return ErrForeignKeyViolation
	case "23514", "23502":
		return ErrCheckViolation
	case "40001", "40P01":
		return ErrRetry
	}
	return ErrOther
}

func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// Package sqlgen binds OData syntax trees against an edm model and translates them to SQL through squirrel.
// Everything that differs between databases lives behind Dialect.
package sqlgen

import (
	sq "github.com/Masterminds/squirrel"
)

// ErrorClass is the meaning of a driver error that callers act on.
type ErrorClass int

// Error classes.
const (
	// ErrOther is any error without a more specific class.
	ErrOther ErrorClass = iota
	// ErrUniqueViolation is a unique or primary key constraint failure (SQLite CONSTRAINT_UNIQUE/PRIMARYKEY,
	// PostgreSQL SQLSTATE 23505).
	ErrUniqueViolation
	// ErrForeignKeyViolation is a foreign key constraint failure (SQLite CONSTRAINT_FOREIGNKEY, SQLSTATE 23503).
	ErrForeignKeyViolation
	// ErrCheckViolation is a CHECK or NOT NULL constraint failure (SQLSTATE 23514, 23502).
	ErrCheckViolation
	// ErrRetry is a transient conflict the whole transaction may be retried after: SQLite BUSY/LOCKED,
	// PostgreSQL serialization failure (40001) or deadlock (40P01).
	ErrRetry
)

// Dialect holds every difference between the supported databases. The SQL text side is implemented in this
// package (SQLite and PostgreSQL); the driver-aware adapters odata/sqlite and odata/postgres add error
// classification, which needs the driver's error types.
type Dialect interface {
	// Name is "sqlite" or "postgres".
	Name() string
	// Placeholder is the bind parameter format (? or $n).
	Placeholder() sq.PlaceholderFormat
	// QuoteIdent quotes a model identifier (table or column name). Identifiers never come from a request.
	QuoteIdent(name string) string
	// ClassifyError tells what a driver error means.
	ClassifyError(err error) ErrorClass
}

// Builder returns a squirrel statement builder with the dialect's placeholder format.
func Builder(d Dialect) sq.StatementBuilderType {
	return sq.StatementBuilder.PlaceholderFormat(d.Placeholder())
}

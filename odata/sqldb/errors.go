package sqldb

import ()

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
	// ErrInvalidData is a value the database cannot compute with, which a request can cause through the values
	// of its query: a numeric overflow, a division by zero, an invalid regular expression, a string the type
	// cannot hold (PostgreSQL SQLSTATE class 22, "data exception"; SQLite's integer overflow, a string or blob
	// too big, an invalid pattern of REGEXP). It is the client's error (400), not the server's.
	ErrInvalidData
)

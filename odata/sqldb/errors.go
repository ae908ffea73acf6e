package sqldb

import (
	"errors"
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
	// ErrInvalidData is a value the database cannot compute with, which a request can cause through the values
	// of its query: a numeric overflow, a division by zero, an invalid regular expression, a string the type
	// cannot hold (PostgreSQL SQLSTATE class 22, "data exception"; SQLite's integer overflow, a string or blob
	// too big, an invalid pattern of REGEXP). It is the client's error (400), not the server's.
	ErrInvalidData
	// ErrUnavailable is a database that cannot be reached or whose connection broke: refused or failed
	// connections, a connection closed under the statement (EOF, a broken pipe, a reset; database/sql's
	// driver.ErrBadConn), a server shutting down or starting up (PostgreSQL SQLSTATE class 08 and 57P01
	// admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now), out of connections or memory (53000,
	// 53200, 53300); SQLite's CANTOPEN and IOERR. Trying again later may succeed.
	ErrUnavailable
	// ErrReadOnly is a database that refuses writes: a standby or a read-only session (SQLSTATE 25006
	// read_only_sql_transaction), a read-only file (SQLite READONLY).
	ErrReadOnly
	// ErrFull is a database out of disk space: PostgreSQL SQLSTATE 53100 disk_full, SQLite FULL ("database or
	// disk is full", also at its max_page_count).
	ErrFull
)

// Fault is a driver error of an infrastructure fault, not of the statement or of the request: a database that
// is busy, unavailable, read-only or full (Class is ErrRetry, ErrUnavailable, ErrReadOnly or ErrFull). The
// connections of odata/sqlite.Open and odata/postgres.Open (Instrument) and RunTx return such errors as a *Fault
// that wraps the driver's error, so that code without the Dialect can tell the fault: odata answers it 503
// Service Unavailable (507 Insufficient Storage for ErrFull) with Retry-After, never 500 (odata.AsError). RunTx
// still runs a transaction again after a busy one (its Dialect classifies the wrapped error).
type Fault struct {
	// Class is ErrRetry, ErrUnavailable, ErrReadOnly or ErrFull.
	Class ErrorClass
	// Err is the driver's error.
	Err error
}

// Error returns the driver's message.
func (f *Fault) Error() string { return f.Err.Error() }

// Unwrap returns the driver's error, so errors.Is(err, driver.ErrBadConn) and the Dialect's ClassifyError
// still see it.
func (f *Fault) Unwrap() error { return f.Err }

// FaultOf returns the class of the fault err is or wraps: the Class of a *Fault, ErrRetry for ErrBusy (a
// database still busy after RunTx's retries), and ErrOther for any other error.
func FaultOf(err error) ErrorClass {
	var f *Fault
	switch {
	case errors.As(err, &f):
		return f.Class
	case errors.Is(err, ErrBusy):
		return ErrRetry
	}
	return ErrOther
}

// markFault returns err as a *Fault when d classifies it as ErrRetry, ErrUnavailable, ErrReadOnly or ErrFull
// (and it is not one already), else err itself.
func markFault(d Dialect, err error) error {
	if err == nil || d == nil {
		return err
	}
	var f *Fault
	if errors.As(err, &f) {
		return err
	}
	switch class := d.ClassifyError(err); class {
	case ErrRetry, ErrUnavailable, ErrReadOnly, ErrFull:
		return &Fault{Class: class, Err: err}
	}
	return err
}

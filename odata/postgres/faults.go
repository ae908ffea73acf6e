package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/storekit/store/odata/sqldb"
)

// stateFault is the class of an infrastructure fault's SQLSTATE, sqldb.ErrOther for any other:
//   - ErrUnavailable: class 08 (connection exception), 57P01 admin_shutdown ("terminating connection due to
//     administrator command": a fast shutdown or restart, pg_terminate_backend), 57P02 crash_shutdown, 57P03
//     cannot_connect_now (starting up, shutting down, in recovery), 53000 insufficient_resources, 53200
//     out_of_memory, 53300 too_many_connections;
//   - ErrReadOnly: 25006 read_only_sql_transaction (a standby, default_transaction_read_only);
//   - ErrFull: 53100 disk_full.
func stateFault(state string) sqldb.ErrorClass {
	switch state {
	case "57P01", "57P02", "57P03", "53000", "53200", "53300":
		return sqldb.ErrUnavailable
	case "25006":
		return sqldb.ErrReadOnly
	case "53100":
		return sqldb.ErrFull
	}
	if strings.HasPrefix(state, "08") {
		return sqldb.ErrUnavailable
	}
	return sqldb.ErrOther
}

// connectionFault classifies an error without a SQLSTATE: sqldb.ErrUnavailable when the connection could not
// be made or broke (pgx's connect error, a network error such as a refused connection, a broken pipe or a
// reset, the end of the stream in the middle of a message, a connection pgx closed after such an error,
// database/sql's driver.ErrBadConn), and sqldb.ErrOther for anything else, the end of a request's context
// included (that is the request's time budget or its client gone, which the engine answers itself).
func connectionFault(err error) sqldb.ErrorClass {
	if err == nil || err == io.EOF || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return sqldb.ErrOther
	}
	var connect *pgconn.ConnectError
	var network net.Error
	switch {
	case errors.As(err, &connect), errors.As(err, &network),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, driver.ErrBadConn):
		return sqldb.ErrUnavailable
	}
	return sqldb.ErrOther
}

package postgres_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
)

// TestDialect_ClassifyFault checks the classes of the faults of the server and of the connection, without a
// server.
func TestDialect_ClassifyFault(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, c := range []struct {
		err  error
		want sqldb.ErrorClass
	}{
		{sqlState("57P01"), sqldb.ErrUnavailable}, // terminating connection due to administrator command
		{sqlState("57P02"), sqldb.ErrUnavailable},
		{sqlState("57P03"), sqldb.ErrUnavailable}, // the database system is starting up
		{sqlState("08006"), sqldb.ErrUnavailable},
		{sqlState("53300"), sqldb.ErrUnavailable},
		{sqlState("25006"), sqldb.ErrReadOnly},
		{sqlState("53100"), sqldb.ErrFull},
		{sqlState("57014"), sqldb.ErrOther}, // query_canceled: the request's budget, not the server
		{refused, sqldb.ErrUnavailable},
		{fmt.Errorf("write: %w", &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}), sqldb.ErrUnavailable},
		{fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), sqldb.ErrUnavailable},
		{fmt.Errorf("failed to receive message: %w", io.EOF), sqldb.ErrUnavailable},
		{driver.ErrBadConn, sqldb.ErrUnavailable},
		{io.EOF, sqldb.ErrOther}, // the end of rows
		{context.Canceled, sqldb.ErrOther},
		{fmt.Errorf("timeout: %w", context.DeadlineExceeded), sqldb.ErrOther},
		{errors.New("plain"), sqldb.ErrOther},
	} {
		if got := (postgres.Dialect{}).ClassifyError(c.err); got != c.want {
			t.Errorf("ClassifyError(%q) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestOpen_Unreachable checks that a server that refuses connections is a *sqldb.Fault ErrUnavailable.
func TestOpen_Unreachable(t *testing.T) {
	_, err := postgres.Open("postgres://postgres@127.0.0.1:1/nothing?sslmode=disable&connect_timeout=2", postgres.Pool{})
	if got := sqldb.FaultOf(err); got != sqldb.ErrUnavailable {
		t.Errorf("Open(port 1) = %v, FaultOf = %v, want ErrUnavailable", err, got)
	}
}

// TestTerminatedConnection kills the session of a pooled connection with pg_terminate_backend, as a restart of
// the server or an operator does, and checks that a broken connection never serves again: a transaction whose
// BEGIN or whose statement meets it runs on a fresh connection, and writes exactly once.
func TestTerminatedConnection(t *testing.T) {
	test := dbtest.Postgres(t)
	skipThroughPooler(t, test.URL, "pg_terminate_backend ends a server session the pooler shares among clients")
	ctx := context.Background()
	db, err := postgres.Open(test.URL, postgres.Pool{MaxOpen: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	killer, err := postgres.Open(test.URL, postgres.Pool{MaxOpen: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close()
	if _, err := db.Exec(`CREATE TABLE attempt (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	pid := func() int {
		t.Helper()
		var p int
		if err := db.QueryRow(`SELECT pg_backend_pid()`).Scan(&p); err != nil {
			t.Fatalf("pg_backend_pid: %v", err)
		}
		return p
	}
	// terminate ends the session of the backend p and waits until it is gone.
	terminate := func(p int) {
		t.Helper()
		if _, err := killer.Exec(`SELECT pg_terminate_backend($1)`, p); err != nil {
			t.Fatalf("pg_terminate_backend: %v", err)
		}
		for {
			var alive bool
			if err := killer.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1)`, p).Scan(&alive); err != nil {
				t.Fatal(err)
			}
			if !alive {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	t.Run("BeforeBegin", func(t *testing.T) {
		old := pid()
		terminate(old)
		attempts := 0
		err := sqldb.RunTx(ctx, db, func(tx *sqldb.Tx) error {
			attempts++
			_, err := tx.Exec(`INSERT INTO attempt VALUES (1)`)
			return err
		})
		if err != nil || attempts != 1 {
			t.Fatalf("RunTx after the session was terminated = %v after %d attempts, want nil after 1", err, attempts)
		}
		if now := pid(); now == old {
			t.Errorf("the pool still serves the terminated backend %d", old)
		}
	})

	t.Run("InsideTransaction", func(t *testing.T) {
		attempts := 0
		var first error
		err := sqldb.RunTx(ctx, db, func(tx *sqldb.Tx) error {
			attempts++
			if _, err := tx.Exec(`INSERT INTO attempt VALUES (2)`); err != nil {
				return err
			}
			if attempts == 1 {
				var p int
				if err := tx.QueryRow(`SELECT pg_backend_pid()`).Scan(&p); err != nil {
					return err
				}
				terminate(p)
				_, first = tx.Exec(`INSERT INTO attempt VALUES (2)`)
				return first
			}
			return nil
		})
		if err != nil || attempts != 2 {
			t.Fatalf("RunTx whose session was terminated inside = %v after %d attempts, want nil after 2", err, attempts)
		}
		if got := (postgres.Dialect{}).ClassifyError(first); got != sqldb.ErrUnavailable {
			t.Errorf("the statement on the terminated session failed with %v, class %v, want ErrUnavailable", first, got)
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM attempt WHERE n = 2`).Scan(&n); err != nil || n != 1 {
			t.Errorf("rows of the retried transaction = %d (%v), want 1: the broken attempt wrote nothing", n, err)
		}
	})

	t.Run("Statement", func(t *testing.T) {
		old := pid()
		terminate(old)
		// A statement outside a transaction may meet the broken session (unless database/sql checked it before):
		// then it fails as a fault, and the pool drops the connection.
		var one int
		if err := db.QueryRow(`SELECT 1`).Scan(&one); err != nil && sqldb.FaultOf(err) != sqldb.ErrUnavailable {
			t.Errorf("SELECT on a terminated session = %v, FaultOf %v, want nil or ErrUnavailable", err, sqldb.FaultOf(err))
		}
		if now := pid(); now == old {
			t.Errorf("the pool still serves the terminated backend %d", old)
		}
	})
}

// TestReadOnly checks that a write to a database that refuses writes (here a session with
// default_transaction_read_only, as on a standby) is a *sqldb.Fault of class ErrReadOnly.
func TestReadOnly(t *testing.T) {
	test := dbtest.Postgres(t)
	skipThroughPooler(t, test.URL, "a default for the session's transactions, set by SET LOCAL in each one, comes too late for it")
	if _, err := test.Exec(`CREATE TABLE attempt (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(test.URL+"&default_transaction_read_only=on", postgres.Pool{MaxOpen: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = sqldb.RunTx(context.Background(), db, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(`INSERT INTO attempt VALUES (1)`)
		return err
	})
	if got := sqldb.FaultOf(err); got != sqldb.ErrReadOnly {
		t.Errorf("INSERT in a read-only session = %v, FaultOf %v, want ErrReadOnly", err, got)
	}
}

// skipThroughPooler skips a test of sessions when url goes through a transaction-mode pooler (postgres.PoolerParam),
// where a client has no session of its own: why says what the test would meet there.
func skipThroughPooler(t *testing.T, url, why string) {
	t.Helper()
	if strings.Contains(url, postgres.PoolerParam+"=") {
		t.Skipf("through a transaction-mode pooler: %s", why)
	}
}

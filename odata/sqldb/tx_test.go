package sqldb_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
)

// errConflict stands for a driver error the dialect classifies as ErrRetry; errBroken for one of a connection
// that broke (ErrUnavailable), errFull for a full disk (ErrFull).
var (
	errConflict = errors.New("conflict")
	errBroken   = errors.New("terminating connection due to administrator command")
	errFull     = errors.New("database or disk is full")
)

// conflictDialect classifies errConflict as ErrRetry, so that tests can make a transaction ask for a retry.
type conflictDialect struct{ sqldb.Dialect }

func (d conflictDialect) ClassifyError(err error) sqldb.ErrorClass {
	switch {
	case errors.Is(err, errConflict):
		return sqldb.ErrRetry
	case errors.Is(err, errBroken):
		return sqldb.ErrUnavailable
	case errors.Is(err, errFull):
		return sqldb.ErrFull
	}
	return d.Dialect.ClassifyError(err)
}

// conflicting returns db with its dialect wrapped in conflictDialect.
func conflicting(db *sqldb.DB) *sqldb.DB { return sqldb.NewDB(db.DB, conflictDialect{db.Dialect()}) }

func TestRunTx(t *testing.T) {
	errOther := errors.New("other")
	for _, tc := range []struct {
		name string
		// fails returns the error of the n-th attempt (1-based).
		fails        func(n int) error
		wantAttempts int
		wantRows     int // rows committed: each attempt inserts one before it fails or succeeds
		wantErr      error
		wantBusy     bool
		wantFault    sqldb.ErrorClass // sqldb.FaultOf of the error
	}{
		{"OK", func(int) error { return nil }, 1, 1, nil, false, sqldb.ErrOther},
		{"ErrOther", func(int) error { return errOther }, 1, 0, errOther, false, sqldb.ErrOther},
		{"RetryThenOK", func(n int) error {
			if n < 3 {
				return errConflict
			}
			return nil
		}, 3, 1, nil, false, sqldb.ErrOther},
		{"RetryMarkedThenOK", func(n int) error {
			if n < 2 {
				return sqldb.Retry(errOther)
			}
			return nil
		}, 2, 1, nil, false, sqldb.ErrOther},
		{"Busy", func(int) error { return errConflict }, 5, 0, errConflict, true, sqldb.ErrRetry},
		// A broken connection before the commit wrote nothing: one more attempt, at once.
		{"BrokenThenOK", func(n int) error {
			if n < 2 {
				return errBroken
			}
			return nil
		}, 2, 1, nil, false, sqldb.ErrOther},
		{"BrokenTwice", func(int) error { return errBroken }, 2, 0, errBroken, false, sqldb.ErrUnavailable},
		{"BrokenThenBusy", func(n int) error {
			if n < 2 {
				return errBroken
			}
			return errConflict
		}, 6, 0, errConflict, true, sqldb.ErrRetry},
		{"Full", func(int) error { return errFull }, 1, 0, errFull, false, sqldb.ErrFull},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := dbtest.SQLite(t)
			if _, err := db.Exec(`CREATE TABLE attempt (n INTEGER)`); err != nil {
				t.Fatal(err)
			}
			attempts := 0
			var afterCommit []int // the attempts whose AfterCommit function ran
			err := sqldb.RunTx(context.Background(), conflicting(db.DB), func(tx *sqldb.Tx) error {
				attempts++
				n := attempts
				tx.AfterCommit(func() { afterCommit = append(afterCommit, n) })
				if _, err := tx.Exec(`INSERT INTO attempt (n) VALUES (?)`, attempts); err != nil {
					return err
				}
				return tc.fails(attempts)
			})
			if attempts != tc.wantAttempts {
				t.Errorf("RunTx ran fn %d times, want %d", attempts, tc.wantAttempts)
			}
			if (tc.wantErr == nil) != (err == nil) || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("RunTx = %v, want %v", err, tc.wantErr)
			}
			if got := errors.Is(err, sqldb.ErrBusy); got != tc.wantBusy {
				t.Errorf("errors.Is(RunTx(), ErrBusy) = %v, want %v", got, tc.wantBusy)
			}
			if got := sqldb.FaultOf(err); got != tc.wantFault {
				t.Errorf("FaultOf(RunTx()) = %v, want %v", got, tc.wantFault)
			}
			var rows int
			if err := db.QueryRow(`SELECT COUNT(*) FROM attempt`).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			if rows != tc.wantRows {
				t.Errorf("RunTx committed %d rows, want %d", rows, tc.wantRows)
			}
			var wantAfterCommit []int
			if tc.wantRows > 0 {
				wantAfterCommit = []int{tc.wantAttempts} // only the attempt that committed
			}
			if !slices.Equal(afterCommit, wantAfterCommit) {
				t.Errorf("AfterCommit ran for attempts %v, want %v", afterCommit, wantAfterCommit)
			}
		})
	}
}

// TestRunTx_ContextDone checks that RunTx stops retrying once its context is done.
func TestRunTx_ContextDone(t *testing.T) {
	db := dbtest.SQLite(t)
	ctx, cancel := context.WithCancel(context.Background())
	attempts := 0
	err := sqldb.RunTx(ctx, conflicting(db.DB), func(*sqldb.Tx) error {
		attempts++
		cancel()
		return errConflict
	})
	if attempts != 1 || !errors.Is(err, sqldb.ErrBusy) || !errors.Is(err, errConflict) {
		t.Errorf("RunTx with a context done = %v after %d attempts, want ErrBusy wrapping the conflict after 1", err, attempts)
	}
}

// TestRunTx_Panic checks that a panic of fn rolls the transaction back and goes on.
func TestRunTx_Panic(t *testing.T) {
	db := dbtest.SQLite(t)
	if _, err := db.Exec(`CREATE TABLE attempt (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("RunTx swallowed the panic of fn")
			}
		}()
		_ = sqldb.RunTx(context.Background(), db.DB, func(tx *sqldb.Tx) error {
			if _, err := tx.Exec(`INSERT INTO attempt (n) VALUES (1)`); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	var rows int
	if err := db.QueryRow(`SELECT COUNT(*) FROM attempt`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Errorf("after a panic of fn the table has %d rows, want 0", rows)
	}
}

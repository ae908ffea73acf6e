package sqldb_test

import (
	"context"
	"path"
	"testing"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
)

// TestDB_CarriesDialect checks that the database value, and the transactions and connections it hands out, tell
// the dialect of the database the adapter's Open paired with the pool.
func TestDB_CarriesDialect(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := context.Background()
		// dbtest.Each names its subtests by the database: the adapter's Open paired the pool with its dialect.
		if got, want := db.Dialect().Name(), path.Base(t.Name()); got != want {
			t.Fatalf("DB.Dialect().Name() = %q, want %q", got, want)
		}
		// One transaction at a time: SQLite's write transactions take the database's write lock at BEGIN.
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		txDialect := tx.Dialect()
		tx.Rollback()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		connTx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var one int
		if err := connTx.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Errorf("SELECT 1 on the connection's transaction = %d, %v, want 1", one, err)
		}
		connTxDialect := connTx.Dialect()
		connTx.Rollback()
		for _, tc := range []struct {
			name string
			got  sqldb.Dialect
		}{
			{"DB.BeginTx", txDialect},
			{"DB.Conn", conn.Dialect()},
			{"Conn.BeginTx", connTxDialect},
		} {
			if tc.got != db.Dialect() {
				t.Errorf("%s: Dialect() = %T, want the DB's %T", tc.name, tc.got, db.Dialect())
			}
		}
		err = sqldb.RunTx(ctx, db.DB, func(tx *sqldb.Tx) error {
			if tx.Dialect() != db.Dialect() {
				t.Errorf("RunTx: Dialect() = %T, want the DB's %T", tx.Dialect(), db.Dialect())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestNewDB checks that NewDB pairs the pool it is given with the dialect it is given.
func TestNewDB(t *testing.T) {
	db := dbtest.SQLite(t)
	wrapped := sqldb.NewDB(db.DB.DB, conflictDialect{db.Dialect()})
	if wrapped.DB != db.DB.DB {
		t.Errorf("NewDB(pool, d).DB is another pool")
	}
	if _, ok := wrapped.Dialect().(conflictDialect); !ok {
		t.Errorf("NewDB(pool, d).Dialect() = %T, want conflictDialect", wrapped.Dialect())
	}
}

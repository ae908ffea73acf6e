package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

// TestWriteGate_ConcurrentWriters runs transactions from many goroutines through two pools on one file (a
// program may open it twice): every increment lands, and none fails busy.
func TestWriteGate_ConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	var dbs []*sqldb.DB
	for range 2 {
		db, err := sqlite.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	if _, err := dbs[0].Exec(`CREATE TABLE counter (n INTEGER NOT NULL); INSERT INTO counter VALUES (0)`); err != nil {
		t.Fatal(err)
	}
	const goroutines, each = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for g := range goroutines {
		wg.Go(func() {
			db := dbs[g%len(dbs)]
			for range each {
				errs <- sqldb.RunTx(context.Background(), db, func(tx *sqldb.Tx) error {
					var n int
					if err := tx.QueryRow(`SELECT n FROM counter`).Scan(&n); err != nil {
						return err
					}
					_, err := tx.Exec(`UPDATE counter SET n = ?`, n+1)
					return err
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("RunTx = %v", err)
		}
	}
	var n int
	if err := dbs[1].QueryRow(`SELECT n FROM counter`).Scan(&n); err != nil || n != goroutines*each {
		t.Errorf("counter = %d, %v; want %d", n, err, goroutines*each)
	}
}

// TestWriteGate_Released checks that a transaction that ends in any way lets the next one begin at once, and
// that a transaction waiting at the gate gives up when its context ends.
func TestWriteGate_Released(t *testing.T) {
	db := open(t)
	if _, err := db.Exec(`CREATE TABLE t (v INTEGER UNIQUE)`); err != nil {
		t.Fatal(err)
	}
	begin := func(t *testing.T, ctx context.Context) *sql.Tx {
		t.Helper()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatalf("BeginTx = %v", err)
		}
		return tx.Tx
	}
	// within is a context that ends long before SQLite's busy timeout (10 s): a gate left held fails the test.
	within := func(t *testing.T) context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		t.Cleanup(cancel)
		return ctx
	}
	for _, end := range []struct {
		name string
		end  func(tx *sql.Tx) error
	}{
		{"Commit", func(tx *sql.Tx) error { return tx.Commit() }},
		{"Rollback", func(tx *sql.Tx) error { return tx.Rollback() }},
		{"FailedStatementThenRollback", func(tx *sql.Tx) error {
			if _, err := tx.Exec(`INSERT INTO nosuchtable VALUES (1)`); err == nil {
				return errors.New("insert into a missing table succeeded")
			}
			return tx.Rollback()
		}},
	} {
		t.Run(end.name, func(t *testing.T) {
			if err := end.end(begin(t, within(t))); err != nil {
				t.Fatal(err)
			}
			if err := begin(t, within(t)).Rollback(); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("WaiterGivesUp", func(t *testing.T) {
		holder := begin(t, context.Background())
		defer holder.Rollback()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if tx, err := db.BeginTx(ctx, nil); err == nil {
			tx.Rollback()
			t.Fatalf("BeginTx while another transaction holds the write lock = nil error, want the context's end")
		}
	})
}

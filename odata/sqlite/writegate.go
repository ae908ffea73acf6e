package sqlite

import (
	"context"
	"database/sql/driver"
	"path/filepath"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3"
)

// busyTimeout is how long SQLite waits for another connection's write lock (the _busy_timeout of Open), and
// how long a transaction waits at the write gate before it leaves the waiting to SQLite.
const busyTimeout = 10 * time.Second

// writeGate queues the transactions of this process on one database file before they take SQLite's write lock
// (every transaction Open's connections begin is BEGIN IMMEDIATE). SQLite admits one writer at a time, and a
// connection that finds the lock taken sleeps in its busy handler for 1, 2, 5, 10 ms and more before it tries
// again, so under concurrent writes the lock stood idle while the waiters slept: four clients posting products
// got about as far as one. At the gate the next transaction begins the moment the previous one ends. Other
// processes on the same file still meet SQLite's own lock and busy timeout.
type writeGate struct{ slot chan struct{} }

// gates holds the gate of each database file opened by this process, by absolute path, so that every pool on
// one file (a program may open it twice) queues at the same gate.
var gates sync.Map // string -> *writeGate

func gateOf(path string) *writeGate {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	g, _ := gates.LoadOrStore(path, &writeGate{slot: make(chan struct{}, 1)})
	return g.(*writeGate)
}

// enter waits for the gate and reports whether it holds it. When ctx ends first it returns ctx's error (the
// transaction must not begin). After busyTimeout (a transaction waiting for another one of its own goroutine,
// say) it gives up without the gate: the BEGIN that follows then waits for SQLite's lock as it would without
// a gate.
func (g *writeGate) enter(ctx context.Context) (bool, error) {
	select {
	case g.slot <- struct{}{}:
		return true, nil
	default:
	}
	timer := time.NewTimer(busyTimeout)
	defer timer.Stop()
	select {
	case g.slot <- struct{}{}:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	case <-timer.C:
		return false, nil
	}
}

func (g *writeGate) leave() { <-g.slot }

// gatedConn is a connection of the driver whose transactions pass the gate of its file. Every other method is
// the driver's own.
type gatedConn struct {
	*sqlite3.SQLiteConn
	gate *writeGate
}

// Unwrap returns the driver's connection (for sqldb.DriverConn).
func (c *gatedConn) Unwrap() driver.Conn { return c.SQLiteConn }

func (c *gatedConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *gatedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	held, err := c.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := c.SQLiteConn.BeginTx(ctx, opts)
	switch {
	case err != nil:
		if held {
			c.gate.leave()
		}
		return nil, err
	case !held:
		return tx, nil
	}
	return &gatedTx{Tx: tx, gate: c.gate}, nil
}

// gatedTx leaves the gate when the transaction ends.
type gatedTx struct {
	driver.Tx
	gate *writeGate
	done bool
}

func (t *gatedTx) Commit() error {
	defer t.leave()
	return t.Tx.Commit()
}

func (t *gatedTx) Rollback() error {
	defer t.leave()
	return t.Tx.Rollback()
}

func (t *gatedTx) leave() {
	if !t.done {
		t.done = true
		t.gate.leave()
	}
}

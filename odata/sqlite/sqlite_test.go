// The tests of the SQLite adapter: SQLite only by nature (its driver, its REGEXP function, its DSN checks).

package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattn/go-sqlite3"

	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

func open(t *testing.T) *sqldb.DB {
	t.Helper()
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestRegexp(t *testing.T) {
	db := open(t)
	for _, c := range []struct {
		query string
		want  any
	}{
		{"SELECT 'LP-100' REGEXP '^[A-Z]{2}-[0-9]+$'", int64(1)},
		{"SELECT 'lp-100' REGEXP '^[A-Z]{2}-[0-9]+$'", int64(0)},
		{"SELECT 'Phone' REGEXP 'one'", int64(1)},
		{"SELECT NULL REGEXP 'one'", nil},
		{"SELECT 'x' REGEXP NULL", nil},
	} {
		var got any
		if err := db.QueryRow(c.query).Scan(&got); err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s = %v, want %v", c.query, got, c.want)
		}
	}
	var got any
	if err := db.QueryRow("SELECT 'x' REGEXP '('").Scan(&got); err == nil {
		t.Errorf("an invalid pattern gave %v, want an error", got)
	}
}

func TestCaseSensitiveLike(t *testing.T) {
	db := open(t)
	var n int64
	if err := db.QueryRow("SELECT 'Phone' LIKE 'phone'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("'Phone' LIKE 'phone' = %d, want 0 (case-sensitive)", n)
	}
}

func TestOpenRefusesMemory(t *testing.T) {
	if _, err := sqlite.Open(":memory:"); err == nil {
		t.Errorf("Open(:memory:) succeeded, want an error")
	}
}

func TestClassifyError(t *testing.T) {
	db := open(t)
	if _, err := db.Exec("CREATE TABLE t (id TEXT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO t VALUES ('a')"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query string
		want  sqldb.ErrorClass
	}{
		{"INSERT INTO t VALUES ('a')", sqldb.ErrUniqueViolation},
		{"SELECT 'x' REGEXP '('", sqldb.ErrInvalidData},
		{"SELECT abs(-9223372036854775808)", sqldb.ErrInvalidData},
		{"SELECT " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000), sqldb.ErrInvalidData}, // Recursion limit
		{"SELECT nope FROM t", sqldb.ErrOther},
	} {
		_, err := db.Exec(c.query)
		if err == nil {
			t.Errorf("%s: no error", c.query)
			continue
		}
		if got := (sqlite.Dialect{}).ClassifyError(err); got != c.want {
			t.Errorf("ClassifyError(%q) = %v, want %v", err, got, c.want)
		}
	}
}

// TestFull checks that a database out of space (here at its max_page_count, as a full disk does) fails a write
// with a *sqldb.Fault of class ErrFull, and that the same write succeeds once there is room again.
func TestFull(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	conn, err := db.Conn(ctx) // max_page_count is a setting of the connection
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "CREATE TABLE t (b BLOB)"); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := conn.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count=%d", pages)); err != nil {
		t.Fatal(err)
	}
	insert := "INSERT INTO t VALUES (zeroblob(100000))"
	_, err = conn.ExecContext(ctx, insert)
	if got := sqldb.FaultOf(err); got != sqldb.ErrFull {
		t.Fatalf("%s past max_page_count = %v, FaultOf %v, want ErrFull", insert, err, got)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count=%d", pages+100)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, insert); err != nil {
		t.Errorf("%s with room again = %v", insert, err)
	}
}

// TestOpen_PoolKeepsIdleConnections: the pool keeps as many idle connections as it opens, so concurrent requests
// do not close and reopen connections (each with its settings and statement cache) between them.
func TestOpen_PoolKeepsIdleConnections(t *testing.T) {
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "pool.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.Stats().MaxOpenConnections; got != sqlite.DefaultPoolSize {
		t.Errorf("MaxOpenConnections = %d, want %d", got, sqlite.DefaultPoolSize)
	}
	conns := make([]*sqldb.Conn, 8)
	for i := range conns {
		if conns[i], err = db.Conn(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range conns {
		c.Close()
	}
	if s := db.Stats(); s.Idle != len(conns) || s.MaxIdleClosed != 0 {
		t.Errorf("after 8 connections were returned: %d idle, %d closed as surplus; want 8 and 0", s.Idle, s.MaxIdleClosed)
	}
}

// TestOpen_DriverConn: the connections Open makes are instrumented, and sqldb.DriverConn reaches the driver's
// own connection through sql.Conn.Raw.
func TestOpen_DriverConn(t *testing.T) {
	db := open(t)
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		if _, ok := dc.(*sqlite3.SQLiteConn); ok {
			t.Errorf("Raw = %T, want the instrumented connection", dc)
		}
		if _, ok := sqldb.DriverConn(dc).(*sqlite3.SQLiteConn); !ok {
			t.Errorf("DriverConn(Raw) = %T, want *sqlite3.SQLiteConn", sqldb.DriverConn(dc))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpen_PageCache: every connection of the pool has a page cache of DefaultCacheKiB.
func TestOpen_PageCache(t *testing.T) {
	db := open(t)
	conns := make([]*sqldb.Conn, 3)
	for i := range conns {
		c, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	for i, c := range conns {
		var size int64
		if err := c.QueryRowContext(context.Background(), "PRAGMA cache_size").Scan(&size); err != nil {
			t.Fatal(err)
		}
		if size != -sqlite.DefaultCacheKiB {
			t.Errorf("connection %d: cache_size = %d, want %d (KiB)", i, size, -sqlite.DefaultCacheKiB)
		}
	}
}

// The tests of the PostgreSQL adapter: PostgreSQL only by nature, skipped without STORE_TEST_POSTGRES.

package postgres_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
)

func TestOpen_Pool(t *testing.T) {
	db := dbtest.Postgres(t)
	for _, tc := range []struct {
		name    string
		pool    postgres.Pool
		maxOpen int
	}{
		{"Defaults", postgres.Pool{}, 20},
		{"Set", postgres.Pool{MaxOpen: 3, MaxIdle: 1, MaxLifetime: time.Minute}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := postgres.Open(db.URL, tc.pool)
			if err != nil {
				t.Fatalf("Open(%+v) = %v", tc.pool, err)
			}
			defer p.Close()
			if got := p.Stats().MaxOpenConnections; got != tc.maxOpen {
				t.Errorf("Open(%+v): MaxOpenConnections = %d, want %d", tc.pool, got, tc.maxOpen)
			}
			// Returned connections stay idle up to MaxIdle (by default MaxOpen): no session is closed and
			// reopened between requests.
			conns := make([]*sqldb.Conn, 3)
			for i := range conns {
				if conns[i], err = p.Conn(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range conns {
				c.Close()
			}
			wantIdle := 3
			if tc.pool.MaxIdle > 0 {
				wantIdle = tc.pool.MaxIdle
			}
			if got := p.Stats().Idle; got != wantIdle {
				t.Errorf("Open(%+v): %d idle connections after 3 returned, want %d", tc.pool, got, wantIdle)
			}
		})
	}
	if _, err := postgres.Open("postgres://127.0.0.1:1/nothing?sslmode=disable&connect_timeout=2", postgres.Pool{}); err == nil {
		t.Errorf("Open(unreachable server) = nil error, want the connection error")
	}
}

// TestDialect_ClassifyError checks the classes of the errors PostgreSQL itself returns, by SQLSTATE.
func TestDialect_ClassifyError(t *testing.T) {
	db := dbtest.Postgres(t)
	if _, err := db.Exec(`CREATE TABLE parent (id TEXT PRIMARY KEY);
CREATE TABLE child (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES parent (id), n INTEGER CHECK (n > 0),
	price NUMERIC(19,4), s TEXT);
INSERT INTO parent VALUES ('p');
INSERT INTO child VALUES ('c', 'p', 1, 0, '')`); err != nil {
		t.Fatal(err)
	}
	d := postgres.Dialect{}
	for _, tc := range []struct {
		query string
		args  []any
		want  sqldb.ErrorClass
	}{
		{`INSERT INTO child (id, parent_id) VALUES ('c', 'p')`, nil, sqldb.ErrUniqueViolation},
		{`INSERT INTO child (id, parent_id) VALUES ('d', 'nope')`, nil, sqldb.ErrForeignKeyViolation},
		{`INSERT INTO child (id, parent_id, n) VALUES ('d', 'p', 0)`, nil, sqldb.ErrCheckViolation},
		{`INSERT INTO child (id) VALUES ('d')`, nil, sqldb.ErrCheckViolation},
		{`UPDATE child SET price = 1000000000000000`, nil, sqldb.ErrInvalidData},
		{`SELECT 1 / 0`, nil, sqldb.ErrInvalidData},
		{`UPDATE child SET s = $1`, []any{"a\x00b"}, sqldb.ErrInvalidData},
		{`SELECT 'x' ~ '('`, nil, sqldb.ErrInvalidData},
		{`SELECT nosuchcolumn FROM child`, nil, sqldb.ErrOther},
	} {
		_, err := db.Exec(tc.query, tc.args...)
		if got := d.ClassifyError(err); got != tc.want {
			t.Errorf("ClassifyError(%s: %v) = %v, want %v", tc.query, err, got, tc.want)
		}
	}
}

// TestOpen_SessionSettings: sessions run with jit off and the pool's statement_timeout, and a URL's own value wins.
func TestOpen_SessionSettings(t *testing.T) {
	url := os.Getenv("STORE_TEST_POSTGRES")
	if url == "" {
		t.Skip("STORE_TEST_POSTGRES is not set")
	}
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	for _, tc := range []struct {
		name, url          string
		pool               postgres.Pool
		wantJIT, wantLimit string
	}{
		{"defaults", url, postgres.Pool{}, "off", "1min"},
		{"pool timeout", url, postgres.Pool{StatementTimeout: 1500 * time.Millisecond}, "off", "1500ms"},
		{"no timeout", url, postgres.Pool{StatementTimeout: -1}, "off", "0"},
		{"URL wins", url + sep + "statement_timeout=7000&jit=on", postgres.Pool{StatementTimeout: time.Second}, "on", "7s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := postgres.Open(tc.url, tc.pool)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var jit, limit string
			if err := db.QueryRow("SELECT current_setting('jit'), current_setting('statement_timeout')").Scan(&jit, &limit); err != nil {
				t.Fatal(err)
			}
			if jit != tc.wantJIT || limit != tc.wantLimit {
				t.Errorf("jit %q, statement_timeout %q; want %q, %q", jit, limit, tc.wantJIT, tc.wantLimit)
			}
		})
	}
}

// TestOpen_MigrationsWithoutStatementTimeout: a migration longer than the pool's statement_timeout runs to its
// end, and the connection has its timeout back afterwards.
func TestOpen_MigrationsWithoutStatementTimeout(t *testing.T) {
	fresh := dbtest.Postgres(t)
	db, err := postgres.Open(fresh.URL, postgres.Pool{MaxOpen: 1, StatementTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("SELECT pg_sleep(0.3)"); err == nil {
		t.Fatal("a statement past statement_timeout succeeded, want it cancelled")
	}
	slow := migrate.Source{Name: "slow", FS: fstest.MapFS{
		"postgres/0001_slow.sql": {Data: []byte("SELECT pg_sleep(0.3);\nCREATE TABLE t (id INTEGER);")},
	}}
	if _, err := migrate.Up(context.Background(), db, slow); err != nil {
		t.Fatalf("migrate.Up with a slow migration: %v", err)
	}
	var limit string
	if err := db.QueryRow("SELECT current_setting('statement_timeout')").Scan(&limit); err != nil || limit != "100ms" {
		t.Errorf("statement_timeout after the migrations = %q (%v), want 100ms", limit, err)
	}
}

// TestOpen_DriverConn: the connections Open makes are instrumented, and sqldb.DriverConn reaches pgx's own
// connection through sql.Conn.Raw.
func TestOpen_DriverConn(t *testing.T) {
	url := os.Getenv("STORE_TEST_POSTGRES")
	if url == "" {
		t.Skip("STORE_TEST_POSTGRES is not set")
	}
	db, err := postgres.Open(url, postgres.Pool{MaxOpen: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		if _, ok := dc.(*stdlib.Conn); ok {
			t.Errorf("Raw = %T, want the instrumented connection", dc)
		}
		if _, ok := sqldb.DriverConn(dc).(*stdlib.Conn); !ok {
			t.Errorf("DriverConn(Raw) = %T, want *stdlib.Conn", sqldb.DriverConn(dc))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

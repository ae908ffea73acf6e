// The tests of the PostgreSQL adapter: PostgreSQL only by nature, skipped without STORE_TEST_POSTGRES.

package postgres_test

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"sync"
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
	if _, err := db.Exec("SELECT pg_sleep($1)", 0.3); err == nil {
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

// TestOpen_Pooler: with pooler=transaction, the session keeps nothing between transactions (the settings hold
// in each transaction and in each query run outside one, the session's own are the server's defaults), no
// statement is prepared on the server under a name, also through sql.DB.Prepare, and VACUUM runs.
func TestOpen_Pooler(t *testing.T) {
	fresh := dbtest.Postgres(t)
	url := fresh.URL
	if !strings.Contains(url, postgres.PoolerParam+"=") {
		url = withParams(url, postgres.PoolerParam+"=transaction")
	} else {
		// Through the pooler, a URL without the parameter is refused, and the error says what to add.
		direct := strings.NewReplacer("&"+postgres.PoolerParam+"=transaction", "", postgres.PoolerParam+"=transaction&", "").Replace(url)
		if db, err := postgres.Open(direct, postgres.Pool{}); err == nil {
			db.Close()
			t.Logf("the pooler of %s took the startup parameters", direct)
		} else if !strings.Contains(err.Error(), postgres.PoolerParam+"=transaction") {
			t.Errorf("Open(%s) = %v, want the advice to add %s=transaction", direct, err, postgres.PoolerParam)
		}
	}
	db, err := postgres.Open(url, postgres.Pool{MaxOpen: 4, StatementTimeout: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	const settingsQuery = "SELECT current_setting('jit'), current_setting('statement_timeout'), (SELECT count(*) FROM pg_prepared_statements)"
	type settings struct {
		JIT, Timeout string
		Prepared     int
	}
	want := settings{"off", "1500ms", 0}
	read := func(q interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) settings {
		t.Helper()
		var s settings
		if err := q.QueryRowContext(ctx, settingsQuery).Scan(&s.JIT, &s.Timeout, &s.Prepared); err != nil {
			t.Fatal(err)
		}
		return s
	}

	stmt, err := db.PrepareContext(ctx, "SELECT $1::int + 1")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n int
			if err := stmt.QueryRowContext(ctx, i).Scan(&n); err != nil || n != i+1 {
				t.Errorf("prepared statement(%d) = %d, %v; want %d", i, n, err, i+1)
			}
		}()
	}
	wg.Wait()

	if got := read(db); got != want {
		t.Errorf("outside a transaction: %+v, want %+v", got, want)
	}
	err = sqldb.RunTx(ctx, db, func(tx *sqldb.Tx) error {
		if _, err := tx.ExecContext(ctx, "SELECT $1::text", "x"); err != nil {
			return err
		}
		if got := read(tx); got != want {
			t.Errorf("in a transaction: %+v, want %+v", got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "SELECT pg_sleep($1)", 2); err == nil {
		t.Errorf("a statement past the statement_timeout succeeded, want it cancelled")
	}

	// A statement without arguments outside a transaction runs as written: VACUUM cannot run in a transaction.
	for _, q := range []string{"CREATE TABLE vacuumed (id INTEGER)", "VACUUM ANALYZE vacuumed"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}

	// A setting the server refuses fails Open, as it does when connecting without a pooler.
	if bad, err := postgres.Open(withParams(url, "no_such_setting=1"), postgres.Pool{}); err == nil {
		bad.Close()
		t.Errorf("Open with an unknown setting = nil error, want the server's")
	}

	// The session itself, read past the adapter, has the server's defaults.
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		var timeout string
		if err := sqldb.DriverConn(dc).(*stdlib.Conn).Conn().QueryRow(ctx, "SHOW statement_timeout").Scan(&timeout); err != nil {
			return err
		}
		if timeout == "1500ms" {
			t.Errorf("the session's statement_timeout is %q, want the server's default", timeout)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkOpen_Pooler measures what pooler=transaction costs against the same server: "direct" sends the
// settings when connecting and prepares statements on the server (the default), "direct-describe" too but
// describes statements without naming them (cache_describe, the exec mode of pooler), "pooler" sets them in each
// transaction's BEGIN and describes statements without naming them; "exec" is pooler with pgx's exec mode;
// "defaults" is pooler with settings that are the server's defaults.
// Tx is a transaction of one query, Statement a query outside a transaction (its own transaction with pooler).
func BenchmarkOpen_Pooler(b *testing.B) {
	fresh := dbtest.Postgres(b)
	if _, err := fresh.Exec(`CREATE TABLE item (id BIGINT PRIMARY KEY, name TEXT NOT NULL, price NUMERIC(19,4));
INSERT INTO item SELECT i, 'item ' || i, i * 1.5 FROM generate_series(1, 1000) AS i`); err != nil {
		b.Fatal(err)
	}
	base := strings.ReplaceAll(strings.ReplaceAll(fresh.URL, "&"+postgres.PoolerParam+"=transaction", ""), postgres.PoolerParam+"=transaction&", "")
	const query = "SELECT id, name, price FROM item WHERE id = $1"
	ctx := context.Background()
	// The server's defaults, read on a session that asked for no settings when connecting.
	plain, err := postgres.Open(withParams(base, postgres.PoolerParam+"=transaction"), postgres.Pool{MaxOpen: 1})
	if err != nil {
		b.Fatal(err)
	}
	var jit, timeout string
	err = plain.QueryRow(`SELECT (SELECT reset_val FROM pg_settings WHERE name = 'jit'),
	(SELECT reset_val FROM pg_settings WHERE name = 'statement_timeout')`).Scan(&jit, &timeout)
	plain.Close()
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct{ name, params string }{
		{"direct", ""},
		{"direct-describe", "default_query_exec_mode=cache_describe"},
		{"pooler", postgres.PoolerParam + "=transaction"},
		{"exec", postgres.PoolerParam + "=transaction&default_query_exec_mode=exec"},
		// The settings are the server's defaults (as after ALTER ROLE ... SET): statements outside a transaction
		// need none of their own.
		{"defaults", postgres.PoolerParam + "=transaction&jit=" + jit + "&statement_timeout=" + timeout},
	} {
		if strings.HasPrefix(mode.name, "direct") && base != fresh.URL {
			continue // through a pooler, only pooler=transaction connects
		}
		db, err := postgres.Open(withParams(base, mode.params), postgres.Pool{MaxOpen: 1})
		if err != nil {
			b.Fatal(err)
		}
		scan := func(row *sql.Row) error {
			var id int64
			var name, price string
			return row.Scan(&id, &name, &price)
		}
		b.Run(mode.name+"/Tx", func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				err := sqldb.RunTx(ctx, db, func(tx *sqldb.Tx) error { return scan(tx.QueryRowContext(ctx, query, i%1000+1)) })
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(mode.name+"/Statement", func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				if err := scan(db.QueryRowContext(ctx, query, i%1000+1)); err != nil {
					b.Fatal(err)
				}
			}
		})
		db.Close()
	}
}

// withParams adds the URL parameters params ("a=1&b=2") to url; "" adds none.
func withParams(url, params string) string {
	switch {
	case params == "":
		return url
	case strings.Contains(url, "?"):
		return url + "&" + params
	}
	return url + "?" + params
}

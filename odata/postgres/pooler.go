package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// PoolerParam is the parameter of Open's URL that says the connections go through a connection pooler in
// transaction mode (PgBouncer's pool_mode=transaction, and the managed poolers that behave like it), as in
// "postgres://app@pgbouncer:6432/store?pooler=transaction". Such a pooler hands each transaction, and each
// statement run outside one, to whichever server connection is free, so a session carries nothing from one
// transaction to the next. With it, Open keeps no state in the session:
//
//   - run-time parameters (jit, statement_timeout, and any other the URL sets but those a pooler tracks itself:
//     application_name, client_encoding, DateStyle, TimeZone, standard_conforming_strings) are not sent when
//     connecting, which PgBouncer refuses ("unsupported startup parameter"): every transaction sets them with
//     SET LOCAL in the round trip of its BEGIN, and a query, or a statement with arguments, run outside a
//     transaction runs in one of its own that does the same (a BEGIN and a COMMIT more, two round trips),
//     unless the server's defaults for the session are these settings already (ALTER ROLE ... SET jit = off,
//     ...), which the first connection compares; a statement without arguments run outside a transaction
//     (VACUUM, DDL) runs as written, under the server's defaults;
//   - statements are not prepared on the server under names that another client's transaction could find or
//     collide with (SQLSTATE 42P05, 26000): pgx's default_query_exec_mode is cache_describe, which parses each
//     statement in the unnamed statement of its own round trip and caches only its parameter and result types
//     in the client, unless the URL chooses another (describe_exec, exec, simple_protocol); and sql.DB.Prepare
//     keeps the statement's text in the client rather than preparing it on the server.
//
// The engine takes advisory locks only at transaction scope (Dialect.TransactionLock), so migrations are
// serialized through a pooler as well.
const PoolerParam = "pooler"

// trackedParams are the run-time parameters PgBouncer accepts when connecting and keeps per client itself.
var trackedParams = map[string]bool{"application_name": true, "client_encoding": true, "datestyle": true,
	"timezone": true, "standard_conforming_strings": true}

// forPooler prepares config for a transaction-mode pooler when its URL says so (PoolerParam, which it removes
// from the run-time parameters): it chooses a query exec mode that prepares no named statement, and moves the
// run-time parameters a pooler does not pass on out of the startup packet into the statement returned, which
// sets them for one transaction, and their names in lower case. It returns "" without the parameter, and an
// error for a value other than "transaction".
func forPooler(config *pgx.ConnConfig) (settings string, names []string, pooled bool, err error) {
	mode, set := config.RuntimeParams[PoolerParam]
	if !set {
		return "", nil, false, nil
	}
	delete(config.RuntimeParams, PoolerParam)
	if mode != "transaction" {
		return "", nil, false, fmt.Errorf("postgres: %s=%q: the only value is \"transaction\"", PoolerParam, mode)
	}
	if config.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement {
		config.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	}
	for name := range config.RuntimeParams {
		if !trackedParams[strings.ToLower(name)] {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "", nil, true, nil
	}
	sort.Strings(names)
	sets := make([]string, len(names))
	for i, name := range names {
		value := config.RuntimeParams[name]
		delete(config.RuntimeParams, name)
		names[i] = strings.ToLower(name)
		sets[i] = "SET LOCAL " + quoteIdent(names[i]) + " TO " + quoteLiteral(value)
	}
	return strings.Join(sets, "; "), names, true, nil
}

// quoteIdent quotes s as an SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteLiteral quotes s as an SQL string literal (standard_conforming_strings is on from PostgreSQL 9.1).
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// pooledConnector makes the connections of a pool behind a transaction-mode pooler (see PoolerParam).
type pooledConnector struct {
	inner    driver.Connector
	settings string   // the statement that sets the run-time parameters for one transaction, or ""
	names    []string // the names of those parameters

	mu      sync.Mutex
	checked bool // whether the server's defaults were compared with the settings
	// ownTx is whether a statement run outside a transaction needs one of its own for the settings: not when
	// the server's defaults for the session (its configuration, ALTER DATABASE and ALTER ROLE ... SET) are
	// the settings already.
	ownTx atomic.Bool
}

func (c *pooledConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	conn := &pooledConn{Conn: dc.(*stdlib.Conn), connector: c}
	if err := c.compareDefaults(ctx, conn.Conn.Conn()); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// compareDefaults compares, once, the server's defaults of the session with the settings on conn (the first
// connection), and sets ownTx when they differ. When the comparison fails (settings the server refuses, as
// connecting with them would fail), it returns the error and leaves ownTx set, to try again on the next
// connection.
func (c *pooledConnector) compareDefaults(ctx context.Context, conn *pgx.Conn) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.checked || c.settings == "" {
		return nil
	}
	c.ownTx.Store(true)
	tx, err := begin(ctx, conn, "BEGIN; "+c.settings)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var differ int
	err = tx.QueryRow(ctx, `SELECT count(*) FROM pg_settings WHERE name = ANY($1::text[]) AND setting IS DISTINCT FROM reset_val`,
		c.names).Scan(&differ)
	if err != nil {
		return err
	}
	c.checked = true
	c.ownTx.Store(differ > 0)
	return nil
}

// begin begins a transaction on conn with the statements of query (BEGIN and the settings, one round trip);
// when one of them fails, it ends what BEGIN started, so the session is left as it was.
func begin(ctx context.Context, conn *pgx.Conn, query string) (pgx.Tx, error) {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{BeginQuery: query})
	if err != nil && !conn.IsClosed() && conn.PgConn().TxStatus() != 'I' {
		_, _ = conn.Exec(ctx, "ROLLBACK")
	}
	return tx, err
}

func (c *pooledConnector) Driver() driver.Driver { return c.inner.Driver() }

// pooledConn is a pgx connection that keeps nothing in its session between transactions: every transaction
// sets the run-time parameters itself, a statement outside a transaction runs in one, and prepared statements
// stay in the client.
type pooledConn struct {
	*stdlib.Conn
	connector *pooledConnector
}

// Unwrap returns pgx's connection, for sqldb.DriverConn.
func (c *pooledConn) Unwrap() driver.Conn { return c.Conn }

// Prepare and PrepareContext keep the statement's text: it is parsed anew, in the unnamed statement, on each
// execution.
func (c *pooledConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *pooledConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if c.Conn.Conn().IsClosed() {
		return nil, driver.ErrBadConn
	}
	return &pooledStmt{conn: c, query: query}, nil
}

func (c *pooledConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx begins a transaction and sets the run-time parameters in the same round trip.
func (c *pooledConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	pc := c.Conn.Conn()
	if pc.IsClosed() {
		return nil, driver.ErrBadConn
	}
	query := "BEGIN"
	switch sql.IsolationLevel(opts.Isolation) {
	case sql.LevelDefault:
	case sql.LevelReadUncommitted:
		query += " ISOLATION LEVEL READ UNCOMMITTED"
	case sql.LevelReadCommitted:
		query += " ISOLATION LEVEL READ COMMITTED"
	case sql.LevelRepeatableRead, sql.LevelSnapshot:
		query += " ISOLATION LEVEL REPEATABLE READ"
	case sql.LevelSerializable:
		query += " ISOLATION LEVEL SERIALIZABLE"
	default:
		return nil, fmt.Errorf("unsupported isolation: %v", opts.Isolation)
	}
	if opts.ReadOnly {
		query += " READ ONLY"
	}
	if c.connector.settings != "" {
		query += "; " + c.connector.settings
	}
	tx, err := begin(ctx, pc, query)
	if err != nil {
		return nil, err
	}
	return pooledTx{ctx: ctx, tx: tx}, nil
}

// pooledTx is a transaction of a pooledConn.
type pooledTx struct {
	ctx context.Context
	tx  pgx.Tx
}

func (t pooledTx) Commit() error   { return t.tx.Commit(t.ctx) }
func (t pooledTx) Rollback() error { return t.tx.Rollback(t.ctx) }

// ownTx reports whether a statement must run in a transaction of its own: outside a transaction, unless the
// server's defaults are the settings.
func (c *pooledConn) ownTx() bool {
	return c.connector.ownTx.Load() && c.Conn.Conn().PgConn().TxStatus() == 'I'
}

// ExecContext runs a statement with arguments outside a transaction in a transaction of its own that sets the
// run-time parameters (see ownTx). A statement without arguments runs as written, under the server's defaults:
// such are the maintenance statements that cannot run in a transaction block (VACUUM, CREATE INDEX
// CONCURRENTLY) and DDL, for which a statement_timeout is no safety net.
func (c *pooledConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) == 0 || !c.ownTx() {
		return c.Conn.ExecContext(ctx, query, args)
	}
	tx, err := c.BeginTx(ctx, driver.TxOptions{})
	if err != nil {
		return nil, err
	}
	res, err := c.Conn.ExecContext(ctx, query, args)
	if err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	return res, tx.Commit()
}

// QueryContext runs a query outside a transaction in a transaction of its own that sets the run-time
// parameters, and commits it when its rows are closed (see ownTx).
func (c *pooledConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if !c.ownTx() {
		return c.Conn.QueryContext(ctx, query, args)
	}
	tx, err := c.BeginTx(ctx, driver.TxOptions{})
	if err != nil {
		return nil, err
	}
	rows, err := c.Conn.QueryContext(ctx, query, args)
	if err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	return &pooledRows{Rows: rows.(*stdlib.Rows), tx: tx.(pooledTx).tx, ctx: ctx}, nil
}

// pooledRows are the rows of a query run in a transaction of its own, which Close ends.
type pooledRows struct {
	*stdlib.Rows
	tx  pgx.Tx
	ctx context.Context
}

// endTimeout bounds the COMMIT of a query's own transaction once its rows are read, which no longer depends on
// the query's context.
const endTimeout = 5 * time.Second

func (r *pooledRows) Close() error {
	err := r.Rows.Close()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), endTimeout)
	defer cancel()
	if err != nil {
		_ = r.tx.Rollback(ctx)
		return err
	}
	return r.tx.Commit(ctx)
}

// pooledStmt is a statement prepared by a pooledConn: its text, run through the connection.
type pooledStmt struct {
	conn  *pooledConn
	query string
}

func (s *pooledStmt) Close() error { return nil }

// NumInput returns -1: the statement is not described by the server, which checks the arguments on each run.
func (s *pooledStmt) NumInput() int { return -1 }

func (s *pooledStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *pooledStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func (s *pooledStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.conn.ExecContext(ctx, s.query, args)
}

func (s *pooledStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.conn.QueryContext(ctx, s.query, args)
}

// named numbers the arguments of the legacy Exec and Query.
func named(args []driver.Value) []driver.NamedValue {
	nv := make([]driver.NamedValue, len(args))
	for i, v := range args {
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return nv
}

// poolerHint adds to err, the failure of a first connection, what to do when it is PgBouncer refusing the
// startup parameters of a URL without PoolerParam (SQLSTATE 08P01, "unsupported startup parameter").
func poolerHint(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "08P01" && strings.Contains(pgErr.Message, "unsupported startup parameter") {
		return fmt.Errorf("%w (behind a connection pooler in transaction mode, add %s=transaction to the URL)", err, PoolerParam)
	}
	return err
}

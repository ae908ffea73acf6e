// Package postgres connects the engine to PostgreSQL through github.com/jackc/pgx (its database/sql driver):
// Open opens a connection pool, and Dialect (dialect.go) is everything about PostgreSQL's SQL that the engine and
// plug-ins need, as a sqldb.Dialect. Import it only where the program opens its database; the engine itself
// imports no driver.
package postgres

import (
	"database/sql"
	"database/sql/driver"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // also registers the "pgx" driver

	"github.com/storekit/store/odata/sqldb"
)

// Pool holds the connection pool settings of Open.
type Pool struct {
	// MaxOpen is the most connections one process opens (default 20). With N server nodes the database sees up
	// to N x MaxOpen connections: keep that under its max_connections.
	MaxOpen int
	// MaxIdle is how many idle connections are kept (default MaxOpen, so a busy pool does not close and reopen
	// sessions between requests).
	MaxIdle int
	// MaxLifetime recycles connections (default 30 minutes), so a fail-over or a load balancer in front of the
	// database is picked up.
	MaxLifetime time.Duration
	// StatementTimeout is the session's statement_timeout (default 60 s; negative for none): the database
	// itself ends a statement that runs longer, a safety net under the request's time budget, which cancels
	// its statement sooner. The migrations of package migrate run without it.
	StatementTimeout time.Duration
	// Replicas are the streaming replicas that serve reads (replica.go); none by default.
	Replicas Replicas
}

// defaultStatementTimeout is the StatementTimeout of a zero Pool: an HTTP server's write timeout, past which
// no answer reaches a client anyway.
const defaultStatementTimeout = 60 * time.Second

// Open opens a pool on the postgres:// URL with the given settings (zero values take the defaults). Its sessions
// run with jit off (the engine's statements are short; compiling them cost seconds for nested any() filters) and
// with the pool's statement_timeout, unless the URL sets either, as in "?statement_timeout=0"; behind a
// transaction-mode pooler (PgBouncer), add "pooler=transaction" to the URL (see PoolerParam). The connections
// are instrumented (sqldb.Instrument, system "postgresql"): a statement run under a context with a recording
// OpenTelemetry span is a child span of it; sqldb.DriverConn returns the *stdlib.Conn that sql.Conn.Raw hands
// over. The result carries the pool and Dialect{} together, and the read replicas of pool.Replicas (replica.go).
func Open(url string, pool Pool) (*sqldb.DB, error) {
	db, err := openPool(url, pool)
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, poolerHint(err)
	}
	return replicate(sqldb.NewDB(db, Dialect{}), pool)
}

// openPool opens the pool of Open on url, without connecting yet.
func openPool(url string, pool Pool) (*sql.DB, error) {
	if pool.MaxOpen <= 0 {
		pool.MaxOpen = 20
	}
	if pool.MaxIdle <= 0 {
		pool.MaxIdle = pool.MaxOpen
	}
	if pool.MaxLifetime <= 0 {
		pool.MaxLifetime = 30 * time.Minute
	}
	config, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	sessionSettings(config.RuntimeParams, pool.StatementTimeout)
	connector, err := connectorFor(config)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(sqldb.Instrument(connector, "postgresql", Dialect{}))
	db.SetMaxOpenConns(pool.MaxOpen)
	db.SetMaxIdleConns(pool.MaxIdle)
	db.SetConnMaxLifetime(pool.MaxLifetime)
	return db, nil
}

// connectorFor returns the connector of config: pgx's own, or for a URL with PoolerParam one whose sessions
// carry nothing between transactions.
func connectorFor(config *pgx.ConnConfig) (driver.Connector, error) {
	settings, names, pooled, err := forPooler(config)
	if err != nil || !pooled {
		return stdlib.GetConnector(*config), err
	}
	return &pooledConnector{inner: stdlib.GetConnector(*config), settings: settings, names: names}, nil
}

// sessionSettings sets the run-time parameters Open gives every session: jit off, and statement_timeout from
// timeout (its default when zero, none when negative); a parameter the URL sets is kept.
func sessionSettings(params map[string]string, timeout time.Duration) {
	if _, set := params["jit"]; !set {
		params["jit"] = "off"
	}
	if timeout == 0 {
		timeout = defaultStatementTimeout
	}
	if _, set := params["statement_timeout"]; !set && timeout > 0 {
		params["statement_timeout"] = strconv.FormatInt(timeout.Milliseconds(), 10)
	}
}

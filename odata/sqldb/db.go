package sqldb

import (
	"context"
	"database/sql"
)

// DB is a database the engine works on: its connection pool and the Dialect of the database behind it, in one
// value, as database/sql hands one *sql.DB around. Every method of *sql.DB is available on it (ExecContext,
// QueryContext, Close, Stats, ...), and Dialect tells how to spell SQL for it. Programs get one from
// odata/sqlite.Open or odata/postgres.Open; the engine, migrations, schema checks and plug-ins take it whole, so a
// pool is never paired with the wrong dialect.
//
// With read replicas (Replicate), QueryContext and QueryRowContext run the reads of a context marked by ForRead on
// a replica; every other statement runs on the primary, the pool *sql.DB.
type DB struct {
	*sql.DB
	dialect  Dialect
	replicas *replicas // nil without read replicas
}

// NewDB returns the DB of a pool and the dialect of the database it connects to, for the adapters'
// Open functions and for tests that wrap a dialect. Programs get a DB from odata/sqlite.Open or
// odata/postgres.Open, which pair the two themselves.
func NewDB(pool *sql.DB, d Dialect) *DB { return &DB{DB: pool, dialect: d} }

// Dialect returns the dialect of the database.
func (db *DB) Dialect() Dialect { return db.dialect }

// BeginTx starts a transaction, as sql.DB.BeginTx does (db.DB.BeginTx is that one), and returns it with the
// database's dialect. RunTx runs a transaction with the project's retry policy.
func (db *DB) BeginTx(ctx context.Context, opts *sql.TxOptions) (*Tx, error) {
	tx, err := db.DB.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &Tx{Tx: tx, dialect: db.dialect}, nil
}

// Tx is a transaction of a DB together with the database's Dialect; every method of *sql.Tx is available on it.
// RunTx and DB.BeginTx make them.
type Tx struct {
	*sql.Tx
	dialect     Dialect
	afterCommit []func()
}

// Dialect returns the dialect of the transaction's database.
func (tx *Tx) Dialect() Dialect { return tx.dialect }

// AfterCommit registers f to run once the transaction has committed, after the functions registered before it:
// for work outside the database that must see the transaction's changes, such as dropping a cache. f never runs
// when the transaction rolls back or its commit fails (RunTx then runs the whole transaction again, whose
// attempt registers its own).
func (tx *Tx) AfterCommit(f func()) { tx.afterCommit = append(tx.afterCommit, f) }

// Commit commits the transaction, as sql.Tx.Commit does, then runs the functions of AfterCommit.
func (tx *Tx) Commit() error {
	if err := tx.Tx.Commit(); err != nil {
		return err
	}
	for _, f := range tx.afterCommit {
		f()
	}
	return nil
}

// Conn returns a single connection of the pool, as sql.DB.Conn does (db.DB.Conn is that one), with the
// database's dialect: for work that needs one session throughout (which a transaction-mode pooler in front of
// PostgreSQL does not keep beyond a transaction).
func (db *DB) Conn(ctx context.Context) (*Conn, error) {
	c, err := db.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &Conn{Conn: c, dialect: db.dialect}, nil
}

// Conn is a single connection of a DB together with the database's Dialect; every method of *sql.Conn is
// available on it. DB.Conn makes them.
type Conn struct {
	*sql.Conn
	dialect Dialect
}

// Dialect returns the dialect of the connection's database.
func (c *Conn) Dialect() Dialect { return c.dialect }

// BeginTx starts a transaction on the connection, as sql.Conn.BeginTx does (c.Conn.BeginTx is that one), and
// returns it with the database's dialect.
func (c *Conn) BeginTx(ctx context.Context, opts *sql.TxOptions) (*Tx, error) {
	tx, err := c.Conn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &Tx{Tx: tx, dialect: c.dialect}, nil
}

// Package postgres connects the engine to PostgreSQL through github.com/jackc/pgx (its database/sql driver):
// Open opens a connection pool, and Dialect (dialect.go) is everything about PostgreSQL's SQL that the engine and
// plug-ins need, as a sqldb.Dialect. Import it only where the program opens its database; the engine itself
// imports no driver.
package postgres

import (
	"database/sql"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// Pool holds the connection pool settings of Open.
type Pool struct {
	// MaxOpen is the most connections one process opens (default 20). With N server nodes the database sees up
	// to N x MaxOpen connections: keep that under its max_connections.
	MaxOpen int
	// MaxIdle is how many idle connections are kept (default MaxOpen/2).
	MaxIdle int
	// MaxLifetime recycles connections (default 30 minutes), so a fail-over or a load balancer in front of the
	// database is picked up.
	MaxLifetime time.Duration
}

// Open opens a pool on the postgres:// URL with the given settings (zero values take the defaults).
func Open(url string, pool Pool) (*sql.DB, error) {
	if pool.MaxOpen <= 0 {
		pool.MaxOpen = 20
	}
	if pool.MaxIdle <= 0 {
		pool.MaxIdle = pool.MaxOpen / 2
	}
	if pool.MaxLifetime <= 0 {
		pool.MaxLifetime = 30 * time.Minute
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(pool.MaxOpen)
	db.SetMaxIdleConns(pool.MaxIdle)
	db.SetConnMaxLifetime(pool.MaxLifetime)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

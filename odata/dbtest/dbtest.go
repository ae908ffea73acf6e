// Package dbtest opens real databases for tests: a SQLite file under the test's temporary directory, and a fresh
// PostgreSQL database on the server named by STORE_TEST_POSTGRES (created for the test, dropped after it).
// STORE_TEST_POSTGRES may name a transaction-mode pooler in front of the server ("?pooler=transaction", see
// odata/postgres.PoolerParam) that reaches every database by its name, such as PgBouncer with the entry
// "* = host=... port=..."; the databases are then created and dropped through STORE_TEST_POSTGRES_ADMIN, a
// direct connection to the same server (CREATE DATABASE cannot run through such a pool).
package dbtest

import (
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

// EnvPostgres names the environment variable with the PostgreSQL server URL for tests.
const EnvPostgres = "STORE_TEST_POSTGRES"

// EnvPostgresAdmin names the environment variable with a direct URL to the server of STORE_TEST_POSTGRES, for
// creating and dropping the test databases when STORE_TEST_POSTGRES goes through a pooler; without it they are
// created through STORE_TEST_POSTGRES.
const EnvPostgresAdmin = "STORE_TEST_POSTGRES_ADMIN"

// DB is an open test database (its pool and dialect, as the adapters' Open return them) and its URL.
type DB struct {
	*sqldb.DB
	// URL is the DSN (a file path for SQLite, a postgres:// URL for PostgreSQL), for code that opens its own pool.
	URL string
}

// SQLite opens a new SQLite file under t.TempDir(); it is closed when the test ends.
func SQLite(tb testing.TB) *DB {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "test.db")
	db, err := sqlite.Open(path)
	if err != nil {
		tb.Fatalf("open sqlite: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return &DB{DB: db, URL: path}
}

// PostgresURL returns the server URL from STORE_TEST_POSTGRES, or "" when it is not set.
func PostgresURL() string { return os.Getenv(EnvPostgres) }

// Postgres creates a fresh database on the STORE_TEST_POSTGRES server and opens it; the database is dropped when
// the test ends. The test is skipped when the variable is not set.
func Postgres(tb testing.TB) *DB {
	tb.Helper()
	base := PostgresURL()
	if base == "" {
		tb.Skip(EnvPostgres + " is not set")
	}
	adminURL := os.Getenv(EnvPostgresAdmin)
	if adminURL == "" {
		adminURL = base
	}
	admin, err := postgres.Open(adminURL, postgres.Pool{MaxOpen: 2})
	if err != nil {
		tb.Fatalf("open %s: %v", adminURL, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "storetest_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		admin.Close()
		tb.Fatalf("create database: %v", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("parse %s: %v", EnvPostgres, err)
	}
	u.Path = "/" + name
	db, err := postgres.Open(u.String(), postgres.Pool{MaxOpen: 10})
	if err != nil {
		tb.Fatalf("open test database: %v", err)
	}
	tb.Cleanup(func() {
		db.Close()
		_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
		admin.Close()
	})
	return &DB{DB: db, URL: u.String()}
}

// Each runs f as a subtest on SQLite ("sqlite") and, when STORE_TEST_POSTGRES is set, on PostgreSQL
// ("postgres"), each with a fresh database.
func Each(t *testing.T, f func(t *testing.T, db *DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { f(t, SQLite(t)) })
	if PostgresURL() != "" {
		t.Run("postgres", func(t *testing.T) { f(t, Postgres(t)) })
	}
}

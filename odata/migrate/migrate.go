// Package migrate applies numbered, embedded SQL migrations to a database at start-up.
//
// A Source is a named set of migrations in an fs.FS with one directory per dialect:
//
//	sqlite/0001_create_catalog.sql
//	postgres/0001_create_catalog.sql
//
// Files are applied in version order, each in its own transaction together with its row in the
// schema_migrations table (component, version), which the first migration applied creates: a database with
// nothing to apply, or whose migration fails or is refused, is left as it was. A Source may compute its changes instead (Source.Changes, as
// odata/schema.Migration does from a model): they are applied, when there are any, as its next version. A database that holds a version newer than the program knows is
// refused, so an old binary never runs against a newer schema. Each migration's transaction first takes the
// dialect's TransactionLock (pg_advisory_xact_lock on PostgreSQL) and reads the version again under it, which
// serializes concurrent starts of several server nodes; the lock holds no session beyond the transaction, so
// migrations run as well through a transaction-mode connection pooler.
package migrate

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/storekit/store/odata/sqldb"
)

// Source is one component's migrations: files written beforehand (FS), or changes computed from the database as
// it is (Changes).
type Source struct {
	// Name identifies the component in schema_migrations (e.g. "entities").
	Name string
	// FS holds a directory per dialect name ("sqlite", "postgres") of files named NNNN_description.sql.
	FS fs.FS
	// Changes, when not nil, replaces FS: inside the transaction of the migration it returns the statements
	// that bring the database to what the component needs and a name that says what they do, no statements
	// when the database is there. Up applies them as the component's next version. odata/schema.Migration
	// computes them from a model.
	Changes func(ctx context.Context, tx *sqldb.Tx) (name string, statements []string, err error)
}

// Migration is one file of a Source.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// maintenanceTransaction is implemented by dialects whose sessions carry limits that migrations must not run
// under (the PostgreSQL adapter's statement_timeout): each migration's transaction starts with the statement it
// returns, which lifts them for that transaction only (SET LOCAL).
type maintenanceTransaction interface {
	MaintenanceTransaction() string
}

// advisoryLockKey is an arbitrary constant shared by every node of one deployment.
const advisoryLockKey = 7355608

// Up applies every pending migration of the sources, in the order given, and returns how many it applied.
func Up(ctx context.Context, db *sqldb.DB, sources ...Source) (int, error) {
	applied := 0
	for _, src := range sources {
		if src.Changes != nil {
			n, err := applyChanges(ctx, db, src)
			applied += n
			if err != nil {
				return applied, err
			}
			continue
		}
		list, err := Load(src, db.Dialect().Name())
		if err != nil {
			return applied, err
		}
		latest := 0
		if len(list) > 0 {
			latest = list[len(list)-1].Version
		}
		current, err := currentVersion(ctx, db, src.Name)
		if err != nil {
			return applied, err
		}
		for _, m := range list {
			if m.Version <= current {
				continue
			}
			done, err := apply(ctx, db, src.Name, m, latest)
			if err != nil {
				return applied, err
			}
			if done {
				applied++
			}
		}
		if current > latest {
			return applied, newerError(src.Name, current, latest)
		}
	}
	return applied, nil
}

// newerError refuses a database whose schema of component is newer than the program's latest version.
func newerError(component string, current, latest int) error {
	return fmt.Errorf("migrate: the database schema of %q is at version %d, newer than this program (%d): refusing to start",
		component, current, latest)
}

// begin starts the transaction of one migration: without the session's limits (maintenanceTransaction), holding
// the dialect's TransactionLock, so that nodes starting together apply each migration once, one after the
// other, also through a connection pooler that keeps no session between transactions.
func begin(ctx context.Context, db *sqldb.DB) (*sqldb.Tx, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	d := db.Dialect()
	if m, ok := d.(maintenanceTransaction); ok {
		if _, err := tx.ExecContext(ctx, m.MaintenanceTransaction()); err != nil {
			tx.Rollback()
			return nil, fmt.Errorf("migrate: %s: %w", m.MaintenanceTransaction(), err)
		}
	}
	if lock := d.TransactionLock(); lock != "" {
		if _, err := tx.ExecContext(ctx, lock, advisoryLockKey); err != nil {
			tx.Rollback()
			return nil, fmt.Errorf("migrate: lock: %w", err)
		}
	}
	return tx, nil
}

// Load reads and orders the migrations of src for the dialect named dialect.
func Load(src Source, dialect string) ([]Migration, error) {
	entries, err := fs.ReadDir(src.FS, dialect)
	if err != nil {
		return nil, fmt.Errorf("migrate: %s: %w", src.Name, err)
	}
	var list []Migration
	seen := map[int]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		num, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("migrate: %s: %s: the name must start with a positive version number", src.Name, e.Name())
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrate: %s: %s and %s have the same version", src.Name, prev, e.Name())
		}
		seen[v] = e.Name()
		b, err := fs.ReadFile(src.FS, path.Join(dialect, e.Name()))
		if err != nil {
			return nil, err
		}
		list = append(list, Migration{Version: v, Name: e.Name(), SQL: string(b)})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Version < list[j].Version })
	return list, nil
}

// querier is a *sqldb.DB or *sqldb.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	Dialect() sqldb.Dialect
}

// currentVersion returns the latest version of component that schema_migrations records, 0 when it records
// none or there is no such table yet (record creates it with the first migration).
func currentVersion(ctx context.Context, conn querier, component string) (int, error) {
	if exists, err := hasTable(ctx, conn); err != nil || !exists {
		return 0, err
	}
	q, args, err := sqldb.Builder(conn.Dialect()).Select("COALESCE(MAX(version), 0)").From("schema_migrations").
		Where("component = ?", component).ToSql()
	if err != nil {
		return 0, err
	}
	var v int
	if err := conn.QueryRowContext(ctx, q, args...).Scan(&v); err != nil {
		return 0, fmt.Errorf("migrate: read version of %s: %w", component, err)
	}
	return v, nil
}

// apply applies migration m of component in its own transaction, unless the version the database holds once
// the lock is taken shows that another node applied it meanwhile (done is then false); latest is the program's
// newest version of component.
func apply(ctx context.Context, db *sqldb.DB, component string, m Migration, latest int) (done bool, err error) {
	tx, err := begin(ctx, db)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	current, err := currentVersion(ctx, tx, component)
	if err != nil {
		return false, err
	}
	if current > latest {
		return false, newerError(component, current, latest)
	}
	if current >= m.Version {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return false, fmt.Errorf("migrate: %s %s: %w", component, m.Name, err)
	}
	if err := record(ctx, tx, component, m); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// applyChanges applies the changes src.Changes computes, if any, as the next version of src in one
// transaction, and returns 1 when it applied them.
func applyChanges(ctx context.Context, db *sqldb.DB, src Source) (int, error) {
	tx, err := begin(ctx, db)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	current, err := currentVersion(ctx, tx, src.Name)
	if err != nil {
		return 0, err
	}
	name, statements, err := src.Changes(ctx, tx)
	if err != nil {
		return 0, fmt.Errorf("migrate: %s: %w", src.Name, err)
	}
	if len(statements) == 0 {
		return 0, nil
	}
	for _, s := range statements {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return 0, fmt.Errorf("migrate: %s version %d: %s: %w", src.Name, current+1, s, err)
		}
	}
	if err := record(ctx, tx, src.Name, Migration{Version: current + 1, Name: name}); err != nil {
		return 0, err
	}
	return 1, tx.Commit()
}

// createTable creates the schema_migrations table when it does not exist.
const createTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	component TEXT NOT NULL,
	version INTEGER NOT NULL,
	name TEXT NOT NULL,
	applied_at TEXT NOT NULL,
	PRIMARY KEY (component, version))`

// hasTable reports whether the database has the schema_migrations table, from the dialect's catalog query.
func hasTable(ctx context.Context, conn querier) (bool, error) {
	var columns int
	err := conn.QueryRowContext(ctx, "SELECT count(*) FROM ("+conn.Dialect().TableColumns()+") AS c", "schema_migrations").Scan(&columns)
	if err != nil {
		return false, fmt.Errorf("migrate: read the catalog: %w", err)
	}
	return columns > 0, nil
}

// record adds the row of migration m of component to schema_migrations, creating the table first when it does
// not exist: in the migration's own transaction, so a migration that fails or is refused leaves no table behind
// and a database with nothing to migrate is not written to.
func record(ctx context.Context, tx *sqldb.Tx, component string, m Migration) error {
	if _, err := tx.ExecContext(ctx, createTable); err != nil {
		return fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	q, args, err := sqldb.Builder(tx.Dialect()).Insert("schema_migrations").Columns("component", "version", "name", "applied_at").
		Values(component, m.Version, m.Name, time.Now().UTC().Format(time.RFC3339)).ToSql()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("migrate: record %s %s: %w", component, m.Name, err)
	}
	return nil
}

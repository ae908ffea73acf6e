package entities

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/sqldb"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFiles embed.FS

// Migrations is the store's schema: one directory of numbered SQL files per dialect ("sqlite", "postgres"),
// applied in order by migrate.Up.
var Migrations = migrate.Source{Name: "entities", FS: mustSub(migrationFiles, "migrations")}

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err)
	}
	return sub
}

// NextOrderNumber returns the next Order.OrderNumber (1, 2, 3, ...). On a database with sequences (PostgreSQL)
// it draws from order_number_seq, which every server node shares and which never blocks another checkout; a
// rolled-back transaction leaves a gap. Without sequences (SQLite) it increments a counter row inside tx, so the
// number is gap-free and is given back when tx rolls back.
func NextOrderNumber(ctx context.Context, tx *sqldb.Tx) (int64, error) {
	d := tx.Dialect()
	q := d.NextValue("order_number_seq")
	if q == "" {
		q = `UPDATE sequence_counter SET value = value + 1 WHERE name = 'order_number' RETURNING value`
	}
	var n int64
	if err := tx.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return 0, fmt.Errorf("entities: next order number: %w", err)
	}
	return n, nil
}

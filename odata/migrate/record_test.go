package migrate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/sqldb"
)

// TestUp_NothingWrittenUntilApplied: Up creates schema_migrations with the first migration it applies, in that
// migration's transaction, so a database with nothing to apply, or whose migration fails or is refused, is left
// without the table; and it is there once a migration is applied.
func TestUp_NothingWrittenUntilApplied(t *testing.T) {
	refused := errors.New("the database does not match")
	changes := func(name string, statements []string, err error) migrate.Source {
		return migrate.Source{Name: "computed", Changes: func(context.Context, *sqldb.Tx) (string, []string, error) {
			return name, statements, err
		}}
	}
	for _, tc := range []struct {
		name      string
		src       migrate.Source
		wantErr   bool
		wantTable bool // schema_migrations exists afterwards
	}{
		{"nothing to change", changes("", nil, nil), false, false},
		{"refused changes", changes("", nil, refused), true, false},
		{"a failing change", changes("create table x", []string{`CREATE TABLE x (id TEXT PRIMARY KEY)`, `INSERT INTO nosuchtable VALUES (1)`}, nil), true, false},
		{"a failing file", source(map[string]string{"0001_a.sql": `INSERT INTO nosuchtable VALUES (1);`}), true, false},
		{"no files", source(map[string]string{"README": "none yet"}), false, false},
		{"an applied change", changes("create table x", []string{`CREATE TABLE x (id TEXT PRIMARY KEY)`}, nil), false, true},
		{"an applied file", source(map[string]string{"0001_a.sql": `CREATE TABLE a (id TEXT PRIMARY KEY);`}), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
				_, err := migrate.Up(context.Background(), db.DB, tc.src)
				if (err != nil) != tc.wantErr {
					t.Fatalf("Up() error = %v, want an error: %v", err, tc.wantErr)
				}
				var n int
				exists := db.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n) == nil
				if exists != tc.wantTable {
					t.Errorf("schema_migrations exists after Up: %v, want %v", exists, tc.wantTable)
				}
			})
		})
	}
}

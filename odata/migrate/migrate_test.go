package migrate_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/sqldb"
)

func source(files map[string]string) migrate.Source {
	m := fstest.MapFS{}
	for name, body := range files {
		for _, d := range []string{"sqlite", "postgres"} {
			m[d+"/"+name] = &fstest.MapFile{Data: []byte(body)}
		}
	}
	return migrate.Source{Name: "test", FS: m}
}

func TestUp(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := context.Background()
		v1 := source(map[string]string{"0001_a.sql": `CREATE TABLE a (id TEXT PRIMARY KEY);`})
		v2 := source(map[string]string{
			"0001_a.sql": `CREATE TABLE a (id TEXT PRIMARY KEY);`,
			"0002_b.sql": `CREATE TABLE b (id TEXT PRIMARY KEY); INSERT INTO b (id) VALUES ('x');`,
		})
		t.Run("OK", func(t *testing.T) {
			if n, err := migrate.Up(ctx, db.DB, v1); err != nil || n != 1 {
				t.Fatalf("Up(v1) = %d, %v, want 1, nil", n, err)
			}
			if n, err := migrate.Up(ctx, db.DB, v2); err != nil || n != 1 {
				t.Fatalf("Up(v2) = %d, %v, want 1, nil", n, err)
			}
			if n, err := migrate.Up(ctx, db.DB, v2); err != nil || n != 0 {
				t.Fatalf("Up(v2) again = %d, %v, want 0, nil", n, err)
			}
			var id string
			if err := db.QueryRow(`SELECT id FROM b`).Scan(&id); err != nil || id != "x" {
				t.Fatalf("row of 0002 = %q, %v", id, err)
			}
		})
		t.Run("ErrNewerDatabase", func(t *testing.T) {
			_, err := migrate.Up(ctx, db.DB, v1)
			if err == nil || !strings.Contains(err.Error(), "newer than this program") {
				t.Fatalf("Up(older program) = %v, want a refusal", err)
			}
		})
		t.Run("ErrFailedMigrationChangesNothing", func(t *testing.T) {
			bad := source(map[string]string{
				"0001_a.sql": `CREATE TABLE a (id TEXT PRIMARY KEY);`,
				"0002_b.sql": `CREATE TABLE b (id TEXT PRIMARY KEY); INSERT INTO b (id) VALUES ('x');`,
				"0003_c.sql": `CREATE TABLE c (id TEXT PRIMARY KEY); INSERT INTO nosuchtable VALUES (1);`,
			})
			if _, err := migrate.Up(ctx, db.DB, bad); err == nil {
				t.Fatal("Up(bad) = nil error")
			}
			if _, err := db.Exec(`SELECT * FROM c`); err == nil {
				t.Fatal("table c exists after a failed migration")
			}
		})
	})
}

// TestUp_Changes applies a source that computes its changes from the database: each set of changes is the
// next version, nothing is recorded when there is nothing to change, and a failing statement changes nothing.
func TestUp_Changes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := context.Background()
		want := []string{"a", "b"} // the tables the component needs
		src := migrate.Source{Name: "computed", Changes: func(ctx context.Context, tx *sqldb.Tx) (string, []string, error) {
			d := tx.Dialect()
			var names, statements []string
			for _, table := range want {
				if _, err := tx.ExecContext(ctx, "SAVEPOINT probe"); err != nil {
					return "", nil, err
				}
				_, err := tx.ExecContext(ctx, "SELECT 1 FROM "+d.QuoteIdent(table))
				if _, rollback := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT probe"); rollback != nil {
					return "", nil, rollback
				}
				if err != nil {
					names = append(names, "create "+table)
					statements = append(statements, "CREATE TABLE "+d.QuoteIdent(table)+" (id TEXT PRIMARY KEY)")
				}
			}
			return strings.Join(names, "; "), statements, nil
		}}
		versions := func() []string {
			rows, err := db.Query(`SELECT version || ' ' || name FROM schema_migrations WHERE component = 'computed' ORDER BY version`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				out = append(out, s)
			}
			return out
		}
		if n, err := migrate.Up(ctx, db.DB, src); err != nil || n != 1 {
			t.Fatalf("Up(empty database) = %d, %v, want 1, nil", n, err)
		}
		if n, err := migrate.Up(ctx, db.DB, src); err != nil || n != 0 {
			t.Fatalf("Up(again) = %d, %v, want 0, nil", n, err)
		}
		want = append(want, "c")
		if n, err := migrate.Up(ctx, db.DB, src); err != nil || n != 1 {
			t.Fatalf("Up(a table more) = %d, %v, want 1, nil", n, err)
		}
		if diff := cmp.Diff([]string{"1 create a; create b", "2 create c"}, versions()); diff != "" {
			t.Errorf("schema_migrations (-want +got):\n%s", diff)
		}
		failing := src
		failing.Changes = func(ctx context.Context, tx *sqldb.Tx) (string, []string, error) {
			return "create d; fail", []string{"CREATE TABLE d (id TEXT)", "INSERT INTO nosuchtable VALUES (1)"}, nil
		}
		if _, err := migrate.Up(ctx, db.DB, failing); err == nil || !strings.Contains(err.Error(), "computed version 3") {
			t.Fatalf("Up(failing changes) = %v, want an error naming version 3", err)
		}
		if _, err := db.Exec(`SELECT * FROM d`); err == nil {
			t.Error("table d exists after failed changes")
		}
		if got := len(versions()); got != 2 {
			t.Errorf("versions after failed changes: %d, want 2", got)
		}
	})
}

func TestLoad_Errors(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"NoNumber", "abc.sql", "positive version number"},
		{"Zero", "0000_x.sql", "positive version number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := migrate.Load(migrate.Source{Name: "x", FS: fstest.MapFS{"sqlite/" + tc.file: {}}}, "sqlite")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load(%q) = %v, want error containing %q", tc.file, err, tc.want)
			}
		})
	}
}

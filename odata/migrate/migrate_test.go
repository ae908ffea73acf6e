package migrate_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/migrate"
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
			if n, err := migrate.Up(ctx, db.DB, db.Dialect, v1); err != nil || n != 1 {
				t.Fatalf("Up(v1) = %d, %v, want 1, nil", n, err)
			}
			if n, err := migrate.Up(ctx, db.DB, db.Dialect, v2); err != nil || n != 1 {
				t.Fatalf("Up(v2) = %d, %v, want 1, nil", n, err)
			}
			if n, err := migrate.Up(ctx, db.DB, db.Dialect, v2); err != nil || n != 0 {
				t.Fatalf("Up(v2) again = %d, %v, want 0, nil", n, err)
			}
			var id string
			if err := db.QueryRow(`SELECT id FROM b`).Scan(&id); err != nil || id != "x" {
				t.Fatalf("row of 0002 = %q, %v", id, err)
			}
		})
		t.Run("ErrNewerDatabase", func(t *testing.T) {
			_, err := migrate.Up(ctx, db.DB, db.Dialect, v1)
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
			if _, err := migrate.Up(ctx, db.DB, db.Dialect, bad); err == nil {
				t.Fatal("Up(bad) = nil error")
			}
			if _, err := db.Exec(`SELECT * FROM c`); err == nil {
				t.Fatal("table c exists after a failed migration")
			}
		})
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

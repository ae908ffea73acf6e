package sqlite_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/storekit/store/odata/sqlite"
)

// TestOpen_JournalMode: Open creates a new database (no file, or an empty one) in WAL mode, leaves the journal
// mode of an existing file as it is (the mode is stored in the file, and nothing is written to a file the
// program was only pointed at), and switches it when SwitchToWAL asks.
func TestOpen_JournalMode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, path string)
		options []sqlite.Option
		want    string
	}{
		{"a new file", func(*testing.T, string) {}, nil, "wal"},
		{"an empty file", func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, nil, "wal"},
		{"a file another program made", madeElsewhere, nil, "delete"},
		{"a file another program made, with SwitchToWAL", madeElsewhere, []sqlite.Option{sqlite.SwitchToWAL()}, "wal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "j.db")
			tc.prepare(t, path)
			db, err := sqlite.Open(path, tc.options...)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("CREATE TABLE IF NOT EXISTS t (x INTEGER)"); err != nil {
				t.Fatal(err)
			}
			if got := journalMode(t, db.DB); got != tc.want {
				t.Errorf("journal_mode after Open = %q, want %q", got, tc.want)
			}
			db.Close()
			plain, err := sql.Open("sqlite3", path)
			if err != nil {
				t.Fatal(err)
			}
			defer plain.Close()
			if got := journalMode(t, plain); got != tc.want {
				t.Errorf("journal_mode the next program finds = %q, want %q", got, tc.want)
			}
		})
	}
}

// madeElsewhere makes a database file at path as another program would, in SQLite's default journal mode.
func madeElsewhere(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE other (id INTEGER PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
}

func journalMode(t *testing.T, db *sql.DB) string {
	t.Helper()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	return mode
}

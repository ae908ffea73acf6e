package sqlite_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storekit/store/odata/sqlite"
)

// TestCheckpoints checks that the pool's connections leave checkpoints to the pool's goroutine, and that it
// makes them: committed pages reach the database file without any connection closing.
func TestCheckpoints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var auto int
	if err := db.QueryRow(`PRAGMA wal_autocheckpoint`).Scan(&auto); err != nil || auto != 0 {
		t.Errorf("wal_autocheckpoint = %d, %v; want 0 (the pool's goroutine checkpoints)", auto, err)
	}
	if _, err := db.Exec(`CREATE TABLE t (v TEXT)`); err != nil {
		t.Fatal(err)
	}
	before := fileSize(t, path)
	const rows, size = 200, 10_000 // 2 MB, about 500 pages
	for range rows {
		if _, err := db.Exec(`INSERT INTO t VALUES (?)`, strings.Repeat("x", size)); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for fileSize(t, path) < before+rows*size {
		if time.Now().After(deadline) {
			t.Fatalf("database file %d bytes 10 s after 2 MB were committed, want them checkpointed into it", fileSize(t, path))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

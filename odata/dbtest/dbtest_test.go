package dbtest

import (
	"errors"
	"testing"

	"github.com/storekit/store/odata/sqldb"
)

func TestEach_ClassifiesUniqueViolation(t *testing.T) {
	Each(t, func(t *testing.T, db *DB) {
		if _, err := db.Exec(`CREATE TABLE t (id TEXT PRIMARY KEY)`); err != nil {
			t.Fatal(err)
		}
		q := `INSERT INTO t (id) VALUES (` + map[bool]string{true: "$1", false: "?"}[db.Dialect().Name() == "postgres"] + `)`
		if _, err := db.Exec(q, "a"); err != nil {
			t.Fatal(err)
		}
		_, err := db.Exec(q, "a")
		if got := db.Dialect().ClassifyError(err); got != sqldb.ErrUniqueViolation {
			t.Errorf("ClassifyError(%v) = %v, want ErrUniqueViolation", err, got)
		}
		if got := db.Dialect().ClassifyError(errors.New("x")); got != sqldb.ErrOther {
			t.Errorf("ClassifyError(plain) = %v, want ErrOther", got)
		}
	})
}

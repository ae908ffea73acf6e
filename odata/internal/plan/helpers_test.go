package plan_test

import (
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqldb"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var (
	modelOnce sync.Once
	model     *edm.Model
)

// builtModel returns the test model, built once.
func builtModel(tb testing.TB) *edm.Model {
	modelOnce.Do(func() {
		m := testModel()
		if err := m.Build(); err != nil {
			panic(err)
		}
		model = m
	})
	return model
}

func newPlanner(m *edm.Model, d sqldb.Dialect) *plan.Planner {
	return plan.NewPlanner(m, d, plan.Options{CaseInsensitiveKeys: []string{"Customer"}})
}

// fixtureDBs opens the fixture databases: SQLite always, PostgreSQL when STORE_TEST_POSTGRES is set.
func fixtureDBs(t *testing.T, m *edm.Model) []*dbtest.DB {
	t.Helper()
	dbs := []*dbtest.DB{dbtest.SQLite(t)}
	if dbtest.PostgresURL() != "" {
		dbs = append(dbs, dbtest.Postgres(t))
	}
	for _, db := range dbs {
		loadFixtures(t, db, m)
	}
	return dbs
}

// encodeQuery percent-encodes the characters a raw query string cannot hold as they are.
func encodeQuery(s string) string {
	return strings.NewReplacer("%", "%25", "&", "%26", "#", "%23", "+", "%2B").Replace(s)
}

// encodeOptions percent-encodes the values of a query string of several options separated by "&".
func encodeOptions(q string) string {
	if q == "" {
		return ""
	}
	parts := strings.Split(q, "&")
	for i, p := range parts {
		parts[i] = strings.NewReplacer("%", "%25", "#", "%23", "+", "%2B").Replace(p)
	}
	return strings.Join(parts, "&")
}

// fetch runs a read's page query and returns the rows as scanned and their keys.
func fetch(db *dbtest.DB, r *plan.Read, pageSize int) ([][]any, []string, error) {
	s, args := r.Select(pageSize)
	return fetchSQL(db, s, args, r.Projection)
}

func fetchSQL(db *dbtest.DB, s string, args []any, proj *plan.Projection) ([][]any, []string, error) {
	rows, err := db.Query(s, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %v: %w", s, args, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	var keys []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		out = append(out, vals)
		if proj != nil {
			off := len(cols) - len(proj.Columns)
			k, err := keyString(proj, vals[off:])
			if err != nil {
				return nil, nil, err
			}
			keys = append(keys, k)
		}
	}
	return out, keys, rows.Err()
}

// keyString formats the key of a scanned row ("p01", "o1/2").
func keyString(proj *plan.Projection, row []any) (string, error) {
	var parts []string
	for _, i := range proj.Key {
		p := proj.Columns[i].Path
		v, err := sqldb.Scan(p[len(p)-1], row[i])
		if err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprint(v))
	}
	return strings.Join(parts, "/"), nil
}

func count(db *dbtest.DB, s string, args []any) (int64, error) {
	var n int64
	err := db.QueryRow(s, args...).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("%s %v: %w", s, args, err)
	}
	return n, nil
}

// formatArgs prints arguments for golden files.
func formatArgs(args []any) string {
	parts := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case nil:
			parts[i] = "null"
		case string:
			parts[i] = strconv.Quote(v)
		case []byte:
			parts[i] = "x'" + hex.EncodeToString(v) + "'"
		case time.Time:
			parts[i] = v.Format(time.RFC3339Nano)
		case float64:
			parts[i] = strconv.FormatFloat(v, 'g', -1, 64) + "f"
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}

package sqldb_test

import (
	"context"
	"database/sql"
	"path"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
)

// newReplicated returns a DB whose "replica" is a second database of the same kind: the table who names the
// database a statement ran on, and the replica's table pos holds the position it has "replayed" (100; the
// primary's is always 150).
func newReplicated(t *testing.T, primary *dbtest.DB) (*sqldb.DB, *dbtest.DB) {
	t.Helper()
	replica := dbtest.SQLite(t)
	if path.Base(t.Name()) == "postgres" || path.Base(path.Dir(t.Name())) == "postgres" {
		replica = dbtest.Postgres(t)
	}
	ctx := context.Background()
	for _, db := range []struct {
		db   *dbtest.DB
		name string
	}{{primary, "primary"}, {replica, "replica"}} {
		for _, stmt := range []string{"CREATE TABLE who (name VARCHAR(10))", "INSERT INTO who VALUES ('" + db.name + "')",
			"CREATE TABLE pos (v INTEGER)", "INSERT INTO pos VALUES (100)"} {
			if _, err := db.db.DB.DB.ExecContext(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
	}
	primary.Replicate(sqldb.Replication{Replicas: []*sql.DB{replica.DB.DB}, PrimaryPosition: "SELECT 150",
		ReplayPosition: "SELECT v FROM pos", MaxLag: time.Hour})
	return primary.DB, replica
}

// TestDB_Replicate checks where a DB with a replica runs statements: a ForRead context's reads on the replica
// unless the session needs a position the replica has not replayed, or the replica fails; everything else on
// the primary.
func TestDB_Replicate(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, tdb *dbtest.DB) {
		db, replica := newReplicated(t, tdb)
		// where returns the database that answered QueryRowContext and QueryContext under ctx.
		where := func(ctx context.Context) [2]string {
			var got [2]string
			if err := db.QueryRowContext(ctx, "SELECT name FROM who").Scan(&got[0]); err != nil {
				t.Fatal(err)
			}
			rows, err := db.QueryContext(ctx, "SELECT name FROM who")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				if err := rows.Scan(&got[1]); err != nil {
					t.Fatal(err)
				}
			}
			return got
		}
		session := func(token string) context.Context {
			ctx, _ := sqldb.WithSession(context.Background(), token)
			return ctx
		}
		wrote := sqldb.ForRead(session(""))
		if _, err := db.ExecContext(wrote, "UPDATE who SET name = name"); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			ctx  context.Context
			want string
		}{
			{"NotForRead", context.Background(), "primary"},
			{"ForRead", sqldb.ForRead(context.Background()), "replica"},
			{"SessionReplayed", sqldb.ForRead(session("100")), "replica"},
			{"SessionAhead", sqldb.ForRead(session("101")), "primary"},
			{"MalformedToken", sqldb.ForRead(session("0/3000060")), "replica"},
			{"WroteInRequest", wrote, "primary"},
		} {
			if got := where(tc.ctx); got != [2]string{tc.want, tc.want} {
				t.Errorf("%s: ran on %v, want %s", tc.name, got, tc.want)
			}
		}
		if token, keep := sqldb.SessionToken(wrote); token != "150" || keep <= time.Hour {
			t.Errorf("SessionToken after a write = %q, %v; want \"150\", more than the lag bound 1h", token, keep)
		}
		if token, keep := sqldb.SessionToken(session("100")); token != "" || keep != 0 {
			t.Errorf("SessionToken without a write = %q, %v; want \"\", 0", token, keep)
		}
		// A replica that fails: the primary answers, and keeps answering until the replica's next check.
		replica.DB.DB.Close()
		if got := where(sqldb.ForRead(context.Background())); got != [2]string{"primary", "primary"} {
			t.Errorf("after the replica failed: ran on %v, want the primary", got)
		}
	})
}

// TestWithSession checks that a request's session is made once: an inner WithSession keeps the outer one.
func TestWithSession(t *testing.T) {
	outer, fresh := sqldb.WithSession(context.Background(), "7")
	inner, again := sqldb.WithSession(outer, "9")
	if diff := cmp.Diff([]bool{true, false}, []bool{fresh, again}); diff != "" {
		t.Errorf("WithSession fresh (-want +got):\n%s", diff)
	}
	if inner != outer {
		t.Errorf("WithSession within a session returned a new context")
	}
}

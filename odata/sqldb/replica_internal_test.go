package sqldb

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "github.com/mattn/go-sqlite3"
)

// TestReplicas_Check checks the lag bound of the replicas' check: a replica is usable when it has replayed what
// the primary had written MaxLag ago (the newest sample at least that old), and the samples older than that one
// are dropped.
func TestReplicas_Check(t *testing.T) {
	open := func(name string) *sql.DB {
		db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	now := time.Now()
	for _, tc := range []struct {
		name        string
		samples     []sample // before the check, which adds the primary's position 500 now
		replay      int64
		usable      bool
		keptSamples int
	}{
		{"NoSampleOldEnough", []sample{{now.Add(-time.Second), 400}}, 100, true, 2},
		{"CaughtUp", []sample{{now.Add(-2 * time.Hour), 90}, {now.Add(-time.Hour - time.Minute), 100}, {now.Add(-time.Minute), 400}}, 100, true, 3},
		{"Behind", []sample{{now.Add(-time.Hour - time.Minute), 101}, {now.Add(-time.Minute), 400}}, 100, false, 3},
		{"AheadOfAll", []sample{{now.Add(-2 * time.Hour), 500}}, 500, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			primary, replicaDB := open("primary.db"), open("replica.db")
			rs := &replicas{Replication: Replication{PrimaryPosition: "SELECT 500",
				ReplayPosition: "SELECT " + fmt.Sprint(tc.replay), MaxLag: time.Hour, CheckEvery: time.Second},
				primary: primary, list: []*replica{{pool: replicaDB}}}
			samples := append([]sample(nil), tc.samples...)
			rs.check(&samples)
			got := []any{rs.list[0].usable.Load(), rs.list[0].replay.Load(), len(samples)}
			if diff := cmp.Diff([]any{tc.usable, tc.replay, tc.keptSamples}, got); diff != "" {
				t.Errorf("after check: usable, replay, samples kept (-want +got):\n%s", diff)
			}
		})
	}
}

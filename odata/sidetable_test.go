package odata_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// TestService_SideTableOnOtherColumn writes and reads a collection whose side table refers to a column other
// than the key (Member is keyed by e-mail, member_role refers to member.id), through the service and the Tx
// helpers, and checks that Tx.Get matches a case-insensitive key without regard to case.
func TestService_SideTableOnOtherColumn(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		var got odata.Entity
		f := newFixtureWith(t, db, func(cfg *odata.Config) {
			m := cfg.Model
			opts := cfg.Sets["Member"]
			opts.Hooks.AfterSave = func(ctx context.Context, tx *odata.Tx, c *odata.Change) error {
				e, err := tx.Get(ctx, m.EntityType("Member"), "READER@EXAMPLE.COM")
				got = e
				return err
			}
			cfg.Sets["Member"] = opts
		})
		f.seed()
		roles := func(path string) []any {
			t.Helper()
			m := decodeJSON(t, f.must(200, "GET", path, "").Body)
			r, _ := m["Roles"].([]any)
			return r
		}
		if diff := cmp.Diff([]any{"admin", "reader"}, roles("/odata/Member('reader@example.com')")); diff != "" {
			t.Errorf("GET Member roles mismatch (-want +got):\n%s", diff)
		}
		f.must(200, "PATCH", "/odata/Member('READER@example.com')", `{"Roles":["writer"]}`)
		if diff := cmp.Diff([]any{"writer"}, roles("/odata/Member('reader@example.com')")); diff != "" {
			t.Errorf("after PATCH: roles mismatch (-want +got):\n%s", diff)
		}
		if got == nil || got["Id"] != "m1" {
			t.Errorf("Tx.Get(Member, READER@EXAMPLE.COM) in a hook = %v, want m1", got)
		}
		created := decodeJSON(t, f.must(201, "POST", "/odata/Member", `{"Email":"new@example.com","Roles":["a","b"]}`).Body)
		if diff := cmp.Diff([]any{"a", "b"}, created["Roles"]); diff != "" {
			t.Errorf("POST Member roles mismatch (-want +got):\n%s", diff)
		}
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM member_role WHERE member_id = '` + created["Id"].(string) + `'`).Scan(&n); err != nil || n != 2 {
			t.Errorf("side table rows of the new member = %d, %v, want 2 on its id", n, err)
		}
		f.must(204, "DELETE", "/odata/Member('Reader@Example.com')", "")
		for _, table := range []string{"member_role", "card"} {
			if err := db.QueryRow(`SELECT COUNT(*) FROM ` + table + ` WHERE member_id = 'm1'`).Scan(&n); err != nil || n != 0 {
				t.Errorf("%s rows of the deleted member = %d, %v, want 0", table, n, err)
			}
		}
	})
}

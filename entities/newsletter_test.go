package entities_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
)

// TestNewsletterSubscription walks one address through the writes of its subscription: an inactive one waiting
// for confirmation, activated, unsubscribed with another spelling of the e-mail, subscribed again.
func TestNewsletterSubscription(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		exec(t, db, `INSERT INTO customer (id, email) VALUES ('c1', 'ann@example.com')`)
		state := func() []any {
			t.Helper()
			var id, email string
			var customer sql.NullString
			var active bool
			if err := db.QueryRow(`SELECT id, email, customer_id, active FROM newsletter_subscription`).
				Scan(&id, &email, &customer, &active); err != nil {
				t.Fatal(err)
			}
			return []any{email, customer.String, active}
		}
		step := func(name string, fn func(ctx context.Context, tx *sqldb.Tx) error, want []any) {
			t.Helper()
			if err := inTx(t, db, fn); err != nil {
				t.Fatalf("%s = %v", name, err)
			}
			if diff := cmp.Diff(want, state()); diff != "" {
				t.Errorf("subscription after %s (-want +got):\n%s", name, diff)
			}
		}
		step("AddInactiveSubscription", func(ctx context.Context, tx *sqldb.Tx) error {
			return entities.AddInactiveSubscription(ctx, tx, "Ann@example.com", "", now)
		}, []any{"Ann@example.com", "", false})
		step("AddInactiveSubscription again", func(ctx context.Context, tx *sqldb.Tx) error {
			return entities.AddInactiveSubscription(ctx, tx, "ann@example.com", "c1", now)
		}, []any{"Ann@example.com", "", false})
		var id string
		if err := db.QueryRow(`SELECT id FROM newsletter_subscription`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		step("SetSubscriptionActive", func(ctx context.Context, tx *sqldb.Tx) error {
			return entities.SetSubscriptionActive(ctx, tx, id, true)
		}, []any{"Ann@example.com", "", true})
		step("UnsubscribeNewsletter", func(ctx context.Context, tx *sqldb.Tx) error {
			return entities.UnsubscribeNewsletter(ctx, tx, "ANN@example.com", "c1")
		}, []any{"Ann@example.com", "c1", false})
		step("SubscribeNewsletter", func(ctx context.Context, tx *sqldb.Tx) error {
			return entities.SubscribeNewsletter(ctx, tx, "ann@example.com", "", now)
		}, []any{"Ann@example.com", "", true})
		if n := count(t, db, `SELECT COUNT(*) FROM newsletter_subscription`); n != 1 {
			t.Errorf("subscriptions = %d, want 1", n)
		}
	})
}

package entities

import (
	"context"
	"fmt"
	"time"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// A newsletter subscription is found by its e-mail ignoring ASCII case: lower(email) (the unique index and the
// WHERE clauses) against the e-mail lowered the same way in Go (normalizeEmail), since PostgreSQL's lower() of a
// parameter would follow the database's default collation and fold other letters too.
var (
	stmtSubscribe = sqldb.NewStatement(`INSERT INTO newsletter_subscription (id, email, customer_id, active, created_on_utc)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (lower(email)) DO UPDATE SET active = excluded.active, customer_id = excluded.customer_id`)
	stmtUnsubscribe     = sqldb.NewStatement(`UPDATE newsletter_subscription SET active = ?, customer_id = ? WHERE lower(email) = ?`)
	stmtAddSubscription = sqldb.NewStatement(`INSERT INTO newsletter_subscription (id, email, customer_id, active, created_on_utc)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (lower(email)) DO NOTHING`)
	stmtSetSubscriptionActive = sqldb.NewStatement(`UPDATE newsletter_subscription SET active = ? WHERE id = ?`)
)

// SubscribeNewsletter makes the newsletter subscription of email active and links it to the customer customerID
// ("" for none), creating it (at now) when the e-mail has none.
func SubscribeNewsletter(ctx context.Context, q Querier, email, customerID string, now time.Time) error {
	d := q.Dialect()
	if _, err := q.ExecContext(ctx, stmtSubscribe.For(d), odata.NewID(), email, nullString(customerID), true,
		sqldb.TimeArg(d, now)); err != nil {
		return fmt.Errorf("entities: subscribe newsletter: %w", err)
	}
	return nil
}

// UnsubscribeNewsletter makes the newsletter subscription of email inactive and links it to the customer
// customerID ("" for none); an e-mail without a subscription changes nothing.
func UnsubscribeNewsletter(ctx context.Context, q Querier, email, customerID string) error {
	d := q.Dialect()
	if _, err := q.ExecContext(ctx, stmtUnsubscribe.For(d), false, nullString(customerID), normalizeEmail(email)); err != nil {
		return fmt.Errorf("entities: unsubscribe newsletter: %w", err)
	}
	return nil
}

// AddInactiveSubscription creates an inactive newsletter subscription of email (at now), linked to the customer
// customerID ("" for none), when the e-mail has none: one that waits for its owner's confirmation.
func AddInactiveSubscription(ctx context.Context, q Querier, email, customerID string, now time.Time) error {
	d := q.Dialect()
	if _, err := q.ExecContext(ctx, stmtAddSubscription.For(d), odata.NewID(), email, nullString(customerID), false,
		sqldb.TimeArg(d, now)); err != nil {
		return fmt.Errorf("entities: add subscription: %w", err)
	}
	return nil
}

// SetSubscriptionActive sets the active flag of the newsletter subscription with the id.
func SetSubscriptionActive(ctx context.Context, q Querier, subscriptionID string, active bool) error {
	d := q.Dialect()
	if _, err := q.ExecContext(ctx, stmtSetSubscriptionActive.For(d), active, subscriptionID); err != nil {
		return fmt.Errorf("entities: set subscription active: %w", err)
	}
	return nil
}

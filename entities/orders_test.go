package entities_test

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
)

// inTx runs fn in a transaction of db and commits when it returns nil.
func inTx(t testing.TB, db *dbtest.DB, fn func(ctx context.Context, tx *sqldb.Tx) error) error {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := fn(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// productStock returns the stock, sold, published and disable_buy_button of a product.
func productStock(t testing.TB, db *dbtest.DB, id string) []any {
	t.Helper()
	var stock, sold int
	var published, disabled bool
	if err := db.QueryRow(q(db, `SELECT stock_quantity, sold, published, disable_buy_button FROM product WHERE id = ?`), id).
		Scan(&stock, &sold, &published, &disabled); err != nil {
		t.Fatal(err)
	}
	return []any{stock, sold, published, disabled}
}

func TestApplyLowStockActivity(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		const managed, notManaged = entities.ManageInventoryMethodManageStock, entities.ManageInventoryMethodDontManageStock
		for _, tc := range []struct {
			name                        string
			method, stock, min, activty int
			want                        []any // stock, sold, published, disable_buy_button
		}{
			{"OKDisableBuyButtonBelow", managed, 1, 2, entities.LowStockActivityDisableBuyButton, []any{1, 0, true, true}},
			{"OKDisableBuyButtonAt", managed, 2, 2, entities.LowStockActivityDisableBuyButton, []any{2, 0, true, true}},
			{"OKUnpublish", managed, 0, 0, entities.LowStockActivityUnpublish, []any{0, 0, false, false}},
			{"OKAboveMinimum", managed, 3, 2, entities.LowStockActivityUnpublish, []any{3, 0, true, false}},
			{"OKNothing", managed, 0, 5, entities.LowStockActivityNothing, []any{0, 0, true, false}},
			{"OKStockNotManaged", notManaged, 0, 5, entities.LowStockActivityUnpublish, []any{0, 0, true, false}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				id := odata.NewID()
				exec(t, db, `INSERT INTO product (id, name, manage_inventory_method, stock_quantity, min_stock_quantity,
	low_stock_activity) VALUES (?, 'P', ?, ?, ?, ?)`, id, tc.method, tc.stock, tc.min, tc.activty)
				if err := inTx(t, db, func(ctx context.Context, tx *sqldb.Tx) error {
					return entities.ApplyLowStockActivity(ctx, tx, id)
				}); err != nil {
					t.Fatalf("ApplyLowStockActivity() = %v", err)
				}
				if diff := cmp.Diff(tc.want, productStock(t, db, id)); diff != "" {
					t.Errorf("product after ApplyLowStockActivity (-want +got):\n%s", diff)
				}
			})
		}
		t.Run("OKUnknownProduct", func(t *testing.T) {
			if err := inTx(t, db, func(ctx context.Context, tx *sqldb.Tx) error {
				return entities.ApplyLowStockActivity(ctx, tx, "nope")
			}); err != nil {
				t.Errorf("ApplyLowStockActivity(unknown) = %v, want nil", err)
			}
		})
	})
}

// orderFixture inserts an order with statuses (order, payment, shipping) and two lines: 2 of the managed product
// pm and 3 of the unmanaged product pu. Both products have stock 5 and sold 10.
func orderFixture(t testing.TB, db *dbtest.DB, id string, status, payment, shipping int) {
	t.Helper()
	exec(t, db, `INSERT INTO "order" (id, order_number, code, customer_id, customer_email, order_status, payment_status,
	shipping_status) VALUES (?, (SELECT COUNT(*) + 1 FROM "order"), ?, 'c1', 'c1@example.com', ?, ?, ?)`,
		id, strings.ToUpper(id[len(id)-8:]), status, payment, shipping)
	exec(t, db, `INSERT INTO order_item (id, order_id, product_id, product_name, quantity) VALUES (?, ?, 'pm', 'PM', 2)`, odata.NewID(), id)
	exec(t, db, `INSERT INTO order_item (id, order_id, product_id, product_name, quantity) VALUES (?, ?, 'pu', 'PU', 3)`, odata.NewID(), id)
}

func orderStatuses(t testing.TB, db *dbtest.DB, id string) []string {
	t.Helper()
	var o, p, s int
	var paid sql.NullString
	var paidAt any
	if err := db.QueryRow(q(db, `SELECT order_status, payment_status, shipping_status, paid_date_utc FROM "order" WHERE id = ?`), id).
		Scan(&o, &p, &s, &paidAt); err != nil {
		t.Fatal(err)
	}
	if paidAt != nil {
		paid.Valid = true
	}
	out := []string{entities.OrderStatusName(o), entities.PaymentStatusName(p), entities.ShippingStatusName(s)}
	if paid.Valid {
		out = append(out, "paid-date")
	}
	return out
}

func TestOrderMoves(t *testing.T) {
	const (
		pending, processing, complete, cancelled = entities.OrderStatusPending, entities.OrderStatusProcessing,
			entities.OrderStatusComplete, entities.OrderStatusCancelled
		payPending, paid                  = entities.PaymentStatusPending, entities.PaymentStatusPaid
		notRequired, notYet, shipped, dlv = entities.ShippingStatusShippingNotRequired,
			entities.ShippingStatusNotYetShipped, entities.ShippingStatusShipped, entities.ShippingStatusDelivered
	)
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	moves := map[string]func(ctx context.Context, tx *sqldb.Tx, id string) error{
		"MarkOrderPaid": func(ctx context.Context, tx *sqldb.Tx, id string) error {
			return entities.MarkOrderPaid(ctx, tx, id, now)
		},
		"ShipOrder":    entities.ShipOrder,
		"DeliverOrder": entities.DeliverOrder,
		"CancelOrder":  entities.CancelOrder,
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		exec(t, db, `INSERT INTO product (id, name, manage_inventory_method, stock_quantity, sold) VALUES ('pm', 'PM', 1, 5, 10)`)
		exec(t, db, `INSERT INTO product (id, name, manage_inventory_method, stock_quantity, sold) VALUES ('pu', 'PU', 0, 5, 10)`)
		for _, tc := range []struct {
			name                      string
			status, payment, shipping int
			move                      string
			want                      []string // statuses after the move
			wantErr                   string   // a 409 whose message contains this
		}{
			{"OKPaidPendingToProcessing", pending, payPending, notYet, "MarkOrderPaid", []string{"Processing", "Paid", "NotYetShipped", "paid-date"}, ""},
			{"OKPaidNoShippingIsComplete", pending, payPending, notRequired, "MarkOrderPaid", []string{"Complete", "Paid", "ShippingNotRequired", "paid-date"}, ""},
			{"OKPaidAfterDeliveryIsComplete", processing, payPending, dlv, "MarkOrderPaid", []string{"Complete", "Paid", "Delivered", "paid-date"}, ""},
			{"ErrPaidTwice", processing, paid, notYet, "MarkOrderPaid", nil, "payment status is Paid"},
			{"ErrPaidCancelled", cancelled, payPending, notYet, "MarkOrderPaid", nil, "order status is Cancelled"},
			{"OKShip", pending, payPending, notYet, "ShipOrder", []string{"Processing", "Pending", "Shipped"}, ""},
			{"ErrShipShipped", processing, payPending, shipped, "ShipOrder", nil, "shipping status is Shipped"},
			{"ErrShipNotRequired", pending, payPending, notRequired, "ShipOrder", nil, "shipping status is ShippingNotRequired"},
			{"ErrShipComplete", complete, paid, dlv, "ShipOrder", nil, "order status is Complete"},
			{"OKDeliverUnpaid", processing, payPending, shipped, "DeliverOrder", []string{"Processing", "Pending", "Delivered"}, ""},
			{"OKDeliverPaidIsComplete", processing, paid, shipped, "DeliverOrder", []string{"Complete", "Paid", "Delivered"}, ""},
			{"ErrDeliverNotShipped", pending, payPending, notYet, "DeliverOrder", nil, "shipping status is NotYetShipped"},
			{"ErrDeliverTwice", processing, payPending, dlv, "DeliverOrder", nil, "shipping status is Delivered"},
			{"OKCancel", pending, payPending, notYet, "CancelOrder", []string{"Cancelled", "Pending", "NotYetShipped"}, ""},
			{"OKCancelPaid", processing, paid, notYet, "CancelOrder", []string{"Cancelled", "Paid", "NotYetShipped"}, ""},
			{"ErrCancelTwice", cancelled, payPending, notYet, "CancelOrder", nil, "order status is Cancelled"},
			{"ErrCancelComplete", complete, paid, dlv, "CancelOrder", nil, "order status is Complete"},
			{"ErrCancelShipped", processing, payPending, shipped, "CancelOrder", nil, "shipping status is Shipped"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				id := odata.NewID()
				orderFixture(t, db, id, tc.status, tc.payment, tc.shipping)
				before := [][]any{productStock(t, db, "pm"), productStock(t, db, "pu")}
				err := inTx(t, db, func(ctx context.Context, tx *sqldb.Tx) error { return moves[tc.move](ctx, tx, id) })
				if tc.wantErr != "" {
					var e *odata.Error
					if !errors.As(err, &e) || e.Status() != http.StatusConflict || e.Code != "Conflict" || !strings.Contains(e.Message, tc.wantErr) {
						t.Fatalf("%s(%s) = %v, want a 409 Conflict containing %q", tc.move, tc.name, err, tc.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatalf("%s() = %v", tc.move, err)
				}
				if diff := cmp.Diff(tc.want, orderStatuses(t, db, id)); diff != "" {
					t.Errorf("%s(): statuses (-want +got):\n%s", tc.move, diff)
				}
				after := [][]any{productStock(t, db, "pm"), productStock(t, db, "pu")}
				want := before
				if tc.move == "CancelOrder" {
					// The managed product gets its 2 units back; both lower Sold.
					want = [][]any{{before[0][0].(int) + 2, before[0][1].(int) - 2, true, false},
						{before[1][0], before[1][1].(int) - 3, true, false}}
				}
				if diff := cmp.Diff(want, after); diff != "" {
					t.Errorf("%s(): stock and sold (-want +got):\n%s", tc.move, diff)
				}
			})
		}
		for name := range moves {
			t.Run("ErrNotFound"+name, func(t *testing.T) {
				err := inTx(t, db, func(ctx context.Context, tx *sqldb.Tx) error { return moves[name](ctx, tx, "nope") })
				if e := odata.AsError(err); err == nil || e.Status() != http.StatusNotFound {
					t.Errorf("%s(unknown) = %v, want 404", name, err)
				}
			})
		}
		t.Run("OKWholeLifeToComplete", func(t *testing.T) {
			id := odata.NewID()
			orderFixture(t, db, id, pending, payPending, notYet)
			for _, m := range []string{"ShipOrder", "MarkOrderPaid", "DeliverOrder"} {
				if err := inTx(t, db, func(ctx context.Context, tx *sqldb.Tx) error { return moves[m](ctx, tx, id) }); err != nil {
					t.Fatalf("%s() = %v", m, err)
				}
			}
			if diff := cmp.Diff([]string{"Complete", "Paid", "Delivered", "paid-date"}, orderStatuses(t, db, id)); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
		})
		t.Run("OKCancelDeletedProduct", func(t *testing.T) {
			id := odata.NewID()
			exec(t, db, `INSERT INTO "order" (id, order_number, code, customer_id, customer_email) VALUES (?, 9999, 'GONE0001', 'c', 'c@example.com')`, id)
			exec(t, db, `INSERT INTO order_item (id, order_id, product_id, product_name, quantity) VALUES (?, ?, 'deleted', 'D', 1)`, odata.NewID(), id)
			if err := inTx(t, db, func(ctx context.Context, tx *sqldb.Tx) error { return entities.CancelOrder(ctx, tx, id) }); err != nil {
				t.Errorf("CancelOrder(order of a deleted product) = %v", err)
			}
		})
		t.Run("OKSoldNeverBelowZero", func(t *testing.T) {
			exec(t, db, `UPDATE product SET sold = 1 WHERE id = 'pu'`)
			id := odata.NewID()
			orderFixture(t, db, id, pending, payPending, notYet)
			if err := inTx(t, db, func(ctx context.Context, tx *sqldb.Tx) error { return entities.CancelOrder(ctx, tx, id) }); err != nil {
				t.Fatal(err)
			}
			if got := productStock(t, db, "pu")[1]; got != 0 {
				t.Errorf("sold after cancelling 3 of 1 sold = %v, want 0", got)
			}
		})
	})
}

func TestStatusNames(t *testing.T) {
	for _, tc := range []struct {
		f    func(int) string
		in   int
		want string
	}{
		{entities.OrderStatusName, entities.OrderStatusProcessing, "Processing"},
		{entities.PaymentStatusName, entities.PaymentStatusVoided, "Voided"},
		{entities.ShippingStatusName, entities.ShippingStatusShippingNotRequired, "ShippingNotRequired"},
		{entities.OrderStatusName, 99, "99"},
	} {
		if got := tc.f(tc.in); got != tc.want {
			t.Errorf("StatusName(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

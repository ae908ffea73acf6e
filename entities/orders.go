package entities

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// OrderStatusName returns the member name of an Order.OrderStatus value ("Pending", ...), or the number when it
// is not a member.
func OrderStatusName(v int) string {
	return enumName(v, map[int]string{OrderStatusPending: "Pending", OrderStatusProcessing: "Processing",
		OrderStatusComplete: "Complete", OrderStatusCancelled: "Cancelled"})
}

// PaymentStatusName returns the member name of an Order.PaymentStatus value ("Pending", "Paid", ...).
func PaymentStatusName(v int) string {
	return enumName(v, map[int]string{PaymentStatusPending: "Pending", PaymentStatusPaid: "Paid",
		PaymentStatusRefunded: "Refunded", PaymentStatusVoided: "Voided"})
}

// ShippingStatusName returns the member name of an Order.ShippingStatus value ("NotYetShipped", ...).
func ShippingStatusName(v int) string {
	return enumName(v, map[int]string{ShippingStatusShippingNotRequired: "ShippingNotRequired",
		ShippingStatusNotYetShipped: "NotYetShipped", ShippingStatusShipped: "Shipped",
		ShippingStatusDelivered: "Delivered"})
}

func enumName(v int, names map[int]string) string {
	if n, ok := names[v]; ok {
		return n
	}
	return strconv.Itoa(v)
}

// orderState is the three statuses of an order.
type orderState struct{ order, payment, shipping int }

var (
	stmtOrderState    = sqldb.NewStatement(`SELECT order_status, payment_status, shipping_status FROM "order" WHERE id = ?`)
	stmtSetOrderState = sqldb.NewStatement(`UPDATE "order" SET order_status = ?, payment_status = ?, shipping_status = ? WHERE id = ?`)
	stmtSetOrderPaid  = sqldb.NewStatement(`UPDATE "order" SET order_status = ?, payment_status = ?, paid_date_utc = ? WHERE id = ?`)
	stmtOrderItemsQty = sqldb.NewStatement(`SELECT product_id, SUM(quantity) FROM order_item WHERE order_id = ?
GROUP BY product_id ORDER BY product_id`)
	stmtReturnStock = sqldb.NewStatement(`UPDATE product SET
	stock_quantity = stock_quantity + CASE WHEN manage_inventory_method = ? THEN ? ELSE 0 END,
	sold = CASE WHEN sold >= ? THEN sold - ? ELSE 0 END,
	updated_on_utc = ?
WHERE id = ?`)
)

// lockOrder reads the statuses of the order in tx, locking its row (Dialect.LockForUpdate), so two moves of one
// order run one after the other. An unknown order is a 404 *odata.Error.
func lockOrder(ctx context.Context, tx *sqldb.Tx, orderID string) (orderState, error) {
	d := tx.Dialect()
	var s orderState
	err := tx.QueryRowContext(ctx, stmtOrderState.For(d)+d.LockForUpdate(), orderID).Scan(&s.order, &s.payment, &s.shipping)
	if errors.Is(err, sql.ErrNoRows) {
		return s, odata.NotFound("The order does not exist.")
	}
	if err != nil {
		return s, fmt.Errorf("entities: read order: %w", err)
	}
	return s, nil
}

// settle moves an open order on after a payment or shipping move: paid and delivered (or paid and needing no
// shipping) is Complete; otherwise a Pending order that has been paid or shipped is Processing.
func (s *orderState) settle() {
	if s.order != OrderStatusPending && s.order != OrderStatusProcessing {
		return
	}
	switch {
	case s.payment == PaymentStatusPaid &&
		(s.shipping == ShippingStatusDelivered || s.shipping == ShippingStatusShippingNotRequired):
		s.order = OrderStatusComplete
	case s.payment == PaymentStatusPaid || s.shipping == ShippingStatusShipped || s.shipping == ShippingStatusDelivered:
		s.order = OrderStatusProcessing
	}
}

// refuseClosed returns the 409 of a move on a Cancelled or Complete order.
func (s orderState) refuseClosed(move string) error {
	if s.order == OrderStatusCancelled || s.order == OrderStatusComplete {
		return odata.Conflict(fmt.Sprintf("The order cannot be %s: its order status is %s.", move, OrderStatusName(s.order)))
	}
	return nil
}

// MarkOrderPaid marks the order's payment Paid at now, in tx (the MarkAsPaid action of SPEC 4.9). Only an order
// whose payment status is Pending and that is neither Cancelled nor Complete can be: otherwise the answer is a
// 409 *odata.Error naming the current state. A Pending order becomes Processing, or Complete when it has been
// delivered or needs no shipping. An unknown order is a 404.
func MarkOrderPaid(ctx context.Context, tx *sqldb.Tx, orderID string, now time.Time) error {
	d := tx.Dialect()
	s, err := lockOrder(ctx, tx, orderID)
	if err != nil {
		return err
	}
	if err := s.refuseClosed("marked as paid"); err != nil {
		return err
	}
	if s.payment != PaymentStatusPending {
		return odata.Conflict(fmt.Sprintf("The order cannot be marked as paid: its payment status is %s, not Pending.",
			PaymentStatusName(s.payment)))
	}
	s.payment = PaymentStatusPaid
	s.settle()
	if _, err := tx.ExecContext(ctx, stmtSetOrderPaid.For(d), s.order, s.payment, sqldb.TimeArg(d, now), orderID); err != nil {
		return fmt.Errorf("entities: mark order paid: %w", err)
	}
	return nil
}

// ShipOrder marks the order Shipped in tx (the Ship action). Only an order that is NotYetShipped and neither
// Cancelled nor Complete can be shipped; otherwise the answer is a 409 *odata.Error naming the current state. A
// Pending order becomes Processing. An unknown order is a 404.
func ShipOrder(ctx context.Context, tx *sqldb.Tx, orderID string) error {
	s, err := lockOrder(ctx, tx, orderID)
	if err != nil {
		return err
	}
	if err := s.refuseClosed("shipped"); err != nil {
		return err
	}
	if s.shipping != ShippingStatusNotYetShipped {
		return odata.Conflict(fmt.Sprintf("The order cannot be shipped: its shipping status is %s, not NotYetShipped.",
			ShippingStatusName(s.shipping)))
	}
	s.shipping = ShippingStatusShipped
	s.settle()
	return setOrderState(ctx, tx, orderID, s)
}

// DeliverOrder marks a Shipped order Delivered in tx (the Deliver action); a paid order becomes Complete. Any
// other shipping status, or a Cancelled or Complete order, is a 409 *odata.Error naming the current state. An
// unknown order is a 404.
func DeliverOrder(ctx context.Context, tx *sqldb.Tx, orderID string) error {
	s, err := lockOrder(ctx, tx, orderID)
	if err != nil {
		return err
	}
	if err := s.refuseClosed("delivered"); err != nil {
		return err
	}
	if s.shipping != ShippingStatusShipped {
		return odata.Conflict(fmt.Sprintf("The order cannot be delivered: its shipping status is %s, not Shipped.",
			ShippingStatusName(s.shipping)))
	}
	s.shipping = ShippingStatusDelivered
	s.settle()
	return setOrderState(ctx, tx, orderID, s)
}

// CancelOrder cancels the order in tx (the Cancel action): for each item it returns the quantity to the stock of
// a product that still exists and manages its stock, and lowers the product's Sold by it (never below 0). The
// payment status is left as it is. Only a Pending or Processing order that has not been shipped can be
// cancelled; otherwise the answer is a 409 *odata.Error naming the current state. An unknown order is a 404.
func CancelOrder(ctx context.Context, tx *sqldb.Tx, orderID string) error {
	d := tx.Dialect()
	s, err := lockOrder(ctx, tx, orderID)
	if err != nil {
		return err
	}
	if err := s.refuseClosed("cancelled"); err != nil {
		return err
	}
	if s.shipping == ShippingStatusShipped || s.shipping == ShippingStatusDelivered {
		return odata.Conflict(fmt.Sprintf("The order cannot be cancelled: its shipping status is %s.",
			ShippingStatusName(s.shipping)))
	}
	type line struct {
		productID string
		qty       int64
	}
	rows, err := tx.QueryContext(ctx, stmtOrderItemsQty.For(d), orderID)
	if err != nil {
		return fmt.Errorf("entities: cancel order: %w", err)
	}
	var lines []line
	for rows.Next() {
		var l line
		if err := rows.Scan(&l.productID, &l.qty); err != nil {
			rows.Close()
			return fmt.Errorf("entities: cancel order: %w", err)
		}
		lines = append(lines, l)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("entities: cancel order: %w", err)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("entities: cancel order: %w", err)
	}
	now := sqldb.TimeArg(d, time.Now())
	// Lines come ordered by product id, the order in which checkout takes stock: no deadlock between the two.
	for _, l := range lines {
		if _, err := tx.ExecContext(ctx, stmtReturnStock.For(d), ManageInventoryMethodManageStock, l.qty, l.qty, l.qty,
			now, l.productID); err != nil {
			return fmt.Errorf("entities: cancel order: return stock: %w", err)
		}
	}
	s.order = OrderStatusCancelled
	return setOrderState(ctx, tx, orderID, s)
}

func setOrderState(ctx context.Context, tx *sqldb.Tx, orderID string, s orderState) error {
	d := tx.Dialect()
	if _, err := tx.ExecContext(ctx, stmtSetOrderState.For(d), s.order, s.payment, s.shipping, orderID); err != nil {
		return fmt.Errorf("entities: update order: %w", err)
	}
	return nil
}

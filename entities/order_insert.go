package entities

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// Order is an order as a checkout places it: what InsertOrder stores, pending payment, with its items. A string
// field that may be null is stored as NULL when it is "".
type Order struct {
	// ID, OrderNumber and Code are set by InsertOrder.
	ID          string
	OrderNumber int64
	Code        string

	CustomerID    string
	CustomerEmail string
	// ShippingStatus is ShippingStatusNotYetShipped, or ShippingStatusShippingNotRequired when nothing ships.
	ShippingStatus          int
	PaymentMethodSystemName string
	// ShippingMethod and ShippingRateProviderSystemName name how the order ships; "" when nothing ships.
	ShippingMethod                 string
	ShippingRateProviderSystemName string
	PickUpInStore                  bool

	OrderSubtotal              decimal.Decimal
	OrderShipping              decimal.Decimal
	PaymentMethodAdditionalFee decimal.Decimal
	OrderTax                   decimal.Decimal
	OrderTotal                 decimal.Decimal

	BillingAddress Address
	// ShippingAddress is nil when the order is not shipped to an address (nothing ships, or it is picked up).
	ShippingAddress *Address
	CreatedOnUtc    time.Time
	Items           []OrderItem
}

// OrderItem is one line of an Order.
type OrderItem struct {
	ProductID   string
	ProductName string
	Sku         string
	Quantity    int64
	UnitPrice   decimal.Decimal
	// Price is the line's total: UnitPrice x Quantity.
	Price decimal.Decimal
}

// orderCodeAlphabet are the characters of Order.Code.
const orderCodeAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// newOrderCode returns a random Order.Code: 8 characters of orderCodeAlphabet, uniformly drawn. Tests replace
// it to force a collision.
var newOrderCode = func() string {
	var out [8]byte
	var buf [16]byte
	n := 0
	for n < len(out) {
		_, _ = rand.Read(buf[:])
		for _, b := range buf {
			// 252 = 7 x 36: rejecting larger bytes keeps every character equally likely.
			if b < 252 && n < len(out) {
				out[n] = orderCodeAlphabet[b%36]
				n++
			}
		}
	}
	return string(out[:])
}

// maxCodeAttempts bounds the draws of a unique order code (with 36^8 codes, a second draw is already rare).
const maxCodeAttempts = 10

// orderColumns are the columns InsertOrder writes, in the order of orderValues, then the code.
var orderColumns = func() []string {
	cols := []string{"id", "order_number", "customer_id", "customer_email", "order_status", "payment_status",
		"shipping_status", "payment_method_system_name", "shipping_method", "shipping_rate_provider_system_name",
		"pick_up_in_store", "order_subtotal", "order_shipping", "payment_method_additional_fee", "order_tax",
		"order_total"}
	cols = append(cols, OrderAddressColumns("billing_address_")...)
	cols = append(cols, OrderAddressColumns("shipping_address_")...)
	return append(cols, "created_on_utc", "code")
}()

// addressMemberColumns are the member columns of the complex address properties of Order, after their prefix,
// in the order of Address.fields.
var addressMemberColumns = []string{"first_name", "last_name", "email", "company", "country_id",
	"state_province_id", "city", "address1", "address2", "zip_postal_code", "phone_number", "fax_number"}

// OrderAddressColumns returns the columns of a complex address property of Order, whose names start with
// prefix ("billing_address_", "shipping_address_"), in the order of the Address fields after ID.
func OrderAddressColumns(prefix string) []string {
	columns := make([]string, len(addressMemberColumns))
	for i, name := range addressMemberColumns {
		columns[i] = prefix + name
	}
	return columns
}

var (
	stmtInsertOrder = sqldb.NewStatement(`INSERT INTO "order" (` + strings.Join(orderColumns, ", ") + `) VALUES (?` +
		strings.Repeat(", ?", len(orderColumns)-1) + `)`)
	stmtInsertOrderItem = sqldb.NewStatement(`INSERT INTO order_item (id, order_id, product_id, product_name, sku,
	quantity, unit_price, price) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
)

// InsertOrder stores o in tx, pending payment, with its items, and returns it with its new ID, the next
// OrderNumber (NextOrderNumber) and a random unique Code of 8 letters and digits. Each insert runs under a
// savepoint, so a code already taken (a unique violation, as the dialect classifies it) is drawn again without
// aborting the transaction.
func InsertOrder(ctx context.Context, tx *sqldb.Tx, o Order) (Order, error) {
	d := tx.Dialect()
	number, err := NextOrderNumber(ctx, tx)
	if err != nil {
		return Order{}, err
	}
	o.ID, o.OrderNumber = odata.NewID(), number
	values, err := orderValues(d, o)
	if err != nil {
		return Order{}, err
	}
	if o.Code, err = insertOrderRow(ctx, tx, values); err != nil {
		return Order{}, err
	}
	for _, item := range o.Items {
		if err := insertOrderItem(ctx, tx, o.ID, item); err != nil {
			return Order{}, err
		}
	}
	return o, nil
}

// orderValues returns the values of the order row for orderColumns, without the code.
func orderValues(d sqldb.Dialect, o Order) ([]any, error) {
	values := []any{o.ID, o.OrderNumber, o.CustomerID, o.CustomerEmail, OrderStatusPending, PaymentStatusPending,
		o.ShippingStatus, o.PaymentMethodSystemName, nullString(o.ShippingMethod),
		nullString(o.ShippingRateProviderSystemName), o.PickUpInStore}
	for _, amount := range []struct {
		column string
		value  decimal.Decimal
	}{{"order_subtotal", o.OrderSubtotal}, {"order_shipping", o.OrderShipping},
		{"payment_method_additional_fee", o.PaymentMethodAdditionalFee}, {"order_tax", o.OrderTax},
		{"order_total", o.OrderTotal}} {
		arg, err := sqldb.DecimalArg(d, amount.value, moneyScale)
		if err != nil {
			return nil, fmt.Errorf("entities: insert order: %s: %w", amount.column, err)
		}
		values = append(values, arg)
	}
	values = appendAddressValues(values, &o.BillingAddress)
	values = appendAddressValues(values, o.ShippingAddress)
	return append(values, sqldb.TimeArg(d, o.CreatedOnUtc)), nil
}

// appendAddressValues appends the values of a's fields after its ID, in column order (all NULL when a is nil).
func appendAddressValues(values []any, a *Address) []any {
	if a == nil {
		return append(values, make([]any, len(addressMemberColumns))...)
	}
	for _, f := range a.fields() {
		values = append(values, nullString(*f))
	}
	return values
}

// insertOrderRow inserts the order row with a fresh random code, drawing again while the code is taken, and
// returns the code.
func insertOrderRow(ctx context.Context, tx *sqldb.Tx, values []any) (string, error) {
	d := tx.Dialect()
	for attempt := 1; ; attempt++ {
		code := newOrderCode()
		if _, err := tx.ExecContext(ctx, "SAVEPOINT order_code"); err != nil {
			return "", fmt.Errorf("entities: insert order: %w", err)
		}
		_, err := tx.ExecContext(ctx, stmtInsertOrder.For(d), append(values[:len(values):len(values)], code)...)
		if err == nil {
			if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT order_code"); err != nil {
				return "", fmt.Errorf("entities: insert order: %w", err)
			}
			return code, nil
		}
		if d.ClassifyError(err) != sqldb.ErrUniqueViolation || attempt == maxCodeAttempts {
			return "", fmt.Errorf("entities: insert order: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT order_code"); err != nil {
			return "", fmt.Errorf("entities: insert order: %w", err)
		}
	}
}

// insertOrderItem inserts one item of the order orderID.
func insertOrderItem(ctx context.Context, tx *sqldb.Tx, orderID string, item OrderItem) error {
	d := tx.Dialect()
	unitPrice, err := sqldb.DecimalArg(d, item.UnitPrice, moneyScale)
	if err != nil {
		return fmt.Errorf("entities: insert order item: unit_price: %w", err)
	}
	price, err := sqldb.DecimalArg(d, item.Price, moneyScale)
	if err != nil {
		return fmt.Errorf("entities: insert order item: price: %w", err)
	}
	if _, err := tx.ExecContext(ctx, stmtInsertOrderItem.For(d), odata.NewID(), orderID, item.ProductID,
		item.ProductName, nullString(item.Sku), item.Quantity, unitPrice, price); err != nil {
		return fmt.Errorf("entities: insert order item: %w", err)
	}
	return nil
}

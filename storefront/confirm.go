package storefront

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// confirmResult is the answer of ConfirmOrder.
type confirmResult struct {
	Success     int    `json:"success"`
	OrderID     string `json:"OrderId"`
	OrderNumber int64  `json:"OrderNumber"`
	OrderCode   string `json:"OrderCode"`
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

var (
	stmtTakeStock = sqldb.NewStatement(`UPDATE product SET stock_quantity = stock_quantity - ?, sold = sold + ?,
	updated_on_utc = ? WHERE id = ? AND (backorder_mode = ? OR stock_quantity >= ?)`)
	stmtAddSold    = sqldb.NewStatement(`UPDATE product SET sold = sold + ?, updated_on_utc = ? WHERE id = ?`)
	stmtStockOf    = sqldb.NewStatement(`SELECT stock_quantity FROM product WHERE id = ?`)
	stmtInsertItem = sqldb.NewStatement(`INSERT INTO order_item (id, order_id, product_id, product_name, sku, quantity,
	unit_price, price) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	stmtAddRole = sqldb.NewStatement(`INSERT INTO customer_role_mapping (customer_id, customer_role_id, ordinal)
SELECT ?, ?, COALESCE(MAX(ordinal), -1) + 1 FROM customer_role_mapping WHERE customer_id = ?
ON CONFLICT (customer_id, customer_role_id) DO NOTHING`)
)

// confirmOrder serves POST /checkout/ConfirmOrder/: in one transaction it re-validates every cart line, takes
// the stock, creates the order with its items, adds the PurchasedWithProduct roles and clears the cart and the
// checkout state. Any failing line is a 409 with one detail per line, and nothing changes.
func (s *Store) confirmOrder(r *http.Request, c customer) (any, error) {
	ctx := r.Context()
	if _, err := readForm(r); err != nil {
		return nil, err
	}
	var res confirmResult
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		res, err = s.placeOrder(ctx, tx, c)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (s *Store) placeOrder(ctx context.Context, tx *sql.Tx, c customer) (confirmResult, error) {
	co, err := s.beginStep(ctx, tx, c.id, stepConfirm)
	if err != nil {
		return confirmResult{}, err
	}
	now := co.cart.now
	t, err := s.totals(ctx, tx, co)
	if err != nil {
		return confirmResult{}, err
	}
	var details []odata.ErrorDetail
	for _, ln := range co.cart.lines {
		if ws := lineWarnings(ln.p, cartList, ln.qty, ln.qty, 0, now); len(ws) > 0 {
			details = append(details, lineDetail(ln, messages(ws)))
		}
	}
	if len(details) > 0 {
		return confirmResult{}, errLines(details)
	}
	billing, found, err := entities.LoadAddress(ctx, tx, s.d, c.id, co.state.billingAddressID)
	if err != nil {
		return confirmResult{}, err
	}
	if !found {
		return confirmResult{}, errStepMissing(stepBilling)
	}
	var shipping *entities.Address
	if co.needsShippingMethod() {
		a, found, err := entities.LoadAddress(ctx, tx, s.d, c.id, co.state.shippingAddressID)
		if err != nil {
			return confirmResult{}, err
		}
		if !found {
			return confirmResult{}, errStepMissing(stepShipping)
		}
		shipping = &a
	}

	// Take the stock first, product by product in id order (so two checkouts lock rows in the same order and
	// cannot deadlock). The conditional UPDATE is what keeps stock from going negative under concurrency: on
	// PostgreSQL it re-reads the row after waiting for another checkout's lock.
	lines := append([]line(nil), co.cart.lines...)
	sort.Slice(lines, func(i, j int) bool { return lines[i].p.id < lines[j].p.id })
	if short, err := s.takeStock(ctx, tx, lines, now); err != nil {
		return confirmResult{}, err
	} else if len(short) > 0 {
		return confirmResult{}, errLines(short)
	}
	for _, ln := range lines {
		if ln.p.manageStock {
			if err := entities.ApplyLowStockActivity(ctx, tx, s.d, ln.p.id); err != nil {
				return confirmResult{}, err
			}
		}
	}

	number, err := entities.NextOrderNumber(ctx, tx, s.d)
	if err != nil {
		return confirmResult{}, err
	}
	orderID := odata.NewID()
	cols, vals, err := s.orderRow(orderID, number, co, t, billing, shipping, now)
	if err != nil {
		return confirmResult{}, err
	}
	code, err := s.insertOrder(ctx, tx, cols, vals)
	if err != nil {
		return confirmResult{}, err
	}
	for _, ln := range co.cart.lines {
		unit, err := sqldb.DecimalArg(s.d, ln.unitPrice, moneyScale)
		if err != nil {
			return confirmResult{}, err
		}
		sub, err := sqldb.DecimalArg(s.d, ln.subTotal(), moneyScale)
		if err != nil {
			return confirmResult{}, err
		}
		if _, err := tx.ExecContext(ctx, s.q(stmtInsertItem), odata.NewID(), orderID, ln.p.id, ln.p.name,
			nullArg(ln.p.sku), ln.qty, unit, sub); err != nil {
			return confirmResult{}, fmt.Errorf("storefront: confirm order: insert item: %w", err)
		}
	}
	if err := s.addPurchasedRoles(ctx, tx, c.id, lines); err != nil {
		return confirmResult{}, err
	}

	// Clear the lines that were ordered (a line added meanwhile by another request stays) and the checkout.
	ids := make([]string, len(co.cart.lines))
	for i, ln := range co.cart.lines {
		ids[i] = ln.id
	}
	q, args, err := s.b.Delete("shopping_cart_item").Where(sq.Eq{"id": ids}).ToSql()
	if err != nil {
		return confirmResult{}, err
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return confirmResult{}, fmt.Errorf("storefront: confirm order: clear cart: %w", err)
	}
	if _, err := tx.ExecContext(ctx, s.q(stmtDeleteState), c.id); err != nil {
		return confirmResult{}, fmt.Errorf("storefront: confirm order: clear checkout: %w", err)
	}
	return confirmResult{Success: 1, OrderID: orderID, OrderNumber: number, OrderCode: code}, nil
}

// takeStock takes the stock of the managed products of lines (in the order given) and raises every product's
// Sold; it returns one detail per line whose stock is short.
func (s *Store) takeStock(ctx context.Context, tx *sql.Tx, lines []line, now time.Time) ([]odata.ErrorDetail, error) {
	var details []odata.ErrorDetail
	nowArg := s.timeArg(now)
	for _, ln := range lines {
		if !ln.p.manageStock {
			if _, err := tx.ExecContext(ctx, s.q(stmtAddSold), ln.qty, nowArg, ln.p.id); err != nil {
				return nil, fmt.Errorf("storefront: confirm order: %w", err)
			}
			continue
		}
		res, err := tx.ExecContext(ctx, s.q(stmtTakeStock), ln.qty, ln.qty, nowArg, ln.p.id,
			entities.BackorderModeAllowQtyBelow0, ln.qty)
		if err != nil {
			return nil, fmt.Errorf("storefront: confirm order: take stock: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, fmt.Errorf("storefront: confirm order: take stock: %w", err)
		} else if n == 0 {
			var stock int64
			if err := tx.QueryRowContext(ctx, s.q(stmtStockOf), ln.p.id).Scan(&stock); err != nil {
				return nil, fmt.Errorf("storefront: confirm order: %w", err)
			}
			details = append(details, lineDetail(ln, []string{fmt.Sprintf(
				"Your quantity exceeds stock on hand. The maximum quantity that can be added is %d.", max(0, stock))}))
		}
	}
	return details, nil
}

// lineDetail is the detail of a cart line that cannot be ordered: its warnings, after the product's name.
func lineDetail(ln line, msgs []string) odata.ErrorDetail {
	return odata.ErrorDetail{Code: odata.CodeConflict, Target: ln.p.id, Message: ln.p.name + ": " + strings.Join(msgs, " ")}
}

func errLines(details []odata.ErrorDetail) error {
	return &odata.Error{Code: odata.CodeConflict, Details: details,
		Message: "Some products in your cart cannot be ordered as they are; nothing was ordered."}
}

// orderRow returns the columns and values of the order row, without its code.
func (s *Store) orderRow(id string, number int64, co *checkout, t orderTotals, billing entities.Address, shipping *entities.Address, now time.Time) ([]string, []any, error) {
	shippingStatus := entities.ShippingStatusNotYetShipped
	var method, provider any
	switch {
	case !co.shippable:
		shippingStatus = entities.ShippingStatusShippingNotRequired
	case co.state.pickUp:
		method, provider = pickUpMethodName, pickUpProviderName
	default:
		method, provider = t.shippingMethod.name, t.shippingMethod.provider
	}
	cols := []string{"id", "order_number", "customer_id", "customer_email", "order_status", "payment_status",
		"shipping_status", "payment_method_system_name", "shipping_method", "shipping_rate_provider_system_name",
		"pick_up_in_store"}
	vals := []any{id, number, co.cart.buyer.id, co.cart.buyer.email, entities.OrderStatusPending,
		entities.PaymentStatusPending, shippingStatus, t.paymentMethod.systemName, method, provider, co.state.pickUp}
	for _, m := range []struct {
		col string
		v   decimal.Decimal
	}{{"order_subtotal", t.subtotal}, {"order_shipping", t.shipping}, {"payment_method_additional_fee", t.paymentFee},
		{"order_tax", decimal.Zero}, {"order_total", t.total}} {
		arg, err := sqldb.DecimalArg(s.d, m.v, moneyScale)
		if err != nil {
			return nil, nil, fmt.Errorf("storefront: confirm order: %s: %w", m.col, err)
		}
		cols, vals = append(cols, m.col), append(vals, arg)
	}
	for _, a := range []struct {
		prefix string
		a      *entities.Address
	}{{"billing_address_", &billing}, {"shipping_address_", shipping}} {
		fields := addressValues(a.a)
		for i, name := range addressColumnNames {
			cols, vals = append(cols, a.prefix+name), append(vals, fields[i])
		}
	}
	cols, vals = append(cols, "created_on_utc"), append(vals, s.timeArg(now))
	return cols, vals, nil
}

// addressColumnNames are the member columns of the complex address properties of Order, in entities.Address
// field order.
var addressColumnNames = []string{"first_name", "last_name", "email", "company", "country_id",
	"state_province_id", "city", "address1", "address2", "zip_postal_code", "phone_number", "fax_number"}

// addressValues returns the values of a's fields for addressColumnNames (all NULL when a is nil).
func addressValues(a *entities.Address) []any {
	out := make([]any, len(addressColumnNames))
	if a == nil {
		return out
	}
	for i, v := range []string{a.FirstName, a.LastName, a.Email, a.Company, a.CountryID, a.StateProvinceID, a.City,
		a.Address1, a.Address2, a.ZipPostalCode, a.PhoneNumber, a.FaxNumber} {
		out[i] = nullArg(v)
	}
	return out
}

// insertOrder inserts the order row with a fresh random code, drawing again when the code is taken: each insert
// runs under a savepoint, so a unique violation (classified by the dialect) does not abort the transaction.
func (s *Store) insertOrder(ctx context.Context, tx *sql.Tx, cols []string, vals []any) (string, error) {
	cols = append(cols[:len(cols):len(cols)], "code")
	for attempt := 1; ; attempt++ {
		code := newOrderCode()
		q, args, err := s.b.Insert(`"order"`).Columns(cols...).Values(append(vals[:len(vals):len(vals)], code)...).ToSql()
		if err != nil {
			return "", err
		}
		if _, err := tx.ExecContext(ctx, "SAVEPOINT order_code"); err != nil {
			return "", fmt.Errorf("storefront: confirm order: %w", err)
		}
		_, err = tx.ExecContext(ctx, q, args...)
		if err == nil {
			if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT order_code"); err != nil {
				return "", fmt.Errorf("storefront: confirm order: %w", err)
			}
			return code, nil
		}
		if s.d.ClassifyError(err) != sqldb.ErrUniqueViolation || attempt == maxCodeAttempts {
			return "", fmt.Errorf("storefront: confirm order: insert order: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT order_code"); err != nil {
			return "", fmt.Errorf("storefront: confirm order: %w", err)
		}
	}
}

// addPurchasedRoles adds the customer to every role whose PurchasedWithProductId is one of the ordered
// products.
func (s *Store) addPurchasedRoles(ctx context.Context, tx *sql.Tx, customerID string, lines []line) error {
	ids := make([]string, len(lines))
	for i, ln := range lines {
		ids[i] = ln.p.id
	}
	q, args, err := s.b.Select("id").From("customer_role").Where(sq.Eq{"purchased_with_product_id": ids}).OrderBy("id").ToSql()
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("storefront: confirm order: roles: %w", err)
	}
	var roles []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("storefront: confirm order: roles: %w", err)
		}
		roles = append(roles, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("storefront: confirm order: roles: %w", err)
	}
	for _, role := range roles {
		if _, err := tx.ExecContext(ctx, s.q(stmtAddRole), customerID, role, customerID); err != nil {
			return fmt.Errorf("storefront: confirm order: add role: %w", err)
		}
	}
	return nil
}

package storefront

import (
	"context"
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

// confirmOrder serves POST /checkout/ConfirmOrder/: in one transaction it re-validates every cart line, takes
// the stock, creates the order with its items, adds the PurchasedWithProduct roles and clears the cart and the
// checkout state. Any failing line is a 409 with one detail per line, and nothing changes.
func (s *Store) confirmOrder(r *http.Request, c customer) (any, error) {
	ctx := r.Context()
	if _, err := readForm(r); err != nil {
		return nil, err
	}
	var res confirmResult
	err := s.inTx(ctx, func(tx *sqldb.Tx) error {
		var err error
		res, err = s.placeOrder(ctx, tx, c)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// placeOrder places the order of the customer's checkout in tx: see confirmOrder.
func (s *Store) placeOrder(ctx context.Context, tx *sqldb.Tx, c customer) (confirmResult, error) {
	co, err := s.beginStep(ctx, tx, c.id, stepConfirm)
	if err != nil {
		return confirmResult{}, err
	}
	now := co.cart.now
	totals, err := s.totals(ctx, tx, co)
	if err != nil {
		return confirmResult{}, err
	}
	if err := checkLines(co.cart.lines, now); err != nil {
		return confirmResult{}, err
	}
	billing, shipping, err := s.orderAddresses(ctx, tx, c, co)
	if err != nil {
		return confirmResult{}, err
	}
	// Take the stock first, product by product in id order (so two checkouts lock rows in the same order and
	// cannot deadlock).
	lines := append([]line(nil), co.cart.lines...)
	sort.Slice(lines, func(i, j int) bool { return lines[i].p.id < lines[j].p.id })
	if err := s.takeStock(ctx, tx, lines, now); err != nil {
		return confirmResult{}, err
	}
	order, err := entities.InsertOrder(ctx, tx, newOrder(co, totals, billing, shipping, now))
	if err != nil {
		return confirmResult{}, fmt.Errorf("storefront: confirm order: %w", err)
	}
	productIDs := make([]string, len(lines))
	for i, ln := range lines {
		productIDs[i] = ln.p.id
	}
	if err := entities.AddPurchasedRoles(ctx, tx, c.id, productIDs); err != nil {
		return confirmResult{}, fmt.Errorf("storefront: confirm order: %w", err)
	}
	if err := s.clearCheckout(ctx, tx, c, co); err != nil {
		return confirmResult{}, err
	}
	return confirmResult{Success: 1, OrderID: order.ID, OrderNumber: order.OrderNumber, OrderCode: order.Code}, nil
}

// checkLines refuses, with a 409 that has one detail per line, lines that cannot be ordered now as they are.
func checkLines(lines []line, now time.Time) error {
	var details []odata.ErrorDetail
	for _, ln := range lines {
		if warnings := lineWarnings(ln.p, cartList, ln.qty, ln.qty, 0, now); len(warnings) > 0 {
			details = append(details, lineDetail(ln, messages(warnings)))
		}
	}
	if len(details) > 0 {
		return errLines(details)
	}
	return nil
}

// orderAddresses returns the billing address of the checkout and its shipping address (nil when the order is
// not shipped by a shipping method); an address gone meanwhile leaves its step undone (409).
func (s *Store) orderAddresses(ctx context.Context, tx *sqldb.Tx, c customer, co *checkout) (entities.Address, *entities.Address, error) {
	billing, found, err := entities.LoadAddress(ctx, tx, c.id, co.state.billingAddressID)
	if err != nil {
		return entities.Address{}, nil, err
	}
	if !found {
		return entities.Address{}, nil, errStepMissing(stepBilling)
	}
	if !co.needsShippingMethod() {
		return billing, nil, nil
	}
	shipping, found, err := entities.LoadAddress(ctx, tx, c.id, co.state.shippingAddressID)
	if err != nil {
		return entities.Address{}, nil, err
	}
	if !found {
		return entities.Address{}, nil, errStepMissing(stepShipping)
	}
	return billing, &shipping, nil
}

// newOrder returns the order of the checkout with its totals and addresses, placed at now.
func newOrder(co *checkout, totals orderTotals, billing entities.Address, shipping *entities.Address, now time.Time) entities.Order {
	o := entities.Order{CustomerID: co.cart.buyer.id, CustomerEmail: co.cart.buyer.email,
		ShippingStatus: entities.ShippingStatusNotYetShipped, PaymentMethodSystemName: totals.paymentMethod.systemName,
		PickUpInStore: co.state.pickUp, OrderSubtotal: totals.subtotal, OrderShipping: totals.shipping,
		PaymentMethodAdditionalFee: totals.paymentFee, OrderTax: decimal.Zero, OrderTotal: totals.total,
		BillingAddress: billing, ShippingAddress: shipping, CreatedOnUtc: now}
	switch {
	case !co.shippable:
		o.ShippingStatus = entities.ShippingStatusShippingNotRequired
	case co.state.pickUp:
		o.ShippingMethod, o.ShippingRateProviderSystemName = pickUpMethodName, pickUpProviderName
	default:
		o.ShippingMethod, o.ShippingRateProviderSystemName = totals.shippingMethod.name, totals.shippingMethod.provider
	}
	for _, ln := range co.cart.lines {
		o.Items = append(o.Items, entities.OrderItem{ProductID: ln.p.id, ProductName: ln.p.name, Sku: ln.p.sku,
			Quantity: ln.qty, UnitPrice: ln.unitPrice, Price: ln.subTotal()})
	}
	return o
}

// clearCheckout deletes the cart lines that were ordered (a line added meanwhile by another request stays) and
// the checkout state.
func (s *Store) clearCheckout(ctx context.Context, tx *sqldb.Tx, c customer, co *checkout) error {
	ids := make([]string, len(co.cart.lines))
	for i, ln := range co.cart.lines {
		ids[i] = ln.id
	}
	query, args, err := s.builder.Delete("shopping_cart_item").Where(sq.Eq{"id": ids}).ToSql()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("storefront: confirm order: clear cart: %w", err)
	}
	if _, err := tx.ExecContext(ctx, stmtDeleteState.For(s.db.Dialect()), c.id); err != nil {
		return fmt.Errorf("storefront: confirm order: clear checkout: %w", err)
	}
	return nil
}

// takeStock takes the stock of the managed products of lines (in the order given) and raises every product's
// Sold (entities.TakeStock, entities.AddSold), then applies the LowStockActivity of the managed products. When
// the stock of some line is short it is a 409 with one detail per such line.
func (s *Store) takeStock(ctx context.Context, tx *sqldb.Tx, lines []line, now time.Time) error {
	var details []odata.ErrorDetail
	for _, ln := range lines {
		if !ln.p.manageStock {
			if err := entities.AddSold(ctx, tx, ln.p.id, ln.qty, now); err != nil {
				return fmt.Errorf("storefront: confirm order: %w", err)
			}
			continue
		}
		taken, onHand, err := entities.TakeStock(ctx, tx, ln.p.id, ln.qty, now)
		if err != nil {
			return fmt.Errorf("storefront: confirm order: %w", err)
		}
		if !taken {
			details = append(details, lineDetail(ln, []string{fmt.Sprintf(
				"Your quantity exceeds stock on hand. The maximum quantity that can be added is %d.", max(0, onHand))}))
		}
	}
	if len(details) > 0 {
		return errLines(details)
	}
	for _, ln := range lines {
		if ln.p.manageStock {
			if err := entities.ApplyLowStockActivity(ctx, tx, ln.p.id); err != nil {
				return err
			}
		}
	}
	return nil
}

// lineDetail is the detail of a cart line that cannot be ordered: its warnings, after the product's name.
func lineDetail(ln line, msgs []string) odata.ErrorDetail {
	return odata.ErrorDetail{Code: odata.CodeConflict, Target: ln.p.id, Message: ln.p.name + ": " + strings.Join(msgs, " ")}
}

func errLines(details []odata.ErrorDetail) error {
	return &odata.Error{Code: odata.CodeConflict, Details: details,
		Message: "Some products in your cart cannot be ordered as they are; nothing was ordered."}
}

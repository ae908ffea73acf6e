package storefront

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// line is a cart or wishlist line with its product, priced for the customer.
type line struct {
	id        string
	listType  int
	qty       int64
	p         product
	unitPrice decimal.Decimal
}

func (l line) subTotal() decimal.Decimal { return l.unitPrice.Mul(decimal.NewFromInt(l.qty)) }

// list is a customer's cart or wishlist, priced.
type list struct {
	listType int
	buyer    buyer
	lines    []line
	now      time.Time
}

func (l *list) totalQuantity() int64 {
	var n int64
	for _, ln := range l.lines {
		n += ln.qty
	}
	return n
}

func (l *list) subTotal() decimal.Decimal {
	sum := decimal.Zero
	for _, ln := range l.lines {
		sum = sum.Add(ln.subTotal())
	}
	return sum
}

// checkAmounts refuses, with a 400 LimitExceeded on target, a list whose line totals or subtotal, or for the
// cart its subtotal plus the per-unit shipping charges of its lines, are past the money range: an order of it
// could not be stored. Run when lines change, it keeps every amount of a checkout in range but for the fixed
// fees of the shipping and payment methods and prices raised later, which checkout checks.
func (l *list) checkAmounts(target string) error {
	charges := decimal.Zero
	for _, ln := range l.lines {
		if !inMoneyRange(ln.subTotal()) {
			return errAmountTooLarge("total of the line of "+ln.p.name, target)
		}
		if l.listType == cartList && ln.p.shipEnabled && !ln.p.freeShipping {
			charges = charges.Add(ln.p.additionalShipping.Mul(decimal.NewFromInt(ln.qty)))
		}
	}
	sub := l.subTotal()
	if !inMoneyRange(sub) || !inMoneyRange(sub.Add(charges)) {
		return errAmountTooLarge(listName(l.listType)+" total", target)
	}
	return nil
}

var stmtLines = sqldb.NewStatement(`SELECT i.id, i.quantity, ` + productColumns + `
FROM shopping_cart_item i JOIN product p ON p.id = i.product_id
WHERE i.customer_id = ? AND i.shopping_cart_type = ? ORDER BY i.id`)

// loadList reads and prices the customer's list of the type (cartList or wishList), oldest line first.
func (s *Store) loadList(ctx context.Context, q entities.Querier, customerID string, listType int) (*list, error) {
	b, err := s.loadBuyer(ctx, q, customerID)
	if err != nil {
		return nil, err
	}
	l := &list{listType: listType, buyer: b, now: s.now().UTC()}
	rows, err := q.QueryContext(ctx, stmtLines.For(s.db.Dialect()), customerID, listType)
	if err != nil {
		return nil, fmt.Errorf("storefront: load cart: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			ln line
			ps productScan
		)
		if err := rows.Scan(append([]any{&ln.id, &ln.qty}, ps.dest()...)...); err != nil {
			return nil, fmt.Errorf("storefront: load cart: %w", err)
		}
		if ln.p, err = ps.product(); err != nil {
			return nil, err
		}
		ln.listType = listType
		l.lines = append(l.lines, ln)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storefront: load cart: %w", err)
	}
	rows.Close()
	if err := s.price(ctx, q, l); err != nil {
		return nil, err
	}
	return l, nil
}

// price sets the unit price of every line of l.
func (s *Store) price(ctx context.Context, q entities.Querier, l *list) error {
	ids := make([]string, len(l.lines))
	for i, ln := range l.lines {
		ids[i] = ln.p.id
	}
	tiers, err := s.loadTierPrices(ctx, q, ids)
	if err != nil {
		return err
	}
	for i := range l.lines {
		ln := &l.lines[i]
		ln.unitPrice = unitPrice(ln.p, ln.qty, tiers[ln.p.id], l.buyer, l.now)
	}
	return nil
}

// cartModel is the answer of GET /cart and GET /wishlist.
type cartModel struct {
	Items         []cartItemModel `json:"Items"`
	SubTotal      string          `json:"SubTotal"`
	SubTotalValue number          `json:"SubTotalValue"`
	TotalProducts int64           `json:"TotalProducts"`
	Warnings      []string        `json:"Warnings"`
}

// cartItemModel is a cart or wishlist line with its current warnings.
type cartItemModel struct {
	itemModel
	Warnings []string `json:"Warnings"`
}

// itemModel is a product line of a cart, a wishlist or an order.
type itemModel struct {
	ID             string  `json:"Id"`
	ProductID      string  `json:"ProductId"`
	ProductName    string  `json:"ProductName"`
	ProductSeName  *string `json:"ProductSeName"`
	Sku            *string `json:"Sku"`
	Quantity       int64   `json:"Quantity"`
	UnitPrice      string  `json:"UnitPrice"`
	UnitPriceValue number  `json:"UnitPriceValue"`
	SubTotal       string  `json:"SubTotal"`
	SubTotalValue  number  `json:"SubTotalValue"`
}

// setPrices sets the unit price and the line's subtotal, each as text and as a number.
func (it *itemModel) setPrices(unit, sub decimal.Decimal) {
	it.UnitPrice, it.UnitPriceValue = formatMoney(unit), number(unit)
	it.SubTotal, it.SubTotalValue = formatMoney(sub), number(sub)
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// model returns the list as the cart answer, each line with its current warnings.
func (l *list) model() cartModel {
	m := cartModel{Items: make([]cartItemModel, 0, len(l.lines)), TotalProducts: l.totalQuantity(), Warnings: []string{}}
	for _, ln := range l.lines {
		it := cartItemModel{itemModel: itemModel{ID: ln.id, ProductID: ln.p.id, ProductName: ln.p.name,
			ProductSeName: nullable(ln.p.seName), Sku: nullable(ln.p.sku), Quantity: ln.qty},
			Warnings: messages(lineWarnings(ln.p, l.listType, ln.qty, ln.qty, 0, l.now))}
		it.setPrices(ln.unitPrice, ln.subTotal())
		m.Items = append(m.Items, it)
	}
	sub := l.subTotal()
	m.SubTotal, m.SubTotalValue = formatMoney(sub), number(sub)
	return m
}

// sidebarModel is the SidebarShoppingCart component: a summary of the cart.
type sidebarModel struct {
	Items                     []sidebarItem `json:"Items"`
	TotalProducts             int64         `json:"TotalProducts"`
	SubTotal                  string        `json:"SubTotal"`
	DisplayShoppingCartButton bool          `json:"DisplayShoppingCartButton"`
	DisplayCheckoutButton     bool          `json:"DisplayCheckoutButton"`
}

type sidebarItem struct {
	ID            string  `json:"Id"`
	ProductID     string  `json:"ProductId"`
	ProductName   string  `json:"ProductName"`
	ProductSeName *string `json:"ProductSeName"`
	Quantity      int64   `json:"Quantity"`
	UnitPrice     string  `json:"UnitPrice"`
}

// sidebar returns the cart l as the SidebarShoppingCart component.
func (l *list) sidebar() sidebarModel {
	m := sidebarModel{Items: make([]sidebarItem, 0, len(l.lines)), TotalProducts: l.totalQuantity(),
		SubTotal: formatMoney(l.subTotal()), DisplayShoppingCartButton: true}
	for _, ln := range l.lines {
		m.Items = append(m.Items, sidebarItem{ID: ln.id, ProductID: ln.p.id, ProductName: ln.p.name,
			ProductSeName: nullable(ln.p.seName), Quantity: ln.qty, UnitPrice: formatMoney(ln.unitPrice)})
	}
	m.DisplayCheckoutButton = len(m.Items) > 0
	return m
}

// getCart serves GET /cart and GET /wishlist.
func (s *Store) getCart(listType int) handlerFunc {
	return func(r *http.Request, c customer) (any, error) {
		l, err := s.loadList(r.Context(), s.db, c.id, listType)
		if err != nil {
			return nil, err
		}
		return l.model(), nil
	}
}

// component serves GET /Component/Index?Name=SidebarShoppingCart.
func (s *Store) component(r *http.Request, c customer) (any, error) {
	name := r.URL.Query().Get("Name")
	if name == "" {
		name = newForm(r.URL.Query()).get("name")
	}
	if !strings.EqualFold(name, "SidebarShoppingCart") {
		return nil, odata.NotFound(fmt.Sprintf("There is no component named %q.", name))
	}
	l, err := s.loadList(r.Context(), s.db, c.id, cartList)
	if err != nil {
		return nil, err
	}
	return l.sidebar(), nil
}

// parseListType reads the list type path segment: 1 (cart) or 2 (wishlist).
func parseListType(v string) (int, error) {
	switch v {
	case "1":
		return cartList, nil
	case "2":
		return wishList, nil
	}
	return 0, odata.BadRequest(odata.CodeInvalidValue, "shoppingCartTypeId",
		fmt.Sprintf("The list type must be 1 (shopping cart) or 2 (wishlist), not %q.", v))
}

// addResult is the answer of a successful add to the cart or wishlist.
type addResult struct {
	Success     bool         `json:"success"`
	Message     string       `json:"message"`
	TopCart     *string      `json:"updatetopcartsectionhtml,omitempty"`
	TopWishlist *string      `json:"updatetopwishlistsectionhtml,omitempty"`
	Sidebar     sidebarModel `json:"sidebarshoppingcartmodel"`
}

var (
	stmtLineOfProduct = sqldb.NewStatement(`SELECT id, quantity FROM shopping_cart_item
WHERE customer_id = ? AND shopping_cart_type = ? AND product_id = ?`)
	stmtCountLines = sqldb.NewStatement(`SELECT COUNT(*) FROM shopping_cart_item WHERE customer_id = ? AND shopping_cart_type = ?`)
	stmtInsertLine = sqldb.NewStatement(`INSERT INTO shopping_cart_item (id, customer_id, shopping_cart_type, product_id,
	quantity, created_on_utc, updated_on_utc) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	stmtSetLineQuantity = sqldb.NewStatement(`UPDATE shopping_cart_item SET quantity = ?, updated_on_utc = ? WHERE id = ?`)
)

// addToCart serves POST /addproducttocart/details/{productId}/{type} (details: the quantity comes from the form
// field addtocart_{productId}.EnteredQuantity) and POST /addproducttocart/catalog/{productId}/{type}?quantity=N.
func (s *Store) addToCart(details bool) handlerFunc {
	return func(r *http.Request, c customer) (any, error) {
		ctx := r.Context()
		productID := r.PathValue("productId")
		listType, err := parseListType(r.PathValue("shoppingCartTypeId"))
		if err != nil {
			return nil, err
		}
		var raw, target string
		if details {
			f, err := readForm(r)
			if err != nil {
				return nil, err
			}
			target = "addtocart_" + productID + ".EnteredQuantity"
			raw = f.get(target)
			if raw == "" {
				raw = f.get("addtocart_productid.EnteredQuantity")
			}
		} else {
			target, raw = "quantity", r.URL.Query().Get("quantity")
		}
		qty, err := parseQuantity(raw, target, 1)
		if err != nil {
			return nil, err
		}
		res := addResult{Success: true}
		err = s.inTx(ctx, func(tx *sqldb.Tx) error {
			now := s.now().UTC()
			p, found, err := s.loadProduct(ctx, tx, productID)
			if err != nil {
				return err
			}
			if !found {
				return odata.NotFound("The product does not exist.")
			}
			var (
				lineID   string
				existing int64
			)
			err = tx.QueryRowContext(ctx, stmtLineOfProduct.For(s.db.Dialect())+s.db.Dialect().LockForUpdate(), c.id, listType, productID).Scan(&lineID, &existing)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("storefront: add to cart: %w", err)
			}
			if warnings := lineWarnings(p, listType, qty, existing+qty, existing, now); len(warnings) > 0 {
				return warningsError(warnings)
			}
			if lineID != "" {
				_, err = tx.ExecContext(ctx, stmtSetLineQuantity.For(s.db.Dialect()), existing+qty, s.timeArg(now), lineID)
			} else {
				var n int
				if err := tx.QueryRowContext(ctx, stmtCountLines.For(s.db.Dialect()), c.id, listType).Scan(&n); err != nil {
					return fmt.Errorf("storefront: add to cart: %w", err)
				}
				if n >= maxLines {
					return &odata.Error{Code: odata.CodeLimitExceeded,
						Message: fmt.Sprintf("A %s holds at most %d different products.", listName(listType), maxLines)}
				}
				_, err = tx.ExecContext(ctx, stmtInsertLine.For(s.db.Dialect()), odata.NewID(), c.id, listType, productID, qty,
					s.timeArg(now), s.timeArg(now))
			}
			if err != nil {
				return fmt.Errorf("storefront: add to cart: %w", err)
			}
			cart, err := s.loadList(ctx, tx, c.id, cartList)
			if err != nil {
				return err
			}
			res.Sidebar = cart.sidebar()
			changed := cart
			if listType == wishList {
				if changed, err = s.loadList(ctx, tx, c.id, wishList); err != nil {
					return err
				}
			}
			if err := changed.checkAmounts(target); err != nil {
				return err
			}
			total := changed.totalQuantity()
			count := strconv.FormatInt(total, 10)
			if listType == cartList {
				res.Message, res.TopCart = "The product has been added to your shopping cart", &count
			} else {
				res.Message, res.TopWishlist = "The product has been added to your wishlist", &count
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return res, nil
	}
}

func listName(listType int) string {
	if listType == wishList {
		return "wishlist"
	}
	return "shopping cart"
}

// warningsError is the 400 of refused quantities: one detail per warning.
func warningsError(warnings []warning) error {
	details := make([]odata.ErrorDetail, len(warnings))
	for i, w := range warnings {
		details[i] = odata.ErrorDetail{Code: odata.CodeInvalidValue, Target: w.target, Message: w.message}
	}
	return odata.ValidationError(details...)
}

var (
	stmtLine       = sqldb.NewStatement(`SELECT shopping_cart_type, product_id FROM shopping_cart_item WHERE id = ? AND customer_id = ?`)
	stmtDeleteLine = sqldb.NewStatement(`DELETE FROM shopping_cart_item WHERE id = ? AND customer_id = ?`)
)

// lockLine reads the customer's line (locked on PostgreSQL); another customer's line, or none, is a 404.
func (s *Store) lockLine(ctx context.Context, tx *sqldb.Tx, customerID, lineID string) (listType int, productID string, err error) {
	err = tx.QueryRowContext(ctx, stmtLine.For(s.db.Dialect())+s.db.Dialect().LockForUpdate(), lineID, customerID).Scan(&listType, &productID)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", odata.NotFound("The cart item does not exist.")
	}
	if err != nil {
		return 0, "", fmt.Errorf("storefront: read cart item: %w", err)
	}
	return listType, productID, nil
}

// updateCartItem serves POST /updatecartitem/{itemId}?quantity=N: it sets the quantity of one of the customer's
// cart or wishlist lines (0 removes it) under the rules of adding, and answers the line's list.
func (s *Store) updateCartItem(r *http.Request, c customer) (any, error) {
	ctx := r.Context()
	lineID := r.PathValue("itemId")
	f, err := readQueryForm(r)
	if err != nil {
		return nil, err
	}
	if !f.has("quantity") {
		return nil, odata.ValidationError(odata.ErrorDetail{Code: odata.CodeRequired, Target: "quantity", Message: "quantity is required."})
	}
	qty, err := parseQuantity(f.get("quantity"), "quantity", 0)
	if err != nil {
		return nil, err
	}
	return s.setLineQuantity(ctx, c, lineID, qty)
}

// deleteCartItem serves POST /deletecartitem/{itemId}: it removes one of the customer's cart or wishlist lines
// and answers the line's list.
func (s *Store) deleteCartItem(r *http.Request, c customer) (any, error) {
	return s.setLineQuantity(r.Context(), c, r.PathValue("itemId"), 0)
}

// setLineQuantity sets the quantity of one of the customer's lines (0 removes it) and returns the line's list.
func (s *Store) setLineQuantity(ctx context.Context, c customer, lineID string, qty int64) (cartModel, error) {
	var model cartModel
	err := s.inTx(ctx, func(tx *sqldb.Tx) error {
		listType, productID, err := s.lockLine(ctx, tx, c.id, lineID)
		if err != nil {
			return err
		}
		if qty == 0 {
			if _, err := tx.ExecContext(ctx, stmtDeleteLine.For(s.db.Dialect()), lineID, c.id); err != nil {
				return fmt.Errorf("storefront: delete cart item: %w", err)
			}
		} else {
			p, found, err := s.loadProduct(ctx, tx, productID)
			if err != nil {
				return err
			}
			if !found { // deleted meanwhile: its lines went with it
				return odata.NotFound("The cart item does not exist.")
			}
			if warnings := lineWarnings(p, listType, qty, qty, 0, s.now().UTC()); len(warnings) > 0 {
				return warningsError(warnings)
			}
			if _, err := tx.ExecContext(ctx, stmtSetLineQuantity.For(s.db.Dialect()), qty, s.timeArg(s.now()), lineID); err != nil {
				return fmt.Errorf("storefront: update cart item: %w", err)
			}
		}
		l, err := s.loadList(ctx, tx, c.id, listType)
		if err != nil {
			return err
		}
		if err := l.checkAmounts("quantity"); err != nil {
			return err
		}
		model = l.model()
		return nil
	})
	return model, err
}

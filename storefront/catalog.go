package storefront

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// product is what the storefront reads of a product to put it on a list, price it and order it.
type product struct {
	id, name, seName, sku string
	productType           int
	published             bool
	disableBuy            bool
	disableWishlist       bool
	callForPrice          bool
	availableFrom         time.Time // zero: no start
	availableTo           time.Time // zero: no end
	minQty, maxQty        int64
	allowedQuantities     []int64 // parsed AllowedQuantities, ascending; none: any quantity
	manageStock           bool
	stock                 int64
	backorders            bool
	shipEnabled           bool
	freeShipping          bool
	additionalShipping    decimal.Decimal
	price                 decimal.Decimal
}

// productColumns are the columns scanned by productScan, on the product table aliased p.
const productColumns = `p.id, p.name, p.se_name, p.sku, p.product_type, p.published, p.disable_buy_button,
	p.disable_wishlist_button, p.call_for_price, p.available_start_date_time_utc, p.available_end_date_time_utc,
	p.order_minimum_quantity, p.order_maximum_quantity, p.allowed_quantities, p.manage_inventory_method,
	p.stock_quantity, p.backorder_mode, p.is_ship_enabled, p.is_free_shipping, p.additional_shipping_charge, p.price`

// productScan holds the scan destinations of productColumns.
type productScan struct {
	p                     product
	seName, sku, allowed  sql.NullString
	from, to, addl, price any
	method, backorderMode int
}

func (ps *productScan) dest() []any {
	p := &ps.p
	return []any{&p.id, &p.name, &ps.seName, &ps.sku, &p.productType, &p.published, &p.disableBuy,
		&p.disableWishlist, &p.callForPrice, &ps.from, &ps.to, &p.minQty, &p.maxQty, &ps.allowed, &ps.method,
		&p.stock, &ps.backorderMode, &p.shipEnabled, &p.freeShipping, &ps.addl, &ps.price}
}

func (ps *productScan) product() (product, error) {
	p := ps.p
	p.seName, p.sku = ps.seName.String, ps.sku.String
	p.allowedQuantities = parseAllowedQuantities(ps.allowed.String)
	p.manageStock = ps.method == entities.ManageInventoryMethodManageStock
	p.backorders = ps.backorderMode == entities.BackorderModeAllowQtyBelow0
	var err error
	if ps.from != nil {
		if p.availableFrom, err = sqldb.ScanTime(ps.from); err != nil {
			return p, err
		}
	}
	if ps.to != nil {
		if p.availableTo, err = sqldb.ScanTime(ps.to); err != nil {
			return p, err
		}
	}
	if p.additionalShipping, err = sqldb.ScanDecimal(ps.addl, moneyScale); err != nil {
		return p, err
	}
	if p.price, err = sqldb.ScanDecimal(ps.price, moneyScale); err != nil {
		return p, err
	}
	return p, nil
}

// parseAllowedQuantities reads Product.AllowedQuantities, a comma list of quantities; entries that are not
// positive integers are ignored, and a list with none leaves the quantity free.
func parseAllowedQuantities(s string) []int64 {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var list []int64
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64); err == nil && n > 0 {
			list = append(list, n)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i] < list[j] })
	return list
}

var stmtProduct = sqldb.NewStatement(`SELECT ` + productColumns + ` FROM product p WHERE p.id = ?`)

// loadProduct reads a product; found is false when there is none with the id.
func (s *Store) loadProduct(ctx context.Context, q entities.Querier, id string) (p product, found bool, err error) {
	var ps productScan
	err = q.QueryRowContext(ctx, stmtProduct.For(s.db.Dialect()), id).Scan(ps.dest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return product{}, false, nil
	}
	if err != nil {
		return product{}, false, fmt.Errorf("storefront: load product: %w", err)
	}
	p, err = ps.product()
	return p, err == nil, err
}

// buyer is what pricing and shipping need to know of the customer.
type buyer struct {
	id           string
	email        string
	roles        map[string]bool // ids of the customer's active roles
	freeShipping bool            // the customer's FreeShipping, or one of its active roles'
}

var (
	stmtBuyer = sqldb.NewStatement(`SELECT email, free_shipping FROM customer WHERE id = ?`)
	stmtRoles = sqldb.NewStatement(`SELECT r.id, r.free_shipping FROM customer_role_mapping m
JOIN customer_role r ON r.id = m.customer_role_id WHERE m.customer_id = ? AND r.active = ?`)
)

// loadBuyer reads the customer and its active roles. A customer deleted since its token was checked is a 401.
func (s *Store) loadBuyer(ctx context.Context, q entities.Querier, customerID string) (buyer, error) {
	b := buyer{id: customerID, roles: map[string]bool{}}
	err := q.QueryRowContext(ctx, stmtBuyer.For(s.db.Dialect()), customerID).Scan(&b.email, &b.freeShipping)
	if errors.Is(err, sql.ErrNoRows) {
		return b, odata.Unauthorized("The customer no longer exists.")
	}
	if err != nil {
		return b, fmt.Errorf("storefront: load customer: %w", err)
	}
	rows, err := q.QueryContext(ctx, stmtRoles.For(s.db.Dialect()), customerID, true)
	if err != nil {
		return b, fmt.Errorf("storefront: load roles: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var free bool
		if err := rows.Scan(&id, &free); err != nil {
			return b, fmt.Errorf("storefront: load roles: %w", err)
		}
		b.roles[id] = true
		b.freeShipping = b.freeShipping || free
	}
	return b, rows.Err()
}

// tierPrice is one ProductTierPrice.
type tierPrice struct {
	quantity int64
	price    decimal.Decimal
	roleID   string    // "" applies to everyone
	from, to time.Time // zero: unbounded
}

// loadTierPrices reads the tier prices of the products, by product id.
func (s *Store) loadTierPrices(ctx context.Context, q entities.Querier, productIDs []string) (map[string][]tierPrice, error) {
	out := map[string][]tierPrice{}
	if len(productIDs) == 0 {
		return out, nil
	}
	query, args, err := s.builder.Select("product_id", "quantity", "price", "customer_role_id", "start_date_time_utc",
		"end_date_time_utc").From("product_tier_price").Where(sq.Eq{"product_id": productIDs}).ToSql()
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("storefront: load tier prices: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			productID       string
			tier            tierPrice
			role            sql.NullString
			price, from, to any
		)
		if err := rows.Scan(&productID, &tier.quantity, &price, &role, &from, &to); err != nil {
			return nil, fmt.Errorf("storefront: load tier prices: %w", err)
		}
		tier.roleID = role.String
		if tier.price, err = sqldb.ScanDecimal(price, moneyScale); err != nil {
			return nil, err
		}
		if from != nil {
			if tier.from, err = sqldb.ScanTime(from); err != nil {
				return nil, err
			}
		}
		if to != nil {
			if tier.to, err = sqldb.ScanTime(to); err != nil {
				return nil, err
			}
		}
		out[productID] = append(out[productID], tier)
	}
	return out, rows.Err()
}

// unitPrice is the price of one unit of p on a line of qty units for b at now: the lowest tier price whose
// Quantity is at most qty, whose role (if any) b has and whose dates include now; otherwise p's Price.
func unitPrice(p product, qty int64, tiers []tierPrice, b buyer, now time.Time) decimal.Decimal {
	best, found := decimal.Decimal{}, false
	for _, tier := range tiers {
		if tier.quantity > qty || (tier.roleID != "" && !b.roles[tier.roleID]) ||
			(!tier.from.IsZero() && now.Before(tier.from)) || (!tier.to.IsZero() && now.After(tier.to)) {
			continue
		}
		if !found || tier.price.LessThan(best) {
			best, found = tier.price, true
		}
	}
	if found {
		return best
	}
	return p.price
}

// List types: the last path segment of the add-to-cart routes and shopping_cart_item.shopping_cart_type.
const (
	cartList = 1
	wishList = 2
)

// maxLines is the most distinct products one list holds (SPEC 6).
const maxLines = 1000

// maxLineQuantity bounds a line's quantity (the INTEGER column on PostgreSQL).
const maxLineQuantity = math.MaxInt32

// warning is one reason a product cannot go on a list (or be ordered) in some quantity.
type warning struct{ target, message string }

// lineWarnings returns every reason why the line cannot hold total units of p on the list at now. entered is
// the quantity the request asked for (it must be positive); existing is what the line held before, so the stock
// warning says how many can still be added.
func lineWarnings(p product, listType int, entered, total, existing int64, now time.Time) []warning {
	var warnings []warning
	add := func(target, format string, args ...any) {
		warnings = append(warnings, warning{target: target, message: fmt.Sprintf(format, args...)})
	}
	if !p.published {
		add("ProductId", "This product is not published.")
	}
	if p.productType == entities.ProductTypeGroupedProduct {
		add("ProductId", "A grouped product cannot be bought itself: choose one of its products.")
	}
	if listType == cartList {
		if (!p.availableFrom.IsZero() && now.Before(p.availableFrom)) || (!p.availableTo.IsZero() && now.After(p.availableTo)) {
			add("ProductId", "This product is not available now.")
		}
		if p.disableBuy {
			add("ProductId", "Buying is disabled for this product.")
		}
		if p.callForPrice {
			add("ProductId", "This product cannot be bought online: call for its price.")
		}
	} else if p.disableWishlist {
		add("ProductId", "The wishlist is disabled for this product.")
	}
	if entered <= 0 {
		add("Quantity", "Quantity should be positive.")
		return warnings
	}
	if total < p.minQty {
		add("Quantity", "The minimum quantity allowed for purchase is %d.", p.minQty)
	}
	if maxQty := min(p.maxQty, maxLineQuantity); total > maxQty {
		add("Quantity", "The maximum quantity allowed for purchase is %d.", maxQty)
	}
	if allowed := p.allowedQuantities; len(allowed) > 0 {
		ok := false
		for _, a := range allowed {
			ok = ok || a == total
		}
		if !ok {
			strs := make([]string, len(allowed))
			for i, a := range allowed {
				strs[i] = strconv.FormatInt(a, 10)
			}
			add("Quantity", "Allowed quantities for this product: %s.", strings.Join(strs, ", "))
		}
	}
	if listType == cartList && p.manageStock && !p.backorders && total > p.stock {
		add("Quantity", "Your quantity exceeds stock on hand. The maximum quantity that can be added is %d.",
			max(0, p.stock-existing))
	}
	return warnings
}

// messages returns the messages of ws.
func messages(warnings []warning) []string {
	out := make([]string, len(warnings))
	for i, w := range warnings {
		out[i] = w.message
	}
	return out
}

// parseQuantity reads a quantity parameter: empty is def; otherwise a whole number (negative numbers are read,
// and refused later by the quantity rules).
func parseQuantity(raw, target string, def int64) (int64, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(raw, 10, 32)
	if err != nil {
		return 0, odata.BadRequest(odata.CodeInvalidValue, target, fmt.Sprintf("%s must be a whole number.", target))
	}
	return n, nil
}

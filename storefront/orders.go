package storefront

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// Paging of the order history.
const (
	defaultPageSize = 10
	maxPageSize     = 100
	maxPageNumber   = 1_000_000
)

type historyModel struct {
	Orders        []historyOrder `json:"Orders"`
	PagingContext pagingContext  `json:"PagingContext"`
}

type historyOrder struct {
	ID              string `json:"Id"`
	OrderNumber     int64  `json:"OrderNumber"`
	OrderCode       string `json:"OrderCode"`
	OrderTotal      string `json:"OrderTotal"`
	OrderTotalValue number `json:"OrderTotalValue"`
	OrderStatus     string `json:"OrderStatus"`
	PaymentStatus   string `json:"PaymentStatus"`
	ShippingStatus  string `json:"ShippingStatus"`
	CreatedOnUtc    string `json:"CreatedOnUtc"`
}

type pagingContext struct {
	PageNumber      int64 `json:"PageNumber"`
	PageSize        int64 `json:"PageSize"`
	TotalItems      int64 `json:"TotalItems"`
	TotalPages      int64 `json:"TotalPages"`
	HasNextPage     bool  `json:"HasNextPage"`
	HasPreviousPage bool  `json:"HasPreviousPage"`
}

// pageParam reads a paging parameter: a whole number from 1 to max; empty is def.
func pageParam(f form, name string, def, max int64) (int64, error) {
	raw := strings.TrimSpace(f.get(name))
	if raw == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 1 || n > max {
		return 0, odata.ValidationError(odata.ErrorDetail{Code: odata.CodeInvalidValue, Target: name,
			Message: fmt.Sprintf("%s must be a whole number from 1 to %d.", name, max)})
	}
	return n, nil
}

var (
	stmtCountOrders = sqldb.NewStatement(`SELECT COUNT(*) FROM "order" WHERE customer_id = ?`)
	stmtOrderPage   = sqldb.NewStatement(`SELECT id, order_number, code, order_total, order_status, payment_status,
	shipping_status, created_on_utc FROM "order" WHERE customer_id = ? ORDER BY created_on_utc DESC, id DESC
LIMIT ? OFFSET ?`)
)

// orderHistory serves GET /order/history?PageNumber=1&PageSize=10: the customer's orders, newest first.
func (s *Store) orderHistory(r *http.Request, c customer) (any, error) {
	ctx := r.Context()
	f := newForm(r.URL.Query())
	page, err := pageParam(f, "PageNumber", 1, maxPageNumber)
	if err != nil {
		return nil, err
	}
	size, err := pageParam(f, "PageSize", defaultPageSize, maxPageSize)
	if err != nil {
		return nil, err
	}
	m := historyModel{Orders: []historyOrder{}, PagingContext: pagingContext{PageNumber: page, PageSize: size}}
	// Plain reads, no transaction: on SQLite a transaction of this project takes the write lock.
	err = func() error {
		if err := s.db.QueryRowContext(ctx, stmtCountOrders.For(s.db.Dialect()), c.id).Scan(&m.PagingContext.TotalItems); err != nil {
			return fmt.Errorf("storefront: order history: %w", err)
		}
		rows, err := s.db.QueryContext(ctx, stmtOrderPage.For(s.db.Dialect()), c.id, size, (page-1)*size)
		if err != nil {
			return fmt.Errorf("storefront: order history: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var (
				o                  historyOrder
				total, created     any
				status, pay, ships int
			)
			if err := rows.Scan(&o.ID, &o.OrderNumber, &o.OrderCode, &total, &status, &pay, &ships, &created); err != nil {
				return fmt.Errorf("storefront: order history: %w", err)
			}
			t, err := sqldb.ScanDecimal(total, moneyScale)
			if err != nil {
				return err
			}
			at, err := sqldb.ScanTime(created)
			if err != nil {
				return err
			}
			o.OrderTotal, o.OrderTotalValue = formatMoney(t), number(t)
			o.OrderStatus, o.PaymentStatus = entities.OrderStatusName(status), entities.PaymentStatusName(pay)
			o.ShippingStatus, o.CreatedOnUtc = entities.ShippingStatusName(ships), formatTime(at)
			m.Orders = append(m.Orders, o)
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, err
	}
	pc := &m.PagingContext
	pc.TotalPages = (pc.TotalItems + size - 1) / size
	pc.HasNextPage = page < pc.TotalPages
	pc.HasPreviousPage = page > 1
	return m, nil
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// orderAddress is an address copied onto an order.
type orderAddress struct {
	FirstName       *string `json:"FirstName"`
	LastName        *string `json:"LastName"`
	Email           *string `json:"Email"`
	Company         *string `json:"Company"`
	CountryID       *string `json:"CountryId"`
	StateProvinceID *string `json:"StateProvinceId"`
	City            *string `json:"City"`
	Address1        *string `json:"Address1"`
	Address2        *string `json:"Address2"`
	ZipPostalCode   *string `json:"ZipPostalCode"`
	PhoneNumber     *string `json:"PhoneNumber"`
	FaxNumber       *string `json:"FaxNumber"`
}

func (a *orderAddress) fields() []**string {
	return []**string{&a.FirstName, &a.LastName, &a.Email, &a.Company, &a.CountryID, &a.StateProvinceID, &a.City,
		&a.Address1, &a.Address2, &a.ZipPostalCode, &a.PhoneNumber, &a.FaxNumber}
}

type orderDetailsModel struct {
	ID                              string        `json:"Id"`
	OrderNumber                     int64         `json:"OrderNumber"`
	OrderCode                       string        `json:"OrderCode"`
	CustomerEmail                   string        `json:"CustomerEmail"`
	OrderStatus                     string        `json:"OrderStatus"`
	PaymentStatus                   string        `json:"PaymentStatus"`
	ShippingStatus                  string        `json:"ShippingStatus"`
	PaymentMethodSystemName         *string       `json:"PaymentMethodSystemName"`
	PaymentMethod                   *string       `json:"PaymentMethod"`
	ShippingMethod                  *string       `json:"ShippingMethod"`
	ShippingRateProviderSystemName  *string       `json:"ShippingRateProviderSystemName"`
	PickUpInStore                   bool          `json:"PickUpInStore"`
	OrderSubtotal                   string        `json:"OrderSubtotal"`
	OrderSubtotalValue              number        `json:"OrderSubtotalValue"`
	OrderShipping                   string        `json:"OrderShipping"`
	OrderShippingValue              number        `json:"OrderShippingValue"`
	PaymentMethodAdditionalFee      string        `json:"PaymentMethodAdditionalFee"`
	PaymentMethodAdditionalFeeValue number        `json:"PaymentMethodAdditionalFeeValue"`
	OrderTax                        string        `json:"OrderTax"`
	OrderTaxValue                   number        `json:"OrderTaxValue"`
	OrderTotal                      string        `json:"OrderTotal"`
	OrderTotalValue                 number        `json:"OrderTotalValue"`
	BillingAddress                  *orderAddress `json:"BillingAddress"`
	ShippingAddress                 *orderAddress `json:"ShippingAddress"`
	CreatedOnUtc                    string        `json:"CreatedOnUtc"`
	PaidDateUtc                     *string       `json:"PaidDateUtc"`
	Items                           []itemModel   `json:"Items"`
}

// orderAddressColumns lists the columns of an address of the order aliased o (entities.OrderAddressColumns).
func orderAddressColumns(prefix string) string {
	return "o." + strings.Join(entities.OrderAddressColumns(prefix), ", o.")
}

var (
	stmtOrder = sqldb.NewStatement(`SELECT o.id, o.order_number, o.code, o.customer_email, o.order_status, o.payment_status,
	o.shipping_status, o.payment_method_system_name, pm.name, o.shipping_method, o.shipping_rate_provider_system_name,
	o.pick_up_in_store, o.order_subtotal, o.order_shipping, o.payment_method_additional_fee, o.order_tax,
	o.order_total, ` + orderAddressColumns("billing_address_") + `, ` + orderAddressColumns("shipping_address_") + `,
	o.created_on_utc, o.paid_date_utc
FROM "order" o LEFT JOIN payment_method pm ON pm.system_name = o.payment_method_system_name
WHERE o.id = ? AND o.customer_id = ?`)
	stmtOrderItems = sqldb.NewStatement(`SELECT i.id, i.product_id, i.product_name, p.se_name, i.sku, i.quantity,
	i.unit_price, i.price FROM order_item i LEFT JOIN product p ON p.id = i.product_id
WHERE i.order_id = ? ORDER BY i.id`)
)

// orderDetails serves GET /orderdetails/{orderId}: one of the customer's orders with its items; another
// customer's order is a 404.
func (s *Store) orderDetails(r *http.Request, c customer) (any, error) {
	ctx := r.Context()
	var m orderDetailsModel
	// Plain reads: an order's items never change once it is placed.
	var (
		status, pay, ships                                 int
		pmSystem, pmName, method, provider                 sql.NullString
		subtotal, shipping, fee, tax, total, created, paid any
		addr                                               [24]sql.NullString
	)
	dest := []any{&m.ID, &m.OrderNumber, &m.OrderCode, &m.CustomerEmail, &status, &pay, &ships, &pmSystem,
		&pmName, &method, &provider, &m.PickUpInStore, &subtotal, &shipping, &fee, &tax, &total}
	for i := range addr {
		dest = append(dest, &addr[i])
	}
	dest = append(dest, &created, &paid)
	err := s.db.QueryRowContext(ctx, stmtOrder.For(s.db.Dialect()), r.PathValue("orderId"), c.id).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, odata.NotFound("The order does not exist.")
	}
	if err != nil {
		return nil, fmt.Errorf("storefront: order details: %w", err)
	}
	m.OrderStatus, m.PaymentStatus = entities.OrderStatusName(status), entities.PaymentStatusName(pay)
	m.ShippingStatus = entities.ShippingStatusName(ships)
	m.PaymentMethodSystemName, m.PaymentMethod = nullStr(pmSystem), nullStr(pmName)
	m.ShippingMethod, m.ShippingRateProviderSystemName = nullStr(method), nullStr(provider)
	amounts := []struct {
		v        any
		str      *string
		valueDst *number
	}{{subtotal, &m.OrderSubtotal, &m.OrderSubtotalValue}, {shipping, &m.OrderShipping, &m.OrderShippingValue},
		{fee, &m.PaymentMethodAdditionalFee, &m.PaymentMethodAdditionalFeeValue}, {tax, &m.OrderTax, &m.OrderTaxValue},
		{total, &m.OrderTotal, &m.OrderTotalValue}}
	for _, a := range amounts {
		d, err := sqldb.ScanDecimal(a.v, moneyScale)
		if err != nil {
			return nil, err
		}
		*a.str, *a.valueDst = formatMoney(d), number(d)
	}
	m.BillingAddress, m.ShippingAddress = addressOf(addr[:12]), addressOf(addr[12:])
	at, err := sqldb.ScanTime(created)
	if err != nil {
		return nil, err
	}
	m.CreatedOnUtc = formatTime(at)
	if paid != nil {
		at, err := sqldb.ScanTime(paid)
		if err != nil {
			return nil, err
		}
		p := formatTime(at)
		m.PaidDateUtc = &p
	}
	if m.Items, err = s.orderItems(r, m.ID); err != nil {
		return nil, err
	}
	return m, nil
}

func (s *Store) orderItems(r *http.Request, orderID string) ([]itemModel, error) {
	rows, err := s.db.QueryContext(r.Context(), stmtOrderItems.For(s.db.Dialect()), orderID)
	if err != nil {
		return nil, fmt.Errorf("storefront: order items: %w", err)
	}
	defer rows.Close()
	items := []itemModel{}
	for rows.Next() {
		var (
			it          itemModel
			seName, sku sql.NullString
			unit, price any
		)
		if err := rows.Scan(&it.ID, &it.ProductID, &it.ProductName, &seName, &sku, &it.Quantity, &unit, &price); err != nil {
			return nil, fmt.Errorf("storefront: order items: %w", err)
		}
		it.ProductSeName, it.Sku = nullStr(seName), nullStr(sku)
		unitD, err := sqldb.ScanDecimal(unit, moneyScale)
		if err != nil {
			return nil, err
		}
		subD, err := sqldb.ScanDecimal(price, moneyScale)
		if err != nil {
			return nil, err
		}
		it.setPrices(unitD, subD)
		items = append(items, it)
	}
	return items, rows.Err()
}

// addressOf returns the address of the order's address columns, or nil when they are all null (no shipping
// address).
func addressOf(vals []sql.NullString) *orderAddress {
	var a orderAddress
	set := false
	for i, f := range a.fields() {
		*f = nullStr(vals[i])
		set = set || vals[i].Valid
	}
	if !set {
		return nil
	}
	return &a
}

func nullStr(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	return &v.String
}

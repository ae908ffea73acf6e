package storefront_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
)

var orderCodePattern = regexp.MustCompile(`^[A-Z0-9]{8}$`)

// TestEndToEnd walks a customer through the shop: add from the details page and the catalog, a wishlist, a
// checkout with a new address, the order in the history and its details with exact totals, then the admin's
// moves to Complete.
func TestEndToEnd(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		pen := f.product("Fountain Pen", cols{"price": "19.99", "manage_inventory_method": entities.ManageInventoryMethodManageStock,
			"stock_quantity": 10})
		book := f.product("Notebook", cols{"price": "4.50"})

		ok(t, f.post(c, "/addproducttocart/details/"+pen+"/1", url.Values{"addtocart_" + pen + ".EnteredQuantity": {"2"}}))
		ok(t, f.post(c, "/addproducttocart/catalog/"+pen+"/1?quantity=1", nil))
		ok(t, f.post(c, "/addproducttocart/catalog/"+book+"/2", nil))
		cart := ok(t, f.get(c, "/cart"))
		if num(cart["TotalProducts"]) != "3" || num(cart["SubTotalValue"]) != "59.97" {
			t.Fatalf("cart = %v, want 3 pens for 59.97", cart)
		}

		f.checkout(c, usAddress("ShippingNewAddress"), nextDayAir, cashOnDeliv)
		m := ok(t, f.post(c, "/checkout/ConfirmOrder/", nil))
		orderID, _ := m["OrderId"].(string)
		if num(m["success"]) != "1" || num(m["OrderNumber"]) != "1" || !orderCodePattern.MatchString(m["OrderCode"].(string)) || len(orderID) != 24 {
			t.Fatalf("ConfirmOrder = %v", m)
		}

		t.Run("OKCartClearedWishlistKept", func(t *testing.T) {
			if n := len(ok(t, f.get(c, "/cart"))["Items"].([]any)); n != 0 {
				t.Errorf("cart lines after the order = %d, want 0", n)
			}
			if n := len(ok(t, f.get(c, "/wishlist"))["Items"].([]any)); n != 1 {
				t.Errorf("wishlist lines after the order = %d, want 1", n)
			}
			if n := f.count(`SELECT COUNT(*) FROM checkout_state`); n != 0 {
				t.Errorf("checkout state rows = %d, want 0", n)
			}
		})
		t.Run("OKStockAndSold", func(t *testing.T) {
			if stock, sold := f.stock(pen); stock != 7 || sold != 3 {
				t.Errorf("stock, sold = %d, %d, want 7, 3", stock, sold)
			}
		})
		t.Run("ErrConfirmTwice", func(t *testing.T) {
			e := fails(t, f.post(c, "/checkout/ConfirmOrder/", nil), http.StatusBadRequest, "BadRequest")
			if e.Message != "Your cart is empty" {
				t.Errorf("message = %q", e.Message)
			}
			if n := f.count(`SELECT COUNT(*) FROM "order"`); n != 1 {
				t.Errorf("orders = %d, want 1", n)
			}
		})
		t.Run("OKHistory", func(t *testing.T) {
			h := ok(t, f.get(c, "/order/history"))
			o := path(h, "Orders", 0).(map[string]any)
			got := []any{o["Id"], num(o["OrderNumber"]), o["OrderCode"], o["OrderTotal"], num(o["OrderTotalValue"]),
				o["OrderStatus"], o["PaymentStatus"], o["ShippingStatus"], o["CreatedOnUtc"]}
			want := []any{orderID, "1", m["OrderCode"], "$81.97", "81.97", "Pending", "Pending", "NotYetShipped", "2030-06-15T12:00:00Z"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("history order (-want +got):\n%s", diff)
			}
		})
		t.Run("OKDetails", func(t *testing.T) {
			rec := f.get(c, "/orderdetails/"+orderID)
			ok(t, rec)
			want := `{"Id":"` + orderID + `","OrderNumber":1,"OrderCode":"` + m["OrderCode"].(string) + `",` +
				`"CustomerEmail":"ann@example.com","OrderStatus":"Pending","PaymentStatus":"Pending","ShippingStatus":"NotYetShipped",` +
				`"PaymentMethodSystemName":"Payments.CashOnDelivery","PaymentMethod":"Cash On Delivery (COD)",` +
				`"ShippingMethod":"Next Day Air","ShippingRateProviderSystemName":"Shipping.FixedRate","PickUpInStore":false,` +
				`"OrderSubtotal":"$59.97","OrderSubtotalValue":59.97,"OrderShipping":"$20.00","OrderShippingValue":20,` +
				`"PaymentMethodAdditionalFee":"$2.00","PaymentMethodAdditionalFeeValue":2,"OrderTax":"$0.00","OrderTaxValue":0,` +
				`"OrderTotal":"$81.97","OrderTotalValue":81.97,` +
				`"BillingAddress":{"FirstName":"Ann","LastName":"Lee","Email":"ann@example.com","Company":null,"CountryId":"US",` +
				`"StateProvinceId":"US-NY","City":"New York","Address1":"1 Main St","Address2":null,"ZipPostalCode":"10001",` +
				`"PhoneNumber":"555-0100","FaxNumber":null},` +
				`"ShippingAddress":{"FirstName":"Ann","LastName":"Lee","Email":"ann@example.com","Company":null,"CountryId":"US",` +
				`"StateProvinceId":"US-NY","City":"New York","Address1":"1 Main St","Address2":null,"ZipPostalCode":"10001",` +
				`"PhoneNumber":"555-0100","FaxNumber":null},` +
				`"CreatedOnUtc":"2030-06-15T12:00:00Z","PaidDateUtc":null,"Items":[{"Id":"ITEM","ProductId":"` + pen + `",` +
				`"ProductName":"Fountain Pen","ProductSeName":"fountain-pen","Sku":"SKU-` + pen[12:] + `","Quantity":3,` +
				`"UnitPrice":"$19.99","UnitPriceValue":19.99,"SubTotal":"$59.97","SubTotalValue":59.97}]}` + "\n"
			item := path(decode(t, rec), "Items", 0, "Id").(string)
			if diff := cmp.Diff(want, strings.Replace(rec.Body.String(), item, "ITEM", 1)); diff != "" {
				t.Errorf("order details (-want +got):\n%s", diff)
			}
		})
		t.Run("OKAdminMovesToComplete", func(t *testing.T) {
			for _, move := range []func(ctx context.Context, tx *sqldb.Tx) error{
				func(ctx context.Context, tx *sqldb.Tx) error { return entities.ShipOrder(ctx, tx, orderID) },
				func(ctx context.Context, tx *sqldb.Tx) error {
					return entities.DeliverOrder(ctx, tx, orderID)
				},
				func(ctx context.Context, tx *sqldb.Tx) error {
					return entities.MarkOrderPaid(ctx, tx, orderID, testNow.Add(48*time.Hour))
				},
			} {
				tx, err := db.BeginTx(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := move(context.Background(), tx); err != nil {
					tx.Rollback()
					t.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			d := ok(t, f.get(c, "/orderdetails/"+orderID))
			got := []any{d["OrderStatus"], d["PaymentStatus"], d["ShippingStatus"], d["PaidDateUtc"]}
			want := []any{"Complete", "Paid", "Delivered", "2030-06-17T12:00:00Z"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("order after the admin's moves (-want +got):\n%s", diff)
			}
		})
	})
}

func TestConfirmOrder(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		managed := entities.ManageInventoryMethodManageStock
		t.Run("OKLowStockActivityAndRoles", func(t *testing.T) {
			c := f.customer("a@example.com")
			lamp := f.product("Lamp", cols{"manage_inventory_method": managed, "stock_quantity": 5, "min_stock_quantity": 3,
				"low_stock_activity": entities.LowStockActivityDisableBuyButton})
			vase := f.product("Vase", cols{"manage_inventory_method": managed, "stock_quantity": 2,
				"low_stock_activity": entities.LowStockActivityUnpublish})
			fans := f.role("Lamp fans", false, lamp)
			other := f.role("Other fans", false, f.product("Other", nil))
			f.addToCart(c, lamp, 1, 2)
			f.addToCart(c, vase, 1, 2)
			f.checkout(c, usAddress("ShippingNewAddress"), ground, checkMoney)
			f.confirm(c)
			var disabled, lampPublished, vasePublished bool
			if err := db.QueryRow(f.q(`SELECT disable_buy_button, published FROM product WHERE id = ?`), lamp).Scan(&disabled, &lampPublished); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRow(f.q(`SELECT published FROM product WHERE id = ?`), vase).Scan(&vasePublished); err != nil {
				t.Fatal(err)
			}
			if !disabled || !lampPublished || vasePublished {
				t.Errorf("lamp disabled %v published %v, vase published %v; want true, true, false", disabled, lampPublished, vasePublished)
			}
			if n := f.count(`SELECT COUNT(*) FROM customer_role_mapping WHERE customer_id = ? AND customer_role_id = ?`, c, fans); n != 1 {
				t.Errorf("membership of the PurchasedWithProduct role = %d, want 1", n)
			}
			if n := f.count(`SELECT COUNT(*) FROM customer_role_mapping WHERE customer_role_id = ?`, other); n != 0 {
				t.Errorf("membership of an unrelated role = %d, want 0", n)
			}
			// Buying it again keeps one membership.
			f.exec(`UPDATE product SET disable_buy_button = ?, stock_quantity = 10 WHERE id = ?`, false, lamp)
			f.addToCart(c, lamp, 1, 1)
			f.checkout(c, usAddress("ShippingNewAddress"), ground, checkMoney)
			f.confirm(c)
			if n := f.count(`SELECT COUNT(*) FROM customer_role_mapping WHERE customer_id = ?`, c); n != 1 {
				t.Errorf("memberships after a second order = %d, want 1", n)
			}
		})
		t.Run("ErrLinesNoLongerValidNothingChanges", func(t *testing.T) {
			c := f.customer("b@example.com")
			a := f.product("Alpha", cols{"manage_inventory_method": managed, "stock_quantity": 5})
			b := f.product("Beta", nil)
			g := f.product("Gamma", nil)
			f.addToCart(c, a, 1, 3)
			f.addToCart(c, b, 1, 1)
			f.addToCart(c, g, 1, 1)
			f.checkout(c, usAddress("ShippingNewAddress"), ground, checkMoney)
			f.exec(`UPDATE product SET stock_quantity = 2 WHERE id = ?`, a)
			f.exec(`UPDATE product SET published = ?, disable_buy_button = ? WHERE id = ?`, false, true, b)
			orders := f.count(`SELECT COUNT(*) FROM "order"`)
			e := fails(t, f.post(c, "/checkout/ConfirmOrder/", nil), http.StatusConflict, "Conflict")
			want := []string{
				"Alpha: Your quantity exceeds stock on hand. The maximum quantity that can be added is 2.",
				"Beta: This product is not published. Buying is disabled for this product.",
			}
			if diff := cmp.Diff(want, detailMessages(e)); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
			if e.Details[0].Target != a || e.Details[1].Target != b {
				t.Errorf("targets = %s, %s, want the product ids", e.Details[0].Target, e.Details[1].Target)
			}
			if n := f.count(`SELECT COUNT(*) FROM "order"`); n != orders {
				t.Errorf("orders = %d, want %d", n, orders)
			}
			if stock, sold := f.stock(a); stock != 2 || sold != 0 {
				t.Errorf("stock, sold = %d, %d, want 2, 0", stock, sold)
			}
			if n := f.count(`SELECT COUNT(*) FROM shopping_cart_item WHERE customer_id = ?`, c); n != 3 {
				t.Errorf("cart lines = %d, want 3", n)
			}
			if n := f.count(`SELECT COUNT(*) FROM checkout_state WHERE customer_id = ?`, c); n != 1 {
				t.Errorf("checkout state = %d, want kept", n)
			}
		})
		t.Run("OKCurrentPrices", func(t *testing.T) {
			c := f.customer("c@example.com")
			p := f.product("Repriced", cols{"price": "10.00", "is_ship_enabled": false})
			f.addToCart(c, p, 1, 2)
			f.checkout(c, usAddress("ShippingNewAddress"), "", checkMoney)
			f.exec(`UPDATE product SET price = ? WHERE id = ?`, f.money("12.345"), p)
			d := ok(t, f.get(c, "/orderdetails/"+f.confirm(c)))
			if num(d["OrderTotalValue"]) != "24.69" || d["OrderTotal"] != "$24.69" || num(path(d, "Items", 0, "UnitPriceValue")) != "12.345" {
				t.Errorf("order at the new price = %v, %v, items %v", d["OrderTotal"], d["OrderTotalValue"], d["Items"])
			}
		})
		t.Run("OKBackorders", func(t *testing.T) {
			c := f.customer("e@example.com")
			p := f.product("Backordered", cols{"manage_inventory_method": managed, "stock_quantity": 1,
				"backorder_mode": entities.BackorderModeAllowQtyBelow0})
			f.addToCart(c, p, 1, 3)
			f.checkout(c, usAddress("ShippingNewAddress"), ground, checkMoney)
			f.confirm(c)
			if stock, sold := f.stock(p); stock != -2 || sold != 3 {
				t.Errorf("stock, sold = %d, %d, want -2, 3", stock, sold)
			}
		})
		t.Run("OKOrderNumbersSequential", func(t *testing.T) {
			rows, err := db.Query(`SELECT order_number FROM "order" ORDER BY order_number`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			want := int64(1)
			for rows.Next() {
				var n int64
				if err := rows.Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != want {
					t.Errorf("order number = %d, want %d", n, want)
				}
				want++
			}
		})
	})
}

// TestConfirmOrder_Race has 50 customers confirm at once, on two server nodes (two connection pools), an order of
// one unit of a product with 10 left: exactly 10 orders, stock 0, every other answer a 409.
func TestConfirmOrder_Race(t *testing.T) {
	const customers, units = 50, 10
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		p := f.product("Last units", cols{"manage_inventory_method": entities.ManageInventoryMethodManageStock,
			"stock_quantity": units})
		ids := make([]string, customers)
		for i := range ids {
			ids[i] = f.customer("racer" + itoa(i) + "@example.com")
			f.addToCart(ids[i], p, 1, 1)
			f.checkout(ids[i], usAddress("ShippingNewAddress"), ground, checkMoney)
		}
		nodes := []http.Handler{f.h, f.secondNode()}
		statuses := make([]int, customers)
		bodies := make([]string, customers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range ids {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				rec := f.serveOn(nodes[i%2], request{customer: ids[i], method: "POST", path: "/checkout/ConfirmOrder/"})
				statuses[i], bodies[i] = rec.Code, rec.Body.String()
			}(i)
		}
		close(start)
		wg.Wait()
		count := map[int]int{}
		for i, s := range statuses {
			count[s]++
			if s != http.StatusOK && s != http.StatusConflict {
				t.Errorf("customer %d: %d %s", i, s, bodies[i])
			}
		}
		if count[http.StatusOK] != units || count[http.StatusConflict] != customers-units {
			t.Errorf("answers = %v, want %d x 200 and %d x 409", count, units, customers-units)
		}
		if stock, sold := f.stock(p); stock != 0 || sold != units {
			t.Errorf("stock, sold = %d, %d, want 0, %d", stock, sold, units)
		}
		if n := f.count(`SELECT COUNT(*) FROM "order"`); n != units {
			t.Errorf("orders = %d, want %d", n, units)
		}
		if n := f.count(`SELECT COUNT(DISTINCT code) FROM "order"`); n != units {
			t.Errorf("distinct codes = %d, want %d", n, units)
		}
	})
}

// TestConfirmOrder_Twice sends one customer's ConfirmOrder twice at once, on two nodes: one order, and the other
// answer is 400 "Your cart is empty".
func TestConfirmOrder_Twice(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		f.addToCart(c, f.product("Pen", nil), 1, 2)
		f.checkout(c, usAddress("ShippingNewAddress"), ground, checkMoney)
		nodes := []http.Handler{f.h, f.secondNode()}
		recs := make([]*httptest.ResponseRecorder, len(nodes))
		var wg sync.WaitGroup
		for i, h := range nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				recs[i] = f.serveOn(h, request{customer: c, method: "POST", path: "/checkout/ConfirmOrder/"})
			}()
		}
		wg.Wait()
		codes := []int{recs[0].Code, recs[1].Code}
		sort.Ints(codes)
		if diff := cmp.Diff([]int{http.StatusOK, http.StatusBadRequest}, codes); diff != "" {
			t.Errorf("answers (-want +got):\n%s\n%s\n%s", diff, recs[0].Body, recs[1].Body)
		}
		if n := f.count(`SELECT COUNT(*) FROM "order"`); n != 1 {
			t.Errorf("orders = %d, want 1", n)
		}
	})
}

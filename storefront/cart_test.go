package storefront_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

func TestAddToCart(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		p := f.product("Blue Pen", cols{"price": "19.99"})
		details := "/addproducttocart/details/" + p + "/1"

		t.Run("OKDetails", func(t *testing.T) {
			m := ok(t, f.post(c, details, url.Values{"addtocart_" + p + ".EnteredQuantity": {"2"}}))
			want := map[string]any{"success": true, "message": "The product has been added to your shopping cart",
				"updatetopcartsectionhtml": "2"}
			got := map[string]any{"success": m["success"], "message": m["message"], "updatetopcartsectionhtml": m["updatetopcartsectionhtml"]}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("add from details (-want +got):\n%s", diff)
			}
			if _, ok := m["updatetopwishlistsectionhtml"]; ok {
				t.Errorf("a cart add answered updatetopwishlistsectionhtml: %v", m)
			}
			side := m["sidebarshoppingcartmodel"]
			if num(path(side, "TotalProducts")) != "2" || path(side, "SubTotal") != "$39.98" ||
				path(side, "Items", 0, "ProductId") != p || path(side, "Items", 0, "UnitPrice") != "$19.99" ||
				path(side, "DisplayCheckoutButton") != true {
				t.Errorf("sidebarshoppingcartmodel = %v", side)
			}
		})
		t.Run("OKDetailsLiteralKeyMerges", func(t *testing.T) {
			m := ok(t, f.post(c, details, url.Values{"addtocart_productid.EnteredQuantity": {"3"}}))
			if m["updatetopcartsectionhtml"] != "5" {
				t.Errorf("updatetopcartsectionhtml = %v, want 5 (2 + 3 merged)", m["updatetopcartsectionhtml"])
			}
		})
		t.Run("OKDetailsDefaultOne", func(t *testing.T) {
			if m := ok(t, f.post(c, details, nil)); m["updatetopcartsectionhtml"] != "6" {
				t.Errorf("updatetopcartsectionhtml = %v, want 6", m["updatetopcartsectionhtml"])
			}
		})
		t.Run("OKDetailsMultipart", func(t *testing.T) {
			rec := f.serve(request{customer: c, method: "POST", path: details, multipart: true,
				form: url.Values{"addtocart_" + p + ".EnteredQuantity": {"1"}}})
			if m := ok(t, rec); m["updatetopcartsectionhtml"] != "7" {
				t.Errorf("updatetopcartsectionhtml = %v, want 7", m["updatetopcartsectionhtml"])
			}
		})
		t.Run("OKCatalog", func(t *testing.T) {
			m := ok(t, f.post(c, "/addproducttocart/catalog/"+p+"/1?quantity=3", nil))
			if m["updatetopcartsectionhtml"] != "10" {
				t.Errorf("updatetopcartsectionhtml = %v, want 10", m["updatetopcartsectionhtml"])
			}
			m = ok(t, f.post(c, "/addproducttocart/catalog/"+p+"/1", nil))
			if m["updatetopcartsectionhtml"] != "11" {
				t.Errorf("updatetopcartsectionhtml = %v, want 11 (default quantity 1)", m["updatetopcartsectionhtml"])
			}
			if n := f.count(`SELECT COUNT(*) FROM shopping_cart_item WHERE customer_id = ?`, c); n != 1 {
				t.Errorf("cart lines = %d, want 1 (quantities merge)", n)
			}
		})
		t.Run("OKWishlist", func(t *testing.T) {
			m := ok(t, f.post(c, "/addproducttocart/catalog/"+p+"/2?quantity=4", nil))
			if m["message"] != "The product has been added to your wishlist" || m["updatetopwishlistsectionhtml"] != "4" {
				t.Errorf("wishlist add = %v", m)
			}
			if _, ok := m["updatetopcartsectionhtml"]; ok {
				t.Errorf("a wishlist add answered updatetopcartsectionhtml: %v", m)
			}
			if num(path(m, "sidebarshoppingcartmodel", "TotalProducts")) != "11" {
				t.Errorf("the sidebar shows the cart: %v", m["sidebarshoppingcartmodel"])
			}
			w := ok(t, f.get(c, "/wishlist"))
			if num(w["TotalProducts"]) != "4" || num(path(w, "Items", 0, "Quantity")) != "4" {
				t.Errorf("GET /wishlist = %v", w)
			}
		})
		for _, tc := range []struct{ name, path string }{
			{"ErrListType3", "/addproducttocart/catalog/" + p + "/3"},
			{"ErrListType0", "/addproducttocart/catalog/" + p + "/0"},
			{"ErrListTypeWord", "/addproducttocart/details/" + p + "/cart"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := fails(t, f.post(c, tc.path, nil), http.StatusBadRequest, "InvalidValue")
				if e.Target != "shoppingCartTypeId" {
					t.Errorf("target = %q, want shoppingCartTypeId", e.Target)
				}
			})
		}
		t.Run("ErrUnknownProduct", func(t *testing.T) {
			fails(t, f.post(c, "/addproducttocart/catalog/000000000000000000000000/1", nil), http.StatusNotFound, "NotFound")
		})
		t.Run("ErrQuantityNotANumber", func(t *testing.T) {
			fails(t, f.post(c, "/addproducttocart/catalog/"+p+"/1?quantity=two", nil), http.StatusBadRequest, "InvalidValue")
			fails(t, f.post(c, details, url.Values{"addtocart_" + p + ".EnteredQuantity": {"1.5"}}), http.StatusBadRequest, "InvalidValue")
		})
		t.Run("ErrDetailsNotForm", func(t *testing.T) {
			rec := f.serve(request{customer: c, method: "POST", path: details, contentType: "application/json", body: `{"q":1}`})
			fails(t, rec, http.StatusUnsupportedMediaType, "UnsupportedMediaType")
		})
		t.Run("ErrNoCustomer", func(t *testing.T) {
			fails(t, f.post("", details, nil), http.StatusUnauthorized, "Unauthorized")
		})
	})
}

// TestAddToCart_Warnings checks every refusal of SPEC 6, each as its own detail of one 400.
func TestAddToCart_Warnings(t *testing.T) {
	const (
		notPublished   = "This product is not published."
		notAvailable   = "This product is not available now."
		buyDisabled    = "Buying is disabled for this product."
		wishDisabled   = "The wishlist is disabled for this product."
		callForPrice   = "This product cannot be bought online: call for its price."
		notPositive    = "Quantity should be positive."
		grouped        = "A grouped product cannot be bought itself: choose one of its products."
		managed        = entities.ManageInventoryMethodManageStock
		allowBelowZero = entities.BackorderModeAllowQtyBelow0
	)
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		for _, tc := range []struct {
			name     string
			product  cols
			listType int
			qty      string
			want     []string // nil: accepted
		}{
			{"ErrNotPublished", cols{"published": false}, 1, "1", []string{notPublished}},
			{"ErrNotPublishedWishlist", cols{"published": false}, 2, "1", []string{notPublished}},
			{"ErrNotYetAvailable", cols{"available_start_date_time_utc": testNow.Add(time.Hour)}, 1, "1", []string{notAvailable}},
			{"ErrNoLongerAvailable", cols{"available_end_date_time_utc": testNow.Add(-time.Hour)}, 1, "1", []string{notAvailable}},
			{"OKInsideWindow", cols{"available_start_date_time_utc": testNow.Add(-time.Hour), "available_end_date_time_utc": testNow.Add(time.Hour)}, 1, "1", nil},
			{"OKWishlistOutsideWindow", cols{"available_start_date_time_utc": testNow.Add(time.Hour)}, 2, "1", nil},
			{"ErrBuyButtonDisabled", cols{"disable_buy_button": true}, 1, "1", []string{buyDisabled}},
			{"OKBuyButtonDisabledWishlist", cols{"disable_buy_button": true}, 2, "1", nil},
			{"ErrWishlistButtonDisabled", cols{"disable_wishlist_button": true}, 2, "1", []string{wishDisabled}},
			{"ErrCallForPrice", cols{"call_for_price": true}, 1, "1", []string{callForPrice}},
			{"ErrGrouped", cols{"product_type": entities.ProductTypeGroupedProduct}, 1, "1", []string{grouped}},
			{"ErrQuantityZero", cols{}, 1, "0", []string{notPositive}},
			{"ErrQuantityNegative", cols{}, 2, "-3", []string{notPositive}},
			{"ErrBelowMinimum", cols{"order_minimum_quantity": 3}, 1, "2", []string{"The minimum quantity allowed for purchase is 3."}},
			{"ErrAboveMaximum", cols{"order_maximum_quantity": 5}, 1, "6", []string{"The maximum quantity allowed for purchase is 5."}},
			{"ErrNotAllowedQuantity", cols{"allowed_quantities": "12, 6,x"}, 1, "5", []string{"Allowed quantities for this product: 6, 12."}},
			{"OKAllowedQuantity", cols{"allowed_quantities": "6,12"}, 1, "12", nil},
			{"ErrStock", cols{"manage_inventory_method": managed, "stock_quantity": 4}, 1, "5",
				[]string{"Your quantity exceeds stock on hand. The maximum quantity that can be added is 4."}},
			{"ErrOutOfStock", cols{"manage_inventory_method": managed, "stock_quantity": -2}, 1, "1",
				[]string{"Your quantity exceeds stock on hand. The maximum quantity that can be added is 0."}},
			{"OKStockWishlist", cols{"manage_inventory_method": managed, "stock_quantity": 0}, 2, "5", nil},
			{"OKStockNotManaged", cols{"stock_quantity": 0}, 1, "5", nil},
			{"OKBackorders", cols{"manage_inventory_method": managed, "stock_quantity": 0, "backorder_mode": allowBelowZero}, 1, "5", nil},
			{"ErrEveryWarningAtOnce", cols{"published": false, "disable_buy_button": true, "call_for_price": true,
				"order_maximum_quantity": 2, "allowed_quantities": "1,2", "manage_inventory_method": managed, "stock_quantity": 1}, 1, "3",
				[]string{notPublished, buyDisabled, callForPrice, "The maximum quantity allowed for purchase is 2.",
					"Allowed quantities for this product: 1, 2.",
					"Your quantity exceeds stock on hand. The maximum quantity that can be added is 1."}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p := f.product(tc.name, tc.product)
				rec := f.post(c, "/addproducttocart/catalog/"+p+"/"+strconv.Itoa(tc.listType)+"?quantity="+tc.qty, nil)
				if tc.want == nil {
					ok(t, rec)
					return
				}
				e := fails(t, rec, http.StatusBadRequest, "ValidationFailed")
				if diff := cmp.Diff(tc.want, detailMessages(e)); diff != "" {
					t.Errorf("details (-want +got):\n%s", diff)
				}
				if n := f.count(`SELECT COUNT(*) FROM shopping_cart_item WHERE product_id = ?`, p); n != 0 {
					t.Errorf("a refused add stored %d lines", n)
				}
			})
		}
		t.Run("ErrMergedAboveMaximum", func(t *testing.T) {
			p := f.product("Merged max", cols{"order_maximum_quantity": 5})
			f.addToCart(c, p, 1, 3)
			e := fails(t, f.post(c, "/addproducttocart/catalog/"+p+"/1?quantity=3", nil), http.StatusBadRequest, "ValidationFailed")
			if diff := cmp.Diff([]string{"The maximum quantity allowed for purchase is 5."}, detailMessages(e)); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
			if n := f.count(`SELECT quantity FROM shopping_cart_item WHERE product_id = ?`, p); n != 3 {
				t.Errorf("quantity after a refused merge = %d, want 3", n)
			}
		})
		t.Run("ErrMergedStock", func(t *testing.T) {
			p := f.product("Merged stock", cols{"manage_inventory_method": managed, "stock_quantity": 5})
			f.addToCart(c, p, 1, 3)
			e := fails(t, f.post(c, "/addproducttocart/catalog/"+p+"/1?quantity=3", nil), http.StatusBadRequest, "ValidationFailed")
			want := []string{"Your quantity exceeds stock on hand. The maximum quantity that can be added is 2."}
			if diff := cmp.Diff(want, detailMessages(e)); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
		t.Run("ErrMergedBelowMinimumStillChecked", func(t *testing.T) {
			p := f.product("Merged min", cols{"order_minimum_quantity": 2, "allowed_quantities": "2,4"})
			f.addToCart(c, p, 1, 2)
			fails(t, f.post(c, "/addproducttocart/catalog/"+p+"/1?quantity=1", nil), http.StatusBadRequest, "ValidationFailed")
			f.addToCart(c, p, 1, 2) // 4 is allowed
		})
	})
}

func TestAddToCart_LineLimit(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		first := ""
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		now := timeValue(f, testNow)
		for i := 0; i < 1000; i++ {
			id := odata.NewID()
			if first == "" {
				first = id
			}
			if _, err := tx.Exec(f.q(`INSERT INTO product (id, name) VALUES (?, 'P')`), id); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(f.q(`INSERT INTO shopping_cart_item (id, customer_id, shopping_cart_type, product_id,
	quantity, created_on_utc, updated_on_utc) VALUES (?, ?, 1, ?, 1, ?, ?)`), odata.NewID(), c, id, now, now); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		p := f.product("One too many", nil)
		t.Run("ErrLimit", func(t *testing.T) {
			e := fails(t, f.post(c, "/addproducttocart/catalog/"+p+"/1", nil), http.StatusBadRequest, "LimitExceeded")
			if e.Message != "A shopping cart holds at most 1000 different products." {
				t.Errorf("message = %q", e.Message)
			}
		})
		t.Run("OKExistingLine", func(t *testing.T) {
			ok(t, f.post(c, "/addproducttocart/catalog/"+first+"/1", nil))
		})
		t.Run("OKOtherList", func(t *testing.T) {
			ok(t, f.post(c, "/addproducttocart/catalog/"+p+"/2", nil))
		})
	})
}

func TestUnitPrice(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		vip := f.role("VIP", false, nil)
		inactive := f.role("Inactive", false, nil)
		f.exec(`UPDATE customer_role SET active = ? WHERE id = ?`, false, inactive)
		plain := f.customer("plain@example.com")
		member := f.customer("vip@example.com")
		f.addToRole(member, vip)
		f.addToRole(member, inactive)
		p := f.product("Tiered", cols{"price": "10.00"})
		ts := func(t time.Time) any { return timeValue(f, t) }
		for _, tp := range []struct {
			qty        int
			price      string
			role       any
			start, end any
		}{
			{5, "9.00", nil, nil, nil},
			{10, "8.5", nil, nil, nil},
			{10, "8.75", nil, nil, nil},                          // a higher tier for the same quantity: the lowest wins
			{2, "7.00", vip, nil, nil},                           // the role's members only
			{1, "1.00", inactive, nil, nil},                      // an inactive role does not count
			{1, "2.00", nil, ts(testNow.Add(time.Hour)), nil},    // not started
			{1, "3.00", nil, nil, ts(testNow.Add(-time.Second))}, // ended
			{20, "6.00", nil, ts(testNow.Add(-time.Hour)), ts(testNow.Add(time.Hour))},
		} {
			f.exec(`INSERT INTO product_tier_price (id, product_id, quantity, price, customer_role_id, start_date_time_utc,
	end_date_time_utc) VALUES (?, ?, ?, ?, ?, ?, ?)`, odata.NewID(), p, tp.qty, f.money(tp.price), tp.role, tp.start, tp.end)
		}
		for _, tc := range []struct {
			customer string
			qty      int
			want     string // UnitPriceValue
			wantSub  string
		}{
			{plain, 1, "10", "$10.00"},
			{plain, 4, "10", "$40.00"},
			{plain, 5, "9", "$45.00"},
			{plain, 10, "8.5", "$85.00"},
			{plain, 25, "6", "$150.00"},
			{member, 1, "10", "$10.00"},
			{member, 2, "7", "$14.00"},
			{member, 25, "6", "$150.00"},
		} {
			f.exec(`DELETE FROM shopping_cart_item`)
			f.addToCart(tc.customer, p, 1, tc.qty)
			m := ok(t, f.get(tc.customer, "/cart"))
			if got := num(path(m, "Items", 0, "UnitPriceValue")); got != tc.want || path(m, "Items", 0, "SubTotal") != tc.wantSub {
				t.Errorf("unit price(customer %s, qty %d) = %s (%v), want %s (%s)", tc.customer, tc.qty, got,
					path(m, "Items", 0, "SubTotal"), tc.want, tc.wantSub)
			}
		}
	})
}

// timeValue returns t as the fixture's dialect stores a DateTimeOffset.
func timeValue(f *fixture, t time.Time) any {
	if f.db.Dialect().Name() == "sqlite" {
		return t.UTC().Format("2006-01-02T15:04:05.000000Z")
	}
	return t
}

func TestCart(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		t.Run("OKEmpty", func(t *testing.T) {
			m := ok(t, f.get(c, "/cart"))
			want := map[string]any{"Items": []any{}, "SubTotal": "$0.00", "SubTotalValue": "0", "TotalProducts": "0", "Warnings": []any{}}
			got := map[string]any{"Items": m["Items"], "SubTotal": m["SubTotal"], "SubTotalValue": num(m["SubTotalValue"]),
				"TotalProducts": num(m["TotalProducts"]), "Warnings": m["Warnings"]}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("GET /cart (-want +got):\n%s", diff)
			}
		})
		p1 := f.product("Desk Lamp", cols{"price": "1234.5", "sku": "LAMP-1"})
		p2 := f.product("Cable", cols{"price": "0.10"})
		f.addToCart(c, p1, 1, 2)
		f.addToCart(c, p2, 1, 3)
		t.Run("OK", func(t *testing.T) {
			rec := f.get(c, "/cart")
			m := ok(t, rec)
			lineID := path(m, "Items", 0, "Id").(string)
			line2 := path(m, "Items", 1, "Id").(string)
			want := `{"Items":[{"Id":"` + lineID + `","ProductId":"` + p1 + `","ProductName":"Desk Lamp","ProductSeName":"desk-lamp",` +
				`"Sku":"LAMP-1","Quantity":2,"UnitPrice":"$1,234.50","UnitPriceValue":1234.5,"SubTotal":"$2,469.00",` +
				`"SubTotalValue":2469,"Warnings":[]},` +
				`{"Id":"` + line2 + `","ProductId":"` + p2 + `","ProductName":"Cable","ProductSeName":"cable","Sku":"SKU-` + p2[12:] + `",` +
				`"Quantity":3,"UnitPrice":"$0.10","UnitPriceValue":0.1,"SubTotal":"$0.30","SubTotalValue":0.3,"Warnings":[]}],` +
				`"SubTotal":"$2,469.30","SubTotalValue":2469.3,"TotalProducts":5,"Warnings":[]}` + "\n"
			if diff := cmp.Diff(want, rec.Body.String()); diff != "" {
				t.Errorf("GET /cart body (-want +got):\n%s", diff)
			}
		})
		t.Run("OKLineWarnings", func(t *testing.T) {
			f.exec(`UPDATE product SET published = ? WHERE id = ?`, false, p2)
			defer f.exec(`UPDATE product SET published = ? WHERE id = ?`, true, p2)
			m := ok(t, f.get(c, "/cart"))
			if diff := cmp.Diff([]any{"This product is not published."}, path(m, "Items", 1, "Warnings")); diff != "" {
				t.Errorf("warnings of an unpublished line (-want +got):\n%s", diff)
			}
		})
		t.Run("OKJSONWithOrWithoutViewHeader", func(t *testing.T) {
			for _, h := range []http.Header{nil, {"X-Response-View": {"Json"}}, {"X-Response-View": {"Html"}}} {
				rec := f.serve(request{customer: c, method: "GET", path: "/cart", header: h})
				if m := ok(t, rec); num(m["TotalProducts"]) != "5" {
					t.Errorf("GET /cart with %v = %v", h, m)
				}
			}
		})
	})
}

func TestUpdateCartItem(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		other := f.customer("bob@example.com")
		p := f.product("Mug", cols{"price": "5.00", "order_maximum_quantity": 10})
		f.addToCart(c, p, 1, 2)
		f.addToCart(c, p, 2, 1)
		m := ok(t, f.get(c, "/cart"))
		cartLine := path(m, "Items", 0, "Id").(string)
		wishLine := path(ok(t, f.get(c, "/wishlist")), "Items", 0, "Id").(string)

		t.Run("OK", func(t *testing.T) {
			m := ok(t, f.post(c, "/updatecartitem/"+cartLine+"?quantity=7", nil))
			if num(m["TotalProducts"]) != "7" || m["SubTotal"] != "$35.00" {
				t.Errorf("after update = %v", m)
			}
		})
		t.Run("OKWishlistLine", func(t *testing.T) {
			m := ok(t, f.post(c, "/updatecartitem/"+wishLine+"?quantity=3", nil))
			if num(m["TotalProducts"]) != "3" {
				t.Errorf("after update = %v, want the wishlist with 3", m)
			}
		})
		t.Run("ErrAboveMaximum", func(t *testing.T) {
			e := fails(t, f.post(c, "/updatecartitem/"+cartLine+"?quantity=11", nil), http.StatusBadRequest, "ValidationFailed")
			if diff := cmp.Diff([]string{"The maximum quantity allowed for purchase is 10."}, detailMessages(e)); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
		t.Run("ErrNegative", func(t *testing.T) {
			e := fails(t, f.post(c, "/updatecartitem/"+cartLine+"?quantity=-1", nil), http.StatusBadRequest, "ValidationFailed")
			if diff := cmp.Diff([]string{"Quantity should be positive."}, detailMessages(e)); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
		t.Run("ErrNoQuantity", func(t *testing.T) {
			fails(t, f.post(c, "/updatecartitem/"+cartLine, nil), http.StatusBadRequest, "ValidationFailed")
		})
		t.Run("ErrOtherCustomersLine", func(t *testing.T) {
			fails(t, f.post(other, "/updatecartitem/"+cartLine+"?quantity=1", nil), http.StatusNotFound, "NotFound")
		})
		t.Run("ErrUnknownLine", func(t *testing.T) {
			fails(t, f.post(c, "/updatecartitem/nope?quantity=1", nil), http.StatusNotFound, "NotFound")
		})
		t.Run("OKZeroRemoves", func(t *testing.T) {
			m := ok(t, f.post(c, "/updatecartitem/"+cartLine+"?quantity=0", nil))
			if items := m["Items"].([]any); len(items) != 0 {
				t.Errorf("after quantity 0: %v, want an empty cart", m)
			}
			fails(t, f.post(c, "/updatecartitem/"+cartLine+"?quantity=1", nil), http.StatusNotFound, "NotFound")
		})
	})
}

func TestDeleteCartItem(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		other := f.customer("bob@example.com")
		p := f.product("Mug", nil)
		f.addToCart(c, p, 1, 2)
		f.addToCart(c, p, 2, 1)
		cartLine := path(ok(t, f.get(c, "/cart")), "Items", 0, "Id").(string)
		wishLine := path(ok(t, f.get(c, "/wishlist")), "Items", 0, "Id").(string)
		t.Run("ErrOtherCustomersLine", func(t *testing.T) {
			fails(t, f.post(other, "/deletecartitem/"+cartLine, nil), http.StatusNotFound, "NotFound")
		})
		t.Run("OKCart", func(t *testing.T) {
			m := ok(t, f.post(c, "/deletecartitem/"+cartLine, nil))
			if len(m["Items"].([]any)) != 0 {
				t.Errorf("cart after delete = %v", m)
			}
		})
		t.Run("OKWishlist", func(t *testing.T) {
			ok(t, f.post(c, "/deletecartitem/"+wishLine, nil))
			if n := f.count(`SELECT COUNT(*) FROM shopping_cart_item`); n != 0 {
				t.Errorf("lines left = %d, want 0", n)
			}
		})
		t.Run("ErrTwice", func(t *testing.T) {
			fails(t, f.post(c, "/deletecartitem/"+cartLine, nil), http.StatusNotFound, "NotFound")
		})
	})
}

func TestComponent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		t.Run("OKEmpty", func(t *testing.T) {
			m := ok(t, f.get(c, "/Component/Index?Name=SidebarShoppingCart"))
			if m["DisplayCheckoutButton"] != false || m["DisplayShoppingCartButton"] != true || m["SubTotal"] != "$0.00" {
				t.Errorf("empty sidebar = %v", m)
			}
		})
		p := f.product("Mug", cols{"price": "2.50"})
		f.addToCart(c, p, 1, 2)
		f.addToCart(c, p, 2, 5) // the wishlist is not in the sidebar
		t.Run("OK", func(t *testing.T) {
			rec := f.get(c, "/Component/Index?Name=SidebarShoppingCart")
			m := ok(t, rec)
			line := path(m, "Items", 0, "Id").(string)
			want := `{"Items":[{"Id":"` + line + `","ProductId":"` + p + `","ProductName":"Mug","ProductSeName":"mug",` +
				`"Quantity":2,"UnitPrice":"$2.50"}],"TotalProducts":2,"SubTotal":"$5.00","DisplayShoppingCartButton":true,` +
				`"DisplayCheckoutButton":true}` + "\n"
			if diff := cmp.Diff(want, rec.Body.String()); diff != "" {
				t.Errorf("sidebar (-want +got):\n%s", diff)
			}
		})
		t.Run("ErrUnknownName", func(t *testing.T) {
			fails(t, f.get(c, "/Component/Index?Name=Flyout"), http.StatusNotFound, "NotFound")
			fails(t, f.get(c, "/Component/Index"), http.StatusNotFound, "NotFound")
		})
	})
}

// TestAddToCart_MoneyRange checks that a change of lines whose totals would be past the money range (what
// NUMERIC(19,4) and SQLite's scaled integers both hold, up to 922337203685477.5807) is a 400 that changes
// nothing, and that a checkout whose prices rose past it meanwhile is a 400 too, never a 500.
func TestAddToCart_MoneyRange(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		huge := f.product("Yacht", cols{"price": "400000000000000", "order_maximum_quantity": 100000})
		limit := "922337203685477.5807"
		t.Run("ErrLineTotal", func(t *testing.T) {
			c := f.customer("line@example.com")
			for _, list := range []int{1, 2} {
				e := fails(t, f.post(c, "/addproducttocart/catalog/"+huge+"/"+itoa(list)+"?quantity=3", nil), http.StatusBadRequest, "LimitExceeded")
				if e.Target != "quantity" || !strings.Contains(e.Message, limit) {
					t.Errorf("adding 3 x 400000000000000 to list %d = %+v, want a 400 on quantity naming %s", list, e, limit)
				}
			}
			if n := f.count(`SELECT COUNT(*) FROM shopping_cart_item WHERE customer_id = ?`, c); n != 0 {
				t.Errorf("lines after the refused adds = %d, want 0", n)
			}
		})
		t.Run("ErrCartTotal", func(t *testing.T) {
			c := f.customer("total@example.com")
			f.addToCart(c, huge, 1, 2)
			other := f.product("Second yacht", cols{"price": "200000000000000"})
			e := fails(t, f.post(c, "/addproducttocart/details/"+other+"/1", url.Values{"addtocart_" + other + ".EnteredQuantity": {"1"}}),
				http.StatusBadRequest, "LimitExceeded")
			if e.Target != "addtocart_"+other+".EnteredQuantity" {
				t.Errorf("target = %q", e.Target)
			}
			line := path(ok(t, f.get(c, "/cart")), "Items", 0, "Id").(string)
			fails(t, f.post(c, "/updatecartitem/"+line+"?quantity=3", nil), http.StatusBadRequest, "LimitExceeded")
			m := ok(t, f.get(c, "/cart"))
			if num(m["SubTotalValue"]) != "800000000000000" || len(m["Items"].([]any)) != 1 {
				t.Errorf("cart after the refused changes = %v, want the yacht twice", m)
			}
		})
		t.Run("ErrShippingCharges", func(t *testing.T) {
			c := f.customer("charges@example.com")
			heavy := f.product("Heavy", cols{"price": "500000000000000", "additional_shipping_charge": "500000000000000"})
			fails(t, f.post(c, "/addproducttocart/catalog/"+heavy+"/1", nil), http.StatusBadRequest, "LimitExceeded")
			ok(t, f.post(c, "/addproducttocart/catalog/"+heavy+"/2", nil)) // a wishlist ships nothing
		})
		t.Run("ErrPriceRoseBeforeConfirmOrder", func(t *testing.T) {
			c := f.customer("rose@example.com")
			ship := f.product("Ship", cols{"price": "300000000000000"})
			f.addToCart(c, ship, 1, 2)
			f.checkout(c, usAddress("ShippingNewAddress"), ground, checkMoney)
			f.exec(`UPDATE product SET price = ? WHERE id = ?`, f.money("900000000000000"), ship)
			orders := f.count(`SELECT COUNT(*) FROM "order"`)
			e := fails(t, f.post(c, "/checkout/ConfirmOrder/", nil), http.StatusBadRequest, "LimitExceeded")
			if !strings.Contains(e.Message, limit) {
				t.Errorf("ConfirmOrder past the range = %q, want the limit named", e.Message)
			}
			fails(t, f.post(c, "/checkout/SavePaymentInfo/", url.Values{}), http.StatusBadRequest, "LimitExceeded")
			if n := f.count(`SELECT COUNT(*) FROM "order"`); n != orders {
				t.Errorf("orders after the refused ConfirmOrder = %d, want %d", n, orders)
			}
			if stock, sold := f.stock(ship); stock != 0 || sold != 0 {
				t.Errorf("stock and sold after the refused ConfirmOrder = %d, %d, want unchanged", stock, sold)
			}
		})
	})
}

package storefront_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/storefront"
)

func TestAccountInfo(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("Ann@Example.com")
		f.exec(`UPDATE customer SET gender = 'F', date_of_birth = ?, company = 'Acme', city = 'New York', country_id = 'US',
	state_province_id = 'US-NY', phone = '555-0100' WHERE id = ?`, "1990-04-05", c)
		t.Run("OK", func(t *testing.T) {
			rec := f.get(c, "/account/info")
			ok(t, rec)
			want := `{"Email":"Ann@Example.com","Username":"Ann@Example.com","FirstName":"Ann","LastName":"Lee","Gender":"F",` +
				`"DateOfBirth":"1990-04-05","Company":"Acme","StreetAddress":null,"StreetAddress2":null,"ZipPostalCode":null,` +
				`"City":"New York","CountryId":"US","StateProvinceId":"US-NY","Phone":"555-0100","VatNumber":null,` +
				`"Newsletter":false}` + "\n"
			if diff := cmp.Diff(want, rec.Body.String()); diff != "" {
				t.Errorf("GET /account/info (-want +got):\n%s", diff)
			}
		})
		newsletter := func(t *testing.T) any {
			t.Helper()
			return ok(t, f.get(c, "/account/info"))["Newsletter"]
		}
		t.Run("OKSubscribe", func(t *testing.T) {
			m := ok(t, f.post(c, "/subscribenewsletter?subscribe=true&email=ann@example.com", nil))
			if m["Success"] != true || m["Result"] != "Thank you for signing up! You are now subscribed to our newsletter." {
				t.Errorf("subscribe = %v", m)
			}
			if newsletter(t) != true {
				t.Error("Newsletter = false after subscribing the customer's e-mail (in another case)")
			}
			if n := f.count(`SELECT COUNT(*) FROM newsletter_subscription WHERE customer_id = ? AND active = ?`, c, true); n != 1 {
				t.Errorf("active subscriptions linked to the customer = %d, want 1", n)
			}
		})
		t.Run("OKSubscribeTwice", func(t *testing.T) {
			ok(t, f.post(c, "/subscribenewsletter?email=ANN@example.com", nil)) // subscribe defaults to true
			if n := f.count(`SELECT COUNT(*) FROM newsletter_subscription`); n != 1 {
				t.Errorf("subscriptions = %d, want 1", n)
			}
		})
		t.Run("OKUnsubscribe", func(t *testing.T) {
			m := ok(t, f.post(c, "/subscribenewsletter?subscribe=false&email=ann@example.com", nil))
			if m["Success"] != true || m["Result"] != "You have been unsubscribed from our newsletter." {
				t.Errorf("unsubscribe = %v", m)
			}
			if newsletter(t) != false {
				t.Error("Newsletter = true after unsubscribing")
			}
		})
		t.Run("OKOtherEmail", func(t *testing.T) {
			ok(t, f.post(c, "/subscribenewsletter", url.Values{"email": {"friend@example.com"}, "subscribe": {"true"}}))
			if newsletter(t) != false {
				t.Error("Newsletter = true after subscribing another e-mail")
			}
			if n := f.count(`SELECT COUNT(*) FROM newsletter_subscription WHERE email = 'friend@example.com' AND customer_id IS NULL AND active = ?`, false); n != 1 {
				t.Errorf("subscription of a stranger's e-mail = %d rows, want 1 inactive without customer (see TestNewsletter)", n)
			}
		})
		for _, tc := range []struct{ name, query, target string }{
			{"ErrInvalidEmail", "?subscribe=true&email=not-an-email", "email"},
			{"ErrDisplayNameEmail", "?email=" + url.QueryEscape("Ann <ann@example.com>"), "email"},
			{"ErrNoEmail", "?subscribe=true", "email"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := fails(t, f.post(c, "/subscribenewsletter"+tc.query, nil), http.StatusBadRequest, "ValidationFailed")
				if e.Target != tc.target {
					t.Errorf("target = %q, want %q", e.Target, tc.target)
				}
			})
		}
		t.Run("ErrBadSubscribe", func(t *testing.T) {
			fails(t, f.post(c, "/subscribenewsletter?subscribe=perhaps&email=ann@example.com", nil), http.StatusBadRequest, "InvalidValue")
		})
	})
}

func TestAccountAddresses(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		other := f.customer("bob@example.com")
		t.Run("OKNone", func(t *testing.T) {
			if got := ok(t, f.get(c, "/account/addresses"))["Addresses"]; !cmp.Equal(got, []any{}) {
				t.Errorf("Addresses = %v, want []", got)
			}
		})
		a, err := entities.InsertAddress(t.Context(), db, c, entities.Address{FirstName: "Ann", CountryID: "US", City: "NYC"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := entities.InsertAddress(t.Context(), db, other, entities.Address{FirstName: "Bob"}); err != nil {
			t.Fatal(err)
		}
		t.Run("OK", func(t *testing.T) {
			list := ok(t, f.get(c, "/account/addresses"))["Addresses"].([]any)
			if len(list) != 1 {
				t.Fatalf("Addresses = %v, want the customer's one", list)
			}
			got := list[0].(map[string]any)
			want := map[string]any{"Id": a.ID, "FirstName": "Ann", "LastName": nil, "Email": nil, "Company": nil,
				"CountryId": "US", "StateProvinceId": nil, "City": "NYC", "Address1": nil, "Address2": nil,
				"ZipPostalCode": nil, "PhoneNumber": nil, "FaxNumber": nil, "CreatedOnUtc": a.CreatedOnUtc.Format(time.RFC3339Nano)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("address (-want +got):\n%s", diff)
			}
		})
	})
}

func TestOrderHistory(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		other := f.customer("bob@example.com")
		t.Run("OKEmpty", func(t *testing.T) {
			m := ok(t, f.get(c, "/order/history"))
			want := map[string]any{"Orders": []any{}, "PagingContext": map[string]any{"PageNumber": "1", "PageSize": "10",
				"TotalItems": "0", "TotalPages": "0", "HasNextPage": false, "HasPreviousPage": false}}
			pc := m["PagingContext"].(map[string]any)
			for k, v := range pc {
				if _, ok := v.(bool); !ok {
					pc[k] = num(v)
				}
			}
			if diff := cmp.Diff(want, m); diff != "" {
				t.Errorf("empty history (-want +got):\n%s", diff)
			}
		})
		p := f.product("Pen", cols{"price": "1.00", "is_ship_enabled": false})
		var ids []string
		for i := 1; i <= 5; i++ {
			f.clock.Set(testNow.Add(time.Duration(i) * time.Minute))
			f.addToCart(c, p, 1, i)
			f.checkout(c, usAddress("ShippingNewAddress"), "", checkMoney)
			ids = append(ids, f.confirm(c))
		}
		f.addToCart(other, p, 1, 1)
		f.checkout(other, usAddress("ShippingNewAddress"), "", checkMoney)
		otherOrder := f.confirm(other)
		for _, tc := range []struct {
			query       string
			want        []string // order ids
			total, page string
			next, prev  bool
		}{
			{"", []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, "1", "1", false, false},
			{"?PageNumber=1&PageSize=2", []string{ids[4], ids[3]}, "3", "1", true, false},
			{"?PageNumber=2&PageSize=2", []string{ids[2], ids[1]}, "3", "2", true, true},
			{"?pagenumber=3&pagesize=2", []string{ids[0]}, "3", "3", false, true},
			{"?PageNumber=9&PageSize=2", nil, "3", "9", false, true},
		} {
			t.Run("OK"+tc.query, func(t *testing.T) {
				m := ok(t, f.get(c, "/order/history"+tc.query))
				var got []string
				for _, o := range m["Orders"].([]any) {
					got = append(got, o.(map[string]any)["Id"].(string))
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("orders (-want +got):\n%s", diff)
				}
				pc := m["PagingContext"]
				if num(path(pc, "TotalItems")) != "5" || num(path(pc, "TotalPages")) != tc.total || num(path(pc, "PageNumber")) != tc.page ||
					path(pc, "HasNextPage") != tc.next || path(pc, "HasPreviousPage") != tc.prev {
					t.Errorf("PagingContext = %v", pc)
				}
			})
		}
		t.Run("OKTotalsAndStatuses", func(t *testing.T) {
			o := path(ok(t, f.get(c, "/order/history?PageSize=1")), "Orders", 0)
			got := []any{path(o, "OrderTotal"), num(path(o, "OrderTotalValue")), path(o, "ShippingStatus"), path(o, "CreatedOnUtc"), num(path(o, "OrderNumber"))}
			want := []any{"$5.00", "5", "ShippingNotRequired", "2030-06-15T12:05:00Z", "5"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("newest order (-want +got):\n%s", diff)
			}
		})
		for _, q := range []string{"PageNumber=0", "PageNumber=-1", "PageNumber=x", "PageNumber=1.5", "PageSize=0", "PageSize=101",
			"PageSize=" + strconv.Itoa(1<<40), "PageNumber=99999999999999999999"} {
			t.Run("Err"+q, func(t *testing.T) {
				fails(t, f.get(c, "/order/history?"+q), http.StatusBadRequest, "ValidationFailed")
			})
		}
		t.Run("OKDetails", func(t *testing.T) {
			d := ok(t, f.get(c, "/orderdetails/"+ids[1]))
			if d["Id"] != ids[1] || num(path(d, "Items", 0, "Quantity")) != "2" {
				t.Errorf("details = %v", d)
			}
		})
		t.Run("ErrOtherCustomersOrder", func(t *testing.T) {
			fails(t, f.get(c, "/orderdetails/"+otherOrder), http.StatusNotFound, "NotFound")
		})
		t.Run("ErrUnknownOrder", func(t *testing.T) {
			fails(t, f.get(c, "/orderdetails/nope"), http.StatusNotFound, "NotFound")
		})
	})
}

func TestMigrations(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		t.Run("OKMethodsSeeded", func(t *testing.T) {
			rows, err := db.Query(`SELECT name, shipping_rate_provider_system_name, fee FROM shipping_method ORDER BY display_order`)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rows.Next() {
				var name, provider string
				var fee any
				if err := rows.Scan(&name, &provider, &fee); err != nil {
					t.Fatal(err)
				}
				got = append(got, name+" "+provider+" "+moneyText(t, fee))
			}
			rows.Close()
			want := []string{"Ground Shipping.FixedRate 0.00", "Next Day Air Shipping.FixedRate 20.00", "2nd Day Air Shipping.FixedRate 10.00"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("shipping methods (-want +got):\n%s", diff)
			}
			rows, err = db.Query(`SELECT system_name, fee, requires_pick_up_in_store FROM payment_method ORDER BY display_order`)
			if err != nil {
				t.Fatal(err)
			}
			got = nil
			for rows.Next() {
				var name string
				var fee any
				var pickUp bool
				if err := rows.Scan(&name, &fee, &pickUp); err != nil {
					t.Fatal(err)
				}
				got = append(got, name+" "+moneyText(t, fee)+" "+strconv.FormatBool(pickUp))
			}
			rows.Close()
			want = []string{"Payments.CheckMoneyOrder 0.00 false", "Payments.CashOnDelivery 2.00 false", "Payments.PayInStore 0.00 true"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("payment methods (-want +got):\n%s", diff)
			}
		})
		c := f.customer("ann@example.com")
		p := f.product("Pen", nil)
		f.addToCart(c, p, 1, 1)
		f.addToCart(c, p, 2, 1)
		t.Run("ErrOneLinePerProduct", func(t *testing.T) {
			_, err := db.Exec(f.q(`INSERT INTO shopping_cart_item (id, customer_id, shopping_cart_type, product_id, quantity,
	created_on_utc, updated_on_utc) SELECT 'dup', customer_id, shopping_cart_type, product_id, 1, created_on_utc,
	updated_on_utc FROM shopping_cart_item WHERE shopping_cart_type = 1`))
			if err == nil {
				t.Error("a second line for the same customer, list and product was accepted")
			}
		})
		t.Run("OKProductDeleteCascades", func(t *testing.T) {
			f.exec(`DELETE FROM product WHERE id = ?`, p)
			if n := f.count(`SELECT COUNT(*) FROM shopping_cart_item`); n != 0 {
				t.Errorf("lines after deleting the product = %d, want 0", n)
			}
		})
		t.Run("OKCustomerDeleteCascades", func(t *testing.T) {
			f.addToCart(c, f.product("Pencil", nil), 1, 1)
			ok(t, f.post(c, "/checkout/SaveShipping/", usAddress("ShippingNewAddress")))
			f.exec(`DELETE FROM customer WHERE id = ?`, c)
			if n := f.count(`SELECT (SELECT COUNT(*) FROM shopping_cart_item) + (SELECT COUNT(*) FROM checkout_state)`); n != 0 {
				t.Errorf("lines and checkout state after deleting the customer = %d, want 0", n)
			}
		})
	})
}

// TestMigrations_SameFiles checks that both dialects have the same migration files.
func TestMigrations_SameFiles(t *testing.T) {
	var names [2][]string
	for i, d := range []string{"sqlite", "postgres"} {
		list, err := migrate.Load(storefront.Migrations, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range list {
			names[i] = append(names[i], m.Name)
		}
	}
	if len(names[0]) == 0 {
		t.Fatal("no migrations")
	}
	if diff := cmp.Diff(names[0], names[1]); diff != "" {
		t.Errorf("migration files, sqlite vs postgres (-sqlite +postgres):\n%s", diff)
	}
}

// moneyText returns a stored money value with two decimals.
func moneyText(t *testing.T, v any) string {
	t.Helper()
	d, err := sqldb.ScanDecimal(v, 4)
	if err != nil {
		t.Fatal(err)
	}
	return d.StringFixed(2)
}

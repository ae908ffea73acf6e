package storefront_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/dbtest"
)

const (
	ground      = "Ground___Shipping.FixedRate"
	nextDayAir  = "Next Day Air___Shipping.FixedRate"
	secondDay   = "2nd Day Air___Shipping.FixedRate"
	checkMoney  = "Payments.CheckMoneyOrder"
	cashOnDeliv = "Payments.CashOnDelivery"
	payInStore  = "Payments.PayInStore"
)

// section returns the name, goto_section and model of a step answer.
func section(t testing.TB, m map[string]any) (name, gotoSection string, model map[string]any) {
	t.Helper()
	us, _ := m["update_section"].(map[string]any)
	name, _ = us["name"].(string)
	gotoSection, _ = m["goto_section"].(string)
	model, _ = us["model"].(map[string]any)
	return name, gotoSection, model
}

func TestCheckout_Sections(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		p := f.product("Pen", cols{"price": "19.99", "additional_shipping_charge": "0.50"})
		f.addToCart(c, p, 1, 3)

		t.Run("OKSaveShipping", func(t *testing.T) {
			name, gotoSection, model := section(t, ok(t, f.post(c, "/checkout/SaveShipping/", usAddress("ShippingNewAddress"))))
			if name != "shipping-method" || gotoSection != "shipping_method" {
				t.Fatalf("section = %s, %s, want shipping-method, shipping_method", name, gotoSection)
			}
			want := []any{
				map[string]any{"Name": "Ground", "Description": "Shipping by land transport.", "Fee": "$1.50", "FeeValue": "1.5", "ShippingOption": ground},
				map[string]any{"Name": "Next Day Air", "Description": "Delivered the next working day, by air.", "Fee": "$21.50", "FeeValue": "21.5", "ShippingOption": nextDayAir},
				map[string]any{"Name": "2nd Day Air", "Description": "Delivered within two working days, by air.", "Fee": "$11.50", "FeeValue": "11.5", "ShippingOption": secondDay},
			}
			got := model["ShippingMethods"].([]any)
			for _, m := range got {
				m.(map[string]any)["FeeValue"] = num(m.(map[string]any)["FeeValue"])
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ShippingMethods (-want +got):\n%s", diff)
			}
		})
		t.Run("OKSaveShippingMethod", func(t *testing.T) {
			name, gotoSection, model := section(t, ok(t, f.post(c, "/checkout/SaveShippingMethod/", url.Values{"shippingoption": {nextDayAir}})))
			if name != "payment-method" || gotoSection != "payment_method" {
				t.Fatalf("section = %s, %s", name, gotoSection)
			}
			var got []string
			for _, m := range model["PaymentMethods"].([]any) {
				m := m.(map[string]any)
				got = append(got, m["PaymentMethodSystemName"].(string)+" "+m["Name"].(string)+" "+m["Fee"].(string)+" "+num(m["FeeValue"]))
			}
			want := []string{"Payments.CheckMoneyOrder Check / Money Order $0.00 0", "Payments.CashOnDelivery Cash On Delivery (COD) $2.00 2"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("PaymentMethods without pick-up (-want +got):\n%s", diff)
			}
		})
		t.Run("OKSavePaymentMethod", func(t *testing.T) {
			name, gotoSection, model := section(t, ok(t, f.post(c, "/checkout/SavePaymentMethod/", url.Values{"paymentmethod": {cashOnDeliv}})))
			if name != "payment-info" || gotoSection != "payment_info" || model["PaymentMethodSystemName"] != cashOnDeliv {
				t.Fatalf("section = %s, %s, %v", name, gotoSection, model)
			}
		})
		t.Run("OKSavePaymentInfo", func(t *testing.T) {
			name, gotoSection, model := section(t, ok(t, f.post(c, "/checkout/SavePaymentInfo/", url.Values{})))
			if name != "confirm-order" || gotoSection != "confirm_order" {
				t.Fatalf("section = %s, %s", name, gotoSection)
			}
			got := []any{model["OrderSubtotal"], num(model["OrderSubtotalValue"]), model["OrderShipping"], num(model["OrderShippingValue"]),
				model["PaymentMethodAdditionalFee"], num(model["PaymentMethodAdditionalFeeValue"]), model["OrderTotal"],
				num(model["OrderTotalValue"]), model["Warnings"]}
			want := []any{"$59.97", "59.97", "$21.50", "21.5", "$2.00", "2", "$83.47", "83.47", []any{}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("confirm-order model (-want +got):\n%s", diff)
			}
		})
		t.Run("OKWithoutTrailingSlashAndMultipart", func(t *testing.T) {
			rec := f.serve(request{customer: c, method: "POST", path: "/checkout/SavePaymentInfo", form: url.Values{"x": {"1"}}, multipart: true})
			if name, _, _ := section(t, ok(t, rec)); name != "confirm-order" {
				t.Errorf("section = %s", name)
			}
		})
	})
}

func TestCheckout_Refusals(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		other := f.customer("bob@example.com")
		otherAddr, err := entities.InsertAddress(t.Context(), db, other, entities.Address{FirstName: "Bob"})
		if err != nil {
			t.Fatal(err)
		}
		p := f.product("Pen", nil)

		t.Run("ErrEmptyCart", func(t *testing.T) {
			for _, step := range []string{"SaveShipping", "SaveBilling", "SaveShippingMethod", "SavePaymentMethod", "SavePaymentInfo", "ConfirmOrder"} {
				e := fails(t, f.post(c, "/checkout/"+step+"/", url.Values{}), http.StatusBadRequest, "BadRequest")
				if e.Message != "Your cart is empty" {
					t.Errorf("%s on an empty cart: message %q, want Your cart is empty", step, e.Message)
				}
			}
		})
		f.addToCart(c, p, 1, 1)
		t.Run("ErrNotFormData", func(t *testing.T) {
			for _, step := range []string{"SaveShipping", "SaveBilling", "SaveShippingMethod", "SavePaymentMethod", "SavePaymentInfo", "ConfirmOrder"} {
				for _, ct := range []string{"application/json", "text/plain", "not a media type"} {
					rec := f.serve(request{customer: c, method: "POST", path: "/checkout/" + step + "/", contentType: ct, body: `{}`})
					fails(t, rec, http.StatusUnsupportedMediaType, "UnsupportedMediaType")
				}
				rec := f.serve(request{customer: c, method: "POST", path: "/checkout/" + step + "/", body: `x=1`})
				fails(t, rec, http.StatusUnsupportedMediaType, "UnsupportedMediaType")
			}
		})
		t.Run("ErrStepsTooEarly", func(t *testing.T) {
			for _, step := range []string{"SaveBilling", "SaveShippingMethod", "SavePaymentMethod", "SavePaymentInfo", "ConfirmOrder"} {
				e := fails(t, f.post(c, "/checkout/"+step+"/", url.Values{}), http.StatusConflict, "Conflict")
				if e.Target != "SaveShipping" || e.Message != "The checkout step SaveShipping has not been completed: POST /checkout/SaveShipping/ first." {
					t.Errorf("%s before SaveShipping = %+v, want the missing step SaveShipping", step, e)
				}
			}
		})
		t.Run("ErrNoAddress", func(t *testing.T) {
			e := fails(t, f.post(c, "/checkout/SaveShipping/", url.Values{}), http.StatusBadRequest, "ValidationFailed")
			if e.Target != "shipping_address_id" {
				t.Errorf("target = %q, want shipping_address_id", e.Target)
			}
		})
		t.Run("ErrNewAddressInvalid", func(t *testing.T) {
			form := with(usAddress("ShippingNewAddress"), "ShippingNewAddress.Email", "nope", "ShippingNewAddress.StateProvinceId", "CA-QC",
				"ShippingNewAddress.City", " ")
			e := fails(t, f.post(c, "/checkout/SaveShipping/", form), http.StatusBadRequest, "ValidationFailed")
			want := []struct{ Target, Message string }{
				{"ShippingNewAddress.Email", "Email is not valid"},
				{"ShippingNewAddress.StateProvinceId", "State / province does not belong to the country"},
				{"ShippingNewAddress.City", "City is required"},
			}
			var got []struct{ Target, Message string }
			for _, d := range e.Details {
				got = append(got, struct{ Target, Message string }{d.Target, d.Message})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
			form = usAddress("ShippingNewAddress")
			form.Del("ShippingNewAddress.CountryId")
			form.Del("ShippingNewAddress.StateProvinceId")
			e = fails(t, f.post(c, "/checkout/SaveShipping/", form), http.StatusBadRequest, "ValidationFailed")
			if diff := cmp.Diff([]string{"Country is required"}, detailMessages(e)); diff != "" {
				t.Errorf("details without a country (-want +got):\n%s", diff)
			}
			if n := f.count(`SELECT COUNT(*) FROM address WHERE customer_id = ?`, c); n != 0 {
				t.Errorf("an invalid address was stored (%d rows)", n)
			}
		})
		t.Run("ErrOtherCustomersAddress", func(t *testing.T) {
			e := fails(t, f.post(c, "/checkout/SaveShipping/", url.Values{"shipping_address_id": {otherAddr.ID}}), http.StatusBadRequest, "ValidationFailed")
			if e.Target != "shipping_address_id" {
				t.Errorf("target = %q", e.Target)
			}
		})
		t.Run("ErrBadBoolean", func(t *testing.T) {
			e := fails(t, f.post(c, "/checkout/SaveShipping/", with(usAddress("ShippingNewAddress"), "PickUpInStore", "maybe")), http.StatusBadRequest, "InvalidValue")
			if e.Target != "PickUpInStore" {
				t.Errorf("target = %q", e.Target)
			}
		})
		t.Run("ErrBillingMissing", func(t *testing.T) {
			name, _, _ := section(t, ok(t, f.post(c, "/checkout/SaveShipping/", with(usAddress("ShippingNewAddress"), "BillToTheSameAddress", "false"))))
			if name != "billing" {
				t.Fatalf("section = %s, want billing", name)
			}
			for _, step := range []string{"SaveShippingMethod", "SavePaymentMethod", "SavePaymentInfo", "ConfirmOrder"} {
				if e := fails(t, f.post(c, "/checkout/"+step+"/", url.Values{}), http.StatusConflict, "Conflict"); e.Target != "SaveBilling" {
					t.Errorf("%s before SaveBilling: target %q, want SaveBilling", step, e.Target)
				}
			}
			e := fails(t, f.post(c, "/checkout/SaveBilling/", url.Values{}), http.StatusBadRequest, "ValidationFailed")
			if e.Target != "billing_address_id" {
				t.Errorf("SaveBilling without an address: target %q", e.Target)
			}
		})
		t.Run("ErrShippingMethodMissing", func(t *testing.T) {
			ok(t, f.post(c, "/checkout/SaveShipping/", usAddress("ShippingNewAddress")))
			for _, step := range []string{"SavePaymentMethod", "SavePaymentInfo", "ConfirmOrder"} {
				if e := fails(t, f.post(c, "/checkout/"+step+"/", url.Values{"paymentmethod": {checkMoney}}), http.StatusConflict, "Conflict"); e.Target != "SaveShippingMethod" {
					t.Errorf("%s before SaveShippingMethod: target %q", step, e.Target)
				}
			}
		})
		t.Run("ErrShippingOption", func(t *testing.T) {
			for _, opt := range []string{"", "Ground", "Ground___Shipping.Other", "Teleport___Shipping.FixedRate"} {
				e := fails(t, f.post(c, "/checkout/SaveShippingMethod/", url.Values{"shippingoption": {opt}}), http.StatusBadRequest, "ValidationFailed")
				if e.Target != "shippingoption" {
					t.Errorf("shippingoption %q: target %q", opt, e.Target)
				}
			}
		})
		t.Run("ErrPaymentMethodMissing", func(t *testing.T) {
			ok(t, f.post(c, "/checkout/SaveShippingMethod/", url.Values{"shippingoption": {ground}}))
			for _, step := range []string{"SavePaymentInfo", "ConfirmOrder"} {
				if e := fails(t, f.post(c, "/checkout/"+step+"/", url.Values{}), http.StatusConflict, "Conflict"); e.Target != "SavePaymentMethod" {
					t.Errorf("%s before SavePaymentMethod: target %q", step, e.Target)
				}
			}
		})
		t.Run("ErrPaymentMethod", func(t *testing.T) {
			for _, pm := range []string{"", "Payments.Bitcoin", payInStore} {
				e := fails(t, f.post(c, "/checkout/SavePaymentMethod/", url.Values{"paymentmethod": {pm}}), http.StatusBadRequest, "ValidationFailed")
				if e.Target != "paymentmethod" {
					t.Errorf("paymentmethod %q: target %q", pm, e.Target)
				}
			}
		})
		t.Run("ErrPaymentInfoMissing", func(t *testing.T) {
			ok(t, f.post(c, "/checkout/SavePaymentMethod/", url.Values{"paymentmethod": {checkMoney}}))
			if e := fails(t, f.post(c, "/checkout/ConfirmOrder/", nil), http.StatusConflict, "Conflict"); e.Target != "SavePaymentInfo" {
				t.Errorf("ConfirmOrder before SavePaymentInfo: target %q", e.Target)
			}
		})
		t.Run("ErrRedoingAStepClearsTheLaterOnes", func(t *testing.T) {
			ok(t, f.post(c, "/checkout/SavePaymentInfo/", nil))
			ok(t, f.post(c, "/checkout/SaveShippingMethod/", url.Values{"shippingoption": {secondDay}}))
			if e := fails(t, f.post(c, "/checkout/ConfirmOrder/", nil), http.StatusConflict, "Conflict"); e.Target != "SavePaymentMethod" {
				t.Errorf("ConfirmOrder after a new shipping method: target %q, want SavePaymentMethod", e.Target)
			}
		})
		t.Run("ErrAddressDeletedMeanwhile", func(t *testing.T) {
			f.checkout(c, usAddress("ShippingNewAddress"), ground, checkMoney)
			f.exec(`DELETE FROM address WHERE customer_id = ?`, c)
			if e := fails(t, f.post(c, "/checkout/ConfirmOrder/", nil), http.StatusConflict, "Conflict"); e.Target != "SaveShipping" {
				t.Errorf("ConfirmOrder after the address was deleted: target %q, want SaveShipping", e.Target)
			}
		})
		t.Run("ErrShippingMethodWithPickUp", func(t *testing.T) {
			ok(t, f.post(c, "/checkout/SaveShipping/", url.Values{"PickUpInStore": {"true"}}))
			ok(t, f.post(c, "/checkout/SaveBilling/", usAddress("BillingNewAddress")))
			fails(t, f.post(c, "/checkout/SaveShippingMethod/", url.Values{"shippingoption": {ground}}), http.StatusConflict, "Conflict")
		})
	})
}

func TestCheckout_Addresses(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		c := f.customer("ann@example.com")
		p := f.product("Pen", nil)
		f.addToCart(c, p, 1, 1)
		t.Run("OKNewAddressStoredOnce", func(t *testing.T) {
			ok(t, f.post(c, "/checkout/SaveShipping/", usAddress("ShippingNewAddress")))
			ok(t, f.post(c, "/checkout/SaveShipping/", with(usAddress("ShippingNewAddress"), "ShippingNewAddress.City", " New York ")))
			if n := f.count(`SELECT COUNT(*) FROM address WHERE customer_id = ?`, c); n != 1 {
				t.Errorf("addresses = %d, want 1 (an identical address is reused)", n)
			}
			ok(t, f.post(c, "/checkout/SaveShipping/", with(usAddress("ShippingNewAddress"), "ShippingNewAddress.Address2", "Apt 4")))
			if n := f.count(`SELECT COUNT(*) FROM address WHERE customer_id = ?`, c); n != 2 {
				t.Errorf("addresses = %d, want 2", n)
			}
		})
		t.Run("OKExistingAddress", func(t *testing.T) {
			addrs := ok(t, f.get(c, "/account/addresses"))["Addresses"].([]any)
			id := addrs[0].(map[string]any)["Id"].(string)
			name, _, _ := section(t, ok(t, f.post(c, "/checkout/SaveShipping/", url.Values{"shipping_address_id": {id}})))
			if name != "shipping-method" {
				t.Errorf("section = %s", name)
			}
		})
		t.Run("OKBillToAnotherAddress", func(t *testing.T) {
			name, _, model := section(t, ok(t, f.post(c, "/checkout/SaveShipping/", with(usAddress("ShippingNewAddress"), "BillToTheSameAddress", "false"))))
			if name != "billing" || len(model["ExistingAddresses"].([]any)) != 2 {
				t.Fatalf("section = %s %v, want billing with the 2 addresses", name, model)
			}
			bill := with(usAddress("BillingNewAddress"), "BillingNewAddress.FirstName", "Bea", "BillingNewAddress.CountryId", "DE",
				"BillingNewAddress.StateProvinceId", "")
			name, _, _ = section(t, ok(t, f.post(c, "/checkout/SaveBilling/", bill)))
			if name != "shipping-method" {
				t.Fatalf("section after SaveBilling = %s", name)
			}
			f.post(c, "/checkout/SaveShippingMethod/", url.Values{"shippingoption": {ground}})
			f.post(c, "/checkout/SavePaymentMethod/", url.Values{"paymentmethod": {checkMoney}})
			f.post(c, "/checkout/SavePaymentInfo/", nil)
			id := f.confirm(c)
			d := ok(t, f.get(c, "/orderdetails/"+id))
			if path(d, "BillingAddress", "FirstName") != "Bea" || path(d, "BillingAddress", "CountryId") != "DE" ||
				path(d, "ShippingAddress", "FirstName") != "Ann" || path(d, "ShippingAddress", "StateProvinceId") != "US-NY" {
				t.Errorf("order addresses = %v / %v", d["BillingAddress"], d["ShippingAddress"])
			}
		})
	})
}

func TestCheckout_CountriesDisabled(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db, countriesDisabled)
		c := f.customer("ann@example.com")
		f.addToCart(c, f.product("Pen", nil), 1, 1)
		form := usAddress("ShippingNewAddress")
		form.Del("ShippingNewAddress.CountryId")
		form.Del("ShippingNewAddress.StateProvinceId")
		ok(t, f.post(c, "/checkout/SaveShipping/", form))
		e := fails(t, f.post(c, "/checkout/SaveShipping/", with(form, "ShippingNewAddress.CountryId", "ZZ")), http.StatusBadRequest, "ValidationFailed")
		if diff := cmp.Diff([]string{"Country does not exist"}, detailMessages(e)); diff != "" {
			t.Errorf("unknown country with countries disabled (-want +got):\n%s", diff)
		}
	})
}

func TestCheckout_Shipping(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		fee := func(t *testing.T, c string) string {
			t.Helper()
			_, _, model := section(t, ok(t, f.post(c, "/checkout/SaveShipping/", usAddress("ShippingNewAddress"))))
			return path(model, "ShippingMethods", 1, "Fee").(string) // Next Day Air
		}
		t.Run("OKAdditionalChargesOfShippableLines", func(t *testing.T) {
			c := f.customer("a@example.com")
			f.addToCart(c, f.product("Heavy", cols{"additional_shipping_charge": "2.25"}), 1, 2)
			f.addToCart(c, f.product("Free", cols{"additional_shipping_charge": "100", "is_free_shipping": true}), 1, 1)
			f.addToCart(c, f.product("Download", cols{"additional_shipping_charge": "100", "is_ship_enabled": false}), 1, 1)
			if got := fee(t, c); got != "$24.50" {
				t.Errorf("Next Day Air fee = %s, want $24.50 (20.00 + 2 x 2.25)", got)
			}
		})
		t.Run("OKCustomerFreeShipping", func(t *testing.T) {
			c := f.customer("b@example.com")
			f.exec(`UPDATE customer SET free_shipping = ? WHERE id = ?`, true, c)
			f.addToCart(c, f.product("Heavy 2", cols{"additional_shipping_charge": "2.25"}), 1, 2)
			if got := fee(t, c); got != "$0.00" {
				t.Errorf("fee = %s, want $0.00", got)
			}
		})
		t.Run("OKRoleFreeShipping", func(t *testing.T) {
			c := f.customer("c@example.com")
			f.addToRole(c, f.role("Free shippers", true, nil))
			f.addToCart(c, f.product("Heavy 3", nil), 1, 1)
			if got := fee(t, c); got != "$0.00" {
				t.Errorf("fee = %s, want $0.00", got)
			}
		})
		t.Run("OKNothingShippable", func(t *testing.T) {
			c := f.customer("d@example.com")
			p := f.product("E-book", cols{"is_ship_enabled": false, "price": "5.00"})
			f.addToCart(c, p, 1, 1)
			name, gotoSection, _ := section(t, ok(t, f.post(c, "/checkout/SaveShipping/", usAddress("ShippingNewAddress"))))
			if name != "payment-method" || gotoSection != "payment_method" {
				t.Fatalf("section = %s, want payment-method", name)
			}
			fails(t, f.post(c, "/checkout/SaveShippingMethod/", url.Values{"shippingoption": {ground}}), http.StatusConflict, "Conflict")
			ok(t, f.post(c, "/checkout/SavePaymentMethod/", url.Values{"paymentmethod": {cashOnDeliv}}))
			ok(t, f.post(c, "/checkout/SavePaymentInfo/", nil))
			d := ok(t, f.get(c, "/orderdetails/"+f.confirm(c)))
			got := []any{d["ShippingStatus"], d["ShippingMethod"], d["ShippingAddress"], d["OrderShipping"], d["OrderTotal"], path(d, "BillingAddress", "City")}
			want := []any{"ShippingNotRequired", nil, nil, "$0.00", "$7.00", "New York"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("order without shipping (-want +got):\n%s", diff)
			}
		})
		t.Run("OKPickUpInStore", func(t *testing.T) {
			c := f.customer("e@example.com")
			f.addToCart(c, f.product("Chair", cols{"price": "30.00", "additional_shipping_charge": "5"}), 1, 1)
			name, _, _ := section(t, ok(t, f.post(c, "/checkout/SaveShipping/", url.Values{"PickUpInStore": {"true"}})))
			if name != "billing" {
				t.Fatalf("section = %s, want billing (no address to bill yet)", name)
			}
			name, _, model := section(t, ok(t, f.post(c, "/checkout/SaveBilling/", usAddress("BillingNewAddress"))))
			if name != "payment-method" || len(model["PaymentMethods"].([]any)) != 3 {
				t.Fatalf("section = %s %v, want payment-method with Pay In Store", name, model)
			}
			ok(t, f.post(c, "/checkout/SavePaymentMethod/", url.Values{"paymentmethod": {payInStore}}))
			ok(t, f.post(c, "/checkout/SavePaymentInfo/", nil))
			d := ok(t, f.get(c, "/orderdetails/"+f.confirm(c)))
			got := []any{d["ShippingStatus"], d["ShippingMethod"], d["ShippingRateProviderSystemName"], d["PickUpInStore"],
				d["ShippingAddress"], d["OrderShipping"], d["OrderTotal"], d["PaymentMethodSystemName"], d["PaymentMethod"]}
			want := []any{"NotYetShipped", "Pickup in store", "Pickup.PickupInStore", true, nil, "$0.00", "$30.00", payInStore, "Pay In Store"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("picked-up order (-want +got):\n%s", diff)
			}
		})
		t.Run("OKPickUpWithAddressBillsIt", func(t *testing.T) {
			c := f.customer("g@example.com")
			f.addToCart(c, f.product("Table", nil), 1, 1)
			name, _, _ := section(t, ok(t, f.post(c, "/checkout/SaveShipping/", with(usAddress("ShippingNewAddress"), "PickUpInStore", "true,false"))))
			if name != "payment-method" {
				t.Errorf("section = %s, want payment-method", name)
			}
		})
	})
}

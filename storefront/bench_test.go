package storefront_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/dbtest"
)

// Benchmarks run on SQLite only: they measure the code path, and a SQLite file has no server or network in it
// to blur that; the tests run the same code on both databases.

// BenchmarkAddToCart measures POST /addproducttocart/catalog/{id}/1 on SQLite: one line whose quantity grows,
// through the handler (form parsing, the transaction, the answer with the sidebar).
func BenchmarkAddToCart(b *testing.B) {
	f := newFixture(b, dbtest.SQLite(b))
	c := f.customer("bench@example.com")
	p := f.product("Pen", cols{"order_maximum_quantity": 2_000_000_000})
	r := request{customer: c, method: http.MethodPost, path: "/addproducttocart/catalog/" + p + "/1?quantity=1"}
	b.ReportAllocs()
	for b.Loop() {
		if rec := f.serve(r); rec.Code != http.StatusOK {
			b.Fatalf("add = %d %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkCheckout measures a whole checkout on SQLite: add to cart, SaveShipping with an existing address,
// SaveShippingMethod, SavePaymentMethod, SavePaymentInfo and ConfirmOrder (a managed-stock product).
func BenchmarkCheckout(b *testing.B) {
	f := newFixture(b, dbtest.SQLite(b))
	c := f.customer("bench@example.com")
	p := f.product("Pen", cols{"manage_inventory_method": entities.ManageInventoryMethodManageStock,
		"stock_quantity": 1_000_000_000})
	a, err := entities.InsertAddress(b.Context(), f.db, c, entities.Address{FirstName: "Ann", LastName: "Lee",
		Email: "ann@example.com", CountryID: "US", StateProvinceID: "US-NY", City: "New York", Address1: "1 Main St",
		ZipPostalCode: "10001", PhoneNumber: "555-0100"})
	if err != nil {
		b.Fatal(err)
	}
	steps := []request{
		{method: http.MethodPost, path: "/addproducttocart/catalog/" + p + "/1?quantity=2"},
		{method: http.MethodPost, path: "/checkout/SaveShipping/", form: url.Values{"shipping_address_id": {a.ID}}},
		{method: http.MethodPost, path: "/checkout/SaveShippingMethod/", form: url.Values{"shippingoption": {nextDayAir}}},
		{method: http.MethodPost, path: "/checkout/SavePaymentMethod/", form: url.Values{"paymentmethod": {cashOnDeliv}}},
		{method: http.MethodPost, path: "/checkout/SavePaymentInfo/", form: url.Values{}},
		{method: http.MethodPost, path: "/checkout/ConfirmOrder/"},
	}
	for i := range steps {
		steps[i].customer = c
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range steps {
			if rec := f.serve(r); rec.Code != http.StatusOK {
				b.Fatalf("%s = %d %s", r.path, rec.Code, rec.Body)
			}
		}
	}
}

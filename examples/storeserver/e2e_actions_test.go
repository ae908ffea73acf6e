package main

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// trueBody checks the answer of an action that returns true.
func trueBody(t testing.TB, s *storeServer, what string, r *response) {
	t.Helper()
	want := `{"@odata.context":"` + s.url + `/odata/$metadata#Edm.Boolean","value":true}`
	if string(r.body) != want {
		t.Errorf("%s = %s, want %s", what, r.body, want)
	}
	checkJSONHeaders(t, what, r)
}

// newCustomer creates a customer with a password through /odata and returns a client signed in as it.
func newCustomer(t testing.TB, s *storeServer, admin *client, email string) *client {
	t.Helper()
	admin.must(t, http.StatusCreated, "POST", "/odata/Customer", map[string]any{"Email": email, "FirstName": "Ann"})
	admin.must(t, http.StatusOK, "POST", "/odata/Customer('"+email+"')/SetPassword", map[string]any{"password": "customer-pw-1"})
	return s.client(s.login(t, email, "customer-pw-1"))
}

// usAddress is a valid address in New York, as action parameters or (with a prefix) checkout form fields.
func usAddress() map[string]any {
	return map[string]any{"FirstName": "Ann", "LastName": "Lee", "Email": "ann@example.com", "CountryId": "US",
		"StateProvinceId": "US-NY", "City": "New York", "Address1": "1 Main St", "ZipPostalCode": "10001",
		"PhoneNumber": "555-0100"}
}

func addressForm(prefix string) url.Values {
	v := url.Values{}
	for k, x := range usAddress() {
		v.Set(prefix+"."+k, x.(string))
	}
	return v
}

// placeOrder puts qty of the product in the customer's cart and checks out (Ground, check / money order); it
// returns the order's id.
func placeOrder(t testing.TB, c *client, productID string, qty int) string {
	t.Helper()
	c.must(t, http.StatusOK, "POST", "/addproducttocart/catalog/"+productID+"/1?quantity="+itoa(qty), nil)
	c.must(t, http.StatusOK, "POST", "/checkout/SaveShipping/", addressForm("ShippingNewAddress"))
	c.must(t, http.StatusOK, "POST", "/checkout/SaveShippingMethod/", url.Values{"shippingoption": {"Ground___Shipping.FixedRate"}})
	c.must(t, http.StatusOK, "POST", "/checkout/SavePaymentMethod/", url.Values{"paymentmethod": {"Payments.CheckMoneyOrder"}})
	c.must(t, http.StatusOK, "POST", "/checkout/SavePaymentInfo/", url.Values{})
	m := c.must(t, http.StatusOK, "POST", "/checkout/ConfirmOrder/", url.Values{}).json(t)
	return str(m, "OrderId")
}

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func TestStore_CustomerActions(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false")
		admin := s.admin(t)
		ann := newCustomer(t, s, admin, "ann@example.com")
		newCustomer(t, s, admin, "bob@example.com")
		annURL := "/odata/Customer('ann@example.com')"

		t.Run("SetPassword", func(t *testing.T) {
			r := admin.must(t, http.StatusOK, "POST", "/odata/Customer('ANN@example.com')/SetPassword", map[string]any{"password": "new-password"})
			trueBody(t, s, "SetPassword", r)
			ann.fails(t, http.StatusUnauthorized, "Unauthorized", "GET", "/cart", nil) // tokens revoked
			s.client("").fails(t, http.StatusBadRequest, "InvalidCredentials", "POST", "/api/token",
				map[string]string{"email": "ann@example.com", "password": "customer-pw-1"})
			ann = s.client(s.login(t, "ann@example.com", "new-password"))
			ann.must(t, http.StatusOK, "GET", "/cart", nil)
			if c := admin.must(t, http.StatusOK, "GET", annURL, nil).json(t); c["HasPassword"] != true {
				t.Errorf("HasPassword = %v after SetPassword, want true", c["HasPassword"])
			}
			// Names match case-insensitively, with or without the namespace.
			admin.must(t, http.StatusOK, "POST", annURL+"/Store.SetPassword", map[string]any{"password": "new-password"})
			admin.must(t, http.StatusOK, "POST", annURL+"/setpassword", map[string]any{"password": "new-password"})
			ann = s.client(s.login(t, "ann@example.com", "new-password"))

			e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", annURL+"/SetPassword", map[string]any{"password": "short"})
			if e.Target != "password" || e.Message != "The password must have at least 8 characters." {
				t.Errorf("SetPassword short: target %q, message %q", e.Target, e.Message)
			}
			e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", annURL+"/SetPassword", map[string]any{})
			if e.Target != "password" {
				t.Errorf("SetPassword without password: target %q, want password", e.Target)
			}
			admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", annURL+"/SetPassword", map[string]any{"password": "longenough", "extra": 1})
			admin.fails(t, http.StatusNotFound, "NotFound", "POST", "/odata/Customer('nobody@example.com')/SetPassword", map[string]any{"password": "longenough"})
			admin.fails(t, http.StatusNotFound, "NotFound", "POST", annURL+"/NoSuchAction", map[string]any{})
			ann.must(t, http.StatusOK, "GET", "/cart", nil) // the failed calls changed nothing
		})

		var addressID string
		t.Run("AddAddress", func(t *testing.T) {
			r := admin.must(t, http.StatusOK, "POST", annURL+"/AddAddress", withKeys(usAddress(), "Company", "Lee & Co"))
			checkJSONHeaders(t, "AddAddress", r)
			a := r.json(t)
			addressID = str(a, "Id")
			if !idPattern.MatchString(addressID) || str(a, "City") != "New York" || str(a, "Company") != "Lee & Co" ||
				a["FaxNumber"] != nil || str(a, "CreatedOnUtc") == "" || !strings.Contains(str(a, "@odata.context"), "$metadata#") {
				t.Errorf("AddAddress = %v", a)
			}
			if r.header.Get("ETag") == "" {
				t.Errorf("AddAddress: no ETag")
			}
			list := admin.must(t, http.StatusOK, "GET", annURL+"/Addresses", nil).json(t)["value"].([]any)
			if len(list) != 1 || str(list[0].(map[string]any), "Id") != addressID {
				t.Errorf("GET Addresses = %v, want the new address", list)
			}
			mine := ann.must(t, http.StatusOK, "GET", "/account/addresses", nil).json(t)
			if id := str(path(mine, "Addresses", 0).(map[string]any), "Id"); id != addressID {
				t.Errorf("GET /account/addresses: Id %q, want %q", id, addressID)
			}

			e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", annURL+"/AddAddress", map[string]any{"FirstName": "Ann"})
			want := []string{
				"Required LastName: Last name is required",
				"Required Email: Email is required",
				"Required CountryId: Country is required",
				"Required City: City is required",
				"Required Address1: Street address is required",
				"Required ZipPostalCode: Zip / postal code is required",
				"Required PhoneNumber: Phone number is required",
			}
			if diff := cmp.Diff(want, e.details()); diff != "" {
				t.Errorf("AddAddress with only FirstName (-want +got):\n%s", diff)
			}
			for _, c := range []struct {
				change map[string]any
				want   []string
			}{
				{map[string]any{"CountryId": "ZZ", "StateProvinceId": nil}, []string{"InvalidValue CountryId: Country is required"}},
				{map[string]any{"StateProvinceId": nil}, []string{"Required StateProvinceId: State / province is required"}},
				{map[string]any{"CountryId": "CA"}, []string{"InvalidValue StateProvinceId: State / province does not belong to the country"}},
				{map[string]any{"Email": "not-an-email"}, []string{"InvalidValue Email: Email is not valid"}},
				{map[string]any{"CountryId": "DE", "StateProvinceId": nil}, nil}, // a country without states
			} {
				body := usAddress()
				for k, v := range c.change {
					body[k] = v
				}
				r := admin.do(t, "POST", annURL+"/AddAddress", body)
				if c.want == nil {
					if r.status != http.StatusOK {
						t.Errorf("AddAddress %v = %s, want 200", c.change, r)
					}
					continue
				}
				if r.status != http.StatusBadRequest {
					t.Errorf("AddAddress %v = %s, want 400", c.change, r)
					continue
				}
				if diff := cmp.Diff(c.want, r.error(t).details()); diff != "" {
					t.Errorf("AddAddress %v (-want +got):\n%s", c.change, diff)
				}
			}
			e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", annURL+"/AddAddress", withKeys(usAddress(), "Id", "x"))
			if e.Target != "Id" {
				t.Errorf("AddAddress with an Id: target %q, want Id", e.Target)
			}
		})

		t.Run("UpdateAddress", func(t *testing.T) {
			r := admin.must(t, http.StatusOK, "POST", annURL+"/UpdateAddress", map[string]any{"Id": addressID, "City": "Buffalo", "Company": nil})
			a := r.json(t)
			if str(a, "Id") != addressID || str(a, "City") != "Buffalo" || a["Company"] != nil || str(a, "Address1") != "1 Main St" {
				t.Errorf("UpdateAddress City and Company = %v, want City Buffalo, no company, the rest kept", a)
			}
			e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", annURL+"/UpdateAddress", map[string]any{"Id": addressID, "City": " "})
			if diff := cmp.Diff([]string{"Required City: City is required"}, e.details()); diff != "" {
				t.Errorf("UpdateAddress blank city (-want +got):\n%s", diff)
			}
			e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", annURL+"/UpdateAddress", map[string]any{"City": "x"})
			if e.Target != "Id" {
				t.Errorf("UpdateAddress without Id: target %q, want Id", e.Target)
			}
			admin.fails(t, http.StatusNotFound, "NotFound", "POST", "/odata/Customer('bob@example.com')/UpdateAddress", map[string]any{"Id": addressID, "City": "x"})
			admin.fails(t, http.StatusNotFound, "NotFound", "POST", annURL+"/UpdateAddress", map[string]any{"Id": "0123456789abcdef01234567"})
		})

		t.Run("DeleteAddress", func(t *testing.T) {
			admin.fails(t, http.StatusNotFound, "NotFound", "POST", "/odata/Customer('bob@example.com')/DeleteAddress", map[string]any{"Id": addressID})
			e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", annURL+"/DeleteAddress", map[string]any{})
			if e.Target != "Id" {
				t.Errorf("DeleteAddress without Id: target %q, want Id", e.Target)
			}
			trueBody(t, s, "DeleteAddress", admin.must(t, http.StatusOK, "POST", annURL+"/DeleteAddress", map[string]any{"addressId": addressID}))
			admin.fails(t, http.StatusNotFound, "NotFound", "POST", annURL+"/DeleteAddress", map[string]any{"Id": addressID})
		})
	})
}

func TestStore_CountriesDisabled(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false", "-countries=false")
		admin := s.admin(t)
		admin.must(t, http.StatusCreated, "POST", "/odata/Customer", map[string]any{"Email": "ann@example.com"})
		u := "/odata/Customer('ann@example.com')/AddAddress"
		a := withKeys(usAddress(), "CountryId", nil, "StateProvinceId", nil)
		if r := admin.must(t, http.StatusOK, "POST", u, a).json(t); r["CountryId"] != nil {
			t.Errorf("AddAddress without a country = %v", r)
		}
		e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", u, withKeys(a, "CountryId", "ZZ", "StateProvinceId", "US-NY"))
		want := []string{"InvalidValue CountryId: Country does not exist"}
		if diff := cmp.Diff(want, e.details()); diff != "" {
			t.Errorf("AddAddress unknown country, countries disabled (-want +got):\n%s", diff)
		}
		e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", u, withKeys(a, "CountryId", "CA", "StateProvinceId", "US-NY"))
		want = []string{"InvalidValue StateProvinceId: State / province does not belong to the country"}
		if diff := cmp.Diff(want, e.details()); diff != "" {
			t.Errorf("AddAddress state of another country, countries disabled (-want +got):\n%s", diff)
		}
		e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", u, map[string]any{"FirstName": "Ann"})
		if len(e.Details) != 6 {
			t.Errorf("AddAddress with only FirstName, countries disabled: %v, want 6 required fields (no country)", e.details())
		}
	})
}

func TestStore_ProductActions(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false")
		admin := s.admin(t)
		create := func(set string, body map[string]any) string {
			t.Helper()
			return str(admin.must(t, http.StatusCreated, "POST", "/odata/"+set, body).json(t), "Id")
		}
		product := create("Product", map[string]any{"Name": "Pen", "Price": 19.99, "ManageInventoryMethod": "ManageStock",
			"StockQuantity": 10, "MinStockQuantity": 3, "LowStockActivity": "Unpublish"})
		other := create("Product", map[string]any{"Name": "Pencil"})
		category := create("Category", map[string]any{"Name": "Pens"})
		maker := create("Manufacturer", map[string]any{"Name": "Acme"})
		picture := create("Picture", map[string]any{"MimeType": "image/png",
			"PictureBinary": base64.StdEncoding.EncodeToString(pngImage(t, 1, 1))})
		role := create("CustomerRole", map[string]any{"Name": "Wholesale"})
		pURL := "/odata/Product('" + product + "')"
		get := func() map[string]any { return admin.must(t, http.StatusOK, "GET", pURL, nil).json(t) }

		t.Run("UpdateStock", func(t *testing.T) {
			trueBody(t, s, "UpdateStock", admin.must(t, http.StatusOK, "POST", pURL+"/UpdateStock", map[string]any{"Stock": 5, "WarehouseId": nil}))
			if p := get(); num(p, "StockQuantity") != "5" || p["Published"] != true {
				t.Errorf("after UpdateStock 5: StockQuantity %v, Published %v, want 5, true", p["StockQuantity"], p["Published"])
			}
			admin.must(t, http.StatusOK, "POST", pURL+"/UpdateStock", map[string]any{"Stock": 3})
			if p := get(); num(p, "StockQuantity") != "3" || p["Published"] != false {
				t.Errorf("after UpdateStock 3 (= MinStockQuantity, Unpublish): StockQuantity %v, Published %v, want 3, false",
					p["StockQuantity"], p["Published"])
			}
			admin.must(t, http.StatusOK, "PATCH", pURL, map[string]any{"Published": true, "LowStockActivity": "DisableBuyButton"})
			admin.must(t, http.StatusOK, "POST", pURL+"/UpdateStock", map[string]any{"Stock": 0})
			if p := get(); p["DisableBuyButton"] != true || p["Published"] != true {
				t.Errorf("after UpdateStock 0 (DisableBuyButton): DisableBuyButton %v, Published %v, want true, true",
					p["DisableBuyButton"], p["Published"])
			}
			admin.must(t, http.StatusOK, "PATCH", pURL, map[string]any{"DisableBuyButton": false, "LowStockActivity": "Nothing"})
			admin.must(t, http.StatusOK, "POST", pURL+"/UpdateStock", map[string]any{"Stock": 100})

			e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", pURL+"/UpdateStock", map[string]any{"Stock": 1, "WarehouseId": "w1"})
			if e.Target != "WarehouseId" {
				t.Errorf("UpdateStock with a warehouse: target %q, want WarehouseId", e.Target)
			}
			e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", pURL+"/UpdateStock", map[string]any{})
			if e.Target != "Stock" {
				t.Errorf("UpdateStock without Stock: target %q, want Stock", e.Target)
			}
			e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", pURL+"/UpdateStock", map[string]any{"Stock": "many"})
			if e.Target != "Stock" {
				t.Errorf("UpdateStock Stock many: target %q, want Stock", e.Target)
			}
			admin.fails(t, http.StatusBadRequest, "InvalidJson", "POST", pURL+"/UpdateStock", "[1]")
			if p := get(); num(p, "StockQuantity") != "100" {
				t.Errorf("failed UpdateStock calls changed StockQuantity to %v", p["StockQuantity"])
			}
			// If-Match on an action.
			etag := admin.must(t, http.StatusOK, "GET", pURL, nil).header.Get("ETag")
			admin.must(t, http.StatusOK, "POST", pURL+"/UpdateStock", map[string]any{"Stock": 99}, "If-Match", etag)
			admin.fails(t, http.StatusPreconditionFailed, "PreconditionFailed", "POST", pURL+"/UpdateStock", map[string]any{"Stock": 98}, "If-Match", etag)
		})

		for _, c := range []struct {
			name, param, ref, nav string
			update                map[string]any
		}{
			{"Category", "CategoryId", category, "Categories", map[string]any{"DisplayOrder": 5}},
			{"Collection", "CollectionId", maker, "Collections", map[string]any{"IsFeaturedProduct": true}},
			{"Picture", "PictureId", picture, "Pictures", map[string]any{"SeoFilename": "pen"}},
		} {
			t.Run("Product"+c.name, func(t *testing.T) {
				links := func() []any {
					return admin.must(t, http.StatusOK, "GET", pURL+"/"+c.nav, nil).json(t)["value"].([]any)
				}
				trueBody(t, s, "Create"+c.name, admin.must(t, http.StatusOK, "POST", pURL+"/CreateProduct"+c.name,
					map[string]any{c.param: c.ref, "DisplayOrder": 2}))
				l := links()
				if len(l) != 1 || str(l[0].(map[string]any), c.param) != c.ref || num(l[0].(map[string]any), "DisplayOrder") != "2" {
					t.Fatalf("GET %s after Create = %v", c.nav, l)
				}
				if c.name == "Picture" && str(l[0].(map[string]any), "MimeType") != "image/png" {
					t.Errorf("ProductPicture MimeType = %v, want the picture's image/png", l[0])
				}
				e := admin.fails(t, http.StatusConflict, "Conflict", "POST", pURL+"/CreateProduct"+c.name, map[string]any{c.param: c.ref})
				if !strings.Contains(e.Message, c.ref) {
					t.Errorf("Create%s twice: message %q does not name %s", c.name, e.Message, c.ref)
				}
				e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", pURL+"/CreateProduct"+c.name,
					map[string]any{c.param: "0123456789abcdef01234567"})
				if e.Target != c.param || !strings.Contains(e.Message, "does not exist") {
					t.Errorf("Create%s unknown: target %q message %q", c.name, e.Target, e.Message)
				}
				e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", pURL+"/CreateProduct"+c.name, map[string]any{})
				if e.Target != c.param {
					t.Errorf("Create%s without %s: target %q", c.name, c.param, e.Target)
				}

				trueBody(t, s, "Update"+c.name, admin.must(t, http.StatusOK, "POST", pURL+"/UpdateProduct"+c.name,
					withKeys(c.update, c.param, c.ref)))
				got := links()[0].(map[string]any)
				for k, v := range c.update {
					if diff := cmp.Diff(jsonValue(v), got[k]); diff != "" {
						t.Errorf("Update%s %s (-want +got):\n%s", c.name, k, diff)
					}
				}
				if _, changed := c.update["DisplayOrder"]; !changed && num(got, "DisplayOrder") != "2" {
					t.Errorf("Update%s without DisplayOrder: DisplayOrder = %v, want 2 kept", c.name, got["DisplayOrder"])
				}
				admin.fails(t, http.StatusNotFound, "NotFound", "POST", "/odata/Product('"+other+"')/UpdateProduct"+c.name,
					map[string]any{c.param: c.ref})

				trueBody(t, s, "Delete"+c.name, admin.must(t, http.StatusOK, "POST", pURL+"/DeleteProduct"+c.name, map[string]any{c.param: c.ref}))
				if l := links(); len(l) != 0 {
					t.Errorf("GET %s after Delete = %v, want none", c.nav, l)
				}
				admin.fails(t, http.StatusNotFound, "NotFound", "POST", pURL+"/DeleteProduct"+c.name, map[string]any{c.param: c.ref})
				admin.fails(t, http.StatusNotFound, "NotFound", "POST", pURL+"/UpdateProduct"+c.name, map[string]any{c.param: c.ref})
				// Linked again for the cascade checks below.
				admin.must(t, http.StatusOK, "POST", pURL+"/CreateProduct"+c.name, map[string]any{c.param: c.ref})
			})
		}

		t.Run("ProductTierPrice", func(t *testing.T) {
			r := admin.must(t, http.StatusOK, "POST", pURL+"/CreateProductTierPrice", map[string]any{"Quantity": 10, "Price": 17.5,
				"CustomerRoleId": role, "StartDateTimeUtc": "2030-01-01T00:00:00Z"})
			tp := r.json(t)
			id := str(tp, "Id")
			want := map[string]any{"Id": id, "Quantity": 10, "Price": 17.5, "CustomerRoleId": role,
				"StartDateTimeUtc": "2030-01-01T00:00:00Z", "EndDateTimeUtc": nil}
			got := withKeys(tp)
			delete(got, "@odata.context")
			delete(got, "@odata.etag")
			if diff := cmp.Diff(jsonValue(want), any(got)); diff != "" || !idPattern.MatchString(id) {
				t.Errorf("CreateProductTierPrice (-want +got):\n%s", diff)
			}
			r = admin.must(t, http.StatusOK, "POST", pURL+"/UpdateProductTierPrice", map[string]any{"Id": id, "Quantity": 20, "CustomerRoleId": nil})
			if u := r.json(t); num(u, "Quantity") != "20" || num(u, "Price") != "17.5" || u["CustomerRoleId"] != nil {
				t.Errorf("UpdateProductTierPrice = %v, want Quantity 20, Price 17.5 kept, no role", u)
			}
			list := admin.must(t, http.StatusOK, "GET", pURL+"/TierPrices", nil).json(t)["value"].([]any)
			if len(list) != 1 || num(list[0].(map[string]any), "Quantity") != "20" {
				t.Errorf("GET TierPrices = %v", list)
			}
			for _, c := range []struct {
				body map[string]any
				want []string
			}{
				{map[string]any{"Quantity": 0, "Price": -1}, []string{"InvalidValue Quantity: Quantity must be at least 1",
					"InvalidValue Price: Price must not be negative"}},
				{map[string]any{"Quantity": 1, "CustomerRoleId": "nope"}, []string{"InvalidValue CustomerRoleId: Customer role 'nope' does not exist"}},
				{map[string]any{"Quantity": 1, "StartDateTimeUtc": "2030-01-02T00:00:00Z", "EndDateTimeUtc": "2030-01-01T00:00:00Z"},
					[]string{"InvalidValue EndDateTimeUtc: EndDateTimeUtc must not be before StartDateTimeUtc"}},
				{map[string]any{"Price": 1}, []string{"Required Quantity: The parameter Quantity is required."}},
			} {
				e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", pURL+"/CreateProductTierPrice", c.body)
				if diff := cmp.Diff(c.want, e.details()); diff != "" {
					t.Errorf("CreateProductTierPrice %v (-want +got):\n%s", c.body, diff)
				}
			}
			admin.fails(t, http.StatusNotFound, "NotFound", "POST", pURL+"/UpdateProductTierPrice", map[string]any{"Id": "0123456789abcdef01234567", "Quantity": 1})
			admin.fails(t, http.StatusNotFound, "NotFound", "POST", "/odata/Product('"+other+"')/UpdateProductTierPrice", map[string]any{"Id": id, "Quantity": 1})
			admin.fails(t, http.StatusNotFound, "NotFound", "POST", "/odata/Product('"+other+"')/DeleteProductTierPrice", map[string]any{"Id": id})
			trueBody(t, s, "DeleteProductTierPrice", admin.must(t, http.StatusOK, "POST", pURL+"/DeleteProductTierPrice", map[string]any{"Id": id}))
			admin.fails(t, http.StatusNotFound, "NotFound", "POST", pURL+"/DeleteProductTierPrice", map[string]any{"Id": id})
			admin.must(t, http.StatusOK, "POST", pURL+"/CreateProductTierPrice", map[string]any{"Quantity": 5, "Price": 15})
		})

		t.Run("DeleteProductRemovesLinksAndCartLines", func(t *testing.T) {
			ann := newCustomer(t, s, admin, "ann@example.com")
			ann.must(t, http.StatusOK, "POST", "/addproducttocart/catalog/"+product+"/1?quantity=2", nil)
			ann.must(t, http.StatusOK, "POST", "/addproducttocart/catalog/"+product+"/2", nil)
			admin.must(t, http.StatusOK, "DELETE", pURL, nil)
			for _, table := range []string{"product_category", "product_collection", "product_picture", "product_tier_price", "shopping_cart_item"} {
				if n := s.count(t, `SELECT 1 FROM `+table+` WHERE product_id = ?`, product); n != 0 {
					t.Errorf("%s rows of the deleted product = %d, want 0", table, n)
				}
			}
			if items := ann.must(t, http.StatusOK, "GET", "/cart", nil).json(t)["Items"].([]any); len(items) != 0 {
				t.Errorf("cart after the product is deleted = %v, want empty", items)
			}
			for _, u := range []string{"/odata/Category('" + category + "')", "/odata/Manufacturer('" + maker + "')",
				"/odata/Picture('" + picture + "')", "/odata/CustomerRole('" + role + "')"} {
				admin.must(t, http.StatusOK, "GET", u, nil)
			}
		})
	})
}

func TestStore_OrderActions(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false")
		admin := s.admin(t)
		product := str(admin.must(t, http.StatusCreated, "POST", "/odata/Product", map[string]any{"Name": "Pen", "Price": 2,
			"ManageInventoryMethod": "ManageStock", "StockQuantity": 10}).json(t), "Id")
		ann := newCustomer(t, s, admin, "ann@example.com")
		first := placeOrder(t, ann, product, 2)
		second := placeOrder(t, ann, product, 3)
		status := func(id string) []string {
			o := admin.must(t, http.StatusOK, "GET", "/odata/Order('"+id+"')", nil).json(t)
			return []string{str(o, "OrderStatus"), str(o, "PaymentStatus"), str(o, "ShippingStatus")}
		}
		stock := func() string {
			return num(admin.must(t, http.StatusOK, "GET", "/odata/Product('"+product+"')", nil).json(t), "StockQuantity")
		}
		if got := stock(); got != "5" {
			t.Fatalf("stock after two orders = %s, want 5", got)
		}
		move := func(id, action string) *response {
			return admin.do(t, "POST", "/odata/Order('"+id+"')/"+action, nil)
		}
		conflict := func(id, action, wantInMessage string) {
			t.Helper()
			e := admin.fails(t, http.StatusConflict, "Conflict", "POST", "/odata/Order('"+id+"')/"+action, nil)
			if !strings.Contains(e.Message, wantInMessage) {
				t.Errorf("%s on %v: message %q, want it to name %q", action, status(id), e.Message, wantInMessage)
			}
		}

		conflict(first, "Deliver", "NotYetShipped")
		trueBody(t, s, "Ship", move(first, "Ship"))
		if diff := cmp.Diff([]string{"Processing", "Pending", "Shipped"}, status(first)); diff != "" {
			t.Errorf("after Ship (-want +got):\n%s", diff)
		}
		conflict(first, "Ship", "Shipped")
		conflict(first, "Cancel", "Shipped")
		trueBody(t, s, "Deliver", move(first, "Deliver"))
		trueBody(t, s, "MarkAsPaid", admin.must(t, http.StatusOK, "POST", "/odata/Order('"+first+"')/MarkAsPaid", "{}"))
		if diff := cmp.Diff([]string{"Complete", "Paid", "Delivered"}, status(first)); diff != "" {
			t.Errorf("after Deliver and MarkAsPaid (-want +got):\n%s", diff)
		}
		if o := admin.must(t, http.StatusOK, "GET", "/odata/Order('"+first+"')", nil).json(t); str(o, "PaidDateUtc") == "" {
			t.Errorf("PaidDateUtc not set after MarkAsPaid")
		}
		conflict(first, "MarkAsPaid", "Complete")

		trueBody(t, s, "Cancel", move(second, "Cancel"))
		if diff := cmp.Diff([]string{"Cancelled", "Pending", "NotYetShipped"}, status(second)); diff != "" {
			t.Errorf("after Cancel (-want +got):\n%s", diff)
		}
		if got := stock(); got != "8" {
			t.Errorf("stock after cancelling 3 = %s, want 8", got)
		}
		conflict(second, "Ship", "Cancelled")
		conflict(second, "MarkAsPaid", "Cancelled")
		conflict(second, "Cancel", "Cancelled")
		admin.fails(t, http.StatusNotFound, "NotFound", "POST", "/odata/Order('0123456789abcdef01234567')/Cancel", nil)
		admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", "/odata/Order('"+second+"')/Ship", map[string]any{"x": 1})

		// The customer sees the moves.
		h := ann.must(t, http.StatusOK, "GET", "/order/history", nil).json(t)
		if got := str(path(h, "Orders", 1).(map[string]any), "OrderStatus"); got != "Complete" {
			t.Errorf("history: first order %s, want Complete", got)
		}
		// Orders are read-only.
		for _, m := range []string{"PATCH", "PUT", "DELETE"} {
			var body any
			if m != "DELETE" {
				body = map[string]any{"OrderStatus": "Complete"}
			}
			r := admin.do(t, m, "/odata/Order('"+second+"')", body)
			if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") == "" {
				t.Errorf("%s Order = %s (Allow %q), want 405 with Allow", m, r, r.header.Get("Allow"))
			}
		}
	})
}

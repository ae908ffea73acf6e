package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/openapi/openapitest"
)

// storeDoc is the part of the store's OpenAPI document the tests read.
type storeDoc struct {
	Paths map[string]map[string]json.RawMessage `json:"paths"`
}

// TestStore_OpenAPI checks the store's OpenAPI document: served without a token, valid OpenAPI 3.1, holding
// the storefront and token endpoints, no writes on the read-only sets, the administrator role on every OData
// operation; and true: every GET operation answers one of its documented success statuses on a store with data
// for every path, with the admin's token.
func TestStore_OpenAPI(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false")
		anonymous := s.client("")
		r := anonymous.must(t, http.StatusOK, "GET", "/odata/$openapi", nil)
		if err := openapitest.Validate(r.body); err != nil {
			t.Fatal(err)
		}
		var doc storeDoc
		if err := json.Unmarshal(r.body, &doc); err != nil {
			t.Fatal(err)
		}
		checkStoreDoc(t, doc)

		admin := s.admin(t)
		orderID := storeWithData(t, s, admin)
		get := func(path string) (int, []byte, error) {
			r, err := admin.try(request{method: "GET", path: path})
			if err != nil {
				return 0, nil, err
			}
			return r.status, r.body, nil
		}
		// A confirmation link of the newsletter, as the outbox holds it, for the public activation path.
		admin.must(t, http.StatusOK, "POST", "/subscribenewsletter?subscribe=true&email=friend@example.com", nil)
		_, body := s.lastEmail(t, "friend@example.com")
		link := confirmationLink.FindStringSubmatch(body)
		if link == nil {
			t.Fatalf("no confirmation link in the e-mail:\n%s", body)
		}
		token := strings.TrimSuffix(strings.TrimPrefix(link[2], "/newsletter/subscriptionactivation/"), "/")
		results, err := openapitest.Walk(r.body, get, map[string]string{"orderId": orderID, "Name": "SidebarShoppingCart",
			"token": token, "active": "true"})
		if err != nil {
			t.Fatal(err)
		}
		statuses := map[int]int{}
		for _, res := range results {
			statuses[res.Status]++
		}
		t.Logf("walked %d GET operations of the document; answers by status: %v", len(results), statuses)
		if len(results) < 80 {
			t.Errorf("the walk called %d GET operations, want at least 80", len(results))
		}
		for _, res := range results {
			if !res.OK() || res.Status == http.StatusNotFound || res.Status >= 500 {
				t.Errorf("GET %s (%s) = %d, want one of %v\n%.300s", res.Path, res.Template, res.Status, res.Want, res.Body)
			}
		}
	})
}

// checkStoreDoc checks what the store's document must say.
func checkStoreDoc(t *testing.T, doc storeDoc) {
	t.Helper()
	for _, path := range []string{"/api/token", "/api/token/revoke", "/healthz", "/metrics", "/cart", "/wishlist",
		"/Component/Index", "/addproducttocart/details/{productId}/{shoppingCartTypeId}", "/updatecartitem/{itemId}",
		"/checkout/SaveShipping/", "/checkout/SaveBilling/", "/checkout/SaveShippingMethod/",
		"/checkout/SavePaymentMethod/", "/checkout/SavePaymentInfo/", "/checkout/ConfirmOrder/", "/order/history",
		"/orderdetails/{orderId}", "/account/info", "/account/addresses", "/subscribenewsletter",
		"/newsletter/subscriptionactivation/{token}/{active}",
		"/odata/Order('{Id}')/Store.MarkAsPaid", "/odata/Order('{Id}')/Store.Ship", "/odata/Order('{Id}')/Store.Deliver",
		"/odata/Order('{Id}')/Store.Cancel", "/odata/Product/$count", "/odata/Customer('{Email}')/Addresses('{Id_1}')"} {
		if doc.Paths[path] == nil {
			t.Errorf("the document has no path %s", path)
		}
	}
	for _, set := range []string{"Order", "Country", "StateProvince", "NewsletterSubscription"} {
		for _, path := range []string{"/odata/" + set, "/odata/" + set + "('{Id}')"} {
			for method := range doc.Paths[path] {
				if method != "get" && method != "parameters" {
					t.Errorf("the read-only set %s offers %s %s", set, strings.ToUpper(method), path)
				}
			}
		}
	}
	var form struct {
		RequestBody struct {
			Content map[string]struct {
				Schema struct {
					Properties map[string]any `json:"properties"`
				} `json:"schema"`
			} `json:"content"`
		} `json:"requestBody"`
	}
	if err := json.Unmarshal(doc.Paths["/checkout/SaveShipping/"]["post"], &form); err != nil {
		t.Fatal(err)
	}
	fields := form.RequestBody.Content["application/x-www-form-urlencoded"].Schema.Properties
	for _, f := range []string{"shipping_address_id", "ShippingNewAddress.FirstName", "BillToTheSameAddress", "PickUpInStore"} {
		if fields[f] == nil {
			t.Errorf("POST /checkout/SaveShipping/ has no form field %s", f)
		}
	}
	for path, item := range doc.Paths {
		for method, raw := range item {
			if method == "parameters" {
				continue
			}
			var op struct {
				Security []map[string][]string `json:"security"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			admin := len(op.Security) == 1 && len(op.Security[0]["Bearer"]) == 1 && op.Security[0]["Bearer"][0] == "Administrators"
			if (strings.HasPrefix(path, "/odata/") || path == "/metrics") != admin {
				t.Errorf("%s %s: security %v; the OData operations and the metrics, and only they, need an administrator", method, path, op.Security)
			}
		}
	}
}

// storeWithData fills a store so that every path of the document leads to an entity: a product in a category
// and a collection with a picture and a tier price, an order of the admin (with its address), a newsletter
// subscription. It returns the order's id.
func storeWithData(t *testing.T, s *storeServer, admin *client) string {
	t.Helper()
	m := admin.must(t, http.StatusCreated, "POST", "/odata/Manufacturer", map[string]any{"Name": "Penworks"}).json(t)
	c := admin.must(t, http.StatusCreated, "POST", "/odata/Category", map[string]any{"Name": "Pens"}).json(t)
	admin.must(t, http.StatusCreated, "POST", "/odata/Category", map[string]any{"Name": "Fountain pens", "ParentCategoryId": str(c, "Id")})
	pic := admin.must(t, http.StatusCreated, "POST", "/odata/Picture", map[string]any{"MimeType": "image/png",
		"PictureBinary": base64.StdEncoding.EncodeToString(pngImage(t, 2, 2))}).json(t)
	p := admin.must(t, http.StatusCreated, "POST", "/odata/Product", map[string]any{"Name": "Fountain Pen", "Sku": "FP-1",
		"Price": 19.99, "ManageInventoryMethod": "ManageStock", "StockQuantity": 10}).json(t)
	key := "/odata/Product('" + str(p, "Id") + "')"
	admin.must(t, http.StatusOK, "POST", key+"/CreateProductCategory", map[string]any{"CategoryId": str(c, "Id")})
	admin.must(t, http.StatusOK, "POST", key+"/CreateProductCollection", map[string]any{"CollectionId": str(m, "Id")})
	admin.must(t, http.StatusOK, "POST", key+"/CreateProductPicture", map[string]any{"PictureId": str(pic, "Id")})
	admin.must(t, http.StatusOK, "POST", key+"/CreateProductTierPrice", map[string]any{"Quantity": 5, "Price": 17.5})
	orderID := placeOrder(t, admin, str(p, "Id"), 2)
	admin.must(t, http.StatusOK, "POST", "/subscribenewsletter?"+url.Values{"email": {adminEmail}}.Encode(), nil)
	admin.must(t, http.StatusOK, "POST", "/addproducttocart/catalog/"+str(p, "Id")+"/2", nil)
	return orderID
}

// browser returns the path of a Chromium (or Chrome) binary, "" when there is none.
func browser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestStore_DocsInBrowser opens /docs of a running store in headless Chromium (Debian's chromium package,
// which .ci/run installs) and checks that the page renders the document: the entity sets and the storefront
// operations, as a user sees them, with Authorize for the bearer token.
func TestStore_DocsInBrowser(t *testing.T) {
	bin := browser()
	if bin == "" {
		t.Skip("no Chromium binary (chromium, chromium-browser, google-chrome) on PATH: install Debian's chromium package to run this test")
	}
	s := start(t, dbtest.SQLite(t), nil, "-demo=false")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=15000", "--dump-dom", s.url+"/docs")
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s --dump-dom %s/docs: %v", bin, s.url, err)
	}
	page := string(dom)
	for _, want := range []string{
		`Store API`, `Authorize`,
		`data-path="/api/token"`, `data-path="/cart"`, `data-path="/checkout/SaveShipping/"`,
		`data-path="/checkout/ConfirmOrder/"`, `data-path="/order/history"`, `data-path="/subscribenewsletter"`,
		`data-path="/odata/Product"`, `data-path="/odata/Customer('{Email}')"`, `data-path="/odata/Order('{Id}')/Store.Ship"`,
		`id="operations-tag-Product"`, `id="operations-tag-Checkout"`, `id="operations-tag-NewsletterSubscription"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the rendered /docs lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("rendered DOM (%d bytes), first 2000:\n%.2000s", len(page), page)
	}
}

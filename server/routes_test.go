package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/storefront"
)

func TestHealthz(t *testing.T) {
	s := newTestServer(t)
	rec := s.do("GET", "/healthz", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /healthz = %d, want 200", rec.Code)
	}
	if diff := cmp.Diff(map[string]any{"status": "ok"}, decodeJSONBody(t, rec)); diff != "" {
		t.Errorf("GET /healthz mismatch (-want +got):\n%s", diff)
	}
}

func TestNotFound(t *testing.T) {
	s := newTestServer(t)
	for _, path := range []string{"/nope", "/CART", "/Cart", "/cart/", "/component/index", "/checkout/saveshipping/",
		"/checkout/SaveShipping//", "/odatax", "/ODATA/Product", "/addproducttocart/details/p1", "/", "/api"} {
		rec := s.do("GET", path, nil, "Authorization: Bearer "+adminToken)
		if rec.Code == http.StatusMethodNotAllowed {
			rec = s.do("POST", path, nil, "Authorization: Bearer "+adminToken)
		}
		if rec.Code != http.StatusNotFound {
			t.Errorf("%s = %d, want 404", path, rec.Code)
			continue
		}
		if e := decodeError(t, rec); e.Error.Code != "NotFound" {
			t.Errorf("%s: code %q, want NotFound", path, e.Error.Code)
		}
	}
}

func TestMethodNotAllowed(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		token        bool
		allow        string
	}{
		{"POST", "/healthz", false, "GET, HEAD"},
		{"GET", "/api/token", false, "POST"},
		{"DELETE", "/api/token", true, "POST"},
		{"GET", "/api/token/revoke", true, "POST"},
		{"POST", "/cart", true, "GET, HEAD"},
		{"DELETE", "/account/info", true, "GET, HEAD"},
		{"GET", "/checkout/ConfirmOrder/", true, "POST"},
		{"GET", "/checkout/ConfirmOrder", true, "POST"},
		{"GET", "/addproducttocart/catalog/p1/1", true, "POST"},
		{"POST", "/newsletter/subscriptionactivation/t1/true", false, "GET, HEAD"},
	} {
		s := newTestServer(t)
		var header []string
		if tc.token {
			header = append(header, "Authorization: Bearer "+customerToken)
		}
		rec := s.do(tc.method, tc.path, nil, header...)
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != tc.allow {
			t.Errorf("%s %s = %d Allow %q, want 405 Allow %q", tc.method, tc.path, rec.Code, rec.Header().Get("Allow"), tc.allow)
			continue
		}
		if e := decodeError(t, rec); e.Error.Code != "MethodNotAllowed" {
			t.Errorf("%s %s: code %q, want MethodNotAllowed", tc.method, tc.path, e.Error.Code)
		}
	}
	// A wrong method on a protected path still needs a token first.
	s := newTestServer(t)
	if rec := s.do("POST", "/cart", nil); rec.Code != http.StatusUnauthorized {
		t.Errorf("POST /cart without a token = %d, want 401", rec.Code)
	}
}

func TestStorefrontRoutes(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		route        string
		vars         map[string]any
	}{
		{"GET", "/cart", "/cart", map[string]any{}},
		{"HEAD", "/cart", "/cart", nil},
		{"GET", "/Component/Index?Name=SidebarShoppingCart", "/Component/Index", map[string]any{}},
		{"POST", "/addproducttocart/details/0190a1b2c3d4e5f6a7b8c9d0/2", "/addproducttocart/details/{productId}/{shoppingCartTypeId}",
			map[string]any{"productId": "0190a1b2c3d4e5f6a7b8c9d0", "shoppingCartTypeId": "2"}},
		{"POST", "/addproducttocart/catalog/p%20x/1?quantity=3", "/addproducttocart/catalog/{productId}/{shoppingCartTypeId}",
			map[string]any{"productId": "p x", "shoppingCartTypeId": "1"}},
		{"POST", "/updatecartitem/i1?quantity=0", "/updatecartitem/{itemId}", map[string]any{"itemId": "i1"}},
		{"POST", "/deletecartitem/i1", "/deletecartitem/{itemId}", map[string]any{"itemId": "i1"}},
		{"GET", "/orderdetails/o1", "/orderdetails/{orderId}", map[string]any{"orderId": "o1"}},
		{"POST", "/checkout/SaveShipping/", "/checkout/SaveShipping/", map[string]any{}},
		{"POST", "/checkout/SaveShipping", "/checkout/SaveShipping/", map[string]any{}},
		{"POST", "/checkout/ConfirmOrder", "/checkout/ConfirmOrder/", map[string]any{}},
	} {
		s := newTestServer(t)
		rec := s.do(tc.method, tc.path, nil, "Authorization: Bearer "+customerToken)
		if rec.Code != http.StatusOK {
			t.Errorf("%s %s = %d %s, want 200", tc.method, tc.path, rec.Code, rec.Body)
			continue
		}
		if tc.method == "HEAD" {
			continue
		}
		got := decodeJSONBody(t, rec)
		if got["route"] != tc.route {
			t.Errorf("%s %s served by %v, want %s", tc.method, tc.path, got["route"], tc.route)
		}
		if diff := cmp.Diff(tc.vars, got["vars"]); diff != "" {
			t.Errorf("%s %s path values mismatch (-want +got):\n%s", tc.method, tc.path, diff)
		}
	}
}

// TestPublicStorefrontRoute checks a route of Router.HandlePublic: served without a token (and with one, a
// token is not checked there), unknown neighbours still need a token.
func TestPublicStorefrontRoute(t *testing.T) {
	for _, header := range [][]string{nil, {"Authorization: Bearer " + unknownToken}} {
		s := newTestServer(t)
		rec := s.do("GET", "/newsletter/subscriptionactivation/t1/true", nil, header...)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET the public route with %q = %d %s, want 200", header, rec.Code, rec.Body)
		}
		got := decodeJSONBody(t, rec)
		if got["route"] != publicRoute || got["token"] != "t1" || got["signedIn"] != false {
			t.Errorf("GET the public route with %q = %v", header, got)
		}
	}
	s := newTestServer(t)
	if rec := s.do("GET", "/newsletter/subscriptionactivation/t1", nil); rec.Code != http.StatusUnauthorized {
		t.Errorf("GET a path beside the public route without a token = %d, want 401", rec.Code)
	}
}

func TestODataMount(t *testing.T) {
	for _, tc := range []struct {
		path      string
		want, raw string // the path the OData service sees, decoded and encoded
	}{
		{"/odata", "/", "/"},
		{"/odata/", "/", "/"},
		{"/odata/$metadata", "/$metadata", "/$metadata"},
		{"/odata/Product('1')/Name", "/Product('1')/Name", "/Product('1')/Name"},
		{"/odata/product?$filter=Price%20gt%205", "/product", "/product"},
		{"/odata/Customer('a%2Fb%40c.com')", "/Customer('a/b@c.com')", "/Customer('a%2Fb%40c.com')"},
		{"/od%61ta/Customer('a%2Fb')", "/Customer('a/b')", "/Customer('a%2Fb')"},
		{"/odata/Product('..')/../x", "/Product('..')/../x", "/Product('..')/../x"},
	} {
		s := newTestServer(t)
		rec := s.do("GET", tc.path, nil, "Authorization: Bearer "+adminToken)
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s = %d %s, want 200", tc.path, rec.Code, rec.Body)
			continue
		}
		got := decodeJSONBody(t, rec)
		if got["path"] != tc.want || got["raw"] != tc.raw {
			t.Errorf("GET %s: the service saw %v (raw %v), want %s (raw %s)", tc.path, got["path"], got["raw"], tc.want, tc.raw)
		}
	}
}

func TestNewHandler_Components(t *testing.T) {
	logger := newLogger(&syncBuffer{}, "json")
	t.Run("NoOData", func(t *testing.T) {
		h, err := newHandler(logger, &components{Auth: newFakeAuth()}, &drainGate{}, config{}, &telemetry{})
		if err != nil {
			t.Fatal(err)
		}
		s := &testServer{h: h}
		if rec := s.do("GET", "/odata/", nil, "Authorization: Bearer "+adminToken); rec.Code != http.StatusNotFound {
			t.Errorf("GET /odata/ without an OData service = %d, want 404", rec.Code)
		}
	})
	t.Run("ErrBadPattern", func(t *testing.T) {
		for _, pattern := range []string{"cart", "/cart/{id"} {
			_, err := newHandler(logger, &components{Auth: newFakeAuth(), Storefront: func(r storefront.Router) {
				r.Handle("GET", pattern, http.NotFoundHandler())
			}}, &drainGate{}, config{}, &telemetry{})
			if err == nil || !strings.Contains(err.Error(), pattern) {
				t.Errorf("newHandler(route %q) = %v, want an error naming it", pattern, err)
			}
		}
	})
}

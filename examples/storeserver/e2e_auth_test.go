package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
)

// route is one route of the service with a request that reaches its handler, and what an allowed caller gets.
type route struct {
	method, path string
	body         any
	// customer and admin are the statuses a customer's and an admin's valid token get; public routes need no
	// token at all (then every kind of token gets admin's status).
	customer, admin int
	public          bool
}

const unknownID = "0123456789abcdef01234567"

// routes lists every route of SPEC parts 1 to 7: the public ones, the token routes, the storefront and a request
// of each kind on /odata (reads, writes, actions, metadata).
func routes(product string) []route {
	empty := url.Values{}
	sf := func(method, path string, body any, status int) route {
		return route{method: method, path: path, body: body, customer: status, admin: status}
	}
	od := func(method, path string, body any, status int) route {
		return route{method: method, path: path, body: body, customer: http.StatusForbidden, admin: status}
	}
	return []route{
		{method: "GET", path: "/healthz", public: true, admin: http.StatusOK},
		{method: "POST", path: "/api/token", body: map[string]string{"email": adminEmail, "password": adminPassword},
			public: true, admin: http.StatusOK},
		{method: "GET", path: "/newsletter/subscriptionactivation/" + strings.Repeat("A", 43) + "/true", public: true,
			admin: http.StatusNotFound},
		sf("POST", "/api/token/revoke", nil, http.StatusOK),

		sf("GET", "/cart", nil, http.StatusOK),
		sf("GET", "/wishlist", nil, http.StatusOK),
		sf("GET", "/Component/Index?Name=SidebarShoppingCart", nil, http.StatusOK),
		sf("POST", "/addproducttocart/details/"+product+"/2", url.Values{"addtocart_" + product + ".EnteredQuantity": {"1"}}, http.StatusOK),
		sf("POST", "/addproducttocart/catalog/"+unknownID+"/1?quantity=1", nil, http.StatusNotFound),
		sf("POST", "/updatecartitem/"+unknownID+"?quantity=1", nil, http.StatusNotFound),
		sf("POST", "/deletecartitem/"+unknownID, nil, http.StatusNotFound),
		sf("GET", "/account/info", nil, http.StatusOK),
		sf("GET", "/account/addresses", nil, http.StatusOK),
		sf("GET", "/order/history?PageNumber=1&PageSize=10", nil, http.StatusOK),
		sf("GET", "/orderdetails/"+unknownID, nil, http.StatusNotFound),
		sf("POST", "/subscribenewsletter?subscribe=true&email=news@example.com", nil, http.StatusOK),
		sf("POST", "/checkout/SaveShipping/", empty, http.StatusBadRequest),
		sf("POST", "/checkout/SaveBilling/", empty, http.StatusBadRequest),
		sf("POST", "/checkout/SaveShippingMethod/", empty, http.StatusBadRequest),
		sf("POST", "/checkout/SavePaymentMethod/", empty, http.StatusBadRequest),
		sf("POST", "/checkout/SavePaymentInfo/", empty, http.StatusBadRequest),
		sf("POST", "/checkout/ConfirmOrder/", empty, http.StatusBadRequest),
		sf("GET", "/no/such/route", nil, http.StatusNotFound),

		od("GET", "/odata/", nil, http.StatusOK),
		od("GET", "/odata", nil, http.StatusOK),
		od("GET", "/odata/$metadata", nil, http.StatusOK),
		od("GET", "/odata/Product", nil, http.StatusOK),
		od("GET", "/odata/Product('"+product+"')", nil, http.StatusOK),
		od("GET", "/odata/Product/$count", nil, http.StatusOK),
		od("POST", "/odata/Manufacturer", map[string]any{}, http.StatusBadRequest),
		od("PATCH", "/odata/Product('"+unknownID+"')", map[string]any{}, http.StatusNotFound),
		od("PUT", "/odata/Category('"+unknownID+"')", map[string]any{"Name": "x"}, http.StatusNotFound),
		od("DELETE", "/odata/Picture('"+unknownID+"')", nil, http.StatusNotFound),
		od("POST", "/odata/Product('"+product+"')/UpdateStock", map[string]any{"Stock": 50}, http.StatusOK),
		od("POST", "/odata/Customer('nobody@example.com')/SetPassword", map[string]any{"password": "12345678"}, http.StatusNotFound),
		od("POST", "/odata/Order('"+unknownID+"')/Ship", nil, http.StatusNotFound),
		od("GET", "/odata/Order", nil, http.StatusOK),
		od("GET", "/odata/NoSuchSet", nil, http.StatusNotFound),
		od("GET", "/metrics", nil, http.StatusOK),
	}
}

// TestStore_AuthMatrix sends every route with every kind of credentials: none, a malformed header, an unknown,
// expired or revoked token (401 with WWW-Authenticate: Bearer), a customer's token (403 on /odata) and an admin's.
func TestStore_AuthMatrix(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false")
		admin := s.admin(t)
		product := str(admin.must(t, http.StatusCreated, "POST", "/odata/Product", map[string]any{"Name": "Pen", "Price": 1}).json(t), "Id")
		newCustomer(t, s, admin, "ann@example.com")

		expired := s.login(t, "ann@example.com", "customer-pw-1")
		s.expireToken(t, expired)
		revoked := s.login(t, "ann@example.com", "customer-pw-1")
		s.client(revoked).must(t, http.StatusOK, "POST", "/api/token/revoke", nil)
		customerToken := s.login(t, "ann@example.com", "customer-pw-1")
		adminToken := s.login(t, adminEmail, adminPassword)

		kinds := []struct {
			name   string
			header string // the Authorization header; "" sends none
		}{
			{"none", ""},
			{"malformed", "Bearer"},
			{"malformedScheme", "Basic YWRtaW46c2VjcmV0"},
			{"malformedToken", "Bearer not/a:token"},
			{"unknown", "Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
			{"expired", "Bearer " + expired},
			{"revoked", "Bearer " + revoked},
			{"customer", "Bearer " + customerToken},
			{"admin", "Bearer " + adminToken},
		}
		anonymous := s.client("")
		for _, rt := range routes(product) {
			for _, k := range kinds {
				header := k.header
				if rt.path == "/api/token/revoke" && (k.name == "customer" || k.name == "admin") {
					// Revoking ends the token: use a fresh one of the same customer.
					email, pw := "ann@example.com", "customer-pw-1"
					if k.name == "admin" {
						email, pw = adminEmail, adminPassword
					}
					header = "Bearer " + s.login(t, email, pw)
				}
				want := rt.admin
				switch {
				case rt.public:
				case k.name == "customer":
					want = rt.customer
				case k.name != "admin":
					want = http.StatusUnauthorized
				}
				r := anonymous.send(t, request{method: rt.method, path: rt.path, body: rt.body, header: []string{"Authorization", header}})
				if r.status != want {
					t.Errorf("%s %s with %s credentials = %s, want %d", rt.method, rt.path, k.name, r, want)
					continue
				}
				if r.header.Get("X-Request-Id") == "" {
					t.Errorf("%s %s with %s credentials: no X-Request-Id", rt.method, rt.path, k.name)
				}
				if r.header.Get("X-Content-Type-Options") != "nosniff" || r.header.Get("Cache-Control") != "no-store" {
					t.Errorf("%s %s with %s credentials: X-Content-Type-Options %q, Cache-Control %q, want nosniff, no-store",
						rt.method, rt.path, k.name, r.header.Get("X-Content-Type-Options"), r.header.Get("Cache-Control"))
				}
				switch want {
				case http.StatusUnauthorized:
					if ch := r.header.Get("WWW-Authenticate"); !strings.HasPrefix(ch, "Bearer") {
						t.Errorf("%s %s with %s credentials: WWW-Authenticate = %q, want Bearer", rt.method, rt.path, k.name, ch)
					}
					if e := r.error(t); e.Code != "Unauthorized" {
						t.Errorf("%s %s with %s credentials: code %q, want Unauthorized", rt.method, rt.path, k.name, e.Code)
					}
				case http.StatusForbidden:
					if e := r.error(t); e.Code != "Forbidden" {
						t.Errorf("%s %s with %s credentials: code %q, want Forbidden", rt.method, rt.path, k.name, e.Code)
					}
				}
				if ct := r.header.Get("Content-Type"); r.status >= 400 && !strings.HasPrefix(ct, "application/json") {
					t.Errorf("%s %s with %s credentials: Content-Type %q, want JSON", rt.method, rt.path, k.name, ct)
				}
			}
		}
	})
}

// TestStore_Tokens checks the token lifecycle of SPEC part 2 through the OData actions and writes that end tokens.
func TestStore_Tokens(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false", "-token-ttl", "1h")
		admin := s.admin(t)
		ann := newCustomer(t, s, admin, "ann@example.com")
		annURL := "/odata/Customer('ann@example.com')"

		t.Run("OKLogin", func(t *testing.T) {
			r := s.client("").must(t, http.StatusOK, "POST", "/api/token", map[string]string{"email": "ANN@example.com", "password": "customer-pw-1"}).json(t)
			if str(r, "token_type") != "Bearer" || num(r, "expires_in") != "3600" || len(str(r, "access_token")) < 43 {
				t.Errorf("POST /api/token = %v, want a Bearer token expiring in 3600 s", r)
			}
		})
		t.Run("ErrInvalidCredentials", func(t *testing.T) {
			for _, body := range []map[string]string{
				{"email": "ann@example.com", "password": "wrong-password"},
				{"email": "nobody@example.com", "password": "customer-pw-1"},
			} {
				e := s.client("").fails(t, http.StatusBadRequest, "InvalidCredentials", "POST", "/api/token", body)
				if e.Message != "The e-mail or password is incorrect." {
					t.Errorf("login %v: message %q", body, e.Message)
				}
			}
			admin.must(t, http.StatusCreated, "POST", "/odata/Customer", map[string]any{"Email": "nopassword@example.com"})
			s.client("").fails(t, http.StatusBadRequest, "InvalidCredentials", "POST", "/api/token",
				map[string]string{"email": "nopassword@example.com", "password": "any-password"})
		})
		t.Run("OKDeactivatingRevokes", func(t *testing.T) {
			ann.must(t, http.StatusOK, "GET", "/cart", nil)
			admin.must(t, http.StatusOK, "PATCH", annURL, map[string]any{"Active": false})
			ann.fails(t, http.StatusUnauthorized, "Unauthorized", "GET", "/cart", nil)
			if n := s.count(t, `SELECT 1 FROM access_token t JOIN customer c ON c.id = t.customer_id WHERE c.email = ?`, "ann@example.com"); n != 0 {
				t.Errorf("tokens of the deactivated customer = %d, want 0", n)
			}
			s.client("").fails(t, http.StatusBadRequest, "InvalidCredentials", "POST", "/api/token",
				map[string]string{"email": "ann@example.com", "password": "customer-pw-1"})
			admin.must(t, http.StatusOK, "PATCH", annURL, map[string]any{"Active": true})
			ann = s.client(s.login(t, "ann@example.com", "customer-pw-1"))
			admin.must(t, http.StatusOK, "PATCH", annURL, map[string]any{"FirstName": "Annie"}) // an active customer keeps its tokens
			ann.must(t, http.StatusOK, "GET", "/cart", nil)
		})
		t.Run("OKAdminRoleGrantsOData", func(t *testing.T) {
			ann.fails(t, http.StatusForbidden, "Forbidden", "GET", "/odata/Product", nil)
			me := admin.must(t, http.StatusOK, "GET", "/odata/Customer('admin@example.com')", nil).json(t)
			admin.must(t, http.StatusOK, "PATCH", annURL, map[string]any{"CustomerRoles": me["CustomerRoles"]})
			ann.must(t, http.StatusOK, "GET", "/odata/Product", nil)
		})
	})
}

// TestStore_Deletes checks what goes with a deleted role, category and customer (SPEC part 4).
func TestStore_Deletes(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil)
		admin := s.admin(t)

		t.Run("ErrSystemRole", func(t *testing.T) {
			roles := admin.must(t, http.StatusOK, "GET", "/odata/CustomerRole", nil).json(t)["value"].([]any)
			n := 0
			for _, v := range roles {
				r := v.(map[string]any)
				if r["IsSystemRole"] != true {
					continue
				}
				n++
				key := "/odata/CustomerRole('" + str(r, "Id") + "')"
				admin.fails(t, http.StatusForbidden, "Forbidden", "DELETE", key, nil)
				e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "PATCH", key, map[string]any{"Name": "Renamed", "Active": false})
				for _, d := range e.Details {
					if d.Message != "System roles cannot be edited" {
						t.Errorf("PATCH system role %s: detail %+v", r["Name"], d)
					}
				}
				if len(e.Details) != 2 {
					t.Errorf("PATCH system role Name and Active: %v, want two details", e.details())
				}
				admin.must(t, http.StatusOK, "PATCH", key, map[string]any{"FreeShipping": false}) // other fields may change
			}
			if n != 3 {
				t.Errorf("system roles = %d, want Administrators, Registered, Guests", n)
			}
		})
		t.Run("OKRoleWithMembers", func(t *testing.T) {
			role := admin.must(t, http.StatusCreated, "POST", "/odata/CustomerRole", map[string]any{"Name": "VIP"}).json(t)
			c := admin.must(t, http.StatusCreated, "POST", "/odata/Customer", map[string]any{"Email": "vip@example.com",
				"CustomerRoles": []any{role["Id"]}}).json(t)
			if len(c["CustomerRoles"].([]any)) != 1 {
				t.Fatalf("customer roles = %v", c["CustomerRoles"])
			}
			admin.must(t, http.StatusOK, "DELETE", "/odata/CustomerRole('"+str(role, "Id")+"')", nil)
			c = admin.must(t, http.StatusOK, "GET", "/odata/Customer('vip@example.com')", nil).json(t)
			if len(c["CustomerRoles"].([]any)) != 0 {
				t.Errorf("roles of the member after the role is deleted = %v, want none", c["CustomerRoles"])
			}
		})
		t.Run("OKCategoryChildrenDetached", func(t *testing.T) {
			parent := admin.must(t, http.StatusCreated, "POST", "/odata/Category", map[string]any{"Name": "Parent"}).json(t)
			child := admin.must(t, http.StatusCreated, "POST", "/odata/Category", map[string]any{"Name": "Child", "ParentCategoryId": parent["Id"]}).json(t)
			e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "PATCH", "/odata/Category('"+str(parent, "Id")+"')",
				map[string]any{"ParentCategoryId": child["Id"]})
			if e.Target != "ParentCategoryId" {
				t.Errorf("a cycle: target %q, want ParentCategoryId", e.Target)
			}
			kids := admin.must(t, http.StatusOK, "GET", "/odata/Category('"+str(parent, "Id")+"')/Children", nil).json(t)["value"].([]any)
			if len(kids) != 1 {
				t.Errorf("Children = %v, want the child", kids)
			}
			admin.must(t, http.StatusOK, "DELETE", "/odata/Category('"+str(parent, "Id")+"')", nil)
			c := admin.must(t, http.StatusOK, "GET", "/odata/Category('"+str(child, "Id")+"')", nil).json(t)
			if c["ParentCategoryId"] != nil {
				t.Errorf("ParentCategoryId of the child = %v, want null", c["ParentCategoryId"])
			}
		})
		t.Run("OKCustomerOrdersStay", func(t *testing.T) {
			product := str(admin.must(t, http.StatusCreated, "POST", "/odata/Product", map[string]any{"Name": "Pen", "Price": 2}).json(t), "Id")
			ann := newCustomer(t, s, admin, "ann@example.com")
			order := placeOrder(t, ann, product, 1)
			ann.must(t, http.StatusOK, "POST", "/addproducttocart/catalog/"+product+"/1", nil)
			ann.must(t, http.StatusOK, "POST", "/addproducttocart/catalog/"+product+"/2", nil)
			ann.must(t, http.StatusOK, "POST", "/checkout/SaveShipping/", addressForm("ShippingNewAddress"))
			ann.must(t, http.StatusOK, "POST", "/subscribenewsletter?subscribe=true&email=ann@example.com", nil)
			id := str(admin.must(t, http.StatusOK, "GET", "/odata/Customer('ann@example.com')", nil).json(t), "Id")
			admin.must(t, http.StatusOK, "DELETE", "/odata/Customer('ann@example.com')", nil)
			for _, table := range []string{"address", "shopping_cart_item", "checkout_state", "access_token",
				"customer_password", "customer_role_mapping"} {
				if n := s.count(t, `SELECT 1 FROM `+table+` WHERE customer_id = ?`, id); n != 0 {
					t.Errorf("%s rows of the deleted customer = %d, want 0", table, n)
				}
			}
			ann.fails(t, http.StatusUnauthorized, "Unauthorized", "GET", "/cart", nil)
			o := admin.must(t, http.StatusOK, "GET", "/odata/Order('"+order+"')", nil).json(t)
			if str(o, "CustomerEmail") != "ann@example.com" || str(o, "CustomerId") != id {
				t.Errorf("the order of the deleted customer = %v, want it kept", o)
			}
			subs := admin.must(t, http.StatusOK, "GET", "/odata/NewsletterSubscription", nil).json(t)["value"].([]any)
			if len(subs) != 1 || str(subs[0].(map[string]any), "Email") != "ann@example.com" || subs[0].(map[string]any)["CustomerId"] != nil {
				t.Errorf("newsletter subscriptions = %v, want ann's kept without its customer", subs)
			}
		})
	})
}

// TestStore_SignInThrottling checks the throttling of SPEC 2 and 9 through a trusted proxy (this test) that
// forwards clients' addresses: failures count per e-mail and address, so another address still signs the admin
// in; an address with 50 failures for any e-mails is refused whatever it tries, without growing the attempt
// table; concurrent correct sign-ins all succeed.
func TestStore_SignInThrottling(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false", "-trusted-proxies", "127.0.0.1,::1")
		anonymous := s.client("")
		signIn := func(client, email, password string) *response {
			return anonymous.do(t, "POST", "/api/token", map[string]string{"email": email, "password": password},
				"X-Forwarded-For", client)
		}
		const attacker, admin, flooder = "198.51.100.1", "198.51.100.2", "203.0.113.5"

		t.Run("ErrTooManyRequestsPerEmailAndAddress", func(t *testing.T) {
			for i := range 10 {
				if r := signIn(attacker, adminEmail, "wrong-password"); r.status != http.StatusBadRequest {
					t.Fatalf("wrong password #%d = %s, want 400", i+1, r)
				}
			}
			r := signIn(attacker, adminEmail, adminPassword)
			if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" || r.error(t).Code != "TooManyRequests" {
				t.Errorf("11th sign-in from the same address = %s (Retry-After %q), want 429 with Retry-After", r, r.header.Get("Retry-After"))
			}
		})
		t.Run("OKAdminFromAnotherAddress", func(t *testing.T) {
			if r := signIn(admin, adminEmail, adminPassword); r.status != http.StatusOK {
				t.Errorf("the admin's sign-in from another address = %s, want 200", r)
			}
			s.login(t, adminEmail, adminPassword) // the proxy's own address
		})
		t.Run("ErrTooManyRequestsPerAddress", func(t *testing.T) {
			// 49 failures for unknown e-mails from the address are already counted (written here rather than
			// through 49 password checks of a second each under the race detector); the 50th is a real one.
			failures(t, s, flooder, 49)
			if r := signIn(flooder, "nobody@example.com", "any-password"); r.status != http.StatusBadRequest {
				t.Fatalf("the 50th failure from the address = %s, want 400", r)
			}
			for _, email := range []string{"more@example.com", adminEmail} {
				password := "any-password"
				if email == adminEmail {
					password = adminPassword
				}
				r := signIn(flooder, email, password)
				if r.status != http.StatusTooManyRequests || !strings.Contains(r.error(t).Message, "address") {
					t.Errorf("sign-in of %s after 50 failures from the address = %s, want 429 about the address", email, r)
				}
			}
			if n := s.count(t, `SELECT 1 FROM login_attempt WHERE client_address = ?`, flooder); n != 50 {
				t.Errorf("attempt rows of the address = %d, want 50 (refused attempts leave none)", n)
			}
			if r := signIn(admin, adminEmail, adminPassword); r.status != http.StatusOK {
				t.Errorf("the admin's sign-in from another address = %s, want 200", r)
			}
		})
		t.Run("OKConcurrentCorrectSignIns", func(t *testing.T) {
			var wg sync.WaitGroup
			statuses := make([]int, 8) // more than the 4 checks that run at once
			for i := range statuses {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, err := anonymous.try(request{method: "POST", path: "/api/token", header: []string{"X-Forwarded-For", admin},
						body: map[string]string{"email": adminEmail, "password": adminPassword}})
					if err == nil {
						statuses[i] = r.status
					}
				}()
			}
			wg.Wait()
			for i, st := range statuses {
				if st != http.StatusOK {
					t.Errorf("concurrent correct sign-in #%d = %d, want 200", i+1, st)
				}
			}
		})
	})
}

// failures records n failed sign-ins of distinct unknown e-mails from the client address, made within the last
// minutes, as the server records them.
func failures(t testing.TB, s *storeServer, client string, n int) {
	t.Helper()
	for i := range n {
		at := sqldb.TimeArg(s.db.Dialect(), time.Now().Add(-time.Duration(n-i)*time.Second))
		s.exec(t, `INSERT INTO login_attempt (id, email, client_address, attempted_on_utc, pending) VALUES (?, ?, ?, ?, ?)`,
			fmt.Sprintf("%024x", i+1), fmt.Sprintf("unknown%02d@example.com", i), client, at, false)
	}
}

package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
)

func TestBearerToken(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   string // "" means a 401
	}{
		{"Bearer abc", "abc"},
		{"bearer abc", "abc"},
		{"BEARER abc", "abc"},
		{"Bearer  abc", "abc"},
		{"Bearer a-b.c_d~e+f/g==", "a-b.c_d~e+f/g=="},
		{"", ""},
		{"Bearer", ""},
		{"Bearer ", ""},
		{"Basic YWxhZGRpbjpvcGVuc2VzYW1l", ""},
		{"Token abc", ""},
		{"Bearer a b", ""},
		{"Bearer abc ", ""},
		{"Bearer ab\"c", ""},
		{"Bearer äbc", ""},
		{"Bearer ==", ""},
		{"Bearer a=b", ""},
		{"Bearer " + strings.Repeat("a", maxTokenLen+1), ""},
		{"Bearer " + strings.Repeat("a", maxTokenLen), strings.Repeat("a", maxTokenLen)},
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set("Authorization", tc.header)
		}
		got, err := bearerToken(h)
		if tc.want != "" {
			if err != nil || got != tc.want {
				t.Errorf("bearerToken(%q) = %q, %v, want %q", tc.header, got, err, tc.want)
			}
			continue
		}
		e := odata.AsError(err)
		if err == nil || e.Status() != http.StatusUnauthorized || e.Header.Get("WWW-Authenticate") != "Bearer" {
			t.Errorf("bearerToken(%q) = %q, %v, want a 401 with WWW-Authenticate: Bearer", tc.header, got, err)
		}
	}
	h := http.Header{"Authorization": {"Bearer a", "Bearer b"}}
	if _, err := bearerToken(h); err == nil {
		t.Errorf("bearerToken(two headers) = nil error, want a 401")
	}
}

// TestAuthMatrix checks every route against every kind of credentials (SPEC part 2).
func TestAuthMatrix(t *testing.T) {
	type route struct {
		method, path, body string
		kind               string // public, token, admin
	}
	routes := []route{
		{"GET", "/healthz", "", "public"},
		{"HEAD", "/healthz", "", "public"},
		{"POST", "/api/token", `{"email": "jane@example.com", "password": "jane-secret"}`, "public"},
		{"POST", "/api/token/revoke", "", "token"},
		{"GET", "/odata", "", "admin"},
		{"GET", "/odata/", "", "admin"},
		{"GET", "/odata/$metadata", "", "admin"},
		{"GET", "/odata/Product", "", "admin"},
		{"POST", "/odata/Product", `{"Name": "x"}`, "admin"},
		{"DELETE", "/odata/Product('0190a1b2c3d4e5f6a7b8c9d0')", "", "admin"},
		{"GET", "/odata/Customer('jane%40example.com')/Orders", "", "admin"},
	}
	for _, sf := range storefrontRoutes {
		path := strings.NewReplacer("{productId}", "p1", "{shoppingCartTypeId}", "1", "{itemId}", "i1",
			"{orderId}", "o1").Replace(sf.pattern)
		routes = append(routes, route{sf.method, path, "", "token"})
	}
	routes = append(routes, route{"GET", "/no/such/route", "", "unknown"})

	creds := []struct {
		name   string
		header string
	}{
		{"NoToken", ""},
		{"Malformed", "Basic YWRtaW46YWRtaW4="},
		{"EmptyBearer", "Bearer "},
		{"UnknownToken", "Bearer " + unknownToken},
		{"CustomerToken", "Bearer " + customerToken},
		{"AdminToken", "Bearer " + adminToken},
	}
	for _, rt := range routes {
		for _, c := range creds {
			t.Run(rt.method+" "+rt.path+"/"+c.name, func(t *testing.T) {
				s := newTestServer(t)
				var header []string
				if c.header != "" {
					header = append(header, "Authorization: "+c.header)
				}
				if rt.body != "" {
					header = append(header, "Content-Type: application/json")
				}
				rec := s.do(rt.method, rt.path, strings.NewReader(rt.body), header...)

				want := http.StatusOK
				switch {
				case rt.kind == "public":
				case c.name == "NoToken" || c.name == "Malformed" || c.name == "EmptyBearer" || c.name == "UnknownToken":
					want = http.StatusUnauthorized
				case rt.kind == "admin" && c.name == "CustomerToken":
					want = http.StatusForbidden
				case rt.kind == "unknown":
					want = http.StatusNotFound
				}
				if rec.Code != want {
					t.Fatalf("%s %s with %s = %d %s, want %d", rt.method, rt.path, c.name, rec.Code, rec.Body, want)
				}
				if rt.method == "HEAD" {
					return
				}
				if want == http.StatusOK {
					decodeJSONBody(t, rec)
					return
				}
				e := decodeError(t, rec)
				wantCode := map[int]string{401: "Unauthorized", 403: "Forbidden", 404: "NotFound"}[want]
				if e.Error.Code != wantCode {
					t.Errorf("error code = %q, want %q", e.Error.Code, wantCode)
				}
				if got := rec.Header().Get("WWW-Authenticate"); (want == http.StatusUnauthorized) != (got == "Bearer") {
					t.Errorf("WWW-Authenticate = %q on a %d", got, want)
				}
			})
		}
	}
}

func TestLogin(t *testing.T) {
	s := newTestServer(t)
	rec := s.do("POST", "/api/token", strings.NewReader(`{"email": "admin@example.com", "password": "admin-secret"}`),
		"Content-Type: application/json; charset=utf-8")
	if rec.Code != http.StatusOK {
		t.Fatalf("POST /api/token = %d %s, want 200", rec.Code, rec.Body)
	}
	want := map[string]any{"access_token": adminToken, "token_type": "Bearer", "expires_in": 86400.0}
	if diff := cmp.Diff(want, decodeJSONBody(t, rec)); diff != "" {
		t.Errorf("POST /api/token mismatch (-want +got):\n%s", diff)
	}
	if got := rec.Header().Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", got)
	}
}

func TestLogin_Errors(t *testing.T) {
	for _, tc := range []struct {
		name        string
		contentType string
		body        string
		status      int
		code        string
		target      string
		details     []string // targets of the details
	}{
		{"NoContentType", "", `{"email": "a@b.c", "password": "x"}`, 415, "UnsupportedMediaType", "", nil},
		{"Form", "application/x-www-form-urlencoded", `email=a%40b.c&password=x`, 415, "UnsupportedMediaType", "", nil},
		{"TextPlain", "text/plain", `{"email": "a@b.c", "password": "x"}`, 415, "UnsupportedMediaType", "", nil},
		{"Empty", "application/json", ``, 400, "InvalidJson", "", nil},
		{"Malformed", "application/json", `{"email": `, 400, "InvalidJson", "", nil},
		{"NotAnObject", "application/json", `["a@b.c", "x"]`, 400, "InvalidJson", "", nil},
		{"TrailingData", "application/json", `{"email": "a@b.c", "password": "x"} {}`, 400, "InvalidJson", "", nil},
		{"WrongType", "application/json", `{"email": 42, "password": "x"}`, 400, "TypeMismatch", "email", nil},
		{"MissingPassword", "application/json", `{"email": "a@b.c"}`, 400, "ValidationFailed", "password", []string{"password"}},
		{"EmptyEmail", "application/json", `{"email": "", "password": "x"}`, 400, "ValidationFailed", "email", []string{"email"}},
		{"MissingBoth", "application/json", `{}`, 400, "ValidationFailed", "email", []string{"email", "password"}},
		{"Null", "application/json", `null`, 400, "ValidationFailed", "email", []string{"email", "password"}},
		{"WrongPassword", "application/json", `{"email": "admin@example.com", "password": "nope"}`, 400, "InvalidCredentials", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t)
			var header []string
			if tc.contentType != "" {
				header = append(header, "Content-Type: "+tc.contentType)
			}
			rec := s.do("POST", "/api/token", strings.NewReader(tc.body), header...)
			if rec.Code != tc.status {
				t.Fatalf("POST /api/token %s = %d %s, want %d", tc.body, rec.Code, rec.Body, tc.status)
			}
			e := decodeError(t, rec)
			if e.Error.Code != tc.code || e.Error.Target != tc.target {
				t.Errorf("POST /api/token %s = %+v, want code %s target %q", tc.body, e.Error, tc.code, tc.target)
			}
			var targets []string
			for _, d := range e.Error.Details {
				targets = append(targets, d.Target)
			}
			if diff := cmp.Diff(tc.details, targets); diff != "" {
				t.Errorf("detail targets mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLogin_AuthenticatorErrorsAsTheyAre(t *testing.T) {
	s := newTestServer(t)
	s.auth.loginErr = &odata.Error{Code: odata.CodeTooManyRequests,
		Message: "Too many failed logins; retry later.", Header: http.Header{"Retry-After": {"900"}}}
	rec := s.do("POST", "/api/token", strings.NewReader(`{"email": "a@b.c", "password": "x"}`),
		"Content-Type: application/json")
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "900" {
		t.Fatalf("POST /api/token = %d Retry-After %q, want 429 with Retry-After 900", rec.Code, rec.Header().Get("Retry-After"))
	}
	if e := decodeError(t, rec); e.Error.Code != "TooManyRequests" {
		t.Errorf("code = %q, want TooManyRequests", e.Error.Code)
	}
}

func TestRevoke(t *testing.T) {
	s := newTestServer(t)
	rec := s.do("POST", "/api/token/revoke", nil, "Authorization: Bearer "+customerToken)
	if rec.Code != http.StatusOK {
		t.Fatalf("POST /api/token/revoke = %d %s, want 200", rec.Code, rec.Body)
	}
	if diff := cmp.Diff(map[string]any{"success": true}, decodeJSONBody(t, rec)); diff != "" {
		t.Errorf("revoke answer mismatch (-want +got):\n%s", diff)
	}
	rec = s.do("GET", "/cart", nil, "Authorization: Bearer "+customerToken)
	if rec.Code != http.StatusUnauthorized || rec.Header().Get("WWW-Authenticate") != "Bearer" {
		t.Errorf("GET /cart with a revoked token = %d, want 401 with WWW-Authenticate", rec.Code)
	}
	if rec := s.do("GET", "/cart", nil, "Authorization: Bearer "+adminToken); rec.Code != http.StatusOK {
		t.Errorf("GET /cart with another token = %d, want 200", rec.Code)
	}
}

func TestPrincipalInContext(t *testing.T) {
	s := newTestServer(t)
	rec := s.do("GET", "/account/info", nil, "Authorization: Bearer "+customerToken)
	got := decodeJSONBody(t, rec)
	if got["customer"] != "c-1" || got["email"] != "jane@example.com" {
		t.Errorf("storefront.CustomerFrom = %v, %v, want c-1, jane@example.com", got["customer"], got["email"])
	}
}

// TestLogin_ClientAddress checks that a sign-in is throttled by the connection's address, whatever an untrusted
// client claims in X-Forwarded-For, and by the forwarded client behind a trusted proxy.
func TestLogin_ClientAddress(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		want    string
	}{
		{"Untrusted", nil, "192.0.2.1"},
		{"TrustedProxy", prefixes("192.0.2.0/24"), "198.51.100.4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auth := newFakeAuth()
			h, err := newHandler(newLogger(io.Discard, "json"), &components{Auth: auth}, &drainGate{}, config{TrustedProxies: tc.trusted, RequestBudget: odata.DefaultTimeBudget}, &telemetry{})
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest("POST", "/api/token", strings.NewReader(`{"email":"jane@example.com","password":"jane-secret"}`))
			req.RemoteAddr = "192.0.2.1:4711"
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Forwarded-For", "198.51.100.4")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("POST /api/token = %d %s", rec.Code, rec.Body)
			}
			if diff := cmp.Diff([]string{tc.want}, auth.clients); diff != "" {
				t.Errorf("client address of the sign-in (-want +got):\n%s", diff)
			}
		})
	}
}

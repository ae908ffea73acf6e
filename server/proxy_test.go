package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seen is what a handler behind fromProxies sees of a request.
type seen struct {
	Client, Host, Scheme string
	Forwarded            []string // the X-Forwarded-* headers left, "Name: value"
}

func TestFromProxies(t *testing.T) {
	trusted := prefixes("10.0.0.0/8", "2001:db8:1::/48")
	for _, tc := range []struct {
		name   string
		remote string
		header []string // name, value pairs
		want   seen
	}{
		{"Direct", "203.0.113.7:5000", nil, seen{Client: "203.0.113.7", Host: "shop.test"}},
		{"DirectIPv6", "[2001:db8:9::7]:5000", nil, seen{Client: "2001:db8:9::7", Host: "shop.test"}},
		{"DirectIPv4Mapped", "[::ffff:203.0.113.7]:5000", nil, seen{Client: "203.0.113.7", Host: "shop.test"}},
		{"UntrustedPeerIgnored", "203.0.113.7:5000",
			[]string{"X-Forwarded-For", "198.51.100.1", "X-Forwarded-Host", "evil.test", "X-Forwarded-Proto", "https"},
			seen{Client: "203.0.113.7", Host: "shop.test"}},
		{"TrustedPeerHonoured", "10.1.2.3:5000",
			[]string{"X-Forwarded-For", "198.51.100.1", "X-Forwarded-Host", "www.shop.example", "X-Forwarded-Proto", "https"},
			seen{Client: "198.51.100.1", Host: "www.shop.example", Scheme: "https",
				Forwarded: []string{"X-Forwarded-For: 198.51.100.1", "X-Forwarded-Host: www.shop.example", "X-Forwarded-Proto: https"}}},
		{"ClientSpoofsTheLeftOfTheList", "10.1.2.3:5000",
			[]string{"X-Forwarded-For", "192.0.2.66, 198.51.100.1"},
			seen{Client: "198.51.100.1", Host: "shop.test", Forwarded: []string{"X-Forwarded-For: 192.0.2.66, 198.51.100.1"}}},
		{"ChainOfTrustedProxies", "10.1.2.3:5000",
			[]string{"X-Forwarded-For", "198.51.100.1, 10.9.9.9, 2001:db8:1::5"},
			seen{Client: "198.51.100.1", Host: "shop.test", Forwarded: []string{"X-Forwarded-For: 198.51.100.1, 10.9.9.9, 2001:db8:1::5"}}},
		{"SeveralHeaderLines", "10.1.2.3:5000",
			[]string{"X-Forwarded-For", "192.0.2.66", "X-Forwarded-For", "198.51.100.1:4711"},
			seen{Client: "198.51.100.1", Host: "shop.test", Forwarded: []string{"X-Forwarded-For: 192.0.2.66", "X-Forwarded-For: 198.51.100.1:4711"}}},
		{"OnlyTrustedHops", "10.1.2.3:5000", []string{"X-Forwarded-For", "10.0.0.9, 10.0.0.8"},
			seen{Client: "10.0.0.9", Host: "shop.test", Forwarded: []string{"X-Forwarded-For: 10.0.0.9, 10.0.0.8"}}},
		{"GarbageHop", "10.1.2.3:5000", []string{"X-Forwarded-For", "198.51.100.1, unknown, 10.0.0.8"},
			seen{Client: "10.0.0.8", Host: "shop.test", Forwarded: []string{"X-Forwarded-For: 198.51.100.1, unknown, 10.0.0.8"}}},
		{"IPv6Hop", "10.1.2.3:5000", []string{"X-Forwarded-For", "[2001:db8:9::1]:443"},
			seen{Client: "2001:db8:9::1", Host: "shop.test", Forwarded: []string{"X-Forwarded-For: [2001:db8:9::1]:443"}}},
		{"LastHostAndProtoCount", "10.1.2.3:5000",
			[]string{"X-Forwarded-Host", "evil.test, www.shop.example:8443", "X-Forwarded-Proto", "https,http"},
			seen{Client: "10.1.2.3", Host: "www.shop.example:8443", Scheme: "http",
				Forwarded: []string{"X-Forwarded-Host: evil.test, www.shop.example:8443", "X-Forwarded-Proto: https,http"}}},
		{"BadHostAndProtoIgnored", "10.1.2.3:5000",
			[]string{"X-Forwarded-Host", "evil.test/x?y", "X-Forwarded-Proto", "gopher"},
			seen{Client: "10.1.2.3", Host: "shop.test",
				Forwarded: []string{"X-Forwarded-Host: evil.test/x?y", "X-Forwarded-Proto: gopher"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got seen
			h := fromProxies(trusted)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = seen{Client: clientString(clientAddrFrom(r.Context())), Host: r.Host, Scheme: r.URL.Scheme}
				for _, name := range []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
					for _, v := range r.Header.Values(name) {
						got.Forwarded = append(got.Forwarded, name+": "+v)
					}
				}
			}))
			req := httptest.NewRequest("GET", "/odata/Product", nil)
			req.Host, req.RemoteAddr = "shop.test", tc.remote
			for i := 0; i+1 < len(tc.header); i += 2 {
				req.Header.Add(tc.header[i], tc.header[i+1])
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("fromProxies(%s, %q) (-want +got):\n%s", tc.remote, tc.header, diff)
			}
			if tc.name == "UntrustedPeerIgnored" && req.Header.Get("X-Forwarded-Host") != "evil.test" {
				t.Errorf("fromProxies changed the incoming request's headers")
			}
		})
	}
}

// TestSecureHeaders checks that every kind of answer, errors included, carries X-Content-Type-Options: nosniff
// and Cache-Control: no-store.
func TestSecureHeaders(t *testing.T) {
	auth := "Authorization: Bearer " + adminToken
	json := "Content-Type: application/json"
	for _, tc := range []struct {
		name, method, target, body string
		header                     []string
		status                     int
	}{
		{"Healthz", "GET", "/healthz", "", nil, 200},
		{"Login", "POST", "/api/token", `{"email":"admin@example.com","password":"admin-secret"}`, []string{json}, 200},
		{"LoginFailed", "POST", "/api/token", `{"email":"admin@example.com","password":"wrong"}`, []string{json}, 400},
		{"OData", "GET", "/odata/Product", "", []string{auth}, 200},
		{"ODataNoToken", "GET", "/odata/Product", "", nil, 401},
		{"ODataCustomer", "GET", "/odata/Product", "", []string{"Authorization: Bearer " + customerToken}, 403},
		{"Storefront", "GET", "/cart", "", []string{auth}, 200},
		{"NotFound", "GET", "/nope", "", []string{auth}, 404},
		{"MethodNotAllowed", "DELETE", "/healthz", "", nil, 405},
		{"Panic", "GET", "/odata/panic", "", []string{auth}, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t)
			rec := s.do(tc.method, tc.target, stringsReader(tc.body), tc.header...)
			if rec.Code != tc.status {
				t.Fatalf("%s %s = %d %s, want %d", tc.method, tc.target, rec.Code, rec.Body, tc.status)
			}
			checkSecureHeaders(t, tc.method+" "+tc.target, rec.Header())
		})
	}
	t.Run("Draining", func(t *testing.T) {
		s := newTestServer(t)
		s.gate.drain()
		rec := s.do("GET", "/healthz", nil)
		if rec.Code != http.StatusServiceUnavailable {
			t.Fatalf("GET /healthz while draining = %d", rec.Code)
		}
		checkSecureHeaders(t, "GET /healthz while draining", rec.Header())
	})
}

func checkSecureHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options = %q, want nosniff", what, got)
	}
	if got := h.Get("Cache-Control"); got != "no-store" {
		t.Errorf("%s: Cache-Control = %q, want no-store", what, got)
	}
}

func stringsReader(s string) io.Reader {
	if s == "" {
		return nil
	}
	return strings.NewReader(s)
}

package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/storefront"
)

// Tokens of the fake authenticator.
const (
	adminToken    = "admin-token"
	customerToken = "customer-token"
	unknownToken  = "unknown-token"
)

// fakeAuth is an in-memory authenticator: two accounts, tokens in a map.
type fakeAuth struct {
	mu       sync.Mutex
	tokens   map[string]principal
	loginErr error    // returned by every Login when set
	clients  []string // the client address of every Login
}

func newFakeAuth() *fakeAuth {
	return &fakeAuth{tokens: map[string]principal{
		adminToken:    {CustomerID: "c-admin", Email: "admin@example.com", Admin: true},
		customerToken: {CustomerID: "c-1", Email: "jane@example.com"},
	}}
}

func (a *fakeAuth) Login(ctx context.Context, c credentials) (token, error) {
	a.mu.Lock()
	a.clients = append(a.clients, c.Client.String())
	a.mu.Unlock()
	if a.loginErr != nil {
		return token{}, a.loginErr
	}
	switch {
	case c.Email == "admin@example.com" && c.Password == "admin-secret":
		return token{AccessToken: adminToken, ExpiresIn: 24 * time.Hour}, nil
	case c.Email == "jane@example.com" && c.Password == "jane-secret":
		return token{AccessToken: customerToken, ExpiresIn: 90 * time.Minute}, nil
	}
	return token{}, odata.BadRequest(odata.CodeInvalidCredentials, "", "The e-mail or the password is wrong.")
}

func (a *fakeAuth) Authenticate(ctx context.Context, tok string) (principal, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.tokens[tok]
	if !ok {
		// No WWW-Authenticate header: the server adds it.
		return principal{}, &odata.Error{Code: odata.CodeUnauthorized,
			Message: "The token is unknown, expired or revoked."}
	}
	return p, nil
}

func (a *fakeAuth) Revoke(ctx context.Context, tok string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.tokens, tok)
	return nil
}

// fakeOData stands for the OData service: it reads the body and answers what it saw. "/panic" panics.
type fakeOData struct {
	calls atomic.Int64
}

func (f *fakeOData) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	switch r.URL.Path {
	case "/panic":
		panic("secret detail of the panic")
	case "/panic-late":
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"partial":`))
		panic("late panic")
	case "/slow": // a statement that runs until the request's context ends
		<-r.Context().Done()
		odata.WriteError(w, r, nil, r.Context().Err())
		return
	}
	n, err := io.Copy(io.Discard, r.Body)
	if err != nil {
		odata.WriteError(w, r, nil, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"path": r.URL.Path, "raw": r.URL.EscapedPath(), "read": n})
}

// storefrontRoutes are the storefront paths of SPEC parts 6 and 7.
var storefrontRoutes = []struct{ method, pattern string }{
	{"GET", "/cart"},
	{"GET", "/wishlist"},
	{"GET", "/Component/Index"},
	{"POST", "/addproducttocart/details/{productId}/{shoppingCartTypeId}"},
	{"POST", "/addproducttocart/catalog/{productId}/{shoppingCartTypeId}"},
	{"POST", "/updatecartitem/{itemId}"},
	{"POST", "/deletecartitem/{itemId}"},
	{"GET", "/account/info"},
	{"GET", "/account/addresses"},
	{"GET", "/order/history"},
	{"GET", "/orderdetails/{orderId}"},
	{"POST", "/subscribenewsletter"},
	{"POST", "/checkout/SaveShipping/"},
	{"POST", "/checkout/SaveBilling/"},
	{"POST", "/checkout/SaveShippingMethod/"},
	{"POST", "/checkout/SavePaymentMethod/"},
	{"POST", "/checkout/SavePaymentInfo/"},
	{"POST", "/checkout/ConfirmOrder/"},
}

// fakeStorefront registers every storefront route with a handler answering the route, its path values and the
// customer.
func fakeStorefront(r storefront.Router) {
	for _, rt := range storefrontRoutes {
		pattern := rt.pattern
		r.Handle(rt.method, pattern, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			id, email, _ := storefront.CustomerFrom(req.Context())
			vars := map[string]string{}
			for _, name := range []string{"productId", "shoppingCartTypeId", "itemId", "orderId"} {
				if v := req.PathValue(name); v != "" {
					vars[name] = v
				}
			}
			writeJSON(w, http.StatusOK, map[string]any{"route": pattern, "vars": vars, "customer": id, "email": email})
		}))
	}
	r.HandlePublic("GET", publicRoute, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _, signedIn := storefront.CustomerFrom(req.Context())
		writeJSON(w, http.StatusOK, map[string]any{"route": publicRoute, "token": req.PathValue("token"), "signedIn": signedIn})
	}))
}

// publicRoute is the storefront route without a bearer token (the newsletter confirmation link).
const publicRoute = "/newsletter/subscriptionactivation/{token}/{active}"

// testServer is the real handler on fake components.
type testServer struct {
	h     http.Handler
	log   *syncBuffer
	auth  *fakeAuth
	odata *fakeOData
	gate  *drainGate
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	s := &testServer{log: &syncBuffer{}, auth: newFakeAuth(), odata: &fakeOData{}, gate: &drainGate{}}
	h, err := newHandler(newLogger(s.log, "json"), &components{OData: s.odata, Storefront: fakeStorefront, Auth: s.auth}, s.gate, config{RequestBudget: odata.DefaultTimeBudget}, &telemetry{})
	if err != nil {
		t.Fatalf("newHandler: %v", err)
	}
	s.h = h
	return s
}

// do serves one request; header lines are "Name: value".
func (s *testServer) do(method, target string, body io.Reader, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, body)
	for _, line := range header {
		k, v, _ := strings.Cut(line, ": ")
		req.Header.Add(k, v)
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// logLines returns the decoded JSON log lines.
func (s *testServer) logLines(t *testing.T) []map[string]any {
	t.Helper()
	return jsonLines(t, s.log.String())
}

func jsonLines(t *testing.T, text string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// requestLog returns the "request" log line with the given request id, or nil.
func requestLog(lines []map[string]any, id string) map[string]any {
	for _, l := range lines {
		if l["msg"] == "request" && l["request_id"] == id {
			return l
		}
	}
	return nil
}

// errorBody is the error body of SPEC part 8.
type errorBody struct {
	Error struct {
		Code    string              `json:"code"`
		Message string              `json:"message"`
		Target  string              `json:"target"`
		Details []odata.ErrorDetail `json:"details"`
	} `json:"error"`
}

// decodeError decodes an error answer, checking that it is JSON.
func decodeError(t *testing.T, rec *httptest.ResponseRecorder) errorBody {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error answer Content-Type = %q, want application/json...", ct)
	}
	var e errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		t.Fatalf("error body %q: %v", rec.Body.String(), err)
	}
	return e
}

// decodeJSONBody decodes a JSON answer, checking its Content-Type.
func decodeJSONBody(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want application/json...", ct)
	}
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("body %q: %v", rec.Body.String(), err)
	}
	return m
}

// syncBuffer is a goroutine-safe buffer whose readers can wait for text to appear.
type syncBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	notify chan struct{}
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.notify != nil {
		close(b.notify)
		b.notify = nil
	}
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor returns the first line containing substr once it has been written, or ok false when done is closed
// first.
func (b *syncBuffer) waitFor(substr string, done <-chan struct{}) (line string, ok bool) {
	for {
		b.mu.Lock()
		for _, l := range strings.Split(b.buf.String(), "\n") {
			if strings.Contains(l, substr) {
				b.mu.Unlock()
				return l, true
			}
		}
		if b.notify == nil {
			b.notify = make(chan struct{})
		}
		ch := b.notify
		b.mu.Unlock()
		select {
		case <-ch:
		case <-done:
			return "", false
		}
	}
}

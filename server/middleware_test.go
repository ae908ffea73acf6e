package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/storekit/store/odata"
)

var generatedID = regexp.MustCompile(`^[0-9a-f]{24}$`)

func TestRequestID(t *testing.T) {
	for _, tc := range []struct {
		name     string
		method   string
		target   string
		header   []string
		incoming string
		status   int
		reuse    bool
	}{
		{"GeneratedOnSuccess", "GET", "/healthz", nil, "", http.StatusOK, false},
		{"ReusedOnSuccess", "GET", "/healthz", nil, "req-42.a:b_c", http.StatusOK, true},
		{"ReusedOnError", "GET", "/cart", nil, "abc", http.StatusUnauthorized, true},
		{"GeneratedOnNotFound", "GET", "/nope", []string{"Authorization: Bearer " + adminToken}, "", http.StatusNotFound, false},
		{"ReplacedWhenNotSane", "GET", "/healthz", nil, "has space", http.StatusOK, false},
		{"ReplacedWhenForged", "GET", "/healthz", nil, `x" level=ERROR msg="forged`, http.StatusOK, false},
		{"ReplacedWhenTooLong", "GET", "/healthz", nil, strings.Repeat("a", 129), http.StatusOK, false},
		{"OnPanic", "GET", "/odata/panic", []string{"Authorization: Bearer " + adminToken}, "p-1", http.StatusInternalServerError, true},
		{"OnTooLarge", "POST", "/api/token", nil, "big-1", http.StatusRequestEntityTooLarge, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t)
			header := tc.header
			if tc.incoming != "" {
				header = append(header, "X-Request-Id: "+tc.incoming)
			}
			var body io.Reader
			if tc.status == http.StatusRequestEntityTooLarge {
				body = bytes.NewReader(make([]byte, maxBodyBytes+1))
			}
			rec := s.do(tc.method, tc.target, body, header...)
			if rec.Code != tc.status {
				t.Fatalf("%s %s = %d, want %d", tc.method, tc.target, rec.Code, tc.status)
			}
			id := rec.Header().Get("X-Request-Id")
			if tc.reuse && id != tc.incoming {
				t.Errorf("X-Request-Id = %q, want the incoming %q", id, tc.incoming)
			}
			if !tc.reuse && !generatedID.MatchString(id) {
				t.Errorf("X-Request-Id = %q, want a generated id", id)
			}
			line := requestLog(s.logLines(t), id)
			if line == nil {
				t.Fatalf("no request log line with request_id %q in:\n%s", id, s.log)
			}
			if got := int(line["status"].(float64)); got != tc.status {
				t.Errorf("log line status = %d, want %d", got, tc.status)
			}
		})
	}
}

func TestLogRequests(t *testing.T) {
	s := newTestServer(t)
	rec := s.do("GET", "/healthz?probe=1&x=%20y", nil, "X-Request-Id: log-1")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /healthz = %d", rec.Code)
	}
	line := requestLog(s.logLines(t), "log-1")
	if line == nil {
		t.Fatalf("no request log line in:\n%s", s.log)
	}
	for k, want := range map[string]any{"level": "INFO", "method": "GET", "path": "/healthz", "query": "probe=1&x=%20y",
		"status": 200.0, "bytes": float64(rec.Body.Len())} {
		if line[k] != want {
			t.Errorf("log line %s = %v, want %v", k, line[k], want)
		}
	}
	if d, ok := line["duration_ms"].(float64); !ok || d < 0 {
		t.Errorf("log line duration_ms = %v, want a number of milliseconds", line["duration_ms"])
	}
	if _, ok := line["error_code"]; ok {
		t.Errorf("log line of a 200 has error_code %v", line["error_code"])
	}

	for _, tc := range []struct {
		id, method, target string
		header             []string
		status             int
		code               string
		level              string
	}{
		{"log-2", "GET", "/odata/panic", []string{"Authorization: Bearer " + adminToken}, 500, "InternalError", "ERROR"},
		{"log-3", "GET", "/cart?a=1", nil, 401, "Unauthorized", "INFO"},
		{"log-4", "GET", "/no/such/path", []string{"Authorization: Bearer " + adminToken}, 404, "NotFound", "INFO"},
		{"log-5", "POST", "/api/token", []string{"Content-Type: application/json"}, 400, "InvalidJson", "INFO"},
		{"log-6", "DELETE", "/healthz", nil, 405, "MethodNotAllowed", "INFO"},
	} {
		s.do(tc.method, tc.target, strings.NewReader("{"), append(tc.header, "X-Request-Id: "+tc.id)...)
		line := requestLog(s.logLines(t), tc.id)
		if line == nil {
			t.Errorf("%s %s: no request log line", tc.method, tc.target)
			continue
		}
		if line["status"] != float64(tc.status) || line["error_code"] != tc.code || line["level"] != tc.level {
			t.Errorf("log line of %s %s = status %v, error_code %v, level %v; want %d, %s, %s",
				tc.method, tc.target, line["status"], line["error_code"], line["level"], tc.status, tc.code, tc.level)
		}
	}
}

// TestTimeBudget: a request past the budget answers 503 TimeBudgetExceeded naming it; a request whose client
// went away is logged as 499, the client's doing, not as a failure of the server.
func TestTimeBudget(t *testing.T) {
	s := newTestServer(t)
	h, err := newHandler(newLogger(s.log, "json"), &components{OData: s.odata, Auth: s.auth}, s.gate,
		config{RequestBudget: 50 * time.Millisecond}, &telemetry{})
	if err != nil {
		t.Fatal(err)
	}
	s.h = h
	rec := s.do("GET", "/odata/slow", nil, "Authorization: Bearer "+adminToken, "X-Request-Id: budget-1")
	if e := decodeError(t, rec).Error; rec.Code != http.StatusServiceUnavailable ||
		e.Code != odata.CodeTimeBudgetExceeded || !strings.Contains(e.Message, "50ms") {
		t.Errorf("GET past the budget = %d %s, want 503 TimeBudgetExceeded naming 50ms", rec.Code, rec.Body)
	}
	if line := requestLog(s.logLines(t), "budget-1"); line == nil || line["status"] != 503.0 || line["error_code"] != odata.CodeTimeBudgetExceeded {
		t.Errorf("log line of the request past its budget = %v", line)
	}

	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, "GET", "/odata/slow", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("X-Request-Id", "gone-1")
	time.AfterFunc(20*time.Millisecond, cancel)
	s.h.ServeHTTP(httptest.NewRecorder(), req)
	line := requestLog(s.logLines(t), "gone-1")
	if line == nil || line["status"] != 499.0 || line["error_code"] != odata.CodeClientClosedRequest || line["level"] != "INFO" {
		t.Errorf("log line of the request whose client went away = %v, want status 499 ClientClosedRequest at INFO", line)
	}
}

func TestLogRequests_SecretPath(t *testing.T) {
	s := newTestServer(t)
	s.do("GET", "/newsletter/subscriptionactivation/the-secret-token/true", nil, "X-Request-Id: log-secret")
	line := requestLog(s.logLines(t), "log-secret")
	if line == nil || line["path"] != "/newsletter/subscriptionactivation/REDACTED/true" {
		t.Errorf("log line of a confirmation link = %v, want the token redacted", line)
	}
	if strings.Contains(s.log.String(), "the-secret-token") {
		t.Errorf("the log holds the confirmation token:\n%s", s.log)
	}
}

func TestLogPath(t *testing.T) {
	for in, want := range map[string]string{
		"/cart": "/cart",
		"/newsletter/subscriptionactivation/abc/true":  "/newsletter/subscriptionactivation/REDACTED/true",
		"/newsletter/subscriptionactivation/abc":       "/newsletter/subscriptionactivation/REDACTED",
		"/newsletter/subscriptionactivation/":          "/newsletter/subscriptionactivation/",
		"/newsletter/subscriptionactivation/a/b/c/d/e": "/newsletter/subscriptionactivation/REDACTED/b/c/d/e",
	} {
		if got := logPath(in); got != want {
			t.Errorf("logPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestErrorCode(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"error":{"code":"ValidationFailed","message":"x","details":[]}}`, "ValidationFailed"},
		{`{"error":{"message":"first","code":"NotFound"}}`, "NotFound"},
		{`{"error":{"code":"Cut`, ""},
		{`{"error":{"code":"LimitExceeded","message":"The request body is larg`, "LimitExceeded"},
		{`{"value":[]}`, ""},
		{`not json`, ""},
		{``, ""},
	} {
		if got := errorCode([]byte(tc.body)); got != tc.want {
			t.Errorf("errorCode(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

func TestRecoverPanics(t *testing.T) {
	s := newTestServer(t)
	rec := s.do("GET", "/odata/panic", nil, "Authorization: Bearer "+adminToken)
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("GET /odata/panic = %d, want 500", rec.Code)
	}
	e := decodeError(t, rec)
	if e.Error.Code != "InternalError" || e.Error.Message != "An internal error occurred." {
		t.Errorf("error = %+v, want InternalError with the generic message", e.Error)
	}
	if strings.Contains(rec.Body.String(), "secret") || strings.Contains(rec.Body.String(), "goroutine") {
		t.Errorf("body %q leaks the panic", rec.Body)
	}
	log := s.log.String()
	if !strings.Contains(log, "secret detail of the panic") || !strings.Contains(log, "goroutine") {
		t.Errorf("log lacks the panic value and its stack:\n%s", log)
	}
}

func TestRecoverPanics_AfterAnswerBegan(t *testing.T) {
	s := newTestServer(t)
	srv := httptest.NewServer(s.h)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/odata/panic-late", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := srv.Client().Do(req)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Errorf("GET /odata/panic-late succeeded, want the connection aborted")
	}
	if !strings.Contains(s.log.String(), "late panic") {
		t.Errorf("log lacks the panic:\n%s", s.log)
	}
}

func TestLimitRequests(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name    string
		target  string
		size    int
		chunked bool // no Content-Length: the limit is met while reading
		status  int
		limit   string // in the message
	}{
		// OData bodies reach the engine, which holds them to its own limits (1 MiB, 16 MiB for Picture: the
		// store's end-to-end tests check its 413s).
		{"ODataLeftToTheEngine", "/odata/Product", 16*mib + 1, false, http.StatusOK, ""},
		{"ODataLeftToTheEngineChunked", "/odata/picture('0190a1b2c3d4e5f6a7b8c9d0')/$value", 16*mib + 1, true, http.StatusOK, ""},
		{"TokenOverLimitChunked", "/api/token", mib + 1, true, http.StatusRequestEntityTooLarge, "1 MiB"},
		{"StorefrontOverLimit", "/checkout/SaveShipping/", mib + 1, false, http.StatusRequestEntityTooLarge, "1 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t)
			body := make([]byte, tc.size)
			if tc.target == "/api/token" {
				copy(body, `{"email": "`)
				for i := len(`{"email": "`); i < len(body); i++ {
					body[i] = 'a'
				}
			}
			req := httptest.NewRequest("POST", tc.target, bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+adminToken)
			req.Header.Set("Content-Type", "application/json")
			if tc.chunked {
				req.ContentLength = -1
			}
			rec := httptest.NewRecorder()
			s.h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("POST %s with %d bytes = %d %s, want %d", tc.target, tc.size, rec.Code, rec.Body, tc.status)
			}
			if tc.status == http.StatusOK {
				if got := decodeJSONBody(t, rec)["read"]; got != float64(tc.size) {
					t.Errorf("handler read %v bytes, want %d", got, tc.size)
				}
				return
			}
			e := decodeError(t, rec)
			if e.Error.Code != "PayloadTooLarge" || !strings.Contains(e.Error.Message, tc.limit) {
				t.Errorf("error = %+v, want PayloadTooLarge naming %s", e.Error, tc.limit)
			}
			if !tc.chunked && s.odata.calls.Load() != 0 {
				t.Errorf("the handler ran on a body whose Content-Length is over the limit")
			}
		})
	}
}

func TestLimitRequests_URL(t *testing.T) {
	s := newTestServer(t)
	base := "/healthz?pad="
	at := base + strings.Repeat("a", maxURLBytes-len(base))
	if rec := s.do("GET", at, nil); rec.Code != http.StatusOK {
		t.Errorf("GET of a %d-byte URL = %d, want 200", len(at), rec.Code)
	}
	over := at + "a"
	rec := s.do("GET", over, nil)
	if rec.Code != http.StatusRequestURITooLong {
		t.Fatalf("GET of a %d-byte URL = %d, want 414", len(over), rec.Code)
	}
	e := decodeError(t, rec)
	if e.Error.Code != "URITooLong" || !strings.Contains(e.Error.Message, "16 KiB") {
		t.Errorf("error = %+v, want URITooLong naming 16 KiB", e.Error)
	}
	if rec.Header().Get("X-Request-Id") == "" {
		t.Error("414 answer without X-Request-Id")
	}
}

func TestRejectWhileDraining(t *testing.T) {
	s := newTestServer(t)
	s.gate.drain()
	for _, target := range []string{"/healthz", "/odata/Product", "/cart"} {
		rec := s.do("GET", target, nil, "Authorization: Bearer "+adminToken)
		if rec.Code != http.StatusServiceUnavailable {
			t.Errorf("GET %s while draining = %d, want 503", target, rec.Code)
			continue
		}
		if e := decodeError(t, rec); e.Error.Code != "ServiceUnavailable" {
			t.Errorf("GET %s while draining: code %q, want ServiceUnavailable", target, e.Error.Code)
		}
	}
}

// TestODataPath checks which paths the server leaves to the engine's body limits.
func TestODataPath(t *testing.T) {
	for path, want := range map[string]bool{
		"/odata":               true,
		"/odata/":              true,
		"/odata/Picture('x')":  true,
		"/odata/$batch":        true,
		"/odatax":              false,
		"/cart":                false,
		"/api/token":           false,
		"/Picture":             false,
		"/docs/odata/anything": false,
	} {
		if got := odataPath(path); got != want {
			t.Errorf("odataPath(%q) = %v, want %v", path, got, want)
		}
	}
}

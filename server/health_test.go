package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// TestHealth checks liveness (/healthz, /healthz/live: the process serves, whatever the database does) apart from
// readiness (/healthz/ready: the database answers too).
func TestHealth(t *testing.T) {
	down := errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")
	for _, tc := range []struct {
		name       string
		ready      func(context.Context) error
		path       string
		status     int
		code       string // of the error body
		retryAfter string
	}{
		{"LiveWhenUp", nil, "/healthz/live", http.StatusOK, "", ""},
		{"HealthzWhenDown", func(context.Context) error { return down }, "/healthz", http.StatusOK, "", ""},
		{"LiveWhenDown", func(context.Context) error { return down }, "/healthz/live", http.StatusOK, "", ""},
		{"ReadyWithoutCheck", nil, "/healthz/ready", http.StatusOK, "", ""},
		{"Ready", func(context.Context) error { return nil }, "/healthz/ready", http.StatusOK, "", ""},
		{"NotReadyUnclassified", func(context.Context) error { return down }, "/healthz/ready",
			http.StatusServiceUnavailable, "DatabaseUnavailable", "1"},
		{"NotReadyTimeout", func(ctx context.Context) error { return context.DeadlineExceeded }, "/healthz/ready",
			http.StatusServiceUnavailable, "DatabaseUnavailable", "1"},
		{"NotReadyReadOnly", func(context.Context) error { return &sqldb.Fault{Class: sqldb.ErrReadOnly, Err: down} },
			"/healthz/ready", http.StatusServiceUnavailable, "DatabaseReadOnly", "5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := newHandler(newLogger(io.Discard, "json"), &components{Auth: newFakeAuth(), Ready: tc.ready},
				&drainGate{}, config{RequestBudget: odata.DefaultTimeBudget}, &telemetry{})
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
			if rec.Code != tc.status || rec.Header().Get("Retry-After") != tc.retryAfter {
				t.Fatalf("GET %s = %d (Retry-After %q) %s, want %d (%q)", tc.path, rec.Code,
					rec.Header().Get("Retry-After"), rec.Body, tc.status, tc.retryAfter)
			}
			if tc.code != "" {
				if e := decodeError(t, rec); e.Error.Code != tc.code {
					t.Errorf("GET %s: code %q, want %q", tc.path, e.Error.Code, tc.code)
				}
			}
		})
	}
}

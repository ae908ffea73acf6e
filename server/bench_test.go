package server

import (
	"io"
	"net/http/httptest"
	"testing"

	"github.com/storekit/store/odata"
)

// BenchmarkHandler measures the cost of the middleware chain, routing and authentication around a trivial
// storefront handler (the fake authenticator is a map lookup; logging goes to io.Discard).
func BenchmarkHandler(b *testing.B) {
	h, err := newHandler(newLogger(io.Discard, "json"), &components{OData: &fakeOData{}, Storefront: fakeStorefront,
		Auth: newFakeAuth()}, &drainGate{}, config{RequestBudget: odata.DefaultTimeBudget}, &telemetry{})
	if err != nil {
		b.Fatal(err)
	}
	for _, target := range []string{"/healthz", "/orderdetails/o1", "/odata/Product"} {
		b.Run(target, func(b *testing.B) {
			req := httptest.NewRequest("GET", target, nil)
			req.Header.Set("Authorization", "Bearer "+adminToken)
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}

package odata_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// endlessCount is a statement that never ends on its own: it counts the rows of an unbounded recursion.
const endlessCount = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`

// spinningService is the library service whose unbound Ping action runs endlessCount, with the given budget.
func spinningService(t *testing.T, db *dbtest.DB, budget time.Duration) *odata.Service {
	t.Helper()
	newFixture(t, db).seed()
	return libraryService(t, db, func(c *odata.Config) {
		c.TimeBudget = budget
		c.Actions["Ping"] = func(ctx context.Context, call *odata.ActionCall) (any, error) {
			var n int64
			err := call.Tx.QueryRowContext(ctx, endlessCount).Scan(&n)
			return nil, err
		}
	})
}

// serveWith sends a request with ctx to h and returns its answer.
func serveWith(ctx context.Context, h http.Handler, method, path string) response {
	req := httptest.NewRequestWithContext(ctx, method, "http://example.com"+path, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return response{Status: w.Code, Header: w.Header(), Body: w.Body.String()}
}

// TestService_TimeBudget runs a statement that never ends: the budget cancels it on the database, the answer is
// 503 naming the budget, and the database serves the next request.
func TestService_TimeBudget(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		svc := spinningService(t, db, 300*time.Millisecond)
		resp := serveWith(context.Background(), svc, "POST", "/odata/Ping")
		e := decodeError(t, resp.Body)
		if resp.Status != http.StatusServiceUnavailable || e.Code != odata.CodeTimeBudgetExceeded {
			t.Fatalf("POST Ping = %d %s, want 503 TimeBudgetExceeded", resp.Status, resp.Body)
		}
		if !strings.Contains(e.Message, "time budget of 300ms") || resp.Header.Get("Retry-After") != "1" {
			t.Errorf("message %q, Retry-After %q: want the budget named and 1", e.Message, resp.Header.Get("Retry-After"))
		}
		for i := 0; i < 3; i++ { // every connection of the pool is usable after
			if resp := serveWith(context.Background(), svc, "GET", "/odata/Book?$count=true"); resp.Status != http.StatusOK {
				t.Fatalf("GET after the cancelled statement = %d %s", resp.Status, resp.Body)
			}
		}
	})
}

// TestService_ClientClosedRequest cancels the request's context, as net/http does when the client goes away:
// the statement stops and the answer (for the log) is 499, not a 500.
func TestService_ClientClosedRequest(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		svc := spinningService(t, db, -1)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		resp := serveWith(ctx, svc, "POST", "/odata/Ping")
		if e := decodeError(t, resp.Body); resp.Status != odata.StatusClientClosedRequest || e.Code != odata.CodeClientClosedRequest {
			t.Fatalf("POST Ping with the client gone = %d %s, want 499 ClientClosedRequest", resp.Status, resp.Body)
		}
	})
}

// TestWithTimeBudget gives a route beside the engine the same budget and the same answer.
func TestWithTimeBudget(t *testing.T) {
	h := odata.WithTimeBudget(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		odata.WriteError(w, r, discardLogger(), r.Context().Err())
	}), 50*time.Millisecond)
	resp := serveWith(context.Background(), h, "GET", "/cart")
	if e := decodeError(t, resp.Body); resp.Status != http.StatusServiceUnavailable || e.Code != odata.CodeTimeBudgetExceeded {
		t.Errorf("GET /cart past the budget = %d %s, want 503 TimeBudgetExceeded", resp.Status, resp.Body)
	}
	if odata.WithTimeBudget(http.NotFoundHandler(), 0) == nil {
		t.Error("WithTimeBudget(h, 0) = nil, want h")
	}
}

// TestWithTimeBudget_AroundService: wrapped in WithTimeBudget, the service keeps the outer budget instead of adding
// its own, so the answer names the outer one.
func TestWithTimeBudget_AroundService(t *testing.T) {
	svc := spinningService(t, dbtest.SQLite(t), time.Hour)
	resp := serveWith(context.Background(), odata.WithTimeBudget(svc, 200*time.Millisecond), "POST", "/odata/Ping")
	if e := decodeError(t, resp.Body); resp.Status != http.StatusServiceUnavailable || !strings.Contains(e.Message, "200ms") {
		t.Errorf("POST Ping under an outer budget = %d %s, want 503 naming 200ms", resp.Status, resp.Body)
	}
}

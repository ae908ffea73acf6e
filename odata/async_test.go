package odata_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// asyncNode returns a library service with asynchronous requests over db, its configuration changed by edit
// (nil for none); several over one database are the nodes of one deployment. It is shut down when the test
// ends.
func asyncNode(t *testing.T, db *dbtest.DB, edit func(cfg *odata.Config)) *fixture {
	t.Helper()
	svc := libraryService(t, db, func(cfg *odata.Config) {
		cfg.Async = odata.AsyncOptions{Enabled: true}
		if edit != nil {
			edit(cfg)
		}
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := svc.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return &fixture{t: t, db: db, svc: svc}
}

// monitorPath returns the path of the status monitor a 202 answer names.
func monitorPath(t *testing.T, resp response) string {
	t.Helper()
	location := resp.Header.Get("Location")
	_, path, ok := strings.Cut(location, "http://example.com")
	if resp.Status != http.StatusAccepted || !ok || !strings.HasPrefix(path, "/odata/$async/") {
		t.Fatalf("answer %d Location %q, want 202 and a status monitor under /odata/$async/\n%s", resp.Status, location, resp.Body)
	}
	if got := resp.Header.Get("Preference-Applied"); got != "respond-async" {
		t.Errorf("Preference-Applied %q, want respond-async", got)
	}
	return path
}

// awaitAnswer polls the status monitor at path until the request is done and returns the monitor's answer and
// the request's answer it encloses.
func awaitAnswer(t *testing.T, f *fixture, path string, headers ...string) (response, *http.Response, string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp := f.do("GET", path, "", headers...)
		switch {
		case resp.Status == http.StatusAccepted && time.Now().Before(deadline):
			if resp.Header.Get("Location") == "" || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("monitor 202 without Location or Retry-After: %v", resp.Header)
			}
			time.Sleep(5 * time.Millisecond)
			continue
		case resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "application/http":
			t.Fatalf("monitor %s = %d %q, want 200 application/http\n%s", path, resp.Status, resp.Header.Get("Content-Type"), resp.Body)
		}
		inner, err := http.ReadResponse(bufio.NewReader(strings.NewReader(resp.Body)), nil)
		if err != nil {
			t.Fatalf("the monitor's answer is not an HTTP response: %v\n%s", err, resp.Body)
		}
		body, err := io.ReadAll(inner.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, inner, string(body)
	}
}

// TestAsync_Answers: a request that prefers respond-async is answered 202 with its status monitor, whose GET
// encloses the answer the request would have had (reads, creates, errors), with AsyncResult in 4.01, on both
// databases; another node of the deployment reads it too.
func TestAsync_Answers(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		node := asyncNode(t, db, func(cfg *odata.Config) { cfg.MaxVersion = odata.Version401 })
		other := asyncNode(t, db, nil)
		for _, tc := range []struct {
			name, method, path, body, maxVersion string
			status                               int
		}{
			{"read", "GET", "/odata/Book?$select=Id,Title&$orderby=Id", "", "", 200},
			{"read in 4.01", "GET", "/odata/Book('b2')?$select=Id,Title", "", "4.01", 200},
			{"not found", "GET", "/odata/Book('none')", "", "4.01", 404},
			{"bad query", "GET", "/odata/Book?$filter=nonsense", "", "", 400},
			{"create", "POST", "/odata/Publisher", `{"Name":"Async Press"}`, "4.01", 201},
		} {
			resp := node.do(tc.method, tc.path, tc.body, "Prefer", "respond-async, odata.maxpagesize=2",
				"OData-MaxVersion", tc.maxVersion)
			path := monitorPath(t, resp)
			monitor, inner, body := awaitAnswer(t, node, path, "OData-MaxVersion", tc.maxVersion)
			if inner.StatusCode != tc.status {
				t.Errorf("%s: enclosed status %d, want %d\n%s", tc.name, inner.StatusCode, tc.status, body)
			}
			wantResult := ""
			if tc.maxVersion == "4.01" {
				wantResult = strconv.Itoa(tc.status)
			}
			if got := monitor.Header.Get("AsyncResult"); got != wantResult {
				t.Errorf("%s: AsyncResult %q, want %q", tc.name, got, wantResult)
			}
			if tc.method == "GET" {
				// The enclosed answer is the one the request has when sent without respond-async (the other
				// preferences kept).
				sync := f.do(tc.method, tc.path, "", "Prefer", "odata.maxpagesize=2", "OData-MaxVersion", tc.maxVersion)
				if diff := cmp.Diff(sync.Body, body); diff != "" || inner.Header.Get("Content-Type") != sync.Header.Get("Content-Type") ||
					inner.Header.Get("Preference-Applied") != sync.Header.Get("Preference-Applied") {
					t.Errorf("%s: enclosed answer differs from the synchronous one (-sync +async):\n%s\nheaders %v, want %v",
						tc.name, diff, inner.Header, sync.Header)
				}
			}
			// Another node answers the same monitor.
			if _, again, _ := awaitAnswer(t, other, path); again.StatusCode != tc.status {
				t.Errorf("%s: the other node's monitor encloses %d, want %d", tc.name, again.StatusCode, tc.status)
			}
		}
		if got := f.count("/odata/Publisher?$filter=Name%20eq%20'Async%20Press'"); got != "1" {
			t.Errorf("publishers created asynchronously: %s, want 1", got)
		}
	})
}

// TestAsync_Cancel: DELETE on the status monitor cancels a running request, on the node that runs it or on
// another, and the write it was doing is rolled back; the monitor is gone afterwards.
func TestAsync_Cancel(t *testing.T) {
	defer odata.SetAsyncPoll(20 * time.Millisecond)()
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		started := make(chan struct{}, 2)
		slow := func(cfg *odata.Config) {
			cfg.Sets["Publisher"] = odata.SetOptions{Writes: odata.WriteAll, Hooks: odata.Hooks{
				BeforeSave: func(ctx context.Context, _ *odata.Tx, _ *odata.Change) error {
					started <- struct{}{}
					<-ctx.Done() // a save that takes until it is cancelled
					return ctx.Err()
				}}}
		}
		node := asyncNode(t, db, slow)
		other := asyncNode(t, db, nil)
		cancellers := []*fixture{node, other}
		if db.Dialect().Name() == "sqlite" {
			// One SQLite file has one writer: the other node's DELETE would wait for the write it cancels. A
			// deployment of several nodes runs on PostgreSQL.
			cancellers = cancellers[:1]
		}
		for _, canceller := range cancellers {
			path := monitorPath(t, node.do("POST", "/odata/Publisher", `{"Name":"Never"}`, "Prefer", "respond-async"))
			<-started
			if resp := canceller.do("GET", path, ""); resp.Status != http.StatusAccepted {
				t.Fatalf("monitor of a running request = %d, want 202", resp.Status)
			}
			canceller.must(http.StatusNoContent, "DELETE", path, "")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if err := node.svc.Shutdown(ctx); err != nil { // returns once the cancelled request has ended
				t.Fatalf("the cancelled request did not end: %v", err)
			}
			cancel()
			canceller.must(http.StatusNotFound, "GET", path, "")
			canceller.must(http.StatusNotFound, "DELETE", path, "")
		}
		if got := f.count("/odata/Publisher?$filter=Name%20eq%20'Never'"); got != "0" {
			t.Errorf("publishers of cancelled requests: %s, want 0", got)
		}
	})
}

// TestAsync_Monitor: a status monitor that does not exist is a 404, other methods than GET and DELETE a 405,
// an answer past AnswerBytes is kept as a 500 naming the limit, one past Keep is gone, and a service without
// Async answers respond-async requests as they come.
func TestAsync_Monitor(t *testing.T) {
	db := dbtest.SQLite(t)
	f := newFixture(t, db)
	f.seed()
	node := asyncNode(t, db, nil)
	node.must(http.StatusNotFound, "GET", "/odata/$async/0123456789abcdef0123456789abcdef", "")
	if resp := node.do("PUT", "/odata/$async/0123", "{}"); resp.Status != http.StatusMethodNotAllowed || resp.Header.Get("Allow") == "" {
		t.Errorf("PUT on a monitor = %d Allow %q, want 405 with Allow", resp.Status, resp.Header.Get("Allow"))
	}

	small := asyncNode(t, db, func(cfg *odata.Config) { cfg.Async.AnswerBytes = 64 })
	_, inner, body := awaitAnswer(t, small, monitorPath(t, small.do("GET", "/odata/Book", "", "Prefer", "respond-async")))
	if inner.StatusCode != 500 || !strings.Contains(body, "64 bytes") {
		t.Errorf("answer past AnswerBytes = %d %s, want a 500 naming the limit", inner.StatusCode, body)
	}

	brief := asyncNode(t, db, func(cfg *odata.Config) { cfg.Async.Keep = time.Millisecond })
	path := monitorPath(t, brief.do("GET", "/odata/Book", "", "Prefer", "respond-async"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := brief.svc.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	brief.must(http.StatusNotFound, "GET", path, "")

	if resp := f.do("GET", "/odata/Book", "", "Prefer", "respond-async"); resp.Status != http.StatusOK {
		t.Errorf("respond-async to a service without Async = %d, want 200", resp.Status)
	}
}

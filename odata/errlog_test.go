package odata_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// TestService_ServerErrorLog checks that the log line of a 500 says which request met it and which
// declaration of the model it reached.
func TestService_ServerErrorLog(t *testing.T) {
	db := dbtest.SQLite(t)
	f := newFixture(t, db)
	f.seed()
	var log bytes.Buffer
	svc := libraryService(t, db, func(c *odata.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(&log, nil))
		c.Actions["Book/Rate"] = func(context.Context, *odata.ActionCall) (any, error) { return nil, errors.New("rating broke") }
		sets := c.Sets["Publisher"]
		sets.Hooks.BeforeSave = func(context.Context, *odata.Tx, *odata.Change) error { return errors.New("hook broke") }
		c.Sets["Publisher"] = sets
	})
	for _, c := range []struct {
		method, target, body string
		want                 map[string]any
	}{
		{"POST", "/odata/Book('b1')/Rate?x=1", `{"Stars":3}`, map[string]any{"msg": "request failed", "method": "POST",
			"path": "/odata/Book('b1')/Rate", "query": "x=1", "status": 500.0, "err": "rating broke",
			"declaration": "action Book/Rate, entity set Book, entity type Book"}},
		{"PATCH", "/odata/Publisher('p1')", `{"Name":"New"}`, map[string]any{"msg": "request failed", "method": "PATCH",
			"path": "/odata/Publisher('p1')", "status": 500.0, "err": "hook broke",
			"declaration": "entity set Publisher, entity type Publisher"}},
	} {
		log.Reset()
		req := httptest.NewRequest(c.method, "http://example.com"+c.target, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		svc.ServeHTTP(w, req)
		if w.Code != 500 {
			t.Fatalf("%s %s = %d %s, want 500", c.method, c.target, w.Code, w.Body)
		}
		var got map[string]any
		if err := json.Unmarshal(log.Bytes(), &got); err != nil {
			t.Fatalf("%s %s: log %q: %v", c.method, c.target, log.String(), err)
		}
		delete(got, "time")
		delete(got, "level")
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s %s: log line (-want +got):\n%s", c.method, c.target, diff)
		}
	}
}

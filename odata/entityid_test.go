package odata_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// TestService_EntityByID: /$entity?$id= reads the entity its id names, relative or absolute, with the other
// query options, as the entity's own URL does; an id that names no entity of a set, a missing $id and a write
// are refused.
func TestService_EntityByID(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	f.seed()
	want := f.must(200, "GET", "/odata/Book('b1')?$select=Title,Pages", "").Body
	for _, path := range []string{
		"/odata/$entity?$id=Book('b1')&$select=Title,Pages",
		"/odata/%24entity?$select=Title,Pages&%24id=" + "http%3A%2F%2Fexample.com%2Fodata%2FBook('b1')",
		"/odata/$entity?$id=odata/Book('b1')&$select=Title,Pages",
	} {
		resp := f.must(200, "GET", path, "")
		if diff := cmp.Diff(want, resp.Body); diff != "" {
			t.Errorf("GET %s differs from the entity's own URL (-want +got):\n%s", path, diff)
		}
	}
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/odata/$entity", 400},
		{"GET", "/odata/$entity?$id=Book", 400},
		{"GET", "/odata/$entity?$id=Book('b1')/Title", 400},
		{"GET", "/odata/$entity?$id=http%3A%2F%2Felsewhere.example%2FBook('b1')", 400},
		{"GET", "/odata/$entity?$id=Book('none')", 404},
		{"DELETE", "/odata/$entity?$id=Book('b1')", 405},
	} {
		resp := f.do(tc.method, tc.path, "")
		if resp.Status != tc.status {
			t.Errorf("%s %s = %d, want %d\n%s", tc.method, tc.path, resp.Status, tc.status, resp.Body)
		}
		if tc.status == http.StatusMethodNotAllowed && resp.Header.Get("Allow") == "" {
			t.Errorf("%s %s: no Allow header", tc.method, tc.path)
		}
	}
}

package odata_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

func TestWriteError(t *testing.T) {
	cause := errors.New("database is locked")
	for _, tc := range []struct {
		name       string
		err        error
		status     int
		code       string
		retryAfter string
	}{
		{"Error", odata.NotFound("The thing does not exist."), http.StatusNotFound, "NotFound", ""},
		{"Busy", fmt.Errorf("%w: %w", sqldb.ErrBusy, cause), http.StatusServiceUnavailable, "ServiceUnavailable", "1"},
		{"Other", cause, http.StatusInternalServerError, "InternalError", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			odata.WriteError(rec, httptest.NewRequest(http.MethodGet, "/", nil), discardLogger(), tc.err)
			if rec.Code != tc.status || rec.Header().Get("Retry-After") != tc.retryAfter {
				t.Errorf("WriteError(%v) = %d with Retry-After %q, want %d with %q", tc.err, rec.Code,
					rec.Header().Get("Retry-After"), tc.status, tc.retryAfter)
			}
			if got := odata.AsError(tc.err).Code; got != tc.code {
				t.Errorf("AsError(%v).Code = %q, want %q", tc.err, got, tc.code)
			}
		})
	}
}

package odata_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

func TestWriteError(t *testing.T) {
	cause := errors.New("database is locked")
	for _, tc := range []struct {
		name       string
		err        error
		status     int
		code       string
		message    string
		retryAfter string
	}{
		{"Error", odata.NotFound("The thing does not exist."), http.StatusNotFound, "NotFound", "The thing does not exist.", ""},
		{"Wrapped", fmt.Errorf("reading: %w", odata.Conflict("Taken.")), http.StatusConflict, "Conflict", "Taken.", ""},
		{"Literal", &odata.Error{Code: odata.CodeMethodNotAllowed, Message: "No."}, http.StatusMethodNotAllowed, "MethodNotAllowed", "No.", ""},
		{"Busy", fmt.Errorf("%w: %w", sqldb.ErrBusy, cause), http.StatusServiceUnavailable, "DatabaseBusy", "The database is busy; try again.", "1"},
		{"Unavailable", fmt.Errorf("reading: %w", &sqldb.Fault{Class: sqldb.ErrUnavailable, Err: cause}), http.StatusServiceUnavailable, "DatabaseUnavailable", "The database is unavailable; try again shortly.", "1"},
		{"ReadOnly", &sqldb.Fault{Class: sqldb.ErrReadOnly, Err: cause}, http.StatusServiceUnavailable, "DatabaseReadOnly", "The database accepts no changes at the moment; try again later.", "5"},
		{"Full", &sqldb.Fault{Class: sqldb.ErrFull, Err: cause}, http.StatusInsufficientStorage, "InsufficientStorage", "The database has no space left for the change; try again later.", "30"},
		// A server error that wraps a fault answers as the fault; a client error as itself.
		{"InternalOfFault", &odata.Error{Code: odata.CodeInternal, Err: &sqldb.Fault{Class: sqldb.ErrFull, Err: cause}}, http.StatusInsufficientStorage, "InsufficientStorage", "The database has no space left for the change; try again later.", "30"},
		{"ConflictOfFault", &odata.Error{Code: odata.CodeConflict, Message: "Taken.", Err: &sqldb.Fault{Class: sqldb.ErrFull, Err: cause}}, http.StatusConflict, "Conflict", "Taken.", ""},
		{"Other", cause, http.StatusInternalServerError, "InternalError", "An internal error occurred.", ""},
		// A code without a status is a bug of whoever built the error: its message does not reach the client.
		{"UnknownCode", &odata.Error{Code: "Teapot", Message: "secret detail"}, http.StatusInternalServerError, "InternalError", "An internal error occurred.", ""},
		{"NoCode", &odata.Error{Message: "secret detail"}, http.StatusInternalServerError, "InternalError", "An internal error occurred.", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			odata.WriteError(rec, httptest.NewRequest(http.MethodGet, "/", nil), discardLogger(), tc.err)
			if rec.Code != tc.status || rec.Header().Get("Retry-After") != tc.retryAfter {
				t.Errorf("WriteError(%v) = %d with Retry-After %q, want %d with %q", tc.err, rec.Code,
					rec.Header().Get("Retry-After"), tc.status, tc.retryAfter)
			}
			var body struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("WriteError(%v) wrote %q: %v", tc.err, rec.Body, err)
			}
			if body.Error.Code != tc.code || body.Error.Message != tc.message {
				t.Errorf("WriteError(%v) body = %s %q, want %s %q", tc.err, body.Error.Code, body.Error.Message, tc.code, tc.message)
			}
			if got := odata.AsError(tc.err); got.Code != tc.code || got.Status() != tc.status {
				t.Errorf("AsError(%v) = %s %d, want %s %d", tc.err, got.Code, got.Status(), tc.code, tc.status)
			}
			if got := odata.ErrorCode(tc.err); got != tc.code {
				t.Errorf("ErrorCode(%v) = %q, want %q", tc.err, got, tc.code)
			}
		})
	}
	if got := odata.ErrorCode(nil); got != "" {
		t.Errorf("ErrorCode(nil) = %q, want \"\"", got)
	}
}

// TestErrorStatus is the table of odata/DESIGN.md's Errors section: every code with its status.
func TestErrorStatus(t *testing.T) {
	want := map[string]int{
		"BadRequest": 400, "InvalidJson": 400, "ValidationFailed": 400, "Required": 400, "InvalidValue": 400,
		"UnknownField": 400, "TypeMismatch": 400, "UnknownProperty": 400, "SyntaxError": 400, "LimitExceeded": 400,
		"InvalidCredentials": 400, "Unauthorized": 401, "Forbidden": 403, "NotFound": 404, "MethodNotAllowed": 405,
		"NotAcceptable": 406, "Conflict": 409, "Gone": 410, "PreconditionFailed": 412, "PayloadTooLarge": 413, "URITooLong": 414,
		"UnsupportedMediaType": 415, "FailedDependency": 424, "TooManyRequests": 429, "InternalError": 500, "NotImplemented": 501,
		"ServiceUnavailable": 503, "TimeBudgetExceeded": 503, "DatabaseBusy": 503, "DatabaseUnavailable": 503,
		"DatabaseReadOnly": 503, "InsufficientStorage": 507,
	}
	got := map[string]int{}
	for code := range want {
		got[code] = odata.ErrorStatus(code)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ErrorStatus (-want +got):\n%s", diff)
	}
	for _, code := range []string{"", "Teapot", "notfound"} {
		if got := odata.ErrorStatus(code); got != http.StatusInternalServerError {
			t.Errorf("ErrorStatus(%q) = %d, want 500", code, got)
		}
	}
}

// TestErrorStatus_Planner checks that every code of the planner and the parser, which the Service passes on as
// the code of its answer, is a client error (CodeNotSupported becomes CodeNotImplemented).
func TestErrorStatus_Planner(t *testing.T) {
	for _, code := range []string{plan.CodeUnknownProperty, plan.CodeTypeMismatch, plan.CodeLimitExceeded,
		plan.CodeSyntax, plan.CodeInvalidValue, syntax.CodeSyntax, syntax.CodeLimitExceeded} {
		if got := odata.ErrorStatus(code); got != http.StatusBadRequest {
			t.Errorf("ErrorStatus(%q) = %d, want 400", code, got)
		}
	}
}

// TestErrorConstructors checks that each constructor's code is the one its name promises.
func TestErrorConstructors(t *testing.T) {
	detail := odata.ErrorDetail{Code: odata.CodeRequired, Target: "Name", Message: "Name is required"}
	for _, tc := range []struct {
		name   string
		err    *odata.Error
		status int
	}{
		{"Errorf", odata.Errorf(odata.CodeNotImplemented, "The %s segment is not supported.", "$batch"), 501},
		{"BadRequest", odata.BadRequest(odata.CodeInvalidValue, "Name", "Name is too long."), 400},
		{"NotFound", odata.NotFound("Gone."), 404},
		{"Conflict", odata.Conflict("Taken."), 409},
		{"Forbidden", odata.Forbidden("No."), 403},
		{"Unauthorized", odata.Unauthorized("Who?"), 401},
		{"ValidationError", odata.ValidationError(detail), 400},
	} {
		if got := tc.err.Status(); got != tc.status {
			t.Errorf("%s(...).Status() = %d, want %d", tc.name, got, tc.status)
		}
	}
	if e := odata.ValidationError(detail); e.Target != "Name" || !strings.Contains(e.Message, "required") {
		t.Errorf("ValidationError(%v) = %q, want the first detail's target and message", detail, e)
	}
}

// TestService_VersionHeaders: OData-MaxVersion below 4.0 cannot be answered (406), an OData-Version other than 4.0
// or 4.01 is not read (400); both headers are optional, and every error names the language of its message.
func TestService_VersionHeaders(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	f.seed()
	for _, tc := range []struct {
		headers []string
		status  int
		target  string
	}{
		{nil, 200, ""},
		{[]string{"OData-MaxVersion", "4.0"}, 200, ""},
		{[]string{"OData-MaxVersion", "4.01"}, 200, ""},
		{[]string{"OData-MaxVersion", "5.0"}, 200, ""},
		{[]string{"OData-Version", "4.0", "OData-MaxVersion", "4.01"}, 200, ""},
		{[]string{"OData-Version", "4.01"}, 200, ""},
		{[]string{"OData-MaxVersion", "3.0"}, 406, "OData-MaxVersion"},
		{[]string{"OData-MaxVersion", "four"}, 200, ""}, // not a version: no limit, ignored
		{[]string{"OData-Version", "3.0"}, 400, "OData-Version"},
		{[]string{"OData-Version", "4.02"}, 400, "OData-Version"},
	} {
		resp := f.do("GET", "/odata/Book?$top=1", "", tc.headers...)
		if resp.Status != tc.status {
			t.Errorf("GET Book with %q = %d, want %d\n%s", tc.headers, resp.Status, tc.status, resp.Body)
			continue
		}
		if tc.status == 200 {
			continue
		}
		if e := decodeError(t, resp.Body); e.Target != tc.target || resp.Header.Get("Content-Language") != "en" {
			t.Errorf("GET Book with %q: target %q, Content-Language %q; want %s, en", tc.headers, e.Target, resp.Header.Get("Content-Language"), tc.target)
		}
	}
}

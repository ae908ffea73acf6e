package odata

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/storekit/store/odata/sqldb"
)

// Error is an error with an HTTP status and the OData error body of the service contract:
//
//	{"error": {"code": "...", "message": "...", "target": "...", "details": [{"code", "target", "message"}]}}
//
// Handlers return errors; WriteError renders them. Any error that is not an *Error renders as a 500 with a
// generic message, so no internal detail reaches a client.
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code is a short PascalCase machine-readable code such as "ValidationFailed".
	Code string
	// Message is one human sentence.
	Message string
	// Target names the field, parameter or query option the error is about, if any.
	Target string
	// Details holds one entry per failed rule of a validation.
	Details []ErrorDetail
	// Header holds extra response headers (Allow, Retry-After, WWW-Authenticate).
	Header http.Header
	// Err is the cause; it is logged, never sent.
	Err error
}

// ErrorDetail is one entry of an error's details.
type ErrorDetail struct {
	Code    string `json:"code"`
	Target  string `json:"target,omitempty"`
	Message string `json:"message"`
}

// Error returns the message, prefixed by the target when there is one.
func (e *Error) Error() string {
	if e.Target != "" {
		return e.Target + ": " + e.Message
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// NewError returns an *Error with the given status, code and formatted message.
func NewError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// BadRequest returns a 400 error about target.
func BadRequest(code, target, message string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: code, Target: target, Message: message}
}

// NotFound returns a 404 error.
func NotFound(message string) *Error {
	return &Error{Status: http.StatusNotFound, Code: "NotFound", Message: message}
}

// Conflict returns a 409 error.
func Conflict(message string) *Error {
	return &Error{Status: http.StatusConflict, Code: "Conflict", Message: message}
}

// Forbidden returns a 403 error.
func Forbidden(message string) *Error {
	return &Error{Status: http.StatusForbidden, Code: "Forbidden", Message: message}
}

// ValidationError returns one 400 error that carries every failed rule as a detail. The error's own target and
// message are those of the first detail, so a client that reads only the top level still learns something useful.
func ValidationError(details ...ErrorDetail) *Error {
	e := &Error{Status: http.StatusBadRequest, Code: "ValidationFailed", Message: "The request is not valid.", Details: details}
	if len(details) > 0 {
		e.Target = details[0].Target
		e.Message = details[0].Message
	}
	return e
}

// AsError returns err as an *Error when it is one (or wraps one); an error that wraps sqldb.ErrBusy (the
// database still busy after sqldb.RunTx's retries) as the 503 ServiceUnavailable with Retry-After; and the
// generic 500 error otherwise.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, sqldb.ErrBusy) {
		return busyError(err)
	}
	return &Error{Status: http.StatusInternalServerError, Code: "InternalError",
		Message: "An internal error occurred.", Err: err}
}

// busyError is the answer when the database is busy (a SQLite lock, a PostgreSQL serialization failure or
// deadlock) beyond what retrying the transaction settled: 503, and Retry-After asks the client to try again.
func busyError(cause error) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: "ServiceUnavailable", Err: cause,
		Message: "The database is busy; try again.", Header: http.Header{"Retry-After": {"1"}}}
}

// ContentTypeJSON is the media type of every JSON answer of the engine.
const ContentTypeJSON = "application/json;odata.metadata=minimal"

type errorBody struct {
	Error errorPayload `json:"error"`
}

type errorPayload struct {
	Code    string        `json:"code"`
	Message string        `json:"message"`
	Target  string        `json:"target,omitempty"`
	Details []ErrorDetail `json:"details,omitempty"`
}

// WriteError renders err as the error body with its status. Errors that are not *Error are logged with their
// cause (through logger, or slog.Default when logger is nil) and answered with a generic 500.
func WriteError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	e := AsError(err)
	if e.Status >= 500 {
		if logger == nil {
			logger = slog.Default()
		}
		cause := e.Err
		if cause == nil {
			cause = err
		}
		logger.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path,
			"status", e.Status, "err", cause)
	}
	h := w.Header()
	for k, vs := range e.Header {
		h[k] = vs
	}
	h.Set("Content-Type", ContentTypeJSON)
	h.Set("OData-Version", "4.0")
	h.Del("Content-Length")
	h.Del("ETag")
	w.WriteHeader(e.Status)
	body := errorBody{Error: errorPayload{Code: e.Code, Message: e.Message, Target: e.Target, Details: e.Details}}
	if body.Error.Code == "" {
		body.Error.Code = http.StatusText(e.Status)
	}
	_ = json.NewEncoder(w).Encode(body)
}

package odata

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/storekit/store/odata/sqldb"
)

// Error codes. An error's HTTP status follows from its code through one table (ErrorStatus), so the two never
// disagree; a code the table does not hold answers as CodeInternal. The codes are also the codes of an error's
// details (ErrorDetail.Code), where CodeRequired, CodeInvalidValue, CodeTypeMismatch and CodeUnknownField name
// the rule a value breaks.
const (
	// 400 Bad Request: the client's mistake, named as precisely as one of these codes allows.
	CodeBadRequest         = "BadRequest"         // a malformed request that no other code describes
	CodeInvalidJSON        = "InvalidJson"        // a body that is not the JSON object expected
	CodeValidationFailed   = "ValidationFailed"   // one or more rules failed; Details holds one entry each
	CodeRequired           = "Required"           // a required value is missing
	CodeInvalidValue       = "InvalidValue"       // a value breaks a rule (a range, a length, a reference)
	CodeUnknownField       = "UnknownField"       // a body names a property or parameter that does not exist
	CodeTypeMismatch       = "TypeMismatch"       // a value of the wrong type, in a body or a query option
	CodeUnknownProperty    = "UnknownProperty"    // a query option names a property that does not exist
	CodeNotReadable        = "NotReadable"        // a query option or body uses a property the request may not read
	CodeSyntaxError        = "SyntaxError"        // a resource path or query option that does not parse
	CodeLimitExceeded      = "LimitExceeded"      // a request past one of the service's limits
	CodeOptionNotAllowed   = "OptionNotAllowed"   // a query option the entity set read does not take (SetOptions.NoFilter, ...)
	CodeInvalidCredentials = "InvalidCredentials" // a sign-in with a wrong e-mail or password

	// 499 Client Closed Request (nginx's status, for the log): the client went away before the answer, so
	// the work was cancelled. The client never sees it.
	CodeClientClosedRequest = "ClientClosedRequest"

	CodeUnauthorized         = "Unauthorized"         // 401: no, or an invalid, credential
	CodeForbidden            = "Forbidden"            // 403: the caller may not do this
	CodeNotFound             = "NotFound"             // 404: no such resource
	CodeMethodNotAllowed     = "MethodNotAllowed"     // 405: the resource does not offer the method (Header: Allow)
	CodeNotAcceptable        = "NotAcceptable"        // 406: no representation the client accepts
	CodeConflict             = "Conflict"             // 409: the state of a resource forbids the change
	CodeGone                 = "Gone"                 // 410: a delta link past its time (Header: Location)
	CodePreconditionFailed   = "PreconditionFailed"   // 412: a stale If-Match
	CodePreconditionRequired = "PreconditionRequired" // 428: a write without the If-Match its set requires
	CodePayloadTooLarge      = "PayloadTooLarge"      // 413: a body over its limit
	CodeURITooLong           = "URITooLong"           // 414: a URL over its limit
	CodeUnsupportedMediaType = "UnsupportedMediaType" // 415: a body of a media type the resource does not read
	CodeFailedDependency     = "FailedDependency"     // 424: a request of a batch whose dependency failed
	CodeTooManyRequests      = "TooManyRequests"      // 429: too many attempts (Header: Retry-After)
	CodeInternal             = "InternalError"        // 500: a bug; the cause is logged, never sent
	CodeNotImplemented       = "NotImplemented"       // 501: valid OData the engine does not serve
	CodeServiceUnavailable   = "ServiceUnavailable"   // 503: too busy (password checks) or shutting down (Header: Retry-After)
	CodeTimeBudgetExceeded   = "TimeBudgetExceeded"   // 503: the request ran past its time budget (Header: Retry-After)

	// The database's faults (sqldb.FaultOf), each with Retry-After: the request may succeed later unchanged.
	CodeDatabaseBusy        = "DatabaseBusy"        // 503: still locked or in conflict after the transaction's retries
	CodeDatabaseUnavailable = "DatabaseUnavailable" // 503: unreachable, restarting, or the connection broke
	CodeDatabaseReadOnly    = "DatabaseReadOnly"    // 503: refuses writes (a standby, a read-only file)
	CodeInsufficientStorage = "InsufficientStorage" // 507: out of disk space
)

// StatusClientClosedRequest is the status CodeClientClosedRequest logs with.
const StatusClientClosedRequest = 499

// codeStatus is the one table from error code to HTTP status.
var codeStatus = map[string]int{
	CodeBadRequest:         http.StatusBadRequest,
	CodeInvalidJSON:        http.StatusBadRequest,
	CodeValidationFailed:   http.StatusBadRequest,
	CodeRequired:           http.StatusBadRequest,
	CodeInvalidValue:       http.StatusBadRequest,
	CodeUnknownField:       http.StatusBadRequest,
	CodeTypeMismatch:       http.StatusBadRequest,
	CodeUnknownProperty:    http.StatusBadRequest,
	CodeNotReadable:        http.StatusBadRequest,
	CodeSyntaxError:        http.StatusBadRequest,
	CodeLimitExceeded:      http.StatusBadRequest,
	CodeOptionNotAllowed:   http.StatusBadRequest,
	CodeInvalidCredentials: http.StatusBadRequest,

	CodeClientClosedRequest: StatusClientClosedRequest,

	CodeUnauthorized:         http.StatusUnauthorized,
	CodeForbidden:            http.StatusForbidden,
	CodeNotFound:             http.StatusNotFound,
	CodeMethodNotAllowed:     http.StatusMethodNotAllowed,
	CodeNotAcceptable:        http.StatusNotAcceptable,
	CodeConflict:             http.StatusConflict,
	CodeGone:                 http.StatusGone,
	CodePreconditionFailed:   http.StatusPreconditionFailed,
	CodePreconditionRequired: http.StatusPreconditionRequired,
	CodePayloadTooLarge:      http.StatusRequestEntityTooLarge,
	CodeURITooLong:           http.StatusRequestURITooLong,
	CodeUnsupportedMediaType: http.StatusUnsupportedMediaType,
	CodeFailedDependency:     http.StatusFailedDependency,
	CodeTooManyRequests:      http.StatusTooManyRequests,
	CodeInternal:             http.StatusInternalServerError,
	CodeNotImplemented:       http.StatusNotImplemented,
	CodeServiceUnavailable:   http.StatusServiceUnavailable,
	CodeTimeBudgetExceeded:   http.StatusServiceUnavailable,
	CodeDatabaseBusy:         http.StatusServiceUnavailable,
	CodeDatabaseUnavailable:  http.StatusServiceUnavailable,
	CodeDatabaseReadOnly:     http.StatusServiceUnavailable,
	CodeInsufficientStorage:  http.StatusInsufficientStorage,
}

// ErrorStatus returns the HTTP status of an error code, and 500 (the status of CodeInternal) for a code the table
// does not hold.
func ErrorStatus(code string) int {
	if status, ok := codeStatus[code]; ok {
		return status
	}
	return http.StatusInternalServerError
}

// ErrorCode returns the code err answers with (AsError): the code of the *Error it is or wraps, the code of a
// database fault (CodeDatabaseBusy, ...), CodeInternal otherwise. ErrorCode(nil) is "".
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	return AsError(err).Code
}

// Error is an error with a code, and so an HTTP status, and the OData error body of the service contract:
//
//	{"error": {"code": "...", "message": "...", "target": "...", "details": [{"code", "target", "message"}]}}
//
// Handlers, hooks and actions return errors; WriteError renders them. An error that is not an *Error, or whose
// code has no status in the table of ErrorStatus, renders as a 500 with a generic message, so no internal detail
// reaches a client. A plug-in builds its own errors the same way, as a literal (&Error{Code: CodeConflict,
// Message: "..."}) or with Errorf, BadRequest, NotFound, Conflict, Forbidden, Unauthorized or ValidationError;
// a code of its own goes in a detail (ErrorDetail.Code).
type Error struct {
	// Code is one of the Code constants, such as CodeValidationFailed; it decides the HTTP status.
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

// ErrorDetail is one entry of an error's details. Details have no status of their own, so Code names the rule
// the entry reports freely: one of the Code constants (most often CodeRequired or CodeInvalidValue), or a code
// of a plug-in's own, which has no place in Error.Code.
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

// Status returns the HTTP status of the error's code (ErrorStatus).
func (e *Error) Status() int { return ErrorStatus(e.Code) }

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// BadRequest returns an error about target with a code of status 400, such as CodeInvalidValue (CodeBadRequest
// when no other code says more).
func BadRequest(code, target, message string) *Error {
	return &Error{Code: code, Target: target, Message: message}
}

// NotFound returns a 404 error.
func NotFound(message string) *Error {
	return &Error{Code: CodeNotFound, Message: message}
}

// Conflict returns a 409 error.
func Conflict(message string) *Error {
	return &Error{Code: CodeConflict, Message: message}
}

// Forbidden returns a 403 error.
func Forbidden(message string) *Error {
	return &Error{Code: CodeForbidden, Message: message}
}

// Unauthorized returns a 401 error; the caller adds the WWW-Authenticate header its scheme needs.
func Unauthorized(message string) *Error {
	return &Error{Code: CodeUnauthorized, Message: message}
}

// ValidationError returns one 400 error that carries every failed rule as a detail. The error's own target and
// message are those of the first detail, so a client that reads only the top level still learns something useful.
func ValidationError(details ...ErrorDetail) *Error {
	e := &Error{Code: CodeValidationFailed, Message: "The request is not valid.", Details: details}
	if len(details) > 0 {
		e.Target = details[0].Target
		e.Message = details[0].Message
	}
	return e
}

// AsError returns the *Error that err answers with: err itself when it is one (or wraps one) whose code has a
// status below 500; for a fault of the database (sqldb.FaultOf), the answer that names it, with Retry-After
// (faultError); err itself when it is an *Error of a server error (500 and up) whose code has a status; and
// otherwise the 500 CodeInternal with a generic message, the cause kept in Err for the log.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		if _, known := codeStatus[e.Code]; known && e.Status() < 500 {
			return e
		}
	}
	if class := sqldb.FaultOf(err); class != sqldb.ErrOther {
		return faultError(class, err)
	}
	if e != nil {
		if _, known := codeStatus[e.Code]; known {
			return e
		}
		err = fmt.Errorf("error code %q has no HTTP status: %w", e.Code, err)
	}
	return internalError(err)
}

// internalError is the answer to an error the client cannot act on: a generic message; the cause is logged only.
func internalError(cause error) *Error {
	return &Error{Code: CodeInternal, Message: "An internal error occurred.", Err: cause}
}

// faultError is the answer to a fault of the database (a sqldb.ErrorClass of sqldb.FaultOf): ErrRetry, a
// database busy beyond what retrying the transaction settled (a SQLite lock past its busy timeout, a PostgreSQL
// serialization failure or deadlock), is 503 CodeDatabaseBusy; ErrUnavailable (unreachable, restarting, a
// broken connection) 503 CodeDatabaseUnavailable; ErrReadOnly 503 CodeDatabaseReadOnly; ErrFull 507
// CodeInsufficientStorage. Each has Retry-After, in seconds: 1 when busy or unavailable (a restart takes a few
// seconds, and the next request finds a new connection), 5 when read-only (a fail-over), 30 when full (an
// operator must make room). The cause is logged, never sent.
func faultError(class sqldb.ErrorClass, cause error) *Error {
	e := &Error{Code: CodeDatabaseUnavailable, Err: cause, Header: http.Header{"Retry-After": {"1"}},
		Message: "The database is unavailable; try again shortly."}
	switch class {
	case sqldb.ErrRetry:
		e.Code, e.Message = CodeDatabaseBusy, "The database is busy; try again."
	case sqldb.ErrReadOnly:
		e.Code, e.Message = CodeDatabaseReadOnly, "The database accepts no changes at the moment; try again later."
		e.Header.Set("Retry-After", "5")
	case sqldb.ErrFull:
		e.Code, e.Message = CodeInsufficientStorage, "The database has no space left for the change; try again later."
		e.Header.Set("Retry-After", "30")
	}
	return e
}

// busyError is the answer when the database is busy (a SQLite lock, a PostgreSQL serialization failure or
// deadlock) beyond what retrying the transaction settled: 503 CodeDatabaseBusy, and Retry-After asks the client
// to try again.
func busyError(cause error) *Error { return faultError(sqldb.ErrRetry, cause) }

// answerError returns the *Error that request r answers err with: AsError's, or for a server error of a request
// whose context has ended, what contextError makes of it (the client went away, the time budget ran out).
func answerError(r *http.Request, err error) *Error {
	e := AsError(err)
	if e.Status() >= 500 {
		e = contextError(r.Context(), e)
	}
	return e
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

// WriteError renders err as the error body with the status of its code (AsError). Errors of status 500 and above
// are logged with their cause (through logger, or slog.Default when logger is nil).
func WriteError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	writeError(w, r, logger, err, []any{"method", r.Method, "path", r.URL.Path})
}

// writeError is WriteError whose log line of a server error starts with attrs (slog key-value pairs) that say
// which request met it.
func writeError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error, attrs []any) {
	e := answerError(r, err)
	status := e.Status()
	if status >= 500 {
		if logger == nil {
			logger = slog.Default()
		}
		cause := e.Err
		if cause == nil {
			cause = err
		}
		logger.ErrorContext(r.Context(), "request failed", append(attrs, "status", status, "err", cause)...)
	}
	h := w.Header()
	for k, vs := range e.Header {
		h[k] = vs
	}
	h.Set("Content-Type", ContentTypeJSON)
	h.Set("Content-Language", "en") // the language of message (OData JSON Format, error response)
	if h["Odata-Version"] == nil {  // set by the service to the version the request negotiated
		h["Odata-Version"] = Version40.header()
	}
	h.Del("Content-Length")
	h.Del("ETag")
	w.WriteHeader(status)
	body := errorBody{Error: errorPayload{Code: e.Code, Message: e.Message, Target: e.Target, Details: e.Details}}
	_ = json.NewEncoder(w).Encode(body)
}

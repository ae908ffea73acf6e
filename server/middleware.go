package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/storekit/store/odata"
)

// Limits of SPEC part 9.
const (
	// maxURLBytes is the longest request URL (request target) served.
	maxURLBytes = 16 << 10
	// maxBodyBytes is the largest request body (SPEC part 9), outside the OData service too.
	maxBodyBytes = 1 << 20
)

// requestIDHeader carries the request id on requests and answers.
const requestIDHeader = "X-Request-Id"

type requestIDKey struct{}

func requestIDFrom(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(requestIDKey{}).(string)
	return id, ok
}

// saneRequestID reports whether an incoming request id may be reused: 1 to 128 characters of letters, digits
// and "-_.:" (so it cannot forge log lines or headers).
func saneRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// withRequestID gives every request an id: the incoming X-Request-Id when it is sane, a new one otherwise. The
// id is set on the answer before anything else runs, so error answers carry it too, and it is in the request
// context, where the logger picks it up.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(requestIDHeader)
		if !saneRequestID(id) {
			id = odata.NewID()
		}
		w.Header().Set(requestIDHeader, id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

// secureHeaders sets, before anything else answers, the headers every answer carries: X-Content-Type-Options:
// nosniff (a browser never guesses another type than the one sent) and Cache-Control: no-store (answers hold a
// customer's data or the live state of the shop, and nearly every request is authenticated, so no cache, shared
// or private, may keep one; a handler may still set another policy for an answer of its own). Error answers
// keep them: odata.WriteError adds headers and removes none of these.
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// statusWriter records the status and the size of an answer, and the start of an error answer's body, where
// the error code is.
type statusWriter struct {
	http.ResponseWriter
	status  int
	bytes   int64
	wrote   bool
	errBody []byte // the first maxErrorPrefix bytes of the body of an answer with status >= 400
}

// maxErrorPrefix bounds what statusWriter keeps of an error body: the code comes first in the error object.
const maxErrorPrefix = 512

func (sw *statusWriter) WriteHeader(code int) {
	if !sw.wrote && (code >= 200 || code == http.StatusSwitchingProtocols) {
		sw.status, sw.wrote = code, true
	}
	sw.ResponseWriter.WriteHeader(code)
}

func (sw *statusWriter) Write(b []byte) (int, error) {
	if !sw.wrote {
		sw.status, sw.wrote = http.StatusOK, true
	}
	if sw.status >= 400 && len(sw.errBody) < maxErrorPrefix {
		sw.errBody = append(sw.errBody, b[:min(len(b), maxErrorPrefix-len(sw.errBody))]...)
	}
	n, err := sw.ResponseWriter.Write(b)
	sw.bytes += int64(n)
	return n, err
}

// Flush sends buffered data to the client (for streaming answers).
func (sw *statusWriter) Flush() {
	if !sw.wrote {
		sw.status, sw.wrote = http.StatusOK, true
	}
	_ = http.NewResponseController(sw.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (sw *statusWriter) Unwrap() http.ResponseWriter { return sw.ResponseWriter }

// errorCode returns the code of the error body that starts with prefix ({"error":{"code":"...", ...), or "".
// The prefix may be cut anywhere after the code.
func errorCode(prefix []byte) string {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	for _, want := range []any{json.Delim('{'), "error", json.Delim('{')} {
		if tok, err := dec.Token(); err != nil || tok != want {
			return ""
		}
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		if key == "code" {
			code, _ := dec.Token()
			s, _ := code.(string)
			return s
		}
		if err := dec.Decode(&json.RawMessage{}); err != nil {
			return ""
		}
	}
	return ""
}

// secretPathPrefixes are the paths whose next segment is a secret: the single-use token of a newsletter
// confirmation link (storefront), which the database keeps only as a hash and the log must not keep at all.
var secretPathPrefixes = []string{"/newsletter/subscriptionactivation/"}

// logPath returns a request path as the log shows it: with the secret segment of secretPathPrefixes replaced
// by REDACTED.
func logPath(path string) string {
	for _, prefix := range secretPathPrefixes {
		rest, ok := strings.CutPrefix(path, prefix)
		if !ok || rest == "" {
			continue
		}
		if _, after, found := strings.Cut(rest, "/"); found {
			return prefix + "REDACTED/" + after
		}
		return prefix + "REDACTED"
	}
	return path
}

// clientString is a client address as the log shows it ("" when unknown).
func clientString(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

// logRequests writes one log line per request: client (the address fromProxies found), method, path (see
// logPath), query (the raw query string), status,
// error_code (the code of an error answer's body), duration_ms (milliseconds, with microseconds as the
// fraction), bytes and (through the logger's handler) the request id, and the trace and span ids of the
// request's span. Server errors are logged at level ERROR. The request's span (which continues the trace of its
// traceparent header) and its duration metric go to tel (telemetry.go).
func logRequests(logger *slog.Logger, tel *telemetry) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			r, span := tel.start(r)
			sw := &statusWriter{ResponseWriter: w}
			defer func() {
				elapsed := time.Since(start)
				status := sw.status
				if !sw.wrote {
					status = http.StatusOK
				}
				level := slog.LevelInfo
				if status >= 500 {
					level = slog.LevelError
				}
				attrs := []slog.Attr{
					slog.String("client", clientString(clientAddrFrom(r.Context()))),
					slog.String("method", r.Method),
					slog.String("path", logPath(r.URL.Path)),
					slog.String("query", r.URL.RawQuery),
					slog.Int("status", status),
				}
				code := ""
				if status >= 400 {
					code = errorCode(sw.errBody)
					attrs = append(attrs, slog.String("error_code", code))
				}
				attrs = append(attrs,
					slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
					slog.Int64("bytes", sw.bytes))
				logger.LogAttrs(r.Context(), level, "request", attrs...)
				tel.end(r, span, status, code, elapsed)
			}()
			next.ServeHTTP(sw, r)
		})
	}
}

// recoverPanics turns a panic into a 500 InternalError answer with a generic message; the panic value and the
// stack go only to the log. When the answer had already begun, the connection is aborted instead, so the client
// does not take a truncated answer for a complete one.
func recoverPanics(logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sw, ok := w.(*statusWriter)
			if !ok {
				sw = &statusWriter{ResponseWriter: w}
			}
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				if v == http.ErrAbortHandler {
					panic(v)
				}
				err := fmt.Errorf("panic: %v\n%s", v, debug.Stack())
				if sw.wrote {
					logger.ErrorContext(r.Context(), "panic after the answer began", "method", r.Method,
						"path", r.URL.Path, "err", err)
					panic(http.ErrAbortHandler)
				}
				odata.WriteError(sw, r, logger, err) // not an *odata.Error: a generic 500, the panic in the log
			}()
			next.ServeHTTP(sw, r)
		})
	}
}

// drainGate counts the requests being served and, once draining, admits no more: it tells when the last admitted
// one has finished.
type drainGate struct {
	mu       sync.Mutex
	running  int
	draining bool
	idle     chan struct{} // closed when draining and running reaches 0
}

// enter admits a request (leave must follow) unless the gate is draining.
func (g *drainGate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.draining {
		return false
	}
	g.running++
	return true
}

func (g *drainGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
	if g.running == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
}

// drain stops admitting requests and returns a channel closed once every admitted request has finished.
func (g *drainGate) drain() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.draining = true
	ch := make(chan struct{})
	if g.running == 0 {
		close(ch)
	} else {
		g.idle = ch
	}
	return ch
}

// rejectWhileDraining answers 503 ServiceUnavailable (with Retry-After and Connection: close) to every request
// that arrives once the server is draining, /healthz included; the requests admitted before finish.
func rejectWhileDraining(gate *drainGate, logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !gate.enter() {
				odata.WriteError(w, r, logger, &odata.Error{
					Code: odata.CodeServiceUnavailable, Message: "The service is shutting down; retry on another node or later.",
					Header: http.Header{"Connection": {"close"}, "Retry-After": {"5"}}})
				return
			}
			defer gate.leave()
			next.ServeHTTP(w, r)
		})
	}
}

// limitRequests enforces the URL limit (414 URITooLong) and the body limits (413 PayloadTooLarge), each with a
// message naming the limit. A body whose Content-Length is over the limit is refused before any handler runs; a
// body without one is cut at the limit, and reading past it fails with an *odata.Error 413 that handlers pass to
// odata.WriteError as is (or wrapped with %w).
func limitRequests(logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if len(r.RequestURI) > maxURLBytes {
				odata.WriteError(w, r, logger, &odata.Error{Code: odata.CodeURITooLong,
					Message: fmt.Sprintf("The request URL is longer than the limit of 16 KiB (%d bytes).", maxURLBytes)})
				return
			}
			if odataPath(r.URL.Path) {
				// The engine holds OData bodies to its limits (odata.Config.Limits, and the Picture set's own).
				next.ServeHTTP(w, r)
				return
			}
			if r.ContentLength > maxBodyBytes {
				odata.WriteError(w, r, logger, bodyTooLarge(maxBodyBytes, nil))
				return
			}
			if r.Body != nil && r.Body != http.NoBody {
				r.Body = &limitedBody{rc: http.MaxBytesReader(w, r.Body, maxBodyBytes), limit: maxBodyBytes}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// odataPath reports whether path is the OData service's (odataMount or below it).
func odataPath(path string) bool {
	return path == odataMount || strings.HasPrefix(path, odataMount+"/")
}

func bodyTooLarge(limit int64, cause error) *odata.Error {
	size := fmt.Sprintf("%d MiB", limit>>20)
	return &odata.Error{Code: odata.CodePayloadTooLarge,
		Message: fmt.Sprintf("The request body is larger than the limit of %s (%d bytes).", size, limit),
		Header:  http.Header{"Connection": {"close"}}, Err: cause}
}

// limitedBody turns the error of http.MaxBytesReader into the 413 *odata.Error (which still unwraps to the
// *http.MaxBytesError).
type limitedBody struct {
	rc    io.ReadCloser
	limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		err = bodyTooLarge(b.limit, mbe)
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// contextHandler adds the request id of the context to every log record, and the trace and span ids of its span
// (trace_id, span_id) when it has one.
type contextHandler struct{ slog.Handler }

func (h contextHandler) Handle(ctx context.Context, rec slog.Record) error {
	id, ok := requestIDFrom(ctx)
	sc := trace.SpanContextFromContext(ctx)
	if ok || sc.IsValid() {
		rec = rec.Clone()
	}
	if ok {
		rec.AddAttrs(slog.String("request_id", id))
	}
	if sc.IsValid() {
		rec.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, rec)
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{h.Handler.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.Handler.WithGroup(name)}
}

// newLogger returns the service's logger on w in the given format ("json" or "text").
func newLogger(w io.Writer, format string) *slog.Logger {
	var h slog.Handler = slog.NewJSONHandler(w, nil)
	if format == "text" {
		h = slog.NewTextHandler(w, nil)
	}
	return slog.New(contextHandler{h})
}

package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// odataMount is the path the OData service is served under (components.OData): its one spelling in the server.
const odataMount = "/odata"

// publicPaths need no token whatever the method, so a wrong method on them is a 405, not a 401; so do the
// paths below docsPath.
var publicPaths = map[string]bool{"/healthz": true, livePath: true, readyPath: true, "/api/token": true,
	openAPIPath: true, docsPath: true}

// The health checks besides /healthz: liveness (the process serves) and readiness (its database answers too).
const (
	livePath  = "/healthz/live"
	readyPath = "/healthz/ready"
)

func isPublic(path string) bool { return publicPaths[path] || strings.HasPrefix(path, docsPath+"/") }

// routes lists every route of the service on r; metrics, when not nil, serves /metrics to admins.
func routes(r *mux.Router, logger *slog.Logger, c *components, metrics http.Handler) error {
	token := requireToken(c.Auth, logger)
	admin := requireAdmin(logger)

	r.Handle("/healthz", handleHealthz()).Methods(http.MethodGet, http.MethodHead)
	r.Handle(livePath, handleHealthz()).Methods(http.MethodGet, http.MethodHead)
	r.Handle(readyPath, handleReady(c.Ready, logger)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/api/token", handleLogin(c.Auth, logger)).Methods(http.MethodPost)
	r.Handle("/api/token/revoke", token(handleRevoke(c.Auth, logger))).Methods(http.MethodPost)
	if c.OData != nil {
		// The API documentation holds no data: no token (see openapi.go).
		r.Handle(openAPIPath, stripPrefix(odataMount, c.OData)).Methods(http.MethodGet, http.MethodHead)
		docs := docsHandler()
		r.Handle(docsPath, docs).Methods(http.MethodGet, http.MethodHead)
		r.PathPrefix(docsPath+"/").Handler(docs).Methods(http.MethodGet, http.MethodHead)
		h := token(admin(stripPrefix(odataMount, c.OData)))
		r.Handle(odataMount, h)
		r.PathPrefix(odataMount + "/").Handler(h)
	}
	if metrics != nil {
		// Every path but the public ones of SPEC part 2 needs a token; the metrics are the operator's.
		r.Handle(metricsPath, token(admin(metrics))).Methods(http.MethodGet, http.MethodHead)
	}
	sr := &muxRouter{r: r, wrap: token}
	if c.Storefront != nil {
		c.Storefront(sr)
		if sr.err != nil {
			return sr.err
		}
	}
	r.NotFoundHandler = token(notFound(logger))
	r.MethodNotAllowedHandler = methodNotAllowed(r, sr.public, token, logger)
	return nil
}

// muxRouter registers a component's routes on a gorilla/mux router, behind a middleware (but the public ones).
type muxRouter struct {
	r      *mux.Router
	wrap   func(http.Handler) http.Handler
	public []*mux.Route // the routes of HandlePublic
	err    error
}

func (m *muxRouter) Handle(method, pattern string, h http.Handler) {
	m.handle(method, pattern, m.wrap(withPathValues(h)))
}

func (m *muxRouter) HandlePublic(method, pattern string, h http.Handler) {
	m.public = append(m.public, m.handle(method, pattern, withPathValues(h))...)
}

func (m *muxRouter) handle(method, pattern string, h http.Handler) []*mux.Route {
	if m.err != nil {
		return nil
	}
	if !strings.HasPrefix(pattern, "/") {
		m.err = fmt.Errorf("route %s %s: the pattern must start with /", method, pattern)
		return nil
	}
	methods := []string{method}
	if method == http.MethodGet {
		methods = append(methods, http.MethodHead)
	}
	patterns := []string{pattern}
	if len(pattern) > 1 && strings.HasSuffix(pattern, "/") {
		patterns = append(patterns, strings.TrimSuffix(pattern, "/"))
	}
	var added []*mux.Route
	for _, p := range patterns {
		route := m.r.Handle(p, h).Methods(methods...)
		if err := route.GetError(); err != nil {
			m.err = fmt.Errorf("route %s %s: %w", method, pattern, err)
			return nil
		}
		added = append(added, route)
	}
	return added
}

// withPathValues copies the route variables into the request, for r.PathValue.
func withPathValues(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range mux.Vars(r) {
			r.SetPathValue(k, v)
		}
		h.ServeHTTP(w, r)
	})
}

// stripPrefix serves h with the one-segment prefix removed from the path ("/odata/Product" -> "/Product",
// "/odata" -> "/"), keeping the encoded form of the rest (RawPath), which OData key literals depend on.
func stripPrefix(prefix string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u := *r.URL
		u.Path = strings.TrimPrefix(u.Path, prefix)
		if u.RawPath != "" {
			first, rest := u.RawPath, ""
			if i := strings.IndexByte(u.RawPath[1:], '/'); i >= 0 {
				first, rest = u.RawPath[:i+1], u.RawPath[i+1:]
			}
			if dec, err := url.PathUnescape(first); err == nil && dec == prefix {
				u.RawPath = rest
			} else {
				u.RawPath = ""
			}
		}
		if u.Path == "" {
			u.Path, u.RawPath = "/", ""
		}
		r2 := new(http.Request)
		*r2 = *r
		r2.URL = &u
		h.ServeHTTP(w, r2)
	})
}

// handleHealthz answers 200 {"status":"ok"} while the process serves: the liveness check (/healthz and
// /healthz/live), which asks nothing of the database, so that a database fault does not get the process
// restarted. While draining, the middleware answers 503 before it.
func handleHealthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
}

// readyTimeout bounds the readiness check's question to the database.
const readyTimeout = 2 * time.Second

// handleReady answers 200 {"status":"ok"} when ready (nil) answers nil within readyTimeout, and otherwise its
// error as odata.WriteError renders it: 503 DatabaseUnavailable with Retry-After when the database cannot be
// reached (a fault of the database answers with its own code). A nil ready is always ready.
func handleReady(ready func(ctx context.Context) error, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if ready != nil {
			ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
			err := ready(ctx)
			cancel()
			if err != nil {
				if r.Context().Err() == nil && sqldb.FaultOf(err) == sqldb.ErrOther {
					// Whatever kept the database from answering in time, the node is not ready.
					err = &sqldb.Fault{Class: sqldb.ErrUnavailable, Err: err}
				}
				odata.WriteError(w, r, logger, err)
				return
			}
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
}

func notFound(logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		odata.WriteError(w, r, logger, odata.NotFound("No resource matches the path "+r.URL.Path+"."))
	})
}

// methodNotAllowed answers 405 with the Allow header listing the methods of the routes on the path. Outside the
// public paths and routes it needs a token first, like any other answer about a protected path.
func methodNotAllowed(r *mux.Router, public []*mux.Route, token func(http.Handler) http.Handler, logger *slog.Logger) http.Handler {
	answer := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		allow := allowedMethods(r, req)
		odata.WriteError(w, req, logger, &odata.Error{Code: odata.CodeMethodNotAllowed,
			Message: fmt.Sprintf("The method %s is not allowed on %s; allowed: %s.", req.Method, req.URL.Path, allow),
			Header:  http.Header{"Allow": {allow}}})
	})
	protected := token(answer)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if isPublic(req.URL.Path) || matchesPath(public, req) {
			answer.ServeHTTP(w, req)
			return
		}
		protected.ServeHTTP(w, req)
	})
}

// matchesPath reports whether one of the routes matches req's path, whatever its method.
func matchesPath(routes []*mux.Route, req *http.Request) bool {
	for _, route := range routes {
		var m mux.RouteMatch
		if route.Match(req, &m) || m.MatchErr == mux.ErrMethodMismatch {
			return true
		}
	}
	return false
}

// allowedMethods returns the methods of every route that matches req but for its method, comma-separated.
func allowedMethods(r *mux.Router, req *http.Request) string {
	var list []string
	seen := map[string]bool{}
	_ = r.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		var m mux.RouteMatch
		if !route.Match(req, &m) && m.MatchErr != mux.ErrMethodMismatch {
			return nil
		}
		methods, err := route.GetMethods()
		if err != nil {
			return nil
		}
		for _, meth := range methods {
			if !seen[meth] {
				seen[meth] = true
				list = append(list, meth)
			}
		}
		return nil
	})
	return strings.Join(list, ", ")
}

package odata

import (
	"net/http"
	"strings"

	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

// PositionCookie is the cookie by which a client reads its own writes when the database has read replicas
// (sqldb.DB.Replicate): a request that commits answers with it (the primary's position after the commit, kept for
// as long as a replica may lag), and the client's next requests, which send it back, read a replica only once it
// has replayed that position. A client without cookies reads its writes on the next requests only after the
// replicas' lag.
const PositionCookie = "db-position"

// ReadYourWrites serves next with a session for reading one's own writes (sqldb.WithSession) that starts at the
// request's PositionCookie, and answers with the cookie when the request committed on a database with replicas.
// The Service does it for its own requests; wrap the other handlers that write to the same database with it (the
// store's server wraps all of its routes), so that the client's next reads through the Service see those writes
// too. Within a request that already has a session, it only serves next.
func ReadYourWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var token string
		if c, err := r.Cookie(PositionCookie); err == nil {
			token = c.Value
		}
		ctx, fresh := sqldb.WithSession(r.Context(), token)
		if !fresh {
			next.ServeHTTP(w, r)
			return
		}
		r = r.WithContext(ctx)
		next.ServeHTTP(&positionWriter{ResponseWriter: w, r: r}, r)
	})
}

// positionWriter adds the PositionCookie to the answer's header when it is written, if the request committed by
// then.
type positionWriter struct {
	http.ResponseWriter
	r       *http.Request
	written bool
}

func (pw *positionWriter) WriteHeader(code int) {
	if !pw.written {
		pw.written = true
		if token, keep := sqldb.SessionToken(pw.r.Context()); token != "" {
			http.SetCookie(pw.ResponseWriter, &http.Cookie{Name: PositionCookie, Value: token, Path: "/",
				MaxAge: int((keep + 999_999_999) / 1_000_000_000), HttpOnly: true, Secure: pw.r.TLS != nil,
				SameSite: http.SameSiteLaxMode})
		}
	}
	pw.ResponseWriter.WriteHeader(code)
}

func (pw *positionWriter) Write(b []byte) (int, error) {
	if !pw.written {
		pw.WriteHeader(http.StatusOK)
	}
	return pw.ResponseWriter.Write(b)
}

// Flush sends what was written, as http.Flusher does, when the writer below can.
func (pw *positionWriter) Flush() {
	if !pw.written {
		pw.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(pw.ResponseWriter).Flush()
}

// Unwrap returns the writer below, for http.ResponseController.
func (pw *positionWriter) Unwrap() http.ResponseWriter { return pw.ResponseWriter }

// readsChanges reports whether r reads or starts a delta link: a $deltatoken in its query, or Prefer:
// odata.track-changes.
func readsChanges(r *http.Request) bool {
	if strings.Contains(r.URL.RawQuery, "deltatoken") {
		if _, found, err := syntax.SplitQuery(r.URL.RawQuery).Lookup("$deltatoken"); found || err != nil {
			return true
		}
	}
	return len(r.Header["Prefer"]) > 0 && parsePrefer(r.Header).trackChanges
}

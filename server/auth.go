package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/storefront"
)

// authenticator issues, checks and revokes bearer tokens. Its errors are *odata.Error values with their status
// (400 InvalidCredentials, 429 with Retry-After, 503 with Retry-After when too many password checks are
// running, 401 for an unknown, expired or revoked token) and are answered as they are; any other error is a 500.
type authenticator interface {
	// Login checks the credentials and issues a token. Credentials.Client is the address the request comes
	// from, behind trusted proxies the one they forwarded.
	Login(ctx context.Context, c credentials) (token, error)
	// Authenticate returns the customer a token belongs to.
	Authenticate(ctx context.Context, accessToken string) (principal, error)
	// Revoke makes the token unusable.
	Revoke(ctx context.Context, accessToken string) error
}

// forgetter is an authenticator that caches checks (entities.Auth with a CacheTTL): requireToken calls Forget
// after every request that may revoke a token (mayRevoke), so a revocation it made is seen by the next check on
// this node.
type forgetter interface {
	Forget()
}

// token is an issued bearer token: AccessToken, the opaque token the client sends as "Authorization: Bearer
// <token>", and ExpiresIn, the time left until it expires.
type token = entities.Token

// credentials are what a sign-in presents: the e-mail, the password and the client's address.
type credentials = entities.Credentials

// principal is the customer a request acts for; Admin is true for members of the Administrators role.
type principal = entities.Principal

type principalKey struct{}

func withPrincipal(ctx context.Context, p principal) context.Context {
	ctx = context.WithValue(ctx, principalKey{}, p)
	return storefront.WithCustomer(ctx, p.CustomerID, p.Email)
}

func principalFrom(ctx context.Context) (principal, bool) {
	p, ok := ctx.Value(principalKey{}).(principal)
	return p, ok
}

// maxTokenLen bounds the bearer token; real tokens are far shorter.
const maxTokenLen = 1024

func unauthorized(message string) *odata.Error {
	return &odata.Error{Code: odata.CodeUnauthorized, Message: message,
		Header: http.Header{"Www-Authenticate": {"Bearer"}}}
}

// bearerToken returns the token of the request's Authorization header, or a 401 error when it is missing or not
// "Bearer <b64token>" (RFC 6750 section 2.1).
func bearerToken(h http.Header) (string, error) {
	vs := h.Values("Authorization")
	if len(vs) == 0 {
		return "", unauthorized("A bearer token is required: send the header \"Authorization: Bearer <token>\".")
	}
	malformed := unauthorized("The Authorization header must be \"Bearer <token>\".")
	if len(vs) > 1 {
		return "", malformed
	}
	scheme, tok, ok := strings.Cut(vs[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", malformed
	}
	tok = strings.TrimLeft(tok, " ")
	if !isB64Token(tok) {
		return "", malformed
	}
	return tok, nil
}

// isB64Token reports whether s is a b64token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	if s == "" || len(s) > maxTokenLen {
		return false
	}
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}

// requireToken lets a request through only with a valid bearer token, and puts its Principal (and the storefront
// customer) into the request context.
func requireToken(auth authenticator, logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tok, err := bearerToken(r.Header)
			if err != nil {
				odata.WriteError(w, r, logger, err)
				return
			}
			p, err := auth.Authenticate(r.Context(), tok)
			if err != nil {
				odata.WriteError(w, r, logger, withChallenge(err))
				return
			}
			if f, ok := auth.(forgetter); ok && mayRevoke(r) {
				fw := &forgetOnAnswer{ResponseWriter: w, forget: f.Forget}
				defer fw.forgetOnce()
				w = fw
			}
			next.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), p)))
		})
	}
}

// forgetOnAnswer calls forget once, before the first byte of the answer goes out (a handler writes its answer
// after its transaction committed, so a client that has the answer never meets a check made before the commit),
// and at the latest when the handler returns.
type forgetOnAnswer struct {
	http.ResponseWriter
	forget func()
	done   bool
}

func (f *forgetOnAnswer) forgetOnce() {
	if !f.done {
		f.done = true
		f.forget()
	}
}

func (f *forgetOnAnswer) WriteHeader(code int) {
	f.forgetOnce()
	f.ResponseWriter.WriteHeader(code)
}

func (f *forgetOnAnswer) Write(b []byte) (int, error) {
	f.forgetOnce()
	return f.ResponseWriter.Write(b)
}

// Flush sends buffered data to the client (for streaming answers).
func (f *forgetOnAnswer) Flush() {
	f.forgetOnce()
	_ = http.NewResponseController(f.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (f *forgetOnAnswer) Unwrap() http.ResponseWriter { return f.ResponseWriter }

// mayRevoke reports whether a request may revoke a token or take a right from a customer: any request that may
// write (every method but GET, HEAD and OPTIONS) outside the OData service, whose writes that may call Forget
// themselves once they commit (entities.Options.PrincipalChanged).
func mayRevoke(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return !odataPath(r.URL.Path)
}

// withChallenge adds "WWW-Authenticate: Bearer" to a 401 error that lacks it, without changing err itself (it
// may be shared).
func withChallenge(err error) error {
	var e *odata.Error
	if !errors.As(err, &e) || e.Code != odata.CodeUnauthorized || e.Header.Get("WWW-Authenticate") != "" {
		return err
	}
	c := *e
	c.Header = e.Header.Clone()
	if c.Header == nil {
		c.Header = http.Header{}
	}
	c.Header.Set("WWW-Authenticate", "Bearer")
	return &c
}

// requireAdmin answers 403 unless the request's principal is an admin. It runs after requireToken.
func requireAdmin(logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p, ok := principalFrom(r.Context()); !ok || !p.Admin {
				odata.WriteError(w, r, logger, odata.Forbidden("Administrator rights are required."))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// handleLogin serves POST /api/token: {"email", "password"} -> {"access_token", "token_type", "expires_in"}.
func handleLogin(auth authenticator, logger *slog.Logger) http.Handler {
	type request struct {
		Email    *string `json:"email"`
		Password *string `json:"password"`
	}
	type response struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req request
		if err := decodeJSON(r, &req); err != nil {
			odata.WriteError(w, r, logger, err)
			return
		}
		var missing []odata.ErrorDetail
		if req.Email == nil || *req.Email == "" {
			missing = append(missing, odata.ErrorDetail{Code: odata.CodeRequired, Target: "email", Message: "The e-mail is required."})
		}
		if req.Password == nil || *req.Password == "" {
			missing = append(missing, odata.ErrorDetail{Code: odata.CodeRequired, Target: "password", Message: "The password is required."})
		}
		if len(missing) > 0 {
			odata.WriteError(w, r, logger, odata.ValidationError(missing...))
			return
		}
		tok, err := auth.Login(r.Context(), credentials{Email: *req.Email, Password: *req.Password,
			Client: clientAddrFrom(r.Context())})
		if err != nil {
			odata.WriteError(w, r, logger, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Pragma", "no-cache")
		writeJSON(w, http.StatusOK, response{AccessToken: tok.AccessToken, TokenType: "Bearer",
			ExpiresIn: int64(tok.ExpiresIn / time.Second)})
	})
}

// handleRevoke serves POST /api/token/revoke: it revokes the token the request carries (logout). It runs after
// requireToken, so the header is known to be well-formed.
func handleRevoke(auth authenticator, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, err := bearerToken(r.Header)
		if err == nil {
			err = auth.Revoke(r.Context(), tok)
		}
		if err != nil {
			odata.WriteError(w, r, logger, withChallenge(err))
			return
		}
		writeJSON(w, http.StatusOK, map[string]bool{"success": true})
	})
}

// decodeJSON reads one JSON object from a request with Content-Type application/json into v. Its errors are
// *odata.Error values: 415 for another media type, 400 for a body that is not one valid JSON object or has a
// field of the wrong type (with that field as target), and the 413 of the body limit.
func decodeJSON(r *http.Request, v any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return odata.Errorf(odata.CodeUnsupportedMediaType,
			"The request body must be JSON with Content-Type application/json.")
	}
	dec := json.NewDecoder(r.Body)
	err = dec.Decode(v)
	if err == nil {
		if dec.Decode(&json.RawMessage{}) != io.EOF {
			err = errors.New("data after the JSON object")
		}
	}
	if err == nil {
		return nil
	}
	var limit *odata.Error
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &limit):
		return limit
	case errors.Is(err, io.EOF):
		return odata.BadRequest(odata.CodeInvalidJSON, "", "The request body is empty; a JSON object is required.")
	case errors.As(err, &typ) && typ.Field != "":
		return odata.BadRequest(odata.CodeTypeMismatch, typ.Field, "The field "+typ.Field+" must be a JSON "+jsonKind(typ.Type.Kind().String())+".")
	case errors.As(err, &typ):
		return odata.BadRequest(odata.CodeInvalidJSON, "", "The request body must be a JSON object.")
	}
	return &odata.Error{Code: odata.CodeInvalidJSON,
		Message: "The request body is not valid JSON: " + strings.TrimPrefix(err.Error(), "json: ") + ".", Err: err}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "struct", "map":
		return "object"
	case "slice", "array":
		return "array"
	}
	return "number"
}

// writeJSON writes v as a JSON answer with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only the server's own answer types are written here
	}
	b = append(b, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

package storefront

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/sqldb"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFiles embed.FS

// Migrations is the storefront's schema (cart and wishlist lines, checkout state, shipping and payment methods
// with their seed rows), applied by migrate.Up after entities.Migrations, whose tables it references.
var Migrations = migrate.Source{Name: "storefront", FS: mustSub(migrationFiles, "migrations")}

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err)
	}
	return sub
}

// Config is what a Store is built from.
type Config struct {
	// DB is the store database, migrated with entities.Migrations and Migrations.
	DB *sqldb.DB
	// Logger receives the causes of 500 answers; nil means slog.Default().
	Logger *slog.Logger
	// CountriesEnabled makes addresses name a country (and a state where the country has states).
	CountriesEnabled bool
	// Now returns the current time; nil means time.Now. Prices (tier price dates), availability windows and
	// timestamps use it.
	Now func() time.Time
	// PublicURL is the absolute URL clients reach the server at (scheme, host, any path prefix), which the links
	// of queued e-mails start with; empty means the scheme and host of the request, for development.
	PublicURL string
}

// Store serves the storefront endpoints of SPEC parts 6 and 7 for the customer of each request. It keeps no
// state between requests: everything lives in the database, so several server nodes can share it. Its methods
// are safe for concurrent use.
type Store struct {
	db        *sqldb.DB
	builder   sq.StatementBuilderType // squirrel statements with the dialect's placeholders
	logger    *slog.Logger
	countries bool
	now       func() time.Time
	publicURL string
}

// New returns a Store on cfg.DB.
func New(cfg Config) *Store {
	s := &Store{db: cfg.DB, builder: sqldb.Builder(cfg.DB.Dialect()), logger: cfg.Logger,
		countries: cfg.CountriesEnabled, now: cfg.Now, publicURL: strings.TrimRight(cfg.PublicURL, "/")}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Router is where Register adds the routes: the server's router, which keeps this package free of any router
// package.
type Router interface {
	// Handle serves requests with the method on the path pattern. Patterns match case-sensitively; a {name}
	// segment matches one non-empty path segment, which the handler reads with r.PathValue(name). A pattern
	// ending in "/" also matches without that slash; a GET route also answers HEAD. Every route needs a bearer
	// token: the handler reads its customer with CustomerFrom.
	Handle(method, pattern string, h http.Handler)
	// HandlePublic is Handle for a route that needs no bearer token (such as a link in an e-mail, which carries
	// its own proof); a wrong method on its path is a 405 without a token too.
	HandlePublic(method, pattern string, h http.Handler)
}

// Register adds every storefront route to r.
func (s *Store) Register(r Router) {
	get, post := http.MethodGet, http.MethodPost
	for _, rt := range []struct {
		method, pattern string
		h               handlerFunc
	}{
		{get, "/cart", s.getCart(cartList)},
		{get, "/wishlist", s.getCart(wishList)},
		{get, "/Component/Index", s.component},
		{post, "/addproducttocart/details/{productId}/{shoppingCartTypeId}", s.addToCart(true)},
		{post, "/addproducttocart/catalog/{productId}/{shoppingCartTypeId}", s.addToCart(false)},
		{post, "/updatecartitem/{itemId}", s.updateCartItem},
		{post, "/deletecartitem/{itemId}", s.deleteCartItem},
		{get, "/account/info", s.accountInfo},
		{get, "/account/addresses", s.accountAddresses},
		{get, "/order/history", s.orderHistory},
		{get, "/orderdetails/{orderId}", s.orderDetails},
		{post, "/subscribenewsletter", s.subscribeNewsletter},
		{post, "/checkout/SaveShipping/", s.saveShipping},
		{post, "/checkout/SaveBilling/", s.saveBilling},
		{post, "/checkout/SaveShippingMethod/", s.saveShippingMethod},
		{post, "/checkout/SavePaymentMethod/", s.savePaymentMethod},
		{post, "/checkout/SavePaymentInfo/", s.savePaymentInfo},
		{post, "/checkout/ConfirmOrder/", s.confirmOrder},
	} {
		r.Handle(rt.method, rt.pattern, s.serve(rt.h))
	}
	r.HandlePublic(get, activationPath+"{token}/{active}", s.servePublic(s.activateSubscription))
}

// handlerFunc serves one request for a customer and returns the JSON answer (200) or an error.
type handlerFunc func(r *http.Request, c customer) (any, error)

// serve adapts h: it reads the customer of the request, refuses a path or query string that is not text (see
// checkText), writes h's answer as JSON, and renders h's error with odata.WriteError.
func (s *Store) serve(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, email, ok := CustomerFrom(r.Context())
		if !ok || id == "" {
			odata.WriteError(w, r, s.logger, &odata.Error{Code: odata.CodeUnauthorized,
				Message: "An access token is required.", Header: http.Header{"Www-Authenticate": {"Bearer"}}})
			return
		}
		if err := checkURLText(r); err != nil {
			odata.WriteError(w, r, s.logger, err)
			return
		}
		v, err := h(r, customer{id: id, email: email})
		if err != nil {
			odata.WriteError(w, r, s.logger, err)
			return
		}
		writeJSON(w, v)
	})
}

// servePublic adapts a handler of a route without a bearer token as serve does.
func (s *Store) servePublic(h func(r *http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkURLText(r); err != nil {
			odata.WriteError(w, r, s.logger, err)
			return
		}
		v, err := h(r)
		if err != nil {
			odata.WriteError(w, r, s.logger, err)
			return
		}
		writeJSON(w, v)
	})
}

// contentTypeJSON is the media type of the storefront's answers.
const contentTypeJSON = "application/json; charset=utf-8"

func writeJSON(w http.ResponseWriter, v any) {
	h := w.Header()
	h.Set("Content-Type", contentTypeJSON)
	h.Set("Cache-Control", "no-store") // answers are personal
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// inTx runs fn in a transaction and commits when fn returns nil, retrying by the policy of sqldb.RunTx; when
// the database stays busy the error wraps sqldb.ErrBusy, which odata.WriteError answers 503 as it does for the
// OData writes. A unique violation (that is not already an answer) is retried too: here it means that a
// concurrent transaction inserted the same row first (a cart line, a checkout state, a subscription), and the
// next attempt finds that row.
func (s *Store) inTx(ctx context.Context, fn func(tx *sqldb.Tx) error) error {
	return sqldb.RunTx(ctx, s.db, func(tx *sqldb.Tx) error {
		if err := fn(tx); err != nil {
			return s.retryInsertRace(err)
		}
		return nil
	})
}

// retryInsertRace marks a unique violation that is not already an answer for a retry (see inTx).
func (s *Store) retryInsertRace(err error) error {
	var answer *odata.Error
	if !errors.As(err, &answer) && s.db.Dialect().ClassifyError(err) == sqldb.ErrUniqueViolation {
		return sqldb.Retry(err)
	}
	return err
}

// timeArg returns t as the store's dialect stores a DateTimeOffset.
func (s *Store) timeArg(t time.Time) any { return sqldb.TimeArg(s.db.Dialect(), t) }

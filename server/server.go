// Package server runs the store service: it reads the configuration, binds the listen address, opens the
// database and migrates it, seeds a new database, and serves the OData administration API under /odata/ and the
// storefront endpoints behind one HTTP handler until its context is cancelled; then it drains and closes the
// database.
//
// # Start and stop
//
// The listen address is bound first, before the database is opened: a busy port fails the start before any
// migration or seed ran, so the admin password a first start generates is logged by the start that serves. When
// the context is cancelled (SIGINT, SIGTERM) the server drains: the listener stays open and every new request,
// /healthz included, answers 503 ServiceUnavailable with the error body, Retry-After and Connection: close (a
// load balancer takes the node out; a client retries elsewhere), while the requests already running finish,
// for at most config.ShutdownTimeout; then the listener and the connections close and Run returns nil.
//
// # Requests
//
// A request passes, outermost first: the request id (X-Request-Id: an incoming one when it is sane, else a new
// one; on every answer, errors included), the security headers (X-Content-Type-Options: nosniff and
// Cache-Control: no-store on every answer), the client behind trusted proxies (see below), the request's span
// and its duration metric (telemetry.go) and the request log (one slog line with client, method, path, query
// (the raw query string), status, error_code (the code of an error answer), duration_ms, bytes, request_id and
// the trace_id and span_id of the request's span; the token of a newsletter confirmation link is redacted), panic
// recovery (500 InternalError; the panic and its stack only in the log), 503 ServiceUnavailable once draining,
// the URL limit (16 KiB: 414 URITooLong) and the body limit outside /odata (1 MiB: 413 PayloadTooLarge; the
// OData service holds its bodies to the same 1 MiB, 16 MiB for Picture, by its own limits), then the routes. Every route but the health checks (/healthz and /healthz/live: the process serves;
// /healthz/ready: its database answers too, else 503 with Retry-After), POST /api/token, the API documentation (GET
// /odata/$openapi and the page /docs, see openapi.go) and the storefront's public routes (storefront.Router.HandlePublic:
// the newsletter confirmation link) needs a bearer token (401 with WWW-Authenticate: Bearer); /odata/ and
// /metrics (Prometheus text format, see telemetry.go) need an admin (403).
//
// # Proxies and absolute URLs
//
// The client of a request is the connection's remote address. Only when that address is one of
// config.TrustedProxies are X-Forwarded-For (the client: the right-most entry that is not a trusted proxy),
// X-Forwarded-Host (r.Host) and X-Forwarded-Proto (r.URL.Scheme) honoured; from anyone else they are removed
// unread. Absolute URLs in answers (@odata.context, next links, Location, OData-EntityId) and in queued e-mails
// start with config.PublicURL; without one, with the request's scheme and host, which is for development only.
//
// # Sign-in
//
// POST /api/token passes the e-mail, the password and the client address to the authenticator (entities.Auth),
// which bounds the password checks running at once (503 with Retry-After when they stay busy) and throttles
// failures per e-mail and address and per address (429 with Retry-After).
//
// Handlers of the components render errors with odata.WriteError, and pass an error of reading the body to it
// as is (or wrapped with %w): past the limit that error is the 413 *odata.Error. Storefront handlers read their
// customer with storefront.CustomerFrom and their path variables with r.PathValue.
package server

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/gorilla/mux"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
	"github.com/storekit/store/storefront"
)

// Server timeouts of SPEC part 9.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 120 * time.Second
)

// wiring is what the store's components are built from.
type wiring struct {
	// DB is the open database, with its dialect; the schema is not migrated yet when the components are built.
	DB *sqldb.DB
	// Config is the service's configuration (admin e-mail and password, demo, token TTL, countries...).
	Config config
	// Logger is the service's logger; records logged with a request's context carry its request id, and its
	// trace and span ids when the request is traced.
	Logger *slog.Logger
	// TracerProvider and MeterProvider are the providers the components report to (odata.Config's); no-op ones
	// when the server exports no trace or reads no metric.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
}

// components are the parts of the store that Run serves. Only Auth is required; a nil OData or Storefront
// leaves its paths unrouted (404).
type components struct {
	// Migrations are applied in order at start-up, before Seed.
	Migrations []migrate.Source
	// CheckSchema, when not nil, runs after the migrations: it compares the database with what the components
	// need (odata/schema.Check), and an error stops the start.
	CheckSchema func(ctx context.Context) error
	// Seed runs after the migrations, before the service listens: on a new database it creates the reference
	// data and the admin (and the demo catalog); later it changes nothing. When it generated the admin's
	// password it returns it, and Run logs it once.
	Seed func(ctx context.Context) (generatedAdminPassword string, err error)
	// OData serves the OData service, mounted under /odata: it sees paths with "/odata" removed ("/", "/$metadata",
	// "/Product('1')"). Only admins reach it.
	OData http.Handler
	// Storefront registers the storefront routes of SPEC parts 6 and 7.
	Storefront func(r storefront.Router)
	// Auth issues and checks bearer tokens.
	Auth authenticator
	// Ready, when not nil, answers /healthz/ready: nil when the database answers.
	Ready func(ctx context.Context) error
}

// wireFunc builds the components on the open database. It must not query the schema: migrations run after it
// returns (components.Seed runs after them).
type wireFunc func(ctx context.Context, deps wiring) (*components, error)

// Run runs the store service with the given command-line arguments (args[0] is the program name) and
// environment, printing "listening on http://ADDR" to stdout when ready and logging to stderr, until ctx is
// cancelled. Then it drains in-flight requests, closes the database and returns nil. With -help it prints the
// help text to stdout and returns nil; a bad configuration or a failed start is an error.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return run(ctx, storeComponents, args, getenv, stdout, stderr)
}

func run(ctx context.Context, wire wireFunc, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	logger := newLogger(stderr, cfg.LogFormat)
	tel, err := newTelemetry(ctx, cfg)
	if err != nil {
		return err
	}
	defer shutdownTelemetry(ctx, logger, tel)

	// The port is bound before anything touches the database: a busy port fails the start before a migration
	// or the seed ran, so a generated admin password is printed only by a start that goes on to serve.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	defer ln.Close() // on a failed start; the server closes it otherwise (a second Close does nothing)

	db, err := openDB(cfg)
	if err != nil {
		return err
	}
	defer db.Close() // on a failed start; idempotent
	logger.Info("database open", "dialect", db.Dialect().Name(), "db", redactDB(cfg.DB))
	if cfg.PublicURL == "" {
		logger.Warn("no public URL configured (-public-url, STORE_PUBLIC_URL): absolute URLs in answers take the " +
			"request's Host header, which a client chooses; set it outside development")
	}

	c, err := wire(ctx, wiring{DB: db, Config: cfg, Logger: logger,
		TracerProvider: tel.tracerProvider(), MeterProvider: tel.meterProvider()})
	if err != nil {
		return startErr(ctx, fmt.Errorf("build the components: %w", err))
	}
	if c == nil || c.Auth == nil {
		return errors.New("build the components: no authenticator")
	}
	n, err := migrate.Up(ctx, db, c.Migrations...)
	if err != nil {
		return startErr(ctx, err)
	}
	if c.CheckSchema != nil {
		if err := c.CheckSchema(ctx); err != nil {
			return startErr(ctx, err)
		}
	}
	logger.Info("database schema up to date", "migrations_applied", n)
	if c.Seed != nil {
		pw, err := c.Seed(ctx)
		if err != nil {
			return startErr(ctx, fmt.Errorf("seed the database: %w", err))
		}
		if pw != "" {
			logger.Warn("created the admin with a generated password; it is shown only this once: log in and change it",
				"email", cfg.AdminEmail, "password", pw)
		}
	}

	gate := &drainGate{}
	h, err := newHandler(logger, c, gate, cfg, tel)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	addr := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "listening on %s\n", addr)
	logger.Info("listening", "addr", addr)

	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	drain(ctx, logger, srv, gate, cfg.ShutdownTimeout)
	<-serveErr
	if err := db.Close(); err != nil {
		logger.Warn("close the database", "err", err)
	}
	logger.Info("stopped")
	return nil
}

// drain shuts the server down gracefully. New requests answer 503 ServiceUnavailable (so does /healthz, which
// takes the node out of a load balancer) while the requests already running finish, for at most timeout; then
// the listener and the connections close. The listener stays open during the drain so that a client gets an
// answer it can act on, not a refused connection.
func drain(ctx context.Context, logger *slog.Logger, srv *http.Server, gate *drainGate, timeout time.Duration) {
	srv.SetKeepAlivesEnabled(false) // each connection closes after its current answer
	idle := gate.drain()
	logger.Info("draining in-flight requests; new requests answer 503", "timeout", timeout.String())
	deadline := time.Now().Add(timeout)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-idle:
		logger.Info("in-flight requests finished")
	case <-timer.C:
		logger.Warn("requests still running after the shutdown timeout; closing their connections")
		_ = srv.Close()
		return
	}
	// Only 503 answers can be running now; Shutdown closes the listener and the idle connections and waits for
	// them.
	sctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("connections still open after the shutdown timeout; closing them", "err", err)
		_ = srv.Close()
	}
}

// shutdownTelemetry exports the spans and metrics the providers still hold, for at most 5 seconds.
func shutdownTelemetry(ctx context.Context, logger *slog.Logger, tel *telemetry) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := tel.shutdown(sctx); err != nil {
		logger.Warn("telemetry not exported at shutdown", "err", err)
	}
}

// startErr returns nil when the start failed because ctx was cancelled (a signal during start-up), err otherwise.
func startErr(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil
	}
	return err
}

// newHandler returns the service's handler: the routes behind the middleware, outermost first: request id,
// security headers, the client and host behind trusted proxies, request span, log and metrics, panic recovery,
// 503 while draining, URL and body limits, the time budget, reading one's own writes (odata.ReadYourWrites: the
// storefront's commits, such as a checkout, count for the client's next reads through the OData service);
// authentication is per route.
func newHandler(logger *slog.Logger, c *components, gate *drainGate, cfg config, tel *telemetry) (http.Handler, error) {
	r := mux.NewRouter()
	r.SkipClean(true) // OData paths are not file paths: never redirect them
	r.Use(recordRoute)
	if err := routes(r, logger, c, tel.metrics); err != nil {
		return nil, err
	}
	var h http.Handler = r
	h = odata.ReadYourWrites(h)
	h = odata.WithTimeBudget(h, cfg.RequestBudget)
	h = limitRequests(logger)(h)
	h = rejectWhileDraining(gate, logger)(h)
	h = recoverPanics(logger)(h)
	h = logRequests(logger, tel)(h)
	h = fromProxies(cfg.TrustedProxies)(h)
	h = secureHeaders(h)
	h = withRequestID(h)
	return h, nil
}

// openDB opens the database that cfg.DB names.
func openDB(cfg config) (*sqldb.DB, error) {
	if cfg.Postgres() {
		db, err := postgres.Open(cfg.DB, cfg.Pool)
		if err != nil {
			return nil, fmt.Errorf("open PostgreSQL database %s: %w", redactDB(cfg.DB), err)
		}
		return db, nil
	}
	db, err := sqlite.Open(cfg.DB)
	if err != nil {
		return nil, fmt.Errorf("open SQLite database %s: %w", cfg.DB, err)
	}
	idle := cfg.Pool.MaxIdle
	if idle == 0 {
		idle = cfg.Pool.MaxOpen
	}
	db.SetMaxOpenConns(cfg.Pool.MaxOpen)
	db.SetMaxIdleConns(idle)
	return db, nil
}

// redactDB returns the database name for the log, without a password.
func redactDB(dsn string) string {
	if !isPostgresURL(dsn) {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://..."
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

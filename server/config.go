package server

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/postgres"
)

// config is the configuration of the service, read from flags and environment variables.
type config struct {
	// Addr is the listen address (host:port; port 0 picks a free port).
	Addr string
	// DB is a SQLite file path, or a postgres:// (postgresql://) URL that selects PostgreSQL.
	DB string
	// AdminEmail is the e-mail of the bootstrap admin created on first start.
	AdminEmail string
	// AdminPassword is the bootstrap admin's password; empty means a random one, logged once.
	AdminPassword string
	// Demo fills an empty catalog with the demo catalog on first start.
	Demo bool
	// TokenTTL is the lifetime of bearer tokens.
	TokenTTL time.Duration
	// TokenCacheTTL is how long a node reuses a token check without reading the database again: the bound on a
	// revocation made through another node (the node that revokes forgets at once). Zero checks every request.
	TokenCacheTTL time.Duration
	// CountriesEnabled makes addresses name a country (and a state where the country has states).
	CountriesEnabled bool
	// Pool holds the PostgreSQL connection pool settings (unused with SQLite).
	Pool postgres.Pool
	// ShutdownTimeout bounds how long in-flight requests may run after a shutdown signal.
	ShutdownTimeout time.Duration
	// RequestBudget is how long one request may run (SPEC part 9: 10 s): past it the request's SQL statement
	// is cancelled and it answers 503 TimeBudgetExceeded (odata.WithTimeBudget).
	RequestBudget time.Duration
	// LogFormat is "json" or "text".
	LogFormat string
	// PublicURL is the absolute URL clients reach the service at (scheme, host and any path prefix, without a
	// trailing slash), such as "https://shop.example.com". Every absolute URL in answers (@odata.context, next
	// links, Location, OData-EntityId, the links of queued e-mails) starts with it. Empty: the request's scheme
	// and Host, which a client chooses, so only for development.
	PublicURL string
	// TrustedProxies are the addresses (single IPs as /32 or /128 prefixes, or networks) of the reverse proxies
	// in front of the service. Only a request whose connection comes from one of them has its
	// X-Forwarded-For, X-Forwarded-Host and X-Forwarded-Proto headers honoured; anyone else's are removed.
	TrustedProxies []netip.Prefix
	// Metrics serves the metrics at /metrics in the Prometheus text format, for an administrator's token.
	Metrics bool
	// OTLP says which signals go to an OpenTelemetry collector, from the standard OTEL_* variables.
	OTLP otlpConfig
}

// Postgres reports whether DB names a PostgreSQL database.
func (c config) Postgres() bool { return isPostgresURL(c.DB) }

func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// option is one configuration setting: a flag and the environment variable of the same meaning.
type option struct {
	flag, env string
}

// options lists every setting in the order of the help text.
var options = []option{
	{"addr", "STORE_ADDR"},
	{"db", "STORE_DB"},
	{"admin-email", "STORE_ADMIN_EMAIL"},
	{"admin-password", "STORE_ADMIN_PASSWORD"},
	{"demo", "STORE_DEMO"},
	{"token-ttl", "STORE_TOKEN_TTL"},
	{"token-cache-ttl", "STORE_TOKEN_CACHE_TTL"},
	{"countries", "STORE_COUNTRIES_ENABLED"},
	{"db-max-open", "STORE_DB_MAX_OPEN"},
	{"db-max-idle", "STORE_DB_MAX_IDLE"},
	{"db-max-lifetime", "STORE_DB_MAX_LIFETIME"},
	{"db-replicas", "STORE_DB_REPLICAS"},
	{"db-replica-max-lag", "STORE_DB_REPLICA_MAX_LAG"},
	{"shutdown-timeout", "STORE_SHUTDOWN_TIMEOUT"},
	{"request-budget", "STORE_REQUEST_BUDGET"},
	{"log-format", "STORE_LOG_FORMAT"},
	{"public-url", "STORE_PUBLIC_URL"},
	{"trusted-proxies", "STORE_TRUSTED_PROXIES"},
	{"metrics", "STORE_METRICS"},
}

// parseConfig reads the configuration from args (args[0] is the program name) and getenv. A flag wins over its
// environment variable, which wins over the default. With -help it writes the help text to help and returns
// flag.ErrHelp. Every bad value is reported in one error.
func parseConfig(args []string, getenv func(string) string, help io.Writer) (config, error) {
	name := "storeserver"
	if len(args) > 0 {
		name = filepath.Base(args[0])
		args = args[1:]
	}
	c := config{
		Addr:             "127.0.0.1:8080",
		DB:               "store.db",
		AdminEmail:       "admin@example.com",
		Demo:             true,
		TokenTTL:         24 * time.Hour,
		TokenCacheTTL:    time.Second,
		CountriesEnabled: true,
		Pool: postgres.Pool{MaxOpen: 20, MaxLifetime: 30 * time.Minute,
			Replicas: postgres.Replicas{MaxLag: 5 * time.Second}},
		ShutdownTimeout: 30 * time.Second,
		RequestBudget:   odata.DefaultTimeBudget,
		LogFormat:       "json",
		Metrics:         true,
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.Addr, "addr", c.Addr, "listen `address` (host:port; port 0 picks a free port)")
	fs.StringVar(&c.DB, "db", c.DB, "SQLite database file `path`, or a postgres:// (postgresql://) URL that selects PostgreSQL")
	fs.StringVar(&c.AdminEmail, "admin-email", c.AdminEmail, "`e-mail` of the admin created on first start")
	fs.StringVar(&c.AdminPassword, "admin-password", "", "`password` of the admin created on first start, at least 8 characters\n(default: random, printed once to the log; prefer the environment variable to the flag)")
	fs.Var((*boolValue)(&c.Demo), "demo", "on first start, fill an empty catalog with a small demo catalog")
	fs.Var((*durationValue)(&c.TokenTTL), "token-ttl", "bearer token `lifetime`, at least 1s")
	fs.Var((*durationValue)(&c.TokenCacheTTL), "token-cache-ttl", "how long a node reuses a token check (`duration`, 0 to 1m): the most a revocation\nmade through another node takes to reach this one; 0 reads the database on every request")
	fs.Var((*boolValue)(&c.CountriesEnabled), "countries", "addresses must name a country (and a state where the country has states)")
	fs.Var((*intValue)(&c.Pool.MaxOpen), "db-max-open", "most open database connections of this process (`n` >= 1); on PostgreSQL with\nseveral server nodes the database sees up to nodes x n connections")
	fs.Var((*intValue)(&c.Pool.MaxIdle), "db-max-idle", "idle connections kept (`n`; 0: as many as -db-max-open, so a busy pool does not\nclose and reopen connections between requests)")
	fs.Var((*durationValue)(&c.Pool.MaxLifetime), "db-max-lifetime", "PostgreSQL: connections are recycled after this `duration`")
	fs.Var((*urlList)(&c.Pool.Replicas.URLs), "db-replicas", "PostgreSQL: comma-separated postgres:// `URLs` of streaming replicas that serve the reads of\nrequests that write nothing (docs/scaling.md)")
	fs.Var((*durationValue)(&c.Pool.Replicas.MaxLag), "db-replica-max-lag", "PostgreSQL: a replica further behind the primary than this `duration` serves no reads")
	fs.Var((*durationValue)(&c.ShutdownTimeout), "shutdown-timeout", "`duration` in-flight requests may run after SIGINT/SIGTERM (new ones answer 503 meanwhile)\nbefore their connections are closed")
	fs.Var((*durationValue)(&c.RequestBudget), "request-budget", "`duration` one request may run before its SQL is cancelled and it answers 503\n(at most the write timeout, 60s)")
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "log `format` on stderr: json or text")
	fs.StringVar(&c.PublicURL, "public-url", "", "absolute `URL` clients reach the service at, such as https://shop.example.com; absolute URLs\nin answers start with it (default: the request's scheme and Host header, for development only)")
	fs.Var((*prefixList)(&c.TrustedProxies), "trusted-proxies", "comma-separated `IPs or CIDRs` of the reverse proxies in front of the service, such as\n10.0.0.5,192.168.1.0/24; only their X-Forwarded-For/-Host/-Proto headers are honoured")
	fs.Var((*boolValue)(&c.Metrics), "metrics", "serve the metrics at /metrics in the Prometheus text format (an administrator's token)")
	fs.Usage = func() {} // the help text is written below, only when asked for

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(fs, help)
			return config{}, err
		}
		return config{}, fmt.Errorf("%v (run %s -help for the list of flags)", err, name)
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q (run %s -help for the list of flags)", fs.Arg(0), name)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	for _, o := range options {
		v := getenv(o.env)
		if set[o.flag] || v == "" {
			continue
		}
		if err := fs.Set(o.flag, v); err != nil {
			errs = append(errs, fmt.Errorf("invalid value %q for %s: %v", v, o.env, err))
		}
	}
	if len(errs) == 0 {
		errs = c.validate()
	}
	otlp, err := otlpFromEnv(getenv)
	if err != nil {
		errs = append(errs, err)
	}
	c.OTLP = otlp
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	if len(errs) > 0 {
		return config{}, fmt.Errorf("invalid configuration:\n\t%w", joinErrors(errs))
	}
	return c, nil
}

// validate returns one error per bad value.
func (c config) validate() []error {
	var errs []error
	bad := func(flagName, format string, args ...any) {
		env := ""
		for _, o := range options {
			if o.flag == flagName {
				env = o.env
			}
		}
		errs = append(errs, fmt.Errorf("-%s (%s): %s", flagName, env, fmt.Sprintf(format, args...)))
	}
	if problem := addrProblem(c.Addr); problem != "" {
		bad("addr", "%s", problem)
	}
	if problem := dbProblem(c.DB); problem != "" {
		bad("db", "%s", problem)
	}
	if a, err := mail.ParseAddress(c.AdminEmail); err != nil || a.Address != c.AdminEmail || a.Name != "" {
		bad("admin-email", "%q is not an e-mail address", c.AdminEmail)
	}
	if c.AdminPassword != "" && utf8.RuneCountInString(c.AdminPassword) < 8 {
		bad("admin-password", "must be at least 8 characters")
	}
	if c.TokenTTL < time.Second {
		bad("token-ttl", "%v is shorter than 1s", c.TokenTTL)
	}
	if c.TokenCacheTTL < 0 || c.TokenCacheTTL > time.Minute {
		bad("token-cache-ttl", "%v is not between 0 and 1m", c.TokenCacheTTL)
	}
	checkPool(c.Pool, bad)
	if len(c.Pool.Replicas.URLs) > 0 && !c.Postgres() {
		bad("db-replicas", "read replicas need a PostgreSQL -db")
	}
	if c.ShutdownTimeout <= 0 {
		bad("shutdown-timeout", "%v is not positive", c.ShutdownTimeout)
	}
	if c.RequestBudget <= 0 || c.RequestBudget > writeTimeout {
		bad("request-budget", "%v is not between 0 and the write timeout %v", c.RequestBudget, writeTimeout)
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		bad("log-format", "%q is neither json nor text", c.LogFormat)
	}
	if c.PublicURL != "" {
		if err := checkPublicURL(c.PublicURL); err != nil {
			bad("public-url", "%q: %v", c.PublicURL, err)
		}
	}
	return errs
}

// checkPool reports, through bad, each setting of the connection pool out of its range.
func checkPool(pool postgres.Pool, bad func(flagName, format string, args ...any)) {
	if pool.MaxOpen < 1 {
		bad("db-max-open", "%d is not at least 1", pool.MaxOpen)
	}
	if pool.MaxIdle < 0 || (pool.MaxOpen >= 1 && pool.MaxIdle > pool.MaxOpen) {
		bad("db-max-idle", "%d is not between 0 and -db-max-open (%d)", pool.MaxIdle, pool.MaxOpen)
	}
	if pool.MaxLifetime <= 0 {
		bad("db-max-lifetime", "%v is not positive", pool.MaxLifetime)
	}
	for _, u := range pool.Replicas.URLs {
		if !isPostgresURL(u) {
			bad("db-replicas", "%q is not a postgres:// URL", redactDB(u))
		} else if _, err := url.Parse(u); err != nil {
			bad("db-replicas", "not a valid URL: %v", errors.Unwrap(err))
		}
	}
	if pool.Replicas.MaxLag <= 0 {
		bad("db-replica-max-lag", "%v is not positive", pool.Replicas.MaxLag)
	}
}

// addrProblem says why addr cannot be the listen address, "" when it can.
func addrProblem(addr string) string {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Sprintf("%q is not host:port", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Sprintf("%q has no port number from 0 to 65535", addr)
	}
	return ""
}

// dbProblem says why db names no database the server can open, "" when it names one: a SQLite file path or a
// postgres:// URL.
func dbProblem(db string) string {
	switch {
	case db == "":
		return "a SQLite file path or a postgres:// URL is required"
	case isPostgresURL(db):
		if _, err := url.Parse(db); err != nil {
			return fmt.Sprintf("not a valid URL: %v", errors.Unwrap(err))
		}
	case strings.Contains(db, "://"):
		return "unsupported database URL (use a SQLite file path or a postgres:// URL)"
	case strings.HasPrefix(db, ":memory:") || strings.HasPrefix(db, "file:"):
		return fmt.Sprintf("%q: give a plain SQLite file path (an in-memory database would lose everything)", db)
	}
	return ""
}

// checkPublicURL reports why s cannot be the public URL: it must be an absolute http or https URL with a host,
// and nothing after the path.
func checkPublicURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return errors.Unwrap(err)
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("not an http:// or https:// URL")
	case u.Host == "":
		return errors.New("the URL has no host")
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return errors.New("give the scheme, host and path only (no user, query or fragment)")
	}
	return nil
}

// joinErrors joins errs with a newline and a tab, so each bad value is on its own indented line.
func joinErrors(errs []error) error {
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return errors.New(strings.Join(msgs, "\n\t"))
}

func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, `Usage: %s [flags]

Runs the store service: the OData v4 administration API under /odata/ and the storefront JSON endpoints,
on an embedded SQLite database or on PostgreSQL. Every flag has an environment variable of the same meaning;
the flag wins over the variable, the variable over the default. Boolean flags are turned off with -name=false
(variables: true/false, 1/0).

Flags:
`, fs.Name())
	fs.SetOutput(w)
	envOf := map[string]string{}
	for _, o := range options {
		envOf[o.flag] = o.env
	}
	for _, o := range options {
		f := fs.Lookup(o.flag)
		arg, text := flag.UnquoteUsage(f)
		line := "  -" + f.Name
		if arg != "" {
			line += " " + arg
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(text, "\n", "\n    \t"))
		def := f.DefValue
		if def == "" {
			def = "none"
		}
		if o.flag != "admin-password" && o.flag != "public-url" { // their text tells what happens without them
			fmt.Fprintf(w, "    \tenv %s, default %s\n", envOf[o.flag], def)
		} else {
			fmt.Fprintf(w, "    \tenv %s\n", envOf[o.flag])
		}
	}
	fmt.Fprintf(w, `
Telemetry: OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, _METRICS_ENDPOINT) sends traces
and metrics to an OpenTelemetry collector over OTLP/HTTP; the other OTEL_* variables apply (see docs/telemetry.md).

Signals: SIGINT and SIGTERM start a drain: new requests, /healthz included, answer 503 ServiceUnavailable while
the requests already running finish (for up to -shutdown-timeout); then the listener closes, the database closes
and the program exits with status 0.
`)
}

// boolValue is a bool flag whose parse error says what is accepted.
type boolValue bool

func (b *boolValue) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("not a boolean (use true or false)")
	}
	*b = boolValue(v)
	return nil
}

func (b *boolValue) String() string {
	if b == nil {
		return "false"
	}
	return strconv.FormatBool(bool(*b))
}

func (b *boolValue) IsBoolFlag() bool { return true }

// durationValue is a time.Duration flag whose parse error gives examples.
type durationValue time.Duration

func (d *durationValue) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration (examples: 24h, 90m, 30s)")
	}
	*d = durationValue(v)
	return nil
}

func (d *durationValue) String() string {
	if d == nil {
		return "0s"
	}
	s := time.Duration(*d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// intValue is an int flag whose parse error says what is accepted.
type intValue int

func (n *intValue) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not a whole number")
	}
	*n = intValue(v)
	return nil
}

func (n *intValue) String() string {
	if n == nil {
		return "0"
	}
	return strconv.Itoa(int(*n))
}

// prefixList is a comma-separated list of IP addresses and CIDR networks; an address is the network of just
// that address.
type prefixList []netip.Prefix

func (l *prefixList) Set(s string) error {
	var list []netip.Prefix
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if p, err := netip.ParsePrefix(item); err == nil {
			list = append(list, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil || a.Zone() != "" {
			return fmt.Errorf("%q is not an IP address or a CIDR network such as 10.0.0.0/8", item)
		}
		a = a.Unmap()
		list = append(list, netip.PrefixFrom(a, a.BitLen()))
	}
	*l = list
	return nil
}

func (l *prefixList) String() string {
	if l == nil {
		return ""
	}
	items := make([]string, len(*l))
	for i, p := range *l {
		items[i] = p.String()
		if p.IsSingleIP() {
			items[i] = p.Addr().String()
		}
	}
	return strings.Join(items, ",")
}

// urlList is a comma-separated list of URLs.
type urlList []string

func (l *urlList) Set(s string) error {
	var list []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			list = append(list, item)
		}
	}
	*l = list
	return nil
}

func (l *urlList) String() string {
	if l == nil {
		return ""
	}
	items := make([]string, len(*l))
	for i, u := range *l {
		items[i] = redactDB(u)
	}
	return strings.Join(items, ",")
}

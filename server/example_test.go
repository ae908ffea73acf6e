package server_test

import (
	"context"
	"fmt"
	"os"

	"github.com/storekit/store/server"
)

// Run is all a program needs: its arguments, its environment and its output. Here it prints the help text of
// the flags (each with its environment variable and default) instead of starting the service.
func ExampleRun() {
	noEnv := func(string) string { return "" }
	if err := server.Run(context.Background(), []string{"storeserver", "-help"}, noEnv, os.Stdout, os.Stderr); err != nil {
		fmt.Println(err)
	}
	// Output:
	// Usage: storeserver [flags]
	//
	// Runs the store service: the OData v4 administration API under /odata/ and the storefront JSON endpoints,
	// on an embedded SQLite database or on PostgreSQL. Every flag has an environment variable of the same meaning;
	// the flag wins over the variable, the variable over the default. Boolean flags are turned off with -name=false
	// (variables: true/false, 1/0).
	//
	// Flags:
	//   -addr address
	//     	listen address (host:port; port 0 picks a free port)
	//     	env STORE_ADDR, default 127.0.0.1:8080
	//   -db path
	//     	SQLite database file path, or a postgres:// (postgresql://) URL that selects PostgreSQL
	//     	env STORE_DB, default store.db
	//   -admin-email e-mail
	//     	e-mail of the admin created on first start
	//     	env STORE_ADMIN_EMAIL, default admin@example.com
	//   -admin-password password
	//     	password of the admin created on first start, at least 8 characters
	//     	(default: random, printed once to the log; prefer the environment variable to the flag)
	//     	env STORE_ADMIN_PASSWORD
	//   -demo
	//     	on first start, fill an empty catalog with a small demo catalog
	//     	env STORE_DEMO, default true
	//   -token-ttl lifetime
	//     	bearer token lifetime, at least 1s
	//     	env STORE_TOKEN_TTL, default 24h
	//   -token-cache-ttl duration
	//     	how long a node reuses a token check (duration, 0 to 1m): the most a revocation
	//     	made through another node takes to reach this one; 0 reads the database on every request
	//     	env STORE_TOKEN_CACHE_TTL, default 1s
	//   -countries
	//     	addresses must name a country (and a state where the country has states)
	//     	env STORE_COUNTRIES_ENABLED, default true
	//   -db-max-open n
	//     	most open database connections of this process (n >= 1); on PostgreSQL with
	//     	several server nodes the database sees up to nodes x n connections
	//     	env STORE_DB_MAX_OPEN, default 20
	//   -db-max-idle n
	//     	idle connections kept (n; 0: as many as -db-max-open, so a busy pool does not
	//     	close and reopen connections between requests)
	//     	env STORE_DB_MAX_IDLE, default 0
	//   -db-max-lifetime duration
	//     	PostgreSQL: connections are recycled after this duration
	//     	env STORE_DB_MAX_LIFETIME, default 30m
	//   -db-replicas URLs
	//     	PostgreSQL: comma-separated postgres:// URLs of streaming replicas that serve the reads of
	//     	requests that write nothing (docs/scaling.md)
	//     	env STORE_DB_REPLICAS, default none
	//   -db-replica-max-lag duration
	//     	PostgreSQL: a replica further behind the primary than this duration serves no reads
	//     	env STORE_DB_REPLICA_MAX_LAG, default 5s
	//   -shutdown-timeout duration
	//     	duration in-flight requests may run after SIGINT/SIGTERM (new ones answer 503 meanwhile)
	//     	before their connections are closed
	//     	env STORE_SHUTDOWN_TIMEOUT, default 30s
	//   -request-budget duration
	//     	duration one request may run before its SQL is cancelled and it answers 503
	//     	(at most the write timeout, 60s)
	//     	env STORE_REQUEST_BUDGET, default 10s
	//   -log-format format
	//     	log format on stderr: json or text
	//     	env STORE_LOG_FORMAT, default json
	//   -public-url URL
	//     	absolute URL clients reach the service at, such as https://shop.example.com; absolute URLs
	//     	in answers start with it (default: the request's scheme and Host header, for development only)
	//     	env STORE_PUBLIC_URL
	//   -trusted-proxies IPs or CIDRs
	//     	comma-separated IPs or CIDRs of the reverse proxies in front of the service, such as
	//     	10.0.0.5,192.168.1.0/24; only their X-Forwarded-For/-Host/-Proto headers are honoured
	//     	env STORE_TRUSTED_PROXIES, default none
	//   -metrics
	//     	serve the metrics at /metrics in the Prometheus text format (an administrator's token)
	//     	env STORE_METRICS, default true
	//
	// Telemetry: OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, _METRICS_ENDPOINT) sends traces
	// and metrics to an OpenTelemetry collector over OTLP/HTTP; the other OTEL_* variables apply (see docs/telemetry.md).
	//
	// Signals: SIGINT and SIGTERM start a drain: new requests, /healthz included, answer 503 ServiceUnavailable while
	// the requests already running finish (for up to -shutdown-timeout); then the listener closes, the database closes
	// and the program exits with status 0.
}

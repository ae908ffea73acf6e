package server

import (
	"bytes"
	"errors"
	"flag"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/postgres"
)

func defaultConfig() config {
	c, err := parseConfig([]string{"storeserver"}, func(string) string { return "" }, nil)
	if err != nil {
		panic(err)
	}
	return c
}

func TestParseConfig(t *testing.T) {
	def := defaultConfig()
	with := func(f func(c *config)) config {
		c := def
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want config
	}{
		{"Defaults", nil, nil, def},
		{"Flags", []string{"-addr", ":0", "-db", "/tmp/x.db", "-admin-email", "root@shop.test", "-admin-password",
			"correct horse", "-demo=false", "-token-ttl", "90m", "-token-cache-ttl", "0", "-countries=false", "-db-max-open", "5",
			"-db-max-idle", "2", "-db-max-lifetime", "1m", "-shutdown-timeout", "5s", "-request-budget", "3s",
			"-log-format", "text", "-metrics=false"}, nil,
			config{Addr: ":0", DB: "/tmp/x.db", AdminEmail: "root@shop.test", AdminPassword: "correct horse",
				Demo: false, TokenTTL: 90 * time.Minute, TokenCacheTTL: 0, CountriesEnabled: false,
				Pool: poolOf(5, 2, time.Minute), ShutdownTimeout: 5 * time.Second, RequestBudget: 3 * time.Second,
				LogFormat: "text"}},
		{"Env", nil, map[string]string{"STORE_ADDR": ":0", "STORE_DB": "postgres://u:p@db.test/store",
			"STORE_ADMIN_EMAIL": "root@shop.test", "STORE_ADMIN_PASSWORD": "correct horse", "STORE_DEMO": "false",
			"STORE_TOKEN_TTL": "1h", "STORE_TOKEN_CACHE_TTL": "250ms", "STORE_COUNTRIES_ENABLED": "0", "STORE_DB_MAX_OPEN": "7",
			"STORE_DB_MAX_IDLE": "7", "STORE_DB_MAX_LIFETIME": "2h", "STORE_SHUTDOWN_TIMEOUT": "1m",
			"STORE_REQUEST_BUDGET": "45s", "STORE_LOG_FORMAT": "text", "STORE_METRICS": "false",
			"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector.test:4318", "OTEL_METRICS_EXPORTER": "none",
			"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
			config{Addr: ":0", DB: "postgres://u:p@db.test/store", AdminEmail: "root@shop.test",
				AdminPassword: "correct horse", Demo: false, TokenTTL: time.Hour, TokenCacheTTL: 250 * time.Millisecond,
				CountriesEnabled: false,
				Pool:             poolOf(7, 7, 2*time.Hour), ShutdownTimeout: time.Minute, RequestBudget: 45 * time.Second,
				LogFormat: "text", OTLP: otlpConfig{Traces: true}}},
		{"OTLPSignalEndpoints", nil, map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://collector.test:4318/v1/metrics"},
			func() config { c := defaultConfig(); c.OTLP = otlpConfig{Metrics: true}; return c }()},
		{"OTLPDisabled", nil, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector.test:4318", "OTEL_SDK_DISABLED": "true"},
			defaultConfig()},
		{"FlagWinsOverEnv", []string{"-addr", "127.0.0.1:9000", "-demo=true", "-token-ttl", "2h"},
			map[string]string{"STORE_ADDR": "127.0.0.1:9999", "STORE_DEMO": "false", "STORE_TOKEN_TTL": "bogus"},
			with(func(c *config) { c.Addr = "127.0.0.1:9000"; c.TokenTTL = 2 * time.Hour })},
		{"EnvBesideFlags", []string{"-addr", "127.0.0.1:9000"}, map[string]string{"STORE_DEMO": "false"},
			with(func(c *config) { c.Addr = "127.0.0.1:9000"; c.Demo = false })},
		{"PostgresqlScheme", []string{"-db", "postgresql://localhost/store?sslmode=disable"}, nil,
			with(func(c *config) { c.DB = "postgresql://localhost/store?sslmode=disable" })},
		{"IPv6", []string{"-addr", "[::1]:8080"}, nil, with(func(c *config) { c.Addr = "[::1]:8080" })},
		{"ReplicasFlags", []string{"-db", "postgres://db.test/store", "-db-replicas",
			"postgres://r1.test/store, postgresql://r2.test/store?sslmode=disable", "-db-replica-max-lag", "2s"}, nil,
			with(func(c *config) {
				c.DB = "postgres://db.test/store"
				c.Pool.Replicas = postgres.Replicas{URLs: []string{"postgres://r1.test/store",
					"postgresql://r2.test/store?sslmode=disable"}, MaxLag: 2 * time.Second}
			})},
		{"ReplicasEnv", nil, map[string]string{"STORE_DB": "postgres://db.test/store",
			"STORE_DB_REPLICAS": "postgres://r1.test/store", "STORE_DB_REPLICA_MAX_LAG": "1m"},
			with(func(c *config) {
				c.DB = "postgres://db.test/store"
				c.Pool.Replicas = postgres.Replicas{URLs: []string{"postgres://r1.test/store"}, MaxLag: time.Minute}
			})},
		{"PublicURLAndProxiesFlags", []string{"-public-url", "https://shop.example.com/store/", "-trusted-proxies",
			" 10.0.0.5, 192.168.1.7/24,::1,2001:db8::/32,::ffff:10.1.2.3"}, nil,
			with(func(c *config) {
				c.PublicURL = "https://shop.example.com/store"
				c.TrustedProxies = prefixes("10.0.0.5/32", "192.168.1.0/24", "::1/128", "2001:db8::/32", "10.1.2.3/32")
			})},
		{"PublicURLAndProxiesEnv", nil, map[string]string{"STORE_PUBLIC_URL": "http://127.0.0.1:8080",
			"STORE_TRUSTED_PROXIES": "127.0.0.1"},
			with(func(c *config) {
				c.PublicURL = "http://127.0.0.1:8080"
				c.TrustedProxies = prefixes("127.0.0.1/32")
			})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseConfig(append([]string{"storeserver"}, tc.args...), mapEnv(tc.env), nil)
			if err != nil {
				t.Fatalf("parseConfig(%q) error: %v", tc.args, err)
			}
			if diff := cmp.Diff(tc.want, got, equatePrefixes); diff != "" {
				t.Errorf("parseConfig(%q) mismatch (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

func TestParseConfig_Defaults(t *testing.T) {
	c := defaultConfig()
	want := config{Addr: "127.0.0.1:8080", DB: "store.db", AdminEmail: "admin@example.com", Demo: true,
		TokenTTL: 24 * time.Hour, TokenCacheTTL: time.Second, CountriesEnabled: true, Pool: poolOf(20, 0, 30*time.Minute),
		ShutdownTimeout: 30 * time.Second, RequestBudget: 10 * time.Second, LogFormat: "json", Metrics: true}
	if diff := cmp.Diff(want, c, equatePrefixes); diff != "" {
		t.Errorf("defaults mismatch (-want +got):\n%s", diff)
	}
	if c.Postgres() {
		t.Errorf("Postgres() = true for %q", c.DB)
	}
	c.DB = "postgres://localhost/store"
	if !c.Postgres() {
		t.Errorf("Postgres() = false for %q", c.DB)
	}
}

func TestParseConfig_Errors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want []string // substrings of the error
	}{
		{"BadDurationFlag", []string{"-token-ttl", "abc"}, nil, []string{`invalid value "abc" for flag -token-ttl`, "not a duration"}},
		{"BadDurationEnv", nil, map[string]string{"STORE_TOKEN_TTL": "abc"}, []string{`invalid value "abc" for STORE_TOKEN_TTL`}},
		{"BadBoolEnv", nil, map[string]string{"STORE_DEMO": "maybe"}, []string{"STORE_DEMO", "not a boolean"}},
		{"BadBoolFlag", []string{"-countries=sure"}, nil, []string{"-countries", "not a boolean"}},
		{"BadIntEnv", nil, map[string]string{"STORE_DB_MAX_OPEN": "many"}, []string{"STORE_DB_MAX_OPEN", "not a whole number"}},
		{"UnknownFlag", []string{"-nope"}, nil, []string{"-nope", "-help"}},
		{"ExtraArgument", []string{"serve"}, nil, []string{`unexpected argument "serve"`}},
		{"AddrNoPort", []string{"-addr", "localhost"}, nil, []string{"-addr (STORE_ADDR)", "host:port"}},
		{"AddrBadPort", []string{"-addr", ":99999"}, nil, []string{"-addr", "port number"}},
		{"AddrNamedPort", []string{"-addr", ":http"}, nil, []string{"-addr", "port number"}},
		{"DBEmpty", []string{"-db", ""}, nil, []string{"-db (STORE_DB)", "required"}},
		{"DBOtherScheme", []string{"-db", "mysql://localhost/store"}, nil, []string{"-db", "unsupported database URL"}},
		{"DBMemory", []string{"-db", ":memory:"}, nil, []string{"-db", "in-memory"}},
		{"DBBadPostgresURL", []string{"-db", "postgres://a b:%zz@host/db"}, nil, []string{"-db", "not a valid URL"}},
		{"AdminEmail", []string{"-admin-email", "admin"}, nil, []string{"-admin-email (STORE_ADMIN_EMAIL)", `"admin" is not an e-mail address`}},
		{"AdminEmailWithName", []string{"-admin-email", "Admin <admin@example.com>"}, nil, []string{"-admin-email"}},
		{"AdminPasswordShort", nil, map[string]string{"STORE_ADMIN_PASSWORD": "short"}, []string{"-admin-password (STORE_ADMIN_PASSWORD)", "at least 8"}},
		{"TokenTTLZero", []string{"-token-ttl", "0s"}, nil, []string{"-token-ttl", "shorter than 1s"}},
		{"TokenTTLNegative", nil, map[string]string{"STORE_TOKEN_TTL": "-1h"}, []string{"-token-ttl", "shorter than 1s"}},
		{"TokenCacheTTLNegative", []string{"-token-cache-ttl", "-1s"}, nil, []string{"-token-cache-ttl", "between 0 and 1m"}},
		{"TokenCacheTTLLong", nil, map[string]string{"STORE_TOKEN_CACHE_TTL": "2m"}, []string{"-token-cache-ttl (STORE_TOKEN_CACHE_TTL)", "between 0 and 1m"}},
		{"MaxOpenZero", []string{"-db-max-open", "0"}, nil, []string{"-db-max-open", "at least 1"}},
		{"MaxIdleAboveMaxOpen", []string{"-db-max-open", "4", "-db-max-idle", "5"}, nil, []string{"-db-max-idle", "between 0 and -db-max-open (4)"}},
		{"MaxIdleNegative", []string{"-db-max-idle", "-1"}, nil, []string{"-db-max-idle"}},
		{"MaxLifetimeZero", []string{"-db-max-lifetime", "0"}, nil, []string{"-db-max-lifetime", "not positive"}},
		{"ReplicasWithSQLite", []string{"-db-replicas", "postgres://r1.test/store"}, nil, []string{"-db-replicas (STORE_DB_REPLICAS)", "need a PostgreSQL -db"}},
		{"ReplicaNotPostgres", []string{"-db", "postgres://db.test/store", "-db-replicas", "r1.db"}, nil, []string{"-db-replicas", `"r1.db" is not a postgres:// URL`}},
		{"ReplicaMaxLagZero", []string{"-db-replica-max-lag", "0s"}, nil, []string{"-db-replica-max-lag", "not positive"}},
		{"ShutdownTimeoutZero", []string{"-shutdown-timeout", "0s"}, nil, []string{"-shutdown-timeout", "not positive"}},
		{"RequestBudgetZero", []string{"-request-budget", "0s"}, nil, []string{"-request-budget", "not between 0 and the write timeout"}},
		{"RequestBudgetPastWriteTimeout", nil, map[string]string{"STORE_REQUEST_BUDGET": "2m"}, []string{"-request-budget (STORE_REQUEST_BUDGET)", "2m0s"}},
		{"LogFormat", []string{"-log-format", "xml"}, nil, []string{"-log-format", `"xml" is neither json nor text`}},
		{"PublicURLRelative", []string{"-public-url", "shop.example.com"}, nil, []string{"-public-url (STORE_PUBLIC_URL)", "not an http:// or https:// URL"}},
		{"PublicURLOtherScheme", []string{"-public-url", "ftp://shop.example.com"}, nil, []string{"-public-url", "not an http:// or https:// URL"}},
		{"PublicURLNoHost", nil, map[string]string{"STORE_PUBLIC_URL": "https:///store"}, []string{"-public-url", "no host"}},
		{"PublicURLQuery", []string{"-public-url", "https://shop.example.com/?x=1"}, nil, []string{"-public-url", "no user, query or fragment"}},
		{"PublicURLUser", []string{"-public-url", "https://me:pw@shop.example.com"}, nil, []string{"-public-url", "no user, query or fragment"}},
		{"TrustedProxiesName", []string{"-trusted-proxies", "10.0.0.1,proxy.local"}, nil, []string{"-trusted-proxies", `"proxy.local" is not an IP address or a CIDR network`}},
		{"TrustedProxiesBadCIDR", nil, map[string]string{"STORE_TRUSTED_PROXIES": "10.0.0.0/33"}, []string{"STORE_TRUSTED_PROXIES", `"10.0.0.0/33"`}},
		{"OTLPProtocol", nil, map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}, []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc", "http/protobuf only"}},
		{"EveryBadValueAtOnce", []string{"-addr", "x", "-log-format", "xml"}, nil, []string{"-addr", "-log-format"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig(append([]string{"storeserver"}, tc.args...), mapEnv(tc.env), nil)
			if err == nil {
				t.Fatalf("parseConfig(%q, %v) = nil error, want %q", tc.args, tc.env, tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("parseConfig(%q, %v) = %q, want it to contain %q", tc.args, tc.env, err, w)
				}
			}
		})
	}
}

func TestParseConfig_Help(t *testing.T) {
	for _, arg := range []string{"-help", "-h", "--help"} {
		var out bytes.Buffer
		_, err := parseConfig([]string{"storeserver", arg}, mapEnv(nil), &out)
		if !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("parseConfig(%q) = %v, want flag.ErrHelp", arg, err)
		}
		for _, o := range options {
			if !strings.Contains(out.String(), "-"+o.flag+" ") && !strings.Contains(out.String(), "-"+o.flag+"\n") {
				t.Errorf("help text of %q lacks -%s", arg, o.flag)
			}
			if !strings.Contains(out.String(), o.env) {
				t.Errorf("help text of %q lacks %s", arg, o.env)
			}
		}
	}
}

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// equatePrefixes compares netip.Prefix values, whose fields are unexported, with ==.
var equatePrefixes = cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })

func prefixes(list ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(list))
	for i, p := range list {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

func poolOf(maxOpen, maxIdle int, lifetime time.Duration) postgres.Pool {
	return postgres.Pool{MaxOpen: maxOpen, MaxIdle: maxIdle, MaxLifetime: lifetime,
		Replicas: postgres.Replicas{MaxLag: 5 * time.Second}}
}

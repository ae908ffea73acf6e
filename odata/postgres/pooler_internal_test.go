package postgres

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// TestForPooler: with pooler=transaction, the run-time parameters a pooler does not pass on leave the startup
// packet for a statement that sets them per transaction, and no named prepared statement is made unless the
// URL chooses otherwise.
func TestForPooler(t *testing.T) {
	for _, tc := range []struct {
		name, url    string
		wantSettings string
		wantPooled   bool
		wantParams   map[string]string
		wantMode     pgx.QueryExecMode
		wantErr      bool
	}{
		{name: "direct", url: "postgres://u@h/db",
			wantParams: map[string]string{"jit": "off", "statement_timeout": "60000"},
			wantMode:   pgx.QueryExecModeCacheStatement},
		{name: "pooled", url: "postgres://u@h/db?pooler=transaction",
			wantSettings: `SET LOCAL "jit" TO 'off'; SET LOCAL "statement_timeout" TO '60000'`,
			wantPooled:   true, wantParams: map[string]string{}, wantMode: pgx.QueryExecModeCacheDescribe},
		{name: "pooled keeps tracked parameters and the URL's exec mode",
			url:          "postgres://u@h/db?pooler=transaction&application_name=store&search_path=it's&default_query_exec_mode=exec&statement_timeout=0",
			wantSettings: `SET LOCAL "jit" TO 'off'; SET LOCAL "search_path" TO 'it''s'; SET LOCAL "statement_timeout" TO '0'`,
			wantPooled:   true, wantParams: map[string]string{"application_name": "store"}, wantMode: pgx.QueryExecModeExec},
		{name: "session is no value", url: "postgres://u@h/db?pooler=session", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config, err := pgx.ParseConfig(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			delete(config.RuntimeParams, "timezone") // from PGTZ, when set
			sessionSettings(config.RuntimeParams, 0)
			settings, _, pooled, err := forPooler(config)
			if (err != nil) != tc.wantErr {
				t.Fatalf("forPooler(%s) error = %v, want error %v", tc.url, err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if settings != tc.wantSettings || pooled != tc.wantPooled {
				t.Errorf("forPooler(%s) = %q, %v; want %q, %v", tc.url, settings, pooled, tc.wantSettings, tc.wantPooled)
			}
			if diff := cmp.Diff(tc.wantParams, config.RuntimeParams); diff != "" {
				t.Errorf("forPooler(%s): startup parameters (-want +got):\n%s", tc.url, diff)
			}
			if config.DefaultQueryExecMode != tc.wantMode {
				t.Errorf("forPooler(%s): exec mode %v, want %v", tc.url, config.DefaultQueryExecMode, tc.wantMode)
			}
		})
	}
}

// TestPooledConnector_ServerDefaults: statements outside a transaction get one of their own for the settings,
// unless the server's defaults for the session are the settings already.
func TestPooledConnector_ServerDefaults(t *testing.T) {
	base := os.Getenv("STORE_TEST_POSTGRES")
	if base == "" {
		t.Skip("STORE_TEST_POSTGRES is not set")
	}
	if !strings.Contains(base, PoolerParam+"=") {
		base += "&" + PoolerParam + "=transaction"
	}
	ctx := context.Background()
	ownTx := func(url string, timeout time.Duration) bool {
		t.Helper()
		config, err := pgx.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		sessionSettings(config.RuntimeParams, timeout)
		connector, err := connectorFor(config)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := connector.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.(*pooledConn).connector.ownTx.Load()
	}
	if !ownTx(base, 0) {
		t.Errorf("with jit off and a statement_timeout of 60 s, statements need no transaction of their own; want them to")
	}
	config, err := pgx.ParseConfig(base)
	if err != nil {
		t.Fatal(err)
	}
	delete(config.RuntimeParams, PoolerParam)
	conn, err := pgx.ConnectConfig(ctx, config)
	if err != nil {
		t.Fatal(err)
	}
	var jit, timeout string
	err = conn.QueryRow(ctx, `SELECT (SELECT reset_val FROM pg_settings WHERE name = 'jit'),
	(SELECT reset_val FROM pg_settings WHERE name = 'statement_timeout')`, pgx.QueryExecModeExec).Scan(&jit, &timeout)
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ownTx(base+"&jit="+jit+"&statement_timeout="+timeout, 0) {
		t.Errorf("with the server's defaults (jit %s, statement_timeout %s), statements need a transaction of their own; want not", jit, timeout)
	}
}

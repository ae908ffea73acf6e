package postgres

import (
	"testing"

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
			wantSettings: "SELECT set_config('jit', 'off', true), set_config('statement_timeout', '60000', true)",
			wantPooled:   true, wantParams: map[string]string{}, wantMode: pgx.QueryExecModeCacheDescribe},
		{name: "pooled keeps tracked parameters and the URL's exec mode",
			url:          "postgres://u@h/db?pooler=transaction&application_name=store&search_path=it's&default_query_exec_mode=exec&statement_timeout=0",
			wantSettings: "SELECT set_config('jit', 'off', true), set_config('search_path', 'it''s', true), set_config('statement_timeout', '0', true)",
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
			settings, pooled, err := forPooler(config)
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

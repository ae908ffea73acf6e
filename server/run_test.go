package server

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
)

// testMigrations create the table of dbAuth's admins.
var testMigrations = migrate.Source{Name: "servertest", FS: fstest.MapFS{
	"sqlite/0001_admin.sql":   {Data: []byte(`CREATE TABLE test_admin (email TEXT PRIMARY KEY, password TEXT NOT NULL);`)},
	"postgres/0001_admin.sql": {Data: []byte(`CREATE TABLE test_admin (email TEXT PRIMARY KEY, password TEXT NOT NULL);`)},
}}

// dbAuth is an authenticator over the test_admin table, with tokens in memory.
type dbAuth struct {
	db     *sqldb.DB
	mu     sync.Mutex
	tokens map[string]principal
}

func (a *dbAuth) Login(ctx context.Context, c credentials) (token, error) {
	q, args, _ := sqldb.Builder(a.db.Dialect()).Select("password").From("test_admin").Where("email = ?", c.Email).ToSql()
	var stored string
	err := a.db.QueryRowContext(ctx, q, args...).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) || err == nil && stored != c.Password {
		return token{}, odata.BadRequest(odata.CodeInvalidCredentials, "", "The e-mail or the password is wrong.")
	}
	if err != nil {
		return token{}, err
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	tok := hex.EncodeToString(b[:])
	a.mu.Lock()
	a.tokens[tok] = principal{CustomerID: "admin", Email: c.Email, Admin: true}
	a.mu.Unlock()
	return token{AccessToken: tok, ExpiresIn: time.Hour}, nil
}

func (a *dbAuth) Authenticate(ctx context.Context, tok string) (principal, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if p, ok := a.tokens[tok]; ok {
		return p, nil
	}
	return principal{}, &odata.Error{Code: odata.CodeUnauthorized, Message: "Unknown token."}
}

func (a *dbAuth) Revoke(ctx context.Context, tok string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.tokens, tok)
	return nil
}

// testWiring builds components on the real database: migrations, a seed that creates the admin once, an
// authenticator reading the seeded table, and an OData stand-in whose "/slow" path waits for release.
type testWiring struct {
	entered chan struct{} // receives when /odata/slow starts
	release chan struct{} // closed to let /odata/slow finish
	deps    wiring
}

func newTestWiring() *testWiring {
	return &testWiring{entered: make(chan struct{}, 1), release: make(chan struct{})}
}

func (w *testWiring) wire(ctx context.Context, deps wiring) (*components, error) {
	w.deps = deps
	b := sqldb.Builder(deps.DB.Dialect())
	seed := func(ctx context.Context) (string, error) {
		q, args, _ := b.Select("COUNT(*)").From("test_admin").ToSql()
		var n int
		if err := deps.DB.QueryRowContext(ctx, q, args...).Scan(&n); err != nil || n > 0 {
			return "", err
		}
		pw, generated := deps.Config.AdminPassword, ""
		if pw == "" {
			pw = "generated-" + odata.NewID()
			generated = pw
		}
		q, args, _ = b.Insert("test_admin").Columns("email", "password").Values(deps.Config.AdminEmail, pw).ToSql()
		_, err := deps.DB.ExecContext(ctx, q, args...)
		return generated, err
	}
	od := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			w.entered <- struct{}{}
			<-w.release
		}
		writeJSON(rw, http.StatusOK, map[string]string{"path": r.URL.Path})
	})
	return &components{
		Migrations: []migrate.Source{testMigrations},
		Seed:       seed,
		OData:      od,
		Storefront: fakeStorefront,
		Auth:       &dbAuth{db: deps.DB, tokens: map[string]principal{}},
	}, nil
}

// running is one run of the service in the background.
type running struct {
	url    string
	stdout *syncBuffer
	stderr *syncBuffer
	cancel context.CancelFunc
	done   chan struct{}
	err    error // valid once done is closed
}

// start runs the service on port 0 with the database dsn and waits until it listens.
func start(t *testing.T, w *testWiring, dsn string, extra ...string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, done: make(chan struct{})}
	args := append([]string{"storeserver", "-addr", "127.0.0.1:0", "-db", dsn, "-shutdown-timeout", "1m"}, extra...)
	env := mapEnv(map[string]string{"STORE_ADMIN_EMAIL": "boss@shop.test"})
	go func() {
		defer close(r.done)
		r.err = run(ctx, w.wire, args, env, r.stdout, r.stderr)
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	line, ok := r.stdout.waitFor("listening on ", r.done)
	if !ok {
		t.Fatalf("run ended before listening: %v\nlog:\n%s", r.err, r.stderr)
	}
	r.url = strings.TrimPrefix(line, "listening on ")
	if !strings.HasPrefix(r.url, "http://127.0.0.1:") || strings.HasSuffix(r.url, ":0") {
		t.Fatalf("listening line %q does not name the real address", line)
	}
	return r
}

// stop cancels the context and returns what run returned.
func (r *running) stop() error {
	r.cancel()
	<-r.done
	return r.err
}

func (r *running) get(t *testing.T, path, token string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("GET", r.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return send(t, req)
}

func send(t *testing.T, req *http.Request) (int, map[string]any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s %s: body %q: %v", req.Method, req.URL, b, err)
	}
	return resp.StatusCode, m
}

func (r *running) login(t *testing.T, email, password string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", r.url+"/api/token",
		strings.NewReader(`{"email": "`+email+`", "password": "`+password+`"}`))
	req.Header.Set("Content-Type", "application/json")
	status, body := send(t, req)
	if status != http.StatusOK {
		t.Fatalf("POST /api/token = %d %v, want 200", status, body)
	}
	return body["access_token"].(string)
}

// generatedPassword returns the password of the "generated password" log line, or "".
func generatedPassword(t *testing.T, log string) string {
	t.Helper()
	for _, l := range jsonLines(t, log) {
		if pw, ok := l["password"].(string); ok {
			return pw
		}
	}
	return ""
}

func TestRun(t *testing.T) {
	eachDSN(t, func(t *testing.T, dsn string) {
		w := newTestWiring()

		// First start: migrates, seeds, logs the generated password once.
		r := start(t, w, dsn)
		if status, body := r.get(t, "/healthz", ""); status != http.StatusOK || body["status"] != "ok" {
			t.Fatalf("GET /healthz = %d %v, want 200 ok", status, body)
		}
		pw := generatedPassword(t, r.stderr.String())
		if pw == "" {
			t.Fatalf("the first start logged no generated password:\n%s", r.stderr)
		}
		if w.deps.Config.AdminEmail != "boss@shop.test" {
			t.Errorf("Deps.Config.AdminEmail = %q, want the environment's boss@shop.test", w.deps.Config.AdminEmail)
		}
		tok := r.login(t, "boss@shop.test", pw)
		if status, body := r.get(t, "/odata/Product", tok); status != http.StatusOK || body["path"] != "/Product" {
			t.Errorf("GET /odata/Product = %d %v, want 200 from the OData service", status, body)
		}
		if status, _ := r.get(t, "/odata/Product", ""); status != http.StatusUnauthorized {
			t.Errorf("GET /odata/Product without a token = %d, want 401", status)
		}
		if err := r.stop(); err != nil {
			t.Fatalf("run after cancel = %v, want nil", err)
		}
		lines := jsonLines(t, r.stderr.String())
		if !hasLog(lines, "database schema up to date", "migrations_applied", 1.0) {
			t.Errorf("first start: no log of 1 migration applied:\n%s", r.stderr)
		}
		if !hasLog(lines, "request", "path", "/healthz") || !hasLog(lines, "stopped", "", nil) {
			t.Errorf("first start: no request or stop log line:\n%s", r.stderr)
		}

		// Second start on the same database: no migration, no seed, the same admin.
		r = start(t, newTestWiring(), dsn)
		if pw2 := generatedPassword(t, r.stderr.String()); pw2 != "" {
			t.Errorf("the second start logged a generated password")
		}
		if !hasLog(jsonLines(t, r.stderr.String()), "database schema up to date", "migrations_applied", 0.0) {
			t.Errorf("second start: migrations not a no-op:\n%s", r.stderr)
		}
		r.login(t, "boss@shop.test", pw)
		if err := r.stop(); err != nil {
			t.Fatalf("second run after cancel = %v, want nil", err)
		}
	})
}

func TestRun_DrainsInFlightRequests(t *testing.T) {
	eachDSN(t, func(t *testing.T, dsn string) {
		w := newTestWiring()
		r := start(t, w, dsn, "-admin-password", "the-admin-password")
		tok := r.login(t, "boss@shop.test", "the-admin-password")

		type result struct {
			status int
			body   string
			err    error
		}
		res := make(chan result, 1)
		go func() {
			req, _ := http.NewRequest("GET", r.url+"/odata/slow", nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				res <- result{err: err}
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			res <- result{resp.StatusCode, string(b), err}
		}()
		<-w.entered
		r.cancel()
		if _, ok := r.stderr.waitFor("draining in-flight requests", r.done); !ok {
			t.Fatalf("run ended before draining: %v", r.err)
		}
		// While the slow request runs, the node still accepts connections and answers every new request 503
		// with the error body, /healthz included, so a load balancer takes it out.
		for _, path := range []string{"/healthz", "/odata/Product", "/cart"} {
			status, body := r.get(t, path, tok)
			code, _ := path2(body, "error", "code").(string)
			if status != http.StatusServiceUnavailable || code != "ServiceUnavailable" {
				t.Errorf("GET %s during the drain = %d %v, want 503 ServiceUnavailable", path, status, body)
			}
		}
		select {
		case <-r.done:
			t.Fatalf("run returned while a request was in flight: %v", r.err)
		default:
		}
		close(w.release)
		got := <-res
		if got.err != nil || got.status != http.StatusOK || !strings.Contains(got.body, `"/slow"`) {
			t.Errorf("in-flight GET /odata/slow = %d %s %v, want 200", got.status, got.body, got.err)
		}
		if err := r.stop(); err != nil {
			t.Fatalf("run = %v, want nil", err)
		}
		if _, err := http.Get(r.url + "/healthz"); err == nil {
			t.Errorf("GET /healthz after the shutdown succeeded")
		}
		lines := jsonLines(t, r.stderr.String())
		if !hasLog(lines, "in-flight requests finished", "", nil) || !hasLog(lines, "stopped", "", nil) {
			t.Errorf("no log of the finished drain:\n%s", r.stderr)
		}
	})
}

// path2 reads a value inside nested JSON objects.
func path2(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// TestRun_AddressInUse checks that a busy port fails the start before the database is touched, so the admin
// password generated by the first real start is printed then, and only then.
func TestRun_AddressInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	eachDSN(t, func(t *testing.T, dsn string) {
		w := newTestWiring()
		wired := false
		wire := func(ctx context.Context, deps wiring) (*components, error) {
			wired = true
			return w.wire(ctx, deps)
		}
		var stderr syncBuffer
		args := []string{"storeserver", "-addr", busy.Addr().String(), "-db", dsn}
		err := run(context.Background(), wire, args, mapEnv(nil), io.Discard, &stderr)
		if err == nil || !strings.Contains(err.Error(), "address already in use") {
			t.Fatalf("run on a busy address = %v, want an error", err)
		}
		if wired || strings.Contains(stderr.String(), "password") || strings.Contains(stderr.String(), "database") {
			t.Errorf("run on a busy address built the components or touched the database first:\n%s", stderr.String())
		}
		if !strings.HasPrefix(dsn, "postgres") {
			if _, err := os.Stat(dsn); !os.IsNotExist(err) {
				t.Errorf("run on a busy address created the SQLite file (%v)", err)
			}
		} else if n := schemaTables(t, dsn); n != 0 {
			t.Errorf("run on a busy address created %d tables", n)
		}

		r := start(t, w, dsn)
		if pw := generatedPassword(t, r.stderr.String()); pw == "" {
			t.Fatalf("the first start on a free port logged no generated password:\n%s", r.stderr)
		}
		if err := r.stop(); err != nil {
			t.Fatal(err)
		}
	})
}

// schemaTables returns how many tables the PostgreSQL database at dsn holds.
func schemaTables(t *testing.T, dsn string) int {
	t.Helper()
	db, err := postgres.Open(dsn, postgres.Pool{MaxOpen: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRun_StartErrors(t *testing.T) {
	dir := t.TempDir()
	start := func(wire wireFunc, args ...string) error {
		// A free port: a server running on the machine's default 127.0.0.1:8080 must not fail the start first.
		args = append([]string{"storeserver", "-addr", "127.0.0.1:0"}, args...)
		return run(context.Background(), wire, args, mapEnv(nil), io.Discard, io.Discard)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"BadFlag", []string{"-token-ttl", "soon"}, "-token-ttl"},
		{"NoDatabaseDirectory", []string{"-db", filepath.Join(dir, "missing", "store.db")}, "open SQLite database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := start(newTestWiring().wire, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run(%q) = %v, want an error containing %q", tc.args, err, tc.want)
			}
		})
	}
	t.Run("NoPostgresDatabase", func(t *testing.T) {
		base := dbtest.PostgresURL()
		if base == "" {
			t.Skip(dbtest.EnvPostgres + " is not set")
		}
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/storetest_does_not_exist"
		if err := start(newTestWiring().wire, "-db", u.String()); err == nil || !strings.Contains(err.Error(), "open PostgreSQL database") {
			t.Errorf("run on a missing PostgreSQL database = %v, want an error", err)
		}
	})
	eachDSN(t, func(t *testing.T, dsn string) {
		t.Run("WiringFails", func(t *testing.T) {
			wire := func(context.Context, wiring) (*components, error) { return nil, errors.New("no catalog") }
			if err := start(wire, "-db", dsn); err == nil || !strings.Contains(err.Error(), "no catalog") {
				t.Errorf("run with a failing wiring = %v, want its error", err)
			}
		})
		t.Run("NoAuthenticator", func(t *testing.T) {
			wire := func(context.Context, wiring) (*components, error) { return &components{}, nil }
			if err := start(wire, "-db", dsn); err == nil || !strings.Contains(err.Error(), "no authenticator") {
				t.Errorf("run without an authenticator = %v, want an error", err)
			}
		})
	})
}

func TestRun_Help(t *testing.T) {
	var out strings.Builder
	if err := Run(context.Background(), []string{"storeserver", "-help"}, mapEnv(nil), &out, io.Discard); err != nil {
		t.Fatalf("Run(-help) = %v, want nil", err)
	}
	if !strings.Contains(out.String(), "Usage: storeserver") {
		t.Errorf("Run(-help) printed %q, want the help text", out.String())
	}
}

// eachDSN runs f on a new SQLite file and, when STORE_TEST_POSTGRES is set, on a new PostgreSQL database.
func eachDSN(t *testing.T, f func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, filepath.Join(t.TempDir(), "store.db")) })
	if dbtest.PostgresURL() != "" {
		t.Run("postgres", func(t *testing.T) { f(t, dbtest.Postgres(t).URL) })
	}
}

// hasLog reports whether a log line has the message and, when key is not empty, the key with the value.
func hasLog(lines []map[string]any, msg, key string, value any) bool {
	for _, l := range lines {
		if l["msg"] == msg && (key == "" || l[key] == value) {
			return true
		}
	}
	return false
}

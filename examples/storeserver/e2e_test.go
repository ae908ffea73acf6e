package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
)

// The end-to-end tests start the program's run on port 0 with a fresh database (a SQLite file, and a fresh
// PostgreSQL database when STORE_TEST_POSTGRES is set) and talk to it over HTTP only, but for a few checks of
// what the database holds and for expiring a token.

const (
	adminEmail    = "admin@example.com"
	adminPassword = "admin-secret-1"
)

// idPattern is a server-generated key.
var idPattern = regexp.MustCompile(`^[0-9a-f]{24}$`)

// storeServer is one run of the program.
type storeServer struct {
	t      testing.TB
	url    string
	db     *dbtest.DB
	stderr *syncBuffer
	stop   func()
}

// syncBuffer is a bytes.Buffer safe for the program's logger and the test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs the program on db with the extra flags and returns once it listens. env sets environment
// variables (STORE_ADMIN_PASSWORD defaults to adminPassword; set it to "" for a generated one). The program
// is stopped when the test ends, or earlier with stop.
func start(t testing.TB, db *dbtest.DB, env map[string]string, flags ...string) *storeServer {
	t.Helper()
	s, err := launch(t, db, env, flags...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// launch is start that returns its failure instead of ending the test, so that several programs can start at
// once from goroutines.
func launch(t testing.TB, db *dbtest.DB, env map[string]string, flags ...string) (*storeServer, error) {
	vars := map[string]string{"STORE_ADMIN_PASSWORD": adminPassword}
	for k, v := range env {
		vars[k] = v
	}
	args := append([]string{"storeserver", "-addr", "127.0.0.1:0", "-db", db.URL, "-log-format", "json"}, flags...)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		err := run(ctx, args, func(k string) string { return vars[k] }, pw, stderr)
		pw.CloseWithError(io.EOF)
		done <- err
	}()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				urls <- rest
			}
		}
		close(urls)
	}()
	s := &storeServer{t: t, db: db, stderr: stderr}
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run() = %v, want nil after the context is cancelled\n%s", err, stderr)
			}
		})
	}
	select {
	case u, ok := <-urls:
		if !ok {
			cancel()
			return nil, fmt.Errorf("run(%v) ended before listening: %v\n%s", args, <-done, stderr)
		}
		s.url = u
	case <-time.After(2 * time.Minute):
		cancel()
		return nil, fmt.Errorf("run(%v) did not listen\n%s", args, stderr)
	}
	t.Cleanup(s.stop)
	return s, nil
}

// each runs f on a fresh SQLite database and, when STORE_TEST_POSTGRES is set, on a fresh PostgreSQL database.
func each(t *testing.T, f func(t *testing.T, db *dbtest.DB)) { dbtest.Each(t, f) }

// response is an answer, read in full.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r *response) String() string {
	return fmt.Sprintf("%d %s", r.status, r.body)
}

// json decodes the body as a JSON object (numbers as json.Number).
func (r *response) json(t testing.TB) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(r.body))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("answer %s: not a JSON object: %v", r, err)
	}
	return m
}

// errorBody is the error body of SPEC part 8.
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Target  string `json:"target"`
	Details []struct {
		Code    string `json:"code"`
		Target  string `json:"target"`
		Message string `json:"message"`
	} `json:"details"`
}

func (r *response) error(t testing.TB) errorBody {
	t.Helper()
	var b struct {
		Error errorBody `json:"error"`
	}
	if err := json.Unmarshal(r.body, &b); err != nil || b.Error.Code == "" {
		t.Fatalf("answer %s: not an error body: %v", r, err)
	}
	return b.Error
}

// details renders an error's details as "Code Target: Message" lines.
func (e errorBody) details() []string {
	var out []string
	for _, d := range e.Details {
		out = append(out, d.Code+" "+d.Target+": "+d.Message)
	}
	return out
}

// client sends requests to a server, with a bearer token when token is set.
type client struct {
	s     *storeServer
	token string
}

func (s *storeServer) client(token string) *client { return &client{s: s, token: token} }

// request is a request to send: the body is JSON-encoded unless it is a string, []byte or url.Values (form).
type request struct {
	method, path string
	body         any
	header       []string // name, value pairs ("Host" sets the request's Host)
}

func (c *client) send(t testing.TB, rq request) *response {
	t.Helper()
	r, err := c.try(rq)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// try sends a request and returns the answer or the error of sending it; unlike send it may run in any goroutine.
func (c *client) try(rq request) (*response, error) {
	var body io.Reader
	contentType := ""
	switch b := rq.body.(type) {
	case nil:
	case string:
		body, contentType = strings.NewReader(b), "application/json"
	case []byte:
		body, contentType = bytes.NewReader(b), "application/json"
	case url.Values:
		body, contentType = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		body, contentType = bytes.NewReader(j), "application/json"
	}
	req, err := http.NewRequest(rq.method, c.s.url+rq.path, body)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for i := 0; i+1 < len(rq.header); i += 2 {
		if http.CanonicalHeaderKey(rq.header[i]) == "Host" {
			req.Host = rq.header[i+1]
			continue
		}
		if rq.header[i+1] == "" {
			req.Header.Del(rq.header[i])
		} else {
			req.Header.Set(rq.header[i], rq.header[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", rq.method, rq.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: read the answer: %v", rq.method, rq.path, err)
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

func (c *client) do(t testing.TB, method, path string, body any, header ...string) *response {
	t.Helper()
	return c.send(t, request{method: method, path: path, body: body, header: header})
}

// must sends a request and fails the test unless the answer has the status.
func (c *client) must(t testing.TB, status int, method, path string, body any, header ...string) *response {
	t.Helper()
	r := c.do(t, method, path, body, header...)
	if r.status != status {
		t.Fatalf("%s %s = %s, want %d", method, path, r, status)
	}
	return r
}

// fails sends a request and checks that it fails with the status and code; it returns the error body.
func (c *client) fails(t testing.TB, status int, code, method, path string, body any, header ...string) errorBody {
	t.Helper()
	r := c.do(t, method, path, body, header...)
	if r.status != status {
		t.Fatalf("%s %s = %s, want %d %s", method, path, r, status, code)
	}
	e := r.error(t)
	if e.Code != code {
		t.Fatalf("%s %s: error code %q, want %q (%s)", method, path, e.Code, code, r)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s %s: Content-Type %q, want application/json...", method, path, ct)
	}
	if r.header.Get("X-Request-Id") == "" {
		t.Errorf("%s %s: error answer without X-Request-Id", method, path)
	}
	return e
}

// login signs in and returns the access token.
func (s *storeServer) login(t testing.TB, email, password string) string {
	t.Helper()
	r := s.client("").must(t, http.StatusOK, "POST", "/api/token", map[string]string{"email": email, "password": password})
	tok, _ := r.json(t)["access_token"].(string)
	if tok == "" {
		t.Fatalf("POST /api/token = %s: no access_token", r)
	}
	return tok
}

// admin signs the administrator in and returns a client with the token.
func (s *storeServer) admin(t testing.TB) *client {
	return s.client(s.login(t, adminEmail, adminPassword))
}

// count returns the count of a query's rows (placeholders written ?).
func (s *storeServer) count(t testing.TB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(placeholders(s.db, "SELECT COUNT(*) FROM ("+q+") AS c"), args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// exec runs a statement on the server's database (placeholders written ?).
func (s *storeServer) exec(t testing.TB, q string, args ...any) {
	t.Helper()
	if _, err := s.db.Exec(placeholders(s.db, q), args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// placeholders rewrites ? placeholders for the database's dialect.
func placeholders(db *dbtest.DB, q string) string {
	out, err := db.Dialect().Placeholder().ReplacePlaceholders(q)
	if err != nil {
		panic(err)
	}
	return out
}

// expireToken makes a token expired, as if its lifetime had passed.
func (s *storeServer) expireToken(t testing.TB, token string) {
	t.Helper()
	sum := sha256.Sum256([]byte(token))
	s.exec(t, `UPDATE access_token SET expires_on_utc = ? WHERE token_hash = ?`,
		sqldb.TimeArg(s.db.Dialect(), time.Now().Add(-time.Minute)), hex.EncodeToString(sum[:]))
}

// str returns m[key] as a string ("" when absent or not a string).
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// num returns m[key] as the text of a JSON number ("" when it is not a number).
func num(m map[string]any, key string) string {
	n, _ := m[key].(json.Number)
	return string(n)
}

// path reads a value inside nested JSON objects and arrays.
func path(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// checkJSONHeaders checks the headers every OData JSON answer carries.
func checkJSONHeaders(t testing.TB, what string, r *response) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/json;odata.metadata=minimal" {
		t.Errorf("%s: Content-Type = %q, want application/json;odata.metadata=minimal", what, ct)
	}
	if v := r.header.Get("OData-Version"); v != "4.0" {
		t.Errorf("%s: OData-Version = %q, want 4.0", what, v)
	}
}

package server_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/server"
)

// TestRun_RevocationsImmediate runs the store with a long token cache and checks that every way SPEC part 2 revokes
// a customer's tokens takes effect on the next request: the node that writes forgets its cached checks.
func TestRun_RevocationsImmediate(t *testing.T) {
	dsns := map[string]func(t *testing.T) string{
		"sqlite": func(t *testing.T) string { return filepath.Join(t.TempDir(), "store.db") },
	}
	if dbtest.PostgresURL() != "" {
		dsns["postgres"] = func(t *testing.T) string { return dbtest.Postgres(t).URL }
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			url := startRealStore(t, dsn(t), "-token-cache-ttl", "1m")
			admin := login(t, url, "admin@shop.test", "admin-secret")
			revocations := []struct {
				name         string
				method, path string
				body         string
			}{
				{"SetPassword", "POST", "/odata/Customer('%s')/SetPassword", `{"password": "another-secret"}`},
				{"Deactivate", "PATCH", "/odata/Customer('%s')", `{"Active": false}`},
				{"Delete", "DELETE", "/odata/Customer('%s')", ``},
				{"Logout", "POST", "/api/token/revoke", ``},
				{"InBatch", "POST", "/odata/$batch", `{"requests": [{"id": "1", "method": "PATCH", "url": "Customer('%s')",
					"headers": {"content-type": "application/json"}, "body": {"Active": false}}]}`},
			}
			for _, rv := range revocations {
				t.Run(rv.name, func(t *testing.T) {
					email := strings.ToLower(rv.name) + "@shop.test"
					call(t, url, "POST", "/odata/Customer", admin, `{"Email": "`+email+`"}`, http.StatusCreated)
					call(t, url, "POST", "/odata/Customer('"+email+"')/SetPassword", admin, `{"password": "customer-secret"}`, http.StatusOK)
					tok := login(t, url, email, "customer-secret")
					call(t, url, "GET", "/cart", tok, "", http.StatusOK) // checked and cached
					by := admin
					if rv.name == "Logout" {
						by = tok
					}
					call(t, url, rv.method, strings.Replace(rv.path, "%s", email, 1), by, strings.Replace(rv.body, "%s", email, 1), 0)
					call(t, url, "GET", "/cart", tok, "", http.StatusUnauthorized)
				})
			}
		})
	}
}

// startRealStore runs the store server (server.Run) on dsn with the admin admin@shop.test and returns its URL.
func startRealStore(t *testing.T, dsn string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, in := io.Pipe()
	done := make(chan error, 1)
	args := append([]string{"storeserver", "-addr", "127.0.0.1:0", "-db", dsn, "-admin-email", "admin@shop.test",
		"-admin-password", "admin-secret", "-demo=false"}, extra...)
	go func() {
		done <- server.Run(ctx, args, func(string) string { return "" }, in, io.Discard)
		in.Close()
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return u
		}
	}
	t.Fatalf("the store stopped before it listened")
	return ""
}

func login(t *testing.T, url, email, password string) string {
	t.Helper()
	body := call(t, url, "POST", "/api/token", "", `{"email": "`+email+`", "password": "`+password+`"}`, http.StatusOK)
	_, tok, _ := strings.Cut(body, `"access_token":"`)
	tok, _, _ = strings.Cut(tok, `"`)
	return tok
}

// call sends a request with the token (if any) and a JSON body (if any), checks the status unless want is 0, and
// returns the body.
func call(t *testing.T, url, method, path, token, body string, want int) string {
	t.Helper()
	req, err := http.NewRequest(method, url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if want == 0 && resp.StatusCode >= 300 || want != 0 && resp.StatusCode != want {
		t.Fatalf("%s %s = %d %s, want %d", method, path, resp.StatusCode, b, want)
	}
	return string(b)
}

package entities_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
)

// clock is a settable time source for Auth.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

const (
	adminPassword = "admin-secret-1"
	userEmail     = "ann@example.com"
	userPassword  = "ann-secret-1"
)

// authFixture is a seeded database with, besides the admin, a registered customer with a password
// (ann@example.com), an inactive one (ina@example.com) and one without a password (nopw@example.com).
type authFixture struct {
	db    *dbtest.DB
	auth  *entities.Auth
	clock *clock
	ids   map[string]string // e-mail -> customer id
}

func newAuthFixture(t testing.TB, db *dbtest.DB) *authFixture {
	t.Helper()
	seeded(t, db, entities.SeedOptions{AdminEmail: adminEmail, AdminPassword: adminPassword})
	f := &authFixture{db: db, clock: &clock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}, ids: map[string]string{}}
	f.auth = &entities.Auth{DB: db.DB, TokenTTL: time.Hour, Now: f.clock.Now}
	f.ids[adminEmail] = customerID(t, db, adminEmail)
	for _, c := range []struct {
		email, password string
		active          bool
	}{
		{userEmail, userPassword, true},
		{"ina@example.com", "ina-secret-1", false},
		{"nopw@example.com", "", true},
	} {
		id := odata.NewID()
		f.ids[c.email] = id
		exec(t, db, `INSERT INTO customer (id, email, active) VALUES (?, ?, ?)`, id, c.email, c.active)
		exec(t, db, `INSERT INTO customer_role_mapping (customer_id, customer_role_id)
SELECT ?, id FROM customer_role WHERE system_name = 'Registered'`, id)
		if c.password != "" {
			f.setPassword(t, id, c.password)
		}
	}
	return f
}

func customerID(t testing.TB, db *dbtest.DB, email string) string {
	t.Helper()
	var id string
	if err := db.QueryRow(q(db, `SELECT id FROM customer WHERE email = ?`), email).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func (f *authFixture) setPassword(t testing.TB, customerID, password string) {
	t.Helper()
	hash, err := entities.HashPassword(password)
	if err != nil {
		t.Fatal(err)
	}
	f.inTx(t, func(ctx context.Context, tx *sqldb.Tx) error {
		return entities.SetPasswordHash(ctx, tx, customerID, hash)
	})
}

// creds are the credentials of a sign-in from clientA.
func creds(email, password string) entities.Credentials {
	return entities.Credentials{Email: email, Password: password, Client: clientA}
}

// Client addresses of the tests.
var (
	clientA = netip.MustParseAddr("198.51.100.1")
	clientB = netip.MustParseAddr("198.51.100.2")
)

func (f *authFixture) login(t testing.TB, email, password string) entities.Token {
	t.Helper()
	tok, err := f.auth.Login(context.Background(), creds(email, password))
	if err != nil {
		t.Fatalf("Login(%q, %q) = %v", email, password, err)
	}
	return tok
}

// wantError checks that err is an *odata.Error with the status and code, and returns it.
func wantError(t *testing.T, call string, err error, status int, code string) *odata.Error {
	t.Helper()
	e, ok := err.(*odata.Error)
	if !ok {
		t.Fatalf("%s = %v (%T), want *odata.Error %d %s", call, err, err, status, code)
	}
	if e.Status() != status || e.Code != code {
		t.Fatalf("%s = %d %s %q, want %d %s", call, e.Status(), e.Code, e.Message, status, code)
	}
	return e
}

func TestAuth_Login(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newAuthFixture(t, db)
		ctx := context.Background()
		t.Run("OK", func(t *testing.T) {
			tok := f.login(t, userEmail, userPassword)
			if len(tok.AccessToken) != 43 || tok.ExpiresIn != time.Hour {
				t.Errorf("Login() = %q, %v, want a 43-character token valid for 1h", tok.AccessToken, tok.ExpiresIn)
			}
			var stored string
			if err := db.QueryRow(`SELECT token_hash FROM access_token`).Scan(&stored); err != nil || len(stored) != 64 ||
				strings.Contains(stored, tok.AccessToken) {
				t.Errorf("stored token = %q, %v, want only a SHA-256 hex hash", stored, err)
			}
		})
		t.Run("OKEmailIgnoresCase", func(t *testing.T) {
			f.login(t, "  ANN@Example.COM ", userPassword)
		})
		t.Run("OKDefaultTTL", func(t *testing.T) {
			a := &entities.Auth{DB: db.DB}
			tok, err := a.Login(ctx, creds(userEmail, userPassword))
			if err != nil || tok.ExpiresIn != entities.DefaultTokenTTL {
				t.Errorf("Login() with TokenTTL 0 = %v, %v, want %v", tok.ExpiresIn, err, entities.DefaultTokenTTL)
			}
		})
		var messages []string
		for _, tc := range []struct{ name, email, password string }{
			{"ErrInvalidCredentialsUnknownEmail", "nobody@example.com", userPassword},
			{"ErrInvalidCredentialsWrongPassword", userEmail, "wrong-password"},
			{"ErrInvalidCredentialsInactive", "ina@example.com", "ina-secret-1"},
			{"ErrInvalidCredentialsNoPassword", "nopw@example.com", "whatever-1"},
			{"ErrInvalidCredentialsEmpty", "", ""},
			{"ErrInvalidCredentialsTooLong", userEmail, userPassword + strings.Repeat("x", 80)},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := f.auth.Login(ctx, creds(tc.email, tc.password))
				e := wantError(t, "Login("+tc.email+")", err, http.StatusBadRequest, "InvalidCredentials")
				messages = append(messages, e.Message)
			})
		}
		t.Run("OneMessageForEveryReason", func(t *testing.T) {
			for _, m := range messages {
				if m != messages[0] {
					t.Errorf("Login() messages differ: %q and %q", messages[0], m)
				}
			}
		})
	})
}

func TestAuth_Login_Throttle(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newAuthFixture(t, db)
		ctx := context.Background()
		// Ten failures one minute apart, in mixed case: they count for the same e-mail.
		for i := range 10 {
			email := userEmail
			if i%2 == 1 {
				email = strings.ToUpper(userEmail)
			}
			_, err := f.auth.Login(ctx, creds(email, "wrong-password"))
			wantError(t, "Login(wrong password)", err, http.StatusBadRequest, "InvalidCredentials")
			f.clock.Add(time.Minute)
		}
		// Now 10 minutes after the first failure: 5 minutes until it leaves the 15-minute window.
		t.Run("ErrTooManyRequests", func(t *testing.T) {
			_, err := f.auth.Login(ctx, creds(userEmail, userPassword))
			e := wantError(t, "Login(11th attempt)", err, http.StatusTooManyRequests, "TooManyRequests")
			if got := e.Header.Get("Retry-After"); got != "300" {
				t.Errorf("Retry-After = %q, want %q", got, "300")
			}
		})
		t.Run("ErrTooManyRequestsDoesNotExtend", func(t *testing.T) {
			f.clock.Add(4*time.Minute + 30*time.Second)
			_, err := f.auth.Login(ctx, creds(userEmail, userPassword))
			e := wantError(t, "Login(blocked)", err, http.StatusTooManyRequests, "TooManyRequests")
			if got := e.Header.Get("Retry-After"); got != "30" {
				t.Errorf("Retry-After = %q, want %q", got, "30")
			}
		})
		t.Run("OKOtherEmail", func(t *testing.T) {
			f.login(t, adminEmail, adminPassword)
		})
		t.Run("OKAfterTheOldestLeaves", func(t *testing.T) {
			f.clock.Add(30 * time.Second)
			f.login(t, userEmail, userPassword)
		})
		t.Run("OKSuccessClearsTheCount", func(t *testing.T) {
			for range 10 {
				_, err := f.auth.Login(ctx, creds(userEmail, "wrong-password"))
				wantError(t, "Login(wrong password)", err, http.StatusBadRequest, "InvalidCredentials")
			}
			_, err := f.auth.Login(ctx, creds(userEmail, userPassword))
			wantError(t, "Login(11th attempt)", err, http.StatusTooManyRequests, "TooManyRequests")
		})
	})
}

func TestAuth_Authenticate(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newAuthFixture(t, db)
		ctx := context.Background()
		t.Run("OK", func(t *testing.T) {
			tok := f.login(t, userEmail, userPassword)
			p, err := f.auth.Authenticate(ctx, tok.AccessToken)
			if err != nil {
				t.Fatal(err)
			}
			want := entities.Principal{CustomerID: f.ids[userEmail], Email: userEmail}
			if diff := cmp.Diff(want, p); diff != "" {
				t.Errorf("Authenticate() (-want +got):\n%s", diff)
			}
		})
		t.Run("OKAdmin", func(t *testing.T) {
			tok := f.login(t, adminEmail, adminPassword)
			p, err := f.auth.Authenticate(ctx, tok.AccessToken)
			want := entities.Principal{CustomerID: f.ids[adminEmail], Email: adminEmail, Admin: true}
			if diff := cmp.Diff(want, p); err != nil || diff != "" {
				t.Errorf("Authenticate(admin) = %v (-want +got):\n%s", err, diff)
			}
		})
		t.Run("OKNotAdminInACustomRole", func(t *testing.T) {
			// A role named like the system role but without its system name does not make an admin.
			exec(t, db, `INSERT INTO customer_role (id, name) VALUES ('custom', 'Administrators (custom)')`)
			exec(t, db, `INSERT INTO customer_role_mapping (customer_id, customer_role_id) VALUES (?, 'custom')`, f.ids[userEmail])
			tok := f.login(t, userEmail, userPassword)
			if p, err := f.auth.Authenticate(ctx, tok.AccessToken); err != nil || p.Admin {
				t.Errorf("Authenticate(custom role) = %+v, %v, want not admin", p, err)
			}
		})

		unauthorized := func(t *testing.T, token, wantChallenge string) {
			t.Helper()
			_, err := f.auth.Authenticate(ctx, token)
			e := wantError(t, "Authenticate("+token+")", err, http.StatusUnauthorized, "Unauthorized")
			if got := e.Header.Get("WWW-Authenticate"); got != wantChallenge {
				t.Errorf("WWW-Authenticate = %q, want %q", got, wantChallenge)
			}
		}
		const invalid = `Bearer error="invalid_token"`
		t.Run("ErrUnauthorizedEmpty", func(t *testing.T) { unauthorized(t, "", "Bearer") })
		t.Run("ErrUnauthorizedMalformed", func(t *testing.T) {
			unauthorized(t, "not a token", invalid)
			unauthorized(t, strings.Repeat("!", 43), invalid)
		})
		t.Run("ErrUnauthorizedUnknown", func(t *testing.T) { unauthorized(t, strings.Repeat("A", 43), invalid) })
		t.Run("ErrUnauthorizedExpired", func(t *testing.T) {
			tok := f.login(t, userEmail, userPassword)
			f.clock.Add(time.Hour - time.Second)
			if _, err := f.auth.Authenticate(ctx, tok.AccessToken); err != nil {
				t.Fatalf("Authenticate() a second before expiry = %v", err)
			}
			f.clock.Add(time.Second)
			unauthorized(t, tok.AccessToken, invalid)
		})
		t.Run("ErrUnauthorizedRevoked", func(t *testing.T) {
			tok := f.login(t, userEmail, userPassword)
			other := f.login(t, userEmail, userPassword)
			if err := f.auth.Revoke(ctx, tok.AccessToken); err != nil {
				t.Fatal(err)
			}
			unauthorized(t, tok.AccessToken, invalid)
			if _, err := f.auth.Authenticate(ctx, other.AccessToken); err != nil {
				t.Errorf("Authenticate(another token of the customer) = %v", err)
			}
		})
		t.Run("ErrUnauthorizedDeactivated", func(t *testing.T) {
			tok := f.login(t, userEmail, userPassword)
			exec(t, db, `UPDATE customer SET active = ? WHERE id = ?`, false, f.ids[userEmail])
			defer exec(t, db, `UPDATE customer SET active = ? WHERE id = ?`, true, f.ids[userEmail])
			unauthorized(t, tok.AccessToken, invalid)
		})
		t.Run("ErrUnauthorizedDeletedCustomer", func(t *testing.T) {
			tok := f.login(t, adminEmail, adminPassword)
			exec(t, db, `DELETE FROM customer WHERE id = ?`, f.ids[adminEmail])
			unauthorized(t, tok.AccessToken, invalid)
		})
	})
}

func TestAuth_Revoke(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newAuthFixture(t, db)
		ctx := context.Background()
		t.Run("OK", func(t *testing.T) {
			tok := f.login(t, userEmail, userPassword)
			if err := f.auth.Revoke(ctx, tok.AccessToken); err != nil {
				t.Fatal(err)
			}
			if n := count(t, db, `SELECT COUNT(*) FROM access_token`); n != 0 {
				t.Errorf("tokens after Revoke = %d, want 0", n)
			}
		})
		t.Run("OKTwice", func(t *testing.T) {
			tok := f.login(t, userEmail, userPassword)
			for range 2 {
				if err := f.auth.Revoke(ctx, tok.AccessToken); err != nil {
					t.Errorf("Revoke() = %v", err)
				}
			}
		})
		t.Run("OKMalformed", func(t *testing.T) {
			if err := f.auth.Revoke(ctx, "garbage"); err != nil {
				t.Errorf("Revoke(garbage) = %v", err)
			}
		})
	})
}

func (f *authFixture) inTx(t testing.TB, fn func(ctx context.Context, tx *sqldb.Tx) error) {
	t.Helper()
	ctx := context.Background()
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := fn(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestRevokeCustomerTokens(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newAuthFixture(t, db)
		ctx := context.Background()
		a := f.login(t, userEmail, userPassword)
		b := f.login(t, userEmail, userPassword)
		admin := f.login(t, adminEmail, adminPassword)
		f.inTx(t, func(ctx context.Context, tx *sqldb.Tx) error {
			return entities.RevokeCustomerTokens(ctx, tx, f.ids[userEmail])
		})
		for _, tok := range []string{a.AccessToken, b.AccessToken} {
			_, err := f.auth.Authenticate(ctx, tok)
			wantError(t, "Authenticate(revoked)", err, http.StatusUnauthorized, "Unauthorized")
		}
		if _, err := f.auth.Authenticate(ctx, admin.AccessToken); err != nil {
			t.Errorf("Authenticate(another customer's token) = %v", err)
		}
	})
}

func TestSetPasswordHash(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newAuthFixture(t, db)
		ctx := context.Background()
		t.Run("OK", func(t *testing.T) {
			old := f.login(t, userEmail, userPassword)
			f.setPassword(t, f.ids[userEmail], "new-secret-2")
			_, err := f.auth.Authenticate(ctx, old.AccessToken)
			wantError(t, "Authenticate(token from before the new password)", err, http.StatusUnauthorized, "Unauthorized")
			_, err = f.auth.Login(ctx, creds(userEmail, userPassword))
			wantError(t, "Login(old password)", err, http.StatusBadRequest, "InvalidCredentials")
			f.login(t, userEmail, "new-secret-2")
		})
		t.Run("OKFirstPassword", func(t *testing.T) {
			f.setPassword(t, f.ids["nopw@example.com"], "first-secret")
			if n := count(t, db, `SELECT COUNT(*) FROM customer WHERE id = ? AND has_password = ?`, f.ids["nopw@example.com"], true); n != 1 {
				t.Errorf("HasPassword after SetPasswordHash = false")
			}
			f.login(t, "nopw@example.com", "first-secret")
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			err = entities.SetPasswordHash(ctx, tx, "nosuchcustomer", "x")
			wantError(t, "SetPasswordHash(unknown)", err, http.StatusNotFound, "NotFound")
		})
	})
}

func TestValidatePassword(t *testing.T) {
	for _, tc := range []struct {
		password string
		want     string // error code of the detail, "" for valid
	}{
		{"", "Required"},
		{"short", "InvalidValue"},
		{"1234567", "InvalidValue"},
		{"12345678", ""},
		{"ééééééé", "InvalidValue"}, // 7 characters, 14 bytes
		{"éééééééé", ""},
		{strings.Repeat("x", 72), ""},
		{strings.Repeat("x", 73), "InvalidValue"},
		{strings.Repeat("é", 37), "InvalidValue"}, // 74 bytes
	} {
		err := entities.ValidatePassword(tc.password)
		got := ""
		if err != nil {
			e, ok := err.(*odata.Error)
			if !ok || e.Status() != http.StatusBadRequest || e.Target != "password" || len(e.Details) != 1 {
				t.Errorf("ValidatePassword(%q) = %#v, want a 400 about password", tc.password, err)
				continue
			}
			got = e.Details[0].Code
		}
		if got != tc.want {
			t.Errorf("ValidatePassword(%q) = %q, want %q", tc.password, got, tc.want)
		}
	}
}

func TestHashPassword(t *testing.T) {
	h, err := entities.HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$2") {
		t.Errorf("HashPassword() = %q, want a bcrypt hash", h)
	}
	for _, tc := range []struct {
		password string
		want     bool
	}{
		{"correct horse", true},
		{"Correct horse", false},
		{"correct horse ", false},
		{"", false},
	} {
		if got := entities.CheckPassword(h, tc.password); got != tc.want {
			t.Errorf("CheckPassword(h, %q) = %v, want %v", tc.password, got, tc.want)
		}
	}
	long := strings.Repeat("p", 72)
	h, err = entities.HashPassword(long)
	if err != nil {
		t.Fatal(err)
	}
	if entities.CheckPassword(h, long+"more") {
		t.Errorf("CheckPassword(h, 72 bytes + more) = true, want false (bcrypt would ignore the tail)")
	}
	if _, err := entities.HashPassword("short"); err == nil {
		t.Errorf("HashPassword(%q) = nil error", "short")
	}
}

// BenchmarkAuth_Authenticate measures the per-request token check, reading the database every time (CacheTTL 0)
// and with the store's default cache (1s, so every check but the first of each second is a cache hit). SQLite
// only: a benchmark measures the code path, and SQLite in a temporary file has no network or server in it;
// TestAuth_* run on both databases.
func BenchmarkAuth_Authenticate(b *testing.B) {
	db := dbtest.SQLite(b)
	f := newAuthFixture(b, db)
	tok := f.login(b, userEmail, userPassword)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		ttl  time.Duration
	}{{"Query", 0}, {"Cached", time.Second}} {
		b.Run(c.name, func(b *testing.B) {
			f.auth.CacheTTL = c.ttl
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.auth.Authenticate(ctx, tok.AccessToken); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAuth_Login_ThrottleConcurrent fires many wrong sign-ins at once, as an attacker spreading them over server
// nodes would: no more than 10 reach the password check.
func TestAuth_Login_ThrottleConcurrent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newAuthFixture(t, db)
		const attempts = 20
		var wg sync.WaitGroup
		codes := make([]string, attempts)
		for i := range attempts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := f.auth.Login(context.Background(), creds(userEmail, "wrong-password"))
				codes[i] = odata.AsError(err).Code
			}()
		}
		wg.Wait()
		n := map[string]int{}
		for _, c := range codes {
			n[c]++
		}
		if n["InvalidCredentials"] < 1 || n["InvalidCredentials"] > 10 || n["InvalidCredentials"]+n["TooManyRequests"] != attempts {
			t.Errorf("Login() x%d concurrently = %v, want at most 10 InvalidCredentials and the rest TooManyRequests", attempts, n)
		}
	})
}

// TestAuth_Login_ThrottlePerClient checks that failures count per e-mail and client address: ten wrong passwords
// from one address block that e-mail from that address only, so nobody can lock another customer (the admin)
// out from elsewhere.
func TestAuth_Login_ThrottlePerClient(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newAuthFixture(t, db)
		ctx := context.Background()
		from := func(client netip.Addr, email, password string) error {
			_, err := f.auth.Login(ctx, entities.Credentials{Email: email, Password: password, Client: client})
			return err
		}
		for range 10 {
			wantError(t, "Login(admin, wrong password) from B", from(clientB, adminEmail, "wrong-password"),
				http.StatusBadRequest, "InvalidCredentials")
		}
		t.Run("ErrTooManyRequestsFromThatAddress", func(t *testing.T) {
			e := wantError(t, "Login(admin) from B", from(clientB, adminEmail, adminPassword), http.StatusTooManyRequests, "TooManyRequests")
			if e.Header.Get("Retry-After") != "900" || !strings.Contains(e.Message, "this e-mail") {
				t.Errorf("Login(admin) from B = %q, Retry-After %q, want the e-mail's 900 s", e.Message, e.Header.Get("Retry-After"))
			}
		})
		t.Run("OKFromAnotherAddress", func(t *testing.T) {
			if err := from(clientA, adminEmail, adminPassword); err != nil {
				t.Errorf("Login(admin) from A after 10 failures from B = %v, want a token", err)
			}
			if err := from(netip.Addr{}, adminEmail, adminPassword); err != nil {
				t.Errorf("Login(admin) from an unknown address = %v, want a token", err)
			}
		})
		t.Run("OKOtherEmailFromThatAddress", func(t *testing.T) {
			if err := from(clientB, userEmail, userPassword); err != nil {
				t.Errorf("Login(ann) from B = %v, want a token", err)
			}
		})
		t.Run("IPv6Network", func(t *testing.T) {
			for i := range 10 {
				host := netip.MustParseAddr("2001:db8:7:7::" + strconv.Itoa(i+1))
				wantError(t, "Login(wrong password) from "+host.String(), from(host, userEmail, "wrong-password"),
					http.StatusBadRequest, "InvalidCredentials")
			}
			wantError(t, "Login() from another host of the /64", from(netip.MustParseAddr("2001:db8:7:7::ff"), userEmail, userPassword),
				http.StatusTooManyRequests, "TooManyRequests")
			if err := from(netip.MustParseAddr("2001:db8:7:8::1"), userEmail, userPassword); err != nil {
				t.Errorf("Login() from another /64 = %v, want a token", err)
			}
		})
	})
}

// TestAuth_Login_ThrottleClient checks the limit per client address: after 50 failures for any e-mails (here
// unknown ones) the address is refused, for every e-mail, without a password check and without a new row, so
// the attempt table stays bounded; rows older than the window are purged.
func TestAuth_Login_ThrottleClient(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newAuthFixture(t, db)
		ctx := context.Background()
		var checks atomic.Int64
		defer entities.SetCheckPassword(func(hash, password string) bool {
			checks.Add(1)
			return entities.CheckPassword(hash, password)
		})()
		for i := range 50 {
			_, err := f.auth.Login(ctx, creds(fmt.Sprintf("nobody%02d@example.com", i), "any-password"))
			wantError(t, "Login(unknown e-mail)", err, http.StatusBadRequest, "InvalidCredentials")
			if i == 9 {
				f.clock.Add(5 * time.Minute)
			}
		}
		checks.Store(0)
		for i := range 30 {
			_, err := f.auth.Login(ctx, creds(fmt.Sprintf("more%02d@example.com", i), "any-password"))
			wantError(t, "Login(unknown e-mail) past the address's limit", err, http.StatusTooManyRequests, "TooManyRequests")
		}
		_, err := f.auth.Login(ctx, creds(adminEmail, adminPassword))
		e := wantError(t, "Login(admin) from the blocked address", err, http.StatusTooManyRequests, "TooManyRequests")
		if !strings.Contains(e.Message, "this address") || e.Header.Get("Retry-After") != "600" {
			t.Errorf("Login(admin) from the blocked address = %q, Retry-After %q, want the address's 600 s",
				e.Message, e.Header.Get("Retry-After"))
		}
		if n := checks.Load(); n != 0 {
			t.Errorf("password checks past the address's limit = %d, want 0", n)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM login_attempt`); n != 50 {
			t.Errorf("login_attempt rows = %d, want the 50 counted failures", n)
		}
		_, err = f.auth.Login(ctx, entities.Credentials{Email: adminEmail, Password: adminPassword, Client: clientB})
		if err != nil {
			t.Errorf("Login(admin) from another address = %v", err)
		}
		f.clock.Add(10 * time.Minute) // the first ten failures leave the window
		f.login(t, adminEmail, adminPassword)
		if n := count(t, db, `SELECT COUNT(*) FROM login_attempt`); n != 40 {
			t.Errorf("login_attempt rows after the window moved = %d, want 40", n)
		}
	})
}

// TestAuth_Login_ConcurrentCorrect signs one customer in many times at once: no attempt is refused, since
// attempts that succeed do not count as failures.
func TestAuth_Login_ConcurrentCorrect(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newAuthFixture(t, db)
		// Six failures first: with the default of 4 checks at once, six failures and four attempts in flight
		// stay within the limit of 10, so correct sign-ins still pass.
		for range 6 {
			_, err := f.auth.Login(context.Background(), creds(userEmail, "wrong-password"))
			wantError(t, "Login(wrong password)", err, http.StatusBadRequest, "InvalidCredentials")
		}
		const attempts = 30
		errs := make([]error, attempts)
		var wg sync.WaitGroup
		for i := range attempts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = f.auth.Login(context.Background(), creds(userEmail, userPassword))
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("concurrent correct Login() #%d = %v, want a token", i, err)
			}
		}
		if n := count(t, db, `SELECT COUNT(*) FROM login_attempt`); n != 0 {
			t.Errorf("login_attempt rows after correct sign-ins = %d, want 0 (a success clears the failures)", n)
		}
	})
}

// TestAuth_Login_CheckConcurrency checks the bound on password checks running at once, and what a sign-in that
// cannot get one gets: 503 with Retry-After after CheckWait, or at once when its context ends.
func TestAuth_Login_CheckConcurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		newAuthFixture(t, db)
		t.Run("AtMostMaxConcurrentChecks", func(t *testing.T) {
			var running, most atomic.Int64
			defer entities.SetCheckPassword(func(hash, password string) bool {
				n := running.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				defer running.Add(-1)
				time.Sleep(time.Millisecond) // hold the check a little so that others pile up
				return entities.CheckPassword(hash, password)
			})()
			a := &entities.Auth{DB: db.DB, MaxConcurrentChecks: 3, CheckWait: time.Minute}
			var wg sync.WaitGroup
			for i := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					client := netip.AddrFrom4([4]byte{192, 0, 2, byte(i)})
					if _, err := a.Login(context.Background(), entities.Credentials{Email: userEmail, Password: userPassword, Client: client}); err != nil {
						t.Errorf("Login() = %v", err)
					}
				}()
			}
			wg.Wait()
			if m := most.Load(); m < 1 || m > 3 {
				t.Errorf("password checks at once = %d, want 1 to 3", m)
			}
		})
		t.Run("ErrServiceUnavailable", func(t *testing.T) {
			entered, release := make(chan struct{}), make(chan struct{})
			defer entities.SetCheckPassword(func(hash, password string) bool {
				entered <- struct{}{}
				<-release
				return entities.CheckPassword(hash, password)
			})()
			a := &entities.Auth{DB: db.DB, MaxConcurrentChecks: 1, CheckWait: 20 * time.Millisecond}
			done := make(chan error, 1)
			go func() {
				_, err := a.Login(context.Background(), creds(userEmail, userPassword))
				done <- err
			}()
			<-entered // the only check is taken
			_, err := a.Login(context.Background(), creds(adminEmail, adminPassword))
			e := wantError(t, "Login() while the check is taken", err, http.StatusServiceUnavailable, "ServiceUnavailable")
			if e.Header.Get("Retry-After") != "1" {
				t.Errorf("Retry-After = %q, want 1", e.Header.Get("Retry-After"))
			}
			// A caller whose context ends while it waits stops waiting (its deadline leaves ample time for the
			// queries before the wait).
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			a.CheckWait = time.Hour
			_, err = a.Login(ctx, creds(adminEmail, adminPassword))
			if e := wantError(t, "Login(context ending) while the check is taken", err, http.StatusServiceUnavailable,
				"ServiceUnavailable"); !errors.Is(e, context.DeadlineExceeded) {
				t.Errorf("Login(context ending) = %v, want it to wrap context.DeadlineExceeded", e)
			}
			close(release)
			if err := <-done; err != nil {
				t.Errorf("the sign-in holding the check = %v", err)
			}
		})
	})
}

// TestAuth_Cache checks the bound CacheTTL puts on revocations the Auth does not see (made through another node,
// here straight in the database), and that Revoke, Forget and the token's expiry end a cached check at once.
func TestAuth_Cache(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newAuthFixture(t, db)
		f.auth.CacheTTL = 10 * time.Second
		ctx := context.Background()
		deleteTokens := func() { exec(t, db, `DELETE FROM access_token`) }
		ok := func(t *testing.T, what, tok string) {
			t.Helper()
			if p, err := f.auth.Authenticate(ctx, tok); err != nil || p.CustomerID != f.ids[userEmail] {
				t.Fatalf("Authenticate(%s) = %+v, %v, want the user", what, p, err)
			}
		}
		refused := func(t *testing.T, what, tok string) {
			t.Helper()
			_, err := f.auth.Authenticate(ctx, tok)
			wantError(t, "Authenticate("+what+")", err, http.StatusUnauthorized, "Unauthorized")
		}
		t.Run("OKWithinBound", func(t *testing.T) {
			tok := f.login(t, userEmail, userPassword).AccessToken
			ok(t, "a new token", tok)
			deleteTokens()
			ok(t, "a token revoked elsewhere, within CacheTTL", tok)
			f.clock.Add(10 * time.Second)
			refused(t, "a token revoked elsewhere, CacheTTL later", tok)
		})
		t.Run("ErrForget", func(t *testing.T) {
			tok := f.login(t, userEmail, userPassword).AccessToken
			ok(t, "a new token", tok)
			deleteTokens()
			f.auth.Forget()
			refused(t, "a token revoked, after Forget", tok)
		})
		t.Run("ErrRevoke", func(t *testing.T) {
			tok := f.login(t, userEmail, userPassword).AccessToken
			ok(t, "a new token", tok)
			if err := f.auth.Revoke(ctx, tok); err != nil {
				t.Fatal(err)
			}
			refused(t, "a token revoked through the Auth", tok)
		})
		t.Run("ErrExpiredWhileCached", func(t *testing.T) {
			tok := f.login(t, userEmail, userPassword).AccessToken
			f.clock.Add(time.Hour - 5*time.Second)
			ok(t, "a token 5s before it expires", tok)
			f.clock.Add(5 * time.Second)
			_, err := f.auth.Authenticate(ctx, tok)
			e := wantError(t, "Authenticate(an expired token checked 5s before)", err, http.StatusUnauthorized, "Unauthorized")
			if e.Message != "The access token has expired." {
				t.Errorf("message = %q, want the expiry (the database's answer, not the cache's)", e.Message)
			}
		})
	})
}

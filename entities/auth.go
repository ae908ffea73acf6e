package entities

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// DefaultTokenTTL is the token lifetime when Auth.TokenTTL is zero.
const DefaultTokenTTL = 24 * time.Hour

// Sign-in throttling. An attempt counts from the moment it is admitted to a password check until it succeeds
// (then its row goes) or forever after when it fails, until it leaves the window. An attempt is refused with 429,
// before any password check, when maxFailedLogins attempts of its e-mail from its client address, or
// maxClientFailedLogins attempts of its client address for any e-mails, already count; it is allowed again when
// the oldest of those leaves the window.
const (
	maxFailedLogins       = 10
	maxClientFailedLogins = 50
	failedLoginWindow     = 15 * time.Minute
)

// Password checks (bcrypt, tens of milliseconds of CPU each) that may run at once per Auth, and how long a
// sign-in waits for its turn before it is answered 503, by default.
const (
	DefaultMaxConcurrentChecks = 4
	DefaultCheckWait           = 5 * time.Second
)

// tokenBytes is the entropy of a token; its base64url form has tokenLength characters.
const (
	tokenBytes  = 32
	tokenLength = 43
)

// maxEmailBytes bounds the e-mail a sign-in looks up (RFC 5321 allows 254 characters in a path).
const maxEmailBytes = 320

// Auth issues, checks and revokes bearer tokens against the customers in DB. Its methods are safe for concurrent
// use, and every piece of state (tokens, sign-in attempts) lives in the database, so several server nodes may
// share it. Use it by pointer; do not copy it after first use.
//
// Revocation bound: zero on the node that revokes, CacheTTL on the others. Authenticate reads the token, its
// customer (active or not) and the customer's roles from the database, and with a CacheTTL keeps the principal
// it found for at most that long (never past the token's expiry). Revoke, and Forget (which the OData service
// calls after each committed write of a customer or a role, Options.PrincipalChanged, and the server after
// every other request that may write), drop every cached principal, and a
// check that ran concurrently with them is not cached; so once a revocation commits (Revoke, a new password,
// deactivation or deletion of the customer, each of which removes the token rows in its own transaction, or the
// customer losing the Administrators role), every Authenticate that starts after it on the same node refuses the
// token, and on another node at most CacheTTL later. With CacheTTL zero nothing is cached and the bound is zero
// on every node. Only a request whose check had already run when the revocation committed still finishes.
//
// Sign-in throttling (SPEC 2 and 9) is per e-mail and client address and per client address; see Login.
type Auth struct {
	// DB is the store database, migrated with Migrations.
	DB *sqldb.DB
	// TokenTTL is the lifetime of a new token; zero means DefaultTokenTTL.
	TokenTTL time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// MaxConcurrentChecks bounds the password checks that run at once through this Auth (one per server node);
	// zero means DefaultMaxConcurrentChecks.
	MaxConcurrentChecks int
	// CheckWait is how long a sign-in waits for a password check to become free before it is refused with 503
	// ServiceUnavailable and Retry-After; zero means DefaultCheckWait.
	CheckWait time.Duration
	// CacheTTL is how long Authenticate may answer a token it checked again without reading the database: the
	// bound on revocations made by another node (see above). Zero means it reads the database on every call.
	CacheTTL time.Duration

	// authenticate is the prepared statement of Authenticate (the per-request query), made on first use.
	authenticate atomic.Pointer[sql.Stmt]
	// checks holds a token per password check running; made on first use.
	checksOnce sync.Once
	checks     chan struct{}
	// cache holds the principals of checked tokens while CacheTTL allows.
	cache tokenCache
}

// Credentials are what a sign-in presents.
type Credentials struct {
	// Email and Password are the customer's; the e-mail matches ignoring ASCII case and surrounding spaces.
	Email, Password string
	// Client is the address the sign-in comes from (the server resolves trusted proxies); the zero Addr when
	// unknown, and then only the e-mail is throttled.
	Client netip.Addr
}

// Token is a newly issued bearer token.
type Token struct {
	// AccessToken is the opaque token the client sends as "Authorization: Bearer <AccessToken>".
	AccessToken string
	// ExpiresIn is its lifetime.
	ExpiresIn time.Duration
}

// Principal is the customer a token belongs to.
type Principal struct {
	CustomerID string
	Email      string
	// Admin tells whether the customer is a member of the system role Administrators.
	Admin bool
}

func (a *Auth) now() time.Time {
	if a.Now != nil {
		return a.Now().UTC()
	}
	return time.Now().UTC()
}

func (a *Auth) ttl() time.Duration {
	if a.TokenTTL > 0 {
		return a.TokenTTL
	}
	return DefaultTokenTTL
}

var (
	stmtPurgeAttempts = sqldb.NewStatement(`DELETE FROM login_attempt WHERE attempted_on_utc <= ?`)
	stmtInsertAttempt = sqldb.NewStatement(`INSERT INTO login_attempt (id, email, client_address, attempted_on_utc, pending)
VALUES (?, ?, ?, ?, ?)`)
	// stmtCountAttempts counts the attempts of the e-mail from the client and those of the client, in the
	// window, whose pending flag is one of the two arguments given: (false, true) counts every attempt,
	// (false, false) the failures only.
	stmtCountAttempts = sqldb.NewStatement(`SELECT
	(SELECT COUNT(*) FROM login_attempt
		WHERE email = ? AND client_address = ? AND attempted_on_utc > ? AND pending IN (?, ?)),
	(SELECT COUNT(*) FROM login_attempt
		WHERE client_address = ? AND client_address <> '' AND attempted_on_utc > ? AND pending IN (?, ?))`)
	stmtNthEmailFailure = sqldb.NewStatement(`SELECT attempted_on_utc FROM login_attempt
WHERE email = ? AND client_address = ? AND attempted_on_utc > ? AND pending = ?
ORDER BY attempted_on_utc LIMIT 1 OFFSET ?`)
	stmtNthClientFailure = sqldb.NewStatement(`SELECT attempted_on_utc FROM login_attempt
WHERE client_address = ? AND attempted_on_utc > ? AND pending = ? ORDER BY attempted_on_utc LIMIT 1 OFFSET ?`)
	stmtFailAttempt   = sqldb.NewStatement(`UPDATE login_attempt SET pending = ? WHERE id = ?`)
	stmtDeleteAttempt = sqldb.NewStatement(`DELETE FROM login_attempt WHERE id = ?`)
	stmtClearAttempts = sqldb.NewStatement(`DELETE FROM login_attempt WHERE email = ? AND client_address = ?`)
	stmtLoginCustomer = sqldb.NewStatement(`SELECT c.id, c.active, p.password_hash
FROM customer c LEFT JOIN customer_password p ON p.customer_id = c.id
WHERE lower(c.email) = ?`)
	stmtInsertToken = sqldb.NewStatement(`INSERT INTO access_token (token_hash, customer_id, created_on_utc, expires_on_utc)
VALUES (?, ?, ?, ?)`)
	stmtTouchCustomer = sqldb.NewStatement(`UPDATE customer SET last_activity_date_utc = ? WHERE id = ?`)
	stmtPurgeTokens   = sqldb.NewStatement(`DELETE FROM access_token WHERE expires_on_utc <= ?`)
	stmtDeleteToken   = sqldb.NewStatement(`DELETE FROM access_token WHERE token_hash = ?`)
	stmtAuthenticate  = sqldb.NewStatement(`SELECT c.id, c.email, c.active, t.expires_on_utc,
	EXISTS (SELECT 1 FROM customer_role_mapping m JOIN customer_role r ON r.id = m.customer_role_id
		WHERE m.customer_id = c.id AND r.system_name = ? AND r.is_system_role)
FROM access_token t JOIN customer c ON c.id = t.customer_id
WHERE t.token_hash = ?`)
)

// Login checks an e-mail (matched ignoring ASCII case) and password and issues a token. A wrong e-mail or
// password, an inactive customer or one without a password is a 400 *odata.Error with code InvalidCredentials and
// one message for all of them; the time spent does not tell whether the e-mail exists.
//
// Throttling (SPEC 2 and 9), with every attempt a row of login_attempt that all nodes count:
//
//   - When 10 failures of the e-mail from the client's address, or 50 failures of the address for any
//     e-mails, lie within the last 15 minutes, an attempt is a 429 TooManyRequests with Retry-After (the seconds
//     until the oldest of them leaves the window). It runs no password check and writes no row, so hammering
//     neither extends the block nor grows the table: an address leaves at most 50 rows per window, whatever
//     e-mails it tries, known or not. Failures from one address never block the e-mail for another, so nobody
//     can lock the admin out from elsewhere.
//   - An attempt admitted to a password check is recorded at once as pending and counted with the others, on
//     every node: when that makes more than 10 (or 50) it is withdrawn and refused with 429. So of concurrent
//     wrong attempts no more than the limit reach a password check. A failed check turns the row into a
//     failure; a success removes it together with the e-mail's failures from that address, so correct
//     sign-ins, concurrent ones included, are not failures (with F failures counted, 10 - F attempts of the
//     e-mail can be checked at once).
//   - A client address is an IPv4 address or the /64 network of an IPv6 one (one host usually holds a whole
//     /64); without one (Credentials.Client zero) only the e-mail is throttled.
//
// At most MaxConcurrentChecks attempts are checked at once through a; a sign-in that finds none free waits for
// one, for at most CheckWait and no longer than ctx, and then is a 503 ServiceUnavailable with Retry-After: 1.
func (a *Auth) Login(ctx context.Context, c Credentials) (Token, error) {
	now := a.now()
	key := normalizeEmail(c.Email)
	// An e-mail that is not text without NUL matches no customer; PostgreSQL could not even record the attempt.
	if key == "" || c.Password == "" || len(key) > maxEmailBytes || !utf8.ValidString(key) || strings.IndexByte(key, 0) >= 0 {
		return Token{}, errInvalidCredentials()
	}
	client := clientKey(c.Client)
	// A blocked e-mail or address is refused before it waits for a password check.
	if err := a.throttled(ctx, key, client, now); err != nil {
		return Token{}, err
	}
	// The check is held until the attempt is resolved (a failure recorded or the token issued), so at most
	// MaxConcurrentChecks attempts per node are admitted but unresolved.
	release, err := a.acquireCheck(ctx)
	if err != nil {
		return Token{}, err
	}
	defer release()
	attempt, err := a.admit(ctx, key, client, now)
	if err != nil {
		return Token{}, err
	}
	customerID, ok, err := a.checkCredentials(ctx, key, c.Password)
	if err != nil {
		_, _ = a.DB.ExecContext(context.WithoutCancel(ctx), stmtDeleteAttempt.For(a.DB.Dialect()), attempt) // no verdict: not a failure
		return Token{}, err
	}
	if !ok {
		// The attempt's row stays, now a failure. Should marking it fail, it stays counted as pending.
		_, _ = a.DB.ExecContext(context.WithoutCancel(ctx), stmtFailAttempt.For(a.DB.Dialect()), false, attempt)
		return Token{}, errInvalidCredentials()
	}
	return a.issue(ctx, customerID, key, client, now)
}

// checkCredentials looks the customer up and compares the password: always one bcrypt comparison, whatever the
// reason for refusing.
func (a *Auth) checkCredentials(ctx context.Context, key, password string) (customerID string, ok bool, err error) {
	var (
		active bool
		hash   sql.NullString
	)
	err = a.DB.QueryRowContext(ctx, stmtLoginCustomer.For(a.DB.Dialect()), key).Scan(&customerID, &active, &hash)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", false, fmt.Errorf("entities: login: %w", err)
	}
	h := dummyHash()
	if found && hash.Valid {
		h = hash.String
	}
	if !checkPassword(h, password) || !found || !hash.Valid || !active {
		return "", false, nil
	}
	return customerID, true, nil
}

// issue stores a new token for the customer and records the customer's activity, in one transaction; then it
// removes the e-mail's attempts from the client, this one included.
func (a *Auth) issue(ctx context.Context, customerID, key, client string, now time.Time) (Token, error) {
	token, tokenHash := newToken()
	ttl := a.ttl()
	d := a.DB.Dialect()
	tx, err := a.DB.BeginTx(ctx, nil)
	if err != nil {
		return Token{}, fmt.Errorf("entities: login: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, stmtInsertToken.For(d), tokenHash, customerID, sqldb.TimeArg(d, now),
		sqldb.TimeArg(d, now.Add(ttl))); err != nil {
		return Token{}, fmt.Errorf("entities: login: store token: %w", err)
	}
	if _, err := tx.ExecContext(ctx, stmtTouchCustomer.For(d), sqldb.TimeArg(d, now), customerID); err != nil {
		return Token{}, fmt.Errorf("entities: login: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Token{}, fmt.Errorf("entities: login: %w", err)
	}
	// Outside the transaction, one statement each (concurrent sign-ins of one customer delete the same rows; in
	// one transaction with other statements they could deadlock). A failure does not undo the sign-in: the
	// attempt then counts as a failure until it leaves the window; expired tokens are purged by the next one.
	wc := context.WithoutCancel(ctx)
	_, _ = a.DB.ExecContext(wc, stmtClearAttempts.For(d), key, client)
	_, _ = a.DB.ExecContext(wc, stmtPurgeTokens.For(d), sqldb.TimeArg(d, now))
	return Token{AccessToken: token, ExpiresIn: ttl}, nil
}

// checkPassword is the password check of Login (tests watch it).
var checkPassword = CheckPassword

// clientKey is the address sign-ins are throttled by: an IPv4 address, the /64 network of an IPv6 address, or
// "" when unknown.
func clientKey(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return ""
	case a.Is4():
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}

// acquireCheck waits for a free password check (see Login) and returns the function that frees it.
func (a *Auth) acquireCheck(ctx context.Context) (release func(), err error) {
	a.checksOnce.Do(func() {
		n := a.MaxConcurrentChecks
		if n <= 0 {
			n = DefaultMaxConcurrentChecks
		}
		a.checks = make(chan struct{}, n)
	})
	release = func() { <-a.checks }
	select {
	case a.checks <- struct{}{}:
		return release, nil
	default:
	}
	wait := a.CheckWait
	if wait <= 0 {
		wait = DefaultCheckWait
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case a.checks <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		return nil, errChecksBusy(ctx.Err())
	case <-timer.C:
		return nil, errChecksBusy(nil)
	}
}

func errChecksBusy(cause error) *odata.Error {
	return &odata.Error{Code: odata.CodeServiceUnavailable,
		Message: "Too many sign-ins are being checked at the moment; try again shortly.",
		Header:  http.Header{"Retry-After": {"1"}}, Err: cause}
}

// admit records the attempt as pending (committed at once, so every node counts it) and counts every attempt
// in the window with it: when that is over a limit, it is removed again and refused with 429. Of several
// concurrent attempts the last to count sees all the others, so no more than the limit are admitted. It returns
// the attempt's row id.
func (a *Auth) admit(ctx context.Context, key, client string, now time.Time) (string, error) {
	d := a.DB.Dialect()
	cutoff := sqldb.TimeArg(d, now.Add(-failedLoginWindow))
	if _, err := a.DB.ExecContext(ctx, stmtPurgeAttempts.For(d), cutoff); err != nil {
		return "", fmt.Errorf("entities: login: purge attempts: %w", err)
	}
	id := odata.NewID()
	if _, err := a.DB.ExecContext(ctx, stmtInsertAttempt.For(d), id, key, client, sqldb.TimeArg(d, now), true); err != nil {
		return "", fmt.Errorf("entities: login: record attempt: %w", err)
	}
	perEmail, perClient, err := a.countAttempts(ctx, key, client, cutoff, true)
	if err != nil {
		return "", err
	}
	if perEmail <= maxFailedLogins && perClient <= maxClientFailedLogins {
		return id, nil
	}
	if _, err := a.DB.ExecContext(ctx, stmtDeleteAttempt.For(d), id); err != nil {
		return "", fmt.Errorf("entities: login: %w", err)
	}
	if err := a.throttled(ctx, key, client, now); err != nil {
		return "", err
	}
	// Over the limit with attempts still being checked (on other nodes, or failures plus checks in flight):
	// the answer comes in a moment.
	return "", errTooManyRequests("Too many sign-in attempts are being checked. Try again shortly.", time.Second)
}

// countAttempts counts the attempts in the window of the e-mail key from client and of client: every attempt
// with pending true, the failures only otherwise.
func (a *Auth) countAttempts(ctx context.Context, key, client string, cutoff any, pending bool) (perEmail, perClient int, err error) {
	err = a.DB.QueryRowContext(ctx, stmtCountAttempts.For(a.DB.Dialect()), key, client, cutoff, false, pending,
		client, cutoff, false, pending).Scan(&perEmail, &perClient)
	if err != nil {
		return 0, 0, fmt.Errorf("entities: login: count attempts: %w", err)
	}
	return perEmail, perClient, nil
}

// throttled returns the 429 of an attempt of the e-mail key from client when the failures in the window reach
// one of the limits, nil otherwise. Retry-After is the time until enough failures leave the window, for each
// limit reached.
func (a *Auth) throttled(ctx context.Context, key, client string, now time.Time) error {
	d := a.DB.Dialect()
	cutoff := sqldb.TimeArg(d, now.Add(-failedLoginWindow))
	perEmail, perClient, err := a.countAttempts(ctx, key, client, cutoff, false)
	if err != nil {
		return err
	}
	var (
		wait    time.Duration
		message string
	)
	// Allowed again once fewer than the limit remain: when the attempt at index count - limit (oldest first)
	// leaves the window.
	if perEmail >= maxFailedLogins {
		w, err := a.waitFor(ctx, stmtNthEmailFailure, []any{key, client, cutoff, false, perEmail - maxFailedLogins}, now)
		if err != nil {
			return err
		}
		wait, message = w, "Too many failed sign-in attempts for this e-mail. Try again later."
	}
	if perClient >= maxClientFailedLogins {
		w, err := a.waitFor(ctx, stmtNthClientFailure, []any{client, cutoff, false, perClient - maxClientFailedLogins}, now)
		if err != nil {
			return err
		}
		if w > wait || message == "" {
			wait = w
		}
		message = "Too many failed sign-in attempts from this address. Try again later."
	}
	if message == "" {
		return nil
	}
	return errTooManyRequests(message, wait)
}

// waitFor returns how long until the attempt the query selects leaves the window.
func (a *Auth) waitFor(ctx context.Context, st sqldb.Statement, args []any, now time.Time) (time.Duration, error) {
	var at any
	err := a.DB.QueryRowContext(ctx, st.For(a.DB.Dialect()), args...).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) { // it left meanwhile
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("entities: login: count attempts: %w", err)
	}
	t, err := sqldb.ScanTime(at)
	if err != nil {
		return 0, err
	}
	return t.Add(failedLoginWindow).Sub(now), nil
}

func errTooManyRequests(message string, wait time.Duration) *odata.Error {
	retry := max(1, int(math.Ceil(wait.Seconds())))
	e := &odata.Error{Code: odata.CodeTooManyRequests, Message: message, Header: http.Header{}}
	e.Header.Set("Retry-After", strconv.Itoa(retry))
	return e
}

// Authenticate returns the principal of an access token. An empty token, or one that is malformed, unknown,
// expired or revoked, or whose customer is now inactive or deleted, is a 401 *odata.Error with code Unauthorized
// and a WWW-Authenticate header (Bearer; error="invalid_token" when a token was presented).
func (a *Auth) Authenticate(ctx context.Context, accessToken string) (Principal, error) {
	if accessToken == "" {
		return Principal{}, errUnauthorized("An access token is required.", false)
	}
	if !wellFormedToken(accessToken) {
		return Principal{}, errUnauthorized("The access token is not valid.", true)
	}
	hash := hashToken(accessToken)
	now := a.now()
	var epoch uint64
	if a.CacheTTL > 0 {
		if p, ok := a.cache.get(hash, now); ok {
			return p, nil
		}
		epoch = a.cache.currentEpoch()
	}
	var (
		p       Principal
		active  bool
		expires any
	)
	stmt, err := a.authenticateStmt(ctx)
	if err != nil {
		return Principal{}, err
	}
	err = stmt.QueryRowContext(ctx, RoleAdministrators, hash).
		Scan(&p.CustomerID, &p.Email, &active, &expires, &p.Admin)
	if errors.Is(err, sql.ErrNoRows) {
		return Principal{}, errUnauthorized("The access token is not valid.", true)
	}
	if err != nil {
		return Principal{}, fmt.Errorf("entities: authenticate: %w", err)
	}
	exp, err := sqldb.ScanTime(expires)
	if err != nil {
		return Principal{}, err
	}
	if !now.Before(exp) {
		return Principal{}, errUnauthorized("The access token has expired.", true)
	}
	if !active {
		return Principal{}, errUnauthorized("The access token is not valid.", true)
	}
	if a.CacheTTL > 0 {
		until := now.Add(a.CacheTTL)
		if exp.Before(until) {
			until = exp
		}
		a.cache.put(hash, p, until, epoch)
	}
	return p, nil
}

// Forget drops every principal Authenticate cached, and the result of every check running meanwhile: call it
// after any write that may revoke a token or change a principal, once it committed.
func (a *Auth) Forget() { a.cache.forget() }

// authenticateStmt returns the prepared query of Authenticate, preparing it on first use. database/sql prepares it
// again on each pooled connection as needed and closes it with the DB.
func (a *Auth) authenticateStmt(ctx context.Context) (*sql.Stmt, error) {
	if s := a.authenticate.Load(); s != nil {
		return s, nil
	}
	s, err := a.DB.PrepareContext(ctx, stmtAuthenticate.For(a.DB.Dialect()))
	if err != nil {
		return nil, fmt.Errorf("entities: authenticate: %w", err)
	}
	if !a.authenticate.CompareAndSwap(nil, s) {
		s.Close()
		return a.authenticate.Load(), nil
	}
	return s, nil
}

// Revoke revokes an access token (sign-out). Revoking a token that is unknown, expired or already revoked does
// nothing.
func (a *Auth) Revoke(ctx context.Context, accessToken string) error {
	if !wellFormedToken(accessToken) {
		return nil
	}
	if _, err := a.DB.ExecContext(ctx, stmtDeleteToken.For(a.DB.Dialect()), hashToken(accessToken)); err != nil {
		return fmt.Errorf("entities: revoke token: %w", err)
	}
	a.Forget()
	return nil
}

// newToken returns a fresh token and the hash under which it is stored.
func newToken() (token, hash string) {
	var b [tokenBytes]byte
	_, _ = rand.Read(b[:])
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, hashToken(token)
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// wellFormedToken tells whether s could be a token issued by Login (43 base64url characters), so garbage never
// reaches the database.
func wellFormedToken(s string) bool {
	if len(s) != tokenLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// normalizeEmail trims s and lowers its ASCII letters, which is what lower() does on both databases (SQLite, and
// PostgreSQL under COLLATE "C") and so what the unique index customer_email_key compares.
func normalizeEmail(s string) string {
	s = strings.TrimSpace(s)
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}

func errInvalidCredentials() *odata.Error {
	return odata.BadRequest(odata.CodeInvalidCredentials, "", "The e-mail or password is incorrect.")
}

func errUnauthorized(msg string, invalidToken bool) *odata.Error {
	challenge := "Bearer"
	if invalidToken {
		challenge = `Bearer error="invalid_token"`
	}
	h := http.Header{}
	h.Set("WWW-Authenticate", challenge)
	return &odata.Error{Code: odata.CodeUnauthorized, Message: msg, Header: h}
}

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
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// DefaultTokenTTL is the token lifetime when Auth.TokenTTL is zero.
const DefaultTokenTTL = 24 * time.Hour

// Sign-in throttling: more than maxFailedLogins failed attempts for one e-mail within failedLoginWindow and the
// next attempt is refused with 429 until the oldest counted failure leaves the window.
const (
	maxFailedLogins   = 10
	failedLoginWindow = 15 * time.Minute
)

// tokenBytes is the entropy of a token; its base64url form has tokenLength characters.
const (
	tokenBytes  = 32
	tokenLength = 43
)

// maxEmailBytes bounds the e-mail a sign-in looks up (RFC 5321 allows 254 characters in a path).
const maxEmailBytes = 320

// Auth issues, checks and revokes bearer tokens against the customers in DB. Its methods are safe for concurrent
// use, and every piece of state (tokens, failed attempts) lives in the database, so several server nodes may share
// it. Use it by pointer; do not copy it after first use.
//
// Revocation bound: zero. Authenticate reads the token, its customer (active or not) and the customer's roles
// from the database on every call and caches none of them (its prepared statement is SQL text, no data). So once
// a revocation commits on any node (Revoke, a new password, deactivation or deletion of the customer, each of
// which removes the token rows in its own transaction), every Authenticate that starts after that commit, on any node,
// refuses the token; only a request whose check had already run when the revocation committed still finishes.
// The same holds for a customer who loses or gains the Administrators role. Failed sign-in attempts are rows too,
// so their count spans the nodes.
type Auth struct {
	// DB is the store database, migrated with Migrations.
	DB *sql.DB
	// Dialect is DB's dialect.
	Dialect sqldb.Dialect
	// TokenTTL is the lifetime of a new token; zero means DefaultTokenTTL.
	TokenTTL time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time

	// authenticate is the prepared statement of Authenticate (the per-request query), made on first use.
	authenticate atomic.Pointer[sql.Stmt]
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
	stmtPurgeAttempts  = sqldb.NewStatement(`DELETE FROM login_attempt WHERE attempted_on_utc <= ?`)
	stmtInsertAttempt  = sqldb.NewStatement(`INSERT INTO login_attempt (id, email, attempted_on_utc) VALUES (?, ?, ?)`)
	stmtRecentAttempts = sqldb.NewStatement(`SELECT id, attempted_on_utc FROM login_attempt
WHERE email = ? AND attempted_on_utc > ? ORDER BY attempted_on_utc, id`)
	stmtDeleteAttempt = sqldb.NewStatement(`DELETE FROM login_attempt WHERE id = ?`)
	stmtClearAttempts = sqldb.NewStatement(`DELETE FROM login_attempt WHERE email = ?`)
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
// one message for all of them; the time spent does not tell whether the e-mail exists. More than 10 failed
// attempts for one e-mail within 15 minutes is a 429 with code TooManyRequests and a Retry-After header, until
// the oldest counted failure leaves the window; a successful sign-in clears the count.
func (a *Auth) Login(ctx context.Context, email, password string) (Token, error) {
	now := a.now()
	key := normalizeEmail(email)
	// An e-mail that is not text without NUL matches no customer; PostgreSQL could not even record the attempt.
	if key == "" || password == "" || len(key) > maxEmailBytes || !utf8.ValidString(key) || strings.IndexByte(key, 0) >= 0 {
		return Token{}, errInvalidCredentials()
	}
	if err := a.throttle(ctx, key, now); err != nil {
		return Token{}, err
	}
	var (
		customerID string
		active     bool
		hash       sql.NullString
	)
	err := a.DB.QueryRowContext(ctx, stmtLoginCustomer.For(a.Dialect), key).Scan(&customerID, &active, &hash)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Token{}, fmt.Errorf("entities: login: %w", err)
	}
	h := dummyHash()
	if found && hash.Valid {
		h = hash.String
	}
	// Always one bcrypt comparison, whatever the reason for refusing.
	if !CheckPassword(h, password) || !found || !hash.Valid || !active {
		return Token{}, errInvalidCredentials()
	}

	token, tokenHash := newToken()
	ttl := a.ttl()
	d := a.Dialect
	tx, err := a.DB.BeginTx(ctx, nil)
	if err != nil {
		return Token{}, fmt.Errorf("entities: login: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, stmtInsertToken.For(d), tokenHash, customerID, sqldb.TimeArg(d, now),
		sqldb.TimeArg(d, now.Add(ttl))); err != nil {
		return Token{}, fmt.Errorf("entities: login: store token: %w", err)
	}
	if _, err := tx.ExecContext(ctx, stmtClearAttempts.For(d), key); err != nil {
		return Token{}, fmt.Errorf("entities: login: clear attempts: %w", err)
	}
	if _, err := tx.ExecContext(ctx, stmtTouchCustomer.For(d), sqldb.TimeArg(d, now), customerID); err != nil {
		return Token{}, fmt.Errorf("entities: login: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Token{}, fmt.Errorf("entities: login: %w", err)
	}
	// Housekeeping outside the transaction: expired tokens can never authenticate again. A failure here does not
	// undo the sign-in; the next one retries.
	_, _ = a.DB.ExecContext(ctx, stmtPurgeTokens.For(d), sqldb.TimeArg(d, now))
	return Token{AccessToken: token, ExpiresIn: ttl}, nil
}

// throttle records a sign-in attempt for key and refuses it with 429 when more than maxFailedLogins attempts are
// in the window. The attempt row is committed before counting, so of several concurrent attempts (on any node)
// the last to count sees all the others: at most maxFailedLogins password checks per window get through. A
// refused attempt removes its row, so hammering does not extend the block; a successful one clears them all.
func (a *Auth) throttle(ctx context.Context, key string, now time.Time) error {
	d := a.Dialect
	cutoff := sqldb.TimeArg(d, now.Add(-failedLoginWindow))
	if _, err := a.DB.ExecContext(ctx, stmtPurgeAttempts.For(d), cutoff); err != nil {
		return fmt.Errorf("entities: login: purge attempts: %w", err)
	}
	id := odata.NewID()
	if _, err := a.DB.ExecContext(ctx, stmtInsertAttempt.For(d), id, key, sqldb.TimeArg(d, now)); err != nil {
		return fmt.Errorf("entities: login: record attempt: %w", err)
	}
	rows, err := a.DB.QueryContext(ctx, stmtRecentAttempts.For(d), key, cutoff)
	if err != nil {
		return fmt.Errorf("entities: login: count attempts: %w", err)
	}
	var others []time.Time // the counted attempts other than this one, oldest first
	total := 0
	for rows.Next() {
		var (
			rowID string
			at    any
		)
		if err := rows.Scan(&rowID, &at); err != nil {
			rows.Close()
			return fmt.Errorf("entities: login: count attempts: %w", err)
		}
		total++
		if rowID == id {
			continue
		}
		t, err := sqldb.ScanTime(at)
		if err != nil {
			rows.Close()
			return err
		}
		others = append(others, t)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("entities: login: count attempts: %w", err)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("entities: login: count attempts: %w", err)
	}
	if total <= maxFailedLogins {
		return nil
	}
	if _, err := a.DB.ExecContext(ctx, stmtDeleteAttempt.For(d), id); err != nil {
		return fmt.Errorf("entities: login: %w", err)
	}
	// Attempts are allowed again once fewer than maxFailedLogins remain: when the attempt at this index leaves.
	i := len(others) - maxFailedLogins
	i = max(0, min(i, len(others)-1))
	retry := 1
	if len(others) > 0 {
		wait := others[i].Add(failedLoginWindow).Sub(now)
		retry = max(1, int(math.Ceil(wait.Seconds())))
	}
	e := &odata.Error{Status: http.StatusTooManyRequests, Code: "TooManyRequests",
		Message: "Too many failed sign-in attempts for this e-mail. Try again later.", Header: http.Header{}}
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
	var (
		p       Principal
		active  bool
		expires any
	)
	stmt, err := a.authenticateStmt(ctx)
	if err != nil {
		return Principal{}, err
	}
	err = stmt.QueryRowContext(ctx, RoleAdministrators, hashToken(accessToken)).
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
	if !a.now().Before(exp) {
		return Principal{}, errUnauthorized("The access token has expired.", true)
	}
	if !active {
		return Principal{}, errUnauthorized("The access token is not valid.", true)
	}
	return p, nil
}

// authenticateStmt returns the prepared query of Authenticate, preparing it on first use. database/sql prepares it
// again on each pooled connection as needed and closes it with the DB.
func (a *Auth) authenticateStmt(ctx context.Context) (*sql.Stmt, error) {
	if s := a.authenticate.Load(); s != nil {
		return s, nil
	}
	s, err := a.DB.PrepareContext(ctx, stmtAuthenticate.For(a.Dialect))
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
	if _, err := a.DB.ExecContext(ctx, stmtDeleteToken.For(a.Dialect), hashToken(accessToken)); err != nil {
		return fmt.Errorf("entities: revoke token: %w", err)
	}
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
	return odata.BadRequest("InvalidCredentials", "", "The e-mail or password is incorrect.")
}

func errUnauthorized(msg string, invalidToken bool) *odata.Error {
	challenge := "Bearer"
	if invalidToken {
		challenge = `Bearer error="invalid_token"`
	}
	h := http.Header{}
	h.Set("WWW-Authenticate", challenge)
	return &odata.Error{Status: http.StatusUnauthorized, Code: "Unauthorized", Message: msg, Header: h}
}

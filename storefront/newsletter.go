package storefront

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// Newsletter confirmation: a subscription asked for an e-mail that is not the customer's own waits for a token
// sent to that e-mail.
const (
	// confirmationTTL is how long a confirmation link works.
	confirmationTTL = 7 * 24 * time.Hour
	// confirmationResendInterval is the least time between two confirmation e-mails to one address, so that
	// nobody can flood someone's mailbox through the store.
	confirmationResendInterval = 15 * time.Minute
	// confirmationTokenBytes is the entropy of a token; its base64url form has confirmationTokenLength
	// characters.
	confirmationTokenBytes  = 32
	confirmationTokenLength = 43
	// activationPath is the path of the confirmation links, before the token and the active flag.
	activationPath = "/newsletter/subscriptionactivation/"
)

// newsletterResult is the answer of POST /subscribenewsletter and of the activation link.
type newsletterResult struct {
	Success bool   `json:"Success"`
	Result  string `json:"Result"`
}

var (
	// E-mails are compared by lower(email), which folds ASCII letters only (SQLite, and PostgreSQL under the
	// columns' COLLATE "C"), against the e-mail lowered the same way in Go (foldASCII): PostgreSQL's lower() of
	// a parameter would follow the database's default collation and fold other letters too.
	stmtCustomerByEmail = sqldb.NewStatement(`SELECT id FROM customer WHERE lower(email) = ?`)
	stmtSubscription    = sqldb.NewStatement(`SELECT id, email, active FROM newsletter_subscription WHERE lower(email) = ?`)
	stmtLatestToken     = sqldb.NewStatement(`SELECT MAX(created_on_utc) FROM newsletter_token WHERE subscription_id = ? AND expires_on_utc > ?`)
	stmtInsertToken     = sqldb.NewStatement(`INSERT INTO newsletter_token (token_hash, subscription_id, created_on_utc, expires_on_utc) VALUES (?, ?, ?, ?)`)
	stmtQueueEmail      = sqldb.NewStatement(`INSERT INTO queued_email (id, to_address, subject, body, created_on_utc) VALUES (?, ?, ?, ?, ?)`)
	stmtPurgeTokens     = sqldb.NewStatement(`DELETE FROM newsletter_token WHERE expires_on_utc <= ?`)
	stmtTokenOf         = sqldb.NewStatement(`SELECT subscription_id, expires_on_utc FROM newsletter_token WHERE token_hash = ?`)
	stmtUseToken        = sqldb.NewStatement(`DELETE FROM newsletter_token WHERE token_hash = ?`)
	stmtDropTokens      = sqldb.NewStatement(`DELETE FROM newsletter_token WHERE subscription_id = ?`)
)

// subscribeNewsletter serves POST /subscribenewsletter?subscribe=true&email=x. For the customer's own e-mail
// (ignoring ASCII case) it activates the subscription at once (or with subscribe=false deactivates it), linked
// to the customer. Any other e-mail changes nothing yet: see requestConfirmation.
func (s *Store) subscribeNewsletter(r *http.Request, c customer) (any, error) {
	ctx := r.Context()
	f, err := readQueryForm(r)
	if err != nil {
		return nil, err
	}
	email := strings.TrimSpace(f.get("email"))
	if email == "" {
		return nil, odata.ValidationError(odata.ErrorDetail{Code: odata.CodeRequired, Target: "email", Message: "Email is required"})
	}
	if !entities.ValidEmail(email) {
		return nil, odata.ValidationError(odata.ErrorDetail{Code: odata.CodeInvalidValue, Target: "email", Message: "Email is not valid"})
	}
	subscribe, err := f.boolean("subscribe", true)
	if err != nil {
		return nil, err
	}
	if foldASCII(email) != foldASCII(c.email) {
		base := s.publicURL
		if base == "" {
			base = requestBase(r)
		}
		err = s.inTx(ctx, func(tx *sqldb.Tx) error { return s.requestConfirmation(ctx, tx, base, email, subscribe) })
		if err != nil {
			return nil, err
		}
		if subscribe {
			return newsletterResult{Success: true, Result: "Thank you for signing up! A verification e-mail has been sent to " +
				"that address; the subscription starts when it is confirmed."}, nil
		}
		return newsletterResult{Success: true, Result: "A verification e-mail has been sent to that address; the " +
			"subscription ends when it is confirmed."}, nil
	}
	err = s.inTx(ctx, func(tx *sqldb.Tx) error { return s.setSubscription(ctx, tx, email, subscribe) })
	if err != nil {
		return nil, err
	}
	if subscribe {
		return newsletterResult{Success: true, Result: "Thank you for signing up! You are now subscribed to our newsletter."}, nil
	}
	return newsletterResult{Success: true, Result: "You have been unsubscribed from our newsletter."}, nil
}

// setSubscription makes the subscription of email active or not; it is linked to the customer whose e-mail it
// is, if any.
func (s *Store) setSubscription(ctx context.Context, tx *sqldb.Tx, email string, active bool) error {
	owner, err := s.emailOwner(ctx, tx, email)
	if err != nil {
		return err
	}
	if active {
		err = entities.SubscribeNewsletter(ctx, tx, email, owner, s.now())
	} else {
		err = entities.UnsubscribeNewsletter(ctx, tx, email, owner)
	}
	if err != nil {
		return fmt.Errorf("storefront: newsletter: %w", err)
	}
	return nil
}

// emailOwner returns the id of the customer whose e-mail is email (ignoring ASCII case), or "".
func (s *Store) emailOwner(ctx context.Context, tx *sqldb.Tx, email string) (string, error) {
	var customerID string
	err := tx.QueryRowContext(ctx, stmtCustomerByEmail.For(s.db.Dialect()), foldASCII(email)).Scan(&customerID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("storefront: newsletter: %w", err)
	}
	return customerID, nil
}

// requestConfirmation handles a subscription change asked for someone else's e-mail. Subscribing creates the
// subscription inactive when there is none; then, when the change would change something (the subscription is
// not yet in the state asked for), a confirmation token is stored (as its SHA-256) and an e-mail with the
// confirmation links is queued in the outbox for the address, at most one every confirmationResendInterval.
// The answer to the customer is the same in every case, so it tells nothing about another person's
// subscription.
func (s *Store) requestConfirmation(ctx context.Context, tx *sqldb.Tx, base, email string, subscribe bool) error {
	now := s.now().UTC()
	if _, err := tx.ExecContext(ctx, stmtPurgeTokens.For(s.db.Dialect()), s.timeArg(now)); err != nil {
		return fmt.Errorf("storefront: newsletter: %w", err)
	}
	if subscribe {
		owner, err := s.emailOwner(ctx, tx, email)
		if err != nil {
			return err
		}
		if err := entities.AddInactiveSubscription(ctx, tx, email, owner, now); err != nil {
			return fmt.Errorf("storefront: newsletter: %w", err)
		}
	}
	var (
		id, stored string
		active     bool
	)
	err := tx.QueryRowContext(ctx, stmtSubscription.For(s.db.Dialect())+s.db.Dialect().LockForUpdate(), foldASCII(email)).Scan(&id, &stored, &active)
	if errors.Is(err, sql.ErrNoRows) { // unsubscribing an address that has no subscription
		return nil
	}
	if err != nil {
		return fmt.Errorf("storefront: newsletter: %w", err)
	}
	if active == subscribe {
		return nil
	}
	var latest any
	if err := tx.QueryRowContext(ctx, stmtLatestToken.For(s.db.Dialect()), id, s.timeArg(now)).Scan(&latest); err != nil {
		return fmt.Errorf("storefront: newsletter: %w", err)
	}
	if latest != nil {
		at, err := sqldb.ScanTime(latest)
		if err != nil {
			return err
		}
		if now.Sub(at) < confirmationResendInterval {
			return nil
		}
	}
	token, hash := newConfirmationToken()
	expires := now.Add(confirmationTTL)
	if _, err := tx.ExecContext(ctx, stmtInsertToken.For(s.db.Dialect()), hash, id, s.timeArg(now), s.timeArg(expires)); err != nil {
		return fmt.Errorf("storefront: newsletter: %w", err)
	}
	subject, body := confirmationEmail(base, stored, token, subscribe, expires)
	if _, err := tx.ExecContext(ctx, stmtQueueEmail.For(s.db.Dialect()), odata.NewID(), stored, subject, body, s.timeArg(now)); err != nil {
		return fmt.Errorf("storefront: newsletter: queue e-mail: %w", err)
	}
	return nil
}

// confirmationEmail returns the subject and the plain-text body of the e-mail that asks the owner of email to
// confirm a subscription change, with links under base.
func confirmationEmail(base, email, token string, subscribe bool, expires time.Time) (subject, body string) {
	link := func(active bool) string { return base + activationPath + token + "/" + strconv.FormatBool(active) }
	until := "The links work once, until " + expires.Format("2 January 2006 15:04") + " UTC."
	if subscribe {
		return "Confirm your newsletter subscription",
			"Someone asked to subscribe " + email + " to our newsletter.\n\n" +
				"To confirm, open this link:\n" + link(true) + "\n\n" +
				"If you did not ask for it, ignore this e-mail and you will get no newsletter, or decline with this link:\n" +
				link(false) + "\n\n" + until + "\n"
	}
	return "Confirm that you leave our newsletter",
		"Someone asked to unsubscribe " + email + " from our newsletter.\n\n" +
			"To confirm, open this link:\n" + link(false) + "\n\n" +
			"To stay subscribed, ignore this e-mail.\n\n" + until + "\n"
}

// newConfirmationToken returns a fresh token and the hash under which it is stored.
func newConfirmationToken() (token, hash string) {
	var b [confirmationTokenBytes]byte
	_, _ = rand.Read(b[:])
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, hashConfirmationToken(token)
}

func hashConfirmationToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// wellFormedConfirmationToken tells whether s could be a token of newConfirmationToken.
func wellFormedConfirmationToken(s string) bool {
	if len(s) != confirmationTokenLength {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}

// activateSubscription serves GET /newsletter/subscriptionactivation/{token}/{active}, the link of a
// confirmation e-mail; it needs no bearer token: the token is the proof of owning the address. It sets the
// subscription's active flag to {active} (true or false) and uses the token up, with every other token of the
// subscription. A token that is unknown, malformed, used or expired is a 404; an {active} that is not a
// boolean a 400. HEAD answers as GET would and changes nothing.
func (s *Store) activateSubscription(r *http.Request) (any, error) {
	ctx := r.Context()
	active, err := strconv.ParseBool(strings.ToLower(r.PathValue("active")))
	if err != nil {
		return nil, odata.BadRequest(odata.CodeInvalidValue, "active",
			fmt.Sprintf("The last path segment must be true (activate) or false (deactivate), not %q.", r.PathValue("active")))
	}
	token := r.PathValue("token")
	notFound := odata.NotFound("The confirmation link is unknown, used or expired.")
	if !wellFormedConfirmationToken(token) {
		return nil, notFound
	}
	hash := hashConfirmationToken(token)
	err = s.inTx(ctx, func(tx *sqldb.Tx) error {
		var (
			subscriptionID string
			expires        any
		)
		err := tx.QueryRowContext(ctx, stmtTokenOf.For(s.db.Dialect())+s.db.Dialect().LockForUpdate(), hash).Scan(&subscriptionID, &expires)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound
		}
		if err != nil {
			return fmt.Errorf("storefront: newsletter activation: %w", err)
		}
		exp, err := sqldb.ScanTime(expires)
		if err != nil {
			return err
		}
		if !s.now().Before(exp) {
			return notFound
		}
		if r.Method == http.MethodHead { // the route answers HEAD as GET does, but a HEAD changes nothing
			return nil
		}
		res, err := tx.ExecContext(ctx, stmtUseToken.For(s.db.Dialect()), hash)
		if err != nil {
			return fmt.Errorf("storefront: newsletter activation: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("storefront: newsletter activation: %w", err)
		} else if n != 1 { // used meanwhile
			return notFound
		}
		if _, err := tx.ExecContext(ctx, stmtDropTokens.For(s.db.Dialect()), subscriptionID); err != nil {
			return fmt.Errorf("storefront: newsletter activation: %w", err)
		}
		if err := entities.SetSubscriptionActive(ctx, tx, subscriptionID, active); err != nil {
			return fmt.Errorf("storefront: newsletter activation: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if active {
		return newsletterResult{Success: true, Result: "Your subscription has been activated."}, nil
	}
	return newsletterResult{Success: true, Result: "Your subscription has been deactivated."}, nil
}

// requestBase returns the scheme and host a request came to, for links when no public URL is configured: the
// request URL's scheme when the server set it from a trusted proxy, else https over TLS, else http.
func requestBase(r *http.Request) string {
	scheme := "http"
	switch {
	case r.URL.Scheme == "https" || r.URL.Scheme == "http":
		scheme = r.URL.Scheme
	case r.TLS != nil:
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

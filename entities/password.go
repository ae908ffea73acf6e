package entities

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// Password length rules. bcrypt reads only the first 72 bytes of a password, so longer passwords are refused
// rather than silently truncated.
const (
	MinPasswordLength = 8  // characters
	MaxPasswordBytes  = 72 // bytes of UTF-8
)

// bcryptCost is the work factor of new hashes (tests lower it). A stored hash carries its own cost, so raising it
// later only affects new passwords.
var bcryptCost = bcrypt.DefaultCost

// ValidatePassword checks the length rules and returns a 400 *odata.Error with target "password" when p breaks
// one.
func ValidatePassword(p string) error {
	var msg string
	switch {
	case p == "":
		return odata.ValidationError(odata.ErrorDetail{Code: odata.CodeRequired, Target: "password",
			Message: "Password is required."})
	case utf8.RuneCountInString(p) < MinPasswordLength:
		msg = fmt.Sprintf("The password must have at least %d characters.", MinPasswordLength)
	case len(p) > MaxPasswordBytes:
		msg = fmt.Sprintf("The password must not be longer than %d bytes.", MaxPasswordBytes)
	default:
		return nil
	}
	return odata.ValidationError(odata.ErrorDetail{Code: odata.CodeInvalidValue, Target: "password", Message: msg})
}

// HashPassword validates p (see ValidatePassword) and returns its bcrypt hash. It takes tens of milliseconds on
// purpose: hash before opening the transaction that stores the hash.
func HashPassword(p string) (string, error) {
	if err := ValidatePassword(p); err != nil {
		return "", err
	}
	h, err := bcrypt.GenerateFromPassword([]byte(p), bcryptCost)
	if err != nil {
		return "", fmt.Errorf("entities: hash password: %w", err)
	}
	return string(h), nil
}

// CheckPassword reports whether password matches the bcrypt hash, in time that does not depend on where they
// differ. A password longer than MaxPasswordBytes never matches.
func CheckPassword(hash, password string) bool {
	if len(password) > MaxPasswordBytes {
		// Spend the same time as a real comparison, then refuse.
		_ = bcrypt.CompareHashAndPassword([]byte(hash), []byte(password[:MaxPasswordBytes]))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

// dummyHash is a hash of a random password that Login compares against when the e-mail is unknown, so a sign-in
// takes as long whether or not the account exists.
var dummyHash = sync.OnceValue(func() string {
	h, err := bcrypt.GenerateFromPassword([]byte(randomPassword()), bcryptCost)
	if err != nil {
		panic(err)
	}
	return string(h)
})

// randomPassword returns a password of 160 random bits (27 base64url characters).
func randomPassword() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

var (
	stmtSetHasPassword = sqldb.NewStatement(`UPDATE customer SET has_password = ? WHERE id = ?`)
	stmtUpsertPassword = sqldb.NewStatement(`INSERT INTO customer_password (customer_id, password_hash, changed_on_utc)
VALUES (?, ?, ?)
ON CONFLICT (customer_id) DO UPDATE SET password_hash = excluded.password_hash, changed_on_utc = excluded.changed_on_utc`)
	stmtRevokeCustomerTokens = sqldb.NewStatement(`DELETE FROM access_token WHERE customer_id = ?`)
)

// SetPasswordHash stores hash (from HashPassword) as the password of the customer with id customerID, marks the
// customer HasPassword and revokes every token of the customer, all in tx. An unknown customer is a 404
// *odata.Error.
func SetPasswordHash(ctx context.Context, tx *sqldb.Tx, customerID, hash string) error {
	d := tx.Dialect()
	res, err := tx.ExecContext(ctx, stmtSetHasPassword.For(d), true, customerID)
	if err != nil {
		return fmt.Errorf("entities: set password: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("entities: set password: %w", err)
	} else if n == 0 {
		return odata.NotFound("The customer does not exist.")
	}
	if _, err := tx.ExecContext(ctx, stmtUpsertPassword.For(d), customerID, hash, sqldb.TimeArg(d, time.Now())); err != nil {
		return fmt.Errorf("entities: set password: %w", err)
	}
	return RevokeCustomerTokens(ctx, tx, customerID)
}

// RevokeCustomerTokens revokes every token of the customer in tx: call it when the password is set again and when
// the customer is deactivated (deleting the customer removes its tokens by cascade).
func RevokeCustomerTokens(ctx context.Context, tx *sqldb.Tx, customerID string) error {
	d := tx.Dialect()
	if _, err := tx.ExecContext(ctx, stmtRevokeCustomerTokens.For(d), customerID); err != nil {
		return fmt.Errorf("entities: revoke tokens: %w", err)
	}
	return nil
}

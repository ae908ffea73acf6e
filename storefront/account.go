package storefront

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// accountInfoModel is the answer of GET /account/info.
type accountInfoModel struct {
	Email           string  `json:"Email"`
	Username        *string `json:"Username"`
	FirstName       *string `json:"FirstName"`
	LastName        *string `json:"LastName"`
	Gender          *string `json:"Gender"`
	DateOfBirth     *string `json:"DateOfBirth"`
	Company         *string `json:"Company"`
	StreetAddress   *string `json:"StreetAddress"`
	StreetAddress2  *string `json:"StreetAddress2"`
	ZipPostalCode   *string `json:"ZipPostalCode"`
	City            *string `json:"City"`
	CountryID       *string `json:"CountryId"`
	StateProvinceID *string `json:"StateProvinceId"`
	Phone           *string `json:"Phone"`
	VatNumber       *string `json:"VatNumber"`
	Newsletter      bool    `json:"Newsletter"`
}

var stmtAccountInfo = sqldb.NewStatement(`SELECT c.email, c.username, c.first_name, c.last_name, c.gender, c.date_of_birth,
	c.company, c.street_address, c.street_address2, c.zip_postal_code, c.city, c.country_id, c.state_province_id,
	c.phone, c.vat_number,
	EXISTS (SELECT 1 FROM newsletter_subscription n WHERE lower(n.email) = lower(c.email) AND n.active = ?)
FROM customer c WHERE c.id = ?`)

// accountInfo serves GET /account/info. Newsletter tells whether the customer's e-mail has an active
// subscription.
func (s *Store) accountInfo(r *http.Request, c customer) (any, error) {
	var (
		m    accountInfoModel
		strs [13]sql.NullString
		dob  any
	)
	dest := []any{&m.Email, &strs[0], &strs[1], &strs[2], &strs[3], &dob}
	for i := 4; i < len(strs); i++ {
		dest = append(dest, &strs[i])
	}
	dest = append(dest, &m.Newsletter)
	err := s.db.QueryRowContext(r.Context(), s.q(stmtAccountInfo), true, c.id).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &odata.Error{Status: http.StatusUnauthorized, Code: "Unauthorized", Message: "The customer no longer exists."}
	}
	if err != nil {
		return nil, fmt.Errorf("storefront: account info: %w", err)
	}
	for i, p := range []**string{&m.Username, &m.FirstName, &m.LastName, &m.Gender, &m.Company, &m.StreetAddress,
		&m.StreetAddress2, &m.ZipPostalCode, &m.City, &m.CountryID, &m.StateProvinceID, &m.Phone, &m.VatNumber} {
		if strs[i].Valid {
			v := strs[i].String
			*p = &v
		}
	}
	switch v := dob.(type) {
	case time.Time:
		d := v.Format(time.DateOnly)
		m.DateOfBirth = &d
	case string:
		m.DateOfBirth = &v
	case []byte:
		d := string(v)
		m.DateOfBirth = &d
	}
	return m, nil
}

// accountAddresses serves GET /account/addresses.
func (s *Store) accountAddresses(r *http.Request, c customer) (any, error) {
	list, err := entities.CustomerAddresses(r.Context(), s.db, s.d, c.id)
	if err != nil {
		return nil, err
	}
	if list == nil {
		list = []entities.Address{}
	}
	return map[string]any{"Addresses": list}, nil
}

// newsletterResult is the answer of POST /subscribenewsletter.
type newsletterResult struct {
	Success bool   `json:"Success"`
	Result  string `json:"Result"`
}

var (
	// E-mails are compared by lower(email), which folds ASCII letters only (SQLite, and PostgreSQL under the
	// columns' COLLATE "C"), against the e-mail lowered the same way in Go (foldASCII): PostgreSQL's lower() of
	// a parameter would follow the database's default collation and fold other letters too.
	stmtCustomerByEmail = sqldb.NewStatement(`SELECT id FROM customer WHERE lower(email) = ?`)
	stmtSubscribe       = sqldb.NewStatement(`INSERT INTO newsletter_subscription (id, email, customer_id, active, created_on_utc)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (lower(email)) DO UPDATE SET active = excluded.active, customer_id = excluded.customer_id`)
	stmtUnsubscribe = sqldb.NewStatement(`UPDATE newsletter_subscription SET active = ?, customer_id = ? WHERE lower(email) = ?`)
)

// subscribeNewsletter serves POST /subscribenewsletter?subscribe=true&email=x: it activates (or with
// subscribe=false deactivates) the subscription of the e-mail, linked to the customer the e-mail belongs to.
// The store sends no confirmation e-mail: the subscription is active at once.
func (s *Store) subscribeNewsletter(r *http.Request, c customer) (any, error) {
	ctx := r.Context()
	f, err := readQueryForm(r)
	if err != nil {
		return nil, err
	}
	email := strings.TrimSpace(f.get("email"))
	if email == "" {
		return nil, odata.ValidationError(odata.ErrorDetail{Code: "Required", Target: "email", Message: "Email is required"})
	}
	if !entities.ValidEmail(email) {
		return nil, odata.ValidationError(odata.ErrorDetail{Code: "InvalidValue", Target: "email", Message: "Email is not valid"})
	}
	subscribe, err := f.boolean("subscribe", true)
	if err != nil {
		return nil, err
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error { return s.setSubscription(ctx, tx, email, subscribe) })
	if err != nil {
		return nil, err
	}
	if subscribe {
		return newsletterResult{Success: true, Result: "Thank you for signing up! You are now subscribed to our newsletter."}, nil
	}
	return newsletterResult{Success: true, Result: "You have been unsubscribed from our newsletter."}, nil
}

func (s *Store) setSubscription(ctx context.Context, tx *sql.Tx, email string, active bool) error {
	var customerID sql.NullString
	err := tx.QueryRowContext(ctx, s.q(stmtCustomerByEmail), foldASCII(email)).Scan(&customerID)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("storefront: newsletter: %w", err)
	}
	var owner any
	if customerID.Valid {
		owner = customerID.String
	}
	if active {
		_, err = tx.ExecContext(ctx, s.q(stmtSubscribe), odata.NewID(), email, owner, true, s.timeArg(s.now()))
	} else {
		_, err = tx.ExecContext(ctx, s.q(stmtUnsubscribe), false, owner, foldASCII(email))
	}
	if err != nil {
		return fmt.Errorf("storefront: newsletter: %w", err)
	}
	return nil
}

// foldASCII lowers the ASCII letters of s and leaves every other character as it is, as SQL lower() does on both
// databases under the binary collation.
func foldASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}

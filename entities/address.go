package entities

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// Querier runs SQL on a database and tells its dialect: a *sqldb.DB, *sqldb.Conn or *sqldb.Tx, or the *odata.Tx
// of a hook or action.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	Dialect() sqldb.Dialect
}

// Address is a customer's address (SPEC 4.6). An empty string field means null: it is stored as NULL and
// written as null in JSON. Functions of this package trim spaces around every field before validating, storing
// or comparing, so " Ann " and "Ann" are the same first name.
type Address struct {
	ID              string
	FirstName       string
	LastName        string
	Email           string
	Company         string
	CountryID       string
	StateProvinceID string
	City            string
	Address1        string
	Address2        string
	ZipPostalCode   string
	PhoneNumber     string
	FaxNumber       string
	// CreatedOnUtc is set when the address is stored.
	CreatedOnUtc time.Time
}

// fields returns pointers to the text fields after ID, in column order (addressColumns[1:]).
func (a *Address) fields() []*string {
	return []*string{&a.FirstName, &a.LastName, &a.Email, &a.Company, &a.CountryID, &a.StateProvinceID, &a.City,
		&a.Address1, &a.Address2, &a.ZipPostalCode, &a.PhoneNumber, &a.FaxNumber}
}

// trimmed returns a with the spaces around every text field removed.
func (a Address) trimmed() Address {
	for _, f := range a.fields() {
		*f = strings.TrimSpace(*f)
	}
	return a
}

// SameAs reports whether a and b hold the same values in every field but ID and CreatedOnUtc (spaces around the
// values ignored, letters compared exactly).
func (a Address) SameAs(b Address) bool {
	a, b = a.trimmed(), b.trimmed()
	fa, fb := a.fields(), b.fields()
	for i := range fa {
		if *fa[i] != *fb[i] {
			return false
		}
	}
	return true
}

// MarshalJSON writes the address with the property names of the service contract (Id, FirstName, ...,
// CountryId, StateProvinceId, CreatedOnUtc): empty fields as null, CreatedOnUtc in RFC 3339 (null when unset).
func (a Address) MarshalJSON() ([]byte, error) {
	var created *string
	if !a.CreatedOnUtc.IsZero() {
		s := a.CreatedOnUtc.UTC().Format(time.RFC3339Nano)
		created = &s
	}
	return json.Marshal(struct {
		ID              *string `json:"Id"`
		FirstName       *string `json:"FirstName"`
		LastName        *string `json:"LastName"`
		Email           *string `json:"Email"`
		Company         *string `json:"Company"`
		CountryID       *string `json:"CountryId"`
		StateProvinceID *string `json:"StateProvinceId"`
		City            *string `json:"City"`
		Address1        *string `json:"Address1"`
		Address2        *string `json:"Address2"`
		ZipPostalCode   *string `json:"ZipPostalCode"`
		PhoneNumber     *string `json:"PhoneNumber"`
		FaxNumber       *string `json:"FaxNumber"`
		CreatedOnUtc    *string `json:"CreatedOnUtc"`
	}{nullable(a.ID), nullable(a.FirstName), nullable(a.LastName), nullable(a.Email), nullable(a.Company),
		nullable(a.CountryID), nullable(a.StateProvinceID), nullable(a.City), nullable(a.Address1),
		nullable(a.Address2), nullable(a.ZipPostalCode), nullable(a.PhoneNumber), nullable(a.FaxNumber), created})
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// nullString returns nil for "" (stored as NULL) and s otherwise.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Messages of the address rules.
const (
	msgFirstNameRequired    = "First name is required"
	msgLastNameRequired     = "Last name is required"
	msgEmailRequired        = "Email is required"
	msgEmailNotValid        = "Email is not valid"
	msgCountryRequired      = "Country is required"
	msgCountryNotFound      = "Country does not exist"
	msgStateRequired        = "State / province is required"
	msgStateNotFound        = "State / province does not exist"
	msgStateNotInCountry    = "State / province does not belong to the country"
	msgCityRequired         = "City is required"
	msgAddress1Required     = "Street address is required"
	msgZipPostalCodeMissing = "Zip / postal code is required"
	msgPhoneRequired        = "Phone number is required"
)

var (
	stmtCountryHasStates = sqldb.NewStatement(`SELECT EXISTS (SELECT 1 FROM country WHERE id = ?),
	EXISTS (SELECT 1 FROM state_province WHERE country_id = ?)`)
	stmtStateCountry = sqldb.NewStatement(`SELECT country_id FROM state_province WHERE id = ?`)
)

// ValidateAddress checks a against the rules of SPEC 4.6 and returns one detail per failed rule (none when the
// address is valid), each with the field name as target (FirstName, Email, CountryId, ...). With countriesEnabled,
// FirstName, LastName, Email (a valid address), CountryId (an existing country), StateProvinceId (when the
// country has states; it must belong to the country), City, Address1, ZipPostalCode and PhoneNumber are
// required. Without, CountryId and StateProvinceId are optional but must exist, and the state must belong to the
// country, when given. The error is a database failure only.
func ValidateAddress(ctx context.Context, q Querier, a Address, countriesEnabled bool) ([]odata.ErrorDetail, error) {
	d := q.Dialect()
	a = a.trimmed()
	var details []odata.ErrorDetail
	required := func(v, target, msg string) {
		if v == "" {
			details = append(details, odata.ErrorDetail{Code: odata.CodeRequired, Target: target, Message: msg})
		}
	}
	invalid := func(target, msg string) {
		details = append(details, odata.ErrorDetail{Code: odata.CodeInvalidValue, Target: target, Message: msg})
	}
	required(a.FirstName, "FirstName", msgFirstNameRequired)
	required(a.LastName, "LastName", msgLastNameRequired)
	required(a.Email, "Email", msgEmailRequired)
	if a.Email != "" && !ValidEmail(a.Email) {
		invalid("Email", msgEmailNotValid)
	}

	countryExists, countryHasStates := false, false
	if a.CountryID != "" {
		if err := q.QueryRowContext(ctx, stmtCountryHasStates.For(d), a.CountryID, a.CountryID).
			Scan(&countryExists, &countryHasStates); err != nil {
			return nil, fmt.Errorf("entities: validate address: %w", err)
		}
	}
	switch {
	case a.CountryID == "" && countriesEnabled:
		required("", "CountryId", msgCountryRequired)
	case a.CountryID != "" && !countryExists && countriesEnabled:
		// The rule is "an existing country", and its message the one of the contract.
		invalid("CountryId", msgCountryRequired)
	case a.CountryID != "" && !countryExists:
		invalid("CountryId", msgCountryNotFound)
	}

	if a.StateProvinceID != "" {
		var stateCountry string
		err := q.QueryRowContext(ctx, stmtStateCountry.For(d), a.StateProvinceID).Scan(&stateCountry)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			invalid("StateProvinceId", msgStateNotFound)
		case err != nil:
			return nil, fmt.Errorf("entities: validate address: %w", err)
		case countryExists && stateCountry != a.CountryID:
			invalid("StateProvinceId", msgStateNotInCountry)
		}
	} else if countriesEnabled && countryExists && countryHasStates {
		required("", "StateProvinceId", msgStateRequired)
	}

	required(a.City, "City", msgCityRequired)
	required(a.Address1, "Address1", msgAddress1Required)
	required(a.ZipPostalCode, "ZipPostalCode", msgZipPostalCodeMissing)
	required(a.PhoneNumber, "PhoneNumber", msgPhoneRequired)
	return details, nil
}

// ValidEmail reports whether s is one plain e-mail address (local@domain, without a display name or angle
// brackets) whose domain has a dot-separated host name.
func ValidEmail(s string) bool {
	if s == "" || len(s) > 254 || strings.TrimSpace(s) != s {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	return at > 0 && domain != "" && !strings.HasPrefix(domain, "[") && !strings.HasPrefix(domain, ".") &&
		!strings.HasSuffix(domain, ".")
}

// addressColumns are the columns of an Address, in the order of Address.fields after id.
const addressColumns = `id, first_name, last_name, email, company, country_id, state_province_id, city, address1,
	address2, zip_postal_code, phone_number, fax_number, created_on_utc`

var (
	stmtInsertAddress = sqldb.NewStatement(`INSERT INTO address (id, customer_id, first_name, last_name, email, company,
	country_id, state_province_id, city, address1, address2, zip_postal_code, phone_number, fax_number,
	created_on_utc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	stmtLoadAddress       = sqldb.NewStatement(`SELECT ` + addressColumns + ` FROM address WHERE customer_id = ? AND id = ?`)
	stmtCustomerAddresses = sqldb.NewStatement(`SELECT ` + addressColumns + ` FROM address WHERE customer_id = ? ORDER BY id`)
	stmtUpdateAddress     = sqldb.NewStatement(`UPDATE address SET first_name = ?, last_name = ?, email = ?, company = ?,
	country_id = ?, state_province_id = ?, city = ?, address1 = ?, address2 = ?, zip_postal_code = ?,
	phone_number = ?, fax_number = ? WHERE customer_id = ? AND id = ?`)
	stmtDeleteAddress = sqldb.NewStatement(`DELETE FROM address WHERE customer_id = ? AND id = ?`)
)

// InsertAddress stores a (trimmed; not validated: call ValidateAddress first) as a new address of the customer
// and returns it with its new ID and CreatedOnUtc. An unknown customer is an error of the foreign key.
func InsertAddress(ctx context.Context, q Querier, customerID string, a Address) (Address, error) {
	d := q.Dialect()
	a = a.trimmed()
	a.ID = odata.NewID()
	a.CreatedOnUtc = time.Now().UTC().Truncate(time.Microsecond)
	args := []any{a.ID, customerID}
	for _, f := range a.fields() {
		args = append(args, nullString(*f))
	}
	args = append(args, sqldb.TimeArg(d, a.CreatedOnUtc))
	if _, err := q.ExecContext(ctx, stmtInsertAddress.For(d), args...); err != nil {
		return Address{}, fmt.Errorf("entities: insert address: %w", err)
	}
	return a, nil
}

// UpdateAddress replaces the fields of the customer's address a.ID with those of a (trimmed; not validated) and
// reports whether the customer has that address.
func UpdateAddress(ctx context.Context, q Querier, customerID string, a Address) (bool, error) {
	d := q.Dialect()
	a = a.trimmed()
	var args []any
	for _, f := range a.fields() {
		args = append(args, nullString(*f))
	}
	args = append(args, customerID, a.ID)
	res, err := q.ExecContext(ctx, stmtUpdateAddress.For(d), args...)
	if err != nil {
		return false, fmt.Errorf("entities: update address: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("entities: update address: %w", err)
	}
	return n > 0, nil
}

// DeleteAddress deletes the customer's address and reports whether the customer had it.
func DeleteAddress(ctx context.Context, q Querier, customerID, addressID string) (bool, error) {
	d := q.Dialect()
	res, err := q.ExecContext(ctx, stmtDeleteAddress.For(d), customerID, addressID)
	if err != nil {
		return false, fmt.Errorf("entities: delete address: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("entities: delete address: %w", err)
	}
	return n > 0, nil
}

// LoadAddress returns the customer's address with the id; found is false when the customer has no such address
// (it does not exist, or it is another customer's).
func LoadAddress(ctx context.Context, q Querier, customerID, addressID string) (a Address, found bool, err error) {
	d := q.Dialect()
	rows, err := q.QueryContext(ctx, stmtLoadAddress.For(d), customerID, addressID)
	if err != nil {
		return Address{}, false, fmt.Errorf("entities: load address: %w", err)
	}
	list, err := scanAddresses(rows)
	if err != nil || len(list) == 0 {
		return Address{}, false, err
	}
	return list[0], true, nil
}

// CustomerAddresses returns the customer's addresses, oldest first.
func CustomerAddresses(ctx context.Context, q Querier, customerID string) ([]Address, error) {
	d := q.Dialect()
	rows, err := q.QueryContext(ctx, stmtCustomerAddresses.For(d), customerID)
	if err != nil {
		return nil, fmt.Errorf("entities: load addresses: %w", err)
	}
	return scanAddresses(rows)
}

// FindIdenticalAddress returns the customer's oldest address that is the SameAs a, if there is one.
func FindIdenticalAddress(ctx context.Context, q Querier, customerID string, a Address) (Address, bool, error) {
	list, err := CustomerAddresses(ctx, q, customerID)
	if err != nil {
		return Address{}, false, err
	}
	for _, b := range list {
		if b.SameAs(a) {
			return b, true, nil
		}
	}
	return Address{}, false, nil
}

// scanAddresses reads rows of addressColumns and closes rows.
func scanAddresses(rows *sql.Rows) ([]Address, error) {
	defer rows.Close()
	var list []Address
	for rows.Next() {
		var (
			a       Address
			vals    [12]sql.NullString
			created any
		)
		dest := []any{&a.ID}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		dest = append(dest, &created)
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("entities: scan address: %w", err)
		}
		for i, f := range a.fields() {
			*f = vals[i].String
		}
		t, err := sqldb.ScanTime(created)
		if err != nil {
			return nil, err
		}
		a.CreatedOnUtc = t
		list = append(list, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("entities: scan addresses: %w", err)
	}
	return list, nil
}

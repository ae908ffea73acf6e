package storefront

import (
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
	err := s.db.QueryRowContext(r.Context(), stmtAccountInfo.For(s.db.Dialect()), true, c.id).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, odata.Unauthorized("The customer no longer exists.")
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
	list, err := entities.CustomerAddresses(r.Context(), s.db, c.id)
	if err != nil {
		return nil, err
	}
	if list == nil {
		list = []entities.Address{}
	}
	return map[string]any{"Addresses": list}, nil
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

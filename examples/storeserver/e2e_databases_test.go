package main

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// TestStore_SameOnEveryDatabase sends what tells SQLite and PostgreSQL apart when the code is careless: e-mails
// with letters beyond ASCII (lower() of a parameter follows PostgreSQL's default collation), money at the edge of
// what both store, the NUL character and bytes that are not UTF-8 (PostgreSQL's text refuses them, SQLite keeps
// them), byte order of text, nulls in order, offsets in times. Each answer is the same on both databases.
func TestStore_SameOnEveryDatabase(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false")
		admin := s.admin(t)

		t.Run("EmailsFoldASCIIOnly", func(t *testing.T) {
			admin.must(t, http.StatusCreated, "POST", "/odata/Customer", map[string]any{"Email": "Élodie@example.com"})
			for _, email := range []string{"Élodie@example.com", "ÉLODIE@EXAMPLE.com"} {
				e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", "/odata/Customer", map[string]any{"Email": email})
				if diff := cmp.Diff([]string{"InvalidValue Email: Email is already registered"}, e.details()); diff != "" {
					t.Errorf("POST Customer %q: details (-want +got):\n%s", email, diff)
				}
			}
			// Only ASCII letters fold: é is another letter than É.
			admin.must(t, http.StatusCreated, "POST", "/odata/Customer", map[string]any{"Email": "élodie@example.com"})
			got := admin.must(t, http.StatusOK, "GET", "/odata/Customer('%C3%89LODIE@EXAMPLE.COM')?$select=Email", nil).json(t)
			if str(got, "Email") != "Élodie@example.com" {
				t.Errorf("GET Customer('ÉLODIE@EXAMPLE.COM') = %v, want Élodie@example.com", got)
			}
			admin.must(t, http.StatusOK, "POST", "/odata/Customer('%C3%89LODIE@example.com')/SetPassword",
				map[string]any{"password": "customer-pw-1"})
			elodie := s.client(s.login(t, "ÉLODIE@EXAMPLE.COM", "customer-pw-1"))
			s.client("").fails(t, http.StatusBadRequest, "InvalidCredentials", "POST", "/api/token",
				map[string]string{"email": "élodie@example.com", "password": "customer-pw-1"})

			page := admin.must(t, http.StatusOK, "GET",
				"/odata/Customer?$filter=tolower(Email)%20eq%20tolower('%C3%89LODIE@EXAMPLE.COM')&$select=Email", nil).json(t)
			if got := emails(page); !cmp.Equal(got, []string{"Élodie@example.com"}) {
				t.Errorf("$filter=tolower(Email) eq tolower('ÉLODIE@EXAMPLE.COM') = %v, want [Élodie@example.com]", got)
			}

			elodie.must(t, http.StatusOK, "POST", "/subscribenewsletter?subscribe=true&email="+url.QueryEscape("ÉLODIE@example.com"), nil)
			if n := s.count(t, `SELECT 1 FROM newsletter_subscription n JOIN customer c ON c.id = n.customer_id
WHERE c.email = ? AND n.active = ?`, "Élodie@example.com", true); n != 1 {
				t.Errorf("subscriptions linked to Élodie@example.com = %d, want 1", n)
			}
			elodie.must(t, http.StatusOK, "POST", "/subscribenewsletter?subscribe=false&email="+url.QueryEscape("élodie@EXAMPLE.com"), nil)
			if n := s.count(t, `SELECT 1 FROM newsletter_subscription WHERE active = ?`, true); n != 1 {
				t.Errorf("active subscriptions after unsubscribing another e-mail = %d, want 1", n)
			}
		})

		t.Run("MoneyRange", func(t *testing.T) {
			r := admin.must(t, http.StatusCreated, "POST", "/odata/Product",
				`{"Name":"Most expensive","Price":922337203685477.5807}`).json(t)
			if got := num(r, "Price"); got != "922337203685477.5807" {
				t.Errorf("Price = %s, want 922337203685477.5807", got)
			}
			for _, price := range []string{"922337203685477.5808", "999999999999999.9999"} {
				e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", "/odata/Product", `{"Name":"P","Price":`+price+`}`)
				want := []string{"InvalidValue Price: Price is out of range (from -922337203685477.5808 to 922337203685477.5807)."}
				if diff := cmp.Diff(want, e.details()); diff != "" {
					t.Errorf("POST Product with Price %s: details (-want +got):\n%s", price, diff)
				}
			}
		})

		t.Run("TextOnly", func(t *testing.T) {
			e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", "/odata/Manufacturer", `{"Name":"a\u0000b"}`)
			if diff := cmp.Diff([]string{`InvalidValue Name: Name must not contain the NUL character (\u0000).`}, e.details()); diff != "" {
				t.Errorf("POST Manufacturer with NUL: details (-want +got):\n%s", diff)
			}
			for _, path := range []string{
				"/odata/Manufacturer?$filter=Name%20eq%20'a%00b'",
				"/odata/Manufacturer?$filter=Name%20eq%20'caf%C3'",
				"/odata/Manufacturer('a%00b')",
				"/odata/Customer('caf%C3@example.com')",
				"/odata/Manufacturer?$search=%22caf%C3%22",
			} {
				admin.fails(t, http.StatusBadRequest, "SyntaxError", "GET", path, nil)
			}
			s.client("").fails(t, http.StatusBadRequest, "InvalidCredentials", "POST", "/api/token",
				map[string]string{"email": "admin\u0000@example.com", "password": adminPassword})
			ann := newCustomer(t, s, admin, "ann@example.com")
			ann.fails(t, http.StatusBadRequest, "InvalidValue", "GET", "/cart?x=%00", nil)
			ann.fails(t, http.StatusBadRequest, "InvalidValue", "GET", "/orderdetails/%FF", nil)
			form := addressForm("ShippingNewAddress")
			form.Set("ShippingNewAddress.City", "New\x00York")
			if e := ann.fails(t, http.StatusBadRequest, "InvalidValue", "POST", "/checkout/SaveShipping/", form); e.Target != "ShippingNewAddress.City" {
				t.Errorf("SaveShipping with NUL in the city: target %q, want ShippingNewAddress.City", e.Target)
			}
		})

		t.Run("ByteOrderAndNulls", func(t *testing.T) {
			for _, m := range []map[string]any{
				{"Name": "beta", "Description": "x"}, {"Name": "Alpha"}, {"Name": "alpha", "Description": "y"}, {"Name": "_under"},
			} {
				admin.must(t, http.StatusCreated, "POST", "/odata/Manufacturer", m)
			}
			for _, tc := range []struct {
				query string
				want  []string
			}{
				{"$orderby=Name", []string{"Alpha", "_under", "alpha", "beta"}},
				{"$orderby=Description,Name", []string{"Alpha", "_under", "beta", "alpha"}},
				{"$orderby=Description%20desc,Name", []string{"alpha", "beta", "Alpha", "_under"}},
				{"$filter=Name%20eq%20'ALPHA'", nil},
				{"$filter=Name%20gt%20'Z'&$orderby=Name", []string{"_under", "alpha", "beta"}},
				{"$filter=contains(Name,'lph')&$orderby=Name", []string{"Alpha", "alpha"}},
				{"$filter=startswith(Name,'A')", []string{"Alpha"}},
				{"$search=ALPHA&$orderby=Name%20desc", []string{"alpha", "Alpha"}},
			} {
				page := admin.must(t, http.StatusOK, "GET", "/odata/Manufacturer?$select=Name&"+tc.query, nil).json(t)
				var got []string
				for _, v := range page["value"].([]any) {
					got = append(got, str(v.(map[string]any), "Name"))
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("GET Manufacturer?%s (-want +got):\n%s", tc.query, diff)
				}
			}
		})

		t.Run("TimesInUTC", func(t *testing.T) {
			r := admin.must(t, http.StatusCreated, "POST", "/odata/Product",
				`{"Name":"Timed","AvailableStartDateTimeUtc":"2030-01-01T05:30:00.25+05:30"}`).json(t)
			if got := str(r, "AvailableStartDateTimeUtc"); got != "2030-01-01T00:00:00.25Z" {
				t.Errorf("AvailableStartDateTimeUtc = %q, want 2030-01-01T00:00:00.25Z", got)
			}
			page := admin.must(t, http.StatusOK, "GET",
				"/odata/Product?$filter=AvailableStartDateTimeUtc%20eq%202029-12-31T19:00:00.25-05:00%20and%20hour(AvailableStartDateTimeUtc)%20eq%200&$select=Name", nil).json(t)
			if n := len(page["value"].([]any)); n != 1 {
				t.Errorf("products starting at 2029-12-31T19:00:00.25-05:00 at hour 0 UTC = %d, want 1", n)
			}
		})
	})
}

// emails returns the Email of each entity of a page.
func emails(page map[string]any) []string {
	var out []string
	for _, v := range page["value"].([]any) {
		out = append(out, str(v.(map[string]any), "Email"))
	}
	return out
}

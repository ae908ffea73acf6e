package entities_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// addressFixture migrates db and adds the countries US (with the states US-NY and US-CA), CA (with CA-QC) and
// DE (without states), and the customers c1 and c2.
func addressFixture(t testing.TB, db *dbtest.DB) {
	t.Helper()
	migrated(t, db)
	exec(t, db, `INSERT INTO country (id, name) VALUES ('US', 'United States'), ('CA', 'Canada'), ('DE', 'Germany')`)
	exec(t, db, `INSERT INTO state_province (id, country_id, name) VALUES ('US-NY', 'US', 'New York'),
	('US-CA', 'US', 'California'), ('CA-QC', 'CA', 'Quebec')`)
	exec(t, db, `INSERT INTO customer (id, email) VALUES ('c1', 'c1@example.com'), ('c2', 'c2@example.com')`)
}

func validAddress() entities.Address {
	return entities.Address{FirstName: "Ann", LastName: "Lee", Email: "ann@example.com", CountryID: "US",
		StateProvinceID: "US-NY", City: "New York", Address1: "1 Main St", ZipPostalCode: "10001",
		PhoneNumber: "555-0100"}
}

func detail(code, target, msg string) odata.ErrorDetail {
	return odata.ErrorDetail{Code: code, Target: target, Message: msg}
}

func TestValidateAddress(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		addressFixture(t, db)
		with := func(f func(a *entities.Address)) entities.Address {
			a := validAddress()
			f(&a)
			return a
		}
		for _, tc := range []struct {
			name      string
			a         entities.Address
			countries bool
			want      []odata.ErrorDetail
		}{
			{"OK", validAddress(), true, nil},
			{"OKCountryWithoutStates", with(func(a *entities.Address) { a.CountryID, a.StateProvinceID = "DE", "" }), true, nil},
			{"OKSpacesTrimmed", with(func(a *entities.Address) { a.FirstName, a.Email = " Ann ", " ann@example.com " }), true, nil},
			{"OKCountriesDisabledNoCountry", with(func(a *entities.Address) { a.CountryID, a.StateProvinceID = "", "" }), false, nil},
			{"OKCountriesDisabledNoState", with(func(a *entities.Address) { a.StateProvinceID = "" }), false, nil},
			{"ErrEmpty", entities.Address{}, true, []odata.ErrorDetail{
				detail("Required", "FirstName", "First name is required"),
				detail("Required", "LastName", "Last name is required"),
				detail("Required", "Email", "Email is required"),
				detail("Required", "CountryId", "Country is required"),
				detail("Required", "City", "City is required"),
				detail("Required", "Address1", "Street address is required"),
				detail("Required", "ZipPostalCode", "Zip / postal code is required"),
				detail("Required", "PhoneNumber", "Phone number is required"),
			}},
			{"ErrEmptyCountriesDisabled", entities.Address{FirstName: "A", LastName: "B", Email: "a@b.example"}, false, []odata.ErrorDetail{
				detail("Required", "City", "City is required"),
				detail("Required", "Address1", "Street address is required"),
				detail("Required", "ZipPostalCode", "Zip / postal code is required"),
				detail("Required", "PhoneNumber", "Phone number is required"),
			}},
			{"ErrBlank", with(func(a *entities.Address) { a.FirstName = "   " }), true, []odata.ErrorDetail{
				detail("Required", "FirstName", "First name is required")}},
			{"ErrEmail", with(func(a *entities.Address) { a.Email = "ann" }), true, []odata.ErrorDetail{
				detail("InvalidValue", "Email", "Email is not valid")}},
			{"ErrEmailDisplayName", with(func(a *entities.Address) { a.Email = "Ann <ann@example.com>" }), true, []odata.ErrorDetail{
				detail("InvalidValue", "Email", "Email is not valid")}},
			{"ErrUnknownCountry", with(func(a *entities.Address) { a.CountryID, a.StateProvinceID = "XX", "" }), true, []odata.ErrorDetail{
				detail("InvalidValue", "CountryId", "Country is required")}},
			{"ErrUnknownCountryDisabled", with(func(a *entities.Address) { a.CountryID, a.StateProvinceID = "XX", "" }), false, []odata.ErrorDetail{
				detail("InvalidValue", "CountryId", "Country does not exist")}},
			{"ErrStateRequired", with(func(a *entities.Address) { a.StateProvinceID = "" }), true, []odata.ErrorDetail{
				detail("Required", "StateProvinceId", "State / province is required")}},
			{"ErrStateOfAnotherCountry", with(func(a *entities.Address) { a.StateProvinceID = "CA-QC" }), true, []odata.ErrorDetail{
				detail("InvalidValue", "StateProvinceId", "State / province does not belong to the country")}},
			{"ErrStateOfAnotherCountryDisabled", with(func(a *entities.Address) { a.StateProvinceID = "CA-QC" }), false, []odata.ErrorDetail{
				detail("InvalidValue", "StateProvinceId", "State / province does not belong to the country")}},
			{"ErrUnknownState", with(func(a *entities.Address) { a.StateProvinceID = "US-XX" }), true, []odata.ErrorDetail{
				detail("InvalidValue", "StateProvinceId", "State / province does not exist")}},
			{"ErrUnknownStateDisabled", with(func(a *entities.Address) { a.CountryID, a.StateProvinceID = "", "US-XX" }), false, []odata.ErrorDetail{
				detail("InvalidValue", "StateProvinceId", "State / province does not exist")}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, err := entities.ValidateAddress(context.Background(), db, tc.a, tc.countries)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("ValidateAddress(%+v, %v) mismatch (-want +got):\n%s", tc.a, tc.countries, diff)
				}
			})
		}
	})
}

func TestValidEmail(t *testing.T) {
	for in, want := range map[string]bool{
		"ann@example.com": true, "a.b+c@mail.example.org": true, "": false, "ann": false, "@example.com": false,
		"ann@": false, " ann@example.com": false, "Ann <ann@example.com>": false, "ann@example.": false,
		"ann@[127.0.0.1]": false, "a@b@c.com": false,
	} {
		if got := entities.ValidEmail(in); got != want {
			t.Errorf("ValidEmail(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestAddresses(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		addressFixture(t, db)
		ctx := context.Background()
		in := validAddress()
		in.FirstName = "  Ann "
		a, err := entities.InsertAddress(ctx, db, "c1", in)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.ID) != 24 || a.CreatedOnUtc.IsZero() || a.FirstName != "Ann" {
			t.Fatalf("InsertAddress() = %+v, want an id, a creation time and trimmed fields", a)
		}
		t.Run("OKLoad", func(t *testing.T) {
			got, found, err := entities.LoadAddress(ctx, db, "c1", a.ID)
			if err != nil || !found {
				t.Fatalf("LoadAddress(c1, %s) = %v, %v", a.ID, found, err)
			}
			if diff := cmp.Diff(a, got, cmpopts.EquateApproxTime(0)); diff != "" {
				t.Errorf("LoadAddress mismatch (-want +got):\n%s", diff)
			}
		})
		t.Run("ErrLoadOtherCustomers", func(t *testing.T) {
			if _, found, err := entities.LoadAddress(ctx, db, "c2", a.ID); err != nil || found {
				t.Errorf("LoadAddress(c2, address of c1) = %v, %v, want not found", found, err)
			}
		})
		t.Run("OKFindIdentical", func(t *testing.T) {
			probe := validAddress()
			probe.City = " New York "
			got, found, err := entities.FindIdenticalAddress(ctx, db, "c1", probe)
			if err != nil || !found || got.ID != a.ID {
				t.Errorf("FindIdenticalAddress(same) = %v, %v, %v, want %s", got.ID, found, err, a.ID)
			}
			probe.Address2 = "Apt 2"
			if _, found, err := entities.FindIdenticalAddress(ctx, db, "c1", probe); err != nil || found {
				t.Errorf("FindIdenticalAddress(other Address2) = %v, %v, want not found", found, err)
			}
			if _, found, err := entities.FindIdenticalAddress(ctx, db, "c2", validAddress()); err != nil || found {
				t.Errorf("FindIdenticalAddress(another customer) = %v, %v, want not found", found, err)
			}
		})
		t.Run("OKUpdate", func(t *testing.T) {
			up := a
			up.Company, up.Address2 = "Acme", "Apt 2"
			if ok, err := entities.UpdateAddress(ctx, db, "c1", up); err != nil || !ok {
				t.Fatalf("UpdateAddress() = %v, %v", ok, err)
			}
			got, _, _ := entities.LoadAddress(ctx, db, "c1", a.ID)
			if got.Company != "Acme" || got.Address2 != "Apt 2" {
				t.Errorf("after UpdateAddress: %+v", got)
			}
			if ok, err := entities.UpdateAddress(ctx, db, "c2", up); err != nil || ok {
				t.Errorf("UpdateAddress(another customer's) = %v, %v, want false", ok, err)
			}
		})
		t.Run("OKList", func(t *testing.T) {
			b, err := entities.InsertAddress(ctx, db, "c1", validAddress())
			if err != nil {
				t.Fatal(err)
			}
			list, err := entities.CustomerAddresses(ctx, db, "c1")
			if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
				t.Errorf("CustomerAddresses(c1) = %v, %v, want [%s %s]", list, err, a.ID, b.ID)
			}
		})
		t.Run("OKDelete", func(t *testing.T) {
			if ok, err := entities.DeleteAddress(ctx, db, "c2", a.ID); err != nil || ok {
				t.Errorf("DeleteAddress(another customer's) = %v, %v, want false", ok, err)
			}
			if ok, err := entities.DeleteAddress(ctx, db, "c1", a.ID); err != nil || !ok {
				t.Errorf("DeleteAddress() = %v, %v, want true", ok, err)
			}
		})
		t.Run("ErrUnknownCustomer", func(t *testing.T) {
			if _, err := entities.InsertAddress(ctx, db, "nobody", validAddress()); err == nil {
				t.Error("InsertAddress(unknown customer) = nil, want an error")
			}
		})
	})
}

func TestAddress_MarshalJSON(t *testing.T) {
	a := entities.Address{ID: "a1", FirstName: "Ann", CountryID: "US"}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Id":"a1","FirstName":"Ann","LastName":null,"Email":null,"Company":null,"CountryId":"US",` +
		`"StateProvinceId":null,"City":null,"Address1":null,"Address2":null,"ZipPostalCode":null,"PhoneNumber":null,` +
		`"FaxNumber":null,"CreatedOnUtc":null}`
	if string(b) != want {
		t.Errorf("json.Marshal(%+v) = %s, want %s", a, b, want)
	}
}

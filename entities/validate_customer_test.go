package entities

import (
	"context"
	"maps"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

func TestValidateCustomerRole(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		base := map[string]any{"Name": "Resellers", "Active": true, "IsSystemRole": false, "FreeShipping": false}
		admins := map[string]any{"Id": f.administrators, "Name": "Administrators", "SystemName": "Administrators",
			"Active": true, "IsSystemRole": true, "FreeShipping": false}
		wholesale := map[string]any{"Id": f.role, "Name": "Wholesale", "Active": true, "IsSystemRole": false}
		const sysEdit = "System roles cannot be edited"
		runRules(t, f, "validateCustomerRole", validateCustomerRole, base, []ruleTest{
			{name: "OK"},
			{name: "OKPurchasedWithProduct", changes: map[string]any{"PurchasedWithProductId": f.simple, "SystemName": "Resellers"}},
			{name: "OKUpdateOwnName", old: wholesale, changes: map[string]any{"Id": f.role, "Name": "Wholesale", "Active": false}},
			{name: "OKSystemRoleOtherFields", old: admins, changes: with(admins, map[string]any{"FreeShipping": true})},
			{name: "ErrNameMissing", changes: map[string]any{"Name": nil},
				want: []string{"Required Name: Customer role name is required"}},
			{name: "ErrNameTaken", changes: map[string]any{"Name": "Registered"},
				want: []string{"InvalidValue Name: A customer role named 'Registered' already exists"}},
			{name: "ErrNameTakenOnUpdate", old: wholesale, changes: map[string]any{"Id": f.role, "Name": "Guests"},
				want: []string{"InvalidValue Name: A customer role named 'Guests' already exists"}},
			{name: "ErrSystemNameTaken", changes: map[string]any{"SystemName": "Administrators"},
				want: []string{"InvalidValue SystemName: A customer role with the system name 'Administrators' already exists"}},
			{name: "ErrPurchasedWithProductUnknown", changes: map[string]any{"PurchasedWithProductId": "nope"},
				want: []string{"InvalidValue PurchasedWithProductId: Product 'nope' does not exist"}},
			{name: "ErrSystemRoleRenamed", old: admins, changes: with(admins, map[string]any{"Name": "Admins"}),
				want: []string{"InvalidValue Name: " + sysEdit}},
			{name: "ErrSystemRoleEveryField", old: admins,
				changes: map[string]any{"Id": f.administrators, "Name": "Admins", "SystemName": "Admins", "Active": false,
					"IsSystemRole": false},
				want: []string{"InvalidValue Name: " + sysEdit, "InvalidValue SystemName: " + sysEdit,
					"InvalidValue Active: " + sysEdit, "InvalidValue IsSystemRole: " + sysEdit}},
		})
	})
}

func TestCheckDeleteRole(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		tests := []struct {
			name   string
			old    map[string]any
			status int
		}{
			{"OK", map[string]any{"Id": f.role, "IsSystemRole": false}, 0},
			{"OKFromDatabase", map[string]any{"Id": f.role}, 0},
			{"OKUnknown", map[string]any{"Id": "nope"}, 0},
			{"ErrSystemRole", map[string]any{"Id": f.administrators, "IsSystemRole": true}, http.StatusForbidden},
			{"ErrSystemRoleFromDatabase", map[string]any{"Id": f.registered}, http.StatusForbidden},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f.inTx(t, func(ctx context.Context, tx *sqldb.Tx) {
					got, err := checkDeleteRole(ctx, tx, tt.old)
					if err != nil {
						t.Fatalf("checkDeleteRole(%v) error = %v", tt.old, err)
					}
					status := 0
					if got != nil {
						status = got.Status()
						if got.Code != "Forbidden" || got.Message != "System roles cannot be deleted" {
							t.Errorf("checkDeleteRole(%v) = %+v", tt.old, got)
						}
					}
					if status != tt.status {
						t.Errorf("checkDeleteRole(%v) status = %d, want %d", tt.old, status, tt.status)
					}
				})
			})
		}
	})
}

func TestValidateCustomer(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		base := map[string]any{"Email": "jane@example.com", "Active": true, "CustomerRoles": []any{f.registered}}
		admin := map[string]any{"Id": f.customer, "Email": "admin@example.com"}
		today := edm.DateOf(testNow)
		runRules(t, f, "validateCustomer", validateCustomer, base, []ruleTest{
			{name: "OK"},
			{name: "OKAllSet", changes: map[string]any{"CustomerRoles": []any{f.registered, f.role}, "CountryId": "US",
				"StateProvinceId": "US-NY", "DateOfBirth": today, "Username": "jane"}},
			{name: "OKCountryOnly", changes: map[string]any{"CountryId": "FR"}},
			{name: "OKNoRoles", changes: map[string]any{"CustomerRoles": []any{}}},
			{name: "OKOwnEmail", old: admin, changes: map[string]any{"Id": f.customer, "Email": "admin@example.com"}},
			{name: "ErrEmailMissing", changes: map[string]any{"Email": nil},
				want: []string{"Required Email: Email is required"}},
			{name: "ErrEmailInvalid", changes: map[string]any{"Email": "jane.example.com"},
				want: []string{"InvalidValue Email: Email is not a valid e-mail address"}},
			{name: "ErrEmailDisplayName", changes: map[string]any{"Email": "Jane <jane@example.com>"},
				want: []string{"InvalidValue Email: Email is not a valid e-mail address"}},
			{name: "ErrEmailSpaces", changes: map[string]any{"Email": " jane@example.com"},
				want: []string{"InvalidValue Email: Email is not a valid e-mail address"}},
			{name: "ErrEmailTaken", changes: map[string]any{"Email": "Admin@Example.COM"},
				want: []string{"InvalidValue Email: Email is already registered"}},
			{name: "ErrRoleUnknown", changes: map[string]any{"CustomerRoles": []any{f.registered, "nope"}},
				want: []string{"InvalidValue CustomerRoles: Customer role 'nope' does not exist"}},
			{name: "ErrRolesUnknown", changes: map[string]any{"CustomerRoles": []any{"a", f.role, "b"}},
				want: []string{"InvalidValue CustomerRoles: Customer roles 'a', 'b' do not exist"}},
			{name: "ErrRoleNotAnID", changes: map[string]any{"CustomerRoles": []any{int64(1)}},
				want: []string{"InvalidValue CustomerRoles: CustomerRoles must hold customer role ids, not 1"}},
			{name: "ErrCountryUnknown", changes: map[string]any{"CountryId": "ZZ"},
				want: []string{"InvalidValue CountryId: Country 'ZZ' does not exist"}},
			{name: "ErrStateUnknown", changes: map[string]any{"CountryId": "US", "StateProvinceId": "US-ZZ"},
				want: []string{"InvalidValue StateProvinceId: State or province 'US-ZZ' does not exist"}},
			{name: "ErrStateWithoutCountry", changes: map[string]any{"StateProvinceId": "US-NY"},
				want: []string{"InvalidValue StateProvinceId: State or province 'US-NY' needs CountryId 'US'"}},
			{name: "ErrStateOfAnotherCountry", changes: map[string]any{"CountryId": "CA", "StateProvinceId": "US-NY"},
				want: []string{"InvalidValue StateProvinceId: State or province 'US-NY' is not in country 'CA'"}},
			{name: "ErrCountryUnknownStateKnown", changes: map[string]any{"CountryId": "ZZ", "StateProvinceId": "US-NY"},
				want: []string{"InvalidValue CountryId: Country 'ZZ' does not exist"}},
			{name: "ErrDateOfBirthFuture", changes: map[string]any{"DateOfBirth": edm.DateOf(testNow.AddDate(0, 0, 1))},
				want: []string{"InvalidValue DateOfBirth: DateOfBirth must not be in the future"}},
			{name: "ErrEveryRule", changes: map[string]any{"Email": "x", "CustomerRoles": []any{"nope"}, "CountryId": "ZZ",
				"DateOfBirth": edm.Date{Year: 3000, Month: 1, Day: 1}}, want: []string{
				"InvalidValue Email: Email is not a valid e-mail address",
				"InvalidValue CustomerRoles: Customer role 'nope' does not exist",
				"InvalidValue CountryId: Country 'ZZ' does not exist",
				"InvalidValue DateOfBirth: DateOfBirth must not be in the future",
			}},
		})
	})
}

func TestPrepareCustomer(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		now := testNow.Truncate(time.Microsecond)
		created := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		t.Run("OKCreate", func(t *testing.T) {
			f.inTx(t, func(ctx context.Context, tx *sqldb.Tx) {
				e := map[string]any{"Email": "jane@example.com", "Id": "client", "CustomerGuid": "client",
					"HasPassword": true, "CreatedOnUtc": created}
				if err := prepareCustomer(ctx, tx, e, nil, testOpts); err != nil {
					t.Fatal(err)
				}
				id, _ := e["Id"].(string)
				guid, _ := e["CustomerGuid"].(string)
				if len(id) != 24 || id == "client" {
					t.Errorf("Id = %q, want a new key", id)
				}
				if _, err := edm.ParseGuid(guid); err != nil {
					t.Errorf("CustomerGuid = %q: %v", guid, err)
				}
				delete(e, "Id")
				delete(e, "CustomerGuid")
				want := map[string]any{"Email": "jane@example.com", "Username": "jane@example.com",
					"HasPassword": false, "CreatedOnUtc": now, "LastActivityDateUtc": now,
					"CustomerRoles": []any{f.registered}}
				if diff := cmp.Diff(want, e); diff != "" {
					t.Errorf("prepareCustomer() (-want +got):\n%s", diff)
				}
			})
		})
		t.Run("OKUpdate", func(t *testing.T) {
			f.inTx(t, func(ctx context.Context, tx *sqldb.Tx) {
				old := map[string]any{"Id": f.customer, "Email": "admin@example.com", "CustomerGuid": "g",
					"HasPassword": true, "CreatedOnUtc": created, "LastActivityDateUtc": created, "Username": "boss"}
				e := map[string]any{"Email": "admin@example.com", "Username": "root", "HasPassword": false,
					"CustomerRoles": []any{f.role, f.administrators, f.role}}
				if err := prepareCustomer(ctx, tx, e, old, testOpts); err != nil {
					t.Fatal(err)
				}
				want := map[string]any{"Id": f.customer, "Email": "admin@example.com", "Username": "root",
					"CustomerGuid": "g", "HasPassword": true, "CreatedOnUtc": created, "LastActivityDateUtc": created,
					"CustomerRoles": []any{f.role, f.administrators}}
				if diff := cmp.Diff(want, e); diff != "" {
					t.Errorf("prepareCustomer() (-want +got):\n%s", diff)
				}
			})
		})
		t.Run("OKEmptyRolesKept", func(t *testing.T) {
			f.inTx(t, func(ctx context.Context, tx *sqldb.Tx) {
				e := map[string]any{"Email": "x@example.com", "Username": "", "CustomerRoles": []any{}}
				if err := prepareCustomer(ctx, tx, e, nil, testOpts); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]any{}, e["CustomerRoles"]); diff != "" || e["Username"] != "x@example.com" {
					t.Errorf("prepareCustomer() CustomerRoles = %v, Username = %v", e["CustomerRoles"], e["Username"])
				}
			})
		})
	})
}

func TestPrepareCustomerRole(t *testing.T) {
	tests := []struct {
		name   string
		e, old map[string]any
		want   map[string]any
	}{
		{"OKCreate", map[string]any{"Name": "A", "IsSystemRole": true, "SystemName": ""}, nil,
			map[string]any{"Name": "A", "IsSystemRole": false, "SystemName": nil}},
		{"OKUpdate", map[string]any{"Name": "A", "IsSystemRole": false, "SystemName": "A"},
			map[string]any{"IsSystemRole": true}, map[string]any{"Name": "A", "IsSystemRole": true, "SystemName": "A"}},
	}
	for _, tt := range tests {
		e := maps.Clone(tt.e)
		if err := prepareCustomerRole(context.Background(), nil, e, tt.old, testOpts); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, e); diff != "" {
			t.Errorf("prepareCustomerRole(%v) (-want +got):\n%s", tt.e, diff)
		}
	}
}

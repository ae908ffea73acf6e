package entities_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/sqlite"
)

// newService migrates and seeds db (without the demo catalog) and returns the store's OData service on it.
func newService(t *testing.T, db *dbtest.DB, countries bool) http.Handler {
	t.Helper()
	return newServiceWith(t, db, entities.Options{CountriesEnabled: countries,
		Now: func() time.Time { return time.Date(2030, 6, 15, 12, 0, 0, 0, time.UTC) }})
}

// newServiceWith migrates and seeds db (without the demo catalog) and returns the store's OData service on it,
// registered with o.
func newServiceWith(t *testing.T, db *dbtest.DB, o entities.Options) http.Handler {
	t.Helper()
	ctx := context.Background()
	if _, err := migrate.Up(ctx, db.DB, entities.Migrations); err != nil {
		t.Fatal(err)
	}
	if _, err := entities.Seed(ctx, db.DB, entities.SeedOptions{AdminEmail: "admin@example.com", AdminPassword: "password1"}); err != nil {
		t.Fatal(err)
	}
	cfg := odata.Config{DB: db.DB, Mount: "/odata"}
	if err := entities.Register(&cfg, o); err != nil {
		t.Fatalf("Register() = %v", err)
	}
	svc, err := odata.NewService(cfg)
	if err != nil {
		t.Fatalf("NewService() = %v", err)
	}
	return svc
}

// TestRegister_PrincipalChanged checks that Options.PrincipalChanged runs once after each committed write of a
// customer or a role and each customer action, alone or in a batch, and never for other sets, for failed
// writes or for reads.
func TestRegister_PrincipalChanged(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		calls := 0
		svc := newServiceWith(t, db, entities.Options{PrincipalChanged: func() { calls++ }})
		batch := `{"requests":[{"id":"1","atomicityGroup":"g","method":"PATCH","url":"Customer('c@example.com')",` +
			`"headers":{"content-type":"application/json"},"body":{"FirstName":"Cee"}}]}`
		for _, tc := range []struct {
			method, path, body string
			wantStatus         int
			wantCalls          int
		}{
			{"POST", "/Manufacturer", `{"Name":"Acme"}`, http.StatusCreated, 0},
			{"POST", "/Customer", `{"Email":"c@example.com","FirstName":"C"}`, http.StatusCreated, 1},
			{"GET", "/Customer('c@example.com')", "", http.StatusOK, 0},
			{"PATCH", "/Customer('c@example.com')", `{"Active":false}`, http.StatusOK, 1},
			{"PATCH", "/Customer('c@example.com')", `{"Email":"not an address"}`, http.StatusBadRequest, 0},
			{"POST", "/Customer('c@example.com')/SetPassword", `{"Password":"password2"}`, http.StatusOK, 1},
			{"POST", "/CustomerRole", `{"Name":"Wholesale"}`, http.StatusCreated, 1},
			{"POST", "/$batch", batch, http.StatusOK, 1},
			{"DELETE", "/Customer('c@example.com')", "", http.StatusOK, 1},
		} {
			before := calls
			if code, m := call(t, svc, tc.method, tc.path, tc.body); code != tc.wantStatus {
				t.Fatalf("%s %s = %d %v, want %d", tc.method, tc.path, code, m, tc.wantStatus)
			}
			if got := calls - before; got != tc.wantCalls {
				t.Errorf("%s %s called PrincipalChanged %d times, want %d", tc.method, tc.path, got, tc.wantCalls)
			}
		}
	})
}

// call sends one request to h and returns the status and the decoded body (nil when empty).
func call(t *testing.T, h http.Handler, method, path, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, "http://store.test/odata"+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	var m map[string]any
	if w.Body.Len() > 0 {
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
			t.Fatalf("%s %s: %v\n%s", method, path, err, w.Body)
		}
	}
	return w.Code, m
}

func errorDetails(m map[string]any) []string {
	var out []string
	list, _ := m["error"].(map[string]any)["details"].([]any)
	for _, d := range list {
		d := d.(map[string]any)
		out = append(out, fmt.Sprintf("%s %s: %s", d["code"], d["target"], d["message"]))
	}
	return out
}

// TestNewService checks the registration: each rule is answered once (a required field the engine checks is not
// repeated by the store's rules), computed fields come from the prepare step with Config.Now, a system role
// cannot be deleted, and the actions run.
func TestNewService(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		svc := newService(t, db, true)
		t.Run("ErrEachRuleOnce", func(t *testing.T) {
			code, m := call(t, svc, "POST", "/Product", `{"Name":"  ","Price":-1,"Weight":"heavy"}`)
			want := []string{
				"InvalidValue Weight: Weight is not a valid decimal number.",
				"Required Name: Product name is required",
				"InvalidValue Price: Price must not be negative",
			}
			if diff := cmp.Diff(want, errorDetails(m)); code != http.StatusBadRequest || diff != "" {
				t.Errorf("POST Product = %d, details (-want +got):\n%s", code, diff)
			}
		})
		t.Run("OKComputedFields", func(t *testing.T) {
			code, m := call(t, svc, "POST", "/Category", `{"Name":"Crème Brûlée","CreatedOnUtc":"2000-01-01T00:00:00Z"}`)
			got := []any{code, m["SeName"], m["CreatedOnUtc"], m["UpdatedOnUtc"]}
			want := []any{http.StatusCreated, "creme-brulee", "2030-06-15T12:00:00Z", "2030-06-15T12:00:00Z"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("POST Category (-want +got):\n%s", diff)
			}
		})
		t.Run("OKCustomerDefaults", func(t *testing.T) {
			code, m := call(t, svc, "POST", "/Customer", `{"Email":"ann@example.com"}`)
			roles, _ := m["CustomerRoles"].([]any)
			if code != http.StatusCreated || m["Username"] != "ann@example.com" || len(roles) != 1 || m["HasPassword"] != false {
				t.Errorf("POST Customer = %d %v, want the Registered role and Username = Email", code, m)
			}
		})
		t.Run("ErrDeleteSystemRole", func(t *testing.T) {
			_, list := call(t, svc, "GET", "/CustomerRole", "")
			for _, v := range list["value"].([]any) {
				r := v.(map[string]any)
				if code, m := call(t, svc, "DELETE", fmt.Sprintf("/CustomerRole('%s')", r["Id"]), ""); code != http.StatusForbidden {
					t.Errorf("DELETE system role %s = %d %v, want 403", r["Name"], code, m)
				}
			}
		})
		t.Run("BodyLimits", func(t *testing.T) {
			// SPEC parts 8 and 9: 1 MiB, 16 MiB on Picture (a picture of 2 MiB is a 400 of its own rules, not a 413).
			padded := func(object string, size int) string {
				return object[:len(object)-1] + strings.Repeat(" ", size-len(object)) + "}"
			}
			for _, c := range []struct {
				path, body string
				want       int
			}{
				{"/Manufacturer", padded(`{"Name":"Big"}`, 1<<20), http.StatusCreated},
				{"/Manufacturer", padded(`{"Name":"Bigger"}`, 1<<20+1), http.StatusRequestEntityTooLarge},
				{"/Picture", padded(`{"MimeType":"image/png"}`, 2<<20), http.StatusBadRequest},
				{"/Picture", padded(`{"MimeType":"image/png"}`, entities.PictureBodyBytes+1), http.StatusRequestEntityTooLarge},
			} {
				if code, m := call(t, svc, "POST", c.path, c.body); code != c.want {
					t.Errorf("POST %s of %d bytes = %d %v, want %d", c.path, len(c.body), code, m["error"], c.want)
				}
			}
		})
		t.Run("OKAction", func(t *testing.T) {
			code, m := call(t, svc, "POST", "/Customer('ann@example.com')/AddAddress",
				`{"FirstName":"Ann","LastName":"Lee","Email":"ann@example.com","CountryId":"CA","StateProvinceId":"CA-ON",`+
					`"City":"Toronto","Address1":"1 King St","ZipPostalCode":"M5H 1A1","PhoneNumber":"555"}`)
			if code != http.StatusOK || m["City"] != "Toronto" || m["Id"] == nil {
				t.Errorf("AddAddress = %d %v", code, m)
			}
		})
	})
}

// ExampleRegister serves the store's OData service on a new SQLite database: a manufacturer is created with
// its computed SeName, and a rule that fails answers one detail.
//
// SQLite only: an Example is documentation that runs with nothing beside it (no database server) and prints
// fixed output; the tests of the package run the same code on both databases.
func ExampleRegister() {
	dir, err := os.MkdirTemp("", "store")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(filepath.Join(dir, "store.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := migrate.Up(ctx, db, entities.Migrations); err != nil {
		log.Fatal(err)
	}
	if _, err := entities.Seed(ctx, db, entities.SeedOptions{AdminEmail: "admin@example.com", AdminPassword: "password1"}); err != nil {
		log.Fatal(err)
	}
	cfg := odata.Config{DB: db, Mount: "/odata"}
	if err := entities.Register(&cfg, entities.Options{CountriesEnabled: true}); err != nil {
		log.Fatal(err)
	}
	svc, err := odata.NewService(cfg)
	if err != nil {
		log.Fatal(err)
	}

	for _, body := range []string{`{"Name":"Acme Tools"}`, `{"Name":"Acme","PageSizeOptions":"6,6"}`} {
		req := httptest.NewRequest("POST", "http://localhost/odata/Manufacturer", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		svc.ServeHTTP(w, req)
		var answer struct {
			SeName string
			Error  struct{ Message string }
		}
		_ = json.Unmarshal(w.Body.Bytes(), &answer)
		fmt.Println(w.Code, answer.SeName+answer.Error.Message)
	}
	// Output:
	// 201 acme-tools
	// 400 PageSizeOptions lists 6 more than once
}

package entities_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/biter777/countries"
	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/dbtest"
)

const adminEmail = "admin@example.com"

func seeded(t testing.TB, db *dbtest.DB, opts entities.SeedOptions) entities.SeedResult {
	t.Helper()
	migrated(t, db)
	res, err := entities.Seed(context.Background(), db.DB, opts)
	if err != nil {
		t.Fatalf("Seed(%+v) = %v", opts, err)
	}
	return res
}

func TestSeed(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := context.Background()
		res := seeded(t, db, entities.SeedOptions{AdminEmail: adminEmail, Demo: true})
		t.Run("OK", func(t *testing.T) {
			if !res.Seeded || len(res.GeneratedAdminPassword) < 20 {
				t.Fatalf("Seed() = %+v, want Seeded and a generated password", res)
			}
		})
		t.Run("OKCountries", func(t *testing.T) {
			if n := count(t, db, `SELECT COUNT(*) FROM country`); n < 249 {
				t.Errorf("countries = %d, want >= 249", n)
			}
			if n := count(t, db, `SELECT COUNT(*) FROM country WHERE id IN ('AN', 'YU', 'XK')`); n != 0 {
				t.Errorf("withdrawn or user-assigned codes = %d, want 0", n)
			}
			var name, alpha3 string
			var numeric int
			var billing, shipping, published bool
			err := db.QueryRow(q(db, `SELECT name, three_letter_iso_code, numeric_iso_code, allows_billing, allows_shipping,
	published FROM country WHERE id = ? AND two_letter_iso_code = ?`), "US", "US").
				Scan(&name, &alpha3, &numeric, &billing, &shipping, &published)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]any{"United States", "USA", 840, true, true, true},
				[]any{name, alpha3, numeric, billing, shipping, published}); diff != "" {
				t.Errorf("country US (-want +got):\n%s", diff)
			}
		})
		t.Run("OKStates", func(t *testing.T) {
			us := count(t, db, `SELECT COUNT(*) FROM state_province WHERE country_id = 'US'`)
			if want := len(countries.US.Subdivisions()); us != want || us < 51 {
				t.Errorf("US states = %d, want %d (50 states, DC and the outlying areas)", us, want)
			}
			if ca := count(t, db, `SELECT COUNT(*) FROM state_province WHERE country_id = 'CA'`); ca != 13 {
				t.Errorf("CA provinces = %d, want 13", ca)
			}
			var country, name, abbr string
			var published bool
			if err := db.QueryRow(`SELECT country_id, name, abbreviation, published FROM state_province WHERE id = 'US-NY'`).
				Scan(&country, &name, &abbr, &published); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]any{"US", "New York", "NY", true}, []any{country, name, abbr, published}); diff != "" {
				t.Errorf("state US-NY (-want +got):\n%s", diff)
			}
			if n := count(t, db, `SELECT COUNT(*) FROM state_province WHERE id IN ('US-DC', 'CA-QC')`); n != 2 {
				t.Errorf("US-DC and CA-QC = %d rows, want 2", n)
			}
		})
		t.Run("OKRoles", func(t *testing.T) {
			rows, err := db.Query(`SELECT name, system_name, is_system_role, active FROM customer_role ORDER BY name`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var got []string
			for rows.Next() {
				var name, system string
				var isSystem, active bool
				if err := rows.Scan(&name, &system, &isSystem, &active); err != nil {
					t.Fatal(err)
				}
				if name != system || !isSystem || !active {
					t.Errorf("role %q: system name %q, system %v, active %v", name, system, isSystem, active)
				}
				got = append(got, name)
			}
			if diff := cmp.Diff([]string{"Administrators", "Guests", "Registered"}, got); diff != "" {
				t.Errorf("roles (-want +got):\n%s", diff)
			}
		})
		t.Run("OKAdmin", func(t *testing.T) {
			var roles int
			var hasPassword bool
			err := db.QueryRow(q(db, `SELECT c.has_password, (SELECT COUNT(*) FROM customer_role_mapping m
	JOIN customer_role r ON r.id = m.customer_role_id WHERE m.customer_id = c.id AND r.system_name IN ('Administrators', 'Registered'))
FROM customer c WHERE c.email = ?`), adminEmail).Scan(&hasPassword, &roles)
			if err != nil || !hasPassword || roles != 2 {
				t.Fatalf("admin: has_password %v, roles %d, err %v; want true, 2, nil", hasPassword, roles, err)
			}
			a := &entities.Auth{DB: db.DB}
			tok, err := a.Login(ctx, creds(adminEmail, res.GeneratedAdminPassword))
			if err != nil {
				t.Fatalf("Login(admin, generated password) = %v", err)
			}
			p, err := a.Authenticate(ctx, tok.AccessToken)
			if err != nil || !p.Admin || p.Email != adminEmail {
				t.Errorf("Authenticate(admin token) = %+v, %v, want an admin", p, err)
			}
		})
		t.Run("OKDemo", func(t *testing.T) {
			for query, want := range map[string]int{
				`SELECT COUNT(*) FROM category`:                                      3,
				`SELECT COUNT(*) FROM category WHERE parent_category_id IS NOT NULL`: 1,
				`SELECT COUNT(*) FROM manufacturer`:                                  2,
				`SELECT COUNT(*) FROM product`:                                       6,
				`SELECT COUNT(*) FROM product WHERE manage_inventory_method = 1`:     4,
				`SELECT COUNT(*) FROM product WHERE se_name IS NULL OR sku IS NULL`:  0,
				`SELECT COUNT(*) FROM product WHERE price <= 0`:                      0,
				`SELECT COUNT(*) FROM product_collection`:                            6,
				`SELECT COUNT(DISTINCT product_id) FROM product_category`:            6,
				`SELECT COUNT(*) FROM (SELECT se_name FROM product UNION ALL SELECT se_name FROM category
					UNION ALL SELECT se_name FROM manufacturer) s`: 11,
				`SELECT COUNT(DISTINCT se_name) FROM (SELECT se_name FROM product UNION ALL SELECT se_name FROM category
					UNION ALL SELECT se_name FROM manufacturer) s`: 11,
			} {
				if got := count(t, db, query); got != want {
					t.Errorf("%s = %d, want %d", query, got, want)
				}
			}
			// Money is stored exactly in the dialect's form.
			var price string
			if err := db.QueryRow(`SELECT CAST(price AS TEXT) FROM product WHERE sku = 'NW-MOUSE-01'`).Scan(&price); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"sqlite": "249900", "postgres": "24.9900"}[db.Dialect().Name()]
			if price != want {
				t.Errorf("stored price of 24.99 = %q, want %q", price, want)
			}
		})
		t.Run("OKSecondSeedDoesNothing", func(t *testing.T) {
			res, err := entities.Seed(ctx, db.DB, entities.SeedOptions{AdminEmail: "other@example.com", Demo: true})
			if err != nil || res.Seeded || res.GeneratedAdminPassword != "" {
				t.Fatalf("Seed() again = %+v, %v, want not seeded", res, err)
			}
			for query, want := range map[string]int{
				`SELECT COUNT(*) FROM customer`:      1,
				`SELECT COUNT(*) FROM customer_role`: 3,
				`SELECT COUNT(*) FROM product`:       6,
			} {
				if got := count(t, db, query); got != want {
					t.Errorf("after a second Seed: %s = %d, want %d", query, got, want)
				}
			}
		})
	})
}

func TestSeed_Options(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := context.Background()
		res := seeded(t, db, entities.SeedOptions{AdminEmail: "Boss@Example.com", AdminPassword: "correct horse"})
		t.Run("OKGivenPassword", func(t *testing.T) {
			if !res.Seeded || res.GeneratedAdminPassword != "" {
				t.Fatalf("Seed() = %+v, want Seeded without a generated password", res)
			}
			a := &entities.Auth{DB: db.DB}
			if _, err := a.Login(ctx, creds("boss@example.com", "correct horse")); err != nil {
				t.Errorf("Login(admin) = %v", err)
			}
		})
		t.Run("OKNoDemo", func(t *testing.T) {
			if n := count(t, db, `SELECT COUNT(*) FROM product`); n != 0 {
				t.Errorf("products without Demo = %d, want 0", n)
			}
		})
	})
}

func TestSeed_Errors(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		for _, tc := range []struct {
			name string
			opts entities.SeedOptions
			want string
		}{
			{"ErrNoAdminEmail", entities.SeedOptions{}, "e-mail"},
			{"ErrBadAdminEmail", entities.SeedOptions{AdminEmail: "not an e-mail"}, "e-mail"},
			{"ErrAdminEmailWithName", entities.SeedOptions{AdminEmail: "Admin <admin@example.com>"}, "e-mail"},
			{"ErrShortAdminPassword", entities.SeedOptions{AdminEmail: adminEmail, AdminPassword: "short"}, "at least 8"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := entities.Seed(context.Background(), db.DB, tc.opts)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Seed(%+v) = %v, want an error containing %q", tc.opts, err, tc.want)
				}
			})
		}
		if n := count(t, db, `SELECT COUNT(*) FROM seed_marker`); n != 0 {
			t.Errorf("seed markers after failed seeds = %d, want 0", n)
		}
	})
}

// TestSeed_Concurrent starts several seeders at once, as several server nodes starting together would: exactly
// one seeds.
func TestSeed_Concurrent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		const nodes = 4
		var wg sync.WaitGroup
		results := make([]entities.SeedResult, nodes)
		errs := make([]error, nodes)
		for i := range nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = entities.Seed(context.Background(), db.DB,
					entities.SeedOptions{AdminEmail: adminEmail, Demo: true})
			}()
		}
		wg.Wait()
		seededBy := 0
		for i := range nodes {
			if errs[i] != nil {
				t.Errorf("Seed() on node %d = %v", i, errs[i])
			}
			if results[i].Seeded {
				seededBy++
			}
		}
		if seededBy != 1 {
			t.Errorf("Seed() on %d nodes seeded %d times, want once", nodes, seededBy)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM product`); n != 6 {
			t.Errorf("products = %d, want 6", n)
		}
	})
}

package entities

import (
	"context"
	"fmt"
	"log/slog"
	"net/mail"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/biter777/countries"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// SeedOptions are the settings of the first start.
type SeedOptions struct {
	// AdminEmail is the e-mail of the bootstrap administrator (required).
	AdminEmail string
	// AdminPassword is its password; empty means a random one, returned in SeedResult.
	AdminPassword string
	// Demo adds a small demo catalog.
	Demo bool
	// Logger receives one line about what was seeded; nil means no logging.
	Logger *slog.Logger
}

// SeedResult tells what Seed did.
type SeedResult struct {
	// Seeded is true when this call seeded the database, false when it had been seeded before.
	Seeded bool
	// GeneratedAdminPassword is the administrator's password when Seed generated it; show it to the operator once.
	GeneratedAdminPassword string
}

// seedMarkerName is this package's row in seed_marker.
const seedMarkerName = "entities"

// seedBatch is the number of rows per INSERT of reference data.
const seedBatch = 100

// stateCountries are the countries whose ISO 3166-2 subdivisions are seeded as StateProvince. Addresses in these
// countries must name a state.
var stateCountries = []countries.CountryCode{countries.US, countries.CA}

// withdrawnCountries are codes the countries library still lists that ISO 3166-1 no longer assigns (codes 900 and
// above are user-assigned, such as XK, and are skipped too).
var withdrawnCountries = map[string]bool{"AN": true, "YU": true}

// Seed fills a migrated, empty database on its first start: the system roles Administrators, Registered and
// Guests; every ISO 3166-1 country and the ISO 3166-2 subdivisions of the United States and Canada; the
// administrator (in the roles Administrators and Registered); and with opts.Demo a small demo catalog. It runs in
// one transaction that also writes a marker row, so a later start, or another server node starting at the same
// time, seeds nothing and answers Seeded false.
func Seed(ctx context.Context, db *sqldb.DB, opts SeedOptions) (SeedResult, error) {
	d := db.Dialect()
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if a, err := mail.ParseAddress(opts.AdminEmail); err != nil || a.Address != opts.AdminEmail {
		return SeedResult{}, fmt.Errorf("entities: seed: the admin e-mail %q is not valid", opts.AdminEmail)
	}
	password, generated := opts.AdminPassword, ""
	if password == "" {
		password = randomPassword()
		generated = password
	}
	// Hash before taking the database's write lock: bcrypt is slow on purpose.
	hash, err := HashPassword(password)
	if err != nil {
		return SeedResult{}, fmt.Errorf("entities: seed: admin password: %w", err)
	}

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return SeedResult{}, fmt.Errorf("entities: seed: %w", err)
	}
	defer tx.Rollback()
	now := time.Now()
	b := sqldb.Builder(d)

	// The marker goes first: a concurrent seeder on PostgreSQL waits here on the primary key until this
	// transaction ends, then inserts nothing (SQLite serializes the whole transaction).
	q, args, err := b.Insert("seed_marker").Columns("name", "seeded_on_utc").
		Values(seedMarkerName, sqldb.TimeArg(d, now)).Suffix("ON CONFLICT (name) DO NOTHING").ToSql()
	if err != nil {
		return SeedResult{}, err
	}
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return SeedResult{}, fmt.Errorf("entities: seed: marker: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return SeedResult{}, fmt.Errorf("entities: seed: marker: %w", err)
	} else if n == 0 {
		return SeedResult{}, nil
	}

	roles, err := seedRoles(ctx, tx, b)
	if err != nil {
		return SeedResult{}, err
	}
	nCountries, nStates, err := seedCountries(ctx, tx, b)
	if err != nil {
		return SeedResult{}, err
	}
	if err := seedAdmin(ctx, tx, opts.AdminEmail, hash, roles); err != nil {
		return SeedResult{}, err
	}
	demo := false
	if opts.Demo {
		if demo, err = seedDemo(ctx, tx); err != nil {
			return SeedResult{}, err
		}
	}
	if err := tx.Commit(); err != nil {
		return SeedResult{}, fmt.Errorf("entities: seed: %w", err)
	}
	logger.InfoContext(ctx, "seeded the database", "countries", nCountries, "states", nStates,
		"admin", opts.AdminEmail, "generated_password", generated != "", "demo_catalog", demo)
	return SeedResult{Seeded: true, GeneratedAdminPassword: generated}, nil
}

// seedRoles creates the system roles and returns their ids by system name.
func seedRoles(ctx context.Context, tx *sqldb.Tx, b sq.StatementBuilderType) (map[string]string, error) {
	ids := map[string]string{}
	ins := b.Insert("customer_role").Columns("id", "name", "active", "is_system_role", "system_name")
	for _, name := range []string{RoleAdministrators, RoleRegistered, RoleGuests} {
		ids[name] = odata.NewID()
		ins = ins.Values(ids[name], name, true, true, name)
	}
	if err := execBuilder(ctx, tx, ins); err != nil {
		return nil, fmt.Errorf("entities: seed: roles: %w", err)
	}
	return ids, nil
}

// seedCountries inserts the countries and the states of stateCountries.
func seedCountries(ctx context.Context, tx *sqldb.Tx, b sq.StatementBuilderType) (nCountries, nStates int, err error) {
	var rows [][]any
	for _, c := range countries.All() {
		alpha2 := c.Alpha2()
		if int(c) >= 900 || withdrawnCountries[alpha2] {
			continue
		}
		rows = append(rows, []any{alpha2, c.String(), alpha2, c.Alpha3(), int(c), true, true, true, 0})
	}
	if err := insertRows(ctx, tx, b, "country", []string{"id", "name", "two_letter_iso_code",
		"three_letter_iso_code", "numeric_iso_code", "allows_billing", "allows_shipping", "published",
		"display_order"}, rows); err != nil {
		return 0, 0, fmt.Errorf("entities: seed: countries: %w", err)
	}
	nCountries = len(rows)
	rows = rows[:0]
	for _, c := range stateCountries {
		for _, s := range c.Subdivisions() {
			code := string(s)
			country, abbr, ok := cutCode(code)
			if !ok || country != c.Alpha2() {
				return 0, 0, fmt.Errorf("entities: seed: unexpected subdivision code %q of %s", code, c.Alpha2())
			}
			rows = append(rows, []any{code, country, s.String(), abbr, true})
		}
	}
	if err := insertRows(ctx, tx, b, "state_province", []string{"id", "country_id", "name", "abbreviation",
		"published"}, rows); err != nil {
		return 0, 0, fmt.Errorf("entities: seed: states: %w", err)
	}
	return nCountries, len(rows), nil
}

// cutCode splits an ISO 3166-2 code such as "US-NY" into "US" and "NY".
func cutCode(code string) (country, sub string, ok bool) {
	if len(code) < 4 || code[2] != '-' {
		return "", "", false
	}
	return code[:2], code[3:], true
}

// seedAdmin creates the administrator with the password hash, in the roles Administrators and Registered.
func seedAdmin(ctx context.Context, tx *sqldb.Tx, email, hash string, roles map[string]string) error {
	d := tx.Dialect()
	b := sqldb.Builder(d)
	id := odata.NewID()
	if err := execBuilder(ctx, tx, b.Insert("customer").Columns("id", "email", "username", "active").
		Values(id, email, email, true)); err != nil {
		return fmt.Errorf("entities: seed: admin: %w", err)
	}
	if err := execBuilder(ctx, tx, b.Insert("customer_role_mapping").
		Columns("customer_id", "customer_role_id", "ordinal").
		Values(id, roles[RoleAdministrators], 0).
		Values(id, roles[RoleRegistered], 1)); err != nil {
		return fmt.Errorf("entities: seed: admin roles: %w", err)
	}
	return SetPasswordHash(ctx, tx, id, hash)
}

// insertRows inserts rows into table in batches of seedBatch.
func insertRows(ctx context.Context, tx *sqldb.Tx, b sq.StatementBuilderType, table string, cols []string, rows [][]any) error {
	for start := 0; start < len(rows); start += seedBatch {
		ins := b.Insert(table).Columns(cols...)
		for _, r := range rows[start:min(start+seedBatch, len(rows))] {
			ins = ins.Values(r...)
		}
		if err := execBuilder(ctx, tx, ins); err != nil {
			return err
		}
	}
	return nil
}

func execBuilder(ctx context.Context, tx *sqldb.Tx, s sq.Sqlizer) error {
	q, args, err := s.ToSql()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, q, args...)
	return err
}

package entities

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// The rules of the writable entity sets. For each set X there are two steps, both run inside the write
// transaction, before the row is written:
//
//   - prepareX(ctx, q, e, old, opts) error fills in what the server computes (Id of a customer, SeName,
//     Username, CustomerGuid, CreatedOnUtc, UpdatedOnUtc, Size, the default CustomerRoles, ...), overwriting any
//     value of a read-only property with the server's;
//   - validateX(ctx, q, e, old, opts) ([]odata.ErrorDetail, error) checks every rule of the service contract
//     and answers one detail per failed rule (target = the property), or a database error.
//
// e is the entity as it will be stored, keyed by property name with the Go values of odata/DESIGN.md (nil or
// absent means null); old is the stored entity on an update and nil on a create. Required properties are checked
// here too (a blank string counts as missing), with the model's RequiredMessage.

// Options are the settings the store's rules depend on.
type Options struct {
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// CountriesEnabled makes addresses name a country, and a state where the country has states (SPEC 4.6).
	CountriesEnabled bool
	// PrincipalChanged, when not nil, runs after each committed write that may revoke a token or take a right
	// from a customer (see Register): a server that caches token checks (Auth.CacheTTL) passes Auth.Forget.
	PrincipalChanged func()
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// timestampNow is the current time as DateTimeOffset columns store it (UTC, microseconds), so the value a write
// returns is the value a read returns.
func (o Options) timestampNow() time.Time { return o.now().UTC().Truncate(time.Microsecond) }

// rules reads an entity's values and collects one detail per failed rule.
type rules struct {
	e       map[string]any
	details []odata.ErrorDetail
}

func (r *rules) fail(code, target, format string, args ...any) {
	r.details = append(r.details, odata.ErrorDetail{Code: code, Target: target, Message: fmt.Sprintf(format, args...)})
}

// wrongType reports a value of an unexpected Go type (a bug of the caller, reported rather than ignored).
func (r *rules) wrongType(name, want string) {
	r.fail(odata.CodeInvalidValue, name, "%s must be %s", name, want)
}

// str returns a string property; "" and false when it is null.
func (r *rules) str(name string) (string, bool) {
	switch v := r.e[name].(type) {
	case nil:
		return "", false
	case string:
		return v, true
	}
	r.wrongType(name, "a string")
	return "", false
}

// int returns an integer or enum property; false when it is null.
func (r *rules) int(name string) (int64, bool) {
	switch v := r.e[name].(type) {
	case nil:
		return 0, false
	case int64:
		return v, true
	}
	r.wrongType(name, "an integer")
	return 0, false
}

// decimal returns a Decimal property; false when it is null.
func (r *rules) decimal(name string) (decimal.Decimal, bool) {
	switch v := r.e[name].(type) {
	case nil:
		return decimal.Decimal{}, false
	case decimal.Decimal:
		return v, true
	}
	r.wrongType(name, "a number")
	return decimal.Decimal{}, false
}

// time returns a DateTimeOffset property; false when it is null.
func (r *rules) time(name string) (time.Time, bool) {
	switch v := r.e[name].(type) {
	case nil:
		return time.Time{}, false
	case time.Time:
		return v, true
	}
	r.wrongType(name, "a date and time")
	return time.Time{}, false
}

// date returns a Date property; false when it is null.
func (r *rules) date(name string) (edm.Date, bool) {
	switch v := r.e[name].(type) {
	case nil:
		return edm.Date{}, false
	case edm.Date:
		return v, true
	}
	r.wrongType(name, "a date")
	return edm.Date{}, false
}

// bytes returns a Binary property; false when it is null.
func (r *rules) bytes(name string) ([]byte, bool) {
	switch v := r.e[name].(type) {
	case nil:
		return nil, false
	case []byte:
		return v, true
	}
	r.wrongType(name, "base64-encoded bytes")
	return nil, false
}

// required checks that a string property is set and not blank, and returns it.
func (r *rules) required(name, message string) (string, bool) {
	s, ok := r.str(name)
	if !ok {
		if r.e[name] == nil { // else str reported the wrong type
			r.fail(odata.CodeRequired, name, "%s", message)
		}
		return "", false
	}
	if strings.TrimSpace(s) == "" {
		r.fail(odata.CodeRequired, name, "%s", message)
		return "", false
	}
	return s, true
}

// reference returns a set, non-empty string property that names another entity.
func (r *rules) reference(name string) (string, bool) {
	s, ok := r.str(name)
	if !ok || s == "" {
		return "", false
	}
	return s, true
}

// notNegative checks that a Decimal property is not below zero.
func (r *rules) notNegative(name string) {
	if v, ok := r.decimal(name); ok && v.IsNegative() {
		r.fail(odata.CodeInvalidValue, name, "%s must not be negative", name)
	}
}

// enum checks that an enum property holds one of the values.
func (r *rules) enum(name string, values ...int64) {
	v, ok := r.int(name)
	if !ok {
		return
	}
	for _, x := range values {
		if v == x {
			return
		}
	}
	r.fail(odata.CodeInvalidValue, name, "%s has no member with the value %d", name, v)
}

// intList checks a comma-separated list of positive integers (spaces around items allowed); distinct requires
// each number once. An empty or blank list is no list.
func (r *rules) intList(name string, distinct bool) {
	s, ok := r.str(name)
	if !ok || strings.TrimSpace(s) == "" {
		return
	}
	seen := map[int]bool{}
	for _, item := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(item))
		if err != nil || n <= 0 {
			what := "positive integers"
			if distinct {
				what = "distinct positive integers"
			}
			r.fail(odata.CodeInvalidValue, name, "%s must be a comma-separated list of %s, such as \"6, 12, 24\"", name, what)
			return
		}
		if distinct && seen[n] {
			r.fail(odata.CodeInvalidValue, name, "%s lists %d more than once", name, n)
			return
		}
		seen[n] = true
	}
}

// unique fails name with the message when st, run with value and self (the entity's own key, "" on create),
// finds another entity that holds value.
func (r *rules) unique(ctx context.Context, q Querier, st sqldb.Statement, name string, value any,
	self string, format string, args ...any) error {
	taken, err := exists(ctx, q, st, value, self)
	if err != nil {
		return err
	}
	if taken {
		r.fail(odata.CodeInvalidValue, name, format, args...)
	}
	return nil
}

// exists reports whether query (with ? placeholders) returns a row.
func exists(ctx context.Context, q Querier, st sqldb.Statement, args ...any) (bool, error) {
	d := q.Dialect()
	var one int
	err := q.QueryRowContext(ctx, st.For(d), args...).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("entities: %w", err)
	}
	return true, nil
}

var (
	pictureExists  = sqldb.NewStatement(`SELECT 1 FROM picture WHERE id = ?`)
	productExists  = sqldb.NewStatement(`SELECT 1 FROM product WHERE id = ?`)
	countryExists  = sqldb.NewStatement(`SELECT 1 FROM country WHERE id = ?`)
	stateCountry   = sqldb.NewStatement(`SELECT country_id FROM state_province WHERE id = ?`)
	pictureBinary  = sqldb.NewStatement(`SELECT picture_binary FROM picture WHERE id = ?`)
	registeredRole = sqldb.NewStatement(`SELECT id FROM customer_role WHERE system_name = ?`)
)

// checkReference adds a detail when the string property name is set and query finds no row for it. what names
// the referenced type in the message.
func (r *rules) checkReference(ctx context.Context, q Querier, name, what string, st sqldb.Statement) error {
	id, ok := r.reference(name)
	if !ok {
		return nil
	}
	found, err := exists(ctx, q, st, id)
	if err != nil {
		return err
	}
	if !found {
		r.fail(odata.CodeInvalidValue, name, "%s '%s' does not exist", what, id)
	}
	return nil
}

// idOf returns the Id of an entity map, "" when it has none.
func idOf(m map[string]any) string {
	s, _ := m["Id"].(string)
	return s
}

// selfID is the key of the entity being saved: e's Id, or old's on an update that does not send it.
func selfID(e, old map[string]any) string {
	if id := idOf(e); id != "" {
		return id
	}
	return idOf(old)
}

// stamp sets the created and updated timestamps: both now on create; on update the created one is kept and
// the updated one is now. An empty name is skipped.
func stamp(e, old map[string]any, created, updated string, opts Options) {
	now := opts.timestampNow()
	if old == nil {
		if created != "" {
			e[created] = now
		}
	} else if created != "" {
		e[created] = old[created]
	}
	if updated != "" {
		e[updated] = now
	}
}

// keep copies a read-only property from old on update and sets it to def on create.
func keep(e, old map[string]any, name string, def any) {
	if old == nil {
		e[name] = def
	} else {
		e[name] = old[name]
	}
}

// emptyToNull turns a blank string property into null (for columns under a unique index, where two empty strings
// would clash).
func emptyToNull(e map[string]any, name string) {
	if s, ok := e[name].(string); ok && strings.TrimSpace(s) == "" {
		e[name] = nil
	}
}

package entities

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/mail"
	"reflect"
	"strings"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

var (
	roleNameTaken       = sqldb.NewStatement(`SELECT 1 FROM customer_role WHERE name = ? AND id <> ?`)
	roleSystemNameTaken = sqldb.NewStatement(`SELECT 1 FROM customer_role WHERE system_name = ? AND id <> ?`)
	roleIsSystem        = sqldb.NewStatement(`SELECT is_system_role FROM customer_role WHERE id = ?`)
	// The e-mail is lowered in Go (ASCII letters only, as lower(email) under the binary collation of the
	// column and of the unique index customer_email_key): PostgreSQL's lower() of a parameter would follow the
	// database's default collation and fold other letters too.
	emailTaken = sqldb.NewStatement(`SELECT 1 FROM customer WHERE lower(email) = ? AND id <> ?`)
)

// systemRoleFields are the properties of a system role that cannot change.
var systemRoleFields = []string{"Name", "SystemName", "Active", "IsSystemRole"}

// prepareCustomerRole keeps IsSystemRole (false on create: only first start creates system roles) and stores a
// blank SystemName as null (SystemName is unique when set).
func prepareCustomerRole(ctx context.Context, q Querier, e, old map[string]any, opts Options) error {
	keep(e, old, "IsSystemRole", false)
	emptyToNull(e, "SystemName")
	return nil
}

// validateCustomerRole checks a customer role: Name required and unique; SystemName unique when set; the Name,
// SystemName, Active and IsSystemRole of a system role unchanged; PurchasedWithProductId names a product.
func validateCustomerRole(ctx context.Context, q Querier, e, old map[string]any, opts Options) ([]odata.ErrorDetail, error) {
	r := &rules{e: e}
	self := selfID(e, old)
	if name, ok := r.required("Name", "Customer role name is required"); ok {
		if err := r.unique(ctx, q, roleNameTaken, "Name", name, self,
			"A customer role named '%s' already exists", name); err != nil {
			return nil, err
		}
	}
	if sys, ok := r.reference("SystemName"); ok {
		if err := r.unique(ctx, q, roleSystemNameTaken, "SystemName", sys, self,
			"A customer role with the system name '%s' already exists", sys); err != nil {
			return nil, err
		}
	}
	if isSystem, _ := old["IsSystemRole"].(bool); isSystem {
		for _, name := range systemRoleFields {
			if !reflect.DeepEqual(e[name], old[name]) {
				r.fail(odata.CodeInvalidValue, name, "System roles cannot be edited")
			}
		}
	}
	if err := r.checkReference(ctx, q, "PurchasedWithProductId", "Product", productExists); err != nil {
		return nil, err
	}
	return r.details, nil
}

// checkDeleteRole refuses to delete a system role with 403. old is the stored role; when it lacks IsSystemRole
// the database is asked by its Id. It returns nil when the role may be deleted (its memberships go with it).
func checkDeleteRole(ctx context.Context, q Querier, old map[string]any) (*odata.Error, error) {
	d := q.Dialect()
	isSystem, ok := old["IsSystemRole"].(bool)
	if !ok {
		err := q.QueryRowContext(ctx, roleIsSystem.For(d), idOf(old)).Scan(&isSystem)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("entities: customer role: %w", err)
		}
	}
	if isSystem {
		e := odata.Forbidden("System roles cannot be deleted")
		e.Target = "Id"
		return e, nil
	}
	return nil, nil
}

// prepareCustomer computes what the server owns of a customer: Id, CustomerGuid, HasPassword (false on create;
// SetPassword changes it), CreatedOnUtc and LastActivityDateUtc (now on create, kept on update); Username
// defaults to the e-mail; CustomerRoles defaults to the Registered role and lists each role once.
func prepareCustomer(ctx context.Context, q Querier, e, old map[string]any, opts Options) error {
	d := q.Dialect()
	if old == nil {
		now := opts.timestampNow()
		e["Id"] = odata.NewID()
		e["CustomerGuid"] = edm.NewGuid()
		e["HasPassword"] = false
		e["CreatedOnUtc"] = now
		e["LastActivityDateUtc"] = now
	} else {
		for _, name := range []string{"Id", "CustomerGuid", "HasPassword", "CreatedOnUtc", "LastActivityDateUtc"} {
			e[name] = old[name]
		}
	}
	if u, _ := e["Username"].(string); strings.TrimSpace(u) == "" {
		e["Username"] = e["Email"]
	}
	roles, isList := e["CustomerRoles"].([]any)
	if e["CustomerRoles"] == nil {
		var id string
		err := q.QueryRowContext(ctx, registeredRole.For(d), RoleRegistered).Scan(&id)
		switch {
		case errors.Is(err, sql.ErrNoRows): // a database without the system roles: no default
			roles = []any{}
		case err != nil:
			return fmt.Errorf("entities: Registered role: %w", err)
		default:
			roles = []any{id}
		}
		e["CustomerRoles"] = roles
	} else if isList {
		seen := map[any]bool{}
		unique := make([]any, 0, len(roles))
		for _, v := range roles {
			if !seen[v] {
				seen[v] = true
				unique = append(unique, v)
			}
		}
		e["CustomerRoles"] = unique
	}
	return nil
}

// validateCustomer checks a customer: Email required, a plain valid address and unique ignoring case;
// CustomerRoles names existing roles; CountryId and StateProvinceId exist and belong together; DateOfBirth not in
// the future.
func validateCustomer(ctx context.Context, q Querier, e, old map[string]any, opts Options) ([]odata.ErrorDetail, error) {
	r := &rules{e: e}
	self := selfID(e, old)
	if email, ok := r.required("Email", "Email is required"); ok {
		if !validEmail(email) {
			r.fail(odata.CodeInvalidValue, "Email", "Email is not a valid e-mail address")
		} else {
			if err := r.unique(ctx, q, emailTaken, "Email", normalizeEmail(email), self,
				"Email is already registered"); err != nil {
				return nil, err
			}
		}
	}
	if err := r.customerRoles(ctx, q); err != nil {
		return nil, err
	}
	if err := r.countryAndState(ctx, q, "CountryId", "StateProvinceId"); err != nil {
		return nil, err
	}
	if dob, ok := r.date("DateOfBirth"); ok && dob.Compare(edm.DateOf(opts.now().UTC())) > 0 {
		r.fail(odata.CodeInvalidValue, "DateOfBirth", "DateOfBirth must not be in the future")
	}
	return r.details, nil
}

// validEmail reports whether s is one plain e-mail address (no display name, no angle brackets, no spaces
// around).
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s
}

// customerRoles checks that CustomerRoles lists ids of existing roles.
func (r *rules) customerRoles(ctx context.Context, q Querier) error {
	d := q.Dialect()
	const target = "CustomerRoles"
	v := r.e[target]
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		r.wrongType(target, "a list of customer role ids")
		return nil
	}
	var ids []string
	for _, item := range list {
		id, ok := item.(string)
		if !ok || id == "" {
			r.fail(odata.CodeInvalidValue, target, "CustomerRoles must hold customer role ids, not %v", item)
			return nil
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil
	}
	query, args, err := sqldb.Builder(d).Select("id").From("customer_role").Where(sq.Eq{"id": ids}).ToSql()
	if err != nil {
		return fmt.Errorf("entities: customer roles: %w", err)
	}
	rows, err := queryStrings(ctx, q, query, args...)
	if err != nil {
		return err
	}
	found := map[string]bool{}
	for _, id := range rows {
		found[id] = true
	}
	var missing []string
	for _, id := range ids {
		if !found[id] {
			missing = append(missing, "'"+id+"'")
		}
	}
	switch len(missing) {
	case 0:
	case 1:
		r.fail(odata.CodeInvalidValue, target, "Customer role %s does not exist", missing[0])
	default:
		r.fail(odata.CodeInvalidValue, target, "Customer roles %s do not exist", strings.Join(missing, ", "))
	}
	return nil
}

// queryStrings returns the single string column of query's rows.
func queryStrings(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("entities: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("entities: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("entities: %w", err)
	}
	return out, nil
}

// countryAndState checks that the country and the state properties, when set, name existing rows, and that the
// state lies in the country (a state needs its country).
func (r *rules) countryAndState(ctx context.Context, q Querier, countryProp, stateProp string) error {
	d := q.Dialect()
	country, countryGiven := r.reference(countryProp)
	countryValid := false
	if countryGiven {
		found, err := exists(ctx, q, countryExists, country)
		if err != nil {
			return err
		}
		if !found {
			r.fail(odata.CodeInvalidValue, countryProp, "Country '%s' does not exist", country)
		}
		countryValid = found
	}
	state, ok := r.reference(stateProp)
	if !ok {
		return nil
	}
	var stateCountryID string
	err := q.QueryRowContext(ctx, stateCountry.For(d), state).Scan(&stateCountryID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		r.fail(odata.CodeInvalidValue, stateProp, "State or province '%s' does not exist", state)
	case err != nil:
		return fmt.Errorf("entities: state or province: %w", err)
	case !countryGiven:
		r.fail(odata.CodeInvalidValue, stateProp, "State or province '%s' needs %s '%s'", state, countryProp, stateCountryID)
	case countryValid && stateCountryID != country:
		r.fail(odata.CodeInvalidValue, stateProp, "State or province '%s' is not in country '%s'", state, country)
	}
	return nil
}

package entities

import (
	"context"
	"fmt"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/sqldb"
)

var stmtAddRoleMembership = sqldb.NewStatement(`INSERT INTO customer_role_mapping (customer_id, customer_role_id, ordinal)
SELECT ?, ?, COALESCE(MAX(ordinal), -1) + 1 FROM customer_role_mapping WHERE customer_id = ?
ON CONFLICT (customer_id, customer_role_id) DO NOTHING`)

// AddPurchasedRoles adds the customer, in tx, to every customer role whose PurchasedWithProductId is one of
// productIDs (an order of those products), after the roles the customer has; a role the customer has stays as
// it is.
func AddPurchasedRoles(ctx context.Context, tx *sqldb.Tx, customerID string, productIDs []string) error {
	d := tx.Dialect()
	query, args, err := sqldb.Builder(d).Select("id").From("customer_role").
		Where(sq.Eq{"purchased_with_product_id": productIDs}).OrderBy("id").ToSql()
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("entities: purchased roles: %w", err)
	}
	var roles []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("entities: purchased roles: %w", err)
		}
		roles = append(roles, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("entities: purchased roles: %w", err)
	}
	for _, role := range roles {
		if _, err := tx.ExecContext(ctx, stmtAddRoleMembership.For(d), customerID, role, customerID); err != nil {
			return fmt.Errorf("entities: purchased roles: %w", err)
		}
	}
	return nil
}

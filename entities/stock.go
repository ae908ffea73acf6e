package entities

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/storekit/store/odata/sqldb"
)

var (
	stmtLowStockDisableBuy = sqldb.NewStatement(`UPDATE product SET disable_buy_button = ?, updated_on_utc = ?
WHERE id = ? AND manage_inventory_method = ? AND low_stock_activity = ? AND stock_quantity <= min_stock_quantity
	AND disable_buy_button = ?`)
	stmtLowStockUnpublish = sqldb.NewStatement(`UPDATE product SET published = ?, updated_on_utc = ?
WHERE id = ? AND manage_inventory_method = ? AND low_stock_activity = ? AND stock_quantity <= min_stock_quantity
	AND published = ?`)
)

// ApplyLowStockActivity applies the product's LowStockActivity in tx when its stock is at or below its
// MinStockQuantity (SPEC 4.4): DisableBuyButton sets DisableBuyButton, Unpublish clears Published. Call it after
// changing the stock (an order, the UpdateStock action). It only applies to products whose
// ManageInventoryMethod is ManageStock, and it never undoes itself when the stock rises again: re-enabling a
// product is the administrator's decision. An unknown product changes nothing.
func ApplyLowStockActivity(ctx context.Context, tx *sql.Tx, d sqldb.Dialect, productID string) error {
	now := sqldb.TimeArg(d, time.Now())
	if _, err := tx.ExecContext(ctx, stmtLowStockDisableBuy.For(d), true, now, productID,
		ManageInventoryMethodManageStock, LowStockActivityDisableBuyButton, false); err != nil {
		return fmt.Errorf("entities: low stock activity: %w", err)
	}
	if _, err := tx.ExecContext(ctx, stmtLowStockUnpublish.For(d), false, now, productID,
		ManageInventoryMethodManageStock, LowStockActivityUnpublish, true); err != nil {
		return fmt.Errorf("entities: low stock activity: %w", err)
	}
	return nil
}

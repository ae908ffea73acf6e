package entities

import (
	"context"
	"fmt"
	"time"

	"github.com/storekit/store/odata/sqldb"
)

var (
	stmtTakeStock = sqldb.NewStatement(`UPDATE product SET stock_quantity = stock_quantity - ?, sold = sold + ?,
	updated_on_utc = ? WHERE id = ? AND (backorder_mode = ? OR stock_quantity >= ?)`)
	stmtAddSold     = sqldb.NewStatement(`UPDATE product SET sold = sold + ?, updated_on_utc = ? WHERE id = ?`)
	stmtStockOnHand = sqldb.NewStatement(`SELECT stock_quantity FROM product WHERE id = ?`)

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
func ApplyLowStockActivity(ctx context.Context, tx *sqldb.Tx, productID string) error {
	d := tx.Dialect()
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

// TakeStock takes quantity units of the stock of a product whose ManageInventoryMethod is ManageStock, for an
// order in tx, and raises its Sold, unless the stock is short: fewer than quantity units on hand while its
// BackorderMode does not allow the stock below zero. Then nothing changes, taken is false and onHand is the
// stock there is. An order takes the stock of its products in the order of their ids, so two orders lock rows in
// the same order and cannot deadlock; the update is conditional, which keeps the stock from going negative under
// concurrency (on PostgreSQL it reads the row again after waiting for another order's lock).
func TakeStock(ctx context.Context, tx *sqldb.Tx, productID string, quantity int64,
	now time.Time) (taken bool, onHand int64, err error) {
	d := tx.Dialect()
	res, err := tx.ExecContext(ctx, stmtTakeStock.For(d), quantity, quantity, sqldb.TimeArg(d, now), productID,
		BackorderModeAllowQtyBelow0, quantity)
	if err != nil {
		return false, 0, fmt.Errorf("entities: take stock: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return false, 0, fmt.Errorf("entities: take stock: %w", err)
	} else if n > 0 {
		return true, 0, nil
	}
	if err := tx.QueryRowContext(ctx, stmtStockOnHand.For(d), productID).Scan(&onHand); err != nil {
		return false, 0, fmt.Errorf("entities: take stock: %w", err)
	}
	return false, onHand, nil
}

// AddSold raises by quantity the Sold of a product whose stock is not managed, for an order in tx.
func AddSold(ctx context.Context, tx *sqldb.Tx, productID string, quantity int64, now time.Time) error {
	d := tx.Dialect()
	if _, err := tx.ExecContext(ctx, stmtAddSold.For(d), quantity, sqldb.TimeArg(d, now), productID); err != nil {
		return fmt.Errorf("entities: add sold: %w", err)
	}
	return nil
}

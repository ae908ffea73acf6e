package entities

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

type demoCategory struct {
	key, name, seName, parent string
	displayOrder              int
}

type demoManufacturer struct {
	key, name, seName string
	displayOrder      int
}

type demoProduct struct {
	name, seName, sku, short string
	price, oldPrice, weight  string
	manageStock              bool
	stock, minStock          int
	lowStockActivity         int
	shipEnabled, homePage    bool
	categories               []string // keys; the first is featured
	manufacturer             string   // key
}

// The demo catalog: two top-level categories and one child, two manufacturers, six products.
var (
	demoCategories = []demoCategory{
		{key: "electronics", name: "Electronics", seName: "electronics", displayOrder: 1},
		{key: "computers", name: "Computers", seName: "computers", parent: "electronics", displayOrder: 1},
		{key: "books", name: "Books", seName: "books", displayOrder: 2},
	}
	demoManufacturers = []demoManufacturer{
		{key: "northwind", name: "Northwind Devices", seName: "northwind-devices", displayOrder: 1},
		{key: "contoso", name: "Contoso Press", seName: "contoso-press", displayOrder: 2},
	}
	demoProducts = []demoProduct{
		{name: "Laptop Pro 14", seName: "laptop-pro-14", sku: "NW-LAP-14", short: "A 14-inch laptop for work and travel.",
			price: "1299.00", oldPrice: "1399.00", weight: "1.45", manageStock: true, stock: 25, minStock: 2,
			lowStockActivity: LowStockActivityDisableBuyButton, shipEnabled: true, homePage: true,
			categories: []string{"computers", "electronics"}, manufacturer: "northwind"},
		{name: "Desktop Tower", seName: "desktop-tower", sku: "NW-DESK-01", short: "A quiet desktop computer.",
			price: "899.00", weight: "8.2", manageStock: true, stock: 10, minStock: 1,
			lowStockActivity: LowStockActivityNothing, shipEnabled: true,
			categories: []string{"computers"}, manufacturer: "northwind"},
		{name: "Wireless Mouse", seName: "wireless-mouse", sku: "NW-MOUSE-01", short: "A wireless mouse with a USB receiver.",
			price: "24.99", weight: "0.1", manageStock: true, stock: 200, minStock: 10,
			lowStockActivity: LowStockActivityNothing, shipEnabled: true, homePage: true,
			categories: []string{"electronics"}, manufacturer: "northwind"},
		{name: "USB-C Cable 1 m", seName: "usb-c-cable-1-m", sku: "NW-CABLE-01", short: "A one-metre USB-C cable.",
			price: "9.99", weight: "0.05", shipEnabled: true,
			categories: []string{"electronics"}, manufacturer: "northwind"},
		{name: "Databases in Practice", seName: "databases-in-practice", sku: "CP-BOOK-01",
			short: "A hands-on book about relational databases.", price: "39.50", oldPrice: "45.00", weight: "0.9",
			manageStock: true, stock: 40, minStock: 0, lowStockActivity: LowStockActivityUnpublish, shipEnabled: true,
			homePage: true, categories: []string{"books"}, manufacturer: "contoso"},
		{name: "Gift Card", seName: "gift-card", sku: "CP-GIFT-25", short: "A gift card worth 25.00, sent by e-mail.",
			price: "25.00", shipEnabled: false, categories: []string{"books"}, manufacturer: "contoso"},
	}
)

// seedDemo adds the demo catalog when the catalog is empty and reports whether it did.
func seedDemo(ctx context.Context, tx *sqldb.Tx) (bool, error) {
	d := tx.Dialect()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM product) + (SELECT COUNT(*) FROM category) + (SELECT COUNT(*) FROM manufacturer)`).Scan(&n); err != nil {
		return false, fmt.Errorf("entities: seed: demo: %w", err)
	}
	if n > 0 {
		return false, nil
	}
	b := sqldb.Builder(d)
	categoryIDs := map[string]string{}
	for _, c := range demoCategories {
		categoryIDs[c.key] = odata.NewID()
		var parent any
		if c.parent != "" {
			parent = categoryIDs[c.parent]
		}
		if err := execBuilder(ctx, tx, b.Insert("category").
			Columns("id", "name", "se_name", "parent_category_id", "include_in_top_menu", "display_order").
			Values(categoryIDs[c.key], c.name, c.seName, parent, true, c.displayOrder)); err != nil {
			return false, fmt.Errorf("entities: seed: demo category %s: %w", c.name, err)
		}
	}
	manufacturerIDs := map[string]string{}
	for _, m := range demoManufacturers {
		manufacturerIDs[m.key] = odata.NewID()
		if err := execBuilder(ctx, tx, b.Insert("manufacturer").
			Columns("id", "name", "se_name", "display_order").
			Values(manufacturerIDs[m.key], m.name, m.seName, m.displayOrder)); err != nil {
			return false, fmt.Errorf("entities: seed: demo manufacturer %s: %w", m.name, err)
		}
	}
	for i, p := range demoProducts {
		id := odata.NewID()
		price, err := sqldb.DecimalArg(d, decimal.RequireFromString(p.price), moneyScale)
		if err != nil {
			return false, err
		}
		oldPrice, err := sqldb.DecimalArg(d, decimalOrZero(p.oldPrice), moneyScale)
		if err != nil {
			return false, err
		}
		weight, err := sqldb.DecimalArg(d, decimalOrZero(p.weight), moneyScale)
		if err != nil {
			return false, err
		}
		method := ManageInventoryMethodDontManageStock
		if p.manageStock {
			method = ManageInventoryMethodManageStock
		}
		if err := execBuilder(ctx, tx, b.Insert("product").
			Columns("id", "product_type", "name", "se_name", "sku", "short_description", "price", "old_price",
				"weight", "manage_inventory_method", "stock_quantity", "min_stock_quantity", "low_stock_activity",
				"display_stock_availability", "is_ship_enabled", "show_on_home_page", "display_order").
			Values(id, ProductTypeSimpleProduct, p.name, p.seName, p.sku, p.short, price, oldPrice,
				weight, method, p.stock, p.minStock, p.lowStockActivity,
				p.manageStock, p.shipEnabled, p.homePage, i+1)); err != nil {
			return false, fmt.Errorf("entities: seed: demo product %s: %w", p.name, err)
		}
		for j, key := range p.categories {
			if err := execBuilder(ctx, tx, b.Insert("product_category").
				Columns("product_id", "category_id", "is_featured_product", "display_order").
				Values(id, categoryIDs[key], j == 0 && p.homePage, i+1)); err != nil {
				return false, fmt.Errorf("entities: seed: demo product %s: %w", p.name, err)
			}
		}
		if err := execBuilder(ctx, tx, b.Insert("product_collection").
			Columns("product_id", "collection_id", "is_featured_product", "display_order").
			Values(id, manufacturerIDs[p.manufacturer], false, i+1)); err != nil {
			return false, fmt.Errorf("entities: seed: demo product %s: %w", p.name, err)
		}
	}
	return true, nil
}

func decimalOrZero(s string) decimal.Decimal {
	if s == "" {
		return decimal.Zero
	}
	return decimal.RequireFromString(s)
}

package entities

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// maxCategoryDepth bounds the walk up the category tree when looking for a cycle.
const maxCategoryDepth = 1000

var categoryParent = sqldb.NewStatement(`SELECT parent_category_id FROM category WHERE id = ?`)

// prepareCatalogItem computes SeName and the timestamps of a manufacturer, category or product stored in table.
func prepareCatalogItem(ctx context.Context, q Querier, table string, e, old map[string]any, opts Options) error {
	id := selfID(e, old)
	seName, _ := e["SeName"].(string)
	name, _ := e["Name"].(string)
	s, err := uniqueSeName(ctx, q, table, id, seName, name)
	if err != nil {
		return err
	}
	e["SeName"] = s
	stamp(e, old, "CreatedOnUtc", "UpdatedOnUtc", opts)
	return nil
}

// prepareManufacturer computes a manufacturer's SeName, CreatedOnUtc and UpdatedOnUtc.
func prepareManufacturer(ctx context.Context, q Querier, e, old map[string]any, opts Options) error {
	return prepareCatalogItem(ctx, q, "manufacturer", e, old, opts)
}

// validateManufacturer checks a manufacturer: Name required, PictureId names a picture, PageSize not negative,
// PageSizeOptions a list of distinct positive integers.
func validateManufacturer(ctx context.Context, q Querier, e, old map[string]any, opts Options) ([]odata.ErrorDetail, error) {
	r := &rules{e: e}
	r.required("Name", "Manufacturer name is required")
	if err := r.catalogDisplay(ctx, q); err != nil {
		return nil, err
	}
	return r.details, nil
}

// catalogDisplay checks the display fields manufacturers and categories share.
func (r *rules) catalogDisplay(ctx context.Context, q Querier) error {
	if err := r.checkReference(ctx, q, "PictureId", "Picture", pictureExists); err != nil {
		return err
	}
	if n, ok := r.int("PageSize"); ok && n < 0 {
		r.fail(odata.CodeInvalidValue, "PageSize", "PageSize must not be negative")
	}
	r.intList("PageSizeOptions", true)
	return nil
}

// prepareCategory computes a category's SeName, CreatedOnUtc and UpdatedOnUtc.
func prepareCategory(ctx context.Context, q Querier, e, old map[string]any, opts Options) error {
	return prepareCatalogItem(ctx, q, "category", e, old, opts)
}

// validateCategory checks a category: the manufacturer's rules, and ParentCategoryId names another category that
// is not below this one (the tree has no cycle).
func validateCategory(ctx context.Context, q Querier, e, old map[string]any, opts Options) ([]odata.ErrorDetail, error) {
	r := &rules{e: e}
	r.required("Name", "Category name is required")
	if err := r.catalogDisplay(ctx, q); err != nil {
		return nil, err
	}
	if parent, ok := r.reference("ParentCategoryId"); ok {
		self := selfID(e, old)
		if err := r.categoryParent(ctx, q, self, parent); err != nil {
			return nil, err
		}
	}
	return r.details, nil
}

// categoryParent checks that parent exists and that self is not parent or one of its ancestors.
func (r *rules) categoryParent(ctx context.Context, q Querier, self, parent string) error {
	d := q.Dialect()
	const target = "ParentCategoryId"
	if self != "" && parent == self {
		r.fail(odata.CodeInvalidValue, target, "A category cannot be its own parent")
		return nil
	}
	seen := map[string]bool{}
	for cur, depth := parent, 0; cur != "" && !seen[cur] && depth < maxCategoryDepth; depth++ {
		seen[cur] = true
		var up sql.NullString
		err := q.QueryRowContext(ctx, categoryParent.For(d), cur).Scan(&up)
		if errors.Is(err, sql.ErrNoRows) {
			if cur == parent {
				r.fail(odata.CodeInvalidValue, target, "Category '%s' does not exist", parent)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("entities: category parent: %w", err)
		}
		if self != "" && up.String == self {
			r.fail(odata.CodeInvalidValue, target, "Category '%s' is below this category: the parent would make a cycle", parent)
			return nil
		}
		cur = up.String
	}
	return nil
}

// prepareProduct computes a product's SeName, CreatedOnUtc and UpdatedOnUtc, keeps Sold (0 on create), and
// stores a blank Sku as null (Sku is unique when set).
func prepareProduct(ctx context.Context, q Querier, e, old map[string]any, opts Options) error {
	keep(e, old, "Sold", int64(0))
	emptyToNull(e, "Sku")
	return prepareCatalogItem(ctx, q, "product", e, old, opts)
}

var (
	groupedProductType = sqldb.NewStatement(`SELECT product_type FROM product WHERE id = ?`)
	skuTaken           = sqldb.NewStatement(`SELECT 1 FROM product WHERE sku = ? AND id <> ?`)
)

// validateProduct checks a product: Name required; enum values; ParentGroupedProductId names another product that
// is a GroupedProduct; Price, OldPrice, ProductCost, AdditionalShippingCharge and the dimensions not negative; Sku
// unique; AllowedQuantities a list of positive integers; 1 <= OrderMinimumQuantity <= OrderMaximumQuantity;
// AvailableStartDateTimeUtc not after AvailableEndDateTimeUtc.
func validateProduct(ctx context.Context, q Querier, e, old map[string]any, opts Options) ([]odata.ErrorDetail, error) {
	d := q.Dialect()
	r := &rules{e: e}
	self := selfID(e, old)
	r.required("Name", "Product name is required")
	r.enum("ProductType", ProductTypeSimpleProduct, ProductTypeGroupedProduct)
	r.enum("ManageInventoryMethod", ManageInventoryMethodDontManageStock, ManageInventoryMethodManageStock)
	r.enum("LowStockActivity", LowStockActivityNothing, LowStockActivityDisableBuyButton, LowStockActivityUnpublish)
	r.enum("BackorderMode", BackorderModeNoBackorders, BackorderModeAllowQtyBelow0)

	if parent, ok := r.reference("ParentGroupedProductId"); ok {
		const target = "ParentGroupedProductId"
		var typ int64
		err := q.QueryRowContext(ctx, groupedProductType.For(d), parent).Scan(&typ)
		switch {
		case parent == self:
			r.fail(odata.CodeInvalidValue, target, "A product cannot be its own parent")
		case errors.Is(err, sql.ErrNoRows):
			r.fail(odata.CodeInvalidValue, target, "Product '%s' does not exist", parent)
		case err != nil:
			return nil, fmt.Errorf("entities: parent grouped product: %w", err)
		case typ != ProductTypeGroupedProduct:
			r.fail(odata.CodeInvalidValue, target, "Product '%s' is not a grouped product", parent)
		}
	}

	for _, name := range []string{"Price", "OldPrice", "ProductCost", "AdditionalShippingCharge", "Weight",
		"Length", "Width", "Height"} {
		r.notNegative(name)
	}

	if sku, ok := r.reference("Sku"); ok {
		if err := r.unique(ctx, q, skuTaken, "Sku", sku, self,
			"Sku '%s' is already used by another product", sku); err != nil {
			return nil, err
		}
	}

	r.intList("AllowedQuantities", false)
	minQty, okMin := r.int("OrderMinimumQuantity")
	maxQty, okMax := r.int("OrderMaximumQuantity")
	if okMin && minQty < 1 {
		r.fail(odata.CodeInvalidValue, "OrderMinimumQuantity", "OrderMinimumQuantity must be at least 1")
	}
	if okMin && okMax && maxQty < minQty {
		r.fail(odata.CodeInvalidValue, "OrderMaximumQuantity", "OrderMaximumQuantity must not be less than OrderMinimumQuantity")
	}

	start, okStart := r.time("AvailableStartDateTimeUtc")
	end, okEnd := r.time("AvailableEndDateTimeUtc")
	if okStart && okEnd && end.Before(start) {
		r.fail(odata.CodeInvalidValue, "AvailableEndDateTimeUtc", "AvailableEndDateTimeUtc must not be before AvailableStartDateTimeUtc")
	}
	return r.details, nil
}

package entities

import (
	"context"
	"fmt"

	sq "github.com/Masterminds/squirrel"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

var stmtSetStock = sqldb.NewStatement(`UPDATE product SET stock_quantity = ?, updated_on_utc = ? WHERE id = ?`)

// updateStock is Product/UpdateStock: it sets StockQuantity to Stock and applies the product's LowStockActivity.
// WarehouseId must be null (absent): the store has one warehouse.
func (s *service) updateStock(ctx context.Context, call *odata.ActionCall) (any, error) {
	p := params(call.Params)
	if p["WarehouseId"] != nil {
		return nil, odata.ValidationError(odata.ErrorDetail{Code: odata.CodeInvalidValue, Target: "WarehouseId",
			Message: "WarehouseId must be null: the store has a single warehouse"})
	}
	stock, ok := p["Stock"].(int64)
	if !ok {
		return nil, odata.ValidationError(odata.ErrorDetail{Code: odata.CodeRequired, Target: "Stock",
			Message: "Stock is required"})
	}
	tx, d, id := call.Tx, call.Tx.Dialect(), idOf(call.Entity)
	if _, err := tx.ExecContext(ctx, stmtSetStock.For(d), stock, sqldb.TimeArg(d, s.now()), id); err != nil {
		return nil, errorf("update stock", err)
	}
	if err := ApplyLowStockActivity(ctx, tx.Tx, id); err != nil {
		return nil, err
	}
	return true, nil
}

// link describes one of a product's link tables, changed by the Create/Update/DeleteProductX actions.
type link struct {
	// typ is the entity type of the link (ProductCategory, ...); its key property is the reference parameter.
	typ string
	// target is the entity type the link refers to, and what names it in messages.
	target, what string
	// copyFrom names the properties of the target the link copies (the picture's MimeType), link property ->
	// target column.
	copyFrom map[string]string
}

var (
	categoryLink   = link{typ: "ProductCategory", target: "Category", what: "category"}
	collectionLink = link{typ: "ProductCollection", target: "Manufacturer", what: "collection"}
	pictureLink    = link{typ: "ProductPicture", target: "Picture", what: "picture",
		copyFrom: map[string]string{"MimeType": "mime_type"}}
)

// linkCall is one invocation of a link action.
type linkCall struct {
	s       *service
	l       link
	et      *edm.EntityType // the link type
	key     *edm.Property   // its key: the reference (CategoryId, CollectionId, PictureId)
	product string
	ref     string
	tx      *odata.Tx
	p       params
}

func (s *service) newLinkCall(l link, call *odata.ActionCall) *linkCall {
	et := s.model.EntityType(l.typ)
	key := et.KeyProperties()[0]
	p := params(call.Params)
	return &linkCall{s: s, l: l, et: et, key: key, product: idOf(call.Entity), ref: p.str(key.Name), tx: call.Tx, p: p}
}

// where selects the link row of the call.
func (c *linkCall) where() sq.Eq {
	return sq.Eq{"product_id": c.product, c.key.Column: c.ref}
}

// stored reads the link row; nil when the product has no link to the reference.
func (c *linkCall) stored(ctx context.Context) (odata.Entity, error) {
	list, err := c.tx.Query(ctx, c.et, c.where())
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return list[0], nil
}

// target reads the copied columns of the referenced entity; found is false when it does not exist.
func (c *linkCall) target(ctx context.Context) (copied map[string]any, found bool, err error) {
	cols := []string{"id"}
	var names []string
	for name, col := range c.l.copyFrom {
		names = append(names, name)
		cols = append(cols, col)
	}
	targetType := c.s.model.EntityType(c.l.target)
	query, args, err := sqldb.Builder(c.tx.Dialect()).Select(cols...).From(c.tx.Dialect().QuoteIdent(targetType.Table)).
		Where(sq.Eq{"id": c.ref}).ToSql()
	if err != nil {
		return nil, false, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	rows, err := c.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, false, errorf("link "+c.l.what, err)
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, false, rows.Err()
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, false, errorf("link "+c.l.what, err)
	}
	copied = map[string]any{}
	for i, name := range names {
		v, err := sqldb.Scan(c.et.Property(name), vals[i+1])
		if err != nil {
			return nil, false, err
		}
		copied[name] = v
	}
	return copied, true, rows.Err()
}

// values returns the link's columns as the action sets them: the parameters sent, else base's values (the
// stored link on an update), else the defaults; the copied properties from the target.
func (c *linkCall) values(base odata.Entity, copied map[string]any) (map[string]any, error) {
	d := c.tx.Dialect()
	out := map[string]any{}
	for _, p := range c.et.Properties {
		if p.IsKey() {
			continue
		}
		var v any
		switch {
		case p.ReadOnly:
			v = copied[p.Name]
		case c.p.sent(p.Name) && (c.p[p.Name] != nil || p.Nullable):
			v = c.p[p.Name]
		case base != nil:
			v = base[p.Name]
		default:
			v = p.Default
		}
		if v == nil && !p.Nullable {
			v = zeroOf(p)
		}
		arg, err := sqldb.Arg(d, p, v)
		if err != nil {
			return nil, err
		}
		out[p.Column] = arg
	}
	return out, nil
}

// zeroOf is the value of a non-nullable Boolean or integer property without a default.
func zeroOf(p *edm.Property) any {
	if p.Type == edm.KindBoolean {
		return false
	}
	return int64(0)
}

// createLink returns the handler of Product/CreateProductX: the reference must name an existing entity (400),
// and the product must not be linked to it yet (409).
func (s *service) createLink(l link) odata.ActionFunc {
	return func(ctx context.Context, call *odata.ActionCall) (any, error) {
		c := s.newLinkCall(l, call)
		copied, found, err := c.target(ctx)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, odata.ValidationError(odata.ErrorDetail{Code: odata.CodeInvalidValue, Target: c.key.Name,
				Message: fmt.Sprintf("%s '%s' does not exist", l.target, c.ref)})
		}
		old, err := c.stored(ctx)
		if err != nil {
			return nil, err
		}
		if old != nil {
			e := odata.Conflict(fmt.Sprintf("The product is already in %s '%s'.", l.what, c.ref))
			e.Target = c.key.Name
			return nil, e
		}
		vals, err := c.values(nil, copied)
		if err != nil {
			return nil, err
		}
		vals["product_id"] = c.product
		vals[c.key.Column] = c.ref
		if _, err := c.tx.Builder().Insert(c.tx.Dialect().QuoteIdent(c.et.Table)).SetMap(vals).ExecContext(ctx); err != nil {
			return nil, errorf("link "+l.what, err)
		}
		return true, nil
	}
}

// errNotLinked is the 404 of an Update or Delete link action on a reference the product is not linked to.
func errNotLinked(c *linkCall) error {
	e := odata.NotFound(fmt.Sprintf("The product is not in %s '%s'.", c.l.what, c.ref))
	e.Target = c.key.Name
	return e
}

// updateLink returns the handler of Product/UpdateProductX: the parameters sent replace the link's values (the
// others keep theirs); 404 when the product is not linked to the reference.
func (s *service) updateLink(l link) odata.ActionFunc {
	return func(ctx context.Context, call *odata.ActionCall) (any, error) {
		c := s.newLinkCall(l, call)
		old, err := c.stored(ctx)
		if err != nil {
			return nil, err
		}
		if old == nil {
			return nil, errNotLinked(c)
		}
		copied, _, err := c.target(ctx)
		if err != nil {
			return nil, err
		}
		vals, err := c.values(old, copied)
		if err != nil {
			return nil, err
		}
		if _, err := c.tx.Builder().Update(c.tx.Dialect().QuoteIdent(c.et.Table)).SetMap(vals).Where(c.where()).
			ExecContext(ctx); err != nil {
			return nil, errorf("update "+l.what+" link", err)
		}
		return true, nil
	}
}

// deleteLink returns the handler of Product/DeleteProductX: 404 when the product is not linked to the reference.
func (s *service) deleteLink(l link) odata.ActionFunc {
	return func(ctx context.Context, call *odata.ActionCall) (any, error) {
		c := s.newLinkCall(l, call)
		res, err := c.tx.Builder().Delete(c.tx.Dialect().QuoteIdent(c.et.Table)).Where(c.where()).ExecContext(ctx)
		if err != nil {
			return nil, errorf("delete "+l.what+" link", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, errorf("delete "+l.what+" link", err)
		} else if n == 0 {
			return nil, errNotLinked(c)
		}
		return true, nil
	}
}

var roleExists = sqldb.NewStatement(`SELECT 1 FROM customer_role WHERE id = ?`)

// tierPriceFields are the properties of a tier price that its actions set.
var tierPriceFields = []string{"Quantity", "Price", "CustomerRoleId", "StartDateTimeUtc", "EndDateTimeUtc"}

// tierPrice builds the tier price an action stores: the parameters sent, else base's values (the stored tier
// price on an update), else the defaults (Price 0, no role, no dates); and checks it: Quantity at least 1,
// Price not negative, CustomerRoleId an existing role, EndDateTimeUtc not before StartDateTimeUtc.
func (s *service) tierPrice(ctx context.Context, tx *odata.Tx, p params, base odata.Entity) (odata.Entity, error) {
	e := odata.Entity{}
	for _, name := range tierPriceFields {
		switch {
		case p.sent(name):
			e[name] = p[name]
		case base != nil:
			e[name] = base[name]
		}
	}
	if e["Price"] == nil {
		e["Price"] = decimal.Zero
	}
	r := &rules{e: e}
	if q, ok := r.int("Quantity"); !ok {
		r.fail(odata.CodeRequired, "Quantity", "Quantity is required")
	} else if q < 1 {
		r.fail(odata.CodeInvalidValue, "Quantity", "Quantity must be at least 1")
	}
	r.notNegative("Price")
	if err := r.checkReference(ctx, tx, "CustomerRoleId", "Customer role", roleExists); err != nil {
		return nil, err
	}
	start, okStart := r.time("StartDateTimeUtc")
	end, okEnd := r.time("EndDateTimeUtc")
	if okStart && okEnd && end.Before(start) {
		r.fail(odata.CodeInvalidValue, "EndDateTimeUtc", "EndDateTimeUtc must not be before StartDateTimeUtc")
	}
	if len(r.details) > 0 {
		return nil, odata.ValidationError(r.details...)
	}
	return e, nil
}

// tierPriceRow reads a tier price of the product; nil when the product has no tier price with that id.
func (s *service) tierPriceRow(ctx context.Context, tx *odata.Tx, productID, id string) (odata.Entity, error) {
	list, err := tx.Query(ctx, s.model.EntityType("ProductTierPrice"), sq.Eq{"product_id": productID, "id": id})
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return list[0], nil
}

func errTierPriceNotFound(id string) error {
	e := odata.NotFound(fmt.Sprintf("The product has no tier price with the Id '%s'.", id))
	e.Target = "Id"
	return e
}

// createTierPrice is Product/CreateProductTierPrice: it checks and stores a new tier price of the product and
// answers it.
func (s *service) createTierPrice(ctx context.Context, call *odata.ActionCall) (any, error) {
	tx := call.Tx
	e, err := s.tierPrice(ctx, tx, call.Params, nil)
	if err != nil {
		return nil, err
	}
	et := s.model.EntityType("ProductTierPrice")
	id := odata.NewID()
	// The owner column is not a property: insert the row with it, then store the properties by the model.
	if _, err := tx.Builder().Insert("product_tier_price").Columns("id", "product_id", "quantity").
		Values(id, idOf(call.Entity), e["Quantity"]).ExecContext(ctx); err != nil {
		return nil, errorf("create tier price", err)
	}
	e["Id"] = id
	if err := tx.Update(ctx, et, e); err != nil {
		return nil, err
	}
	return tx.Get(ctx, et, id)
}

// updateTierPrice is Product/UpdateProductTierPrice: the parameters sent replace the tier price's values (the
// others keep theirs); the result is checked as a whole. 404 when the product has no tier price Id.
func (s *service) updateTierPrice(ctx context.Context, call *odata.ActionCall) (any, error) {
	tx := call.Tx
	p := params(call.Params)
	id := p.str("Id")
	old, err := s.tierPriceRow(ctx, tx, idOf(call.Entity), id)
	if err != nil {
		return nil, err
	}
	if old == nil {
		return nil, errTierPriceNotFound(id)
	}
	e, err := s.tierPrice(ctx, tx, p, old)
	if err != nil {
		return nil, err
	}
	e["Id"] = id
	et := s.model.EntityType("ProductTierPrice")
	if err := tx.Update(ctx, et, e); err != nil {
		return nil, err
	}
	return tx.Get(ctx, et, id)
}

// deleteTierPrice is Product/DeleteProductTierPrice: 404 when the product has no tier price Id.
func (s *service) deleteTierPrice(ctx context.Context, call *odata.ActionCall) (any, error) {
	id := params(call.Params).str("Id")
	res, err := call.Tx.Builder().Delete("product_tier_price").
		Where(sq.Eq{"product_id": idOf(call.Entity), "id": id}).ExecContext(ctx)
	if err != nil {
		return nil, errorf("delete tier price", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, errorf("delete tier price", err)
	} else if n == 0 {
		return nil, errTierPriceNotFound(id)
	}
	return true, nil
}

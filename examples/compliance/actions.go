package main

import (
	"context"
	"fmt"
	"time"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata"
)

// actions are the handlers of the model's actions, by binding and name.
func actions() map[string]odata.ActionFunc {
	return map[string]odata.ActionFunc{
		"Product/ApplyDiscount": func(ctx context.Context, call *odata.ActionCall) (any, error) {
			price := price(call.Entity) * (1 - call.Params["percentage"].(float64)/100)
			return setPrice(ctx, call, price)
		},
		"Product/IncreasePrice": func(ctx context.Context, call *odata.ActionCall) (any, error) {
			_, err := setPrice(ctx, call, price(call.Entity)+call.Params["amount"].(float64))
			return nil, err
		},
		"Product/Activate": func(ctx context.Context, call *odata.ActionCall) (any, error) {
			status, _ := call.Entity["Status"].(int64)
			_, err := updateProduct(ctx, call, odata.Entity{"Status": status&^statusDiscontinued | statusInStock})
			return nil, err
		},
		"Product/CalculateDiscount": func(ctx context.Context, call *odata.ActionCall) (any, error) {
			return price(call.Entity) * (1 - call.Params["percentage"].(float64)/100), nil
		},
		// MarkAllAsReviewed has nothing to store: the model has no review flag.
		"Collection(Product)/MarkAllAsReviewed": func(context.Context, *odata.ActionCall) (any, error) { return nil, nil },
		"ResetAllPrices":                        resetAllPrices,
		// ResetProducts only acknowledges; Reseed restores the data.
		"ResetProducts": func(context.Context, *odata.ActionCall) (any, error) { return nil, nil },
		"Process":       process,
		"Reseed": func(ctx context.Context, call *odata.ActionCall) (any, error) {
			if err := reseed(ctx, call.Tx); err != nil {
				return nil, err
			}
			return "Database reseeded with default data", nil
		},
	}
}

func price(e odata.Entity) float64 {
	p, _ := e["Price"].(float64)
	return p
}

func setPrice(ctx context.Context, call *odata.ActionCall, price float64) (odata.Entity, error) {
	return updateProduct(ctx, call, odata.Entity{"Price": price})
}

// updateProduct stores the changes of the product the action is bound to, with its Version incremented, and
// returns the product as stored.
func updateProduct(ctx context.Context, call *odata.ActionCall, changes odata.Entity) (odata.Entity, error) {
	et := call.Tx.Model.EntityType("Product")
	id := call.Entity["ID"]
	version, _ := call.Entity["Version"].(int64)
	changes["ID"], changes["Version"] = id, version+1
	if err := call.Tx.Update(ctx, et, changes); err != nil {
		return nil, err
	}
	return call.Tx.Get(ctx, et, id)
}

// resetAllPrices sets the price of every seeded product back to its seed value and returns how many it reset.
func resetAllPrices(ctx context.Context, call *odata.ActionCall) (any, error) {
	et := call.Tx.Model.EntityType("Product")
	reset := int64(0)
	for _, seeded := range seedProducts() {
		stored, err := call.Tx.Get(ctx, et, seeded["ID"])
		if err != nil {
			continue // deleted since the seed
		}
		if stored["Price"] == seeded["Price"] {
			continue
		}
		version, _ := stored["Version"].(int64)
		if err := call.Tx.Update(ctx, et, odata.Entity{"ID": seeded["ID"], "Price": seeded["Price"],
			"Version": version + 1}); err != nil {
			return nil, err
		}
		reset++
	}
	return reset, nil
}

// process lowers the price of every product (of those priced at least minPrice, when given) by percentage.
func process(ctx context.Context, call *odata.ActionCall) (any, error) {
	q := call.Tx.Dialect().QuoteIdent
	update := call.Tx.Builder().Update(q("product")).
		Set(q("price"), sq.Expr(q("price")+" * ?", 1-call.Params["percentage"].(float64)/100)).
		Set(q("version"), sq.Expr(q("version")+" + 1"))
	if minPrice, ok := call.Params["minPrice"].(float64); ok {
		update = update.Where(sq.GtOrEq{q("price"): minPrice})
	}
	if _, err := update.ExecContext(ctx); err != nil {
		return nil, fmt.Errorf("process: %w", err)
	}
	return nil, nil
}

// productBeforeSave keeps the server's values of a product: a create starts at Version 1, records CreatedAt and
// sets ProductType to the name of the type created (Product or SpecialProduct); every update increments Version
// (the ETag).
func productBeforeSave(_ context.Context, _ *odata.Tx, c *odata.Change) error {
	if c.Op == odata.OpCreate {
		c.New["Version"] = int64(1)
		c.New["CreatedAt"] = time.Now().UTC()
		c.New["ProductType"] = c.EntityType().Name // the discriminator the contract shows: Product or SpecialProduct
		return nil
	}
	version, _ := c.Old["Version"].(int64)
	c.New["Version"] = version + 1
	return nil
}

// companyBeforeSave counts the updates of the singleton Company in its Version (its ETag) and records when it
// changed.
func companyBeforeSave(_ context.Context, _ *odata.Tx, c *odata.Change) error {
	version, _ := c.Old["Version"].(int64)
	c.New["Version"] = version + 1
	c.New["UpdatedAt"] = time.Now().UTC()
	return nil
}

// mediaItemBeforeSave keeps Size equal to the length of the media bytes when they are sent, and records when the
// item was created and changed unless the client says so.
func mediaItemBeforeSave(_ context.Context, _ *odata.Tx, c *odata.Change) error {
	now := time.Now().UTC()
	if c.New["CreatedAt"] == nil {
		c.New["CreatedAt"] = now
	}
	if !c.Sent["ModifiedAt"] || c.New["ModifiedAt"] == nil {
		c.New["ModifiedAt"] = now
	}
	if c.Sent["Content"] {
		if content, ok := c.New["Content"].([]byte); ok {
			c.New["Size"] = int64(len(content))
		} else {
			c.New["Size"] = nil
		}
	}
	return nil
}

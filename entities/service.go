package entities

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/schema"
	"github.com/storekit/store/odata/sqldb"
)

// CheckSchema compares the tables of db with the store's model (odata/schema.Check): nil when they match, else
// an error listing every missing table or column, column that cannot hold its property and key without a
// unique index.
func CheckSchema(ctx context.Context, db *sqldb.DB) error {
	model, err := NewModel()
	if err != nil {
		return err
	}
	return schema.Check(ctx, db, model)
}

// Register adds the store's OData service (SPEC parts 3 to 5) to c: the model of NewModel, the writes of the
// catalog and customer sets with the store's rules as hooks, the read-only sets (Country, StateProvince,
// NewsletterSubscription, Order), a handler for every bound action of the model, and the DELETE status of
// SPEC part 3. The program sets the rest of c (DB, Mount, PublicURL, Logger, limits, OpenAPI, telemetry) and
// calls odata.NewService.
//
// Writes: Manufacturer, Category, CustomerRole, Product, Picture and Customer offer POST, PUT, PATCH and
// DELETE, with the answers of SPEC part 3 (the seed's, where they differ from the engine's defaults): a POST
// whose Id names an existing entity replaces it in full (for Customer too, whose key is the e-mail), an Id or
// e-mail in the body of an update that differs from the entity's is a 400, and a DELETE answers 200 with an
// empty body. Customer keys (e-mail addresses) match without regard to case. Every save runs the set's
// prepare step (computed fields such as SeName, timestamps, Size, the default role) and then its validation,
// inside the write's transaction; each failed rule is one detail of a single 400. Picture bodies may reach
// PictureBodyBytes. Deleting a system role is a 403. Deactivating a customer revokes its tokens, and every
// committed write of a customer or a customer role, and every customer action, calls o.PrincipalChanged. The
// database schema removes what goes with a deleted entity (links, cart and wishlist lines, addresses, checkout
// state, tokens) and detaches a deleted category's children; orders keep their copies.
func Register(c *odata.Config, o Options) error {
	model, err := NewModel()
	if err != nil {
		return err
	}
	s := &service{opts: o, model: model}
	c.Model, c.Sets, c.Actions = model, s.sets(), s.actions()
	// SPEC part 3: the seed's 200 with an empty body, not the engine's 204.
	c.DeleteStatus = http.StatusOK
	return nil
}

// service holds what the hooks and actions of the store's OData service need.
type service struct {
	opts  Options
	model *edm.Model
}

func (s *service) now() time.Time { return s.opts.timestampNow() }

// prepareFunc and validateFunc are the two steps of a set's rules (see validate.go).
type (
	prepareFunc  func(ctx context.Context, q Querier, e, old map[string]any, opts Options) error
	validateFunc func(ctx context.Context, q Querier, e, old map[string]any, opts Options) ([]odata.ErrorDetail, error)
)

// sets returns the options of every writable entity set; the others (Country, StateProvince,
// NewsletterSubscription, Order) are read-only.
func (s *service) sets() map[string]odata.SetOptions {
	// SPEC part 3: a POST with the Id of an existing entity replaces it; a body Id (Customer: Id or Email) that
	// differs from the entity addressed is a 400. SPEC part 4: navigations change only through the actions of
	// part 5, so related entities sent inline (an entity read with $expand, sent back) are ignored.
	writable := func(prepare prepareFunc, validate validateFunc) odata.SetOptions {
		return odata.SetOptions{Writes: odata.WriteAll, UpsertBy: "Id", RejectKeyChange: true, IgnoreInline: true,
			Hooks: odata.Hooks{BeforeSave: s.beforeSave(prepare, validate)}}
	}
	role := writable(prepareCustomerRole, validateCustomerRole)
	role.Hooks.BeforeDelete = s.beforeDeleteRole
	role.Hooks = s.changingPrincipals(role.Hooks)
	customer := writable(prepareCustomer, validateCustomer)
	customer.CaseInsensitiveKey = true
	customer.Hooks.AfterSave = s.afterSaveCustomer
	customer.Hooks = s.changingPrincipals(customer.Hooks)
	picture := writable(preparePicture, validatePicture)
	picture.Limits.BodyBytes = PictureBodyBytes
	return map[string]odata.SetOptions{
		"Manufacturer": writable(prepareManufacturer, validateManufacturer),
		"Category":     writable(prepareCategory, validateCategory),
		"CustomerRole": role,
		"Product":      writable(prepareProduct, validateProduct),
		"Picture":      picture,
		"Customer":     customer,
	}
}

// changingPrincipals returns the hooks h of a set whose writes may revoke a token or take a right from a
// customer, each save and delete also calling Options.PrincipalChanged once its transaction commits.
func (s *service) changingPrincipals(h odata.Hooks) odata.Hooks {
	save, del := h.BeforeSave, h.BeforeDelete
	h.BeforeSave = func(ctx context.Context, tx *odata.Tx, c *odata.Change) error {
		s.principalChanged(tx)
		return save(ctx, tx, c)
	}
	h.BeforeDelete = func(ctx context.Context, tx *odata.Tx, old odata.Entity) error {
		s.principalChanged(tx)
		if del == nil {
			return nil
		}
		return del(ctx, tx, old)
	}
	return h
}

// changingPrincipal is the handler f of an action that may revoke a token or take a right from a customer,
// also calling Options.PrincipalChanged once its transaction commits.
func (s *service) changingPrincipal(f odata.ActionFunc) odata.ActionFunc {
	return func(ctx context.Context, call *odata.ActionCall) (any, error) {
		s.principalChanged(call.Tx)
		return f(ctx, call)
	}
}

// principalChanged makes tx call Options.PrincipalChanged after it commits.
func (s *service) principalChanged(tx *odata.Tx) {
	if s.opts.PrincipalChanged != nil {
		tx.AfterCommit(s.opts.PrincipalChanged)
	}
}

// beforeSave runs a set's rules on a save: prepare, then validate; the failed rules are one ValidationError.
func (s *service) beforeSave(prepare prepareFunc, validate validateFunc) func(context.Context, *odata.Tx, *odata.Change) error {
	return func(ctx context.Context, tx *odata.Tx, c *odata.Change) error {
		et := c.Set.EntityType()
		if c.Op != odata.OpPatch && !c.Sent["CustomerRoles"] && et.Property("CustomerRoles") != nil {
			// Not sent on a create or a full update: the default (the Registered role) applies, which
			// prepareCustomer reads from the database.
			c.New["CustomerRoles"] = nil
		}
		if err := prepare(ctx, tx, c.New, c.Old, s.opts); err != nil {
			return err
		}
		details, err := validate(ctx, tx, c.New, c.Old, s.opts)
		if err != nil {
			return err
		}
		details = withoutEngineRequired(et, details)
		if len(details) > 0 {
			return odata.ValidationError(details...)
		}
		return nil
	}
}

// withoutEngineRequired drops the Required details about properties the model declares required: the engine
// checks those itself (with the same message), or has reported a value it could not decode, so the answer
// names each failed rule once.
func withoutEngineRequired(et *edm.EntityType, details []odata.ErrorDetail) []odata.ErrorDetail {
	out := details[:0]
	for _, d := range details {
		if p := et.Property(d.Target); d.Code == odata.CodeRequired && p != nil && p.Required {
			continue
		}
		out = append(out, d)
	}
	return out
}

// beforeDeleteRole refuses to delete a system role (403).
func (s *service) beforeDeleteRole(ctx context.Context, tx *odata.Tx, old odata.Entity) error {
	refusal, err := checkDeleteRole(ctx, tx, old)
	if err != nil {
		return err
	}
	if refusal != nil {
		return refusal
	}
	return nil
}

// afterSaveCustomer revokes the tokens of a customer who has just been deactivated.
func (s *service) afterSaveCustomer(ctx context.Context, tx *odata.Tx, c *odata.Change) error {
	wasActive, _ := c.Old["Active"].(bool)
	active, _ := c.New["Active"].(bool)
	if c.Old != nil && wasActive && !active {
		return RevokeCustomerTokens(ctx, tx.Tx, idOf(c.Old))
	}
	return nil
}

// actions returns the handler of every bound action of the model (SPEC part 5).
func (s *service) actions() map[string]odata.ActionFunc {
	return map[string]odata.ActionFunc{
		"Customer/SetPassword":   s.changingPrincipal(s.setPassword),
		"Customer/AddAddress":    s.changingPrincipal(s.addAddress),
		"Customer/UpdateAddress": s.changingPrincipal(s.updateAddress),
		"Customer/DeleteAddress": s.changingPrincipal(s.deleteAddress),

		"Product/UpdateStock":             s.updateStock,
		"Product/CreateProductCategory":   s.createLink(categoryLink),
		"Product/UpdateProductCategory":   s.updateLink(categoryLink),
		"Product/DeleteProductCategory":   s.deleteLink(categoryLink),
		"Product/CreateProductCollection": s.createLink(collectionLink),
		"Product/UpdateProductCollection": s.updateLink(collectionLink),
		"Product/DeleteProductCollection": s.deleteLink(collectionLink),
		"Product/CreateProductPicture":    s.createLink(pictureLink),
		"Product/UpdateProductPicture":    s.updateLink(pictureLink),
		"Product/DeleteProductPicture":    s.deleteLink(pictureLink),
		"Product/CreateProductTierPrice":  s.createTierPrice,
		"Product/UpdateProductTierPrice":  s.updateTierPrice,
		"Product/DeleteProductTierPrice":  s.deleteTierPrice,

		"Order/MarkAsPaid": s.orderMove(func(ctx context.Context, tx *sqldb.Tx, id string) error {
			return MarkOrderPaid(ctx, tx, id, s.now())
		}),
		"Order/Ship":    s.orderMove(ShipOrder),
		"Order/Deliver": s.orderMove(DeliverOrder),
		"Order/Cancel":  s.orderMove(CancelOrder),
	}
}

// orderMove is the handler of an order action: move runs on the bound order in the request's transaction.
func (s *service) orderMove(move func(ctx context.Context, tx *sqldb.Tx, orderID string) error) odata.ActionFunc {
	return func(ctx context.Context, call *odata.ActionCall) (any, error) {
		if err := move(ctx, call.Tx.Tx, idOf(call.Entity)); err != nil {
			return nil, err
		}
		return true, nil
	}
}

// params reads the decoded parameters of an action call.
type params map[string]any

// sent reports whether the parameter was in the body (null included).
func (p params) sent(name string) bool {
	_, ok := p[name]
	return ok
}

// str returns a string parameter; "" when it is absent or null.
func (p params) str(name string) string {
	s, _ := p[name].(string)
	return s
}

// errorf wraps a database error of an action.
func errorf(action string, err error) error {
	return fmt.Errorf("entities: %s: %w", action, err)
}

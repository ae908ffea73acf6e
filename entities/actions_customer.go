package entities

import (
	"context"
	"fmt"

	"github.com/storekit/store/odata"
)

// setPassword is Customer/SetPassword: it checks the length rules (400, target password), stores the bcrypt hash
// and revokes the customer's tokens. The hash is computed inside the transaction, since the engine opens it
// before the handler runs; bcrypt's cost makes that a few tens of milliseconds.
func (s *service) setPassword(ctx context.Context, call *odata.ActionCall) (any, error) {
	password := params(call.Params).str("password")
	hash, err := HashPassword(password)
	if err != nil {
		return nil, err
	}
	if err := SetPasswordHash(ctx, call.Tx.Tx, idOf(call.Entity), hash); err != nil {
		return nil, err
	}
	return true, nil
}

// addressParamNames are the names of the Address fields as action parameters, in Address.fields order.
var addressParamNames = func() []string {
	names := make([]string, len(addressFields))
	for i, f := range addressFields {
		names[i] = f.name
	}
	return names
}()

// setAddressFields copies the address parameters that were sent onto a (null clears a field).
func setAddressFields(a *Address, p params) {
	fields := a.fields()
	for i, name := range addressParamNames {
		if p.sent(name) {
			*fields[i] = p.str(name)
		}
	}
}

// validateAddress checks a with the address rules (SPEC 4.6) and returns them as one ValidationError.
func (s *service) validateAddress(ctx context.Context, tx *odata.Tx, a Address) error {
	details, err := ValidateAddress(ctx, tx, a, s.opts.CountriesEnabled)
	if err != nil {
		return err
	}
	if len(details) > 0 {
		return odata.ValidationError(details...)
	}
	return nil
}

// storedAddress reads an address as the Address entity the actions return.
func (s *service) storedAddress(ctx context.Context, tx *odata.Tx, id string) (odata.Entity, error) {
	return tx.Get(ctx, s.model.EntityType("Address"), id)
}

// addAddress is Customer/AddAddress: it validates the address and stores it as a new address of the customer,
// answering the stored Address.
func (s *service) addAddress(ctx context.Context, call *odata.ActionCall) (any, error) {
	var a Address
	setAddressFields(&a, call.Params)
	if err := s.validateAddress(ctx, call.Tx, a); err != nil {
		return nil, err
	}
	stored, err := InsertAddress(ctx, call.Tx, idOf(call.Entity), a)
	if err != nil {
		return nil, err
	}
	return s.storedAddress(ctx, call.Tx, stored.ID)
}

// errAddressNotFound is the 404 of an address that is not the customer's.
func errAddressNotFound(id string) error {
	return odata.NotFound(fmt.Sprintf("The customer has no address with the Id '%s'.", id))
}

// updateAddress is Customer/UpdateAddress: the fields sent replace those of the customer's address Id (fields
// not sent keep their values, null clears one), the result is validated as a whole and stored. 404 when the
// address is not the customer's.
func (s *service) updateAddress(ctx context.Context, call *odata.ActionCall) (any, error) {
	p := params(call.Params)
	customerID, id := idOf(call.Entity), p.str("Id")
	tx := call.Tx
	a, found, err := LoadAddress(ctx, tx, customerID, id)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errAddressNotFound(id)
	}
	setAddressFields(&a, p)
	if err := s.validateAddress(ctx, tx, a); err != nil {
		return nil, err
	}
	if _, err := UpdateAddress(ctx, tx, customerID, a); err != nil {
		return nil, err
	}
	return s.storedAddress(ctx, tx, id)
}

// deleteAddress is Customer/DeleteAddress (parameter Id, also accepted as addressId): 404 when the address is
// not the customer's. A checkout in progress that chose the address loses that step.
func (s *service) deleteAddress(ctx context.Context, call *odata.ActionCall) (any, error) {
	id := params(call.Params).str("Id")
	found, err := DeleteAddress(ctx, call.Tx, idOf(call.Entity), id)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errAddressNotFound(id)
	}
	return true, nil
}

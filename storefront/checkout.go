package storefront

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqldb"
)

// The checkout steps, in order. Saving a step clears the steps after it, so the state is always a prefix of
// this list.
const (
	stepShipping = iota + 1
	stepBilling
	stepShippingMethod
	stepPaymentMethod
	stepPaymentInfo
	stepConfirm
)

var stepNames = [...]string{stepShipping: "SaveShipping", stepBilling: "SaveBilling",
	stepShippingMethod: "SaveShippingMethod", stepPaymentMethod: "SavePaymentMethod",
	stepPaymentInfo: "SavePaymentInfo", stepConfirm: "ConfirmOrder"}

// Section names of the step answers.
const (
	sectionBilling        = "billing"
	sectionShippingMethod = "shipping-method"
	sectionPaymentMethod  = "payment-method"
	sectionPaymentInfo    = "payment-info"
	sectionConfirmOrder   = "confirm-order"
)

// Pick-up in store, as the order records its shipping method.
const (
	pickUpMethodName   = "Pickup in store"
	pickUpProviderName = "Pickup.PickupInStore"
)

// checkoutState is a customer's row of checkout_state: the steps done so far.
type checkoutState struct {
	shippingSaved     bool
	pickUp            bool
	shippingAddressID string
	billingAddressID  string
	shippingMethod    string
	shippingProvider  string
	paymentMethod     string
	paymentInfoSaved  bool
}

var (
	stmtLoadState = sqldb.NewStatement(`SELECT shipping_saved, pick_up_in_store, shipping_address_id, billing_address_id,
	shipping_method, shipping_rate_provider_system_name, payment_method_system_name, payment_info_saved
FROM checkout_state WHERE customer_id = ?`)
	stmtSaveState = sqldb.NewStatement(`INSERT INTO checkout_state (customer_id, shipping_saved, pick_up_in_store,
	shipping_address_id, billing_address_id, shipping_method, shipping_rate_provider_system_name,
	payment_method_system_name, payment_info_saved, updated_on_utc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (customer_id) DO UPDATE SET shipping_saved = excluded.shipping_saved,
	pick_up_in_store = excluded.pick_up_in_store, shipping_address_id = excluded.shipping_address_id,
	billing_address_id = excluded.billing_address_id, shipping_method = excluded.shipping_method,
	shipping_rate_provider_system_name = excluded.shipping_rate_provider_system_name,
	payment_method_system_name = excluded.payment_method_system_name,
	payment_info_saved = excluded.payment_info_saved, updated_on_utc = excluded.updated_on_utc`)
	stmtDeleteState = sqldb.NewStatement(`DELETE FROM checkout_state WHERE customer_id = ?`)
)

// lockState reads the customer's checkout state in tx, locking its row on PostgreSQL so that two steps (or two
// ConfirmOrder) of one customer run one after the other. No row is the empty state.
func (s *Store) lockState(ctx context.Context, tx *sqldb.Tx, customerID string) (checkoutState, error) {
	var (
		st                                                  checkoutState
		shipAddr, billAddr, method, provider, paymentMethod sql.NullString
	)
	err := tx.QueryRowContext(ctx, stmtLoadState.For(s.db.Dialect())+s.db.Dialect().LockForUpdate(), customerID).Scan(&st.shippingSaved, &st.pickUp,
		&shipAddr, &billAddr, &method, &provider, &paymentMethod, &st.paymentInfoSaved)
	if errors.Is(err, sql.ErrNoRows) {
		return checkoutState{}, nil
	}
	if err != nil {
		return st, fmt.Errorf("storefront: read checkout state: %w", err)
	}
	st.shippingAddressID, st.billingAddressID = shipAddr.String, billAddr.String
	st.shippingMethod, st.shippingProvider, st.paymentMethod = method.String, provider.String, paymentMethod.String
	return st, nil
}

func (s *Store) saveState(ctx context.Context, tx *sqldb.Tx, customerID string, st checkoutState) error {
	_, err := tx.ExecContext(ctx, stmtSaveState.For(s.db.Dialect()), customerID, st.shippingSaved, st.pickUp,
		nullArg(st.shippingAddressID), nullArg(st.billingAddressID), nullArg(st.shippingMethod),
		nullArg(st.shippingProvider), nullArg(st.paymentMethod), st.paymentInfoSaved, s.timeArg(s.now()))
	if err != nil {
		return fmt.Errorf("storefront: save checkout state: %w", err)
	}
	return nil
}

func nullArg(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// checkout is the context of a checkout step: the customer's cart and checkout state.
type checkout struct {
	cart  *list
	state checkoutState
	// shippable tells whether some line of the cart ships.
	shippable bool
}

// needsShippingMethod tells whether the order is shipped by a shipping method (it has shippable lines and is
// not picked up in store).
func (co *checkout) needsShippingMethod() bool { return co.shippable && !co.state.pickUp }

// done tells whether the step is complete in the state.
func (co *checkout) done(step int) bool {
	st := co.state
	switch step {
	case stepShipping:
		return st.shippingSaved && (st.pickUp || st.shippingAddressID != "")
	case stepBilling:
		return st.billingAddressID != ""
	case stepShippingMethod:
		return !co.needsShippingMethod() || st.shippingMethod != ""
	case stepPaymentMethod:
		return st.paymentMethod != ""
	case stepPaymentInfo:
		return st.paymentInfoSaved
	}
	return false
}

// beginStep starts a checkout step in tx: it locks and reads the state, reads the cart (400 "Your cart is
// empty" when it is) and checks that every step before step is done (409 naming the first missing one).
func (s *Store) beginStep(ctx context.Context, tx *sqldb.Tx, customerID string, step int) (*checkout, error) {
	st, err := s.lockState(ctx, tx, customerID)
	if err != nil {
		return nil, err
	}
	cart, err := s.loadList(ctx, tx, customerID, cartList)
	if err != nil {
		return nil, err
	}
	if len(cart.lines) == 0 {
		return nil, odata.BadRequest(odata.CodeBadRequest, "", "Your cart is empty")
	}
	co := &checkout{cart: cart, state: st}
	for _, ln := range cart.lines {
		co.shippable = co.shippable || ln.p.shipEnabled
	}
	for k := stepShipping; k < step; k++ {
		if !co.done(k) {
			return nil, errStepMissing(k)
		}
	}
	return co, nil
}

func errStepMissing(step int) error {
	name := stepNames[step]
	return &odata.Error{Code: odata.CodeConflict, Target: name,
		Message: fmt.Sprintf("The checkout step %s has not been completed: POST /checkout/%s/ first.", name, name)}
}

// stepResult is the answer of a checkout step: the next section and its model.
type stepResult struct {
	UpdateSection section `json:"update_section"`
	GotoSection   string  `json:"goto_section"`
}

type section struct {
	Name  string `json:"name"`
	Model any    `json:"model"`
}

func nextSection(name string, model any) stepResult {
	return stepResult{UpdateSection: section{Name: name, Model: model}, GotoSection: strings.ReplaceAll(name, "-", "_")}
}

// shippingMethod is a row of shipping_method.
type shippingMethod struct {
	name, provider, description string
	fee                         decimal.Decimal
}

// paymentMethod is a row of payment_method.
type paymentMethod struct {
	systemName, name, description string
	fee                           decimal.Decimal
	requiresPickUp                bool
}

var (
	stmtShippingMethods = sqldb.NewStatement(`SELECT name, shipping_rate_provider_system_name, description, fee
FROM shipping_method WHERE active = ? ORDER BY display_order, name`)
	stmtPaymentMethods = sqldb.NewStatement(`SELECT system_name, name, description, fee, requires_pick_up_in_store
FROM payment_method WHERE active = ? ORDER BY display_order, system_name`)
)

func (s *Store) shippingMethods(ctx context.Context, q entities.Querier) ([]shippingMethod, error) {
	rows, err := q.QueryContext(ctx, stmtShippingMethods.For(s.db.Dialect()), true)
	if err != nil {
		return nil, fmt.Errorf("storefront: shipping methods: %w", err)
	}
	defer rows.Close()
	var list []shippingMethod
	for rows.Next() {
		var (
			m    shippingMethod
			desc sql.NullString
			fee  any
		)
		if err := rows.Scan(&m.name, &m.provider, &desc, &fee); err != nil {
			return nil, fmt.Errorf("storefront: shipping methods: %w", err)
		}
		m.description = desc.String
		if m.fee, err = sqldb.ScanDecimal(fee, moneyScale); err != nil {
			return nil, err
		}
		list = append(list, m)
	}
	return list, rows.Err()
}

func (s *Store) paymentMethods(ctx context.Context, q entities.Querier) ([]paymentMethod, error) {
	rows, err := q.QueryContext(ctx, stmtPaymentMethods.For(s.db.Dialect()), true)
	if err != nil {
		return nil, fmt.Errorf("storefront: payment methods: %w", err)
	}
	defer rows.Close()
	var list []paymentMethod
	for rows.Next() {
		var (
			m    paymentMethod
			desc sql.NullString
			fee  any
		)
		if err := rows.Scan(&m.systemName, &m.name, &desc, &fee, &m.requiresPickUp); err != nil {
			return nil, fmt.Errorf("storefront: payment methods: %w", err)
		}
		m.description = desc.String
		if m.fee, err = sqldb.ScanDecimal(fee, moneyScale); err != nil {
			return nil, err
		}
		list = append(list, m)
	}
	return list, rows.Err()
}

// shippingFee is what shipping the cart with method m costs: nothing when the customer ships free (its own
// FreeShipping or a role's), otherwise the method's fee plus AdditionalShippingCharge x quantity of every line
// that ships and is not free-shipping.
func (co *checkout) shippingFee(m shippingMethod) decimal.Decimal {
	if co.cart.buyer.freeShipping {
		return decimal.Zero
	}
	fee := m.fee
	for _, ln := range co.cart.lines {
		if ln.p.shipEnabled && !ln.p.freeShipping {
			fee = fee.Add(ln.p.additionalShipping.Mul(decimal.NewFromInt(ln.qty)))
		}
	}
	return fee
}

type shippingMethodModel struct {
	Name           string  `json:"Name"`
	Description    *string `json:"Description"`
	Fee            string  `json:"Fee"`
	FeeValue       number  `json:"FeeValue"`
	ShippingOption string  `json:"ShippingOption"`
}

type paymentMethodModel struct {
	PaymentMethodSystemName string `json:"PaymentMethodSystemName"`
	Name                    string `json:"Name"`
	Fee                     string `json:"Fee"`
	FeeValue                number `json:"FeeValue"`
}

// shippingOption is the value of a shipping method in the shippingoption field: Name___SystemName.
func shippingOption(name, provider string) string { return name + "___" + provider }

// afterBilling returns the section after the addresses: the shipping methods, or the payment methods when the
// order needs no shipping method.
func (s *Store) afterBilling(ctx context.Context, tx *sqldb.Tx, co *checkout) (stepResult, error) {
	if !co.needsShippingMethod() {
		return s.paymentMethodSection(ctx, tx, co)
	}
	methods, err := s.shippingMethods(ctx, tx)
	if err != nil {
		return stepResult{}, err
	}
	list := make([]shippingMethodModel, 0, len(methods))
	for _, m := range methods {
		fee := co.shippingFee(m)
		list = append(list, shippingMethodModel{Name: m.name, Description: nullable(m.description),
			Fee: formatMoney(fee), FeeValue: number(fee), ShippingOption: shippingOption(m.name, m.provider)})
	}
	return nextSection(sectionShippingMethod, map[string]any{"ShippingMethods": list}), nil
}

// paymentMethodSection returns the payment-method section: the methods the order can use (Pay In Store only
// when it is picked up).
func (s *Store) paymentMethodSection(ctx context.Context, tx *sqldb.Tx, co *checkout) (stepResult, error) {
	methods, err := s.paymentMethods(ctx, tx)
	if err != nil {
		return stepResult{}, err
	}
	list := make([]paymentMethodModel, 0, len(methods))
	for _, m := range methods {
		if m.requiresPickUp && !co.state.pickUp {
			continue
		}
		list = append(list, paymentMethodModel{PaymentMethodSystemName: m.systemName, Name: m.name,
			Fee: formatMoney(m.fee), FeeValue: number(m.fee)})
	}
	return nextSection(sectionPaymentMethod, map[string]any{"PaymentMethods": list}), nil
}

// addressFields are the Address fields of a new address in a form (ShippingNewAddress.FirstName, ...).
var addressFields = []string{"FirstName", "LastName", "Email", "Company", "CountryId", "StateProvinceId", "City",
	"Address1", "Address2", "ZipPostalCode", "PhoneNumber", "FaxNumber"}

// formAddress returns the address of the form fields prefix.Field and whether any of them is set.
func formAddress(f form, prefix string) (entities.Address, bool) {
	var a entities.Address
	dest := []*string{&a.FirstName, &a.LastName, &a.Email, &a.Company, &a.CountryID, &a.StateProvinceID, &a.City,
		&a.Address1, &a.Address2, &a.ZipPostalCode, &a.PhoneNumber, &a.FaxNumber}
	given := false
	for i, name := range addressFields {
		*dest[i] = f.get(prefix + "." + name)
		given = given || f.has(prefix+"."+name)
	}
	return a, given
}

// addressFromForm returns the id of the address a step names: idField (one of the customer's addresses) or a
// new address in the fields prefix.* (validated, and stored unless the customer has an identical one). With
// neither, it returns "" or, when required, a 400.
func (s *Store) addressFromForm(ctx context.Context, tx *sqldb.Tx, customerID string, f form, idField, prefix string, required bool) (string, error) {
	if f.has(idField) {
		id := strings.TrimSpace(f.get(idField))
		_, found, err := entities.LoadAddress(ctx, tx, customerID, id)
		if err != nil {
			return "", err
		}
		if !found {
			return "", odata.ValidationError(odata.ErrorDetail{Code: odata.CodeInvalidValue, Target: idField,
				Message: "The address does not exist."})
		}
		return id, nil
	}
	a, given := formAddress(f, prefix)
	if !given {
		if required {
			return "", odata.ValidationError(odata.ErrorDetail{Code: odata.CodeRequired, Target: idField,
				Message: fmt.Sprintf("An address is required: send %s or the fields %s.*.", idField, prefix)})
		}
		return "", nil
	}
	details, err := entities.ValidateAddress(ctx, tx, a, s.countries)
	if err != nil {
		return "", err
	}
	if len(details) > 0 {
		for i := range details {
			details[i].Target = prefix + "." + details[i].Target
		}
		return "", odata.ValidationError(details...)
	}
	if same, found, err := entities.FindIdenticalAddress(ctx, tx, customerID, a); err != nil || found {
		return same.ID, err
	}
	stored, err := entities.InsertAddress(ctx, tx, customerID, a)
	return stored.ID, err
}

// runStep runs a checkout step in a transaction: it begins the step (checks) and calls fn.
func (s *Store) runStep(r *http.Request, c customer, step int, fn func(ctx context.Context, tx *sqldb.Tx, f form, co *checkout) (stepResult, error)) (any, error) {
	ctx := r.Context()
	f, err := readForm(r)
	if err != nil {
		return nil, err
	}
	var res stepResult
	err = s.inTx(ctx, func(tx *sqldb.Tx) error {
		co, err := s.beginStep(ctx, tx, c.id, step)
		if err != nil {
			return err
		}
		res, err = fn(ctx, tx, f, co)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// saveShipping serves POST /checkout/SaveShipping/.
func (s *Store) saveShipping(r *http.Request, c customer) (any, error) {
	return s.runStep(r, c, stepShipping, func(ctx context.Context, tx *sqldb.Tx, f form, co *checkout) (stepResult, error) {
		pickUp, err := f.boolean("PickUpInStore", false)
		if err != nil {
			return stepResult{}, err
		}
		billSame, err := f.boolean("BillToTheSameAddress", true)
		if err != nil {
			return stepResult{}, err
		}
		addressID, err := s.addressFromForm(ctx, tx, c.id, f, "shipping_address_id", "ShippingNewAddress", !pickUp)
		if err != nil {
			return stepResult{}, err
		}
		co.state = checkoutState{shippingSaved: true, pickUp: pickUp, shippingAddressID: addressID}
		if billSame {
			co.state.billingAddressID = addressID
		}
		if err := s.saveState(ctx, tx, c.id, co.state); err != nil {
			return stepResult{}, err
		}
		if co.state.billingAddressID == "" {
			addresses, err := entities.CustomerAddresses(ctx, tx, c.id)
			if err != nil {
				return stepResult{}, err
			}
			if addresses == nil {
				addresses = []entities.Address{}
			}
			return nextSection(sectionBilling, map[string]any{"ExistingAddresses": addresses}), nil
		}
		return s.afterBilling(ctx, tx, co)
	})
}

// saveBilling serves POST /checkout/SaveBilling/.
func (s *Store) saveBilling(r *http.Request, c customer) (any, error) {
	return s.runStep(r, c, stepBilling, func(ctx context.Context, tx *sqldb.Tx, f form, co *checkout) (stepResult, error) {
		addressID, err := s.addressFromForm(ctx, tx, c.id, f, "billing_address_id", "BillingNewAddress", true)
		if err != nil {
			return stepResult{}, err
		}
		st := &co.state
		st.billingAddressID = addressID
		st.shippingMethod, st.shippingProvider, st.paymentMethod, st.paymentInfoSaved = "", "", "", false
		if err := s.saveState(ctx, tx, c.id, *st); err != nil {
			return stepResult{}, err
		}
		return s.afterBilling(ctx, tx, co)
	})
}

// saveShippingMethod serves POST /checkout/SaveShippingMethod/.
func (s *Store) saveShippingMethod(r *http.Request, c customer) (any, error) {
	return s.runStep(r, c, stepShippingMethod, func(ctx context.Context, tx *sqldb.Tx, f form, co *checkout) (stepResult, error) {
		if !co.needsShippingMethod() {
			why := "nothing in the cart is shipped"
			if co.state.pickUp {
				why = "the order is picked up in store"
			}
			return stepResult{}, &odata.Error{Code: odata.CodeConflict, Target: "shippingoption",
				Message: "No shipping method is needed: " + why + "; continue with SavePaymentMethod."}
		}
		option := strings.TrimSpace(f.get("shippingoption"))
		if option == "" {
			return stepResult{}, odata.ValidationError(odata.ErrorDetail{Code: odata.CodeRequired, Target: "shippingoption",
				Message: "shippingoption is required."})
		}
		methods, err := s.shippingMethods(ctx, tx)
		if err != nil {
			return stepResult{}, err
		}
		var chosen *shippingMethod
		for i, m := range methods {
			if shippingOption(m.name, m.provider) == option {
				chosen = &methods[i]
			}
		}
		if chosen == nil {
			return stepResult{}, odata.ValidationError(odata.ErrorDetail{Code: odata.CodeInvalidValue, Target: "shippingoption",
				Message: fmt.Sprintf("The shipping option %q does not exist.", option)})
		}
		st := &co.state
		st.shippingMethod, st.shippingProvider = chosen.name, chosen.provider
		st.paymentMethod, st.paymentInfoSaved = "", false
		if err := s.saveState(ctx, tx, c.id, *st); err != nil {
			return stepResult{}, err
		}
		return s.paymentMethodSection(ctx, tx, co)
	})
}

// savePaymentMethod serves POST /checkout/SavePaymentMethod/.
func (s *Store) savePaymentMethod(r *http.Request, c customer) (any, error) {
	return s.runStep(r, c, stepPaymentMethod, func(ctx context.Context, tx *sqldb.Tx, f form, co *checkout) (stepResult, error) {
		name := strings.TrimSpace(f.get("paymentmethod"))
		if name == "" {
			return stepResult{}, odata.ValidationError(odata.ErrorDetail{Code: odata.CodeRequired, Target: "paymentmethod",
				Message: "paymentmethod is required."})
		}
		methods, err := s.paymentMethods(ctx, tx)
		if err != nil {
			return stepResult{}, err
		}
		var chosen *paymentMethod
		for i, m := range methods {
			if strings.EqualFold(m.systemName, name) {
				chosen = &methods[i]
			}
		}
		if chosen == nil {
			return stepResult{}, odata.ValidationError(odata.ErrorDetail{Code: odata.CodeInvalidValue, Target: "paymentmethod",
				Message: fmt.Sprintf("The payment method %q does not exist.", name)})
		}
		if chosen.requiresPickUp && !co.state.pickUp {
			return stepResult{}, odata.ValidationError(odata.ErrorDetail{Code: odata.CodeInvalidValue, Target: "paymentmethod",
				Message: fmt.Sprintf("%s is available only when the order is picked up in store.", chosen.name)})
		}
		st := &co.state
		st.paymentMethod, st.paymentInfoSaved = chosen.systemName, false
		if err := s.saveState(ctx, tx, c.id, *st); err != nil {
			return stepResult{}, err
		}
		return nextSection(sectionPaymentInfo, map[string]any{"PaymentMethodSystemName": chosen.systemName,
			"Name": chosen.name, "Description": nullable(chosen.description)}), nil
	})
}

// savePaymentInfo serves POST /checkout/SavePaymentInfo/. The built-in methods take no payment information.
func (s *Store) savePaymentInfo(r *http.Request, c customer) (any, error) {
	return s.runStep(r, c, stepPaymentInfo, func(ctx context.Context, tx *sqldb.Tx, f form, co *checkout) (stepResult, error) {
		totals, err := s.totals(ctx, tx, co)
		if err != nil {
			return stepResult{}, err
		}
		co.state.paymentInfoSaved = true
		if err := s.saveState(ctx, tx, c.id, co.state); err != nil {
			return stepResult{}, err
		}
		warnings := []string{}
		for _, ln := range co.cart.lines {
			for _, w := range lineWarnings(ln.p, cartList, ln.qty, ln.qty, 0, co.cart.now) {
				warnings = append(warnings, ln.p.name+": "+w.message)
			}
		}
		return nextSection(sectionConfirmOrder, confirmModel{
			OrderSubtotal: formatMoney(totals.subtotal), OrderSubtotalValue: number(totals.subtotal),
			OrderShipping: formatMoney(totals.shipping), OrderShippingValue: number(totals.shipping),
			PaymentMethodAdditionalFee: formatMoney(totals.paymentFee), PaymentMethodAdditionalFeeValue: number(totals.paymentFee),
			OrderTotal: formatMoney(totals.total), OrderTotalValue: number(totals.total), Warnings: warnings}), nil
	})
}

type confirmModel struct {
	OrderSubtotal                   string   `json:"OrderSubtotal"`
	OrderSubtotalValue              number   `json:"OrderSubtotalValue"`
	OrderShipping                   string   `json:"OrderShipping"`
	OrderShippingValue              number   `json:"OrderShippingValue"`
	PaymentMethodAdditionalFee      string   `json:"PaymentMethodAdditionalFee"`
	PaymentMethodAdditionalFeeValue number   `json:"PaymentMethodAdditionalFeeValue"`
	OrderTotal                      string   `json:"OrderTotal"`
	OrderTotalValue                 number   `json:"OrderTotalValue"`
	Warnings                        []string `json:"Warnings"`
}

// orderTotals are the amounts of an order.
type orderTotals struct {
	subtotal, shipping, paymentFee, total decimal.Decimal
	shippingMethod                        *shippingMethod // nil when none is used
	paymentMethod                         paymentMethod
}

// totals computes the amounts of the order the checkout would place now. A shipping or payment method that is
// no longer offered leaves its step undone (409).
func (s *Store) totals(ctx context.Context, tx *sqldb.Tx, co *checkout) (orderTotals, error) {
	var totals orderTotals
	totals.subtotal = co.cart.subTotal()
	totals.shipping = decimal.Zero
	if co.needsShippingMethod() {
		methods, err := s.shippingMethods(ctx, tx)
		if err != nil {
			return totals, err
		}
		for i, m := range methods {
			if m.name == co.state.shippingMethod && m.provider == co.state.shippingProvider {
				totals.shippingMethod = &methods[i]
			}
		}
		if totals.shippingMethod == nil {
			return totals, errStepMissing(stepShippingMethod)
		}
		totals.shipping = co.shippingFee(*totals.shippingMethod)
	}
	methods, err := s.paymentMethods(ctx, tx)
	if err != nil {
		return totals, err
	}
	found := false
	for _, m := range methods {
		if m.systemName == co.state.paymentMethod && (!m.requiresPickUp || co.state.pickUp) {
			totals.paymentMethod, found = m, true
		}
	}
	if !found {
		return totals, errStepMissing(stepPaymentMethod)
	}
	totals.paymentFee = totals.paymentMethod.fee
	totals.total = totals.subtotal.Add(totals.shipping).Add(totals.paymentFee)
	// The cart's amounts were in range when its lines last changed; prices and fees may have risen since.
	for _, ln := range co.cart.lines {
		if !inMoneyRange(ln.subTotal()) {
			return totals, errAmountTooLarge("total of the line of "+ln.p.name, "")
		}
	}
	for _, m := range []decimal.Decimal{totals.subtotal, totals.shipping, totals.total} {
		if !inMoneyRange(m) {
			return totals, errAmountTooLarge("order total", "")
		}
	}
	return totals, nil
}

package storefront

import (
	"reflect"
	"strings"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/openapi"
)

// OpenAPI describes the storefront endpoints for the store's OpenAPI document (odata.Config.OpenAPI): one
// operation per route of Register, in the same order, with its parameters and form fields and the schema of its
// answer, derived from the Go types the handlers answer with, so that the document says what they write. Every
// operation needs a bearer token of any customer (the document's default security requirement).
func OpenAPI() openapi.Options {
	return openapi.Options{
		Tags: []openapi.Tag{
			{Name: "Cart", Description: "The shopping cart and the wishlist of the token's customer."},
			{Name: "Checkout", Description: "The checkout steps, in order: form posts whose state lives on the server, so any server node serves the next step."},
			{Name: "Orders", Description: "The orders of the token's customer."},
			{Name: "Account", Description: "The account of the token's customer."},
			{Name: "Newsletter", Description: "The newsletter subscription."},
		},
		Schemas:    openAPISchemas(),
		Operations: openAPIOperations(),
	}
}

// ref refers to a storefront schema.
func ref(name string) openapi.Schema { return openapi.Ref("Storefront." + name) }

// openAPISchemas are the answers' schemas.
func openAPISchemas() map[string]openapi.Schema {
	step := func(section string, model openapi.Schema) openapi.Schema {
		return openapi.Schema{"type": "object", "required": []string{"update_section", "goto_section"},
			"properties": map[string]any{
				"update_section": openapi.Schema{"type": "object", "required": []string{"name", "model"},
					"properties": map[string]any{"name": openapi.Schema{"const": section}, "model": model}},
				"goto_section": openapi.Schema{"const": strings.ReplaceAll(section, "-", "_")},
			}}
	}
	list := func(name string, item openapi.Schema) openapi.Schema {
		return openapi.Schema{"type": "object", "required": []string{name},
			"properties": map[string]any{name: openapi.Schema{"type": "array", "items": item}}}
	}
	schemas := map[string]openapi.Schema{
		"Cart":           schemaOf(cartModel{}),
		"Sidebar":        schemaOf(sidebarModel{}),
		"AddResult":      schemaOf(addResult{}),
		"AccountInfo":    schemaOf(accountInfoModel{}),
		"OrderHistory":   schemaOf(historyModel{}),
		"OrderDetails":   schemaOf(orderDetailsModel{}),
		"Newsletter":     schemaOf(newsletterResult{}),
		"ConfirmedOrder": schemaOf(confirmResult{}),
		"CheckoutStep": openapi.Schema{"description": "The next checkout section and its model.", "oneOf": []any{
			step(sectionBilling, list("ExistingAddresses", openapi.Ref("Store.Address"))),
			step(sectionShippingMethod, list("ShippingMethods", schemaOf(shippingMethodModel{}))),
			step(sectionPaymentMethod, list("PaymentMethods", schemaOf(paymentMethodModel{}))),
			step(sectionPaymentInfo, openapi.Schema{"type": "object", "properties": map[string]any{
				"PaymentMethodSystemName": openapi.Schema{"type": "string"}, "Name": openapi.Schema{"type": "string"},
				"Description": openapi.Schema{"type": []string{"string", "null"}}}}),
			step(sectionConfirmOrder, schemaOf(confirmModel{})),
		}},
	}
	named := make(map[string]openapi.Schema, len(schemas))
	for name, schema := range schemas {
		named["Storefront."+name] = schema
	}
	return named
}

// Reflected types with schemas of their own.
var (
	numberType  = reflect.TypeOf(number{})
	addressType = reflect.TypeOf(entities.Address{})
)

// schemaOf returns the JSON Schema of what encoding/json writes for a value of v's type: structs by their json
// names (fields without omitempty are always present, so required), pointers nullable, money (number) a decimal
// number, entities.Address the store's Address.
func schemaOf(v any) openapi.Schema { return typeSchema(reflect.TypeOf(v)) }

func typeSchema(t reflect.Type) openapi.Schema {
	switch t {
	case numberType:
		return openapi.Schema{"type": "number", "format": "decimal"}
	case addressType:
		return openapi.Ref("Store.Address")
	}
	switch t.Kind() {
	case reflect.Pointer:
		s := typeSchema(t.Elem())
		if name, ok := s["type"].(string); ok {
			s["type"] = []string{name, "null"}
			return s
		}
		return openapi.Schema{"anyOf": []any{s, openapi.Schema{"type": "null"}}}
	case reflect.String:
		return openapi.Schema{"type": "string"}
	case reflect.Bool:
		return openapi.Schema{"type": "boolean"}
	case reflect.Int, reflect.Int64:
		return openapi.Schema{"type": "integer", "format": "int64"}
	case reflect.Slice:
		return openapi.Schema{"type": "array", "items": typeSchema(t.Elem())}
	case reflect.Struct:
		props := map[string]any{}
		var required []string
		addFields(t, props, &required)
		s := openapi.Schema{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	return openapi.Schema{}
}

// addFields adds the JSON fields of a struct type, those of embedded structs included.
func addFields(t reflect.Type, props map[string]any, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			addFields(f.Type, props, required)
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = typeSchema(f.Type)
		if !strings.Contains(opts, "omitempty") {
			*required = append(*required, name)
		}
	}
}

// Parameters and bodies shared by several operations.
var (
	productIDParam = openapi.Parameter{Name: "productId", In: "path", Description: "The product's Id."}
	listTypeParam  = openapi.Parameter{Name: "shoppingCartTypeId", In: "path",
		Description: "1 for the shopping cart, 2 for the wishlist.", Schema: openapi.Schema{"type": "string", "enum": []string{"1", "2"}}}
	itemIDParam   = openapi.Parameter{Name: "itemId", In: "path", Description: "The Id of a line of the cart or the wishlist."}
	quantityParam = openapi.Parameter{Name: "quantity", In: "query",
		Schema: openapi.Schema{"type": "integer", "minimum": 0}}
)

// formBody is a form post with the fields of props.
func formBody(props map[string]any) *openapi.RequestBody {
	s := openapi.Schema{"type": "object", "properties": props}
	return &openapi.RequestBody{Description: "Form fields; the query string may carry them too.",
		Content: map[string]openapi.Schema{"application/x-www-form-urlencoded": s, "multipart/form-data": s}}
}

// addressForm is the fields of a new address in a form, each prefix.Field.
func addressForm(prefix string, props map[string]any) {
	for _, name := range addressFields {
		props[prefix+"."+name] = openapi.Schema{"type": "string"}
	}
}

func success(description string, schema openapi.Schema) openapi.Response {
	return openapi.Response{Status: "200", Description: description, Schema: schema}
}

// failure is an error answer of the error body.
func failure(status, description string) openapi.Response {
	return openapi.Response{Status: status, Description: description}
}

var unauthorized = failure("401", "No token, or one that is unknown, expired or revoked.")

// openAPIOperations are the operations of the routes of Register, in its order.
func openAPIOperations() []openapi.Operation {
	stepOK := success("The step is saved; the answer names the next section.", ref("CheckoutStep"))
	checkoutErrors := []openapi.Response{failure("400", "The cart is empty, or a field is not valid (one detail per field)."),
		unauthorized, failure("409", "A step this one needs is missing (its name is the target)."),
		failure("415", "The body is not form data.")}
	step := func(name, summary, description string, body *openapi.RequestBody) openapi.Operation {
		return openapi.Operation{Method: "POST", Path: "/checkout/" + name + "/", OperationID: "checkout" + name,
			Tags: []string{"Checkout"}, Summary: summary, Description: description, RequestBody: body,
			Responses: append([]openapi.Response{stepOK}, checkoutErrors...)}
	}
	shipping := map[string]any{
		"shipping_address_id":  openapi.Schema{"type": "string", "description": "One of the customer's addresses (GET /account/addresses)."},
		"BillToTheSameAddress": openapi.Schema{"type": "boolean", "default": true},
		"PickUpInStore":        openapi.Schema{"type": "boolean", "default": false, "description": "No address needed, no shipping fee."},
	}
	addressForm("ShippingNewAddress", shipping)
	billing := map[string]any{"billing_address_id": openapi.Schema{"type": "string", "description": "One of the customer's addresses."}}
	addressForm("BillingNewAddress", billing)
	addErrors := []openapi.Response{failure("400", "The product cannot be added: one detail per reason "+
		"(not published, not available now, button disabled, call for price, quantity rules, stock on hand)."),
		unauthorized, failure("404", "The product does not exist.")}
	add := func(where string, params []openapi.Parameter, body *openapi.RequestBody) openapi.Operation {
		return openapi.Operation{Method: "POST", Path: "/addproducttocart/" + where + "/{productId}/{shoppingCartTypeId}",
			OperationID: "addProductToCart" + strings.ToUpper(where[:1]) + where[1:], Tags: []string{"Cart"},
			Summary:     "Add a product to the cart or the wishlist (" + where + " page form)",
			Description: "Adding a product already on the list adds to its quantity.",
			Parameters:  params, RequestBody: body,
			Responses: append([]openapi.Response{success("Added; the answer holds the list's new total quantity and the cart's summary.",
				ref("AddResult"))}, addErrors...)}
	}
	detailsQuantity := openapi.Schema{"type": "integer", "minimum": 1, "default": 1}
	catalogQuantity := quantityParam
	catalogQuantity.Description = "How many to add (default 1)."
	updateQuantity := quantityParam
	updateQuantity.Description, updateQuantity.Required = "The line's new quantity; 0 removes it.", true
	return []openapi.Operation{
		{Method: "GET", Path: "/cart", OperationID: "getCart", Tags: []string{"Cart"}, Summary: "Read the shopping cart",
			Description: "Each line with its current price and warnings; money as text and as a number (...Value).",
			Responses:   []openapi.Response{success("The cart.", ref("Cart")), unauthorized}},
		{Method: "GET", Path: "/wishlist", OperationID: "getWishlist", Tags: []string{"Cart"}, Summary: "Read the wishlist",
			Responses: []openapi.Response{success("The wishlist.", ref("Cart")), unauthorized}},
		{Method: "GET", Path: "/Component/Index", OperationID: "getComponent", Tags: []string{"Cart"},
			Summary: "Read the summary of the cart (SidebarShoppingCart component)",
			Parameters: []openapi.Parameter{{Name: "Name", In: "query", Required: true, Description: "The component.",
				Schema: openapi.Schema{"type": "string", "enum": []string{"SidebarShoppingCart"}}}},
			Responses: []openapi.Response{success("The cart's summary.", ref("Sidebar")), unauthorized,
				failure("404", "There is no component of that name.")}},
		add("details", []openapi.Parameter{productIDParam, listTypeParam}, formBody(map[string]any{
			"addtocart_{productId}.EnteredQuantity": openapi.Schema{"type": "integer", "minimum": 1, "default": 1,
				"description": "The field's name holds the product's Id; addtocart_productid.EnteredQuantity is accepted too."},
			"addtocart_productid.EnteredQuantity": detailsQuantity})),
		add("catalog", []openapi.Parameter{productIDParam, listTypeParam, catalogQuantity}, nil),
		{Method: "POST", Path: "/updatecartitem/{itemId}", OperationID: "updateCartItem", Tags: []string{"Cart"},
			Summary: "Change the quantity of a line", Description: "The same checks as adding apply.",
			Parameters: []openapi.Parameter{itemIDParam, updateQuantity},
			Responses: []openapi.Response{success("The line's list.", ref("Cart")), failure("400", "The quantity breaks a rule."),
				unauthorized, failure("404", "The customer has no such line.")}},
		{Method: "POST", Path: "/deletecartitem/{itemId}", OperationID: "deleteCartItem", Tags: []string{"Cart"},
			Summary: "Remove a line of the cart or the wishlist", Parameters: []openapi.Parameter{itemIDParam},
			Responses: []openapi.Response{success("The line's list.", ref("Cart")), unauthorized,
				failure("404", "The customer has no such line.")}},
		{Method: "GET", Path: "/account/info", OperationID: "getAccountInfo", Tags: []string{"Account"},
			Summary:   "Read the customer's account",
			Responses: []openapi.Response{success("The account; Newsletter tells whether its e-mail is subscribed.", ref("AccountInfo")), unauthorized}},
		{Method: "GET", Path: "/account/addresses", OperationID: "getAccountAddresses", Tags: []string{"Account"},
			Summary: "Read the customer's addresses",
			Responses: []openapi.Response{success("The addresses.", openapi.Schema{"type": "object", "required": []string{"Addresses"},
				"properties": map[string]any{"Addresses": openapi.Schema{"type": "array", "items": openapi.Ref("Store.Address")}}}),
				unauthorized}},
		{Method: "GET", Path: "/order/history", OperationID: "getOrderHistory", Tags: []string{"Orders"},
			Summary: "List the customer's orders, newest first",
			Parameters: []openapi.Parameter{
				{Name: "PageNumber", In: "query", Schema: openapi.Schema{"type": "integer", "minimum": 1, "maximum": 1000000, "default": 1}},
				{Name: "PageSize", In: "query", Schema: openapi.Schema{"type": "integer", "minimum": 1, "maximum": 100, "default": 10}}},
			Responses: []openapi.Response{success("One page of orders.", ref("OrderHistory")),
				failure("400", "PageNumber or PageSize is out of range."), unauthorized}},
		{Method: "GET", Path: "/orderdetails/{orderId}", OperationID: "getOrderDetails", Tags: []string{"Orders"},
			Summary:    "Read one of the customer's orders",
			Parameters: []openapi.Parameter{{Name: "orderId", In: "path", Description: "The order's Id."}},
			Responses: []openapi.Response{success("The order with its items, addresses, methods and amounts.", ref("OrderDetails")),
				unauthorized, failure("404", "The customer has no such order.")}},
		{Method: "POST", Path: "/subscribenewsletter", OperationID: "subscribeNewsletter", Tags: []string{"Newsletter"},
			Summary: "Subscribe an e-mail address to the newsletter, or unsubscribe it",
			Description: "For the token's own e-mail the change applies at once. Any other address gets an inactive " +
				"subscription and a confirmation link in the store's e-mail outbox; the change applies when the link " +
				"is opened. The parameters may also come as form fields.",
			Parameters: []openapi.Parameter{
				{Name: "email", In: "query", Required: true, Schema: openapi.Schema{"type": "string", "format": "email"}},
				{Name: "subscribe", In: "query", Schema: openapi.Schema{"type": "boolean", "default": true}}},
			Responses: []openapi.Response{success("Done.", ref("Newsletter")), failure("400", "The e-mail address is missing or not valid."),
				unauthorized}},
		{Method: "GET", Path: "/newsletter/subscriptionactivation/{token}/{active}", OperationID: "activateNewsletterSubscription",
			Tags: []string{"Newsletter"}, Summary: "Confirm a newsletter change from the link of a confirmation e-mail",
			Description: "Needs no bearer token: the token of the link is the credential. It is single use and expires.",
			Parameters: []openapi.Parameter{
				{Name: "token", In: "path", Description: "The token of the confirmation link."},
				{Name: "active", In: "path", Description: "true subscribes, false unsubscribes.", Schema: openapi.Schema{"type": "boolean"}}},
			Responses: []openapi.Response{success("Done.", ref("Newsletter")), failure("400", "active is neither true nor false."),
				failure("404", "The link is unknown, used or expired.")},
			Security: []openapi.SecurityRequirement{}},
		step("SaveShipping", "Save the shipping address (checkout step 1)",
			"Either shipping_address_id or the ShippingNewAddress fields (a new address is validated and saved to the "+
				"customer's addresses), unless PickUpInStore. The next section is billing when BillToTheSameAddress is "+
				"false, payment-method when nothing ships.", formBody(shipping)),
		step("SaveBilling", "Save the billing address", "Either billing_address_id or the BillingNewAddress fields.", formBody(billing)),
		step("SaveShippingMethod", "Choose the shipping method", "", formBody(map[string]any{
			"shippingoption": openapi.Schema{"type": "string", "description": "<Name>___<SystemName> of one of the shipping " +
				"methods the previous step listed, such as Ground___Shipping.FixedRate."}})),
		step("SavePaymentMethod", "Choose the payment method", "", formBody(map[string]any{
			"paymentmethod": openapi.Schema{"type": "string", "description": "The PaymentMethodSystemName of one of the " +
				"payment methods the previous step listed, such as Payments.CheckMoneyOrder."}})),
		step("SavePaymentInfo", "Save the payment information", "The built-in payment methods take none; "+
			"the answer holds the order's totals.", nil),
		{Method: "POST", Path: "/checkout/ConfirmOrder/", OperationID: "checkoutConfirmOrder", Tags: []string{"Checkout"},
			Summary: "Place the order",
			Description: "Re-validates every line at the current prices and stock and, all or nothing, creates the " +
				"order, takes the stock and empties the cart.",
			Responses: []openapi.Response{success("The order is placed.", ref("ConfirmedOrder")),
				failure("400", "The cart is empty (also when the same ConfirmOrder is sent twice)."), unauthorized,
				failure("409", "A step is missing, or lines fail now (one detail per line; nothing changed)."),
				failure("415", "The body is not form data.")}},
	}
}

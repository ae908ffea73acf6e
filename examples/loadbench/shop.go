package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
)

// customerPassword is the password of the customers a run registers.
const customerPassword = "loadbench-customer"

// cartProducts is how many of the sampled products the shop scenarios put in carts: few enough that a cart
// stays far below its 1,000 lines however long a run is.
const cartProducts = 50

const formContentType = "application/x-www-form-urlencoded"

// registerCustomers registers n customers through the store's admin API (a create and SetPassword, as an admin
// would) and signs each in; it returns their Authorization headers.
func registerCustomers(ctx context.Context, c *client, t *target, runID string, n int) ([]string, error) {
	auths := make([]string, n)
	for i := range auths {
		email := fmt.Sprintf("loadbench-%s-%d@example.com", runID, i)
		body, _ := json.Marshal(map[string]any{"Email": email, "FirstName": "Load", "LastName": fmt.Sprintf("Client %d", i)})
		if _, err := c.post(ctx, t.url+"/odata/Customer", t.auth, "application/json", string(body)); err != nil {
			return nil, fmt.Errorf("register customer %s: %w", email, err)
		}
		body, _ = json.Marshal(map[string]string{"password": customerPassword})
		if _, err := c.post(ctx, t.url+"/odata/Customer('"+email+"')/SetPassword", t.auth, "application/json", string(body)); err != nil {
			return nil, fmt.Errorf("set the password of %s: %w", email, err)
		}
		token, err := signIn(ctx, c.http, t.url, email, customerPassword)
		if err != nil {
			return nil, err
		}
		auths[i] = "Bearer " + token
	}
	return auths, nil
}

// addToCartScenario adds one of a few products to the customer's cart, as the catalog page's button does.
func addToCartScenario() *scenario {
	return shopScenario("add-to-cart", "POST /addproducttocart/catalog/<id>/1?quantity=1", 2, (*env).addToCart)
}

// checkoutScenario is a whole checkout, one operation: add a product to the cart, the shipping address, the
// shipping method, the payment method, the payment information and the confirmation of the order.
func checkoutScenario() *scenario {
	s := shopScenario("checkout", "add to cart + 5 checkout steps + ConfirmOrder", 3, (*env).checkout)
	s.requests = 6
	return s
}

// shopScenario is a scenario of the storefront: each client acts as a customer of its own, with a random
// sequence of its own (from seed).
func shopScenario(id, request string, seed uint64, f func(e *env, ctx context.Context, t *target, auth string, rnd *rand.Rand) error) *scenario {
	return &scenario{id: id, request: request, kind: kindShop,
		ops: func(ctx context.Context, e *env, t *target, n int) ([]op, error) {
			auths, err := e.customerAuths(ctx, t, n)
			if err != nil {
				return nil, err
			}
			return repeat(n, func(i int) op {
				rnd := rand.New(rand.NewPCG(uint64(i), seed))
				node := &target{name: t.name, url: t.node(i), auth: t.auth}
				return func(ctx context.Context) error { return f(e, ctx, node, auths[i], rnd) }
			}), nil
		}}
}

func (e *env) addToCart(ctx context.Context, t *target, auth string, rnd *rand.Rand) error {
	id := e.ids[rnd.IntN(min(cartProducts, len(e.ids)))]
	_, err := e.c.post(ctx, t.url+"/addproducttocart/catalog/"+id+"/1?quantity=1", auth, "", "")
	return err
}

// shippingAddress is the address of every checkout, new on the first and the same one after.
var shippingAddress = url.Values{
	"ShippingNewAddress.FirstName":       {"Load"},
	"ShippingNewAddress.LastName":        {"Bench"},
	"ShippingNewAddress.Email":           {"loadbench@example.com"},
	"ShippingNewAddress.CountryId":       {"US"},
	"ShippingNewAddress.StateProvinceId": {"US-MA"},
	"ShippingNewAddress.City":            {"Boston"},
	"ShippingNewAddress.Address1":        {"1 Main Street"},
	"ShippingNewAddress.ZipPostalCode":   {"02108"},
	"ShippingNewAddress.PhoneNumber":     {"+1 617 555 0100"},
}.Encode()

func (e *env) checkout(ctx context.Context, t *target, auth string, rnd *rand.Rand) error {
	if err := e.addToCart(ctx, t, auth, rnd); err != nil {
		return err
	}
	steps := []struct{ path, form string }{
		{"/checkout/SaveShipping/", shippingAddress},
		{"/checkout/SaveShippingMethod/", "shippingoption=" + url.QueryEscape("Ground___Shipping.FixedRate")},
		{"/checkout/SavePaymentMethod/", "paymentmethod=Payments.CheckMoneyOrder"},
		{"/checkout/SavePaymentInfo/", ""},
		{"/checkout/ConfirmOrder/", ""},
	}
	for _, s := range steps {
		if _, err := e.c.post(ctx, t.url+s.path, auth, formContentType, s.form); err != nil {
			return err
		}
	}
	return nil
}

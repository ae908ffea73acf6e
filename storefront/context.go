package storefront

import "context"

type customerKey struct{}

type customer struct{ id, email string }

// WithCustomer returns a copy of ctx naming the customer a request acts for: the customer of its bearer token.
// The server sets it before a storefront handler runs.
func WithCustomer(ctx context.Context, customerID, email string) context.Context {
	return context.WithValue(ctx, customerKey{}, customer{id: customerID, email: email})
}

// CustomerFrom returns the customer set by WithCustomer; ok is false when the context names none.
func CustomerFrom(ctx context.Context) (id, email string, ok bool) {
	c, ok := ctx.Value(customerKey{}).(customer)
	return c.id, c.email, ok
}

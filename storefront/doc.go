// Package storefront serves the shop's JSON endpoints (SPEC parts 6 and 7): the cart and the wishlist, the
// SidebarShoppingCart component, the checkout steps and ConfirmOrder, the order history and details, the
// account's information and addresses, and the newsletter. Every endpoint acts as the customer of the request
// (WithCustomer, set by the server from the bearer token) and never takes a customer id from the request.
//
// New builds a Store on the database; Register adds its routes to the server's Router. Handlers return errors,
// rendered by odata.WriteError as the error body of SPEC part 8; answers are JSON (application/json;
// charset=utf-8) whatever X-Response-View says. The Store keeps no state in memory: the cart, the wishlist and the
// checkout in progress live in the database, so any server node serves any step.
//
// # Storage
//
// Migrations (component "storefront", applied after entities.Migrations) adds:
//
//   - shopping_cart_item: one line per customer, list (1 cart, 2 wishlist) and product, unique, so adding a
//     product already on the list adds to its quantity. Lines go with their customer and their product.
//   - checkout_state: one row per customer: the steps done so far, with the chosen addresses (set to NULL when the
//     address is deleted, which undoes its step), shipping method and payment method. It goes with the customer.
//   - newsletter_token and queued_email (migration 2): confirmation tokens of newsletter subscriptions and the
//     e-mail outbox (see Newsletter).
//   - shipping_method and payment_method, seeded by the migration: Ground 0.00, Next Day Air 20.00 and 2nd Day Air
//     10.00 (provider Shipping.FixedRate); Payments.CheckMoneyOrder 0.00, Payments.CashOnDelivery 2.00 and
//     Payments.PayInStore 0.00 (only with pick-up in store). They are rows rather than constants in code because
//     the service contract has the first start create them, like the rest of the reference data, and because an
//     operator can then change a fee or withdraw a method (active = false) on every node at once without a
//     release. No OData entity set exposes them yet.
//
// Money is decimal.Decimal from the database to the answer, never a float: each amount appears as a string in
// USD, en-US style ("$1,234.50", "-$1.00", rounded to cents for display only) and as a JSON number with the exact
// decimal digits (the ...Value fields). Every amount the store writes stays within what both databases hold,
// -922337203685477.5808 to 922337203685477.5807: a change of lines that would take a line total or the list's
// subtotal (for the cart, plus the lines' additional shipping charges) past it is a 400 LimitExceeded on the
// quantity and changes nothing, and a checkout whose amounts went past it since (prices or fees raised) is a 400
// LimitExceeded at SavePaymentInfo and ConfirmOrder, not a failed insert.
//
// # Cart and wishlist
//
// A line's unit price is the lowest tier price whose Quantity is at most the line's quantity, whose role (if
// any) is one of the customer's active roles and whose dates include now; otherwise the product's Price.
//
// Adding checks the quantity the line would hold after the merge, and every failed rule is one detail of one
// 400: not published, a grouped product, not available now, buy button disabled, call for price (these three for
// the cart only), wishlist button disabled (wishlist only), quantity not positive, below the minimum, above the
// maximum, not an allowed quantity, and for the cart, when stock is managed without backorders, more than the
// stock on hand ("... The maximum quantity that can be added is N", N being the stock left beside what the line
// already holds). The wishlist ignores stock and the availability window: one may wish for what is not on sale
// yet. A list holds at most 1000 distinct products. The answer of an add carries the list's total quantity as a
// string (updatetopcartsectionhtml or updatetopwishlistsectionhtml) and the SidebarShoppingCart model of the
// cart; updatecartitem and deletecartitem answer the model of the line's list (GET /cart or GET /wishlist).
//
// # Checkout
//
// The steps are SaveShipping, SaveBilling, SaveShippingMethod, SavePaymentMethod, SavePaymentInfo, ConfirmOrder.
// Each needs a non-empty cart (400 "Your cart is empty", checked first, so a repeated ConfirmOrder is a 400) and
// the steps before it (409 with the missing step as target). Saving a step clears the steps after it.
//
//   - SaveShipping takes shipping_address_id (one of the customer's addresses) or ShippingNewAddress.* (validated
//     as entities.ValidateAddress with the Config's CountriesEnabled, targets prefixed with
//     "ShippingNewAddress.", and stored unless the customer has an identical address), BillToTheSameAddress
//     (default true) and PickUpInStore. Without pick-up an address is required; it is also the billing address
//     when BillToTheSameAddress is true, including for a cart that ships nothing. The next section is billing when
//     no billing address is known yet (BillToTheSameAddress false, or pick-up without an address), else
//     shipping-method, or payment-method when the order needs no shipping method (nothing in the cart ships, or
//     it is picked up).
//   - SaveShippingMethod is a 409 when no shipping method is needed.
//   - A cart that ships nothing makes an order with ShippingStatus ShippingNotRequired and no shipping address or
//     method; a picked-up order has the shipping method "Pickup in store" (provider Pickup.PickupInStore), no
//     shipping address and no shipping fee, and may be paid with Payments.PayInStore.
//   - The shipping fee is the method's fee plus AdditionalShippingCharge x quantity of every line that ships and
//     is not free-shipping; it is 0 when the customer, or one of its active roles, has FreeShipping.
//
// ConfirmOrder runs in one transaction: it locks the customer's checkout row (so two ConfirmOrder of one customer
// run one after the other and the second finds an empty cart), re-validates every line at the current prices and
// stock, takes the stock of managed products (entities.TakeStock: a conditional UPDATE, stock_quantity - q only
// where backorders are allowed or enough is left), products in id order so that checkouts never deadlock, raises
// Sold, applies LowStockActivity, stores the order with copies of names, SKUs, prices and both addresses
// (entities.InsertOrder: the next order number and a random unique 8-character code), adds the
// PurchasedWithProduct roles (entities.AddPurchasedRoles), and clears the ordered lines and the checkout
// state. The store writes only its own tables (those above); every write of a table of entities (product,
// order, order_item, customer_role_mapping, newsletter_subscription) is a function of entities that it calls in
// its transaction. Any line that fails is one detail of a 409 (target: the product id), and nothing changes. A transient
// conflict of the database (SQLite busy, PostgreSQL deadlock or serialization failure) retries the transaction
// by the policy of sqldb.RunTx, as every storefront write does; a database still busy after it is a 503 with
// Retry-After.
//
// # Account and orders
//
// The order history is newest first; PageNumber (default 1, at most 1,000,000) and PageSize (default 10, at most
// 100) out of range are a 400. Another customer's order is a 404, like an unknown one. Account info's
// Newsletter tells whether the customer's e-mail has an active subscription.
//
// # Newsletter
//
// POST /subscribenewsletter with the customer's own e-mail (ignoring ASCII case) subscribes or unsubscribes it
// at once. Any other address changes nothing by itself: subscribing creates the address's subscription
// inactive when it has none, and when the change asked for would change the subscription, a confirmation
// token is made (32 random bytes, base64url; stored only as its SHA-256 in newsletter_token) and an e-mail with
// its links is queued in the outbox, at most one per address every 15 minutes. The link GET
// /newsletter/subscriptionactivation/{token}/{true|false}, which needs no bearer token, sets the subscription
// active or inactive; it works once (a use removes every token of the subscription) and for 7 days; an
// unknown, used or expired token is a 404. The answer to the customer is the same whether an e-mail was
// queued or not, so it tells nothing about another person's subscription. Subscriptions are linked to the
// customer the address belongs to, if any.
//
// The outbox (Migrations adds it) is the table queued_email: id, to_address, subject, body (plain text),
// created_on_utc, sent_tries and sent_on_utc (NULL until sent). The store only writes it, in the transaction
// of what the e-mail tells about; a mailer of the operator's sends the unsent rows (oldest id first) and sets
// sent_on_utc, or raises sent_tries on a failure. The links start with Config.PublicURL (the request's scheme
// and host when it is empty).
package storefront

// Package entities is the store's model on top of the OData engine: the database schema (embedded migrations for
// SQLite and PostgreSQL), the reference data and first-start seeding, the OData service of the store (NewService:
// the entity sets with their rules and the bound actions), and the credentials (password hashes, bearer tokens,
// sign-in throttling) that the server's authentication uses.
//
// # Schema
//
// Migrations holds the schema as numbered SQL files per dialect, applied with odata/migrate. Tables and columns
// follow the storage conventions of odata/DESIGN.md: table = snake_case of the entity type, column = snake_case of
// the property, 24-hex-digit string keys, money as NUMERIC(19,4) on PostgreSQL and as an integer scaled by 10^4 on
// SQLite, DateTimeOffset as TIMESTAMPTZ or fixed-width UTC text. Besides the entity tables there are the link and
// side tables (product_category, product_collection, product_picture, product_tier_price, customer_role_mapping)
// and the tables no entity set exposes (customer_password, access_token, login_attempt, seed_marker and, on
// SQLite, sequence_counter). An applied migration is never edited: a change is a new file. Migration 5 made
// Manufacturer.ManufacturerTemplateId and Product.TaxCategoryId nullable strings (opaque references the store
// does not check); a stored 0, the old default meaning "none", became NULL and any other number its digits.
//
// Every write of these tables is this package's: besides the OData service, the storefront places orders and
// keeps subscriptions through functions that take its transaction: InsertOrder (with the next NextOrderNumber
// and a random unique code), TakeStock and AddSold, ApplyLowStockActivity, AddPurchasedRoles, the address
// functions (InsertAddress, ...) and the newsletter's (SubscribeNewsletter, UnsubscribeNewsletter,
// AddInactiveSubscription, SetSubscriptionActive).
//
// # The OData service
//
// NewService serves the model of NewModel with the store's rules: Manufacturer, Category, CustomerRole,
// Product, Picture and Customer are writable (Customer is keyed by e-mail, matched ignoring case, and a POST
// names an existing customer by its Id); Country, StateProvince, NewsletterSubscription and Order are read-only
// (POST, PUT, PATCH and DELETE answer 405), Order moving on only through its actions. Each save runs, inside
// its transaction, the set's prepare step (SeName, timestamps, Size, Username, the default role, ...) and then
// its rules; every failed rule is one detail of one 400. A create or a full update that does not send
// CustomerRoles gives the customer the Registered role. Deleting a system role is a 403; deactivating a
// customer revokes its tokens. What goes with a deleted entity (links, tier prices, cart and wishlist lines,
// addresses, checkout state, passwords and tokens; a category's children are detached) is removed by the
// schema's foreign keys, so the same holds for rows deleted outside the service; orders keep their copies.
//
// The bound actions of SPEC part 5 run in the request's transaction:
//
//   - Customer: SetPassword (hashed with bcrypt inside the transaction, which the engine opens before the
//     handler runs), AddAddress, UpdateAddress and DeleteAddress (Id, or addressId) with the address rules of
//     ValidateAddress; the address actions answer the stored Address.
//   - Product: UpdateStock (WarehouseId must be null; LowStockActivity applies), Create/Update/Delete of
//     ProductCategory, ProductCollection and ProductPicture (an unknown reference is a 400 on the parameter,
//     an existing link on create a 409, a missing link on update or delete a 404; a picture link copies the
//     picture's MimeType) and of ProductTierPrice (Quantity at least 1, Price not negative, an existing
//     CustomerRoleId, EndDateTimeUtc not before StartDateTimeUtc; create and update answer the tier price).
//   - Order: MarkAsPaid, Ship, Deliver and Cancel (409 naming the current state).
//
// The Update actions change the parameters sent and keep the stored values of the others (null clears a
// nullable one); the result is checked as a whole. Actions without a return value of their own answer true.
//
// # Credentials
//
// Passwords are bcrypt hashes (cost 10) in customer_password; a password must have at least 8 characters and at
// most 72 bytes, the length bcrypt reads, so no two passwords that differ after byte 72 are the same password.
// Bearer tokens are 32 random bytes (base64url, 43 characters); only their SHA-256 is stored, with the customer
// and the expiry. Revoking a token deletes its row, so a revoked token and an unknown one are the same thing to
// Authenticate; expired rows are purged at each successful sign-in.
//
// Sign-in (Auth.Login) is bounded and throttled with state in the database only, so every node counts the same:
// at most Auth.MaxConcurrentChecks (4) password checks at once per Auth, a sign-in that waits longer than
// CheckWait (5 s) or its context being a 503; each attempt a row of login_attempt, pending while checked, kept
// as a failure, removed on success; 10 failures of an e-mail from one client address, or 50 of an address,
// within 15 minutes make further attempts a 429 with Retry-After, without a check and without a row. Failures
// from one address never lock an e-mail out for others. Client addresses are IPv4 addresses or IPv6 /64
// networks.
package entities

// Package entities is the store's model on top of the OData engine: the database schema (embedded migrations for
// SQLite and PostgreSQL), the reference data and first-start seeding, and the credentials (password hashes,
// bearer tokens, sign-in throttling) that the server's authentication uses.
//
// # Schema
//
// Migrations holds the schema as numbered SQL files per dialect, applied with odata/migrate. Tables and columns
// follow the storage conventions of odata/DESIGN.md: table = snake_case of the entity type, column = snake_case of
// the property, 24-hex-digit string keys, money as NUMERIC(19,4) on PostgreSQL and as an integer scaled by 10^4 on
// SQLite, DateTimeOffset as TIMESTAMPTZ or fixed-width UTC text. Besides the entity tables there are the link and
// side tables (product_category, product_collection, product_picture, product_tier_price, customer_role_mapping)
// and the tables no entity set exposes (customer_password, access_token, login_attempt, seed_marker and, on
// SQLite, sequence_counter).
//
// # Credentials
//
// Passwords are bcrypt hashes (cost 10) in customer_password; a password must have at least 8 characters and at
// most 72 bytes, the length bcrypt reads, so no two passwords that differ after byte 72 are the same password.
// Bearer tokens are 32 random bytes (base64url, 43 characters); only their SHA-256 is stored, with the customer
// and the expiry. Revoking a token deletes its row, so a revoked token and an unknown one are the same thing to
// Authenticate; expired rows are purged at each successful sign-in.
package entities

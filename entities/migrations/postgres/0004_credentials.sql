-- Credentials. None of these tables is an entity set: the OData service never reads them.

-- The bcrypt hash of a customer's password (Customer.HasPassword mirrors the existence of the row).
CREATE TABLE customer_password (
	customer_id TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES customer (id) ON DELETE CASCADE,
	password_hash TEXT COLLATE "C" NOT NULL,
	changed_on_utc TIMESTAMPTZ NOT NULL
);

-- Bearer tokens, stored as the hex SHA-256 of the token. Revoking a token deletes its row.
CREATE TABLE access_token (
	token_hash TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	customer_id TEXT COLLATE "C" NOT NULL REFERENCES customer (id) ON DELETE CASCADE,
	created_on_utc TIMESTAMPTZ NOT NULL,
	expires_on_utc TIMESTAMPTZ NOT NULL
);
CREATE INDEX access_token_customer_id_idx ON access_token (customer_id);
CREATE INDEX access_token_expires_on_utc_idx ON access_token (expires_on_utc);

-- Sign-in attempts per e-mail (lower-cased) inside the throttling window; shared by every server node.
CREATE TABLE login_attempt (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	email TEXT COLLATE "C" NOT NULL,
	attempted_on_utc TIMESTAMPTZ NOT NULL
);
CREATE INDEX login_attempt_email_idx ON login_attempt (email, attempted_on_utc);
CREATE INDEX login_attempt_attempted_on_utc_idx ON login_attempt (attempted_on_utc);

-- One row per component that has seeded its first-start data; written in the seeding transaction.
CREATE TABLE seed_marker (
	name TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	seeded_on_utc TIMESTAMPTZ NOT NULL
);

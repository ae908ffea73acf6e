-- Reference data (countries, states), customer roles, tier prices (they may name a role), customers, their role
-- memberships and addresses, newsletter subscriptions.

CREATE TABLE country (
	id TEXT NOT NULL PRIMARY KEY,
	name TEXT NOT NULL,
	two_letter_iso_code TEXT,
	three_letter_iso_code TEXT,
	numeric_iso_code INTEGER NOT NULL DEFAULT 0,
	allows_billing INTEGER NOT NULL DEFAULT 0,
	allows_shipping INTEGER NOT NULL DEFAULT 0,
	published INTEGER NOT NULL DEFAULT 1,
	display_order INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX country_name_idx ON country (name);

CREATE TABLE state_province (
	id TEXT NOT NULL PRIMARY KEY,
	country_id TEXT NOT NULL REFERENCES country (id) ON DELETE CASCADE,
	name TEXT NOT NULL,
	abbreviation TEXT,
	published INTEGER NOT NULL DEFAULT 1
) STRICT;
CREATE INDEX state_province_country_id_idx ON state_province (country_id, name);

CREATE TABLE customer_role (
	id TEXT NOT NULL PRIMARY KEY,
	name TEXT NOT NULL,
	free_shipping INTEGER NOT NULL DEFAULT 0,
	tax_exempt INTEGER NOT NULL DEFAULT 0,
	active INTEGER NOT NULL DEFAULT 1,
	is_system_role INTEGER NOT NULL DEFAULT 0,
	system_name TEXT,
	enable_password_lifetime INTEGER NOT NULL DEFAULT 0,
	purchased_with_product_id TEXT REFERENCES product (id) ON DELETE SET NULL
) STRICT;
CREATE UNIQUE INDEX customer_role_name_key ON customer_role (name);
-- Authorization reads system_name ("Administrators"): no second role may claim a system name.
CREATE UNIQUE INDEX customer_role_system_name_key ON customer_role (system_name) WHERE system_name IS NOT NULL;
CREATE INDEX customer_role_purchased_with_product_id_idx ON customer_role (purchased_with_product_id);

-- Product.TierPrices. A tier price for a role goes with the role (it must not start applying to everyone).
CREATE TABLE product_tier_price (
	id TEXT NOT NULL PRIMARY KEY,
	product_id TEXT NOT NULL REFERENCES product (id) ON DELETE CASCADE,
	quantity INTEGER NOT NULL CHECK (quantity > 0),
	price INTEGER NOT NULL DEFAULT 0 CHECK (price >= 0),
	customer_role_id TEXT REFERENCES customer_role (id) ON DELETE CASCADE,
	start_date_time_utc TEXT,
	end_date_time_utc TEXT
) STRICT;
CREATE INDEX product_tier_price_product_id_idx ON product_tier_price (product_id, quantity);
CREATE INDEX product_tier_price_customer_role_id_idx ON product_tier_price (customer_role_id);

CREATE TABLE customer (
	id TEXT NOT NULL PRIMARY KEY,
	email TEXT NOT NULL,
	username TEXT,
	customer_guid TEXT NOT NULL DEFAULT (lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' ||
		substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) ||
		substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))),
	first_name TEXT,
	last_name TEXT,
	gender TEXT,
	date_of_birth TEXT,
	company TEXT,
	street_address TEXT,
	street_address2 TEXT,
	zip_postal_code TEXT,
	city TEXT,
	country_id TEXT REFERENCES country (id),
	state_province_id TEXT REFERENCES state_province (id),
	phone TEXT,
	vat_number TEXT,
	admin_comment TEXT,
	is_tax_exempt INTEGER NOT NULL DEFAULT 0,
	free_shipping INTEGER NOT NULL DEFAULT 0,
	active INTEGER NOT NULL DEFAULT 1,
	has_password INTEGER NOT NULL DEFAULT 0,
	created_on_utc TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
	last_activity_date_utc TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')
) STRICT;
-- Customer is addressed by e-mail, ignoring case (ASCII, as lower() does on both databases).
CREATE UNIQUE INDEX customer_email_key ON customer (lower(email));
CREATE UNIQUE INDEX customer_customer_guid_key ON customer (customer_guid);
CREATE INDEX customer_country_id_idx ON customer (country_id);
CREATE INDEX customer_state_province_id_idx ON customer (state_province_id);
CREATE INDEX customer_created_on_utc_idx ON customer (created_on_utc);

-- Customer.CustomerRoles: a collection of role ids (side table: owner key, value, ordinal).
CREATE TABLE customer_role_mapping (
	customer_id TEXT NOT NULL REFERENCES customer (id) ON DELETE CASCADE,
	customer_role_id TEXT NOT NULL REFERENCES customer_role (id) ON DELETE CASCADE,
	ordinal INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (customer_id, customer_role_id)
) STRICT;
CREATE INDEX customer_role_mapping_customer_role_id_idx ON customer_role_mapping (customer_role_id);

-- Customer.Addresses
CREATE TABLE address (
	id TEXT NOT NULL PRIMARY KEY,
	customer_id TEXT NOT NULL REFERENCES customer (id) ON DELETE CASCADE,
	first_name TEXT,
	last_name TEXT,
	email TEXT,
	company TEXT,
	country_id TEXT REFERENCES country (id),
	state_province_id TEXT REFERENCES state_province (id),
	city TEXT,
	address1 TEXT,
	address2 TEXT,
	zip_postal_code TEXT,
	phone_number TEXT,
	fax_number TEXT,
	created_on_utc TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')
) STRICT;
CREATE INDEX address_customer_id_idx ON address (customer_id);
CREATE INDEX address_country_id_idx ON address (country_id);
CREATE INDEX address_state_province_id_idx ON address (state_province_id);

CREATE TABLE newsletter_subscription (
	id TEXT NOT NULL PRIMARY KEY,
	email TEXT NOT NULL,
	customer_id TEXT REFERENCES customer (id) ON DELETE SET NULL,
	active INTEGER NOT NULL DEFAULT 0,
	created_on_utc TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')
) STRICT;
CREATE UNIQUE INDEX newsletter_subscription_email_key ON newsletter_subscription (lower(email));
CREATE INDEX newsletter_subscription_customer_id_idx ON newsletter_subscription (customer_id);

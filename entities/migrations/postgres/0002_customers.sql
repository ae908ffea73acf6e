-- Reference data (countries, states), customer roles, tier prices (they may name a role), customers, their role
-- memberships and addresses, newsletter subscriptions.

CREATE TABLE country (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	name TEXT COLLATE "C" NOT NULL,
	two_letter_iso_code TEXT COLLATE "C",
	three_letter_iso_code TEXT COLLATE "C",
	numeric_iso_code INTEGER NOT NULL DEFAULT 0,
	allows_billing BOOLEAN NOT NULL DEFAULT false,
	allows_shipping BOOLEAN NOT NULL DEFAULT false,
	published BOOLEAN NOT NULL DEFAULT true,
	display_order INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX country_name_idx ON country (name);

CREATE TABLE state_province (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	country_id TEXT COLLATE "C" NOT NULL REFERENCES country (id) ON DELETE CASCADE,
	name TEXT COLLATE "C" NOT NULL,
	abbreviation TEXT COLLATE "C",
	published BOOLEAN NOT NULL DEFAULT true
);
CREATE INDEX state_province_country_id_idx ON state_province (country_id, name);

CREATE TABLE customer_role (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	name TEXT COLLATE "C" NOT NULL,
	free_shipping BOOLEAN NOT NULL DEFAULT false,
	tax_exempt BOOLEAN NOT NULL DEFAULT false,
	active BOOLEAN NOT NULL DEFAULT true,
	is_system_role BOOLEAN NOT NULL DEFAULT false,
	system_name TEXT COLLATE "C",
	enable_password_lifetime BOOLEAN NOT NULL DEFAULT false,
	purchased_with_product_id TEXT COLLATE "C" REFERENCES product (id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX customer_role_name_key ON customer_role (name);
-- Authorization reads system_name ("Administrators"): no second role may claim a system name.
CREATE UNIQUE INDEX customer_role_system_name_key ON customer_role (system_name) WHERE system_name IS NOT NULL;
CREATE INDEX customer_role_purchased_with_product_id_idx ON customer_role (purchased_with_product_id);

-- Product.TierPrices. A tier price for a role goes with the role (it must not start applying to everyone).
CREATE TABLE product_tier_price (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	product_id TEXT COLLATE "C" NOT NULL REFERENCES product (id) ON DELETE CASCADE,
	quantity INTEGER NOT NULL CHECK (quantity > 0),
	price NUMERIC(19,4) NOT NULL DEFAULT 0 CHECK (price >= 0),
	customer_role_id TEXT COLLATE "C" REFERENCES customer_role (id) ON DELETE CASCADE,
	start_date_time_utc TIMESTAMPTZ,
	end_date_time_utc TIMESTAMPTZ
);
CREATE INDEX product_tier_price_product_id_idx ON product_tier_price (product_id, quantity);
CREATE INDEX product_tier_price_customer_role_id_idx ON product_tier_price (customer_role_id);

CREATE TABLE customer (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	email TEXT COLLATE "C" NOT NULL,
	username TEXT COLLATE "C",
	customer_guid UUID NOT NULL DEFAULT gen_random_uuid(),
	first_name TEXT COLLATE "C",
	last_name TEXT COLLATE "C",
	gender TEXT COLLATE "C",
	date_of_birth DATE,
	company TEXT COLLATE "C",
	street_address TEXT COLLATE "C",
	street_address2 TEXT COLLATE "C",
	zip_postal_code TEXT COLLATE "C",
	city TEXT COLLATE "C",
	country_id TEXT COLLATE "C" REFERENCES country (id),
	state_province_id TEXT COLLATE "C" REFERENCES state_province (id),
	phone TEXT COLLATE "C",
	vat_number TEXT COLLATE "C",
	admin_comment TEXT COLLATE "C",
	is_tax_exempt BOOLEAN NOT NULL DEFAULT false,
	free_shipping BOOLEAN NOT NULL DEFAULT false,
	active BOOLEAN NOT NULL DEFAULT true,
	has_password BOOLEAN NOT NULL DEFAULT false,
	created_on_utc TIMESTAMPTZ NOT NULL DEFAULT now(),
	last_activity_date_utc TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- Customer is addressed by e-mail, ignoring case (ASCII: lower() under COLLATE "C", as on SQLite).
CREATE UNIQUE INDEX customer_email_key ON customer (lower(email));
CREATE UNIQUE INDEX customer_customer_guid_key ON customer (customer_guid);
CREATE INDEX customer_country_id_idx ON customer (country_id);
CREATE INDEX customer_state_province_id_idx ON customer (state_province_id);
CREATE INDEX customer_created_on_utc_idx ON customer (created_on_utc);

-- Customer.CustomerRoles: a collection of role ids (side table: owner key, value, ordinal).
CREATE TABLE customer_role_mapping (
	customer_id TEXT COLLATE "C" NOT NULL REFERENCES customer (id) ON DELETE CASCADE,
	customer_role_id TEXT COLLATE "C" NOT NULL REFERENCES customer_role (id) ON DELETE CASCADE,
	ordinal INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (customer_id, customer_role_id)
);
CREATE INDEX customer_role_mapping_customer_role_id_idx ON customer_role_mapping (customer_role_id);

-- Customer.Addresses
CREATE TABLE address (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	customer_id TEXT COLLATE "C" NOT NULL REFERENCES customer (id) ON DELETE CASCADE,
	first_name TEXT COLLATE "C",
	last_name TEXT COLLATE "C",
	email TEXT COLLATE "C",
	company TEXT COLLATE "C",
	country_id TEXT COLLATE "C" REFERENCES country (id),
	state_province_id TEXT COLLATE "C" REFERENCES state_province (id),
	city TEXT COLLATE "C",
	address1 TEXT COLLATE "C",
	address2 TEXT COLLATE "C",
	zip_postal_code TEXT COLLATE "C",
	phone_number TEXT COLLATE "C",
	fax_number TEXT COLLATE "C",
	created_on_utc TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX address_customer_id_idx ON address (customer_id);
CREATE INDEX address_country_id_idx ON address (country_id);
CREATE INDEX address_state_province_id_idx ON address (state_province_id);

CREATE TABLE newsletter_subscription (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	email TEXT COLLATE "C" NOT NULL,
	customer_id TEXT COLLATE "C" REFERENCES customer (id) ON DELETE SET NULL,
	active BOOLEAN NOT NULL DEFAULT false,
	created_on_utc TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX newsletter_subscription_email_key ON newsletter_subscription (lower(email));
CREATE INDEX newsletter_subscription_customer_id_idx ON newsletter_subscription (customer_id);

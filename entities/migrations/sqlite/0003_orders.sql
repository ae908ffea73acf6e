-- Orders and their items. Orders keep copies of everything they show (customer e-mail, addresses, product names
-- and prices), so customer_id and product_id are plain columns, not foreign keys: deleting a customer or a
-- product leaves its orders intact.

CREATE TABLE "order" (
	id TEXT NOT NULL PRIMARY KEY,
	order_number INTEGER NOT NULL,
	code TEXT NOT NULL,
	customer_id TEXT NOT NULL,
	customer_email TEXT NOT NULL,
	order_status INTEGER NOT NULL DEFAULT 10,
	payment_status INTEGER NOT NULL DEFAULT 10,
	shipping_status INTEGER NOT NULL DEFAULT 20,
	payment_method_system_name TEXT,
	shipping_method TEXT,
	shipping_rate_provider_system_name TEXT,
	pick_up_in_store INTEGER NOT NULL DEFAULT 0,
	order_subtotal INTEGER NOT NULL DEFAULT 0,
	order_shipping INTEGER NOT NULL DEFAULT 0,
	payment_method_additional_fee INTEGER NOT NULL DEFAULT 0,
	order_tax INTEGER NOT NULL DEFAULT 0,
	order_total INTEGER NOT NULL DEFAULT 0,
	billing_address_first_name TEXT,
	billing_address_last_name TEXT,
	billing_address_email TEXT,
	billing_address_company TEXT,
	billing_address_country_id TEXT,
	billing_address_state_province_id TEXT,
	billing_address_city TEXT,
	billing_address_address1 TEXT,
	billing_address_address2 TEXT,
	billing_address_zip_postal_code TEXT,
	billing_address_phone_number TEXT,
	billing_address_fax_number TEXT,
	shipping_address_first_name TEXT,
	shipping_address_last_name TEXT,
	shipping_address_email TEXT,
	shipping_address_company TEXT,
	shipping_address_country_id TEXT,
	shipping_address_state_province_id TEXT,
	shipping_address_city TEXT,
	shipping_address_address1 TEXT,
	shipping_address_address2 TEXT,
	shipping_address_zip_postal_code TEXT,
	shipping_address_phone_number TEXT,
	shipping_address_fax_number TEXT,
	created_on_utc TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
	paid_date_utc TEXT
) STRICT;
CREATE UNIQUE INDEX order_order_number_key ON "order" (order_number);
CREATE UNIQUE INDEX order_code_key ON "order" (code);
CREATE INDEX order_customer_id_idx ON "order" (customer_id, created_on_utc);
CREATE INDEX order_created_on_utc_idx ON "order" (created_on_utc);
CREATE INDEX order_order_status_idx ON "order" (order_status);

-- Order.Items
CREATE TABLE order_item (
	id TEXT NOT NULL PRIMARY KEY,
	order_id TEXT NOT NULL REFERENCES "order" (id) ON DELETE CASCADE,
	product_id TEXT NOT NULL,
	product_name TEXT NOT NULL,
	sku TEXT,
	quantity INTEGER NOT NULL CHECK (quantity > 0),
	unit_price INTEGER NOT NULL DEFAULT 0,
	price INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX order_item_order_id_idx ON order_item (order_id);
CREATE INDEX order_item_product_id_idx ON order_item (product_id);

-- Counters that must be gap-free and shared by every server node: incremented with UPDATE ... RETURNING inside
-- the transaction that uses the value (SQLite has one writer at a time, so the row is never contended).
CREATE TABLE sequence_counter (
	name TEXT NOT NULL PRIMARY KEY,
	value INTEGER NOT NULL
) STRICT;
INSERT INTO sequence_counter (name, value) VALUES ('order_number', 0);

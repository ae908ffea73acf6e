-- Orders and their items. Orders keep copies of everything they show (customer e-mail, addresses, product names
-- and prices), so customer_id and product_id are plain columns, not foreign keys: deleting a customer or a
-- product leaves its orders intact.

CREATE TABLE "order" (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	order_number BIGINT NOT NULL,
	code TEXT COLLATE "C" NOT NULL,
	customer_id TEXT COLLATE "C" NOT NULL,
	customer_email TEXT COLLATE "C" NOT NULL,
	order_status INTEGER NOT NULL DEFAULT 10,
	payment_status INTEGER NOT NULL DEFAULT 10,
	shipping_status INTEGER NOT NULL DEFAULT 20,
	payment_method_system_name TEXT COLLATE "C",
	shipping_method TEXT COLLATE "C",
	shipping_rate_provider_system_name TEXT COLLATE "C",
	pick_up_in_store BOOLEAN NOT NULL DEFAULT false,
	order_subtotal NUMERIC(19,4) NOT NULL DEFAULT 0,
	order_shipping NUMERIC(19,4) NOT NULL DEFAULT 0,
	payment_method_additional_fee NUMERIC(19,4) NOT NULL DEFAULT 0,
	order_tax NUMERIC(19,4) NOT NULL DEFAULT 0,
	order_total NUMERIC(19,4) NOT NULL DEFAULT 0,
	billing_address_first_name TEXT COLLATE "C",
	billing_address_last_name TEXT COLLATE "C",
	billing_address_email TEXT COLLATE "C",
	billing_address_company TEXT COLLATE "C",
	billing_address_country_id TEXT COLLATE "C",
	billing_address_state_province_id TEXT COLLATE "C",
	billing_address_city TEXT COLLATE "C",
	billing_address_address1 TEXT COLLATE "C",
	billing_address_address2 TEXT COLLATE "C",
	billing_address_zip_postal_code TEXT COLLATE "C",
	billing_address_phone_number TEXT COLLATE "C",
	billing_address_fax_number TEXT COLLATE "C",
	shipping_address_first_name TEXT COLLATE "C",
	shipping_address_last_name TEXT COLLATE "C",
	shipping_address_email TEXT COLLATE "C",
	shipping_address_company TEXT COLLATE "C",
	shipping_address_country_id TEXT COLLATE "C",
	shipping_address_state_province_id TEXT COLLATE "C",
	shipping_address_city TEXT COLLATE "C",
	shipping_address_address1 TEXT COLLATE "C",
	shipping_address_address2 TEXT COLLATE "C",
	shipping_address_zip_postal_code TEXT COLLATE "C",
	shipping_address_phone_number TEXT COLLATE "C",
	shipping_address_fax_number TEXT COLLATE "C",
	created_on_utc TIMESTAMPTZ NOT NULL DEFAULT now(),
	paid_date_utc TIMESTAMPTZ
);
CREATE UNIQUE INDEX order_order_number_key ON "order" (order_number);
CREATE UNIQUE INDEX order_code_key ON "order" (code);
CREATE INDEX order_customer_id_idx ON "order" (customer_id, created_on_utc);
CREATE INDEX order_created_on_utc_idx ON "order" (created_on_utc);
CREATE INDEX order_order_status_idx ON "order" (order_status);

-- Order.Items
CREATE TABLE order_item (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	order_id TEXT COLLATE "C" NOT NULL REFERENCES "order" (id) ON DELETE CASCADE,
	product_id TEXT COLLATE "C" NOT NULL,
	product_name TEXT COLLATE "C" NOT NULL,
	sku TEXT COLLATE "C",
	quantity INTEGER NOT NULL CHECK (quantity > 0),
	unit_price NUMERIC(19,4) NOT NULL DEFAULT 0,
	price NUMERIC(19,4) NOT NULL DEFAULT 0
);
CREATE INDEX order_item_order_id_idx ON order_item (order_id);
CREATE INDEX order_item_product_id_idx ON order_item (product_id);

-- Order numbers: a sequence is shared by every server node and never blocks a concurrent checkout. A rolled-back
-- checkout leaves a gap in the numbers.
CREATE SEQUENCE order_number_seq AS BIGINT START WITH 1;

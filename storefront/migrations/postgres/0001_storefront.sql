-- The storefront's tables: cart and wishlist lines, the checkout state of each customer, and the shipping and
-- payment methods. Storage conventions as in the entities migrations (odata/DESIGN.md): keys are 24 hex digits,
-- strings TEXT COLLATE "C", money NUMERIC(19,4), DateTimeOffset TIMESTAMPTZ, booleans BOOLEAN.

-- One line per customer, list and product (quantities merge). shopping_cart_type: 1 = cart, 2 = wishlist.
CREATE TABLE shopping_cart_item (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	customer_id TEXT COLLATE "C" NOT NULL REFERENCES customer (id) ON DELETE CASCADE,
	shopping_cart_type INTEGER NOT NULL CHECK (shopping_cart_type IN (1, 2)),
	product_id TEXT COLLATE "C" NOT NULL REFERENCES product (id) ON DELETE CASCADE,
	quantity INTEGER NOT NULL CHECK (quantity > 0),
	created_on_utc TIMESTAMPTZ NOT NULL,
	updated_on_utc TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX shopping_cart_item_customer_type_product_key
	ON shopping_cart_item (customer_id, shopping_cart_type, product_id);
CREATE INDEX shopping_cart_item_product_id_idx ON shopping_cart_item (product_id);

-- The checkout in progress of a customer: the steps done so far. It lives in the database so that any server
-- node serves the next step. An address deleted meanwhile leaves its step undone.
CREATE TABLE checkout_state (
	customer_id TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES customer (id) ON DELETE CASCADE,
	shipping_saved BOOLEAN NOT NULL DEFAULT false,
	pick_up_in_store BOOLEAN NOT NULL DEFAULT false,
	shipping_address_id TEXT COLLATE "C" REFERENCES address (id) ON DELETE SET NULL,
	billing_address_id TEXT COLLATE "C" REFERENCES address (id) ON DELETE SET NULL,
	shipping_method TEXT COLLATE "C",
	shipping_rate_provider_system_name TEXT COLLATE "C",
	payment_method_system_name TEXT COLLATE "C",
	payment_info_saved BOOLEAN NOT NULL DEFAULT false,
	updated_on_utc TIMESTAMPTZ NOT NULL
);
CREATE INDEX checkout_state_shipping_address_id_idx ON checkout_state (shipping_address_id);
CREATE INDEX checkout_state_billing_address_id_idx ON checkout_state (billing_address_id);

-- Fixed-rate shipping methods: the fee of the method, plus each shippable line's AdditionalShippingCharge.
CREATE TABLE shipping_method (
	name TEXT COLLATE "C" NOT NULL,
	shipping_rate_provider_system_name TEXT COLLATE "C" NOT NULL,
	description TEXT COLLATE "C",
	fee NUMERIC(19,4) NOT NULL DEFAULT 0 CHECK (fee >= 0),
	active BOOLEAN NOT NULL DEFAULT true,
	display_order INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (shipping_rate_provider_system_name, name)
);
INSERT INTO shipping_method (name, shipping_rate_provider_system_name, description, fee, display_order) VALUES
	('Ground', 'Shipping.FixedRate', 'Shipping by land transport.', 0, 1),
	('Next Day Air', 'Shipping.FixedRate', 'Delivered the next working day, by air.', 20.00, 2),
	('2nd Day Air', 'Shipping.FixedRate', 'Delivered within two working days, by air.', 10.00, 3);

-- Payment methods and their additional fee.
CREATE TABLE payment_method (
	system_name TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	name TEXT COLLATE "C" NOT NULL,
	description TEXT COLLATE "C",
	fee NUMERIC(19,4) NOT NULL DEFAULT 0 CHECK (fee >= 0),
	requires_pick_up_in_store BOOLEAN NOT NULL DEFAULT false,
	active BOOLEAN NOT NULL DEFAULT true,
	display_order INTEGER NOT NULL DEFAULT 0
);
INSERT INTO payment_method (system_name, name, description, fee, requires_pick_up_in_store, display_order) VALUES
	('Payments.CheckMoneyOrder', 'Check / Money Order', 'Pay by check or money order; the order ships when it arrives.', 0, false, 1),
	('Payments.CashOnDelivery', 'Cash On Delivery (COD)', 'Pay the carrier in cash on delivery.', 2.00, false, 2),
	('Payments.PayInStore', 'Pay In Store', 'Pay when you pick the order up in store.', 0, true, 3);

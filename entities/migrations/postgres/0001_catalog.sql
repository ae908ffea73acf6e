-- Catalog: pictures, manufacturers (collections), categories, products and the product link tables.
-- Storage conventions (odata/DESIGN.md): table = snake_case(entity type), column = snake_case(property), keys are
-- 24 hex digits, strings are TEXT COLLATE "C" (byte order, as on SQLite), money is NUMERIC(19,4),
-- DateTimeOffset is TIMESTAMPTZ, booleans are BOOLEAN, enums are INTEGER member values.

CREATE TABLE picture (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	mime_type TEXT COLLATE "C" NOT NULL,
	seo_filename TEXT COLLATE "C",
	alt_attribute TEXT COLLATE "C",
	title_attribute TEXT COLLATE "C",
	picture_binary BYTEA NOT NULL,
	size INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE manufacturer (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	name TEXT COLLATE "C" NOT NULL,
	se_name TEXT COLLATE "C",
	description TEXT COLLATE "C",
	manufacturer_template_id INTEGER NOT NULL DEFAULT 0,
	meta_keywords TEXT COLLATE "C",
	meta_description TEXT COLLATE "C",
	meta_title TEXT COLLATE "C",
	picture_id TEXT COLLATE "C" REFERENCES picture (id) ON DELETE SET NULL,
	page_size INTEGER NOT NULL DEFAULT 0,
	allow_customers_to_select_page_size BOOLEAN NOT NULL DEFAULT false,
	page_size_options TEXT COLLATE "C",
	price_ranges TEXT COLLATE "C",
	show_on_home_page BOOLEAN NOT NULL DEFAULT false,
	featured_products_on_homa_page BOOLEAN NOT NULL DEFAULT false,
	include_in_top_menu BOOLEAN NOT NULL DEFAULT false,
	icon TEXT COLLATE "C",
	published BOOLEAN NOT NULL DEFAULT true,
	display_order INTEGER NOT NULL DEFAULT 0,
	created_on_utc TIMESTAMPTZ NOT NULL DEFAULT now(),
	updated_on_utc TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX manufacturer_se_name_idx ON manufacturer (se_name);
CREATE INDEX manufacturer_name_idx ON manufacturer (name);
CREATE INDEX manufacturer_picture_id_idx ON manufacturer (picture_id);
CREATE INDEX manufacturer_published_display_order_idx ON manufacturer (published, display_order);

CREATE TABLE category (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	name TEXT COLLATE "C" NOT NULL,
	se_name TEXT COLLATE "C",
	description TEXT COLLATE "C",
	parent_category_id TEXT COLLATE "C" REFERENCES category (id) ON DELETE SET NULL,
	picture_id TEXT COLLATE "C" REFERENCES picture (id) ON DELETE SET NULL,
	meta_keywords TEXT COLLATE "C",
	meta_description TEXT COLLATE "C",
	meta_title TEXT COLLATE "C",
	page_size INTEGER NOT NULL DEFAULT 0,
	allow_customers_to_select_page_size BOOLEAN NOT NULL DEFAULT false,
	page_size_options TEXT COLLATE "C",
	price_ranges TEXT COLLATE "C",
	show_on_home_page BOOLEAN NOT NULL DEFAULT false,
	featured_products_on_homa_page BOOLEAN NOT NULL DEFAULT false,
	include_in_top_menu BOOLEAN NOT NULL DEFAULT false,
	published BOOLEAN NOT NULL DEFAULT true,
	display_order INTEGER NOT NULL DEFAULT 0,
	flag TEXT COLLATE "C",
	flag_style TEXT COLLATE "C",
	icon TEXT COLLATE "C",
	hide_on_catalog BOOLEAN NOT NULL DEFAULT false,
	show_on_search_box BOOLEAN NOT NULL DEFAULT false,
	search_box_display_order INTEGER NOT NULL DEFAULT 0,
	created_on_utc TIMESTAMPTZ NOT NULL DEFAULT now(),
	updated_on_utc TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX category_se_name_idx ON category (se_name);
CREATE INDEX category_name_idx ON category (name);
CREATE INDEX category_parent_category_id_idx ON category (parent_category_id);
CREATE INDEX category_picture_id_idx ON category (picture_id);
CREATE INDEX category_published_display_order_idx ON category (published, display_order);

CREATE TABLE product (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	product_type INTEGER NOT NULL DEFAULT 5,
	parent_grouped_product_id TEXT COLLATE "C" REFERENCES product (id) ON DELETE SET NULL,
	visible_individually BOOLEAN NOT NULL DEFAULT true,
	name TEXT COLLATE "C" NOT NULL,
	se_name TEXT COLLATE "C",
	short_description TEXT COLLATE "C",
	full_description TEXT COLLATE "C",
	admin_comment TEXT COLLATE "C",
	flag TEXT COLLATE "C",
	sku TEXT COLLATE "C",
	manufacturer_part_number TEXT COLLATE "C",
	gtin TEXT COLLATE "C",
	external_id TEXT COLLATE "C",
	meta_keywords TEXT COLLATE "C",
	meta_description TEXT COLLATE "C",
	meta_title TEXT COLLATE "C",
	published BOOLEAN NOT NULL DEFAULT true,
	show_on_home_page BOOLEAN NOT NULL DEFAULT false,
	mark_as_new BOOLEAN NOT NULL DEFAULT false,
	display_order INTEGER NOT NULL DEFAULT 0,
	allow_customer_reviews BOOLEAN NOT NULL DEFAULT false,
	price NUMERIC(19,4) NOT NULL DEFAULT 0 CHECK (price >= 0),
	old_price NUMERIC(19,4) NOT NULL DEFAULT 0 CHECK (old_price >= 0),
	product_cost NUMERIC(19,4) NOT NULL DEFAULT 0 CHECK (product_cost >= 0),
	call_for_price BOOLEAN NOT NULL DEFAULT false,
	disable_buy_button BOOLEAN NOT NULL DEFAULT false,
	disable_wishlist_button BOOLEAN NOT NULL DEFAULT false,
	not_returnable BOOLEAN NOT NULL DEFAULT false,
	available_start_date_time_utc TIMESTAMPTZ,
	available_end_date_time_utc TIMESTAMPTZ,
	order_minimum_quantity INTEGER NOT NULL DEFAULT 1,
	order_maximum_quantity INTEGER NOT NULL DEFAULT 10000,
	allowed_quantities TEXT COLLATE "C",
	manage_inventory_method INTEGER NOT NULL DEFAULT 0,
	stock_quantity INTEGER NOT NULL DEFAULT 0,
	display_stock_availability BOOLEAN NOT NULL DEFAULT false,
	display_stock_quantity BOOLEAN NOT NULL DEFAULT false,
	min_stock_quantity INTEGER NOT NULL DEFAULT 0,
	low_stock_activity INTEGER NOT NULL DEFAULT 0,
	backorder_mode INTEGER NOT NULL DEFAULT 0,
	is_ship_enabled BOOLEAN NOT NULL DEFAULT true,
	is_free_shipping BOOLEAN NOT NULL DEFAULT false,
	additional_shipping_charge NUMERIC(19,4) NOT NULL DEFAULT 0,
	weight NUMERIC(19,4) NOT NULL DEFAULT 0,
	length NUMERIC(19,4) NOT NULL DEFAULT 0,
	width NUMERIC(19,4) NOT NULL DEFAULT 0,
	height NUMERIC(19,4) NOT NULL DEFAULT 0,
	is_tax_exempt BOOLEAN NOT NULL DEFAULT false,
	tax_category_id INTEGER NOT NULL DEFAULT 0,
	sold INTEGER NOT NULL DEFAULT 0,
	created_on_utc TIMESTAMPTZ NOT NULL DEFAULT now(),
	updated_on_utc TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX product_sku_key ON product (sku) WHERE sku IS NOT NULL;
CREATE INDEX product_se_name_idx ON product (se_name);
CREATE INDEX product_name_idx ON product (name);
CREATE INDEX product_parent_grouped_product_id_idx ON product (parent_grouped_product_id);
CREATE INDEX product_published_display_order_idx ON product (published, display_order);
CREATE INDEX product_show_on_home_page_idx ON product (show_on_home_page) WHERE show_on_home_page;
CREATE INDEX product_created_on_utc_idx ON product (created_on_utc);

-- Product.Categories
CREATE TABLE product_category (
	product_id TEXT COLLATE "C" NOT NULL REFERENCES product (id) ON DELETE CASCADE,
	category_id TEXT COLLATE "C" NOT NULL REFERENCES category (id) ON DELETE CASCADE,
	is_featured_product BOOLEAN NOT NULL DEFAULT false,
	display_order INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (product_id, category_id)
);
CREATE INDEX product_category_category_id_idx ON product_category (category_id, display_order);

-- Product.Collections: a collection is a Manufacturer.
CREATE TABLE product_collection (
	product_id TEXT COLLATE "C" NOT NULL REFERENCES product (id) ON DELETE CASCADE,
	collection_id TEXT COLLATE "C" NOT NULL REFERENCES manufacturer (id) ON DELETE CASCADE,
	is_featured_product BOOLEAN NOT NULL DEFAULT false,
	display_order INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (product_id, collection_id)
);
CREATE INDEX product_collection_collection_id_idx ON product_collection (collection_id, display_order);

-- Product.Pictures
CREATE TABLE product_picture (
	product_id TEXT COLLATE "C" NOT NULL REFERENCES product (id) ON DELETE CASCADE,
	picture_id TEXT COLLATE "C" NOT NULL REFERENCES picture (id) ON DELETE CASCADE,
	display_order INTEGER NOT NULL DEFAULT 0,
	mime_type TEXT COLLATE "C",
	seo_filename TEXT COLLATE "C",
	alt_attribute TEXT COLLATE "C",
	title_attribute TEXT COLLATE "C",
	PRIMARY KEY (product_id, picture_id)
);
CREATE INDEX product_picture_picture_id_idx ON product_picture (picture_id);

-- Catalog: pictures, manufacturers (collections), categories, products and the product link tables.
-- Storage conventions (odata/DESIGN.md): table = snake_case(entity type), column = snake_case(property), keys are
-- 24 hex digits, money is INTEGER scaled by 10^4, DateTimeOffset is TEXT YYYY-MM-DDTHH:MM:SS.ffffffZ, booleans are
-- INTEGER 0/1, enums are INTEGER member values. Tables are STRICT so a value of the wrong storage class (an
-- unscaled "19.99" in a money column) is an error rather than silently stored.

CREATE TABLE picture (
	id TEXT NOT NULL PRIMARY KEY,
	mime_type TEXT NOT NULL,
	seo_filename TEXT,
	alt_attribute TEXT,
	title_attribute TEXT,
	picture_binary BLOB NOT NULL,
	size INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE manufacturer (
	id TEXT NOT NULL PRIMARY KEY,
	name TEXT NOT NULL,
	se_name TEXT,
	description TEXT,
	manufacturer_template_id INTEGER NOT NULL DEFAULT 0,
	meta_keywords TEXT,
	meta_description TEXT,
	meta_title TEXT,
	picture_id TEXT REFERENCES picture (id) ON DELETE SET NULL,
	page_size INTEGER NOT NULL DEFAULT 0,
	allow_customers_to_select_page_size INTEGER NOT NULL DEFAULT 0,
	page_size_options TEXT,
	price_ranges TEXT,
	show_on_home_page INTEGER NOT NULL DEFAULT 0,
	featured_products_on_homa_page INTEGER NOT NULL DEFAULT 0,
	include_in_top_menu INTEGER NOT NULL DEFAULT 0,
	icon TEXT,
	published INTEGER NOT NULL DEFAULT 1,
	display_order INTEGER NOT NULL DEFAULT 0,
	created_on_utc TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
	updated_on_utc TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')
) STRICT;
CREATE INDEX manufacturer_se_name_idx ON manufacturer (se_name);
CREATE INDEX manufacturer_name_idx ON manufacturer (name);
CREATE INDEX manufacturer_picture_id_idx ON manufacturer (picture_id);
CREATE INDEX manufacturer_published_display_order_idx ON manufacturer (published, display_order);

CREATE TABLE category (
	id TEXT NOT NULL PRIMARY KEY,
	name TEXT NOT NULL,
	se_name TEXT,
	description TEXT,
	parent_category_id TEXT REFERENCES category (id) ON DELETE SET NULL,
	picture_id TEXT REFERENCES picture (id) ON DELETE SET NULL,
	meta_keywords TEXT,
	meta_description TEXT,
	meta_title TEXT,
	page_size INTEGER NOT NULL DEFAULT 0,
	allow_customers_to_select_page_size INTEGER NOT NULL DEFAULT 0,
	page_size_options TEXT,
	price_ranges TEXT,
	show_on_home_page INTEGER NOT NULL DEFAULT 0,
	featured_products_on_homa_page INTEGER NOT NULL DEFAULT 0,
	include_in_top_menu INTEGER NOT NULL DEFAULT 0,
	published INTEGER NOT NULL DEFAULT 1,
	display_order INTEGER NOT NULL DEFAULT 0,
	flag TEXT,
	flag_style TEXT,
	icon TEXT,
	hide_on_catalog INTEGER NOT NULL DEFAULT 0,
	show_on_search_box INTEGER NOT NULL DEFAULT 0,
	search_box_display_order INTEGER NOT NULL DEFAULT 0,
	created_on_utc TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
	updated_on_utc TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')
) STRICT;
CREATE INDEX category_se_name_idx ON category (se_name);
CREATE INDEX category_name_idx ON category (name);
CREATE INDEX category_parent_category_id_idx ON category (parent_category_id);
CREATE INDEX category_picture_id_idx ON category (picture_id);
CREATE INDEX category_published_display_order_idx ON category (published, display_order);

CREATE TABLE product (
	id TEXT NOT NULL PRIMARY KEY,
	product_type INTEGER NOT NULL DEFAULT 5,
	parent_grouped_product_id TEXT REFERENCES product (id) ON DELETE SET NULL,
	visible_individually INTEGER NOT NULL DEFAULT 1,
	name TEXT NOT NULL,
	se_name TEXT,
	short_description TEXT,
	full_description TEXT,
	admin_comment TEXT,
	flag TEXT,
	sku TEXT,
	manufacturer_part_number TEXT,
	gtin TEXT,
	external_id TEXT,
	meta_keywords TEXT,
	meta_description TEXT,
	meta_title TEXT,
	published INTEGER NOT NULL DEFAULT 1,
	show_on_home_page INTEGER NOT NULL DEFAULT 0,
	mark_as_new INTEGER NOT NULL DEFAULT 0,
	display_order INTEGER NOT NULL DEFAULT 0,
	allow_customer_reviews INTEGER NOT NULL DEFAULT 0,
	price INTEGER NOT NULL DEFAULT 0 CHECK (price >= 0),
	old_price INTEGER NOT NULL DEFAULT 0 CHECK (old_price >= 0),
	product_cost INTEGER NOT NULL DEFAULT 0 CHECK (product_cost >= 0),
	call_for_price INTEGER NOT NULL DEFAULT 0,
	disable_buy_button INTEGER NOT NULL DEFAULT 0,
	disable_wishlist_button INTEGER NOT NULL DEFAULT 0,
	not_returnable INTEGER NOT NULL DEFAULT 0,
	available_start_date_time_utc TEXT,
	available_end_date_time_utc TEXT,
	order_minimum_quantity INTEGER NOT NULL DEFAULT 1,
	order_maximum_quantity INTEGER NOT NULL DEFAULT 10000,
	allowed_quantities TEXT,
	manage_inventory_method INTEGER NOT NULL DEFAULT 0,
	stock_quantity INTEGER NOT NULL DEFAULT 0,
	display_stock_availability INTEGER NOT NULL DEFAULT 0,
	display_stock_quantity INTEGER NOT NULL DEFAULT 0,
	min_stock_quantity INTEGER NOT NULL DEFAULT 0,
	low_stock_activity INTEGER NOT NULL DEFAULT 0,
	backorder_mode INTEGER NOT NULL DEFAULT 0,
	is_ship_enabled INTEGER NOT NULL DEFAULT 1,
	is_free_shipping INTEGER NOT NULL DEFAULT 0,
	additional_shipping_charge INTEGER NOT NULL DEFAULT 0,
	weight INTEGER NOT NULL DEFAULT 0,
	length INTEGER NOT NULL DEFAULT 0,
	width INTEGER NOT NULL DEFAULT 0,
	height INTEGER NOT NULL DEFAULT 0,
	is_tax_exempt INTEGER NOT NULL DEFAULT 0,
	tax_category_id INTEGER NOT NULL DEFAULT 0,
	sold INTEGER NOT NULL DEFAULT 0,
	created_on_utc TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'),
	updated_on_utc TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')
) STRICT;
CREATE UNIQUE INDEX product_sku_key ON product (sku) WHERE sku IS NOT NULL;
CREATE INDEX product_se_name_idx ON product (se_name);
CREATE INDEX product_name_idx ON product (name);
CREATE INDEX product_parent_grouped_product_id_idx ON product (parent_grouped_product_id);
CREATE INDEX product_published_display_order_idx ON product (published, display_order);
CREATE INDEX product_show_on_home_page_idx ON product (show_on_home_page) WHERE show_on_home_page = 1;
CREATE INDEX product_created_on_utc_idx ON product (created_on_utc);

-- Product.Categories
CREATE TABLE product_category (
	product_id TEXT NOT NULL REFERENCES product (id) ON DELETE CASCADE,
	category_id TEXT NOT NULL REFERENCES category (id) ON DELETE CASCADE,
	is_featured_product INTEGER NOT NULL DEFAULT 0,
	display_order INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (product_id, category_id)
) STRICT;
CREATE INDEX product_category_category_id_idx ON product_category (category_id, display_order);

-- Product.Collections: a collection is a Manufacturer.
CREATE TABLE product_collection (
	product_id TEXT NOT NULL REFERENCES product (id) ON DELETE CASCADE,
	collection_id TEXT NOT NULL REFERENCES manufacturer (id) ON DELETE CASCADE,
	is_featured_product INTEGER NOT NULL DEFAULT 0,
	display_order INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (product_id, collection_id)
) STRICT;
CREATE INDEX product_collection_collection_id_idx ON product_collection (collection_id, display_order);

-- Product.Pictures
CREATE TABLE product_picture (
	product_id TEXT NOT NULL REFERENCES product (id) ON DELETE CASCADE,
	picture_id TEXT NOT NULL REFERENCES picture (id) ON DELETE CASCADE,
	display_order INTEGER NOT NULL DEFAULT 0,
	mime_type TEXT,
	seo_filename TEXT,
	alt_attribute TEXT,
	title_attribute TEXT,
	PRIMARY KEY (product_id, picture_id)
) STRICT;
CREATE INDEX product_picture_picture_id_idx ON product_picture (picture_id);

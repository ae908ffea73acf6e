package entities_test

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/sqldb"
)

// migrated returns a fresh database of each dialect with the store schema.
func migrated(t testing.TB, db *dbtest.DB) *dbtest.DB {
	t.Helper()
	if _, err := migrate.Up(context.Background(), db.DB, entities.Migrations); err != nil {
		t.Fatalf("migrate.Up(entities.Migrations) = %v", err)
	}
	return db
}

// q rewrites ? placeholders for db's dialect.
func q(db *dbtest.DB, query string) string {
	s, err := db.Dialect().Placeholder().ReplacePlaceholders(query)
	if err != nil {
		panic(err)
	}
	return s
}

func exec(t testing.TB, db *dbtest.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q(db, query), args...); err != nil {
		t.Fatalf("Exec(%q) = %v", query, err)
	}
}

func count(t testing.TB, db *dbtest.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q(db, query), args...).Scan(&n); err != nil {
		t.Fatalf("QueryRow(%q) = %v", query, err)
	}
	return n
}

func TestMigrations_Up(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := context.Background()
		want, err := migrate.Load(entities.Migrations, db.Dialect().Name())
		if err != nil {
			t.Fatal(err)
		}
		t.Run("OK", func(t *testing.T) {
			if n, err := migrate.Up(ctx, db.DB, entities.Migrations); err != nil || n != len(want) {
				t.Fatalf("Up(empty) = %d, %v, want %d, nil", n, err, len(want))
			}
		})
		t.Run("OKTwiceDoesNothing", func(t *testing.T) {
			if n, err := migrate.Up(ctx, db.DB, entities.Migrations); err != nil || n != 0 {
				t.Fatalf("Up(migrated) = %d, %v, want 0, nil", n, err)
			}
		})
	})
}

// TestMigrations_SameFiles checks that both dialects have the same migration versions and names, so one schema
// version means the same tables everywhere.
func TestMigrations_SameFiles(t *testing.T) {
	names := map[string][]string{}
	for _, d := range []string{"sqlite", "postgres"} {
		list, err := migrate.Load(entities.Migrations, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range list {
			names[d] = append(names[d], m.Name)
		}
	}
	if diff := cmp.Diff(names["sqlite"], names["postgres"]); diff != "" {
		t.Errorf("migration files differ between sqlite and postgres (-sqlite +postgres):\n%s", diff)
	}
}

// snakeCase is the storage naming rule of odata/DESIGN.md: an underscore before an upper-case letter that follows
// a lower-case letter or a digit, or that starts a word after an acronym; then lower case.
func snakeCase(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prev := r[i-1]
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"Id": "id", "SeName": "se_name", "FeaturedProductsOnHomaPage": "featured_products_on_homa_page",
		"CustomerRole": "customer_role", "StreetAddress2": "street_address2", "TwoLetterIsoCode": "two_letter_iso_code",
		"CreatedOnUtc": "created_on_utc", "Order": "order", "HTTPStatus": "http_status",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// schema is the model as the OData descriptors will declare it: per table, its properties (PascalCase, as in the
// service contract) with their EDM kind. Kinds: str (the default), bool, int, long, money (Edm.Decimal 19,4),
// dec (Edm.Decimal 19,4 that is not money), time (DateTimeOffset), date, guid, bin, enum. A complex property P is
// written P.Member.
var schema = map[string]string{
	"picture": `Id MimeType SeoFilename AltAttribute TitleAttribute PictureBinary:bin Size:int`,
	// ManufacturerTemplateId and TaxCategoryId come last: migration 5 replaced them with string columns.
	"manufacturer": `Id Name SeName Description MetaKeywords MetaDescription MetaTitle
		PictureId PageSize:int AllowCustomersToSelectPageSize:bool PageSizeOptions PriceRanges ShowOnHomePage:bool
		FeaturedProductsOnHomaPage:bool IncludeInTopMenu:bool Icon Published:bool DisplayOrder:int
		CreatedOnUtc:time UpdatedOnUtc:time ManufacturerTemplateId`,
	"category": `Id Name SeName Description ParentCategoryId PictureId MetaKeywords MetaDescription MetaTitle
		PageSize:int AllowCustomersToSelectPageSize:bool PageSizeOptions PriceRanges ShowOnHomePage:bool
		FeaturedProductsOnHomaPage:bool IncludeInTopMenu:bool Published:bool DisplayOrder:int Flag FlagStyle Icon
		HideOnCatalog:bool ShowOnSearchBox:bool SearchBoxDisplayOrder:int CreatedOnUtc:time UpdatedOnUtc:time`,
	"customer_role": `Id Name FreeShipping:bool TaxExempt:bool Active:bool IsSystemRole:bool SystemName
		EnablePasswordLifetime:bool PurchasedWithProductId`,
	"product": `Id ProductType:enum ParentGroupedProductId VisibleIndividually:bool Name SeName ShortDescription
		FullDescription AdminComment Flag Sku ManufacturerPartNumber Gtin ExternalId MetaKeywords MetaDescription
		MetaTitle Published:bool ShowOnHomePage:bool MarkAsNew:bool DisplayOrder:int AllowCustomerReviews:bool
		Price:money OldPrice:money ProductCost:money CallForPrice:bool DisableBuyButton:bool
		DisableWishlistButton:bool NotReturnable:bool AvailableStartDateTimeUtc:time AvailableEndDateTimeUtc:time
		OrderMinimumQuantity:int OrderMaximumQuantity:int AllowedQuantities ManageInventoryMethod:enum
		StockQuantity:int DisplayStockAvailability:bool DisplayStockQuantity:bool MinStockQuantity:int
		LowStockActivity:enum BackorderMode:enum IsShipEnabled:bool IsFreeShipping:bool
		AdditionalShippingCharge:money Weight:dec Length:dec Width:dec Height:dec IsTaxExempt:bool
		Sold:int CreatedOnUtc:time UpdatedOnUtc:time TaxCategoryId`,
	"product_category":   `ProductId CategoryId IsFeaturedProduct:bool DisplayOrder:int`,
	"product_collection": `ProductId CollectionId IsFeaturedProduct:bool DisplayOrder:int`,
	"product_picture": `ProductId PictureId DisplayOrder:int MimeType SeoFilename AltAttribute
		TitleAttribute`,
	"product_tier_price": `Id ProductId Quantity:int Price:money CustomerRoleId StartDateTimeUtc:time
		EndDateTimeUtc:time`,
	"customer": `Id Email Username CustomerGuid:guid FirstName LastName Gender DateOfBirth:date Company
		StreetAddress StreetAddress2 ZipPostalCode City CountryId StateProvinceId Phone VatNumber AdminComment
		IsTaxExempt:bool FreeShipping:bool Active:bool HasPassword:bool CreatedOnUtc:time LastActivityDateUtc:time`,
	"customer_role_mapping": `CustomerId CustomerRoleId Ordinal:int`,
	"address": `Id CustomerId FirstName LastName Email Company CountryId StateProvinceId City Address1 Address2
		ZipPostalCode PhoneNumber FaxNumber CreatedOnUtc:time`,
	"country": `Id Name TwoLetterIsoCode ThreeLetterIsoCode NumericIsoCode:int AllowsBilling:bool
		AllowsShipping:bool Published:bool DisplayOrder:int`,
	"state_province":          `Id CountryId Name Abbreviation Published:bool`,
	"newsletter_subscription": `Id Email CustomerId Active:bool CreatedOnUtc:time`,
	"order": `Id OrderNumber:long Code CustomerId CustomerEmail OrderStatus:enum PaymentStatus:enum
		ShippingStatus:enum PaymentMethodSystemName ShippingMethod ShippingRateProviderSystemName PickUpInStore:bool
		OrderSubtotal:money OrderShipping:money PaymentMethodAdditionalFee:money OrderTax:money OrderTotal:money
		BillingAddress.FirstName BillingAddress.LastName BillingAddress.Email BillingAddress.Company
		BillingAddress.CountryId BillingAddress.StateProvinceId BillingAddress.City BillingAddress.Address1
		BillingAddress.Address2 BillingAddress.ZipPostalCode BillingAddress.PhoneNumber BillingAddress.FaxNumber
		ShippingAddress.FirstName ShippingAddress.LastName ShippingAddress.Email ShippingAddress.Company
		ShippingAddress.CountryId ShippingAddress.StateProvinceId ShippingAddress.City ShippingAddress.Address1
		ShippingAddress.Address2 ShippingAddress.ZipPostalCode ShippingAddress.PhoneNumber
		ShippingAddress.FaxNumber CreatedOnUtc:time PaidDateUtc:time`,
	"order_item": `Id OrderId ProductId ProductName Sku Quantity:int UnitPrice:money Price:money`,
	// Tables no entity set exposes.
	"customer_password": `CustomerId PasswordHash ChangedOnUtc:time`,
	"access_token":      `TokenHash CustomerId CreatedOnUtc:time ExpiresOnUtc:time`,
	"login_attempt":     `Id Email AttemptedOnUtc:time ClientAddress Pending:bool`,
	"seed_marker":       `Name SeededOnUtc:time`,
}

// sqliteOnly are tables of one dialect only.
var sqliteOnly = map[string]string{"sequence_counter": `Name Value:long`}

// storage is the column type each EDM kind must have: SQLite declared type, PostgreSQL data type.
var storage = map[string][2]string{
	"str":   {"TEXT", "text"},
	"bool":  {"INTEGER", "boolean"},
	"int":   {"INTEGER", "integer"},
	"long":  {"INTEGER", "bigint"},
	"enum":  {"INTEGER", "integer"},
	"money": {"INTEGER", "numeric(19,4)"},
	"dec":   {"INTEGER", "numeric(19,4)"},
	"time":  {"TEXT", "timestamp with time zone"},
	"date":  {"TEXT", "date"},
	"guid":  {"TEXT", "uuid"},
	"bin":   {"BLOB", "bytea"},
}

type column struct{ Name, Type string }

// expectedColumns derives the columns of a table from its properties by the naming convention.
func expectedColumns(t *testing.T, props string, dialect int) []column {
	t.Helper()
	var cols []column
	for _, p := range strings.Fields(props) {
		name, kind, ok := strings.Cut(p, ":")
		if !ok {
			kind = "str"
		}
		st, ok := storage[kind]
		if !ok {
			t.Fatalf("unknown kind %q of %s", kind, p)
		}
		var parts []string
		for _, seg := range strings.Split(name, ".") {
			parts = append(parts, snakeCase(seg))
		}
		cols = append(cols, column{strings.Join(parts, "_"), st[dialect]})
	}
	return cols
}

func tables(t *testing.T, db *dbtest.DB) []string {
	t.Helper()
	// A full-text index (product_search) and the tables SQLite keeps it in are no tables of the model.
	query := `SELECT name FROM sqlite_master AS m WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
		AND NOT EXISTS (SELECT 1 FROM sqlite_master AS v WHERE v.sql LIKE 'CREATE VIRTUAL TABLE%'
			AND (m.name = v.name OR m.name LIKE v.name || '\_%' ESCAPE '\'))`
	if db.Dialect().Name() == "postgres" {
		query = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`
	}
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func columns(t *testing.T, db *dbtest.DB, table string) []column {
	t.Helper()
	var rows *sql.Rows
	var err error
	if db.Dialect().Name() == "postgres" {
		rows, err = db.Query(`SELECT column_name, CASE WHEN data_type = 'numeric'
	THEN 'numeric(' || numeric_precision || ',' || numeric_scale || ')' ELSE data_type END,
	COALESCE(collation_name, '')
FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1
	AND NOT (column_name = 'search_vector' AND is_generated = 'ALWAYS') -- the full-text index's, no property's
ORDER BY ordinal_position`, table)
	} else {
		rows, err = db.Query(`SELECT name, type, '' FROM pragma_table_info(?) ORDER BY cid`, table)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []column
	for rows.Next() {
		var c column
		var collation string
		if err := rows.Scan(&c.Name, &c.Type, &collation); err != nil {
			t.Fatal(err)
		}
		if c.Type == "text" && collation != "C" {
			c.Type += " COLLATE " + collation // strings must compare bytes, as on SQLite
		}
		cols = append(cols, c)
	}
	return cols
}

// TestMigrations_NamingConvention checks every table and column against the storage conventions the OData
// engine assumes when it generates SQL from descriptors: names are snake_case of the entity type and property,
// types follow the EDM kind.
func TestMigrations_NamingConvention(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		dialect := 0
		want := map[string]string{"schema_migrations": ""}
		for k, v := range schema {
			want[k] = v
		}
		if db.Dialect().Name() == "postgres" {
			dialect = 1
		} else {
			for k, v := range sqliteOnly {
				want[k] = v
			}
		}
		var wantTables []string
		for name := range want {
			wantTables = append(wantTables, name)
		}
		sort.Strings(wantTables)
		if diff := cmp.Diff(wantTables, tables(t, db)); diff != "" {
			t.Errorf("tables (-want +got):\n%s", diff)
		}
		for table, props := range want {
			if table == "schema_migrations" {
				continue
			}
			t.Run(table, func(t *testing.T) {
				if diff := cmp.Diff(expectedColumns(t, props, dialect), columns(t, db, table)); diff != "" {
					t.Errorf("columns(%q) (-want +got):\n%s", table, diff)
				}
			})
		}
	})
}

// TestMigrations_Defaults inserts rows with only their required columns and reads the defaults of the service
// contract back.
func TestMigrations_Defaults(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		exec(t, db, `INSERT INTO product (id, name) VALUES ('p1', 'P')`)
		var (
			typ, minQty, maxQty, method, backorder int
			published, visible, shipEnabled        bool
			price                                  string
			created                                any
		)
		err := db.QueryRow(`SELECT product_type, order_minimum_quantity, order_maximum_quantity, manage_inventory_method,
	backorder_mode, published, visible_individually, is_ship_enabled, price, created_on_utc FROM product`).
			Scan(&typ, &minQty, &maxQty, &method, &backorder, &published, &visible, &shipEnabled, &price, &created)
		if err != nil {
			t.Fatal(err)
		}
		got := []any{typ, minQty, maxQty, method, backorder, published, visible, shipEnabled}
		want := []any{entities.ProductTypeSimpleProduct, 1, 10000, entities.ManageInventoryMethodDontManageStock,
			entities.BackorderModeNoBackorders, true, true, true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("product defaults (-want +got):\n%s", diff)
		}
		if price != "0" && price != "0.0000" {
			t.Errorf("product price default = %q, want 0", price)
		}
		if s, ok := created.(string); db.Dialect().Name() == "sqlite" && (!ok || len(s) != len("2006-01-02T15:04:05.000000Z") || !strings.HasSuffix(s, "Z")) {
			t.Errorf("created_on_utc default = %v, want YYYY-MM-DDTHH:MM:SS.ffffffZ", created)
		}

		exec(t, db, `INSERT INTO customer (id, email) VALUES ('c1', 'a@example.com')`)
		var guid string
		var active, hasPassword bool
		if err := db.QueryRow(`SELECT customer_guid, active, has_password FROM customer`).Scan(&guid, &active, &hasPassword); err != nil {
			t.Fatal(err)
		}
		if len(guid) != 36 || guid[14] != '4' || strings.ToLower(guid) != guid || !active || hasPassword {
			t.Errorf("customer defaults = %q, %v, %v, want a lower-case v4 GUID, true, false", guid, active, hasPassword)
		}
		exec(t, db, `INSERT INTO "order" (id, order_number, code, customer_id, customer_email) VALUES ('o1', 1, 'ABCD1234', 'c1', 'a@example.com')`)
		var os, ps, ss int
		if err := db.QueryRow(`SELECT order_status, payment_status, shipping_status FROM "order"`).Scan(&os, &ps, &ss); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]int{entities.OrderStatusPending, entities.PaymentStatusPending, entities.ShippingStatusNotYetShipped}, []int{os, ps, ss}); diff != "" {
			t.Errorf("order defaults (-want +got):\n%s", diff)
		}
	})
}

// TestMigrations_Cascades checks the delete rules of the service contract.
func TestMigrations_Cascades(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		exec(t, db, `INSERT INTO picture (id, mime_type, picture_binary) VALUES ('pic', 'image/png', ?)`, []byte{1})
		exec(t, db, `INSERT INTO category (id, name, picture_id) VALUES ('parent', 'Parent', 'pic')`)
		exec(t, db, `INSERT INTO category (id, name, parent_category_id) VALUES ('child', 'Child', 'parent')`)
		exec(t, db, `INSERT INTO manufacturer (id, name, picture_id) VALUES ('m', 'M', 'pic')`)
		exec(t, db, `INSERT INTO product (id, name) VALUES ('p1', 'P1')`)
		exec(t, db, `INSERT INTO product (id, name) VALUES ('p2', 'P2')`)
		for _, p := range []string{"p1", "p2"} {
			exec(t, db, `INSERT INTO product_category (product_id, category_id) VALUES (?, 'parent')`, p)
			exec(t, db, `INSERT INTO product_category (product_id, category_id) VALUES (?, 'child')`, p)
			exec(t, db, `INSERT INTO product_collection (product_id, collection_id) VALUES (?, 'm')`, p)
			exec(t, db, `INSERT INTO product_picture (product_id, picture_id) VALUES (?, 'pic')`, p)
			exec(t, db, `INSERT INTO product_tier_price (id, product_id, quantity, price) VALUES (?, ?, 2, 0)`, "tp"+p, p)
		}
		exec(t, db, `INSERT INTO customer_role (id, name, purchased_with_product_id) VALUES ('r', 'R', 'p1')`)
		exec(t, db, `INSERT INTO product_tier_price (id, product_id, quantity, price, customer_role_id) VALUES ('tpr', 'p2', 5, 0, 'r')`)
		exec(t, db, `INSERT INTO country (id, name) VALUES ('US', 'United States')`)
		exec(t, db, `INSERT INTO customer (id, email, country_id) VALUES ('c', 'c@example.com', 'US')`)
		exec(t, db, `INSERT INTO customer_role_mapping (customer_id, customer_role_id) VALUES ('c', 'r')`)
		exec(t, db, `INSERT INTO address (id, customer_id, country_id) VALUES ('a', 'c', 'US')`)
		exec(t, db, `INSERT INTO customer_password (customer_id, password_hash, changed_on_utc) VALUES ('c', 'h', ?)`, nowValue(db))
		exec(t, db, `INSERT INTO access_token (token_hash, customer_id, created_on_utc, expires_on_utc) VALUES ('t', 'c', ?, ?)`, nowValue(db), nowValue(db))
		exec(t, db, `INSERT INTO newsletter_subscription (id, email, customer_id) VALUES ('n', 'c@example.com', 'c')`)
		exec(t, db, `INSERT INTO "order" (id, order_number, code, customer_id, customer_email) VALUES ('o', 1, 'ABCD1234', 'c', 'c@example.com')`)
		exec(t, db, `INSERT INTO order_item (id, order_id, product_id, product_name, quantity) VALUES ('oi', 'o', 'p1', 'P1', 1)`)

		steps := []struct {
			name, delete string
			checks       map[string]int // query -> count after the delete
		}{
			{"DeleteProduct", `DELETE FROM product WHERE id = 'p1'`, map[string]int{
				`SELECT COUNT(*) FROM product_category WHERE product_id = 'p1'`:              0,
				`SELECT COUNT(*) FROM product_collection WHERE product_id = 'p1'`:            0,
				`SELECT COUNT(*) FROM product_picture WHERE product_id = 'p1'`:               0,
				`SELECT COUNT(*) FROM product_tier_price WHERE product_id = 'p1'`:            0,
				`SELECT COUNT(*) FROM product_category WHERE product_id = 'p2'`:              2,
				`SELECT COUNT(*) FROM customer_role WHERE purchased_with_product_id IS NULL`: 1,
				`SELECT COUNT(*) FROM order_item WHERE product_id = 'p1'`:                    1,
			}},
			{"DeleteCategory", `DELETE FROM category WHERE id = 'parent'`, map[string]int{
				`SELECT COUNT(*) FROM product_category WHERE category_id = 'parent'`:              0,
				`SELECT COUNT(*) FROM category WHERE id = 'child' AND parent_category_id IS NULL`: 1,
				`SELECT COUNT(*) FROM product_category WHERE category_id = 'child'`:               1,
			}},
			{"DeletePicture", `DELETE FROM picture WHERE id = 'pic'`, map[string]int{
				`SELECT COUNT(*) FROM product_picture`:                       0,
				`SELECT COUNT(*) FROM manufacturer WHERE picture_id IS NULL`: 1,
			}},
			{"DeleteManufacturer", `DELETE FROM manufacturer WHERE id = 'm'`, map[string]int{
				`SELECT COUNT(*) FROM product_collection`: 0,
			}},
			{"DeleteRole", `DELETE FROM customer_role WHERE id = 'r'`, map[string]int{
				`SELECT COUNT(*) FROM customer_role_mapping`:                                 0,
				`SELECT COUNT(*) FROM product_tier_price WHERE customer_role_id IS NOT NULL`: 0,
				`SELECT COUNT(*) FROM product_tier_price`:                                    1,
			}},
			{"DeleteCustomer", `DELETE FROM customer WHERE id = 'c'`, map[string]int{
				`SELECT COUNT(*) FROM address`:                                           0,
				`SELECT COUNT(*) FROM customer_password`:                                 0,
				`SELECT COUNT(*) FROM access_token`:                                      0,
				`SELECT COUNT(*) FROM newsletter_subscription WHERE customer_id IS NULL`: 1,
				`SELECT COUNT(*) FROM "order" WHERE customer_id = 'c'`:                   1,
				`SELECT COUNT(*) FROM order_item`:                                        1,
			}},
		}
		for _, s := range steps {
			t.Run(s.name, func(t *testing.T) {
				exec(t, db, s.delete)
				for query, want := range s.checks {
					if got := count(t, db, query); got != want {
						t.Errorf("after %s: %s = %d, want %d", s.delete, query, got, want)
					}
				}
			})
		}
	})
}

func nowValue(db *dbtest.DB) any {
	if db.Dialect().Name() == "sqlite" {
		return "2030-01-01T00:00:00.000000Z"
	}
	return "2030-01-01T00:00:00Z"
}

// TestMigrations_Unique checks the unique indexes.
func TestMigrations_Unique(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		exec(t, db, `INSERT INTO customer (id, email) VALUES ('c1', 'Ann@Example.com')`)
		exec(t, db, `INSERT INTO product (id, name, sku) VALUES ('p1', 'P1', 'SKU-1')`)
		exec(t, db, `INSERT INTO product (id, name) VALUES ('p2', 'P2')`)
		exec(t, db, `INSERT INTO product (id, name) VALUES ('p3', 'P3')`) // two products without a SKU
		exec(t, db, `INSERT INTO customer_role (id, name, system_name) VALUES ('r1', 'Administrators', 'Administrators')`)
		exec(t, db, `INSERT INTO "order" (id, order_number, code, customer_id, customer_email) VALUES ('o1', 1, 'AAAA1111', 'c1', 'x')`)
		exec(t, db, `INSERT INTO newsletter_subscription (id, email) VALUES ('n1', 'Ann@Example.com')`)
		for _, tc := range []struct{ name, insert string }{
			{"ErrCustomerEmailIgnoringCase", `INSERT INTO customer (id, email) VALUES ('c2', 'aNN@example.COM')`},
			{"ErrProductSku", `INSERT INTO product (id, name, sku) VALUES ('p4', 'P4', 'SKU-1')`},
			{"ErrRoleName", `INSERT INTO customer_role (id, name) VALUES ('r2', 'Administrators')`},
			{"ErrRoleSystemName", `INSERT INTO customer_role (id, name, system_name) VALUES ('r3', 'Admins', 'Administrators')`},
			{"ErrOrderNumber", `INSERT INTO "order" (id, order_number, code, customer_id, customer_email) VALUES ('o2', 1, 'BBBB2222', 'c1', 'x')`},
			{"ErrOrderCode", `INSERT INTO "order" (id, order_number, code, customer_id, customer_email) VALUES ('o3', 2, 'AAAA1111', 'c1', 'x')`},
			{"ErrNewsletterEmail", `INSERT INTO newsletter_subscription (id, email) VALUES ('n2', 'ann@example.com')`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := db.Exec(tc.insert)
				if got := db.Dialect().ClassifyError(err); got != sqldb.ErrUniqueViolation {
					t.Errorf("Exec(%q) = %v (class %v), want a unique violation", tc.insert, err, got)
				}
			})
		}
	})
}

// TestMigrations_StrictMoney checks that money columns hold exact values only: SQLite refuses an unscaled decimal
// (money is stored scaled), PostgreSQL's NUMERIC(19,4) refuses a value past 15 digits before the point.
func TestMigrations_StrictMoney(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		if db.Dialect().Name() == "sqlite" {
			if _, err := db.Exec(`INSERT INTO product (id, name, price) VALUES ('p', 'P', '19.99')`); err == nil {
				t.Error(`Exec(price = '19.99') = nil, want an error (money is stored scaled)`)
			}
			if _, err := db.Exec(`INSERT INTO product (id, name, price) VALUES ('p', 'P', ?)`, int64(199900)); err != nil {
				t.Errorf("Exec(price = 199900) = %v", err)
			}
			return
		}
		var precision, scale int
		if err := db.QueryRow(`SELECT numeric_precision, numeric_scale FROM information_schema.columns
WHERE table_name = 'product' AND column_name = 'price'`).Scan(&precision, &scale); err != nil || precision != 19 || scale != 4 {
			t.Errorf("product.price = NUMERIC(%d,%d) (%v), want NUMERIC(19,4)", precision, scale, err)
		}
		_, err := db.Exec(`INSERT INTO product (id, name, price) VALUES ('p', 'P', '1000000000000000')`)
		if got := db.Dialect().ClassifyError(err); got != sqldb.ErrInvalidData {
			t.Errorf("Exec(price = 10^15) = %v (class %v), want a numeric overflow", err, got)
		}
		if _, err := db.Exec(`INSERT INTO product (id, name, price) VALUES ('p', 'P', '19.99')`); err != nil {
			t.Errorf("Exec(price = '19.99') = %v", err)
		}
	})
}

func TestNextOrderNumber(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		ctx := context.Background()
		next := func(commit bool) (int64, error) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return 0, err
			}
			defer tx.Rollback()
			n, err := entities.NextOrderNumber(ctx, tx)
			if err != nil {
				return 0, err
			}
			if commit {
				return n, tx.Commit()
			}
			return n, nil
		}
		t.Run("OK", func(t *testing.T) {
			var got []int64
			for range 3 {
				n, err := next(true)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, n)
			}
			if diff := cmp.Diff([]int64{1, 2, 3}, got); diff != "" {
				t.Errorf("NextOrderNumber x3 (-want +got):\n%s", diff)
			}
		})
		t.Run("OKConcurrent", func(t *testing.T) {
			const workers, each = 4, 10
			var mu sync.Mutex
			seen := map[int64]bool{}
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range each {
						n, err := next(true)
						if err != nil {
							errs <- err
							return
						}
						mu.Lock()
						if seen[n] {
							errs <- errors.New("duplicate order number")
						}
						seen[n] = true
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if len(seen) != workers*each {
				t.Errorf("NextOrderNumber concurrent: %d distinct numbers, want %d", len(seen), workers*each)
			}
		})
		if db.Dialect().Name() == "sqlite" {
			t.Run("OKRollbackGivesBack", func(t *testing.T) {
				a, err := next(false)
				if err != nil {
					t.Fatal(err)
				}
				b, err := next(true)
				if err != nil || b != a {
					t.Errorf("NextOrderNumber after a rollback = %d, %v, want %d", b, err, a)
				}
			})
		}
	})
}

// upTo returns the migrations of src up to and including version, for a database as an older release left it.
func upTo(t *testing.T, src migrate.Source, version int) migrate.Source {
	t.Helper()
	out := fstest.MapFS{}
	for _, dialect := range []string{"sqlite", "postgres"} {
		entries, err := fs.ReadDir(src.FS, dialect)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			prefix, _, _ := strings.Cut(e.Name(), "_")
			if v, err := strconv.Atoi(prefix); err != nil || v > version {
				continue
			}
			data, err := fs.ReadFile(src.FS, dialect+"/"+e.Name())
			if err != nil {
				t.Fatal(err)
			}
			out[dialect+"/"+e.Name()] = &fstest.MapFile{Data: data}
		}
	}
	return migrate.Source{Name: src.Name, FS: out}
}

// TestMigrations_TemplateAndTaxCategoryText migrates a database of schema version 4, whose
// manufacturer_template_id and tax_category_id were integers, to the nullable strings of version 5: a stored 0
// (the old default, "none") becomes NULL, another number its digits.
func TestMigrations_TemplateAndTaxCategoryText(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := context.Background()
		if _, err := migrate.Up(ctx, db.DB, upTo(t, entities.Migrations, 4)); err != nil {
			t.Fatalf("migrate.Up(versions 1 to 4) = %v", err)
		}
		exec(t, db, `INSERT INTO manufacturer (id, name) VALUES ('m0', 'Default')`)
		exec(t, db, `INSERT INTO manufacturer (id, name, manufacturer_template_id) VALUES ('m7', 'Seven', 7)`)
		exec(t, db, `INSERT INTO product (id, name, tax_category_id) VALUES ('p0', 'Zero', 0)`)
		exec(t, db, `INSERT INTO product (id, name, tax_category_id) VALUES ('p3', 'Three', 3)`)
		if n, err := migrate.Up(ctx, db.DB, entities.Migrations); err != nil || n < 1 {
			t.Fatalf("migrate.Up(all) = %d, %v, want the later migrations applied", n, err)
		}
		read := func(query string) map[string]*string {
			rows, err := db.Query(query)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			out := map[string]*string{}
			for rows.Next() {
				var id string
				var v sql.NullString
				if err := rows.Scan(&id, &v); err != nil {
					t.Fatal(err)
				}
				if v.Valid {
					out[id] = &v.String
				} else {
					out[id] = nil
				}
			}
			return out
		}
		seven, three := "7", "3"
		if diff := cmp.Diff(map[string]*string{"m0": nil, "m7": &seven},
			read(`SELECT id, manufacturer_template_id FROM manufacturer`)); diff != "" {
			t.Errorf("manufacturer_template_id after migration 5 (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]*string{"p0": nil, "p3": &three},
			read(`SELECT id, tax_category_id FROM product`)); diff != "" {
			t.Errorf("tax_category_id after migration 5 (-want +got):\n%s", diff)
		}
		exec(t, db, `INSERT INTO product (id, name, tax_category_id) VALUES ('px', 'Text', 'TC-Books')`)
		exec(t, db, `INSERT INTO product (id, name) VALUES ('pn', 'Null')`)
		if n := count(t, db, `SELECT COUNT(*) FROM product WHERE tax_category_id IS NULL`); n != 2 {
			t.Errorf("products without a tax category = %d, want 2 (a stored 0 and the new default)", n)
		}
	})
}

// TestMigrations_SortIndexes: a page of products ordered or filtered by price, name or creation time is read
// from an index, with the key tie-breaker, and no temporary sort (SQLite's query plan; PostgreSQL's planner
// picks a sequential scan on tables this small, so there the indexes are only checked to exist).
func TestMigrations_SortIndexes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		if db.Dialect().Name() == "postgres" {
			for _, name := range []string{"product_price_id_idx", "product_name_id_idx", "product_created_on_utc_id_idx",
				"customer_last_activity_date_utc_id_idx", "order_created_on_utc_id_idx"} {
				if count(t, db, "SELECT count(*) FROM pg_indexes WHERE indexname = ?", name) != 1 {
					t.Errorf("index %s is missing", name)
				}
			}
			return
		}
		for _, tc := range []struct{ query, index string }{
			{`SELECT id FROM product ORDER BY price DESC, id DESC LIMIT 100`, "product_price_id_idx"},
			{`SELECT id FROM product WHERE (price, id) < (19.99, 'x') ORDER BY price DESC, id DESC LIMIT 100`, "product_price_id_idx"},
			{`SELECT count(*) FROM product WHERE price > 500`, "product_price_id_idx"},
			{`SELECT id FROM product ORDER BY name, id LIMIT 100`, "product_name_id_idx"},
			{`SELECT id FROM product ORDER BY created_on_utc DESC, id DESC LIMIT 100`, "product_created_on_utc_id_idx"},
			{`SELECT id FROM "order" ORDER BY created_on_utc DESC, id DESC LIMIT 100`, "order_created_on_utc_id_idx"},
		} {
			rows, err := db.Query("EXPLAIN QUERY PLAN " + tc.query)
			if err != nil {
				t.Fatal(err)
			}
			var plan []string
			for rows.Next() {
				var id, parent, notUsed int
				var detail string
				if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			rows.Close()
			text := strings.Join(plan, "; ")
			if !strings.Contains(text, tc.index) || strings.Contains(text, "TEMP B-TREE") {
				t.Errorf("%s\nplan: %s\nwant %s and no temporary sort", tc.query, text, tc.index)
			}
		}
	})
}

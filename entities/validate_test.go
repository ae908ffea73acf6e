package entities

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"maps"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/sqldb"
)

// testNow is the clock of the rule tests.
var testNow = time.Date(2024, 5, 17, 10, 30, 0, 123456789, time.UTC)

var testOpts = Options{Now: func() time.Time { return testNow }}

// fixture is a migrated and seeded database (system roles, countries, the demo catalog) with a few more rows
// the rules refer to.
type fixture struct {
	db *dbtest.DB
	// ids
	picture, grouped, simple, laptop     string
	root, child, grandchild, otherRoot   string
	role, administrators, registered     string
	manufacturer, customer, systemRoleID string
}

func newFixture(t *testing.T, db *dbtest.DB) *fixture {
	t.Helper()
	ctx := context.Background()
	if _, err := migrate.Up(ctx, db.DB, Migrations); err != nil {
		t.Fatalf("migrate.Up = %v", err)
	}
	if _, err := Seed(ctx, db.DB, SeedOptions{AdminEmail: "admin@example.com", AdminPassword: "password1", Demo: true}); err != nil {
		t.Fatalf("Seed = %v", err)
	}
	f := &fixture{db: db, picture: odata.NewID(), grouped: odata.NewID(), simple: odata.NewID(), root: odata.NewID(),
		child: odata.NewID(), grandchild: odata.NewID(), otherRoot: odata.NewID(), role: odata.NewID(),
		manufacturer: odata.NewID()}
	b := sqldb.Builder(db.Dialect())
	run := func(s interface {
		ToSql() (string, []any, error)
	}) {
		t.Helper()
		query, args, err := s.ToSql()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	run(b.Insert("picture").Columns("id", "mime_type", "picture_binary", "size").
		Values(f.picture, "image/png", pngBytes(t), len(pngBytes(t))))
	run(b.Insert("product").Columns("id", "name", "product_type").
		Values(f.grouped, "Grouped", ProductTypeGroupedProduct).
		Values(f.simple, "Simple", ProductTypeSimpleProduct))
	run(b.Insert("category").Columns("id", "name").Values(f.root, "Root").Values(f.otherRoot, "Other root"))
	run(b.Insert("category").Columns("id", "name", "parent_category_id").Values(f.child, "Child", f.root))
	run(b.Insert("category").Columns("id", "name", "parent_category_id").Values(f.grandchild, "Grandchild", f.child))
	run(b.Insert("customer_role").Columns("id", "name").Values(f.role, "Wholesale"))
	run(b.Insert("manufacturer").Columns("id", "name", "se_name").Values(f.manufacturer, "Acme", "acme"))
	ids := map[string]*string{
		`SELECT id FROM customer_role WHERE system_name = 'Administrators'`: &f.administrators,
		`SELECT id FROM customer_role WHERE system_name = 'Registered'`:     &f.registered,
		`SELECT id FROM customer WHERE email = 'admin@example.com'`:         &f.customer,
		`SELECT id FROM product WHERE sku = 'NW-LAP-14'`:                    &f.laptop,
	}
	for query, dst := range ids {
		if err := db.QueryRow(query).Scan(dst); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	return f
}

// pngBytes returns a real 2x2 PNG image.
func pngBytes(t testing.TB) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// inTx runs fn in a transaction that is rolled back.
func (f *fixture) inTx(t *testing.T, fn func(ctx context.Context, tx *sqldb.Tx)) {
	t.Helper()
	ctx := context.Background()
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	fn(ctx, tx)
}

// details renders details as "Code Target: Message" lines.
func details(ds []odata.ErrorDetail) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code+" "+d.Target+": "+d.Message)
	}
	return out
}

// ruleTest is one case of a table-driven rule test: base with changes applied (a nil value deletes the key), on
// create (old nil) or on update of old.
type ruleTest struct {
	name    string
	changes map[string]any
	old     map[string]any
	want    []string
}

func with(base, changes map[string]any) map[string]any {
	e := maps.Clone(base)
	for k, v := range changes {
		if v == nil {
			delete(e, k)
		} else {
			e[k] = v
		}
	}
	return e
}

// runRules runs validate on each case against f's database.
func runRules(t *testing.T, f *fixture, fn string, validate validateFunc, base map[string]any, tests []ruleTest) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := with(base, tt.changes)
			f.inTx(t, func(ctx context.Context, tx *sqldb.Tx) {
				got, err := validate(ctx, tx, e, tt.old, testOpts)
				if err != nil {
					t.Fatalf("%s(%v) error = %v", fn, e, err)
				}
				if diff := cmp.Diff(tt.want, details(got)); diff != "" {
					t.Errorf("%s(%v) details (-want +got):\n%s", fn, e, diff)
				}
			})
		})
	}
}

func TestValidateManufacturer(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		base := map[string]any{"Name": "Contoso", "PageSize": int64(0), "Published": true}
		runRules(t, f, "validateManufacturer", validateManufacturer, base, []ruleTest{
			{name: "OK"},
			{name: "OKAllSet", changes: map[string]any{"PictureId": f.picture, "PageSize": int64(12),
				"PageSizeOptions": "6, 12,24", "SeName": "contoso"}},
			{name: "OKEmptyOptions", changes: map[string]any{"PageSizeOptions": " "}},
			{name: "OKUpdate", old: map[string]any{"Id": f.manufacturer, "Name": "Acme"},
				changes: map[string]any{"Id": f.manufacturer}},
			{name: "ErrNameMissing", changes: map[string]any{"Name": nil},
				want: []string{"Required Name: Manufacturer name is required"}},
			{name: "ErrNameBlank", changes: map[string]any{"Name": " \t"},
				want: []string{"Required Name: Manufacturer name is required"}},
			{name: "ErrNameWrongType", changes: map[string]any{"Name": int64(5)},
				want: []string{"InvalidValue Name: Name must be a string"}},
			{name: "ErrPictureUnknown", changes: map[string]any{"PictureId": "nope"},
				want: []string{"InvalidValue PictureId: Picture 'nope' does not exist"}},
			{name: "ErrPageSizeNegative", changes: map[string]any{"PageSize": int64(-1)},
				want: []string{"InvalidValue PageSize: PageSize must not be negative"}},
			{name: "ErrPageSizeOptionsText", changes: map[string]any{"PageSizeOptions": "6,x"},
				want: []string{`InvalidValue PageSizeOptions: PageSizeOptions must be a comma-separated list of distinct positive integers, such as "6, 12, 24"`}},
			{name: "ErrPageSizeOptionsZero", changes: map[string]any{"PageSizeOptions": "0,6"},
				want: []string{`InvalidValue PageSizeOptions: PageSizeOptions must be a comma-separated list of distinct positive integers, such as "6, 12, 24"`}},
			{name: "ErrPageSizeOptionsTrailingComma", changes: map[string]any{"PageSizeOptions": "6,"},
				want: []string{`InvalidValue PageSizeOptions: PageSizeOptions must be a comma-separated list of distinct positive integers, such as "6, 12, 24"`}},
			{name: "ErrPageSizeOptionsTwice", changes: map[string]any{"PageSizeOptions": "6, 12, 6"},
				want: []string{"InvalidValue PageSizeOptions: PageSizeOptions lists 6 more than once"}},
			{name: "ErrEveryRule", changes: map[string]any{"Name": "", "PictureId": "nope", "PageSize": int64(-5),
				"PageSizeOptions": "a"}, want: []string{
				"Required Name: Manufacturer name is required",
				"InvalidValue PictureId: Picture 'nope' does not exist",
				"InvalidValue PageSize: PageSize must not be negative",
				`InvalidValue PageSizeOptions: PageSizeOptions must be a comma-separated list of distinct positive integers, such as "6, 12, 24"`,
			}},
		})
	})
}

func TestValidateCategory(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		base := map[string]any{"Name": "Shoes", "PageSize": int64(0)}
		old := func(id string) map[string]any { return map[string]any{"Id": id, "Name": "Old"} }
		runRules(t, f, "validateCategory", validateCategory, base, []ruleTest{
			{name: "OK"},
			{name: "OKParent", changes: map[string]any{"ParentCategoryId": f.grandchild}},
			{name: "OKMoveLeaf", old: old(f.grandchild),
				changes: map[string]any{"Id": f.grandchild, "ParentCategoryId": f.otherRoot}},
			{name: "OKMoveSubtree", old: old(f.child), changes: map[string]any{"Id": f.child, "ParentCategoryId": f.otherRoot}},
			{name: "OKKeepParent", old: old(f.grandchild), changes: map[string]any{"Id": f.grandchild, "ParentCategoryId": f.child}},
			{name: "OKEmptyParent", changes: map[string]any{"ParentCategoryId": ""}},
			{name: "ErrNameMissing", changes: map[string]any{"Name": nil},
				want: []string{"Required Name: Category name is required"}},
			{name: "ErrPictureUnknown", changes: map[string]any{"PictureId": "nope"},
				want: []string{"InvalidValue PictureId: Picture 'nope' does not exist"}},
			{name: "ErrPageSizeOptions", changes: map[string]any{"PageSizeOptions": "-6"},
				want: []string{`InvalidValue PageSizeOptions: PageSizeOptions must be a comma-separated list of distinct positive integers, such as "6, 12, 24"`}},
			{name: "ErrParentUnknown", changes: map[string]any{"ParentCategoryId": "nope"},
				want: []string{"InvalidValue ParentCategoryId: Category 'nope' does not exist"}},
			{name: "ErrParentSelf", old: old(f.root), changes: map[string]any{"Id": f.root, "ParentCategoryId": f.root},
				want: []string{"InvalidValue ParentCategoryId: A category cannot be its own parent"}},
			{name: "ErrParentSelfIdFromOld", old: old(f.root), changes: map[string]any{"ParentCategoryId": f.root},
				want: []string{"InvalidValue ParentCategoryId: A category cannot be its own parent"}},
			{name: "ErrCycleChild", old: old(f.root), changes: map[string]any{"Id": f.root, "ParentCategoryId": f.child},
				want: []string{"InvalidValue ParentCategoryId: Category '" + f.child + "' is below this category: the parent would make a cycle"}},
			{name: "ErrCycleGrandchild", old: old(f.root), changes: map[string]any{"Id": f.root, "ParentCategoryId": f.grandchild},
				want: []string{"InvalidValue ParentCategoryId: Category '" + f.grandchild + "' is below this category: the parent would make a cycle"}},
		})
	})
}

func TestValidateProduct(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		dec := decimal.RequireFromString
		start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		base := map[string]any{"Name": "Tent", "ProductType": int64(ProductTypeSimpleProduct),
			"ManageInventoryMethod": int64(ManageInventoryMethodManageStock), "LowStockActivity": int64(LowStockActivityUnpublish),
			"BackorderMode": int64(BackorderModeNoBackorders), "Price": dec("19.99"), "OldPrice": decimal.Zero,
			"ProductCost": dec("7.5"), "AdditionalShippingCharge": decimal.Zero, "Weight": dec("1.2"),
			"Length": decimal.Zero, "Width": decimal.Zero, "Height": decimal.Zero,
			"OrderMinimumQuantity": int64(1), "OrderMaximumQuantity": int64(10000)}
		invalidList := `InvalidValue AllowedQuantities: AllowedQuantities must be a comma-separated list of positive integers, such as "6, 12, 24"`
		runRules(t, f, "validateProduct", validateProduct, base, []ruleTest{
			{name: "OK"},
			{name: "OKAllSet", changes: map[string]any{"ParentGroupedProductId": f.grouped, "Sku": "TENT-1",
				"AllowedQuantities": "1, 2, 2,10", "OrderMinimumQuantity": int64(2), "OrderMaximumQuantity": int64(2),
				"AvailableStartDateTimeUtc": start, "AvailableEndDateTimeUtc": start}},
			{name: "OKOwnSku", old: map[string]any{"Id": f.laptop}, changes: map[string]any{"Id": f.laptop, "Sku": "NW-LAP-14"}},
			{name: "OKOpenWindow", changes: map[string]any{"AvailableEndDateTimeUtc": start}},
			{name: "ErrNameMissing", changes: map[string]any{"Name": nil},
				want: []string{"Required Name: Product name is required"}},
			{name: "ErrEnums", changes: map[string]any{"ProductType": int64(7), "ManageInventoryMethod": int64(2),
				"LowStockActivity": int64(3), "BackorderMode": int64(-1)}, want: []string{
				"InvalidValue ProductType: ProductType has no member with the value 7",
				"InvalidValue ManageInventoryMethod: ManageInventoryMethod has no member with the value 2",
				"InvalidValue LowStockActivity: LowStockActivity has no member with the value 3",
				"InvalidValue BackorderMode: BackorderMode has no member with the value -1",
			}},
			{name: "ErrParentUnknown", changes: map[string]any{"ParentGroupedProductId": "nope"},
				want: []string{"InvalidValue ParentGroupedProductId: Product 'nope' does not exist"}},
			{name: "ErrParentNotGrouped", changes: map[string]any{"ParentGroupedProductId": f.simple},
				want: []string{"InvalidValue ParentGroupedProductId: Product '" + f.simple + "' is not a grouped product"}},
			{name: "ErrParentSelf", old: map[string]any{"Id": f.grouped}, changes: map[string]any{"Id": f.grouped, "ParentGroupedProductId": f.grouped},
				want: []string{"InvalidValue ParentGroupedProductId: A product cannot be its own parent"}},
			{name: "ErrNegativeMoney", changes: map[string]any{"Price": dec("-0.01"), "OldPrice": dec("-1"),
				"ProductCost": dec("-2"), "AdditionalShippingCharge": dec("-3")}, want: []string{
				"InvalidValue Price: Price must not be negative",
				"InvalidValue OldPrice: OldPrice must not be negative",
				"InvalidValue ProductCost: ProductCost must not be negative",
				"InvalidValue AdditionalShippingCharge: AdditionalShippingCharge must not be negative",
			}},
			{name: "ErrNegativeDimensions", changes: map[string]any{"Weight": dec("-1"), "Height": dec("-0.5")}, want: []string{
				"InvalidValue Weight: Weight must not be negative",
				"InvalidValue Height: Height must not be negative",
			}},
			{name: "ErrSkuTaken", changes: map[string]any{"Sku": "NW-LAP-14"},
				want: []string{"InvalidValue Sku: Sku 'NW-LAP-14' is already used by another product"}},
			{name: "ErrAllowedQuantitiesText", changes: map[string]any{"AllowedQuantities": "1, two"}, want: []string{invalidList}},
			{name: "ErrAllowedQuantitiesZero", changes: map[string]any{"AllowedQuantities": "0"}, want: []string{invalidList}},
			{name: "ErrMinimumQuantity", changes: map[string]any{"OrderMinimumQuantity": int64(0)},
				want: []string{"InvalidValue OrderMinimumQuantity: OrderMinimumQuantity must be at least 1"}},
			{name: "ErrMaximumBelowMinimum", changes: map[string]any{"OrderMinimumQuantity": int64(5), "OrderMaximumQuantity": int64(4)},
				want: []string{"InvalidValue OrderMaximumQuantity: OrderMaximumQuantity must not be less than OrderMinimumQuantity"}},
			{name: "ErrAvailableWindow", changes: map[string]any{"AvailableStartDateTimeUtc": start,
				"AvailableEndDateTimeUtc": start.Add(-time.Second)},
				want: []string{"InvalidValue AvailableEndDateTimeUtc: AvailableEndDateTimeUtc must not be before AvailableStartDateTimeUtc"}},
			{name: "ErrWrongTypes", changes: map[string]any{"Price": 19.99, "OrderMinimumQuantity": 1}, want: []string{
				"InvalidValue Price: Price must be a number",
				"InvalidValue OrderMinimumQuantity: OrderMinimumQuantity must be an integer",
			}},
		})
	})
}

func TestPrepareCatalogItems(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		now := testNow.Truncate(time.Microsecond)
		created := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		tests := []struct {
			name    string
			prepare prepareFunc
			e, old  map[string]any
			want    map[string]any
		}{
			{"OKManufacturerCreate", prepareManufacturer, map[string]any{"Name": "Contoso Press"}, nil,
				map[string]any{"Name": "Contoso Press", "SeName": "contoso-press-2", "CreatedOnUtc": now, "UpdatedOnUtc": now}},
			{"OKManufacturerUpdateKeepsSeName", prepareManufacturer,
				map[string]any{"Id": f.manufacturer, "Name": "Acme", "SeName": "acme", "CreatedOnUtc": now},
				map[string]any{"Id": f.manufacturer, "CreatedOnUtc": created},
				map[string]any{"Id": f.manufacturer, "Name": "Acme", "SeName": "acme", "CreatedOnUtc": created, "UpdatedOnUtc": now}},
			{"OKCategoryGivenSeNameNormalized", prepareCategory, map[string]any{"Name": "x", "SeName": "Laptop Pro 14!"}, nil,
				map[string]any{"Name": "x", "SeName": "laptop-pro-14-2", "CreatedOnUtc": now, "UpdatedOnUtc": now}},
			{"OKCategoryFallback", prepareCategory, map[string]any{"Name": "日本"}, nil,
				map[string]any{"Name": "日本", "SeName": "category", "CreatedOnUtc": now, "UpdatedOnUtc": now}},
			{"OKProductCreate", prepareProduct, map[string]any{"Name": "Books", "Sku": " ", "Sold": int64(99)}, nil,
				map[string]any{"Name": "Books", "SeName": "books-2", "Sku": nil, "Sold": int64(0), "CreatedOnUtc": now, "UpdatedOnUtc": now}},
			{"OKProductUpdateKeepsSold", prepareProduct,
				map[string]any{"Id": f.laptop, "Name": "Laptop Pro 14", "SeName": "", "Sku": "NW-LAP-14", "Sold": int64(0)},
				map[string]any{"Id": f.laptop, "Sold": int64(7), "CreatedOnUtc": created},
				map[string]any{"Id": f.laptop, "Name": "Laptop Pro 14", "SeName": "laptop-pro-14", "Sku": "NW-LAP-14",
					"Sold": int64(7), "CreatedOnUtc": created, "UpdatedOnUtc": now}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f.inTx(t, func(ctx context.Context, tx *sqldb.Tx) {
					e := maps.Clone(tt.e)
					if err := tt.prepare(ctx, tx, e, tt.old, testOpts); err != nil {
						t.Fatalf("prepare(%v) = %v", tt.e, err)
					}
					if diff := cmp.Diff(tt.want, e); diff != "" {
						t.Errorf("prepare(%v) (-want +got):\n%s", tt.e, diff)
					}
				})
			})
		}
	})
}

// TestValidate_RequiredMatchesModel checks that each validator reports every Required property of its entity
// type, when missing, with the model's RequiredMessage, so the engine's check and the rules say the same thing.
func TestValidate_RequiredMatchesModel(t *testing.T) {
	m, err := NewModel()
	if err != nil {
		t.Fatal(err)
	}
	validators := map[string]validateFunc{
		"Manufacturer": validateManufacturer, "Category": validateCategory, "CustomerRole": validateCustomerRole,
		"Product": validateProduct, "Customer": validateCustomer, "Picture": validatePicture,
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		for typ, validate := range validators {
			f.inTx(t, func(ctx context.Context, tx *sqldb.Tx) {
				got, err := validate(ctx, tx, map[string]any{}, nil, testOpts)
				if err != nil {
					t.Fatal(err)
				}
				found := map[string]string{}
				for _, d := range got {
					if d.Code == odata.CodeRequired {
						found[d.Target] = d.Message
					}
				}
				for _, p := range m.EntityType(typ).Properties {
					if p.Required && found[p.Name] != p.RequiredMessage {
						t.Errorf("validate%s({}) Required %s = %q, want %q", typ, p.Name, found[p.Name], p.RequiredMessage)
					}
				}
			})
		}
	})
}

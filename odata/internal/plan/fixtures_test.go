package plan_test

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// row holds an entity's values by property name; "Complex/Member" names a complex member, a collection property
// holds []any.
type row map[string]any

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func day(s string) edm.Date {
	d, err := edm.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func tod(s string) edm.TimeOfDay {
	t, err := edm.ParseTimeOfDay(s)
	if err != nil {
		panic(err)
	}
	return t
}

// insertEntity inserts one entity of type t and its collection items; properties not given are stored as their
// type's zero value (or null when nullable).
func insertEntity(tb testing.TB, db *dbtest.DB, t *edm.EntityType, r row) {
	tb.Helper()
	var cols []string
	var vals []any
	for _, p := range scalarColumns(t) {
		name := p.Name
		for _, top := range t.Properties {
			if top.Complex != nil && strings.HasPrefix(p.Column, top.Column+"_") {
				name = memberName(top, p)
			}
		}
		v, ok := r[name]
		if !ok && !p.Nullable {
			v = zero(p)
		}
		a, err := sqldb.Arg(db.Dialect(), p, v)
		if err != nil {
			tb.Fatalf("%s.%s: %v", t.Name, name, err)
		}
		cols = append(cols, p.Column)
		vals = append(vals, a)
	}
	insert(tb, db, t.Table, cols, vals)
	for _, p := range t.Properties {
		if !p.Collection {
			continue
		}
		items, _ := r[p.Name].([]any)
		item := *p
		item.Collection = false
		for i, it := range items {
			ct := p.CollectionTable
			var cs []string
			var vs []any
			for j, col := range ct.SourceColumns {
				k := propertyOfColumn(t, col)
				a, _ := sqldb.Arg(db.Dialect(), k, r[k.Name])
				cs = append(cs, ct.OwnerColumns[j])
				vs = append(vs, a)
			}
			a, err := sqldb.Arg(db.Dialect(), &item, it)
			if err != nil {
				tb.Fatal(err)
			}
			insert(tb, db, ct.Table, append(cs, ct.ValueColumn, ct.OrdinalColumn), append(vs, a, int64(i)))
		}
	}
}

// memberName returns "Top/Member[/Member]" for the complex member m of top.
func memberName(top, m *edm.Property) string {
	var find func(p *edm.Property, prefix string) string
	find = func(p *edm.Property, prefix string) string {
		for _, c := range p.Properties() {
			if c == m || c.Column == m.Column {
				return prefix + "/" + c.Name
			}
			if c.Complex != nil {
				if s := find(c, prefix+"/"+c.Name); s != "" {
					return s
				}
			}
		}
		return ""
	}
	return find(top, top.Name)
}

func zero(p *edm.Property) any {
	if p.Enum != nil {
		return p.Enum.Members[0].Value
	}
	switch p.Type {
	case edm.KindString:
		return ""
	case edm.KindBoolean:
		return false
	case edm.KindDecimal:
		return decimal.Zero
	case edm.KindDouble, edm.KindSingle:
		return 0.0
	case edm.KindDate:
		return edm.Date{Year: 2000, Month: 1, Day: 1}
	case edm.KindTimeOfDay:
		return edm.TimeOfDay(0)
	case edm.KindDateTimeOffset:
		return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	case edm.KindDuration:
		return time.Duration(0)
	case edm.KindGuid:
		return "00000000-0000-0000-0000-000000000000"
	case edm.KindBinary:
		return []byte{}
	}
	return int64(0)
}

func link(tb testing.TB, db *dbtest.DB, productID, categoryID string) {
	insert(tb, db, "product_category", []string{"product_id", "category_id"}, []any{productID, categoryID})
}

// loadFixtures creates the schema of m and fills it with the rows the golden and integration tests query.
// The data has mixed case, LIKE wildcards and backslashes in strings, nulls in every nullable column, decimals
// with all four fraction digits, timestamps entered with offsets, and every kind of relation.
func loadFixtures(tb testing.TB, db *dbtest.DB, m *edm.Model) {
	tb.Helper()
	createSchema(tb, db, m)
	et := m.EntityType
	for _, r := range []row{
		{"Id": "c1", "Name": "Electronics", "Published": true, "DisplayOrder": int64(1)},
		{"Id": "c2", "Name": "Computers", "ParentCategoryId": "c1", "Published": true, "DisplayOrder": int64(2)},
		{"Id": "c3", "Name": "Phones", "ParentCategoryId": "c1", "Published": true, "DisplayOrder": int64(3), "Flag": "hot"},
		{"Id": "c4", "Name": "Clothing", "Published": false, "DisplayOrder": int64(4), "Flag": "sale"},
		{"Id": "c5", "Name": "home & garden", "Published": true, "DisplayOrder": int64(5)},
		{"Id": "c6", "Name": "Laptops", "ParentCategoryId": "c2", "Published": true, "DisplayOrder": int64(2)},
	} {
		insertEntity(tb, db, et("Category"), r)
	}
	for _, r := range []row{
		{"Id": "m1", "Name": "Acme"},
		{"Id": "m2", "Name": "Globex"},
		{"Id": "m3", "Name": "Initech"},
	} {
		insertEntity(tb, db, et("Manufacturer"), r)
	}
	simple, grouped := int64(5), int64(10)
	products := []row{
		{"Id": "p01", "ProductType": simple, "Name": "Laptop Pro", "Sku": "LP-100", "ShortDescription": "Fast laptop",
			"Price": dec("1299.99"), "OldPrice": dec("1499.99"), "Weight": 2.5, "Rating": 4.5, "StockQuantity": int64(10),
			"MinStockQuantity": int64(2), "DisplayOrder": int64(1), "Sold": int64(150), "Priority": int64(1), "Delta": int64(-1),
			"Published": true, "MarkAsNew": true, "AvailableStartDate": day("2024-01-15"),
			"AvailableFrom": ts("2024-01-15T09:00:00+02:00"), "CreatedOnUtc": ts("2023-11-01T10:00:00Z"),
			"DeliveryTime": 48 * time.Hour, "OpensAt": tod("09:00:00"), "ExternalGuid": "6f1e6c3b-0000-4000-8000-000000000001",
			"Tags": []any{"laptop", "computer"}, "Sizes": []any{int64(13), int64(15)}, "ManufacturerId": "m1",
			"Dimensions/Width": dec("30.5"), "Dimensions/Height": dec("2.1")},
		{"Id": "p02", "ProductType": simple, "Name": "laptop basic", "Sku": "LB-200", "Price": dec("499.5"),
			"Weight": 2.9, "Rating": 3.5, "StockQuantity": int64(0), "MinStockQuantity": int64(1), "DisplayOrder": int64(2),
			"Sold": int64(75), "Priority": int64(2), "Delta": int64(0), "Published": true, "MarkAsNew": false,
			"AvailableStartDate": day("2023-06-01"), "CreatedOnUtc": ts("2023-05-20T23:30:00-04:00"),
			"DeliveryTime": 72 * time.Hour, "Tags": []any{"laptop", "budget"}, "ManufacturerId": "m1",
			"Dimensions/Width": dec("32"), "Dimensions/Height": dec("2.5")},
		{"Id": "p03", "ProductType": simple, "Name": "100% Cotton Shirt", "Sku": "CS-%1", "ShortDescription": "50% off",
			"Price": dec("19.99"), "OldPrice": dec("29.99"), "Weight": 0.2, "StockQuantity": int64(100),
			"MinStockQuantity": int64(10), "DisplayOrder": int64(3), "Sold": int64(1000), "Priority": int64(3),
			"Published": true, "CreatedOnUtc": ts("2022-12-31T23:59:59.999999Z"), "DeliveryTime": 24 * time.Hour,
			"OpensAt": tod("08:30:15.5"), "Tags": []any{"cotton", "shirt", "Sale"}, "Sizes": []any{int64(1), int64(2), int64(3)},
			"ManufacturerId": "m2", "Dimensions/Width": dec("0.0001"), "Dimensions/Height": dec("0")},
		{"Id": "p04", "ProductType": simple, "Name": "Under_score Mug", "Sku": "UM_1", "Price": dec("9.5"),
			"Weight": 0.4, "Rating": 4.0, "StockQuantity": int64(25), "MinStockQuantity": int64(30), "DisplayOrder": int64(4),
			"Sold": int64(12), "Priority": int64(0), "Delta": int64(5), "Published": false,
			"CreatedOnUtc": ts("2024-03-10T12:00:00+01:00"), "DeliveryTime": 90 * time.Minute,
			"Tags": []any{"mug"}, "Dimensions/Width": dec("8"), "Dimensions/Height": dec("10")},
		{"Id": "p05", "ProductType": simple, "Name": `Back\slash Poster`, "Sku": `BS\1`, "ShortDescription": `a\b`,
			"Price": dec("15"), "Weight": 0.1, "Rating": 2.0, "StockQuantity": int64(5), "MinStockQuantity": int64(5),
			"DisplayOrder": int64(5), "Sold": int64(3), "Published": true, "MarkAsNew": true,
			"CreatedOnUtc": ts("2024-02-29T00:00:00Z"), "DeliveryTime": 48 * time.Hour, "ManufacturerId": "m2",
			"Dimensions/Width": dec("60"), "Dimensions/Height": dec("90")},
		{"Id": "p06", "ProductType": simple, "Name": "Phone X", "Sku": "PX-1", "ShortDescription": "The phone",
			"Price": dec("999.5"), "OldPrice": dec("999.5"), "Weight": 0.19, "Rating": 4.8, "StockQuantity": int64(50),
			"MinStockQuantity": int64(5), "DisplayOrder": int64(1), "Sold": int64(500), "Priority": int64(1),
			"Published": true, "MarkAsNew": true, "AvailableStartDate": day("2024-09-20"),
			"AvailableFrom": ts("2024-09-20T00:00:00-07:00"), "CreatedOnUtc": ts("2024-09-01T08:15:30.123456Z"),
			"DeliveryTime": 24 * time.Hour, "OpensAt": tod("10:00:00"), "ExternalGuid": "6f1e6c3b-0000-4000-8000-000000000002",
			"Tags": []any{"phone", "5g"}, "Sizes": []any{int64(6)}, "ManufacturerId": "m2",
			"Dimensions/Width": dec("7.1234"), "Dimensions/Height": dec("14.9")},
		{"Id": "p07", "ProductType": simple, "Name": "Phone Case", "Sku": "pc-1", "Price": dec("19.99"),
			"Weight": 0.05, "Rating": 3.9, "StockQuantity": int64(200), "MinStockQuantity": int64(20), "DisplayOrder": int64(2),
			"Sold": int64(800), "Published": true, "CreatedOnUtc": ts("2024-09-02T08:15:30Z"), "DeliveryTime": 24 * time.Hour,
			"Tags": []any{"phone", "accessory"}, "ManufacturerId": "m1", "Dimensions/Width": dec("7.2"), "Dimensions/Height": dec("15")},
		{"Id": "p08", "ProductType": simple, "Name": "USB Cable", "Sku": "USB-C", "Price": dec("5"), "OldPrice": dec("4.9999"),
			"Weight": 0.03, "Rating": 4.1, "StockQuantity": int64(1000), "MinStockQuantity": int64(100),
			"DisplayOrder": int64(9), "Sold": int64(5000), "Priority": int64(5), "Delta": int64(-5), "Published": true,
			"MarkAsNew": false, "CreatedOnUtc": ts("2021-01-01T00:00:00Z"), "DeliveryTime": 12 * time.Hour,
			"Tags": []any{"cable", "usb", "accessory"}, "Sizes": []any{int64(1), int64(2)}, "ManufacturerId": "m1",
			"Dimensions/Width": dec("0.5"), "Dimensions/Height": dec("100")},
		{"Id": "p09", "ProductType": simple, "Name": "Headphones", "Price": dec("79.0001"), "Weight": 0.3,
			"StockQuantity": int64(15), "MinStockQuantity": int64(15), "DisplayOrder": int64(6), "Sold": int64(42),
			"Published": true, "CreatedOnUtc": ts("2023-07-04T16:45:00+05:30"), "DeliveryTime": 36 * time.Hour,
			"Dimensions/Width": dec("18"), "Dimensions/Height": dec("20")},
		{"Id": "p10", "ProductType": grouped, "Name": "Starter Bundle", "Sku": "BUNDLE", "Price": dec("1500"),
			"Weight": 3.2, "Rating": 4.5, "StockQuantity": int64(3), "MinStockQuantity": int64(1), "DisplayOrder": int64(7),
			"Sold": int64(9), "Published": true, "MarkAsNew": true, "AvailableStartDate": day("2024-12-01"),
			"CreatedOnUtc": ts("2024-11-15T00:00:00Z"), "DeliveryTime": 96 * time.Hour, "ManufacturerId": "m3",
			"Tags": []any{"bundle"}, "Dimensions/Width": dec("40"), "Dimensions/Height": dec("30")},
		{"Id": "p11", "ProductType": simple, "Name": "Ünïcode Lamp", "Sku": "LAMP", "ShortDescription": "ÉCLAIRAGE",
			"Price": dec("45.25"), "Weight": 1.5, "Rating": 1.0, "StockQuantity": int64(-2), "MinStockQuantity": int64(0),
			"DisplayOrder": int64(8), "Sold": int64(0), "Published": false, "CreatedOnUtc": ts("2020-02-29T12:34:56.7Z"),
			"DeliveryTime": time.Duration(0), "OpensAt": tod("23:59:59.999999"), "Dimensions/Width": dec("12.3456"), "Dimensions/Height": dec("45")},
		{"Id": "p12", "ProductType": simple, "Name": "Tablet", "Sku": "TAB-10", "ShortDescription": "",
			"Price": dec("329"), "OldPrice": dec("349"), "Weight": 0.5, "Rating": 4.2, "StockQuantity": int64(7),
			"MinStockQuantity": int64(7), "DisplayOrder": int64(3), "Sold": int64(60), "Published": true,
			"AvailableStartDate": day("2024-02-29"), "AvailableFrom": ts("2024-02-29T23:00:00-03:00"),
			"CreatedOnUtc": ts("2024-02-28T21:00:00-03:00"), "DeliveryTime": 48 * time.Hour, "ManufacturerId": "m2",
			"Tags": []any{"tablet", "computer"}, "Dimensions/Width": dec("17"), "Dimensions/Height": dec("25.0001")},
	}
	for _, r := range products {
		insertEntity(tb, db, et("Product"), r)
	}
	for _, l := range [][2]string{{"p01", "c1"}, {"p01", "c2"}, {"p01", "c6"}, {"p02", "c2"}, {"p02", "c6"},
		{"p03", "c4"}, {"p06", "c1"}, {"p06", "c3"}, {"p07", "c3"}, {"p08", "c1"}, {"p10", "c1"}, {"p12", "c2"},
		{"p04", "c5"}, {"p11", "c5"}} {
		link(tb, db, l[0], l[1])
	}
	for _, r := range []row{
		{"Id": "tp1", "ProductId": "p01", "Quantity": int64(5), "Price": dec("1199.99"), "StartsOn": day("2024-02-01")},
		{"Id": "tp2", "ProductId": "p01", "Quantity": int64(10), "Price": dec("1099.99")},
		{"Id": "tp3", "ProductId": "p06", "Quantity": int64(2), "Price": dec("949.5"), "StartsOn": day("2024-10-01")},
		{"Id": "tp4", "ProductId": "p08", "Quantity": int64(100), "Price": dec("4")},
		{"Id": "tp5", "ProductId": "p08", "Quantity": int64(500), "Price": dec("3.5")},
	} {
		insertEntity(tb, db, et("TierPrice"), r)
	}
	for _, r := range []row{
		{"Id": "cu1", "Email": "Alice@Example.com", "FirstName": "Alice", "LastName": "Smith",
			"CustomerGuid": "0b0c6a5e-1111-4000-8000-000000000001", "DateOfBirth": day("1990-05-17"),
			"PreferredDeliveryTime": tod("08:30:00"), "Permissions": int64(3), "CustomerRoles": []any{"admin", "registered"},
			"BillingAddress/Street": "1 Main St", "BillingAddress/City": "Springfield", "BillingAddress/ZipPostalCode": "12345",
			"BillingAddress/Location/Latitude": 40.1, "BillingAddress/Location/Longitude": -75.25, "Active": true,
			"CreatedOnUtc": ts("2023-01-01T00:00:00Z")},
		{"Id": "cu2", "Email": "bob@example.com", "LastName": "Jones", "CustomerGuid": "0b0c6a5e-1111-4000-8000-000000000002",
			"Permissions": int64(1), "CustomerRoles": []any{"registered"}, "Active": false,
			"CreatedOnUtc": ts("2023-06-15T12:00:00+02:00")},
		{"Id": "cu3", "Email": "carol@example.org", "FirstName": "Carol", "LastName": "O'Neil",
			"CustomerGuid": "0b0c6a5e-1111-4000-8000-000000000003", "DateOfBirth": day("1985-12-31"),
			"Permissions": int64(7), "BillingAddress/City": "Paris", "BillingAddress/ZipPostalCode": "75001", "Active": true,
			"CreatedOnUtc": ts("2024-01-10T08:00:00Z")},
		{"Id": "cu4", "Email": "dave@example.com", "FirstName": "dave", "LastName": "Brown",
			"CustomerGuid": "0b0c6a5e-1111-4000-8000-000000000004", "DateOfBirth": day("2000-02-29"),
			"PreferredDeliveryTime": tod("18:00:00"), "Permissions": int64(0), "CustomerRoles": []any{"guest"},
			"BillingAddress/Street": "5 Elm", "BillingAddress/City": "springfield", "Active": true,
			"CreatedOnUtc": ts("2024-06-30T23:59:59Z")},
	} {
		insertEntity(tb, db, et("Customer"), r)
	}
	for _, r := range []row{{"Id": "US", "Name": "United States"}, {"Id": "FR", "Name": "France"}, {"Id": "DE", "Name": "Germany"}} {
		insertEntity(tb, db, et("Country"), r)
	}
	for _, r := range []row{
		{"Id": "a1", "CustomerId": "cu1", "FirstName": "Alice", "City": "Springfield", "CountryId": "US"},
		{"Id": "a2", "CustomerId": "cu1", "City": "Boston"},
		{"Id": "a3", "CustomerId": "cu3", "FirstName": "Carol", "City": "Paris", "CountryId": "FR"},
	} {
		insertEntity(tb, db, et("Address"), r)
	}
	pending, processing, complete, cancelled := int64(10), int64(20), int64(30), int64(40)
	for _, r := range []row{
		{"Id": "o1", "OrderNumber": int64(1), "CustomerId": "cu1", "Status": pending, "OrderTotal": dec("1319.98"), "Tax": dec("123.450000000000000000"),
			"ShippingAddress/Street": "1 Main St", "ShippingAddress/City": "Springfield",
			"CreatedOnUtc": ts("2024-03-01T10:00:00Z")},
		{"Id": "o2", "OrderNumber": int64(2), "CustomerId": "cu1", "Status": complete, "OrderTotal": dec("15"), "Tax": dec("99999999999999999999.999999999999999999"),
			"ShippingAddress/City": "Boston", "CreatedOnUtc": ts("2024-03-02T10:00:00Z"), "PaidOn": ts("2024-03-02T11:00:00+01:00")},
		{"Id": "o3", "OrderNumber": int64(3), "CustomerId": "cu3", "Status": cancelled, "OrderTotal": dec("20"), "Tax": dec("-0.000000000000000001"),
			"ShippingAddress/City": "Paris", "CreatedOnUtc": ts("2024-04-01T10:00:00Z")},
		{"Id": "o4", "OrderNumber": int64(4), "CustomerId": "cu2", "Status": processing, "OrderTotal": dec("499.5"),
			"CreatedOnUtc": ts("2024-05-01T10:00:00Z"), "PaidOn": ts("2024-05-01T10:05:00Z")},
	} {
		insertEntity(tb, db, et("Order"), r)
	}
	for _, r := range []row{
		{"OrderId": "o1", "LineNumber": int64(1), "ProductId": "p01", "Quantity": int64(1), "UnitPrice": dec("1299.99")},
		{"OrderId": "o1", "LineNumber": int64(2), "ProductId": "p07", "Quantity": int64(1), "UnitPrice": dec("19.99")},
		{"OrderId": "o2", "LineNumber": int64(1), "ProductId": "p08", "Quantity": int64(3), "UnitPrice": dec("5")},
		{"OrderId": "o3", "LineNumber": int64(1), "Quantity": int64(2), "UnitPrice": dec("10")},
		{"OrderId": "o4", "LineNumber": int64(1), "ProductId": "p02", "Quantity": int64(1), "UnitPrice": dec("499.5")},
	} {
		insertEntity(tb, db, et("OrderItem"), r)
	}
}

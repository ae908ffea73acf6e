package plan_test

import (
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
)

// testModel is a store-like model with every kind of property (all primitive kinds, enums, a flags enum, complex
// types nested two deep, collections of primitives, a computed property) and every kind of navigation (to-one by
// foreign key, to-many by back reference, many-to-many through a link table, contained, self-referencing, to a
// composite key).
func testModel() *edm.Model {
	productType := &edm.EnumType{Name: "ProductType",
		Members: []edm.EnumMember{{Name: "SimpleProduct", Value: 5}, {Name: "GroupedProduct", Value: 10}}}
	permissions := &edm.EnumType{Name: "Permissions", Flags: true, UnderlyingType: edm.KindByte,
		Members: []edm.EnumMember{{Name: "None", Value: 0}, {Name: "Read", Value: 1}, {Name: "Write", Value: 2}, {Name: "Delete", Value: 4}}}
	orderStatus := &edm.EnumType{Name: "OrderStatus", Members: []edm.EnumMember{
		{Name: "Pending", Value: 10}, {Name: "Processing", Value: 20}, {Name: "Complete", Value: 30}, {Name: "Cancelled", Value: 40}}}
	geo := &edm.ComplexType{Name: "GeoPoint", Properties: []*edm.Property{
		{Name: "Latitude", Type: edm.KindDouble},
		{Name: "Longitude", Type: edm.KindDouble},
	}}
	address := &edm.ComplexType{Name: "PostalAddress", Properties: []*edm.Property{
		{Name: "Street", Type: edm.KindString, Nullable: true},
		{Name: "City", Type: edm.KindString, Nullable: true},
		{Name: "ZipPostalCode", Type: edm.KindString, Nullable: true},
		{Name: "Location", Complex: geo, Nullable: true},
	}}
	dims := &edm.ComplexType{Name: "Dimensions", Properties: []*edm.Property{
		{Name: "Width", Type: edm.KindDecimal, Precision: 19, Scale: 4},
		{Name: "Height", Type: edm.KindDecimal, Precision: 19, Scale: 4},
	}}
	id := func() *edm.Property { return &edm.Property{Name: "Id", Type: edm.KindString, MaxLength: 24} }
	return &edm.Model{
		Namespace:    "Store",
		EnumTypes:    []*edm.EnumType{productType, permissions, orderStatus},
		ComplexTypes: []*edm.ComplexType{geo, address, dims},
		EntityTypes: []*edm.EntityType{
			{Name: "Category", Key: []string{"Id"},
				RecursiveHierarchies: []edm.RecursiveHierarchy{{Qualifier: "Tree", NodeProperty: "Id", ParentNavigation: "Parent"}},
				Properties: []*edm.Property{
					id(),
					{Name: "Name", Type: edm.KindString, Searchable: true},
					{Name: "ParentCategoryId", Type: edm.KindString, Nullable: true},
					{Name: "Published", Type: edm.KindBoolean},
					{Name: "DisplayOrder", Type: edm.KindInt32},
					{Name: "Flag", Type: edm.KindString, Nullable: true},
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Parent", Target: "Category", Nullable: true, Partner: "Children",
						Join: edm.Join{SourceColumns: []string{"parent_category_id"}}},
					{Name: "Children", Target: "Category", Collection: true, Partner: "Parent",
						Join: edm.Join{TargetColumns: []string{"parent_category_id"}}},
					{Name: "Products", Target: "Product", Collection: true, Partner: "Categories",
						Join: edm.Join{Through: &edm.LinkTable{Table: "product_category",
							SourceColumns: []string{"category_id"}, TargetColumns: []string{"product_id"}}}},
				}},
			{Name: "Manufacturer", Key: []string{"Id"},
				Properties: []*edm.Property{id(), {Name: "Name", Type: edm.KindString, Searchable: true}},
				Navigations: []*edm.NavigationProperty{
					{Name: "Products", Target: "Product", Collection: true, Partner: "Manufacturer",
						Join: edm.Join{TargetColumns: []string{"manufacturer_id"}}},
				}},
			{Name: "Product", Key: []string{"Id"},
				Properties: []*edm.Property{
					id(),
					{Name: "ProductType", Enum: productType},
					{Name: "Name", Type: edm.KindString, Searchable: true},
					{Name: "Sku", Type: edm.KindString, Nullable: true, Searchable: true},
					{Name: "ShortDescription", Type: edm.KindString, Nullable: true},
					{Name: "Price", Type: edm.KindDecimal, Precision: 19, Scale: 4, Default: decimal.Zero},
					{Name: "OldPrice", Type: edm.KindDecimal, Precision: 19, Scale: 4, Nullable: true},
					{Name: "Weight", Type: edm.KindDouble},
					{Name: "Rating", Type: edm.KindSingle, Nullable: true},
					{Name: "StockQuantity", Type: edm.KindInt32},
					{Name: "MinStockQuantity", Type: edm.KindInt32},
					{Name: "DisplayOrder", Type: edm.KindInt16},
					{Name: "Sold", Type: edm.KindInt64},
					{Name: "Priority", Type: edm.KindByte},
					{Name: "Delta", Type: edm.KindSByte},
					{Name: "Published", Type: edm.KindBoolean},
					{Name: "MarkAsNew", Type: edm.KindBoolean, Nullable: true},
					{Name: "AvailableStartDate", Type: edm.KindDate, Nullable: true},
					{Name: "AvailableFrom", Type: edm.KindDateTimeOffset, Nullable: true},
					{Name: "CreatedOnUtc", Type: edm.KindDateTimeOffset},
					{Name: "DeliveryTime", Type: edm.KindDuration},
					{Name: "OpensAt", Type: edm.KindTimeOfDay, Nullable: true},
					{Name: "ExternalGuid", Type: edm.KindGuid, Nullable: true},
					{Name: "Thumbnail", Type: edm.KindBinary, Nullable: true, Lazy: true},
					{Name: "Tags", Type: edm.KindString, Collection: true},
					{Name: "Sizes", Type: edm.KindInt32, Collection: true},
					{Name: "ManufacturerId", Type: edm.KindString, Nullable: true},
					{Name: "Dimensions", Complex: dims},
					{Name: "IsDiscounted", Type: edm.KindBoolean,
						SQL: "{{.}}.old_price IS NOT NULL AND {{.}}.old_price > {{.}}.price"},
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Manufacturer", Target: "Manufacturer", Nullable: true, Partner: "Products",
						Join: edm.Join{SourceColumns: []string{"manufacturer_id"}}},
					{Name: "Categories", Target: "Category", Collection: true, Partner: "Products",
						Join: edm.Join{Through: &edm.LinkTable{Table: "product_category",
							SourceColumns: []string{"product_id"}, TargetColumns: []string{"category_id"}}}},
					{Name: "TierPrices", Target: "TierPrice", Collection: true, ContainsTarget: true,
						Join: edm.Join{TargetColumns: []string{"product_id"}}},
				}},
			{Name: "TierPrice", Key: []string{"Id"},
				Properties: []*edm.Property{
					id(),
					{Name: "ProductId", Type: edm.KindString},
					{Name: "Quantity", Type: edm.KindInt32},
					{Name: "Price", Type: edm.KindDecimal, Precision: 19, Scale: 4},
					{Name: "StartsOn", Type: edm.KindDate, Nullable: true},
				}},
			{Name: "Customer", Key: []string{"Email"},
				Properties: []*edm.Property{
					id(),
					{Name: "Email", Type: edm.KindString},
					{Name: "FirstName", Type: edm.KindString, Nullable: true, Searchable: true},
					{Name: "LastName", Type: edm.KindString, Searchable: true},
					{Name: "CustomerGuid", Type: edm.KindGuid},
					{Name: "DateOfBirth", Type: edm.KindDate, Nullable: true},
					{Name: "PreferredDeliveryTime", Type: edm.KindTimeOfDay, Nullable: true},
					{Name: "Permissions", Enum: permissions},
					// The side table refers to the id column, not to the key (Email).
					{Name: "CustomerRoles", Type: edm.KindString, Collection: true,
						CollectionTable: &edm.CollectionTable{SourceColumns: []string{"id"}, OwnerColumns: []string{"customer_id"}}},
					{Name: "BillingAddress", Complex: address, Nullable: true},
					{Name: "Active", Type: edm.KindBoolean},
					{Name: "CreatedOnUtc", Type: edm.KindDateTimeOffset},
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Addresses", Target: "Address", Collection: true, ContainsTarget: true,
						Join: edm.Join{SourceColumns: []string{"id"}, TargetColumns: []string{"customer_id"}}},
					{Name: "Orders", Target: "Order", Collection: true, Partner: "Customer",
						Join: edm.Join{SourceColumns: []string{"id"}, TargetColumns: []string{"customer_id"}}},
				}},
			{Name: "Address", Key: []string{"Id"},
				Properties: []*edm.Property{
					id(),
					{Name: "CustomerId", Type: edm.KindString},
					{Name: "FirstName", Type: edm.KindString, Nullable: true},
					{Name: "City", Type: edm.KindString},
					{Name: "CountryId", Type: edm.KindString, Nullable: true},
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Country", Target: "Country", Nullable: true,
						Join: edm.Join{SourceColumns: []string{"country_id"}}},
				}},
			{Name: "Country", Key: []string{"Id"},
				Properties: []*edm.Property{
					{Name: "Id", Type: edm.KindString, MaxLength: 2},
					{Name: "Name", Type: edm.KindString},
				}},
			{Name: "Order", Key: []string{"Id"},
				Properties: []*edm.Property{
					id(),
					{Name: "OrderNumber", Type: edm.KindInt32},
					{Name: "CustomerId", Type: edm.KindString},
					{Name: "Status", Enum: orderStatus},
					{Name: "OrderTotal", Type: edm.KindDecimal, Precision: 19, Scale: 4},
					// Wider than a scaled 64-bit integer: exact decimal text on SQLite, NUMERIC(38,18) on PostgreSQL.
					{Name: "Tax", Type: edm.KindDecimal, Precision: 38, Scale: 18, Nullable: true},
					{Name: "ShippingAddress", Complex: address},
					{Name: "CreatedOnUtc", Type: edm.KindDateTimeOffset},
					{Name: "PaidOn", Type: edm.KindDateTimeOffset, Nullable: true},
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Customer", Target: "Customer", Partner: "Orders",
						Join: edm.Join{SourceColumns: []string{"customer_id"}, TargetColumns: []string{"id"}}},
					{Name: "Items", Target: "OrderItem", Collection: true, Partner: "Order",
						Join: edm.Join{TargetColumns: []string{"order_id"}}},
				}},
			{Name: "OrderItem", Key: []string{"OrderId", "LineNumber"},
				Properties: []*edm.Property{
					{Name: "OrderId", Type: edm.KindString},
					{Name: "LineNumber", Type: edm.KindInt16},
					{Name: "ProductId", Type: edm.KindString, Nullable: true},
					{Name: "Quantity", Type: edm.KindInt32},
					{Name: "UnitPrice", Type: edm.KindDecimal, Precision: 19, Scale: 4},
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Order", Target: "Order", Partner: "Items",
						Join: edm.Join{SourceColumns: []string{"order_id"}}},
					{Name: "Product", Target: "Product", Nullable: true,
						Join: edm.Join{SourceColumns: []string{"product_id"}}},
				}},
		},
		EntitySets: []*edm.EntitySet{
			{Name: "Category", Type: "Category"},
			{Name: "Manufacturer", Type: "Manufacturer"},
			{Name: "Product", Type: "Product"},
			{Name: "Customer", Type: "Customer"},
			{Name: "Country", Type: "Country"},
			{Name: "Order", Type: "Order"},
			{Name: "OrderItem", Type: "OrderItem"},
		},
		Singletons: []*edm.Singleton{{Name: "Flagship", Type: "Product"}},
	}
}

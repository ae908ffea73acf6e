package edm_test

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
)

// sampleModel declares a model that exercises every feature the CSDL writers emit: composite keys, a complex
// type, a flags enum, a collection of primitives, to-one, to-many, many-to-many and contained navigations,
// bound actions on entities and collections, overloads, a media entity, a singleton, unbound operations and
// the Authorizations annotation.
func sampleModel() *edm.Model {
	productType := &edm.EnumType{
		Name:        "ProductType",
		Description: "Whether a product stands alone or groups others.",
		Members:     []edm.EnumMember{{Name: "SimpleProduct", Value: 5}, {Name: "GroupedProduct", Value: 10}},
	}
	permissions := &edm.EnumType{
		Name:           "Permissions",
		Flags:          true,
		UnderlyingType: edm.KindByte,
		Members: []edm.EnumMember{
			{Name: "None", Value: 0}, {Name: "Read", Value: 1}, {Name: "Write", Value: 2}, {Name: "Delete", Value: 4},
		},
	}
	address := &edm.ComplexType{
		Name: "PostalAddress",
		Properties: []*edm.Property{
			{Name: "Street", Type: edm.KindString, Nullable: true, MaxLength: 200},
			{Name: "City", Type: edm.KindString, Nullable: true},
			{Name: "ZipPostalCode", Type: edm.KindString, Nullable: true, MaxLength: 20},
			{Name: "CountryId", Type: edm.KindString, Nullable: true, MaxLength: 2},
		},
	}
	id := func() *edm.Property {
		return &edm.Property{Name: "Id", Type: edm.KindString, MaxLength: 24, ReadOnly: true}
	}
	created := func() *edm.Property {
		return &edm.Property{Name: "CreatedOnUtc", Type: edm.KindDateTimeOffset, ReadOnly: true}
	}
	return &edm.Model{
		Namespace:   "Store",
		Description: "The store's catalog, customers and orders.",
		Authorizations: []edm.Authorization{{
			Name:        "Bearer",
			Description: "An access token from POST /api/token, sent as Authorization: Bearer <token>.",
			Scheme:      "bearer",
		}},
		EnumTypes:    []*edm.EnumType{productType, permissions},
		ComplexTypes: []*edm.ComplexType{address},
		EntityTypes: []*edm.EntityType{
			{
				Name:                 "Category",
				Key:                  []string{"Id"},
				Description:          "A node of the catalog tree.",
				RecursiveHierarchies: []edm.RecursiveHierarchy{{Qualifier: "Tree", ParentNavigation: "Parent"}},
				Properties: []*edm.Property{
					id(),
					{Name: "Name", Type: edm.KindString, MaxLength: 400, Required: true,
						RequiredMessage: "Category name is required", Searchable: true},
					{Name: "ParentCategoryId", Type: edm.KindString, Nullable: true, MaxLength: 24},
					{Name: "Published", Type: edm.KindBoolean, Default: true},
					{Name: "DisplayOrder", Type: edm.KindInt32, Default: 0},
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Parent", Target: "Category", Nullable: true, Partner: "Children",
						Join: edm.Join{SourceColumns: []string{"parent_category_id"}}},
					{Name: "Children", Target: "Category", Collection: true, Partner: "Parent",
						Join: edm.Join{TargetColumns: []string{"parent_category_id"}}},
					{Name: "Products", Target: "Product", Collection: true, Partner: "Categories",
						Join: edm.Join{Through: &edm.LinkTable{Table: "product_category",
							SourceColumns: []string{"category_id"}, TargetColumns: []string{"product_id"}}}},
				},
			},
			{
				Name: "Product",
				Key:  []string{"Id"},
				Properties: []*edm.Property{
					id(),
					{Name: "ProductType", Enum: productType, Default: "SimpleProduct"},
					{Name: "Name", Type: edm.KindString, MaxLength: 400, Required: true,
						RequiredMessage: "Product name is required", Searchable: true, Description: "The display name."},
					{Name: "Sku", Type: edm.KindString, Nullable: true, MaxLength: 400, Searchable: true},
					{Name: "Price", Type: edm.KindDecimal, Precision: 19, Scale: 4, Default: decimal.Zero},
					{Name: "Weight", Type: edm.KindDouble, Default: 0.5},
					{Name: "StockQuantity", Type: edm.KindInt32, Default: 0},
					{Name: "Published", Type: edm.KindBoolean, Default: true},
					{Name: "AvailableStartDate", Type: edm.KindDate, Nullable: true},
					{Name: "DeliveryTime", Type: edm.KindDuration, Default: 48 * time.Hour},
					{Name: "Tags", Type: edm.KindString, Collection: true, MaxLength: 50},
					created(),
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Categories", Target: "Category", Collection: true, Partner: "Products",
						Join: edm.Join{Through: &edm.LinkTable{Table: "product_category",
							SourceColumns: []string{"product_id"}, TargetColumns: []string{"category_id"}}}},
					{Name: "Pictures", Target: "Picture", Collection: true,
						Join: edm.Join{Through: &edm.LinkTable{Table: "product_picture",
							SourceColumns: []string{"product_id"}, TargetColumns: []string{"picture_id"}}}},
				},
			},
			{
				Name:                "Picture",
				Key:                 []string{"Id"},
				HasStream:           true,
				StreamProperty:      "PictureBinary",
				ContentTypeProperty: "MimeType",
				Properties: []*edm.Property{
					id(),
					{Name: "MimeType", Type: edm.KindString, MaxLength: 40, Required: true},
					{Name: "SeoFilename", Type: edm.KindString, Nullable: true, MaxLength: 300},
					{Name: "PictureBinary", Type: edm.KindBinary, Lazy: true, Required: true, MaxLength: 10 << 20},
					{Name: "Size", Type: edm.KindInt64, ReadOnly: true},
				},
			},
			{
				Name: "Customer",
				Key:  []string{"Email"},
				Properties: []*edm.Property{
					id(),
					{Name: "Email", Type: edm.KindString, MaxLength: 1000, Required: true, Immutable: true},
					{Name: "CustomerGuid", Type: edm.KindGuid, Default: "2F1E6C3B-0000-4000-8000-000000000001"},
					{Name: "DateOfBirth", Type: edm.KindDate, Nullable: true},
					{Name: "PreferredDeliveryTime", Type: edm.KindTimeOfDay, Nullable: true},
					{Name: "Permissions", Enum: permissions, Default: "Read,Write"},
					{Name: "CustomerRoles", Type: edm.KindString, Collection: true, MaxLength: 24},
					{Name: "BillingAddress", Complex: address, Nullable: true},
					{Name: "HasPassword", Type: edm.KindBoolean, SQL: "{{.}}.password_hash IS NOT NULL"},
					created(),
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Addresses", Target: "Address", Collection: true, ContainsTarget: true,
						Join: edm.Join{TargetColumns: []string{"customer_id"}}},
					{Name: "Orders", Target: "Order", Collection: true, Partner: "Customer",
						Join: edm.Join{SourceColumns: []string{"id"}, TargetColumns: []string{"customer_id"}}},
				},
			},
			{
				Name: "Address",
				Key:  []string{"Id"},
				Properties: []*edm.Property{
					id(),
					{Name: "FirstName", Type: edm.KindString, Nullable: true},
					{Name: "CountryId", Type: edm.KindString, Nullable: true, MaxLength: 2},
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Country", Target: "Country", Nullable: true,
						Join: edm.Join{SourceColumns: []string{"country_id"}}},
				},
			},
			{
				Name: "Country",
				Key:  []string{"Id"},
				Properties: []*edm.Property{
					{Name: "Id", Type: edm.KindString, MaxLength: 2, Immutable: true},
					{Name: "Name", Type: edm.KindString, MaxLength: 100},
				},
			},
			{
				Name: "Order",
				Key:  []string{"Id"},
				Properties: []*edm.Property{
					id(),
					{Name: "OrderNumber", Type: edm.KindInt32, ReadOnly: true},
					{Name: "CustomerId", Type: edm.KindString, MaxLength: 24},
					{Name: "OrderTotal", Type: edm.KindDecimal, Precision: 19, Scale: 4},
					{Name: "ShippingAddress", Complex: address},
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Customer", Target: "Customer", Partner: "Orders",
						Join: edm.Join{SourceColumns: []string{"customer_id"}, TargetColumns: []string{"id"}}},
					{Name: "Items", Target: "OrderItem", Collection: true, Partner: "Order",
						Join: edm.Join{TargetColumns: []string{"order_id"}}},
				},
			},
			{
				Name: "OrderItem",
				Key:  []string{"OrderId", "LineNumber"},
				Properties: []*edm.Property{
					{Name: "OrderId", Type: edm.KindString, MaxLength: 24, Immutable: true},
					{Name: "LineNumber", Type: edm.KindInt16, Immutable: true},
					{Name: "ProductId", Type: edm.KindString, MaxLength: 24},
					{Name: "Quantity", Type: edm.KindInt32, Default: 1},
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Order", Target: "Order", Partner: "Items",
						Join: edm.Join{SourceColumns: []string{"order_id"}}},
					{Name: "Product", Target: "Product", Nullable: true,
						Join: edm.Join{SourceColumns: []string{"product_id"}}},
				},
			},
			{
				Name: "StoreSettings",
				Key:  []string{"Id"},
				Properties: []*edm.Property{
					{Name: "Id", Type: edm.KindInt32},
					{Name: "StoreName", Type: edm.KindString},
					{Name: "OpensAt", Type: edm.KindTimeOfDay, Default: edm.NewTimeOfDay(8, 30, 0, 0)},
				},
			},
		},
		EntitySets: []*edm.EntitySet{
			{Name: "Category", Type: "Category"},
			{Name: "Product", Type: "Product", Description: "Products of the catalog."},
			{Name: "Picture", Type: "Picture"},
			{Name: "Customer", Type: "Customer"},
			{Name: "Country", Type: "Country"},
			{Name: "Order", Type: "Order"},
			{Name: "OrderItem", Type: "OrderItem"},
		},
		Singletons: []*edm.Singleton{{Name: "Settings", Type: "StoreSettings"}},
		// Annotations of every kind of value, on the schema, a type, a property, a set, the container and an action; one
		// from a vocabulary of the model's own.
		Vocabularies: []edm.Vocabulary{{Namespace: "Shop.Vocabulary.V1", URI: "https://shop.example.com/vocabulary.xml"}},
		Annotations: []edm.Annotations{
			{Target: "Store", Terms: []edm.Annotation{{Term: "Org.OData.Core.V1.SchemaVersion", Value: "2.1"}}},
			{Target: "Store.Product", Terms: []edm.Annotation{
				{Term: "Org.OData.Core.V1.AlternateKeys", Value: []any{edm.Record{Properties: []edm.PropertyValue{
					{Property: "Key", Value: []any{edm.Record{Properties: []edm.PropertyValue{
						{Property: "Name", Value: edm.PropertyPath("Sku")}, {Property: "Alias", Value: "Sku"}}}}}}}}},
				{Term: "Org.OData.Core.V1.Permissions", Value: edm.EnumValue("Org.OData.Core.V1.Permission/Read")},
				{Term: "Shop.Vocabulary.V1.Rank", Qualifier: "Web", Value: 3},
			}},
			{Target: "Store.Product/Price", Terms: []edm.Annotation{
				{Term: "Org.OData.Validation.V1.Minimum", Value: decimal.RequireFromString("0.01")},
				{Term: "Org.OData.Measures.V1.ISOCurrency", Value: edm.Path("CurrencyCode")},
				{Term: "Shop.Vocabulary.V1.Weight", Value: 0.5},
				{Term: "Shop.Vocabulary.V1.Note", Value: nil},
			}},
			{Target: "Store.Container/Product", Terms: []edm.Annotation{
				{Term: "Org.OData.Capabilities.V1.ExpandRestrictions", Value: &edm.Record{Type: "Org.OData.Capabilities.V1.ExpandRestrictionsType",
					Properties: []edm.PropertyValue{{Property: "NonExpandableProperties", Value: []any{edm.NavigationPropertyPath("Pictures")}}}}},
			}},
			{Target: "Store.Container", Terms: []edm.Annotation{{Term: "Org.OData.Capabilities.V1.BatchSupported", Value: false}}},
			{Target: "Store.SetPassword(Store.Customer)", Terms: []edm.Annotation{
				{Term: "Org.OData.Core.V1.Description", Qualifier: "Admin", Value: "Revokes every token of the customer."}}},
		},
		Actions: []*edm.Action{
			{Name: "SetPassword", Bound: true, BindingType: "Customer",
				Description: "Sets the customer's password and revokes their tokens.",
				Parameters:  []edm.Parameter{{Name: "password", Type: edm.KindString, Required: true}},
				ReturnType:  &edm.ReturnType{Type: edm.KindBoolean}},
			{Name: "UpdateStock", Bound: true, BindingType: "Product",
				Parameters: []edm.Parameter{
					{Name: "Stock", Type: edm.KindInt32, Required: true},
					{Name: "WarehouseId", Type: edm.KindString, Nullable: true},
				},
				ReturnType: &edm.ReturnType{Type: edm.KindBoolean}},
			{Name: "Archive", Bound: true, BindingType: "Product"},
			{Name: "Archive", Bound: true, BindingType: "Category"},
			{Name: "Archive", Bound: true, BindingType: "Product", BindingCollection: true,
				Parameters: []edm.Parameter{{Name: "Ids", Type: edm.KindString, Collection: true, Required: true}},
				ReturnType: &edm.ReturnType{Type: edm.KindInt32}},
			{Name: "AddAddress", Bound: true, BindingType: "Customer",
				Parameters: []edm.Parameter{{Name: "Address", Complex: address, Required: true}},
				ReturnType: &edm.ReturnType{Entity: "Address"}},
			{Name: "ResetCatalog",
				Parameters: []edm.Parameter{{Name: "Type", Enum: productType, Nullable: true}},
				ReturnType: &edm.ReturnType{Entity: "Product", Collection: true}},
		},
		Functions: []*edm.Function{
			{Name: "BestSellers", Bound: true, BindingType: "Product", BindingCollection: true, IsComposable: true,
				Parameters: []edm.Parameter{{Name: "Top", Type: edm.KindInt32, Required: true}},
				ReturnType: &edm.ReturnType{Entity: "Product", Collection: true}},
			{Name: "BestSellers", Bound: true, BindingType: "Category", BindingCollection: false, IsComposable: true,
				Parameters: []edm.Parameter{{Name: "Top", Type: edm.KindInt32, Required: true}},
				ReturnType: &edm.ReturnType{Entity: "Product", Collection: true}},
			{Name: "PriceOf", Parameters: []edm.Parameter{
				{Name: "ProductId", Type: edm.KindString, Required: true},
				{Name: "Quantity", Type: edm.KindInt32, Required: true},
			}, ReturnType: &edm.ReturnType{Type: edm.KindDecimal, Precision: 19, Scale: 4, Nullable: true}},
			{Name: "PriceOf", Parameters: []edm.Parameter{
				{Name: "ProductId", Type: edm.KindString, Required: true},
			}, ReturnType: &edm.ReturnType{Type: edm.KindDecimal, Precision: 19, Scale: 4, Nullable: true}},
		},
	}
}

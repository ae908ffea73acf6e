package main

import (
	"github.com/storekit/store/odata/edm"
)

// namespace is the schema namespace; the compliance suite reads it from $metadata.
const namespace = "ComplianceService"

// relationTable is the link table of the many-to-many navigation Product/RelatedProducts.
const relationTable = "product_relation"

// Status flags of a product (the flags enum ProductStatus).
const (
	statusInStock      int64 = 1
	statusOnSale       int64 = 2
	statusDiscontinued int64 = 4
	statusFeatured     int64 = 8
)

// model is the reference model of the compliance suite's CONTRACT.md, as far as the engine expresses it (see the
// package documentation for what is left out).
func model() *edm.Model {
	productStatus := &edm.EnumType{Name: "ProductStatus", Flags: true, Members: []edm.EnumMember{
		{Name: "None", Value: 0}, {Name: "InStock", Value: statusInStock}, {Name: "OnSale", Value: statusOnSale},
		{Name: "Discontinued", Value: statusDiscontinued}, {Name: "Featured", Value: statusFeatured}}}
	address := &edm.ComplexType{Name: "Address", Properties: []*edm.Property{
		optionalString("Street", 100),
		{Name: "City", Type: edm.KindString, MaxLength: 50, Nullable: true, Searchable: true},
		optionalString("State", 2),
		optionalString("PostalCode", 10),
		optionalString("Country", 50),
	}}
	dimensions := &edm.ComplexType{Name: "Dimensions", Properties: []*edm.Property{
		{Name: "Length", Type: edm.KindDouble},
		{Name: "Width", Type: edm.KindDouble},
		{Name: "Height", Type: edm.KindDouble},
		optionalString("Unit", 10),
	}}
	return &edm.Model{
		Namespace:    namespace,
		EnumTypes:    []*edm.EnumType{productStatus},
		ComplexTypes: []*edm.ComplexType{address, dimensions},
		// Types that others refer to come first: the tables are created in this order (see createSchema).
		EntityTypes: []*edm.EntityType{
			categoryType(),
			productType(productStatus, address, dimensions),
			specialProductType(),
			productDescriptionType(),
			mediaItemType(),
			{Name: "ReadOnlyItem", Key: []string{"ID"}, Properties: []*edm.Property{
				guidKey(), requiredString("Name", 100)}},
			{Name: "DecimalSample", Key: []string{"ID"}, Properties: []*edm.Property{
				guidKey(), requiredString("Name", 100),
				{Name: "Amount", Type: edm.KindDecimal, Precision: 38, Scale: 18}}},
			companyInfoType(),
			restrictedItemType(),
			hierarchyNodeType(),
		},
		EntitySets: []*edm.EntitySet{
			{Name: "Products", Type: "Product"},
			{Name: "Categories", Type: "Category"},
			{Name: "ProductDescriptions", Type: "ProductDescription"},
			{Name: "MediaItems", Type: "MediaItem"},
			{Name: "ReadOnlyItems", Type: "ReadOnlyItem"},
			{Name: "DecimalSamples", Type: "DecimalSample"},
			{Name: restrictedSet, Type: "RestrictedItem"},
			{Name: hierarchySet, Type: "HierarchyNode"},
		},
		Singletons: []*edm.Singleton{{Name: "Company", Type: "CompanyInfo"}},
		Actions:    actionDeclarations(),
		Functions:  functionDeclarations(),
	}
}

func productType(status *edm.EnumType, address, dimensions *edm.ComplexType) *edm.EntityType {
	return &edm.EntityType{
		Name: "Product",
		Key:  []string{"ID"},
		// The ETag is the Version alone, which every update increments (see productBeforeSave).
		ETag: []string{"Version"},
		Properties: []*edm.Property{
			// The contract's key is server-generated: read-only (Core.Computed), so a create ignores a key
			// the body sends and takes a new one from NewKey.
			{Name: "ID", Type: edm.KindGuid, ReadOnly: true},
			{Name: "Name", Type: edm.KindString, MaxLength: 100, Required: true, Searchable: true,
				Description: "Product display name"},
			{Name: "Description", Type: edm.KindString, MaxLength: 500, Nullable: true,
				Description: "Detailed product description"},
			{Name: "Price", Type: edm.KindDouble},
			{Name: "Rating", Type: edm.KindByte},
			{Name: "Temperature", Type: edm.KindSByte},
			{Name: "Quantity", Type: edm.KindInt16},
			{Name: "Weight", Type: edm.KindSingle},
			{Name: "Data", Type: edm.KindBinary, Nullable: true},
			{Name: "ReleaseDate", Type: edm.KindDate, Nullable: true},
			{Name: "OpenTime", Type: edm.KindTimeOfDay, Nullable: true},
			{Name: "ShippingTime", Type: edm.KindDuration, Nullable: true},
			{Name: "ProcessingTime", Type: edm.KindDuration, Nullable: true},
			{Name: "Offset", Type: edm.KindDuration, Nullable: true},
			{Name: "CategoryID", Type: edm.KindGuid, Nullable: true},
			{Name: "Status", Enum: status, Default: "None"},
			{Name: "Version", Type: edm.KindInt32, ReadOnly: true},
			{Name: "CreatedAt", Type: edm.KindDateTimeOffset, ReadOnly: true},
			{Name: "SerialNumber", Type: edm.KindString, MaxLength: 50, Nullable: true, Immutable: true,
				Description: "Unique serial number assigned at creation"},
			{Name: "ProductType", Type: edm.KindString, MaxLength: 50, Default: "Product",
				Description: "The name of the product's type: Product or SpecialProduct"},
			{Name: "ShippingAddress", Complex: address, Nullable: true},
			{Name: "Dimensions", Complex: dimensions, Nullable: true},
			{Name: "Photo", Type: edm.KindStream, Nullable: true},
			// Tags is a collection of strings (not in the contract): the suite's 4.2 reads one from a product.
			{Name: "Tags", Type: edm.KindString, MaxLength: 50, Collection: true,
				Description: "Free-form labels of the product, in order"},
		},
		Navigations: []*edm.NavigationProperty{
			{Name: "Category", Target: "Category", Nullable: true, Partner: "Products",
				Join: edm.Join{SourceColumns: []string{"category_id"}}},
			{Name: "Descriptions", Target: "ProductDescription", Collection: true, Partner: "Product",
				Join: edm.Join{TargetColumns: []string{"product_id"}}},
			{Name: "RelatedProducts", Target: "Product", Collection: true,
				Join: edm.Join{Through: &edm.LinkTable{Table: relationTable,
					SourceColumns: []string{"product_id"}, TargetColumns: []string{"related_product_id"}}}},
		},
	}
}

// specialProductType is the type derived from Product: its rows are in Product's table (odata_type holds
// "ComplianceService.SpecialProduct"), with its two properties as nullable columns there.
func specialProductType() *edm.EntityType {
	return &edm.EntityType{
		Name:     "SpecialProduct",
		BaseType: "Product",
		Properties: []*edm.Property{
			optionalString("SpecialProperty", 200),
			optionalString("SpecialFeature", 100),
		},
	}
}

func categoryType() *edm.EntityType {
	return &edm.EntityType{
		Name: "Category",
		Key:  []string{"ID"},
		Properties: []*edm.Property{
			guidKey(),
			requiredString("Name", 100),
			optionalString("Description", 500),
		},
		Navigations: []*edm.NavigationProperty{
			{Name: "Products", Target: "Product", Collection: true, Partner: "Category",
				Join: edm.Join{TargetColumns: []string{"category_id"}}},
		},
	}
}

func productDescriptionType() *edm.EntityType {
	return &edm.EntityType{
		Name: "ProductDescription",
		Key:  []string{"ProductID", "LanguageKey"},
		Properties: []*edm.Property{
			{Name: "ProductID", Type: edm.KindGuid},
			{Name: "LanguageKey", Type: edm.KindString, MaxLength: 2},
			{Name: "Description", Type: edm.KindString, MaxLength: 500, Required: true, Searchable: true},
			{Name: "LongText", Type: edm.KindString, MaxLength: 2000, Nullable: true, Searchable: true},
			{Name: "CustomName", Type: edm.KindString, Nullable: true},
		},
		Navigations: []*edm.NavigationProperty{
			{Name: "Product", Target: "Product", Partner: "Descriptions",
				Join: edm.Join{SourceColumns: []string{"product_id"}}},
		},
	}
}

// mediaItemType is a media entity: its bytes (Content, returned only when selected) are its $value, with the
// media type held by ContentType. CreatedAt and ModifiedAt are the reference server's; a save that leaves them
// out gets the current time (see mediaItemBeforeSave).
func mediaItemType() *edm.EntityType {
	return &edm.EntityType{
		Name:                "MediaItem",
		Key:                 []string{"ID"},
		HasStream:           true,
		StreamProperty:      "Content",
		ContentTypeProperty: "ContentType",
		Properties: []*edm.Property{
			guidKey(),
			// A POST of the media's bytes alone creates an item named Untitled.
			{Name: "Name", Type: edm.KindString, MaxLength: 100, Required: true, Default: "Untitled"},
			requiredString("ContentType", 100),
			{Name: "Size", Type: edm.KindInt64, Nullable: true},
			{Name: "Content", Type: edm.KindBinary, Nullable: true, Lazy: true},
			{Name: "CreatedAt", Type: edm.KindDateTimeOffset},
			{Name: "ModifiedAt", Type: edm.KindDateTimeOffset},
		},
	}
}

func companyInfoType() *edm.EntityType {
	return &edm.EntityType{
		Name: "CompanyInfo",
		Key:  []string{"ID"},
		ETag: []string{"Version"},
		Properties: []*edm.Property{
			guidKey(),
			requiredString("Name", 200),
			requiredString("CEO", 100),
			{Name: "Founded", Type: edm.KindInt32},
			{Name: "HeadQuarter", Type: edm.KindString, MaxLength: 200},
			{Name: "Website", Type: edm.KindString, MaxLength: 100},
			{Name: "Logo", Type: edm.KindBinary, Nullable: true},
			{Name: "Version", Type: edm.KindInt32, ReadOnly: true},
			{Name: "UpdatedAt", Type: edm.KindDateTimeOffset},
		},
	}
}

func guidKey() *edm.Property { return &edm.Property{Name: "ID", Type: edm.KindGuid} }

func requiredString(name string, maxLength int) *edm.Property {
	return &edm.Property{Name: name, Type: edm.KindString, MaxLength: maxLength, Required: true}
}

func optionalString(name string, maxLength int) *edm.Property {
	return &edm.Property{Name: name, Type: edm.KindString, MaxLength: maxLength, Nullable: true}
}

// actionDeclarations are the contract's actions. Process is one unbound action whose minPrice is optional: CSDL
// allows overloads of bound operations only, so its two parameter sets are one signature.
func actionDeclarations() []*edm.Action {
	product := func(name string, params []edm.Parameter, result *edm.ReturnType) *edm.Action {
		return &edm.Action{Name: name, Bound: true, BindingType: "Product", Parameters: params, ReturnType: result}
	}
	double := func(name string) edm.Parameter {
		return edm.Parameter{Name: name, Type: edm.KindDouble, Required: true}
	}
	return []*edm.Action{
		product("ApplyDiscount", []edm.Parameter{double("percentage")}, &edm.ReturnType{Entity: "Product"}),
		product("IncreasePrice", []edm.Parameter{double("amount")}, nil),
		product("Activate", nil, nil),
		product("CalculateDiscount", []edm.Parameter{double("percentage")}, &edm.ReturnType{Type: edm.KindDouble}),
		{Name: "MarkAllAsReviewed", Bound: true, BindingType: "Product", BindingCollection: true},
		{Name: "ResetAllPrices", ReturnType: &edm.ReturnType{Type: edm.KindInt32}},
		{Name: "ResetProducts"},
		{Name: "Process", Parameters: []edm.Parameter{double("percentage"),
			{Name: "minPrice", Type: edm.KindDouble, Nullable: true}}},
		{Name: "Reseed", ReturnType: &edm.ReturnType{Type: edm.KindString}},
	}
}

package entities

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
)

// namespace is the CSDL schema namespace of the store model.
const namespace = "Store"

// Maximum lengths of string and binary properties. The schema stores strings as TEXT without a limit; these are
// the limits the service accepts and advertises in $metadata.
const (
	maxID          = 24  // keys and references: 24 hex digits (odata.NewID)
	maxCountryID   = 2   // ISO 3166-1 alpha-2
	maxStateID     = 6   // ISO 3166-2: "US-NY", at most "XX-YYY"
	maxName        = 400 // names of catalog items, products, SKUs, meta texts
	maxShortName   = 255 // role names, person names, address lines, system names
	maxSeName      = 200 // URL slugs
	maxEmail       = 255 // RFC 5321 allows 254
	maxMimeType    = 40
	maxFileName    = 300
	maxShortText   = 50   // phone numbers, postal codes, VAT numbers, gender
	maxOptions     = 200  // PageSizeOptions
	maxQuantities  = 1000 // AllowedQuantities
	maxOrderCode   = 8
	maxCountryName = 100
	// maxPictureBytes is the largest picture the service stores (10 MiB decoded).
	maxPictureBytes = 10 << 20
)

// PictureBodyBytes is the largest request body of a write or action of the Picture set (SPEC parts 8 and 9): a
// picture is up to 10 MiB decoded, a little over 13 MiB in base64. Other sets take the engine's 1 MiB.
const PictureBodyBytes = 16 << 20

// Property builders. Strings are nullable unless required; booleans and numbers are NOT NULL with a default
// (false and 0 unless the service contract says otherwise), as in the migrations.

func idProp() *edm.Property {
	return &edm.Property{Name: "Id", Type: edm.KindString, MaxLength: maxID, ReadOnly: true}
}

func str(name string, maxLength int) *edm.Property {
	return &edm.Property{Name: name, Type: edm.KindString, Nullable: true, MaxLength: maxLength}
}

func text(name string) *edm.Property { return str(name, 0) }

// opaqueRef is a nullable string naming something the store does not hold (a template, a tax category): kept
// as sent, never checked.
func opaqueRef(name, description string) *edm.Property {
	p := str(name, maxShortName)
	p.Description = description
	return p
}

func ref(name string) *edm.Property { return str(name, maxID) }

// seNameProp is the URL slug of a product, category or manufacturer (see sename.go).
func seNameProp() *edm.Property {
	p := str("SeName", maxSeName)
	p.Description = "The URL slug: generated from Name when empty, else normalized to a-z, 0-9 and -; made unique " +
		"across products, categories and manufacturers by appending -2, -3, ..."
	return p
}

func searchable(p *edm.Property) *edm.Property {
	p.Searchable = true
	return p
}

// required makes a string property NOT NULL and required, with the message a failed check answers.
func required(p *edm.Property, message string) *edm.Property {
	p.Nullable, p.Required, p.RequiredMessage = false, true, message
	return p
}

// notNull makes a string property NOT NULL without requiring clients to send it (read-only sets, keys).
func notNull(p *edm.Property) *edm.Property {
	p.Nullable = false
	return p
}

func readOnly(p *edm.Property) *edm.Property {
	p.ReadOnly, p.Default = true, nil
	return p
}

func boolean(name string, def bool) *edm.Property {
	return &edm.Property{Name: name, Type: edm.KindBoolean, Default: def}
}

func int32Prop(name string, def int64) *edm.Property {
	return &edm.Property{Name: name, Type: edm.KindInt32, Default: def}
}

// decimalProp is an Edm.Decimal(19,4): money, and the product's weight and dimensions.
func decimalProp(name string) *edm.Property {
	return &edm.Property{Name: name, Type: edm.KindDecimal, Precision: 19, Scale: moneyScale, Default: decimal.Zero}
}

func timestamp(name string) *edm.Property {
	return &edm.Property{Name: name, Type: edm.KindDateTimeOffset, Nullable: true}
}

// computedTime is a NOT NULL timestamp the server sets (CreatedOnUtc, UpdatedOnUtc, ...).
func computedTime(name string) *edm.Property {
	return &edm.Property{Name: name, Type: edm.KindDateTimeOffset, ReadOnly: true}
}

func enumProp(name string, e *edm.EnumType, def string) *edm.Property {
	return &edm.Property{Name: name, Enum: e, Default: def}
}

// toOne is a navigation by foreign key fk (a column of the source) to the target's key.
func toOne(name, target, fk string, nullable bool) *edm.NavigationProperty {
	return &edm.NavigationProperty{Name: name, Target: target, Nullable: nullable,
		Join: edm.Join{SourceColumns: []string{fk}}}
}

// toCustomer is a navigation by foreign key fk to a customer, whose key is Email: the foreign key refers to the
// id column.
func toCustomer(name, fk string) *edm.NavigationProperty {
	return &edm.NavigationProperty{Name: name, Target: "Customer", Nullable: true,
		Join: edm.Join{SourceColumns: []string{fk}, TargetColumns: []string{"id"}}}
}

// contains is a containment navigation to the rows of the target's table whose column owner refers to the
// source's id column.
func contains(name, target, owner string) *edm.NavigationProperty {
	return &edm.NavigationProperty{Name: name, Target: target, Collection: true, ContainsTarget: true,
		Join: edm.Join{SourceColumns: []string{"id"}, TargetColumns: []string{owner}}}
}

// productsThrough is a many-to-many navigation to products through a product link table whose column from refers to
// the source.
func productsThrough(table, from string) *edm.NavigationProperty {
	return &edm.NavigationProperty{Name: "Products", Target: "Product", Collection: true,
		Join: edm.Join{Through: &edm.LinkTable{Table: table, SourceColumns: []string{from},
			TargetColumns: []string{"product_id"}}}}
}

// enumType declares an enum type with members in declaration order.
func enumType(name, description string, members ...edm.EnumMember) *edm.EnumType {
	return &edm.EnumType{Name: name, Description: description, Members: members}
}

// addressFields are the fields of an address (the Address entity type without Id and CreatedOnUtc, the
// OrderAddress complex type and the parameters of AddAddress and UpdateAddress), in order.
var addressFields = []struct {
	name      string
	maxLength int
}{
	{"FirstName", maxShortName}, {"LastName", maxShortName}, {"Email", maxEmail}, {"Company", maxShortName},
	{"CountryId", maxCountryID}, {"StateProvinceId", maxStateID}, {"City", maxShortName},
	{"Address1", maxShortName}, {"Address2", maxShortName}, {"ZipPostalCode", maxShortText},
	{"PhoneNumber", maxShortText}, {"FaxNumber", maxShortText},
}

func addressProperties() []*edm.Property {
	ps := make([]*edm.Property, len(addressFields))
	for i, f := range addressFields {
		ps[i] = str(f.name, f.maxLength)
	}
	return ps
}

func addressParameters() []edm.Parameter {
	ps := make([]edm.Parameter, len(addressFields))
	for i, f := range addressFields {
		ps[i] = edm.Parameter{Name: f.name, Type: edm.KindString, Nullable: true, MaxLength: f.maxLength}
	}
	return ps
}

func boolResult() *edm.ReturnType { return &edm.ReturnType{Type: edm.KindBoolean} }

// NewModel returns the store's OData model, built: namespace Store, the entity sets of the service contract with
// their entity, complex and enum types, navigations and bound actions, and the bearer authorization scheme. Each
// call returns a new model.
func NewModel() (*edm.Model, error) {
	m := storeModel()
	if err := m.Build(); err != nil {
		return nil, fmt.Errorf("entities: store model: %w", err)
	}
	return m, nil
}

func storeModel() *edm.Model {
	productType := enumType("ProductType", "Whether a product is sold on its own or groups other products.",
		edm.EnumMember{Name: "SimpleProduct", Value: ProductTypeSimpleProduct},
		edm.EnumMember{Name: "GroupedProduct", Value: ProductTypeGroupedProduct})
	manageInventory := enumType("ManageInventoryMethod", "Whether orders take the product's stock.",
		edm.EnumMember{Name: "DontManageStock", Value: ManageInventoryMethodDontManageStock},
		edm.EnumMember{Name: "ManageStock", Value: ManageInventoryMethodManageStock})
	lowStock := enumType("LowStockActivity", "What happens when the stock falls to or below MinStockQuantity.",
		edm.EnumMember{Name: "Nothing", Value: LowStockActivityNothing},
		edm.EnumMember{Name: "DisableBuyButton", Value: LowStockActivityDisableBuyButton},
		edm.EnumMember{Name: "Unpublish", Value: LowStockActivityUnpublish})
	backorder := enumType("BackorderMode", "Whether orders may take the stock below zero.",
		edm.EnumMember{Name: "NoBackorders", Value: BackorderModeNoBackorders},
		edm.EnumMember{Name: "AllowQtyBelow0", Value: BackorderModeAllowQtyBelow0})
	orderStatus := enumType("OrderStatus", "",
		edm.EnumMember{Name: "Pending", Value: OrderStatusPending},
		edm.EnumMember{Name: "Processing", Value: OrderStatusProcessing},
		edm.EnumMember{Name: "Complete", Value: OrderStatusComplete},
		edm.EnumMember{Name: "Cancelled", Value: OrderStatusCancelled})
	paymentStatus := enumType("PaymentStatus", "",
		edm.EnumMember{Name: "Pending", Value: PaymentStatusPending},
		edm.EnumMember{Name: "Paid", Value: PaymentStatusPaid},
		edm.EnumMember{Name: "Refunded", Value: PaymentStatusRefunded},
		edm.EnumMember{Name: "Voided", Value: PaymentStatusVoided})
	shippingStatus := enumType("ShippingStatus", "",
		edm.EnumMember{Name: "ShippingNotRequired", Value: ShippingStatusShippingNotRequired},
		edm.EnumMember{Name: "NotYetShipped", Value: ShippingStatusNotYetShipped},
		edm.EnumMember{Name: "Shipped", Value: ShippingStatusShipped},
		edm.EnumMember{Name: "Delivered", Value: ShippingStatusDelivered})
	orderAddress := &edm.ComplexType{Name: "OrderAddress",
		Description: "A copy of an address as it was when the order was placed.",
		Properties:  addressProperties()}

	return &edm.Model{
		Namespace:   namespace,
		Description: "The store's catalog, customers and orders.",
		Authorizations: []edm.Authorization{{
			Name:        "Bearer",
			Description: "An access token from POST /api/token, sent as Authorization: Bearer <token>. Only administrators may use this service.",
			Scheme:      "bearer",
		}},
		EnumTypes: []*edm.EnumType{productType, manageInventory, lowStock, backorder, orderStatus, paymentStatus,
			shippingStatus},
		ComplexTypes: []*edm.ComplexType{orderAddress},
		EntityTypes: []*edm.EntityType{
			manufacturerType(), categoryType(), customerRoleType(),
			productEntity(productType, manageInventory, lowStock, backorder),
			productCategoryType(), productCollectionType(), productPictureType(), productTierPriceType(),
			customerType(), addressType(), pictureType(), countryType(), stateProvinceType(),
			orderType(orderStatus, paymentStatus, shippingStatus, orderAddress), orderItemType(),
			newsletterSubscriptionType(),
		},
		EntitySets: []*edm.EntitySet{
			{Name: "Manufacturer", Type: "Manufacturer", Description: "Manufacturers, which are also the catalog's product collections."},
			{Name: "Category", Type: "Category"},
			{Name: "CustomerRole", Type: "CustomerRole"},
			{Name: "Product", Type: "Product"},
			{Name: "Customer", Type: "Customer", Description: "Customers, addressed by e-mail (case-insensitively)."},
			{Name: "Picture", Type: "Picture"},
			{Name: "Country", Type: "Country", Description: "ISO 3166-1 countries (read-only)."},
			{Name: "StateProvince", Type: "StateProvince", Description: "ISO 3166-2 subdivisions (read-only)."},
			{Name: "Order", Type: "Order", Description: "Orders, created by checkout (read-only but for the bound actions)."},
			{Name: "NewsletterSubscription", Type: "NewsletterSubscription", Description: "Newsletter subscriptions (read-only)."},
		},
		Actions: append(append(customerActions(), productActions()...), orderActions()...),
	}
}

// catalogETag is the ETag of manufacturers, categories and products: their update stamp, which every write of
// them sets (the hooks on create and update, and the store's own statements: stock, sales, low-stock
// actions), so a read with $select reads only the columns it answers and that stamp, not every column to
// hash. Two writes of one row within the same microsecond would share an ETag.
var catalogETag = []string{"UpdatedOnUtc"}

func manufacturerType() *edm.EntityType {
	return &edm.EntityType{
		Name:        "Manufacturer",
		Key:         []string{"Id"},
		ETag:        catalogETag,
		Description: "A manufacturer; the storefront calls it a collection.",
		Properties: []*edm.Property{
			idProp(),
			searchable(required(str("Name", maxName), "Manufacturer name is required")),
			seNameProp(),
			text("Description"),
			opaqueRef("ManufacturerTemplateId", "The manufacturer's display template: an opaque reference, "+
				"not checked, null when none."),
			str("MetaKeywords", maxName),
			text("MetaDescription"),
			str("MetaTitle", maxName),
			ref("PictureId"),
			int32Prop("PageSize", 0),
			boolean("AllowCustomersToSelectPageSize", false),
			str("PageSizeOptions", maxOptions),
			str("PriceRanges", maxName),
			boolean("ShowOnHomePage", false),
			boolean("FeaturedProductsOnHomaPage", false),
			boolean("IncludeInTopMenu", false),
			str("Icon", maxName),
			boolean("Published", true),
			int32Prop("DisplayOrder", 0),
			computedTime("CreatedOnUtc"),
			computedTime("UpdatedOnUtc"),
		},
		Navigations: []*edm.NavigationProperty{
			productsThrough("product_collection", "collection_id"),
			toOne("Picture", "Picture", "picture_id", true),
		},
	}
}

func categoryType() *edm.EntityType {
	return &edm.EntityType{
		Name:        "Category",
		Key:         []string{"Id"},
		ETag:        catalogETag,
		Description: "A node of the catalog tree.",
		// The tree is the recursive hierarchy Tree: $apply=descendants($root/Category,Tree,Id,filter(...)).
		RecursiveHierarchies: []edm.RecursiveHierarchy{{Qualifier: "Tree", NodeProperty: "Id", ParentNavigation: "Parent"}},
		Properties: []*edm.Property{
			idProp(),
			searchable(required(str("Name", maxName), "Category name is required")),
			seNameProp(),
			text("Description"),
			ref("ParentCategoryId"),
			ref("PictureId"),
			str("MetaKeywords", maxName),
			text("MetaDescription"),
			str("MetaTitle", maxName),
			int32Prop("PageSize", 0),
			boolean("AllowCustomersToSelectPageSize", false),
			str("PageSizeOptions", maxOptions),
			str("PriceRanges", maxName),
			boolean("ShowOnHomePage", false),
			boolean("FeaturedProductsOnHomaPage", false),
			boolean("IncludeInTopMenu", false),
			boolean("Published", true),
			int32Prop("DisplayOrder", 0),
			str("Flag", maxName),
			str("FlagStyle", maxName),
			str("Icon", maxName),
			boolean("HideOnCatalog", false),
			boolean("ShowOnSearchBox", false),
			int32Prop("SearchBoxDisplayOrder", 0),
			computedTime("CreatedOnUtc"),
			computedTime("UpdatedOnUtc"),
		},
		Navigations: []*edm.NavigationProperty{
			{Name: "Parent", Target: "Category", Nullable: true, Partner: "Children",
				Join: edm.Join{SourceColumns: []string{"parent_category_id"}}},
			{Name: "Children", Target: "Category", Collection: true, Partner: "Parent",
				Join: edm.Join{TargetColumns: []string{"parent_category_id"}}},
			productsThrough("product_category", "category_id"),
			toOne("Picture", "Picture", "picture_id", true),
		},
	}
}

func customerRoleType() *edm.EntityType {
	return &edm.EntityType{
		Name:        "CustomerRole",
		Key:         []string{"Id"},
		Description: "A customer role. The system roles Administrators, Registered and Guests cannot be renamed or deleted.",
		Properties: []*edm.Property{
			idProp(),
			searchable(required(str("Name", maxShortName), "Customer role name is required")),
			boolean("FreeShipping", false),
			boolean("TaxExempt", false),
			boolean("Active", true),
			readOnly(boolean("IsSystemRole", false)),
			str("SystemName", maxShortName),
			boolean("EnablePasswordLifetime", false),
			ref("PurchasedWithProductId"),
		},
		Navigations: []*edm.NavigationProperty{
			toOne("PurchasedWithProduct", "Product", "purchased_with_product_id", true),
		},
	}
}

// productEntity is the Product entity type.
func productEntity(productType, manageInventory, lowStock, backorder *edm.EnumType) *edm.EntityType {
	return &edm.EntityType{
		Name: "Product",
		ETag: catalogETag,
		Key:  []string{"Id"},
		Properties: []*edm.Property{
			idProp(),
			enumProp("ProductType", productType, "SimpleProduct"),
			ref("ParentGroupedProductId"),
			boolean("VisibleIndividually", true),
			searchable(required(str("Name", maxName), "Product name is required")),
			seNameProp(),
			searchable(text("ShortDescription")),
			text("FullDescription"),
			text("AdminComment"),
			str("Flag", maxName),
			searchable(str("Sku", maxName)),
			str("ManufacturerPartNumber", maxName),
			str("Gtin", maxName),
			str("ExternalId", maxName),
			str("MetaKeywords", maxName),
			text("MetaDescription"),
			str("MetaTitle", maxName),
			boolean("Published", true),
			boolean("ShowOnHomePage", false),
			boolean("MarkAsNew", false),
			int32Prop("DisplayOrder", 0),
			boolean("AllowCustomerReviews", false),
			decimalProp("Price"),
			decimalProp("OldPrice"),
			decimalProp("ProductCost"),
			boolean("CallForPrice", false),
			boolean("DisableBuyButton", false),
			boolean("DisableWishlistButton", false),
			boolean("NotReturnable", false),
			timestamp("AvailableStartDateTimeUtc"),
			timestamp("AvailableEndDateTimeUtc"),
			int32Prop("OrderMinimumQuantity", 1),
			int32Prop("OrderMaximumQuantity", 10000),
			str("AllowedQuantities", maxQuantities),
			enumProp("ManageInventoryMethod", manageInventory, "DontManageStock"),
			int32Prop("StockQuantity", 0),
			boolean("DisplayStockAvailability", false),
			boolean("DisplayStockQuantity", false),
			int32Prop("MinStockQuantity", 0),
			enumProp("LowStockActivity", lowStock, "Nothing"),
			enumProp("BackorderMode", backorder, "NoBackorders"),
			boolean("IsShipEnabled", true),
			boolean("IsFreeShipping", false),
			decimalProp("AdditionalShippingCharge"),
			decimalProp("Weight"),
			decimalProp("Length"),
			decimalProp("Width"),
			decimalProp("Height"),
			boolean("IsTaxExempt", false),
			opaqueRef("TaxCategoryId", "The product's tax category: an opaque reference, not checked, null when none "+
				"(the store computes no tax)."),
			readOnly(int32Prop("Sold", 0)),
			computedTime("CreatedOnUtc"),
			computedTime("UpdatedOnUtc"),
		},
		Navigations: []*edm.NavigationProperty{
			contains("Categories", "ProductCategory", "product_id"),
			contains("Collections", "ProductCollection", "product_id"),
			contains("Pictures", "ProductPicture", "product_id"),
			contains("TierPrices", "ProductTierPrice", "product_id"),
			toOne("ParentGroupedProduct", "Product", "parent_grouped_product_id", true),
		},
	}
}

func productCategoryType() *edm.EntityType {
	return &edm.EntityType{
		Name:        "ProductCategory",
		Key:         []string{"CategoryId"},
		Description: "A product's place in a category; changed through the product's actions.",
		Properties: []*edm.Property{
			notNull(ref("CategoryId")),
			boolean("IsFeaturedProduct", false),
			int32Prop("DisplayOrder", 0),
		},
		Navigations: []*edm.NavigationProperty{toOne("Category", "Category", "category_id", false)},
	}
}

func productCollectionType() *edm.EntityType {
	return &edm.EntityType{
		Name:        "ProductCollection",
		Key:         []string{"CollectionId"},
		Description: "A product's place in a collection (a manufacturer); changed through the product's actions.",
		Properties: []*edm.Property{
			notNull(ref("CollectionId")),
			boolean("IsFeaturedProduct", false),
			int32Prop("DisplayOrder", 0),
		},
		Navigations: []*edm.NavigationProperty{toOne("Collection", "Manufacturer", "collection_id", false)},
	}
}

func productPictureType() *edm.EntityType {
	return &edm.EntityType{
		Name:        "ProductPicture",
		Key:         []string{"PictureId"},
		Description: "A picture of a product; changed through the product's actions.",
		Properties: []*edm.Property{
			notNull(ref("PictureId")),
			int32Prop("DisplayOrder", 0),
			readOnly(str("MimeType", maxMimeType)),
			str("SeoFilename", maxFileName),
			text("AltAttribute"),
			text("TitleAttribute"),
		},
		Navigations: []*edm.NavigationProperty{toOne("Picture", "Picture", "picture_id", false)},
	}
}

func productTierPriceType() *edm.EntityType {
	quantity := int32Prop("Quantity", 0)
	quantity.Default, quantity.Required = nil, true
	return &edm.EntityType{
		Name:        "ProductTierPrice",
		Key:         []string{"Id"},
		Description: "A price that applies from a quantity on, optionally for one role and a period.",
		Properties: []*edm.Property{
			idProp(),
			quantity,
			decimalProp("Price"),
			ref("CustomerRoleId"),
			timestamp("StartDateTimeUtc"),
			timestamp("EndDateTimeUtc"),
		},
		Navigations: []*edm.NavigationProperty{toOne("CustomerRole", "CustomerRole", "customer_role_id", true)},
	}
}

func customerType() *edm.EntityType {
	email := searchable(required(str("Email", maxEmail), "Email is required"))
	email.Immutable = true
	return &edm.EntityType{
		Name:        "Customer",
		Key:         []string{"Email"},
		Description: "A customer, keyed by e-mail. Passwords are set with SetPassword and never returned.",
		Properties: []*edm.Property{
			idProp(),
			email,
			searchable(str("Username", maxEmail)),
			{Name: "CustomerGuid", Type: edm.KindGuid, ReadOnly: true},
			searchable(str("FirstName", maxShortName)),
			searchable(str("LastName", maxShortName)),
			str("Gender", maxShortText),
			{Name: "DateOfBirth", Type: edm.KindDate, Nullable: true},
			str("Company", maxShortName),
			str("StreetAddress", maxShortName),
			str("StreetAddress2", maxShortName),
			str("ZipPostalCode", maxShortText),
			str("City", maxShortName),
			str("CountryId", maxCountryID),
			str("StateProvinceId", maxStateID),
			str("Phone", maxShortText),
			str("VatNumber", maxShortText),
			text("AdminComment"),
			boolean("IsTaxExempt", false),
			boolean("FreeShipping", false),
			boolean("Active", true),
			{Name: "CustomerRoles", Type: edm.KindString, Collection: true, MaxLength: maxID,
				Description: "The ids of the customer's roles; the Registered role when not given.",
				CollectionTable: &edm.CollectionTable{Table: "customer_role_mapping",
					OwnerColumns: []string{"customer_id"}, SourceColumns: []string{"id"},
					ValueColumn: "customer_role_id", OrdinalColumn: "ordinal"}},
			readOnly(boolean("HasPassword", false)),
			computedTime("CreatedOnUtc"),
			computedTime("LastActivityDateUtc"),
		},
		Navigations: []*edm.NavigationProperty{
			contains("Addresses", "Address", "customer_id"),
			{Name: "Orders", Target: "Order", Collection: true,
				Join: edm.Join{SourceColumns: []string{"id"}, TargetColumns: []string{"customer_id"}}},
			toOne("Country", "Country", "country_id", true),
			toOne("StateProvince", "StateProvince", "state_province_id", true),
		},
	}
}

func addressType() *edm.EntityType {
	props := append([]*edm.Property{idProp()}, addressProperties()...)
	return &edm.EntityType{
		Name:        "Address",
		Key:         []string{"Id"},
		Description: "An address of a customer; changed through the customer's actions.",
		Properties:  append(props, computedTime("CreatedOnUtc")),
		Navigations: []*edm.NavigationProperty{
			toOne("Country", "Country", "country_id", true),
			toOne("StateProvince", "StateProvince", "state_province_id", true),
		},
	}
}

func pictureType() *edm.EntityType {
	return &edm.EntityType{
		Name:                "Picture",
		Key:                 []string{"Id"},
		Description:         "An image; its bytes are served as the entity's media resource ($value).",
		HasStream:           true,
		StreamProperty:      "PictureBinary",
		ContentTypeProperty: "MimeType",
		Properties: []*edm.Property{
			idProp(),
			required(str("MimeType", maxMimeType), "MimeType is required"),
			str("SeoFilename", maxFileName),
			text("AltAttribute"),
			text("TitleAttribute"),
			{Name: "PictureBinary", Type: edm.KindBinary, MaxLength: maxPictureBytes, Lazy: true,
				StandardBase64: true, // SPEC 4.7: "base64 in JSON"
				Description:    "The image bytes (base64 in JSON), returned only when selected; required on create."},
			readOnly(int32Prop("Size", 0)),
		},
	}
}

func countryType() *edm.EntityType {
	return &edm.EntityType{
		Name: "Country",
		Key:  []string{"Id"},
		Properties: []*edm.Property{
			notNull(str("Id", maxCountryID)),
			searchable(notNull(str("Name", maxCountryName))),
			str("TwoLetterIsoCode", 2),
			str("ThreeLetterIsoCode", 3),
			int32Prop("NumericIsoCode", 0),
			boolean("AllowsBilling", false),
			boolean("AllowsShipping", false),
			boolean("Published", true),
			int32Prop("DisplayOrder", 0),
		},
		Navigations: []*edm.NavigationProperty{
			{Name: "StateProvinces", Target: "StateProvince", Collection: true, Partner: "Country",
				Join: edm.Join{TargetColumns: []string{"country_id"}}},
		},
	}
}

func stateProvinceType() *edm.EntityType {
	return &edm.EntityType{
		Name: "StateProvince",
		Key:  []string{"Id"},
		Properties: []*edm.Property{
			notNull(str("Id", maxStateID)),
			notNull(str("CountryId", maxCountryID)),
			searchable(notNull(str("Name", maxCountryName))),
			str("Abbreviation", maxCountryName),
			boolean("Published", true),
		},
		Navigations: []*edm.NavigationProperty{
			{Name: "Country", Target: "Country", Partner: "StateProvinces",
				Join: edm.Join{SourceColumns: []string{"country_id"}}},
		},
	}
}

func orderType(orderStatus, paymentStatus, shippingStatus *edm.EnumType, address *edm.ComplexType) *edm.EntityType {
	return &edm.EntityType{
		Name:        "Order",
		Key:         []string{"Id"},
		Description: "An order; it keeps copies of the customer's e-mail, the addresses and the products.",
		Properties: []*edm.Property{
			idProp(),
			{Name: "OrderNumber", Type: edm.KindInt64, ReadOnly: true},
			searchable(readOnly(notNull(str("Code", maxOrderCode)))),
			notNull(ref("CustomerId")),
			searchable(notNull(str("CustomerEmail", maxEmail))),
			enumProp("OrderStatus", orderStatus, "Pending"),
			enumProp("PaymentStatus", paymentStatus, "Pending"),
			enumProp("ShippingStatus", shippingStatus, "NotYetShipped"),
			str("PaymentMethodSystemName", maxShortName),
			str("ShippingMethod", maxShortName),
			str("ShippingRateProviderSystemName", maxShortName),
			boolean("PickUpInStore", false),
			decimalProp("OrderSubtotal"),
			decimalProp("OrderShipping"),
			decimalProp("PaymentMethodAdditionalFee"),
			decimalProp("OrderTax"),
			decimalProp("OrderTotal"),
			{Name: "BillingAddress", Complex: address, Nullable: true},
			{Name: "ShippingAddress", Complex: address, Nullable: true},
			computedTime("CreatedOnUtc"),
			readOnly(timestamp("PaidDateUtc")),
		},
		Navigations: []*edm.NavigationProperty{
			contains("Items", "OrderItem", "order_id"),
		},
	}
}

func orderItemType() *edm.EntityType {
	return &edm.EntityType{
		Name:        "OrderItem",
		Key:         []string{"Id"},
		Description: "A line of an order, with the product's name and price at the time of the order.",
		Properties: []*edm.Property{
			idProp(),
			notNull(ref("ProductId")),
			notNull(str("ProductName", maxName)),
			str("Sku", maxName),
			{Name: "Quantity", Type: edm.KindInt32},
			decimalProp("UnitPrice"),
			{Name: "Price", Type: edm.KindDecimal, Precision: 19, Scale: moneyScale, Default: decimal.Zero,
				Description: "The line total: UnitPrice times Quantity."},
		},
	}
}

func newsletterSubscriptionType() *edm.EntityType {
	return &edm.EntityType{
		Name: "NewsletterSubscription",
		Key:  []string{"Id"},
		Properties: []*edm.Property{
			idProp(),
			searchable(notNull(str("Email", maxEmail))),
			ref("CustomerId"),
			boolean("Active", false),
			computedTime("CreatedOnUtc"),
		},
		Navigations: []*edm.NavigationProperty{toCustomer("Customer", "customer_id")},
	}
}

func customerActions() []*edm.Action {
	bound := func(name, description string, params []edm.Parameter, ret *edm.ReturnType) *edm.Action {
		return &edm.Action{Name: name, Bound: true, BindingType: "Customer", Description: description,
			Parameters: params, ReturnType: ret}
	}
	id := edm.Parameter{Name: "Id", Type: edm.KindString, Required: true, MaxLength: maxID,
		Description: "The address id."}
	deleteID := id
	deleteID.Aliases = []string{"addressId"}
	return []*edm.Action{
		bound("SetPassword", "Sets the customer's password (at least 8 characters) and revokes the customer's tokens.",
			[]edm.Parameter{{Name: "password", Type: edm.KindString, Required: true}}, boolResult()),
		bound("AddAddress", "Adds an address to the customer and returns it with its new Id.",
			addressParameters(), &edm.ReturnType{Entity: "Address"}),
		bound("UpdateAddress", "Replaces one of the customer's addresses and returns it.",
			append([]edm.Parameter{id}, addressParameters()...), &edm.ReturnType{Entity: "Address"}),
		bound("DeleteAddress", "Deletes one of the customer's addresses.", []edm.Parameter{deleteID}, boolResult()),
	}
}

func productActions() []*edm.Action {
	bound := func(name, description string, params ...edm.Parameter) *edm.Action {
		return &edm.Action{Name: name, Bound: true, BindingType: "Product", Description: description,
			Parameters: params, ReturnType: boolResult()}
	}
	requiredRef := func(name, description string) edm.Parameter {
		return edm.Parameter{Name: name, Type: edm.KindString, Required: true, MaxLength: maxID, Description: description}
	}
	featured := edm.Parameter{Name: "IsFeaturedProduct", Type: edm.KindBoolean}
	displayOrder := edm.Parameter{Name: "DisplayOrder", Type: edm.KindInt32}
	optionalText := func(name string, maxLength int) edm.Parameter {
		return edm.Parameter{Name: name, Type: edm.KindString, Nullable: true, MaxLength: maxLength}
	}
	categoryID := requiredRef("CategoryId", "The category id.")
	collectionID := requiredRef("CollectionId", "The collection (manufacturer) id.")
	pictureID := requiredRef("PictureId", "The picture id.")
	pictureParams := []edm.Parameter{pictureID, displayOrder, optionalText("SeoFilename", maxFileName),
		optionalText("AltAttribute", 0), optionalText("TitleAttribute", 0)}
	tierID := requiredRef("Id", "The tier price id.")
	tierParams := []edm.Parameter{
		{Name: "Quantity", Type: edm.KindInt32, Required: true, Description: "The smallest quantity the price applies to (at least 1)."},
		{Name: "Price", Type: edm.KindDecimal, Precision: 19, Scale: moneyScale},
		{Name: "CustomerRoleId", Type: edm.KindString, Nullable: true, MaxLength: maxID,
			Description: "The role the price is for; everyone when null."},
		{Name: "StartDateTimeUtc", Type: edm.KindDateTimeOffset, Nullable: true},
		{Name: "EndDateTimeUtc", Type: edm.KindDateTimeOffset, Nullable: true},
	}
	tierPrice := func(name, description string, params []edm.Parameter) *edm.Action {
		return &edm.Action{Name: name, Bound: true, BindingType: "Product", Description: description,
			Parameters: params, ReturnType: &edm.ReturnType{Entity: "ProductTierPrice"}}
	}
	return []*edm.Action{
		bound("UpdateStock", "Sets StockQuantity and applies LowStockActivity.",
			edm.Parameter{Name: "Stock", Type: edm.KindInt32, Required: true},
			edm.Parameter{Name: "WarehouseId", Type: edm.KindString, Nullable: true,
				Description: "Must be null: the store has one warehouse."}),
		bound("CreateProductCategory", "Puts the product in a category (409 when it is already there).",
			categoryID, featured, displayOrder),
		bound("UpdateProductCategory", "Changes the product's place in a category (404 when it is not there).",
			categoryID, featured, displayOrder),
		bound("DeleteProductCategory", "Takes the product out of a category (404 when it is not there).", categoryID),
		bound("CreateProductCollection", "Puts the product in a collection (409 when it is already there).",
			collectionID, featured, displayOrder),
		bound("UpdateProductCollection", "Changes the product's place in a collection (404 when it is not there).",
			collectionID, featured, displayOrder),
		bound("DeleteProductCollection", "Takes the product out of a collection (404 when it is not there).",
			collectionID),
		bound("CreateProductPicture", "Adds a picture to the product (409 when it is already there); MimeType comes from the picture.",
			pictureParams...),
		bound("UpdateProductPicture", "Changes a picture of the product (404 when it is not there).", pictureParams...),
		bound("DeleteProductPicture", "Removes a picture from the product (404 when it is not there).", pictureID),
		tierPrice("CreateProductTierPrice", "Adds a tier price and returns it with its new Id.", tierParams),
		tierPrice("UpdateProductTierPrice", "Replaces a tier price and returns it (404 when unknown).",
			append([]edm.Parameter{tierID}, tierParams...)),
		bound("DeleteProductTierPrice", "Deletes a tier price (404 when unknown).", tierID),
	}
}

func orderActions() []*edm.Action {
	bound := func(name, description string) *edm.Action {
		return &edm.Action{Name: name, Bound: true, BindingType: "Order", Description: description,
			ReturnType: boolResult()}
	}
	return []*edm.Action{
		bound("MarkAsPaid", "Moves a Pending payment to Paid and a Pending order to Processing; an illegal move is 409."),
		bound("Ship", "Marks the order shipped; an illegal move is 409."),
		bound("Deliver", "Marks the order delivered; an order that is paid and delivered becomes Complete. An illegal move is 409."),
		bound("Cancel", "Cancels the order and returns managed stock; an illegal move is 409."),
	}
}

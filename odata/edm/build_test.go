package edm_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
)

// baseModel returns a small valid model; validation tests break one declaration each.
func baseModel() *edm.Model {
	genre := &edm.EnumType{Name: "Genre", Members: []edm.EnumMember{{Name: "Fiction", Value: 1}, {Name: "Poetry", Value: 2}}}
	money := &edm.ComplexType{Name: "Money", Properties: []*edm.Property{
		{Name: "Amount", Type: edm.KindDecimal, Precision: 19, Scale: 4},
		{Name: "Currency", Type: edm.KindString, MaxLength: 3},
	}}
	return &edm.Model{
		Namespace: "Library",
		EntityTypes: []*edm.EntityType{
			{
				Name: "Author",
				Key:  []string{"Id"},
				Properties: []*edm.Property{
					{Name: "Id", Type: edm.KindString},
					{Name: "Name", Type: edm.KindString, Nullable: true},
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Books", Target: "Book", Collection: true, Partner: "Author",
						Join: edm.Join{TargetColumns: []string{"author_id"}}},
				},
			},
			{
				Name: "Book",
				Key:  []string{"Id"},
				Properties: []*edm.Property{
					{Name: "Id", Type: edm.KindString},
					{Name: "Title", Type: edm.KindString},
					{Name: "AuthorId", Type: edm.KindString},
					{Name: "Genre", Enum: genre},
					{Name: "Price", Complex: money, Nullable: true},
				},
				Navigations: []*edm.NavigationProperty{
					{Name: "Author", Target: "Author", Partner: "Books",
						Join: edm.Join{SourceColumns: []string{"author_id"}}},
				},
			},
		},
		EntitySets: []*edm.EntitySet{{Name: "Authors", Type: "Author"}, {Name: "Books", Type: "Book"}},
		Actions: []*edm.Action{{Name: "Publish", Bound: true, BindingType: "Book",
			Parameters: []edm.Parameter{{Name: "date", Type: edm.KindDate, Required: true}}}},
		Functions: []*edm.Function{{Name: "Count", ReturnType: &edm.ReturnType{Type: edm.KindInt64}}},
	}
}

func author(m *edm.Model) *edm.EntityType { return m.EntityTypes[0] }
func book(m *edm.Model) *edm.EntityType   { return m.EntityTypes[1] }

// prop returns the declared property of t with the given name.
func prop(t *edm.EntityType, name string) *edm.Property {
	for _, p := range t.Properties {
		if p.Name == name {
			return p
		}
	}
	panic("no property " + name)
}

func addProp(t *edm.EntityType, p *edm.Property) { t.Properties = append(t.Properties, p) }

func TestBuildBaseModel(t *testing.T) {
	if err := baseModel().Build(); err != nil {
		t.Fatalf("Build() = %v", err)
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(m *edm.Model)
		want   string
	}{
		// Annotations.
		{"annotation of no element", func(m *edm.Model) {
			m.Annotations = []edm.Annotations{{Target: "Library.Book/Missing", Terms: []edm.Annotation{{Term: "Org.OData.Core.V1.Computed", Value: true}}}}
		}, `edm: annotations of "Library.Book/Missing": the target names no element of the model`},
		{"annotation of an unknown vocabulary", func(m *edm.Model) {
			m.Annotations = []edm.Annotations{{Target: "Library.Book", Terms: []edm.Annotation{{Term: "Acme.V1.Rank", Value: 1}}}}
		}, `edm: annotations of "Library.Book": term "Acme.V1.Rank": vocabulary Acme.V1 is neither an OASIS vocabulary nor listed in Model.Vocabularies`},
		{"unqualified term", func(m *edm.Model) {
			m.Annotations = []edm.Annotations{{Target: "Library.Container/Books", Terms: []edm.Annotation{{Term: "Description", Value: "x"}}}}
		}, `edm: annotations of "Library.Container/Books": term "Description": the term must be namespace-qualified`},
		{"value that cannot be written", func(m *edm.Model) {
			m.Annotations = []edm.Annotations{{Target: "Library.Publish(Library.Book)", Terms: []edm.Annotation{
				{Term: "Org.OData.Core.V1.Description", Value: edm.Record{Properties: []edm.PropertyValue{{Property: "At", Value: struct{}{}}}}}}}}
		}, `edm: annotations of "Library.Publish(Library.Book)": term "Org.OData.Core.V1.Description": a value of type struct {} cannot be written`},
		{"vocabulary without a URI", func(m *edm.Model) { m.Vocabularies = []edm.Vocabulary{{Namespace: "Acme.V1"}} },
			`edm: vocabulary "Acme.V1": needs a namespace and the URI of its document`},
		// Recursive hierarchies.
		{"hierarchy without its parent navigation", func(m *edm.Model) {
			book(m).RecursiveHierarchies = []edm.RecursiveHierarchy{{Qualifier: "Tree", ParentNavigation: "Parent"}}
		}, `edm: entity type "Book": recursive hierarchy "Tree": ParentNavigation "Parent" is not a navigation of the type`},
		{"hierarchy whose parent is another type", func(m *edm.Model) {
			book(m).RecursiveHierarchies = []edm.RecursiveHierarchy{{Qualifier: "Tree", NodeProperty: "Id", ParentNavigation: "Author"}}
		}, `edm: entity type "Book": recursive hierarchy "Tree": ParentNavigation "Author" must be a to-one navigation by one foreign key column to the type itself`},
		{"hierarchy on a complex node property", func(m *edm.Model) {
			book(m).RecursiveHierarchies = []edm.RecursiveHierarchy{{Qualifier: "Tree", NodeProperty: "Price", ParentNavigation: "Author"}}
		}, `edm: entity type "Book": recursive hierarchy "Tree": NodeProperty "Price" is not a primitive property of the type`},
		{"hierarchy whose foreign key refers to another property", func(m *edm.Model) {
			b := book(m)
			b.Navigations = append(b.Navigations, &edm.NavigationProperty{Name: "Sequel", Target: "Book", Nullable: true,
				Join: edm.Join{SourceColumns: []string{"author_id"}, TargetColumns: []string{"title"}}})
			b.RecursiveHierarchies = []edm.RecursiveHierarchy{{Qualifier: "Series", NodeProperty: "Id", ParentNavigation: "Sequel"}}
		}, `edm: entity type "Book": recursive hierarchy "Series": the foreign key of ParentNavigation "Sequel" must refer to the column of NodeProperty "Id"`},
		{"hierarchy declared twice", func(m *edm.Model) {
			b := book(m)
			b.Navigations = append(b.Navigations, &edm.NavigationProperty{Name: "Sequel", Target: "Book", Nullable: true,
				Join: edm.Join{SourceColumns: []string{"author_id"}}})
			b.RecursiveHierarchies = []edm.RecursiveHierarchy{{Qualifier: "Series", ParentNavigation: "Sequel"},
				{Qualifier: "Series", ParentNavigation: "Sequel"}}
		}, `edm: entity type "Book": recursive hierarchy "Series": declared twice`},
		{"hierarchy qualifier not an identifier", func(m *edm.Model) {
			b := book(m)
			b.Navigations = append(b.Navigations, &edm.NavigationProperty{Name: "Sequel", Target: "Book", Nullable: true,
				Join: edm.Join{SourceColumns: []string{"author_id"}}})
			b.RecursiveHierarchies = []edm.RecursiveHierarchy{{Qualifier: "A Tree", ParentNavigation: "Sequel"}}
		}, `edm: entity type "Book": recursive hierarchy "A Tree": the qualifier must be an identifier`},
		// Model and names.
		{"invalid namespace", func(m *edm.Model) { m.Namespace = "1Library" },
			`edm: namespace "1Library": not a valid namespace (identifiers separated by dots)`},
		{"reserved namespace", func(m *edm.Model) { m.Namespace = "Edm" },
			`edm: namespace "Edm": the namespace is reserved`},
		{"invalid container name", func(m *edm.Model) { m.Container = "My Container" },
			`edm: entity container "My Container": name is not a valid identifier`},
		{"nil entity type", func(m *edm.Model) { m.EntityTypes = append(m.EntityTypes, nil) },
			`edm: entity type #3: nil declaration`},
		{"nil property", func(m *edm.Model) { addProp(book(m), nil) },
			`edm: entity type "Book": property #6: nil declaration`},
		{"duplicate type, other case", func(m *edm.Model) {
			m.EntityTypes = append(m.EntityTypes, &edm.EntityType{Name: "author", Table: "author2", Key: []string{"Id"},
				Properties: []*edm.Property{{Name: "Id", Type: edm.KindString}}})
		}, `edm: entity type "author": name is already used by entity type "Author"`},
		{"complex type named like an entity type", func(m *edm.Model) { prop(book(m), "Price").Complex.Name = "Book" },
			`edm: entity type "Book": name is already used by complex type "Book"`},
		{"two enum types with one name", func(m *edm.Model) {
			addProp(author(m), &edm.Property{Name: "Genre", Enum: &edm.EnumType{Name: "Genre",
				Members: []edm.EnumMember{{Name: "Prose", Value: 1}}}})
		}, `edm: enum type "Genre": name is already used by enum type "Genre"`},
		{"invalid type name", func(m *edm.Model) { prop(book(m), "Price").Complex.Name = "Mo-ney" },
			`edm: complex type "Mo-ney": name is not a valid identifier`},
		{"invalid entity type name", func(m *edm.Model) {
			book(m).Name = "Bo-ok"
			m.EntitySets[1].Type, m.Actions[0].BindingType, author(m).Navigations[0].Target = "Bo-ok", "Bo-ok", "Bo-ok"
		}, `edm: entity type "Bo-ok": name is not a valid identifier`},
		{"same table", func(m *edm.Model) { book(m).Table = "author" },
			`edm: entity type "Book": table "author" is also the table of entity type "Author"`},
		{"invalid table name", func(m *edm.Model) { book(m).Table = "books; drop" },
			`edm: entity type "Book": table "books; drop" is not a valid table name (ASCII letters, digits and _, at most 63 bytes)`},

		// Keys.
		{"no key", func(m *edm.Model) { author(m).Key = nil }, `edm: entity type "Author": no key`},
		{"unknown key", func(m *edm.Model) { book(m).Key = []string{"Ident"} },
			`edm: entity type "Book": key property "Ident" does not exist`},
		{"key listed twice", func(m *edm.Model) { book(m).Key = []string{"Id", "Id"} },
			`edm: entity type "Book": key property "Id" is listed twice`},
		{"nullable key", func(m *edm.Model) { prop(book(m), "Id").Nullable = true },
			`edm: entity type "Book": key property "Id" is nullable`},
		{"collection key", func(m *edm.Model) {
			book(m).Key = []string{"Tags"}
			addProp(book(m), &edm.Property{Name: "Tags", Type: edm.KindString, Collection: true})
		},
			`edm: entity type "Book": key property "Tags" is a collection`},
		{"complex key", func(m *edm.Model) { book(m).Key = []string{"Price"}; prop(book(m), "Price").Nullable = false },
			`edm: entity type "Book": key property "Price" is not of a primitive or enum type`},
		{"double key", func(m *edm.Model) { prop(book(m), "Id").Type = edm.KindDouble },
			`edm: entity type "Book": key property "Id" is of type Edm.Double, which cannot be a key`},
		{"computed key", func(m *edm.Model) { p := prop(book(m), "Id"); p.SQL = "{{.}}.x"; p.Type = edm.KindString },
			`edm: entity type "Book": key property "Id" is computed by SQL`},
		{"lazy key", func(m *edm.Model) { prop(book(m), "Id").Lazy = true },
			`edm: entity type "Book": key property "Id" is lazy`},
		{"generated non-key", func(m *edm.Model) { prop(book(m), "Title").Generated = true },
			`edm: entity type "Book": property "Title" is Generated but not the single key property`},
		{"generated String key", func(m *edm.Model) { prop(book(m), "Id").Generated = true },
			`edm: entity type "Book": property "Id" is Generated: only Edm.Int32, Edm.Int64 and Edm.Guid keys are generated by the database`},
		{"generated key with a default", func(m *edm.Model) {
			p := prop(book(m), "Id")
			p.Type, p.Generated, p.Default = edm.KindInt64, true, 1
		}, `edm: entity type "Book": property "Id" is Generated by the database: no Default, Immutable or Required`},

		// Properties.
		{"duplicate property", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Title", Type: edm.KindString, Column: "title2"})
		},
			`edm: entity type "Book": duplicate property "Title"`},
		{"property named like a navigation", func(m *edm.Model) { addProp(book(m), &edm.Property{Name: "Author", Type: edm.KindString}) },
			`edm: entity type "Book": navigation "Author": name is already used by a property or navigation`},
		{"invalid property name", func(m *edm.Model) { prop(book(m), "Title").Name = "Main Title" },
			`edm: entity type "Book": property "Main Title": name is not a valid identifier`},
		{"reserved property name", func(m *edm.Model) { addProp(book(m), &edm.Property{Name: "Null", Type: edm.KindString}) },
			`edm: entity type "Book": property "Null": the name is reserved`},
		{"no type", func(m *edm.Model) { prop(book(m), "Title").Type = edm.KindNone },
			`edm: entity type "Book": property "Title": exactly one of Type, Enum and Complex must be set`},
		{"two types", func(m *edm.Model) { prop(book(m), "Genre").Type = edm.KindInt32 },
			`edm: entity type "Book": property "Genre": exactly one of Type, Enum and Complex must be set`},
		{"unknown kind", func(m *edm.Model) { prop(book(m), "Title").Type = edm.Kind(99) },
			`edm: entity type "Book": property "Title": unknown kind 99`},
		{"decimal without precision", func(m *edm.Model) { addProp(book(m), &edm.Property{Name: "Weight", Type: edm.KindDecimal}) },
			`edm: entity type "Book": property "Weight": Edm.Decimal requires Precision (total digits) and Scale (digits after the point)`},
		{"scale above precision", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Weight", Type: edm.KindDecimal, Precision: 4, Scale: 5})
		},
			`edm: entity type "Book": property "Weight": Scale 5 must be between 0 and Precision 4`},
		{"float decimal beyond 15 digits", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Weight", Type: edm.KindDecimal, Precision: 18, Scale: 2, DecimalStorage: edm.DecimalFloat})
		},
			`edm: entity type "Book": property "Weight": a Decimal stored as DecimalFloat has at most 15 digits of Precision (a floating-point number keeps no more), not 18`},
		{"decimal storage on a string", func(m *edm.Model) { prop(book(m), "Title").DecimalStorage = edm.DecimalExact },
			`edm: entity type "Book": property "Title": DecimalStorage applies to Edm.Decimal only`},
		{"time storage on a string", func(m *edm.Model) { prop(book(m), "Title").TimeStorage = edm.TimeSQL },
			`edm: entity type "Book": property "Title": TimeStorage applies to Edm.DateTimeOffset and Edm.TimeOfDay only`},
		{"unix seconds of a time of day", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Opens", Type: edm.KindTimeOfDay, TimeStorage: edm.TimeUnix})
		},
			`edm: entity type "Book": property "Opens": TimeUnix applies to Edm.DateTimeOffset only`},
		{"unknown time storage", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Seen", Type: edm.KindDateTimeOffset, TimeStorage: 7})
		},
			`edm: entity type "Book": property "Seen": unknown TimeStorage 7`},
		{"unknown decimal storage", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Weight", Type: edm.KindDecimal, Precision: 8, Scale: 2, DecimalStorage: 9})
		},
			`edm: entity type "Book": property "Weight": unknown DecimalStorage 9`},
		{"max length on an integer", func(m *edm.Model) { addProp(book(m), &edm.Property{Name: "Pages", Type: edm.KindInt32, MaxLength: 5}) },
			`edm: entity type "Book": property "Pages": MaxLength does not apply to Edm.Int32`},
		{"negative max length", func(m *edm.Model) { prop(book(m), "Title").MaxLength = -1 },
			`edm: entity type "Book": property "Title": MaxLength must not be negative`},
		{"precision on a string", func(m *edm.Model) { prop(book(m), "Title").Precision = 3 },
			`edm: entity type "Book": property "Title": Precision and Scale do not apply to Edm.String`},
		{"temporal precision beyond storage", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Published", Type: edm.KindDateTimeOffset, Precision: 7})
		},
			`edm: entity type "Book": property "Published": Precision of Edm.DateTimeOffset must be 0 to 6 (fractional-second digits kept by storage)`},
		{"facets on an enum", func(m *edm.Model) { prop(book(m), "Genre").MaxLength = 3 },
			`edm: entity type "Book": property "Genre": MaxLength does not apply to enum and complex types`},
		{"default of the wrong type", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Pages", Type: edm.KindInt32, Default: "many"})
		},
			`edm: entity type "Book": property "Pages": default "many" (string) is not a value of Edm.Int32`},
		{"default out of range", func(m *edm.Model) { addProp(book(m), &edm.Property{Name: "Rating", Type: edm.KindByte, Default: 300}) },
			`edm: entity type "Book": property "Rating": default 300 does not fit Edm.Byte`},
		{"default enum member unknown", func(m *edm.Model) { prop(book(m), "Genre").Default = "Drama" },
			`edm: entity type "Book": property "Genre": default "Drama" is not a member of enum type "Genre"`},
		{"default enum value unknown", func(m *edm.Model) { prop(book(m), "Genre").Default = 7 },
			`edm: entity type "Book": property "Genre": default 7 is not a value of enum type "Genre"`},
		{"default decimal too precise", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Weight", Type: edm.KindDecimal, Precision: 5, Scale: 2, Default: decimal.RequireFromString("1.005")})
		}, `edm: entity type "Book": property "Weight": default 1.005 does not fit Precision 5 and Scale 2`},
		{"default decimal too large", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Weight", Type: edm.KindDecimal, Precision: 5, Scale: 2, Default: 1000})
		}, `edm: entity type "Book": property "Weight": default 1000 does not fit Precision 5 and Scale 2`},
		{"default string too long", func(m *edm.Model) { p := prop(book(m), "Title"); p.MaxLength = 3; p.Default = "long" },
			`edm: entity type "Book": property "Title": default "long" is longer than MaxLength 3`},
		{"default with a control character", func(m *edm.Model) { prop(book(m), "Title").Default = "a\x00b" },
			`edm: entity type "Book": property "Title": default "a\x00b" holds characters CSDL XML cannot carry (control characters or invalid UTF-8)`},
		{"default invalid guid", func(m *edm.Model) { addProp(book(m), &edm.Property{Name: "Isbn", Type: edm.KindGuid, Default: "x"}) },
			`edm: entity type "Book": property "Isbn": default "x" (string) is not a value of Edm.Guid`},
		{"default of a stream", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Cover", Type: edm.KindStream, Default: []byte{1}})
		},
			`edm: entity type "Book": property "Cover": Edm.Stream properties have no default`},
		{"default of a complex property", func(m *edm.Model) { prop(book(m), "Price").Default = 1 },
			`edm: entity type "Book": property "Price": a complex property has no Default and cannot be Searchable`},
		{"read-only and required", func(m *edm.Model) { p := prop(book(m), "Title"); p.ReadOnly = true; p.Required = true },
			`edm: entity type "Book": property "Title": a read-only property cannot be Immutable or Required`},
		{"read-only and immutable", func(m *edm.Model) { p := prop(book(m), "Title"); p.ReadOnly = true; p.Immutable = true },
			`edm: entity type "Book": property "Title": a read-only property cannot be Immutable or Required`},
		{"message without required", func(m *edm.Model) { prop(book(m), "Title").RequiredMessage = "Title is required" },
			`edm: entity type "Book": property "Title": RequiredMessage is set but the property is not Required`},
		{"searchable number", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Pages", Type: edm.KindInt32, Searchable: true})
		},
			`edm: entity type "Book": property "Pages": only String properties can be Searchable`},
		{"invalid column name", func(m *edm.Model) { prop(book(m), "Title").Column = "ti tle" },
			`edm: entity type "Book": property "Title": column "ti tle" is not a valid column name (ASCII letters, digits and _, at most 63 bytes)`},
		{"column too long for PostgreSQL", func(m *edm.Model) { prop(book(m), "Title").Column = strings.Repeat("t", 64) },
			`edm: entity type "Book": property "Title": column "` + strings.Repeat("t", 64) + `" is not a valid column name (ASCII letters, digits and _, at most 63 bytes)`},
		{"two properties in one column", func(m *edm.Model) { prop(book(m), "AuthorId").Column = "title" },
			`edm: entity type "Book": property "AuthorId": column "title" is also the column of property "Title"`},
		{"complex member in another property's column", func(m *edm.Model) { addProp(book(m), &edm.Property{Name: "PriceAmount", Type: edm.KindInt32}) },
			`edm: entity type "Book": property "PriceAmount": column "price_amount" is also the column of property "Price"`},
		{"complex column too long", func(m *edm.Model) { prop(book(m), "Price").Column = strings.Repeat("p", 60) },
			`edm: entity type "Book": property "Price": column "` + strings.Repeat("p", 60) + `_amount" is not a valid column name (at most 63 bytes)`},
		{"SQL with another placeholder", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "HasTitle", Type: edm.KindBoolean, SQL: "{{ . }}.title IS NOT NULL"})
		}, `edm: entity type "Book": property "HasTitle": SQL: the only placeholder is {{.}}`},
		{"SQL with two statements", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "HasTitle", Type: edm.KindBoolean, SQL: "1; DELETE FROM book"})
		}, `edm: entity type "Book": property "HasTitle": SQL: must be a single expression (no ';')`},
		{"SQL unbalanced", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "HasTitle", Type: edm.KindBoolean, SQL: "(({{.}}.title IS NULL)"})
		}, `edm: entity type "Book": property "HasTitle": SQL: unbalanced parentheses`},
		{"SQL unterminated quote", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "HasTitle", Type: edm.KindBoolean, SQL: "{{.}}.title = 'x"})
		}, `edm: entity type "Book": property "HasTitle": SQL: unterminated ' quote`},
		{"SQL with a column", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "HasTitle", Type: edm.KindBoolean, Column: "has_title", SQL: "{{.}}.title IS NOT NULL"})
		}, `edm: entity type "Book": property "HasTitle": a property computed by SQL has no Column`},
		{"SQL with a default", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "HasTitle", Type: edm.KindBoolean, Default: true, SQL: "{{.}}.title IS NOT NULL"})
		}, `edm: entity type "Book": property "HasTitle": a property computed by SQL is read-only: no Default, Required or Immutable`},
		{"SQL on a complex member", func(m *edm.Model) {
			c := prop(book(m), "Price").Complex
			c.Properties = append(c.Properties, &edm.Property{Name: "Rounded", Type: edm.KindInt64, SQL: "1"})
		}, `edm: complex type "Money": property "Rounded": SQL is allowed on entity type properties only`},
		{"collection of complex values", func(m *edm.Model) { prop(book(m), "Price").Collection = true },
			`edm: entity type "Book": property "Price": collections of complex values are not supported`},
		{"collection in a complex type", func(m *edm.Model) {
			c := prop(book(m), "Price").Complex
			c.Properties = append(c.Properties, &edm.Property{Name: "History", Type: edm.KindInt64, Collection: true})
		}, `edm: complex type "Money": property "History": collection members of complex types are not supported`},
		{"collection with default", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Tags", Type: edm.KindString, Collection: true, Default: "x"})
		},
			`edm: entity type "Book": property "Tags": a collection has no Default`},
		{"side table on a single value", func(m *edm.Model) { prop(book(m), "Title").CollectionTable = &edm.CollectionTable{} },
			`edm: entity type "Book": property "Title": CollectionTable is set but the property is not a collection`},
		{"side table owner columns", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Tags", Type: edm.KindString, Collection: true,
				CollectionTable: &edm.CollectionTable{OwnerColumns: []string{"a", "b"}}})
		}, `edm: entity type "Book": property "Tags": side table has 2 owner columns for 1 source columns`},
		{"side table named like a type's table", func(m *edm.Model) {
			addProp(book(m), &edm.Property{Name: "Tags", Type: edm.KindString, Collection: true,
				CollectionTable: &edm.CollectionTable{Table: "author"}})
		}, `edm: entity type "Book": property "Tags": table "author" is also the table of entity type "Author"`},
		{"stream in a complex type", func(m *edm.Model) {
			c := prop(book(m), "Price").Complex
			c.Properties = append(c.Properties, &edm.Property{Name: "Scan", Type: edm.KindStream})
		}, `edm: complex type "Money": property "Scan": Stream properties are allowed on entity types only`},

		// Complex and enum types.
		{"complex type containing itself", func(m *edm.Model) {
			c := prop(book(m), "Price").Complex
			c.Properties = append(c.Properties, &edm.Property{Name: "Converted", Complex: c, Nullable: true})
		}, `edm: complex type "Money": contains itself through its properties`},
		{"complex type without properties", func(m *edm.Model) { prop(book(m), "Price").Complex.Properties = nil },
			`edm: complex type "Money": no properties`},
		{"duplicate enum member", func(m *edm.Model) {
			e := prop(book(m), "Genre").Enum
			e.Members = append(e.Members, edm.EnumMember{Name: "fiction", Value: 3})
		}, `edm: enum type "Genre": duplicate member "fiction" (also "Fiction")`},
		{"duplicate enum value", func(m *edm.Model) {
			e := prop(book(m), "Genre").Enum
			e.Members = append(e.Members, edm.EnumMember{Name: "Drama", Value: 2})
		}, `edm: enum type "Genre": member "Drama": value 2 is also the value of "Poetry"`},
		{"enum value out of range", func(m *edm.Model) {
			e := prop(book(m), "Genre").Enum
			e.UnderlyingType = edm.KindByte
			e.Members = append(e.Members, edm.EnumMember{Name: "Drama", Value: 256})
		}, `edm: enum type "Genre": member "Drama": value 256 does not fit Edm.Byte`},
		{"negative flags value", func(m *edm.Model) {
			e := prop(book(m), "Genre").Enum
			e.Flags = true
			e.Members = append(e.Members, edm.EnumMember{Name: "Drama", Value: -4})
		}, `edm: enum type "Genre": member "Drama": flags member values must not be negative`},
		{"enum of strings", func(m *edm.Model) { prop(book(m), "Genre").Enum.UnderlyingType = edm.KindString },
			`edm: enum type "Genre": underlying type Edm.String is not Byte, SByte, Int16, Int32 or Int64`},
		{"enum without members", func(m *edm.Model) { prop(book(m), "Genre").Enum.Members = nil },
			`edm: enum type "Genre": no members`},
		{"invalid enum member name", func(m *edm.Model) { prop(book(m), "Genre").Enum.Members[0].Name = "Science Fiction" },
			`edm: enum type "Genre": member "Science Fiction": name is not a valid identifier`},

		// Media entities and ETags.
		{"stream without properties", func(m *edm.Model) { book(m).HasStream = true },
			`edm: entity type "Book": HasStream needs StreamProperty to name a Binary or Stream property (got "")` + "\n" +
				`edm: entity type "Book": HasStream needs ContentTypeProperty to name a String property (got "")`},
		{"stream property of the wrong type", func(m *edm.Model) {
			b := book(m)
			b.HasStream, b.StreamProperty, b.ContentTypeProperty = true, "Title", "Title"
		}, `edm: entity type "Book": HasStream needs StreamProperty to name a Binary or Stream property (got "Title")`},
		{"stream accessors without HasStream", func(m *edm.Model) { book(m).StreamProperty = "Title" },
			`edm: entity type "Book": StreamProperty and ContentTypeProperty need HasStream`},
		{"unknown ETag property", func(m *edm.Model) { book(m).ETag = []string{"Version"} },
			`edm: entity type "Book": ETag property "Version" does not exist`},

		// Navigations.
		{"unknown target", func(m *edm.Model) { book(m).Navigations[0].Target = "Writer" },
			`edm: entity type "Book": navigation "Author": target entity type "Writer" does not exist`},
		{"reserved navigation name", func(m *edm.Model) {
			author(m).Navigations = append(author(m).Navigations, &edm.NavigationProperty{Name: "true", Target: "Book", Collection: true,
				Join: edm.Join{TargetColumns: []string{"author_id"}}})
		}, `edm: entity type "Author": navigation "true": the name is reserved`},
		{"unknown partner", func(m *edm.Model) { book(m).Navigations[0].Partner = "Works" },
			`edm: entity type "Book": navigation "Author": partner "Works" does not exist on entity type "Author"`},
		{"partner leading elsewhere", func(m *edm.Model) {
			a := author(m)
			a.Navigations = append(a.Navigations, &edm.NavigationProperty{Name: "Friend", Target: "Author", Nullable: true,
				Join: edm.Join{SourceColumns: []string{"friend_id"}}})
			book(m).Navigations[0].Partner = "Friend"
		}, `edm: entity type "Book": navigation "Author": partner "Friend" leads to "Author", not back to "Book"`},
		{"partner naming another partner", func(m *edm.Model) {
			b := book(m)
			b.Navigations = append(b.Navigations, &edm.NavigationProperty{Name: "Editor", Target: "Author", Nullable: true,
				Partner: "Books", Join: edm.Join{SourceColumns: []string{"editor_id"}}})
		}, `edm: entity type "Book": navigation "Editor": partner "Books" names "Author" as its partner`},
		{"join not mirroring the partner's", func(m *edm.Model) { author(m).Navigations[0].Join.TargetColumns = []string{"writer_id"} },
			`edm: entity type "Author": navigation "Books": join does not mirror the join of partner "Author"`},
		{"mismatched join columns", func(m *edm.Model) {
			n := book(m).Navigations[0]
			n.Partner = ""
			n.Join.SourceColumns = []string{"author_id", "author_version"}
			author(m).Navigations[0].Partner = ""
		}, `edm: entity type "Book": navigation "Author": join has 2 source columns and 1 target columns`},
		{"to-one without foreign key", func(m *edm.Model) { book(m).Navigations[0].Join = edm.Join{} },
			`edm: entity type "Book": navigation "Author": a to-one join needs SourceColumns (the source's foreign key columns)`},
		{"to-many without back reference", func(m *edm.Model) {
			author(m).Navigations[0].Join = edm.Join{}
			author(m).Navigations[0].Partner = ""
			book(m).Navigations[0].Partner = ""
		}, `edm: entity type "Author": navigation "Books": a to-many join needs TargetColumns (the target's columns referring to the source)`},
		{"link table columns", func(m *edm.Model) {
			author(m).Navigations = append(author(m).Navigations, &edm.NavigationProperty{Name: "Favourites", Target: "Book",
				Collection: true, Join: edm.Join{Through: &edm.LinkTable{Table: "favourite", SourceColumns: []string{"author_id"}}}})
		}, `edm: entity type "Author": navigation "Favourites": link table "favourite" has 0 target columns for 1 target columns of the join`},
		{"invalid join column", func(m *edm.Model) {
			book(m).Navigations[0].Join.SourceColumns = []string{"author id"}
			author(m).Navigations[0].Join.TargetColumns = []string{"author id"}
		}, `edm: entity type "Author": navigation "Books": join target: "author id" is not a valid column name` + "\n" +
			`edm: entity type "Book": navigation "Author": join source: "author id" is not a valid column name`},
		{"nullable collection", func(m *edm.Model) { author(m).Navigations[0].Nullable = true },
			`edm: entity type "Author": navigation "Books": Nullable does not apply to a collection`},

		// Entity container.
		{"unknown entity set type", func(m *edm.Model) { m.EntitySets[1].Type = "Bok" },
			`edm: entity set "Books": entity type "Bok" does not exist`},
		{"duplicate entity set, other case", func(m *edm.Model) { m.EntitySets = append(m.EntitySets, &edm.EntitySet{Name: "books", Type: "Book"}) },
			`edm: entity set "books": name is already used by entity set "Books"`},
		{"singleton named like a set", func(m *edm.Model) {
			m.Singletons = append(m.Singletons, &edm.Singleton{Name: "Authors", Type: "Author"})
		},
			`edm: singleton "Authors": name is already used by entity set "Authors"`},
		{"unknown singleton type", func(m *edm.Model) { m.Singletons = append(m.Singletons, &edm.Singleton{Name: "Me", Type: "User"}) },
			`edm: singleton "Me": entity type "User" does not exist`},
		{"import named like a set", func(m *edm.Model) { m.Functions[0].Name = "Books" },
			`edm: function import "Books": name is already used by entity set "Books"`},

		// Operations.
		{"parameter of an unknown type", func(m *edm.Model) { m.Actions[0].Parameters[0] = edm.Parameter{Name: "p", Entity: "Publisher"} },
			`edm: action "Publish": parameter "p": entity type "Publisher" does not exist`},
		{"parameter without type", func(m *edm.Model) { m.Actions[0].Parameters[0].Type = edm.KindNone },
			`edm: action "Publish": parameter "date": exactly one of Type, Enum, Complex and Entity must be set`},
		{"decimal parameter without precision", func(m *edm.Model) { m.Actions[0].Parameters[0].Type = edm.KindDecimal },
			`edm: action "Publish": parameter "date": Edm.Decimal requires Precision (total digits) and Scale (digits after the point)`},
		{"duplicate parameter", func(m *edm.Model) {
			a := m.Actions[0]
			a.Parameters = append(a.Parameters, edm.Parameter{Name: "Date", Type: edm.KindDate, Required: true})
		}, `edm: action "Publish": parameter "Date": duplicate parameter (also "date")`},
		{"alias clashes with a parameter", func(m *edm.Model) {
			a := m.Actions[0]
			a.Parameters = append(a.Parameters, edm.Parameter{Name: "note", Type: edm.KindString, Aliases: []string{"Date"}})
		}, `edm: action "Publish": parameter "note": alias "Date" is already used by "date"`},
		{"alias twice", func(m *edm.Model) { m.Actions[0].Parameters[0].Aliases = []string{"day", "DAY"} },
			`edm: action "Publish": parameter "date": alias "DAY" is already used by "day"`},
		{"alias not an identifier", func(m *edm.Model) { m.Actions[0].Parameters[0].Aliases = []string{"the date"} },
			`edm: action "Publish": parameter "date": alias "the date" is not a valid identifier`},
		{"alias reserved", func(m *edm.Model) { m.Actions[0].Parameters[0].Aliases = []string{"bindingParameter"} },
			`edm: action "Publish": parameter "date": alias "bindingParameter" is reserved`},
		{"parameter named bindingParameter", func(m *edm.Model) { m.Actions[0].Parameters[0].Name = "bindingParameter" },
			`edm: action "Publish": parameter "bindingParameter": the name is reserved`},
		{"required after optional", func(m *edm.Model) {
			a := m.Actions[0]
			a.Parameters = append([]edm.Parameter{{Name: "note", Type: edm.KindString, Nullable: true}}, a.Parameters...)
		}, `edm: action "Publish": parameter "date": required parameter follows optional parameter "note"`},
		{"bound without binding type", func(m *edm.Model) { m.Actions[0].BindingType = "" },
			`edm: action "Publish": a bound operation needs a BindingType`},
		{"unknown binding type", func(m *edm.Model) { m.Actions[0].BindingType = "Magazine" },
			`edm: action "Publish": binding entity type "Magazine" does not exist`},
		{"binding type on an unbound action", func(m *edm.Model) { m.Actions[0].Bound = false },
			`edm: action "Publish": BindingType and BindingCollection need Bound`},
		{"two overloads with one binding", func(m *edm.Model) {
			m.Actions = append(m.Actions, &edm.Action{Name: "Publish", Bound: true, BindingType: "Book"})
		},
			`edm: action "Publish": another overload is bound to "Book"`},
		{"overloaded unbound action", func(m *edm.Model) {
			m.Actions = append(m.Actions, &edm.Action{Name: "Reset"}, &edm.Action{Name: "Reset",
				Parameters: []edm.Parameter{{Name: "all", Type: edm.KindBoolean}}})
		}, `edm: action "Reset": unbound actions cannot be overloaded`},
		{"overload spelled differently", func(m *edm.Model) {
			m.Actions = append(m.Actions, &edm.Action{Name: "publish", Bound: true, BindingType: "Author"})
		},
			`edm: action "publish": overloads must have the same name as "Publish"`},
		{"action named like a type", func(m *edm.Model) { m.Actions[0].Name = "Book" },
			`edm: action "Book": name is already used by entity type "Book"`},
		{"action and function with one name", func(m *edm.Model) { m.Actions[0].Name = "Count" },
			`edm: function "Count": name is already used by action "Count"`},
		{"function without return type", func(m *edm.Model) { m.Functions[0].ReturnType = nil },
			`edm: function "Count": a function needs a ReturnType`},
		{"function overloads with one signature", func(m *edm.Model) {
			m.Functions = append(m.Functions, &edm.Function{Name: "Count", ReturnType: &edm.ReturnType{Type: edm.KindInt64}})
		}, `edm: function "Count": another overload has the same binding and parameter names`},
		{"function overloads returning different types", func(m *edm.Model) {
			m.Functions = append(m.Functions, &edm.Function{Name: "Count", ReturnType: &edm.ReturnType{Type: edm.KindInt32},
				Parameters: []edm.Parameter{{Name: "genre", Enum: prop(book(m), "Genre").Enum, Required: true}}})
		}, `edm: function "Count": overloads with the same binding must have the same return type`},
		{"return type without type", func(m *edm.Model) { m.Functions[0].ReturnType = &edm.ReturnType{} },
			`edm: function "Count": return type: exactly one of Type, Enum, Complex and Entity must be set`},
		{"return type of an unknown entity type", func(m *edm.Model) { m.Functions[0].ReturnType = &edm.ReturnType{Entity: "Shelf"} },
			`edm: function "Count": return type: entity type "Shelf" does not exist`},

		// Authorizations.
		{"authorization without scheme", func(m *edm.Model) { m.Authorizations = []edm.Authorization{{Name: "Bearer"}} },
			`edm: authorization "Bearer": Scheme "" is not an HTTP authentication scheme such as "bearer"`},
		{"authorization without name", func(m *edm.Model) { m.Authorizations = []edm.Authorization{{Scheme: "bearer"}} },
			`edm: authorization #1: no Name`},
		{"duplicate authorization", func(m *edm.Model) {
			m.Authorizations = []edm.Authorization{{Name: "Bearer", Scheme: "bearer"}, {Name: "Bearer", Scheme: "basic"}}
		}, `edm: authorization "Bearer": duplicate name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := baseModel()
			tt.modify(m)
			err := m.Build()
			if err == nil {
				t.Fatalf("Build() = nil, want %q", tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("Build() error mismatch (-want +got):\n%s", diff)
			}
			// A failed model finds nothing and cannot be written.
			if m.EntitySet("Books") != nil || m.EntityType("Book") != nil {
				t.Error("lookups succeed on a model whose Build failed")
			}
			if err := m.WriteXML(new(strings.Builder)); err == nil {
				t.Error("WriteXML succeeded on a model whose Build failed")
			}
		})
	}
}

func TestBuildJoinsAllErrors(t *testing.T) {
	m := baseModel()
	book(m).Key = []string{"Ident"}
	m.EntitySets[0].Type = "Writer"
	err := m.Build()
	want := []string{
		`edm: entity type "Book": key property "Ident" does not exist`,
		`edm: entity set "Authors": entity type "Writer" does not exist`,
	}
	if err == nil {
		t.Fatal("Build() = nil, want two errors")
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) {
		t.Fatalf("Build() error %T is not a joined error", err)
	}
	var got []string
	for _, e := range joined.Unwrap() {
		got = append(got, e.Error())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Build() errors mismatch (-want +got):\n%s", diff)
	}
}

func TestBuilt(t *testing.T) {
	failed := baseModel()
	book(failed).Key = []string{"Ident"}
	_ = failed.Build()
	built := baseModel()
	if err := built.Build(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		m    *edm.Model
		want bool
	}{
		{"nil", nil, false},
		{"declared", baseModel(), false},
		{"failed Build", failed, false},
		{"built", built, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.m.Built(); got != tt.want {
				t.Errorf("Built() = %v, want %v", got, tt.want)
			}
			if tt.m == nil || tt.want {
				return
			}
			for name, write := range map[string]func(io.Writer, ...edm.Annotations) error{"WriteXML": tt.m.WriteXML, "WriteJSON": tt.m.WriteJSON} {
				if err := write(io.Discard); !errors.Is(err, edm.ErrNotBuilt) {
					t.Errorf("%s() = %v, want edm.ErrNotBuilt", name, err)
				}
			}
		})
	}
}

func TestBuildTwice(t *testing.T) {
	m := baseModel()
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	if err := m.Build(); err == nil {
		t.Error("second Build() = nil, want an error")
	}
}

func TestBuildAfterFix(t *testing.T) {
	m := baseModel()
	book(m).Key = []string{"Ident"}
	if err := m.Build(); err == nil {
		t.Fatal("Build() = nil, want an error")
	}
	book(m).Key = []string{"Id"}
	if err := m.Build(); err != nil {
		t.Fatalf("Build() after the fix = %v", err)
	}
	if m.EntitySet("books") == nil {
		t.Error(`EntitySet("books") = nil after a successful Build`)
	}
}

func TestWriteBeforeBuild(t *testing.T) {
	m := baseModel()
	if err := m.WriteXML(new(strings.Builder)); err == nil {
		t.Error("WriteXML() before Build = nil, want an error")
	}
	if err := m.WriteJSON(new(strings.Builder)); err == nil {
		t.Error("WriteJSON() before Build = nil, want an error")
	}
}

// TestBuildDefaults checks what Build fills in and resolves.
func TestBuildDefaults(t *testing.T) {
	m := sampleModel()
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	if m.Container != "Container" {
		t.Errorf("Container = %q, want %q", m.Container, "Container")
	}
	product := m.EntityType("Product")
	if product.Table != "product" {
		t.Errorf("Product.Table = %q, want %q", product.Table, "product")
	}
	orderItem := m.EntityType("Store.OrderItem")
	if orderItem.Table != "order_item" {
		t.Errorf("OrderItem.Table = %q, want %q", orderItem.Table, "order_item")
	}
	var keys []string
	for _, k := range orderItem.KeyProperties() {
		keys = append(keys, k.Column)
		if !k.IsKey() {
			t.Errorf("%s.IsKey() = false", k.Name)
		}
	}
	if diff := cmp.Diff([]string{"order_id", "line_number"}, keys); diff != "" {
		t.Errorf("OrderItem key columns mismatch (-want +got):\n%s", diff)
	}
	if orderItem.Property("Quantity").IsKey() {
		t.Error("Quantity.IsKey() = true")
	}

	// Defaults are converted to the canonical Go values.
	defaults := []struct {
		typ, prop string
		want      any
	}{
		{"Product", "ProductType", int64(5)},
		{"Product", "Price", decimal.Zero},
		{"Product", "StockQuantity", int64(0)},
		{"Product", "DeliveryTime", 48 * time.Hour},
		{"Customer", "CustomerGuid", "2f1e6c3b-0000-4000-8000-000000000001"},
		{"Customer", "Permissions", int64(3)},
		{"OrderItem", "Quantity", int64(1)},
	}
	for _, d := range defaults {
		got := m.EntityType(d.typ).Property(d.prop).Default
		if diff := cmp.Diff(d.want, got, cmp.Comparer(func(a, b decimal.Decimal) bool { return a.Equal(b) })); diff != "" {
			t.Errorf("%s.%s.Default mismatch (-want +got):\n%s", d.typ, d.prop, diff)
		}
	}
	if got := product.Property("CreatedOnUtc").Precision; got != 6 {
		t.Errorf("CreatedOnUtc.Precision = %d, want 6", got)
	}

	// Collections get a side table.
	want := &edm.CollectionTable{Table: "product_tags", OwnerColumns: []string{"product_id"}, SourceColumns: []string{"id"}, ValueColumn: "value", OrdinalColumn: "ordinal"}
	if diff := cmp.Diff(want, product.Property("Tags").CollectionTable); diff != "" {
		t.Errorf("Tags.CollectionTable mismatch (-want +got):\n%s", diff)
	}

	// Complex members carry full column names.
	customer := m.EntityType("Customer")
	billing := customer.Property("BillingAddress")
	var cols []string
	for _, f := range billing.Properties() {
		cols = append(cols, f.Column)
	}
	if diff := cmp.Diff([]string{"billing_address_street", "billing_address_city", "billing_address_zip_postal_code", "billing_address_country_id"}, cols); diff != "" {
		t.Errorf("BillingAddress columns mismatch (-want +got):\n%s", diff)
	}
	if got := billing.Property("city"); got == nil || got.Column != "billing_address_city" {
		t.Errorf(`BillingAddress.Property("city") = %+v, want column billing_address_city`, got)
	}
	if got := m.ComplexType("PostalAddress").Property("City").Column; got != "city" {
		t.Errorf("PostalAddress.City.Column = %q, want %q", got, "city")
	}

	// A computed property expands its SQL and is read-only.
	hp := customer.Property("HasPassword")
	if got, want := hp.ExpandSQL(`"c"`), `"c".password_hash IS NOT NULL`; got != want {
		t.Errorf("ExpandSQL = %q, want %q", got, want)
	}
	if !hp.ReadOnly || hp.Column != "" {
		t.Errorf("HasPassword: ReadOnly = %v, Column = %q, want true, \"\"", hp.ReadOnly, hp.Column)
	}
	if got := customer.Property("Email").ExpandSQL(`"c"`); got != "" {
		t.Errorf("ExpandSQL of a stored property = %q, want \"\"", got)
	}

	// Joins: defaults, constraints, partners and bindings.
	parent := m.EntityType("Category").Navigation("Parent")
	if diff := cmp.Diff(edm.Join{SourceColumns: []string{"parent_category_id"}, TargetColumns: []string{"id"}}, parent.Join); diff != "" {
		t.Errorf("Parent.Join mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]edm.ReferentialConstraint{{Property: "ParentCategoryId", ReferencedProperty: "Id"}}, parent.Constraints()); diff != "" {
		t.Errorf("Parent.Constraints mismatch (-want +got):\n%s", diff)
	}
	if parent.PartnerNavigation() != m.EntityType("Category").Navigation("Children") || parent.TargetType() != m.EntityType("Category") ||
		parent.SourceType() != m.EntityType("Category") {
		t.Error("Parent: partner, target or source not resolved")
	}
	cats := product.Navigation("Categories")
	if diff := cmp.Diff([]string{"id"}, cats.Join.SourceColumns); diff != "" {
		t.Errorf("Categories.Join.SourceColumns mismatch (-want +got):\n%s", diff)
	}
	if cats.Constraints() != nil {
		t.Errorf("Categories.Constraints() = %v, want none", cats.Constraints())
	}
	set := m.EntitySet("customer")
	if set.EntityType() != customer {
		t.Error("Customer set type not resolved")
	}
	if got := set.Binding("Addresses/Country"); got != m.EntitySet("Country") {
		t.Errorf(`Binding("Addresses/Country") = %v, want the Country set`, got)
	}
	if got := set.Binding("Addresses"); got != nil {
		t.Errorf(`Binding("Addresses") = %v, want nil (containment)`, got)
	}

	// ETag: all non-lazy properties by default.
	var etag []string
	for _, p := range m.EntityType("Picture").ETagProperties() {
		etag = append(etag, p.Name)
	}
	if diff := cmp.Diff([]string{"Id", "MimeType", "SeoFilename", "Size"}, etag); diff != "" {
		t.Errorf("Picture ETag mismatch (-want +got):\n%s", diff)
	}
	data, ct := m.EntityType("Picture").Stream()
	if data == nil || data.Name != "PictureBinary" || ct == nil || ct.Name != "MimeType" {
		t.Errorf("Picture.Stream() = %v, %v", data, ct)
	}

	// Operations resolve their types.
	addAddress := m.Action("AddAddress", customer, false)
	if addAddress == nil || addAddress.ReturnType.EntityType() != m.EntityType("Address") || addAddress.Binding() != customer {
		t.Errorf("AddAddress not resolved: %+v", addAddress)
	}
	if p := addAddress.Parameter("address"); p == nil || p.Complex != m.ComplexType("PostalAddress") {
		t.Errorf(`AddAddress.Parameter("address") = %+v`, p)
	}
	if p := m.FunctionOverloads("PriceOf")[0].Parameter("quantity"); p == nil || p.Name != "Quantity" {
		t.Errorf(`PriceOf.Parameter("quantity") = %+v`, p)
	}
	if f := m.FunctionOverloads("BestSellers")[1]; f.Binding() != m.EntityType("Category") {
		t.Errorf("BestSellers overload 2 binding = %v, want Category", f.Binding())
	}
}

// TestBuildCollectsTypes checks that enum and complex types used but not listed join the model.
func TestBuildCollectsTypes(t *testing.T) {
	m := baseModel()
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	if len(m.EnumTypes) != 1 || m.EnumType("Library.Genre") == nil {
		t.Errorf("EnumTypes = %v, want Genre", m.EnumTypes)
	}
	if len(m.ComplexTypes) != 1 || m.ComplexType("money") == nil {
		t.Errorf("ComplexTypes = %v, want Money", m.ComplexTypes)
	}
}

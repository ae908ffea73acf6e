package edm_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"

	"github.com/storekit/store/odata/edm"
)

// Example declares a model of two entity types, builds it and prints the CSDL XML of one of them.
func Example() {
	m := &edm.Model{
		Namespace: "Library",
		EntityTypes: []*edm.EntityType{
			{
				Name: "Author", // table "author"
				Key:  []string{"Id"},
				Properties: []*edm.Property{
					{Name: "Id", Type: edm.KindString, MaxLength: 24, ReadOnly: true},
					{Name: "Name", Type: edm.KindString, Required: true, RequiredMessage: "Author name is required"},
				},
				Navigations: []*edm.NavigationProperty{
					// To-many by back reference: book.author_id = author.id.
					{Name: "Books", Target: "Book", Collection: true, Partner: "Author",
						Join: edm.Join{TargetColumns: []string{"author_id"}}},
				},
			},
			{
				Name: "Book",
				Key:  []string{"Id"},
				Properties: []*edm.Property{
					{Name: "Id", Type: edm.KindString, MaxLength: 24, ReadOnly: true},
					{Name: "Title", Type: edm.KindString, MaxLength: 200, Searchable: true},
					{Name: "AuthorId", Type: edm.KindString, MaxLength: 24}, // column "author_id"
					{Name: "Price", Type: edm.KindDecimal, Precision: 19, Scale: 4, Nullable: true},
				},
				Navigations: []*edm.NavigationProperty{
					// To-one by foreign key: book.author_id = author.id.
					{Name: "Author", Target: "Author", Partner: "Books",
						Join: edm.Join{SourceColumns: []string{"author_id"}}},
				},
			},
		},
		EntitySets: []*edm.EntitySet{{Name: "Authors", Type: "Author"}, {Name: "Books", Type: "Book"}},
	}
	if err := m.Build(); err != nil {
		log.Fatal(err)
	}

	books := m.EntitySet("books") // case-insensitive
	fmt.Println(books.Name, "->", books.EntityType().Table, "| AuthorId column:", books.EntityType().Property("authorid").Column)

	var buf bytes.Buffer
	if err := m.WriteXML(&buf); err != nil {
		log.Fatal(err)
	}
	xml := buf.String()
	start := strings.Index(xml, `      <EntityType Name="Book">`)
	end := strings.Index(xml[start:], "</EntityType>") + start
	fmt.Println(xml[start:end] + "</EntityType>")
	// Output:
	// Books -> book | AuthorId column: author_id
	//       <EntityType Name="Book">
	//         <Key>
	//           <PropertyRef Name="Id"/>
	//         </Key>
	//         <Property Name="Id" Type="Edm.String" Nullable="false" MaxLength="24">
	//           <Annotation Term="Org.OData.Core.V1.Computed" Bool="true"/>
	//         </Property>
	//         <Property Name="Title" Type="Edm.String" Nullable="false" MaxLength="200"/>
	//         <Property Name="AuthorId" Type="Edm.String" Nullable="false" MaxLength="24"/>
	//         <Property Name="Price" Type="Edm.Decimal" Precision="19" Scale="4"/>
	//         <NavigationProperty Name="Author" Type="Library.Author" Nullable="false" Partner="Books">
	//           <ReferentialConstraint Property="AuthorId" ReferencedProperty="Id"/>
	//         </NavigationProperty>
	//       </EntityType>
}

// ExampleEnumType_Format shows how flags values travel in JSON.
func ExampleEnumType_Format() {
	perms := &edm.EnumType{Name: "Permissions", Flags: true, Members: []edm.EnumMember{
		{Name: "Read", Value: 1}, {Name: "Write", Value: 2}, {Name: "Delete", Value: 4},
	}}
	fmt.Println(perms.Format(5))
	v, _ := perms.Parse("Read,Write")
	fmt.Println(v)
	// Output:
	// Read,Delete
	// 3
}

// ExampleProperty_ExpandSQL shows a Boolean computed by SQL over the entity's table.
func ExampleProperty_ExpandSQL() {
	m := &edm.Model{Namespace: "Shop", EntityTypes: []*edm.EntityType{{
		Name: "Customer",
		Key:  []string{"Id"},
		Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindString},
			{Name: "HasPassword", Type: edm.KindBoolean, SQL: "{{.}}.password_hash IS NOT NULL"},
		},
	}}}
	if err := m.Build(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.EntityType("Customer").Property("HasPassword").ExpandSQL(`"t0"`))
	// Output:
	// "t0".password_hash IS NOT NULL
}

// ExampleParseDuration shows the ISO 8601 form of Edm.Duration.
func ExampleParseDuration() {
	d, _ := edm.ParseDuration("P1DT2H3M4.5S")
	fmt.Println(d, edm.FormatDuration(d))
	// Output:
	// 26h3m4.5s P1DT2H3M4.5S
}

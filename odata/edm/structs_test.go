package edm_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
)

// Example derives the entity types of a library from Go structs, builds the model and prints the CSDL of one.
func ExampleEntityTypesOf() {
	type Book struct {
		Id       int64            `odata:",key,generated"`
		Title    string           `odata:",maxlength=200,required,searchable"`
		Price    *decimal.Decimal `odata:",precision=10,scale=2"` // a pointer: nullable
		AuthorId string           `odata:",required"`
		Author   any              `odata:"-"`
	}
	type Author struct {
		Id    string `odata:",key,readonly"`
		Name  string `odata:",maxlength=100,description=The name, as printed on the cover"`
		Books []Book `odata:",fk=AuthorId"` // to-many: book.author_id = author.id
	}
	types, err := edm.EntityTypesOf(Author{}, Book{})
	if err != nil {
		log.Fatal(err)
	}
	m := &edm.Model{Namespace: "Library", EntityTypes: types,
		EntitySets: []*edm.EntitySet{{Name: "Authors", Type: "Author"}, {Name: "Books", Type: "Book"}}}
	if err := m.Build(); err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.WriteXML(&buf); err != nil {
		log.Fatal(err)
	}
	xml := buf.String()
	start := strings.Index(xml, `      <EntityType Name="Author">`)
	end := strings.Index(xml, `      <EntityContainer`)
	fmt.Print(xml[start:end])
	// Output:
	//       <EntityType Name="Author">
	//         <Key>
	//           <PropertyRef Name="Id"/>
	//         </Key>
	//         <Property Name="Id" Type="Edm.String" Nullable="false">
	//           <Annotation Term="Org.OData.Core.V1.Computed" Bool="true"/>
	//         </Property>
	//         <Property Name="Name" Type="Edm.String" Nullable="false" MaxLength="100">
	//           <Annotation Term="Org.OData.Core.V1.Description" String="The name, as printed on the cover"/>
	//         </Property>
	//         <NavigationProperty Name="Books" Type="Collection(Library.Book)"/>
	//       </EntityType>
	//       <EntityType Name="Book">
	//         <Key>
	//           <PropertyRef Name="Id"/>
	//         </Key>
	//         <Property Name="Id" Type="Edm.Int64" Nullable="false">
	//           <Annotation Term="Org.OData.Core.V1.Computed" Bool="true"/>
	//         </Property>
	//         <Property Name="Title" Type="Edm.String" Nullable="false" MaxLength="200"/>
	//         <Property Name="Price" Type="Edm.Decimal" Precision="10" Scale="2"/>
	//         <Property Name="AuthorId" Type="Edm.String" Nullable="false"/>
	//       </EntityType>
}

type level int8

var levelEnum = &edm.EnumType{Name: "Level", UnderlyingType: edm.KindSByte, Members: []edm.EnumMember{{Name: "Low", Value: 1}}}

func (level) EnumType() *edm.EnumType { return levelEnum }

type code string

type point struct{ X, Y float64 }

type Spot struct {
	At   point `odata:"Where"`
	Near *point
}

type Kinds struct {
	String    string `odata:",key"`
	Code      code
	Bool      bool
	Int8      int8
	Int16     int16
	Int32     int32
	Int64     int64
	Int       int
	Uint8     uint8
	Float32   float32
	Float64   float64
	Decimal   decimal.Decimal `odata:",precision=19,scale=4"`
	Date      edm.Date
	TimeOfDay edm.TimeOfDay
	Time      time.Time
	Duration  time.Duration
	Bytes     []byte
	Level     level
	Spot      Spot
	Ptr       *int32
	Strings   []string
	Levels    []*level
}

type Tags struct {
	Base
	ID      int64           `odata:"Id,key,generated"`
	Name    string          `odata:",maxlength=20,required,searchable,immutable,default=none,column=label"`
	Price   decimal.Decimal `odata:",precision=10,scale=2,default=9.99,storage=exact"`
	Narrow  int64           `odata:",type=Int32,readonly,default=-3"`
	Guid    string          `odata:",type=Edm.Guid,lazy"`
	Photo   []byte          `odata:",nullable,stdbase64,maxlength=1024"`
	When    time.Time       `odata:",precision=3,default=2026-01-02T03:04:05Z"`
	Level   level           `odata:",default=Low"`
	Note    string          `odata:",description=Free text, with commas, kept"`
	Skipped string          `odata:"-"`
	hidden  string
}

// Base is embedded: its fields are the outer struct's.
type Base struct {
	Created time.Time `odata:",readonly"`
}

type Owner struct {
	Id     string `odata:",key"`
	Pets   []Pet  `odata:",fk=OwnerRef,partner=Owner"`
	Toys   []*Toy `odata:",link=owner_toy,description=Toys, shared"`
	Shared []Toy  `odata:",link=shares,linksource=holder,linktarget=thing"`
}

type Pet struct {
	OwnerRef string `odata:",key,column=owner"`
	No       int32  `odata:",key"`
	Owner    Owner  `odata:",fk=OwnerRef,partner=Pets"`
	Friend   *Pet   `odata:",fkcolumns=friend_owner;friend_no,nullable"`
	Litter   []Pet  `odata:",fkcolumns=mother_owner;mother_no,contains"`
}

type Toy struct {
	Code  string   `odata:",key"`
	Owner []*Owner `odata:",link=owner_toy"`
}

// TestEntityTypesOf compares the declarations derived from structs with the literal ones.
func TestEntityTypesOf(t *testing.T) {
	spot := &edm.ComplexType{Name: "point", Properties: []*edm.Property{{Name: "X", Type: edm.KindDouble}, {Name: "Y", Type: edm.KindDouble}}}
	spotType := &edm.ComplexType{Name: "Spot", Properties: []*edm.Property{{Name: "Where", Complex: spot}, {Name: "Near", Complex: spot, Nullable: true}}}
	owner := &edm.EntityType{Name: "Owner", Key: []string{"Id"}, Properties: []*edm.Property{{Name: "Id", Type: edm.KindString}},
		Navigations: []*edm.NavigationProperty{
			{Name: "Pets", Target: "Pet", Collection: true, Partner: "Owner", Join: edm.Join{TargetColumns: []string{"owner"}}},
			{Name: "Toys", Target: "Toy", Collection: true, Description: "Toys, shared", Join: edm.Join{Through: &edm.LinkTable{
				Table: "owner_toy", SourceColumns: []string{"owner_id"}, TargetColumns: []string{"toy_code"}}}},
			{Name: "Shared", Target: "Toy", Collection: true, Join: edm.Join{Through: &edm.LinkTable{
				Table: "shares", SourceColumns: []string{"holder"}, TargetColumns: []string{"thing"}}}},
		}}
	pet := &edm.EntityType{Name: "Pet", Key: []string{"OwnerRef", "No"}, Properties: []*edm.Property{
		{Name: "OwnerRef", Type: edm.KindString, Column: "owner"}, {Name: "No", Type: edm.KindInt32}},
		Navigations: []*edm.NavigationProperty{
			{Name: "Owner", Target: "Owner", Partner: "Pets", Join: edm.Join{SourceColumns: []string{"owner"}}},
			{Name: "Friend", Target: "Pet", Nullable: true, Join: edm.Join{SourceColumns: []string{"friend_owner", "friend_no"}}},
			{Name: "Litter", Target: "Pet", Collection: true, ContainsTarget: true, Join: edm.Join{TargetColumns: []string{"mother_owner", "mother_no"}}},
		}}
	toy := &edm.EntityType{Name: "Toy", Key: []string{"Code"}, Properties: []*edm.Property{{Name: "Code", Type: edm.KindString}},
		Navigations: []*edm.NavigationProperty{{Name: "Owner", Target: "Owner", Collection: true, Join: edm.Join{Through: &edm.LinkTable{
			Table: "owner_toy", SourceColumns: []string{"toy_code"}, TargetColumns: []string{"owner_id"}}}}}}
	for _, tc := range []struct {
		name   string
		values []any
		want   []*edm.EntityType
	}{
		{"kinds", []any{Kinds{}}, []*edm.EntityType{{Name: "Kinds", Key: []string{"String"}, Properties: []*edm.Property{
			{Name: "String", Type: edm.KindString}, {Name: "Code", Type: edm.KindString}, {Name: "Bool", Type: edm.KindBoolean},
			{Name: "Int8", Type: edm.KindSByte}, {Name: "Int16", Type: edm.KindInt16}, {Name: "Int32", Type: edm.KindInt32},
			{Name: "Int64", Type: edm.KindInt64}, {Name: "Int", Type: edm.KindInt64}, {Name: "Uint8", Type: edm.KindByte},
			{Name: "Float32", Type: edm.KindSingle}, {Name: "Float64", Type: edm.KindDouble},
			{Name: "Decimal", Type: edm.KindDecimal, Precision: 19, Scale: 4}, {Name: "Date", Type: edm.KindDate},
			{Name: "TimeOfDay", Type: edm.KindTimeOfDay}, {Name: "Time", Type: edm.KindDateTimeOffset},
			{Name: "Duration", Type: edm.KindDuration}, {Name: "Bytes", Type: edm.KindBinary}, {Name: "Level", Enum: levelEnum},
			{Name: "Spot", Complex: spotType}, {Name: "Ptr", Type: edm.KindInt32, Nullable: true},
			{Name: "Strings", Type: edm.KindString, Collection: true},
			{Name: "Levels", Enum: levelEnum, Collection: true, Nullable: true},
		}}}},
		{"tags", []any{&Tags{}}, []*edm.EntityType{{Name: "Tags", Key: []string{"Id"}, Properties: []*edm.Property{
			{Name: "Created", Type: edm.KindDateTimeOffset, ReadOnly: true},
			{Name: "Id", Type: edm.KindInt64, Generated: true},
			{Name: "Name", Type: edm.KindString, MaxLength: 20, Required: true, Searchable: true, Immutable: true, Default: "none", Column: "label"},
			{Name: "Price", Type: edm.KindDecimal, Precision: 10, Scale: 2, Default: decimal.RequireFromString("9.99"), DecimalStorage: edm.DecimalExact},
			{Name: "Narrow", Type: edm.KindInt32, ReadOnly: true, Default: int64(-3)},
			{Name: "Guid", Type: edm.KindGuid, Lazy: true},
			{Name: "Photo", Type: edm.KindBinary, Nullable: true, StandardBase64: true, MaxLength: 1024},
			{Name: "When", Type: edm.KindDateTimeOffset, Precision: 3, Default: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
			{Name: "Level", Enum: levelEnum, Default: "Low"},
			{Name: "Note", Type: edm.KindString, Description: "Free text, with commas, kept"},
		}}}},
		{"navigations", []any{Owner{}, Pet{}, Toy{}}, []*edm.EntityType{owner, pet, toy}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := edm.EntityTypesOf(tc.values...)
			if err != nil {
				t.Fatal(err)
			}
			opts := cmp.Options{cmpopts.IgnoreUnexported(edm.EntityType{}, edm.Property{}, edm.NavigationProperty{},
				edm.ComplexType{}, edm.EnumType{})}
			if diff := cmp.Diff(tc.want, got, opts); diff != "" {
				t.Errorf("EntityTypesOf(%s) mismatch (-want +got):\n%s", tc.name, diff)
			}
		})
	}
	// Derived together, the types build into a model: the properties of one Go type share one complex or enum type.
	types, err := edm.EntityTypesOf(Kinds{}, Owner{}, Pet{}, Toy{})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&edm.Model{Namespace: "T", EntityTypes: types}).Build(); err != nil {
		t.Errorf("Build of the derived types = %v", err)
	}
}

type badTags struct {
	Id       string `odata:",key,maxlength=x,bogus,required=yes,precision"`
	Count    uint32
	Many     **int
	Map      map[string]int
	Opt      *[]string
	Grid     [][]string
	Flag     bool            `odata:",nullable,type=Int32"`
	Price    decimal.Decimal `odata:",storage=text,default=x"`
	Name     string          `odata:",type=Edm.Nope"`
	Empty    string          `odata:",,"`
	Twice    string          `odata:",required,required"`
	Unnamed  struct{ A int }
	Entity   badNav
	Entities []*badNav
	Nav      []badNav `odata:",fk=Missing,partner=X,maxlength=3"`
	Both     *badNav  `odata:",fk=Id,link=t"`
	Foreign  *Toy     `odata:",fk=Code"`
	Lone     *badNav  `odata:",fk=Id,linksource=a,contains=yes"`
	secret   string   `odata:"Secret"`
	*Base
}

type badNav struct {
	Id   string `odata:",key"`
	Dims []badComplex
	Box  badComplex
}

type badComplex struct {
	K   string   `odata:",key"`
	Nav []badNav `odata:",fk=Id"`
}

type noKey struct{ Name string }

// TestEntityTypesOf_Errors checks that every wrong declaration is reported, each naming its struct and field.
func TestEntityTypesOf_Errors(t *testing.T) {
	_, err := edm.EntityTypesOf(badTags{}, badNav{}, noKey{}, badNav{}, 3, struct{ A int }{})
	if err == nil {
		t.Fatal("EntityTypesOf of wrong structs succeeded")
	}
	want := []string{
		`edm: struct "badNav": given twice`,
		`edm: value #5: int is not a struct or a pointer to one`,
		`edm: value #6: an entity type needs a named struct type`,
		`edm: struct "badTags": field Empty: tag ",,": empty option`,
		`edm: struct "badTags": field Twice: tag ",required,required": option required given twice`,
		`edm: struct "badTags": field secret: the field is not exported`,
		`edm: struct "badTags": field Base: an embedded pointer to a struct is not supported (embed the struct, or tag the field)`,
		`edm: struct "badTags": field "Id": maxlength=x: not a non-negative integer`,
		`edm: struct "badTags": field "Id": unknown option "bogus"`,
		`edm: struct "badTags": field "Id": option required takes no value`,
		`edm: struct "badTags": field "Id": option precision needs a value (precision=...)`,
		`edm: struct "badTags": field "Count": the Go type uint32 has no EDM type`,
		`edm: struct "badTags": field "Many": a pointer to a pointer (*int) has no EDM type`,
		`edm: struct "badTags": field "Map": the Go type map[string]int has no EDM type`,
		`edm: struct "badTags": field "Opt": a pointer to a slice: a collection is never null (use the slice)`,
		`edm: struct "badTags": field "Grid": the Go type [][]string has no EDM type: a collection holds primitive or enum values`,
		`edm: struct "badTags": field "Flag": type=Int32: a field of this Go type cannot hold Edm.Int32 values`,
		`edm: struct "badTags": field "Flag": option nullable applies to []byte and navigations; other properties are nullable as pointers (*T)`,
		`edm: struct "badTags": field "Price": storage=text: not auto, scaled, exact or float (DecimalStorage DecimalAuto, DecimalScaled, DecimalExact or DecimalFloat)`,
		`edm: struct "badTags": field "Price": default=x: not a value of Edm.Decimal`,
		`edm: struct "badTags": field "Name": type=Edm.Nope: not an EDM primitive type`,
		`edm: struct "badTags": field "Unnamed": an unnamed struct type cannot be a complex type`,
		`edm: struct "badNav": field "Dims": the Go type []edm_test.badComplex has no EDM type: a collection holds primitive or enum values`,
		`edm: struct "badComplex": field "K": a complex type has no key`,
		`edm: struct "badComplex": field "Nav": a complex type has no navigation properties`,
		`edm: struct "noKey": no key: name the key field ID or tag the key field(s) with odata:",key"`,
		`edm: struct "badTags": field "Entity": no foreign key: give badTags a property EntityID, or tag the field with fk=, fkcolumns= or link=`,
		`edm: struct "badTags": field "Entities": no foreign key: give badNav a property badTagsID, or tag the field with fk=, fkcolumns= or link=`,
		`edm: struct "badTags": field "Nav": fk=Missing: badNav has no primitive property "Missing"`,
		`edm: struct "badTags": field "Nav": option "maxlength" does not apply to a navigation`,
		`edm: struct "badTags": field "Both": give one of fk=, fkcolumns= and link=`,
		`edm: struct "badTags": field "Foreign": a navigation leads to a struct of the same EntityTypesOf call (T, *T, []T or []*T), not *edm_test.Toy`,
		`edm: struct "badTags": field "Lone": option contains takes no value`,
		`edm: struct "badTags": field "Lone": option linksource needs link=`,
	}
	if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("EntityTypesOf errors mismatch (-want +got):\n%s", diff)
	}
}

// timeStorages declares the time storage of its fields in tags.
type timeStorages struct {
	Id      int64          `odata:",key"`
	Created time.Time      `odata:",storage=sql"`
	Seen    *time.Time     `odata:",storage=unix"`
	Opens   edm.TimeOfDay  `odata:",storage=sql"`
	Closes  *edm.TimeOfDay `odata:",storage=auto"`
}

// TestEntityTypesOf_TimeStorage checks the storage= option of time fields, and that a decimal storage name is
// refused for them.
func TestEntityTypesOf_TimeStorage(t *testing.T) {
	types, err := edm.EntityTypesOf(timeStorages{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]edm.TimeStorage{}
	for _, p := range types[0].Properties {
		got[p.Name] = p.TimeStorage
	}
	want := map[string]edm.TimeStorage{"Id": edm.TimeAuto, "Created": edm.TimeSQL, "Seen": edm.TimeUnix,
		"Opens": edm.TimeSQL, "Closes": edm.TimeAuto}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TimeStorage by property (-want +got):\n%s", diff)
	}
	type wrong struct {
		Id  int64     `odata:",key"`
		Due time.Time `odata:",storage=float"`
	}
	_, err = edm.EntityTypesOf(wrong{})
	if want := `edm: struct "wrong": field "Due": storage=float: not auto, sql or unix (TimeStorage TimeAuto, TimeSQL or TimeUnix)`; err == nil || err.Error() != want {
		t.Errorf("EntityTypesOf(storage=float on a time.Time) = %v, want %s", err, want)
	}
}

type convTeam struct {
	ID      int
	Name    string
	Players []convPlayer
}

type convPlayer struct {
	Id, ConvTeamId int64
	Coach          *convCoach
	CoachID        *string
}

type convCoach struct {
	ID   string
	Name string
}

// TestEntityTypesOf_Conventions derives keys and joins that no tag names: a field named ID (or Id) is the key,
// generated by the database when it is an integer, and a navigation's foreign key is the property named after
// it (to-one) or after its source (to-many) with ID (or Id) appended.
func TestEntityTypesOf_Conventions(t *testing.T) {
	types, err := edm.EntityTypesOf(convTeam{}, convPlayer{}, convCoach{})
	if err != nil {
		t.Fatal(err)
	}
	type summary struct {
		Key       []string
		Generated bool
		Joins     map[string]edm.Join
	}
	got := map[string]summary{}
	for _, et := range types {
		s := summary{Key: et.Key, Joins: map[string]edm.Join{}}
		for _, p := range et.Properties {
			if p.Name == et.Key[0] {
				s.Generated = p.Generated
			}
		}
		for _, n := range et.Navigations {
			s.Joins[n.Name] = n.Join
		}
		got[et.Name] = s
	}
	want := map[string]summary{
		"convTeam":   {Key: []string{"ID"}, Generated: true, Joins: map[string]edm.Join{"Players": {TargetColumns: []string{"conv_team_id"}}}},
		"convPlayer": {Key: []string{"Id"}, Generated: true, Joins: map[string]edm.Join{"Coach": {SourceColumns: []string{"coach_id"}}}},
		"convCoach":  {Key: []string{"ID"}, Joins: map[string]edm.Join{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("EntityTypesOf conventions mismatch (-want +got):\n%s", diff)
	}
}

// treeNode declares the recursive hierarchy Tree by the tag of its parent navigation.
type treeNode struct {
	ID       int64
	Name     string
	ParentID *int64
	Parent   *treeNode `odata:",fk=ParentID,nullable,hierarchy=Tree"`
}

func TestEntityTypesOf_Hierarchy(t *testing.T) {
	types, err := edm.EntityTypesOf(treeNode{})
	if err != nil {
		t.Fatal(err)
	}
	m := &edm.Model{Namespace: "Trees", EntityTypes: types, EntitySets: []*edm.EntitySet{{Name: "Nodes", Type: "treeNode"}}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	got, ok := m.EntityType("treeNode").RecursiveHierarchy("Tree")
	want := edm.RecursiveHierarchy{Qualifier: "Tree", NodeProperty: "ID", ParentNavigation: "Parent"}
	if diff := cmp.Diff(want, got); !ok || diff != "" {
		t.Errorf("RecursiveHierarchy(%q) = %v (-want +got):\n%s", "Tree", ok, diff)
	}
	if _, ok := m.EntityType("treeNode").RecursiveHierarchy("Other"); ok {
		t.Errorf("RecursiveHierarchy(%q) found a hierarchy the type does not declare", "Other")
	}
}

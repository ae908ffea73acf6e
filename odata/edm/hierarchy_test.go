package edm_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/edm"
)

// hierarchyModel returns a model with a hierarchy Item <- Book <- SignedBook (declared before its bases) and an
// abstract root Shape with a derived Circle.
func hierarchyModel() *edm.Model {
	return &edm.Model{
		Namespace: "Shop",
		EntityTypes: []*edm.EntityType{
			{Name: "SignedBook", BaseType: "Shop.Book", Properties: []*edm.Property{
				{Name: "Signer", Type: edm.KindString, Nullable: true}}},
			{Name: "Item", Key: []string{"Id"}, ETag: []string{"Version"}, Properties: []*edm.Property{
				{Name: "Id", Type: edm.KindString},
				{Name: "Name", Type: edm.KindString},
				{Name: "Version", Type: edm.KindInt32}}},
			{Name: "Book", BaseType: "Item", Properties: []*edm.Property{
				{Name: "Pages", Type: edm.KindInt32, Nullable: true}},
				Navigations: []*edm.NavigationProperty{{Name: "Shelf", Target: "Shelf", Nullable: true,
					Join: edm.Join{SourceColumns: []string{"shelf_id"}}}}},
			{Name: "Shelf", Key: []string{"Id"}, Properties: []*edm.Property{{Name: "Id", Type: edm.KindString}}},
			{Name: "Shape", Key: []string{"Id"}, Abstract: true, DiscriminatorColumn: "kind", Properties: []*edm.Property{
				{Name: "Id", Type: edm.KindString}}},
			{Name: "Circle", BaseType: "Shape", Properties: []*edm.Property{{Name: "Radius", Type: edm.KindDouble}}},
		},
		EntitySets: []*edm.EntitySet{{Name: "Items", Type: "Item"}, {Name: "Shelves", Type: "Shelf"},
			{Name: "Shapes", Type: "Shape"}},
	}
}

func names[T any](list []T, name func(T) string) []string {
	var out []string
	for _, x := range list {
		out = append(out, name(x))
	}
	return out
}

func propertyNames(list []*edm.Property) []string {
	return names(list, func(p *edm.Property) string { return p.Name })
}

func typeNames(list []*edm.EntityType) []string {
	return names(list, func(t *edm.EntityType) string { return t.Name })
}

func TestBuildHierarchy(t *testing.T) {
	m := hierarchyModel()
	if err := m.Build(); err != nil {
		t.Fatalf("Build() = %v", err)
	}
	item, book, signed, shape := m.EntityType("Item"), m.EntityType("Book"), m.EntityType("SignedBook"), m.EntityType("Shape")
	type view struct {
		Base, Root, Table, Discriminator string
		Properties, Declared, Hierarchy  []string
		Key, ETag, Derived, Navigations  []string
		Polymorphic                      bool
	}
	describe := func(t *edm.EntityType) view {
		v := view{Root: t.Root().Name, Table: t.Table, Discriminator: t.Discriminator(), Polymorphic: t.Polymorphic(),
			Properties: propertyNames(t.Properties), Declared: propertyNames(t.DeclaredProperties()),
			Hierarchy: propertyNames(t.HierarchyProperties()), Key: propertyNames(t.KeyProperties()),
			ETag: propertyNames(t.ETagProperties()), Derived: typeNames(t.DerivedTypes()),
			Navigations: names(t.Navigations, func(n *edm.NavigationProperty) string { return n.Name })}
		if t.Base() != nil {
			v.Base = t.Base().Name
		}
		return v
	}
	tests := []struct {
		typ  *edm.EntityType
		want view
	}{
		{item, view{Root: "Item", Table: "item", Discriminator: "odata_type", Polymorphic: true,
			Properties: []string{"Id", "Name", "Version"}, Declared: []string{"Id", "Name", "Version"},
			Hierarchy: []string{"Id", "Name", "Version", "Pages", "Signer"}, Key: []string{"Id"},
			ETag: []string{"Version"}, Derived: []string{"Book", "SignedBook"}}},
		{book, view{Base: "Item", Root: "Item", Table: "item", Discriminator: "odata_type", Polymorphic: true,
			Properties: []string{"Id", "Name", "Version", "Pages"}, Declared: []string{"Pages"},
			Hierarchy: []string{"Id", "Name", "Version", "Pages", "Signer"}, Key: []string{"Id"},
			ETag: []string{"Version"}, Derived: []string{"SignedBook"}, Navigations: []string{"Shelf"}}},
		{signed, view{Base: "Book", Root: "Item", Table: "item", Discriminator: "odata_type", Polymorphic: true,
			Properties: []string{"Id", "Name", "Version", "Pages", "Signer"}, Declared: []string{"Signer"},
			Hierarchy: []string{"Id", "Name", "Version", "Pages", "Signer"}, Key: []string{"Id"},
			ETag: []string{"Version"}, Navigations: []string{"Shelf"}}},
		{m.EntityType("Shelf"), view{Root: "Shelf", Table: "shelf", Properties: []string{"Id"}, Declared: []string{"Id"},
			Hierarchy: []string{"Id"}, Key: []string{"Id"}, ETag: []string{"Id"}}},
		{shape, view{Root: "Shape", Table: "shape", Discriminator: "kind", Polymorphic: true, Properties: []string{"Id"},
			Declared: []string{"Id"}, Hierarchy: []string{"Id", "Radius"}, Key: []string{"Id"}, ETag: []string{"Id"},
			Derived: []string{"Circle"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, describe(tt.typ)); diff != "" {
			t.Errorf("EntityType %s (-want +got):\n%s", tt.typ.Name, diff)
		}
	}
	if book.Property("Name") != item.Property("Name") || signed.Navigation("Shelf") != book.Navigation("Shelf") {
		t.Error("inherited members are not the base's")
	}
	if !signed.IsA(item) || !book.IsA(book) || item.IsA(book) || shape.IsA(item) {
		t.Error("IsA does not follow the hierarchy")
	}
}

func TestBuildHierarchyErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(m *edm.Model)
		want   []string
	}{
		{"unknown base", func(m *edm.Model) { m.EntityTypes[2].BaseType = "Thing" }, []string{`entity type "Book": base type "Thing" does not exist`}},
		{"cycle", func(m *edm.Model) { m.EntityTypes[1].BaseType = "SignedBook" }, []string{"its base types form a cycle"}},
		{"key on a derived type", func(m *edm.Model) { m.EntityTypes[2].Key = []string{"Pages"} }, []string{`entity type "Book": a derived type declares no key`}},
		{"ETag on a derived type", func(m *edm.Model) { m.EntityTypes[2].ETag = []string{"Pages"} }, []string{"a derived type declares no ETag"}},
		{"own table", func(m *edm.Model) { m.EntityTypes[2].Table = "book" }, []string{`stored in the table of its root type ("item"), not in "book"`}},
		{"duplicate property", func(m *edm.Model) {
			m.EntityTypes[0].Properties = append(m.EntityTypes[0].Properties, &edm.Property{Name: "Name", Type: edm.KindString})
		}, []string{`entity type "SignedBook": duplicate property "Name"`}},
		{"sibling columns", func(m *edm.Model) {
			m.EntityTypes = append(m.EntityTypes, &edm.EntityType{Name: "Disc", BaseType: "Item",
				Properties: []*edm.Property{{Name: "Pages", Type: edm.KindInt64, Nullable: true}}})
		}, []string{`entity type "Disc": property "Pages": column "pages" of the hierarchy's table is also the column of property "Pages" of "Book"`}},
		{"discriminator clash", func(m *edm.Model) { m.EntityTypes[4].DiscriminatorColumn = "id" }, []string{`column "id" of the hierarchy's table is also the column of the discriminator`}},
		{"discriminator on a derived type", func(m *edm.Model) { m.EntityTypes[2].DiscriminatorColumn = "t" }, []string{"only the root of a hierarchy declares DiscriminatorColumn"}},
		{"navigation to a derived type", func(m *edm.Model) {
			m.EntityTypes[3].Navigations = []*edm.NavigationProperty{{Name: "Books", Target: "Book", Collection: true,
				Join: edm.Join{TargetColumns: []string{"shelf_id"}}}}
		}, []string{`the target "Book" is a derived type`}},
	}
	for _, tt := range tests {
		m := hierarchyModel()
		tt.change(m)
		err := m.Build()
		if err == nil {
			t.Errorf("%s: Build() = nil, want errors %q", tt.name, tt.want)
			continue
		}
		for _, want := range tt.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: Build() = %v, want it to contain %q", tt.name, err, want)
			}
		}
	}
}

// TestBuildHierarchyAfterFix checks that a failed Build leaves the declarations as written.
func TestBuildHierarchyAfterFix(t *testing.T) {
	m := hierarchyModel()
	m.EntityTypes[2].Key = []string{"Id"}
	if err := m.Build(); err == nil {
		t.Fatal("Build() = nil, want an error")
	}
	if got := propertyNames(m.EntityTypes[0].Properties); !cmp.Equal(got, []string{"Signer"}) {
		t.Fatalf("after a failed Build SignedBook has properties %v, want [Signer]", got)
	}
	m.EntityTypes[2].Key = nil
	if err := m.Build(); err != nil {
		t.Fatalf("Build() after the fix = %v", err)
	}
}

func TestWriteHierarchy(t *testing.T) {
	m := hierarchyModel()
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	var x bytes.Buffer
	if err := m.WriteXML(&x); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<EntityType Name="SignedBook" BaseType="Shop.Book">`,
		`<EntityType Name="Book" BaseType="Shop.Item">`,
		`<EntityType Name="Shape" Abstract="true">`,
	} {
		if !strings.Contains(x.String(), want) {
			t.Errorf("WriteXML() lacks %s:\n%s", want, x.String())
		}
	}
	var j bytes.Buffer
	if err := m.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(j.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	schema, _ := doc["Shop"].(map[string]any)
	got := map[string]any{"Book": schema["Book"], "Shape": schema["Shape"]}
	want := map[string]any{
		"Book": map[string]any{"$Kind": "EntityType", "$BaseType": "Shop.Item",
			"Pages": map[string]any{"$Type": "Edm.Int32", "$Nullable": true},
			"Shelf": map[string]any{"$Kind": "NavigationProperty", "$Type": "Shop.Shelf", "$Nullable": true}},
		"Shape": map[string]any{"$Kind": "EntityType", "$Abstract": true, "$Key": []any{"Id"},
			"Id": map[string]any{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WriteJSON() types (-want +got):\n%s", diff)
	}
}

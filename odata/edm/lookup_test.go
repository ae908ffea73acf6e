package edm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/storekit/store/odata/edm"
)

func builtSample(tb testing.TB) *edm.Model {
	tb.Helper()
	m := sampleModel()
	if err := m.Build(); err != nil {
		tb.Fatal(err)
	}
	return m
}

func TestEntitySetLookup(t *testing.T) {
	m := builtSample(t)
	for _, name := range []string{"Category", "category", "CATEGORY", "cAtEgOrY"} {
		if got := m.EntitySet(name); got == nil || got.Name != "Category" {
			t.Errorf("EntitySet(%q) = %v, want Category", name, got)
		}
	}
	for _, name := range []string{"", "Categories", "Store.Category", "Category ", strings.Repeat("x", 300)} {
		if got := m.EntitySet(name); got != nil {
			t.Errorf("EntitySet(%q) = %v, want nil", name, got.Name)
		}
	}
	if got := m.Singleton("settings"); got == nil || got.Name != "Settings" {
		t.Errorf("Singleton(%q) = %v, want Settings", "settings", got)
	}
	if got := m.EntitySet("Settings"); got != nil {
		t.Errorf("EntitySet(%q) = %v, want nil (a singleton)", "Settings", got.Name)
	}
}

func TestTypeLookup(t *testing.T) {
	m := builtSample(t)
	for _, name := range []string{"Product", "product", "Store.Product", "store.PRODUCT"} {
		if got := m.EntityType(name); got == nil || got.Name != "Product" {
			t.Errorf("EntityType(%q) = %v, want Product", name, got)
		}
	}
	for _, name := range []string{"Other.Product", "Store.", "Store.Store.Product", "ProductType"} {
		if got := m.EntityType(name); got != nil {
			t.Errorf("EntityType(%q) = %v, want nil", name, got.Name)
		}
	}
	if got := m.EnumType("Store.ProductType"); got == nil || got.Name != "ProductType" {
		t.Errorf("EnumType(%q) = %v, want ProductType", "Store.ProductType", got)
	}
	if got := m.ComplexType("postaladdress"); got == nil || got.Name != "PostalAddress" {
		t.Errorf("ComplexType(%q) = %v, want PostalAddress", "postaladdress", got)
	}
}

func TestPropertyLookup(t *testing.T) {
	m := &edm.Model{Namespace: "N", EntityTypes: []*edm.EntityType{{
		Name: "Thing",
		Key:  []string{"Id"},
		Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindString},
			{Name: "Name", Type: edm.KindString},
			{Name: "name", Type: edm.KindString, Column: "name2"},
			{Name: "Price", Type: edm.KindInt32},
			{Name: "Ärger", Type: edm.KindInt32, Column: "aerger"},
		},
		Navigations: []*edm.NavigationProperty{
			{Name: "Parent", Target: "Thing", Nullable: true, Join: edm.Join{SourceColumns: []string{"parent_id"}}},
		},
	}}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	thing := m.EntityType("Thing")
	tests := []struct{ in, want string }{
		{"Name", "Name"},   // exact
		{"name", "name"},   // exact
		{"NAME", ""},       // two case-insensitive matches: ambiguous
		{"price", "Price"}, // unique case-insensitive match
		{"PRICE", "Price"}, // unique case-insensitive match
		{"ärger", "Ärger"}, // non-ASCII folding
		{"Parent", ""},     // a navigation, not a property
		{"Pric", ""},       // no match
		{"", ""},           // no match
	}
	for _, tt := range tests {
		got := thing.Property(tt.in)
		gotName := ""
		if got != nil {
			gotName = got.Name
		}
		if gotName != tt.want {
			t.Errorf("Property(%q) = %q, want %q", tt.in, gotName, tt.want)
		}
	}
	if got := thing.Navigation("PARENT"); got == nil || got.Name != "Parent" {
		t.Errorf("Navigation(%q) = %v, want Parent", "PARENT", got)
	}
	if got := thing.Navigation("Name"); got != nil {
		t.Errorf("Navigation(%q) = %v, want nil", "Name", got.Name)
	}
}

func TestActionLookup(t *testing.T) {
	m := builtSample(t)
	product, category := m.EntityType("Product"), m.EntityType("Category")
	for _, name := range []string{"Archive", "archive", "Store.Archive", "STORE.ARCHIVE"} {
		if got := m.ActionOverloads(name); len(got) != 3 {
			t.Errorf("ActionOverloads(%q) has %d overloads, want 3", name, len(got))
		}
	}
	if got := m.ActionOverloads("Other.Archive"); got != nil {
		t.Errorf("ActionOverloads(%q) = %v, want nil", "Other.Archive", got)
	}
	tests := []struct {
		name       string
		binding    *edm.EntityType
		collection bool
		want       *edm.Action
	}{
		{"Archive", product, false, m.ActionOverloads("Archive")[0]},
		{"store.archive", category, false, m.ActionOverloads("Archive")[1]},
		{"Archive", product, true, m.ActionOverloads("Archive")[2]},
		{"Archive", category, true, nil},
		{"Archive", nil, false, nil},
		{"ResetCatalog", nil, false, m.ActionOverloads("ResetCatalog")[0]},
		{"ResetCatalog", product, false, nil},
		{"setpassword", m.EntityType("Customer"), false, m.ActionOverloads("SetPassword")[0]},
		{"Nothing", nil, false, nil},
	}
	for _, tt := range tests {
		if got := m.Action(tt.name, tt.binding, tt.collection); got != tt.want {
			t.Errorf("Action(%q, %v, %v) = %p, want %p", tt.name, tt.binding, tt.collection, got, tt.want)
		}
	}
	if got := m.FunctionOverloads("store.bestsellers"); len(got) != 2 {
		t.Errorf("FunctionOverloads(%q) has %d overloads, want 2", "store.bestsellers", len(got))
	}
}

// TestParameterLookup checks that parameters are found by name or alias, exactly first, and that aliases stay
// out of CSDL.
func TestParameterLookup(t *testing.T) {
	m := &edm.Model{
		Namespace: "Store",
		EntityTypes: []*edm.EntityType{{Name: "Customer", Key: []string{"Id"},
			Properties: []*edm.Property{{Name: "Id", Type: edm.KindString}}}},
		EntitySets: []*edm.EntitySet{{Name: "Customer", Type: "Customer"}},
		Actions: []*edm.Action{{Name: "DeleteAddress", Bound: true, BindingType: "Customer",
			Parameters: []edm.Parameter{
				{Name: "Id", Type: edm.KindString, Required: true, Aliases: []string{"addressId"}},
				{Name: "Note", Type: edm.KindString, Aliases: []string{"comment"}},
			}}},
	}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	a := m.ActionOverloads("DeleteAddress")[0]
	for name, want := range map[string]string{
		"Id": "Id", "addressId": "Id", "ADDRESSID": "Id", "id": "Id", "note": "Note", "Comment": "Note", "other": "",
	} {
		got := ""
		if p := a.Parameter(name); p != nil {
			got = p.Name
		}
		if got != want {
			t.Errorf("Parameter(%q) = %q, want %q", name, got, want)
		}
	}
	var x, j strings.Builder
	if err := m.WriteXML(&x); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{x.String(), j.String()} {
		if strings.Contains(doc, "addressId") {
			t.Errorf("CSDL shows an alias:\n%s", doc)
		}
	}
}

// TestLookupsDoNotAllocate guards the hot-path lookups (the benchmarks below measure them).
func TestLookupsDoNotAllocate(t *testing.T) {
	m := builtSample(t)
	product := m.EntityType("Product")
	customer := m.EntityType("Customer")
	lookups := map[string]func(){
		"EntitySet exact":       func() { m.EntitySet("Category") },
		"EntitySet folded":      func() { m.EntitySet("cAtEgOrY") },
		"EntitySet missing":     func() { m.EntitySet("Nothing") },
		"EntityType qualified":  func() { m.EntityType("store.product") },
		"Property exact":        func() { product.Property("StockQuantity") },
		"Property folded":       func() { product.Property("stockquantity") },
		"Navigation folded":     func() { product.Navigation("categories") },
		"Complex member":        func() { customer.Property("BillingAddress").Property("city") },
		"Action with namespace": func() { m.Action("Store.SetPassword", customer, false) },
		"Action folded":         func() { m.Action("store.archive", product, true) },
		"Enum member":           func() { m.EnumType("ProductType").Member("simpleproduct") },
		"Property non-ASCII":    func() { product.Property("Größe") },
	}
	for name, f := range lookups {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocations per lookup, want 0", name, n)
		}
	}
}

func BenchmarkEntitySet(b *testing.B) {
	m := builtSample(b)
	for _, name := range []string{"Category", "category", "CATEGORY", "OrderItem", "orderitem", "Missing"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.EntitySet(name)
			}
		})
	}
}

func BenchmarkProperty(b *testing.B) {
	m := builtSample(b)
	product := m.EntityType("Product")
	for _, name := range []string{"StockQuantity", "stockquantity", "STOCKQUANTITY", "Missing"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				product.Property(name)
			}
		})
	}
}

func BenchmarkNavigation(b *testing.B) {
	m := builtSample(b)
	product := m.EntityType("Product")
	for _, name := range []string{"Categories", "categories"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				product.Navigation(name)
			}
		})
	}
}

func BenchmarkAction(b *testing.B) {
	m := builtSample(b)
	customer := m.EntityType("Customer")
	for _, name := range []string{"SetPassword", "Store.SetPassword", "store.setpassword"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.Action(name, customer, false)
			}
		})
	}
}

// TestConcurrentUse reads a built model from several goroutines (run with -race).
func TestConcurrentUse(t *testing.T) {
	m := builtSample(t)
	done := make(chan error)
	for range 4 {
		go func() {
			for range 50 {
				if m.EntitySet("product") == nil || m.EntityType("Product").Property("price") == nil ||
					m.Action("store.setpassword", m.EntityType("Customer"), false) == nil {
					done <- errNotFound
					return
				}
				if err := m.WriteJSON(new(strings.Builder)); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

var errNotFound = errors.New("lookup found nothing")

func TestEntitySetOf(t *testing.T) {
	m := &edm.Model{Namespace: "Store",
		EntityTypes: []*edm.EntityType{
			{Name: "Product", Key: []string{"Id"}, Properties: []*edm.Property{{Name: "Id", Type: edm.KindString}}},
			{Name: "Note", Key: []string{"Id"}, Properties: []*edm.Property{{Name: "Id", Type: edm.KindString}}},
			{Name: "Draft", Key: []string{"Id"}, Properties: []*edm.Property{{Name: "Id", Type: edm.KindString}}}},
		EntitySets: []*edm.EntitySet{{Name: "Products", Type: "Product"},
			{Name: "Notes", Type: "Note"}, {Name: "Archive", Type: "Note"}}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"Product": "Products", "Note": "", "Draft": ""} {
		got := ""
		if es := m.EntitySetOf(m.EntityType(name)); es != nil {
			got = es.Name
		}
		if got != want {
			t.Errorf("EntitySetOf(%s) = %q, want %q (empty: none or several)", name, got, want)
		}
	}
}

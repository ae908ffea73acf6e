package plan_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqlite"
)

// testRedactions redacts Product's Sku and Tags and the width of its Dimensions, Category's Name, Customer's
// BillingAddress/Location and LastName, and the navigation from an order line to its product.
func testRedactions(t *testing.T, m *edm.Model) *plan.Redactions {
	t.Helper()
	r, err := plan.NewRedactions(map[*edm.EntityType][]string{
		m.EntityType("Product"):   {"Sku", "Tags", "Dimensions/Width"},
		m.EntityType("Category"):  {"Name"},
		m.EntityType("Customer"):  {"BillingAddress/Location", "LastName"},
		m.EntityType("OrderItem"): {"Product"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRedactedQueries uses a redacted property in every option that can name one: each is a NotReadable error
// naming the property, as the planner's errors do.
func TestRedactedQueries(t *testing.T) {
	m := builtModel(t)
	p := newPlanner(m, sqlite.Dialect{})
	opts := plan.ReadOptions{Redacted: testRedactions(t, m)}
	notReadable := func(option string, pos int, property string) *plan.Error {
		return &plan.Error{Code: plan.CodeNotReadable, Option: option, Pos: pos, Msg: "the property " + property + " is not readable by this request"}
	}
	for _, c := range []struct {
		path, query string
		want        *plan.Error
	}{
		{"Product", "$select=Sku", notReadable("$select", 1, "Sku of Product")},
		{"Product", "$select=Name,Dimensions/Width", notReadable("$select", 17, "Dimensions/Width of Product")},
		{"Product", "$select=Name,Dimensions", nil},
		{"Product", "$select=*", nil},
		{"Product", "$filter=Sku eq 'x'", notReadable("$filter", 1, "Sku of Product")},
		{"Product", "$filter=Dimensions/Width gt 1", notReadable("$filter", 12, "Dimensions/Width of Product")},
		{"Product", "$filter=Dimensions/Height gt 1", nil},
		{"Product", "$filter=$it/Sku eq 'x'", notReadable("$filter", 5, "Sku of Product")},
		{"Product", "$filter=contains(Sku,'x')", notReadable("$filter", 10, "Sku of Product")},
		{"Product", "$filter=Sku in ('a','b')", notReadable("$filter", 1, "Sku of Product")},
		{"Product", "$filter=Tags/any(t:t eq 'x')", notReadable("$filter", 1, "Tags of Product")},
		{"Product", "$filter=Tags/$count gt 1", notReadable("$filter", 1, "Tags of Product")},
		{"Product", "$filter=Name eq @p&@p=Sku", notReadable("@p", 1, "Sku of Product")},
		{"Product", "$orderby=Sku desc", notReadable("$orderby", 1, "Sku of Product")},
		{"Product", "$filter=Categories/any(c:c/Name eq 'x')", notReadable("$filter", 20, "Name of Category")},
		{"Product", "$filter=Categories/all(c:c/Published)", nil},
		{"Product", "$expand=Categories($select=Name)", notReadable("$expand", 20, "Name of Category")},
		{"Product", "$expand=Categories($filter=Name eq 'x')", notReadable("$expand", 20, "Name of Category")},
		{"Product", "$expand=Categories($orderby=Name)", notReadable("$expand", 21, "Name of Category")},
		{"Product", "$expand=Categories", nil},
		{"Order", "$filter=Customer/LastName eq 'x'", notReadable("$filter", 10, "LastName of Customer")},
		{"Order", "$orderby=Customer/LastName", notReadable("$orderby", 10, "LastName of Customer")},
		{"Customer", "$filter=BillingAddress/Location/Latitude gt 1", notReadable("$filter", 16, "BillingAddress/Location of Customer")},
		{"Customer", "$filter=BillingAddress eq null", notReadable("$filter", 1, "BillingAddress/Location of Customer")},
		{"Customer", "$filter=BillingAddress/City eq 'x'", nil},
		{"Customer", "$search=ann", nil},
		{"OrderItem", "$expand=Product", notReadable("$expand", 1, "Product of OrderItem")},
		{"OrderItem", "$expand=Order", nil},
		{"OrderItem", "$filter=Product/Name eq 'x'", notReadable("$filter", 1, "Product of OrderItem")},
		{"OrderItem", "$filter=Product eq null", notReadable("$filter", 1, "Product of OrderItem")},
		{"OrderItem", "$orderby=Product/Name", notReadable("$orderby", 1, "Product of OrderItem")},
		{"Order", "$filter=Items/any(i:i/Product/Published)", notReadable("$filter", 15, "Product of OrderItem")},
		{"Order", "$expand=Items($expand=Product)", notReadable("$expand", 15, "Product of OrderItem")},
		{"Category", "$search=phones", &plan.Error{Code: plan.CodeNotReadable, Option: "$search", Pos: 1,
			Msg: "$search is not available on Category: no searchable property is readable by this request"}},
	} {
		_, err := p.ReadWith(scopeOf(t, m, c.path), encodeOptions(c.query), opts)
		var got *plan.Error
		if err != nil && !errors.As(err, &got) {
			t.Fatalf("ReadWith(%s?%s) = %v, want a *plan.Error", c.path, c.query, err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("ReadWith(%s?%s) error (-want +got):\n%s", c.path, c.query, diff)
		}
		if _, err := p.Read(scopeOf(t, m, c.path), encodeOptions(c.query)); err != nil {
			t.Errorf("Read(%s?%s) without redactions = %v", c.path, c.query, err)
		}
	}
}

// TestRedactedProjections checks that the redacted properties have no column, are no part of the ETag, are not
// searched, and that a row filter may still use them.
func TestRedactedProjections(t *testing.T) {
	m := builtModel(t)
	p := newPlanner(m, sqlite.Dialect{})
	redacted := testRedactions(t, m)
	columns := func(proj *plan.Projection, indexes []int) []string {
		var out []string
		for i, c := range proj.Columns {
			if indexes != nil && !slices.Contains(indexes, i) || len(c.Path) == 0 {
				continue
			}
			names := make([]string, len(c.Path))
			for j, p := range c.Path {
				names[j] = p.Name
			}
			out = append(out, strings.Join(names, "/"))
		}
		return out
	}
	for _, query := range []string{"", "$select=*", "$select=Id,Sku&$expand=Categories"} {
		r, err := p.ReadWith(plan.Scope{Set: m.EntitySet("Product")}, query, plan.ReadOptions{Redacted: redacted})
		if query == "$select=Id,Sku&$expand=Categories" {
			if err == nil {
				t.Errorf("ReadWith(%q) plans", query)
			}
			continue
		}
		if err != nil {
			t.Fatalf("ReadWith(%q) = %v", query, err)
		}
		for _, c := range append(columns(r.Projection, nil), columns(r.Projection, r.ETag)...) {
			if c == "Sku" || c == "Tags" || c == "Dimensions/Width" {
				t.Errorf("ReadWith(%q): column %s is read", query, c)
			}
		}
		if got := columns(r.Projection, nil); !slices.Contains(got, "Dimensions/Height") || !slices.Contains(got, "Name") {
			t.Errorf("ReadWith(%q) columns %v, want Name and Dimensions/Height", query, got)
		}
	}
	// $search over Product: Name only, not the redacted Sku.
	r, err := p.ReadWith(plan.Scope{Set: m.EntitySet("Product")}, "$search=x", plan.ReadOptions{Redacted: redacted})
	if err != nil {
		t.Fatal(err)
	}
	if sql, _ := r.Select(10); !strings.Contains(sql, `"name"`) || strings.Contains(sql, `"sku"`) {
		t.Errorf("$search SQL = %s, want name and not sku", sql)
	}
	// $expand=* leaves out a redacted navigation.
	r, err = p.ReadWith(plan.Scope{Set: m.EntitySet("OrderItem")}, "$expand=*", plan.ReadOptions{Redacted: redacted})
	if err != nil {
		t.Fatal(err)
	}
	var expanded []string
	for _, e := range r.Expands {
		expanded = append(expanded, e.Nav.Name)
	}
	if diff := cmp.Diff([]string{"Order"}, expanded); diff != "" {
		t.Errorf("OrderItem?$expand=* expands (-want +got):\n%s", diff)
	}
	// A row filter is the service's: it may use a redacted property.
	filters := plan.NewRowFilters(map[*edm.EntityType]string{m.EntityType("Product"): "Sku ne 'hidden'"})
	if _, err := p.ReadWith(plan.Scope{Set: m.EntitySet("Product")}, "", plan.ReadOptions{Filters: filters, Redacted: redacted}); err != nil {
		t.Errorf("a row filter on a redacted property = %v", err)
	}
}

// TestNewRedactions checks the names NewRedactions refuses, and that none is nil.
func TestNewRedactions(t *testing.T) {
	m := builtModel(t)
	product := m.EntityType("Product")
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"Nope"}, "redaction of Product: Product has no property Nope"},
		{[]string{"Id"}, "redaction of Product: Id is a key property, which cannot be redacted"},
		{[]string{"Manufacturer/Name"}, "redaction of Product: Manufacturer is a navigation property, which has no members"},
		{[]string{"Dimensions/Depth"}, "redaction of Product: Dimensions/Depth is no member path of Product"},
		{[]string{"Name/Length"}, "redaction of Product: Name/Length is no member path of Product"},
	} {
		_, err := plan.NewRedactions(map[*edm.EntityType][]string{product: c.names})
		if err == nil || err.Error() != c.want {
			t.Errorf("NewRedactions(%q) = %v, want %q", c.names, err, c.want)
		}
	}
	if r, err := plan.NewRedactions(map[*edm.EntityType][]string{product: nil}); r != nil || err != nil {
		t.Errorf("NewRedactions(none) = %v, %v, want nil", r, err)
	}
}

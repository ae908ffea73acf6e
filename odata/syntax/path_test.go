package syntax

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseSimplePath checks that the fast path agrees with the grammar wherever it answers, except for the
// names the expression lexer reads as literals or as the not operator: OData allows them as identifiers, and the
// fast path takes them as names, as the service has always answered them.
func TestParseSimplePath(t *testing.T) {
	for _, raw := range []string{"/true", "/False", "/null", "/INF", "/NaN", "/not('k')"} {
		name, _, _ := strings.Cut(raw[1:], "(")
		got := parseSimplePath(raw, nil)
		if got == nil || len(got.Segments) != 1 || got.Segments[0].Name != name {
			t.Errorf("parseSimplePath(%q) = %v, want one segment named %q", raw, got, name)
		}
	}
	for _, c := range []struct {
		raw    string
		simple bool
	}{
		{"/Book", true},
		{"/Book/", true},
		{"/Book('k0042')", true},
		{"/Book('k0042')/", true},
		{"/Member('reader@example.com')", true},
		{"/Book(42)", true},
		{"/Book(007)", true},
		{"/Book_2('a-b_c.d')", true},
		{"/", false},
		{"", false},
		{"Book", false},
		{"/$metadata", false},
		{"/Book('a''b')", false},
		{"/Book('a%20b')", false},
		{"/Book('')", true},
		{"/Book()", false},
		{"/Book(-1)", false},
		{"/Book(1.5)", false},
		{"/Book(1234567890123456789)", false},
		{"/Book('k')/Chapters", false},
		{"/Book(Id='k')", false},
		{"/Book('k'", false},
		{"/Book('k'))", false},
		{"/9Book", false},
		{"/Bo%6Fk", false},
	} {
		got := parseSimplePath(c.raw, nil)
		if (got != nil) != c.simple {
			t.Errorf("parseSimplePath(%q) = %v, want simple %v", c.raw, got, c.simple)
			continue
		}
		if got == nil {
			continue
		}
		want, err := parsePath(c.raw, defaultBounds)
		if err != nil {
			t.Errorf("parsePath(%q) = %v", c.raw, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("parseSimplePath(%q) mismatch (-parsePath +got):\n%s", c.raw, diff)
		}
		var room PathRoom
		in, inErr := Limits{}.ParsePathIn(c.raw, &room)
		if inErr != nil || in != &room.simple.path {
			t.Errorf("ParsePathIn(%q) = %p, %v, want the tree in its room %p", c.raw, in, inErr, &room.simple.path)
			continue
		}
		if diff := cmp.Diff(want, in); diff != "" {
			t.Errorf("ParsePathIn(%q) mismatch (-parsePath +got):\n%s", c.raw, diff)
		}
	}
}

func TestParsePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"/", ""},
		{"Categories", "Categories"},
		{"/Categories/", "Categories"},
		{"Categories(1)/Products", "Categories(1)/Products"},
		{"Categories(ID=1,Size=5)", "Categories(ID=1,Size=5)"},
		{"Customers('O''Neil')", "Customers('O''Neil')"},
		{"Customers(%27O%27%27Neil%27)", "Customers('O''Neil')"},
		{"Customers%28%27O%27%27Neil%27%29", "Customers('O''Neil')"},
		{"Categories('Smartphone%2FTablet')", "Categories('Smartphone%2FTablet')"},
		{"Categories('Tablet%20)small(')", "Categories('Tablet )small(')"},
		{"Categories(2018-02-13T23%3A59%3A59Z)", "Categories(2018-02-13T23:59:59Z)"},
		{"Categories(@key)", "Categories(@key)"},
		{"ProductsByCategoryId(categoryId=2)(2)", "ProductsByCategoryId(categoryId=2)(2)"},
		{"Products/Model.MostExpensive()", "Products/Model.MostExpensive()"},
		{"Categories(1)/Products/Model.AllOrders()/$count", "Categories(1)/Products/Model.AllOrders()/$count"},
		{"Customers/1", "Customers/1"},
		{"People/O'Neil", "People/O'Neil"},
		{"Categories/Smartphone%2FTablet", "Categories/Smartphone%2FTablet"},
		{"Suppliers(1)/Addresses/Model.AddressWithLocation/-1", "Suppliers(1)/Addresses/Model.AddressWithLocation/-1"},
		{"Products/$filter(Age gt 3)/$filter(@bar)/$count", "Products/$filter(Age gt 3)/$filter(@bar)/$count"},
		{"Products/$filter(@foo)/$each/Special.Discount", "Products/$filter(@foo)/$each/Special.Discount"},
		{"$crossjoin(Customers,Countries)/$query", "$crossjoin(Customers,Countries)/$query"},
		{"$all/Model.Customer", "$all/Model.Customer"},
		{"$all/$query", "$all/$query"},
		{"$all/Model.Customer/$query", "$all/Model.Customer/$query"},
		{"$entity/Model.Customer", "$entity/Model.Customer"},
		{"$metadata", "$metadata"},
		{"Products(1)/Model.BestSellingProduct", "Products(1)/Model.BestSellingProduct"},
		{"TheMostPopularName()/$value", "TheMostPopularName()/$value"},
	}
	for _, tt := range tests {
		p, err := ParsePath(tt.in)
		if err != nil {
			t.Errorf("ParsePath(%q) = %v, want %q", tt.in, err, tt.want)
			continue
		}
		if got := p.String(); got != tt.want {
			t.Errorf("ParsePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
		back, err := ParsePath(p.String())
		if err != nil {
			t.Errorf("ParsePath(%q) (printed from %q) = %v", p.String(), tt.in, err)
		} else if diff := cmp.Diff(p, back, ignorePos); diff != "" {
			t.Errorf("ParsePath(%q) round trip (-first +second):\n%s", tt.in, diff)
		}
	}
}

func TestParsePathSegments(t *testing.T) {
	p, err := ParsePath("Customers('ALFKI')/Orders(OrderID=1,ItemID=@i)/Model.Fn(p=2)")
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) Expr { return &Literal{Kind: LitString, Text: "'" + s + "'", Value: s} }
	want := []Segment{
		{Name: "Customers", Args: []ArgList{{Args: []Arg{{Value: str("ALFKI")}}}}},
		{Name: "Orders", Args: []ArgList{{Args: []Arg{
			{Name: "OrderID", Value: &Literal{Kind: LitInt, Text: "1", Value: int64(1)}},
			{Name: "ItemID", Value: &Path{Base: BaseAlias, Alias: "i", Segments: []Segment{}}}}}}},
		{Name: "Model.Fn", Args: []ArgList{{Args: []Arg{{Name: "p", Value: &Literal{Kind: LitInt, Text: "2", Value: int64(2)}}}}}},
	}
	if diff := cmp.Diff(want, p.Segments, ignorePos); diff != "" {
		t.Errorf("ParsePath segments (-want +got):\n%s", diff)
	}
	if !p.Segments[2].IsQualified() || p.Segments[0].IsQualified() {
		t.Errorf("IsQualified = %v, %v, want false, true", p.Segments[0].IsQualified(), p.Segments[2].IsQualified())
	}
}

func TestParsePathErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Customers('O%27Neil')", `path:1:22: unterminated string literal`},
		{"Categories('Smartphone/Tablet')", `path:1:23: "/" in a key literal must be percent-encoded as %2F`},
		{"Categories(ID=wrong)", `path:1:15: expected literal or parameter alias`},
		{"OrderItems(OrderID=1;ItemID='a')", `path:1:21: expected "," or ")", found ";"`},
		{"Products.('foo')", `path:1:9: expected "(" or "/", found "."`},
		{".Products('foo')", `path:1:1: expected name, found "."`},
		{"Categories(1)/Products/$ref/$count", `path:1:28: no segment may follow $ref`},
		{"Products/$count/foo", `path:1:16: no segment may follow $count`},
		{"$count", `path:1:1: $count cannot start a path`},
		{"Products/$metadata", `path:1:10: $metadata must be the first segment`},
		{"Products/$bogus", `path:1:10: unknown segment "$bogus"`},
		{"Products//Items", `path:1:10: empty path segment`},
		{"Products(1", `path:1:11: expected "," or ")", found end of input`},
		{"Customers(Id='caf%C3')", `path:1:14: the string is not UTF-8 text`},
	}
	for _, tt := range tests {
		_, err := ParsePath(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParsePath(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

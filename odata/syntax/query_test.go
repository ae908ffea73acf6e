package syntax

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// queryRoundTrip checks that the printed form of q parses to the same options.
func queryRoundTrip(t *testing.T, in string, q *Query) {
	t.Helper()
	out := q.String()
	back, err := ParseQuery(out)
	if err != nil {
		t.Errorf("ParseQuery(%q) (printed from %q) = %v, want success", out, in, err)
		return
	}
	if diff := cmp.Diff(q, back, ignorePos); diff != "" {
		t.Errorf("ParseQuery(%q).String() = %q, which parses differently (-first +second):\n%s", in, out, diff)
	}
}

func TestParseQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"$top=2&$orderby=Name", "$orderby=Name&$top=2"},
		{"top=5&skip=10", "$skip=10&$top=5"},
		{"%24filter=Price%20gt%205&%24Top=1", "$filter=Price gt 5&$top=1"},
		{"$FILTER=Name eq 'a+b'", "$filter=Name eq 'a+b'"},
		{"$filter=D gt 2012-09-03T08:00:00+02:00", "$filter=D gt 2012-09-03T08:00:00+02:00"},
		{"$count=true&$count2=x", ""},
		{"$count=TRUE", "$count=true"},
		{"count=false", "$count=false"},
		{"$search=blue%20green", "$search=blue AND green"},
		{"$select=Name,Address/City&$expand=Orders($select=Id;$top=5)", "$select=Name,Address/City&$expand=Orders($top=5;$select=Id)"},
		{"$compute=Amount mul Product/TaxRate as Tax,day(Time/Date) as WeekDay", "$compute=Amount mul Product/TaxRate as Tax,day(Time/Date) as WeekDay"},
		{"$index=-42", "$index=-42"},
		{"$skiptoken=Start@Next_Chunk:From?=Here!", "$skiptoken=Start@Next_Chunk:From?=Here!"},
		{"$deltatoken=A@Lot_Has:Changed?=Here!", "$deltatoken=A@Lot_Has:Changed?=Here!"},
		{"$format=application/json;odata.metadata=minimal", "$format=application/json;odata.metadata=minimal"},
		{"$schemaversion=1.42.2", "$schemaversion=1.42.2"},
		{"$id=http://host/service/Customers('A')", "$id=http://host/service/Customers('A')"},
		{"$filter=contains(Title,@word)&@word='Black'", "$filter=contains(Title,@word)&@word='Black'"},
		{"@b=2&@a=[1,2]", "@a=[1,2]&@b=2"},
		{"find=O%27Neil&!special", "find=O'Neil&!special"},
		{"a=1&&b=2&", "a=1&b=2"},
	}
	for _, tt := range tests {
		q, err := ParseQuery(tt.in)
		if err != nil {
			if tt.want == "" && strings.Contains(tt.in, "$count2") {
				continue // an unknown $ option is an error, checked below
			}
			t.Errorf("ParseQuery(%q) = %v, want %q", tt.in, err, tt.want)
			continue
		}
		if got := q.String(); got != tt.want {
			t.Errorf("ParseQuery(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
		queryRoundTrip(t, tt.in, q)
	}
}

func TestParseQueryValues(t *testing.T) {
	q, err := ParseQuery("$top=20&$skip=40&$count=true&$levels=2&find=x")
	var se *Error
	if !errors.As(err, &se) || se.Error() != "$levels: $levels is not allowed here" {
		t.Errorf("ParseQuery($levels at top) = %v, want $levels is not allowed here", err)
	}
	q, err = ParseQuery("$top=20&$skip=40&$count=true&find=x&$filter=Name eq 'x'")
	if err != nil {
		t.Fatalf("ParseQuery = %v", err)
	}
	if *q.Top != 20 || *q.Skip != 40 || !*q.Count || len(q.Custom) != 1 || q.Custom[0] != (CustomOption{"find", "x"}) {
		t.Errorf("ParseQuery values = top %v skip %v count %v custom %v", *q.Top, *q.Skip, *q.Count, q.Custom)
	}
	want := []Option{{"$top", "$top", 5, "20"}, {"$skip", "$skip", 14, "40"}, {"$count", "$count", 24, "true"},
		{"find", "find", 34, "x"}, {"$filter", "$filter", 44, "Name eq 'x'"}}
	if diff := cmp.Diff(want, q.Options); diff != "" {
		t.Errorf("ParseQuery options (-want +got):\n%s", diff)
	}
}

func TestParseQueryErrors(t *testing.T) {
	tests := []struct{ in, want, code string }{
		{"$count", `$count:1:1: expected "=" and a value`, CodeSyntax},
		{"$top=-1", `$top:1:1: expected a non-negative integer, found "-1"`, CodeSyntax},
		{"$top=99999999999999999999", `$top:1:1: integer out of range: 99999999999999999999`, CodeSyntax},
		{"$count=yes", `$count:1:1: expected true or false, found "yes"`, CodeSyntax},
		{"$index=fortytwo", `$index:1:1: expected an integer, found "fortytwo"`, CodeSyntax},
		{"$filter= true", `$filter:1:1: expected expression, found whitespace`, CodeSyntax},
		{"$filter =true", `$filter : unknown system query option`, CodeSyntax},
		{"$foo=1", `$foo: unknown system query option`, CodeSyntax},
		{"$top=1&top=2", `top: duplicate option $top`, CodeSyntax},
		{"$filter=a&$FILTER=b", `$FILTER: duplicate option $filter`, CodeSyntax},
		{"$filter=Name eq )", `$filter:1:9: expected expression, found ")"`, CodeSyntax},
		{"filter=Name eq )", `filter:1:9: expected expression, found ")"`, CodeSyntax},
		{"$search=a;b", `$search:1:2: unexpected ";"`, CodeSyntax},
		{"$search=#1", `$search:1:1: unexpected "#"`, CodeSyntax},
		{"$format=csv", `$format:1:1: expected json, atom, xml or a media type, found "csv"`, CodeSyntax},
		{"$skiptoken=", `$skiptoken:1:1: expected a value, found end of input`, CodeSyntax},
		{"@p=1 add", `@p:1:6: expected expression, found end of input`, CodeSyntax},
		{"@1=2", `@1: invalid parameter alias name`, CodeSyntax},
		{"$expand=Items($filter=Name eq )", `$expand:1:23: expected expression, found end of input`, CodeSyntax},
		{"$expand=Items($top=x)", `$expand:1:12: expected a non-negative integer, found "x"`, CodeSyntax},
		{"$expand=Items($foo=1)", `$expand:1:7: unknown system query option`, CodeSyntax},
		{"$expand=Items(bar=1)", `$expand:1:7: unknown nested option "bar"`, CodeSyntax},
		{"$expand=Items($top=1;$top=2)", `$expand:1:14: duplicate option $top`, CodeSyntax},
		{"$expand=Customer/$ref($levels=4)", `$expand:1:15: $levels is not allowed here`, CodeSyntax},
		{"$expand=Items/$count($count=true)", `$expand:1:14: $count is not allowed here`, CodeSyntax},
		{"$expand=Category($levels=04)", `$expand:1:18: expected a positive integer or max, found "04"`, CodeSyntax},
		{"$expand=A($expand=B($expand=C($expand=D)))", `$expand:1:31: $expand depth exceeds the limit of 3`, CodeLimitExceeded},
		{"$expand=Items(", `$expand:1:7: missing ")"`, CodeSyntax},
		{"$select=Name,", `$select:1:6: expected name, found end of input`, CodeSyntax},
		{"$select=$ref", `$select:1:1: unexpected "$ref" in $select`, CodeSyntax},
		{"$compute=Price as", `$compute:1:9: expected alias name, found end of input`, CodeSyntax},
		{"$compute=Price as A.B", `$compute:1:10: expected alias name, found "A.B"`, CodeSyntax},
	}
	for _, tt := range tests {
		_, err := ParseQuery(tt.in)
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("ParseQuery(%q) = %v, want error %q", tt.in, err, tt.want)
			continue
		}
		if se.Error() != tt.want || se.Code != tt.code {
			t.Errorf("ParseQuery(%q) = %q (%s), want %q (%s)", tt.in, se.Error(), se.Code, tt.want, tt.code)
		}
	}
}

func TestParseSelect(t *testing.T) {
	tests := []struct{ in, want string }{
		{"*", "*"},
		{"Rating,ReleaseDate", "Rating,ReleaseDate"},
		{"Model.*", "Model.*"},
		{"Address/Model.AddressWithLocation/Location", "Address/Model.AddressWithLocation/Location"},
		{"Model.MostPopularName(Location,Kind)", "Model.MostPopularName(Location,Kind)"},
		{"@Core.Messages($top=5)", "@Core.Messages($top=5)"},
		{"Addresses($filter=startswith(City,'H');$top=5;$skip=0;$count=true;$orderby=$it;$search=blue;@c=15)",
			"Addresses($filter=startswith(City,'H');$search=blue;$orderby=$it;$skip=0;$top=5;$count=true;@c=15)"},
		{"Address($select=Street,City)", "Address($select=Street,City)"},
		{"Addresses(top=1)", "Addresses($top=1)"},
	}
	for _, tt := range tests {
		items, err := ParseSelect(tt.in)
		if err != nil {
			t.Errorf("ParseSelect(%q) = %v, want %q", tt.in, err, tt.want)
			continue
		}
		q := &Query{Select: items}
		if got := strings.TrimPrefix(q.String(), "$select="); got != tt.want {
			t.Errorf("ParseSelect(%q) = %q, want %q", tt.in, got, tt.want)
		}
		queryRoundTrip(t, tt.in, q)
	}
}

func TestParseExpand(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Items", "Items"},
		{"Items/$ref", "Items/$ref"},
		{"Items/$count($filter=Name eq 'Hugo')", "Items/$count($filter=Name eq 'Hugo')"},
		{"Customer,Items(expand=Product)", "Customer,Items($expand=Product)"},
		{"Category($levels=4),Category($levels=max)", "Category($levels=4),Category($levels=max)"},
		{"*,*/$ref,*($levels=2)", "*,*/$ref,*($levels=2)"},
		{"Model.VipCustomer/Address/*", "Model.VipCustomer/Address/*"},
		{"$value,Thumbnail", "$value,Thumbnail"},
		{"Items($select=Quantity;$expand=Product($select=Name,Price);@c=15)", "Items($select=Quantity;$expand=Product($select=Name,Price);@c=15)"},
		{"Manager($search='gr(een')", `Manager($search="gr(een")`},
		{"Manager($search=a%3Bb)", "Manager($search=a%3Bb)"},
		{"Sales($compute=Amount mul Product/TaxRate as Tax)", "Sales($compute=Amount mul Product/TaxRate as Tax)"},
		{"A($expand=B($expand=C))", "A($expand=B($expand=C))"},
	}
	for _, tt := range tests {
		items, err := ParseExpand(tt.in)
		if err != nil {
			t.Errorf("ParseExpand(%q) = %v, want %q", tt.in, err, tt.want)
			continue
		}
		q := &Query{Expand: items}
		if got := strings.TrimPrefix(q.String(), "$expand="); got != tt.want {
			t.Errorf("ParseExpand(%q) = %q, want %q", tt.in, got, tt.want)
		}
		queryRoundTrip(t, tt.in, q)
	}
	items, err := ParseExpand("Orders/$ref")
	if err != nil || len(items) != 1 || !items[0].Ref || items[0].Path[0].Name != "Orders" {
		t.Errorf("ParseExpand(%q) = %+v, %v, want one Ref item Orders", "Orders/$ref", items, err)
	}
}

func TestParseSearch(t *testing.T) {
	tests := []struct{ in, want string }{
		{"blue", "blue"},
		{"blue green", "blue AND green"},
		{"blue OR green", "blue OR green"},
		{"NOT blue", "NOT blue"},
		{"blue NOT green", "blue AND NOT green"},
		{"foo AND bar OR foo AND baz", "foo AND bar OR foo AND baz"},
		{"(foo OR that) AND (bar OR baz) AND NOT quux", "(foo OR that) AND (bar OR baz) AND NOT quux"},
		{"NOT (blue green)", "NOT (blue AND green)"},
		{"AND", `"AND"`},
		{"NOT", `"NOT"`},
		{"NOT NOT", `NOT "NOT"`},
		{"AND OR NOT", `"AND" OR "NOT"`},
		{"OR AND", `"OR" AND "AND"`},
		{`"blue green"`, `"blue green"`},
		{`"blue%20green"`, `"blue green"`},
		{"Daniel's", "Daniel's"},
		{"%CE%94", "Δ"},
		{"9,81 08/15 2x4 brand-new $search", "9,81 AND 08/15 AND 2x4 AND brand-new AND $search"},
		{"more%26more", "more%26more"},
		{"'\"blue\" \"green'", `'"blue" "green'`},
		{"'('", `"("`},
		{"and", "and"},
	}
	for _, tt := range tests {
		e, err := ParseSearch(tt.in)
		if err != nil {
			t.Errorf("ParseSearch(%q) = %v, want %q", tt.in, err, tt.want)
			continue
		}
		if got := e.String(); got != tt.want {
			t.Errorf("ParseSearch(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// A one-word phrase means the word, so the round trip compares the printed forms.
		back, err := ParseSearch(e.String())
		if err != nil {
			t.Errorf("ParseSearch(%q) (printed from %q) = %v", e.String(), tt.in, err)
		} else if back.String() != e.String() {
			t.Errorf("ParseSearch(%q) printed %q, then %q", tt.in, e.String(), back.String())
		}
	}
	for _, in := range []string{"", `"blue`, "%22blue", `"blue%22green`, "gr(een", "a;b", "#1", "(blue", "blue)", "'a' b",
		"caf%C3", "a%00b", `"a%00b"`, `blue OR "caf%C3"`, "'a%FF'"} {
		if _, err := ParseSearch(in); err == nil {
			t.Errorf("ParseSearch(%q) = nil error, want an error", in)
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
		{"Customers('a%00b')", `path:1:11: the string holds the NUL character %00`},
		{"Customers(Id='caf%C3')", `path:1:14: the string is not UTF-8 text`},
	}
	for _, tt := range tests {
		_, err := ParsePath(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParsePath(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

package syntax

import (
	"errors"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Query strings as clients send them: Go's url.Values.Encode, curl --data-urlencode, Python's urlencode and
// browsers' URLSearchParams write a space as "+" and percent-encode ( ) = ; , $ ' and "+".

func TestParseQueryFormEncoded(t *testing.T) {
	tests := []struct{ name, in, want string }{
		// Top level: every delimiter percent-encoded, spaces as "+".
		{"filter", "%24filter=Price+gt+50", "$filter=Price gt 50"},
		{"filter quotes", "%24filter=Name+eq+%27Fountain+Pen%27", "$filter=Name eq 'Fountain Pen'"},
		{"filter call", "%24filter=contains%28Name%2C%27Pen%27%29+and+Price+le+20", "$filter=contains(Name,'Pen') and Price le 20"},
		{"filter in", "%24filter=Id+in+%28%27a%27%2C%27b%27%29", "$filter=Id in ('a','b')"},
		{"filter lambda", "%24filter=Items%2Fany%28i%3Ai%2FQty+gt+1%29", "$filter=Items/any(i:i/Qty gt 1)"},
		{"filter %20 and +", "%24filter=Price%20gt+50", "$filter=Price gt 50"},
		{"filter raw spaces", "$filter=Price gt 50", "$filter=Price gt 50"},
		{"encoded keyword", "$filter=Price+%67t+50", "$filter=Price gt 50"},
		{"orderby", "%24orderby=Name+desc%2CPrice", "$orderby=Name desc,Price"},
		{"orderby asc", "%24orderby=Price+asc", "$orderby=Price"},
		{"select", "%24select=Name%2CPrice%2CAddress%2FCity", "$select=Name,Price,Address/City"},
		{"select function parameters", "%24select=Model.Fn%28Location%2CKind%29", "$select=Model.Fn(Location,Kind)"},
		{"search words", "%24search=Laptop+Pro", "$search=Laptop AND Pro"},
		{"search not", "%24search=NOT+Laptop", "$search=NOT Laptop"},
		{"search or", "%24search=blue+OR+green", "$search=blue OR green"},
		{"search phrase", "%24search=%22blue+green%22", `$search="blue green"`},
		{"search plus", "%24search=C%2B%2B", "$search=C%2B%2B"},
		{"search semicolon", "%24search=a%3Bb", "$search=a%3Bb"},
		{"search single-quoted", "%24search=%27a+b%27", `$search="a b"`},
		{"paging", "%24top=10&%24skip=20&%24count=true", "$skip=20&$top=10&$count=true"},
		{"skiptoken", "%24skiptoken=WzEsIm-_In0", "$skiptoken=WzEsIm-_In0"},
		{"format", "%24format=application%2Fjson%3Bodata.metadata%3Dminimal", "$format=application/json;odata.metadata=minimal"},
		{"aliases", "%24filter=Price+gt+%40p&%40p=50", "$filter=Price gt @p&@p=50"},
		{"alias string", "%24filter=Name+eq+%40n&%40n=%27a+b%27", "$filter=Name eq @n&@n='a b'"},
		{"leading sign", "%24filter=+1+eq+Price", "$filter=1 eq Price"},
		{"alias sign", "%24filter=Price+gt+%40p&%40p=+5", "$filter=Price gt @p&@p=5"},
		{"custom", "my+option=a+b%2Bc", "my%20option=a%20b%2Bc"},
		{"4.01 names", "filter=Price+gt+5&orderby=Name+desc&top=1", "$filter=Price gt 5&$orderby=Name desc&$top=1"},

		// Nested $expand options, each delimiter percent-encoded, one to three levels deep.
		{"expand count", "%24expand=Descriptions%28%24count%3Dtrue%29", "$expand=Descriptions($count=true)"},
		{"expand two options", "%24expand=Descriptions%28%24top%3D2%3B%24select%3DLanguageKey%29", "$expand=Descriptions($top=2;$select=LanguageKey)"},
		{"expand filter", "%24expand=Items%28%24filter%3DPrice+gt+5%3B%24orderby%3DName+desc%2CPrice%29",
			"$expand=Items($filter=Price gt 5;$orderby=Name desc,Price)"},
		{"expand select list", "%24expand=Items%28%24select%3DName%2CPrice%29", "$expand=Items($select=Name,Price)"},
		{"expand search", "%24expand=Items%28%24search%3DLaptop+Pro%29", "$expand=Items($search=Laptop AND Pro)"},
		{"expand two levels", "%24expand=Orders%28%24expand%3DItems%28%24select%3DName%3B%24top%3D2%29%3B%24count%3Dtrue%29",
			"$expand=Orders($count=true;$expand=Items($top=2;$select=Name))"},
		{"expand three levels",
			"%24expand=Orders%28%24expand%3DItems%28%24expand%3DProduct%28%24select%3DName%3B%24filter%3DPrice+gt+5%29%3B%24top%3D2%29%3B%24count%3Dtrue%29",
			"$expand=Orders($count=true;$expand=Items($top=2;$expand=Product($filter=Price gt 5;$select=Name)))"},
		{"expand list", "%24expand=Items%28%24top%3D1%29%2COwner%28%24select%3DName%29", "$expand=Items($top=1),Owner($select=Name)"},
		{"expand 4.01 names", "%24expand=Items%28top%3D2%3Bskip%3D1%29", "$expand=Items($skip=1;$top=2)"},
		{"expand alias", "%24expand=Items%28%24filter%3DPrice+gt+%40p%3B%40p%3D5%29", "$expand=Items($filter=Price gt @p;@p=5)"},
		{"expand lower-case escapes", "$expand=Categories%28%24select%3dCategoryId%3b%24top%3d1%29", "$expand=Categories($top=1;$select=CategoryId)"},
		{"expand mixed", "$expand=Descriptions($top=2%3B$select=LanguageKey)", "$expand=Descriptions($top=2;$select=LanguageKey)"},
		{"expand mixed equals", "$expand=Descriptions($top%3D2;$select=LanguageKey)", "$expand=Descriptions($top=2;$select=LanguageKey)"},
		{"expand string with delimiters", "%24expand=Items%28%24filter%3DName+eq+%27a%3Bb%29%27%3B%24top%3D1%29",
			"$expand=Items($filter=Name eq 'a;b)';$top=1)"},
		{"expand string after %20", "$expand=Items($filter=Name%20eq%20'a;b')", "$expand=Items($filter=Name eq 'a;b')"},
		{"expand apostrophe in a word", "%24expand=Items%28%24search%3DDaniel%27s%3B%24top%3D1%29", "$expand=Items($search=Daniel's;$top=1)"},
		{"expand search semicolon", "$expand=Manager($search=a%3Bb)", "$expand=Manager($search=a%3Bb)"},
		{"expand search semicolon then option", "$expand=Manager($search=a%3B$top=1)", "$expand=Manager($search=a;$top=1)"},
		{"expand count options", "%24filter=Items%2F%24count%28%24filter%3DQty+gt+1%29+gt+0", "$filter=Items/$count($filter=Qty gt 1) gt 0"},
		{"select nested", "%24select=Items%28%24filter%3DQty+gt+1%3B%24top%3D1%29", "$select=Items($filter=Qty gt 1;$top=1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery(tt.in)
			if err != nil {
				t.Fatalf("ParseQuery(%q) = %v, want %q", tt.in, err, tt.want)
			}
			if got := q.String(); got != tt.want {
				t.Errorf("ParseQuery(%q).String() = %q, want %q", tt.in, got, tt.want)
			}
			queryRoundTrip(t, tt.in, q)
		})
	}
}

// TestParseQueryURLValues checks that a query built by url.Values.Encode parses to the same options as the
// same query written by hand (spaces as %20, delimiters as they are).
func TestParseQueryURLValues(t *testing.T) {
	tests := [][][2]string{
		{{"$filter", "Name eq 'Fountain Pen'"}},
		{{"$filter", "Price gt 5 and (contains(Name,'a+b') or Name eq 'O''Neil')"}},
		{{"$filter", "CreatedOn ge 2024-01-01T00:00:00+01:00 and Weight lt 1.5e+3 and Span le duration'+P1D'"}},
		{{"$filter", "Price add -1 gt 2 and Qty sub 1 ge 0"}},
		{{"$filter", "Name eq @p"}, {"@p", "'a b;c'"}},
		{{"$filter", "Tags/any(t:t eq 'x y')"}, {"$orderby", "Name desc,Price"}, {"$select", "Name,Price"}},
		{{"$search", "Laptop Pro"}},
		{{"$search", `"blue green" OR NOT red`}},
		{{"$top", "10"}, {"$skip", "5"}, {"$count", "true"}},
		{{"$expand", "Items($filter=Price gt 5;$orderby=Name desc;$select=Name,Price;$top=2;$skip=1;$count=true)"}},
		{{"$expand", "Orders($expand=Items($expand=Product($select=Name;$filter=Name eq 'a;b'));$search=blue green)"}},
		{{"$expand", "Items($search=Daniel's)"}},
		{{"$skiptoken", "WzEsIm-_In0"}},
		{{"custom", "a+b c"}},
	}
	handEscaper := strings.NewReplacer("%", "%25", "&", "%26", "#", "%23", "+", "%2B", " ", "%20")
	for _, options := range tests {
		values := url.Values{}
		var hand []string
		for _, o := range options {
			values.Add(o[0], o[1])
			hand = append(hand, o[0]+"="+handEscaper.Replace(o[1]))
		}
		form, written := values.Encode(), strings.Join(hand, "&")
		want, err := ParseQuery(written)
		if err != nil {
			t.Errorf("ParseQuery(%q) = %v, want success", written, err)
			continue
		}
		got, err := ParseQuery(form)
		if err != nil {
			t.Errorf("ParseQuery(%q) = %v, want the options of %q", form, err, written)
			continue
		}
		if diff := cmp.Diff(want, got, ignorePos, cmpopts.IgnoreFields(Option{}, "Pos", "Raw"), cmpopts.EquateNaNs()); diff != "" {
			t.Errorf("ParseQuery(%q) differs from ParseQuery(%q) (-hand +form):\n%s", form, written, diff)
		}
	}
}

// TestParseFilterSigns checks that where the grammar allows a sign, "+" (a space in a query string), %2B and a
// space read the same.
func TestParseFilterSigns(t *testing.T) {
	plusOne := time.FixedZone("", 3600)
	minusOne := time.FixedZone("", -3600)
	tests := []struct {
		in    string
		kind  LiteralKind
		value any
		text  string
	}{
		{"2024-01-01T00:00:00%2B01:00", LitDateTimeOffset, time.Date(2024, 1, 1, 0, 0, 0, 0, plusOne), "2024-01-01T00:00:00+01:00"},
		{"2024-01-01T00:00:00+01:00", LitDateTimeOffset, time.Date(2024, 1, 1, 0, 0, 0, 0, plusOne), "2024-01-01T00:00:00+01:00"},
		{"2024-01-01T00:00:00%2001:00", LitDateTimeOffset, time.Date(2024, 1, 1, 0, 0, 0, 0, plusOne), "2024-01-01T00:00:00+01:00"},
		{"2024-01-01T00:00:00 01:00", LitDateTimeOffset, time.Date(2024, 1, 1, 0, 0, 0, 0, plusOne), "2024-01-01T00:00:00+01:00"},
		{"2024-01-01T00%3A00%3A00%2B01%3A00", LitDateTimeOffset, time.Date(2024, 1, 1, 0, 0, 0, 0, plusOne), "2024-01-01T00:00:00+01:00"},
		{"2024-01-01T00:00+01:00", LitDateTimeOffset, time.Date(2024, 1, 1, 0, 0, 0, 0, plusOne), "2024-01-01T00:00+01:00"},
		{"2024-01-01T00:00:00.5+01:00", LitDateTimeOffset, time.Date(2024, 1, 1, 0, 0, 0, 5e8, plusOne), "2024-01-01T00:00:00.5+01:00"},
		{"2024-01-01T00:00:00-01:00", LitDateTimeOffset, time.Date(2024, 1, 1, 0, 0, 0, 0, minusOne), "2024-01-01T00:00:00-01:00"},
		{"2024-01-01T00:00:00%2D01:00", LitDateTimeOffset, time.Date(2024, 1, 1, 0, 0, 0, 0, minusOne), "2024-01-01T00:00:00-01:00"},
		{"2024-01-01T00:00:00Z", LitDateTimeOffset, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), "2024-01-01T00:00:00Z"},
		{"1", LitInt, int64(1), "1"},
		{"-1", LitInt, int64(-1), "-1"},
		{"%2B1", LitInt, int64(1), "+1"},
		{"+1", LitInt, int64(1), "1"},
		{"%201", LitInt, int64(1), "1"},
		{"%2B1.5", LitDecimal, "1.5", "+1.5"},
		{"1e+5", LitDouble, 1e5, "1e+5"},
		{"1e%2B5", LitDouble, 1e5, "1e+5"},
		{"1E%205", LitDouble, 1e5, "1E+5"},
		{"1e-5", LitDouble, 1e-5, "1e-5"},
		{"1e5", LitDouble, 1e5, "1e5"},
		{"-2.5e+2", LitDouble, -250.0, "-2.5e+2"},
		{"duration'+P1D'", LitDuration, 24 * time.Hour, "duration'+P1D'"},
		{"duration'%2BP1D'", LitDuration, 24 * time.Hour, "duration'+P1D'"},
		{"duration'%20P1D'", LitDuration, 24 * time.Hour, "duration'+P1D'"},
		{"duration'-P1D'", LitDuration, -24 * time.Hour, "duration'-P1D'"},
		{"duration'+pt1h'", LitDuration, time.Hour, "duration'+pt1h'"},
		{"Sales.Pattern'Yellow,+32'", LitEnum, "Yellow,+32", "Sales.Pattern'Yellow,+32'"},
		{"Sales.Pattern'Yellow,%2B32'", LitEnum, "Yellow,+32", "Sales.Pattern'Yellow,+32'"},
		{"Sales.Pattern'-1'", LitEnum, "-1", "Sales.Pattern'-1'"},
		{"'a+b'", LitString, "a b", "'a b'"},
		{"'a%2Bb'", LitString, "a+b", "'a+b'"},
		{"'a%20b'", LitString, "a b", "'a b'"},
		{"'+'", LitString, " ", "' '"},
		{"%27O%27%27Neil+%2B1%27", LitString, "O'Neil +1", "'O''Neil +1'"},
		{`["a+b","c%2Bd"]`, 0, nil, ""},
		{"INF", LitDouble, math.Inf(1), "INF"},
	}
	for _, tt := range tests {
		e, err := ParseFilter(tt.in)
		if err != nil {
			t.Errorf("ParseFilter(%q) = %v, want success", tt.in, err)
			continue
		}
		roundTrip(t, tt.in, e)
		if tt.kind == 0 {
			continue
		}
		l, ok := e.(*Literal)
		if !ok {
			t.Errorf("ParseFilter(%q) = %T, want *Literal", tt.in, e)
			continue
		}
		if l.Kind != tt.kind || l.Text != tt.text {
			t.Errorf("ParseFilter(%q) = %v literal %q, want %v literal %q", tt.in, l.Kind, l.Text, tt.kind, tt.text)
		}
		if diff := cmp.Diff(tt.value, l.Value); diff != "" {
			t.Errorf("ParseFilter(%q).Value = %#v, want %#v", tt.in, l.Value, tt.value)
		}
	}
}

func TestParseFilterFormJSON(t *testing.T) {
	e, err := ParseFilter(`Tags+eq+["a+b","c%2Bd"]`)
	if err != nil {
		t.Fatalf("ParseFilter = %v", err)
	}
	var got []string
	for _, it := range e.(*Binary).Right.(*List).Items {
		got = append(got, it.(*Literal).Value.(string))
	}
	if diff := cmp.Diff([]string{"a b", "c+d"}, got); diff != "" {
		t.Errorf(`ParseFilter(["a+b","c%%2Bd"]) items (-want +got):\n%s`, diff)
	}
}

// TestParseQueryFormErrors checks the messages of form-encoded queries: they quote the decoded text, and the
// position counts bytes of the raw value (a "+" is one byte, %27 three).
func TestParseQueryFormErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"%24filter=Price+gt+%7E5", `$filter:1:10: unexpected "~"`},
		{"%24filter=Price+gt", `$filter:1:9: expected expression, found end of input`},
		{"%24filter=Name+eq+%27abc", `$filter:1:15: unterminated string literal`},
		{"%24filter=Name+eq+%29", `$filter:1:9: expected expression, found ")"`},
		{"%24filter=Name+eq+%27a%27+%27b%27", `$filter:1:17: expected operator, found "'b'"`},
		{"%24filter=D+eq+2024-01-01T00:00:00", `$filter:1:25: date-time literal needs a time zone (Z or +hh:mm)`},
		{"%24filter=D+eq+2024-01-01T00:00:00+1", `$filter:1:25: date-time literal needs a time zone (Z or +hh:mm)`},
		{"%24filter=D+eq+2024-01-01T00:00:00%2B1", `$filter:1:28: invalid time zone offset in date-time literal`},
		{"%24filter=X+eq+1e+", `$filter:1:8: expected digits in the exponent`},
		{"%24filter=+Price", `$filter:1:1: expected expression, found whitespace`},
		{"%24orderby=Name+dsc", `$orderby:1:6: expected operator, found "dsc"`},
		{"%24select=Name%2C+Price", `$select:1:8: unexpected whitespace`},
		{"%24select=Name%2C%2BPrice", `$select:1:8: unexpected "+"`},
		{"%24search=%22blue+green", `$search:1:14: unterminated search phrase`},
		{"%24top=%2B5", `$top:1:1: expected a non-negative integer, found "+5"`},
		{"%24top=5+", `$top:1:1: expected a non-negative integer, found "5 "`},
		{"%24expand=Items%28%24top%3Dx%29", `$expand:1:18: expected a non-negative integer, found "x"`},
		{"%24expand=Items%28%24top%3D1%3B%24top%3D2%29", `$expand:1:22: $top must not appear more than once`},
		// A %3B that no option follows is text (see TestParseQueryFormEncoded), a raw ";" is not.
		{"%24expand=Items%28%24top%3D1%3B%29", `$expand:1:18: expected a non-negative integer, found "1;"`},
		{"%24expand=Items%28%24top%3D1;%29", `$expand:1:20: expected option, found ";"`},
		{"%24expand=Items%28%24top%29", `$expand:1:15: expected "="`},
		{"%24expand=Items%28%24foo%3D1%29", `$expand:1:9: unknown query option (system query options start with $ and are those OData defines)`},
		{"%24expand=Items%28bar%3D1%29", `$expand:1:9: unknown nested option "bar"`},
		{"%24expand=Items%28%24filter%3DName+eq+%29", `$expand:1:29: expected expression, found end of input`},
		{"%24expand=Items%28%24filter%3DName+eq+%29%29", `$expand:1:32: unexpected ")"`},
	}
	for _, tt := range tests {
		_, err := ParseQuery(tt.in)
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("ParseQuery(%q) = %v, want error %q", tt.in, err, tt.want)
			continue
		}
		if se.Error() != tt.want {
			t.Errorf("ParseQuery(%q) = %q, want %q", tt.in, se.Error(), tt.want)
		}
	}
}

// TestParsePathKeepsPlus checks that a "+" in a resource path is a plus: paths are not form-encoded.
func TestParsePathKeepsPlus(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Products('a+b')", "a+b"},
		{"Products('a%2Bb')", "a+b"},
		{"Products('a%20b')", "a b"},
		{"Products/a+b", "a+b"},
	}
	for _, tt := range tests {
		p, err := ParsePath(tt.in)
		if err != nil {
			t.Errorf("ParsePath(%q) = %v, want success", tt.in, err)
			continue
		}
		seg := p.Segments[len(p.Segments)-1]
		got := seg.Name
		if len(seg.Args) > 0 {
			got = seg.Args[0].Args[0].Value.(*Literal).Value.(string)
		}
		if got != tt.want {
			t.Errorf("ParsePath(%q) key = %q, want %q", tt.in, got, tt.want)
		}
		back, err := ParsePath(p.String())
		if err != nil || back.String() != p.String() {
			t.Errorf("ParsePath(%q) printed %q, which reads back as %v, %v", tt.in, p.String(), back, err)
		}
	}
	p, err := ParsePath("Events(2024-01-01T00:00:00+01:00)")
	if err != nil {
		t.Fatalf("ParsePath(date-time key) = %v", err)
	}
	if got := p.Segments[0].Args[0].Args[0].Value.(*Literal).Text; got != "2024-01-01T00:00:00+01:00" {
		t.Errorf("ParsePath(date-time key) key = %q, want 2024-01-01T00:00:00+01:00", got)
	}
}

func TestUnescape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"a+b", "a b"},
		{"a%2Bb", "a+b"},
		{"%24top", "$top"},
		{"a%20b+c", "a b c"},
		{"100%", "100%"},
		{"%zz", "%zz"},
		{"WzEsIm-_In0", "WzEsIm-_In0"},
	}
	for _, tt := range tests {
		if got := Unescape(tt.in); got != tt.want {
			t.Errorf("Unescape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

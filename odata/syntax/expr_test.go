package syntax

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// ignorePos compares trees without positions (a printed and re-parsed tree has other offsets).
var ignorePos = cmp.Options{
	cmp.FilterPath(func(p cmp.Path) bool {
		sf, ok := p.Last().(cmp.StructField)
		return ok && sf.Name() == "Pos"
	}, cmp.Ignore()),
	cmpopts.EquateNaNs(),
	cmpopts.IgnoreFields(Query{}, "Options"),
}

// tree prints an expression fully parenthesised, so tests see how it binds.
func tree(e Expr) string {
	switch e := e.(type) {
	case *Binary:
		return "(" + e.Op.String() + " " + tree(e.Left) + " " + tree(e.Right) + ")"
	case *Unary:
		return "(" + e.Op.String() + " " + tree(e.X) + ")"
	case *Call:
		parts := []string{e.Name}
		for _, a := range e.Args {
			parts = append(parts, tree(a.Value))
		}
		return "(" + strings.Join(parts, " ") + ")"
	case *Lambda:
		if e.Body == nil {
			return "(" + e.Kind.String() + " " + e.Path.String() + ")"
		}
		return "(" + e.Kind.String() + " " + e.Path.String() + " " + e.Var + " " + tree(e.Body) + ")"
	case *List:
		parts := []string{"list"}
		for _, it := range e.Items {
			parts = append(parts, tree(it))
		}
		return "(" + strings.Join(parts, " ") + ")"
	case *TypeName:
		return "type:" + e.Name
	case nil:
		return "<nil>"
	}
	return e.String()
}

// roundTrip checks that the printed form of e parses to the same tree.
func roundTrip(t *testing.T, in string, e Expr) {
	t.Helper()
	out := e.String()
	back, err := ParseFilter(out)
	if err != nil {
		t.Errorf("ParseFilter(%q) (printed from %q) = %v, want success", out, in, err)
		return
	}
	if diff := cmp.Diff(e, back, ignorePos); diff != "" {
		t.Errorf("ParseFilter(%q).String() = %q, which parses differently (-first +second):\n%s", in, out, diff)
	}
}

func TestParseFilterPrecedence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a or b and c", "(or a (and b c))"},
		{"a and b or c", "(or (and a b) c)"},
		{"a eq 1 and b ne 2", "(and (eq a 1) (ne b 2))"},
		{"a add 1 mul 2 eq 3", "(eq (add a (mul 1 2)) 3)"},
		{"a sub b sub c", "(sub (sub a b) c)"},
		{"a div b mod c divby d", "(divby (mod (div a b) c) d)"},
		{"not a eq b", "(eq (not a) b)"},
		{"not (a eq b)", "(not (eq a b))"},
		{"-a add b", "(add (- a) b)"},
		{"- 1", "(- 1)"},
		{"-1", "-1"},
		{"a gt 1 eq b lt 2", "(eq (gt a 1) (lt b 2))"},
		{"a has Model.E'X' eq true", "(eq (has a Model.E'X') true)"},
		{"a in (1,2) and b", "(and (in a (list 1 2)) b)"},
		{"a add 1 in (2,3)", "(in (add a 1) (list 2 3))"},
		{"(a or b) and c", "(and (or a b) c)"},
		{"Name EQ 'Milk' AND Price LT 2.55", "(and (eq Name 'Milk') (lt Price 2.55))"},
		{"android eq 1 and order gt 2 or notes eq 'x'", "(or (and (eq android 1) (gt order 2)) (eq notes 'x'))"},
		{"not not a", "(not (not a))"},
		{"contains(Name,'x') and not endswith(Name,'y')", "(and (contains Name 'x') (not (endswith Name 'y')))"},
		{"Products/any(d:d/Price gt 5 and d/Price lt 9)", "(any Products d (and (gt d/Price 5) (lt d/Price 9)))"},
		{"cast(Price,Edm.Int32) eq 1", "(eq (cast Price type:Edm.Int32) 1)"},
		{"isof(Model.VipCustomer)", "(isof type:Model.VipCustomer)"},
		{"cast(Names,Collection(Edm.String))", "(cast Names type:Collection(Edm.String))"},
		{"cast(CreatedAt,'Edm.Date') eq 2024-01-01", "(eq (cast CreatedAt type:Edm.Date) 2024-01-01)"},
		{"isof('Ns.Special')", "(isof type:Ns.Special)"},
		{"cast(Names,'Collection(Edm.String)')", "(cast Names type:Collection(Edm.String))"},
		{"x in (Names)", "(in x Names)"},
		{"x in ('a')", "(in x (list 'a'))"},
		{"x in ()", "(in x (list))"},
		{"x in [1,'a']", "(in x (list 1 'a'))"},
		{"Price mul -2 eq -Price", "(eq (mul Price -2) (- Price))"},
	}
	for _, tt := range tests {
		e, err := ParseFilter(tt.in)
		if err != nil {
			t.Errorf("ParseFilter(%q) = %v, want %s", tt.in, err, tt.want)
			continue
		}
		if got := tree(e); got != tt.want {
			t.Errorf("ParseFilter(%q) = %s, want %s", tt.in, got, tt.want)
		}
		roundTrip(t, tt.in, e)
	}
}

func TestParseFilterString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Category eq 'electronics' or Price gt 100", "Category eq 'electronics' or Price gt 100"},
		{"(a or b) and c", "(a or b) and c"},
		{"a or (b and c)", "a or b and c"},
		{"a sub (b sub c)", "a sub (b sub c)"},
		{"not (a and b)", "not (a and b)"},
		{"- 1", "- 1"},
		{"-(-a)", "- -a"},
		{"Name  eq   'a b'", "Name eq 'a b'"},
		{"Name%20eq%20'O''Neil'", "Name eq 'O''Neil'"},
		{"Name eq '100%25'", "Name eq '100%25'"},
		{"Name eq 'a%26b%23c'", "Name eq 'a%26b%23c'"},
		{"CONTAINS(Name,'x')", "contains(Name,'x')"},
		{"maxdatetime%28%20%29", "maxdatetime()"},
		{"geo.distance(A,B) lt 1", "geo.distance(A,B) lt 1"},
		{"Products/$count($filter=Price gt 5.00;$search=blue) gt 2", "Products/$count($filter=Price gt 5.00;$search=blue) gt 2"},
		{"Products/$count gt 0", "Products/$count gt 0"},
		{"Items/any()", "Items/any()"},
		{"$it/Name eq $this/Name", "$it/Name eq $this/Name"},
		{"$root/Customers('A')/Name eq @p", "$root/Customers('A')/Name eq @p"},
		{"@Core.Messages/any(m:m/severity eq 'error')", "@Core.Messages/any(m:m/severity eq 'error')"},
		{"Price/@Measures.Currency%23Reporting eq 'EUR'", "Price/@Measures.Currency%23Reporting eq 'EUR'"},
		{"Model.Fn(p=1,q=@a)/Name eq 'x'", "Model.Fn(p=1,q=@a)/Name eq 'x'"},
		{"Products/$filter(Age gt 3)(ID='Sugar')/Name", "Products/$filter(Age gt 3)(ID='Sugar')/Name"},
		{"Address/Model.AddressWithLocation/Location eq null", "Address/Model.AddressWithLocation/Location eq null"},
		{"case(X gt 0:1,X lt 0:-1,true:0) eq 1", "case(X gt 0:1,X lt 0:-1,true:0) eq 1"},
		{`Address eq {"Street":"NE 40th","City":"Redmond"}`, `Address eq {"Street":"NE 40th","City":"Redmond"}`},
		{`[FirstName,LastName] in [["John","Doe"],["Jane","Smith"]]`, `[FirstName,LastName] in [["John","Doe"],["Jane","Smith"]]`},
		{"style has Sales.Pattern'Yellow,Red'", "style has Sales.Pattern'Yellow,Red'"},
		{"Products/Model.ProductsByColor(colors=%5B%20%22red%22%5D)", `Products/Model.ProductsByColor(colors=["red"])`},
		{"Name in ['Milk', 'Cheese']", "Name in ['Milk','Cheese']"},
	}
	for _, tt := range tests {
		e, err := ParseFilter(tt.in)
		if err != nil {
			t.Errorf("ParseFilter(%q) = %v, want %q", tt.in, err, tt.want)
			continue
		}
		if got := e.String(); got != tt.want {
			t.Errorf("ParseFilter(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
		roundTrip(t, tt.in, e)
	}
}

func TestParseFilterLiterals(t *testing.T) {
	date := func(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		in    string
		kind  LiteralKind
		value any
		typ   string
	}{
		{"null", LitNull, nil, ""},
		{"true", LitBool, true, ""},
		{"FALSE", LitBool, false, ""},
		{"42", LitInt, int64(42), ""},
		{"-42", LitInt, int64(-42), ""},
		{"+42", LitInt, int64(42), ""},
		{"%2B42", LitInt, int64(42), ""},
		{"9223372036854775807", LitInt, int64(math.MaxInt64), ""},
		{"-9223372036854775808", LitInt, int64(math.MinInt64), ""},
		{"9223372036854775808", LitDecimal, "9223372036854775808", ""},
		{"12.50", LitDecimal, "12.50", ""},
		{"-0.001", LitDecimal, "-0.001", ""},
		{"1e5", LitDouble, 1e5, ""},
		{"3.14E-2", LitDouble, 3.14e-2, ""},
		{"1.5f", LitDecimal, "1.5", ""},
		{"0.0F", LitDecimal, "0.0", ""},
		{"1.5e2f", LitDouble, 1.5e2, ""},
		{"2d", LitInt, int64(2), ""},
		{"9.99m", LitDecimal, "9.99", ""},
		{"5L", LitInt, int64(5), ""},
		{"-10.0f", LitDecimal, "-10.0", ""},
		{"INF", LitDouble, math.Inf(1), ""},
		{"-INF", LitDouble, math.Inf(-1), ""},
		{"NaN", LitDouble, math.NaN(), ""},
		{"'O''Neil'", LitString, "O'Neil", ""},
		{"%27O%27%27Neil%27", LitString, "O'Neil", ""},
		{"''", LitString, "", ""},
		{"'%CE%94'", LitString, "Δ", ""},
		{"'a+b'", LitString, "a b", ""},
		{"'a%2Bb'", LitString, "a+b", ""},
		{"'P1D'", LitString, "P1D", ""},
		{"2012-09-03", LitDate, date(2012, 9, 3), ""},
		{"2012-09-03T08:00:00+02:00", LitDateTimeOffset, time.Date(2012, 9, 3, 6, 0, 0, 0, time.UTC), ""},
		{"2012-09-03T08:00:00%2B02:00", LitDateTimeOffset, time.Date(2012, 9, 3, 6, 0, 0, 0, time.UTC), ""},
		{"2012-09-03T08:00Z", LitDateTimeOffset, time.Date(2012, 9, 3, 8, 0, 0, 0, time.UTC), ""},
		{"2012-09-03T08:00:00.1234567-05:30", LitDateTimeOffset, time.Date(2012, 9, 3, 13, 30, 0, 123456700, time.UTC), ""},
		{"2018-02-13T23%3A59%3A59Z", LitDateTimeOffset, time.Date(2018, 2, 13, 23, 59, 59, 0, time.UTC), ""},
		{"13:20:00", LitTimeOfDay, 13*time.Hour + 20*time.Minute, ""},
		{"13:20:00.5", LitTimeOfDay, 13*time.Hour + 20*time.Minute + 500*time.Millisecond, ""},
		{"duration'P1DT2H'", LitDuration, 26 * time.Hour, ""},
		{"duration'-PT0.5S'", LitDuration, -500 * time.Millisecond, ""},
		{"DURATION'PT1M'", LitDuration, time.Minute, ""},
		{"duration'P100000DT0.000000001S'", LitDuration, 100000*24*time.Hour + 1, ""},
		{"duration'PT1H30M'", LitDuration, 90 * time.Minute, ""},
		// The ABNF's SIGN and its case-insensitive letters, as Edm.Duration values read everywhere.
		{"duration'+p1dt2h'", LitDuration, 26 * time.Hour, ""},
		{"01234567-89ab-CDEF-0123-456789abcdef", LitGuid, "01234567-89ab-cdef-0123-456789abcdef", ""},
		{"abcdef01-2345-6789-abcd-ef0123456789", LitGuid, "abcdef01-2345-6789-abcd-ef0123456789", ""},
		{"binary'AQID'", LitBinary, []byte{1, 2, 3}, ""},
		{"binary'-_8='", LitBinary, []byte{0xfb, 0xff}, ""},
		{"Store.ProductType'SimpleProduct'", LitEnum, "SimpleProduct", "Store.ProductType"},
		{"Sales.Pattern'Yellow,32'", LitEnum, "Yellow,32", "Sales.Pattern"},
		{"geography'SRID=0;Point(142.1 64.1)'", LitGeography, "SRID=0;Point(142.1 64.1)", ""},
		{"geometry'SRID=0;Point(1 2)'", LitGeometry, "SRID=0;Point(1 2)", ""},
	}
	for _, tt := range tests {
		e, err := ParseFilter(tt.in)
		if err != nil {
			t.Errorf("ParseFilter(%q) = %v, want %v literal", tt.in, err, tt.kind)
			continue
		}
		l, ok := e.(*Literal)
		if !ok {
			t.Errorf("ParseFilter(%q) = %T, want *Literal", tt.in, e)
			continue
		}
		if l.Kind != tt.kind || l.Type != tt.typ {
			t.Errorf("ParseFilter(%q) = %v literal of type %q, want %v of type %q", tt.in, l.Kind, l.Type, tt.kind, tt.typ)
		}
		if diff := cmp.Diff(tt.value, l.Value, cmpopts.EquateNaNs()); diff != "" {
			t.Errorf("ParseFilter(%q).Value = %#v, want %#v", tt.in, l.Value, tt.value)
		}
		roundTrip(t, tt.in, e)
	}
}

func TestParseFilterErrors(t *testing.T) {
	tests := []struct{ in, want, code string }{
		{"Name eq )", `$filter:1:9: expected expression, found ")"`, CodeSyntax},
		{"Name eq", `$filter:1:8: expected expression, found end of input`, CodeSyntax},
		{"", `$filter:1:1: expected expression, found end of input`, CodeSyntax},
		{" Name eq 1", `$filter:1:1: expected expression, found whitespace`, CodeSyntax},
		{"Name eq 'x' Price", `$filter:1:13: expected operator, found "Price"`, CodeSyntax},
		{"Name eq 'x'and Price lt 2", `$filter:1:12: expected operator, found "and"`, CodeSyntax},
		{"Name eq 'abc", `$filter:1:13: unterminated string literal`, CodeSyntax},
		{"Name eq 'O%27Neil'", `$filter:1:19: unterminated string literal`, CodeSyntax},
		{"Name eq '100%'", `$filter:1:13: invalid percent-encoding`, CodeSyntax},
		{"Price eq 1.", `$filter:1:12: expected digits after the decimal point`, CodeSyntax},
		{"Price eq 12abc", `$filter:1:12: invalid number literal`, CodeSyntax},
		{"Price eq 12fx", `$filter:1:12: invalid number literal`, CodeSyntax},
		{"Price eq 1.5L", `$filter:1:13: invalid number literal`, CodeSyntax},
		{"D eq 2012-13-01", `$filter:1:6: invalid date: 2012-13-01`, CodeSyntax},
		{"D eq 2012-02-30", `$filter:1:6: invalid date: 2012-02-30`, CodeSyntax},
		{"D eq 2012-02-03T10:00:00", `$filter:1:25: date-time literal needs a time zone (Z or +hh:mm)`, CodeSyntax},
		{"T eq 25:00:00", `$filter:1:6: invalid time of day: 25:00:00`, CodeSyntax},
		{"D eq duration'P1X'", `$filter:1:6: invalid duration: P1X`, CodeSyntax},
		{"D eq duration'PT1M1H'", `$filter:1:6: invalid duration: PT1M1H`, CodeSyntax},
		{"D eq duration'P1.5D'", `$filter:1:6: invalid duration: P1.5D`, CodeSyntax},
		{"D eq duration'P999999999DT1S'", `$filter:1:6: invalid duration: P999999999DT1S`, CodeSyntax},
		{"B eq binary'!!'", `$filter:1:6: invalid base64url in binary literal`, CodeSyntax},
		{"X eq foo'bar'", `$filter:1:6: unknown literal prefix "foo"`, CodeSyntax},
		{"Model.Available", `$filter:1:16: expected "/" after type name Model.Available`, CodeSyntax},
		{"any()", `$filter:1:4: any must follow a collection path`, CodeSyntax},
		{"Products/all()", `$filter:1:14: all() needs a lambda variable and a predicate`, CodeSyntax},
		{"FirstName in (FirstName,LastName)", `$filter:1:15: expected literal in list`, CodeSyntax},
		{"Emails eq ('a','b')", `$filter:1:11: a parenthesised list is only allowed after in`, CodeSyntax},
		{"Products/$count/Name", `$filter:1:16: $count must be the last segment`, CodeSyntax},
		{"contains(p=1,'x')", `$filter:1:10: unexpected parameter name in contains()`, CodeSyntax},
		{"cast(Price,1)", `$filter:1:12: expected type name`, CodeSyntax},
		{"cast(Price,'not a type')", `$filter:1:12: expected type name`, CodeSyntax},
		{"cast(Price,'Edm.')", `$filter:1:12: expected type name`, CodeSyntax},
		{"Name eq #", `$filter:1:9: unexpected "#"`, CodeSyntax},
		{"Name eq \x01", `$filter:1:9: unexpected byte %01`, CodeSyntax},
		{"Name eq 'a%FFb'", `$filter:1:9: the string is not UTF-8 text`, CodeSyntax},
		{"Tags/any(t:t eq 'caf%C3')", `$filter:1:17: the string is not UTF-8 text`, CodeSyntax},
		{"Name eq 'a' or", `$filter:1:15: expected expression, found end of input`, CodeSyntax},
		{"(Name eq 'a'", `$filter:1:13: expected ")", found end of input`, CodeSyntax},
		{strings.Repeat("(", 65) + "a" + strings.Repeat(")", 65), `$filter:1:65: nesting exceeds the limit of 64 levels`, CodeLimitExceeded},
		{strings.Repeat("not ", 65) + "a", `$filter:1:257: nesting exceeds the limit of 64 levels`, CodeLimitExceeded},
		{"A/any(a:a/B/any(b:b/C/any(c:c/D/any(d:d/E/any(e:e eq 1)))))", `$filter:1:43: lambda nesting exceeds the limit of 4 levels`, CodeLimitExceeded},
		{strings.Repeat("A/any(a:a eq 1) or ", 32) + "B/all(b:b eq 2)", `$filter:1:611: the expression holds more than the limit of 32 lambdas (any/all)`, CodeLimitExceeded},
		{"A/any(a:" + strings.Repeat("a/B/any(b:b eq 1) and ", 32) + "true)", `$filter:1:695: the expression holds more than the limit of 32 lambdas (any/all)`, CodeLimitExceeded},
		{"Name eq '" + strings.Repeat("x", 1001) + "'", `$filter:1:9: the literal exceeds the limit of 1000 characters`, CodeLimitExceeded},
		{"Name eq '" + strings.Repeat("''", 1001) + "'", `$filter:1:9: the literal exceeds the limit of 1000 characters`, CodeLimitExceeded},
		{"Name in (\"" + strings.Repeat("é", 1001) + "\")", `$filter:1:10: the literal exceeds the limit of 1000 characters`, CodeLimitExceeded},
		{"matchesPattern(Name,'(a{1,100}){1,10}c')", `$filter:1:21: the pattern of matchesPattern exceeds the limit of 1000 compiled instructions`, CodeLimitExceeded},
		{"Price eq " + strings.Repeat("1", 1001), `$filter:1:10: the literal exceeds the limit of 1000 characters`, CodeLimitExceeded},
	}
	for _, tt := range tests {
		_, err := ParseFilter(tt.in)
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("ParseFilter(%q) = %v, want error %q", tt.in, err, tt.want)
			continue
		}
		if se.Error() != tt.want || se.Code != tt.code {
			t.Errorf("ParseFilter(%q) = %q (%s), want %q (%s)", tt.in, se.Error(), se.Code, tt.want, tt.code)
		}
	}
}

func TestParseFilterLimitsAccepted(t *testing.T) {
	ok := []string{
		strings.Repeat("(", 63) + "a" + strings.Repeat(")", 63),
		strings.Repeat("not ", 60) + "a",
		"A/any(a:a/B/any(b:b/C/any(c:c/D/any(d:d eq 1))))",
		strings.Repeat("a eq 1 or ", 500) + "a eq 1", // a long flat chain is one nesting level
		strings.Repeat("A/any(a:a eq 1) or ", 31) + "B/all(b:b eq 2)",
		"Name eq '" + strings.Repeat("é", 1000) + "'",
		"Name eq '" + strings.Repeat("''", 1000) + "'",
		"Price eq 0." + strings.Repeat("1", 998),
		`matchesPattern(Email,'[a-z0-9._%25+-]+@[a-z0-9.-]+\.[a-z]{2,63}') and matchesPattern(Name,'x{2,100}y{2,100}')`,
		"matchesPattern(Name,'[[:<:]]a')", // not Go syntax: the database judges it
	}
	for _, in := range ok {
		if _, err := ParseFilter(in); err != nil {
			t.Errorf("ParseFilter(%q) = %v, want success", in[:min(len(in), 60)], err)
		}
	}
}

func TestParseOrderBy(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Name", "Name"},
		{"Name asc,Rating,ReleaseDate desc", "Name,Rating,ReleaseDate desc"},
		{"Name\tasc", "Name"},
		{"Cost ge Revenue asc", "Cost ge Revenue"},
		{"Products/$count desc", "Products/$count desc"},
		{"tolower(Name) DESC", "tolower(Name) desc"},
	}
	for _, tt := range tests {
		items, err := ParseOrderBy(tt.in)
		if err != nil {
			t.Errorf("ParseOrderBy(%q) = %v, want %q", tt.in, err, tt.want)
			continue
		}
		q := &Query{OrderBy: items}
		if got := strings.TrimPrefix(q.String(), "$orderby="); got != tt.want {
			t.Errorf("ParseOrderBy(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, in := range []string{"", "Name asc desc", "Name,", ",Name", "Name asc Price"} {
		if _, err := ParseOrderBy(in); err == nil {
			t.Errorf("ParseOrderBy(%q) = nil error, want an error", in)
		}
	}
}

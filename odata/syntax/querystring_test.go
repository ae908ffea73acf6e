package syntax

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// param is what a test expects of a QueryParam.
type param struct{ Name, Option, Raw, Value string }

func params(q QueryString) []param {
	out := []param{}
	for _, p := range q {
		out = append(out, param{p.Name, p.Option, p.Raw, p.Value()})
	}
	return out
}

func TestSplitQuery(t *testing.T) {
	tests := []struct {
		in   string
		want []param
	}{
		{"", []param{}},
		{"$filter=a", []param{{"$filter", "$filter", "a", "a"}}},
		// OData 4.01: a system option without "$", in any case, or with its "$" percent-encoded.
		{"filter=a", []param{{"filter", "$filter", "a", "a"}}},
		{"$Filter=a", []param{{"$Filter", "$filter", "a", "a"}}},
		{"%24filter=a", []param{{"$filter", "$filter", "a", "a"}}},
		{"%24FILTER=a", []param{{"$FILTER", "$filter", "a", "a"}}},
		{"%66ilter=a", []param{{"filter", "$filter", "a", "a"}}},
		{"id=Book('b1')", []param{{"id", "$id", "Book('b1')", "Book('b1')"}}},
		{"$ID=Book('b1')", []param{{"$ID", "$id", "Book('b1')", "Book('b1')"}}},
		{"count=true", []param{{"count", "$count", "true", "true"}}},
		{"$toinclusive=1", []param{{"$toinclusive", "$toInclusive", "1", "1"}}},
		// The Temporal extension's options are system options only with their "$".
		{"from=1&$from=2", []param{{"from", "from", "1", "1"}, {"$from", "$from", "2", "2"}}},
		// An unknown "$" name is kept as sent (ParseQuery refuses it).
		{"$nope=1", []param{{"$nope", "$nope", "1", "1"}}},
		{"@p=1&@P=2", []param{{"@p", "@p", "1", "1"}, {"@P", "@P", "2", "2"}}},
		// Custom options are case-sensitive and may repeat.
		{"x=1&X=2&x=3", []param{{"x", "x", "1", "1"}, {"X", "X", "2", "2"}, {"x", "x", "3", "3"}}},
		// Empty parts are skipped; an option without "=" or with an empty value has an empty value.
		{"&&$top=1&", []param{{"$top", "$top", "1", "1"}}},
		{"$top=&$skip", []param{{"$top", "$top", "", ""}, {"$skip", "$skip", "", ""}}},
		{"a==b", []param{{"a", "a", "=b", "=b"}}},
		// A '+' is a space, %20 too, %2B a plus; %00 is a byte like any other; a bad escape stays as sent.
		{"$search=a+b%20c%2Bd", []param{{"$search", "$search", "a+b%20c%2Bd", "a b c+d"}}},
		{"my+name=1", []param{{"my name", "my name", "1", "1"}}},
		{"x=%00&%00=y", []param{{"x", "x", "%00", "\x00"}, {"\x00", "\x00", "y", "y"}}},
		{"x=100%&%zz=1", []param{{"x", "x", "100%", "100%"}, {"%zz", "%zz", "1", "1"}}},
		{"$filter=Name%20eq%20'a%26b'", []param{{"$filter", "$filter", "Name%20eq%20'a%26b'", "Name eq 'a&b'"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, params(SplitQuery(tt.in))); diff != "" {
			t.Errorf("SplitQuery(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestSplitQueryAgreesWithParseQuery: every option ParseQuery reads is known by the same name to SplitQuery.
func TestSplitQueryAgreesWithParseQuery(t *testing.T) {
	for _, in := range []string{
		"$filter=a&top=1&$Skip=2&%24count=true&SELECT=a&@p=1&custom=x",
		"id=Book('b1')&deltatoken=t&SkipToken=s&format=json",
		"$at=2020-01-01&from=x&$TO=2021-01-01&$toinclusive=2021-01-01&to=y",
		"schemaVersion=1&%24orderby=a+desc&compute=a+as+b&apply=groupby((a))",
	} {
		q, err := ParseQuery(in)
		if err != nil {
			t.Fatalf("ParseQuery(%q) = %v", in, err)
		}
		var fromParse, fromSplit []string
		for _, o := range q.Options {
			fromParse = append(fromParse, o.Name+" "+o.Spelt)
		}
		for _, p := range SplitQuery(in) {
			fromSplit = append(fromSplit, p.Option+" "+p.Name)
		}
		if diff := cmp.Diff(fromParse, fromSplit); diff != "" {
			t.Errorf("ParseQuery(%q) and SplitQuery name the options differently (-ParseQuery +SplitQuery):\n%s", in, diff)
		}
	}
}

func TestQueryString_Lookup(t *testing.T) {
	tests := []struct {
		query, name string
		found       bool
		want        param
		err         string // the error's text, "" for none
	}{
		{"id=Book('b1')", "$id", true, param{"id", "$id", "Book('b1')", "Book('b1')"}, ""},
		{"$id=a", "id", true, param{"$id", "$id", "a", "a"}, ""},
		{"%24Id=a", "$ID", true, param{"$Id", "$id", "a", "a"}, ""},
		{"$Filter=Price+gt+1", "$filter", true, param{"$Filter", "$filter", "Price+gt+1", "Price gt 1"}, ""},
		{"$top=", "$top", true, param{"$top", "$top", "", ""}, ""},
		{"a=1", "$id", false, param{}, ""},
		{"from=1", "$from", false, param{}, ""},
		{"X=1", "x", false, param{}, ""},
		// A system option or an alias given twice is an error naming the second as sent; a custom option's first
		// is the one.
		{"$filter=a&filter=b", "$filter", true, param{"$filter", "$filter", "a", "a"}, "filter: $filter must not appear more than once"},
		{"@p=1&@p=2", "@p", true, param{"@p", "@p", "1", "1"}, "@p: @p must not appear more than once"},
		{"x=1&x=2", "x", true, param{"x", "x", "1", "1"}, ""},
	}
	for _, tt := range tests {
		p, found, err := SplitQuery(tt.query).Lookup(tt.name)
		got := ""
		if err != nil {
			got = err.Error()
			var syntaxErr *Error
			if !errors.As(err, &syntaxErr) || syntaxErr.Code != CodeSyntax {
				t.Errorf("Lookup(%q) in %q: error %v is not a syntax *Error", tt.name, tt.query, err)
			}
		}
		if found != tt.found || got != tt.err {
			t.Errorf("Lookup(%q) in %q = %v, %q, want %v, %q", tt.name, tt.query, found, got, tt.found, tt.err)
		}
		if diff := cmp.Diff(tt.want, param{p.Name, p.Option, p.Raw, p.Value()}); diff != "" {
			t.Errorf("Lookup(%q) in %q (-want +got):\n%s", tt.name, tt.query, diff)
		}
	}
}

func TestQueryString_Rewrite(t *testing.T) {
	q := SplitQuery("$Filter=a+b&top=2&&x=1&%24SkipToken=t&x=2")
	tests := []struct {
		name string
		got  QueryString
		want string
	}{
		{"as sent", q, "$Filter=a+b&top=2&x=1&%24SkipToken=t&x=2"},
		{"without", q.Without("$top", "skiptoken"), "$Filter=a+b&x=1&x=2"},
		{"without a custom option", q.Without("x"), "$Filter=a+b&top=2&%24SkipToken=t"},
		{"without what it has not", q.Without("$expand", "@p"), "$Filter=a+b&top=2&x=1&%24SkipToken=t&x=2"},
		{"with, replaced in place", q.With("$filter", "c"), "$filter=c&top=2&x=1&%24SkipToken=t&x=2"},
		{"with, appended", q.With("expand", "A"), "$Filter=a+b&top=2&x=1&%24SkipToken=t&x=2&$expand=A"},
		{"with, every other occurrence removed", SplitQuery("filter=a&$top=1&$FILTER=b").With("$filter", "c"), "$filter=c&$top=1"},
		{"with a custom option", q.With("x", "3"), "$Filter=a+b&top=2&x=3&%24SkipToken=t"},
		{"empty", SplitQuery("").With("$top", "1"), "$top=1"},
	}
	for _, tt := range tests {
		if got := tt.got.String(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	if !q.Has("$top") || !q.Has("SKIPTOKEN") || !q.Has("$expand", "x") || q.Has("$expand", "X", "from") {
		t.Errorf("Has: wrong answers for %q", q)
	}
}

func TestQueryParam_Custom(t *testing.T) {
	for in, want := range map[string]bool{"$filter=a": false, "filter=a": false, "@p=1": false, "x=1": true, "from=1": true, "$from=1": false} {
		if got := SplitQuery(in)[0].Custom(); got != want {
			t.Errorf("SplitQuery(%q)[0].Custom() = %v, want %v", in, got, want)
		}
	}
}

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"Name eq 'a'", "Name%20eq%20'a'"},
		{"C++", "C%2B%2B"},
		{"100%", "100%25"},
		{"a&b=c;d#e", "a%26b%3Dc%3Bd%23e"},
		{"Id in ('b1','b2')", "Id%20in%20('b1','b2')"},
		{"x\x00y", "x%00y"},
		{"é", "%C3%A9"},
		{"-._~'()*,:@$/!", "-._~'()*,:@$/!"},
	}
	for _, tt := range tests {
		got := Escape(tt.in)
		if got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if back := Unescape(got); back != tt.in {
			t.Errorf("Unescape(Escape(%q)) = %q", tt.in, back)
		}
	}
	// What Escape writes, a parser reads as written.
	for _, text := range []string{"C++", "100%", "a&b", "a+b c", "x#y;z"} {
		e, err := ParseExpr("'" + Escape(text) + "'")
		if err != nil {
			t.Errorf("ParseExpr(Escape(%q)) = %v", text, err)
			continue
		}
		if got := e.(*Literal).Value; got != text {
			t.Errorf("ParseExpr(Escape(%q)) = %v, want %q", text, got, text)
		}
	}
}

// BenchmarkSplitQuery measures what a read pays to find its paging options and the query without them (the
// planner's cache key) in a typical query.
func BenchmarkSplitQuery(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		q := SplitQuery(typicalQuery)
		if _, found, err := q.Lookup("$top"); !found || err != nil {
			b.Fatal(found, err)
		}
		_ = q.Without("$top", "$skiptoken").String()
	}
}

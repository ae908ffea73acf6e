package syntax

import (
	"errors"
	"strings"
	"testing"
)

// Seed corpora are in testdata/fuzz/<Name>/ (made from the ABNF corpus and the table tests).

// checkErr checks that a parse error is an *Error with a position inside the input (or just after it).
func checkErr(t *testing.T, in string, err error) {
	t.Helper()
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("Parse(%q) = %T %v, want *Error", in, err, err)
	}
	if se.Pos < 0 || se.Pos > len(in)+1 {
		t.Fatalf("Parse(%q) = %v: position %d outside 0..%d", in, err, se.Pos, len(in)+1)
	}
	if se.Code != CodeSyntax && se.Code != CodeLimitExceeded {
		t.Fatalf("Parse(%q) = %v: code %q", in, err, se.Code)
	}
}

func FuzzParseFilter(f *testing.F) {
	f.Fuzz(func(t *testing.T, in string) {
		e, err := ParseFilter(in)
		if err != nil {
			checkErr(t, in, err)
			return
		}
		out := e.String()
		back, err := ParseFilter(out)
		if err != nil {
			t.Fatalf("ParseFilter(%q) printed %q, which fails: %v", in, out, err)
		}
		if again := back.String(); again != out {
			t.Fatalf("ParseFilter(%q) printed %q, then %q", in, out, again)
		}
	})
}

func FuzzParseQuery(f *testing.F) {
	f.Fuzz(func(t *testing.T, in string) {
		q, err := ParseQuery(in)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("ParseQuery(%q) = %T %v, want *Error", in, err, err)
			}
			return
		}
		out := q.String()
		back, err := ParseQuery(out)
		if err != nil {
			t.Fatalf("ParseQuery(%q) printed %q, which fails: %v", in, out, err)
		}
		if again := back.String(); again != out {
			t.Fatalf("ParseQuery(%q) printed %q, then %q", in, out, again)
		}
	})
}

func FuzzParsePath(f *testing.F) {
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ParsePath(in)
		if err != nil {
			checkErr(t, in, err)
			return
		}
		out := p.String()
		back, err := ParsePath(out)
		if err != nil {
			t.Fatalf("ParsePath(%q) printed %q, which fails: %v", in, out, err)
		}
		if again := back.String(); again != out {
			t.Fatalf("ParsePath(%q) printed %q, then %q", in, out, again)
		}
	})
}

// FuzzSplitQuery: SplitQuery writes back what it split, finds every parameter by its own name, and names the
// options of every query ParseQuery accepts as ParseQuery does.
func FuzzSplitQuery(f *testing.F) {
	for _, seed := range []string{"", "$filter=a&top=1", "%24Id=x&&id=y", "@p=1&x=2&X=3", "$from=1&from=2", "a+b=%00&=c"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		q := SplitQuery(in)
		var parts []string
		for _, part := range strings.Split(in, "&") {
			if part != "" {
				parts = append(parts, part)
			}
		}
		if got, want := q.String(), strings.Join(parts, "&"); got != want {
			t.Fatalf("SplitQuery(%q).String() = %q, want %q", in, got, want)
		}
		for _, p := range q {
			if found, ok, _ := q.Lookup(p.Option); !ok || found.Option != p.Option {
				t.Fatalf("SplitQuery(%q).Lookup(%q) = %v, %v", in, p.Option, found, ok)
			}
			if q.Without(p.Option).Has(p.Option) {
				t.Fatalf("SplitQuery(%q).Without(%q) still has it", in, p.Option)
			}
		}
		parsed, err := ParseQuery(in)
		if err != nil {
			return
		}
		if len(parsed.Options) != len(q) {
			t.Fatalf("ParseQuery(%q) has %d options, SplitQuery %d", in, len(parsed.Options), len(q))
		}
		for i, o := range parsed.Options {
			if o.Name != q[i].Option || o.Spelt != q[i].Name {
				t.Fatalf("ParseQuery(%q) option %d is %q spelt %q, SplitQuery's %q spelt %q", in, i, o.Name, o.Spelt, q[i].Option, q[i].Name)
			}
		}
	})
}

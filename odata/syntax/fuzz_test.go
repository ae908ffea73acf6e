package syntax

import (
	"errors"
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

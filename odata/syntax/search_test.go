package syntax

import "testing"

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

package syntax

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseSimplePath checks that the fast path agrees with the grammar wherever it answers.
func TestParseSimplePath(t *testing.T) {
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
		got := parseSimplePath(c.raw)
		if (got != nil) != c.simple {
			t.Errorf("parseSimplePath(%q) = %v, want simple %v", c.raw, got, c.simple)
			continue
		}
		if got == nil {
			continue
		}
		want, err := parsePath(c.raw)
		if err != nil {
			t.Errorf("parsePath(%q) = %v", c.raw, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("parseSimplePath(%q) mismatch (-parsePath +got):\n%s", c.raw, diff)
		}
	}
}

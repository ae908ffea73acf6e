package plan

import (
	"strings"
	"testing"

	sq "github.com/Masterminds/squirrel"
)

// TestDollarPlaceholders checks that dollarPlaceholders numbers placeholders exactly as squirrel's Dollar format,
// which the planner's other statements use.
func TestDollarPlaceholders(t *testing.T) {
	many := "SELECT a FROM t WHERE k IN (" + strings.TrimSuffix(strings.Repeat("?, ", 120), ", ") + ") AND b = ?"
	for _, s := range []string{
		"",
		"SELECT 1",
		"?",
		"??",
		"???",
		"a = ? AND b = ?",
		"j ?? 'k' AND x = ?",
		"x = ??",
		"x = ?? AND y = ?",
		"?? ? ?? ?",
		"trailing ?",
		many,
	} {
		want, err := sq.Dollar.ReplacePlaceholders(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := dollarPlaceholders(s); got != want {
			t.Errorf("dollarPlaceholders(%q) = %q, want %q", s, got, want)
		}
	}
}

// BenchmarkDollarPlaceholders numbers the placeholders of a child query of $expand for 50 parents, with
// squirrel's Dollar format and with dollarPlaceholders.
func BenchmarkDollarPlaceholders(b *testing.B) {
	s := `SELECT "t0"."product_id", "t0"."category_id" FROM "product_category" AS "t0" WHERE "t0"."product_id" IN (` +
		strings.TrimSuffix(strings.Repeat("?, ", 50), ", ") + `) ORDER BY "t0"."product_id", "t0"."category_id"`
	b.Run("squirrel", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_, _ = sq.Dollar.ReplacePlaceholders(s)
		}
	})
	b.Run("dollarPlaceholders", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = dollarPlaceholders(s)
		}
	})
}

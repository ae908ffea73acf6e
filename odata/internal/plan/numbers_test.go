package plan_test

import (
	"testing"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/internal/plan"
)

// TestExactNumbers checks, on every database, comparisons at the edges of Int64 (never through floating point),
// with the IEEE 754 specials INF, -INF and NaN, and through numeric casts that widen. p03 holds the largest Int64
// and p04 the smallest; SQLite stores neither NaN nor the infinities (Dialect.StoresNaN), so no row holds them.
func TestExactNumbers(t *testing.T) {
	m := builtModel(t)
	all := []string{"p01", "p02", "p03", "p04", "p05", "p06", "p07", "p08", "p09", "p10", "p11", "p12"}
	withRating := []string{"p01", "p02", "p04", "p05", "p06", "p07", "p08", "p10", "p11", "p12"}
	cases := []struct {
		filter string
		want   []string
	}{
		// Int64 literals beyond the range of Int64 compare exactly: no row equals 2^63.
		{"Sold eq 9223372036854775807", []string{"p03"}},
		{"Sold eq 9223372036854775808", nil},
		{"Sold ne 9223372036854775808", all},
		{"Sold lt 9223372036854775808", all},
		{"Sold le 9223372036854775808", all},
		{"Sold gt 9223372036854775808", nil},
		{"Sold ge 9223372036854775807", []string{"p03"}},
		{"not (Sold lt 9223372036854775808)", nil},
		{"Sold eq -9223372036854775808", []string{"p04"}},
		{"Sold eq -9223372036854775809", nil},
		{"Sold gt -9223372036854775809", all},
		{"Sold le -9223372036854775809", nil},
		{"Sold in (9223372036854775808, -9223372036854775809)", nil},
		{"Sold in (9223372036854775808, 9223372036854775807)", []string{"p03"}},
		{"Sold gt 9223372036854775806.5", []string{"p03"}},
		{"Sold eq 9223372036854775806.5", nil},
		// INF, -INF and NaN as IEEE 754 has them: every number is below INF and above -INF, NaN equals nothing.
		{"Weight lt INF", all},
		{"Weight gt -INF", all},
		{"Weight eq INF", nil},
		{"Weight ne INF", all},
		{"Weight ge INF or Weight le -INF", nil},
		{"Rating lt INF", withRating},
		{"Rating ne -INF", all},
		{"Price lt INF and Sold gt -INF", all},
		{"Weight eq NaN", nil},
		{"Weight ne NaN", all},
		{"Weight lt NaN or Weight gt NaN or Weight le NaN or Weight ge NaN", nil},
		{"not (Weight eq NaN)", all},
		{"Rating ne NaN", all},
		{"NaN eq NaN", nil},
		{"Weight in (NaN)", nil},
		{"not (Weight in (NaN, 2.5))", []string{"p02", "p03", "p04", "p05", "p06", "p07", "p08", "p09", "p10", "p11", "p12"}},
		// Casts that widen an integer keep its value.
		{"cast(Priority,Edm.Int32) eq 1", []string{"p01", "p06"}},
		{"cast(Priority,Edm.Int16) gt 3", []string{"p08"}},
		{"cast(Delta,Edm.Int64) lt 0", []string{"p01", "p08"}},
		{"cast(StockQuantity,Edm.Int64) eq 10", []string{"p01"}},
		{"cast(cast(Priority,Edm.Int32),Edm.Int64) eq 5", []string{"p08"}},
	}
	for _, db := range fixtureDBs(t, m) {
		for id, sold := range map[string]int64{"p03": 9223372036854775807, "p04": -9223372036854775808} {
			update := sq.Update("product").Set("sold", sold).Where(sq.Eq{"id": id}).PlaceholderFormat(db.Dialect().Placeholder())
			if _, err := update.RunWith(db.DB).Exec(); err != nil {
				t.Fatal(err)
			}
		}
		p := newPlanner(m, db.Dialect())
		for _, c := range cases {
			r, err := p.Read(plan.Scope{Set: m.EntitySet("Product")}, encodeOptions("$filter="+c.filter))
			if err != nil {
				t.Errorf("%s: Read($filter=%s) = %v", db.Dialect().Name(), c.filter, err)
				continue
			}
			_, got, err := fetch(db, r, 100)
			if err != nil {
				t.Errorf("%s: $filter=%s: %v", db.Dialect().Name(), c.filter, err)
				continue
			}
			if diff := cmp.Diff(c.want, got, cmpEmpty); diff != "" {
				t.Errorf("%s: $filter=%s: keys (-want +got):\n%s", db.Dialect().Name(), c.filter, diff)
			}
		}
	}
}

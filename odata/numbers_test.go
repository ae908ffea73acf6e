package odata_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// TestService_ExactNumbers checks through the service that Int64 comparisons are exact at the edge of the
// range, that INF and NaN compare as IEEE 754 has them, and that a cast that widens an integer works.
func TestService_ExactNumbers(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newQueryFixture(t, db)
		f.exec(`UPDATE book SET sold = ? WHERE id = 'b1'`, int64(9223372036854775807))
		f.exec(`UPDATE book SET rating = ?, flag = ? WHERE id = 'b2'`, 4.5, int64(200))
		for _, c := range []struct {
			filter string
			want   []string
		}{
			{"Sold eq 9223372036854775807", []string{"b1"}},
			{"Sold eq 9223372036854775808", nil},
			{"Sold ge 9223372036854775808", nil},
			{"Sold lt 9223372036854775808", []string{"b1", "b2", "b3"}},
			{"Sold gt -9223372036854775809", []string{"b1", "b2", "b3"}},
			{"Rating lt INF", []string{"b2"}},
			{"Rating gt -INF and Rating ne INF", []string{"b2"}},
			{"Rating eq NaN", nil},
			{"Rating ne NaN", []string{"b1", "b2", "b3"}},
			{"Rating gt NaN or Rating le NaN", nil},
			{"cast(Flag,Edm.Int32) eq 200", []string{"b2"}},
			{"cast(Level,Edm.Int64) eq 0", []string{"b1", "b2", "b3"}},
			{"cast(Edition,Edm.Int64) add 1 eq 2", []string{"b1", "b2", "b3"}},
			{"cast('5',Edm.Int32) eq 5", []string{"b1", "b2", "b3"}},
			{"cast('5',Edm.Int32) eq 6", nil},
			{"cast(Title,Edm.Double) eq null", []string{"b1", "b2", "b3"}},
			{"cast(concat('2',cast(Flag,Edm.String)),Edm.Int32) eq 2200", []string{"b2"}},
			{"cast(concat('9',cast(Flag,Edm.String)),Edm.SByte) eq null and Flag ne null", []string{"b2"}},
		} {
			resp := f.do("GET", "/odata/"+encodeURL("Book?$select=Id&$filter="+c.filter), "")
			if resp.Status != 200 {
				t.Errorf("GET Book?$filter=%s = %d, want 200\n%s", c.filter, resp.Status, resp.Body)
				continue
			}
			var got []string
			values, _ := decodeJSON(t, resp.Body)["value"].([]any)
			for _, v := range values {
				got = append(got, v.(map[string]any)["Id"].(string))
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("GET Book?$filter=%s: ids (-want +got):\n%s", c.filter, diff)
			}
		}
	})
}

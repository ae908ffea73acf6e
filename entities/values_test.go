package entities_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/sqlgen"
)

func TestMoneyValue(t *testing.T) {
	for _, tc := range []struct {
		in       string
		sqlite   any
		postgres any
	}{
		{"19.99", int64(199900), "19.9900"},
		{"0", int64(0), "0.0000"},
		{"-1.5", int64(-15000), "-1.5000"},
		{"0.0001", int64(1), "0.0001"},
		{"0.00001", nil, nil}, // more than 4 decimal places
		{"922337203685477.5807", int64(9223372036854775807), "922337203685477.5807"},
		{"922337203685477.5808", nil, "922337203685477.5808"}, // beyond an int64
		{"1000000000000000", nil, nil},                        // beyond NUMERIC(19,4)
	} {
		for _, d := range []struct {
			dialect sqlgen.Dialect
			want    any
		}{{sqlgen.SQLite{}, tc.sqlite}, {sqlgen.PostgreSQL{}, tc.postgres}} {
			got, err := entities.MoneyValue(d.dialect, decimal.RequireFromString(tc.in))
			if d.want == nil {
				if err == nil {
					t.Errorf("moneyValue(%s, %q) = %v, want an error", d.dialect.Name(), tc.in, got)
				}
				continue
			}
			if err != nil || got != d.want {
				t.Errorf("moneyValue(%s, %q) = %v, %v, want %v", d.dialect.Name(), tc.in, got, err, d.want)
			}
		}
	}
}

package sqldb_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

func TestDecimalArg(t *testing.T) {
	for _, tc := range []struct {
		in      string
		sqlite  any
		pg      any
		wantErr bool
	}{
		{"19.99", int64(199900), "19.9900", false},
		{"-0.0001", int64(-1), "-0.0001", false},
		{"0", int64(0), "0.0000", false},
		{"1.00001", nil, nil, true},
		{"-1.5", int64(-15000), "-1.5000", false},
		{"922337203685477.5807", int64(9223372036854775807), "922337203685477.5807", false},
		{"1000000000000000", nil, nil, true}, // beyond NUMERIC(19,4)
	} {
		m := decimal.RequireFromString(tc.in)
		got, err := sqldb.DecimalArg(sqlite.Dialect{}, m, 4)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.sqlite) {
			t.Errorf("DecimalArg(SQLite, %q) = %v, %v, want %v", tc.in, got, err, tc.sqlite)
		}
		got, err = sqldb.DecimalArg(postgres.Dialect{}, m, 4)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.pg) {
			t.Errorf("DecimalArg(PostgreSQL, %q) = %v, %v, want %v", tc.in, got, err, tc.pg)
		}
		if tc.wantErr {
			continue
		}
		back, err := sqldb.ScanDecimal(tc.sqlite, 4)
		if err != nil || !back.Equal(m) {
			t.Errorf("ScanDecimal(%v) = %v, %v, want %v", tc.sqlite, back, err, m)
		}
	}
}

func TestTimeArg(t *testing.T) {
	in := time.Date(2026, 11, 22, 3, 4, 5, 123456789, time.FixedZone("x", 2*3600))
	got := sqldb.TimeArg(sqlite.Dialect{}, in)
	if got != "2026-11-22T01:04:05.123456Z" {
		t.Errorf("TimeArg(SQLite, %v) = %v", in, got)
	}
	back, err := sqldb.ScanTime(got)
	if err != nil || !back.Equal(in.Truncate(time.Microsecond)) {
		t.Errorf("ScanTime(%v) = %v, %v", got, back, err)
	}
}

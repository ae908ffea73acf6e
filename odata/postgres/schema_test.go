package postgres_test

import (
	"testing"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/postgres"
)

// TestDialect_ColumnHolds checks which types, as format_type spells them, hold each kind.
func TestDialect_ColumnHolds(t *testing.T) {
	d := postgres.Dialect{}
	for _, c := range []struct {
		columnType                  string
		kind                        edm.Kind
		maxLength, precision, scale int
		want                        bool
	}{
		{"text", edm.KindString, 0, 0, 0, true},
		{"character varying", edm.KindString, 0, 0, 0, true},
		{"character varying(100)", edm.KindString, 100, 0, 0, true},
		{"character varying(50)", edm.KindString, 100, 0, 0, false},
		{"character varying(50)", edm.KindString, 0, 0, 0, false},
		{"character(10)", edm.KindString, 10, 0, 0, false},
		{"uuid", edm.KindGuid, 0, 0, 0, true},
		{"text", edm.KindGuid, 0, 0, 0, false},
		{"boolean", edm.KindBoolean, 0, 0, 0, true},
		{"smallint", edm.KindByte, 0, 0, 0, true},
		{"smallint", edm.KindInt32, 0, 0, 0, false},
		{"bigint", edm.KindInt32, 0, 0, 0, true},
		{"integer", edm.KindInt64, 0, 0, 0, false},
		{"bigint", edm.KindDuration, 0, 0, 0, true},
		{"interval", edm.KindDuration, 0, 0, 0, false},
		{"numeric", edm.KindDecimal, 0, 19, 4, true},
		{"numeric(19,4)", edm.KindDecimal, 0, 19, 4, true},
		{"numeric(21,6)", edm.KindDecimal, 0, 19, 4, true},
		{"numeric(20,6)", edm.KindDecimal, 0, 19, 4, false},
		{"numeric(19,2)", edm.KindDecimal, 0, 19, 4, false},
		{"numeric(18,4)", edm.KindDecimal, 0, 19, 4, false},
		{"double precision", edm.KindDecimal, 0, 19, 4, false},
		{"double precision", edm.KindDouble, 0, 0, 0, true},
		{"real", edm.KindDouble, 0, 0, 0, false},
		{"real", edm.KindSingle, 0, 0, 0, true},
		{"date", edm.KindDate, 0, 0, 0, true},
		{"timestamp without time zone", edm.KindDateTimeOffset, 0, 0, 0, false},
		{"timestamp with time zone", edm.KindDateTimeOffset, 0, 0, 0, true},
		{"time without time zone", edm.KindTimeOfDay, 0, 0, 0, true},
		{"time(3) without time zone", edm.KindTimeOfDay, 0, 3, 0, true},
		{"time(3) without time zone", edm.KindTimeOfDay, 0, 6, 0, false},
		{"timestamp(3) with time zone", edm.KindDateTimeOffset, 0, 3, 0, true},
		{"timestamp(3) with time zone", edm.KindDateTimeOffset, 0, 4, 0, false},
		{"bytea", edm.KindBinary, 0, 0, 0, true},
		{"bytea", edm.KindStream, 0, 0, 0, true},
	} {
		if got := d.ColumnHolds(c.columnType, c.kind, c.maxLength, c.precision, c.scale); got != c.want {
			t.Errorf("ColumnHolds(%q, %s, %d, %d, %d) = %v, want %v", c.columnType, c.kind, c.maxLength,
				c.precision, c.scale, got, c.want)
		}
	}
}

// TestDialect_TimeColumnHolds checks which types, as format_type spells them, hold each time storage.
func TestDialect_TimeColumnHolds(t *testing.T) {
	d := postgres.Dialect{}
	for _, c := range []struct {
		columnType string
		kind       edm.Kind
		storage    edm.TimeStorage
		precision  int
		want       bool
	}{
		{"timestamp with time zone", edm.KindDateTimeOffset, edm.TimeAuto, 6, true},
		{"timestamp without time zone", edm.KindDateTimeOffset, edm.TimeAuto, 6, false},
		{"timestamp without time zone", edm.KindDateTimeOffset, edm.TimeSQL, 6, true},
		{"timestamp(6) without time zone", edm.KindDateTimeOffset, edm.TimeSQL, 6, true},
		{"timestamp(3) without time zone", edm.KindDateTimeOffset, edm.TimeSQL, 3, true},
		{"timestamp(3) without time zone", edm.KindDateTimeOffset, edm.TimeSQL, 6, false},
		{"timestamp with time zone", edm.KindDateTimeOffset, edm.TimeSQL, 6, false},
		{"bigint", edm.KindDateTimeOffset, edm.TimeUnix, 6, true},
		{"integer", edm.KindDateTimeOffset, edm.TimeUnix, 6, false},
		{"bigint", edm.KindDateTimeOffset, edm.TimeSQL, 6, false},
		{"time without time zone", edm.KindTimeOfDay, edm.TimeSQL, 6, true},
		{"time with time zone", edm.KindTimeOfDay, edm.TimeSQL, 6, false},
		{"bigint", edm.KindTimeOfDay, edm.TimeUnix, 6, false},
	} {
		if got := d.TimeColumnHolds(c.columnType, c.kind, c.storage, c.precision); got != c.want {
			t.Errorf("TimeColumnHolds(%q, %s, %s, %d) = %v, want %v", c.columnType, c.kind, c.storage, c.precision, got, c.want)
		}
	}
}

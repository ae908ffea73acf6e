package sqlite_test

import (
	"testing"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqlite"
)

// TestDialect_ColumnHolds checks which declared types hold each kind, by SQLite's affinity rules.
func TestDialect_ColumnHolds(t *testing.T) {
	d := sqlite.Dialect{}
	for _, c := range []struct {
		columnType string
		kind       edm.Kind
		want       bool
	}{
		{"TEXT", edm.KindString, true},
		{"VARCHAR(10)", edm.KindString, true},
		{"NVARCHAR(100)", edm.KindGuid, true},
		{"CLOB", edm.KindDateTimeOffset, true},
		{"INTEGER", edm.KindString, false},
		{"BLOB", edm.KindDate, false},
		{"INT", edm.KindInt64, true},
		{"BIGINT", edm.KindBoolean, true},
		// A scaled decimal needs INTEGER affinity: NUMERIC keeps 19.99 as a REAL (edm.DecimalFloat serves it).
		{"BIGINT", edm.KindDecimal, true},
		{"NUMERIC", edm.KindDecimal, false},
		{"DECIMAL(19,4)", edm.KindDecimal, false},
		{"REAL", edm.KindDecimal, false},
		{"TEXT", edm.KindInt32, false},
		{"REAL", edm.KindDouble, true},
		{"DOUBLE PRECISION", edm.KindSingle, true},
		{"FLOAT", edm.KindDouble, true},
		{"INTEGER", edm.KindDouble, false},
		{"BLOB", edm.KindBinary, true},
		{"TEXT", edm.KindStream, false},
		{"", edm.KindBinary, true},
		{"ANY", edm.KindString, true},
		// A DATE column keeps YYYY-MM-DD text; a DATETIME one holds more than a date.
		{"DATE", edm.KindDate, true},
		{"DATETIME", edm.KindDate, false},
		{"DATETIME", edm.KindDateTimeOffset, false},
	} {
		if got := d.ColumnHolds(c.columnType, c.kind, 0, 19, 4); got != c.want {
			t.Errorf("ColumnHolds(%q, %s) = %v, want %v", c.columnType, c.kind, got, c.want)
		}
	}
}

// TestDialect_TimeColumnHolds checks which declared types hold each time storage, by SQLite's affinity rules and
// the names other programs give such columns.
func TestDialect_TimeColumnHolds(t *testing.T) {
	d := sqlite.Dialect{}
	for _, c := range []struct {
		columnType string
		kind       edm.Kind
		storage    edm.TimeStorage
		want       bool
	}{
		{"TEXT", edm.KindDateTimeOffset, edm.TimeAuto, true},
		{"", edm.KindDateTimeOffset, edm.TimeAuto, true},
		{"DATETIME", edm.KindDateTimeOffset, edm.TimeAuto, false},
		{"DATETIME", edm.KindDateTimeOffset, edm.TimeSQL, true},
		{"TIMESTAMP", edm.KindDateTimeOffset, edm.TimeSQL, true},
		{"TEXT", edm.KindDateTimeOffset, edm.TimeSQL, true},
		{"DATE", edm.KindDateTimeOffset, edm.TimeSQL, false},
		{"REAL", edm.KindDateTimeOffset, edm.TimeSQL, false},
		{"INTEGER", edm.KindDateTimeOffset, edm.TimeSQL, false},
		{"INTEGER", edm.KindDateTimeOffset, edm.TimeUnix, true},
		{"BIGINT", edm.KindDateTimeOffset, edm.TimeUnix, true},
		{"DATETIME", edm.KindDateTimeOffset, edm.TimeUnix, true},
		{"DATE", edm.KindDateTimeOffset, edm.TimeUnix, false},
		{"TEXT", edm.KindDateTimeOffset, edm.TimeUnix, false},
		{"TIME", edm.KindTimeOfDay, edm.TimeAuto, false},
		{"TIME", edm.KindTimeOfDay, edm.TimeSQL, true},
		{"DATETIME", edm.KindTimeOfDay, edm.TimeSQL, false},
		{"INTEGER", edm.KindTimeOfDay, edm.TimeUnix, false},
	} {
		if got := d.TimeColumnHolds(c.columnType, c.kind, c.storage, 6); got != c.want {
			t.Errorf("TimeColumnHolds(%q, %s, %s) = %v, want %v", c.columnType, c.kind, c.storage, got, c.want)
		}
	}
}

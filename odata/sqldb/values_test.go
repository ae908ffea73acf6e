package sqldb_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

// TestArgScan_RoundTrip stores a value of every kind in a column of the type odata/DESIGN.md gives it and reads
// it back through Scan, on each database.
func TestArgScan_RoundTrip(t *testing.T) {
	flags := &edm.EnumType{Name: "Color", Flags: true, Members: []edm.EnumMember{{Name: "Red", Value: 1}, {Name: "Blue", Value: 2}}}
	cases := []struct {
		p         *edm.Property
		sqliteCol string
		pgCol     string
		v         any
	}{
		{&edm.Property{Name: "S", Type: edm.KindString}, "TEXT", `TEXT COLLATE "C"`, "Grüße ' \" x"},
		{&edm.Property{Name: "B", Type: edm.KindBoolean}, "INTEGER", "BOOLEAN", true},
		{&edm.Property{Name: "I16", Type: edm.KindInt16}, "INTEGER", "SMALLINT", int64(-12)},
		{&edm.Property{Name: "I32", Type: edm.KindInt32}, "INTEGER", "INTEGER", int64(2147483647)},
		{&edm.Property{Name: "I64", Type: edm.KindInt64}, "INTEGER", "BIGINT", int64(-9223372036854775808)},
		{&edm.Property{Name: "M", Type: edm.KindDecimal, Precision: 19, Scale: 4}, "INTEGER", "NUMERIC(19,4)", decimal.RequireFromString("-12345.6789")},
		{&edm.Property{Name: "F", Type: edm.KindDouble}, "REAL", "DOUBLE PRECISION", 3.25e-7},
		{&edm.Property{Name: "D", Type: edm.KindDate}, "TEXT", "DATE", edm.Date{Year: 2024, Month: 2, Day: 29}},
		{&edm.Property{Name: "T", Type: edm.KindTimeOfDay, Precision: 6}, "TEXT", "TIME", edm.NewTimeOfDay(23, 59, 58, 123456000)},
		{&edm.Property{Name: "TS", Type: edm.KindDateTimeOffset, Precision: 6}, "TEXT", "TIMESTAMPTZ", time.Date(2026, 11, 22, 1, 2, 3, 456789000, time.UTC)},
		{&edm.Property{Name: "DU", Type: edm.KindDuration, Precision: 6}, "INTEGER", "BIGINT", 36*time.Hour + 1500*time.Microsecond},
		{&edm.Property{Name: "G", Type: edm.KindGuid}, "TEXT", "UUID", "0f8fad5b-d9cb-469f-a165-70867728950e"},
		{&edm.Property{Name: "BIN", Type: edm.KindBinary}, "BLOB", "BYTEA", []byte{0, 1, 2, 255}},
		{&edm.Property{Name: "E", Enum: flags}, "INTEGER", "INTEGER", int64(3)},
		// The time storages of tables other programs made.
		{&edm.Property{Name: "TSSQL", Type: edm.KindDateTimeOffset, Precision: 6, TimeStorage: edm.TimeSQL}, "DATETIME", "TIMESTAMP", time.Date(2026, 11, 22, 1, 2, 3, 456789000, time.UTC)},
		{&edm.Property{Name: "TSSQLTEXT", Type: edm.KindDateTimeOffset, Precision: 6, TimeStorage: edm.TimeSQL}, "TEXT", "TIMESTAMP(3)", time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)},
		{&edm.Property{Name: "TSUNIX", Type: edm.KindDateTimeOffset, Precision: 6, TimeStorage: edm.TimeUnix}, "INTEGER", "BIGINT", time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)},
		{&edm.Property{Name: "TSQL", Type: edm.KindTimeOfDay, Precision: 6, TimeStorage: edm.TimeSQL}, "TIME", "TIME", edm.NewTimeOfDay(23, 59, 58, 500000000)},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		for _, tc := range cases {
			col := tc.sqliteCol
			if db.Dialect().Name() == "postgres" {
				col = tc.pgCol
			}
			table := "t_" + tc.p.Name
			if _, err := db.Exec(`CREATE TABLE ` + table + ` (v ` + col + `)`); err != nil {
				t.Fatal(err)
			}
			arg, err := sqldb.Arg(db.Dialect(), tc.p, tc.v)
			if err != nil {
				t.Fatalf("Arg(%s, %v) error: %v", tc.p.Name, tc.v, err)
			}
			ins, args, _ := sqldb.Builder(db.Dialect()).Insert(table).Columns("v").Values(arg).ToSql()
			if _, err := db.Exec(ins, args...); err != nil {
				t.Fatalf("insert %s: %v", tc.p.Name, err)
			}
			var raw any
			if err := db.QueryRow(`SELECT v FROM ` + table).Scan(&raw); err != nil {
				t.Fatal(err)
			}
			got, err := sqldb.Scan(tc.p, raw)
			if err != nil {
				t.Fatalf("Scan(%s, %#v) error: %v", tc.p.Name, raw, err)
			}
			if diff := cmp.Diff(tc.v, got, cmp.Comparer(func(a, b decimal.Decimal) bool { return a.Equal(b) })); diff != "" {
				t.Errorf("Scan(Arg(%s, %v)) mismatch (-want +got):\n%s", tc.p.Name, tc.v, diff)
			}
		}
	})
}

// TestArg_TimeStorage checks the argument of a DateTimeOffset and a TimeOfDay in each time storage on each
// database: the engine's own form, SQL's text (or a timestamp without time zone) and unix seconds.
func TestArg_TimeStorage(t *testing.T) {
	at := time.Date(2026, 11, 27, 11, 0, 0, 500000000, time.FixedZone("CET", 3600))
	whole := at.Truncate(time.Second)
	clock := edm.NewTimeOfDay(9, 5, 0, 0)
	utc := func(t time.Time) time.Time { return t.UTC() }
	for _, c := range []struct {
		d       sqldb.Dialect
		kind    edm.Kind
		storage edm.TimeStorage
		v       any
		want    any
	}{
		{sqlite.Dialect{}, edm.KindDateTimeOffset, edm.TimeAuto, at, "2026-11-27T10:00:00.500000Z"},
		{sqlite.Dialect{}, edm.KindDateTimeOffset, edm.TimeSQL, at, "2026-11-27 10:00:00.5"},
		{sqlite.Dialect{}, edm.KindDateTimeOffset, edm.TimeSQL, whole, "2026-11-27 10:00:00"},
		{sqlite.Dialect{}, edm.KindDateTimeOffset, edm.TimeUnix, whole, int64(1795773600)},
		{sqlite.Dialect{}, edm.KindTimeOfDay, edm.TimeAuto, clock, "09:05:00.000000"},
		{sqlite.Dialect{}, edm.KindTimeOfDay, edm.TimeSQL, clock, "09:05:00"},
		{postgres.Dialect{}, edm.KindDateTimeOffset, edm.TimeAuto, at, utc(at)},
		{postgres.Dialect{}, edm.KindDateTimeOffset, edm.TimeSQL, at, utc(at)},
		{postgres.Dialect{}, edm.KindDateTimeOffset, edm.TimeUnix, whole, int64(1795773600)},
		{postgres.Dialect{}, edm.KindTimeOfDay, edm.TimeSQL, clock, "09:05:00.000000"},
	} {
		p := &edm.Property{Name: "V", Type: c.kind, TimeStorage: c.storage}
		got, err := sqldb.Arg(c.d, p, c.v)
		if err != nil || !cmp.Equal(got, c.want) {
			t.Errorf("%s: Arg(%s stored as %s, %v) = %#v, %v; want %#v", c.d.Name(), c.kind, c.storage, c.v, got, err, c.want)
		}
	}
	p := &edm.Property{Name: "V", Type: edm.KindDateTimeOffset, TimeStorage: edm.TimeUnix}
	if got, err := sqldb.Arg(sqlite.Dialect{}, p, at); err == nil {
		t.Errorf("Arg(unix seconds, %v) = %v, want an error for the fraction of a second", at, got)
	}
}

// TestScanTime checks the forms of a DateTimeOffset column value that ScanTime reads.
func TestScanTime(t *testing.T) {
	want := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for _, v := range []any{
		"2026-11-27T10:00:00.000000Z", "2026-11-27T11:00:00+01:00", "2026-11-27 10:00:00", "2026-11-27 10:00:00.0000000",
		"2026-11-27T10:00:00", "2026-11-27 10:00:00Z", "2026-11-27 10:00:00.000+00:00", []byte("2026-11-27 10:00:00"),
		int64(1795773600), float64(1795773600), want.In(time.FixedZone("X", -7200)).Add(400 * time.Nanosecond),
	} {
		got, err := sqldb.ScanTime(v)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ScanTime(%#v) = %v, %v; want %v", v, got, err, want)
		}
	}
	if got, err := sqldb.ScanTime("27.11.2026"); err == nil {
		t.Errorf("ScanTime(27.11.2026) = %v, want an error", got)
	}
}

func TestArg_WrongType(t *testing.T) {
	p := &edm.Property{Name: "Price", Type: edm.KindDecimal, Precision: 19, Scale: 4}
	if _, err := sqldb.Arg(sqlite.Dialect{}, p, 1.5); err == nil {
		t.Errorf("Arg(Decimal, float64) = nil error, want a type error")
	}
	if v, err := sqldb.Arg(sqlite.Dialect{}, p, nil); v != nil || err != nil {
		t.Errorf("Arg(Decimal, nil) = %v, %v, want nil, nil", v, err)
	}
}

func TestDecimalArg(t *testing.T) {
	for _, tc := range []struct {
		in         string
		sqlite, pg any // nil: an error
	}{
		{"19.99", int64(199900), "19.9900"},
		{"-0.0001", int64(-1), "-0.0001"},
		{"0", int64(0), "0.0000"},
		{"1.00001", nil, nil},
		{"-1.5", int64(-15000), "-1.5000"},
		{"922337203685477.5807", int64(9223372036854775807), "922337203685477.5807"},
		{"1000000000000000", nil, "1000000000000000.0000"}, // beyond int64 scaled, within NUMERIC(38,4)
		{"1e34", nil, nil}, // beyond NUMERIC(38,4)
	} {
		m := decimal.RequireFromString(tc.in)
		for _, d := range []struct {
			dialect sqldb.Dialect
			want    any
		}{{sqlite.Dialect{}, tc.sqlite}, {postgres.Dialect{}, tc.pg}} {
			got, err := sqldb.DecimalArg(d.dialect, m, 4)
			if (err != nil) != (d.want == nil) || got != d.want {
				t.Errorf("DecimalArg(%s, %q) = %v, %v, want %v", d.dialect.Name(), tc.in, got, err, d.want)
			}
		}
		if tc.sqlite == nil {
			continue
		}
		back, err := sqldb.ScanDecimal(tc.sqlite, 4)
		if err != nil || !back.Equal(m) {
			t.Errorf("ScanDecimal(%v) = %v, %v, want %v", tc.sqlite, back, err, m)
		}
	}
}

// TestDecimalStorage_Wide checks that a DecimalAuto of more than edm.MaxScaledDecimalPrecision digits is exact
// decimal text on SQLite (a TEXT column) and NUMERIC on PostgreSQL, and that its values are not limited to 64
// bits.
func TestDecimalStorage_Wide(t *testing.T) {
	for _, tc := range []struct {
		precision  int
		storage    edm.DecimalStorage
		sqlite, pg edm.DecimalStorage
		column     edm.Kind // on SQLite
	}{
		{19, edm.DecimalAuto, edm.DecimalScaled, edm.DecimalExact, edm.KindDecimal},
		{20, edm.DecimalAuto, edm.DecimalExact, edm.DecimalExact, edm.KindString},
		{38, edm.DecimalAuto, edm.DecimalExact, edm.DecimalExact, edm.KindString},
		{38, edm.DecimalScaled, edm.DecimalScaled, edm.DecimalScaled, edm.KindDecimal},
		{12, edm.DecimalExact, edm.DecimalExact, edm.DecimalExact, edm.KindString},
	} {
		p := &edm.Property{Name: "Amount", Type: edm.KindDecimal, Precision: tc.precision, Scale: 18, DecimalStorage: tc.storage}
		if got := sqldb.DecimalStorage(sqlite.Dialect{}, p); got != tc.sqlite {
			t.Errorf("DecimalStorage(SQLite, Decimal(%d,18) %s) = %s, want %s", tc.precision, tc.storage, got, tc.sqlite)
		}
		if got := sqldb.DecimalStorage(postgres.Dialect{}, p); got != tc.pg {
			t.Errorf("DecimalStorage(PostgreSQL, Decimal(%d,18) %s) = %s, want %s", tc.precision, tc.storage, got, tc.pg)
		}
		if got := sqldb.ColumnKind(sqlite.Dialect{}, edm.KindDecimal, tc.storage, tc.precision); got != tc.column {
			t.Errorf("ColumnKind(SQLite, Decimal(%d,18) %s) = %s, want %s", tc.precision, tc.storage, got, tc.column)
		}
		if got, want := sqldb.TextDecimal(sqlite.Dialect{}, p), tc.sqlite == edm.DecimalExact; got != want {
			t.Errorf("TextDecimal(SQLite, Decimal(%d,18) %s) = %v, want %v", tc.precision, tc.storage, got, want)
		}
		if sqldb.TextDecimal(postgres.Dialect{}, p) {
			t.Errorf("TextDecimal(PostgreSQL, Decimal(%d,18) %s) = true, want false", tc.precision, tc.storage)
		}
	}
	p := &edm.Property{Name: "Amount", Type: edm.KindDecimal, Precision: 38, Scale: 18}
	m := decimal.RequireFromString("99999999999999999999.999999999999999999")
	for _, d := range []sqldb.Dialect{sqlite.Dialect{}, postgres.Dialect{}} {
		if got, err := sqldb.Arg(d, p, m); err != nil || got != m.String() {
			t.Errorf("Arg(%s, Decimal(38,18), %s) = %v, %v, want the text", d.Name(), m, got, err)
		}
	}
	if got, err := sqldb.Scan(p, "-0.000000000000000001"); err != nil || got.(decimal.Decimal).String() != "-0.000000000000000001" {
		t.Errorf("Scan(Decimal(38,18), text) = %v, %v", got, err)
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

// TestArgScan_DecimalStorage converts a Decimal(12,2) for each storage kind on each dialect and reads back what
// the column's driver returns: an integer is scaled only for a scaled column, a float is rounded to the scale.
func TestArgScan_DecimalStorage(t *testing.T) {
	m := decimal.RequireFromString("19.99")
	cases := []struct {
		storage    edm.DecimalStorage
		sqlite, pg any // the argument each dialect binds
		scanned    any // a value the driver may return for such a column
		want       string
	}{
		{edm.DecimalAuto, int64(1999), "19.99", int64(1999), "19.99"},
		{edm.DecimalScaled, int64(1999), int64(1999), int64(1999), "19.99"},
		{edm.DecimalExact, "19.99", "19.99", "19.990", "19.99"},
		{edm.DecimalExact, "19.99", "19.99", int64(20), "20"}, // SQLite gives a whole number as an integer
		{edm.DecimalFloat, 19.99, 19.99, 19.990000000000002, "19.99"},
		{edm.DecimalFloat, 19.99, 19.99, int64(20), "20"},
	}
	for _, tc := range cases {
		p := &edm.Property{Name: "Price", Type: edm.KindDecimal, Precision: 12, Scale: 2, DecimalStorage: tc.storage}
		for _, d := range []struct {
			dialect sqldb.Dialect
			want    any
		}{{sqlite.Dialect{}, tc.sqlite}, {postgres.Dialect{}, tc.pg}} {
			if got, err := sqldb.Arg(d.dialect, p, m); err != nil || got != d.want {
				t.Errorf("Arg(%s, %s storage, 19.99) = %#v, %v, want %#v", d.dialect.Name(), tc.storage, got, err, d.want)
			}
		}
		got, err := sqldb.Scan(p, tc.scanned)
		if err != nil || got.(decimal.Decimal).String() != tc.want {
			t.Errorf("Scan(%s storage, %#v) = %v, %v, want %s", tc.storage, tc.scanned, got, err, tc.want)
		}
	}
}

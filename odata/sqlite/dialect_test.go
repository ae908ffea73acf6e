package sqlite_test

import (
	"database/sql"
	"strconv"
	"testing"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

// TestDialect_SQL checks the SQL text of each Dialect method.
func TestDialect_SQL(t *testing.T) {
	d := sqlite.Dialect{}
	for _, c := range []struct {
		name      string
		got, want string
	}{
		{"Param(Decimal)", d.Param(edm.KindDecimal), "?"},
		{"Param(Single)", d.Param(edm.KindSingle), "?"},
		{"Unscale", d.Unscale(`"price"`, 4), `(CAST("price" AS REAL) / 10000)`},
		{"Cast(Int32)", d.Cast("x", edm.KindInt32), "CAST(x AS INTEGER)"},
		{"Cast(Decimal)", d.Cast("x", edm.KindDecimal), "CAST(x AS REAL)"},
		{"BoolValue", d.BoolValue(true) + d.BoolValue(false), "10"},
		{"NullSafeEqual", d.NullSafeEqual("a", "b", true), "a IS b"},
		{"NullSafeEqual not", d.NullSafeEqual("a", "b", false), "a IS NOT b"},
		{"Like", d.Like("a", "?"), `a LIKE ? ESCAPE '\'`},
		{"Position", d.Position("a", "b"), "instr(a, b)"},
		{"Substring", d.Substring("a", "i", "n"), "substr(a, i + 1, n)"},
		{"Substring to end", d.Substring("a", "i", ""), "substr(a, i + 1)"},
		{"EndsWith", d.EndsWith("a", "b"), "(length(b) = 0 OR substr(a, -length(b)) = b)"},
		{"Regexp", d.Regexp("a", "?"), "a REGEXP ?"},
		{"DatePart(Year, DateTimeOffset)", d.DatePart(sqldb.Year, edm.KindDateTimeOffset, "x"), "CAST(substr(x, 1, 4) AS INTEGER)"},
		{"DatePart(Day, Date)", d.DatePart(sqldb.Day, edm.KindDate, "x"), "CAST(substr(x, 9, 2) AS INTEGER)"},
		{"DatePart(Second, TimeOfDay)", d.DatePart(sqldb.Second, edm.KindTimeOfDay, "x"), "CAST(substr(x, 7, 2) AS INTEGER)"},
		{"DatePart(FractionalSeconds, DateTimeOffset)", d.DatePart(sqldb.FractionalSeconds, edm.KindDateTimeOffset, "x"), "CAST(substr(x, 20, 7) AS REAL)"},
		{"DateOf", d.DateOf("x"), "substr(x, 1, 10)"},
		{"TimeOf", d.TimeOf("x"), "substr(x, 12, 15)"},
		{"Now", d.Now(), "(strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')"},
		{"Round(Double)", d.Round("x", edm.KindDouble), "round(x)"},
		{"Round(Decimal)", d.Round("x", edm.KindDecimal), "round(x)"},
		{"Floor(Double)", d.Floor("x", edm.KindDouble), "(CASE WHEN x < CAST(x AS INTEGER) THEN CAST(x AS INTEGER) - 1 ELSE CAST(x AS INTEGER) END)"},
		{"Ceiling(Int32)", d.Ceiling("x", edm.KindInt32), "x"},
		{"CollateBinary", d.CollateBinary("x"), "x"},
		{"NullsOrder", d.NullsOrder(false) + "," + d.NullsOrder(true), " NULLS FIRST, NULLS LAST"},
		{"Returning", d.Returning("id", "name"), `RETURNING "id", "name"`},
		{"Upsert", d.Upsert([]string{"id"}, []string{"name", "price"}), `ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name", "price" = excluded."price"`},
		{"Upsert nothing", d.Upsert([]string{"a", "b"}, nil), `ON CONFLICT ("a", "b") DO NOTHING`},
		{"LockForUpdate", d.LockForUpdate(), ""},
		{"QuoteIdent", d.QuoteIdent(`order"x`), `"order""x"`},
		{"Name", d.Name(), "sqlite"},
		{"ScaledDecimals", strconv.FormatBool(d.ScaledDecimals()), "true"},
		{"TextTimestamps", strconv.FormatBool(d.TextTimestamps()), "true"},
		{"StoresNaN", strconv.FormatBool(d.StoresNaN()), "false"},
		{"TypedNull", d.TypedNull(edm.KindDate), "NULL"},
		{"TransactionLock", d.TransactionLock(), ""},
		{"NextValue", d.NextValue("order_number_seq"), ""},
		{"GeneratedKey(Int64)", d.GeneratedKey(edm.KindInt64), "INTEGER PRIMARY KEY AUTOINCREMENT"},
		{"GeneratedKey(String)", d.GeneratedKey(edm.KindString), ""},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}

// TestDialect_TimeValue runs TimeValue on the forms other programs write and checks that each becomes the
// engine's own fixed-width text, whose order is time order.
func TestDialect_TimeValue(t *testing.T) {
	db := open(t)
	d := sqlite.Dialect{}
	for _, tc := range []struct {
		kind    edm.Kind
		storage edm.TimeStorage
		stored  any
		want    sql.NullString
	}{
		{edm.KindDateTimeOffset, edm.TimeSQL, "2026-11-27 10:00:00", valid("2026-11-27T10:00:00.000000Z")},
		{edm.KindDateTimeOffset, edm.TimeSQL, "2026-11-27 10:00:00.5", valid("2026-11-27T10:00:00.500000Z")},
		{edm.KindDateTimeOffset, edm.TimeSQL, "2026-11-27 10:00:00.500", valid("2026-11-27T10:00:00.500000Z")},
		{edm.KindDateTimeOffset, edm.TimeSQL, "2026-11-27T10:00:00.1234567Z", valid("2026-11-27T10:00:00.123456Z")},
		{edm.KindDateTimeOffset, edm.TimeSQL, "2026-11-27 10:00:00+00:00", valid("2026-11-27T10:00:00.000000Z")},
		{edm.KindDateTimeOffset, edm.TimeSQL, "2026-11-27 10:00:00.25+00:00", valid("2026-11-27T10:00:00.250000Z")},
		{edm.KindDateTimeOffset, edm.TimeSQL, "2026-11-27T10:00:00Z", valid("2026-11-27T10:00:00.000000Z")},
		{edm.KindDateTimeOffset, edm.TimeSQL, nil, sql.NullString{}},
		{edm.KindDateTimeOffset, edm.TimeUnix, int64(1795773600), valid("2026-11-27T10:00:00.000000Z")},
		{edm.KindDateTimeOffset, edm.TimeUnix, nil, sql.NullString{}},
		{edm.KindTimeOfDay, edm.TimeSQL, "10:00:00", valid("10:00:00.000000")},
		{edm.KindTimeOfDay, edm.TimeSQL, "10:00:00.5", valid("10:00:00.500000")},
		{edm.KindTimeOfDay, edm.TimeSQL, "23:59:59.9999999", valid("23:59:59.999999")},
	} {
		var got sql.NullString
		query := "SELECT " + d.TimeValue("x", tc.kind, tc.storage) + " FROM (SELECT ? AS x)"
		if err := db.QueryRow(query, tc.stored).Scan(&got); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		if got != tc.want {
			t.Errorf("TimeValue(%s stored as %s) of %v = %v, want %v", tc.kind, tc.storage, tc.stored, got, tc.want)
		}
	}
}

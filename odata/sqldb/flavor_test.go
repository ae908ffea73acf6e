package sqldb_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

func TestFlavors(t *testing.T) {
	s, p := sqldb.SQLite{}, sqldb.PostgreSQL{}
	for _, c := range []struct {
		name       string
		sqlite, pg string
	}{
		{"Param(Decimal)", s.Param(edm.KindDecimal), p.Param(edm.KindDecimal)},
		{"Param(Single)", s.Param(edm.KindSingle), p.Param(edm.KindSingle)},
		{"Unscale", s.Unscale(`"price"`, 4), p.Unscale(`"price"`, 4)},
		{"Cast(Int32)", s.Cast("x", edm.KindInt32), p.Cast("x", edm.KindInt32)},
		{"Cast(Decimal)", s.Cast("x", edm.KindDecimal), p.Cast("x", edm.KindDecimal)},
		{"BoolValue", s.BoolValue(true) + s.BoolValue(false), p.BoolValue(true) + p.BoolValue(false)},
		{"NullSafeEqual", s.NullSafeEqual("a", "b", true), p.NullSafeEqual("a", "b", true)},
		{"NullSafeEqual not", s.NullSafeEqual("a", "b", false), p.NullSafeEqual("a", "b", false)},
		{"Like", s.Like("a", "?"), p.Like("a", "?")},
		{"Position", s.Position("a", "b"), p.Position("a", "b")},
		{"Substring", s.Substring("a", "i", "n"), p.Substring("a", "i", "n")},
		{"Substring to end", s.Substring("a", "i", ""), p.Substring("a", "i", "")},
		{"EndsWith", s.EndsWith("a", "b"), p.EndsWith("a", "b")},
		{"Regexp", s.Regexp("a", "?"), p.Regexp("a", "?")},
		{"DatePart(Year, DateTimeOffset)", s.DatePart(sqldb.Year, edm.KindDateTimeOffset, "x"), p.DatePart(sqldb.Year, edm.KindDateTimeOffset, "x")},
		{"DatePart(Day, Date)", s.DatePart(sqldb.Day, edm.KindDate, "x"), p.DatePart(sqldb.Day, edm.KindDate, "x")},
		{"DatePart(Second, TimeOfDay)", s.DatePart(sqldb.Second, edm.KindTimeOfDay, "x"), p.DatePart(sqldb.Second, edm.KindTimeOfDay, "x")},
		{"DatePart(FractionalSeconds, DateTimeOffset)", s.DatePart(sqldb.FractionalSeconds, edm.KindDateTimeOffset, "x"), p.DatePart(sqldb.FractionalSeconds, edm.KindDateTimeOffset, "x")},
		{"DateOf", s.DateOf("x"), p.DateOf("x")},
		{"TimeOf", s.TimeOf("x"), p.TimeOf("x")},
		{"Now", s.Now(), p.Now()},
		{"Round(Double)", s.Round("x", edm.KindDouble), p.Round("x", edm.KindDouble)},
		{"Round(Decimal)", s.Round("x", edm.KindDecimal), p.Round("x", edm.KindDecimal)},
		{"Floor(Double)", s.Floor("x", edm.KindDouble), p.Floor("x", edm.KindDouble)},
		{"Ceiling(Int32)", s.Ceiling("x", edm.KindInt32), p.Ceiling("x", edm.KindInt32)},
		{"CollateBinary", s.CollateBinary("x"), p.CollateBinary("x")},
		{"NullsOrder", s.NullsOrder(false) + "," + s.NullsOrder(true), p.NullsOrder(false) + "," + p.NullsOrder(true)},
		{"Returning", s.Returning("id", "name"), p.Returning("id", "name")},
		{"Upsert", s.Upsert([]string{"id"}, []string{"name", "price"}), p.Upsert([]string{"id"}, []string{"name", "price"})},
		{"Upsert nothing", s.Upsert([]string{"a", "b"}, nil), p.Upsert([]string{"a", "b"}, nil)},
		{"LockForUpdate", s.LockForUpdate(), p.LockForUpdate()},
		{"QuoteIdent", s.QuoteIdent(`order"x`), p.QuoteIdent(`order"x`)},
	} {
		want := map[string][2]string{
			"Param(Decimal)":                 {"?", "?::numeric"},
			"Param(Single)":                  {"?", "?::real"},
			"Unscale":                        {`(CAST("price" AS REAL) / 10000)`, `"price"`},
			"Cast(Int32)":                    {"CAST(x AS INTEGER)", "CAST(x AS BIGINT)"},
			"Cast(Decimal)":                  {"CAST(x AS REAL)", "CAST(x AS NUMERIC)"},
			"BoolValue":                      {"10", "TRUEFALSE"},
			"NullSafeEqual":                  {"a IS b", "a IS NOT DISTINCT FROM b"},
			"NullSafeEqual not":              {"a IS NOT b", "a IS DISTINCT FROM b"},
			"Like":                           {`a LIKE ? ESCAPE '\'`, `a LIKE ? ESCAPE '\'`},
			"Position":                       {"instr(a, b)", "strpos(a, b)"},
			"Substring":                      {"substr(a, i + 1, n)", "substr(a, CAST(i AS INTEGER) + 1, CAST(n AS INTEGER))"},
			"Substring to end":               {"substr(a, i + 1)", "substr(a, CAST(i AS INTEGER) + 1)"},
			"EndsWith":                       {"(length(b) = 0 OR substr(a, -length(b)) = b)", "right(a, length(b)) = b"},
			"Regexp":                         {"a REGEXP ?", "a ~ ?"},
			"DatePart(Year, DateTimeOffset)": {"CAST(substr(x, 1, 4) AS INTEGER)", "CAST(EXTRACT(YEAR FROM (x AT TIME ZONE 'UTC')) AS INTEGER)"},
			"DatePart(Day, Date)":            {"CAST(substr(x, 9, 2) AS INTEGER)", "CAST(EXTRACT(DAY FROM x) AS INTEGER)"},
			"DatePart(Second, TimeOfDay)":    {"CAST(substr(x, 7, 2) AS INTEGER)", "CAST(FLOOR(EXTRACT(SECOND FROM x)) AS INTEGER)"},
			"DatePart(FractionalSeconds, DateTimeOffset)": {"CAST(substr(x, 20, 7) AS REAL)",
				"(MOD(EXTRACT(MICROSECONDS FROM (x AT TIME ZONE 'UTC')), 1000000) / 1000000)"},
			"DateOf":         {"substr(x, 1, 10)", "CAST((x AT TIME ZONE 'UTC') AS DATE)"},
			"TimeOf":         {"substr(x, 12, 15)", "CAST((x AT TIME ZONE 'UTC') AS TIME)"},
			"Now":            {"(strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')", "CURRENT_TIMESTAMP"},
			"Round(Double)":  {"round(x)", "CAST(round(CAST(x AS NUMERIC)) AS DOUBLE PRECISION)"},
			"Round(Decimal)": {"round(x)", "round(x)"},
			"Floor(Double)": {"(CASE WHEN x < CAST(x AS INTEGER) THEN CAST(x AS INTEGER) - 1 ELSE CAST(x AS INTEGER) END)",
				"floor(x)"},
			"Ceiling(Int32)": {"x", "x"},
			"CollateBinary":  {"x", `(x) COLLATE "C"`},
			"NullsOrder":     {" NULLS FIRST, NULLS LAST", " NULLS FIRST, NULLS LAST"},
			"Returning":      {`RETURNING "id", "name"`, `RETURNING "id", "name"`},
			"Upsert": {`ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name", "price" = excluded."price"`,
				`ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name", "price" = excluded."price"`},
			"Upsert nothing": {`ON CONFLICT ("a", "b") DO NOTHING`, `ON CONFLICT ("a", "b") DO NOTHING`},
			"LockForUpdate":  {"", " FOR UPDATE"},
			"QuoteIdent":     {`"order""x"`, `"order""x"`},
		}[c.name]
		if c.sqlite != want[0] {
			t.Errorf("SQLite.%s = %q, want %q", c.name, c.sqlite, want[0])
		}
		if c.pg != want[1] {
			t.Errorf("PostgreSQL.%s = %q, want %q", c.name, c.pg, want[1])
		}
	}
	if s.Name() != "sqlite" || p.Name() != "postgres" || !s.ScaledDecimals() || p.ScaledDecimals() {
		t.Errorf("names or scaling wrong")
	}
}

// sqlState is a driver error with a SQLSTATE, as pgx's *pgconn.PgError.
type sqlState string

func (s sqlState) Error() string    { return "pg error " + string(s) }
func (s sqlState) SQLState() string { return string(s) }

func TestPostgreSQLClassifyError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want sqldb.ErrorClass
	}{
		{sqlState("23505"), sqldb.ErrUniqueViolation},
		{sqlState("23503"), sqldb.ErrForeignKeyViolation},
		{sqlState("23502"), sqldb.ErrCheckViolation},
		{sqlState("40P01"), sqldb.ErrRetry},
		{sqlState("22003"), sqldb.ErrInvalidData},
		{sqlState("22012"), sqldb.ErrInvalidData},
		{sqlState("2201B"), sqldb.ErrInvalidData},
		{sqlState("22P02"), sqldb.ErrInvalidData},
		{sqlState("42P01"), sqldb.ErrOther},
		{fmt.Errorf("wrapped: %w", sqlState("22001")), sqldb.ErrInvalidData},
		{errors.New("plain"), sqldb.ErrOther},
	} {
		if got := (sqldb.PostgreSQL{}).ClassifyError(c.err); got != c.want {
			t.Errorf("ClassifyError(%q) = %v, want %v", c.err, got, c.want)
		}
	}
}

package postgres_test

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
)

// TestDialect_SQL checks the SQL text of each Dialect method.
func TestDialect_SQL(t *testing.T) {
	d := postgres.Dialect{}
	lock, unlock := d.SessionLock()
	for _, c := range []struct {
		name      string
		got, want string
	}{
		{"Param(Decimal)", d.Param(edm.KindDecimal), "?::numeric"},
		{"Param(Single)", d.Param(edm.KindSingle), "?::real"},
		{"Unscale", d.Unscale(`"price"`, 4), `"price"`},
		{"Cast(Int32)", d.Cast("x", edm.KindInt32), "CAST(x AS BIGINT)"},
		{"Cast(Decimal)", d.Cast("x", edm.KindDecimal), "CAST(x AS NUMERIC)"},
		{"BoolValue", d.BoolValue(true) + d.BoolValue(false), "TRUEFALSE"},
		{"NullSafeEqual", d.NullSafeEqual("a", "b", true), "a IS NOT DISTINCT FROM b"},
		{"NullSafeEqual not", d.NullSafeEqual("a", "b", false), "a IS DISTINCT FROM b"},
		{"Like", d.Like("a", "?"), `a LIKE ? ESCAPE '\'`},
		{"Position", d.Position("a", "b"), "strpos(a, b)"},
		{"Substring", d.Substring("a", "i", "n"), "substr(a, CAST(i AS INTEGER) + 1, CAST(n AS INTEGER))"},
		{"Substring to end", d.Substring("a", "i", ""), "substr(a, CAST(i AS INTEGER) + 1)"},
		{"EndsWith", d.EndsWith("a", "b"), "right(a, length(b)) = b"},
		{"Regexp", d.Regexp("a", "?"), "a ~ ?"},
		{"DatePart(Year, DateTimeOffset)", d.DatePart(sqldb.Year, edm.KindDateTimeOffset, "x"), "CAST(EXTRACT(YEAR FROM (x AT TIME ZONE 'UTC')) AS INTEGER)"},
		{"DatePart(Day, Date)", d.DatePart(sqldb.Day, edm.KindDate, "x"), "CAST(EXTRACT(DAY FROM x) AS INTEGER)"},
		{"DatePart(Second, TimeOfDay)", d.DatePart(sqldb.Second, edm.KindTimeOfDay, "x"), "CAST(FLOOR(EXTRACT(SECOND FROM x)) AS INTEGER)"},
		{"DatePart(FractionalSeconds, DateTimeOffset)", d.DatePart(sqldb.FractionalSeconds, edm.KindDateTimeOffset, "x"), "(MOD(EXTRACT(MICROSECONDS FROM (x AT TIME ZONE 'UTC')), 1000000) / 1000000)"},
		{"DateOf", d.DateOf("x"), "CAST((x AT TIME ZONE 'UTC') AS DATE)"},
		{"TimeOf", d.TimeOf("x"), "CAST((x AT TIME ZONE 'UTC') AS TIME)"},
		{"Now", d.Now(), "CURRENT_TIMESTAMP"},
		{"Round(Double)", d.Round("x", edm.KindDouble), "CAST(round(CAST(x AS NUMERIC)) AS DOUBLE PRECISION)"},
		{"Round(Decimal)", d.Round("x", edm.KindDecimal), "round(x)"},
		{"Floor(Double)", d.Floor("x", edm.KindDouble), "floor(x)"},
		{"Ceiling(Int32)", d.Ceiling("x", edm.KindInt32), "x"},
		{"CollateBinary", d.CollateBinary("x"), `(x) COLLATE "C"`},
		{"NullsOrder", d.NullsOrder(false) + "," + d.NullsOrder(true), " NULLS FIRST, NULLS LAST"},
		{"Returning", d.Returning("id", "name"), `RETURNING "id", "name"`},
		{"Upsert", d.Upsert([]string{"id"}, []string{"name", "price"}), `ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name", "price" = excluded."price"`},
		{"Upsert nothing", d.Upsert([]string{"a", "b"}, nil), `ON CONFLICT ("a", "b") DO NOTHING`},
		{"LockForUpdate", d.LockForUpdate(), " FOR UPDATE"},
		{"QuoteIdent", d.QuoteIdent(`order"x`), `"order""x"`},
		{"Name", d.Name(), "postgres"},
		{"ScaledDecimals", strconv.FormatBool(d.ScaledDecimals()), "false"},
		{"TextTimestamps", strconv.FormatBool(d.TextTimestamps()), "false"},
		{"StoresNaN", strconv.FormatBool(d.StoresNaN()), "true"},
		{"TypedNull", d.TypedNull(edm.KindDate), "CAST(NULL AS date)"},
		{"TransactionLock", d.TransactionLock(), "SELECT pg_advisory_xact_lock($1)"},
		{"SessionLock", lock + "," + unlock, "SELECT pg_advisory_lock($1),SELECT pg_advisory_unlock($1)"},
		{"NextValue", d.NextValue("order_number_seq"), "SELECT nextval('order_number_seq')"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}

// sqlState is a driver error with a SQLSTATE, as pgx's *pgconn.PgError.
type sqlState string

func (s sqlState) Error() string    { return "pg error " + string(s) }
func (s sqlState) SQLState() string { return string(s) }

// TestDialect_ClassifySQLState checks the classes of SQLSTATE codes, without a server.
func TestDialect_ClassifySQLState(t *testing.T) {
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
		if got := (postgres.Dialect{}).ClassifyError(c.err); got != c.want {
			t.Errorf("ClassifyError(%q) = %v, want %v", c.err, got, c.want)
		}
	}
}

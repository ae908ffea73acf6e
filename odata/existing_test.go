package odata_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/schema"
)

// existingColumn is a column declaration another program made, the property that serves it and the values its
// rows hold in that program's form.
type existingColumn struct {
	name string
	// sqlite and postgres are the column's declaration on each database, "" where the case does not apply.
	sqlite, postgres string
	// prop is the property of the column (its Name, V, and Nullable are set by the test).
	prop edm.Property
	// skipCheck serves the table with Config.SkipSchemaCheck: the property declares its storage itself.
	skipCheck bool
	// wholeSeconds marks a column of seconds since 1970, to which a fraction of a second cannot be written.
	wholeSeconds bool
	// rows are the SQL literals of the three values the other program wrote, in ascending order, on SQLite
	// (pgRows on PostgreSQL, rows when nil); a fourth row is null.
	rows, pgRows []string
	// values are the JSON values GET answers for the three rows.
	values []string
	// filters are $filter expressions and the rows they find.
	filters []idFilter
	// asc and desc are the rows in $orderby=V,Id and V desc,Id order, when not [4 1 2 3] and [3 2 1 4].
	asc, desc []int
	// post and patch are the JSON values a POST writes and a PATCH then writes; stored (pgStored on
	// PostgreSQL, stored when nil) the column's text after each, as quote(v) on SQLite and v::text on
	// PostgreSQL give it.
	post, patch         string
	stored, pgStored    []string
	postBack, patchBack string // the JSON GET answers after each, post and patch when ""
}

// idFilter is a $filter and the Ids it finds.
type idFilter struct {
	filter string
	want   []int
}

// dateTimeFilters are the comparisons of the DateTimeOffset cases, whose rows are 2026-11-26T23:59:59Z,
// 2026-11-27T10:00:00Z and a third after it.
var dateTimeFilters = []idFilter{
	{"V eq 2026-11-27T10:00:00Z", []int{2}},
	{"V eq 2026-11-27T11:00:00+01:00", []int{2}},
	{"V lt 2026-11-27T10:00:00Z", []int{1}},
	{"V gt 2026-11-27T10:00:00Z", []int{3}},
	{"V ge 2026-11-27T10:00:00Z", []int{2, 3}},
	{"V ne 2026-11-27T10:00:00Z", []int{1, 3, 4}},
	{"year(V) eq 2026 and month(V) eq 11", []int{1, 2, 3}},
	{"date(V) eq 2026-11-27", []int{2, 3}},
	{"hour(V) eq 10 and minute(V) eq 0", []int{2, 3}},
	{"time(V) lt 10:00:00", []int{}},
	{"V lt now()", []int{1, 2, 3}},
}

// existingColumns are the declarations other programs write that the engine serves in their own form: SQLite's
// declared types (the affinity decides how a value is kept) and PostgreSQL's types.
var existingColumns = []existingColumn{
	{
		name: "DATETIME text", sqlite: "DATETIME", postgres: "timestamp",
		prop:   edm.Property{Type: edm.KindDateTimeOffset},
		rows:   []string{"'2026-11-26 23:59:59'", "'2026-11-27 10:00:00'", "'2026-11-27 10:00:00.500'"},
		values: []string{`"2026-11-26T23:59:59Z"`, `"2026-11-27T10:00:00Z"`, `"2026-11-27T10:00:00.5Z"`},
		filters: append([]idFilter{
			{"V eq 2026-11-27T10:00:00.5Z", []int{3}},
			{"V gt 2026-11-27T10:00:00.4999Z", []int{3}},
			{"second(V) eq 0 and fractionalseconds(V) gt 0", []int{3}},
		}, dateTimeFilters...),
		post: `"2026-12-01T08:15:30.125Z"`, patch: `"2026-12-02T00:00:00Z"`,
		stored:   []string{"'2026-12-01 08:15:30.125'", "'2026-12-02 00:00:00'"},
		pgStored: []string{"2026-12-01 08:15:30.125", "2026-12-02 00:00:00"},
	},
	{
		name: "TIMESTAMP text with a T, a Z, +00:00 and seven digits", sqlite: "TIMESTAMP",
		prop:   edm.Property{Type: edm.KindDateTimeOffset},
		rows:   []string{"'2026-11-26T23:59:59Z'", "'2026-11-27 10:00:00.0000000+00:00'", "'2026-11-27T10:00:00.1234567Z'"},
		values: []string{`"2026-11-26T23:59:59Z"`, `"2026-11-27T10:00:00Z"`, `"2026-11-27T10:00:00.123456Z"`},
		filters: append([]idFilter{
			{"V eq 2026-11-27T10:00:00.123456Z", []int{3}},
		}, dateTimeFilters...),
		post: `"2026-12-01T08:15:30.125Z"`, patch: `"2026-12-02T00:00:00Z"`,
		stored: []string{"'2026-12-01 08:15:30.125'", "'2026-12-02 00:00:00'"},
	},
	{
		name: "timestamp(3)", postgres: "timestamp(3) without time zone",
		prop:   edm.Property{Type: edm.KindDateTimeOffset, Precision: 3},
		rows:   []string{"'2026-11-26 23:59:59'", "'2026-11-27 10:00:00'", "'2026-11-27 10:00:00.123'"},
		values: []string{`"2026-11-26T23:59:59Z"`, `"2026-11-27T10:00:00Z"`, `"2026-11-27T10:00:00.123Z"`},
		filters: append([]idFilter{
			{"V eq 2026-11-27T10:00:00.123Z", []int{3}},
		}, dateTimeFilters...),
		post: `"2026-12-01T08:15:30.125Z"`, patch: `"2026-12-02T00:00:00Z"`,
		stored: []string{"2026-12-01 08:15:30.125", "2026-12-02 00:00:00"},
	},
	{
		name: "DATETIME text declared, check skipped", sqlite: "DATETIME", postgres: "timestamp", skipCheck: true,
		prop:    edm.Property{Type: edm.KindDateTimeOffset, TimeStorage: edm.TimeSQL},
		rows:    []string{"'2026-11-26 23:59:59'", "'2026-11-27 10:00:00'", "'2026-11-27 10:00:00.500'"},
		values:  []string{`"2026-11-26T23:59:59Z"`, `"2026-11-27T10:00:00Z"`, `"2026-11-27T10:00:00.5Z"`},
		filters: dateTimeFilters,
		post:    `"2026-12-01T08:15:30.125Z"`, patch: `"2026-12-02T00:00:00Z"`,
		stored:   []string{"'2026-12-01 08:15:30.125'", "'2026-12-02 00:00:00'"},
		pgStored: []string{"2026-12-01 08:15:30.125", "2026-12-02 00:00:00"},
	},
	{
		name: "INTEGER unix seconds", sqlite: "INTEGER", postgres: "bigint", wholeSeconds: true,
		prop:    edm.Property{Type: edm.KindDateTimeOffset},
		rows:    []string{"1795737599", "1795773600", "1795773601"},
		values:  []string{`"2026-11-26T23:59:59Z"`, `"2026-11-27T10:00:00Z"`, `"2026-11-27T10:00:01Z"`},
		filters: dateTimeFilters,
		post:    `"2026-12-01T08:15:30Z"`, patch: `"2026-12-02T00:00:00Z"`,
		stored: []string{"1796112930", "1796169600"},
	},
	{
		name: "DATETIME of unix seconds declared", sqlite: "DATETIME", wholeSeconds: true,
		prop:    edm.Property{Type: edm.KindDateTimeOffset, TimeStorage: edm.TimeUnix},
		rows:    []string{"1795737599", "1795773600", "1795773601"},
		values:  []string{`"2026-11-26T23:59:59Z"`, `"2026-11-27T10:00:00Z"`, `"2026-11-27T10:00:01Z"`},
		filters: dateTimeFilters,
		post:    `"2026-12-01T08:15:30Z"`, patch: `"2026-12-02T00:00:00Z"`,
		stored: []string{"1796112930", "1796169600"},
	},
	{
		name: "DATE", sqlite: "DATE", postgres: "date",
		prop:   edm.Property{Type: edm.KindDate},
		rows:   []string{"'2026-11-26'", "'2026-11-27'", "'2026-11-28'"},
		values: []string{`"2026-11-26"`, `"2026-11-27"`, `"2026-11-28"`},
		filters: []idFilter{
			{"V eq 2026-11-27", []int{2}}, {"V lt 2026-11-27", []int{1}}, {"V gt 2026-11-27", []int{3}},
			{"year(V) eq 2026 and day(V) ge 27", []int{2, 3}},
		},
		post: `"2026-12-01"`, patch: `"2026-12-02"`,
		stored: []string{"'2026-12-01'", "'2026-12-02'"}, pgStored: []string{"2026-12-01", "2026-12-02"},
	},
	{
		name: "TIME", sqlite: "TIME", postgres: "time",
		prop:   edm.Property{Type: edm.KindTimeOfDay},
		rows:   []string{"'09:30:00'", "'10:00:00'", "'10:00:00.500'"},
		values: []string{`"09:30:00"`, `"10:00:00"`, `"10:00:00.5"`},
		filters: []idFilter{
			{"V eq 10:00:00", []int{2}}, {"V eq 10:00:00.5", []int{3}}, {"V lt 10:00:00", []int{1}},
			{"V gt 10:00:00", []int{3}}, {"hour(V) eq 10", []int{2, 3}}, {"fractionalseconds(V) gt 0.4", []int{3}},
		},
		post: `"08:15:30.125"`, patch: `"23:00:00"`,
		stored: []string{"'08:15:30.125'", "'23:00:00'"}, pgStored: []string{"08:15:30.125", "23:00:00"},
	},
	{
		name: "BOOLEAN", sqlite: "BOOLEAN", postgres: "boolean",
		prop: edm.Property{Type: edm.KindBoolean},
		rows: []string{"0", "1", "1"}, pgRows: []string{"false", "true", "true"},
		values:  []string{"false", "true", "true"},
		filters: []idFilter{{"V eq true", []int{2, 3}}, {"V", []int{2, 3}}, {"not V", []int{1, 4}}, {"V eq false", []int{1}}},
		desc:    []int{2, 3, 1, 4},
		post:    "true", patch: "false",
		stored: []string{"1", "0"}, pgStored: []string{"true", "false"},
	},
	{
		name: "BOOL", sqlite: "BOOL",
		prop:    edm.Property{Type: edm.KindBoolean},
		rows:    []string{"0", "1", "1"},
		values:  []string{"false", "true", "true"},
		filters: []idFilter{{"V eq true", []int{2, 3}}, {"V eq false", []int{1}}},
		desc:    []int{2, 3, 1, 4},
		post:    "true", patch: "false",
		stored: []string{"1", "0"},
	},
	{
		name: "NUMERIC(p,s)", sqlite: "NUMERIC(10,2)", postgres: "numeric(10,2)",
		prop:    edm.Property{Type: edm.KindDecimal, Precision: 10, Scale: 2},
		rows:    []string{"0.1", "19.99", "20.5"},
		values:  []string{"0.1", "19.99", "20.5"},
		filters: decimalFilters,
		post:    "12.34", patch: "7",
		stored: []string{"12.34", "7"}, pgStored: []string{"12.34", "7.00"},
	},
	{
		name: "DECIMAL(p,s)", sqlite: "DECIMAL(10,2)", postgres: "decimal(12,4)",
		prop:    edm.Property{Type: edm.KindDecimal, Precision: 10, Scale: 2},
		rows:    []string{"0.1", "19.99", "20.5"},
		values:  []string{"0.1", "19.99", "20.5"},
		filters: decimalFilters,
		post:    "12.34", patch: "7",
		stored: []string{"12.34", "7"}, pgStored: []string{"12.3400", "7.0000"},
	},
	{
		name: "decimal TEXT", sqlite: "TEXT",
		prop:    edm.Property{Type: edm.KindDecimal, Precision: 18, Scale: 2},
		rows:    []string{"'0.1'", "'19.99'", "'20.50'"},
		values:  []string{"0.1", "19.99", "20.5"},
		filters: decimalFilters,
		post:    "12.34", patch: "7",
		stored: []string{"'12.34'", "'7.00'"},
	},
	{
		name: "VARCHAR(n)", sqlite: "VARCHAR(50)", postgres: "varchar(50)",
		prop: edm.Property{Type: edm.KindString, MaxLength: 50},
		rows: []string{"'apple'", "'banana'", "'cherry'"}, values: []string{`"apple"`, `"banana"`, `"cherry"`},
		filters: stringFilters, post: `"date"`, patch: `"elder"`,
		stored: []string{"'date'", "'elder'"}, pgStored: []string{"date", "elder"},
	},
	{
		name: "CHARACTER(n)", sqlite: "CHARACTER(20)",
		prop: edm.Property{Type: edm.KindString, MaxLength: 20},
		rows: []string{"'apple'", "'banana'", "'cherry'"}, values: []string{`"apple"`, `"banana"`, `"cherry"`},
		filters: stringFilters, post: `"date"`, patch: `"elder"`, stored: []string{"'date'", "'elder'"},
	},
	{
		name: "NVARCHAR", sqlite: "NVARCHAR", postgres: "text",
		prop: edm.Property{Type: edm.KindString},
		rows: []string{"'apple'", "'banana'", "'cherry'"}, values: []string{`"apple"`, `"banana"`, `"cherry"`},
		filters: stringFilters, post: `"date"`, patch: `"elder"`,
		stored: []string{"'date'", "'elder'"}, pgStored: []string{"date", "elder"},
	},
	{
		name: "INT", sqlite: "INT", postgres: "integer",
		prop: edm.Property{Type: edm.KindInt32}, rows: []string{"-5", "7", "300"}, values: []string{"-5", "7", "300"},
		filters: []idFilter{{"V eq 7", []int{2}}, {"V lt 7", []int{1}}, {"V gt 7", []int{3}}, {"V add 1 eq 8", []int{2}}},
		post:    "42", patch: "-1", stored: []string{"42", "-1"},
	},
	{
		name: "BIGINT", sqlite: "BIGINT", postgres: "bigint",
		prop: edm.Property{Type: edm.KindInt64}, rows: []string{"-5", "7", "9007199254740993"},
		values:  []string{"-5", "7", "9007199254740993"},
		filters: []idFilter{{"V eq 7", []int{2}}, {"V lt 7", []int{1}}, {"V gt 7", []int{3}}, {"V eq 9007199254740993", []int{3}}},
		post:    "42", patch: "-1", stored: []string{"42", "-1"},
	},
	{
		name: "SMALLINT", sqlite: "SMALLINT", postgres: "smallint",
		prop: edm.Property{Type: edm.KindInt16}, rows: []string{"-5", "7", "300"}, values: []string{"-5", "7", "300"},
		filters: []idFilter{{"V eq 7", []int{2}}, {"V lt 7", []int{1}}, {"V gt 7", []int{3}}},
		post:    "42", patch: "-1", stored: []string{"42", "-1"},
	},
	{
		name: "TINYINT", sqlite: "TINYINT",
		prop: edm.Property{Type: edm.KindByte}, rows: []string{"0", "7", "255"}, values: []string{"0", "7", "255"},
		filters: []idFilter{{"V eq 7", []int{2}}, {"V lt 7", []int{1}}, {"V gt 7", []int{3}}},
		post:    "42", patch: "1", stored: []string{"42", "1"},
	},
	{
		name: "REAL", sqlite: "REAL", postgres: "real",
		prop: edm.Property{Type: edm.KindSingle}, rows: []string{"-0.5", "1.25", "2.75"}, values: []string{"-0.5", "1.25", "2.75"},
		filters: floatFilters, post: "3.5", patch: "-1", stored: []string{"3.5", "-1.0"}, pgStored: []string{"3.5", "-1"},
	},
	{
		name: "DOUBLE", sqlite: "DOUBLE", postgres: "double precision",
		prop: edm.Property{Type: edm.KindDouble}, rows: []string{"-0.5", "1.25", "2.75"}, values: []string{"-0.5", "1.25", "2.75"},
		filters: floatFilters, post: "3.5", patch: "-1", stored: []string{"3.5", "-1.0"}, pgStored: []string{"3.5", "-1"},
	},
	{
		name: "FLOAT", sqlite: "FLOAT", postgres: "float8",
		prop: edm.Property{Type: edm.KindDouble}, rows: []string{"-0.5", "1.25", "2.75"}, values: []string{"-0.5", "1.25", "2.75"},
		filters: floatFilters, post: "3.5", patch: "-1", stored: []string{"3.5", "-1.0"}, pgStored: []string{"3.5", "-1"},
	},
	{
		name: "BLOB", sqlite: "BLOB", postgres: "bytea",
		prop:    edm.Property{Type: edm.KindBinary},
		rows:    []string{"X'0102'", "X'0A0B'", "X'FF'"},
		pgRows:  []string{`'\x0102'`, `'\x0a0b'`, `'\xff'`},
		values:  []string{`"AQI"`, `"Cgs"`, `"_w"`},
		filters: []idFilter{{"V eq binary'Cgs'", []int{2}}, {"V ne binary'Cgs'", []int{1, 3, 4}}},
		post:    `"AQID"`, patch: `"BA"`,
		stored: []string{"X'010203'", "X'04'"}, pgStored: []string{`\x010203`, `\x04`},
	},
}

var (
	decimalFilters = []idFilter{
		{"V eq 19.99", []int{2}}, {"V lt 19.99", []int{1}}, {"V gt 19.99", []int{3}}, {"V eq 0.1", []int{1}},
		{"V eq 20.50", []int{3}}, {"V ge 20.5", []int{3}}, {"V add 0.01 eq 20", []int{2}},
	}
	stringFilters = []idFilter{
		{"V eq 'banana'", []int{2}}, {"V lt 'banana'", []int{1}}, {"V gt 'banana'", []int{3}},
		{"startswith(V, 'ch')", []int{3}},
	}
	floatFilters = []idFilter{
		{"V eq 1.25", []int{2}}, {"V lt 1.25", []int{1}}, {"V gt 1.25", []int{3}},
	}
)

// TestService_ExistingColumns serves a table per declaration that other programs write, with rows they wrote
// (raw SQL), on both databases: GET reads every value, $filter compares, $orderby orders (with keyset paging)
// and $apply aggregates them as values of the property, and a POST and a PATCH write the column in the table's
// own form (read back with raw SQL).
func TestService_ExistingColumns(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		if db.Dialect().Name() == "postgres" {
			awayFromUTC(t, db)
		}
		for i, c := range existingColumns {
			rows, decl, stored := c.rows, c.sqlite, c.stored
			if db.Dialect().Name() == "postgres" {
				decl = c.postgres
				if c.pgRows != nil {
					rows = c.pgRows
				}
				if c.pgStored != nil {
					stored = c.pgStored
				}
			}
			if decl == "" {
				continue
			}
			t.Run(c.name, func(t *testing.T) {
				f := existingService(t, db, fmt.Sprintf("existing_%d", i), decl, c.prop, c.skipCheck, rows)
				testExistingColumn(t, f, fmt.Sprintf("existing_%d", i), c, stored)
			})
		}
	})
}

// awayFromUTC sets the time zone of the sessions of the PostgreSQL database db to one that is never UTC, so that
// a timestamp read or written in the session's zone rather than in UTC shows.
func awayFromUTC(t *testing.T, db *dbtest.DB) {
	t.Helper()
	_, err := db.ExecContext(context.Background(), `DO $$ BEGIN
	EXECUTE 'ALTER DATABASE ' || quote_ident(current_database()) || ' SET timezone TO ''Asia/Kolkata''';
END $$`)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxIdleConns(0) // the sessions opened from now on have the zone
	db.SetMaxIdleConns(2)
	if strings.Contains(db.URL, postgres.PoolerParam+"=") {
		// A pooler keeps its server sessions, opened before: the zone is asked for when connecting, which
		// a pooler passes on to the session of each transaction.
		pooled, err := postgres.Open(db.URL+"&timezone=Asia/Kolkata", postgres.Pool{MaxOpen: 10})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pooled.Close() })
		db.DB = pooled
	}
	var zone string
	if err := db.QueryRowContext(context.Background(), "SHOW timezone").Scan(&zone); err != nil || zone != "Asia/Kolkata" {
		t.Fatalf("time zone %q, %v; want Asia/Kolkata", zone, err)
	}
}

// existingService creates table with the declaration decl for its column v, fills it as another program would
// (rows, then a null) and serves it as the entity set Items of a type whose property V is prop.
func existingService(t *testing.T, db *dbtest.DB, table, decl string, prop edm.Property, skipCheck bool, rows []string) *fixture {
	t.Helper()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE TABLE %s (id INTEGER PRIMARY KEY, v %s)", table, decl)); err != nil {
		t.Fatal(err)
	}
	for i, r := range append(rows, "NULL") {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s (id, v) VALUES (%d, %s)", table, i+1, r)); err != nil {
			t.Fatal(err)
		}
	}
	m, err := existingModel(table, prop)
	if err != nil {
		t.Fatal(err)
	}
	// A migration of the model finds nothing to add or refuse but the row version.
	statements, err := schema.Changes(ctx, db.DB, m)
	if err != nil {
		t.Errorf("schema.Changes: %v", err)
	}
	for _, s := range statements {
		if !strings.Contains(s, edm.RowVersionColumn) {
			t.Errorf("schema.Changes: %q, want only the row version's", s)
		}
	}
	svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Mount: "/odata",
		Sets: map[string]odata.SetOptions{"Items": {Writes: odata.WriteAll}}, Logger: discardLogger(),
		SkipSchemaCheck: skipCheck})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, db: db, svc: svc}
}

// existingModel is the built model of one entity type Item kept in table, key Id and the nullable property V.
func existingModel(table string, prop edm.Property) (*edm.Model, error) {
	prop.Name, prop.Nullable = "V", true
	m := &edm.Model{Namespace: "Existing",
		EntityTypes: []*edm.EntityType{{Name: "Item", Table: table, Key: []string{"Id"},
			Properties: []*edm.Property{{Name: "Id", Type: edm.KindInt32}, &prop}}},
		EntitySets: []*edm.EntitySet{{Name: "Items", Type: "Item"}}}
	return m, m.Build()
}

// testExistingColumn checks the reads, comparisons, order and writes of c on the service of f over table.
func testExistingColumn(t *testing.T, f *fixture, table string, c existingColumn, stored []string) {
	want := append(append([]string(nil), c.values...), "null")
	if diff := cmp.Diff(want, existingValues(t, f, "/odata/Items?$orderby=Id")); diff != "" {
		t.Errorf("GET values (-want +got):\n%s", diff)
	}
	asc, desc := c.asc, c.desc
	if asc == nil {
		asc = []int{4, 1, 2, 3}
	}
	if desc == nil {
		desc = []int{3, 2, 1, 4}
	}
	for order, want := range map[string][]int{"V,Id": asc, "V desc,Id": desc} {
		got := selectIDs(t, f, "/odata/Items?$select=Id&$orderby="+url.QueryEscape(order))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("$orderby=%s (-want +got):\n%s", order, diff)
		}
		// Three to a page: the keyset token carries the value.
		paged := pagedIDs(t, f, "/odata/Items?$select=Id&$orderby="+url.QueryEscape(order))
		if diff := cmp.Diff(want, paged); diff != "" {
			t.Errorf("$orderby=%s, three to a page (-want +got):\n%s", order, diff)
		}
	}
	for _, tc := range c.filters {
		got := selectIDs(t, f, "/odata/Items?$select=Id&$orderby=Id&$filter="+url.QueryEscape(tc.filter))
		if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("$filter=%s (-want +got):\n%s", tc.filter, diff)
		}
	}
	if c.prop.Type != edm.KindBoolean && c.prop.Type != edm.KindBinary {
		var page struct {
			Value []struct{ M json.RawMessage } `json:"value"`
		}
		body := f.must(200, "GET", "/odata/Items?$apply="+url.QueryEscape("aggregate(V with max as M)"), "").Body
		if err := json.Unmarshal([]byte(body), &page); err != nil || len(page.Value) != 1 || string(page.Value[0].M) != c.values[2] {
			t.Errorf("$apply=aggregate(V with max as M) = %s, want M %s", body, c.values[2])
		}
	}
	if c.wholeSeconds {
		resp := f.must(400, "POST", "/odata/Items", `{"Id":5,"V":"2026-12-01T08:15:30.5Z"}`)
		if want := "V must be a whole second (its column holds seconds since 1970)."; !strings.Contains(resp.Body, want) {
			t.Errorf("POST of a fraction of a second to unix seconds = %s, want %q", resp.Body, want)
		}
	}
	f.must(201, "POST", "/odata/Items", `{"Id":5,"V":`+c.post+`}`)
	checkStored(t, f, table, c.post, stored[0])
	f.must(200, "PATCH", "/odata/Items(5)", `{"V":`+c.patch+`}`)
	checkStored(t, f, table, c.patch, stored[1])
	if got := selectIDs(t, f, "/odata/Items?$select=Id&$filter="+url.QueryEscape("Id ge 4 and V eq "+literalOf(c.prop, c.patch))); !cmp.Equal(got, []int{5}) {
		t.Errorf("$filter=V eq %s = %v after the PATCH, want [5]", c.patch, got)
	}
}

// checkStored checks what the column of row 5 holds after a write of the JSON value written, with raw SQL, and
// that GET reads it back.
func checkStored(t *testing.T, f *fixture, table, written, want string) {
	t.Helper()
	query := "SELECT quote(v) FROM " + table + " WHERE id = 5"
	if f.db.Dialect().Name() == "postgres" {
		query = "SELECT v::text FROM " + table + " WHERE id = 5"
	}
	var got string
	if err := f.db.QueryRowContext(context.Background(), query).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("after writing %s the column holds %s, want %s", written, got, want)
	}
	body := decodeJSON(t, f.must(200, "GET", "/odata/Items(5)/V", "").Body)
	if v, _ := json.Marshal(body["value"]); string(v) != written {
		t.Errorf("GET Items(5)/V after writing %s = %s", written, v)
	}
}

// literalOf is the URL literal of the JSON value v of prop.
func literalOf(prop edm.Property, v string) string {
	switch prop.Type {
	case edm.KindBinary:
		return "binary'" + strings.Trim(v, `"`) + "'"
	case edm.KindString:
		return "'" + strings.Trim(v, `"`) + "'"
	}
	return strings.Trim(v, `"`)
}

// existingValues returns the JSON of each V of the collection at path.
func existingValues(t *testing.T, f *fixture, path string) []string {
	t.Helper()
	var page struct {
		Value []struct{ V json.RawMessage } `json:"value"`
	}
	if err := json.Unmarshal([]byte(f.must(200, "GET", path, "").Body), &page); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range page.Value {
		out = append(out, string(v.V))
	}
	return out
}

// refusedColumns are declarations the engine cannot serve for the property, each with the start-up check's
// message, which names the declaration that works.
var refusedColumns = []struct {
	name, dialect, decl string
	prop                edm.Property
	want                string
}{
	{"REAL for a DateTimeOffset", "sqlite", "REAL", edm.Property{Type: edm.KindDateTimeOffset},
		"the column's type REAL cannot hold Item/V, Edm.DateTimeOffset (sqlite wants TEXT); a column of another form is served as its storage says: TEXT as TimeSQL (storage=sql), INTEGER as TimeUnix (storage=unix)"},
	{"DATE for a DateTimeOffset", "sqlite", "DATE", edm.Property{Type: edm.KindDateTimeOffset},
		"the column's type DATE cannot hold Item/V, Edm.DateTimeOffset (sqlite wants TEXT); a column of another form is served as its storage says: TEXT as TimeSQL (storage=sql), INTEGER as TimeUnix (storage=unix)"},
	{"DATETIME for a Date", "sqlite", "DATETIME", edm.Property{Type: edm.KindDate},
		"the column's type DATETIME cannot hold Item/V, Edm.Date (sqlite wants TEXT)"},
	{"TEXT for unix seconds", "sqlite", "TEXT", edm.Property{Type: edm.KindDateTimeOffset, TimeStorage: edm.TimeUnix},
		"the column's type TEXT cannot hold Item/V, Edm.DateTimeOffset stored as unix (sqlite wants INTEGER)"},
	{"NUMERIC(19,4) for a Decimal(19,4)", "sqlite", "NUMERIC(19,4)", edm.Property{Type: edm.KindDecimal, Precision: 19, Scale: 4},
		"the column's type NUMERIC(19,4) cannot hold Item/V, Edm.Decimal(19,4) (sqlite wants INTEGER); if the column keeps its values in another way, say how in the property's DecimalStorage"},
	{"BLOB for a String", "sqlite", "BLOB", edm.Property{Type: edm.KindString},
		"the column's type BLOB cannot hold Item/V, Edm.String (sqlite wants TEXT)"},
	{"text for a DateTimeOffset", "postgres", "text", edm.Property{Type: edm.KindDateTimeOffset},
		"the column's type text cannot hold Item/V, Edm.DateTimeOffset (postgres wants TIMESTAMPTZ); a column of another form is served as its storage says: TIMESTAMP as TimeSQL (storage=sql), BIGINT as TimeUnix (storage=unix)"},
	{"timestamp(3) for six digits", "postgres", "timestamp(3)", edm.Property{Type: edm.KindDateTimeOffset},
		"the column's type timestamp(3) without time zone cannot hold Item/V, Edm.DateTimeOffset (postgres wants TIMESTAMPTZ); a column of another form is served as its storage says: TIMESTAMP as TimeSQL (storage=sql), BIGINT as TimeUnix (storage=unix)"},
	{"integer for unix seconds", "postgres", "integer", edm.Property{Type: edm.KindDateTimeOffset},
		"the column's type integer cannot hold Item/V, Edm.DateTimeOffset (postgres wants TIMESTAMPTZ); a column of another form is served as its storage says: TIMESTAMP as TimeSQL (storage=sql), BIGINT as TimeUnix (storage=unix)"},
	{"timestamp with time zone declared sql", "postgres", "timestamptz", edm.Property{Type: edm.KindDateTimeOffset, TimeStorage: edm.TimeSQL},
		"the column's type timestamp with time zone cannot hold Item/V, Edm.DateTimeOffset stored as sql (postgres wants TIMESTAMP)"},
	{"character(n) for a String", "postgres", "character(20)", edm.Property{Type: edm.KindString, MaxLength: 20},
		`the column's type character(20) cannot hold Item/V, Edm.String(20) (postgres wants TEXT COLLATE "C")`},
	{"smallint for an Int32", "postgres", "smallint", edm.Property{Type: edm.KindInt32},
		"the column's type smallint cannot hold Item/V, Edm.Int32 (postgres wants INTEGER)"},
	{"numeric(10,2) for a Decimal(19,4)", "postgres", "numeric(10,2)", edm.Property{Type: edm.KindDecimal, Precision: 19, Scale: 4},
		"the column's type numeric(10,2) cannot hold Item/V, Edm.Decimal(19,4) (postgres wants NUMERIC(19,4)); if the column keeps its values in another way, say how in the property's DecimalStorage"},
}

// TestService_RefusedExistingColumns checks that NewService refuses each declaration of refusedColumns with
// its message, on its database.
func TestService_RefusedExistingColumns(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		for i, c := range refusedColumns {
			if c.dialect != db.Dialect().Name() {
				continue
			}
			t.Run(c.name, func(t *testing.T) {
				table := fmt.Sprintf("refused_%d", i)
				if _, err := db.ExecContext(context.Background(), fmt.Sprintf("CREATE TABLE %s (id INTEGER PRIMARY KEY, v %s)", table, c.decl)); err != nil {
					t.Fatal(err)
				}
				m, err := existingModel(table, c.prop)
				if err != nil {
					t.Fatal(err)
				}
				_, err = odata.NewService(odata.Config{Model: m, DB: db.DB, Mount: "/odata",
					Sets: map[string]odata.SetOptions{"Items": {Writes: odata.WriteAll}}, Logger: discardLogger()})
				var mismatch *schema.MismatchError
				if !errors.As(err, &mismatch) {
					t.Fatalf("NewService = %v, want a *schema.MismatchError", err)
				}
				want := []schema.Problem{{Table: table, Column: "v", Message: c.want}}
				if diff := cmp.Diff(want, mismatch.Problems); diff != "" {
					t.Errorf("problems (-want +got):\n%s", diff)
				}
			})
		}
	})
}

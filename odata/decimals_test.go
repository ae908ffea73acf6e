package odata_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/schema"
)

// decimalColumns are the properties of decimalsModel's Amount, one per decimal storage kind, all Decimal(12,2).
var decimalColumns = []struct {
	name    string
	storage edm.DecimalStorage
}{
	{"Auto", edm.DecimalAuto},
	{"Scaled", edm.DecimalScaled},
	{"Exact", edm.DecimalExact},
	{"Float", edm.DecimalFloat},
}

// decimalsModel has one entity type whose every decimal property holds the same value in another storage, and
// a collection of decimals kept as floating-point numbers.
func decimalsModel() *edm.Model {
	props := []*edm.Property{{Name: "Id", Type: edm.KindInt32}}
	for _, c := range decimalColumns {
		props = append(props, &edm.Property{Name: c.name, Type: edm.KindDecimal, Precision: 12, Scale: 2,
			Nullable: true, DecimalStorage: c.storage})
	}
	props = append(props, &edm.Property{Name: "Readings", Type: edm.KindDecimal, Precision: 8, Scale: 3,
		Collection: true, DecimalStorage: edm.DecimalFloat})
	return &edm.Model{Namespace: "Money",
		EntityTypes: []*edm.EntityType{{Name: "Amount", Key: []string{"Id"}, Properties: props}},
		EntitySets:  []*edm.EntitySet{{Name: "Amounts", Type: "Amount"}}}
}

// newDecimalsService creates decimalsModel's tables with odata/schema (checked at start) and serves them.
func newDecimalsService(t *testing.T, db *dbtest.DB) *fixture {
	t.Helper()
	m := createSchema(t, db, decimalsModel())
	svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Mount: "/odata",
		Sets: map[string]odata.SetOptions{"Amounts": {Writes: odata.WriteAll}}, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, db: db, svc: svc}
}

// decimalValues are the values the test stores, by Id: the ones floating point cannot represent (0.1, 0.2,
// 0.3), equal values, negatives, the widest Decimal(12,2), null.
var decimalValues = map[int]string{
	1: "19.99", 2: "0.1", 3: "0.2", 4: "0.3", 5: "-5.5", 6: "20", 7: "19.99", 8: "9999999999.99",
	9: "-9999999999.99", 10: "0", 11: "null", 12: "19.9",
}

// TestService_DecimalStorage stores the same values in a Decimal column of each storage kind and reads them
// back exactly, compares and orders them as numbers (with keyset paging), on both databases; values another
// program wrote in each column's own form read and compare the same.
func TestService_DecimalStorage(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newDecimalsService(t, db)
		for id := 1; id <= len(decimalValues); id++ {
			v := decimalValues[id]
			var fields []string
			for _, c := range decimalColumns {
				fields = append(fields, fmt.Sprintf("%q:%s", c.name, v))
			}
			reading := "0.2"
			if id%2 == 0 {
				reading = "0.1"
			}
			f.must(201, "POST", "/odata/Amounts", fmt.Sprintf(`{"Id":%d,%s,"Readings":[%s,123.456]}`, id, strings.Join(fields, ","), reading))
		}
		// Another program's writes, in the form each column keeps: scaled integer, text or NUMERIC, REAL.
		f.exec(`INSERT INTO amount (id, auto, scaled, exact, "float") VALUES (?, ?, ?, ?, ?)`, 13,
			autoArg(db, "0.7"), 70, "0.70", 0.7)
		decimalValues[13] = "0.7"
		defer delete(decimalValues, 13)

		for _, c := range decimalColumns {
			t.Run(c.name, func(t *testing.T) {
				for id, want := range decimalValues {
					body := decodeJSON(t, f.must(200, "GET", fmt.Sprintf("/odata/Amounts(%d)", id), "").Body)
					if got := fmt.Sprint(body[c.name]); got != canonicalDecimal(want) {
						t.Errorf("Amounts(%d).%s = %s, want %s", id, c.name, got, canonicalDecimal(want))
					}
				}
				filters := []struct {
					filter string
					want   []int
				}{
					{c.name + " gt 19", []int{1, 6, 7, 8, 12}},
					{c.name + " eq 19.99", []int{1, 7}},
					{c.name + " eq 0.3", []int{4}},
					{c.name + " eq 0.30", []int{4}},
					{c.name + " eq 0.301", nil},
					{c.name + " ge 19.991", []int{6, 8}},
					{c.name + " lt -5.49", []int{5, 9}},
					{c.name + " in (0.1, 0.7, 20)", []int{2, 6, 13}},
					{c.name + " add 0.1 eq 0.4", []int{4}},
					{c.name + " eq Auto", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}}, // null eq null
					{c.name + " eq null", []int{11}},
					{c.name + " gt 9999999999.98", []int{8}},
					{"Readings/any(r: r eq 0.1) and " + c.name + " lt 0.25", []int{2, 10}},
					{"Readings/any(r: r gt 123.455) and " + c.name + " ge 20", []int{6, 8}},
				}
				for _, tc := range filters {
					got := selectIDs(t, f, "/odata/Amounts?$select=Id&$orderby=Id&$filter="+url.QueryEscape(tc.filter))
					if diff := cmp.Diff(tc.want, got); diff != "" {
						t.Errorf("$filter=%s (-want +got):\n%s", tc.filter, diff)
					}
				}
				// Ordered, three to a page: the keyset token carries the decimal.
				want := []int{8, 6, 1, 7, 12, 13, 4, 3, 2, 10, 5, 9, 11}
				got := pagedIDs(t, f, "/odata/Amounts?$select=Id&$orderby="+c.name+"%20desc,Id")
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("$orderby=%s desc (-want +got):\n%s", c.name, diff)
				}
			})
		}
		// A PATCH through one column changes only it, and the other storages still compare equal to it.
		f.must(200, "PATCH", "/odata/Amounts(1)", `{"Float":19.98}`, "Prefer", "return=representation")
		if got := selectIDs(t, f, "/odata/Amounts?$select=Id&$filter="+url.QueryEscape("Float lt Exact")); !cmp.Equal(got, []int{1}) {
			t.Errorf("Float lt Exact after a PATCH = %v, want [1]", got)
		}
	})
}

// autoArg is the argument of v for a DecimalAuto column of scale 2: the scaled integer on SQLite, the text
// elsewhere.
func autoArg(db *dbtest.DB, v string) any {
	if db.Dialect().ScaledDecimals() {
		var n float64
		fmt.Sscan(v, &n)
		return int64(n*100 + 0.5)
	}
	return v
}

// canonicalDecimal is v as the service writes it: no trailing fraction zeros, "<nil>" for null.
func canonicalDecimal(v string) string {
	if v == "null" {
		return "<nil>"
	}
	return v
}

// selectIDs returns the Ids of a collection answer, in order.
func selectIDs(t *testing.T, f *fixture, path string) []int {
	t.Helper()
	var page struct {
		Value []struct{ Id int } `json:"value"`
	}
	if err := json.Unmarshal([]byte(f.must(200, "GET", path, "").Body), &page); err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, v := range page.Value {
		out = append(out, v.Id)
	}
	return out
}

// pagedIDs follows the next links of a collection read three entities a page and returns every Id in order.
func pagedIDs(t *testing.T, f *fixture, path string) []int {
	t.Helper()
	var out []int
	for pages := 0; path != ""; pages++ {
		if pages > 20 {
			t.Fatal("too many pages")
		}
		var page struct {
			Value []struct{ Id int } `json:"value"`
			Next  string             `json:"@odata.nextLink"`
		}
		if err := json.Unmarshal([]byte(f.must(200, "GET", path, "", "Prefer", "odata.maxpagesize=3").Body), &page); err != nil {
			t.Fatal(err)
		}
		for _, v := range page.Value {
			out = append(out, v.Id)
		}
		path = strings.TrimPrefix(page.Next, "http://example.com")
	}
	return out
}

// TestSchema_DecimalStorage checks the columns odata/schema declares for each decimal storage kind, and that
// the start-up check refuses a column or a declaration that would give wrong answers: the case of a
// SQLite DECIMAL(10,2) column holding 19.99 read as a scaled integer, among others; exact decimal text of any
// precision is accepted, with or without the decimal collation (the engine spells it in its SQL).
func TestSchema_DecimalStorage(t *testing.T) {
	declared := map[string]map[string]string{
		"sqlite":   {"auto": `"auto" INTEGER`, "scaled": `"scaled" INTEGER`, "exact": `"exact" TEXT COLLATE odata_decimal`, "float": `"float" REAL`},
		"postgres": {"auto": `"auto" NUMERIC(12,2)`, "scaled": `"scaled" BIGINT`, "exact": `"exact" NUMERIC(12,2)`, "float": `"float" DOUBLE PRECISION`},
	}
	cases := []struct {
		name    string
		storage edm.DecimalStorage
		column  map[string]string // by dialect; "" skips the dialect
		precise int               // Precision, 12 when 0
		problem string            // a part of the start-up check's message, "" for none
	}{
		{"scaled in DECIMAL(10,2)", edm.DecimalAuto, map[string]string{"sqlite": "DECIMAL(10,2)"}, 0, "cannot hold"},
		{"float in DECIMAL(10,2)", edm.DecimalFloat, map[string]string{"sqlite": "DECIMAL(10,2)"}, 0, ""},
		{"float in REAL", edm.DecimalFloat, map[string]string{"sqlite": "REAL", "postgres": "DOUBLE PRECISION"}, 0, ""},
		{"float in a narrow REAL", edm.DecimalFloat, map[string]string{"postgres": "REAL"}, 0, "cannot hold"},
		{"float in a REAL of 6 digits", edm.DecimalFloat, map[string]string{"postgres": "REAL"}, 6, ""},
		{"exact in TEXT", edm.DecimalExact, map[string]string{"sqlite": "TEXT", "postgres": "NUMERIC"}, 0, ""},
		{"exact in NUMERIC affinity", edm.DecimalExact, map[string]string{"sqlite": "NUMERIC"}, 0, "cannot hold"},
		{"exact text of 38 digits", edm.DecimalExact, map[string]string{"sqlite": "TEXT", "postgres": "NUMERIC(38,2)"}, 38, ""},
		{"exact text under the decimal collation", edm.DecimalExact, map[string]string{"sqlite": "TEXT COLLATE odata_decimal"}, 38, ""},
		{"wide auto in TEXT", edm.DecimalAuto, map[string]string{"sqlite": "TEXT COLLATE odata_decimal", "postgres": "NUMERIC(38,2)"}, 38, ""},
		{"wide auto in INTEGER", edm.DecimalAuto, map[string]string{"sqlite": "INTEGER", "postgres": "BIGINT"}, 38, "cannot hold"},
		{"exact in a narrower NUMERIC", edm.DecimalExact, map[string]string{"postgres": "NUMERIC(12,1)"}, 0, "cannot hold"},
		{"scaled in INTEGER", edm.DecimalScaled, map[string]string{"sqlite": "INTEGER", "postgres": "BIGINT"}, 0, ""},
		{"scaled in a narrow INTEGER", edm.DecimalScaled, map[string]string{"postgres": "INTEGER"}, 0, "cannot hold"},
		{"scaled in NUMERIC", edm.DecimalScaled, map[string]string{"postgres": "NUMERIC(12,2)"}, 0, "cannot hold"},
		{"scaled in TEXT", edm.DecimalScaled, map[string]string{"sqlite": "TEXT"}, 0, "cannot hold"},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		m := &edm.Model{Namespace: "Money", EntityTypes: []*edm.EntityType{{Name: "Amount", Key: []string{"Id"},
			Properties: []*edm.Property{{Name: "Id", Type: edm.KindInt32}}}}}
		for _, c := range decimalColumns {
			m.EntityTypes[0].Properties = append(m.EntityTypes[0].Properties, &edm.Property{Name: c.name,
				Type: edm.KindDecimal, Precision: 12, Scale: 2, DecimalStorage: c.storage})
		}
		if err := m.Build(); err != nil {
			t.Fatal(err)
		}
		statements, err := schema.Create(db.Dialect(), m)
		if err != nil {
			t.Fatal(err)
		}
		for column, want := range declared[db.Dialect().Name()] {
			if !strings.Contains(statements[0], want+" NOT NULL") {
				t.Errorf("schema.Create: %s is not declared %s:\n%s", column, want, statements[0])
			}
		}
		for i, tc := range cases {
			column := tc.column[db.Dialect().Name()]
			if column == "" {
				continue
			}
			precision := tc.precise
			if precision == 0 {
				precision = 12
			}
			table := fmt.Sprintf("price%d", i)
			if _, err := db.Exec(fmt.Sprintf(`CREATE TABLE %s (id INTEGER PRIMARY KEY, price %s NOT NULL)`, table, column)); err != nil {
				t.Fatal(err)
			}
			m := &edm.Model{Namespace: "Shop", EntityTypes: []*edm.EntityType{{Name: "Price", Table: table, Key: []string{"Id"},
				Properties: []*edm.Property{{Name: "Id", Type: edm.KindInt32},
					{Name: "Price", Type: edm.KindDecimal, Precision: precision, Scale: 2, DecimalStorage: tc.storage}}}}}
			if err := m.Build(); err != nil {
				t.Fatal(err)
			}
			err := schema.Check(t.Context(), db.DB, m)
			switch {
			case tc.problem == "" && err != nil:
				t.Errorf("%s: Check = %v, want nil", tc.name, err)
			case tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)):
				t.Errorf("%s: Check = %v, want a problem with %q", tc.name, err, tc.problem)
			}
		}
	})
}

// TestService_DecimalFloatColumn is the case of a table another program made: prices in a SQLite
// DECIMAL(10,2) column (kept as REAL). Served as DecimalFloat, $filter=Price gt 19 finds 19.99, as it did not
// when the engine took the column for a scaled integer.
func TestService_DecimalFloatColumn(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		column := "DECIMAL(10,2)"
		if db.Dialect().Name() == "postgres" {
			column = "DOUBLE PRECISION"
		}
		if _, err := db.Exec(`CREATE TABLE product (id INTEGER PRIMARY KEY, price ` + column + ` NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO product (id, price) VALUES (1, 19.99), (2, 5), (3, 19.5)`); err != nil {
			t.Fatal(err)
		}
		m := &edm.Model{Namespace: "Shop", EntityTypes: []*edm.EntityType{{Name: "Product", Key: []string{"Id"},
			Properties: []*edm.Property{{Name: "Id", Type: edm.KindInt32},
				{Name: "Price", Type: edm.KindDecimal, Precision: 10, Scale: 2, DecimalStorage: edm.DecimalFloat}}}},
			EntitySets: []*edm.EntitySet{{Name: "Products", Type: "Product"}}}
		if err := m.Build(); err != nil {
			t.Fatal(err)
		}
		svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		f := &fixture{t: t, db: db, svc: svc}
		if got := selectIDs(t, f, "/Products?$orderby=Price&$filter=Price%20gt%2019"); !cmp.Equal(got, []int{3, 1}) {
			t.Errorf("$filter=Price gt 19 = %v, want [3 1]", got)
		}
		body := f.must(200, "GET", "/Products?$orderby=Id&$select=Id,Price", "", "Accept", "application/json;odata.metadata=none").Body
		if want := `"value":[{"Id":1,"Price":19.99},{"Id":2,"Price":5},{"Id":3,"Price":19.5}]`; !strings.Contains(body, want) {
			t.Errorf("GET /Products = %s, want %s", body, want)
		}
	})
}

// wideDecimalsModel has a Decimal(38,18) Amount (DecimalAuto: exact text on SQLite, NUMERIC(38,18) on
// PostgreSQL) beside the scaled Price of the store's money, an Int32 and a Double, for mixed arithmetic.
func wideDecimalsModel() *edm.Model {
	return &edm.Model{Namespace: "Ledger", EntityTypes: []*edm.EntityType{{Name: "Entry", Key: []string{"Id"},
		Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindInt32},
			{Name: "Amount", Type: edm.KindDecimal, Precision: 38, Scale: 18, Nullable: true},
			{Name: "Price", Type: edm.KindDecimal, Precision: 19, Scale: 4},
			{Name: "Qty", Type: edm.KindInt32},
			{Name: "Rate", Type: edm.KindDouble},
		}}},
		EntitySets: []*edm.EntitySet{{Name: "Entries", Type: "Entry"}}}
}

// wideDecimalValues are the Amounts the test stores, by Id: the widest Decimal(38,18) values, values that
// differ only at the 18th decimal, the ones floating point cannot represent, zero and null.
var wideDecimalValues = []struct {
	id     int
	amount string // as sent
	want   string // as read back
}{
	{1, "123.450000000000000000", "123.45"},
	{2, "99999999999999999999.999999999999999999", "99999999999999999999.999999999999999999"},
	{3, "-0.000000000000000001", "-0.000000000000000001"},
	{4, "0.1", "0.1"},
	{5, "0.2", "0.2"},
	{6, "0.3", "0.3"},
	{7, "null", "<nil>"},
	{8, "123.450000000000000001", "123.450000000000000001"},
	{9, "-99999999999999999999.999999999999999999", "-99999999999999999999.999999999999999999"},
	{10, "0", "0"},
}

// TestService_WideDecimal stores Decimal(38,18) values and reads them back exactly, filters with exact
// comparisons, arithmetic (also mixed with scaled decimals, integers and doubles), rounding and null, and
// orders exactly with keyset paging, on both databases; values beyond the precision or scale are refused.
func TestService_WideDecimal(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		m := createSchema(t, db, wideDecimalsModel())
		svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Mount: "/odata",
			Sets: map[string]odata.SetOptions{"Entries": {Writes: odata.WriteAll}}, Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		f := &fixture{t: t, db: db, svc: svc}
		for _, v := range wideDecimalValues {
			price := "0"
			if v.id == 1 {
				price = "123.45"
			}
			f.must(201, "POST", "/odata/Entries", fmt.Sprintf(`{"Id":%d,"Amount":%s,"Price":%s,"Qty":1,"Rate":123.4}`, v.id, v.amount, price))
		}
		for _, v := range wideDecimalValues {
			body := decodeJSON(t, f.must(200, "GET", fmt.Sprintf("/odata/Entries(%d)", v.id), "").Body)
			if got := fmt.Sprint(body["Amount"]); got != v.want {
				t.Errorf("Entries(%d).Amount = %s, want %s", v.id, got, v.want)
			}
		}
		// Another program's write, in the form the column keeps.
		stored := "123.450000000000000000"
		f.exec(`INSERT INTO entry (id, amount, price, qty, rate) VALUES (?, ?, ?, ?, ?)`, 11, stored, autoPrice(db), 1, 0.5)
		if got := selectIDs(t, f, "/odata/Entries?$select=Id&$orderby=Id&$filter="+url.QueryEscape("Amount eq 123.45")); !cmp.Equal(got, []int{1, 11}) {
			t.Errorf("Amount eq 123.45 with another program's row = %v, want [1 11]", got)
		}
		f.must(204, "DELETE", "/odata/Entries(11)", "")

		filters := []struct {
			filter string
			want   []int
		}{
			{"Amount eq 123.45", []int{1}},
			{"Amount eq 123.450000000000000000", []int{1}},
			{"Amount eq 123.450000000000000001", []int{8}},
			{"Amount ne 123.45", []int{2, 3, 4, 5, 6, 7, 8, 9, 10}},
			{"Amount gt 123.45", []int{2, 8}},
			{"Amount ge 123.45", []int{1, 2, 8}},
			{"Amount lt 123.450000000000000001", []int{1, 3, 4, 5, 6, 9, 10}},
			{"Amount le 123.450000000000000001", []int{1, 3, 4, 5, 6, 8, 9, 10}},
			{"Amount lt 0", []int{3, 9}},
			{"Amount gt -0.000000000000000001", []int{1, 2, 4, 5, 6, 8, 10}},
			{"Amount eq 99999999999999999999.999999999999999999", []int{2}},
			{"Amount lt 99999999999999999999.999999999999999999", []int{1, 3, 4, 5, 6, 8, 9, 10}},
			{"Amount gt 99999999999999999999.999999999999999999", nil},
			{"Amount eq 0.3", []int{6}},
			{"Amount eq 0.30", []int{6}},
			{"Amount eq 0.3000000000000000001", nil},
			{"Amount in (0.1, 0.3, 123.450000000000000001)", []int{4, 6, 8}},
			{"Amount eq null", []int{7}},
			{"Amount ne null", []int{1, 2, 3, 4, 5, 6, 8, 9, 10}},
			{"Amount add 0.000000000000000001 eq 123.450000000000000001", []int{1}},
			{"Amount add Amount eq 0.2", []int{4}},
			{"Amount add 0.2 eq 0.3", []int{4}},
			{"Amount sub 0.1 eq 0.2", []int{6}},
			{"0.1 add 0.2 eq Amount", []int{6}},
			{"Amount sub 99999999999999999999.999999999999999999 eq -99999999999999999999.999999999999999999", []int{10}},
			{"Amount mul 2 eq 246.9", []int{1}},
			{"Amount mul 2 eq 246.900000000000000002", []int{8}},
			{"Amount mul 3 eq 0.9", []int{6}},
			{"Amount mul Amount eq 0.000000000000000000000000000000000001", []int{3}},
			{"Amount mul Amount gt 10000", []int{1, 2, 8, 9}},
			{"Amount div 0 eq null", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
			// A quotient keeps PostgreSQL's NUMERIC scale, here the operand's 18 digits, on both databases:
			// 123.450000000000000001 div 4 is 30.862500000000000000.
			{"Amount div 4 eq 30.8625", []int{1, 8}},
			{"Amount div 3 gt 41.15", []int{2}},
			{"Amount div 3 eq 0.1", []int{6}},
			{"Amount divby 2 eq 0.05", []int{4}},
			{"Amount add Rate gt 246.8", []int{1, 2, 8}}, // Double: floating point, as OData promotes
			{"Amount mul Qty eq Amount", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
			{"Amount mod 0.2 eq 0.1", []int{4, 6}},
			{"-Amount eq 0.000000000000000001", []int{3}},
			{"Amount eq Price", []int{1, 10}},
			{"Amount gt Price", []int{2, 4, 5, 6, 8}},
			{"Amount sub Price eq 0", []int{1, 10}},
			{"Amount sub Price eq 123.450000000000000001", []int{8}},
			{"Amount add Qty gt 124.45", []int{2, 8}},
			{"Amount gt Qty", []int{1, 2, 8}},
			{"Amount gt Rate", []int{1, 2, 8}},
			{"round(Amount) eq 123", []int{1, 8}},
			{"floor(Amount) eq -1", []int{3}},
			{"ceiling(Amount) eq 1", []int{4, 5, 6}},
			{"cast(Amount, Edm.Decimal) eq 0.2", []int{5}},
		}
		for _, tc := range filters {
			got := selectIDs(t, f, "/odata/Entries?$select=Id&$orderby=Id&$filter="+url.QueryEscape(tc.filter))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("$filter=%s (-want +got):\n%s", tc.filter, diff)
			}
		}
		orders := []struct {
			orderby string
			want    []int
		}{
			{"Amount", []int{7, 9, 3, 10, 4, 5, 6, 1, 8, 2}},
			{"Amount desc", []int{2, 8, 1, 6, 5, 4, 10, 3, 9, 7}},
			{"Amount sub 1 desc", []int{2, 8, 1, 6, 5, 4, 10, 3, 9, 7}},
			{"Amount mul -1,Id", []int{7, 2, 8, 1, 6, 5, 4, 10, 3, 9}},
		}
		for _, tc := range orders {
			// Three to a page: the keyset token carries the decimal.
			got := pagedIDs(t, f, "/odata/Entries?$select=Id&$orderby="+url.QueryEscape(tc.orderby))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("$orderby=%s (-want +got):\n%s", tc.orderby, diff)
			}
		}
		for _, amount := range []string{"0.0000000000000000001", "100000000000000000000", "-100000000000000000000"} {
			f.must(400, "POST", "/odata/Entries", fmt.Sprintf(`{"Id":20,"Amount":%s,"Price":0,"Qty":1,"Rate":0}`, amount))
		}
		f.must(200, "PATCH", "/odata/Entries(10)", `{"Amount":"-99999999999999999999.999999999999999998"}`)
		if got := selectIDs(t, f, "/odata/Entries?$select=Id&$orderby=Amount,Id&$filter="+url.QueryEscape("Amount lt -99999999999999999999")); !cmp.Equal(got, []int{9, 10}) {
			t.Errorf("after a PATCH: Amount lt -99999999999999999999 = %v, want [9 10]", got)
		}
	})
}

// autoPrice is 0 as a DecimalAuto Decimal(19,4) column keeps it.
func autoPrice(db *dbtest.DB) any {
	if db.Dialect().ScaledDecimals() {
		return 0
	}
	return "0"
}

// TestService_WideDecimalOpenAPI checks the range the OpenAPI document gives a Decimal(38,18), which is not
// limited to 64 bits, beside the scaled Decimal(19,4).
func TestService_WideDecimalOpenAPI(t *testing.T) {
	db := dbtest.SQLite(t)
	m := createSchema(t, db, wideDecimalsModel())
	svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					MultipleOf json.Number `json:"multipleOf"`
					Minimum    json.Number `json:"minimum"`
					Maximum    json.Number `json:"maximum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(svc.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	entry := doc.Components.Schemas["Ledger.Entry"].Properties
	for _, tc := range []struct {
		property, multipleOf, minimum, maximum string
	}{
		{"Amount", "0.000000000000000001", "-99999999999999999999.999999999999999999", "99999999999999999999.999999999999999999"},
		{"Price", "0.0001", "-922337203685477.5808", "922337203685477.5807"},
	} {
		p := entry[tc.property]
		if got := []string{string(p.MultipleOf), string(p.Minimum), string(p.Maximum)}; !cmp.Equal(got, []string{tc.multipleOf, tc.minimum, tc.maximum}) {
			t.Errorf("OpenAPI %s: multipleOf, minimum, maximum = %q, want %q", tc.property, got, []string{tc.multipleOf, tc.minimum, tc.maximum})
		}
	}
}

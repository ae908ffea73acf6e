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
	svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Dialect: db.Dialect, Mount: "/odata",
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
	if db.Dialect.ScaledDecimals() {
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
// SQLite DECIMAL(10,2) column holding 19.99 read as a scaled integer, among others.
func TestSchema_DecimalStorage(t *testing.T) {
	declared := map[string]map[string]string{
		"sqlite":   {"auto": `"auto" INTEGER`, "scaled": `"scaled" INTEGER`, "exact": `"exact" TEXT`, "float": `"float" REAL`},
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
		{"exact text of 18 digits", edm.DecimalExact, map[string]string{"sqlite": "TEXT"}, 18, "exact to 15 digits"},
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
		statements, err := schema.Create(db.Dialect, m)
		if err != nil {
			t.Fatal(err)
		}
		for column, want := range declared[db.Dialect.Name()] {
			if !strings.Contains(statements[0], want+" NOT NULL") {
				t.Errorf("schema.Create: %s is not declared %s:\n%s", column, want, statements[0])
			}
		}
		for i, tc := range cases {
			column := tc.column[db.Dialect.Name()]
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
			err := schema.Check(t.Context(), db.DB, db.Dialect, m)
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
		if db.Dialect.Name() == "postgres" {
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
		svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Dialect: db.Dialect, Logger: discardLogger()})
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

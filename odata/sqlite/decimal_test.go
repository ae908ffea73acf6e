package sqlite_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecimalCollation sorts decimal texts under COLLATE odata_decimal and compares pairs of them.
func TestDecimalCollation(t *testing.T) {
	db := open(t)
	if _, err := db.Exec(`CREATE TABLE d (id INTEGER PRIMARY KEY, v TEXT COLLATE odata_decimal) STRICT`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE INDEX d_v ON d (v)`); err != nil {
		t.Fatal(err)
	}
	values := []string{"10", "9", "-0.000000000000000001", "0.1", "0.30", "0.3", "-10", "-9.5",
		"99999999999999999999.999999999999999999", "99999999999999999999.999999999999999998", "0", "-0.000",
		"1e2", "abc", "123.450000000000000000", "123.45", "+7", ".5"}
	for i, v := range values {
		if _, err := db.Exec(`INSERT INTO d (id, v) VALUES (?, ?)`, i, v); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	rows, err := db.Query(`SELECT v FROM d ORDER BY v, id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"-10", "-9.5", "-0.000000000000000001", "0", "-0.000", "0.1", "0.30", "0.3", ".5", "+7",
		"9", "10", "1e2", "123.450000000000000000", "123.45", "99999999999999999999.999999999999999998",
		"99999999999999999999.999999999999999999", "abc"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ORDER BY v COLLATE odata_decimal (-want +got):\n%s", diff)
	}
	// The planner spells the collation; an index on the column (declared with it) serves the comparison and
	// the order.
	for _, q := range []string{`SELECT id FROM d WHERE v COLLATE odata_decimal > ?`, `SELECT id FROM d ORDER BY v COLLATE odata_decimal`} {
		var plan []string
		rows, err := db.Query("EXPLAIN QUERY PLAN "+q, "1")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if !strings.Contains(strings.Join(plan, "; "), "INDEX d_v") {
			t.Errorf("%s: query plan %q does not use the index d_v", q, plan)
		}
	}
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"0.3", "0.30", 0},
		{"-0", "0", 0},
		{"123.45", "123.450000000000000000", 0},
		{"0.000000000000000001", "0.000000000000000002", -1},
		{"-1", "-0.5", -1},
		{"100", "99.99", 1},
		{"1E2", "100", 0},
		{"x", "1", 1},
	} {
		var got int
		q := `SELECT CASE WHEN ? COLLATE odata_decimal < ? THEN -1 WHEN ? COLLATE odata_decimal = ? THEN 0 ELSE 1 END`
		if err := db.QueryRow(q, tc.a, tc.b, tc.a, tc.b).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("compare(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestDecimalFunctions computes with the odata_decimal functions.
func TestDecimalFunctions(t *testing.T) {
	db := open(t)
	for _, tc := range []struct {
		sql  string
		args []any
		want sql.NullString
	}{
		{"odata_decimal(?, 2)", []any{int64(1999)}, valid("19.99")},
		{"odata_decimal(?, 0)", []any{0.1}, valid("0.1")},
		{"odata_decimal(?, 0)", []any{"123.450000000000000000"}, valid("123.450000000000000000")},
		{"odata_decimal(?, 0)", []any{nil}, sql.NullString{}},
		{"odata_decimal_add(?, ?)", []any{"0.1", "0.20"}, valid("0.30")},
		{"odata_decimal_add(?, ?)", []any{"99999999999999999999.999999999999999998", "0.000000000000000001"}, valid("99999999999999999999.999999999999999999")},
		{"odata_decimal_sub(?, ?)", []any{"0.3", int64(1)}, valid("-0.7")},
		{"odata_decimal_mul(?, ?)", []any{"123.450000000000000000", "2"}, valid("246.900000000000000000")},
		{"odata_decimal_add(?, ?)", []any{"123.450000000000000000", int64(1)}, valid("124.450000000000000000")},
		{"odata_decimal_mul(?, ?)", []any{"0.000000000000000001", "0.000000000000000001"}, valid("0.000000000000000000000000000000000001")},
		// Quotients at the scale PostgreSQL's NUMERIC division gives them (the expected texts are its answers).
		{"odata_decimal_div(?, ?)", []any{"1", "3"}, valid("0.33333333333333333333")},
		{"odata_decimal_div(?, ?)", []any{"123.450000000000000001", "4"}, valid("30.862500000000000000")},
		{"odata_decimal_div(?, ?)", []any{"10000000000", "3"}, valid("3333333333.33333333")},
		{"odata_decimal_div(?, ?)", []any{"0.05", "7"}, valid("0.00714285714285714286")},
		{"odata_decimal_div(?, ?)", []any{"99999999999999999999.999999999999999999", "0.000000000000000001"}, valid("99999999999999999999999999999999999999.000000000000000000")},
		{"odata_decimal_div(?, ?)", []any{"1.0", "7000000"}, valid("0.000000142857142857142857")},
		{"odata_decimal_div(?, ?)", []any{"0", "7"}, valid("0.00000000000000000000")},
		{"odata_decimal_div(?, ?)", []any{"9999", "10000"}, valid("0.99990000000000000000")},
		{"odata_decimal_div(?, ?)", []any{"2", "0.000"}, sql.NullString{}},
		{"odata_decimal_mod(?, ?)", []any{"-7.5", "2"}, valid("-1.5")},
		{"odata_decimal_mod(?, ?)", []any{"7.5", "0"}, sql.NullString{}},
		{"odata_decimal_neg(?)", []any{"0.000000000000000001"}, valid("-0.000000000000000001")},
		{"odata_decimal_round(?)", []any{"-2.5"}, valid("-3")},
		{"odata_decimal_round(?)", []any{"2.4999999999999999999"}, valid("2")},
		{"odata_decimal_floor(?)", []any{"-2.000000000000000001"}, valid("-3")},
		{"odata_decimal_ceiling(?)", []any{"2.000000000000000001"}, valid("3")},
		{"odata_decimal_add(?, ?)", []any{nil, "1"}, sql.NullString{}},
	} {
		var got sql.NullString
		if err := db.QueryRow("SELECT "+tc.sql, tc.args...).Scan(&got); err != nil {
			t.Errorf("%s %v: %v", tc.sql, tc.args, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s %v = %v, want %v", tc.sql, tc.args, fmt.Sprint(got), fmt.Sprint(tc.want))
		}
	}
	if err := db.QueryRow(`SELECT odata_decimal_add('abc', 1)`).Scan(new(sql.NullString)); err == nil {
		t.Errorf("odata_decimal_add('abc', 1) = nil error, want one")
	}
}

func valid(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }

package odata

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/storekit/store/odata/edm"
)

// TestNestedValue: each item of a nested collection's row reads back as the database driver would scan its
// column: numbers as int64 or float64, Binary from hex, PostgreSQL's NaN and infinities of a Double, and a
// nested collection's text as it is.
func TestNestedValue(t *testing.T) {
	double := &edm.Property{Type: edm.KindDouble}
	decimal := &edm.Property{Type: edm.KindDecimal, Precision: 18, Scale: 4}
	for _, tc := range []struct {
		name   string
		p      *edm.Property
		nested bool
		text   string
		want   any
	}{
		{"an integer", &edm.Property{Type: edm.KindInt32}, false, `[[7]]`, int64(7)},
		{"a double written as an integer", double, false, `[[2]]`, float64(2)},
		{"a double", double, false, `[[2.5]]`, 2.5},
		{"NaN from PostgreSQL", double, false, `[["NaN"]]`, math.NaN()},
		{"minus infinity from PostgreSQL", double, false, `[["-Infinity"]]`, math.Inf(-1)},
		{"a scaled decimal from SQLite", decimal, false, `[[125000]]`, int64(125000)},
		{"a decimal as text from PostgreSQL", decimal, false, `[["12.5000"]]`, "12.5000"},
		{"a decimal computed in double precision", decimal, false, `[[3.25]]`, 3.25},
		{"binary as hex", &edm.Property{Type: edm.KindBinary}, false, `[["0a0b"]]`, []byte{10, 11}},
		{"a boolean", &edm.Property{Type: edm.KindBoolean}, false, `[[true]]`, true},
		{"null", &edm.Property{Type: edm.KindString}, false, `[[null]]`, nil},
		{"an escaped string", &edm.Property{Type: edm.KindString}, false, `[["a\"b\u00e9"]]`, "a\"bé"},
		{"a nested collection", &edm.Property{Type: edm.KindString}, true, `[["[[1]]"]]`, "[[1]]"},
	} {
		var got []any
		err := scanRows([]byte(tc.text), func(i int, k itemKind, v []byte) error {
			got = append(got, nestedValue(tc.p, tc.nested, k, v))
			return nil
		}, func(int) error { return nil })
		if err != nil || len(got) != 1 {
			t.Errorf("%s: scanRows(%s) = %v, %v", tc.name, tc.text, got, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got[0], cmpopts.EquateNaNs()); diff != "" {
			t.Errorf("%s: %s (-want +got):\n%s", tc.name, tc.text, diff)
		}
	}
}

// TestScanRows: the rows of a nested collection in order, each item with its place, and malformed text refused.
func TestScanRows(t *testing.T) {
	for _, tc := range []struct {
		text string
		want [][]string
		ok   bool
	}{
		{`[]`, nil, true},
		{` [ [1, "a"] , [2,"b"] ] `, [][]string{{"1", "a"}, {"2", "b"}}, true},
		{`[[]]`, [][]string{nil}, true},
		{`[[1],`, nil, false},
		{`[1]`, nil, false},
		{`[[1 2]]`, nil, false},
		{`{}`, nil, false},
	} {
		var rows [][]string
		var row []string
		err := scanRows([]byte(tc.text), func(i int, k itemKind, v []byte) error {
			if i != len(row) {
				t.Errorf("%s: item %d at place %d", tc.text, len(row), i)
			}
			row = append(row, string(v))
			return nil
		}, func(n int) error {
			if n != len(rows) {
				t.Errorf("%s: row %d numbered %d", tc.text, len(rows), n)
			}
			rows, row = append(rows, row), nil
			return nil
		})
		if (err == nil) != tc.ok {
			t.Errorf("scanRows(%s) = %v, want ok %v", tc.text, err, tc.ok)
			continue
		}
		if tc.ok {
			if diff := cmp.Diff(tc.want, rows); diff != "" {
				t.Errorf("scanRows(%s) (-want +got):\n%s", tc.text, diff)
			}
		}
	}
}

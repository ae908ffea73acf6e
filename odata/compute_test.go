package odata_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// TestService_Compute: $compute adds properties computed by SQL that $select, $filter and $orderby name as
// they name the type's own (keyset paging included), also nested in $expand, with the same values on both
// databases; a computed property is in the answer when selected or when nothing is.
func TestService_Compute(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct {
			name, query string
			want        string // the answer without control information
		}{
			{"an integer", "Book?$compute=Pages%20mul%202%20as%20Double&$select=Id,Double&$orderby=Id",
				`{"value":[{"Id":"b1","Double":200},{"Id":"b2","Double":400},{"Id":"b3","Double":600}]}`},
			{"a decimal, exact", "Book?$compute=Price%20mul%202%20as%20P&$select=P&$orderby=Id&$top=1", `{"value":[{"P":25}]}`},
			{"a decimal times a decimal", "Book?$compute=Price%20mul%201.1%20as%20P&$select=P&$orderby=Id&$top=1", `{"value":[{"P":13.75}]}`},
			{"a string, filtered by", "Book?$compute=toupper(Title)%20as%20T&$filter=T%20eq%20'BETA'&$select=T", `{"value":[{"T":"BETA"}]}`},
			{"ordered by", "Book?$compute=Pages%20div%20100%20as%20H&$orderby=H%20desc&$select=Id", `{"value":[{"Id":"b3"},{"Id":"b2"},{"Id":"b1"}]}`},
			{"ordered by, not selected", "Book?$compute=Pages%20mul%20-1%20as%20N&$orderby=N&$select=Title",
				`{"value":[{"Title":"Gamma"},{"Title":"Beta"},{"Title":"Alpha"}]}`},
			{"two, one selected", "Book('b1')?$compute=Pages%20add%201%20as%20A,Pages%20sub%201%20as%20B&$select=B", `{"B":99}`},
			{"star", "Book('b1')?$compute=Pages%20add%201%20as%20A&$select=*", ``},
			{"nested in $expand", "Book('b1')?$select=Id&$expand=Chapters($compute=Number%20mul%2010%20as%20N;$select=N;$orderby=N%20desc)",
				`{"Id":"b1","Chapters":[{"N":20},{"N":10}]}`},
			{"a navigation path", "Book?$compute=Publisher/Name%20as%20P&$select=Id,P&$orderby=Id",
				`{"value":[{"Id":"b1","P":"Penguin"},{"Id":"b2","P":"Penguin"},{"Id":"b3","P":"Penguin"}]}`},
		} {
			resp := f.must(200, "GET", "/odata/"+tc.query, "")
			got := withoutControls(decodeJSON(t, resp.Body)).(map[string]any)
			if tc.want == "" {
				if got["A"] == nil || got["Title"] == nil {
					t.Errorf("%s: %s = %s, want every property and A", tc.name, tc.query, resp.Body)
				}
				continue
			}
			if diff := cmp.Diff(numbers(withoutControls(decodeJSON(t, tc.want))), numbers(got)); diff != "" {
				t.Errorf("%s: GET %s (-want +got):\n%s", tc.name, tc.query, diff)
			}
		}
		// Without $select every property is there, the computed one too.
		all := f.must(200, "GET", "/odata/Book('b2')?$compute=Pages%20add%201%20as%20More", "").Body
		if !strings.Contains(all, `"Title":"Beta"`) || !strings.Contains(all, `"More":201`) {
			t.Errorf("$compute without $select = %s, want the properties and More", all)
		}
		// Keyset paging along a computed order.
		page := f.must(200, "GET", "/odata/Book?$compute=Pages%20mul%20-1%20as%20N&$orderby=N&$select=Id", "", "Prefer", "odata.maxpagesize=2")
		next, _ := decodeJSON(t, page.Body)["@odata.nextLink"].(string)
		rest := f.must(200, "GET", strings.TrimPrefix(next, "http://example.com"), "", "Prefer", "odata.maxpagesize=2")
		if got := withoutControls(decodeJSON(t, rest.Body)); !cmp.Equal(got, withoutControls(decodeJSON(t, `{"value":[{"Id":"b1"}]}`))) {
			t.Errorf("second page along a computed order = %s, want b1", rest.Body)
		}
		for _, q := range []string{"Book?$compute=Pages%20as%20Title", "Book?$compute=Authors%20as%20A", "Book?$compute=Pages%20as%20P&$select=Q"} {
			f.must(400, "GET", "/odata/"+q, "")
		}
	})
}

// numbers turns the JSON numbers of v into float64 values, so that 13.75 and 13.750 compare equal.
func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, m := range v {
			v[k] = numbers(m)
		}
	case []any:
		for i := range v {
			v[i] = numbers(v[i])
		}
	}
	return v
}

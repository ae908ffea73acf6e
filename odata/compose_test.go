package odata_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// TestService_ComposableFunctions: the result of a composable function returning entities takes the system
// query options and /$count as a read of their set would, on both databases; options on the result of one
// that is not composable are a 400, and the handler's own transaction still changes nothing.
func TestService_ComposableFunctions(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := functionsFixtureWith(t, db, func(cfg *odata.Config) {
			for _, fn := range cfg.Model.Functions {
				fn.IsComposable = fn.Name != "Sneaky"
			}
			// Nothing returns the entity it is bound to, to read one entity through a function.
			cfg.Functions["Book/Nothing"] = func(_ context.Context, call *odata.FunctionCall) (any, error) {
				return call.Entity, nil
			}
		})
		for _, tc := range []struct {
			name, path string
			status     int
			want       string // the answer without control information, as JSON; or its text
		}{
			{"filter, select, orderby", "Bestsellers()?$filter=Pages%20gt%20150&$select=Id,Title&$orderby=Title%20desc", 200,
				`{"value":[{"Id":"b3","Title":"Gamma"},{"Id":"b2","Title":"Beta"}]}`},
			{"no option but the parameter's", "Bestsellers(Top=2)?$select=Id", 200, `{"value":[{"Id":"b2"},{"Id":"b3"}]}`},
			{"count", "Bestsellers(Top=2)?$count=true&$select=Id&$top=1", 200, `{"value":[{"Id":"b2"}]}`},
			{"top and skip", "Bestsellers()?$orderby=Pages&$top=1&$skip=1&$select=Pages", 200, `{"value":[{"Pages":200}]}`},
			{"a parameter alias beside", "Bestsellers(Top=@n)?@n=1&$select=Title", 200, `{"value":[{"Title":"Gamma"}]}`},
			{"bound, with expand", "Book('b1')/Similar()?$filter=Title%20eq%20'Gamma'&$select=Id&$expand=Publisher($select=Name)", 200,
				`{"value":[{"Id":"b3","Publisher":{"Name":"Penguin"}}]}`},
			{"one entity", "Book('b1')/Nothing()?$select=Title", 200, `{"Title":"Alpha"}`},
			{"/$count", "Bestsellers(Top=2)/$count", 200, `2`},
			{"/$count with a filter", "Bestsellers()/$count?$filter=Pages%20lt%20250", 200, `2`},
			{"an empty result", "Book('b1')/Similar()?$filter=Title%20eq%20'None'", 200, `{"value":[]}`},
			{"a key", "Bestsellers(Top=2)('b2')?$select=Title", 200, `{"Title":"Beta"}`},
			{"a key the function did not return", "Bestsellers(Top=2)('b1')", 404, `not among those the function returned`},
			{"a key that names nothing", "Bestsellers(Top=2)('none')", 404, `"code":"NotFound"`},
			{"a navigation after a key", "Book('b1')/Similar()('b2')/Publisher?$select=Name", 200, `{"Name":"Penguin"}`},
			{"a property after a key", "Bestsellers()('b3')/Title/$value", 200, `Gamma`},
			{"a navigation after one entity", "Book('b1')/Nothing()/Chapters?$select=Title&$orderby=Title", 200,
				`{"value":[{"Title":"One"},{"Title":"Two"}]}`},
			{"a key as a segment (4.01)", "Bestsellers(Top=2)/b3?$select=Title", 200, `{"Title":"Gamma"}`},
			{"not a segment of the set", "Bestsellers()/Nope", 404, `"code":"NotFound"`},
			{"a bad filter", "Bestsellers()?$filter=nonsense", 400, `"target":"$filter"`},
			{"not composable", "Sneaky()?$top=1", 400, `not composable`},
		} {
			resp := f.do("GET", "/odata/"+tc.path, "")
			if resp.Status != tc.status {
				t.Errorf("%s: GET %s = %d, want %d\n%s", tc.name, tc.path, resp.Status, tc.status, resp.Body)
				continue
			}
			if tc.status != 200 || !strings.HasPrefix(tc.want, "{") {
				if !strings.Contains(resp.Body, tc.want) {
					t.Errorf("%s: GET %s = %s, want %s", tc.name, tc.path, resp.Body, tc.want)
				}
				continue
			}
			got := withoutControls(decodeJSON(t, resp.Body)).(map[string]any)
			if diff := cmp.Diff(withoutControls(decodeJSON(t, tc.want)), any(got)); diff != "" {
				t.Errorf("%s: GET %s (-want +got):\n%s", tc.name, tc.path, diff)
			}
			if strings.Contains(tc.path, "$count=true") && !strings.Contains(resp.Body, `"@odata.count":2`) {
				t.Errorf("%s: GET %s = %s, want @odata.count 2", tc.name, tc.path, resp.Body)
			}
		}
	})
}

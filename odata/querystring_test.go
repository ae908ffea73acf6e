package odata_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// TestService_QueryOptionSpellings: every part of the service that reads a raw query string (the $id of
// /$entity, the options composed with a function's result, the planner's $top and $skiptoken and the next links
// built from them, the $deltatoken of delta links) knows a system query option by the same names as the parser:
// with or without "$" (OData 4.01), in any case, percent-encoded or not. Each spelling answers as the canonical
// one; /$entity took only "$id" before, with or without "$" for its other options.
func TestService_QueryOptionSpellings(t *testing.T) {
	f := functionsFixtureWith(t, dbtest.SQLite(t), func(cfg *odata.Config) {
		for _, fn := range cfg.Model.Functions {
			fn.IsComposable = fn.Name != "Sneaky"
		}
		trackBooksAndLoans(cfg, nil)
	})
	for _, tc := range []struct {
		name      string
		canonical string
		spellings []string
	}{
		{"/$entity", "/odata/Book('b1')?$select=Title,Pages", []string{
			"/odata/$entity?$id=Book('b1')&$select=Title,Pages",
			"/odata/$entity?id=Book('b1')&select=Title,Pages",
			"/odata/$entity?%24ID=Book('b1')&SELECT=Title,Pages",
			"/odata/$entity?$Id=odata/Book('b1')&%24select=Title,Pages",
		}},
		{"a composed function", "/odata/Bestsellers()?$filter=Pages%20gt%20150&$select=Id,Title&$orderby=Title%20desc", []string{
			"/odata/Bestsellers()?filter=Pages+gt+150&select=Id,Title&orderby=Title+desc",
			"/odata/Bestsellers()?%24Filter=Pages%20gt%20150&$SELECT=Id,Title&OrderBy=Title%20desc",
		}},
		{"a composed function's key filter beside no $filter", "/odata/Bestsellers(Top=2)?$select=Id&$count=true", []string{
			"/odata/Bestsellers(Top=2)?select=Id&COUNT=true",
		}},
	} {
		want := f.must(200, "GET", tc.canonical, "").Body
		for _, path := range tc.spellings {
			resp := f.do("GET", path, "")
			if resp.Status != 200 {
				t.Errorf("%s: GET %s = %d, want 200\n%s", tc.name, path, resp.Status, resp.Body)
				continue
			}
			if diff := cmp.Diff(want, resp.Body); diff != "" {
				t.Errorf("%s: GET %s differs from GET %s (-want +got):\n%s", tc.name, path, tc.canonical, diff)
			}
		}
	}

	// The same option twice is one mistake wherever it is read.
	for _, path := range []string{
		"/odata/$entity?$id=Book('b1')&id=Book('b2')",
		"/odata/Book?$top=1&TOP=2",
		"/odata/Book?$skiptoken=a&skiptoken=b",
		"/odata/Book?$filter=true&filter=true",
		"/odata/Book?$deltatoken=a&DeltaToken=b",
	} {
		resp := f.do("GET", path, "")
		if resp.Status != 400 || !strings.Contains(resp.Body, "must not appear more than once") {
			t.Errorf("GET %s = %d, want 400 naming the repeated option\n%s", path, resp.Status, resp.Body)
		}
	}

	// Pages: $top and the next links that carry what is left of it and the $skiptoken, spelt either way.
	values := func(path string) []map[string]any {
		var out []map[string]any
		for link := path; link != ""; {
			p, _ := f.getPage(t, link, "Prefer", "odata.maxpagesize=1")
			out = append(out, p.Value...)
			link = p.NextLink
		}
		return out
	}
	want := values("/odata/Book?$select=Id&$orderby=Title&$top=2")
	if len(want) != 2 {
		t.Fatalf("$top=2 in pages of 1: %d entities, want 2", len(want))
	}
	for _, path := range []string{"/odata/Book?select=Id&orderby=Title&top=2", "/odata/Book?%24Select=Id&ORDERBY=Title&%24TOP=2"} {
		if diff := cmp.Diff(want, values(path)); diff != "" {
			t.Errorf("GET %s in pages differs from $top=2 (-want +got):\n%s", path, diff)
		}
	}

	// Delta links: the $deltatoken with or without "$", in any case.
	link := f.deltaLinkOf(t, "/odata/Book?$select=Id,Title&$filter=Price%20lt%2020")
	f.must(200, "PATCH", "/odata/Book('b1')", `{"Title":"Alpha 2"}`)
	entries, _ := f.readDelta(t, link)
	wantDelta := summary(entries)
	for _, spelt := range []string{"deltatoken=", "DeltaToken=", "%24DELTATOKEN="} {
		other := strings.Replace(link, "$deltatoken=", spelt, 1)
		entries, _ := f.readDelta(t, other)
		if diff := cmp.Diff(wantDelta, summary(entries)); diff != "" {
			t.Errorf("GET %s differs from the delta link as issued (-want +got):\n%s", other, diff)
		}
	}
}

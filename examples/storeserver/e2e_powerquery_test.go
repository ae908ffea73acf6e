package main

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// powerQueryHeaders are the headers Power Query (Excel, Power BI) sends with each request of an OData feed.
var powerQueryHeaders = []string{
	"Accept", "application/json;odata.metadata=minimal;q=1.0,application/json;odata=minimalmetadata;q=0.9," +
		"application/atomsvc+xml;q=0.8,application/atom+xml;q=0.8,application/xml;q=0.7,text/plain;q=0.7",
	"OData-MaxVersion", "4.0",
	"MaxDataServiceVersion", "3.0",
	"User-Agent", "Microsoft.Data.Mashup (https://go.microsoft.com/fwlink/?LinkID=304225)",
}

// TestStore_PowerQuery replays, against the store's /odata/ service and signed in as the administrator, what Power
// Query does with an OData feed: the service document, $metadata (which it reads only as CSDL XML), then a set of
// more than one page, following each next link to the last. Then what SAP clients send before a write: HEAD with
// X-CSRF-Token: Fetch on $batch and on an action, answered 200 without an error and without a token.
func TestStore_PowerQuery(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false")
		admin := s.admin(t)
		const manufacturers = 130 // more than a page (100)
		var want []string
		for i := 0; i < manufacturers; i++ {
			name := fmt.Sprintf("Maker %03d", i)
			admin.must(t, http.StatusCreated, "POST", "/odata/Manufacturer", map[string]any{"Name": name})
			want = append(want, name)
		}
		const jsonType = "application/json;odata.metadata=minimal"
		check := func(what string, r *response, contentType string) {
			t.Helper()
			got := []string{fmt.Sprint(r.status), r.header.Get("Content-Type"), r.header.Get("OData-Version")}
			if diff := cmp.Diff([]string{"200", contentType, "4.0"}, got); diff != "" {
				t.Fatalf("%s: status, Content-Type, OData-Version (-want +got):\n%s%.300s", what, diff, r.body)
			}
		}

		r := admin.do(t, "GET", "/odata/", nil, powerQueryHeaders...)
		check("service document", r, jsonType)
		if _, ok := r.json(t)["value"]; !ok {
			t.Errorf("service document without value: %s", r)
		}

		r = admin.do(t, "GET", "/odata/$metadata", nil, powerQueryHeaders...)
		check("$metadata", r, "application/xml")
		m := regexp.MustCompile(`<edmx:Edmx Version="([^"]*)"`).FindSubmatch(r.body)
		if m == nil || string(m[1]) != "4.0" {
			t.Errorf("$metadata: edmx:Edmx Version %q, want 4.0 (%.200s)", m, r.body)
		}

		var got []string
		next, pages := "/odata/Manufacturer?$select=Name", 0
		for next != "" {
			if pages++; pages > 5 {
				t.Fatalf("more than 5 pages; the last next link was %s", next)
			}
			r = admin.do(t, "GET", next, nil, powerQueryHeaders...)
			check("GET "+next, r, jsonType)
			page := r.json(t)
			for _, row := range page["value"].([]any) {
				got = append(got, str(row.(map[string]any), "Name"))
			}
			next = ""
			if link := str(page, "@odata.nextLink"); link != "" {
				if !strings.HasPrefix(link, s.url+"/odata/Manufacturer?") {
					t.Fatalf("next link %q, want one of %s/odata/Manufacturer", link, s.url)
				}
				next = strings.TrimPrefix(link, s.url)
			}
		}
		if pages != 2 {
			t.Errorf("%d pages, want 2", pages)
		}
		sort.Strings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the pages hold (-want +got):\n%s", diff)
		}

		for _, path := range []string{"/odata/$batch", "/odata/Customer('" + adminEmail + "')/SetPassword"} {
			r := admin.do(t, "HEAD", path, nil, "X-CSRF-Token", "Fetch")
			got := []string{fmt.Sprint(r.status), r.header.Get("X-CSRF-Token"), string(r.body)}
			if diff := cmp.Diff([]string{"200", "", ""}, got); diff != "" {
				t.Errorf("HEAD %s with X-CSRF-Token: Fetch: status, X-CSRF-Token, body (-want +got):\n%s", path, diff)
			}
		}
	})
}

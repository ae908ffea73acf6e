package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// powerQueryHeaders are the headers Microsoft Power Query (Excel, Power BI) sends with every request of its
// OData feed connector.
var powerQueryHeaders = []string{
	"Accept", "application/json;odata.metadata=minimal;q=1.0,application/json;odata=minimalmetadata;q=0.9," +
		"application/atomsvc+xml;q=0.8,application/atom+xml;q=0.8,application/xml;q=0.7,text/plain;q=0.7",
	"OData-MaxVersion", "4.0",
	"MaxDataServiceVersion", "3.0",
	"User-Agent", "Microsoft.Data.Mashup (https://go.microsoft.com/fwlink/?LinkID=304225)",
}

// TestStore_PowerQuery replays Power Query's request sequence against the store's /odata service with an
// administrator's token: the service document, $metadata (it reads only CSDL XML), then the Product set page by
// page, following each next link to the end. Then the CSRF token fetch SAP clients send before a write: a HEAD
// with X-CSRF-Token: Fetch on $batch and on an action URL, answered without an error and without a token.
func TestStore_PowerQuery(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil)
		admin := s.admin(t)
		check := func(path string, r *response, contentType string) {
			t.Helper()
			got := []string{itoa(r.status), r.header.Get("Content-Type"), r.header.Get("OData-Version")}
			if diff := cmp.Diff([]string{"200", contentType, "4.0"}, got); diff != "" {
				t.Fatalf("GET %s: status, Content-Type, OData-Version (-want +got):\n%s%.300s", path, diff, r.body)
			}
		}
		const jsonType = "application/json;odata.metadata=minimal"
		r := admin.do(t, "GET", "/odata/", nil, powerQueryHeaders...)
		check("/odata/", r, jsonType)
		if !strings.Contains(string(r.body), `"name":"Product"`) {
			t.Errorf("service document for Power Query: %.300s, want the Product set", r.body)
		}
		r = admin.do(t, "GET", "/odata/$metadata", nil, powerQueryHeaders...)
		check("/odata/$metadata", r, "application/xml")
		if !strings.Contains(string(r.body), `<edmx:Edmx Version="4.0"`) {
			t.Errorf("$metadata for Power Query: %.200s, want CSDL XML of version 4.0", r.body)
		}

		var all struct {
			Value []struct{ Id string } `json:"value"`
		}
		if err := json.Unmarshal(admin.must(t, http.StatusOK, "GET", "/odata/Product?$select=Id&$orderby=Id", nil).body, &all); err != nil {
			t.Fatal(err)
		}
		headers := append([]string{"Prefer", "odata.maxpagesize=2"}, powerQueryHeaders...)
		var ids []string
		next := "/odata/Product?$select=Id&$orderby=Id"
		for pages := 0; next != ""; pages++ {
			if pages > len(all.Value) {
				t.Fatalf("more pages than products; the last next link was %s", next)
			}
			r = admin.do(t, "GET", next, nil, headers...)
			check(next, r, jsonType)
			var page struct {
				Value    []struct{ Id string } `json:"value"`
				NextLink string                `json:"@odata.nextLink"`
			}
			if err := json.Unmarshal(r.body, &page); err != nil {
				t.Fatalf("GET %s: %v", next, err)
			}
			for _, p := range page.Value {
				ids = append(ids, p.Id)
			}
			next = page.NextLink
			if next != "" {
				// Power Query follows the link as given: an absolute URL on the service's host.
				i := strings.Index(next, "/odata/")
				if !strings.HasPrefix(next, "http://") || i < 0 {
					t.Fatalf("GET %s: next link %q, want an absolute URL of the service", r.header.Get("Content-Location"), next)
				}
				next = next[i:]
			}
		}
		var want []string
		for _, p := range all.Value {
			want = append(want, p.Id)
		}
		if diff := cmp.Diff(want, ids); diff != "" || len(ids) < 3 {
			t.Errorf("the pages hold (-every product +paged), want all (at least 3):\n%s", diff)
		}

		product := want[0]
		for _, path := range []string{"/odata/", "/odata/$batch", "/odata/Product('" + product + "')/UpdateStock",
			"/odata/Product", "/odata/Product('" + product + "')"} {
			r := admin.do(t, "HEAD", path, nil, "X-CSRF-Token", "Fetch")
			if r.status != http.StatusOK || len(r.body) != 0 || r.header.Get("X-CSRF-Token") != "" {
				t.Errorf("HEAD %s with X-CSRF-Token: Fetch = %d, %d bytes, X-CSRF-Token %q; want 200 without either",
					path, r.status, len(r.body), r.header.Get("X-CSRF-Token"))
			}
		}
	})
}

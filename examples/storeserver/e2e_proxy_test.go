package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/storekit/store/odata/dbtest"
)

// forgedHost are the headers of a client that lies about the host and scheme it reached.
var forgedHost = []string{"Host", "evil.test", "X-Forwarded-Host", "forged.test", "X-Forwarded-Proto", "http"}

// TestStore_PublicURL checks that with -public-url every absolute URL in every answer starts with it, whatever
// Host and X-Forwarded-* headers the client sends: next links, Location, @odata.context, OData-EntityId.
func TestStore_PublicURL(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		const public = "https://shop.example.com/store"
		s := start(t, db, nil, "-public-url", public+"/")
		admin := s.admin(t)
		m := admin.must(t, http.StatusCreated, "POST", "/odata/Manufacturer", map[string]any{"Name": "Acme"}).json(t)
		key := "/odata/Manufacturer('" + str(m, "Id") + "')"
		product := str(admin.must(t, http.StatusCreated, "POST", "/odata/Product", map[string]any{"Name": "Pen"}).json(t), "Id")
		for _, rq := range []request{
			{method: "GET", path: "/odata/"},
			{method: "GET", path: "/odata/Product?$select=Name&$expand=Categories", header: []string{"Prefer", "odata.maxpagesize=1"}},
			{method: "GET", path: "/odata/Product/$count"},
			{method: "GET", path: key},
			{method: "POST", path: "/odata/Manufacturer", body: map[string]any{"Name": "Created"}},
			{method: "POST", path: "/odata/Manufacturer", body: map[string]any{"Name": "Minimal"}, header: []string{"Prefer", "return=minimal"}},
			{method: "PATCH", path: key, body: map[string]any{"DisplayOrder": 2}, header: []string{"Prefer", "return=minimal"}},
			{method: "PATCH", path: key, body: map[string]any{"DisplayOrder": 3}},
			{method: "POST", path: "/odata/Product('" + product + "')/UpdateStock", body: map[string]any{"Stock": 5}},
			{method: "GET", path: "/odata/NoSuchSet"},
			{method: "GET", path: "/cart"},
		} {
			rq.header = append(rq.header, forgedHost...)
			r := admin.send(t, rq)
			all := fmt.Sprint(r.header) + string(r.body)
			if strings.Contains(all, "evil.test") || strings.Contains(all, "forged.test") {
				t.Errorf("%s %s with Host evil.test = %s %v, want no trace of the client's hosts", rq.method, rq.path, r, r.header)
			}
			if strings.Contains(all, "://") && !strings.Contains(all, public+"/odata/") {
				t.Errorf("%s %s = %s %v, want absolute URLs under %s/odata/", rq.method, rq.path, r, r.header, public)
			}
		}
		page := admin.must(t, http.StatusOK, "GET", "/odata/Product?$select=Name", nil,
			append([]string{"Prefer", "odata.maxpagesize=1"}, forgedHost...)...).json(t)
		if next := str(page, "@odata.nextLink"); !strings.HasPrefix(next, public+"/odata/Product?") {
			t.Errorf("@odata.nextLink = %q, want one under %s", next, public)
		}
		if ctx := str(page, "@odata.context"); ctx != public+"/odata/$metadata#Product(Name)" {
			t.Errorf("@odata.context = %q", ctx)
		}
		r := admin.must(t, http.StatusCreated, "POST", "/odata/Category", map[string]any{"Name": "Located"}, forgedHost...)
		if loc := r.header.Get("Location"); loc != public+"/odata/Category('"+str(r.json(t), "Id")+"')" {
			t.Errorf("Location = %q, want one under %s", loc, public)
		}
		r = admin.must(t, http.StatusNoContent, "PATCH", key, map[string]any{"DisplayOrder": 4},
			append([]string{"Prefer", "return=minimal"}, forgedHost...)...)
		if id := r.header.Get("OData-EntityId"); id != public+key {
			t.Errorf("OData-EntityId = %q, want %s%s", id, public, key)
		}
	})
}

// TestStore_TrustedProxies checks that X-Forwarded-Host, -Proto and -For count only when the connection comes
// from a trusted proxy: honoured from 127.0.0.1 when it is one, ignored when only 10.0.0.0/8 is.
func TestStore_TrustedProxies(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		forwarded := []string{"X-Forwarded-Host", "www.shop.example", "X-Forwarded-Proto", "https",
			"X-Forwarded-For", "192.0.2.66, 198.51.100.7", "X-Request-Id", "through-the-proxy"}
		for _, tc := range []struct {
			proxies     string
			wantContext func(s *storeServer) string
			wantClient  string
		}{
			{"127.0.0.1,10.0.0.0/8", func(*storeServer) string { return "https://www.shop.example/odata/$metadata#Product" }, "198.51.100.7"},
			{"10.0.0.0/8", func(s *storeServer) string { return s.url + "/odata/$metadata#Product" }, "127.0.0.1"},
		} {
			t.Run(tc.proxies, func(t *testing.T) {
				s := start(t, db, nil, "-trusted-proxies", tc.proxies)
				page := s.admin(t).must(t, http.StatusOK, "GET", "/odata/Product?$top=1", nil, forwarded...).json(t)
				if got := str(page, "@odata.context"); got != tc.wantContext(s) {
					t.Errorf("@odata.context behind -trusted-proxies %s = %q, want %q", tc.proxies, got, tc.wantContext(s))
				}
				client := ""
				for _, line := range logLines(t, s) {
					if line["msg"] == "request" && line["request_id"] == "through-the-proxy" {
						client, _ = line["client"].(string)
					}
				}
				if client != tc.wantClient {
					t.Errorf("logged client behind -trusted-proxies %s = %q, want %q", tc.proxies, client, tc.wantClient)
				}
				s.stop()
			})
		}
	})
}

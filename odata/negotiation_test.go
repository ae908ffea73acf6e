package odata_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// powerQueryHeaders are the headers Microsoft Power Query (Excel, Power BI: OData.Feed) sends with each request.
var powerQueryHeaders = []string{
	"Accept", "application/json;odata.metadata=minimal;q=1.0,application/json;odata=minimalmetadata;q=0.9," +
		"application/atomsvc+xml;q=0.8,application/atom+xml;q=0.8,application/xml;q=0.7,text/plain;q=0.7",
	"OData-MaxVersion", "4.0",
	"MaxDataServiceVersion", "3.0",
	"User-Agent", "Microsoft.Data.Mashup (https://go.microsoft.com/fwlink/?LinkID=304225)",
}

// documentVersion returns the version a $metadata document says: the Version of edmx:Edmx (CSDL XML) or
// "$Version" (CSDL JSON).
func documentVersion(t *testing.T, body string) string {
	t.Helper()
	if strings.HasPrefix(body, "{") {
		var doc struct {
			Version string `json:"$Version"`
		}
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Version
	}
	m := regexp.MustCompile(`<edmx:Edmx Version="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no edmx:Edmx Version in %.200s", body)
	}
	return m[1]
}

// TestService_MetadataNegotiation: $metadata is CSDL XML unless $format asks for JSON, or Accept ranks JSON
// first and OData-MaxVersion says the client reads 4.01, or Accept takes JSON and no XML; the document says the
// version of the answer (OData-Version) in either form. SQLite only: $metadata runs no SQL.
func TestService_MetadataNegotiation(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	services := map[odata.Version]*fixture{
		odata.Version40: f,
		odata.Version401: {t: t, db: f.db,
			svc: libraryService(t, f.db, func(cfg *odata.Config) { cfg.MaxVersion = odata.Version401 })},
	}
	const (
		xml  = "application/xml"
		json = "application/json"
	)
	for _, tc := range []struct {
		name       string
		service    odata.Version
		query      string
		accept     string
		maxVersion string
		status     int
		form       string // the Content-Type
		version    string // OData-Version and the document's version
	}{
		{"nothing asked", odata.Version40, "", "", "", 200, xml, "4.0"},
		{"Power Query", odata.Version40, "", powerQueryHeaders[1], "4.0", 200, xml, "4.0"},
		{"Power Query, 4.01 service", odata.Version401, "", powerQueryHeaders[1], "4.0", 200, xml, "4.0"},
		{"JSON first, 4.01 client", odata.Version401, "", powerQueryHeaders[1], "4.01", 200, json, "4.01"},
		{"JSON first, 4.01 client, 4.0 service", odata.Version40, "", powerQueryHeaders[1], "4.01", 200, json, "4.0"},
		{"JSON first, no OData-MaxVersion", odata.Version401, "", "application/json, application/xml;q=0.5", "", 200, xml, "4.0"},
		{"XML first, 4.01 client", odata.Version401, "", "application/xml, application/json;q=0.5", "4.01", 200, xml, "4.01"},
		{"wildcard first, 4.01 client", odata.Version401, "", "*/*, application/json;q=0.5", "4.01", 200, xml, "4.01"},
		{"JSON only, 4.0 client", odata.Version401, "", "application/json", "4.0", 200, json, "4.0"},
		{"JSON only", odata.Version40, "", "application/json;odata.metadata=full", "", 200, json, "4.0"},
		{"$format=json, 4.0 client", odata.Version401, "?$format=json", "", "4.0", 200, json, "4.0"},
		{"$format=json, 4.01 client", odata.Version401, "?$format=json", "", "4.01", 200, json, "4.01"},
		{"$format=application/json", odata.Version40, "?$format=application/json", powerQueryHeaders[1], "4.0", 200, json, "4.0"},
		{"$format=xml over Accept", odata.Version401, "?$format=xml", "application/json", "4.01", 200, xml, "4.01"},
		{"neither", odata.Version40, "", "text/html", "", 406, "application/json;odata.metadata=minimal", "4.0"},
	} {
		resp := services[tc.service].do("GET", "/odata/$metadata"+tc.query, "", "Accept", tc.accept, "OData-MaxVersion", tc.maxVersion)
		got := []string{fmt.Sprint(resp.Status), resp.Header.Get("Content-Type"), resp.Header.Get("OData-Version")}
		if diff := cmp.Diff([]string{fmt.Sprint(tc.status), tc.form, tc.version}, got); diff != "" {
			t.Errorf("%s: status, Content-Type, OData-Version (-want +got):\n%s%.200s", tc.name, diff, resp.Body)
			continue
		}
		if tc.status == 200 {
			if v := documentVersion(t, resp.Body); v != tc.version {
				t.Errorf("%s: the document says version %s, want %s", tc.name, v, tc.version)
			}
		}
	}
}

// TestService_PowerQuery replays what Power Query does with an OData feed, with its headers, on both databases:
// the service document, $metadata (which it reads only as CSDL XML), then a set, following each next link until
// the last page. Every answer is 200 JSON (XML for $metadata) in OData 4.0, and the pages hold every entity once.
func TestService_PowerQuery(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixtureWith(t, db, func(cfg *odata.Config) { cfg.Limits.PageSize = 2 })
		f.seed()
		for i := 4; i <= 7; i++ {
			f.exec(`INSERT INTO book (id, title, price, pages, edition, flag, level, in_print, genre, formats, size_width, size_height)
				VALUES (?, ?, ?, 1, 1, 0, 0, ?, 1, 2, 10, 20)`, fmt.Sprintf("b%d", i), fmt.Sprintf("Book %d", i),
				priceArg(db, "1"), boolArg(db, false))
		}
		const jsonType = "application/json;odata.metadata=minimal"
		check := func(what string, resp response, contentType string) {
			t.Helper()
			got := []string{fmt.Sprint(resp.Status), resp.Header.Get("Content-Type"), resp.Header.Get("OData-Version")}
			if diff := cmp.Diff([]string{"200", contentType, "4.0"}, got); diff != "" {
				t.Fatalf("%s: status, Content-Type, OData-Version (-want +got):\n%s%.300s", what, diff, resp.Body)
			}
		}

		resp := f.do("GET", "/odata/", "", powerQueryHeaders...)
		check("service document", resp, jsonType)
		if _, ok := decodeJSON(t, resp.Body)["value"]; !ok {
			t.Errorf("service document without value: %s", resp.Body)
		}

		resp = f.do("GET", "/odata/$metadata", "", powerQueryHeaders...)
		check("$metadata", resp, "application/xml")
		if v := documentVersion(t, resp.Body); v != "4.0" {
			t.Errorf("$metadata says version %s, want 4.0", v)
		}

		var ids []string
		path := "/odata/Book?$select=Id"
		for pages := 0; path != ""; pages++ {
			if pages > 10 {
				t.Fatalf("more than 10 pages; the last next link was %s", path)
			}
			resp = f.do("GET", path, "", powerQueryHeaders...)
			check("GET "+path, resp, jsonType)
			page := decodeJSON(t, resp.Body)
			rows := page["value"].([]any)
			if len(rows) == 0 || len(rows) > 2 {
				t.Fatalf("GET %s: %d entities, want 1 or 2", path, len(rows))
			}
			for _, row := range rows {
				ids = append(ids, row.(map[string]any)["Id"].(string))
			}
			path = ""
			if next, ok := page["@odata.nextLink"].(string); ok {
				path = strings.TrimPrefix(next, "http://example.com")
			}
		}
		if diff := cmp.Diff([]string{"b1", "b2", "b3", "b4", "b5", "b6", "b7"}, ids); diff != "" {
			t.Errorf("the pages hold (-want +got):\n%s", diff)
		}
	})
}

// TestService_TokenFetch: a HEAD with X-CSRF-Token: Fetch, which SAP clients send before a write, is 200 without a
// body and without a token wherever a write may follow; a HEAD without it is answered as GET is (405 with Allow on
// $batch and actions), and a fetch on a read-only target too.
func TestService_TokenFetch(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	f.seed()
	for _, tc := range []struct {
		path   string
		fetch  bool
		status int
		allow  string
		body   bool
	}{
		{"/odata/", true, 200, "", false},
		{"/odata/$batch", true, 200, "", false},
		{"/odata/Book", true, 200, "", false},
		{"/odata/Book('b1')", true, 200, "", false},
		{"/odata/Book('b1')/Lib.Rate", true, 200, "", false},
		{"/odata/Book/Lib.Discount", true, 200, "", false},
		{"/odata/Ping", true, 200, "", false},
		{"/odata/Member('m1')", true, 200, "", false},
		{"/odata/$batch", false, 405, "POST", true},
		{"/odata/Book('b1')/Lib.Rate", false, 405, "POST", true},
		{"/odata/Book('b1')", false, 200, "", true},
		{"/odata/", false, 200, "", true},
		// Read-only targets: the fetch is a HEAD like any other.
		{"/odata/Author('a1')", true, 200, "", true},
		{"/odata/$metadata", true, 200, "", true},
		{"/odata/$crossjoin(Book,Author)", true, 200, "", true},
	} {
		headers := []string{}
		if tc.fetch {
			headers = append(headers, "X-CSRF-Token", "Fetch")
		}
		resp := f.do("HEAD", tc.path, "", headers...)
		got := []string{fmt.Sprint(resp.Status), resp.Header.Get("Allow"), fmt.Sprint(resp.Body != ""), resp.Header.Get("X-CSRF-Token")}
		want := []string{fmt.Sprint(tc.status), tc.allow, fmt.Sprint(tc.body), ""}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("HEAD %s (fetch %t): status, Allow, body written, X-CSRF-Token (-want +got):\n%s%.200s", tc.path, tc.fetch, diff, resp.Body)
		}
	}
}

// TestService_Vary: every answer, errors, $metadata, batches, writes and token fetches included, names the
// request headers its representation depends on, once, on both databases.
func TestService_Vary(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		multipart := "--b\r\nContent-Type: application/http\r\n\r\nGET Book('b1') HTTP/1.1\r\n\r\n\r\n--b--\r\n"
		for _, tc := range []struct {
			method, path, body string
			headers            []string
			status             int
		}{
			{"GET", "/odata/", "", nil, 200},
			{"GET", "/odata/$metadata", "", nil, 200},
			{"GET", "/odata/$metadata", "", []string{"Accept", "application/json"}, 200},
			{"GET", "/odata/Book?$top=1", "", []string{"OData-MaxVersion", "4.01"}, 200},
			{"GET", "/odata/Book('b1')", "", []string{"Prefer", "omit-values=nulls"}, 200},
			{"GET", "/odata/Book/$count", "", nil, 200},
			{"GET", "/odata/Book('none')", "", nil, 404},
			{"GET", "/odata/Book?$filter=nonsense", "", nil, 400},
			{"GET", "/odata/Book", "", []string{"Accept", "text/html"}, 406},
			{"GET", "/odata/Book", "", []string{"OData-MaxVersion", "3.0"}, 406},
			{"POST", "/odata/Publisher", `{"Name":"Vary"}`, []string{"Prefer", "return=minimal"}, 204},
			{"POST", "/odata/Publisher", `{"Name":"Vary"}`, nil, 201},
			{"POST", "/odata/$batch", multipart, []string{"Content-Type", "multipart/mixed;boundary=b"}, 200},
			{"DELETE", "/odata/$batch", "", nil, 405},
			{"HEAD", "/odata/$batch", "", []string{"X-CSRF-Token", "Fetch"}, 200},
		} {
			resp := f.do(tc.method, tc.path, tc.body, tc.headers...)
			if resp.Status != tc.status {
				t.Errorf("%s %s = %d, want %d\n%.200s", tc.method, tc.path, resp.Status, tc.status, resp.Body)
			}
			if diff := cmp.Diff([]string{"Accept, OData-MaxVersion, Prefer"}, resp.Header.Values("Vary")); diff != "" {
				t.Errorf("%s %s: Vary (-want +got):\n%s", tc.method, tc.path, diff)
			}
		}
	})
}

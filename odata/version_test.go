package odata_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// TestService_VersionNegotiation: a service of MaxVersion 4.01 answers in 4.01 the requests whose
// OData-MaxVersion allows it, every other request (none, 4.0, not a version) in 4.0, errors included, and its
// CSDL XML says the version it is written in; a service of the default MaxVersion answers everything in 4.0.
func TestService_VersionNegotiation(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	f.seed()
	services := map[odata.Version]*fixture{
		odata.Version40: f,
		odata.Version401: {t: t, db: f.db,
			svc: libraryService(t, f.db, func(cfg *odata.Config) { cfg.MaxVersion = odata.Version401 })},
	}
	paths := []struct {
		path   string
		status int
	}{
		{"/odata/", 200},
		{"/odata/Book?$top=1", 200},
		{"/odata/Book('b1')", 200},
		{"/odata/Book/$count", 200},
		{"/odata/Book('b1')/Title/$value", 200},
		{"/odata/Book('none')", 404},
		{"/odata/Book?$filter=nonsense", 400},
	}
	for _, tc := range []struct {
		service    odata.Version
		maxVersion string // the request's OData-MaxVersion; "" for none
		want       string
	}{
		{odata.Version40, "", "4.0"},
		{odata.Version40, "4.0", "4.0"},
		{odata.Version40, "4.01", "4.0"},
		{odata.Version401, "", "4.0"},
		{odata.Version401, "4.0", "4.0"},
		{odata.Version401, "4.01", "4.01"},
		{odata.Version401, "4.1", "4.01"},
		{odata.Version401, "5.0", "4.01"},
		{odata.Version401, "four", "4.0"},
	} {
		f := services[tc.service]
		for _, p := range paths {
			resp := f.do("GET", p.path, "", "OData-MaxVersion", tc.maxVersion)
			if resp.Status != p.status || resp.Header.Get("OData-Version") != tc.want {
				t.Errorf("service %s, GET %s with OData-MaxVersion %q = %d OData-Version %q, want %d %s\n%s",
					tc.service, p.path, tc.maxVersion, resp.Status, resp.Header.Get("OData-Version"), p.status, tc.want, resp.Body)
			}
		}
		resp := f.must(200, "GET", "/odata/$metadata", "", "OData-MaxVersion", tc.maxVersion)
		if wantRoot := `<edmx:Edmx Version="` + tc.want + `"`; !strings.Contains(resp.Body, wantRoot) ||
			resp.Header.Get("OData-Version") != tc.want {
			t.Errorf("service %s, $metadata with OData-MaxVersion %q: OData-Version %q, document %.120s; want %s and %s",
				tc.service, tc.maxVersion, resp.Header.Get("OData-Version"), resp.Body, tc.want, wantRoot)
		}
	}
}

// TestService_BatchVersions: a multipart batch is answered in the version the request negotiates; a JSON batch,
// which exists only in OData 4.01, in 4.01, and refused (406) to a client whose OData-MaxVersion is 4.0.
func TestService_BatchVersions(t *testing.T) {
	f := newFixtureWith(t, dbtest.SQLite(t), func(cfg *odata.Config) { cfg.MaxVersion = odata.Version401 })
	f.seed()
	jsonBatch := `{"requests":[{"id":"1","method":"GET","url":"Book('b1')"}]}`
	multipart := "--b\r\nContent-Type: application/http\r\n\r\nGET Book('b1') HTTP/1.1\r\n\r\n\r\n--b--\r\n"
	for _, tc := range []struct {
		name, contentType, body, maxVersion string
		status                              int
		version                             string
	}{
		{"json", "application/json", jsonBatch, "", 200, "4.01"},
		{"json 4.01", "application/json", jsonBatch, "4.01", 200, "4.01"},
		{"json 4.0", "application/json", jsonBatch, "4.0", 406, "4.0"},
		{"multipart", "multipart/mixed;boundary=b", multipart, "", 200, "4.0"},
		{"multipart 4.01", "multipart/mixed;boundary=b", multipart, "4.01", 200, "4.01"},
	} {
		resp := f.do("POST", "/odata/$batch", tc.body, "Content-Type", tc.contentType, "OData-MaxVersion", tc.maxVersion)
		if resp.Status != tc.status || resp.Header.Get("OData-Version") != tc.version {
			t.Errorf("%s batch = %d OData-Version %q, want %d %s\n%s", tc.name, resp.Status,
				resp.Header.Get("OData-Version"), tc.status, tc.version, resp.Body)
		}
	}
}

// TestService_OmitNulls: with Prefer: omit-values=nulls (or odata.omit-values=nulls) entities leave out their
// null properties, null complex values included, in reads, expansions and the answers of writes, on both
// databases, and Preference-Applied says so in the form the client wrote, beside the other preferences applied.
func TestService_OmitNulls(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		f.exec(`INSERT INTO publisher (id, name) VALUES ('p2', 'Nobody')`)
		for _, tc := range []struct {
			name, method, path, body, prefer string
			status                           int
			want                             string // the answer without its @odata.context and ETags
			applied                          string
		}{
			{"collection", "GET", "/odata/Author?$select=Id,Email&$orderby=Id", "", "omit-values=nulls", 200,
				`{"value":[{"Id":"a1","Email":"ada@example.com"},{"Id":"a2"}]}`, "omit-values=nulls"},
			{"prefixed", "GET", "/odata/Author('a2')?$select=Id,Email", "", "odata.omit-values=nulls", 200,
				`{"Id":"a2"}`, "odata.omit-values=nulls"},
			{"not asked", "GET", "/odata/Author('a2')?$select=Id,Email", "", "", 200,
				`{"Id":"a2","Email":null}`, ""},
			{"defaults: not applied", "GET", "/odata/Author('a2')?$select=Id,Email", "", "omit-values=defaults", 200,
				`{"Id":"a2","Email":null}`, ""},
			{"complex", "GET", "/odata/Publisher('p2')?$select=Id,Address,Founded", "", "omit-values=nulls", 200,
				`{"Id":"p2"}`, "omit-values=nulls"},
			{"expanded", "GET", "/odata/Book('b2')?$select=Id&$expand=Authors($select=Id,Email;$orderby=Id)", "", "omit-values=nulls", 200,
				`{"Id":"b2","Authors":[{"Id":"a1","Email":"ada@example.com"},{"Id":"a2"}]}`, "omit-values=nulls"},
			{"with a page size", "GET", "/odata/Author?$select=Id,Email&$orderby=Id", "", "odata.maxpagesize=1, omit-values=nulls", 200,
				`{"value":[{"Id":"a1","Email":"ada@example.com"}]}`, "omit-values=nulls, odata.maxpagesize=1"},
			// The generated Id and CreatedOnUtc are left out of the comparison.
			{"created", "POST", "/odata/Publisher", `{"Name":"Cy"}`, "omit-values=nulls", 201,
				`{"Name":"Cy"}`, "omit-values=nulls"},
			{"include-annotations", "GET", "/odata/Author('a1')?$select=Id", "", `odata.include-annotations="*,-Core.Description"`, 200,
				`{"Id":"a1"}`, `odata.include-annotations="*,-Core.Description"`},
		} {
			resp := f.do(tc.method, tc.path, tc.body, "Prefer", tc.prefer)
			if resp.Status != tc.status {
				t.Errorf("%s: %s %s = %d, want %d\n%s", tc.name, tc.method, tc.path, resp.Status, tc.status, resp.Body)
				continue
			}
			got := withoutControls(decodeJSON(t, resp.Body)).(map[string]any)
			if tc.method == "POST" {
				delete(got, "Id")
				delete(got, "CreatedOnUtc")
			}
			if diff := cmp.Diff(decodeJSON(t, tc.want), got); diff != "" {
				t.Errorf("%s: %s %s (-want +got):\n%s", tc.name, tc.method, tc.path, diff)
			}
			if got := resp.Header.Get("Preference-Applied"); got != tc.applied {
				t.Errorf("%s: Preference-Applied %q, want %q", tc.name, got, tc.applied)
			}
		}
	})
}

// withoutControls removes the members naming control information (@odata.context, @odata.etag,
// @odata.nextLink, ...) from v's objects, at every depth.
func withoutControls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, m := range v {
			if strings.Contains(k, "@") {
				delete(v, k)
				continue
			}
			v[k] = withoutControls(m)
		}
	case []any:
		for i := range v {
			v[i] = withoutControls(v[i])
		}
	}
	return v
}

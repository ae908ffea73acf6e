package odata_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/openapi"
	"github.com/storekit/store/odata/openapi/openapitest"
	"github.com/storekit/store/odata/sqlite"
)

// openAPIDoc is the part of an OpenAPI document the tests read.
type openAPIDoc struct {
	Paths map[string]map[string]json.RawMessage `json:"paths"`
}

func readOpenAPI(t *testing.T, b []byte) openAPIDoc {
	t.Helper()
	var d openAPIDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("the OpenAPI document is not JSON: %v", err)
	}
	return d
}

// methods returns the methods of a path item, upper case and sorted.
func methods(item map[string]json.RawMessage) []string {
	var out []string
	for k := range item {
		if k != "parameters" {
			out = append(out, strings.ToUpper(k))
		}
	}
	sort.Strings(out)
	return out
}

// TestService_OpenAPI checks the document of the test model: served at $openapi, valid OpenAPI 3.1, equal to
// the golden file, the same on every call.
func TestService_OpenAPI(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	resp := f.must(200, "GET", "/odata/$openapi", "")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("GET $openapi: Content-Type = %q, want application/json", ct)
	}
	if err := openapitest.Validate([]byte(resp.Body)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.svc.OpenAPIDocument(), []byte(resp.Body)) {
		t.Error("OpenAPIDocument() differs from the answer of GET $openapi")
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(resp.Body), "", "  "); err != nil {
		t.Fatal(err)
	}
	indented.WriteByte('\n')
	golden := filepath.Join("testdata", "openapi.golden.json")
	if *update {
		if err := os.WriteFile(golden, indented.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), indented.String()); diff != "" {
		t.Errorf("GET $openapi differs from %s (-want +got; go test -update rewrites it):\n%s", golden, diff)
	}
	// A second service over the same model writes the same bytes.
	other := newFixture(t, dbtest.SQLite(t))
	if !bytes.Equal(other.svc.OpenAPIDocument(), f.svc.OpenAPIDocument()) {
		t.Error("two services over the same model and configuration write different documents")
	}

	for _, tc := range []struct {
		method, accept string
		status         int
	}{
		{"HEAD", "", 200},
		{"GET", "text/html", 406},
		{"POST", "", 405},
		{"DELETE", "", 405},
	} {
		if r := f.do(tc.method, "/odata/$openapi", "", "Accept", tc.accept); r.Status != tc.status {
			t.Errorf("%s $openapi (Accept %q) = %d, want %d", tc.method, tc.accept, r.Status, tc.status)
		}
	}
	f.must(400, "GET", "/odata/$openapi/x", "")
}

// keyParameter matches a path parameter of the document.
var keyParameter = regexp.MustCompile(`\{[A-Za-z0-9_]+\}`)

// TestService_OpenAPIMethods checks that every path of the document offers exactly the methods the service
// allows there: its Allow header (an OPTIONS-like probe with a method no resource takes) lists the same.
func TestService_OpenAPIMethods(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	f.seed()
	d := readOpenAPI(t, f.svc.OpenAPIDocument())
	for path, item := range d.Paths {
		concrete := keyParameter.ReplaceAllString(path, "1")
		if path == "/odata/$metadata" || path == "/odata/" {
			continue
		}
		r := f.do("TRACE", concrete, "")
		if r.Status != http.StatusMethodNotAllowed {
			t.Errorf("TRACE %s = %d, want 405 with an Allow header\n%s", concrete, r.Status, r.Body)
			continue
		}
		allow := strings.Split(r.Header.Get("Allow"), ", ")
		sort.Strings(allow)
		if diff := cmp.Diff(allow, methods(item)); diff != "" {
			t.Errorf("%s: the document's methods differ from the Allow header of %s (-allowed +documented):\n%s", path, concrete, diff)
		}
	}
	for _, want := range []string{"/odata/Cover/$count", "/odata/Book('{Id}')/Chapters('{Id_1}')",
		"/odata/Loan(BookId='{BookId}',MemberNo={MemberNo})", "/odata/Cover('{Id}')/$value",
		"/odata/Book/Lib.Discount", "/odata/Book('{Id}')/Lib.Rate", "/odata/Ping", "/odata/Member('{Email}')/Cards/$count"} {
		if d.Paths[want] == nil {
			t.Errorf("the document has no path %s", want)
		}
	}
}

// TestService_OpenAPIWalk calls every GET operation of the document on a seeded service: each answers one of
// its documented success statuses.
func TestService_OpenAPIWalk(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		png := []byte("\x89PNG\r\n\x1a\n")
		f.must(201, "POST", "/odata/Cover", `{"BookId":"b1","MimeType":"image/png","Data":"`+base64.StdEncoding.EncodeToString(png)+`"}`)
		walkOpenAPI(t, f)
	})
}

// walkOpenAPI calls every GET operation of the fixture's OpenAPI document (at least 30) and checks that each
// answers one of its documented success statuses.
func walkOpenAPI(t *testing.T, f *fixture) {
	t.Helper()
	get := func(path string) (int, []byte, error) {
		r := f.do("GET", path, "")
		return r.Status, []byte(r.Body), nil
	}
	results, err := openapitest.Walk(f.svc.OpenAPIDocument(), get, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) < 30 {
		t.Errorf("Walk called %d GET operations, want at least 30", len(results))
	}
	for _, r := range results {
		if !r.OK() {
			t.Errorf("GET %s (%s) = %d, want one of %v\n%s", r.Path, r.Template, r.Status, r.Want, r.Body)
		}
	}
}

// TestService_OpenAPIConfig checks that NewService passes Config.OpenAPI and the batch limit to the document and
// reports each mistake of Config.OpenAPI (odata/openapi tests the document's options and their checks in full).
func TestService_OpenAPIConfig(t *testing.T) {
	m := &edm.Model{Namespace: "Shop", EntityTypes: []*edm.EntityType{{Name: "Item", Key: []string{"Id"},
		Properties: []*edm.Property{{Name: "Id", Type: edm.KindInt32}}}},
		EntitySets: []*edm.EntitySet{{Name: "Items", Type: "Item"}}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	db := dbtest.SQLite(t)
	for _, tc := range []struct {
		batchRequests int
		want          string
	}{
		{0, "a multipart/mixed batch of at most 100 requests;"},
		{7, "a multipart/mixed batch of at most 7 requests;"},
		{-1, "a multipart/mixed batch of requests;"},
	} {
		svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Mount: "/api",
			OpenAPI: openapi.Options{Title: "Shop API"}, Limits: odata.Limits{BatchRequests: tc.batchRequests},
			SkipSchemaCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Info  map[string]string `json:"info"`
			Paths map[string]struct {
				Post struct {
					Description string `json:"description"`
				} `json:"post"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(svc.OpenAPIDocument(), &got); err != nil {
			t.Fatal(err)
		}
		if got.Info["title"] != "Shop API" {
			t.Errorf("info.title = %q, want Shop API", got.Info["title"])
		}
		if d := got.Paths["/api/$batch"].Post.Description; !strings.Contains(d, tc.want) {
			t.Errorf("Limits.BatchRequests %d: POST $batch description = %q, want %q in it", tc.batchRequests, d, tc.want)
		}
	}

	_, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Mount: "/api",
		OpenAPI: openapi.Options{Operations: []openapi.Operation{{Method: "FETCH", Path: "x"}},
			Schemas: map[string]openapi.Schema{"Shop.Item": {}}}, SkipSchemaCheck: true})
	for _, want := range []string{
		`odata: OpenAPI: Operations[0] (FETCH x): unknown method "FETCH"`,
		"odata: OpenAPI: Operations[0] (FETCH x): the path must start with /",
		`odata: OpenAPI: Schemas["Shop.Item"]: the name is taken by a type of the model`,
	} {
		if err == nil || !strings.Contains(err.Error()+"\n", want+"\n") {
			t.Errorf("NewService with a wrong Config.OpenAPI = %v, want a line %s", err, want)
		}
	}
}

// ExampleService_OpenAPIDocument serves a model's OpenAPI document and adds a sign-in endpoint of the program.
func ExampleService_OpenAPIDocument() {
	m := &edm.Model{Namespace: "Shop", EntityTypes: []*edm.EntityType{{Name: "Item", Key: []string{"Id"},
		Properties: []*edm.Property{{Name: "Id", Type: edm.KindString, ReadOnly: true}}}},
		EntitySets:     []*edm.EntitySet{{Name: "Items", Type: "Item"}},
		Authorizations: []edm.Authorization{{Name: "Bearer", Scheme: "bearer"}}}
	if err := m.Build(); err != nil {
		panic(err)
	}
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(filepath.Join(dir, "shop.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	svc, err := odata.NewService(odata.Config{Model: m, DB: db, Mount: "/odata",
		Sets:            map[string]odata.SetOptions{"Items": {Writes: odata.WriteAll}},
		SkipSchemaCheck: true, // the example serves the document only: the database has no tables
		OpenAPI: openapi.Options{Title: "Shop", Version: "1.0", Operations: []openapi.Operation{{
			Method: "POST", Path: "/login", Summary: "Sign in", Security: []openapi.SecurityRequirement{},
			Responses: []openapi.Response{{Status: "200", Schema: openapi.Schema{"type": "string"}}}}}}})
	if err != nil {
		panic(err)
	}
	w := httptest.NewRecorder()
	svc.ServeHTTP(w, httptest.NewRequest("GET", "/odata/$openapi", nil))
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		panic(err)
	}
	var paths []string
	for p, item := range doc.Paths {
		paths = append(paths, p+" "+strings.Join(methods(item), ","))
	}
	sort.Strings(paths)
	for _, p := range paths {
		os.Stdout.WriteString(p + "\n")
	}
	// Output:
	// /login POST
	// /odata/ GET
	// /odata/$batch POST
	// /odata/$metadata GET
	// /odata/Items GET,POST
	// /odata/Items('{Id}') DELETE,GET,PATCH,PUT
	// /odata/Items/$count GET
}

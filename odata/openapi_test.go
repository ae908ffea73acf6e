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
	"github.com/storekit/store/odata/openapitest"
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

// TestService_OpenAPIConfig checks the embedding program's part of the document: title, version, extra
// operations with their security, roles on the OData operations; and the mistakes NewService reports.
func TestService_OpenAPIConfig(t *testing.T) {
	m := &edm.Model{Namespace: "Shop", EntityTypes: []*edm.EntityType{{Name: "Item", Key: []string{"Id"},
		Properties: []*edm.Property{{Name: "Id", Type: edm.KindInt32}, {Name: "Name", Type: edm.KindString, Nullable: true}}}},
		EntitySets:     []*edm.EntitySet{{Name: "Items", Type: "Item"}},
		Authorizations: []edm.Authorization{{Name: "Token", Scheme: "bearer", BearerFormat: "opaque"}}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	db := dbtest.SQLite(t)
	cfg := odata.OpenAPI{Title: "Shop API", Version: "2.1", Description: "The shop.",
		Security: []odata.SecurityRequirement{{"Token": {"Admins"}}},
		Tags:     []odata.OpenAPITag{{Name: "Auth", Description: "Sign-in."}},
		Schemas:  map[string]odata.Schema{"Credentials": {"type": "object"}},
		Operations: []odata.OpenAPIOperation{{Method: "POST", Path: "/login", OperationID: "login", Tags: []string{"Auth"},
			Summary: "Sign in", RequestBody: &odata.OpenAPIRequestBody{Required: true,
				Content: map[string]odata.Schema{"application/json": odata.OpenAPIRef("Credentials")}},
			Responses: []odata.OpenAPIResponse{{Status: "200", Schema: odata.Schema{"type": "string"}},
				{Status: "400", Description: "Wrong credentials."}},
			Security: []odata.SecurityRequirement{}}},
	}
	svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Mount: "/api", OpenAPI: cfg,
		SkipSchemaCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	doc := svc.OpenAPIDocument()
	if err := openapitest.Validate(doc); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Info     map[string]string                     `json:"info"`
		Security []map[string][]string                 `json:"security"`
		Tags     []map[string]string                   `json:"tags"`
		Paths    map[string]map[string]json.RawMessage `json:"paths"`
		Comp     struct {
			Schemas         map[string]any `json:"schemas"`
			SecuritySchemes map[string]any `json:"securitySchemes"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"title": "Shop API", "version": "2.1", "description": "The shop."}, got.Info); diff != "" {
		t.Errorf("info (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]map[string][]string{{"Token": {}}}, got.Security); diff != "" {
		t.Errorf("security (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"Token": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "opaque"}},
		got.Comp.SecuritySchemes); diff != "" {
		t.Errorf("securitySchemes (-want +got):\n%s", diff)
	}
	if got.Comp.Schemas["Credentials"] == nil || got.Comp.Schemas["Shop.Item"] == nil {
		t.Errorf("schemas lack Credentials or Shop.Item: %v", got.Comp.Schemas)
	}
	var names []string
	for _, tag := range got.Tags {
		names = append(names, tag["name"])
	}
	if diff := cmp.Diff([]string{"Auth", "Items", "OData service"}, names); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	var login struct {
		Security  []map[string][]string `json:"security"`
		Responses map[string]struct {
			Content map[string]struct{ Schema map[string]string }
		} `json:"responses"`
	}
	if err := json.Unmarshal(got.Paths["/login"]["post"], &login); err != nil {
		t.Fatal(err)
	}
	if login.Security == nil || len(login.Security) != 0 {
		t.Errorf("POST /login security = %v, want [] (no credentials)", login.Security)
	}
	if ref := login.Responses["400"].Content["application/json"].Schema["$ref"]; ref != "#/components/schemas/error" {
		t.Errorf("POST /login 400 schema = %q, want the error body", ref)
	}
	var list struct {
		Description string                `json:"description"`
		Security    []map[string][]string `json:"security"`
	}
	if err := json.Unmarshal(got.Paths["/api/Items"]["get"], &list); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]map[string][]string{{"Token": {"Admins"}}}, list.Security); diff != "" {
		t.Errorf("GET /api/Items security (-want +got):\n%s", diff)
	}
	if want := "Requires Token credentials with the role Admins."; list.Description != want {
		t.Errorf("GET /api/Items description = %q, want %q", list.Description, want)
	}
	if got.Paths["/api/Items(Id={Id})"] != nil || got.Paths["/api/Items({Id})"] == nil {
		t.Errorf("an Int32 key is written ({Id}): %v", methods(got.Paths["/api/Items({Id})"]))
	}
	if ms := methods(got.Paths["/api/Items({Id})"]); !cmp.Equal(ms, []string{"GET"}) {
		t.Errorf("a read-only set offers %v, want [GET]", ms)
	}

	for _, tc := range []struct {
		name string
		cfg  odata.OpenAPI
		want string
	}{
		{"method", odata.OpenAPI{Operations: []odata.OpenAPIOperation{{Method: "FETCH", Path: "/x"}}}, `unknown method "FETCH"`},
		{"path", odata.OpenAPI{Operations: []odata.OpenAPIOperation{{Method: "GET", Path: "x"}}}, "must start with /"},
		{"twice", odata.OpenAPI{Operations: []odata.OpenAPIOperation{{Method: "GET", Path: "/x"}, {Method: "get", Path: "/x"}}}, "a second operation"},
		{"id", odata.OpenAPI{Operations: []odata.OpenAPIOperation{{Method: "GET", Path: "/x", OperationID: "a"}, {Method: "GET", Path: "/y", OperationID: "a"}}}, `"a" is used twice`},
		{"in", odata.OpenAPI{Operations: []odata.OpenAPIOperation{{Method: "GET", Path: "/x", Parameters: []odata.OpenAPIParameter{{Name: "p", In: "body"}}}}}, "In must be"},
		{"scheme", odata.OpenAPI{Security: []odata.SecurityRequirement{{"Basic": nil}}}, `"Basic" is not one of`},
		{"schema", odata.OpenAPI{Schemas: map[string]odata.Schema{"Shop.Item": {}}}, "taken by a type"},
		{"odata path", odata.OpenAPI{Operations: []odata.OpenAPIOperation{{Method: "GET", Path: "/api/Items"}}}, "an operation of the OData service"},
	} {
		_, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Mount: "/api", OpenAPI: tc.cfg,
			SkipSchemaCheck: true})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewService with OpenAPI %s = %v, want an error about %s", tc.name, err, tc.want)
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
		OpenAPI: odata.OpenAPI{Title: "Shop", Version: "1.0", Operations: []odata.OpenAPIOperation{{
			Method: "POST", Path: "/login", Summary: "Sign in", Security: []odata.SecurityRequirement{},
			Responses: []odata.OpenAPIResponse{{Status: "200", Schema: odata.Schema{"type": "string"}}}}}}})
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

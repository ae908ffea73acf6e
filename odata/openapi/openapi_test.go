package openapi_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/openapi"
	"github.com/storekit/store/odata/openapi/openapitest"
)

// shopModel is a built model of one entity set Items and one singleton Shop, with a bearer scheme.
func shopModel(t testing.TB) *edm.Model {
	t.Helper()
	m := &edm.Model{Namespace: "Shop", EntityTypes: []*edm.EntityType{{Name: "Item", Key: []string{"Id"},
		Properties: []*edm.Property{{Name: "Id", Type: edm.KindInt32}, {Name: "Name", Type: edm.KindString, Nullable: true}}}},
		EntitySets:     []*edm.EntitySet{{Name: "Items", Type: "Item"}},
		Singletons:     []*edm.Singleton{{Name: "Shop", Type: "Item"}},
		Authorizations: []edm.Authorization{{Name: "Token", Scheme: "bearer", BearerFormat: "opaque"}}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	return m
}

// pathMethods returns the methods of a path item, upper case and sorted.
func pathMethods(item map[string]json.RawMessage) []string {
	var out []string
	for k := range item {
		if k != "parameters" {
			out = append(out, strings.ToUpper(k))
		}
	}
	sort.Strings(out)
	return out
}

// TestBuild_Options checks the program's part of the document: title, version, extra operations with their
// security, roles on the OData operations.
func TestBuild_Options(t *testing.T) {
	m := shopModel(t)
	options := openapi.Options{Title: "Shop API", Version: "2.1", Description: "The shop.",
		Security: []openapi.SecurityRequirement{{"Token": {"Admins"}}},
		Tags:     []openapi.Tag{{Name: "Auth", Description: "Sign-in."}},
		Schemas:  map[string]openapi.Schema{"Credentials": {"type": "object"}},
		Operations: []openapi.Operation{{Method: "POST", Path: "/login", OperationID: "login", Tags: []string{"Auth"},
			Summary: "Sign in", RequestBody: &openapi.RequestBody{Required: true,
				Content: map[string]openapi.Schema{"application/json": openapi.Ref("Credentials")}},
			Responses: []openapi.Response{{Status: "200", Schema: openapi.Schema{"type": "string"}},
				{Status: "400", Description: "Wrong credentials."}},
			Security: []openapi.SecurityRequirement{}}},
	}
	doc, err := openapi.Build(openapi.Service{Model: m, Mount: "/api"}, options)
	if err != nil {
		t.Fatal(err)
	}
	if err := openapitest.Validate(doc); err != nil {
		t.Fatal(err)
	}
	again, err := openapi.Build(openapi.Service{Model: m, Mount: "/api"}, options)
	if err != nil || string(again) != string(doc) {
		t.Errorf("Build twice = different documents (%v)", err)
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
	if diff := cmp.Diff([]string{"Auth", "Items", "Shop", "OData service"}, names); diff != "" {
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
		t.Errorf("an Int32 key is written ({Id}): %v", pathMethods(got.Paths["/api/Items({Id})"]))
	}
	if ms := pathMethods(got.Paths["/api/Items({Id})"]); !cmp.Equal(ms, []string{"GET"}) {
		t.Errorf("a read-only set offers %v, want [GET]", ms)
	}
}

// TestBuild_Service checks that the document offers what the Service says the sets and singletons allow, and
// states its delete status and batch limit.
func TestBuild_Service(t *testing.T) {
	m := shopModel(t)
	tests := []struct {
		name string
		svc  openapi.Service
		want map[string][]string // path -> methods; a nil value: the path is absent
		// operation is "<path> <method>" of an operation whose JSON must contain each of contains.
		operation string
		contains  []string
	}{
		{name: "read-only", svc: openapi.Service{Model: m, Mount: "/odata"},
			want: map[string][]string{"/odata/Items": {"GET"}, "/odata/Items({Id})": {"GET"}, "/odata/Items/$count": {"GET"},
				"/odata/Shop": {"GET"}},
			operation: "/odata/$batch post", contains: []string{"a multipart/mixed batch of requests;"}},
		{name: "writes", svc: openapi.Service{Model: m, Mount: "/odata", DeleteStatus: 200, BatchRequests: 7,
			Sets:       map[string]openapi.Set{"Items": {Post: true, Put: true, Patch: true, Delete: true, NoCount: true}},
			Singletons: map[string]openapi.Set{"Shop": {Patch: true}}},
			want: map[string][]string{"/odata/Items": {"GET", "POST"}, "/odata/Items({Id})": {"DELETE", "GET", "PATCH", "PUT"},
				"/odata/Items/$count": nil, "/odata/Shop": {"GET", "PATCH"}},
			operation: "/odata/$batch post", contains: []string{"a multipart/mixed batch of at most 7 requests;"}},
		{name: "delete status", svc: openapi.Service{Model: m, Sets: map[string]openapi.Set{"Items": {Delete: true}}},
			want: map[string][]string{"/Items({Id})": {"DELETE", "GET"}}, operation: "/Items({Id}) delete",
			contains: []string{`"204":{"description":"Deleted; the body is empty."}`}},
		{name: "upsert", svc: openapi.Service{Model: m, Sets: map[string]openapi.Set{"Items": {Post: true,
			UpsertBy: m.EntityTypes[0].Properties[1]}}},
			want: map[string][]string{"/Items": {"GET", "POST"}}, operation: "/Items post",
			contains: []string{"A body whose Name names an existing entity replaces it in full (200).", `"200":`}},
		{name: "no query options", svc: openapi.Service{Model: m, Sets: map[string]openapi.Set{"Items": {NoFilter: true,
			NoOrderBy: true, NoSelect: true, NoExpand: true}}}, operation: "/Items get",
			contains: []string{`"parameters":[{"$ref":"#/components/parameters/top"},{"$ref":"#/components/parameters/skip"},{"$ref":"#/components/parameters/count"}]`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := openapi.Build(tc.svc, openapi.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := openapitest.Validate(doc); err != nil {
				t.Fatal(err)
			}
			var got struct {
				Paths map[string]map[string]json.RawMessage `json:"paths"`
			}
			if err := json.Unmarshal(doc, &got); err != nil {
				t.Fatal(err)
			}
			for path, want := range tc.want {
				item, ok := got.Paths[path]
				if want == nil {
					if ok {
						t.Errorf("the document has %s, want none", path)
					}
					continue
				}
				if diff := cmp.Diff(want, pathMethods(item)); diff != "" {
					t.Errorf("%s: methods (-want +got):\n%s", path, diff)
				}
			}
			path, method, _ := strings.Cut(tc.operation, " ")
			op := string(got.Paths[path][method])
			for _, want := range tc.contains {
				if !strings.Contains(op, want) {
					t.Errorf("%s %s = %s, want it to contain %s", method, path, op, want)
				}
			}
		})
	}
}

// TestBuild_Mistakes checks that Build reports each mistake of the options, naming the field.
func TestBuild_Mistakes(t *testing.T) {
	m := shopModel(t)
	tests := []struct {
		name    string
		options openapi.Options
		want    string
	}{
		{"method", openapi.Options{Operations: []openapi.Operation{{Method: "FETCH", Path: "/x"}}},
			`Operations[0] (FETCH /x): unknown method "FETCH"`},
		{"path", openapi.Options{Operations: []openapi.Operation{{Method: "GET", Path: "x"}}},
			"Operations[0] (GET x): the path must start with /"},
		{"twice", openapi.Options{Operations: []openapi.Operation{{Method: "GET", Path: "/x"}, {Method: "get", Path: "/x"}}},
			"Operations[1] (get /x): a second operation on the same method and path\n" +
				"Operations: get /x is an operation of the OData service"},
		{"id", openapi.Options{Operations: []openapi.Operation{{Method: "GET", Path: "/x", OperationID: "a"},
			{Method: "GET", Path: "/y", OperationID: "a"}}}, `Operations[1] (GET /y): the operation id "a" is used twice`},
		{"in", openapi.Options{Operations: []openapi.Operation{{Method: "GET", Path: "/x",
			Parameters: []openapi.Parameter{{Name: "p", In: "body"}}}}},
			`Operations[0] (GET /x): parameter "p": In must be path, query or header`},
		{"scheme", openapi.Options{Security: []openapi.SecurityRequirement{{"Basic": nil}}},
			`Security: the security scheme "Basic" is not one of the model's Authorizations`},
		{"schema", openapi.Options{Schemas: map[string]openapi.Schema{"Shop.Item": {}}},
			`Schemas["Shop.Item"]: the name is taken by a type of the model`},
		{"odata path", openapi.Options{Operations: []openapi.Operation{{Method: "GET", Path: "/api/Items"}}},
			"Operations: GET /api/Items is an operation of the OData service"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := openapi.Build(openapi.Service{Model: m, Mount: "/api"}, tc.options)
			if err == nil || err.Error() != tc.want {
				t.Errorf("Build(%s) error = %v, want %s", tc.name, err, tc.want)
			}
			if len(doc) == 0 {
				t.Errorf("Build(%s) wrote no document", tc.name)
			}
		})
	}
	_, err := openapi.Build(openapi.Service{Model: m}, openapi.Options{Operations: []openapi.Operation{
		{Method: "FETCH", Path: "x"}}})
	want := "Operations[0] (FETCH x): unknown method \"FETCH\"\nOperations[0] (FETCH x): the path must start with /"
	if err == nil || err.Error() != want {
		t.Errorf("Build with two mistakes = %v, want both:\n%s", err, want)
	}
}

// ExampleBuild writes the document of a model with one writable entity set, and adds a sign-in endpoint of the
// program.
func ExampleBuild() {
	m := &edm.Model{Namespace: "Shop", EntityTypes: []*edm.EntityType{{Name: "Item", Key: []string{"Id"},
		Properties: []*edm.Property{{Name: "Id", Type: edm.KindString, ReadOnly: true}}}},
		EntitySets:     []*edm.EntitySet{{Name: "Items", Type: "Item"}},
		Authorizations: []edm.Authorization{{Name: "Bearer", Scheme: "bearer"}}}
	if err := m.Build(); err != nil {
		panic(err)
	}
	doc, err := openapi.Build(openapi.Service{Model: m, Mount: "/odata",
		Sets: map[string]openapi.Set{"Items": {Post: true, Put: true, Patch: true, Delete: true}}},
		openapi.Options{Title: "Shop", Version: "1.0", Operations: []openapi.Operation{{
			Method: "POST", Path: "/login", Summary: "Sign in", Security: []openapi.SecurityRequirement{},
			Responses: []openapi.Response{{Status: "200", Schema: openapi.Schema{"type": "string"}}}}}})
	if err != nil {
		panic(err)
	}
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		panic(err)
	}
	var paths []string
	for p, item := range d.Paths {
		paths = append(paths, p+" "+strings.Join(pathMethods(item), ","))
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Println(p)
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

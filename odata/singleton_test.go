package odata_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/openapi/openapitest"
)

// singletonModel has two singletons of the one-row table shop: Shop (written with PUT and PATCH; its hook
// counts the writes in Version) and Notice (read-only).
func singletonModel() *edm.Model {
	return &edm.Model{Namespace: "Site", EntityTypes: []*edm.EntityType{
		{Name: "Shop", Key: []string{"Id"}, ETag: []string{"Version"}, Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindInt32},
			{Name: "Name", Type: edm.KindString, MaxLength: 50, Required: true},
			{Name: "Motto", Type: edm.KindString, Nullable: true},
			{Name: "Version", Type: edm.KindInt32, ReadOnly: true},
		}},
	}, Singletons: []*edm.Singleton{{Name: "Shop", Type: "Shop"}, {Name: "Notice", Type: "Shop"}}}
}

func newSingletonService(t *testing.T, db *dbtest.DB) *fixture {
	t.Helper()
	m := createSchema(t, db, singletonModel(), `INSERT INTO shop (id, name, motto, version) VALUES (1, 'Corner', 'Fresh', 1)`)
	svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Logger: discardLogger(),
		Singletons: map[string]odata.SingletonOptions{"Shop": {Writes: odata.WritePut | odata.WritePatch,
			Hooks: odata.Hooks{BeforeSave: func(_ context.Context, _ *odata.Tx, c *odata.Change) error {
				if c.Singleton == nil || c.Singleton.Name != "Shop" || c.Set != nil {
					return odata.Forbidden("the hook did not see the singleton")
				}
				c.New["Version"] = c.Old["Version"].(int64) + 1
				return nil
			}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, db: db, svc: svc}
}

// TestService_SingletonWrites updates a singleton with PATCH and PUT on both databases: the answer is the
// singleton as stored with its context URL and ETag, hooks run with Change.Singleton, If-Match is checked, the
// key and read-only properties keep their values; a read-only singleton and the methods a singleton never
// takes answer 405 with Allow.
func TestService_SingletonWrites(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newSingletonService(t, db)
		etag := f.must(200, "GET", "/Shop", "").Header.Get("ETag")
		resp := f.must(200, "PATCH", "/Shop", `{"Motto":"Open late","Id":9,"Version":50}`, "If-Match", etag)
		var got map[string]any
		if err := json.Unmarshal([]byte(resp.Body), &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"@odata.context": "http://example.com/$metadata#Shop", "@odata.etag": resp.Header.Get("ETag"),
			"Id": 1.0, "Name": "Corner", "Motto": "Open late", "Version": 2.0}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("PATCH /Shop (-want +got):\n%s", diff)
		}
		if f.do("PATCH", "/Shop", `{"Motto":"x"}`, "If-Match", etag).Status != 412 {
			t.Errorf("PATCH /Shop with a stale If-Match is not 412")
		}
		resp = f.must(200, "PUT", "/Shop", `{"Name":"Corner Shop"}`)
		if !strings.Contains(resp.Body, `"Name":"Corner Shop","Motto":null,"Version":3`) {
			t.Errorf("PUT /Shop = %s, want Motto back to null and Version 3", resp.Body)
		}
		if resp := f.do("PATCH", "/Shop", `{"Name":null}`); resp.Status != 400 || !strings.Contains(resp.Body, `"target":"Name"`) {
			t.Errorf("PATCH /Shop with Name null = %d %s, want 400 naming Name", resp.Status, resp.Body)
		}
		for _, tc := range []struct{ method, path, allow string }{
			{"PATCH", "/Notice", "GET"},
			{"POST", "/Shop", "GET, PUT, PATCH"},
			{"DELETE", "/Shop", "GET, PUT, PATCH"},
		} {
			resp := f.do(tc.method, tc.path, `{"Motto":"x"}`)
			if resp.Status != 405 || resp.Header.Get("Allow") != tc.allow {
				t.Errorf("%s %s = %d Allow %q, want 405 Allow %q", tc.method, tc.path, resp.Status, resp.Header.Get("Allow"), tc.allow)
			}
		}
		if got := f.must(200, "GET", "/Notice/Name", "").Body; !strings.Contains(got, `"value":"Corner Shop"`) {
			t.Errorf("GET /Notice/Name = %s, want the stored name", got)
		}
		_, paths := validOpenAPI(t, f)
		if paths["/Shop"]["patch"] == nil || paths["/Shop"]["put"] == nil || paths["/Notice"]["patch"] != nil {
			t.Errorf("OpenAPI paths /Shop and /Notice = %v and %v, want PUT and PATCH on Shop only", paths["/Shop"], paths["/Notice"])
		}
	})
}

// TestService_SingletonEmptyTable answers 404 to a write of a singleton whose table has no row.
func TestService_SingletonEmptyTable(t *testing.T) {
	db := dbtest.SQLite(t)
	f := newSingletonService(t, db)
	f.exec(`DELETE FROM shop`)
	if resp := f.do("PATCH", "/Shop", `{"Motto":"x"}`); resp.Status != 404 {
		t.Errorf("PATCH /Shop on an empty table = %d %s, want 404", resp.Status, resp.Body)
	}
}

// TestNewService_SingletonOptions reports an unknown singleton and writes a singleton cannot take.
func TestNewService_SingletonOptions(t *testing.T) {
	db := dbtest.SQLite(t)
	m := createSchema(t, db, singletonModel())
	_, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Singletons: map[string]odata.SingletonOptions{
		"Nope": {Writes: odata.WritePatch}, "Shop": {Writes: odata.WriteAll}}})
	for _, want := range []string{`Singletons["Nope"]: the model has no singleton "Nope"`,
		`Singletons["Shop"]: a singleton takes PUT and PATCH only`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewService = %v, want an error with %s", err, want)
		}
	}
}

// validOpenAPI returns the service's OpenAPI document, valid by the OpenAPI 3.1 schema, and its paths with their
// operations by method.
func validOpenAPI(t *testing.T, f *fixture) ([]byte, map[string]map[string]any) {
	t.Helper()
	doc := f.svc.OpenAPIDocument()
	if err := openapitest.Validate(doc); err != nil {
		t.Fatal(err)
	}
	var d struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	return doc, d.Paths
}

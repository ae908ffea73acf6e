package odata_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/syntax"
)

// TestService_SchemaVersion: a service with Config.SchemaVersion advertises it in $metadata (CSDL XML and JSON)
// and serves the requests that name it or "*" in $schemaversion, on $metadata and on every other resource, and
// answers 404 to any other version; a service without one advertises none and serves only "*". A malformed
// $schemaversion is the client's syntax error (400).
func TestService_SchemaVersion(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		unversioned := newFixture(t, db)
		unversioned.seed()
		versioned := &fixture{t: t, db: unversioned.db,
			svc: libraryService(t, unversioned.db, func(cfg *odata.Config) { cfg.SchemaVersion = "2.1" })}
		services := map[string]*fixture{"2.1": versioned, "": unversioned}
		paths := []string{
			"/odata/$metadata",
			"/odata/$metadata?$format=json",
			"/odata/",
			"/odata/Book?$top=1",
			"/odata/Book('b1')",
			"/odata/Book/$count",
			"/odata/Book('b1')/Title/$value",
			"/odata/Book('b1')/Publisher",
			"/odata/$crossjoin(Book,Author)?$top=1",
		}
		for _, tc := range []struct {
			service string // Config.SchemaVersion
			query   string // the $schemaversion option, as spelt
			status  int    // the status of every path
			code    string // the error code when the status is an error
		}{
			{"2.1", "", 200, ""},
			{"2.1", "$schemaversion=2.1", 200, ""},
			{"2.1", "$schemaversion=*", 200, ""},
			{"2.1", "schemaversion=2.1", 200, ""},
			{"2.1", "%24SchemaVersion=%2A", 200, ""},
			{"2.1", "$schemaversion=2.0", 404, odata.CodeNotFound},
			{"2.1", "$schemaversion=__nonexistent_schema_version__", 404, odata.CodeNotFound},
			{"2.1", "$schemaversion=", 400, syntax.CodeSyntax},
			{"2.1", "$schemaversion=2.1&$schemaversion=2.1", 400, syntax.CodeSyntax},
			{"", "", 200, ""},
			{"", "$schemaversion=*", 200, ""},
			{"", "$schemaversion=2.1", 404, odata.CodeNotFound},
			{"", "$schemaversion=a%20b", 400, syntax.CodeSyntax},
		} {
			f := services[tc.service]
			for _, path := range paths {
				target := path
				if tc.query != "" {
					target += map[bool]string{true: "&", false: "?"}[strings.Contains(path, "?")] + tc.query
				}
				resp := f.do("GET", target, "")
				got := struct {
					Status int
					Code   string
				}{resp.Status, errorCode(resp.Body, resp.Status)}
				want := struct {
					Status int
					Code   string
				}{tc.status, tc.code}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("service version %q, GET %s (-want +got):\n%s%s", tc.service, target, diff, resp.Body)
				}
			}
		}
		// Writes and actions are checked as reads are.
		versioned.must(404, "POST", "/odata/Ping?$schemaversion=1", "")
		versioned.must(200, "POST", "/odata/Ping?$schemaversion=2.1", "")
		unversioned.must(404, "PATCH", "/odata/Book('b1')?$schemaversion=2.1", `{"Title":"T"}`, "Content-Type", "application/json")
	})
}

// errorCode returns the code of an OData error body, "" for a success.
func errorCode(body string, status int) string {
	if status < 400 {
		return ""
	}
	var e struct {
		Error struct{ Code string }
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		return "not an error body: " + err.Error()
	}
	return e.Error.Code
}

// TestService_SchemaVersionMetadata: the Core.SchemaVersion annotation of the schema, in CSDL XML (an Annotation
// element first in the Schema element) and CSDL JSON (a member of the schema object), only with a version; the
// term is written by the alias Core, which the reference of the Core vocabulary declares.
func TestService_SchemaVersionMetadata(t *testing.T) {
	db := dbtest.SQLite(t)
	unversioned := newFixture(t, db)
	versioned := &fixture{t: t, db: db,
		svc: libraryService(t, db, func(cfg *odata.Config) { cfg.SchemaVersion = "2.1" })}
	for _, tc := range []struct {
		name string
		f    *fixture
		xml  bool // whether the XML document has the annotation
		json any  // the schema's member "@Core.SchemaVersion"
	}{
		{"versioned", versioned, true, "2.1"},
		{"unversioned", unversioned, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xmlDoc := tc.f.must(200, "GET", "/odata/$metadata", "").Body
			const element = `<Schema Namespace="Lib" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <Annotation Term="Core.SchemaVersion" String="2.1"/>`
			if got := strings.Contains(xmlDoc, element); got != tc.xml {
				t.Errorf("CSDL XML has the annotation first in the schema: %v, want %v\n%s", got, tc.xml, xmlDoc)
			}
			if !strings.Contains(xmlDoc, `<edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/>`) {
				t.Errorf("CSDL XML does not declare the alias Core:\n%s", xmlDoc)
			}
			var doc struct {
				Lib       map[string]any
				Reference map[string]struct {
					Include []map[string]string `json:"$Include"`
				} `json:"$Reference"`
			}
			body := tc.f.must(200, "GET", "/odata/$metadata?$format=json", "").Body
			if err := json.Unmarshal([]byte(body), &doc); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.json, doc.Lib["@Core.SchemaVersion"]); diff != "" {
				t.Errorf("CSDL JSON schema annotation (-want +got):\n%s", diff)
			}
			core := doc.Reference["https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.json"]
			want := []map[string]string{{"$Namespace": "Org.OData.Core.V1", "$Alias": "Core"}}
			if diff := cmp.Diff(want, core.Include); diff != "" {
				t.Errorf("CSDL JSON reference of the Core vocabulary (-want +got):\n%s", diff)
			}
		})
	}
}

// TestService_SchemaVersionBatch: a request of a batch is checked with its own $schemaversion; one without
// inherits the batch's, which is checked with the batch request.
func TestService_SchemaVersionBatch(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixtureWith(t, db, func(cfg *odata.Config) { cfg.SchemaVersion = "2.1" })
		f.seed()
		body := `{"requests":[{"id":"1","method":"GET","url":"Book('b1')?$schemaversion=2.1"},` +
			`{"id":"2","method":"GET","url":"Book('b1')?$schemaversion=3"},{"id":"3","method":"GET","url":"Book('b1')"}]}`
		for _, tc := range []struct {
			batchQuery string
			status     int
			statuses   []int
		}{
			{"", 200, []int{200, 404, 200}},
			{"?$schemaversion=2.1", 200, []int{200, 404, 200}},
			{"?$schemaversion=*", 200, []int{200, 404, 200}},
			{"?$schemaversion=3", 404, nil},
		} {
			resp := f.do("POST", "/odata/$batch"+tc.batchQuery, body, "Content-Type", "application/json",
				"Prefer", "odata.continue-on-error")
			var answer struct{ Responses []struct{ Status int } }
			if resp.Status == 200 {
				if err := json.Unmarshal([]byte(resp.Body), &answer); err != nil {
					t.Fatalf("%s: %v\n%s", tc.batchQuery, err, resp.Body)
				}
			}
			var statuses []int
			for _, r := range answer.Responses {
				statuses = append(statuses, r.Status)
			}
			if diff := cmp.Diff(tc.statuses, statuses); resp.Status != tc.status || diff != "" {
				t.Errorf("batch%s = %d, want %d; statuses (-want +got):\n%s%s", tc.batchQuery, resp.Status, tc.status, diff, resp.Body)
			}
		}
	})
}

package odata_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// TestService_MethodNotAllowedNamesWrites: a write a set or singleton does not offer is a 405 with Allow (SPEC
// part 8) whose message names the Writes bit that would offer it, so a developer who left a set out of
// Config.Sets finds the setting; methods no setting offers keep the plain message.
func TestService_MethodNotAllowedNamesWrites(t *testing.T) {
	db := dbtest.SQLite(t)
	library := newFixture(t, db)
	singletons := newSingletonService(t, dbtest.SQLite(t))
	const readOnly = "(a set not listed there has Config.Writes, none by default: read-only)."
	for _, tc := range []struct {
		name          string
		f             *fixture
		method, path  string
		allow, wantMs string
	}{
		{"POST to a set not listed", library, "POST", "/odata/Author", "GET",
			`The method POST is not allowed on this resource; allowed: GET. The entity set Author does not offer POST: odata.Config.Sets["Author"] has no SetOptions.Writes with WritePost ` + readOnly},
		{"PATCH of an entity of a set not listed", library, "PATCH", "/odata/Author('a1')", "GET",
			`The method PATCH is not allowed on this resource; allowed: GET. The entity set Author does not offer PATCH: odata.Config.Sets["Author"] has no SetOptions.Writes with WritePatch ` + readOnly},
		{"DELETE of an entity of a set not listed", library, "DELETE", "/odata/Author('a1')", "GET",
			`The method DELETE is not allowed on this resource; allowed: GET. The entity set Author does not offer DELETE: odata.Config.Sets["Author"] has no SetOptions.Writes with WriteDelete ` + readOnly},
		{"PUT of a set listed without WritePut", library, "PUT", "/odata/Cover('c1')", "GET, DELETE",
			`The method PUT is not allowed on this resource; allowed: GET, DELETE. The entity set Cover does not offer PUT: odata.Config.Sets["Cover"] has no SetOptions.Writes with WritePut ` + readOnly},
		{"PUT of the bytes of a media entity", library, "PUT", "/odata/Cover('c1')/$value", "GET",
			`The method PUT is not allowed on this resource; allowed: GET. The entity set Cover does not offer PUT: odata.Config.Sets["Cover"] has no SetOptions.Writes with WritePut ` + readOnly},
		{"POST to an entity, which no setting offers", library, "POST", "/odata/Book('b1')", "GET, PUT, PATCH, DELETE",
			`The method POST is not allowed on this resource; allowed: GET, PUT, PATCH, DELETE.`},
		{"POST through a navigation", library, "POST", "/odata/Publisher('p1')/Books", "GET",
			`The method POST is not allowed on this resource; allowed: GET.`},
		{"PATCH of a singleton not listed", singletons, "PATCH", "/Notice", "GET",
			`The method PATCH is not allowed on this resource; allowed: GET. The singleton Notice does not offer PATCH: odata.Config.Singletons["Notice"].Writes has no WritePatch (a singleton not listed there is read-only).`},
		{"DELETE of a singleton, which no setting offers", singletons, "DELETE", "/Shop", "GET, PUT, PATCH",
			`The method DELETE is not allowed on this resource; allowed: GET, PUT, PATCH.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := tc.f.do(tc.method, tc.path, `{}`)
			if resp.Status != 405 || resp.Header.Get("Allow") != tc.allow {
				t.Fatalf("%s %s = %d Allow %q, want 405 Allow %q\n%s", tc.method, tc.path, resp.Status, resp.Header.Get("Allow"), tc.allow, resp.Body)
			}
			var got struct{ Error map[string]any }
			if err := json.Unmarshal([]byte(resp.Body), &got); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"code": "MethodNotAllowed", "message": tc.wantMs}
			if diff := cmp.Diff(want, got.Error); diff != "" {
				t.Errorf("%s %s error (-want +got):\n%s", tc.method, tc.path, diff)
			}
		})
	}
}

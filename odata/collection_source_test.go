package odata_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
)

// TestService_CollectionSourceColumns checks a collection whose side table refers to a column other than the
// key (CollectionTable.SourceColumns): a member keyed by e-mail whose tags refer to its id. Create, read,
// update and delete must use the id, never the key.
func TestService_CollectionSourceColumns(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		for _, q := range []string{
			`CREATE TABLE member (id TEXT NOT NULL PRIMARY KEY, email TEXT NOT NULL UNIQUE)`,
			`CREATE TABLE member_tag (member_id TEXT NOT NULL REFERENCES member (id), tag TEXT NOT NULL, ordinal INTEGER NOT NULL)`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		m := &edm.Model{Namespace: "Club",
			EntityTypes: []*edm.EntityType{{Name: "Member", Key: []string{"Email"}, Properties: []*edm.Property{
				{Name: "Id", Type: edm.KindString, ReadOnly: true},
				{Name: "Email", Type: edm.KindString},
				{Name: "Tags", Type: edm.KindString, Collection: true, CollectionTable: &edm.CollectionTable{
					Table: "member_tag", OwnerColumns: []string{"member_id"}, SourceColumns: []string{"id"},
					ValueColumn: "tag", OrdinalColumn: "ordinal"}},
			}}},
			EntitySets: []*edm.EntitySet{{Name: "Member", Type: "Member"}},
		}
		if err := m.Build(); err != nil {
			t.Fatal(err)
		}
		svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Mount: "/odata",
			Logger: discardLogger(), Sets: map[string]odata.SetOptions{"Member": {Writes: odata.WriteAll, UpsertBy: "Id"}}})
		if err != nil {
			t.Fatal(err)
		}
		do := func(method, path, body string) (int, string) {
			req := httptest.NewRequest(method, "http://example.com/odata"+path, strings.NewReader(body))
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			w := httptest.NewRecorder()
			svc.ServeHTTP(w, req)
			return w.Code, w.Body.String()
		}
		tags := func() []string {
			var out []string
			rows, err := db.QueryContext(context.Background(), `SELECT m.email || ':' || t.tag FROM member_tag t JOIN member m ON m.id = t.member_id ORDER BY t.ordinal`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				out = append(out, s)
			}
			return out
		}

		if code, body := do("POST", "/Member", `{"Email":"a@example.com","Tags":["x","y"]}`); code != 201 {
			t.Fatalf("POST Member = %d %s, want 201", code, body)
		}
		if diff := cmp.Diff([]string{"a@example.com:x", "a@example.com:y"}, tags()); diff != "" {
			t.Errorf("side table after POST (-want +got):\n%s", diff)
		}
		if code, body := do("GET", "/Member('a@example.com')", ""); code != 200 || !strings.Contains(body, `"Tags":["x","y"]`) {
			t.Errorf("GET Member = %d %s, want Tags [x, y]", code, body)
		}
		if code, body := do("PATCH", "/Member('a@example.com')", `{"Tags":["z"]}`); code != 200 || !strings.Contains(body, `"Tags":["z"]`) {
			t.Errorf("PATCH Member = %d %s, want Tags [z]", code, body)
		}
		if diff := cmp.Diff([]string{"a@example.com:z"}, tags()); diff != "" {
			t.Errorf("side table after PATCH (-want +got):\n%s", diff)
		}
		if code, body := do("DELETE", "/Member('a@example.com')", ""); code != 204 {
			t.Errorf("DELETE Member = %d %s, want 204", code, body)
		}
		if got := tags(); len(got) != 0 {
			t.Errorf("side table after DELETE = %v, want empty", got)
		}
	})
}

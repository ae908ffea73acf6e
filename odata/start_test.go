package odata_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqlite"
)

func TestPlural(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"Team", "Teams"}, {"Category", "Categories"}, {"Day", "Days"}, {"Box", "Boxes"}, {"Address", "Addresses"},
		{"Match", "Matches"}, {"Wish", "Wishes"}, {"Y", "Ys"},
	} {
		if got := odata.Plural(tc.name); got != tc.want {
			t.Errorf("Plural(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

type startAuthor struct {
	ID    string `odata:",key"`
	Name  string
	Books []startBook
}

type startBook struct {
	ID            int
	Title         string
	StartAuthorID string
}

// TestNewService_Structs serves structs through the short path's options: a model derived from them in the
// default namespace or added to a given one, tables created by Migrate, Writes for the sets Sets leaves out.
func TestNewService_Structs(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		db, err := sqlite.Open(filepath.Join(t.TempDir(), "s.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		model := &edm.Model{Namespace: "Library", EntitySets: []*edm.EntitySet{{Name: "Writers", Type: "startAuthor"}}}
		svc, err := odata.NewService(odata.Config{DB: db, Model: model, Logger: discardLogger(),
			Structs: []any{startAuthor{}, (*startBook)(nil)}, Migrate: true, Writes: odata.WritePost,
			Sets: map[string]odata.SetOptions{"startBooks": {}}})
		if err != nil {
			t.Fatal(err)
		}
		var sets []string
		for _, es := range model.EntitySets {
			sets = append(sets, es.Name+" of "+es.EntityType().Name)
		}
		if diff := cmp.Diff([]string{"Writers of startAuthor", "startBooks of startBook"}, sets); diff != "" {
			t.Errorf("entity sets mismatch (-want +got):\n%s", diff)
		}
		if code, body := serve(svc, "POST", "/Writers", `{"ID":"le-guin","Name":"Ursula K. Le Guin"}`); code != http.StatusCreated {
			t.Errorf("POST Writers = %d %s, want 201 (Config.Writes)", code, body)
		}
		if code, body := serve(svc, "POST", "/startBooks", `{"Title":"Lavinia","StartAuthorID":"le-guin"}`); code != http.StatusMethodNotAllowed {
			t.Errorf("POST startBooks = %d %s, want 405 (Sets lists it without writes)", code, body)
		}
		if _, err := db.Exec(`INSERT INTO start_book (title, start_author_id) VALUES ('Lavinia', 'le-guin')`); err != nil {
			t.Fatalf("the migrated table: %v", err)
		}
		if code, body := serve(svc, "GET", "/Writers('le-guin')/Books?$select=Title", ""); code != http.StatusOK || !strings.Contains(body, `"Title":"Lavinia"`) {
			t.Errorf("GET Writers('le-guin')/Books = %d %s, want Lavinia", code, body)
		}
	})
	t.Run("ErrModelBuilt", func(t *testing.T) {
		model := &edm.Model{Namespace: "Library"}
		if err := model.Build(); err != nil {
			t.Fatal(err)
		}
		_, err := odata.NewService(odata.Config{Model: model, Structs: []any{startAuthor{}, startBook{}}})
		if err == nil || !strings.Contains(err.Error(), "Config.Model is built: with Config.Structs, give it unbuilt") {
			t.Errorf("NewService = %v, want the error of a built model with Structs", err)
		}
	})
	t.Run("ErrAllAtOnce", func(t *testing.T) {
		_, err := odata.NewService(odata.Config{Structs: []any{startBook{}, 3}})
		for _, want := range []string{"int is not a struct", "Config.DB is nil"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("NewService = %v, want an error containing %q", err, want)
			}
		}
	})
}

// serve answers one request with h and returns the status and the body.
func serve(h http.Handler, method, target, body string) (int, string) {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Code, w.Body.String()
}

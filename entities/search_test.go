package entities_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/dbtest"
	odataschema "github.com/storekit/store/odata/schema"
)

// TestProductSearch_UsesIndex: the migrations make the full-text index of the product search (Name,
// ShortDescription, Sku) as the engine recognizes it, and $search answers from it: whole words, prefixes with
// *, the short description and a SKU with a hyphen, products written by SQL and through the service.
func TestProductSearch_UsesIndex(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		h := newService(t, db, false)
		m, err := entities.NewModel()
		if err != nil {
			t.Fatal(err)
		}
		indexed, _, err := odataschema.Searchable(context.Background(), db.DB, m)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, et := range indexed {
			found = found || et.Name == "Product"
		}
		if !found {
			t.Fatalf("Searchable after the migrations: Product is not indexed (%v)", indexed)
		}
		for _, p := range [][4]string{
			{"s1", "Desk lamp", "Brass, with a green shade", "LMP-100"},
			{"s2", "Lamplight candle", "Smells of pine", "CND-7"},
			{"s3", "Oak desk", "A lamp holder on the left", "DSK-1"},
			{"s4", "Green chair", "", "CHR-100"},
		} {
			exec(t, db, `INSERT INTO product (id, name, short_description, sku) VALUES (?, ?, ?, ?)`, p[0], p[1], p[2], p[3])
		}
		exec(t, db, `UPDATE product SET short_description = 'Tall, green' WHERE id = 's2'`)
		for _, tc := range []struct {
			search string
			want   []string
		}{
			{"lamp", []string{"s1", "s3"}},
			{"lamp*", []string{"s1", "s2", "s3"}},
			{"green", []string{"s1", "s2", "s4"}},
			{"pine", []string{}},
			{"LMP-100", []string{"s1"}},
			{"desk NOT lamp", []string{}},
			{`"oak desk" OR chr-100`, []string{"s3", "s4"}},
		} {
			req := httptest.NewRequest("GET", "http://store.test/odata/Product?$select=Id&$orderby=Id&$filter=startswith(Id,'s')&$search="+
				url.QueryEscape(tc.search), nil)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			var body struct{ Value []struct{ Id string } }
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != 200 {
				t.Fatalf("$search=%s: %d %s", tc.search, w.Code, w.Body)
			}
			got := []string{}
			for _, v := range body.Value {
				got = append(got, v.Id)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("$search=%s (-want +got):\n%s", tc.search, diff)
			}
		}
	})
}

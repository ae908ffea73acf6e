package odata_test

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
)

// mediaModel has a media entity type, Image, served by a writable set and a read-only one.
func mediaModel() *edm.Model {
	return &edm.Model{Namespace: "Media", EntityTypes: []*edm.EntityType{{Name: "Image", Key: []string{"Id"},
		HasStream: true, StreamProperty: "Data", ContentTypeProperty: "Type",
		Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindInt64, Generated: true},
			{Name: "Name", Type: edm.KindString, Required: true, Default: "untitled"},
			{Name: "Data", Type: edm.KindBinary, Nullable: true, Lazy: true},
			{Name: "Type", Type: edm.KindString, Nullable: true},
		}}},
		EntitySets: []*edm.EntitySet{{Name: "Images", Type: "Image"}, {Name: "Archive", Type: "Image"}}}
}

// sendRaw sends a body of the given media type.
func (f *fixture) sendRaw(method, path, contentType string, data []byte, headers ...string) response {
	f.t.Helper()
	req := httptest.NewRequest(method, "http://example.com"+path, bytes.NewReader(data))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	f.svc.ServeHTTP(w, req)
	return response{Status: w.Code, Header: w.Header(), Body: w.Body.String()}
}

// TestService_MediaWrites uploads a media entity's bytes on both databases: POST of the bytes creates the
// entity, PUT of /$value replaces them (If-Match checked), both with the request's media type; a body without
// a media type, one over the limit and a set without writes are refused.
func TestService_MediaWrites(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		m := createSchema(t, db, mediaModel())
		svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Logger: discardLogger(),
			Sets: map[string]odata.SetOptions{"Images": {Writes: odata.WriteAll}}})
		if err != nil {
			t.Fatal(err)
		}
		f := &fixture{t: t, db: db, svc: svc}
		png := []byte("\x89PNG\r\n\x1a\nfirst")
		created := f.sendRaw("POST", "/Images", "image/png", png)
		if created.Status != 201 || !strings.Contains(created.Body, `"Name":"untitled"`) || !strings.Contains(created.Body, `"Type":"image/png"`) {
			t.Fatalf("POST /Images of bytes = %d %s, want 201 with the defaults and the media type", created.Status, created.Body)
		}
		location := strings.TrimPrefix(created.Header.Get("Location"), "http://example.com")
		value := f.must(200, "GET", location+"/$value", "")
		if value.Body != string(png) || value.Header.Get("Content-Type") != "image/png" {
			t.Errorf("GET %s/$value = %q %s, want the bytes sent as image/png", location, value.Body, value.Header.Get("Content-Type"))
		}
		etag := f.must(200, "GET", location, "").Header.Get("ETag")
		put := f.sendRaw("PUT", location+"/$value", "image/gif", []byte("GIF89a"), "If-Match", etag)
		if put.Status != 204 || put.Header.Get("ETag") == "" || put.Header.Get("ETag") == etag {
			t.Errorf("PUT %s/$value = %d ETag %q, want 204 with a new ETag", location, put.Status, put.Header.Get("ETag"))
		}
		if value := f.must(200, "GET", location+"/$value", ""); value.Body != "GIF89a" || value.Header.Get("Content-Type") != "image/gif" {
			t.Errorf("after PUT, $value = %q %s, want the new bytes as image/gif", value.Body, value.Header.Get("Content-Type"))
		}
		for _, tc := range []struct {
			name, method, path, contentType string
			data                            []byte
			headers                         []string
			status                          int
		}{
			{"a stale If-Match", "PUT", location + "/$value", "image/png", png, []string{"If-Match", etag}, 412},
			{"no media type", "PUT", location + "/$value", "", png, nil, 415},
			{"over the limit", "PUT", location + "/$value", "image/png", make([]byte, odata.DefaultMediaBytes+1), nil, 413},
			{"a read-only set", "PUT", strings.Replace(location, "Images", "Archive", 1) + "/$value", "image/png", png, nil, 405},
			{"POST of bytes to a read-only set", "POST", "/Archive", "image/png", png, nil, 405},
		} {
			if resp := f.sendRaw(tc.method, tc.path, tc.contentType, tc.data, tc.headers...); resp.Status != tc.status {
				t.Errorf("%s: %s %s = %d %s, want %d", tc.name, tc.method, tc.path, resp.Status, resp.Body, tc.status)
			}
		}
		if got := f.must(201, "POST", "/Images", `{"Name":"json"}`).Body; !strings.Contains(got, `"Name":"json"`) {
			t.Errorf("a JSON POST to a media set = %s, want an entity named json", got)
		}
	})
}

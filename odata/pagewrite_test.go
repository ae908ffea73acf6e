package odata_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/storekit/store/odata/dbtest"
)

// countingWriter is a ResponseWriter that counts the writes of the body.
type countingWriter struct {
	*httptest.ResponseRecorder
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.ResponseRecorder.Write(p)
}

// TestService_PageWrites checks how a page goes out: a page that fits in the writer's buffer in one write with
// its Content-Length (no chunked encoding), a larger one streamed in several writes without one.
func TestService_PageWrites(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	insertBooks(t, f, 600)
	cases := []struct {
		name       string
		path       string
		header     []string
		oneWrite   bool
		wantLength bool
	}{
		{"a page of 100", "/odata/Book", nil, true, true},
		{"a page of 600", "/odata/Book", []string{"Prefer", "odata.maxpagesize=600"}, false, false},
		{"an empty page", "/odata/Book?$filter=Pages%20gt%2099999", nil, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &countingWriter{ResponseRecorder: httptest.NewRecorder()}
			req := httptest.NewRequest("GET", "http://example.com"+tc.path, nil)
			for i := 0; i+1 < len(tc.header); i += 2 {
				req.Header.Set(tc.header[i], tc.header[i+1])
			}
			f.svc.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				t.Fatalf("GET %s = %d %s", tc.path, w.Code, w.Body)
			}
			if got := w.writes == 1; got != tc.oneWrite {
				t.Errorf("GET %s: %d writes, want one: %v", tc.path, w.writes, tc.oneWrite)
			}
			length := w.Header().Get("Content-Length")
			switch {
			case tc.wantLength && length != strconv.Itoa(w.Body.Len()):
				t.Errorf("GET %s: Content-Length %q, body of %d bytes", tc.path, length, w.Body.Len())
			case !tc.wantLength && length != "":
				t.Errorf("GET %s: Content-Length %q on a streamed page", tc.path, length)
			}
		})
	}
}

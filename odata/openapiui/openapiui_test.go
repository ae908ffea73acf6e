package openapiui_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/storekit/store/odata/openapiui"
)

func TestHandler(t *testing.T) {
	h := openapiui.Handler(`Books & <Co>`, "/odata/$openapi", "/docs/")
	for _, tc := range []struct {
		path, encoding string
		status         int
		contentType    string
		contains       string
	}{
		{"/docs", "", 200, "text/html", `"url":"/odata/$openapi"`},
		{"/docs/", "", 200, "text/html", `<title>Books &amp; &lt;Co&gt;</title>`},
		{"/docs", "", 200, "text/html", `<script src="/docs/swagger-ui-bundle.js">`},
		{"/docs/swagger-ui-bundle.js", "", 200, "javascript", "SwaggerUIBundle"},
		{"/docs/swagger-ui-bundle.js", "gzip", 200, "javascript", ""},
		{"/docs/swagger-ui.css", "gzip", 200, "css", ""},
		{"/docs/missing.js", "", 404, "", ""},
	} {
		req := httptest.NewRequest("GET", tc.path, nil)
		if tc.encoding != "" {
			req.Header.Set("Accept-Encoding", tc.encoding)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		body, _ := io.ReadAll(w.Result().Body)
		if w.Code != tc.status {
			t.Errorf("GET %s = %d, want %d", tc.path, w.Code, tc.status)
			continue
		}
		if tc.status != http.StatusOK {
			continue
		}
		// The media types of assets come from the system's MIME table when it has one (application/javascript
		// or text/javascript).
		if ct := w.Header().Get("Content-Type"); !strings.Contains(ct, tc.contentType) {
			t.Errorf("GET %s: Content-Type = %q, want one with %q", tc.path, ct, tc.contentType)
		}
		if got := w.Header().Get("Content-Encoding"); got != tc.encoding {
			t.Errorf("GET %s (Accept-Encoding %q): Content-Encoding = %q, want %q", tc.path, tc.encoding, got, tc.encoding)
		}
		if !strings.Contains(string(body), tc.contains) {
			t.Errorf("GET %s: the body lacks %s", tc.path, tc.contains)
		}
	}
}

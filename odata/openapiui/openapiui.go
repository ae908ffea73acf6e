// Package openapiui serves an API reference page for an OpenAPI document: Swagger UI (version 5), whose
// assets come embedded in the binary (the gzip-compressed files of github.com/swaggest/swgui/v5/static, served
// by github.com/vearutop/statigz), so the page needs no internet access. A reader can open Authorize to enter
// credentials (such as a bearer token) and "Try it out" to send a request.
//
// An OData service serves its document at <Mount>/$openapi; mount the page beside it:
//
//	docs := openapiui.Handler("Library", "/odata/$openapi", "/docs")
//	mux.Handle("GET /docs", docs)
//	mux.Handle("GET /docs/", docs)
//
// The page is built without html/template: a program that uses no template package stays smaller (templates
// keep every exported method of the program in the binary).
package openapiui

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/swaggest/swgui/v5/static"
	"github.com/vearutop/statigz"
)

// Handler returns the handler of the page at base (such as "/docs", answered at "/docs" and "/docs/") and of
// its assets below base+"/", for the OpenAPI document at specURL (a path of the same host, or a URL).
func Handler(title, specURL, base string) http.Handler {
	base = strings.TrimSuffix(base, "/")
	page := []byte(indexPage(title, specURL, base))
	assets := http.StripPrefix(base+"/", statigz.FileServer(static.FS))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == base || r.URL.Path == base+"/" {
			h := w.Header()
			h.Set("Content-Type", "text/html; charset=utf-8")
			h.Set("Cache-Control", "no-cache")
			_, _ = w.Write(page)
			return
		}
		assets.ServeHTTP(w, r)
	})
}

// indexPage is the HTML page. The configuration is JSON, so the title and the URL are escaped for a script;
// the title is also escaped for HTML.
func indexPage(title, specURL, base string) string {
	config, _ := json.Marshal(map[string]any{
		"url":                      specURL,
		"dom_id":                   "#swagger-ui",
		"deepLinking":              true,
		"layout":                   "BaseLayout",
		"filter":                   true, // a box that filters the operations by tag
		"displayRequestDuration":   true,
		"defaultModelsExpandDepth": -1,  // schemas show with each operation, not as one long list below
		"validatorUrl":             nil, // no request to an online validator
	})
	return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>` + htmlEscape(title) + `</title>
<link rel="stylesheet" href="` + htmlEscape(base) + `/swagger-ui.css">
<link rel="icon" type="image/png" href="` + htmlEscape(base) + `/favicon-32x32.png" sizes="32x32">
<style>body { margin: 0; background: #fafafa; }</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="` + htmlEscape(base) + `/swagger-ui-bundle.js"></script>
<script>
window.onload = function () {
  var config = ` + string(config) + `;
  config.presets = [SwaggerUIBundle.presets.apis];
  window.ui = SwaggerUIBundle(config);
};
</script>
</body>
</html>
`
}

var htmlReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")

func htmlEscape(s string) string { return htmlReplacer.Replace(s) }

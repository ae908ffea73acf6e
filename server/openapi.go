package server

import (
	"net/http"

	"github.com/storekit/store/odata/openapi"
	"github.com/storekit/store/odata/openapiui"
	"github.com/storekit/store/storefront"
)

// The API documentation: the OData service's OpenAPI document at GET /odata/$openapi holds the whole API (the
// OData administration API, the storefront endpoints and the token endpoints), and /docs shows it with Swagger
// UI, whose assets are embedded in the binary (odata/openapiui), so the page works without internet access.
// Both describe the API and hold no data: they need no token (SPEC part 2).

// Paths of the documentation.
const (
	openAPIPath = odataMount + "/$openapi"
	docsPath    = "/docs"
)

// adminRole is the role the OData administration API needs, named in its operations' security requirement.
const adminRole = "Administrators"

// storeOpenAPI is the configuration of the store's OpenAPI document: its title, the administrator role of the
// OData operations, the token endpoints and the storefront's operations.
func storeOpenAPI() openapi.Options {
	sf := storefront.OpenAPI()
	schemas := map[string]openapi.Schema{
		"Token": {"type": "object", "required": []string{"access_token", "token_type", "expires_in"},
			"properties": map[string]any{
				"access_token": openapi.Schema{"type": "string", "description": "The token to send as Authorization: Bearer <token>."},
				"token_type":   openapi.Schema{"const": "Bearer"},
				"expires_in":   openapi.Schema{"type": "integer", "description": "Seconds until the token expires."},
			}},
	}
	for name, s := range sf.Schemas {
		schemas[name] = s
	}
	return openapi.Options{
		Title:   "Store API",
		Version: "1",
		Description: "The store's API: the OData administration API under `/odata/` (catalog, customers, orders; " +
			"an administrator's token), the storefront endpoints (cart, wishlist, checkout, orders, account, " +
			"newsletter; they act as the customer of the token) and the token endpoints.\n\n" +
			"To try a request: sign in with **POST /api/token** (Authentication), copy `access_token`, open " +
			"**Authorize** and paste it. Every error has the body `{\"error\": {\"code\", \"message\", \"target\", " +
			"\"details\"}}` with a real status code.",
		Security:   []openapi.SecurityRequirement{{"Bearer": {adminRole}}},
		Tags:       append([]openapi.Tag{{Name: "Authentication", Description: "Bearer tokens."}}, sf.Tags...),
		Operations: append(authOperations(), sf.Operations...),
		Schemas:    schemas,
	}
}

// authOperations are the routes of the server itself: the token endpoints, the metrics and the health check.
func authOperations() []openapi.Operation {
	public := []openapi.SecurityRequirement{}
	return []openapi.Operation{
		{Method: "POST", Path: "/api/token", OperationID: "signIn", Tags: []string{"Authentication"},
			Summary: "Sign in: get a bearer token", Security: public,
			Description: "Any active customer with a password may sign in; the token is valid for the configured " +
				"lifetime, until the customer's password is set again, or until it is revoked.",
			RequestBody: &openapi.RequestBody{Required: true, Content: map[string]openapi.Schema{"application/json": {
				"type": "object", "required": []string{"email", "password"}, "properties": map[string]any{
					"email":    openapi.Schema{"type": "string", "format": "email"},
					"password": openapi.Schema{"type": "string", "format": "password"}}}}},
			Responses: []openapi.Response{
				{Status: "200", Description: "The token.", Schema: openapi.Ref("Token")},
				{Status: "400", Description: "InvalidCredentials: the e-mail or the password is wrong (which one is not told)."},
				{Status: "415", Description: "The body is not JSON."},
				{Status: "429", Description: "Too many failed sign-ins for this e-mail address or client.",
					Headers: map[string]string{"Retry-After": "Seconds to wait."}}}},
		{Method: "POST", Path: "/api/token/revoke", OperationID: "signOut", Tags: []string{"Authentication"},
			Summary:     "Sign out: revoke the token of the request",
			Description: "Any customer's token.",
			Security:    []openapi.SecurityRequirement{{"Bearer": {}}},
			Responses: []openapi.Response{
				{Status: "200", Description: "Revoked.", Schema: openapi.Schema{"type": "object", "properties": map[string]any{
					"success": openapi.Schema{"const": true}}}},
				{Status: "401", Description: "No valid token."}}},
		{Method: "GET", Path: metricsPath, OperationID: "metrics", Tags: []string{"Authentication"},
			Summary:  "The server's metrics, in the Prometheus text format (for an operator's scraper)",
			Security: []openapi.SecurityRequirement{{"Bearer": {adminRole}}},
			Description: "An administrator's token. Requests by route, method and status, the OData requests by " +
				"entity set, their durations and SQL statements, the connection pool, the Go runtime. Off with " +
				"`-metrics=false`.",
			Responses: []openapi.Response{
				{Status: "200", Description: "The metrics.", ContentType: "text/plain", Schema: openapi.Schema{"type": "string"}},
				{Status: "401", Description: "No valid token."},
				{Status: "403", Description: "Not an administrator."}}},
		{Method: "GET", Path: "/healthz", OperationID: "health", Tags: []string{"Authentication"},
			Summary: "Check that the service is up (for load balancers)", Security: public,
			Responses: []openapi.Response{{Status: "200", Description: "Up.", Schema: okSchema}}},
		{Method: "GET", Path: livePath, OperationID: "live", Tags: []string{"Authentication"},
			Summary: "Liveness: the process serves (it asks nothing of the database)", Security: public,
			Responses: []openapi.Response{{Status: "200", Description: "Up.", Schema: okSchema}}},
		{Method: "GET", Path: readyPath, OperationID: "ready", Tags: []string{"Authentication"},
			Summary: "Readiness: the process serves and its database answers", Security: public,
			Responses: []openapi.Response{{Status: "200", Description: "Ready.", Schema: okSchema},
				{Status: "503", Description: "The database does not answer (DatabaseUnavailable, with Retry-After), or the node is shutting down."}}},
	}
}

// okSchema is the body of a health check's 200 answer: {"status":"ok"}.
var okSchema = openapi.Schema{"type": "object", "properties": map[string]any{"status": openapi.Schema{"const": "ok"}}}

// docsHandler serves the API reference page at /docs (and its assets below /docs/): Swagger UI on the document
// at /odata/$openapi, with Authorize for a bearer token and "Try it out" for requests.
func docsHandler() http.Handler { return openapiui.Handler("Store API", openAPIPath, docsPath) }

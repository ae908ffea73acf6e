package odata

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/storekit/store/odata/syntax"
)

// OpenAPI configures the OpenAPI 3.1 document a Service derives from its model and serves at $openapi (GET
// <Mount>/$openapi, the name Microsoft's OData OpenAPI middleware uses). The document follows the OASIS "OData to
// OpenAPI Mapping" note and says only what the service answers: a path for every entity set, entity,
// navigation, /$count and action, each with the methods the set's Writes offer; the system query options with
// the values the model allows; schemas for the entity, complex and enum types; the error body; the security
// schemes of the model's Authorizations. The zero value gives a document with defaults.
//
// An embedding program adds its own endpoints outside the OData service (a sign-in endpoint, a shop's JSON
// endpoints) with Operations, so that one document describes its whole API. Paths in the document start at the
// host root: the OData paths carry Mount ("/odata/Product"), and the one server is "/".
type OpenAPI struct {
	// Title is info.title; the model's Description when empty, else "OData service <Namespace>".
	Title string
	// Version is info.version, the version of the API (not of OpenAPI); "1" when empty.
	Version string
	// Description is info.description (CommonMark).
	Description string
	// Security is the security requirement of the OData operations, for a service that asks more than any one
	// scheme of the model's Authorizations (the document's default requirement): role names in a requirement
	// (OpenAPI 3.1 allows them for every scheme type) say who may call, and each operation's description then
	// names them. Nil keeps the default.
	Security []SecurityRequirement
	// Tags describe the tags of Operations; the document lists them first (documentation pages show the groups
	// in this order), then one tag per entity set.
	Tags []OpenAPITag
	// Operations are the program's endpoints outside the OData service, in the order the document lists them.
	Operations []OpenAPIOperation
	// Schemas are added to components.schemas by name, for Operations to refer to with OpenAPIRef. A name must
	// not be one the model's types use ("<Namespace>.<Type>", "<Namespace>.<Type>-create", ...).
	Schemas map[string]Schema
}

// Schema is a JSON Schema (2020-12, as OpenAPI 3.1 uses it) written as Go values that encoding/json writes:
// Schema{"type": "string", "maxLength": 40}.
type Schema = map[string]any

// SecurityRequirement names security schemes, each with the roles (or OAuth scopes) it needs; a request must
// satisfy every scheme of one requirement. {"Bearer": {"Administrators"}} is a bearer token of an administrator.
type SecurityRequirement map[string][]string

// OpenAPITag describes a tag that operations are grouped by.
type OpenAPITag struct {
	Name        string
	Description string
}

// OpenAPIOperation is one endpoint of the embedding program: a method on a path.
type OpenAPIOperation struct {
	// Method is the HTTP method, such as "GET" or "POST".
	Method string
	// Path is the path from the host root, with {name} for a path parameter: "/orderdetails/{orderId}".
	Path string
	// OperationID names the operation for code generators; it must be unique in the document.
	OperationID string
	// Tags group the operation; describe them in OpenAPI.Tags.
	Tags []string
	// Summary is a short line; Description says more (CommonMark).
	Summary     string
	Description string
	// Parameters are the path, query and header parameters.
	Parameters []OpenAPIParameter
	// RequestBody is the body the operation reads; nil for none.
	RequestBody *OpenAPIRequestBody
	// Responses are the answers by status. A response of status 400 or more without a Schema has the error body
	// of the service (see WriteError).
	Responses []OpenAPIResponse
	// Security is the operation's security requirement; nil means the document's default (any scheme of the
	// model's Authorizations), and an empty non-nil slice means the operation needs no credentials.
	Security []SecurityRequirement
}

// OpenAPIParameter is a parameter of an operation.
type OpenAPIParameter struct {
	// Name is the parameter's name; In says where it goes: "path", "query" or "header".
	Name string
	In   string
	// Description says what it means and which values it takes.
	Description string
	// Required marks a parameter that must be sent; path parameters always are.
	Required bool
	// Schema is the type of its value; a string when nil.
	Schema Schema
}

// OpenAPIRequestBody is the body an operation reads.
type OpenAPIRequestBody struct {
	Description string
	Required    bool
	// Content maps each media type the operation accepts ("application/json",
	// "application/x-www-form-urlencoded", "multipart/form-data") to the schema of the body.
	Content map[string]Schema
}

// OpenAPIResponse is one answer of an operation.
type OpenAPIResponse struct {
	// Status is the status code ("200") or a range ("4XX").
	Status string
	// Description says when the operation answers it.
	Description string
	// ContentType is the media type of the body; "application/json" when Schema is set and it is empty.
	ContentType string
	// Schema is the body's schema; nil for no body (or, from status 400 on, the error body).
	Schema Schema
	// Headers are response headers by name, each with its description.
	Headers map[string]string
}

// OpenAPIRef returns a schema that refers to a schema of components.schemas: one of OpenAPI.Schemas, or one the
// document derives from the model ("Store.Address" for the entity type Address of namespace Store).
func OpenAPIRef(name string) Schema { return Schema{"$ref": "#/components/schemas/" + name} }

// OpenAPIDocument returns the service's OpenAPI document (JSON), as GET $openapi answers it. It is built once,
// by NewService.
func (s *Service) OpenAPIDocument() []byte { return s.openapi }

// openAPIPath is the parsed path of $openapi.
var openAPIPath = &syntax.ResourcePath{Segments: []syntax.Segment{{Pos: 1, Name: "$openapi"}}}

// isOpenAPIPath reports whether a raw path (without Mount) is $openapi.
func isOpenAPIPath(raw string) bool { return raw == "/$openapi" || raw == "/%24openapi" }

// openAPI answers GET $openapi.
func (s *Service) openAPI(req *request) error {
	if err := req.negotiateJSON(); err != nil {
		return err
	}
	h := req.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(s.openapi)))
	req.w.WriteHeader(http.StatusOK)
	if req.r.Method == http.MethodHead {
		return nil
	}
	_, err := req.w.Write(s.openapi)
	return err
}

// checkOpenAPI reports the mistakes of an OpenAPI configuration: operations without a valid method or a path
// from the root, two operations on one method and path, duplicate operation ids, schema names the model's types
// use, security requirements that name no scheme of the model.
func checkOpenAPI(c *OpenAPI, schemes map[string]bool, modelSchemas map[string]bool, fail func(string, ...any)) {
	seen := map[string]bool{}
	ids := map[string]bool{}
	checkSecurity := func(what string, requirements []SecurityRequirement) {
		for _, requirement := range requirements {
			for name := range requirement {
				if !schemes[name] {
					fail("OpenAPI: %s: the security scheme %q is not one of the model's Authorizations", what, name)
				}
			}
		}
	}
	checkSecurity("Security", c.Security)
	for i, op := range c.Operations {
		what := fmt.Sprintf("Operations[%d] (%s %s)", i, op.Method, op.Path)
		if !openAPIMethods[strings.ToUpper(op.Method)] {
			fail("OpenAPI: %s: unknown method %q", what, op.Method)
		}
		if !strings.HasPrefix(op.Path, "/") {
			fail("OpenAPI: %s: the path must start with /", what)
		}
		key := strings.ToUpper(op.Method) + " " + op.Path
		if seen[key] {
			fail("OpenAPI: %s: a second operation on the same method and path", what)
		}
		seen[key] = true
		if op.OperationID != "" {
			if ids[op.OperationID] {
				fail("OpenAPI: %s: the operation id %q is used twice", what, op.OperationID)
			}
			ids[op.OperationID] = true
		}
		for _, p := range op.Parameters {
			switch p.In {
			case "path", "query", "header":
			default:
				fail("OpenAPI: %s: parameter %q: In must be path, query or header", what, p.Name)
			}
		}
		checkSecurity(what, op.Security)
	}
	for name := range c.Schemas {
		if modelSchemas[name] {
			fail("OpenAPI: Schemas[%q]: the name is taken by a type of the model", name)
		}
	}
}

// openAPIMethods are the methods an OpenAPI path item holds.
var openAPIMethods = map[string]bool{"GET": true, "PUT": true, "POST": true, "DELETE": true, "OPTIONS": true,
	"HEAD": true, "PATCH": true, "TRACE": true}

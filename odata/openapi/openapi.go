// Package openapi writes the OpenAPI 3.1 document of an OData service: the document package odata serves at
// $openapi (GET <Mount>/$openapi, the name Microsoft's OData OpenAPI middleware uses). The document follows the
// OASIS "OData to OpenAPI Mapping" note and says only what the service answers: a path for every entity set,
// entity, navigation, /$count and action, each with the methods the set's writes offer; the system query options
// with the values the model allows; schemas for the entity, complex and enum types; the error body; the security
// schemes of the model's Authorizations.
//
// The engine describes itself with a Service (the built model, what each set allows, the mount) and the program
// adds its own part with Options; Build writes the document. An embedding program adds its own endpoints outside
// the OData service (a sign-in endpoint, a shop's JSON endpoints) with Options.Operations, so that one document
// describes its whole API. Paths in the document start at the host root: the OData paths carry the mount
// ("/odata/Product"), and the one server is "/".
//
// Schema in this package is JSON Schema, as OpenAPI uses it (package odata/schema is about database tables).
package openapi

import (
	"errors"
	"fmt"
	"strings"

	"github.com/storekit/store/odata/edm"
)

// Service is the OData service a document describes: its model and what it allows.
type Service struct {
	// Model is the built model (edm.Model.Build).
	Model *edm.Model
	// Mount is the path the service is served under, such as "/odata"; every OData path of the document starts
	// with it.
	Mount string
	// Sets says what each entity set allows, by name. A set that is not listed is read-only and takes every query
	// option.
	Sets map[string]Set
	// Singletons says what each singleton allows, by name: its Put and Patch (the other fields do not apply). A
	// singleton that is not listed is read-only.
	Singletons map[string]Set
	// DeleteStatus is the status of a successful DELETE; 204 when 0.
	DeleteStatus int
	// BatchRequests is the largest number of requests in one $batch, which the description of $batch states;
	// 0 states none.
	BatchRequests int
}

// Set is what an entity set (or a singleton) allows: the methods that write its entities and the query options
// its reads refuse.
type Set struct {
	// Post, Put, Patch and Delete are the writes the set offers: a create (POST to the set), a full replace (PUT),
	// an update of the properties sent (PATCH) and a delete.
	Post, Put, Patch, Delete bool
	// UpsertBy is the property a POST is matched on: a body whose UpsertBy names an existing entity replaces it in
	// full. Nil for none.
	UpsertBy *edm.Property
	// RejectKeyChange says that a full replace refuses values of the key and immutable properties other than the
	// entity's, rather than ignoring them.
	RejectKeyChange bool
	// NoFilter, NoOrderBy, NoCount, NoSelect and NoExpand are the query options the set's reads refuse; the
	// document leaves them out of its paths (and leaves out /$count with NoCount).
	NoFilter, NoOrderBy, NoCount, NoSelect, NoExpand bool
}

// Options is the program's part of the document: its info, the security of the OData operations, and the
// program's own endpoints with their tags and schemas. The zero value gives a document with defaults.
type Options struct {
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
	Tags []Tag
	// Operations are the program's endpoints outside the OData service, in the order the document lists them.
	Operations []Operation
	// Schemas are added to components.schemas by name, for Operations to refer to with Ref. A name must not be
	// one the model's types use ("<Namespace>.<Type>", "<Namespace>.<Type>-create", ...).
	Schemas map[string]Schema
}

// Schema is a JSON Schema (2020-12, as OpenAPI 3.1 uses it) written as Go values that encoding/json writes:
// Schema{"type": "string", "maxLength": 40}.
type Schema = map[string]any

// SecurityRequirement names security schemes, each with the roles (or OAuth scopes) it needs; a request must
// satisfy every scheme of one requirement. {"Bearer": {"Administrators"}} is a bearer token of an administrator.
type SecurityRequirement map[string][]string

// Tag describes a tag that operations are grouped by.
type Tag struct {
	// Name is the tag as operations name it.
	Name string
	// Description says what the group holds (CommonMark).
	Description string
}

// Operation is one endpoint of the embedding program: a method on a path.
type Operation struct {
	// Method is the HTTP method, such as "GET" or "POST".
	Method string
	// Path is the path from the host root, with {name} for a path parameter: "/orderdetails/{orderId}".
	Path string
	// OperationID names the operation for code generators; it must be unique in the document.
	OperationID string
	// Tags group the operation; describe them in Options.Tags.
	Tags []string
	// Summary is a short line; Description says more (CommonMark).
	Summary     string
	Description string
	// Parameters are the path, query and header parameters.
	Parameters []Parameter
	// RequestBody is the body the operation reads; nil for none.
	RequestBody *RequestBody
	// Responses are the answers by status. A response of status 400 or more without a Schema has the error body
	// of the service (the OData JSON error).
	Responses []Response
	// Security is the operation's security requirement; nil means the document's default (any scheme of the
	// model's Authorizations), and an empty non-nil slice means the operation needs no credentials.
	Security []SecurityRequirement
}

// Parameter is a parameter of an operation.
type Parameter struct {
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

// RequestBody is the body an operation reads.
type RequestBody struct {
	// Description says what the body holds (CommonMark).
	Description string
	// Required marks a body that must be sent.
	Required bool
	// Content maps each media type the operation accepts ("application/json",
	// "application/x-www-form-urlencoded", "multipart/form-data") to the schema of the body.
	Content map[string]Schema
}

// Response is one answer of an operation.
type Response struct {
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

// Ref returns a schema that refers to a schema of components.schemas: one of Options.Schemas, or one the
// document derives from the model ("Store.Address" for the entity type Address of namespace Store).
func Ref(name string) Schema { return Schema{"$ref": "#/components/schemas/" + name} }

// Build writes the OpenAPI document (compact JSON) of svc with the program's part o. The same service and options
// give the same bytes. The error joins every mistake of o, each naming the field it is about: an operation without
// a known method or a path from the root, two operations on one method and path or on a path of the OData
// service, an operation id used twice, a parameter not in the path, query or header, a security requirement that
// names no scheme of the model's Authorizations, a schema name a type of the model takes. The document is written
// all the same.
func Build(svc Service, o Options) ([]byte, error) {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	doc := build(&svc, &o, fail)
	return doc, errors.Join(errs...)
}

// check reports the mistakes of the options: operations without a valid method or a path from the root, two
// operations on one method and path, duplicate operation ids, schema names the model's types use, security
// requirements that name no scheme of the model.
func check(c *Options, schemes map[string]bool, modelSchemas map[string]bool, fail func(string, ...any)) {
	seen := map[string]bool{}
	ids := map[string]bool{}
	checkSecurity := func(what string, requirements []SecurityRequirement) {
		for _, requirement := range requirements {
			for name := range requirement {
				if !schemes[name] {
					fail("%s: the security scheme %q is not one of the model's Authorizations", what, name)
				}
			}
		}
	}
	checkSecurity("Security", c.Security)
	for i, op := range c.Operations {
		what := fmt.Sprintf("Operations[%d] (%s %s)", i, op.Method, op.Path)
		if !methods[strings.ToUpper(op.Method)] {
			fail("%s: unknown method %q", what, op.Method)
		}
		if !strings.HasPrefix(op.Path, "/") {
			fail("%s: the path must start with /", what)
		}
		key := strings.ToUpper(op.Method) + " " + op.Path
		if seen[key] {
			fail("%s: a second operation on the same method and path", what)
		}
		seen[key] = true
		if op.OperationID != "" {
			if ids[op.OperationID] {
				fail("%s: the operation id %q is used twice", what, op.OperationID)
			}
			ids[op.OperationID] = true
		}
		for _, p := range op.Parameters {
			switch p.In {
			case "path", "query", "header":
			default:
				fail("%s: parameter %q: In must be path, query or header", what, p.Name)
			}
		}
		checkSecurity(what, op.Security)
	}
	for name := range c.Schemas {
		if modelSchemas[name] {
			fail("Schemas[%q]: the name is taken by a type of the model", name)
		}
	}
}

// methods are the methods an OpenAPI path item holds.
var methods = map[string]bool{"GET": true, "PUT": true, "POST": true, "DELETE": true, "OPTIONS": true,
	"HEAD": true, "PATCH": true, "TRACE": true}

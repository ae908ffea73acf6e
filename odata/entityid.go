package odata

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/storekit/store/odata/syntax"
)

// isEntityPath reports whether path (below the service root, still percent-encoded) is the $entity resource,
// which reads the entity its $id names (OData URL Conventions, 4.3.4).
func isEntityPath(path string) bool {
	return path == "/$entity" || path == "/%24entity"
}

// entityRequest returns the GET of /$entity?$id=Set(key)&... as the GET of Set(key) with the other query options:
// $id is the entity's id, absolute (a URL of this service) or relative to the service root.
func (s *Service) entityRequest(r *http.Request) (*http.Request, error) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return nil, &Error{Code: CodeMethodNotAllowed, Header: http.Header{"Allow": {"GET, HEAD"}},
			Message: "The method " + r.Method + " is not allowed on $entity; allowed: GET, HEAD."}
	}
	q := syntax.SplitQuery(r.URL.RawQuery)
	param, found, err := q.Lookup("$id")
	if err != nil {
		return nil, syntaxError(err)
	}
	id := param.Value()
	if !found || id == "" {
		return nil, BadRequest(CodeBadRequest, "$id", "$entity needs the id of the entity to read in $id: $entity?$id=Set(key).")
	}
	path, ours := (&request{r: r, service: s}).idPath(id)
	if !ours {
		return nil, BadRequest(CodeInvalidValue, "$id", "$id names no entity of this service: "+id)
	}
	if strings.ContainsAny(path, "?#") {
		return nil, BadRequest(CodeInvalidValue, "$id", "$id must be an entity's id, without a query: "+id)
	}
	unescaped, err := url.PathUnescape(path) // the id is a URL: its path is percent-encoded
	if err != nil {
		return nil, BadRequest(CodeInvalidValue, "$id", "$id is not a percent-encoded URL: "+id)
	}
	u := *r.URL
	u.Path, u.RawPath, u.RawQuery = s.mount+"/"+unescaped, s.mount+"/"+path, q.Without("$id").String()
	byID := r.Clone(r.Context())
	byID.URL = &u
	return byID, nil
}

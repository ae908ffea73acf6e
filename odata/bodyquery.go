package odata

import (
	"bytes"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/storekit/store/odata/syntax"
)

// POST <resource>/$query (OData 4.01 URL Conventions 4.17, "Passing Query Options in the Request Body") is the
// GET of <resource> with the query options in a text/plain body: queryInBody turns it into that GET before the
// request is routed, so that it is answered exactly as the GET would be (the same planner, limits, row filters
// and redaction). See DESIGN.md, "Query options in the request body".

// queryInBody returns the GET that a POST to a path ending in /$query stands for: the path without its $query
// segment, the options of the URL followed by those of the body. r itself is returned when its path does not end
// in $query. Another method is a 405 (the standard: such requests MUST use POST), a body of another media type
// a 415, a body past the limits of writes to the resource a 413, a system query option or parameter alias in
// both the URL and the body a 400 (URL Conventions 5.1: the same system query option MUST NOT be specified more
// than once).
// raw is r's path under the service root (servicePath).
func (s *Service) queryInBody(r *http.Request, raw string) (*http.Request, error) {
	if !containsFold(raw, "query") {
		return r, nil // cheap: neither $query nor %24query
	}
	path, err := s.limits.read.Query.ParsePath(raw)
	if err != nil || len(path.Segments) == 0 {
		return r, nil // route reports the error
	}
	last := path.Segments[len(path.Segments)-1]
	if last.Name != "$query" || last.Literal {
		return r, nil
	}
	rest := raw[:max(last.Pos-1, 0)]
	if r.Method == http.MethodHead && tokenFetch(r.Header) {
		return nil, errTokenFetch // a POST follows: answered as on every URL a client may POST to
	}
	if r.Method != http.MethodPost {
		return nil, &Error{Code: CodeMethodNotAllowed, Header: http.Header{"Allow": {http.MethodPost}},
			Message: "The method " + r.Method + " is not allowed on $query; allowed: POST."}
	}
	limits := &s.limits
	if restPath, err := s.limits.read.Query.ParsePath(rest); err == nil {
		if t, err := s.resolve(rest, restPath); err == nil {
			limits = s.limitsOf(t)
		}
	}
	body, err := readQueryBody(r, limits.bodyBytes)
	if err != nil {
		return nil, err
	}
	query, err := mergeQuery(syntax.SplitQuery(r.URL.RawQuery), syntax.SplitQuery(body))
	if err != nil {
		return nil, err
	}
	get := r.Clone(r.Context())
	get.Method, get.Body, get.ContentLength = http.MethodGet, http.NoBody, 0
	get.Header.Del("Content-Type")
	get.Header.Del("Content-Length")
	u := *r.URL
	u.RawPath = s.mount + rest
	if u.Path, err = url.PathUnescape(u.RawPath); err != nil {
		return nil, BadRequest(CodeSyntaxError, "path", "The path is not percent-encoded correctly.")
	}
	u.RawQuery = query.String()
	get.URL = &u
	get.RequestURI = u.RequestURI()
	return get, nil
}

// readQueryBody reads the text/plain body of a POST to /$query: the query options as a URL's query part. Blanks
// around it (a final line break that tools add) are dropped; any inside stay, for the parser to refuse.
func readQueryBody(r *http.Request, limit int64) (string, error) {
	contentType := r.Header.Get("Content-Type")
	mediaType, _, err := mime.ParseMediaType(contentType)
	if contentType == "" || err != nil || mediaType != "text/plain" {
		return "", &Error{Code: CodeUnsupportedMediaType,
			Message: "The body of a POST to $query holds query options, sent with Content-Type: text/plain."}
	}
	body, err := readBody(r, limit, "request body", CodeBadRequest)
	if err != nil {
		return "", err
	}
	return string(bytes.TrimSpace(body)), nil
}

// mergeQuery returns the options of the URL followed by those of the body, which are processed together. A
// system query option or parameter alias in both is an error; custom options may repeat, as in a URL.
func mergeQuery(inURL, inBody syntax.QueryString) (syntax.QueryString, error) {
	for _, p := range inBody {
		if !p.Custom() && inURL.Has(p.Option) {
			return nil, BadRequest(CodeSyntaxError, p.Option,
				p.Option+" is given both in the URL and in the body; a query option may be given once.")
		}
	}
	return append(append(syntax.QueryString{}, inURL...), inBody...), nil
}

// containsFold reports whether s contains the lower-case ASCII word, without regard to case (strings.ToLower
// would copy every path with a capital letter).
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if s[i]|0x20 == word[0] && strings.EqualFold(s[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

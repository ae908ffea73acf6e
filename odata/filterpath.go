package odata

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/storekit/store/odata/syntax"
)

// filterInPath serves the $filter path segment of OData 4.01 (URL Conventions 4.12, "Addressing a Subset of a
// Collection"): "/Products/$filter(Price gt 5)" is the products whose price is above 5, before any query
// option applies. A GET or HEAD of a collection followed by one or more /$filter(expr) segments, and optionally
// /$count, is read as the collection with the expressions added: to $apply as its first transformation,
// filter(expr), when the query has $apply (which is evaluated before $filter), otherwise joined with and to
// $filter. Parameter aliases in the expressions are the query's. It returns r unchanged when the path has no
// $filter segment, and when other segments follow one ($each, a bound operation), which the resolver then
// refuses.
// raw is r's path under the service root (servicePath).
func (s *Service) filterInPath(r *http.Request, raw string) (*http.Request, error) {
	if !strings.Contains(raw, "filter") && !strings.Contains(raw, "%") {
		return r, nil // no $filter segment, not even percent-encoded: most paths are read once only
	}
	path, err := s.limits.read.Query.ParsePath(raw)
	if err != nil {
		return r, nil // the route reports the error
	}
	first := -1
	for i, seg := range path.Segments {
		if seg.Name == "$filter" && !seg.Literal {
			first = i
			break
		}
	}
	if first <= 0 {
		return r, nil
	}
	var exprs []string
	count := false
	for i, seg := range path.Segments[first:] {
		switch {
		case seg.Literal:
			return r, nil
		case seg.Name == "$filter":
			text, err := filterSegmentText(raw, path.Segments, first+i)
			if err != nil {
				return nil, err
			}
			exprs = append(exprs, text)
		case seg.Name == "$count" && first+i == len(path.Segments)-1:
			count = true
		default:
			return r, nil
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return nil, &Error{Code: CodeMethodNotAllowed, Header: http.Header{"Allow": {"GET, HEAD"}},
			Message: "The method " + r.Method + " is not allowed on a $filter segment; allowed: GET, HEAD."}
	}
	prefix := raw[:path.Segments[first].Pos-1]
	prefixPath := &syntax.ResourcePath{Segments: path.Segments[:first]}
	t, err := s.resolve(prefix, prefixPath)
	if err != nil {
		return nil, err
	}
	if t.kind != tCollection {
		return nil, BadRequest(CodeBadRequest, "path", "$filter applies to a collection of entities.")
	}
	if count {
		prefix += "/$count"
	}
	query, err := withPathFilters(syntax.SplitQuery(r.URL.RawQuery), exprs)
	if err != nil {
		return nil, err
	}
	unescaped, err := url.PathUnescape(prefix)
	if err != nil {
		return nil, BadRequest(CodeBadRequest, "path", "The path is not percent-encoded correctly.")
	}
	u := *r.URL
	u.Path, u.RawPath, u.RawQuery = s.mount+unescaped, s.mount+prefix, query
	filtered := r.Clone(r.Context())
	filtered.URL = &u
	return filtered, nil
}

// filterSegmentText returns the expression of the $filter segment i, decoded: the text between its
// parentheses, which may be percent-encoded as "%28" and "%29" as any character of the segment may.
func filterSegmentText(raw string, segments []syntax.Segment, i int) (string, error) {
	end := len(raw)
	if i+1 < len(segments) {
		end = segments[i+1].Pos - 1
	}
	text, err := url.PathUnescape(strings.TrimSuffix(raw[segments[i].Pos:end], "/"))
	if err != nil {
		return "", BadRequest(CodeBadRequest, "path", "The $filter segment is not percent-encoded correctly.")
	}
	expr, found := strings.CutPrefix(text, "$filter(")
	if expr, closed := strings.CutSuffix(expr, ")"); found && closed {
		return expr, nil
	}
	return "", BadRequest(CodeBadRequest, "path", "expected (expression) after $filter")
}

// withPathFilters returns the raw query q with the expressions of $filter segments applied before its options:
// as the first transformations of $apply when q has one, otherwise joined with and to its $filter.
func withPathFilters(q syntax.QueryString, exprs []string) (string, error) {
	if apply, found, err := q.Lookup("$apply"); err != nil {
		return "", syntaxError(err)
	} else if found {
		raw := ""
		for _, e := range exprs {
			raw += syntax.Escape("filter(" + e + ")/")
		}
		return q.With("$apply", raw+apply.Raw).String(), nil
	}
	filter, found, err := q.Lookup("$filter")
	if err != nil {
		return "", syntaxError(err)
	}
	parts := make([]string, 0, len(exprs)+1)
	for _, e := range exprs {
		parts = append(parts, syntax.Escape("("+e+")"))
	}
	if found {
		parts = append(parts, syntax.Escape("(")+filter.Raw+syntax.Escape(")"))
	}
	return q.With("$filter", strings.Join(parts, syntax.Escape(" and "))).String(), nil
}

package odata

import (
	"net/http"
	"strings"
)

// requestAttrs are the slog attributes of a log line about request r, which resolved to t (nil when its path
// did not resolve): the method, path and query, and the declarations of the model it reached.
func requestAttrs(r *http.Request, t *target) []any {
	attrs := []any{"method", r.Method, "path", r.URL.Path}
	if r.URL.RawQuery != "" {
		attrs = append(attrs, "query", r.URL.RawQuery)
	}
	if d := t.declaration(); d != "" {
		attrs = append(attrs, "declaration", d)
	}
	return attrs
}

// declaration names what of the model the target reached, most specific first: "action Book/Rate",
// "property Book/Address/City, entity set Books, entity type Book", "entity type Chapter (through a
// navigation)"; "" for no target or one outside the model (the service document, $metadata).
func (t *target) declaration() string {
	if t == nil || t.typ == nil && t.action == nil {
		return ""
	}
	var parts []string
	if a := t.action; a != nil {
		name := a.Name
		switch {
		case a.Bound && a.BindingCollection:
			name = "Collection(" + a.BindingType + ")/" + name
		case a.Bound:
			name = a.BindingType + "/" + name
		}
		parts = append(parts, "action "+name)
	}
	if len(t.props) > 0 && t.typ != nil {
		names := []string{t.typ.Name}
		for _, p := range t.props {
			names = append(names, p.Name)
		}
		parts = append(parts, "property "+strings.Join(names, "/"))
	}
	switch {
	case t.set != nil:
		parts = append(parts, "entity set "+t.set.Name)
	case t.ctxSet != nil:
		parts = append(parts, "entity set "+t.ctxSet.Name+" (through a navigation)")
	}
	if t.typ != nil {
		parts = append(parts, "entity type "+t.typ.Name)
	}
	return strings.Join(parts, ", ")
}

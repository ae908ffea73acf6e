package odata

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// Writes of a collection property (OData 4.01 Protocol, "Update a Collection Property" and "Positional Inserts";
// URL Conventions, "Addressing a Member of an Ordered Collection" and "System Query Option $index"). The
// engine keeps the items of a collection of primitive values in a side table with their ordinal, so every
// collection is ordered and takes positional inserts:
//
//	POST   Set(key)/Coll?$index=n   {"value": item}    insert item at n (0-based; -1 the end); without $index append
//	PUT    Set(key)/Coll            {"value": [items]} replace the items
//	DELETE Set(key)/Coll                               remove every item
//	GET    Set(key)/Coll/n                             the item at n (a negative n counts from the end)
//	PUT    Set(key)/Coll/n          {"value": item}    replace the item at n
//	DELETE Set(key)/Coll/n                             remove the item at n; the items after it move up
//
// Each write is a patch of the entity that sends the whole new collection: it runs the path of PATCH (its
// transaction, the row lock, If-Match, the row filter, the hooks with Sent naming the collection, the side table
// rewritten by Tx.Update) and answers 204 with the entity's new ETag. The new collection is computed from the
// stored one once the entity is read and locked, so concurrent inserts do not lose each other's items.

// collectionMember resolves a segment after a collection property: the member at an ordinal (Tags/0, Tags/-1).
func (r *pathResolver) collectionMember(seg syntax.Segment) error {
	t := r.target
	n, err := strconv.ParseInt(seg.Name, 10, 64)
	if err != nil || len(seg.Args) > 0 || t.item != nil || len(t.props) != 1 {
		return NotFound(fmt.Sprintf("No resource matches the segment %s: a member of %s is addressed by its ordinal.", seg.Name, t.props[0].Name))
	}
	t.item = &n
	return nil
}

// collectionWritable reports whether t, a collection property (or one of its members), takes writes: a property of
// Set(key) or of a singleton, whose set or singleton offers PATCH, and which a patch may change.
func (s *Service) collectionWritable(t *target) bool {
	if t.kind != tProperty || len(t.props) != 1 || !t.props[0].Collection {
		return false
	}
	if !t.direct && writtenSingleton(t) == nil {
		return false
	}
	config := s.writeConfig(t)
	return config != nil && config.Writes&WritePatch != 0 && !config.fixed(t.props[0])
}

// collectionMethods is the Allow header of a collection property or of one of its members.
func (s *Service) collectionMethods(t *target) string {
	switch {
	case !s.collectionWritable(t):
		return "GET"
	case t.item != nil:
		return "GET, PUT, DELETE"
	}
	return "GET, POST, PUT, DELETE"
}

// checkIndex refuses $index where it does not apply: it positions an insert into an ordered collection, a POST
// to a collection property.
func checkIndex(req *request, method string) error {
	q, t := req.query, req.target
	if q == nil || q.Index == nil {
		return nil
	}
	if method == http.MethodPost && t.kind == tProperty && t.item == nil && len(t.props) == 1 && t.props[0].Collection {
		return nil
	}
	return BadRequest(CodeBadRequest, "$index",
		"$index applies to a POST that inserts into an ordered collection (a collection property), not to this request.")
}

// writeCollection answers POST, PUT and DELETE on a collection property or one of its members (see above).
func (s *Service) writeCollection(req *request, method string) error {
	t := req.target
	p := t.props[0]
	var value any
	if method != http.MethodDelete {
		var err error
		if value, err = s.collectionBody(req, p, method == http.MethodPut && t.item == nil); err != nil {
			return err
		}
	}
	var index *int64
	if req.query != nil {
		index = req.query.Index
	}
	edit := func(items []any) ([]any, error) {
		return editCollection(p, items, method, t.item, index, value)
	}
	where, err := s.writtenWhere(req.r.Context(), t)
	if err != nil {
		return s.dbError(err, false)
	}
	b := &body{vals: Entity{}, sent: map[string]bool{p.Name: true}, bad: map[string]bool{}}
	b.derive = func(old Entity) error {
		items, _ := old[p.Name].([]any)
		edited, err := edit(slices.Clone(items))
		if err != nil {
			return err
		}
		if edited == nil {
			edited = []any{}
		}
		b.vals[p.Name] = edited
		return nil
	}
	stored, err := s.replaceIn(req.r.Context(), req, OpPatch, where, b, nil)
	if err != nil {
		return err
	}
	return s.noContentWithETag(req, t.typ, stored)
}

// collectionBody reads the body of a write of the collection property p: {"value": item}, or with whole
// {"value": [items]}.
func (s *Service) collectionBody(req *request, p *edm.Property, whole bool) (any, error) {
	members, err := readJSONBody(req.r, false, s.limitsOf(req.target).bodyBytes)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	var d decoder
	for _, m := range members {
		switch {
		case isAnnotation(m.name):
			// control information and annotations ("@odata.context", "value@odata.type") are ignored
		case m.name == "value" && raw == nil:
			raw = m.raw
		case m.name == "value":
			d.fail(CodeInvalidValue, "value", "value is given more than once.")
		default:
			d.fail(CodeUnknownField, m.name, "The body of a write of %s holds value only.", p.Name)
		}
	}
	if raw == nil {
		d.fail(CodeRequired, "value", "The body must hold the value: {\"value\": ...}.")
		return nil, ValidationError(d.details...)
	}
	t := propType(p)
	t.collection = whole
	t.nullable = false
	v, ok := d.value(t, "value", raw)
	if !ok || len(d.details) > 0 {
		return nil, ValidationError(d.details...)
	}
	return v, nil
}

// isAnnotation reports whether a member name of a body is an annotation ("value@odata.type", "@odata.context").
func isAnnotation(name string) bool {
	return strings.IndexByte(name, '@') >= 0
}

// editCollection returns items edited by a write of method on the collection property p: at the member item
// when not nil, else on the whole collection, with the $index of a POST.
func editCollection(p *edm.Property, items []any, method string, item, index *int64, value any) ([]any, error) {
	n := int64(len(items))
	if item != nil {
		at := *item
		if at < 0 {
			at += n
		}
		if at < 0 || at >= n {
			return nil, NotFound(fmt.Sprintf("%s has no member %d: it has %d.", p.Name, *item, n))
		}
		if method == http.MethodDelete {
			return slices.Delete(items, int(at), int(at)+1), nil
		}
		items[at] = value
		return items, nil
	}
	switch method {
	case http.MethodDelete:
		return []any{}, nil
	case http.MethodPut:
		list, _ := value.([]any)
		return list, nil
	}
	at := n
	if index != nil {
		at = *index
		if at < 0 {
			at += n + 1
		}
		if at < 0 || at > n {
			return nil, BadRequest(CodeInvalidValue, "$index",
				fmt.Sprintf("$index %d is outside %s, which has %d items: use 0 to %d, or -1 to -%d from the end.", *index, p.Name, n, n, n+1))
		}
	}
	return slices.Insert(items, int(at), value), nil
}

// writeCollectionItem answers GET of a member of an ordered collection: {"@odata.context", "value"}, with the
// entity's ETag; 404 when the collection has no member at that ordinal.
func (s *Service) writeCollectionItem(req *request, writer *rowWriter, p *edm.Property, v any) error {
	t := req.target
	items, _ := v.([]any)
	at, n := *t.item, int64(len(items))
	if at < 0 {
		at += n
	}
	if at < 0 || at >= n {
		return NotFound(fmt.Sprintf("%s has no member %d: it has %d.", p.Name, *t.item, n))
	}
	req.w.Header()["Etag"] = []string{formatETag(writer.etag())}
	req.jsonHeaders()
	b := []byte{'{'}
	if !req.noMetadata() {
		typeName := p.Type.String()
		if p.Enum != nil {
			typeName = s.model.Namespace + "." + p.Enum.Name
		}
		b = append(req.appendContext(b, typeName), ',')
	}
	b = append(b, `"value":`...)
	item := *p
	item.Collection = false
	b, err := appendValue(b, &item, items[at])
	if err != nil {
		return err
	}
	_, err = req.w.Write(append(b, '}'))
	return err
}

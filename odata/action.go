package odata

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
)

// invoke answers POST to an action: the parameters are decoded from the flat JSON body, the bound entity is
// read and locked inside the transaction (If-Match checked against it), and the handler runs in the same
// transaction; its result is written by the action's return type.
func (s *Service) invoke(req *request) error {
	t := req.target
	a := t.action
	fn := s.actions[a]
	members, err := readJSONBody(req.r, true, s.limitsOf(t).bodyBytes)
	if err != nil {
		return err
	}
	params, details := decodeParams(a, members)
	if len(details) > 0 {
		return ValidationError(details...)
	}
	if err := req.negotiateJSON(); err != nil {
		req.format = jsonFormat{} // an Accept the result cannot meet does not stop the action: the default format
	}
	ctx := req.r.Context()
	var body []byte
	var etag string
	err = s.inTx(ctx, func(tx *Tx) error {
		call := &ActionCall{Tx: tx, Action: a, Params: params, Request: req.r}
		if a.Bound && !a.BindingCollection {
			where, err := s.boundWhere(ctx, tx, t)
			if err != nil {
				return err
			}
			if where, err = s.visibleWhere(ctx, t.typ, where); err != nil {
				return err
			}
			old, err := tx.getWhere(ctx, t.typ, where, true)
			if err != nil {
				return err
			}
			if err := s.checkIfMatch(req.r, tx, t.typ, old, s.requiresIfMatch(t)); err != nil {
				return err
			}
			call.Entity = old
		}
		result, err := fn(ctx, call)
		if err != nil {
			return err
		}
		if result, err = withRowVersion(ctx, tx, a.ReturnType, result); err != nil {
			return err
		}
		body, etag, err = s.renderResult(req, a.Name, a.ReturnType, result)
		return err
	})
	if err != nil {
		return s.dbError(err, false)
	}
	return writeOperationResult(req, body, etag)
}

// writeOperationResult answers an action or function call with its rendered result: 204 without one.
func writeOperationResult(req *request, body []byte, etag string) error {
	h := req.w.Header()
	h["Odata-Version"] = req.version.header()
	if body == nil {
		req.w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if etag != "" {
		h.Set("ETag", etag)
	}
	req.jsonHeaders()
	req.w.WriteHeader(http.StatusOK)
	_, err := req.w.Write(body)
	return err
}

// decodeParams decodes an action body: each member is a parameter (matched case-insensitively when not
// exact); unknown and duplicate parameters, wrong types and missing required parameters are details.
func decodeParams(a *edm.Action, members []member) (map[string]any, []ErrorDetail) {
	var d decoder
	params := map[string]any{}
	for _, m := range members {
		if len(m.name) > 0 && containsAt(m.name) {
			continue
		}
		p := a.Parameter(m.name)
		if p == nil {
			d.fail(CodeUnknownField, m.name, "The action %s has no parameter %s.", a.Name, m.name)
			continue
		}
		if _, dup := params[p.Name]; dup {
			d.fail(CodeInvalidValue, p.Name, "The parameter %s is given more than once.", p.Name)
			continue
		}
		if v, ok := d.value(paramType(p), p.Name, m.raw); ok {
			params[p.Name] = v
		} else {
			params[p.Name] = nil
		}
	}
	for i := range a.Parameters {
		p := &a.Parameters[i]
		if _, ok := params[p.Name]; !ok && p.Required {
			d.fail(CodeRequired, p.Name, "The parameter %s is required.", p.Name)
		}
	}
	return params, d.details
}

func containsAt(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '@' {
			return true
		}
	}
	return false
}

// renderResult writes the result of the operation name (an action or function) as its return type says. It
// returns a nil body for no content, and the ETag of an entity result.
func (s *Service) renderResult(req *request, name string, returnType *edm.ReturnType, result any) ([]byte, string, error) {
	if returnType == nil || isNil(result) {
		return nil, "", nil
	}
	et := returnType.EntityType()
	switch {
	case et != nil && returnType.Collection:
		b, err := s.renderEntities(req, name, et, result)
		return b, "", err
	case et != nil:
		return s.renderEntity(req, name, et, result)
	}
	b, err := s.renderValue(req, name, returnType, result)
	return b, "", err
}

// isNil reports whether v is nil or a nil map or slice (an Entity or []Entity a handler left empty).
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch x := reflect.ValueOf(v); x.Kind() {
	case reflect.Map, reflect.Pointer:
		return x.IsNil()
	}
	return false
}

// renderEntity writes the entity an operation returned, and returns its ETag.
func (s *Service) renderEntity(req *request, name string, et *edm.EntityType, result any) ([]byte, string, error) {
	e, err := asEntity(result)
	if err != nil {
		return nil, "", fmt.Errorf("odata: operation %s: %w", name, err)
	}
	fragment := s.model.Namespace + "." + et.Name
	if set := s.model.EntitySetOf(et); set != nil {
		fragment = set.Name + "/$entity"
	}
	l, err := s.answerLayout(req.r.Context(), et)
	if err != nil {
		return nil, "", err
	}
	writer := entityWriter{layout: l}
	b, err := writer.appendEntity(nil, e, req.contextMember(fragment), req.answer(), s.entityPath(et, e))
	if err != nil {
		return nil, "", err
	}
	sum, err := writer.etag(e)
	if err != nil {
		return nil, "", err
	}
	return b, formatETag(sum), nil
}

// entityPath returns the path of the entity e of type et relative to the service root, Set('k'), when the type
// has one entity set (an action's result could belong to any of several); "" otherwise.
func (s *Service) entityPath(et *edm.EntityType, e Entity) string {
	set := s.model.EntitySetOf(et)
	if set == nil {
		return ""
	}
	key, err := entityKey(et, e)
	if err != nil {
		return ""
	}
	return set.Name + formatKey(et, key)
}

// renderEntities writes the collection of entities an operation returned.
func (s *Service) renderEntities(req *request, name string, et *edm.EntityType, result any) ([]byte, error) {
	items, err := toSlice(result)
	if err != nil {
		return nil, fmt.Errorf("odata: operation %s: %w", name, err)
	}
	fragment := "Collection(" + s.model.Namespace + "." + et.Name + ")"
	if set := s.model.EntitySetOf(et); set != nil {
		fragment = set.Name
	}
	l, err := s.answerLayout(req.r.Context(), et)
	if err != nil {
		return nil, err
	}
	writer := entityWriter{layout: l}
	format := req.answer()
	b := valuePrefix(req.contextMember(fragment))
	b = append(b, '[')
	for i, item := range items {
		if i > 0 {
			b = append(b, ',')
		}
		e, err := asEntity(item)
		if err != nil {
			return nil, fmt.Errorf("odata: operation %s: %w", name, err)
		}
		if b, err = writer.appendEntity(b, e, nil, format, s.entityPath(et, e)); err != nil {
			return nil, err
		}
	}
	return append(b, "]}"...), nil
}

// renderValue writes the primitive, enum or complex value (or the collection of them) an operation returned.
func (s *Service) renderValue(req *request, name string, returnType *edm.ReturnType, result any) ([]byte, error) {
	p := &edm.Property{Name: "value", Type: returnType.Type, Enum: returnType.Enum, Complex: returnType.Complex, Nullable: returnType.Nullable,
		MaxLength: returnType.MaxLength, Precision: returnType.Precision, Scale: returnType.Scale}
	f := plainField(p)
	format := req.answer()
	typeName := returnType.Type.String()
	switch {
	case returnType.Enum != nil:
		typeName = s.model.Namespace + "." + returnType.Enum.Name
	case returnType.Complex != nil:
		typeName = s.model.Namespace + "." + returnType.Complex.Name
	}
	switch {
	case returnType.Collection:
		items, err := toSlice(result)
		if err != nil {
			return nil, fmt.Errorf("odata: operation %s: %w", name, err)
		}
		b := valuePrefix(req.contextMember("Collection(" + typeName + ")"))
		b = append(b, '[')
		for i, item := range items {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendGoField(b, f, normalize(p, item), format); err != nil {
				return nil, err
			}
		}
		return append(b, "]}"...), nil
	case returnType.Complex != nil:
		b, err := appendGoField(nil, f, result, format)
		if err != nil {
			return nil, err
		}
		if ctx := req.contextMember(typeName); ctx != nil {
			if len(b) > 2 {
				ctx = append(ctx, ',')
			}
			b = append(append([]byte{'{'}, ctx...), b[1:]...)
		}
		return b, nil
	}
	b, err := appendGoField(valuePrefix(req.contextMember(typeName)), f, normalize(p, result), format)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// valuePrefix starts an object with an optional context member and "value":.
func valuePrefix(ctx []byte) []byte {
	b := []byte{'{'}
	if ctx != nil {
		b = append(append(b, ctx...), ',')
	}
	return append(b, `"value":`...)
}

// toSlice accepts []any, []Entity, []map[string]any or any other slice.
func toSlice(v any) ([]any, error) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case []Entity:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, nil
	}
	value := reflect.ValueOf(v)
	if value.Kind() != reflect.Slice {
		return nil, fmt.Errorf("a collection result must be a slice, not %T", v)
	}
	out := make([]any, value.Len())
	for i := range out {
		out[i] = value.Index(i).Interface()
	}
	return out, nil
}

// boundWhere is the condition, on the table's own name, that selects the entity an action is bound to: by the
// key of a direct Set(key), or by the key read (in the transaction) of the entity a navigation reaches.
func (s *Service) boundWhere(ctx context.Context, tx *Tx, t *target) (sq.Sqlizer, error) {
	if t.direct {
		return s.targetWhere(t)
	}
	key, err := s.readKey(ctx, tx.Tx, t)
	if err != nil {
		return nil, err
	}
	return keyWhere(s.db.Dialect(), s.names, t.typ, key, false)
}

// withRowVersion completes the entity result of an operation whose type's ETag is its row version
// (edm.EntityType.RowVersion) with the version stored, when the entity lacks it (a struct, or an entity the
// handler made): its ETag is then the one a read gives. Other results, and an entity not stored, are returned
// as they are.
func withRowVersion(ctx context.Context, tx *Tx, returnType *edm.ReturnType, result any) (any, error) {
	if returnType == nil || returnType.Collection || isNil(result) {
		return result, nil
	}
	et := returnType.EntityType()
	if et == nil || et.RowVersion() == nil {
		return result, nil
	}
	e, err := asEntity(result)
	if err != nil {
		return result, nil // renderResult says what is wrong
	}
	if _, ok := e[edm.RowVersionName]; ok {
		return result, nil
	}
	key, err := entityKey(et, e)
	if err != nil {
		return result, nil
	}
	stored, err := tx.Get(ctx, et, key...)
	if errors.Is(err, ErrNotFound) {
		return result, nil
	}
	if err != nil {
		return nil, err
	}
	e = maps.Clone(e)
	e[edm.RowVersionName] = stored[edm.RowVersionName]
	return e, nil
}

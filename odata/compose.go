package odata

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/syntax"
)

// This file composes the result of a composable function (edm.Function.IsComposable) that returns entities of
// an entity set with what follows the call: the system query options ($filter, $select, $expand, $orderby,
// $top, $skip, $count, $search) and further path segments (/$count, a key and what may follow an entity: a
// navigation, a property, $value). The handler runs as for a plain call, in its read transaction; the keys of
// the entities it returns then scope a read of their set, planned and run as any read of the set with the
// request's options: GetTopProducts(n=5)?$filter=Price gt 10&$select=Name is the read of Products whose keys the
// function returned and whose Price is above 10, and GetTopProducts(n=5)('k')/Category the category of product
// k, a 404 unless the function returned it. What the function returns must be entities of one set (the set it
// is bound to when it returns that set's type, else the only set of its return type), at most maxComposedKeys.

// maxComposedKeys is the largest number of entities a composed function call may return.
const maxComposedKeys = 10000

// hasSystemOptions reports whether q holds a system query option other than $format.
func hasSystemOptions(q *syntax.Query) bool {
	for _, o := range q.Options {
		if strings.HasPrefix(o.Name, "$") && o.Name != "$format" {
			return true
		}
	}
	return false
}

// composedSet returns the entity set whose entities a call of f on t returns, when its result may be composed
// with query options or /$count: f is composable and returns entities of one set.
func (s *Service) composedSet(t *target, f *edm.Function) (*edm.EntitySet, error) {
	if !f.IsComposable {
		return nil, BadRequest(CodeBadRequest, f.Name, fmt.Sprintf(
			"The function %s is not composable: no query option but $format applies to its result.", f.Name))
	}
	var et *edm.EntityType
	if f.ReturnType != nil {
		et = f.ReturnType.EntityType()
	}
	switch {
	case et == nil:
		return nil, Errorf(CodeNotImplemented, "The result of the function %s is not entities: query options do not apply to it.", f.Name)
	case f.Bound && f.BindingCollection && t.set != nil && t.set.EntityType() == et:
		return t.set, nil
	}
	if es := s.model.EntitySetOf(et); es != nil {
		return es, nil
	}
	return nil, Errorf(CodeNotImplemented, "The entities the function %s returns belong to no single entity set: query options do not apply to them.", f.Name)
}

// resultKeys returns the keys of the entities a composable function returned (one entity, or a collection).
func resultKeys(f *edm.Function, result any) ([][]any, error) {
	if isNil(result) {
		return nil, nil
	}
	items := []any{result}
	if f.ReturnType.Collection {
		var err error
		if items, err = toSlice(result); err != nil {
			return nil, fmt.Errorf("odata: function %s: %w", f.Name, err)
		}
	}
	if len(items) > maxComposedKeys {
		return nil, &Error{Code: CodeLimitExceeded, Message: fmt.Sprintf(
			"The function %s returned %d entities; query options apply to at most %d.", f.Name, len(items), maxComposedKeys)}
	}
	et := f.ReturnType.EntityType()
	keys := make([][]any, len(items))
	for i, item := range items {
		e, err := asEntity(item)
		if err != nil {
			return nil, fmt.Errorf("odata: function %s: %w", f.Name, err)
		}
		if keys[i], err = entityKey(et, e); err != nil {
			return nil, fmt.Errorf("odata: function %s: %w", f.Name, err)
		}
	}
	return keys, nil
}

// readComposed answers a composed call of f whose handler returned the entities of keys: the read of their set
// (or its /$count) with the request's options, the keys added to its $filter, or the read of the path after the
// call from one of those entities.
func (s *Service) readComposed(req *request, f *edm.Function, keys [][]any) error {
	es, err := s.composedSet(req.target, f)
	if err != nil {
		return err
	}
	path := "/" + es.Name
	if !f.ReturnType.Collection {
		if len(keys) == 0 {
			return errNoContent // a function of one entity that returned none
		}
		path += formatKey(es.EntityType(), keys[0]) // one entity: read by its key, with the options as sent
	}
	path += req.target.composedRest
	parsed, err := s.limits.read.Query.ParsePath(path)
	if err != nil {
		return syntaxError(err)
	}
	t, err := s.resolve(path, parsed)
	if err != nil {
		return err
	}
	keyFilter := ""
	switch {
	case t.scope.Set == es && t.scope.Key == nil && len(t.scope.Path) == 0:
		// The set itself (or its /$count): its rows are those the function returned.
		keyFilter = keysFilter(es.EntityType(), keys)
	case f.ReturnType.Collection:
		// Set(key) and what follows it: the entity must be one the function returned.
		if err := s.checkComposedKey(req, es, t, keys); err != nil {
			return err
		}
	}
	r := req.r.Clone(req.r.Context())
	u := *r.URL
	u.RawQuery = composedQuery(req.target.funcQuery, keyFilter)
	r.URL = &u
	limits := *s.limitsOf(t)
	// The keys are the function's, not the client's: the limits of the client's expressions do not count them.
	q := &limits.read.Query
	q.InListItems = max(q.InListItems, len(keys))
	q.ExpressionNodes += 4 * len(keys) * len(es.EntityType().Key)
	q.ExpressionLength += len(keyFilter)
	q.LiteralLength = max(q.LiteralLength, longestLiteral(keyFilter))
	composed := &request{w: req.w, r: r, target: t, service: s, version: req.version, limits: &limits}
	return s.read(composed)
}

// checkComposedKey answers 404 when the entity of es that t's key predicate names is not among the entities of
// keys, those a composable function returned.
func (s *Service) checkComposedKey(req *request, es *edm.EntitySet, t *target, keys [][]any) error {
	if t.scope.Set != es || t.scope.Key == nil {
		return NotFound("No resource matches the path after the function.")
	}
	entity := &target{kind: tEntity, typ: es.EntityType(), scope: plan.Scope{Set: es, Key: t.scope.Key}, set: es, direct: true, single: true}
	key, err := s.readKey(req.r.Context(), s.db, entity)
	if err != nil {
		return err
	}
	want := plan.LinkKey(key...)
	for _, k := range keys {
		if plan.LinkKey(k...) == want {
			return nil
		}
	}
	return NotFound(fmt.Sprintf("The %s is not among those the function returned.", es.EntityType().Name))
}

// keysFilter returns the $filter text that selects the entities of et with the given keys: Id in ('a','b'),
// (A eq 1 and B eq 'x') or (...) for a composite key, false for none.
func keysFilter(et *edm.EntityType, keys [][]any) string {
	if len(keys) == 0 {
		return "false"
	}
	props := et.KeyProperties()
	var b strings.Builder
	if len(props) == 1 {
		b.WriteString(props[0].Name + " in (")
		for i, key := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(filterLiteral(props[0], key[0]))
		}
		b.WriteByte(')')
		return b.String()
	}
	for i, key := range keys {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.WriteByte('(')
		for j, p := range props {
			if j > 0 {
				b.WriteString(" and ")
			}
			b.WriteString(p.Name + " eq " + filterLiteral(p, key[j]))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// filterLiteral is the literal of a key value in a $filter: keyLiteral's, without its percent-encoding.
func filterLiteral(p *edm.Property, v any) string {
	literal := keyLiteral(p, v)
	if unescaped, err := url.PathUnescape(literal); err == nil {
		return unescaped
	}
	return literal
}

// longestLiteral returns the length of the longest quoted literal of an expression text.
func longestLiteral(text string) int {
	longest := 0
	for _, part := range strings.Split(text, "'") {
		longest = max(longest, len(part))
	}
	return longest
}

// composedQuery returns the raw query of a composed read: the system options and aliases of the function call's
// query as sent, its $filter (if any) and the key filter joined with and.
func composedQuery(q syntax.QueryString, keyFilter string) string {
	q = slices.DeleteFunc(slices.Clone(q), syntax.QueryParam.Custom)
	if keyFilter == "" {
		return q.String()
	}
	and := syntax.Escape(keyFilter)
	if filter, found, _ := q.Lookup("$filter"); found {
		and = syntax.Escape("("+keyFilter+") and (") + filter.Raw + syntax.Escape(")")
	}
	return q.With("$filter", and).String()
}

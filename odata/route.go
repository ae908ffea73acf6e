package odata

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/syntax"
)

// targetKind is what a resource path addresses.
type targetKind uint8

const (
	tRoot          targetKind = iota // the service document
	tMetadata                        // $metadata
	tCollection                      // a collection of entities
	tEntity                          // one entity
	tCount                           // a collection's /$count
	tProperty                        // a property of one entity (possibly a member of a complex property)
	tPropertyValue                   // a primitive property's /$value
	tMediaValue                      // a media entity's /$value
	tAction                          // an action (bound or unbound)
	tOpenAPI                         // $openapi: the OpenAPI document (openapi.go)
)

// target is a resolved resource path.
type target struct {
	kind   targetKind
	typ    *edm.EntityType // the entity type of the collection or entity (the binding type of a bound action)
	scope  plan.Scope      // the rows the path addresses
	single bool            // one entity (tEntity and everything below it)
	// set is the entity set when the path is the set itself or Set(key): the only resources that take writes.
	set    *edm.EntitySet
	direct bool // the set itself or Set(key), not reached through a navigation
	toOne  bool // the entity is the target of a to-one navigation (none is 204, not 404)
	// ctxSet is the entity set the entities belong to, for context URLs; ctxPath the context path of
	// entities without one (a containment path such as "Customer('a')/Addresses").
	ctxSet  *edm.EntitySet
	ctxPath string
	props   []*edm.Property // tProperty, tPropertyValue: the property and its members, outermost first
	action  *edm.Action
	path    string // the raw path (without a leading "/"), for context URLs and next links
	// entityPath is the raw path of the entity a property or $value belongs to.
	entityPath string
}

// resolve resolves a parsed path against the model.
func (s *Service) resolve(rawPath string, rp *syntax.ResourcePath) (*target, error) {
	segs := rp.Segments
	raw := strings.Trim(rawPath, "/")
	t := &target{path: raw}
	if len(segs) == 0 {
		return t, nil
	}
	// upTo returns the raw path up to the end of segment i.
	base := strings.Index(rawPath, raw)
	upTo := func(i int) string {
		if i+1 < len(segs) {
			end := segs[i+1].Pos - 1 - base
			if end >= 0 && end <= len(raw) {
				return raw[:end]
			}
		}
		return raw
	}
	first := segs[0]
	switch {
	case first.Name == "$metadata" && !first.Literal:
		t.kind = tMetadata
		return t, nil
	case rp == openAPIPath:
		t.kind = tOpenAPI
		return t, nil
	case strings.HasPrefix(first.Name, "$") && !first.Literal:
		return nil, Errorf(CodeNotImplemented, "The %s resource is not supported.", first.Name)
	}
	m := s.model
	if es := m.EntitySet(first.Name); es != nil {
		t.kind, t.typ, t.set, t.ctxSet, t.direct = tCollection, es.EntityType(), es, es, true
		t.scope.Set = es
		if len(first.Args) > 0 {
			if err := s.applyKey(t, first.Args); err != nil {
				return nil, err
			}
		}
	} else if sg := m.Singleton(first.Name); sg != nil && len(first.Args) == 0 {
		t.kind, t.typ, t.single = tEntity, sg.EntityType(), true
		t.ctxPath = sg.Name
		t.scope.Singleton = sg
	} else if a := m.Action(first.Name, nil, false); a != nil && len(first.Args) == 0 {
		if len(segs) > 1 {
			return nil, NotFound(fmt.Sprintf("No segment may follow the action %s.", a.Name))
		}
		t.kind, t.action = tAction, a
		return t, nil
	} else if len(m.FunctionOverloads(first.Name)) > 0 {
		return nil, Errorf(CodeNotImplemented, "Functions are not supported yet.")
	} else {
		return nil, NotFound(fmt.Sprintf("The service has no entity set %s.", first.Name))
	}

	for i := 1; i < len(segs); i++ {
		seg := segs[i]
		if t.kind == tProperty {
			if seg.Name == "$value" && !seg.Literal {
				last := t.props[len(t.props)-1]
				if last.Complex != nil || last.Collection {
					return nil, BadRequest(CodeBadRequest, "path", "$value applies to a primitive property only.")
				}
				t.kind = tPropertyValue
				continue
			}
			last := t.props[len(t.props)-1]
			if last.Complex == nil || len(seg.Args) > 0 || seg.Literal {
				return nil, NotFound(fmt.Sprintf("No resource matches the segment %s.", seg.Name))
			}
			mp := findProperty(last.Properties(), seg.Name)
			if mp == nil {
				return nil, NotFound(fmt.Sprintf("%s has no member %s.", last.Name, seg.Name))
			}
			t.props = append(t.props, mp)
			continue
		}
		if t.kind != tCollection && t.kind != tEntity {
			return nil, NotFound(fmt.Sprintf("No segment may follow %s.", segs[i-1].Name))
		}
		if seg.Literal {
			// A key given as a segment (OData 4.01): Product/abc.
			if t.kind != tCollection {
				return nil, NotFound(fmt.Sprintf("No resource matches the segment %s.", seg.Name))
			}
			if err := s.applySegmentKey(t, seg.Name); err != nil {
				return nil, err
			}
			continue
		}
		switch seg.Name {
		case "$count":
			if t.kind != tCollection {
				return nil, BadRequest(CodeBadRequest, "path", "$count applies to a collection.")
			}
			t.kind = tCount
			continue
		case "$value":
			data, _ := t.typ.Stream()
			if t.kind != tEntity || data == nil {
				return nil, BadRequest(CodeBadRequest, "path", "$value applies to a media entity or a primitive property.")
			}
			t.kind = tMediaValue
			t.entityPath = upTo(i - 1)
			continue
		case "$ref", "$entity", "$each", "$query", "$filter", "$all", "$crossjoin", "$batch", "$metadata":
			return nil, Errorf(CodeNotImplemented, "The %s segment is not supported.", seg.Name)
		}
		if seg.IsQualified() && len(seg.Args) == 0 {
			if a := s.boundAction(t, seg.Name); a != nil {
				if err := callAction(t, a, i+1 < len(segs)); err != nil {
					return nil, err
				}
				continue
			}
			if et := s.model.EntityType(seg.Name); et == t.typ {
				continue // a cast to the type itself
			}
		}
		if t.kind == tEntity {
			if p := t.typ.Property(seg.Name); p != nil && len(seg.Args) == 0 {
				t.kind, t.props, t.entityPath = tProperty, []*edm.Property{p}, upTo(i-1)
				continue
			}
		}
		if t.kind == tCollection && len(seg.Args) == 0 && !seg.IsQualified() && t.typ.Navigation(seg.Name) == nil &&
			s.model.Action(seg.Name, t.typ, true) == nil {
			// A key given as a segment that reads as a name (Product/abc).
			if err := s.applySegmentKey(t, seg.Name); err != nil {
				return nil, err
			}
			continue
		}
		if n := t.typ.Navigation(seg.Name); n != nil {
			if t.kind != tEntity {
				return nil, BadRequest(CodeBadRequest, "path", fmt.Sprintf("The navigation property %s needs one entity before it: add a key.", n.Name))
			}
			s.navigate(t, n, upTo(i-1))
			if len(seg.Args) > 0 {
				if t.kind != tCollection {
					return nil, BadRequest(CodeBadRequest, "path", fmt.Sprintf("%s is single-valued: it takes no key.", n.Name))
				}
				if err := s.applyKey(t, seg.Args); err != nil {
					return nil, err
				}
			}
			continue
		}
		if !seg.IsQualified() && len(seg.Args) == 0 {
			if a := s.boundAction(t, seg.Name); a != nil {
				if err := callAction(t, a, i+1 < len(segs)); err != nil {
					return nil, err
				}
				continue
			}
		}
		if len(s.model.FunctionOverloads(seg.Name)) > 0 {
			return nil, Errorf(CodeNotImplemented, "Functions are not supported yet.")
		}
		return nil, NotFound(fmt.Sprintf("%s has no property, navigation or action %s.", t.typ.Name, seg.Name))
	}
	return t, nil
}

// boundAction returns the action named name that is bound to what t addresses (its type, as an entity or a
// collection), or nil.
func (s *Service) boundAction(t *target, name string) *edm.Action {
	if a := s.model.Action(name, t.typ, t.kind == tCollection); a != nil && a.Bound {
		return a
	}
	return nil
}

// callAction makes t the call of the bound action a; more tells that segments follow it, a 404. An action bound
// to a collection that is reached through a navigation is refused: its handler sees no Entity and would act on
// the whole entity set.
func callAction(t *target, a *edm.Action, more bool) error {
	if more {
		return NotFound(fmt.Sprintf("No segment may follow the action %s.", a.Name))
	}
	if a.BindingCollection && !t.direct {
		return Errorf(CodeNotImplemented,
			"The action %s is invoked on the entity set %s only, not through a navigation.", a.Name, a.BindingType)
	}
	t.kind, t.action = tAction, a
	return nil
}

// navigate moves t along the navigation n from the one entity t addresses (whose raw path is from).
func (s *Service) navigate(t *target, n *edm.NavigationProperty, from string) {
	t.scope.Path = append(t.scope.Path, plan.Step{Nav: n})
	var next *edm.EntitySet
	if t.ctxSet != nil && !n.ContainsTarget {
		next = t.ctxSet.Binding(n.Name)
	}
	if next == nil && !n.ContainsTarget {
		next = onlySet(s.model, n.TargetType())
	}
	t.ctxSet, t.ctxPath = next, ""
	if n.ContainsTarget {
		t.ctxPath = from + "/" + n.Name
	}
	t.typ, t.set, t.direct = n.TargetType(), nil, false
	if n.Collection {
		t.kind, t.single, t.toOne = tCollection, false, false
	} else {
		t.kind, t.single, t.toOne = tEntity, true, true
	}
}

// onlySet returns the one entity set of et, nil if it has none or several.
func onlySet(m *edm.Model, et *edm.EntityType) *edm.EntitySet {
	var found *edm.EntitySet
	for _, es := range m.EntitySets {
		if es.EntityType() == et {
			if found != nil {
				return nil
			}
			found = es
		}
	}
	return found
}

// applyKey narrows a collection to the entity with the key in args.
func (s *Service) applyKey(t *target, args []syntax.ArgList) error {
	if len(args) > 1 {
		return BadRequest(CodeBadRequest, "path", "A key is one parenthesised list.")
	}
	return s.narrow(t, args[0].Args)
}

func (s *Service) applySegmentKey(t *target, text string) error {
	props := t.typ.KeyProperties()
	if len(props) != 1 {
		return BadRequest(CodeBadRequest, "path", fmt.Sprintf("%s has a composite key: write it in parentheses.", t.typ.Name))
	}
	lit, err := syntax.ParseExpr(keySegmentLiteral(props[0], text))
	if err != nil {
		return BadRequest(CodeBadRequest, "path", fmt.Sprintf("%q is not a key of %s.", text, t.typ.Name))
	}
	l, ok := lit.(*syntax.Literal)
	if !ok {
		return BadRequest(CodeBadRequest, "path", fmt.Sprintf("%q is not a key of %s.", text, t.typ.Name))
	}
	return s.narrow(t, []syntax.Arg{{Value: l}})
}

// keySegmentLiteral turns the text of a key segment into literal syntax: strings are written bare.
func keySegmentLiteral(p *edm.Property, text string) string {
	if p.Type == edm.KindString || p.Enum != nil {
		return "'" + url.PathEscape(strings.ReplaceAll(text, "'", "''")) + "'"
	}
	return url.PathEscape(text)
}

// narrow restricts a collection to the entity with the key predicate key: of the entity set itself (a direct
// Set(key), the target of writes), or of the last navigation. The planner checks the key when it reads, writes
// when they convert it (Service.targetWhere).
func (s *Service) narrow(t *target, key []syntax.Arg) error {
	if n := len(t.scope.Path); n > 0 {
		t.scope.Path[n-1].Key = key
	} else {
		t.scope.Key = key
	}
	t.kind, t.single, t.toOne = tEntity, true, false
	return nil
}

// formatKey returns the key predicate of an entity for URLs: ('k'), (5) or (A='x',B=1), percent-encoded.
func formatKey(et *edm.EntityType, key []any) string {
	props := et.KeyProperties()
	var b strings.Builder
	b.WriteByte('(')
	for i, p := range props {
		if i > 0 {
			b.WriteByte(',')
		}
		if len(props) > 1 {
			b.WriteString(p.Name)
			b.WriteByte('=')
		}
		b.WriteString(keyLiteral(p, key[i]))
	}
	b.WriteByte(')')
	return b.String()
}

// keyLiteral writes one key value as a URL literal.
func keyLiteral(p *edm.Property, v any) string {
	v = normalize(p, v)
	if p.Enum != nil {
		if n, ok := v.(int64); ok {
			return "'" + url.PathEscape(p.Enum.Format(n)) + "'"
		}
	}
	switch x := v.(type) {
	case string:
		if p.Type == edm.KindGuid {
			return x
		}
		return "'" + escapeKey(strings.ReplaceAll(x, "'", "''")) + "'"
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case decimal.Decimal:
		return x.String()
	case edm.Date:
		return x.String()
	case edm.TimeOfDay:
		return x.String()
	case time.Time:
		return url.PathEscape(x.UTC().Format(time.RFC3339Nano))
	case time.Duration:
		return "duration'" + edm.FormatDuration(x) + "'"
	}
	return url.PathEscape(fmt.Sprint(v))
}

// escapeKey percent-encodes what cannot stand in a path segment, keeping quotes, @ and other characters that
// read well (user@example.com stays as it is).
func escapeKey(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b.WriteByte(c)
		case strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

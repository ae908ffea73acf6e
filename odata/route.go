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
	tFunction                        // a function call (bound or unbound; function.go)
	tOpenAPI                         // $openapi: the OpenAPI document (openapi.go)
	tBatch                           // $batch: a batch of requests (batch.go)
	tCrossJoin                       // $crossjoin(Set1,...): the combinations of the sets' entities (crossjoin.go)
	tAll                             // $all, $all/Ns.Type: the entities of every entity set (all.go)
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
	// entityID is the canonical path of the one entity t addresses when the path tells it without a key (a
	// singleton, a to-one containment); "" otherwise (Service.entityID makes it from the key). containedBase is
	// the canonical path of contained entities (the ids of a collection add their keys), "" when they are not.
	entityID      string
	containedBase string
	props         []*edm.Property // tProperty, tPropertyValue: the property and its members, outermost first
	// item is the ordinal of the member of an ordered collection a tProperty path addresses (Tags/0, Tags/-1
	// from the end), nil for the whole property (collection.go).
	item   *int64
	action *edm.Action
	// functions are the overloads a function call may mean (tFunction), funcArgs the arguments in its
	// parentheses; callFunction chooses the overload once the query's parameters are read too.
	functions []*edm.Function
	funcArgs  []syntax.Arg
	// funcOptions are the query options named after a parameter of a function call (OData 4.01), funcQuery
	// the other options of its query.
	funcOptions []syntax.CustomOption
	funcQuery   syntax.QueryString
	// composedRest is the raw path after the call of a composable function returning entities (a key, /$count,
	// a navigation, a property: "('k')/Category"), read from the entities the call returns (compose.go).
	composedRest string
	// ref marks a path ending in $ref: the references of the collection or entity before it (ref.go).
	ref bool
	// cast is the derived type of the last type cast segment (Products/Ns.Special), nil for none; context URLs
	// name it.
	cast *edm.EntityType
	path string // the raw path (without a leading "/"), for context URLs and next links
	// entityPath is the raw path of the entity a property or $value belongs to.
	entityPath string
	// room, set by route, is where serve makes the request that answers the target (routed).
	room *request
}

// routed is a target with room for the request that answers it and for the tree of its path: route makes all
// three (and the plan.Read the request's room holds) in one allocation.
type routed struct {
	target target
	req    request
	path   syntax.PathRoom
}

// resolve resolves a parsed path against the model: the first segment names a resource of the service, each
// further one moves the target along from what the segments before it addressed.
func (s *Service) resolve(rawPath string, path *syntax.ResourcePath) (*target, error) {
	return s.resolveIn(new(target), rawPath, path)
}

// resolveIn is resolve making the target in t, a zero target.
func (s *Service) resolveIn(t *target, rawPath string, path *syntax.ResourcePath) (*target, error) {
	raw := strings.Trim(rawPath, "/")
	t.path = raw
	if len(path.Segments) == 0 {
		return t, nil
	}
	r := &pathResolver{service: s, target: t, segments: path.Segments, raw: raw, offset: strings.Index(rawPath, raw)}
	complete, err := r.root(path)
	if err != nil {
		return nil, err
	}
	for i := 1; i < len(r.segments) && !complete; i++ {
		if err := r.segment(i); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// pathResolver resolves the segments of one resource path into its target.
type pathResolver struct {
	service  *Service
	target   *target
	segments []syntax.Segment
	raw      string // the path without its leading and trailing "/"
	offset   int    // where raw starts in the path the segment positions count in
}

// upTo returns the raw path up to the end of segment i.
func (r *pathResolver) upTo(i int) string {
	if i+1 < len(r.segments) {
		end := r.segments[i+1].Pos - 1 - r.offset
		if end >= 0 && end <= len(r.raw) {
			return r.raw[:end]
		}
	}
	return r.raw
}

// root resolves the first segment: $metadata, $openapi, an entity set (with its key), a singleton or an unbound
// action. It reports whether the target is complete, the segments after it ignored ($metadata).
func (r *pathResolver) root(path *syntax.ResourcePath) (complete bool, err error) {
	first, t, m := r.segments[0], r.target, r.service.model
	switch {
	case first.Name == "$metadata" && !first.Literal:
		t.kind = tMetadata
		return true, nil
	case path == openAPIPath:
		t.kind = tOpenAPI
		return true, nil
	case first.Name == "$batch" && !first.Literal && len(first.Args) == 0:
		if len(r.segments) > 1 {
			return false, NotFound("No segment may follow $batch.")
		}
		t.kind = tBatch
		return true, nil
	case first.Name == "$crossjoin" && !first.Literal:
		return false, r.crossJoin(first)
	case first.Name == "$all" && !first.Literal:
		return true, r.all()
	case strings.HasPrefix(first.Name, "$") && !first.Literal:
		return false, Errorf(CodeNotImplemented, "The %s resource is not supported.", first.Name)
	}
	if es := m.EntitySet(first.Name); es != nil {
		t.kind, t.typ, t.set, t.ctxSet, t.direct = tCollection, es.EntityType(), es, es, true
		t.scope.Set = es
		if len(first.Args) == 0 {
			return false, nil
		}
		return false, r.service.applyKey(t, first.Args)
	}
	if len(first.Args) == 0 {
		if sg := m.Singleton(first.Name); sg != nil {
			t.kind, t.typ, t.single = tEntity, sg.EntityType(), true
			t.ctxPath, t.entityID = sg.Name, sg.Name
			t.scope.Singleton = sg
			return false, nil
		}
		if a := m.Action(first.Name, nil, false); a != nil {
			return true, callUnbound(t, a, len(r.segments) > 1)
		}
	}
	if overloads := r.service.unboundFunctions(first.Name); len(overloads) > 0 {
		return true, r.function(0, overloads)
	}
	return false, NotFound(fmt.Sprintf("The service has no entity set %s.", first.Name))
}

// callUnbound makes t the call of the unbound action a; more tells that segments follow it, a 404.
func callUnbound(t *target, a *edm.Action, more bool) error {
	if more {
		return NotFound(fmt.Sprintf("No segment may follow the action %s.", a.Name))
	}
	t.kind, t.action = tAction, a
	return nil
}

// segment resolves segment i, which follows what the segments before it addressed.
func (r *pathResolver) segment(i int) error {
	seg, t := r.segments[i], r.target
	switch {
	case t.kind == tFunction && t.composedRest != "":
		return nil // the segments after a composable function, kept by function as composedRest
	case t.kind == tProperty:
		return r.member(seg)
	case t.kind == tCrossJoin:
		return Errorf(CodeNotImplemented, "The %s segment is not supported.", seg.Name)
	case t.kind != tCollection && t.kind != tEntity:
		return NotFound(fmt.Sprintf("No segment may follow %s.", r.segments[i-1].Name))
	case seg.Literal:
		// A key given as a segment (OData 4.01): Product/abc.
		if t.kind != tCollection {
			return NotFound(fmt.Sprintf("No resource matches the segment %s.", seg.Name))
		}
		return r.service.applySegmentKey(t, seg.Name)
	}
	switch {
	case seg.Name == "$count":
		return r.count()
	case seg.Name == "$value":
		return r.mediaValue(i)
	case seg.Name == "$ref":
		return r.ref(i)
	case seg.Name == "$filter":
		// filterInPath reads the $filter segments of a read; those reaching here are followed by others.
		return Errorf(CodeNotImplemented, "A $filter segment is served at the end of the path or before /$count only.")
	case unsupportedSegments[seg.Name]:
		return Errorf(CodeNotImplemented, "The %s segment is not supported.", seg.Name)
	}
	return r.name(i)
}

// member resolves a segment after a property: its /$value, or a member of a complex property.
func (r *pathResolver) member(seg syntax.Segment) error {
	t := r.target
	last := t.props[len(t.props)-1]
	if seg.Name == "$value" && !seg.Literal {
		if last.Complex != nil || last.Collection {
			return BadRequest(CodeBadRequest, "path", "$value applies to a primitive property only.")
		}
		t.kind = tPropertyValue
		return nil
	}
	if last.Collection && last.Complex == nil {
		return r.collectionMember(seg)
	}
	if last.Complex == nil || len(seg.Args) > 0 || seg.Literal {
		return NotFound(fmt.Sprintf("No resource matches the segment %s.", seg.Name))
	}
	member := findProperty(last.Properties(), seg.Name)
	if member == nil {
		return NotFound(fmt.Sprintf("%s has no member %s.", last.Name, seg.Name))
	}
	t.props = append(t.props, member)
	return nil
}

// unsupportedSegments are the system segments after a collection or an entity that the engine does not serve
// ($count, $value and $ref it does, $filter on reads: filterpath.go); other names starting with "$" are looked
// up as the names of the type.
var unsupportedSegments = map[string]bool{"$entity": true, "$each": true, "$query": true,
	"$all": true, "$crossjoin": true, "$batch": true, "$metadata": true}

// count resolves the /$count of a collection.
func (r *pathResolver) count() error {
	if r.target.kind != tCollection {
		return BadRequest(CodeBadRequest, "path", "$count applies to a collection.")
	}
	r.target.kind = tCount
	return nil
}

// mediaValue resolves the /$value of a media entity.
func (r *pathResolver) mediaValue(i int) error {
	t := r.target
	if data, _ := t.typ.Stream(); t.kind != tEntity || data == nil {
		return BadRequest(CodeBadRequest, "path", "$value applies to a media entity or a primitive property.")
	}
	t.kind = tMediaValue
	t.entityPath = r.upTo(i - 1)
	return nil
}

// name resolves a segment that names something of the target's type, trying in turn: a bound action or a cast
// to the type itself (qualified names), a property of an entity, a key written as a segment, a navigation
// property, a bound action (unqualified).
func (r *pathResolver) name(i int) error {
	seg, t := r.segments[i], r.target
	more := i+1 < len(r.segments)
	bare := len(seg.Args) == 0
	if seg.IsQualified() && bare {
		if a := r.service.boundAction(t, seg.Name); a != nil {
			return callAction(t, a, more)
		}
		if et := r.service.model.EntityType(seg.Name); et == t.typ {
			return nil // a cast to the type itself
		} else if et != nil {
			return r.cast(et)
		}
	}
	if t.kind == tEntity && bare {
		if p := t.typ.Property(seg.Name); p != nil {
			t.kind, t.props, t.entityPath = tProperty, []*edm.Property{p}, r.upTo(i-1)
			return nil
		}
	}
	if r.readsAsKey(seg) {
		return r.service.applySegmentKey(t, seg.Name)
	}
	if n := t.typ.Navigation(seg.Name); n != nil {
		return r.navigation(i, n)
	}
	if !seg.IsQualified() && bare {
		if a := r.service.boundAction(t, seg.Name); a != nil {
			return callAction(t, a, more)
		}
	}
	if len(r.service.model.FunctionOverloads(seg.Name)) > 0 {
		return r.function(i, r.service.boundFunctions(t, seg.Name))
	}
	return NotFound(fmt.Sprintf("%s has no property, navigation or action %s.", t.typ.Name, seg.Name))
}

// cast narrows the collection or entity of the target to the instances of et, a type derived from the
// target's: Products/Ns.Special holds the special products only, Products('k')/Ns.Special is a 404 when the
// product is of another type. The entities read through a cast are of that type; writes go to the entity set.
func (r *pathResolver) cast(et *edm.EntityType) error {
	t := r.target
	if !et.IsA(t.typ) {
		return BadRequest(CodeBadRequest, "path", fmt.Sprintf("The type %s is not derived from %s.", et.Name, t.typ.Name))
	}
	if n := len(t.scope.Path); n > 0 {
		t.scope.Path[n-1].Cast = et
	} else {
		t.scope.Cast = et
	}
	t.typ, t.set, t.direct, t.cast = et, nil, false, et
	return nil
}

// readsAsKey reports whether a segment after a collection is its key written as a segment that reads as a name
// (Product/abc): bare, and no navigation property, action or function of the type.
func (r *pathResolver) readsAsKey(seg syntax.Segment) bool {
	t := r.target
	return t.kind == tCollection && len(seg.Args) == 0 && !seg.IsQualified() && t.typ.Navigation(seg.Name) == nil &&
		r.service.model.Action(seg.Name, t.typ, true) == nil && len(r.service.boundFunctions(t, seg.Name)) == 0
}

// navigation moves the target along the navigation property n named by segment i, to the entity of its key
// when the segment has one.
func (r *pathResolver) navigation(i int, n *edm.NavigationProperty) error {
	t := r.target
	if t.kind != tEntity {
		return BadRequest(CodeBadRequest, "path", fmt.Sprintf("The navigation property %s needs one entity before it: add a key.", n.Name))
	}
	r.service.navigate(t, n, r.upTo(i-1))
	args := r.segments[i].Args
	if len(args) == 0 {
		return nil
	}
	if t.kind != tCollection {
		return BadRequest(CodeBadRequest, "path", fmt.Sprintf("%s is single-valued: it takes no key.", n.Name))
	}
	return r.service.applyKey(t, args)
}

// boundAction returns the action named name that is bound to what t addresses (its type, as an entity or a
// collection), or nil.
func (s *Service) boundAction(t *target, name string) *edm.Action {
	// An action bound to a base type applies to its derived types (after a cast).
	for typ := t.typ; typ != nil; typ = typ.Base() {
		if a := s.model.Action(name, typ, t.kind == tCollection); a != nil && a.Bound {
			return a
		}
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
	fromID := ""
	if n.ContainsTarget {
		if fromID = s.entityID(t); fromID == "" {
			fromID = from
		}
	}
	t.scope.Path = append(t.scope.Path, plan.Step{Nav: n})
	var next *edm.EntitySet
	if t.ctxSet != nil && !n.ContainsTarget {
		next = t.ctxSet.Binding(n.Name)
	}
	if next == nil && !n.ContainsTarget {
		next = s.model.EntitySetOf(n.TargetType())
	}
	t.ctxSet, t.ctxPath, t.containedBase = next, "", ""
	if n.ContainsTarget {
		t.ctxPath = from + "/" + n.Name
		t.containedBase = fromID + "/" + n.Name
	}
	t.typ, t.set, t.direct, t.entityID, t.cast = n.TargetType(), nil, false, "", nil
	if n.Collection {
		t.kind, t.single, t.toOne = tCollection, false, false
	} else {
		t.kind, t.single, t.toOne = tEntity, true, true
		t.entityID = t.containedBase
	}
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
	lit, err := s.limits.read.Query.ParseExpr(keySegmentLiteral(props[0], text))
	if err != nil {
		return BadRequest(CodeBadRequest, "path", fmt.Sprintf("%q is not a key of %s.", text, t.typ.Name))
	}
	l, ok := lit.(*syntax.Literal)
	if !ok {
		return BadRequest(CodeBadRequest, "path", fmt.Sprintf("%q is not a key of %s.", text, t.typ.Name))
	}
	return s.narrow(t, []syntax.Arg{{Value: l}})
}

// keySegmentLiteral turns the (decoded) text of a key segment into literal syntax as syntax.ParseExpr reads it,
// query-escaped so that a "+" stays a plus: strings are written bare.
func keySegmentLiteral(p *edm.Property, text string) string {
	if p.Type == edm.KindString || p.Enum != nil {
		return "'" + syntax.Escape(strings.ReplaceAll(text, "'", "''")) + "'"
	}
	return syntax.Escape(text)
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
	t.kind, t.single, t.toOne, t.entityID = tEntity, true, false, ""
	return nil
}

// entityID returns the canonical path of the one entity t addresses, for the ids of entities it contains: the
// key of its last segment as formatKey writes it, after its entity set or its container's path; "" when the
// path does not tell it.
func (s *Service) entityID(t *target) string {
	if t.entityID != "" || !t.single {
		return t.entityID
	}
	key := t.scope.Key
	if n := len(t.scope.Path); n > 0 {
		key = t.scope.Path[n-1].Key
	}
	values, err := s.planner.KeyValues(t.typ, key)
	switch {
	case key == nil || err != nil: // a to-one navigation, or a key the read reports
		return ""
	case t.containedBase != "":
		return t.containedBase + formatKey(t.typ, values)
	case t.ctxSet != nil:
		return t.ctxSet.Name + formatKey(t.typ, values)
	}
	return ""
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

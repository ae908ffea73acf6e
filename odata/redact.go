package odata

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
)

// redactions returns the properties the request of ctx may not read (SetOptions.Redact), nil when no set has a
// Redact or none names any.
func (s *Service) redactions(ctx context.Context) (*plan.Redactions, error) {
	if len(s.redactSets) == 0 {
		return nil, nil
	}
	names, err := perType(ctx, s.redactSets, "Redact", func(c *setConfig) func(context.Context) ([]string, error) { return c.Redact })
	if err != nil {
		return nil, err
	}
	return plan.NewRedactions(names)
}

// hiddenOf returns the properties of et the request of ctx may not read, nil when none.
func (s *Service) hiddenOf(ctx context.Context, et *edm.EntityType) (map[*edm.Property]bool, error) {
	if s.redactSets[et] == nil {
		return nil, nil
	}
	r, err := s.redactions(ctx)
	return r.Hidden(et), err
}

// answerLayout returns the layout entities of et are written with to the request of ctx: every property that
// is not lazy, but those it may not read, which are neither written nor part of their ETag.
func (s *Service) answerLayout(ctx context.Context, et *edm.EntityType) (*layout, error) {
	hidden, err := s.hiddenOf(ctx, et)
	if err != nil || hidden == nil {
		return s.defaultLayout(et), err
	}
	return newHiddenLayout(et, nil, hidden), nil
}

// checkReadable answers 403 when the path of t follows a navigation property the request may not follow, or
// addresses a property (or a member of a complex property) it may not read: a property path or a media entity's
// $value. Nothing is shown, whatever the entity.
func (s *Service) checkReadable(ctx context.Context, t *target) error {
	if len(s.redactSets) == 0 {
		return nil
	}
	if err := s.checkNavigations(ctx, t.scope); err != nil {
		return err
	}
	var props []*edm.Property
	switch t.kind {
	case tProperty, tPropertyValue:
		props = t.props
	case tMediaValue:
		data, contentType := t.typ.Stream()
		props = []*edm.Property{data, contentType}
	default:
		return nil
	}
	hidden, err := s.hiddenOf(ctx, t.typ)
	if err != nil || hidden == nil {
		return err
	}
	for _, p := range props {
		if hidden[p] {
			return Forbidden(fmt.Sprintf("The property %s of %s is not readable by this request.", propPath(t.props), t.typ.Name))
		}
	}
	return nil
}

// checkNavigations answers 403 when scope follows a navigation property the request of ctx may not follow.
func (s *Service) checkNavigations(ctx context.Context, scope plan.Scope) error {
	if len(scope.Path) == 0 {
		return nil
	}
	var from *edm.EntityType
	switch {
	case scope.Set != nil:
		from = scope.Set.EntityType()
	case scope.Singleton != nil:
		from = scope.Singleton.EntityType()
	}
	r, err := s.redactions(ctx)
	if err != nil || r == nil {
		return err
	}
	for _, step := range scope.Path {
		if r.HiddenNavigation(from, step.Nav) {
			return Forbidden(fmt.Sprintf("The navigation property %s of %s is not readable by this request.", step.Nav.Name, from.Name))
		}
		from = step.Nav.TargetType()
	}
	return nil
}

// checkWritable refuses a body that sends a property, a member of a complex property or a navigation (bound, or
// with entities inline) the request of ctx may not read, in the entity of type et or in the entities inline in it
// (400 NotReadable, naming it): a client writes only what it can read.
func (s *Service) checkWritable(ctx context.Context, et *edm.EntityType, members []member) error {
	if len(s.redactSets) == 0 {
		return nil
	}
	r, err := s.redactions(ctx)
	if err != nil || r == nil {
		return err
	}
	if name, of := hiddenMember(r, et, members, ""); name != "" {
		return &Error{Code: CodeNotReadable, Target: name,
			Message: fmt.Sprintf("The property %s of %s is not readable by this request, so it cannot be written.", name, of.Name)}
	}
	return nil
}

// hiddenMember returns the path (after prefix) of the first member of an entity of type et, or of an entity inline
// in it, that r redacts, and the entity type it belongs to; "" when there is none.
func hiddenMember(r *plan.Redactions, et *edm.EntityType, members []member, prefix string) (string, *edm.EntityType) {
	hidden := r.Hidden(et)
	for _, m := range members {
		name, _, _ := strings.Cut(m.name, "@")
		if p := et.Property(name); p != nil && name == m.name {
			if sent := hiddenSent(p, m.raw, hidden, p.Name); sent != "" {
				return prefix + sent, et
			}
			continue
		}
		n := et.Navigation(name)
		switch {
		case n == nil:
			continue // decodeEntity reports it, or it is an annotation
		case r.HiddenNavigation(et, n):
			return prefix + n.Name, et
		case name == m.name:
			if sent, of := hiddenInline(r, n, m.raw, prefix+n.Name); sent != "" {
				return sent, of
			}
		}
	}
	return "", nil
}

// hiddenInline is hiddenMember for the entities given inline (an object, or an array of them) for the
// navigation n.
func hiddenInline(r *plan.Redactions, n *edm.NavigationProperty, raw json.RawMessage, path string) (string, *edm.EntityType) {
	objects := []json.RawMessage{raw}
	if n.Collection && json.Unmarshal(raw, &objects) != nil {
		return "", nil // decodeEntity reports it
	}
	for i, o := range objects {
		members, err := parseObject(o)
		if err != nil {
			continue
		}
		where := path + "/"
		if n.Collection {
			where = path + "[" + strconv.Itoa(i) + "]/"
		}
		if sent, of := hiddenMember(r, n.TargetType(), members, where); sent != "" {
			return sent, of
		}
	}
	return "", nil
}

// hiddenSent returns the path (named path) of the property p, or of the first member of a complex value of p,
// that raw sends and hidden holds; "" when there is none.
func hiddenSent(p *edm.Property, raw json.RawMessage, hidden map[*edm.Property]bool, path string) string {
	if hidden[p] {
		return path
	}
	if p.Complex == nil || p.Collection || !plan.PartlyHidden(hidden, p) {
		return ""
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return "" // not an object: decodeEntity reports it
	}
	for name, v := range members {
		if m := p.Property(name); m != nil {
			if sent := hiddenSent(m, v, hidden, path+"/"+m.Name); sent != "" {
				return sent
			}
		}
	}
	return ""
}

// keepHidden sets on e, a full update of old, the stored values of the properties and members the request may
// not read (hidden), which it could not send: they keep their values. Lazy properties that old lacks are kept by
// the update already.
func keepHidden(et *edm.EntityType, e, old Entity, hidden map[*edm.Property]bool) {
	for _, p := range et.Properties {
		stored, loaded := old[p.Name]
		switch {
		case !loaded:
		case hidden[p]:
			e[p.Name] = stored
		case p.Complex != nil && !p.Collection && plan.PartlyHidden(hidden, p):
			e[p.Name] = keepHiddenMembers(p, e[p.Name], stored, hidden)
		}
	}
}

// keepHiddenMembers returns the complex value v of p with the stored values (from stored) of the members hidden
// holds.
func keepHiddenMembers(p *edm.Property, v, stored any, hidden map[*edm.Property]bool) any {
	sm, _ := asMap(stored)
	m, _ := asMap(v)
	out := make(map[string]any, len(p.Properties()))
	for _, member := range p.Properties() {
		switch {
		case hidden[member]:
			out[member.Name] = sm[member.Name]
		case member.Complex != nil && plan.PartlyHidden(hidden, member):
			out[member.Name] = keepHiddenMembers(member, m[member.Name], sm[member.Name], hidden)
		default:
			out[member.Name] = m[member.Name]
		}
	}
	return out
}

package odata

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/storekit/store/odata/edm"
)

// Deep insert: a POST body may hold related entities inline in its navigation properties (an object for a
// single-valued one, an array for a collection). They are created in the same transaction, each with the hooks
// of its entity set, which must offer POST (contained entities: their container's set): a single-valued
// navigation's entity before the entity (its foreign key properties then point to it), a collection's after it
// (their foreign key columns, or link rows, point back). The inline entities may hold their own, and binds.

// nested is a navigation property given inline in a create's body: the bodies of the entities to create.
type nested struct {
	nav   *edm.NavigationProperty
	items [][]member
}

// nestedItems decodes the inline value of the navigation n (target names it in messages) onto list.
func (d *decoder) nested(list []nested, n *edm.NavigationProperty, raw json.RawMessage) []nested {
	var objects []json.RawMessage
	if n.Collection {
		if err := json.Unmarshal(raw, &objects); err != nil {
			d.fail(CodeInvalidValue, n.Name, "%s takes an array of %s objects.", n.Name, n.TargetType().Name)
			return list
		}
	} else {
		objects = []json.RawMessage{raw}
	}
	item := nested{nav: n}
	for i, o := range objects {
		members, err := parseObject(o)
		if err != nil {
			target := n.Name
			if n.Collection {
				target += "[" + strconv.Itoa(i) + "]"
			}
			d.fail(CodeInvalidValue, target, "%s must be a %s object.", target, n.TargetType().Name)
			continue
		}
		item.items = append(item.items, members)
	}
	return append(list, item)
}

// nestedConfig returns the set and configuration the entities of n are created with: the target's one entity
// set, which must offer POST, or for a containment the container's configuration.
func (s *Service) nestedConfig(n *edm.NavigationProperty, container *setConfig, containerSet *edm.EntitySet) (*edm.EntitySet, *setConfig, error) {
	if n.ContainsTarget {
		return containerSet, newTypeConfig(n.TargetType(), SetOptions{Writes: container.Writes}), nil
	}
	set := onlySet(s.model, n.TargetType())
	if set == nil {
		return nil, nil, BadRequest(CodeInvalidValue, n.Name, fmt.Sprintf("%s entities belong to no single entity set: create them there and bind them.", n.TargetType().Name))
	}
	config := s.sets[set]
	if config.Writes&WritePost == 0 {
		return nil, nil, BadRequest(CodeInvalidValue, n.Name, fmt.Sprintf("%s takes no POST: its entities cannot be created inline.", set.Name))
	}
	return set, config, nil
}

// createNestedBefore creates the entities of the single-valued navigations of b whose foreign keys are
// properties of e, and points those properties to them.
func (s *Service) createNestedBefore(ctx context.Context, tx *Tx, req *request, e Entity, b *body, config *setConfig, set *edm.EntitySet) error {
	for _, n := range b.nested {
		if n.nav.Collection {
			continue
		}
		props := foreignKeyProperties(n.nav)
		if props == nil {
			return Errorf(CodeNotImplemented, "%s cannot be created inline: its foreign key is not a property.", n.nav.Name)
		}
		childSet, childConfig, err := s.nestedConfig(n.nav, config, set)
		if err != nil {
			return err
		}
		child, err := s.createNested(ctx, tx, req, n.nav.TargetType(), childSet, childConfig, n.items[0], n.nav.Name, nil)
		if err != nil {
			return err
		}
		for i, p := range props {
			referred := columnProperty(n.nav.TargetType(), n.nav.Join.TargetColumns[i])
			if referred == nil {
				return Errorf(CodeNotImplemented, "%s cannot be created inline: it is referred to by a column that is no property.", n.nav.Name)
			}
			e[p.Name] = child[referred.Name]
			b.sent[p.Name] = true
		}
	}
	return nil
}

// createNestedAfter creates the entities of the collection navigations of b, e being the entity just written:
// their foreign key properties point back to it, or link rows link them to it.
func (s *Service) createNestedAfter(ctx context.Context, tx *Tx, req *request, et *edm.EntityType, e Entity, b *body, config *setConfig, set *edm.EntitySet) error {
	for _, n := range b.nested {
		if !n.nav.Collection {
			continue
		}
		childSet, childConfig, err := s.nestedConfig(n.nav, config, set)
		if err != nil {
			return err
		}
		j := n.nav.Join
		back := map[string]any{} // the child's properties that refer to e
		if j.Through == nil {
			for i, c := range j.TargetColumns {
				p, referred := columnProperty(n.nav.TargetType(), c), columnProperty(et, j.SourceColumns[i])
				if p == nil || referred == nil {
					return Errorf(CodeNotImplemented, "%s cannot be created inline: its reference to %s is not a property.", n.nav.Name, et.Name)
				}
				back[p.Name] = e[referred.Name]
			}
		}
		for i, item := range n.items {
			where := n.nav.Name + "[" + strconv.Itoa(i) + "]"
			child, err := s.createNested(ctx, tx, req, n.nav.TargetType(), childSet, childConfig, item, where, back)
			if err != nil {
				return err
			}
			if j.Through != nil {
				if err := s.linkCreated(ctx, tx, n.nav, et, e, child); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// linkCreated links the entity e of type et to child, both just created, through the link table of n.
func (s *Service) linkCreated(ctx context.Context, tx *Tx, n *edm.NavigationProperty, et *edm.EntityType, e, child Entity) error {
	sourceKey, err := entityKey(et, e)
	if err != nil {
		return err
	}
	targetKey, err := entityKey(n.TargetType(), child)
	if err != nil {
		return err
	}
	return linkKeys(ctx, tx, n, et, sourceKey, targetKey)
}

// createNested creates one inline entity from its members, with fixed values set (its reference to the
// entity it is created with), and returns it as stored. Problems of its body are details whose targets start
// with where ("Descriptions[0]/LanguageKey").
func (s *Service) createNested(ctx context.Context, tx *Tx, req *request, et *edm.EntityType, set *edm.EntitySet, config *setConfig, members []member, where string, fixed map[string]any) (Entity, error) {
	b := decodeEntity(et, members, config, Create)
	s.resolveBinds(req, b)
	for name, v := range fixed {
		b.vals[name], b.sent[name] = v, true
		delete(b.bad, name)
	}
	for i := range b.details {
		b.details[i].Target = where + "/" + b.details[i].Target
	}
	return s.create(ctx, tx, req, et, set, config, b)
}

// columnProperty returns the primitive property of et stored in column c, nil if there is none.
func columnProperty(et *edm.EntityType, c string) *edm.Property {
	for _, p := range et.Properties {
		if p.Column == c && p.Complex == nil && !p.Collection {
			return p
		}
	}
	return nil
}

package odata

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/internal/plan"
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
	null  bool // null for a nullable single-valued navigation: no related entity
}

// nestedItems decodes the inline value of the navigation n (target names it in messages) onto list.
func (d *decoder) nested(list []nested, n *edm.NavigationProperty, raw json.RawMessage) []nested {
	var objects []json.RawMessage
	if !n.Collection && string(raw) == "null" {
		if !n.Nullable {
			d.fail(CodeInvalidValue, n.Name, "%s is required: it cannot be null.", n.Name)
			return list
		}
		return append(list, nested{nav: n, null: true})
	}
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
	set := s.model.EntitySetOf(n.TargetType())
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
		if n.nav.Collection || len(n.items) == 0 {
			continue // a value that is no object is a detail of b, answered with the others
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
	et, err := s.bodyType(members, et, true) // an inline entity of a derived type names it
	if e := (*Error)(nil); errors.As(err, &e) {
		e.Target = where + "/" + e.Target
	}
	if err != nil {
		return nil, err
	}
	b := decodeEntity(et, members, config, OpCreate)
	s.resolveBinds(req, b)
	inline(b, where, fixed)
	return s.create(ctx, tx, req, et, set, config, b)
}

// inline makes b the body of an entity given inline at where: the fixed values set (its reference to the entity
// it is written with), its problems' targets starting with where ("Descriptions[0]/LanguageKey").
func inline(b *body, where string, fixed map[string]any) {
	for name, v := range fixed {
		b.vals[name], b.sent[name] = v, true
		delete(b.bad, name)
	}
	for i := range b.details {
		b.details[i].Target = where + "/" + b.details[i].Target
	}
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

// Deep update (OData 4.01 part 1, 11.4.3.1): a PATCH or PUT body may hold related entities inline too, in the
// same transaction as the update. An object for a single-valued navigation whose foreign key is a property
// becomes the related entity: the entity of the target set with its key, updated as a PATCH would (the set must
// offer PATCH), or, without a key or with one no entity has, a new entity (as in a deep insert). An array for a
// collection replaces the related collection: each object with the key of an existing entity is updated and
// related, each other one created and related, and the related entities the array leaves out are removed from
// the relationship: their link rows are deleted, or their nullable reference cleared, or, when they cannot be
// without the entity (a required reference, a containment), they are deleted with their set's BeforeDelete hook
// (the set must offer DELETE).

// updateNestedBefore makes the objects of the single-valued navigations of b the entities the entity b updates
// refers to, before it is written: it updates or creates them and sets its foreign key properties in b.
func (s *Service) updateNestedBefore(ctx context.Context, tx *Tx, req *request, b *body, config *setConfig, set *edm.EntitySet) error {
	for _, n := range b.nested {
		if n.nav.Collection || len(n.items) == 0 && !n.null {
			continue // a value that is no object is a detail of b, answered with the others
		}
		props := foreignKeyProperties(n.nav)
		if props == nil {
			return Errorf(CodeNotImplemented, "%s cannot be updated inline: its foreign key is not a property.", n.nav.Name)
		}
		if n.null {
			for _, p := range props {
				b.vals[p.Name], b.sent[p.Name] = nil, true
			}
			continue
		}
		childSet, childConfig, err := s.nestedConfig(n.nav, config, set)
		if err != nil {
			return err
		}
		child, _, err := s.upsertNested(ctx, tx, req, n.nav.TargetType(), childSet, childConfig, n.items[0], n.nav.Name, nil)
		if err != nil {
			return err
		}
		for i, p := range props {
			referred := columnProperty(n.nav.TargetType(), n.nav.Join.TargetColumns[i])
			if referred == nil {
				return Errorf(CodeNotImplemented, "%s cannot be updated inline: it is referred to by a column that is no property.", n.nav.Name)
			}
			b.vals[p.Name], b.sent[p.Name] = child[referred.Name], true
		}
	}
	return nil
}

// updateNestedAfter replaces the related collections of e (of type et, just written) with the arrays of b.
func (s *Service) updateNestedAfter(ctx context.Context, tx *Tx, req *request, et *edm.EntityType, e Entity, b *body, config *setConfig, set *edm.EntitySet) error {
	for _, n := range b.nested {
		if !n.nav.Collection {
			continue
		}
		if err := s.replaceRelated(ctx, tx, req, et, e, n, config, set); err != nil {
			return err
		}
	}
	return nil
}

// replaceRelated makes the entities of n.items the related entities of e through the collection navigation
// n.nav.
func (s *Service) replaceRelated(ctx context.Context, tx *Tx, req *request, et *edm.EntityType, e Entity, n nested, config *setConfig, set *edm.EntitySet) error {
	nav, target := n.nav, n.nav.TargetType()
	childSet, childConfig, err := s.nestedConfig(nav, config, set)
	if err != nil {
		return err
	}
	j := nav.Join
	sourceVals := make([]any, len(j.SourceColumns))
	for i, c := range j.SourceColumns {
		p := columnProperty(et, c)
		if p == nil {
			return Errorf(CodeNotImplemented, "%s cannot be updated inline: its join column %s is not a property.", nav.Name, c)
		}
		sourceVals[i] = e[p.Name]
	}
	back := map[string]any{} // the child's properties that refer to e
	if j.Through == nil {
		for i, c := range j.TargetColumns {
			p := columnProperty(target, c)
			if p == nil {
				return Errorf(CodeNotImplemented, "%s cannot be updated inline: its reference to %s is not a property.", nav.Name, et.Name)
			}
			back[p.Name] = sourceVals[i]
		}
	}
	related, err := s.relatedKeys(ctx, tx, nav, sourceVals)
	if err != nil {
		return err
	}
	kept := map[string]bool{}
	for i, item := range n.items {
		where := nav.Name + "[" + strconv.Itoa(i) + "]"
		child, created, err := s.upsertNested(ctx, tx, req, target, childSet, childConfig, item, where, back)
		if err != nil {
			return err
		}
		key, err := entityKey(target, child)
		if err != nil {
			return err
		}
		id := plan.LinkKey(key...)
		kept[id] = true
		if j.Through != nil && (created || related[id] == nil) {
			if err := s.linkCreated(ctx, tx, nav, et, e, child); err != nil {
				return err
			}
		}
	}
	for id, key := range related {
		if kept[id] {
			continue
		}
		if err := s.removeRelated(ctx, tx, nav, sourceVals, key, childConfig); err != nil {
			return err
		}
	}
	return nil
}

// relatedKeys returns the keys of the entities related through the collection navigation n to the entity whose
// join columns hold sourceVals, by plan.LinkKey of the key.
func (s *Service) relatedKeys(ctx context.Context, tx *Tx, n *edm.NavigationProperty, sourceVals []any) (map[string][]any, error) {
	target, j, names := n.TargetType(), n.Join, tx.names()
	var where sq.Sqlizer
	if j.Through == nil {
		eq := sq.Eq{}
		for i, c := range j.TargetColumns {
			eq[names.QuoteIdent(c)] = sourceVals[i]
		}
		where = eq
	} else {
		link := sq.Select(modelsql.Columns(names, "", j.Through.TargetColumns)...).From(names.QuoteIdent(j.Through.Table))
		for i, c := range j.Through.SourceColumns {
			link = link.Where(sq.Eq{names.QuoteIdent(c): sourceVals[i]})
		}
		where = modelsql.TupleIn(names, "", j.TargetColumns, link)
	}
	list, err := tx.Query(ctx, target, where)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]any, len(list))
	for _, e := range list {
		key, err := entityKey(target, e)
		if err != nil {
			return nil, err
		}
		out[plan.LinkKey(key...)] = key
	}
	return out, nil
}

// removeRelated removes the entity of target key from the relationship n of the entity whose join columns hold
// sourceVals: its link row, its nullable reference, or the entity itself (config is its set's).
func (s *Service) removeRelated(ctx context.Context, tx *Tx, n *edm.NavigationProperty, sourceVals, key []any, config *setConfig) error {
	target, j := n.TargetType(), n.Join
	if j.Through != nil {
		targetVals, err := tx.columnValues(ctx, target, key, j.TargetColumns)
		if err != nil {
			return err
		}
		return tx.deleteLinkRow(ctx, j.Through, sourceVals, targetVals)
	}
	if !n.ContainsTarget && columnsNullable(target, j.TargetColumns, n.Partner) {
		return tx.setColumns(ctx, target, key, j.TargetColumns, make([]any, len(j.TargetColumns)))
	}
	if config.Writes&WriteDelete == 0 {
		return BadRequest(CodeInvalidValue, n.Name, fmt.Sprintf(
			"The array of %s leaves out a %s that cannot be without this entity, and %s cannot be deleted here: include it.", n.Name, target.Name, target.Name))
	}
	if config.Hooks.BeforeDelete != nil {
		old, err := tx.Get(ctx, target, key...)
		if err != nil {
			return err
		}
		if err := config.Hooks.BeforeDelete(ctx, tx, old); err != nil {
			return err
		}
	}
	return tx.Delete(ctx, target, key...)
}

// upsertNested updates the entity of et whose key the members give, as a PATCH of its set would (with fixed
// values set), or creates one from them when they give no key or one no entity has. It returns the entity as
// stored and whether it was created.
func (s *Service) upsertNested(ctx context.Context, tx *Tx, req *request, et *edm.EntityType, set *edm.EntitySet, config *setConfig, members []member, where string, fixed map[string]any) (Entity, bool, error) {
	key, ok := membersKey(et, members, fixed)
	if ok {
		old, err := tx.Get(ctx, et, key...)
		switch {
		case err == nil:
			if config.Writes&WritePatch == 0 {
				return nil, false, BadRequest(CodeInvalidValue, where, fmt.Sprintf("%s takes no PATCH: its entities cannot be updated inline.", set.Name))
			}
			b := decodeEntity(et, members, config, OpPatch)
			s.resolveBinds(req, b)
			if len(b.nested) > 0 {
				return nil, false, BadRequest(CodeInvalidValue, where+"/"+b.nested[0].nav.Name, "Related entities are updated inline one level deep.")
			}
			inline(b, where, fixed)
			stored, err := s.update(ctx, tx, &Change{Op: OpPatch, Set: set, Old: old, Sent: b.sent, typ: et}, config, b)
			return stored, false, err
		case !errors.Is(err, ErrNotFound):
			return nil, false, err
		}
	}
	created, err := s.createNested(ctx, tx, req, et, set, config, members, where, fixed)
	return created, true, err
}

// membersKey returns the key of et that the members of a body give, with the fixed values (the reference to
// the entity it is related to, part of a composite key such as (ProductID, LanguageKey)); false when they do
// not give all of it.
func membersKey(et *edm.EntityType, members []member, fixed map[string]any) ([]any, bool) {
	props := et.KeyProperties()
	key := make([]any, len(props))
	var d decoder
	for i, p := range props {
		if v, ok := fixed[p.Name]; ok && v != nil {
			key[i] = v
			continue
		}
		found := false
		for _, m := range members {
			if m.name == p.Name {
				v, ok := d.value(propType(p), p.Name, m.raw)
				if !ok || v == nil {
					return nil, false
				}
				key[i], found = v, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return key, true
}

package odata

import (
	"github.com/storekit/store/odata/edm"
)

// capabilities is the Org.OData.Capabilities.V1 namespace, whose terms say what a service allows.
const capabilities = "Org.OData.Capabilities.V1."

// capabilities returns the Capabilities annotations $metadata carries, derived from what the service does with
// each entity set and singleton, so that clients and tools (code generators, the OpenAPI converter) offer only
// what is allowed: the writes a set offers (Insert-, Update- and DeleteRestrictions: a read-only set is
// read-only to them), the properties $filter and $orderby cannot use (Filter- and SortRestrictions), $expand
// (ExpandRestrictions, for a type with navigations) and $search (SearchRestrictions), that navigations take no
// writes (NavigationRestrictions), change tracking on the sets that offer it (ChangeTracking); on the container, $batch and key-as-segment URLs. Singletons get none: the
// terms of a singleton's target are read by some clients as an entity set's.
func (s *Service) capabilities() []edm.Annotations {
	container := s.model.Namespace + "." + s.model.Container
	out := []edm.Annotations{{Target: container, Terms: []edm.Annotation{
		{Term: capabilities + "BatchSupported", Value: true},
		{Term: capabilities + "BatchSupport", Value: edm.Record{Properties: []edm.PropertyValue{
			{Property: "Supported", Value: true},
			{Property: "SupportedFormats", Value: []any{"multipart/mixed", "application/json"}},
		}}},
		{Term: capabilities + "KeyAsSegmentSupported", Value: true},
	}}}
	for _, es := range s.model.EntitySets {
		writes := s.sets[es].Writes
		terms := []edm.Annotation{
			restriction("InsertRestrictions", "Insertable", writes&WritePost != 0),
			restriction("UpdateRestrictions", "Updatable", writes&(WritePut|WritePatch) != 0),
			restriction("DeleteRestrictions", "Deletable", writes&WriteDelete != 0),
		}
		terms = append(terms, readCapabilities(es.EntityType())...)
		if s.sets[es].TrackChanges {
			terms = append(terms, changeTracking(es.EntityType()))
		}
		out = append(out, edm.Annotations{Target: container + "/" + es.Name, Terms: terms})
	}
	return append(out, s.collectionCapabilities()...)
}

// core is the Org.OData.Core.V1 namespace.
const core = "Org.OData.Core.V1."

// collectionCapabilities say of every collection property that it is ordered (its side table keeps the items'
// ordinals: members are addressed by ordinal) and, where a set of its type takes writes of it, that it takes
// positional inserts ($index, collection.go).
func (s *Service) collectionCapabilities() []edm.Annotations {
	var out []edm.Annotations
	for _, t := range s.model.EntityTypes {
		for _, p := range t.Properties {
			if !p.Collection {
				continue
			}
			terms := []edm.Annotation{{Term: core + "Ordered", Value: true}}
			for _, es := range s.model.EntitySets {
				if config := s.sets[es]; es.EntityType() == t && config.Writes&WritePatch != 0 && !config.fixed(p) {
					terms = append(terms, edm.Annotation{Term: core + "PositionalInsert", Value: true})
					break
				}
			}
			out = append(out, edm.Annotations{Target: s.model.Namespace + "." + t.Name + "/" + p.Name, Terms: terms})
		}
	}
	return out
}

// restriction is a Capabilities restriction term whose record has one Boolean property.
func restriction(term, property string, allowed bool) edm.Annotation {
	return edm.Annotation{Term: capabilities + term,
		Value: edm.Record{Properties: []edm.PropertyValue{{Property: property, Value: allowed}}}}
}

// readCapabilities are the query capabilities of the entities of type t: Stream properties cannot be filtered
// by; complex, collection and Stream properties cannot be ordered by; navigations can be expanded; the
// Searchable properties make $search available.
func readCapabilities(t *edm.EntityType) []edm.Annotation {
	var nonFilterable, nonSortable []any
	searchable := false
	for _, p := range t.Properties {
		if p.Type == edm.KindStream {
			nonFilterable = append(nonFilterable, edm.PropertyPath(p.Name))
		}
		if p.Type == edm.KindStream || p.Complex != nil || p.Collection {
			nonSortable = append(nonSortable, edm.PropertyPath(p.Name))
		}
		searchable = searchable || p.Searchable
	}
	filter := []edm.PropertyValue{{Property: "Filterable", Value: true}}
	if len(nonFilterable) > 0 {
		filter = append(filter, edm.PropertyValue{Property: "NonFilterableProperties", Value: nonFilterable})
	}
	sort := []edm.PropertyValue{{Property: "Sortable", Value: true}}
	if len(nonSortable) > 0 {
		sort = append(sort, edm.PropertyValue{Property: "NonSortableProperties", Value: nonSortable})
	}
	terms := []edm.Annotation{
		{Term: capabilities + "FilterRestrictions", Value: edm.Record{Properties: filter}},
		{Term: capabilities + "SortRestrictions", Value: edm.Record{Properties: sort}},
		restriction("SearchRestrictions", "Searchable", searchable),
		restriction("CountRestrictions", "Countable", true),
	}
	if len(t.Navigations) > 0 {
		terms = append(terms, restriction("ExpandRestrictions", "Expandable", true))
	}
	if n := navigationRestrictions(t); n != nil {
		terms = append(terms, *n)
	}
	return terms
}

// navigationRestrictions says that no navigation of t takes writes (the engine writes entities through their
// own sets, and links through the properties of their bodies): a NavigationRestrictions term with a restricted
// property per navigation, nil when t has none.
func navigationRestrictions(t *edm.EntityType) *edm.Annotation {
	if len(t.Navigations) == 0 {
		return nil
	}
	restricted := make([]any, len(t.Navigations))
	for i, n := range t.Navigations {
		restricted[i] = edm.Record{Properties: []edm.PropertyValue{
			{Property: "NavigationProperty", Value: edm.NavigationPropertyPath(n.Name)},
			{Property: "InsertRestrictions", Value: edm.Record{Properties: []edm.PropertyValue{{Property: "Insertable", Value: false}}}},
			{Property: "UpdateRestrictions", Value: edm.Record{Properties: []edm.PropertyValue{{Property: "Updatable", Value: false}}}},
			{Property: "DeleteRestrictions", Value: edm.Record{Properties: []edm.PropertyValue{{Property: "Deletable", Value: false}}}},
		}}
	}
	return &edm.Annotation{Term: capabilities + "NavigationRestrictions",
		Value: edm.Record{Properties: []edm.PropertyValue{{Property: "RestrictedProperties", Value: restricted}}}}
}

// changeTracking says that a set of type t serves delta links (SetOptions.TrackChanges): Supported, with the
// properties a $filter of the defining query may use (those FilterRestrictions allows) and no expandable
// properties (a read with $expand answers without a delta link).
func changeTracking(t *edm.EntityType) edm.Annotation {
	var filterable []any
	for _, p := range t.Properties {
		if p.Type != edm.KindStream {
			filterable = append(filterable, edm.PropertyPath(p.Name))
		}
	}
	return edm.Annotation{Term: capabilities + "ChangeTracking", Value: edm.Record{Properties: []edm.PropertyValue{
		{Property: "Supported", Value: true},
		{Property: "FilterableProperties", Value: filterable},
		{Property: "ExpandableProperties", Value: []any{}},
	}}}
}

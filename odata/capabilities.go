package odata

import (
	"fmt"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/syntax"
)

// capabilities is the Org.OData.Capabilities.V1 namespace, whose terms say what a service allows.
const capabilities = "Org.OData.Capabilities.V1."

// capabilities returns the Capabilities annotations $metadata carries, derived from what the service does with
// each entity set and singleton, so that clients and tools (code generators, the OpenAPI converter) offer only
// what is allowed: the writes a set offers (Insert-, Update- and DeleteRestrictions: a read-only set is
// read-only to them), the properties $filter and $orderby cannot use (Filter- and SortRestrictions), $expand
// (ExpandRestrictions, for a type with navigations) and $search (SearchRestrictions), that navigations take no
// writes (NavigationRestrictions), change tracking on the sets that offer it (ChangeTracking); on the container, $batch and
// key-as-segment URLs, the canonical functions of expressions (FilterFunctions: no geo.*, which clients thus know
// is not served) and the $apply transformations (Aggregation.ApplySupported). Singletons get none: the
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
		{Term: capabilities + "FilterFunctions", Value: anyStrings(plan.FilterFunctions())},
		{Term: aggregation + "ApplySupported", Value: edm.Record{Properties: []edm.PropertyValue{
			{Property: "Transformations", Value: anyStrings(plan.ApplyTransformations())},
			{Property: "Rollup", Value: edm.EnumValue(aggregation + "RollupType/SingleHierarchy")},
		}}},
	}}}
	for _, es := range s.model.EntitySets {
		writes := s.sets[es].Writes
		terms := []edm.Annotation{
			restriction("InsertRestrictions", "Insertable", writes&WritePost != 0),
			restriction("UpdateRestrictions", "Updatable", writes&(WritePut|WritePatch) != 0),
			restriction("DeleteRestrictions", "Deletable", writes&WriteDelete != 0),
		}
		terms = append(terms, readCapabilities(es.EntityType(), &s.sets[es].SetOptions)...)
		if s.sets[es].TrackChanges {
			terms = append(terms, changeTracking(es.EntityType(), s.sets[es].NoFilter))
		}
		if writes == 0 {
			terms = append(terms, edm.Annotation{Term: core + "Permissions", Value: edm.EnumValue(core + "Permission/Read")})
		}
		out = append(out, edm.Annotations{Target: container + "/" + es.Name, Terms: terms})
	}
	return append(out, s.collectionCapabilities()...)
}

// aggregation is the Org.OData.Aggregation.V1 namespace: ApplySupported says which $apply transformations the
// service translates (one rollup per groupby: SingleHierarchy).
const aggregation = "Org.OData.Aggregation.V1."

// anyStrings is ss as the []any of a collection annotation value.
func anyStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
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

// readCapabilities are the query capabilities of the entities of type t in a set with the options opts: Stream
// properties cannot be filtered by; complex, collection and Stream properties cannot be ordered by; navigations
// can be expanded; the Searchable properties make $search available; and what the set declares it does not
// take (NoFilter, NoOrderBy, NoCount, NoExpand, NoSelect) is not filterable, sortable, countable, expandable
// or supported.
func readCapabilities(t *edm.EntityType, opts *SetOptions) []edm.Annotation {
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
	filter := []edm.PropertyValue{{Property: "Filterable", Value: !opts.NoFilter}}
	if len(nonFilterable) > 0 && !opts.NoFilter {
		filter = append(filter, edm.PropertyValue{Property: "NonFilterableProperties", Value: nonFilterable})
	}
	sort := []edm.PropertyValue{{Property: "Sortable", Value: !opts.NoOrderBy}}
	if len(nonSortable) > 0 && !opts.NoOrderBy {
		sort = append(sort, edm.PropertyValue{Property: "NonSortableProperties", Value: nonSortable})
	}
	terms := []edm.Annotation{
		{Term: capabilities + "FilterRestrictions", Value: edm.Record{Properties: filter}},
		{Term: capabilities + "SortRestrictions", Value: edm.Record{Properties: sort}},
		restriction("SearchRestrictions", "Searchable", searchable),
		restriction("CountRestrictions", "Countable", !opts.NoCount),
	}
	if len(t.Navigations) > 0 || opts.NoExpand {
		terms = append(terms, restriction("ExpandRestrictions", "Expandable", !opts.NoExpand))
	}
	if opts.NoSelect {
		terms = append(terms, restriction("SelectSupport", "Supported", false))
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
// properties a $filter of the defining query may use (those FilterRestrictions allows: none when the set takes no
// $filter) and no expandable properties (a read with $expand answers without a delta link).
func changeTracking(t *edm.EntityType, noFilter bool) edm.Annotation {
	filterable := []any{}
	for _, p := range t.Properties {
		if p.Type != edm.KindStream && !noFilter {
			filterable = append(filterable, edm.PropertyPath(p.Name))
		}
	}
	return edm.Annotation{Term: capabilities + "ChangeTracking", Value: edm.Record{Properties: []edm.PropertyValue{
		{Property: "Supported", Value: true},
		{Property: "FilterableProperties", Value: filterable},
		{Property: "ExpandableProperties", Value: []any{}},
	}}}
}

// restrictedOptions answers a read whose options a set it reads declares it does not take (SetOptions.NoFilter,
// NoOrderBy, NoCount, NoExpand, NoSelect) with 400 OptionNotAllowed: the options q of the read itself, by the
// set whose entities the path addresses (the set, or the target of a navigation path), the /$count segment, and
// the options nested in each of the expansions (nil before the read is planned) by the set of the expanded
// entities, level by level. nil when every set allows what the read asks.
func (s *Service) restrictedOptions(t *target, q *syntax.Query, expands []*plan.Expand) error {
	set := t.set
	if set == nil {
		set = t.ctxSet
	}
	if t.kind == tCount {
		if config := s.sets[set]; config != nil && config.NoCount {
			return &Error{Code: CodeOptionNotAllowed, Target: "$count",
				Message: fmt.Sprintf("The entity set %s does not support $count.", set.Name)}
		}
	}
	if q == nil {
		return nil
	}
	if option := s.refusedOption(set, q); option != "" {
		return &Error{Code: CodeOptionNotAllowed, Target: option,
			Message: fmt.Sprintf("The entity set %s does not support %s.", set.Name, canonicalOption(q, option))}
	}
	return s.restrictedExpands(set, expands, spelt(q, "$expand"))
}

// restrictedInvalid is restrictedOptions for a read the planner refused: when the query parses, a restriction of
// the addressed set answers rather than the planner's error (a set that takes no $filter refuses every $filter,
// valid or not). The options nested in $expand need the plan, so the planner's error answers for them.
func (s *Service) restrictedInvalid(t *target, raw string, limits *requestLimits) error {
	set := t.set
	if set == nil {
		set = t.ctxSet
	}
	config := s.sets[set]
	if config == nil || !(config.NoFilter || config.NoOrderBy || config.NoCount || config.NoExpand || config.NoSelect) {
		return nil
	}
	q, err := limits.read.Query.ParseQuery(raw)
	if err != nil {
		q = nil
	}
	return s.restrictedOptions(t, q, nil)
}

// restrictedExpands checks the options nested in the expansions of entities of the set from (nil when
// unknown): each expansion's own by the set of its targets, then theirs. option is the $expand option as the
// client spelt it, the target of the answer.
func (s *Service) restrictedExpands(from *edm.EntitySet, expands []*plan.Expand, option string) error {
	for _, e := range expands {
		var set *edm.EntitySet
		if !e.Nav.ContainsTarget {
			if from != nil {
				set = from.Binding(e.Nav.Name)
			}
			if set == nil {
				set = s.model.EntitySetOf(e.Nav.TargetType())
			}
		}
		config := s.sets[set]
		if config == nil {
			if err := s.restrictedExpands(nil, e.Expands, option); err != nil {
				return err
			}
			continue
		}
		refused := ""
		switch {
		case e.CountOnly && config.NoCount:
			refused = "$count"
		case e.Query != nil:
			refused = canonicalOption(e.Query, s.refusedOption(set, e.Query))
		}
		if refused != "" {
			return &Error{Code: CodeOptionNotAllowed, Target: option, Message: fmt.Sprintf(
				"The entity set %s does not support %s, which the expansion of %s asks for.", set.Name, refused, e.Nav.Name)}
		}
		if err := s.restrictedExpands(set, e.Expands, option); err != nil {
			return err
		}
	}
	return nil
}

// refusedOption returns the first option of q the set does not take, as the client spelt it; "" when it takes
// them all (and for no set).
func (s *Service) refusedOption(set *edm.EntitySet, q *syntax.Query) string {
	config := s.sets[set]
	if config == nil {
		return ""
	}
	for _, o := range q.Options {
		var refused bool
		switch o.Name {
		case "$filter":
			refused = config.NoFilter
		case "$orderby":
			refused = config.NoOrderBy
		case "$count":
			refused = config.NoCount && q.Count != nil && *q.Count
		case "$expand":
			refused = config.NoExpand
		case "$select":
			refused = config.NoSelect
		}
		if refused {
			return o.Spelt
		}
	}
	return ""
}

// spelt returns the spelling of the option named name in q (canonically, "$expand"), name when q lacks it.
func spelt(q *syntax.Query, name string) string {
	for _, o := range q.Options {
		if o.Name == name {
			return o.Spelt
		}
	}
	return name
}

// canonicalOption returns the canonical name of the option q has spelt so ("filter" -> "$filter"), for
// messages; "" for "".
func canonicalOption(q *syntax.Query, spelling string) string {
	for _, o := range q.Options {
		if o.Spelt == spelling && spelling != "" {
			return o.Name
		}
	}
	return spelling
}

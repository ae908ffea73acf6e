package odata

import "github.com/storekit/store/odata/edm"

// requiresIfMatch reports whether a change of the entity t addresses needs an If-Match header: the
// RequireIfMatch of the set it is addressed in, or, reached through a navigation, of the set it belongs to.
// Singletons need none.
func (s *Service) requiresIfMatch(t *target) bool {
	if writtenSingleton(t) != nil {
		return false
	}
	set := t.set
	if set == nil {
		set = t.ctxSet
	}
	config := s.sets[set]
	return config != nil && config.RequireIfMatch
}

// concurrencyAnnotations says of every set with RequireIfMatch that changes of its entities need an ETag:
// Core.OptimisticConcurrency with the properties the ETag is computed over (none for a type whose ETag is its
// row version: an empty collection says the service does not tell how it computes ETags). Sets without it get no term, as the
// term means that a change without If-Match is refused (OData 4.01 Protocol 8.2.4: 428 Precondition Required).
func (s *Service) concurrencyAnnotations() []edm.Annotations {
	var out []edm.Annotations
	for _, es := range s.model.EntitySets {
		if config := s.sets[es]; config == nil || !config.RequireIfMatch {
			continue
		}
		paths := []any{} // a row version is no property: the ETag's properties are not told
		for _, p := range es.EntityType().ETagProperties() {
			if p == es.EntityType().RowVersion() {
				continue
			}
			paths = append(paths, edm.PropertyPath(p.Name))
		}
		out = append(out, edm.Annotations{Target: s.model.Namespace + "." + s.model.Container + "/" + es.Name,
			Terms: []edm.Annotation{{Term: core + "OptimisticConcurrency", Value: paths}}})
	}
	return out
}

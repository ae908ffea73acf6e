package edm

import "fmt"

// aggregationNamespace is the namespace of the Aggregation vocabulary.
const aggregationNamespace = "Org.OData.Aggregation.V1"

// RecursiveHierarchy declares that the entities of a type form a tree (a forest): each node names its parent
// by a to-one navigation of the type to itself, and its node value is a property. It is written to $metadata as
// the annotation Org.OData.Aggregation.V1.RecursiveHierarchy of the entity type with the qualifier, the
// hierarchy's name in the hierarchical transformations of $apply (Data Aggregation 4.0, section 6):
//
//	descendants($root/Categories,Tree,Id,filter(Name eq 'Books'))
//
// The parent navigation is one foreign key column whose value is the parent's node value (the node property is
// the column the foreign key refers to, usually the key); a null foreign key makes a root.
type RecursiveHierarchy struct {
	// Qualifier names the hierarchy ("Tree").
	Qualifier string
	// NodeProperty names the property holding the node value; the key when empty (a type with one key
	// property).
	NodeProperty string
	// ParentNavigation names the to-one navigation to the parent node.
	ParentNavigation string
}

// RecursiveHierarchy returns the recursive hierarchy of t (or of a base type of t) with the qualifier, false
// when there is none.
func (t *EntityType) RecursiveHierarchy(qualifier string) (RecursiveHierarchy, bool) {
	for u := t; u != nil; u = u.base {
		for _, h := range u.RecursiveHierarchies {
			if h.Qualifier == qualifier {
				return h, true
			}
		}
	}
	return RecursiveHierarchy{}, false
}

// recursiveHierarchies checks the recursive hierarchies of t once its navigations are built.
func (b *builder) recursiveHierarchies(t *EntityType) {
	seen := map[string]bool{}
	for i := range t.RecursiveHierarchies {
		h := &t.RecursiveHierarchies[i]
		if h.NodeProperty == "" && len(t.key) == 1 {
			h.NodeProperty = t.key[0].Name
		}
		where := fmt.Sprintf("entity type %q: recursive hierarchy %q", t.Name, h.Qualifier)
		report := func(msg string) { b.problems.add(where, msg) }
		if !isIdentifier(h.Qualifier) {
			report("the qualifier must be an identifier")
		}
		if seen[h.Qualifier] {
			report("declared twice")
		}
		seen[h.Qualifier] = true
		node := t.Property(h.NodeProperty)
		if node == nil || node.Complex != nil || node.Collection {
			report(fmt.Sprintf("NodeProperty %q is not a primitive property of the type", h.NodeProperty))
			continue
		}
		parent := t.Navigation(h.ParentNavigation)
		switch {
		case parent == nil:
			report(fmt.Sprintf("ParentNavigation %q is not a navigation of the type", h.ParentNavigation))
		case parent.Collection || parent.target == nil || parent.target.Root() != t.Root() ||
			parent.Join.Through != nil || len(parent.Join.SourceColumns) != 1:
			report(fmt.Sprintf("ParentNavigation %q must be a to-one navigation by one foreign key column to the type itself", h.ParentNavigation))
		case len(parent.Join.TargetColumns) != 1 || parent.Join.TargetColumns[0] != node.Column:
			report(fmt.Sprintf("the foreign key of ParentNavigation %q must refer to the column of NodeProperty %q", h.ParentNavigation, h.NodeProperty))
		}
	}
}

// recursiveHierarchyAnnotations are the Aggregation.RecursiveHierarchy annotations of t.
func (a *annotator) recursiveHierarchyAnnotations(list []annotation, t *EntityType) []annotation {
	for _, h := range t.RecursiveHierarchies {
		a.use(aggregationNamespace)
		list = append(list, annotation{term: aggregationNamespace + ".RecursiveHierarchy", qualifier: h.Qualifier,
			value: &record{fields: []field{{name: "NodeProperty", value: PropertyPath(h.NodeProperty)},
				{name: "ParentNavigationProperty", value: NavigationPropertyPath(h.ParentNavigation)}}}})
	}
	return list
}

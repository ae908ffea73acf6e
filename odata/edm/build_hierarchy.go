package edm

import (
	"fmt"
	"slices"
)

// hierarchies resolves the base types of the entity types and returns the types in an order where every base
// comes before the types derived from it (roots in declaration order, each followed by what derives from it).
// A base type that does not exist or a cycle is reported; such a type is then built as a root.
func (b *builder) hierarchies() []*EntityType {
	for _, t := range b.m.EntityTypes {
		t.base, t.derived, t.inherited, t.inheritedNavs = nil, nil, 0, 0
	}
	for _, t := range b.m.EntityTypes {
		if t.BaseType == "" {
			continue
		}
		base := b.entityTypeNamed(t.BaseType)
		if base == nil {
			b.problems.add(fmt.Sprintf("entity type %q", t.Name), fmt.Sprintf("base type %q does not exist", t.BaseType))
			continue
		}
		t.base = base
	}
	for _, t := range b.m.EntityTypes {
		// A type on a cycle reaches itself by its bases; each is reported and loses its base.
		seen := map[*EntityType]bool{t: true}
		for u := t.base; u != nil; u = u.base {
			if seen[u] {
				b.problems.add(fmt.Sprintf("entity type %q", t.Name), "its base types form a cycle")
				t.base = nil
				break
			}
			seen[u] = true
		}
	}
	var order []*EntityType
	for _, t := range b.m.EntityTypes {
		if t.base != nil {
			t.base.derived = append(t.base.derived, t)
		}
	}
	var walk func(t *EntityType)
	walk = func(t *EntityType) {
		order = append(order, t)
		for _, d := range t.derived {
			walk(d)
		}
	}
	for _, t := range b.m.EntityTypes {
		if t.base == nil {
			walk(t)
		}
	}
	return order
}

// inherit makes a derived type's declaration complete from its base, which is built: the base's properties and
// navigations come first, and its key, table and media stream are the base's. What a derived type may not
// declare (a key, an ETag, a table of its own, a discriminator column) is reported.
func inherit(t *EntityType, report func(msg string)) {
	base := t.base
	if t.declared == nil {
		t.declared = &entityDeclaration{properties: t.Properties, navigations: t.Navigations, key: t.Key, etag: t.ETag,
			table: t.Table, hasStream: t.HasStream, stream: [3]string{t.StreamProperty, t.ContentTypeProperty}}
	}
	if len(t.Key) > 0 {
		report("a derived type declares no key: it has the key of its root type")
	}
	if len(t.ETag) > 0 {
		report("a derived type declares no ETag: it has the ETag of its root type")
	}
	if t.Table != "" && t.Table != base.Table {
		report(fmt.Sprintf("a derived type is stored in the table of its root type (%q), not in %q", base.Table, t.Table))
	}
	if t.DiscriminatorColumn != "" {
		report("only the root of a hierarchy declares DiscriminatorColumn")
	}
	if t.HasStream && base.HasStream {
		report("the base type is already a media entity")
	}
	t.inherited, t.inheritedNavs = len(base.Properties), len(base.Navigations)
	t.Properties = append(slices.Clip(base.Properties), t.Properties...)
	t.Navigations = append(slices.Clip(base.Navigations), t.Navigations...)
	t.Key, t.Table = base.Key, base.Table
	if base.HasStream {
		t.HasStream, t.StreamProperty, t.ContentTypeProperty = true, base.StreamProperty, base.ContentTypeProperty
	}
}

// restoreDeclarations undoes inherit after a failed Build, so the declarations are as written again.
func (m *Model) restoreDeclarations() {
	for _, t := range m.EntityTypes {
		if t == nil || t.declared == nil {
			continue
		}
		d := t.declared
		t.Properties, t.Navigations, t.Key, t.ETag, t.Table = d.properties, d.navigations, d.key, d.etag, d.table
		t.HasStream, t.StreamProperty, t.ContentTypeProperty = d.hasStream, d.stream[0], d.stream[1]
		t.declared, t.base, t.derived, t.inherited, t.inheritedNavs = nil, nil, nil, 0, 0
	}
}

// hierarchyChecks checks what concerns a hierarchy as a whole, once all its types are built: the root's
// discriminator column (defaulted), the columns every type of the hierarchy adds to the one table (no two
// properties share a column, and none is the discriminator), and the derived types' ETag, which is the root's so
// an entity has one ETag whichever type it is read as.
func (b *builder) hierarchyChecks() {
	for _, root := range b.m.EntityTypes {
		if root.base != nil || len(root.derived) == 0 {
			continue
		}
		where := fmt.Sprintf("entity type %q", root.Name)
		if root.DiscriminatorColumn == "" {
			root.DiscriminatorColumn = DefaultDiscriminatorColumn
		}
		if !isSQLName(root.DiscriminatorColumn) {
			b.problems.add(where, fmt.Sprintf("DiscriminatorColumn %q is not a valid column name", root.DiscriminatorColumn))
		}
		owners := map[string]string{root.DiscriminatorColumn: "the discriminator"}
		for _, t := range append([]*EntityType{root}, root.DerivedTypes()...) {
			if t != root {
				t.etag, t.rowVersion = root.etag, root.rowVersion
			}
			for _, p := range t.DeclaredProperties() {
				claimColumns(p, func(column string) {
					if previous, taken := owners[column]; taken {
						b.problems.add(fmt.Sprintf("entity type %q", t.Name),
							fmt.Sprintf("property %q: column %q of the hierarchy's table is also the column of %s", p.Name, column, previous))
						return
					}
					owners[column] = fmt.Sprintf("property %q of %q", p.Name, t.Name)
				})
			}
		}
	}
}

// claimColumns calls claim with each column of the entity's table that property p occupies.
func claimColumns(p *Property, claim func(column string)) {
	if p.Complex != nil {
		for _, f := range p.fields {
			claimColumns(f, claim)
		}
		return
	}
	if p.Column == "" || p.Collection {
		return
	}
	claim(p.Column)
}

// derivedTargets reports navigations whose target, or entity sets and singletons whose type, is a derived type:
// navigations and sets address a hierarchy by its root.
func (b *builder) derivedTargets() {
	for _, t := range b.m.EntityTypes {
		for _, n := range t.DeclaredNavigations() {
			if n.target != nil && n.target.base != nil {
				b.problems.add(fmt.Sprintf("entity type %q: navigation %q", t.Name, n.Name),
					fmt.Sprintf("the target %q is a derived type: a navigation targets the root of a hierarchy (%q)", n.Target, n.target.Root().Name))
			}
		}
	}
	for _, s := range b.m.Singletons {
		if t := s.entityType; t != nil && t.Polymorphic() {
			b.problems.add(fmt.Sprintf("singleton %q", s.Name), "the type of a singleton is not part of a hierarchy of types")
		}
	}
}

package edm

import (
	"fmt"
	"slices"
)

// entityType validates an entity type and fills in its table, indexes, key, ETag and the side tables of its
// collections.
func (b *builder) entityType(t *EntityType) {
	where := fmt.Sprintf("entity type %q", t.Name)
	report := func(msg string) { b.problems.add(where, msg) }
	defaulted := t.Table == ""
	if defaulted {
		t.Table = SnakeCase(t.Name)
	}
	if !isSQLName(t.Table) && (isIdentifier(t.Name) || !defaulted) {
		report(fmt.Sprintf("table %q is not a valid table name (ASCII letters, digits and _, at most %d bytes)", t.Table, maxSQLName))
	}
	t.key, t.etag, t.stream, t.contentType, t.sets = nil, nil, nil, nil, nil
	b.entityMembers(t, where, report)
	entityKey(t, report)
	entityColumns(t, report)
	for _, p := range t.Properties {
		if p.Collection {
			b.collectionTable(t, p)
		}
	}
	entityETag(t, report)
	mediaEntity(t, report)
}

// entityMembers validates the properties and indexes them and the navigations, whose names they share.
func (b *builder) entityMembers(t *EntityType, where string, report func(msg string)) {
	t.propertyIndex, t.navigationIndex = newIndex[*Property](), newIndex[*NavigationProperty]()
	names := map[string]bool{}
	for _, p := range t.Properties {
		p.isKey = false
		b.property(where, p, true)
		if names[p.Name] {
			report(fmt.Sprintf("duplicate property %q", p.Name))
			continue
		}
		names[p.Name] = true
		t.propertyIndex.add(p.Name, p)
		b.instantiate(p)
	}
	for _, n := range t.Navigations {
		if names[n.Name] {
			report(fmt.Sprintf("navigation %q: name is already used by a property or navigation", n.Name))
		}
		names[n.Name] = true
		t.navigationIndex.add(n.Name, n)
	}
}

// entityKey resolves the key properties.
func entityKey(t *EntityType, report func(msg string)) {
	if len(t.Key) == 0 {
		report("no key")
	}
	for _, k := range t.Key {
		p, ok := t.propertyIndex.exact[k]
		if !ok {
			report(fmt.Sprintf("key property %q does not exist", k))
			continue
		}
		if p.isKey {
			report(fmt.Sprintf("key property %q is listed twice", k))
			continue
		}
		if problem := keyProblem(p); problem != "" {
			report(fmt.Sprintf("key property %q %s", k, problem))
			continue
		}
		p.isKey = true
		t.key = append(t.key, p)
	}
}

// entityColumns checks that no two properties, complex members included, share a column of the table, and that
// the full column names of complex members are valid (once per property).
func entityColumns(t *EntityType, report func(msg string)) {
	owners := map[string]string{} // column -> property
	reportedLong := map[string]bool{}
	var claim func(p *Property, owner string)
	claim = func(p *Property, owner string) {
		if p.Complex != nil {
			for _, f := range p.fields {
				claim(f, owner)
			}
			return
		}
		if p.Column == "" || p.Collection {
			return
		}
		if previous, taken := owners[p.Column]; taken {
			report(fmt.Sprintf("property %q: column %q is also the column of property %q", owner, p.Column, previous))
			return
		}
		owners[p.Column] = owner
		if !isSQLName(p.Column) && p != t.propertyIndex.exact[owner] && !reportedLong[owner] {
			reportedLong[owner] = true
			report(fmt.Sprintf("property %q: column %q is not a valid column name (at most %d bytes)", owner, p.Column, maxSQLName))
		}
	}
	for _, p := range t.Properties {
		claim(p, p.Name)
	}
}

// entityETag resolves the ETag properties: the declared ones, else every property but lazy and Stream ones.
func entityETag(t *EntityType, report func(msg string)) {
	if len(t.ETag) == 0 {
		for _, p := range t.Properties {
			if !p.Lazy && p.Type != KindStream {
				t.etag = append(t.etag, p)
			}
		}
	}
	for _, name := range t.ETag {
		p, ok := t.propertyIndex.exact[name]
		if !ok {
			report(fmt.Sprintf("ETag property %q does not exist", name))
			continue
		}
		t.etag = append(t.etag, p)
	}
}

// mediaEntity resolves the stream and content type properties of a media entity.
func mediaEntity(t *EntityType, report func(msg string)) {
	if !t.HasStream {
		if t.StreamProperty != "" || t.ContentTypeProperty != "" {
			report("StreamProperty and ContentTypeProperty need HasStream")
		}
		return
	}
	if p := t.propertyIndex.exact[t.StreamProperty]; p == nil || p.Collection || (p.Type != KindBinary && p.Type != KindStream) {
		report(fmt.Sprintf("HasStream needs StreamProperty to name a Binary or Stream property (got %q)", t.StreamProperty))
	} else {
		t.stream = p
	}
	if p := t.propertyIndex.exact[t.ContentTypeProperty]; p == nil || p.Collection || p.Type != KindString {
		report(fmt.Sprintf("HasStream needs ContentTypeProperty to name a String property (got %q)", t.ContentTypeProperty))
	} else {
		t.contentType = p
	}
}

// keyProblem says why p cannot be a key property, or returns "".
func keyProblem(p *Property) string {
	switch {
	case p.Nullable:
		return "is nullable"
	case p.Collection:
		return "is a collection"
	case p.Complex != nil:
		return "is not of a primitive or enum type"
	case p.SQL != "":
		return "is computed by SQL"
	case p.Lazy:
		return "is lazy"
	}
	switch p.Type {
	case KindBinary, KindStream, KindDouble, KindSingle:
		return fmt.Sprintf("is of type %s, which cannot be a key", p.Type)
	}
	return ""
}

// instantiate builds the members of a complex property with full column names (recursively).
func (b *builder) instantiate(p *Property) {
	p.fields, p.members = nil, index[*Property]{}
	if p.Complex == nil || b.cyclic {
		return
	}
	p.members = newIndex[*Property]()
	for _, m := range p.Complex.Properties {
		f := *m
		f.Column = p.Column + "_" + m.Column
		f.fields, f.members = nil, index[*Property]{}
		field := &f
		b.instantiate(field)
		p.fields = append(p.fields, field)
		p.members.add(field.Name, field)
	}
}

// collectionTable fills in the side table of a collection property.
func (b *builder) collectionTable(t *EntityType, p *Property) {
	where := fmt.Sprintf("entity type %q: property %q", t.Name, p.Name)
	if p.CollectionTable == nil {
		p.CollectionTable = &CollectionTable{}
	}
	table := p.CollectionTable
	if table.Table == "" {
		table.Table = t.Table + "_" + p.Column
	}
	if len(table.SourceColumns) == 0 {
		for _, k := range t.key {
			table.SourceColumns = append(table.SourceColumns, k.Column)
		}
	}
	if len(table.OwnerColumns) == 0 {
		for _, c := range table.SourceColumns {
			table.OwnerColumns = append(table.OwnerColumns, t.Table+"_"+c)
		}
	}
	if table.ValueColumn == "" {
		table.ValueColumn = "value"
	}
	if table.OrdinalColumn == "" {
		table.OrdinalColumn = "ordinal"
	}
	if !isSQLName(table.Table) {
		b.problems.add(where, fmt.Sprintf("side table %q is not a valid table name", table.Table))
	}
	if len(table.OwnerColumns) != len(table.SourceColumns) {
		b.problems.add(where, fmt.Sprintf("side table has %d owner columns for %d source columns", len(table.OwnerColumns), len(table.SourceColumns)))
	}
	for _, c := range table.SourceColumns {
		if !isSQLName(c) {
			b.problems.add(where, fmt.Sprintf("source column %q is not a valid column name", c))
		}
	}
	columns := append(slices.Clone(table.OwnerColumns), table.ValueColumn, table.OrdinalColumn)
	seen := map[string]bool{}
	for _, c := range columns {
		if !isSQLName(c) {
			b.problems.add(where, fmt.Sprintf("side table column %q is not a valid column name", c))
		}
		if seen[c] {
			b.problems.add(where, fmt.Sprintf("side table column %q is used twice", c))
		}
		seen[c] = true
	}
}

func keyColumns(t *EntityType) []string {
	columns := make([]string, len(t.key))
	for i, k := range t.key {
		columns[i] = k.Column
	}
	return columns
}

package schema

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/storekit/store/odata/edm"
)

// table is one table the model implies: an entity type's, a collection's side table or a link table.
type table struct {
	name string
	// of says what the table stores, for messages: "entity type Book", "collection Book/Tags", "link table of
	// Book/Authors".
	of      string
	columns []*column
	byName  map[string]*column
	key     []string
	// sideTable marks the side table of a collection, whose rows the engine replaces as a whole: its key is
	// not checked.
	sideTable bool
	foreign   []*foreignKey
	indexes   []*index
	// search are the columns of the searchable properties of an entity type's table, in declaration order,
	// which its full-text index covers (see fullText); none for other tables.
	search []string
	// rowVersionOf is the entity type whose table gets a row version (rowversion.go), nil for none.
	rowVersionOf *edm.EntityType
}

// column is one column of a table.
type column struct {
	name string
	// kind is the primitive kind stored (an enum's underlying kind); maxLength, precision and scale its facets.
	kind                        edm.Kind
	maxLength, precision, scale int
	// storage is how a Decimal column stores its values (edm.Property.DecimalStorage), time how a
	// DateTimeOffset or TimeOfDay column does (edm.Property.TimeStorage).
	storage  edm.DecimalStorage
	time     edm.TimeStorage
	nullable bool
	// property is the property whose values the column holds (a collection's for a side table's value column),
	// nil for the columns of joins and ordinals; of names it for messages ("Book/Title", "the position of
	// Book/Tags items").
	property *edm.Property
	of       string
	// readOnly marks a column of a property the server computes (edm.Property.ReadOnly).
	readOnly bool
	// generated marks the key column whose values the database generates (edm.Property.Generated).
	generated bool
	// fixedDefault is the SQL literal of the default of a column that holds no property's values (the
	// discriminator of a hierarchy's table), "" for none.
	fixedDefault string
}

// foreignKey is a foreign key of a table.
type foreignKey struct {
	columns    []string
	references string
	to         []string
	// setNull empties the columns of the rows that refer to a deleted row (a nullable reference); otherwise
	// those rows are deleted with it (side tables, link tables, required references).
	setNull bool
}

// index is an index of a table the model implies: unique on the columns other tables refer to, plain on the
// columns of a foreign key.
type index struct {
	name    string
	columns []string
	unique  bool
}

// builder collects the tables of a model.
type builder struct {
	tables  []*table
	byName  map[string]*table
	ofType  map[*edm.EntityType]*table
	links   []*table
	errs    []error
	foreign map[string]bool // the foreign keys declared, by table and columns
}

// describe returns the tables of the built model m (edm.ErrNotBuilt, wrapped, for a model not built): the entity types' in the model's order, then the side
// tables of their collections, then the link tables of their many-to-many navigations; with their keys, foreign
// keys and indexes.
func describe(m *edm.Model) ([]*table, error) {
	if !m.Built() {
		return nil, fmt.Errorf("schema: %w", edm.ErrNotBuilt)
	}
	b := &builder{byName: map[string]*table{}, ofType: map[*edm.EntityType]*table{}, foreign: map[string]bool{}}
	for _, et := range m.EntityTypes {
		if et.Base() == nil {
			b.entityTable(m, et)
		}
	}
	b.markRowVersions(m)
	for _, et := range m.EntityTypes {
		for _, n := range et.DeclaredNavigations() {
			b.containment(n)
		}
	}
	for _, et := range m.EntityTypes {
		for _, p := range et.DeclaredProperties() {
			if p.Collection && p.SQL == "" {
				b.sideTable(et, p)
			}
		}
	}
	for _, et := range m.EntityTypes {
		for _, n := range et.DeclaredNavigations() {
			b.navigation(n)
		}
	}
	b.tables = append(b.tables, b.links...)
	for _, t := range b.tables {
		t.indexForeignKeys()
	}
	return b.tables, errors.Join(b.errs...)
}

func (b *builder) fail(format string, args ...any) {
	b.errs = append(b.errs, fmt.Errorf("schema: "+format, args...))
}

// add appends t, refusing a second table of the same name.
func (b *builder) add(t *table) bool {
	if other, ok := b.byName[t.name]; ok {
		b.fail("%s and %s both use table %q", other.of, t.of, t.name)
		return false
	}
	b.byName[t.name] = t
	return true
}

func newTable(name, of string) *table {
	return &table{name: name, of: of, byName: map[string]*column{}}
}

// addColumn appends c unless the table has a column of that name.
func (t *table) addColumn(c *column) {
	if _, ok := t.byName[c.name]; ok {
		return
	}
	t.columns = append(t.columns, c)
	t.byName[c.name] = c
}

// entityTable adds the table of et, the root of its hierarchy: a column per primitive and enum property and per
// member of a complex one, the key columns as primary key. The table of a hierarchy holds the rows of every type
// of it: the properties the derived types declare are nullable columns after the root's, and the discriminator
// column, not null, holds each row's qualified type name (by default the root's).
func (b *builder) entityTable(m *edm.Model, et *edm.EntityType) {
	t := newTable(et.Table, "entity type "+et.Name)
	for _, p := range et.Properties {
		t.addProperty(p, et.Name+"/"+p.Name, false)
	}
	for _, derived := range et.DerivedTypes() {
		for _, p := range derived.DeclaredProperties() {
			t.addProperty(p, derived.Name+"/"+p.Name, true)
		}
		b.ofType[derived] = t
	}
	if name := et.Discriminator(); name != "" {
		t.addColumn(&column{name: name, kind: edm.KindString, of: "the type of " + et.Name + " rows",
			fixedDefault: "'" + m.Namespace + "." + et.Name + "'"})
	}
	if len(et.DerivedTypes()) == 0 {
		t.search = searchColumns(et)
	}
	for _, k := range et.KeyProperties() {
		t.key = append(t.key, k.Column)
		if c := t.byName[k.Column]; c != nil {
			c.nullable = false
		}
	}
	if b.add(t) {
		b.tables = append(b.tables, t)
		b.ofType[et] = t
	}
}

// addProperty adds the columns of p: none for a property computed by SQL or a collection (its side table), one
// per member of a complex property (nullable when the complex property is), else one.
func (t *table) addProperty(p *edm.Property, of string, nullable bool) {
	switch {
	case p.SQL != "" || p.Collection:
	case p.Complex != nil:
		for _, member := range p.Properties() {
			t.addProperty(member, of+"/"+member.Name, nullable || p.Nullable)
		}
	default:
		c := valueColumn(p, p.Column, of)
		c.nullable = c.nullable || nullable
		t.addColumn(c)
	}
}

// valueColumn is the column name holding values of p.
func valueColumn(p *edm.Property, name, of string) *column {
	k := p.Type
	if p.Enum != nil {
		k = p.Enum.UnderlyingType
		if k == edm.KindNone {
			k = edm.KindInt32
		}
	}
	return &column{name: name, kind: k, maxLength: p.MaxLength, precision: p.Precision, scale: p.Scale,
		storage: p.DecimalStorage, time: p.TimeStorage, nullable: p.Nullable, property: p, of: of, readOnly: p.ReadOnly,
		generated: p.Generated}
}

// like is a column named name that holds the values of c, as a column referring to c does.
func like(c *column, name, of string, nullable bool) *column {
	return &column{name: name, kind: c.kind, maxLength: c.maxLength, precision: c.precision, scale: c.scale,
		storage: c.storage, time: c.time, nullable: nullable, of: of}
}

// sideTable adds the side table of the collection property p of et: the owner's columns, the value and its
// position, keyed by owner and position; its rows go with their owner.
func (b *builder) sideTable(et *edm.EntityType, p *edm.Property) {
	owner := b.ofType[et]
	ct := p.CollectionTable
	of := et.Name + "/" + p.Name
	t := newTable(ct.Table, "collection "+of)
	t.sideTable = true
	for i, name := range ct.OwnerColumns {
		source := owner.column(b, ct.SourceColumns[i], "collection "+of)
		if source == nil {
			return
		}
		t.addColumn(like(source, name, "the owner of "+of+" items", false))
	}
	t.addColumn(valueColumn(p, ct.ValueColumn, of))
	t.addColumn(&column{name: ct.OrdinalColumn, kind: edm.KindInt32, of: "the position of " + of + " items"})
	t.key = append(slices.Clone(ct.OwnerColumns), ct.OrdinalColumn)
	if b.add(t) {
		b.tables = append(b.tables, t)
		b.refer(t, ct.OwnerColumns, owner, ct.SourceColumns, false)
	}
}

// column returns the column name of t, or nil after reporting that what (a declaration) names a column t does
// not have.
func (t *table) column(b *builder, name, what string) *column {
	if c := t.byName[name]; c != nil {
		return c
	}
	b.fail("%s: table %q (%s) has no column %q", what, t.name, t.of, name)
	return nil
}

// containment makes the key of the table of entities contained by navigation n unique within their container,
// as OData keys of contained entities are: the join columns that refer to the container (added when the
// entity type has no property for them), then the key.
func (b *builder) containment(n *edm.NavigationProperty) {
	if !n.ContainsTarget || n.Join.Through != nil {
		return
	}
	container, t := b.ofType[n.SourceType()], b.ofType[n.TargetType()]
	if container == nil || t == nil || subset(n.Join.TargetColumns, t.key) {
		return
	}
	for i, name := range n.Join.TargetColumns {
		referred := container.column(b, n.Join.SourceColumns[i], "navigation "+n.SourceType().Name+"/"+n.Name)
		if referred == nil {
			return
		}
		if t.byName[name] == nil {
			t.addColumn(like(referred, name, "the container of "+n.TargetType().Name, false))
		}
		t.byName[name].nullable = false
	}
	key := slices.Clone(n.Join.TargetColumns)
	for _, k := range t.key {
		if !slices.Contains(key, k) {
			key = append(key, k)
		}
	}
	t.key = key
}

// navigation adds what the navigation n implies: the link table of a many-to-many navigation, else the foreign
// key of its join, on the side whose join columns are not its key (the source of a to-one navigation and the
// target of a to-many one when neither side's are). A join of key to key implies none.
func (b *builder) navigation(n *edm.NavigationProperty) {
	if n.Join.Through != nil {
		b.linkTable(n)
		return
	}
	source, target := b.ofType[n.SourceType()], b.ofType[n.TargetType()]
	if source == nil || target == nil {
		return
	}
	sourceKey, targetKey := sameSet(n.Join.SourceColumns, source.key), sameSet(n.Join.TargetColumns, target.key)
	what := "navigation " + n.SourceType().Name + "/" + n.Name
	switch {
	case sourceKey && targetKey:
	case targetKey || !sourceKey && !n.Collection:
		b.dependent(source, n.Join.SourceColumns, target, n.Join.TargetColumns, what)
	default:
		b.dependent(target, n.Join.TargetColumns, source, n.Join.SourceColumns, what)
	}
}

// dependent declares the foreign key of the join columns of table t to those of principal, adding the columns
// t lacks (nullable, of the type of the columns they refer to). When the referred row is deleted, nullable
// columns are set to null, rows with a required reference are deleted.
func (b *builder) dependent(t *table, columns []string, principal *table, to []string, what string) {
	nullable := true
	for i, name := range columns {
		referred := principal.column(b, to[i], what)
		if referred == nil {
			return
		}
		if t.byName[name] == nil {
			t.addColumn(like(referred, name, what, true))
		}
		nullable = nullable && t.byName[name].nullable
	}
	b.refer(t, columns, principal, to, nullable)
}

// refer declares the foreign key of columns of t to the columns to of principal (once), and a unique index on
// those when they are not principal's key. setNull empties the columns when the referred row is deleted,
// otherwise the referring rows are deleted with it.
func (b *builder) refer(t *table, columns []string, principal *table, to []string, setNull bool) {
	id := t.name + "(" + strings.Join(columns, ",") + ")" + principal.name + "(" + strings.Join(to, ",") + ")"
	if b.foreign[id] {
		return
	}
	b.foreign[id] = true
	t.foreign = append(t.foreign, &foreignKey{columns: columns, references: principal.name, to: to, setNull: setNull})
	if !sameSet(to, principal.key) {
		principal.addIndex(to, true)
	}
}

// linkTable adds the link table of the many-to-many navigation n (once for the navigation and its partner):
// the source's and the target's join columns, keyed by both; its rows go with either entity. A link table that
// is also an entity type's table (a link with properties of its own) gets the link's columns and foreign keys.
func (b *builder) linkTable(n *edm.NavigationProperty) {
	l, j := n.Join.Through, n.Join
	source, target := b.ofType[n.SourceType()], b.ofType[n.TargetType()]
	if source == nil || target == nil {
		return
	}
	of := n.SourceType().Name + "/" + n.Name
	t := b.byName[l.Table]
	switch {
	case t == nil:
		t = newTable(l.Table, "link table of "+of)
		t.key = append(slices.Clone(l.SourceColumns), l.TargetColumns...)
		b.add(t)
		b.links = append(b.links, t)
	case t.sideTable:
		b.fail("navigation %s: its link table %q is also the table of %s", of, l.Table, t.of)
		return
	}
	if b.linkColumns(t, l.SourceColumns, source, j.SourceColumns, n, n.SourceType()) &&
		b.linkColumns(t, l.TargetColumns, target, j.TargetColumns, n, n.TargetType()) {
		b.refer(t, l.SourceColumns, source, j.SourceColumns, false)
		b.refer(t, l.TargetColumns, target, j.TargetColumns, false)
	}
}

// linkColumns adds to the link table t its columns that refer to the columns to of the table of side, unless t
// has them; it reports false when a column of to does not exist.
func (b *builder) linkColumns(t *table, columns []string, side *table, to []string, n *edm.NavigationProperty, sideType *edm.EntityType) bool {
	for i, name := range columns {
		referred := side.column(b, to[i], "navigation "+n.SourceType().Name+"/"+n.Name)
		if referred == nil {
			return false
		}
		if t.byName[name] == nil {
			t.addColumn(like(referred, name, "the link's "+sideType.Name, false))
		}
	}
	return true
}

// addIndex adds an index on columns unless the table has one that serves: for a unique index the key or a
// unique index on the same columns, for another one any index (or the key) that starts with the columns.
func (t *table) addIndex(columns []string, unique bool) {
	if sameSet(columns, t.key) || !unique && startsWith(t.key, columns) {
		return
	}
	for _, x := range t.indexes {
		if unique && x.unique && sameSet(x.columns, columns) || !unique && startsWith(x.columns, columns) {
			return
		}
	}
	suffix := "_idx"
	if unique {
		suffix = "_key"
	}
	t.indexes = append(t.indexes, &index{name: t.name + "_" + strings.Join(columns, "_") + suffix,
		columns: slices.Clone(columns), unique: unique})
}

// indexForeignKeys adds an index on the columns of each foreign key, so that the rows referring to a row are
// found without a scan (joins, deletes).
func (t *table) indexForeignKeys() {
	for _, f := range t.foreign {
		t.addIndex(f.columns, false)
	}
}

// sameSet reports whether a and b hold the same names, in any order.
func sameSet(a, b []string) bool { return len(a) == len(b) && subset(a, b) }

// subset reports whether every name of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// startsWith reports whether columns begins with prefix.
func startsWith(columns, prefix []string) bool {
	return len(prefix) <= len(columns) && slices.Equal(columns[:len(prefix)], prefix)
}

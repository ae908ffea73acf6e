package plan

import (
	"strconv"
	"strings"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

// Column is one column of a SELECT the planner generates. Columns come in this order: the properties of the
// entity type in declaration order (a complex property as its members, in member order), each included when it
// is selected (explicitly, or by default: every property that is not Lazy), is part of the key, or is part of
// the ETag; then the type's row version when it has one (edm.EntityType.RowVersion, never selected); then the columns the planner needs for itself (join values of expansions, order-by values for the
// $skiptoken), which have an empty Path.
type Column struct {
	// Path is the property the column holds: a primitive or enum property, or a complex property followed by
	// its member (members of nested complex properties add a step). The last element has the full column
	// name; convert a scanned value with Scan(Path[len(Path)-1], v). With Options.InlineCollections it may be a
	// collection property, whose column holds the JSON array of its items. Empty for the planner's own columns.
	Path []*edm.Property
	// Selected reports whether the property is part of the $select projection and belongs in the answer.
	Selected bool
}

// Projection is the shape of the rows of one level of a read (the entities read, or the children of one
// expansion): their columns and the queries that complete them.
type Projection struct {
	// Type is the entity type of the rows.
	Type *edm.EntityType
	// Columns are the columns of each row, in the order documented on Column.
	Columns []Column
	// Key holds the indexes (into Columns) of the key properties, in key order.
	Key []int
	// ETag holds the indexes of the columns the ETag is computed over: the scalar properties and complex
	// members of Type.ETagProperties(), in declaration order, and with Options.InlineCollections its collection
	// properties. (Without it, collection properties have no column.)
	ETag []int
	// Collections are the selected collections of primitive values, one query per property per page.
	Collections []*Collection
	// Expands are the expanded navigation properties, one query per navigation per page.
	Expands []*Expand

	typeColumn int // 1 + the index of the discriminator column, 0 for none
}

// TypeColumn returns the index (into Columns) of the column that holds each row's qualified type name when
// Type is part of a hierarchy of types (edm.EntityType.Discriminator), else -1. The columns of a polymorphic
// read include the properties of Type's derived types (edm.EntityType.HierarchyProperties); a row has those
// of its own type only, the others are null.
func (p *Projection) TypeColumn() int { return p.typeColumn - 1 }

// Collection is a selected collection of primitive or enum values, stored in a side table. Its query reads the
// items of all the owners of a page at once.
type Collection struct {
	// Property is the collection property; Scan its items with Scan(Property, v).
	Property *edm.Property
	// Owner holds the indexes (into the owner's Columns) of the owner's columns the side table refers to
	// (edm.CollectionTable.SourceColumns, by default the key), in that order.
	Owner []int

	d         sqldb.Dialect
	pre, post string
}

// Select returns the query of the items of the given owners: owners[i] is the i-th owner row as scanned (only
// the columns at Owner are read). Each result row is the owner's key values, then the item; rows come ordered by
// owner and then by the item's position. It returns "" when there is nothing to read.
func (c *Collection) Select(owners [][]any) (string, []any) {
	return assemble(c.d, c.pre, nil, c.Owner, owners, c.post, nil)
}

// assemble puts the distinct non-null link tuples of rows (the values at columns) between pre and post.
func assemble(d sqldb.Dialect, pre string, preArgs []any, columns []int, rows [][]any, post string, postArgs []any) (string, []any) {
	seen := make(map[string]struct{}, len(rows))
	var b strings.Builder
	b.Grow(len(pre) + len(post) + len(rows)*(3*len(columns)+2))
	b.WriteString(pre)
	args := make([]any, len(preArgs), len(preArgs)+len(rows)*len(columns)+len(postArgs))
	copy(args, preArgs)
	var key []byte
	n := 0
	for _, row := range rows {
		if hasNull(row, columns) {
			continue
		}
		key = key[:0]
		for i, c := range columns {
			if i > 0 {
				key = append(key, 0)
			}
			key = AppendLinkKey(key, row[c])
		}
		if _, ok := seen[string(key)]; ok {
			continue
		}
		seen[string(key)] = struct{}{}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		if len(columns) > 1 {
			b.WriteByte('(')
		}
		for i, c := range columns {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('?')
			args = append(args, row[c])
		}
		if len(columns) > 1 {
			b.WriteByte(')')
		}
	}
	if n == 0 {
		return "", nil
	}
	b.WriteString(post)
	s := b.String()
	args = append(args, postArgs...)
	switch d.Placeholder() {
	case sq.Question:
	case sq.Dollar:
		s = dollarPlaceholders(s)
	default:
		s, _ = d.Placeholder().ReplacePlaceholders(s)
	}
	return s, args
}

// dollarPlaceholders numbers the ? placeholders of s as $1, $2, ... and turns ?? into ?, as squirrel's Dollar
// format does, without its fmt call per placeholder: a child query of $expand has one placeholder per parent
// and is assembled on every request.
func dollarPlaceholders(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2*strings.Count(s, "?"))
	n := int64(0)
	for {
		i := strings.IndexByte(s, '?')
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		if strings.HasPrefix(s[i:], "??") {
			b.WriteByte('?')
			s = s[i+2:]
			continue
		}
		n++
		b.WriteByte('$')
		var digits [20]byte
		b.Write(strconv.AppendInt(digits[:0], n, 10))
		s = s[i+1:]
	}
	b.WriteString(s)
	return b.String()
}

// hasNull reports whether a value of row at columns is null: such a row links to nothing.
func hasNull(row []any, columns []int) bool {
	for _, c := range columns {
		if row[c] == nil {
			return true
		}
	}
	return false
}

// level builds the projection of one level of a read: the root entities or the children of an expansion.
type level struct {
	c          *compiler
	r          *tableRange
	projection *Projection
	selectList []string
}

// selection is what $select picked from a property: all of it, or some members of a complex property.
type selection struct {
	all     bool
	members map[*edm.Property]*selection
}

func (s *selection) member(p *edm.Property) *selection {
	if s == nil {
		return nil
	}
	if s.all {
		return s
	}
	return s.members[p]
}

// project computes the columns, collections and expansions of the level from its $select and $expand.
func (lv *level) project(q *syntax.Query, selectOption, expandOption string, depth int) error {
	if shared := lv.c.p.defaults[lv.r.typ]; shared != nil && q.Select == nil && lv.r.alias == "t0" && lv.hidden() == nil &&
		len(lv.r.computed) == 0 {
		lv.useDefault(shared)
	} else if err := lv.projectSelection(q.Select, selectOption); err != nil {
		return err
	}
	for _, it := range q.Expand {
		if err := lv.expand(it, expandOption, depth); err != nil {
			return err
		}
	}
	return nil
}

// useDefault takes the default projection at the top level: shared, so every slice is capped (appends copy).
func (lv *level) useDefault(shared *defaultProjection) {
	projection := shared.projection
	projection.Columns = projection.Columns[:len(projection.Columns):len(projection.Columns)]
	projection.Collections = projection.Collections[:len(projection.Collections):len(projection.Collections)]
	lv.projection = &projection
	lv.selectList = shared.selectList[:len(shared.selectList):len(shared.selectList)]
}

// hidden returns the properties of the level's type its request may not read, nil when none.
func (lv *level) hidden() map[*edm.Property]bool { return lv.c.redacted.Hidden(lv.r.typ) }

// projectSelection computes the columns and collections of the level from its $select (nil for the default:
// every property that is not Lazy or a stream). Key and ETag properties always have a column; the properties
// the request may not read have none.
func (lv *level) projectSelection(items []syntax.SelectItem, option string) error {
	t := lv.r.typ
	lv.projection = &Projection{Type: t}
	selectedComputed := map[string]bool{}
	if len(lv.r.computed) > 0 {
		var rest []syntax.SelectItem
		for _, it := range items {
			if len(it.Path) == 1 && lv.r.computedNamed(it.Path[0].Name) != nil && t.Property(it.Path[0].Name) == nil {
				selectedComputed[it.Path[0].Name] = true
				continue
			}
			rest = append(rest, it)
		}
		if items != nil && rest == nil {
			rest = []syntax.SelectItem{} // only computed properties: none of the type's
		}
		items = rest
	}
	selected, err := lv.selection(items, option)
	if err != nil {
		return err
	}
	etag := map[*edm.Property]bool{}
	for _, p := range t.ETagProperties() {
		etag[p] = true
	}
	columnOf := map[*edm.Property]int{}
	for _, p := range t.HierarchyProperties() {
		s := selected[p]
		if selected == nil && !p.Lazy && p.Type != edm.KindStream {
			s = &selection{all: true}
		}
		if p.Collection {
			lv.addCollection(columnOf, p, s, etag[p])
			continue
		}
		lv.addProperty(columnOf, nil, p, s, p.IsKey() || etag[p])
	}
	if rv := t.RowVersion(); rv != nil {
		lv.addProperty(columnOf, nil, rv, nil, true) // read for the ETag alone
	}
	for _, k := range t.KeyProperties() {
		lv.projection.Key = append(lv.projection.Key, columnOf[k])
	}
	lv.etagColumns(columnOf)
	if column := t.Discriminator(); column != "" {
		lv.projection.typeColumn = 1 + lv.internal(lv.c.qualifiedColumn(lv.r.alias, column))
	}
	lv.addComputed(selectedComputed, selected == nil || selectsAll(items))
	for _, collection := range lv.projection.Collections {
		for _, column := range collection.Property.CollectionTable.SourceColumns {
			collection.Owner = append(collection.Owner, lv.column(column))
		}
		lv.collection(collection)
	}
	return nil
}

// addProperty adds the columns of property p, reached through path: its own, or its members' for a complex
// property. A column is added when s selects it or always (a key or ETag property read though not selected);
// columnOf records it.
func (lv *level) addProperty(columnOf map[*edm.Property]int, path []*edm.Property, p *edm.Property, s *selection, always bool) {
	if lv.hidden()[p] {
		return
	}
	path = append(path[:len(path):len(path)], p)
	if p.Complex != nil {
		for _, member := range p.Properties() {
			lv.addProperty(columnOf, path, member, s.member(member), always)
		}
		return
	}
	if s == nil && !always {
		return
	}
	columnOf[p] = len(lv.projection.Columns)
	lv.projection.Columns = append(lv.projection.Columns, Column{Path: path, Selected: s != nil})
	lv.selectList = append(lv.selectList, lv.c.columnSQL(lv.r, p))
}

// addCollection adds a collection of primitives: with inline collections, a column holding its items when it is
// selected or part of the ETag; else, when selected, a Collection query.
func (lv *level) addCollection(columnOf map[*edm.Property]int, p *edm.Property, s *selection, inETag bool) {
	c := lv.c
	switch {
	case lv.hidden()[p]:
	case !c.p.inline:
		if s != nil {
			lv.projection.Collections = append(lv.projection.Collections, &Collection{Property: p})
		}
	case s != nil || inETag:
		columnOf[p] = len(lv.projection.Columns)
		lv.projection.Columns = append(lv.projection.Columns, Column{Path: []*edm.Property{p}, Selected: s != nil})
		lv.selectList = append(lv.selectList, modelsql.CollectionArray(c.d, c.p.names, p, lv.r.alias, "s"))
	}
}

// etagColumns lists the columns of the ETag properties: scalar properties, the members of complex ones, and with
// inline collections the collections of primitives; not those the request may not read, whose values its ETags
// must not tell.
func (lv *level) etagColumns(columnOf map[*edm.Property]int) {
	for _, p := range lv.r.typ.ETagProperties() {
		switch {
		case lv.hidden()[p]:
		case p.Collection:
			if lv.c.p.inline {
				lv.projection.ETag = append(lv.projection.ETag, columnOf[p])
			}
		case p.Complex != nil:
			lv.etagMembers(columnOf, p)
		default:
			lv.projection.ETag = append(lv.projection.ETag, columnOf[p])
		}
	}
}

// etagMembers lists the columns of the members of the complex ETag property p, nested ones included.
func (lv *level) etagMembers(columnOf map[*edm.Property]int, p *edm.Property) {
	for _, member := range p.Properties() {
		switch {
		case lv.hidden()[member]:
		case member.Complex != nil:
			lv.etagMembers(columnOf, member)
		default:
			lv.projection.ETag = append(lv.projection.ETag, columnOf[member])
		}
	}
}

// selection reads $select; nil means the default projection.
func (lv *level) selection(items []syntax.SelectItem, option string) (map[*edm.Property]*selection, error) {
	if items == nil {
		return nil, nil
	}
	out := map[*edm.Property]*selection{}
	star := false
	for _, it := range items {
		path, isStar, err := lv.selectPath(it, option)
		if err != nil {
			return nil, err
		}
		star = star || isStar
		if len(path) > 0 {
			markSelected(out, path)
		}
	}
	if star {
		for _, p := range lv.r.typ.HierarchyProperties() {
			if p.Lazy || p.Type == edm.KindStream || lv.hidden()[p] {
				continue
			}
			if out[p] == nil {
				out[p] = &selection{all: true}
			} else {
				out[p].all = true
			}
		}
	}
	return out, nil
}

// selectPath resolves one $select item to the property and complex members it selects; star reports * (or a
// cast to the type itself). Annotations, operations and navigation links select nothing to read.
func (lv *level) selectPath(it syntax.SelectItem, option string) (path []*edm.Property, star bool, err error) {
	t := lv.r.typ
	segments := it.Path
	if len(segments) == 1 && segments[0].Name == "*" {
		return nil, true, nil
	}
	if it.Options != nil {
		return nil, false, &Error{Code: CodeNotSupported, Option: option, Pos: it.Pos + 1, Msg: "nested options in $select are not supported"}
	}
	// Leading casts to the type itself.
	for len(segments) > 0 && segments[0].IsQualified() && lv.isType(segments[0].Name, t.Name) {
		segments = segments[1:]
	}
	if len(segments) == 0 {
		return nil, true, nil
	}
	// A cast to a derived type selects its properties (Ns.Special/Extra); alone it selects them all.
	if derived := lv.derivedType(segments[0]); derived != nil {
		t = derived
		if segments = segments[1:]; len(segments) == 0 {
			return nil, false, &Error{Code: CodeNotSupported, Option: option, Pos: it.Pos + 1, Msg: "a type cast alone in $select is not supported; select its properties"}
		}
	}
	first := segments[0]
	if first.IsQualified() && lv.c.m.EntityType(first.Name) != nil {
		return nil, false, &Error{Code: CodeTypeMismatch, Option: option, Pos: first.Pos + 1, Msg: first.Name + " is not derived from " + t.Name}
	}
	if strings.HasPrefix(first.Name, "@") || strings.HasSuffix(first.Name, ".*") || first.IsQualified() {
		return nil, false, nil // annotations, operations: nothing to read
	}
	p := t.Property(first.Name)
	if p == nil {
		if t.Navigation(first.Name) != nil {
			return nil, false, nil // a navigation link: nothing to read
		}
		return nil, false, &Error{Code: CodeUnknownProperty, Option: option, Pos: first.Pos + 1, Msg: t.Name + " has no property " + first.Name}
	}
	if lv.hidden()[p] {
		return nil, false, notReadable(option, first.Pos+1, t, p.Name)
	}
	path, err = lv.selectMembers(p, segments[1:], option)
	return path, false, err
}

// selectMembers resolves the member path that follows property p in a $select item (casts to the complex type
// itself are skipped) and returns p with the members.
func (lv *level) selectMembers(p *edm.Property, segments []syntax.Segment, option string) ([]*edm.Property, error) {
	path := []*edm.Property{p}
	current := p
	for _, segment := range segments {
		if segment.IsQualified() && current.Complex != nil && lv.isType(segment.Name, current.Complex.Name) {
			continue
		}
		if current.Complex == nil {
			return nil, &Error{Code: CodeTypeMismatch, Option: option, Pos: segment.Pos + 1, Msg: current.Name + " has no members"}
		}
		member := current.Property(segment.Name)
		if member == nil {
			return nil, &Error{Code: CodeUnknownProperty, Option: option, Pos: segment.Pos + 1, Msg: current.Complex.Name + " has no property " + segment.Name}
		}
		if lv.hidden()[member] {
			return nil, notReadable(option, segment.Pos+1, lv.r.typ, pathName(append(path, member)))
		}
		path = append(path, member)
		current = member
	}
	return path, nil
}

// markSelected marks what path (a property and complex members) selects in the selection tree: all of its last
// element.
func markSelected(out map[*edm.Property]*selection, path []*edm.Property) {
	node := out[path[0]]
	if node == nil {
		node = &selection{members: map[*edm.Property]*selection{}}
		out[path[0]] = node
	}
	for _, member := range path[1:] {
		if node.all {
			break
		}
		child := node.members[member]
		if child == nil {
			child = &selection{members: map[*edm.Property]*selection{}}
			node.members[member] = child
		}
		node = child
	}
	node.all = true
}

// derivedType returns the type derived from the level's type that segment, a qualified name, names; nil for
// any other segment.
func (lv *level) derivedType(segment syntax.Segment) *edm.EntityType {
	if !segment.IsQualified() {
		return nil
	}
	d := lv.c.m.EntityType(segment.Name)
	if d == nil || d == lv.r.typ || !d.IsA(lv.r.typ) || !strings.Contains(segment.Name, ".") {
		return nil
	}
	return d
}

func (lv *level) isType(name, simple string) bool {
	return strings.EqualFold(name, simple) || strings.EqualFold(name, lv.c.m.Namespace+"."+simple)
}

// internal adds a column the planner needs for itself.
func (lv *level) internal(sql string) int {
	lv.projection.Columns = append(lv.projection.Columns, Column{})
	lv.selectList = append(lv.selectList, sql)
	return len(lv.selectList) - 1
}

// column returns the index of the column named name of the level's table, adding it when it is not projected.
func (lv *level) column(name string) int {
	for i, projected := range lv.projection.Columns {
		if n := len(projected.Path); n > 0 && projected.Path[n-1].Column == name && projected.Path[n-1].SQL == "" && !projected.Path[n-1].Collection {
			return i
		}
	}
	return lv.internal(lv.c.qualifiedColumn(lv.r.alias, name))
}

// collection compiles the query of a collection property's items.
func (lv *level) collection(collection *Collection) {
	c := lv.c
	collectionTable := collection.Property.CollectionTable
	a := "s"
	owner := make([]string, len(collectionTable.OwnerColumns))
	for i, column := range collectionTable.OwnerColumns {
		owner[i] = c.qualifiedColumn(a, column)
	}
	columns := strings.Join(owner, ", ") + ", " + c.qualifiedColumn(a, collectionTable.ValueColumn)
	collection.d = c.d
	collection.pre = "SELECT " + columns + " FROM " + c.quote(collectionTable.Table) + " AS " + c.quote(a) + " WHERE " + modelsql.Tuple(owner) + " IN ("
	collection.post = ") ORDER BY " + strings.Join(owner, ", ") + ", " + c.qualifiedColumn(a, collectionTable.OrdinalColumn)
}

package plan

import (
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
// the ETag; then the columns the planner needs for itself (join values of expansions, order-by values for the
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
}

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

// assemble puts the distinct non-null link tuples of rows (the values at cols) between pre and post.
func assemble(d sqldb.Dialect, pre string, preArgs []any, cols []int, rows [][]any, post string, postArgs []any) (string, []any) {
	seen := make(map[string]bool, len(rows))
	var b strings.Builder
	args := append([]any(nil), preArgs...)
	n := 0
	for _, row := range rows {
		tuple := make([]any, len(cols))
		skip := false
		for i, c := range cols {
			if row[c] == nil {
				skip = true
				break
			}
			tuple[i] = row[c]
		}
		if skip {
			continue
		}
		k := LinkKey(tuple...)
		if seen[k] {
			continue
		}
		seen[k] = true
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		if len(cols) > 1 {
			b.WriteByte('(')
		}
		for i := range tuple {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('?')
		}
		if len(cols) > 1 {
			b.WriteByte(')')
		}
		args = append(args, tuple...)
	}
	if n == 0 {
		return "", nil
	}
	s := pre + b.String() + post
	args = append(args, postArgs...)
	if d.Placeholder() != sq.Question {
		s, _ = d.Placeholder().ReplacePlaceholders(s)
	}
	return s, args
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
func (lv *level) project(q *syntax.Query, selOpt, expOpt string, depth int) error {
	c := lv.c
	t := lv.r.typ
	if rt := c.p.defaults[t]; rt != nil && q.Select == nil && lv.r.alias == "t0" {
		// The default projection at the top level: shared, so every slice is capped (appends copy).
		pr := rt.projection
		pr.Columns = pr.Columns[:len(pr.Columns):len(pr.Columns)]
		pr.Collections = pr.Collections[:len(pr.Collections):len(pr.Collections)]
		lv.projection = &pr
		lv.selectList = rt.selectList[:len(rt.selectList):len(rt.selectList)]
		for _, it := range q.Expand {
			if err := lv.expand(it, expOpt, depth); err != nil {
				return err
			}
		}
		return nil
	}
	lv.projection = &Projection{Type: t}
	sel, err := lv.selection(q.Select, selOpt)
	if err != nil {
		return err
	}
	etag := map[*edm.Property]bool{}
	for _, p := range t.ETagProperties() {
		etag[p] = true
	}
	colOf := map[*edm.Property]int{}
	var add func(path []*edm.Property, p *edm.Property, s *selection, always bool)
	add = func(path []*edm.Property, p *edm.Property, s *selection, always bool) {
		path = append(path[:len(path):len(path)], p)
		if p.Complex != nil {
			for _, m := range p.Properties() {
				add(path, m, s.member(m), always)
			}
			return
		}
		if s == nil && !always {
			return
		}
		colOf[p] = len(lv.projection.Columns)
		lv.projection.Columns = append(lv.projection.Columns, Column{Path: path, Selected: s != nil})
		lv.selectList = append(lv.selectList, c.columnSQL(lv.r, p))
	}
	for _, p := range t.Properties {
		s := sel[p]
		if sel == nil && !p.Lazy && p.Type != edm.KindStream {
			s = &selection{all: true}
		}
		if p.Collection {
			if c.p.inline {
				if s != nil || etag[p] {
					colOf[p] = len(lv.projection.Columns)
					lv.projection.Columns = append(lv.projection.Columns, Column{Path: []*edm.Property{p}, Selected: s != nil})
					lv.selectList = append(lv.selectList, modelsql.CollectionArray(c.d, c.p.names, p, lv.r.alias, "s"))
				}
			} else if s != nil {
				lv.projection.Collections = append(lv.projection.Collections, &Collection{Property: p})
			}
			continue
		}
		add(nil, p, s, p.IsKey() || etag[p])
	}
	for _, k := range t.KeyProperties() {
		lv.projection.Key = append(lv.projection.Key, colOf[k])
	}
	for _, p := range t.ETagProperties() {
		switch {
		case p.Collection:
			if c.p.inline {
				lv.projection.ETag = append(lv.projection.ETag, colOf[p])
			}
		case p.Complex != nil:
			var walk func(p *edm.Property)
			walk = func(p *edm.Property) {
				for _, m := range p.Properties() {
					if m.Complex != nil {
						walk(m)
					} else {
						lv.projection.ETag = append(lv.projection.ETag, colOf[m])
					}
				}
			}
			walk(p)
		default:
			lv.projection.ETag = append(lv.projection.ETag, colOf[p])
		}
	}
	for _, coll := range lv.projection.Collections {
		for _, col := range coll.Property.CollectionTable.SourceColumns {
			coll.Owner = append(coll.Owner, lv.column(col))
		}
		lv.collection(coll)
	}
	for _, it := range q.Expand {
		if err := lv.expand(it, expOpt, depth); err != nil {
			return err
		}
	}
	return nil
}

// selection reads $select; nil means the default projection.
func (lv *level) selection(items []syntax.SelectItem, option string) (map[*edm.Property]*selection, error) {
	if items == nil {
		return nil, nil
	}
	t := lv.r.typ
	out := map[*edm.Property]*selection{}
	star := false
	for _, it := range items {
		segs := it.Path
		if len(segs) == 1 && segs[0].Name == "*" {
			star = true
			continue
		}
		if it.Options != nil {
			return nil, &Error{Code: CodeNotSupported, Option: option, Pos: it.Pos + 1, Msg: "nested options in $select are not supported"}
		}
		// Leading casts to the type itself.
		for len(segs) > 0 && segs[0].IsQualified() && lv.isType(segs[0].Name, t.Name) {
			segs = segs[1:]
		}
		if len(segs) == 0 {
			star = true
			continue
		}
		first := segs[0]
		if strings.HasPrefix(first.Name, "@") || strings.HasSuffix(first.Name, ".*") || first.IsQualified() {
			continue // annotations, operations: nothing to read
		}
		p := t.Property(first.Name)
		if p == nil {
			if t.Navigation(first.Name) != nil {
				continue // a navigation link: nothing to read
			}
			return nil, &Error{Code: CodeUnknownProperty, Option: option, Pos: first.Pos + 1, Msg: t.Name + " has no property " + first.Name}
		}
		// Validate the member path, then mark what it selects.
		path := []*edm.Property{p}
		cur := p
		for _, seg := range segs[1:] {
			if seg.IsQualified() && cur.Complex != nil && lv.isType(seg.Name, cur.Complex.Name) {
				continue
			}
			if cur.Complex == nil {
				return nil, &Error{Code: CodeTypeMismatch, Option: option, Pos: seg.Pos + 1, Msg: cur.Name + " has no members"}
			}
			m := cur.Property(seg.Name)
			if m == nil {
				return nil, &Error{Code: CodeUnknownProperty, Option: option, Pos: seg.Pos + 1, Msg: cur.Complex.Name + " has no property " + seg.Name}
			}
			path = append(path, m)
			cur = m
		}
		node := out[p]
		if node == nil {
			node = &selection{members: map[*edm.Property]*selection{}}
			out[p] = node
		}
		for _, m := range path[1:] {
			if node.all {
				break
			}
			child := node.members[m]
			if child == nil {
				child = &selection{members: map[*edm.Property]*selection{}}
				node.members[m] = child
			}
			node = child
		}
		node.all = true
	}
	if star {
		for _, p := range t.Properties {
			if !p.Lazy && p.Type != edm.KindStream && out[p] == nil {
				out[p] = &selection{all: true}
			} else if !p.Lazy && p.Type != edm.KindStream {
				out[p].all = true
			}
		}
	}
	return out, nil
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

// column returns the index of the column named col of the level's table, adding it when it is not projected.
func (lv *level) column(col string) int {
	for i, cl := range lv.projection.Columns {
		if n := len(cl.Path); n > 0 && cl.Path[n-1].Column == col && cl.Path[n-1].SQL == "" && !cl.Path[n-1].Collection {
			return i
		}
	}
	return lv.internal(lv.c.qualifiedColumn(lv.r.alias, col))
}

// collection compiles the query of a collection property's items.
func (lv *level) collection(coll *Collection) {
	c := lv.c
	ct := coll.Property.CollectionTable
	a := "s"
	owner := make([]string, len(ct.OwnerColumns))
	for i, col := range ct.OwnerColumns {
		owner[i] = c.qualifiedColumn(a, col)
	}
	sel := strings.Join(owner, ", ") + ", " + c.qualifiedColumn(a, ct.ValueColumn)
	coll.d = c.d
	coll.pre = "SELECT " + sel + " FROM " + c.quote(ct.Table) + " AS " + c.quote(a) + " WHERE " + modelsql.Tuple(owner) + " IN ("
	coll.post = ") ORDER BY " + strings.Join(owner, ", ") + ", " + c.qualifiedColumn(a, ct.OrdinalColumn)
}

package odata

import (
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
)

// field is one property of an entity in a layout: a column, or a complex property with its members.
type field struct {
	prop    *edm.Property
	name    []byte // `"Name":`
	col     int    // index of the column; -1 for a complex property
	members []*field
	out     bool // written to the answer
	etag    bool // part of the ETag
	whole   bool // a complex property with a column for every member (so all-null members mean null)
}

// layout is how the columns of a read make up entities of one type: the projection the SQL selects, and the
// properties an answer shows. Each column holds the value of a primitive or enum property (possibly a member of
// a complex property, with its full column name), a collection property aggregated into a JSON array by the
// database, or (nil) a value the planner reads for itself (join and order-by values), which is not written.
type layout struct {
	typ      *edm.EntityType
	cols     []*edm.Property        // the property of each column, see below
	fields   []*field               // top-level properties in declaration order
	keys     []int                  // columns of the key properties, in key order
	etag     []*field               // ETag properties in declaration order (for Go values; newLayout only)
	etagCols []int                  // the columns the ETag hashes, in order
	hidden   map[*edm.Property]bool // properties and members left out (newHiddenLayout only)
	// keysShown is true when the answer shows every key property: without them an entity needs its @odata.id
	// to be identified.
	keysShown bool
	// typeCol is the column of each row's qualified type name when typ is part of a hierarchy of types (the
	// columns then include the properties of its derived types), -1 otherwise; expected is the type the answer's
	// context implies when it is not typ (a write answer with an entity of a derived type), nil otherwise.
	typeCol  int
	expected *edm.EntityType
	// derived holds the properties the types derived from typ declare, which only rows of those types have.
	derived map[*edm.Property]bool
}

// expectedType is the entity type the answer's context implies: an entity of another type carries its
// @odata.type.
func (l *layout) expectedType() *edm.EntityType {
	if l.expected != nil {
		return l.expected
	}
	return l.typ
}

// rowType returns the type of the row whose type name (the discriminator column's value) is v: typ or one of
// its derived types; typ when the name is none of them.
func (l *layout) rowType(v any) *edm.EntityType {
	switch x := v.(type) {
	case string:
		return typeNamed(l.typ, x)
	case []byte:
		return typeNamed(l.typ, string(x))
	}
	return l.typ
}

// newLayout returns the layout of et that shows the properties in show (nil: every property that is not lazy).
// Key and ETag properties are always read: the key for links and paging, the ETag properties for the ETag.
func newLayout(et *edm.EntityType, show map[*edm.Property]bool) *layout {
	return newHiddenLayout(et, show, nil)
}

// newHiddenLayout is newLayout without the properties and complex members in hidden (those a request may not
// read, see SetOptions.Redact): they are neither shown nor part of the ETag.
func newHiddenLayout(et *edm.EntityType, show, hidden map[*edm.Property]bool) *layout {
	l := &layout{typ: et, hidden: hidden, typeCol: -1}
	etag := map[*edm.Property]bool{}
	for _, p := range et.ETagProperties() {
		etag[p] = true
	}
	for _, p := range et.Properties {
		out := !p.Lazy
		if show != nil {
			out = show[p]
		}
		if !out && !p.IsKey() && !etag[p] || hidden[p] {
			continue
		}
		f := l.addField(p, out)
		f.etag = etag[p]
		if f.etag {
			l.etag = append(l.etag, f)
			l.etagCols = appendLeafColumns(l.etagCols, f)
		}
	}
	if rv := et.RowVersion(); rv != nil {
		// The row version is read for the ETag alone: no property, never shown, never redacted.
		f := l.addField(rv, false)
		f.etag = true
		l.etag, l.etagCols = []*field{f}, []int{f.col}
	}
	for _, k := range et.KeyProperties() {
		for _, f := range l.fields {
			if f.prop == k {
				l.keys = append(l.keys, f.col)
			}
		}
	}
	l.keysShown = keysShown(l)
	return l
}

// keysShown reports whether the answer shows every key property of the layout's type.
func keysShown(l *layout) bool {
	for _, k := range l.typ.KeyProperties() {
		shown := false
		for _, f := range l.fields {
			shown = shown || f.prop == k && f.out
		}
		if !shown {
			return false
		}
	}
	return true
}

func appendLeafColumns(cols []int, f *field) []int {
	if f.col >= 0 {
		return append(cols, f.col)
	}
	for _, m := range f.members {
		cols = appendLeafColumns(cols, m)
	}
	return cols
}

// layoutOf returns the layout of the rows of a planned read: its columns as the planner orders them, the
// properties it selected written to the answer, the others (key and ETag properties) read only.
func layoutOf(p *plan.Projection) *layout {
	l := &layout{typ: p.Type, cols: make([]*edm.Property, len(p.Columns)), keys: p.Key, etagCols: p.ETag, typeCol: p.TypeColumn()}
	for i, c := range p.Columns {
		if len(c.Path) == 0 {
			continue
		}
		last := c.Path[len(c.Path)-1]
		l.cols[i] = last
		top := c.Path[0]
		var f *field
		if n := len(l.fields); n > 0 && l.fields[n-1].prop == top {
			f = l.fields[n-1]
		} else {
			f = &field{prop: top, name: fieldName(top.Name), col: -1}
			l.fields = append(l.fields, f)
		}
		f.out = f.out || c.Selected
		for _, m := range c.Path[1:] {
			var mf *field
			for _, x := range f.members {
				if x.prop == m {
					mf = x
				}
			}
			if mf == nil {
				mf = &field{prop: m, name: fieldName(m.Name), col: -1}
				f.members = append(f.members, mf)
			}
			mf.out = mf.out || c.Selected
			f = mf
		}
		f.col = i
	}
	for _, f := range l.fields {
		markWhole(f)
	}
	l.keysShown = keysShown(l)
	if l.typeCol >= 0 {
		l.derived = map[*edm.Property]bool{}
		for _, d := range l.typ.DerivedTypes() {
			for _, p := range d.DeclaredProperties() {
				l.derived[p] = true
			}
		}
	}
	return l
}

// markWhole sets whole on the complex fields that have every member.
func markWhole(f *field) bool {
	if f.col >= 0 {
		return true
	}
	f.whole = len(f.members) == len(f.prop.Properties())
	for _, m := range f.members {
		if !markWhole(m) {
			f.whole = false
		}
	}
	return f.whole
}

func (l *layout) addField(p *edm.Property, out bool) *field {
	f := &field{prop: p, name: fieldName(p.Name), col: -1, out: out, whole: true}
	if p.Complex != nil && !p.Collection {
		l.addMembers(f)
	} else {
		f.col = len(l.cols)
		l.cols = append(l.cols, p)
	}
	l.fields = append(l.fields, f)
	return f
}

// addMembers adds the members of the complex field f but the hidden ones; f is whole when none is.
func (l *layout) addMembers(f *field) {
	for _, m := range f.prop.Properties() {
		if l.hidden[m] {
			f.whole = false
			continue
		}
		mf := l.member(m)
		f.whole = f.whole && mf.whole
		f.members = append(f.members, mf)
	}
}

func (l *layout) member(p *edm.Property) *field {
	f := &field{prop: p, name: fieldName(p.Name), col: -1, out: true, whole: true}
	if p.Complex != nil {
		l.addMembers(f)
		return f
	}
	f.col = len(l.cols)
	l.cols = append(l.cols, p)
	return f
}

func fieldName(name string) []byte {
	b := appendString(nil, name)
	return append(b, ':')
}

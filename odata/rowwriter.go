package odata

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// rowWriter turns scanned rows of a layout into JSON objects. It keeps one scratch buffer for the values of a
// row, so writing a page allocates nothing per row beyond what the driver returns.
type rowWriter struct {
	layout   *layout
	values   []any
	pointers []any
	buf      []byte // JSON of each column, back to back
	offsets  []int  // offsets[i]:offsets[i+1] is column i's JSON
	items    []byte // scratch for a collection item
	out      []byte // scratch for a whole answer of one entity
	// format is the answer's: its control information and number form; nil writes the properties alone.
	format *answerFormat
	ctx    []byte // an @odata.context member to write first in each object ("", for collection members)
	// target is the request's target when the rows are its entities (not expanded ones): it tells the path of
	// a row's entity relative to the service root (target.rowPath), for its id and links.
	target *target
	// expanded lists the navigation properties whose expansions follow the members (their writer adds their
	// navigation links).
	expanded []*edm.NavigationProperty
	// types, quote and omitNulls are what format asks of each value, noted by appendMembers: its type (full
	// metadata), Int64 and Decimal values as strings (IEEE754Compatible), nulls left out (omit-values=nulls).
	types, quote, omitNulls bool
}

func newRowWriter(l *layout) *rowWriter {
	w := &rowWriter{layout: l, values: make([]any, len(l.cols)), pointers: make([]any, len(l.cols)), offsets: make([]int, len(l.cols)+1)}
	for i := range w.values {
		w.pointers[i] = &w.values[i]
	}
	return w
}

// convert fills the scratch buffer from the scanned values.
func (w *rowWriter) convert() error {
	w.buf = w.buf[:0]
	for i, p := range w.layout.cols {
		w.offsets[i] = len(w.buf)
		var err error
		if p == nil {
			continue
		}
		if p.Collection {
			w.buf, err = w.appendCollection(w.buf, p, w.values[i])
		} else {
			w.buf, err = appendColumn(w.buf, p, w.values[i])
		}
		if err != nil {
			return err
		}
	}
	w.offsets[len(w.layout.cols)] = len(w.buf)
	return nil
}

func (w *rowWriter) appendCollection(b []byte, p *edm.Property, src any) ([]byte, error) {
	text, err := aggregateText(p, src)
	if err != nil {
		return b, err
	}
	b = append(b, '[')
	n := 0
	w.items, err = scanArray(text, w.items, func(k itemKind, v []byte) error {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		// Strings need no Go value: unescaped by the scanner, escaped again as appendValue does.
		if k == itemString && p.Enum == nil && p.Type == edm.KindString {
			b = appendBytesString(b, v)
			return nil
		}
		item, err := collectionItem(p, k, v)
		if err != nil {
			return err
		}
		b, err = appendValue(b, p, item)
		return err
	})
	if err != nil {
		return b, fmt.Errorf("odata: collection %s: %w", p.Name, err)
	}
	return append(b, ']'), nil
}

func (w *rowWriter) columnJSON(i int) []byte { return w.buf[w.offsets[i]:w.offsets[i+1]] }

// etag returns the ETag hash of the converted row.
func (w *rowWriter) etag() uint64 {
	h := fnvOffset
	for _, c := range w.layout.etagCols {
		h = fnvAdd(fnvAdd(h, w.columnJSON(c)), zero)
	}
	return h
}

// appendObject appends the converted row as a JSON object.
func (w *rowWriter) appendObject(b []byte) []byte {
	path := ""
	if w.needsPath() {
		path = w.target.rowPath(w)
	}
	return append(w.appendMembers(b, path), '}')
}

// needsPath reports whether the row's object needs the path of its entity (for its id or links) and the writer
// can tell it.
func (w *rowWriter) needsPath() bool { return w.target != nil && w.needsOwnID() }

// needsOwnID reports whether the row's object shows its id or links: full metadata, or a layout that does not
// show the whole key.
func (w *rowWriter) needsOwnID() bool {
	return w.format != nil && w.format.needsPath(w.layout)
}

// appendMembers appends the converted row as a JSON object without its closing brace (expansions follow); path
// is the entity's relative to the service root, "" when it is not known.
func (w *rowWriter) appendMembers(b []byte, path string) []byte {
	b = append(append(b, '{'), w.ctx...)
	if w.format == nil {
		w.types, w.quote, w.omitNulls = false, false, false
		return w.appendProperties(b)
	}
	w.types, w.quote, w.omitNulls = w.format.full(), w.format.ieee754, w.format.omitNulls
	b = w.format.appendEntityControls(b, w.layout, w.rowType(), path, w.etag)
	b = w.appendProperties(b)
	return w.format.appendNavigationLinks(b, w.layout, path, w.expanded)
}

// appendProperties appends the members of the properties the layout shows: of a polymorphic read, those of the
// row's own type.
func (w *rowWriter) appendProperties(b []byte) []byte {
	rowType := w.rowType()
	for _, f := range w.layout.fields {
		if f.out && (!w.layout.derived[f.prop] || rowType.Property(f.prop.Name) == f.prop) {
			b = w.appendField(b, f)
		}
	}
	return b
}

// rowType returns the entity type of the scanned row: the layout's, or one derived from it that the row's type
// column names.
func (w *rowWriter) rowType() *edm.EntityType {
	if w.layout.typeCol < 0 {
		return w.layout.typ
	}
	return w.layout.rowType(w.values[w.layout.typeCol])
}

// appendField appends the member of the field f, its type before it with full metadata.
func (w *rowWriter) appendField(b []byte, f *field) []byte {
	if f.col >= 0 {
		value := w.columnJSON(f.col)
		null := string(value) == "null"
		if null && w.omitNulls {
			return b
		}
		if w.types {
			b = w.format.appendPropertyType(b, f.prop, null)
		}
		b = appendName(b, f.name)
		if w.quote && quotesNumbers(f.prop) {
			return appendQuotedNumbers(b, value)
		}
		return append(b, value...)
	}
	null := f.prop.Nullable && f.whole && w.allNull(f)
	if null && w.omitNulls {
		return b
	}
	if w.types {
		b = w.format.appendPropertyType(b, f.prop, false)
	}
	b = appendName(b, f.name)
	if null {
		return append(b, "null"...)
	}
	b = append(b, '{')
	if w.types {
		b = w.format.appendTypeName(append(b, typeName...), f.prop.Complex.Name)
	}
	for _, m := range f.members {
		if m.out {
			b = w.appendField(b, m)
		}
	}
	return append(b, '}')
}

func (w *rowWriter) allNull(f *field) bool {
	if f.col >= 0 {
		return w.values[f.col] == nil
	}
	for _, m := range f.members {
		if !w.allNull(m) {
			return false
		}
	}
	return true
}

// entity returns the scanned row as an Entity.
func (w *rowWriter) entity() (Entity, error) {
	e := make(Entity, len(w.layout.fields))
	for _, f := range w.layout.fields {
		v, err := w.goValue(f)
		if err != nil {
			return nil, err
		}
		e[f.prop.Name] = v
	}
	return e, nil
}

func (w *rowWriter) goValue(f *field) (any, error) {
	if f.col >= 0 {
		if f.prop.Collection {
			return collectionItems(f.prop, w.values[f.col])
		}
		return sqldb.Scan(f.prop, w.values[f.col])
	}
	if f.prop.Nullable && f.whole && w.allNull(f) {
		return nil, nil
	}
	m := make(map[string]any, len(f.members))
	for _, mf := range f.members {
		v, err := w.goValue(mf)
		if err != nil {
			return nil, err
		}
		m[mf.prop.Name] = v
	}
	return m, nil
}

// aggregateText returns the text of an aggregated collection column; nil (no side table rows on PostgreSQL)
// is the empty array.
func aggregateText(p *edm.Property, src any) ([]byte, error) {
	switch s := src.(type) {
	case nil:
		return []byte("[]"), nil
	case string:
		// The scanner only reads the text, so the string's bytes need no copy.
		return unsafe.Slice(unsafe.StringData(s), len(s)), nil
	case []byte:
		return s, nil
	}
	return nil, fmt.Errorf("odata: collection %s: unexpected column value of type %T", p.Name, src)
}

// collectionItems decodes an aggregated collection column into the Go values of its items.
func collectionItems(p *edm.Property, src any) ([]any, error) {
	text, err := aggregateText(p, src)
	if err != nil {
		return nil, err
	}
	items := []any{}
	_, err = scanArray(text, nil, func(k itemKind, v []byte) error {
		item, err := collectionItem(p, k, v)
		items = append(items, item)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("odata: collection %s: %w", p.Name, err)
	}
	return items, nil
}

// collectionItem converts one item of an aggregated collection to the driver value Scan expects, then to its
// Go value.
func collectionItem(p *edm.Property, k itemKind, v []byte) (any, error) {
	switch k {
	case itemNull:
		return nil, nil
	case itemTrue:
		return sqldb.Scan(p, true)
	case itemFalse:
		return sqldb.Scan(p, false)
	case itemNumber:
		if p.Enum == nil && (p.Type == edm.KindDouble || p.Type == edm.KindSingle) {
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil {
				return nil, err
			}
			return sqldb.Scan(p, f)
		}
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return sqldb.Scan(p, n)
		}
		return sqldb.Scan(p, string(v))
	}
	if p.Enum == nil && p.Type == edm.KindBinary {
		return decodeHex(string(v))
	}
	return sqldb.Scan(p, string(v))
}

// appendName appends the name of a member (`"Name":`), after a comma unless it is the object's first.
func appendName(b, name []byte) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	return append(b, name...)
}

// appendETagMember appends the @odata.etag member with the hash sum.
func appendETagMember(b []byte, sum uint64) []byte {
	return appendETagJSON(appendName(b, etagName), sum)
}

var etagName = []byte(`"@odata.etag":`)

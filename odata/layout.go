package odata

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqldb"
)

// Entity is one entity as hooks, actions and the Tx helpers see it: property name -> Go value of the types in
// odata/DESIGN.md (string, bool, int64, decimal.Decimal, float64, edm.Date, edm.TimeOfDay, time.Time,
// time.Duration, []byte, enum values as int64). A complex value is an Entity-shaped map[string]any, a collection
// a []any. A property that is absent from the map was not loaded (a lazy property) or not sent.
type Entity map[string]any

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
	cols     []*edm.Property // the property of each column, see below
	fields   []*field        // top-level properties in declaration order
	keys     []int           // columns of the key properties, in key order
	etag     []*field        // ETag properties in declaration order (for Go values; newLayout only)
	etagCols []int           // the columns the ETag hashes, in order
}

// newLayout returns the layout of et that shows the properties in show (nil: every property that is not lazy).
// Key and ETag properties are always read: the key for links and paging, the ETag properties for the ETag.
func newLayout(et *edm.EntityType, show map[*edm.Property]bool) *layout {
	l := &layout{typ: et}
	etag := map[*edm.Property]bool{}
	for _, p := range et.ETagProperties() {
		etag[p] = true
	}
	for _, p := range et.Properties {
		out := !p.Lazy
		if show != nil {
			out = show[p]
		}
		if !out && !p.IsKey() && !etag[p] {
			continue
		}
		f := l.addField(p, out)
		f.etag = etag[p]
		if f.etag {
			l.etag = append(l.etag, f)
			l.etagCols = appendLeafColumns(l.etagCols, f)
		}
	}
	for _, k := range et.KeyProperties() {
		for _, f := range l.fields {
			if f.prop == k {
				l.keys = append(l.keys, f.col)
			}
		}
	}
	return l
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
	l := &layout{typ: p.Type, cols: make([]*edm.Property, len(p.Columns)), keys: p.Key, etagCols: p.ETag}
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
		for _, m := range p.Properties() {
			f.members = append(f.members, l.member(m))
		}
	} else {
		f.col = len(l.cols)
		l.cols = append(l.cols, p)
	}
	l.fields = append(l.fields, f)
	return f
}

func (l *layout) member(p *edm.Property) *field {
	f := &field{prop: p, name: fieldName(p.Name), col: -1, out: true, whole: true}
	if p.Complex != nil {
		for _, m := range p.Properties() {
			f.members = append(f.members, l.member(m))
		}
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

// rowWriter turns scanned rows of a layout into JSON objects. It keeps one scratch buffer for the values of a
// row, so writing a page allocates nothing per row beyond what the driver returns.
type rowWriter struct {
	l      *layout
	vals   []any
	ptrs   []any
	buf    []byte // JSON of each column, back to back
	offs   []int  // offs[i]:offs[i+1] is column i's JSON
	items  []byte // scratch for a collection item
	etagOn bool   // write @odata.etag
	ctx    []byte // an @odata.context member to write first in each object ("", for collection members)
}

func newRowWriter(l *layout) *rowWriter {
	w := &rowWriter{l: l, vals: make([]any, len(l.cols)), ptrs: make([]any, len(l.cols)), offs: make([]int, len(l.cols)+1)}
	for i := range w.vals {
		w.ptrs[i] = &w.vals[i]
	}
	return w
}

// convert fills the scratch buffer from the scanned values.
func (w *rowWriter) convert() error {
	w.buf = w.buf[:0]
	for i, p := range w.l.cols {
		w.offs[i] = len(w.buf)
		var err error
		if p == nil {
			continue
		}
		if p.Collection {
			w.buf, err = w.appendCollection(w.buf, p, w.vals[i])
		} else {
			w.buf, err = appendColumn(w.buf, p, w.vals[i])
		}
		if err != nil {
			return err
		}
	}
	w.offs[len(w.l.cols)] = len(w.buf)
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

func appendItems(b []byte, p *edm.Property, items []any) ([]byte, error) {
	b = append(b, '[')
	for i, v := range items {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendValue(b, p, v); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

func (w *rowWriter) colJSON(i int) []byte { return w.buf[w.offs[i]:w.offs[i+1]] }

// etag returns the ETag hash of the converted row.
func (w *rowWriter) etag() uint64 {
	h := fnvOffset
	for _, c := range w.l.etagCols {
		h = fnvAdd(fnvAdd(h, w.colJSON(c)), zero)
	}
	return h
}

// appendObject appends the converted row as a JSON object.
func (w *rowWriter) appendObject(b []byte) []byte { return append(w.appendMembers(b), '}') }

// appendMembers appends the converted row as a JSON object without its closing brace (expansions follow).
func (w *rowWriter) appendMembers(b []byte) []byte {
	b = append(append(b, '{'), w.ctx...)
	if w.etagOn {
		b = appendETagMember(b, w.etag())
	}
	for _, f := range w.l.fields {
		if f.out {
			b = w.appendField(appendName(b, f.name), f)
		}
	}
	return b
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

func (w *rowWriter) appendField(b []byte, f *field) []byte {
	if f.col >= 0 {
		return append(b, w.colJSON(f.col)...)
	}
	if f.prop.Nullable && f.whole && w.allNull(f) {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for _, m := range f.members {
		if m.out {
			b = w.appendField(appendName(b, m.name), m)
		}
	}
	return append(b, '}')
}

func (w *rowWriter) allNull(f *field) bool {
	if f.col >= 0 {
		return w.vals[f.col] == nil
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
	e := make(Entity, len(w.l.fields))
	for _, f := range w.l.fields {
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
			return collectionItems(f.prop, w.vals[f.col])
		}
		return sqldb.Scan(f.prop, w.vals[f.col])
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

// entityWriter writes Entity values (Go values) with the same output and ETags as rowWriter.
type entityWriter struct {
	l   *layout
	buf []byte
}

// appendEntity appends e as a JSON object; ctx is an optional first member (the @odata.context), etag whether
// to write @odata.etag.
func (ew *entityWriter) appendEntity(b []byte, e Entity, ctx []byte, etag bool) ([]byte, error) {
	b = append(append(b, '{'), ctx...)
	if etag {
		sum, err := ew.etag(e)
		if err != nil {
			return b, err
		}
		b = appendETagMember(b, sum)
	}
	for _, f := range ew.l.fields {
		if !f.out {
			continue
		}
		var err error
		if b, err = appendGoField(appendName(b, f.name), f, e[f.prop.Name]); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendGoField appends the Go value v of the field f.
func appendGoField(b []byte, f *field, v any) ([]byte, error) {
	if f.col >= 0 {
		if f.prop.Collection {
			if v == nil {
				return append(b, "[]"...), nil
			}
			items, ok := v.([]any)
			if !ok {
				return b, fmt.Errorf("odata: property %s: a collection must be a []any, not %T", f.prop.Name, v)
			}
			return appendItems(b, f.prop, items)
		}
		return appendValue(b, f.prop, v)
	}
	if v == nil {
		if f.prop.Nullable {
			return append(b, "null"...), nil
		}
		v = map[string]any{}
	}
	m, ok := asMap(v)
	if !ok {
		return b, fmt.Errorf("odata: property %s: a complex value must be a map[string]any, not %T", f.prop.Name, v)
	}
	b = append(b, '{')
	for i, mf := range f.members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, mf.name...)
		var err error
		if b, err = appendGoField(b, mf, m[mf.prop.Name]); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case Entity:
		return m, true
	}
	return nil, false
}

// etag returns the ETag hash of e: the hash of the same bytes rowWriter hashes for the stored row.
func (ew *entityWriter) etag(e Entity) (uint64, error) {
	h := fnvOffset
	for _, f := range ew.l.etag {
		var err error
		if h, err = ew.hashGo(h, f, e[f.prop.Name]); err != nil {
			return 0, err
		}
	}
	return h, nil
}

func (ew *entityWriter) hashGo(h uint64, f *field, v any) (uint64, error) {
	if f.col >= 0 {
		var err error
		ew.buf = ew.buf[:0]
		if f.prop.Collection {
			items, _ := v.([]any)
			if items == nil {
				items = []any{}
			}
			ew.buf, err = appendItems(ew.buf, f.prop, items)
		} else {
			ew.buf, err = appendValue(ew.buf, f.prop, v)
		}
		if err != nil {
			return h, err
		}
		return fnvAdd(fnvAdd(h, ew.buf), zero), nil
	}
	m, _ := asMap(v)
	for _, mf := range f.members {
		var err error
		if h, err = ew.hashGo(h, mf, m[mf.prop.Name]); err != nil {
			return h, err
		}
	}
	return h, nil
}

// ETags are FNV-1a 64 hashes over the JSON of the ETag properties' values, each followed by a zero byte.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

var zero = []byte{0}

func fnvAdd(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// appendETag appends the weak ETag of a hash: W/"0123456789abcdef".
func appendETag(b []byte, sum uint64) []byte {
	b = append(b, 'W', '/', '"')
	for i := 60; i >= 0; i -= 4 {
		b = append(b, hexDigits[(sum>>uint(i))&0xf])
	}
	return append(b, '"')
}

// appendETagJSON appends the ETag as a JSON string: "W/\"0123456789abcdef\"".
func appendETagJSON(b []byte, sum uint64) []byte {
	b = append(b, '"', 'W', '/', '\\', '"')
	for i := 60; i >= 0; i -= 4 {
		b = append(b, hexDigits[(sum>>uint(i))&0xf])
	}
	return append(b, '\\', '"', '"')
}

// formatETag returns the weak ETag of a hash as a header value.
func formatETag(sum uint64) string { return string(appendETag(make([]byte, 0, 21), sum)) }

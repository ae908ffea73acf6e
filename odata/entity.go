package odata

import (
	"fmt"

	"github.com/storekit/store/odata/edm"
)

// Entity is one entity as hooks, actions and the Tx helpers see it: property name -> Go value of the types in
// odata/DESIGN.md (string, bool, int64, decimal.Decimal, float64, edm.Date, edm.TimeOfDay, time.Time,
// time.Duration, []byte, enum values as int64). A complex value is an Entity-shaped map[string]any, a collection
// a []any. A property that is absent from the map was not loaded (a lazy property) or not sent.
type Entity map[string]any

// asMap returns a complex value (a map[string]any, or an Entity) as a map.
func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case Entity:
		return m, true
	}
	return nil, false
}

// entityWriter writes Entity values (Go values) with the same output and ETags as rowWriter.
type entityWriter struct {
	layout *layout
	buf    []byte
}

// appendEntity appends e as a JSON object in the format (nil: its properties alone); ctx is an optional first
// member (the @odata.context), path the entity's path relative to the service root (for its id and links; ""
// when not known).
func (ew *entityWriter) appendEntity(b []byte, e Entity, ctx []byte, format *answerFormat, path string) ([]byte, error) {
	b = append(append(b, '{'), ctx...)
	if format != nil {
		sum, err := ew.etag(e)
		if err != nil {
			return b, err
		}
		b = format.appendEntityControls(b, ew.layout, nil, path, func() uint64 { return sum })
	}
	for _, f := range ew.layout.fields {
		if !f.out {
			continue
		}
		var err error
		if b, err = appendGoMember(b, f, e[f.prop.Name], format); err != nil {
			return b, err
		}
	}
	if format != nil {
		b = format.appendNavigationLinks(b, ew.layout, path, nil)
	}
	return append(b, '}'), nil
}

// appendGoMember appends the member of the field f with the Go value v, its type before it with full
// metadata.
func appendGoMember(b []byte, f *field, v any, format *answerFormat) ([]byte, error) {
	if format != nil {
		if v == nil && format.omitNulls && (f.col >= 0 && !f.prop.Collection || f.prop.Nullable && f.whole) {
			return b, nil // a null the answer leaves out (Prefer: omit-values=nulls)
		}
		b = format.appendPropertyType(b, f.prop, v == nil)
	}
	return appendGoField(appendName(b, f.name), f, v, format)
}

// appendGoField appends the Go value v of the field f in the format (nil: as stored, for ETags and
// comparisons).
func appendGoField(b []byte, f *field, v any, format *answerFormat) ([]byte, error) {
	if f.col >= 0 {
		quote := format != nil && format.ieee754 && quotesNumbers(f.prop)
		if f.prop.Collection {
			if v == nil {
				return append(b, "[]"...), nil
			}
			items, ok := v.([]any)
			if !ok {
				return b, fmt.Errorf("odata: property %s: a collection must be a []any, not %T", f.prop.Name, v)
			}
			return appendItems(b, f.prop, items, quote)
		}
		return appendValueQuoted(b, f.prop, v, quote)
	}
	if v == nil {
		// A complex value some of whose members are left out is written with the members shown, all null, as
		// rowWriter writes it: whether it is null must not tell what the members left out hold.
		if f.prop.Nullable && f.whole {
			return append(b, "null"...), nil
		}
		v = map[string]any{}
	}
	m, ok := asMap(v)
	if !ok {
		return b, fmt.Errorf("odata: property %s: a complex value must be a map[string]any, not %T", f.prop.Name, v)
	}
	b = append(b, '{')
	if format != nil && format.full() {
		b = format.appendTypeName(append(b, typeName...), f.prop.Complex.Name)
	}
	for _, mf := range f.members {
		var err error
		if b, err = appendGoMember(b, mf, m[mf.prop.Name], format); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendValueQuoted is appendValue, with a number as a JSON string when quote (IEEE754Compatible).
func appendValueQuoted(b []byte, p *edm.Property, v any, quote bool) ([]byte, error) {
	if !quote || v == nil {
		return appendValue(b, p, v)
	}
	b, err := appendValue(append(b, '"'), p, v)
	return append(b, '"'), err
}

// appendItems appends the items of a collection of p, numbers as JSON strings when quote.
func appendItems(b []byte, p *edm.Property, items []any, quote bool) ([]byte, error) {
	b = append(b, '[')
	for i, v := range items {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendValueQuoted(b, p, v, quote); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// etag returns the ETag hash of e: the hash of the same bytes rowWriter hashes for the stored row.
func (ew *entityWriter) etag(e Entity) (uint64, error) {
	h := fnvOffset
	for _, f := range ew.layout.etag {
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
			ew.buf, err = appendItems(ew.buf, f.prop, items, false)
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

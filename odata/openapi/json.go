package openapi

import (
	"bytes"
	"encoding/json"
)

// jsObject is a JSON object that keeps its members in the order they were set, so that the OpenAPI document
// lists paths, properties and schemas in model order (which is how documentation pages show them) and comes out
// the same every time. Maps, which encoding/json writes with sorted keys, serve where order does not matter.
type jsObject struct {
	keys   []string
	values map[string]any
}

func newObject() *jsObject { return &jsObject{values: map[string]any{}} }

// set sets a member; a new one goes last, an existing one keeps its place.
func (o *jsObject) set(key string, v any) *jsObject {
	if _, ok := o.values[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.values[key] = v
	return o
}

// get returns a member, nil when absent.
func (o *jsObject) get(key string) any { return o.values[key] }

func (o *jsObject) len() int { return len(o.keys) }

// MarshalJSON writes the members in order, without escaping <, > and & (descriptions hold "<token>").
func (o *jsObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	out := []byte{'{'}
	for i, k := range o.keys {
		if i > 0 {
			out = append(out, ',')
		}
		b.Reset()
		if err := enc.Encode(k); err != nil {
			return nil, err
		}
		out = append(out, bytes.TrimRight(b.Bytes(), "\n")...)
		out = append(out, ':')
		b.Reset()
		if err := enc.Encode(o.values[k]); err != nil {
			return nil, err
		}
		out = append(out, bytes.TrimRight(b.Bytes(), "\n")...)
	}
	return append(out, '}'), nil
}

// marshalDocument writes v as compact JSON without HTML escaping.
func marshalDocument(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

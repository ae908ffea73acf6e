// Package gostruct reads the fields of Go struct types that stand for entity and complex types, and their
// `odata:"..."` tags: the one walk that odata/edm (deriving a model from structs) and odata (converting
// entities to and from structs) share, so both agree on which field is which property. It imports no project
// package.
//
// A tag is the property's name (empty: the Go field's name) followed by comma-separated options, each a word
// or word=value; "description=" takes the rest of the tag, commas included. A field tagged "-" and unexported
// fields are not properties; the exported fields of an embedded struct (not a pointer to one) without a tag
// count as the outer struct's own.
package gostruct

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// TagKey is the struct tag key read.
const TagKey = "odata"

// Field is a field of a struct that stands for a property or navigation.
type Field struct {
	// Index is the field's index sequence (reflect.Value.FieldByIndex).
	Index []int
	// GoName is the Go field's name, Type its type.
	GoName string
	Type   reflect.Type
	// Name is the property or navigation name: the tag's, else GoName.
	Name string
	// Options are the tag's options in order.
	Options []Option
}

// Option is one option of a tag: Key, or Key=Value.
type Option struct {
	Key, Value string
	HasValue   bool
}

// Option returns the option named key and whether the tag has it.
func (f *Field) Option(key string) (Option, bool) {
	for _, o := range f.Options {
		if o.Key == key {
			return o, true
		}
	}
	return Option{}, false
}

// Navigation reports whether the field is a navigation property: its tag names a foreign key or a link table.
func (f *Field) Navigation() bool {
	for _, o := range f.Options {
		switch o.Key {
		case "fk", "fkcolumns", "link":
			return true
		}
	}
	return false
}

// Struct is the result of Fields for one struct type.
type Struct struct {
	Fields []Field
	// Problems are the type's wrong fields, each naming its field; Fields holds the fields without one.
	Problems []error
}

// Err returns the problems joined (errors.Join), nil when there are none.
func (s *Struct) Err() error { return errors.Join(s.Problems...) }

var cache sync.Map // reflect.Type -> *Struct

// Fields returns the fields of the struct type t that stand for properties and navigations, in declaration
// order (embedded structs' fields where the embedded field is). The result is cached per type and must not be
// changed.
func Fields(t reflect.Type) *Struct {
	if s, ok := cache.Load(t); ok {
		return s.(*Struct)
	}
	s := &Struct{}
	walk(t, nil, &s.Fields, &s.Problems)
	seen := map[string]string{}
	kept := s.Fields[:0]
	for _, f := range s.Fields {
		if other, ok := seen[f.Name]; ok {
			s.Problems = append(s.Problems, fmt.Errorf("fields %s and %s both name %q", other, f.GoName, f.Name))
			continue
		}
		seen[f.Name] = f.GoName
		kept = append(kept, f)
	}
	s.Fields = kept
	actual, _ := cache.LoadOrStore(t, s)
	return actual.(*Struct)
}

// walk appends the fields of t, whose index sequence starts with prefix, to out.
func walk(t reflect.Type, prefix []int, out *[]Field, problems *[]error) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, tagged := sf.Tag.Lookup(TagKey)
		if tag == "-" {
			continue
		}
		index := append(append([]int(nil), prefix...), i)
		if sf.Anonymous && !tagged {
			switch {
			case sf.Type.Kind() == reflect.Struct:
				walk(sf.Type, index, out, problems)
				continue
			case sf.Type.Kind() == reflect.Pointer && sf.Type.Elem().Kind() == reflect.Struct:
				*problems = append(*problems, fmt.Errorf("field %s: an embedded pointer to a struct is not supported (embed the struct, or tag the field)", sf.Name))
				continue
			}
		}
		if !sf.IsExported() {
			if tagged {
				*problems = append(*problems, fmt.Errorf("field %s: the field is not exported", sf.Name))
			}
			continue
		}
		name, options, err := parseTag(tag)
		if err != nil {
			*problems = append(*problems, fmt.Errorf("field %s: %w", sf.Name, err))
			continue
		}
		if name == "" {
			name = sf.Name
		}
		*out = append(*out, Field{Index: index, GoName: sf.Name, Type: sf.Type, Name: name, Options: options})
	}
}

// parseTag splits a tag into the name and the options.
func parseTag(tag string) (string, []Option, error) {
	name, rest, more := strings.Cut(tag, ",")
	name = strings.TrimSpace(name)
	var options []Option
	for more {
		var item string
		item, rest, more = strings.Cut(rest, ",")
		key, value, hasValue := strings.Cut(item, "=")
		key = strings.TrimSpace(key)
		if key == "description" && more {
			value, more = value+","+rest, false
		}
		if key == "" {
			return "", nil, fmt.Errorf("tag %q: empty option", tag)
		}
		for _, o := range options {
			if o.Key == key {
				return "", nil, fmt.Errorf("tag %q: option %s given twice", tag, key)
			}
		}
		if !hasValue {
			value = ""
		} else if key != "description" {
			value = strings.TrimSpace(value)
		}
		options = append(options, Option{Key: key, Value: value, HasValue: hasValue})
	}
	return name, options, nil
}

// List splits an option's value of several names ("A;B") into them.
func List(value string) []string {
	if value == "" {
		return nil
	}
	parts := strings.Split(value, ";")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

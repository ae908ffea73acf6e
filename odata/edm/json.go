package edm

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WriteJSON writes the model as a CSDL JSON 4.01 document (the $metadata answer for application/json), with
// members in declaration order: enum types, complex types, entity types, actions, functions (each an array of
// its overloads), then the entity container (left out when it would be empty, as in WriteXML).
func (m *Model) WriteJSON(w io.Writer) error {
	if !m.built {
		return errNotBuilt
	}
	var ann annotations
	schema := m.jsonSchema(&ann)
	doc := &jsonObject{}
	doc.set("$Version", "4.01")
	if m.hasContainer() {
		doc.set("$EntityContainer", m.Namespace+"."+m.Container)
	}
	refs := &jsonObject{}
	for _, ns := range vocabularies {
		if ann.used[ns] {
			inc := &jsonObject{}
			inc.set("$Namespace", ns)
			ref := &jsonObject{}
			ref.set("$Include", []any{inc})
			refs.set(vocabularyURL+ns+".json", ref)
		}
	}
	if len(refs.keys) > 0 {
		doc.set("$Reference", refs)
	}
	doc.set(m.Namespace, schema)
	bw := bufio.NewWriter(w)
	writeJSON(bw, doc, 0)
	bw.WriteByte('\n')
	return bw.Flush()
}

// jsonSchema returns the schema object: the types, the operations and the entity container, in that order.
func (m *Model) jsonSchema(ann *annotations) *jsonObject {
	s := &jsonObject{}
	for _, e := range m.EnumTypes {
		s.set(e.Name, jsonEnumType(e, ann))
	}
	for _, c := range m.ComplexTypes {
		s.set(c.Name, m.jsonComplexType(c, ann))
	}
	for _, t := range m.EntityTypes {
		s.set(t.Name, m.jsonEntityType(t, ann))
	}
	for _, g := range m.actionGroups {
		s.set(g[0].Name, m.jsonActionOverloads(g, ann))
	}
	for _, g := range m.functionGroups {
		s.set(g[0].Name, m.jsonFunctionOverloads(g, ann))
	}
	if m.hasContainer() {
		s.set(m.Container, m.jsonContainer(ann))
	}
	return s
}

func jsonEnumType(e *EnumType, ann *annotations) *jsonObject {
	o := &jsonObject{}
	o.set("$Kind", "EnumType")
	if e.UnderlyingType != KindNone && e.UnderlyingType != KindInt32 {
		o.set("$UnderlyingType", e.UnderlyingType.String())
	}
	if e.Flags {
		o.set("$IsFlags", true)
	}
	for _, member := range e.Members {
		o.set(member.Name, rawJSON(strconv.FormatInt(member.Value, 10)))
	}
	o.annotate(ann.describe(e.Description))
	return o
}

func (m *Model) jsonComplexType(c *ComplexType, ann *annotations) *jsonObject {
	o := &jsonObject{}
	o.set("$Kind", "ComplexType")
	for _, p := range c.Properties {
		o.set(p.Name, m.jsonProperty(p, ann))
	}
	o.annotate(ann.describe(c.Description))
	return o
}

func (m *Model) jsonEntityType(t *EntityType, ann *annotations) *jsonObject {
	o := &jsonObject{}
	o.set("$Kind", "EntityType")
	if t.HasStream {
		o.set("$HasStream", true)
	}
	key := make([]any, len(t.key))
	for i, k := range t.key {
		key[i] = k.Name
	}
	o.set("$Key", key)
	for _, p := range t.Properties {
		o.set(p.Name, m.jsonProperty(p, ann))
	}
	for _, n := range t.Navigations {
		o.set(n.Name, m.jsonNavigation(n, ann))
	}
	o.annotate(ann.describe(t.Description))
	return o
}

func (m *Model) jsonNavigation(n *NavigationProperty, ann *annotations) *jsonObject {
	o := &jsonObject{}
	o.set("$Kind", "NavigationProperty")
	if n.Collection {
		o.set("$Collection", true)
	}
	o.set("$Type", m.Namespace+"."+n.target.Name)
	if n.Nullable && !n.Collection {
		o.set("$Nullable", true)
	}
	if n.Partner != "" {
		o.set("$Partner", n.Partner)
	}
	if n.ContainsTarget {
		o.set("$ContainsTarget", true)
	}
	if len(n.constraints) > 0 {
		constraints := &jsonObject{}
		for _, c := range n.constraints {
			constraints.set(c.Property, c.ReferencedProperty)
		}
		o.set("$ReferentialConstraint", constraints)
	}
	o.annotate(ann.describe(n.Description))
	return o
}

func (m *Model) jsonActionOverloads(group []*Action, ann *annotations) []any {
	overloads := make([]any, len(group))
	for i, a := range group {
		o := &jsonObject{}
		o.set("$Kind", "Action")
		m.jsonOperation(o, a.Bound, a.binding, a.BindingCollection, a.Parameters, a.ReturnType, a.Description, ann)
		overloads[i] = o
	}
	return overloads
}

func (m *Model) jsonFunctionOverloads(group []*Function, ann *annotations) []any {
	overloads := make([]any, len(group))
	for i, f := range group {
		o := &jsonObject{}
		o.set("$Kind", "Function")
		if f.Bound {
			o.set("$IsBound", true)
		}
		if f.IsComposable {
			o.set("$IsComposable", true)
		}
		m.jsonOperation(o, false, f.binding, f.BindingCollection, f.Parameters, f.ReturnType, f.Description, ann)
		overloads[i] = o
	}
	return overloads
}

// jsonContainer returns the entity container: entity sets, singletons, then action and function imports.
func (m *Model) jsonContainer(ann *annotations) *jsonObject {
	c := &jsonObject{}
	c.set("$Kind", "EntityContainer")
	for _, set := range m.EntitySets {
		o := &jsonObject{}
		o.set("$Collection", true)
		o.set("$Type", m.Namespace+"."+set.typ.Name)
		jsonBindings(o, set.bindings)
		o.annotate(ann.describe(set.Description))
		c.set(set.Name, o)
	}
	for _, singleton := range m.Singletons {
		o := &jsonObject{}
		o.set("$Type", m.Namespace+"."+singleton.typ.Name)
		jsonBindings(o, singleton.bindings)
		o.annotate(ann.describe(singleton.Description))
		c.set(singleton.Name, o)
	}
	for _, im := range imports(m) {
		o := &jsonObject{}
		o.set("$"+im.kind, m.Namespace+"."+im.name)
		if set := importSet(im.result); set != "" {
			o.set("$EntitySet", set)
		}
		c.set(im.name, o)
	}
	c.annotate(ann.container(m))
	return c
}

func jsonBindings(o *jsonObject, bs []NavigationBinding) {
	if len(bs) == 0 {
		return
	}
	b := &jsonObject{}
	for _, nb := range bs {
		b.set(nb.Path, nb.Target.Name)
	}
	o.set("$NavigationPropertyBinding", b)
}

func (m *Model) jsonProperty(p *Property, ann *annotations) *jsonObject {
	o := &jsonObject{}
	jsonType(o, m.qualified(p.Type, p.Enum, p.Complex, nil), p.Collection, p.Nullable, p.MaxLength, p.Precision, p.Scale, p.Type)
	if v, ok := defaultJSON(p); ok {
		o.set("$DefaultValue", v)
	}
	o.annotate(ann.property(p))
	return o
}

// jsonType sets $Collection, $Type (absent for Edm.String), $Nullable (absent means false) and the facets.
func jsonType(o *jsonObject, typ string, coll, nullable bool, maxLength, precision, scale int, k Kind) {
	if coll {
		o.set("$Collection", true)
	}
	if typ != KindString.String() {
		o.set("$Type", typ)
	}
	if nullable {
		o.set("$Nullable", true)
	}
	if maxLength > 0 {
		o.set("$MaxLength", maxLength)
	}
	if precision > 0 {
		o.set("$Precision", precision)
	}
	if k == KindDecimal {
		o.set("$Scale", scale)
	}
}

// jsonOperation fills an action or function overload. isBound adds $IsBound (functions set it themselves
// before $IsComposable).
func (m *Model) jsonOperation(o *jsonObject, isBound bool, binding *EntityType, coll bool, params []Parameter, ret *ReturnType, desc string, ann *annotations) {
	if isBound {
		o.set("$IsBound", true)
	}
	var ps []any
	if binding != nil {
		bp := &jsonObject{}
		bp.set("$Name", "bindingParameter")
		jsonType(bp, m.Namespace+"."+binding.Name, coll, false, 0, 0, 0, KindNone)
		ps = append(ps, bp)
	}
	for i := range params {
		p := &params[i]
		po := &jsonObject{}
		po.set("$Name", p.Name)
		jsonType(po, m.qualified(p.Type, p.Enum, p.Complex, p.entity), p.Collection, p.Nullable, p.MaxLength, p.Precision, p.Scale, p.Type)
		po.annotate(ann.parameter(p))
		ps = append(ps, po)
	}
	if len(ps) > 0 {
		o.set("$Parameter", ps)
	}
	if ret != nil {
		ro := &jsonObject{}
		jsonType(ro, m.qualified(ret.Type, ret.Enum, ret.Complex, ret.entity), ret.Collection, ret.Nullable, ret.MaxLength, ret.Precision, ret.Scale, ret.Type)
		o.set("$ReturnType", ro)
	}
	o.annotate(ann.describe(desc))
}

// jsonObject is a JSON object that keeps its members in insertion order.
type jsonObject struct {
	keys []string
	vals []any
}

func (o *jsonObject) set(k string, v any) {
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

// annotate adds annotations as "@Term" members.
func (o *jsonObject) annotate(list []annotation) {
	for _, a := range list {
		o.set("@"+a.term, jsonAnnotationValue(a.value))
	}
}

func jsonAnnotationValue(v any) any {
	switch v := v.(type) {
	case *record:
		o := &jsonObject{}
		if v.typ != "" {
			ns := v.typ[:strings.LastIndexByte(v.typ, '.')]
			o.set("@type", vocabularyURL+ns+".json#"+v.typ)
		}
		for _, f := range v.fields {
			o.set(f.name, jsonAnnotationValue(f.value))
		}
		return o
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = jsonAnnotationValue(item)
		}
		return out
	}
	return v
}

// rawJSON is a JSON number written as is.
type rawJSON string

// writeJSON writes v indented by two spaces per level.
func writeJSON(w *bufio.Writer, v any, depth int) {
	switch v := v.(type) {
	case *jsonObject:
		if len(v.keys) == 0 {
			w.WriteString("{}")
			return
		}
		w.WriteString("{\n")
		for i, k := range v.keys {
			writeIndent(w, depth+1)
			writeJSONString(w, k)
			w.WriteString(": ")
			writeJSON(w, v.vals[i], depth+1)
			if i < len(v.keys)-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		writeIndent(w, depth)
		w.WriteByte('}')
	case []any:
		if len(v) == 0 {
			w.WriteString("[]")
			return
		}
		w.WriteString("[\n")
		for i, item := range v {
			writeIndent(w, depth+1)
			writeJSON(w, item, depth+1)
			if i < len(v)-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		writeIndent(w, depth)
		w.WriteByte(']')
	case string:
		writeJSONString(w, v)
	case bool:
		w.WriteString(strconv.FormatBool(v))
	case int:
		w.WriteString(strconv.Itoa(v))
	case rawJSON:
		w.WriteString(string(v))
	default:
		panic("edm: unexpected JSON value") // unreachable: the writer builds the tree itself
	}
}

func writeIndent(w *bufio.Writer, depth int) {
	for range depth {
		w.WriteString("  ")
	}
}

// writeJSONString writes s as a JSON string, escaping quotes, backslashes, control characters and invalid
// UTF-8 (as U+FFFD).
func writeJSONString(w *bufio.Writer, s string) {
	const hex = "0123456789abcdef"
	w.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				w.WriteByte('\\')
				w.WriteByte(c)
			case c == '\n':
				w.WriteString(`\n`)
			case c == '\r':
				w.WriteString(`\r`)
			case c == '\t':
				w.WriteString(`\t`)
			case c < 0x20:
				w.WriteString(`\u00`)
				w.WriteByte(hex[c>>4])
				w.WriteByte(hex[c&0xf])
			default:
				w.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			w.WriteString(`\ufffd`)
		} else {
			w.WriteString(s[i : i+n])
		}
		i += n
	}
	w.WriteByte('"')
}

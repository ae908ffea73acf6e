package edm

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// WriteJSON writes the model as a CSDL JSON 4.01 document (the $metadata answer for application/json), with
// members in declaration order: enum types, complex types, entity types, actions, functions (each an array of
// its overloads), then the entity container (left out when it would be empty, as in WriteXML).
//
// The model's Annotations and extra, annotations a service adds, follow in the schema's $Annotations; those of
// the schema itself (Target the namespace) are members of the schema object, first in it.
func (m *Model) WriteJSON(w io.Writer, extra ...Annotations) error {
	if !m.built {
		return ErrNotBuilt
	}
	annotator := annotator{coreAlias: m.coreAliasFree()}
	schema := m.jsonSchema(&annotator)
	if blocks := annotator.useAnnotations(m.Annotations, extra); len(blocks) > 0 {
		targets := &jsonObject{}
		for _, t := range blocks {
			if t.target == m.Namespace {
				// The schema's own annotations are members of the schema object, first in it.
				own := &jsonObject{}
				own.annotate(t.annotations)
				schema.keys, schema.values = append(own.keys, schema.keys...), append(own.values, schema.values...)
				continue
			}
			o := &jsonObject{}
			o.annotate(t.annotations)
			targets.set(t.target, o)
		}
		if len(targets.keys) > 0 {
			schema.set("$Annotations", targets)
		}
	}
	doc := &jsonObject{}
	doc.set("$Version", "4.01")
	if m.hasContainer() {
		doc.set("$EntityContainer", m.Namespace+"."+m.Container)
	}
	references := &jsonObject{}
	for _, namespace := range annotator.usedVocabularies(m) {
		include := &jsonObject{}
		include.set("$Namespace", namespace)
		if namespace == coreNamespace && annotator.coreAlias {
			include.set("$Alias", coreAlias)
		}
		reference := &jsonObject{}
		reference.set("$Include", []any{include})
		references.set(m.vocabularyURI(namespace, "json"), reference)
	}
	if len(references.keys) > 0 {
		doc.set("$Reference", references)
	}
	doc.set(m.Namespace, schema)
	buffered := bufio.NewWriter(w)
	writeJSON(buffered, doc, 0)
	buffered.WriteByte('\n')
	return buffered.Flush()
}

// jsonSchema returns the schema object: the types, the operations and the entity container, in that order.
func (m *Model) jsonSchema(annotator *annotator) *jsonObject {
	s := &jsonObject{}
	for _, e := range m.EnumTypes {
		s.set(e.Name, jsonEnumType(e, annotator))
	}
	for _, c := range m.ComplexTypes {
		s.set(c.Name, m.jsonComplexType(c, annotator))
	}
	for _, t := range m.EntityTypes {
		s.set(t.Name, m.jsonEntityType(t, annotator))
	}
	for _, g := range m.actionGroups {
		s.set(g[0].Name, m.jsonActionOverloads(g, annotator))
	}
	for _, g := range m.functionGroups {
		s.set(g[0].Name, m.jsonFunctionOverloads(g, annotator))
	}
	if m.hasContainer() {
		s.set(m.Container, m.jsonContainer(annotator))
	}
	return s
}

func jsonEnumType(e *EnumType, annotator *annotator) *jsonObject {
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
	o.annotate(annotator.describe(e.Description))
	return o
}

func (m *Model) jsonComplexType(c *ComplexType, annotator *annotator) *jsonObject {
	o := &jsonObject{}
	o.set("$Kind", "ComplexType")
	for _, p := range c.Properties {
		o.set(p.Name, m.jsonProperty(p, annotator))
	}
	o.annotate(annotator.describe(c.Description))
	return o
}

func (m *Model) jsonEntityType(t *EntityType, annotator *annotator) *jsonObject {
	o := &jsonObject{}
	o.set("$Kind", "EntityType")
	if t.base != nil {
		o.set("$BaseType", m.Namespace+"."+t.base.Name)
	}
	if t.Abstract {
		o.set("$Abstract", true)
	}
	if t.HasStream && (t.base == nil || !t.base.HasStream) {
		o.set("$HasStream", true)
	}
	if t.base == nil {
		key := make([]any, len(t.key))
		for i, k := range t.key {
			key[i] = k.Name
		}
		o.set("$Key", key)
	}
	for _, p := range t.DeclaredProperties() {
		o.set(p.Name, m.jsonProperty(p, annotator))
	}
	for _, n := range t.DeclaredNavigations() {
		o.set(n.Name, m.jsonNavigation(n, annotator))
	}
	o.annotate(annotator.recursiveHierarchyAnnotations(annotator.describe(t.Description), t))
	return o
}

func (m *Model) jsonNavigation(n *NavigationProperty, annotator *annotator) *jsonObject {
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
	o.annotate(annotator.describe(n.Description))
	return o
}

func (m *Model) jsonActionOverloads(group []*Action, annotator *annotator) []any {
	overloads := make([]any, len(group))
	for i, a := range group {
		o := &jsonObject{}
		o.set("$Kind", "Action")
		m.jsonOperation(o, a.Bound, a.binding, a.BindingCollection, a.Parameters, a.ReturnType, a.Description, annotator)
		overloads[i] = o
	}
	return overloads
}

func (m *Model) jsonFunctionOverloads(group []*Function, annotator *annotator) []any {
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
		m.jsonOperation(o, false, f.binding, f.BindingCollection, f.Parameters, f.ReturnType, f.Description, annotator)
		overloads[i] = o
	}
	return overloads
}

// jsonContainer returns the entity container: entity sets, singletons, then action and function imports.
func (m *Model) jsonContainer(annotator *annotator) *jsonObject {
	c := &jsonObject{}
	c.set("$Kind", "EntityContainer")
	for _, set := range m.EntitySets {
		o := &jsonObject{}
		o.set("$Collection", true)
		o.set("$Type", m.Namespace+"."+set.entityType.Name)
		jsonBindings(o, set.bindings)
		o.annotate(annotator.describe(set.Description))
		c.set(set.Name, o)
	}
	for _, singleton := range m.Singletons {
		o := &jsonObject{}
		o.set("$Type", m.Namespace+"."+singleton.entityType.Name)
		jsonBindings(o, singleton.bindings)
		o.annotate(annotator.describe(singleton.Description))
		c.set(singleton.Name, o)
	}
	for _, operationImport := range imports(m) {
		o := &jsonObject{}
		o.set("$"+operationImport.kind, m.Namespace+"."+operationImport.name)
		if set := importSet(operationImport.result); set != "" {
			o.set("$EntitySet", set)
		}
		c.set(operationImport.name, o)
	}
	c.annotate(annotator.container(m))
	return c
}

func jsonBindings(o *jsonObject, bindings []NavigationBinding) {
	if len(bindings) == 0 {
		return
	}
	b := &jsonObject{}
	for _, binding := range bindings {
		b.set(binding.Path, binding.Target.Name)
	}
	o.set("$NavigationPropertyBinding", b)
}

func (m *Model) jsonProperty(p *Property, annotator *annotator) *jsonObject {
	o := &jsonObject{}
	jsonType(o, m.qualified(p.Type, p.Enum, p.Complex, nil), p.Collection, p.Nullable, p.MaxLength, p.Precision, p.Scale, p.Type)
	if v, ok := defaultJSON(p); ok {
		o.set("$DefaultValue", v)
	}
	o.annotate(annotator.property(p))
	return o
}

// jsonType sets $Collection, $Type (absent for Edm.String), $Nullable (absent means false) and the facets.
func jsonType(o *jsonObject, typeName string, collection, nullable bool, maxLength, precision, scale int, k Kind) {
	if collection {
		o.set("$Collection", true)
	}
	if typeName != KindString.String() {
		o.set("$Type", typeName)
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
func (m *Model) jsonOperation(o *jsonObject, isBound bool, binding *EntityType, collection bool, parameters []Parameter,
	result *ReturnType, description string, annotator *annotator) {
	if isBound {
		o.set("$IsBound", true)
	}
	var ps []any
	if binding != nil {
		bindingParameter := &jsonObject{}
		bindingParameter.set("$Name", "bindingParameter")
		jsonType(bindingParameter, m.Namespace+"."+binding.Name, collection, false, 0, 0, 0, KindNone)
		ps = append(ps, bindingParameter)
	}
	for i := range parameters {
		p := &parameters[i]
		parameterObject := &jsonObject{}
		parameterObject.set("$Name", p.Name)
		jsonType(parameterObject, m.qualified(p.Type, p.Enum, p.Complex, p.entity), p.Collection, p.Nullable, p.MaxLength, p.Precision, p.Scale, p.Type)
		parameterObject.annotate(annotator.parameter(p))
		ps = append(ps, parameterObject)
	}
	if len(ps) > 0 {
		o.set("$Parameter", ps)
	}
	if result != nil {
		resultObject := &jsonObject{}
		jsonType(resultObject, m.qualified(result.Type, result.Enum, result.Complex, result.entity), result.Collection, result.Nullable, result.MaxLength, result.Precision, result.Scale, result.Type)
		o.set("$ReturnType", resultObject)
	}
	o.annotate(annotator.describe(description))
}

// jsonObject is a JSON object that keeps its members in insertion order.
type jsonObject struct {
	keys   []string
	values []any
}

func (o *jsonObject) set(k string, v any) {
	o.keys = append(o.keys, k)
	o.values = append(o.values, v)
}

// annotate adds annotations as "@Term" members.
func (o *jsonObject) annotate(list []annotation) {
	for _, a := range list {
		key := "@" + a.term
		if a.qualifier != "" {
			key += "#" + a.qualifier
		}
		o.set(key, jsonAnnotationValue(a.value))
	}
}

func jsonAnnotationValue(v any) any {
	if literal, ok := jsonLiteral(v); ok {
		return literal
	}
	switch v := v.(type) {
	case *record:
		o := &jsonObject{}
		if v.typeName != "" {
			if namespace := termNamespace(v.typeName); slices.Contains(oasisVocabularies, namespace) {
				o.set("@type", vocabularyURL+namespace+".json#"+v.typeName)
			} else {
				o.set("@type", "#"+v.typeName)
			}
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
			writeJSON(w, v.values[i], depth+1)
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
	case nil:
		w.WriteString("null")
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

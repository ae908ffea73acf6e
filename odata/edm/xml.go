package edm

import (
	"bufio"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WriteXML writes the model as a CSDL XML 4.0 document (the $metadata answer for application/xml), in
// declaration order: enum types, complex types, entity types, actions, functions, then the entity container
// (left out, with its annotations, when it would be empty: CSDL requires a container to have children).
func (m *Model) WriteXML(w io.Writer) error {
	if !m.built {
		return errNotBuilt
	}
	var ann annotations
	schema := m.xmlSchema(&ann)
	root := &xmlElem{name: "edmx:Edmx", attrs: []xmlAttr{{"Version", "4.0"}, {"xmlns:edmx", "http://docs.oasis-open.org/odata/ns/edmx"}}}
	for _, ns := range vocabularies {
		if ann.used[ns] {
			ref := root.child("edmx:Reference", "Uri", vocabularyURL+ns+".xml")
			ref.child("edmx:Include", "Namespace", ns)
		}
	}
	root.child("edmx:DataServices").children = append([]*xmlElem(nil), schema)
	bw := bufio.NewWriter(w)
	bw.WriteString(xml.Header)
	root.write(bw, 0)
	return bw.Flush()
}

// xmlSchema returns the Schema element: the types, the operations and the entity container, in that order.
func (m *Model) xmlSchema(ann *annotations) *xmlElem {
	s := &xmlElem{name: "Schema", attrs: []xmlAttr{{"Namespace", m.Namespace}, {"xmlns", "http://docs.oasis-open.org/odata/ns/edm"}}}
	for _, e := range m.EnumTypes {
		xmlEnumType(s, e, ann)
	}
	for _, c := range m.ComplexTypes {
		el := s.child("ComplexType", "Name", c.Name)
		for _, p := range c.Properties {
			m.xmlProperty(el, p, ann)
		}
		el.annotate(ann.describe(c.Description))
	}
	for _, t := range m.EntityTypes {
		m.xmlEntityType(s, t, ann)
	}
	for _, a := range m.Actions {
		el := s.child("Action", "Name", a.Name)
		m.xmlOperation(el, a.Bound, a.binding, a.BindingCollection, a.Parameters, a.ReturnType, a.Description, ann)
	}
	for _, f := range m.Functions {
		el := s.child("Function", "Name", f.Name)
		if f.IsComposable {
			el.attr("IsComposable", "true")
		}
		m.xmlOperation(el, f.Bound, f.binding, f.BindingCollection, f.Parameters, f.ReturnType, f.Description, ann)
	}
	if m.hasContainer() {
		m.xmlContainer(s, ann)
	}
	return s
}

func xmlEnumType(schema *xmlElem, e *EnumType, ann *annotations) {
	el := schema.child("EnumType", "Name", e.Name)
	if e.UnderlyingType != KindNone && e.UnderlyingType != KindInt32 {
		el.attr("UnderlyingType", e.UnderlyingType.String())
	}
	if e.Flags {
		el.attr("IsFlags", "true")
	}
	for _, member := range e.Members {
		el.child("Member", "Name", member.Name, "Value", strconv.FormatInt(member.Value, 10))
	}
	el.annotate(ann.describe(e.Description)) // after the members: valid for the 4.0 and the 4.01 schema
}

func (m *Model) xmlEntityType(schema *xmlElem, t *EntityType, ann *annotations) {
	el := schema.child("EntityType", "Name", t.Name)
	if t.HasStream {
		el.attr("HasStream", "true")
	}
	key := el.child("Key")
	for _, k := range t.key {
		key.child("PropertyRef", "Name", k.Name)
	}
	for _, p := range t.Properties {
		m.xmlProperty(el, p, ann)
	}
	for _, n := range t.Navigations {
		m.xmlNavigation(el, n, ann)
	}
	el.annotate(ann.describe(t.Description))
}

func (m *Model) xmlNavigation(entityType *xmlElem, n *NavigationProperty, ann *annotations) {
	typ := m.Namespace + "." + n.target.Name
	el := entityType.child("NavigationProperty", "Name", n.Name)
	if n.Collection {
		el.attr("Type", "Collection("+typ+")")
	} else {
		el.attr("Type", typ)
		if !n.Nullable {
			el.attr("Nullable", "false")
		}
	}
	if n.Partner != "" {
		el.attr("Partner", n.Partner)
	}
	if n.ContainsTarget {
		el.attr("ContainsTarget", "true")
	}
	for _, c := range n.constraints {
		el.child("ReferentialConstraint", "Property", c.Property, "ReferencedProperty", c.ReferencedProperty)
	}
	el.annotate(ann.describe(n.Description))
}

// xmlContainer adds the EntityContainer: entity sets, singletons, then action and function imports.
func (m *Model) xmlContainer(schema *xmlElem, ann *annotations) {
	c := schema.child("EntityContainer", "Name", m.Container)
	for _, set := range m.EntitySets {
		el := c.child("EntitySet", "Name", set.Name, "EntityType", m.Namespace+"."+set.typ.Name)
		xmlBindings(el, set.bindings)
		el.annotate(ann.describe(set.Description))
	}
	for _, singleton := range m.Singletons {
		el := c.child("Singleton", "Name", singleton.Name, "Type", m.Namespace+"."+singleton.typ.Name)
		xmlBindings(el, singleton.bindings)
		el.annotate(ann.describe(singleton.Description))
	}
	for _, im := range imports(m) {
		el := c.child(im.kind+"Import", "Name", im.name, im.kind, m.Namespace+"."+im.name)
		if set := importSet(im.result); set != "" {
			el.attr("EntitySet", set)
		}
	}
	c.annotate(ann.container(m))
}

func xmlBindings(el *xmlElem, bindings []NavigationBinding) {
	for _, b := range bindings {
		el.child("NavigationPropertyBinding", "Path", b.Path, "Target", b.Target.Name)
	}
}

func (m *Model) xmlProperty(parent *xmlElem, p *Property, ann *annotations) {
	typ := m.qualified(p.Type, p.Enum, p.Complex, nil)
	if p.Collection {
		typ = "Collection(" + typ + ")"
	}
	el := parent.child("Property", "Name", p.Name, "Type", typ)
	xmlFacets(el, p.Nullable, p.MaxLength, p.Precision, p.Scale, p.Type)
	if v, ok := defaultLiteral(p); ok {
		el.attr("DefaultValue", v)
	}
	el.annotate(ann.property(p))
}

// xmlFacets sets Nullable="false" (absence means nullable) and the facets that are set.
func xmlFacets(el *xmlElem, nullable bool, maxLength, precision, scale int, k Kind) {
	if !nullable {
		el.attr("Nullable", "false")
	}
	if maxLength > 0 {
		el.attr("MaxLength", strconv.Itoa(maxLength))
	}
	if precision > 0 {
		el.attr("Precision", strconv.Itoa(precision))
	}
	if k == KindDecimal {
		el.attr("Scale", strconv.Itoa(scale))
	}
}

func (m *Model) xmlOperation(el *xmlElem, bound bool, binding *EntityType, coll bool, params []Parameter, ret *ReturnType, desc string, ann *annotations) {
	if bound {
		el.attrs = append([]xmlAttr{el.attrs[0], {"IsBound", "true"}}, el.attrs[1:]...)
		typ := m.Namespace + "." + binding.Name
		if coll {
			typ = "Collection(" + typ + ")"
		}
		el.child("Parameter", "Name", "bindingParameter", "Type", typ, "Nullable", "false")
	}
	for i := range params {
		p := &params[i]
		typ := m.qualified(p.Type, p.Enum, p.Complex, p.entity)
		if p.Collection {
			typ = "Collection(" + typ + ")"
		}
		pe := el.child("Parameter", "Name", p.Name, "Type", typ)
		xmlFacets(pe, p.Nullable, p.MaxLength, p.Precision, p.Scale, p.Type)
		pe.annotate(ann.parameter(p))
	}
	if ret != nil {
		typ := m.qualified(ret.Type, ret.Enum, ret.Complex, ret.entity)
		if ret.Collection {
			typ = "Collection(" + typ + ")"
		}
		re := el.child("ReturnType", "Type", typ)
		xmlFacets(re, ret.Nullable, ret.MaxLength, ret.Precision, ret.Scale, ret.Type)
	}
	el.annotate(ann.describe(desc))
}

// xmlElem is an element of the document being written.
type xmlElem struct {
	name     string
	attrs    []xmlAttr
	children []*xmlElem
	text     string // character data of a leaf (String expressions)
}

type xmlAttr struct{ name, value string }

// child appends a child element with attributes given as name, value pairs.
func (e *xmlElem) child(name string, attrs ...string) *xmlElem {
	c := &xmlElem{name: name}
	for i := 0; i+1 < len(attrs); i += 2 {
		c.attr(attrs[i], attrs[i+1])
	}
	e.children = append(e.children, c)
	return c
}

func (e *xmlElem) attr(name, value string) { e.attrs = append(e.attrs, xmlAttr{name, value}) }

// annotate appends Annotation elements.
func (e *xmlElem) annotate(list []annotation) {
	for _, a := range list {
		el := e.child("Annotation", "Term", a.term)
		xmlValue(el, a.value, true)
	}
}

// xmlValue writes an annotation value: inline as an attribute where the schema allows (inline), else as a
// child expression.
func xmlValue(el *xmlElem, v any, inline bool) {
	switch v := v.(type) {
	case bool:
		if inline {
			el.attr("Bool", strconv.FormatBool(v))
		} else {
			el.children = append(el.children, &xmlElem{name: "Bool", text: strconv.FormatBool(v)})
		}
	case string:
		if inline {
			el.attr("String", v)
		} else {
			el.children = append(el.children, &xmlElem{name: "String", text: v})
		}
	case *record:
		r := el.child("Record")
		if v.typ != "" {
			r.attr("Type", v.typ)
		}
		for _, f := range v.fields {
			pv := r.child("PropertyValue", "Property", f.name)
			xmlValue(pv, f.value, true)
		}
	case []any:
		c := el.child("Collection")
		for _, item := range v {
			xmlValue(c, item, false)
		}
	}
}

func (e *xmlElem) write(w *bufio.Writer, depth int) {
	indent := strings.Repeat("  ", depth)
	w.WriteString(indent)
	w.WriteByte('<')
	w.WriteString(e.name)
	for _, a := range e.attrs {
		w.WriteByte(' ')
		w.WriteString(a.name)
		w.WriteString(`="`)
		escapeXML(w, a.value, true)
		w.WriteByte('"')
	}
	switch {
	case e.text != "":
		w.WriteByte('>')
		escapeXML(w, e.text, false)
	case len(e.children) == 0:
		w.WriteString("/>\n")
		return
	default:
		w.WriteString(">\n")
		for _, c := range e.children {
			c.write(w, depth+1)
		}
		w.WriteString(indent)
	}
	w.WriteString("</")
	w.WriteString(e.name)
	w.WriteString(">\n")
}

// escapeXML writes s as character data or, with attr, as an attribute value in double quotes. Characters XML
// does not allow are replaced by U+FFFD.
func escapeXML(w *bufio.Writer, s string, attr bool) {
	for _, r := range s {
		switch {
		case r == '&':
			w.WriteString("&amp;")
		case r == '<':
			w.WriteString("&lt;")
		case r == '>':
			w.WriteString("&gt;")
		case r == '"' && attr:
			w.WriteString("&quot;")
		case r == '\n' && attr:
			w.WriteString("&#xA;")
		case r == '\r':
			w.WriteString("&#xD;")
		case r == '\t' && attr:
			w.WriteString("&#x9;")
		case r == '\n' || r == '\t' || (r >= 0x20 && r != utf8.RuneError && (r < 0xFFFE)):
			w.WriteRune(r)
		default:
			w.WriteRune(utf8.RuneError)
		}
	}
}

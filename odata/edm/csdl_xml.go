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
//
// The model's Annotations and extra, annotations a service adds, follow as Annotations elements; those of the
// schema itself (Target the namespace) are Annotation elements first in the Schema element.
func (m *Model) WriteXML(w io.Writer, extra ...Annotations) error {
	if !m.built {
		return ErrNotBuilt
	}
	annotator := annotator{coreAlias: m.coreAliasFree()}
	schema := m.xmlSchema(&annotator)
	for _, t := range annotator.useAnnotations(m.Annotations, extra) {
		if t.target == m.Namespace {
			// The schema's own annotations are written inline, first in it.
			inline := &xmlElement{}
			inline.annotate(t.annotations)
			schema.children = append(inline.children, schema.children...)
			continue
		}
		schema.child("Annotations", "Target", t.target).annotate(t.annotations)
	}
	root := &xmlElement{name: "edmx:Edmx", attributes: []xmlAttribute{{"Version", "4.0"}, {"xmlns:edmx", "http://docs.oasis-open.org/odata/ns/edmx"}}}
	for _, namespace := range annotator.usedVocabularies(m) {
		reference := root.child("edmx:Reference", "Uri", m.vocabularyURI(namespace, "xml"))
		include := reference.child("edmx:Include", "Namespace", namespace)
		if namespace == coreNamespace && annotator.coreAlias {
			include.attributes = append(include.attributes, xmlAttribute{"Alias", coreAlias})
		}
	}
	root.child("edmx:DataServices").children = append([]*xmlElement(nil), schema)
	buffered := bufio.NewWriter(w)
	buffered.WriteString(xml.Header)
	root.write(buffered, 0)
	return buffered.Flush()
}

// xmlSchema returns the Schema element: the types, the operations and the entity container, in that order.
func (m *Model) xmlSchema(annotator *annotator) *xmlElement {
	s := &xmlElement{name: "Schema", attributes: []xmlAttribute{{"Namespace", m.Namespace}, {"xmlns", "http://docs.oasis-open.org/odata/ns/edm"}}}
	for _, e := range m.EnumTypes {
		xmlEnumType(s, e, annotator)
	}
	for _, c := range m.ComplexTypes {
		element := s.child("ComplexType", "Name", c.Name)
		for _, p := range c.Properties {
			m.xmlProperty(element, p, annotator)
		}
		element.annotate(annotator.describe(c.Description))
	}
	for _, t := range m.EntityTypes {
		m.xmlEntityType(s, t, annotator)
	}
	for _, a := range m.Actions {
		element := s.child("Action", "Name", a.Name)
		m.xmlOperation(element, a.Bound, a.binding, a.BindingCollection, a.Parameters, a.ReturnType, a.Description, annotator)
	}
	for _, f := range m.Functions {
		element := s.child("Function", "Name", f.Name)
		if f.IsComposable {
			element.attribute("IsComposable", "true")
		}
		m.xmlOperation(element, f.Bound, f.binding, f.BindingCollection, f.Parameters, f.ReturnType, f.Description, annotator)
	}
	if m.hasContainer() {
		m.xmlContainer(s, annotator)
	}
	return s
}

func xmlEnumType(schema *xmlElement, e *EnumType, annotator *annotator) {
	element := schema.child("EnumType", "Name", e.Name)
	if e.UnderlyingType != KindNone && e.UnderlyingType != KindInt32 {
		element.attribute("UnderlyingType", e.UnderlyingType.String())
	}
	if e.Flags {
		element.attribute("IsFlags", "true")
	}
	for _, member := range e.Members {
		element.child("Member", "Name", member.Name, "Value", strconv.FormatInt(member.Value, 10))
	}
	element.annotate(annotator.describe(e.Description)) // after the members: valid for the 4.0 and the 4.01 schema
}

func (m *Model) xmlEntityType(schema *xmlElement, t *EntityType, annotator *annotator) {
	element := schema.child("EntityType", "Name", t.Name)
	if t.base != nil {
		element.attribute("BaseType", m.Namespace+"."+t.base.Name)
	}
	if t.Abstract {
		element.attribute("Abstract", "true")
	}
	if t.HasStream && (t.base == nil || !t.base.HasStream) {
		element.attribute("HasStream", "true")
	}
	if t.base == nil {
		key := element.child("Key")
		for _, k := range t.key {
			key.child("PropertyRef", "Name", k.Name)
		}
	}
	for _, p := range t.DeclaredProperties() {
		m.xmlProperty(element, p, annotator)
	}
	for _, n := range t.DeclaredNavigations() {
		m.xmlNavigation(element, n, annotator)
	}
	element.annotate(annotator.recursiveHierarchyAnnotations(annotator.describe(t.Description), t))
}

func (m *Model) xmlNavigation(entityType *xmlElement, n *NavigationProperty, annotator *annotator) {
	typeName := m.Namespace + "." + n.target.Name
	element := entityType.child("NavigationProperty", "Name", n.Name)
	if n.Collection {
		element.attribute("Type", "Collection("+typeName+")")
	} else {
		element.attribute("Type", typeName)
		if !n.Nullable {
			element.attribute("Nullable", "false")
		}
	}
	if n.Partner != "" {
		element.attribute("Partner", n.Partner)
	}
	if n.ContainsTarget {
		element.attribute("ContainsTarget", "true")
	}
	for _, c := range n.constraints {
		element.child("ReferentialConstraint", "Property", c.Property, "ReferencedProperty", c.ReferencedProperty)
	}
	element.annotate(annotator.describe(n.Description))
}

// xmlContainer adds the EntityContainer: entity sets, singletons, then action and function imports.
func (m *Model) xmlContainer(schema *xmlElement, annotator *annotator) {
	c := schema.child("EntityContainer", "Name", m.Container)
	for _, set := range m.EntitySets {
		element := c.child("EntitySet", "Name", set.Name, "EntityType", m.Namespace+"."+set.entityType.Name)
		xmlBindings(element, set.bindings)
		element.annotate(annotator.describe(set.Description))
	}
	for _, singleton := range m.Singletons {
		element := c.child("Singleton", "Name", singleton.Name, "Type", m.Namespace+"."+singleton.entityType.Name)
		xmlBindings(element, singleton.bindings)
		element.annotate(annotator.describe(singleton.Description))
	}
	for _, operationImport := range imports(m) {
		element := c.child(operationImport.kind+"Import", "Name", operationImport.name, operationImport.kind, m.Namespace+"."+operationImport.name)
		if set := importSet(operationImport.result); set != "" {
			element.attribute("EntitySet", set)
		}
	}
	c.annotate(annotator.container(m))
}

func xmlBindings(element *xmlElement, bindings []NavigationBinding) {
	for _, b := range bindings {
		element.child("NavigationPropertyBinding", "Path", b.Path, "Target", b.Target.Name)
	}
}

func (m *Model) xmlProperty(parent *xmlElement, p *Property, annotator *annotator) {
	typeName := m.qualified(p.Type, p.Enum, p.Complex, nil)
	if p.Collection {
		typeName = "Collection(" + typeName + ")"
	}
	element := parent.child("Property", "Name", p.Name, "Type", typeName)
	xmlFacets(element, p.Nullable, p.MaxLength, p.Precision, p.Scale, p.Type)
	if v, ok := defaultLiteral(p); ok {
		element.attribute("DefaultValue", v)
	}
	element.annotate(annotator.property(p))
}

// xmlFacets sets Nullable="false" (absence means nullable) and the facets that are set.
func xmlFacets(element *xmlElement, nullable bool, maxLength, precision, scale int, k Kind) {
	if !nullable {
		element.attribute("Nullable", "false")
	}
	if maxLength > 0 {
		element.attribute("MaxLength", strconv.Itoa(maxLength))
	}
	if precision > 0 {
		element.attribute("Precision", strconv.Itoa(precision))
	}
	if k == KindDecimal {
		element.attribute("Scale", strconv.Itoa(scale))
	}
}

func (m *Model) xmlOperation(element *xmlElement, bound bool, binding *EntityType, collection bool,
	parameters []Parameter, result *ReturnType, description string, annotator *annotator) {
	if bound {
		element.attributes = append([]xmlAttribute{element.attributes[0], {"IsBound", "true"}}, element.attributes[1:]...)
		typeName := m.Namespace + "." + binding.Name
		if collection {
			typeName = "Collection(" + typeName + ")"
		}
		element.child("Parameter", "Name", "bindingParameter", "Type", typeName, "Nullable", "false")
	}
	for i := range parameters {
		p := &parameters[i]
		typeName := m.qualified(p.Type, p.Enum, p.Complex, p.entity)
		if p.Collection {
			typeName = "Collection(" + typeName + ")"
		}
		parameterElement := element.child("Parameter", "Name", p.Name, "Type", typeName)
		xmlFacets(parameterElement, p.Nullable, p.MaxLength, p.Precision, p.Scale, p.Type)
		parameterElement.annotate(annotator.parameter(p))
	}
	if result != nil {
		typeName := m.qualified(result.Type, result.Enum, result.Complex, result.entity)
		if result.Collection {
			typeName = "Collection(" + typeName + ")"
		}
		resultElement := element.child("ReturnType", "Type", typeName)
		xmlFacets(resultElement, result.Nullable, result.MaxLength, result.Precision, result.Scale, result.Type)
	}
	element.annotate(annotator.describe(description))
}

// xmlElement is an element of the document being written.
type xmlElement struct {
	name       string
	attributes []xmlAttribute
	children   []*xmlElement
	text       string // character data of a leaf (String expressions)
}

type xmlAttribute struct{ name, value string }

// child appends a child element with attributes given as name, value pairs.
func (e *xmlElement) child(name string, attributes ...string) *xmlElement {
	c := &xmlElement{name: name}
	for i := 0; i+1 < len(attributes); i += 2 {
		c.attribute(attributes[i], attributes[i+1])
	}
	e.children = append(e.children, c)
	return c
}

func (e *xmlElement) attribute(name, value string) {
	e.attributes = append(e.attributes, xmlAttribute{name, value})
}

// annotate appends Annotation elements.
func (e *xmlElement) annotate(list []annotation) {
	for _, a := range list {
		element := e.child("Annotation", "Term", a.term)
		if a.qualifier != "" {
			element.attribute("Qualifier", a.qualifier)
		}
		xmlValue(element, a.value, true)
	}
}

// xmlValue writes an annotation value: inline as an attribute where the schema allows (inline), else as a
// child expression.
func xmlValue(element *xmlElement, v any, inline bool) {
	if expression, text, ok := literalText(v); ok {
		if inline {
			element.attribute(expression, text)
		} else {
			element.children = append(element.children, &xmlElement{name: expression, text: text})
		}
		return
	}
	switch v := v.(type) {
	case nil:
		element.child("Null")
	case *record:
		r := element.child("Record")
		if v.typeName != "" {
			r.attribute("Type", v.typeName)
		}
		for _, f := range v.fields {
			propertyValue := r.child("PropertyValue", "Property", f.name)
			xmlValue(propertyValue, f.value, true)
		}
	case []any:
		c := element.child("Collection")
		for _, item := range v {
			xmlValue(c, item, false)
		}
	}
}

func (e *xmlElement) write(w *bufio.Writer, depth int) {
	indent := strings.Repeat("  ", depth)
	w.WriteString(indent)
	w.WriteByte('<')
	w.WriteString(e.name)
	for _, a := range e.attributes {
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

package edm

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Annotations applies vocabulary terms to one model element, named by Target as CSDL names it:
//
//	"Library"                           the schema (its namespace)
//	"Library.Book"                      an entity, complex or enum type
//	"Library.Book/Title"                a property or navigation property of a type
//	"Library.Container"                 the entity container
//	"Library.Container/Books"           an entity set, singleton or import
//	"Library.Publish(Library.Book)"     an action or function (all overloads without the parentheses)
//
// Model.Annotations holds the model's own; odata.Service adds those the service implies (the
// Org.OData.Capabilities.V1 terms saying what each entity set allows). They are written out of line, as
// Annotations elements (CSDL XML) and $Annotations members (CSDL JSON) of the schema, which every client reads
// like annotations written inline; the schema's own are written inline in it.
type Annotations struct {
	Target string
	Terms  []Annotation
}

// Annotation is a term with its value. Term is namespace-qualified ("Org.OData.Core.V1.Description"), or a term
// of the Core vocabulary qualified by its alias ("Core.Description"; Model.CoreTerm) when the model has no schema
// or vocabulary called Core; its
// namespace is one of the OASIS vocabularies (Core, Capabilities, Authorization, Validation, Measures,
// Aggregation, Temporal, JSON, Repeatability) or one the model lists in Model.Vocabularies. Qualifier, when not
// empty, tells apart annotations of the same term.
//
// Value is a constant or a path: nil (Null), bool, string, an integer (int, int64), float64, decimal.Decimal,
// EnumValue, Path, PropertyPath, NavigationPropertyPath, AnnotationPath, Record (or *Record), or []any of these
// (a Collection).
type Annotation struct {
	Term      string
	Qualifier string
	Value     any
}

// Record is a structured annotation value: its type (namespace-qualified; "" for the term's type) and its
// property values in order.
type Record struct {
	Type       string
	Properties []PropertyValue
}

// PropertyValue is one property of a Record.
type PropertyValue struct {
	Property string
	Value    any
}

// EnumValue is an enum annotation value, the qualified enum type and the member, "Org.OData.Core.V1.Permission/Read"
// (flags members separated by spaces).
type EnumValue string

// Path, PropertyPath, NavigationPropertyPath and AnnotationPath are path expressions, relative to the annotated
// element ("Title", "Author/Name").
type (
	Path                   string
	PropertyPath           string
	NavigationPropertyPath string
	AnnotationPath         string
)

// Vocabulary is a vocabulary other than the OASIS ones that annotations of the model use: its namespace and the
// URI of its CSDL document, written as a reference.
type Vocabulary struct {
	Namespace string
	URI       string
}

// capabilitiesNamespace is the namespace of the Capabilities vocabulary.
const capabilitiesNamespace = "Org.OData.Capabilities.V1"

// oasisVocabularies are the namespaces of the OASIS vocabularies, referenced at vocabularyURL.
var oasisVocabularies = []string{coreNamespace, authNamespace, capabilitiesNamespace, "Org.OData.Validation.V1",
	"Org.OData.Measures.V1", "Org.OData.Aggregation.V1", "Org.OData.Temporal.V1", "Org.OData.JSON.V1",
	"Org.OData.Repeatability.V1"}

// coreAlias is the alias the CSDL documents declare for the Core vocabulary, as its own document does: a term
// written "Core.SchemaVersion" is Org.OData.Core.V1.SchemaVersion.
const coreAlias = "Core"

// termNamespace is the namespace of a qualified term or type name, "" when it has none.
func termNamespace(term string) string {
	i := strings.LastIndexByte(term, '.')
	if i <= 0 {
		return ""
	}
	return term[:i]
}

// CoreTerm returns the name by which the CSDL documents of m write the term name of the Core vocabulary:
// "Core."+name by the vocabulary's alias, or "Org.OData.Core.V1."+name when the model has a schema or
// vocabulary called Core (which the alias would clash with).
func (m *Model) CoreTerm(name string) string {
	if m.coreAliasFree() {
		return coreAlias + "." + name
	}
	return coreNamespace + "." + name
}

// aliasedNamespace returns the namespace of a term qualified by the alias Core when the documents of m declare
// it (coreAlias), the term's own qualifier otherwise.
func aliasedNamespace(term string, coreAliased bool) string {
	namespace := termNamespace(term)
	if coreAliased && namespace == coreAlias {
		return coreNamespace
	}
	return namespace
}

// coreAliasFree reports whether the documents of m may declare the alias Core for the Core vocabulary: no
// schema or vocabulary of the model is called Core.
func (m *Model) coreAliasFree() bool {
	if m.Namespace == coreAlias {
		return false
	}
	for _, v := range m.Vocabularies {
		if v.Namespace == coreAlias {
			return false
		}
	}
	return true
}

// vocabularyURI returns where the vocabulary of namespace is: an OASIS vocabulary's document in the given format
// ("xml" or "json"), else the URI the model declares; "" for an unknown namespace.
func (m *Model) vocabularyURI(namespace, format string) string {
	if slices.Contains(oasisVocabularies, namespace) {
		return vocabularyURL + namespace + "." + format
	}
	for _, v := range m.Vocabularies {
		if v.Namespace == namespace {
			return v.URI
		}
	}
	return ""
}

// checkAnnotations validates Model.Annotations and Model.Vocabularies.
func (b *builder) checkAnnotations(m *Model) {
	for _, v := range m.Vocabularies {
		if !isNamespace(v.Namespace) || v.URI == "" {
			b.problems.add(fmt.Sprintf("vocabulary %q", v.Namespace), "needs a namespace and the URI of its document")
		}
	}
	for _, a := range m.Annotations {
		declaration := fmt.Sprintf("annotations of %q", a.Target)
		if !m.annotationTarget(a.Target) {
			b.problems.add(declaration, "the target names no element of the model")
		}
		for _, t := range a.Terms {
			if msg := m.checkAnnotation(t); msg != "" {
				b.problems.add(declaration, fmt.Sprintf("term %q: %s", t.Term, msg))
			}
		}
	}
}

// checkAnnotation returns what is wrong with an annotation, "" when nothing is.
func (m *Model) checkAnnotation(a Annotation) string {
	qualifier, namespace := termNamespace(a.Term), aliasedNamespace(a.Term, m.coreAliasFree())
	switch {
	case qualifier == "" || !isIdentifier(a.Term[len(qualifier)+1:]):
		return "the term must be namespace-qualified"
	case m.vocabularyURI(namespace, "xml") == "":
		return fmt.Sprintf("vocabulary %s is neither an OASIS vocabulary nor listed in Model.Vocabularies", namespace)
	case a.Qualifier != "" && !isIdentifier(a.Qualifier):
		return "the qualifier is not an identifier"
	}
	return checkAnnotationValue(a.Value)
}

// checkAnnotationValue returns what is wrong with an annotation value, "" when nothing is.
func checkAnnotationValue(v any) string {
	switch v := v.(type) {
	case nil, bool, string, int, int64, float64, decimal.Decimal, EnumValue, Path, PropertyPath,
		NavigationPropertyPath, AnnotationPath:
		return ""
	case Record:
		return checkAnnotationValue(&v)
	case *Record:
		for _, p := range v.Properties {
			if !isIdentifier(p.Property) {
				return fmt.Sprintf("record property %q is not an identifier", p.Property)
			}
			if msg := checkAnnotationValue(p.Value); msg != "" {
				return msg
			}
		}
		return ""
	case []any:
		for _, item := range v {
			if msg := checkAnnotationValue(item); msg != "" {
				return msg
			}
		}
		return ""
	}
	return fmt.Sprintf("a value of type %T cannot be written", v)
}

// annotationTarget reports whether target names an element of the model (see Annotations).
func (m *Model) annotationTarget(target string) bool {
	if target == m.Namespace {
		return true // the schema
	}
	element, member, _ := strings.Cut(target, "/")
	if name, _, ok := strings.Cut(element, "("); ok && member == "" && strings.HasSuffix(target, ")") {
		element = name
	}
	local, ok := strings.CutPrefix(element, m.Namespace+".")
	if !ok {
		return false
	}
	if local == m.Container {
		return member == "" || m.EntitySet(member) != nil || m.Singleton(member) != nil ||
			slices.ContainsFunc(imports(m), func(i operationImport) bool { return i.name == member })
	}
	if t := m.EntityType(local); t != nil {
		return member == "" || t.Property(member) != nil || t.Navigation(member) != nil
	}
	if c := m.ComplexType(local); c != nil {
		return member == "" || c.Property(member) != nil
	}
	if member != "" {
		return false
	}
	return m.EnumType(local) != nil || len(m.ActionOverloads(local)) > 0 || len(m.FunctionOverloads(local)) > 0
}

// userAnnotation converts an Annotation to the form the writers take.
func userAnnotation(a Annotation) annotation {
	return annotation{term: a.Term, qualifier: a.Qualifier, value: annotationValue(a.Value)}
}

// annotationValue converts a value of an Annotation to the writers' form: records to *record, integers to
// int64.
func annotationValue(v any) any {
	switch v := v.(type) {
	case int:
		return int64(v)
	case Record:
		return annotationValue(&v)
	case *Record:
		r := &record{typeName: v.Type}
		for _, p := range v.Properties {
			r.fields = append(r.fields, field{p.Property, annotationValue(p.Value)})
		}
		return r
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = annotationValue(item)
		}
		return out
	}
	return v
}

// useAnnotations converts the targeted annotations of the model and extra ones for the writers, and marks their
// vocabularies used. Blocks of the same target become one, in the order of their first: CSDL JSON keys
// $Annotations by target, and a target named twice would be a duplicate member.
func (a *annotator) useAnnotations(lists ...[]Annotations) []targeted {
	var out []targeted
	index := map[string]int{} // the block of each target in out: blocks of the same target are written as one
	for _, list := range lists {
		for _, block := range list {
			i, ok := index[block.Target]
			if !ok {
				i = len(out)
				index[block.Target] = i
				out = append(out, targeted{target: block.Target})
			}
			for _, term := range block.Terms {
				a.use(aliasedNamespace(term.Term, a.coreAlias))
				out[i].annotations = append(out[i].annotations, userAnnotation(term))
			}
		}
	}
	return out
}

// targeted is a block of out-of-line annotations in the writers' form.
type targeted struct {
	target      string
	annotations []annotation
}

// literalText is the text of a primitive annotation value in CSDL XML, with the name of its expression, false
// for a value that is not primitive.
func literalText(v any) (expression, text string, ok bool) {
	switch v := v.(type) {
	case bool:
		return "Bool", strconv.FormatBool(v), true
	case string:
		return "String", v, true
	case int64:
		return "Int", strconv.FormatInt(v, 10), true
	case float64:
		return "Float", FormatDouble(v), true
	case decimal.Decimal:
		return "Decimal", v.String(), true
	case EnumValue:
		return "EnumMember", string(v), true
	case Path:
		return "Path", string(v), true
	case PropertyPath:
		return "PropertyPath", string(v), true
	case NavigationPropertyPath:
		return "NavigationPropertyPath", string(v), true
	case AnnotationPath:
		return "AnnotationPath", string(v), true
	}
	return "", "", false
}

// jsonLiteral is a primitive annotation value in CSDL JSON, false for a value that is not primitive.
func jsonLiteral(v any) (any, bool) {
	switch v := v.(type) {
	case nil:
		return nil, true
	case bool, string:
		return v, true
	case int64:
		return rawJSON(strconv.FormatInt(v, 10)), true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return FormatDouble(v), true
		}
		return rawJSON(FormatDouble(v)), true
	case decimal.Decimal:
		return rawJSON(v.String()), true
	case EnumValue:
		return enumMemberJSON(v), true
	case Path:
		return pathObject("$Path", string(v)), true
	case PropertyPath:
		return pathObject("$PropertyPath", string(v)), true
	case NavigationPropertyPath:
		return pathObject("$NavigationPropertyPath", string(v)), true
	case AnnotationPath:
		return pathObject("$AnnotationPath", string(v)), true
	}
	return nil, false
}

// enumMemberJSON is an enum value as CSDL JSON writes it: the member names without the type, comma-separated.
func enumMemberJSON(v EnumValue) string {
	var names []string
	for _, member := range strings.Fields(string(v)) {
		_, name, _ := strings.Cut(member, "/")
		names = append(names, name)
	}
	return strings.Join(names, ",")
}

func pathObject(kind, path string) *jsonObject {
	o := &jsonObject{}
	o.set(kind, path)
	return o
}

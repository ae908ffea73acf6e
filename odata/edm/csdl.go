package edm

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// Vocabularies the CSDL documents refer to. Annotations use the full namespace, which every client resolves;
// the Core vocabulary's reference also declares its alias Core (coreAlias), for the terms written by it.
const (
	coreNamespace = "Org.OData.Core.V1"
	authNamespace = "Org.OData.Authorization.V1"
	vocabularyURL = "https://oasis-tcs.github.io/odata-vocabularies/vocabularies/"
)

// annotation is a term applied to a model element with a value: a constant or path (see Annotation), a record
// or []any.
type annotation struct {
	term      string // namespace-qualified term
	qualifier string
	value     any
}

// record is a structured annotation value.
type record struct {
	typeName string // namespace-qualified type, or "" when the term's type is meant
	fields   []field
}

// usedVocabularies returns the namespaces of the vocabularies the annotator saw used, OASIS ones first in
// their order, then the model's in theirs.
func (a *annotator) usedVocabularies(m *Model) []string {
	var out []string
	for _, namespace := range oasisVocabularies {
		if a.used[namespace] {
			out = append(out, namespace)
		}
	}
	for _, v := range m.Vocabularies {
		if a.used[v.Namespace] && !slices.Contains(out, v.Namespace) {
			out = append(out, v.Namespace)
		}
	}
	return out
}

// use marks the vocabulary of namespace used.
func (a *annotator) use(namespace string) {
	if a.used == nil {
		a.used = map[string]bool{}
	}
	a.used[namespace] = true
}

type field struct {
	name  string
	value any // string or []any
}

// annotator gathers an element's annotations and remembers the vocabularies used.
type annotator struct {
	used map[string]bool
	// coreAlias tells that the document declares the alias Core for the Core vocabulary (Model.coreAliasFree).
	coreAlias bool
}

func (a *annotator) add(list *[]annotation, namespace, term string, value any) {
	a.use(namespace)
	*list = append(*list, annotation{term: namespace + "." + term, value: value})
}

func (a *annotator) description(list *[]annotation, text string) {
	if text != "" {
		a.add(list, coreNamespace, "Description", text)
	}
}

// describe returns the annotations of an element that has only a description.
func (a *annotator) describe(text string) []annotation {
	var list []annotation
	a.description(&list, text)
	return list
}

func (a *annotator) property(p *Property) []annotation {
	var list []annotation
	a.description(&list, p.Description)
	if p.ReadOnly {
		a.add(&list, coreNamespace, "Computed", true)
	}
	if p.Immutable {
		a.add(&list, coreNamespace, "Immutable", true)
	}
	return list
}

func (a *annotator) parameter(p *Parameter) []annotation {
	var list []annotation
	a.description(&list, p.Description)
	if !p.Required {
		a.add(&list, coreNamespace, "OptionalParameter", &record{})
	}
	return list
}

func (a *annotator) container(m *Model) []annotation {
	var list []annotation
	a.description(&list, m.Description)
	if len(m.Authorizations) == 0 {
		return list
	}
	auths := make([]any, len(m.Authorizations))
	schemes := make([]any, len(m.Authorizations))
	for i, z := range m.Authorizations {
		r := &record{typeName: authNamespace + ".Http"}
		r.fields = append(r.fields, field{"Name", z.Name})
		if z.Description != "" {
			r.fields = append(r.fields, field{"Description", z.Description})
		}
		r.fields = append(r.fields, field{"Scheme", z.Scheme})
		if z.BearerFormat != "" {
			r.fields = append(r.fields, field{"BearerFormat", z.BearerFormat})
		}
		auths[i] = r
		schemes[i] = &record{fields: []field{{"Authorization", z.Name}, {"RequiredScopes", []any{}}}}
	}
	a.add(&list, authNamespace, "Authorizations", auths)
	a.add(&list, authNamespace, "SecuritySchemes", schemes)
	return list
}

// qualified returns the qualified type name of a property, parameter or return type (without Collection()).
func (m *Model) qualified(k Kind, e *EnumType, c *ComplexType, t *EntityType) string {
	switch {
	case e != nil:
		return m.Namespace + "." + e.Name
	case c != nil:
		return m.Namespace + "." + c.Name
	case t != nil:
		return m.Namespace + "." + t.Name
	}
	return k.String()
}

// operationImport is an action or function import of the entity container.
type operationImport struct {
	kind   string // "Action" or "Function"
	name   string
	result *ReturnType
}

// imports returns the container's imports, in declaration order, actions first: the first unbound overload of
// each action and function name.
func imports(m *Model) []operationImport {
	var out []operationImport
	for _, g := range m.actionGroups {
		if i := slices.IndexFunc(g, func(a *Action) bool { return !a.Bound }); i >= 0 {
			out = append(out, operationImport{"Action", g[i].Name, g[i].ReturnType})
		}
	}
	for _, g := range m.functionGroups {
		if i := slices.IndexFunc(g, func(f *Function) bool { return !f.Bound }); i >= 0 {
			out = append(out, operationImport{"Function", g[i].Name, g[i].ReturnType})
		}
	}
	return out
}

// importSet returns the entity set an import's entity result belongs to, when its type has exactly one.
func importSet(r *ReturnType) string {
	if r == nil || r.entity == nil || len(r.entity.sets) != 1 {
		return ""
	}
	return r.entity.sets[0].Name
}

// defaultLiteral returns the CSDL XML DefaultValue of a property (the URL literal form without type prefix or
// quotes) and false when the default is absent or not simple (binary).
func defaultLiteral(p *Property) (string, bool) {
	switch v := p.Default.(type) {
	case nil, []byte:
		return "", false
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case int64:
		if p.Enum != nil {
			return p.Enum.Format(v), true
		}
		return strconv.FormatInt(v, 10), true
	case decimal.Decimal:
		return v.String(), true
	case float64:
		return FormatDouble(v), true
	case Date:
		return v.String(), true
	case TimeOfDay:
		return v.String(), true
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano), true
	case time.Duration:
		return FormatDuration(v), true
	}
	return "", false
}

// FormatDouble writes a Double as OData literals and CSDL do: the shortest digits that read back as f, INF, -INF
// or NaN.
func FormatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// defaultJSON returns the CSDL JSON $DefaultValue of a property: the JSON value of the default; false when the
// default is absent or not simple (binary), as for defaultLiteral.
func defaultJSON(p *Property) (any, bool) {
	switch v := p.Default.(type) {
	case nil, []byte:
		return nil, false
	case bool, string:
		return v, true
	case int64:
		if p.Enum != nil {
			return p.Enum.Format(v), true
		}
		return rawJSON(strconv.FormatInt(v, 10)), true
	case decimal.Decimal:
		return rawJSON(v.String()), true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return FormatDouble(v), true
		}
		return rawJSON(FormatDouble(v)), true
	}
	s, ok := defaultLiteral(p)
	return s, ok
}

// hasContainer reports whether the entity container has children: entity sets, singletons or imports.
func (m *Model) hasContainer() bool {
	return len(m.EntitySets) > 0 || len(m.Singletons) > 0 || len(imports(m)) > 0
}

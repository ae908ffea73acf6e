package edm

import (
	"errors"
	"fmt"
	"strings"
)

// DefaultContainer is the entity container name used when Model.Container is empty.
const DefaultContainer = "Container"

// sqlPlaceholder stands for the entity table's alias in Property.SQL.
const sqlPlaceholder = "{{.}}"

// maxTemporalPrecision is the number of fractional-second digits storage keeps (microseconds).
const maxTemporalPrecision = 6

// errorList collects build errors in declaration order.
type errorList struct{ list []error }

func (l *errorList) add(where, msg string) {
	l.list = append(l.list, errors.New("edm: "+where+": "+msg))
}

// Build validates the model, fills in defaults, resolves names and builds the lookup indexes. It reports every
// wrong declaration it finds, joined (errors.Join), each naming the declaration:
//
//	edm: entity type "Product": key property "Ident" does not exist
//
// After a successful Build the model must not be modified. After a failed Build the model finds nothing and
// cannot be written; fix the declarations and call Build again.
func (m *Model) Build() error {
	if m.built {
		return errors.New("edm: the model is already built")
	}
	b := &builder{m: m, problems: &errorList{}, badJoin: map[*NavigationProperty]bool{}, mirrored: map[*NavigationProperty]bool{}}
	b.build()
	if len(b.problems.list) > 0 {
		m.restoreDeclarations()
		m.reset()
		return errors.Join(b.problems.list...)
	}
	m.built = true
	return nil
}

// ErrNotBuilt is the error of an operation given a model whose Build has not succeeded: the model's lookups find
// nothing until it has, so a table name, a set or a type would be missing. Functions that take a model
// (odata.NewService, the odata/schema functions, WriteXML, WriteJSON) answer it, possibly wrapped.
var ErrNotBuilt = errors.New("edm: model not built: call its Build method (edm.Model.Build) first, and check the error it returns")

// Built reports whether Build has succeeded on the model; a nil model is not built.
func (m *Model) Built() bool {
	return m != nil && m.built
}

// reset drops the indexes of a model whose Build failed.
func (m *Model) reset() {
	m.entityTypes, m.complexTypes, m.enumTypes = index[*EntityType]{}, index[*ComplexType]{}, index[*EnumType]{}
	m.entitySets, m.singletons = index[*EntitySet]{}, index[*Singleton]{}
	m.actions, m.functions = index[int]{}, index[int]{}
	m.actionGroups, m.functionGroups = nil, nil
}

type builder struct {
	m        *Model
	problems *errorList
	// cyclic is set when a complex type contains itself; complex properties are then not expanded.
	cyclic bool
	// badJoin holds navigations whose join was reported wrong; mirrored holds those compared with a partner.
	badJoin  map[*NavigationProperty]bool
	mirrored map[*NavigationProperty]bool
}

func (b *builder) build() {
	m := b.m
	if !isNamespace(m.Namespace) {
		b.problems.add(fmt.Sprintf("namespace %q", m.Namespace), "not a valid namespace (identifiers separated by dots)")
	}
	for _, r := range reservedNamespaces {
		if strings.EqualFold(m.Namespace, r) {
			b.problems.add(fmt.Sprintf("namespace %q", m.Namespace), "the namespace is reserved")
		}
	}
	if m.Container == "" {
		m.Container = DefaultContainer
	}
	if !b.collectTypes() {
		return // nil declarations: nothing else can be checked safely
	}
	b.schemaNames()
	for _, e := range m.EnumTypes {
		e.build(b.problems)
	}
	for _, c := range m.ComplexTypes {
		b.complexType(c)
	}
	b.complexCycles()
	for _, t := range b.hierarchies() {
		b.entityType(t)
	}
	b.hierarchyChecks()
	b.tables()
	for _, t := range m.EntityTypes {
		for _, n := range t.DeclaredNavigations() {
			b.navigation(t, n)
		}
	}
	for _, t := range m.EntityTypes {
		for _, n := range t.DeclaredNavigations() {
			b.partner(t, n)
		}
	}
	b.derivedTargets()
	for _, t := range m.EntityTypes {
		b.recursiveHierarchies(t)
	}
	b.container()
	b.operations()
	b.authorizations()
	b.bindings()
	b.checkAnnotations(m)
}

// noNil adds a "nil declaration" error, named what #n, for each nil element of list; it reports whether there
// was none.
func noNil[T any](b *builder, what string, list []*T) bool {
	ok := true
	for i, x := range list {
		if x == nil {
			b.problems.add(fmt.Sprintf("%s #%d", what, i+1), "nil declaration")
			ok = false
		}
	}
	return ok
}

// collectTypes checks for nil declarations and adds the enum and complex types that properties, parameters and
// return types refer to without being listed. It reports false if a declaration is nil.
func (b *builder) collectTypes() bool {
	if !b.noNilDeclarations() {
		return false
	}
	c := newTypeCollector(b)
	for i := 0; i < len(b.m.ComplexTypes); i++ { // the list grows while walking
		if !c.addPropertyTypes(b.m.ComplexTypes[i].Properties) {
			return false
		}
	}
	for _, t := range b.m.EntityTypes {
		if !c.addPropertyTypes(t.Properties) {
			return false
		}
	}
	for _, a := range b.m.Actions {
		c.addSignatureTypes(a.Parameters, a.ReturnType)
	}
	for _, f := range b.m.Functions {
		c.addSignatureTypes(f.Parameters, f.ReturnType)
	}
	return true
}

// noNilDeclarations reports every nil declaration of the model and of its entity and complex types; it
// returns whether there was none.
func (b *builder) noNilDeclarations() bool {
	m := b.m
	ok := noNil(b, "enum type", m.EnumTypes)
	ok = noNil(b, "complex type", m.ComplexTypes) && ok
	ok = noNil(b, "entity type", m.EntityTypes) && ok
	ok = noNil(b, "entity set", m.EntitySets) && ok
	ok = noNil(b, "singleton", m.Singletons) && ok
	ok = noNil(b, "action", m.Actions) && ok
	ok = noNil(b, "function", m.Functions) && ok
	for _, t := range m.EntityTypes {
		if t != nil {
			ok = noNil(b, fmt.Sprintf("entity type %q: property", t.Name), t.Properties) && ok
			ok = noNil(b, fmt.Sprintf("entity type %q: navigation", t.Name), t.Navigations) && ok
		}
	}
	for _, c := range m.ComplexTypes {
		if c != nil {
			ok = noNil(b, fmt.Sprintf("complex type %q: property", c.Name), c.Properties) && ok
		}
	}
	return ok
}

// typeCollector adds the enum and complex types a model refers to to its lists, each once.
type typeCollector struct {
	b         *builder
	enums     map[*EnumType]bool
	complexes map[*ComplexType]bool
}

func newTypeCollector(b *builder) *typeCollector {
	c := &typeCollector{b: b, enums: map[*EnumType]bool{}, complexes: map[*ComplexType]bool{}}
	for _, e := range b.m.EnumTypes {
		c.enums[e] = true
	}
	for _, t := range b.m.ComplexTypes {
		c.complexes[t] = true
	}
	return c
}

func (c *typeCollector) addEnum(e *EnumType) {
	if e != nil && !c.enums[e] {
		c.enums[e] = true
		c.b.m.EnumTypes = append(c.b.m.EnumTypes, e)
	}
}

// addComplex adds a complex type and the types of its properties; it reports false at a nil property.
func (c *typeCollector) addComplex(t *ComplexType) bool {
	if t == nil || c.complexes[t] {
		return true
	}
	c.complexes[t] = true
	c.b.m.ComplexTypes = append(c.b.m.ComplexTypes, t)
	return c.addPropertyTypes(t.Properties)
}

// addPropertyTypes adds the enum and complex types of properties; it reports a nil property and returns false.
func (c *typeCollector) addPropertyTypes(properties []*Property) bool {
	for i, p := range properties {
		if p == nil {
			c.b.problems.add(fmt.Sprintf("property #%d", i+1), "nil declaration")
			return false
		}
		c.addEnum(p.Enum)
		if !c.addComplex(p.Complex) {
			return false
		}
	}
	return true
}

// addSignatureTypes adds the enum and complex types of an operation's parameters and return type.
func (c *typeCollector) addSignatureTypes(parameters []Parameter, result *ReturnType) {
	for _, p := range parameters {
		c.addEnum(p.Enum)
		c.addComplex(p.Complex)
	}
	if result != nil {
		c.addEnum(result.Enum)
		c.addComplex(result.Complex)
	}
}

// schemaNames checks that schema children have unique names (case-insensitively, as lookups are), allowing
// overloads of one action or function, and builds the type indexes.
func (b *builder) schemaNames() {
	m := b.m
	m.entityTypes, m.complexTypes, m.enumTypes = newIndex[*EntityType](), newIndex[*ComplexType](), newIndex[*EnumType]()
	m.actions, m.functions = newIndex[int](), newIndex[int]()
	m.actionGroups, m.functionGroups = nil, nil
	seen := map[string]string{} // folded name -> "kind \"Name\""
	claim := func(kind, name string) bool {
		declaration := fmt.Sprintf("%s %q", kind, name)
		if !isIdentifier(name) {
			b.problems.add(declaration, "name is not a valid identifier")
		}
		k := foldKey(name)
		if prev, taken := seen[k]; taken {
			b.problems.add(declaration, "name is already used by "+prev)
			return false
		}
		seen[k] = declaration
		return true
	}
	claim("entity container", m.Container)
	for _, e := range m.EnumTypes {
		claim("enum type", e.Name)
		m.enumTypes.add(e.Name, e) // indexed even when the name clashes, so references resolve
	}
	for _, c := range m.ComplexTypes {
		claim("complex type", c.Name)
		m.complexTypes.add(c.Name, c) // indexed even when the name clashes, so references resolve
	}
	for _, t := range m.EntityTypes {
		claim("entity type", t.Name)
		m.entityTypes.add(t.Name, t) // indexed even when the name clashes, so references resolve
	}
	m.actionGroups = groupOverloads(b, "action", m.Actions, func(a *Action) string { return a.Name }, &m.actions, claim)
	m.functionGroups = groupOverloads(b, "function", m.Functions, func(f *Function) string { return f.Name }, &m.functions, claim)
}

// groupOverloads groups the operations of one kind by name: overloads share a name (spelt the same way) and one
// index entry that points at their group.
func groupOverloads[T any](b *builder, kind string, ops []T, name func(T) string, nameIndex *index[int],
	claim func(kind, name string) bool) [][]T {
	var groups [][]T
	for _, op := range ops {
		n := name(op)
		if i, ok := nameIndex.get(n); ok {
			if first := name(groups[i][0]); first != n {
				b.problems.add(fmt.Sprintf("%s %q", kind, n), fmt.Sprintf("overloads must have the same name as %q", first))
			}
			groups[i] = append(groups[i], op)
			continue
		}
		if claim(kind, n) {
			nameIndex.add(n, len(groups))
			groups = append(groups, []T{op})
		}
	}
	return groups
}

// entityTypeNamed resolves a declared reference to an entity type: its simple name or "<namespace>.<name>",
// exactly.
func (b *builder) entityTypeNamed(name string) *EntityType {
	if t, ok := b.m.entityTypes.exact[name]; ok {
		return t
	}
	if rest, ok := strings.CutPrefix(name, b.m.Namespace+"."); ok {
		return b.m.entityTypes.exact[rest]
	}
	return nil
}

func (b *builder) complexType(c *ComplexType) {
	where := fmt.Sprintf("complex type %q", c.Name)
	if len(c.Properties) == 0 {
		b.problems.add(where, "no properties")
	}
	c.propertyIndex = newIndex[*Property]()
	columns := map[string]string{}
	for _, p := range c.Properties {
		b.property(where, p, false)
		if !c.propertyIndex.add(p.Name, p) {
			b.problems.add(where, fmt.Sprintf("duplicate property %q", p.Name))
			continue
		}
		if prev, taken := columns[p.Column]; taken && p.Column != "" {
			b.problems.add(where, fmt.Sprintf("property %q: column %q is also the column of property %q", p.Name, p.Column, prev))
		} else {
			columns[p.Column] = p.Name
		}
	}
}

// complexCycles reports complex types that contain themselves (they would need infinitely many columns).
func (b *builder) complexCycles() {
	state := map[*ComplexType]int{} // 1 visiting, 2 done
	var visit func(c *ComplexType) bool
	visit = func(c *ComplexType) bool {
		switch state[c] {
		case 1:
			return false
		case 2:
			return true
		}
		state[c] = 1
		for _, p := range c.Properties {
			if p.Complex != nil && !visit(p.Complex) {
				return false
			}
		}
		state[c] = 2
		return true
	}
	for _, c := range b.m.ComplexTypes {
		if state[c] == 0 && !visit(c) {
			b.problems.add(fmt.Sprintf("complex type %q", c.Name), "contains itself through its properties")
			b.cyclic = true
			return
		}
	}
}

// tables checks that no two entity types or side tables share a table.
func (b *builder) tables() {
	owner := map[string]string{}
	claim := func(table, declaration string) {
		if prev, taken := owner[table]; taken {
			b.problems.add(declaration, fmt.Sprintf("table %q is also the table of %s", table, prev))
			return
		}
		owner[table] = declaration
	}
	for _, t := range b.m.EntityTypes {
		if t.base == nil {
			claim(t.Table, fmt.Sprintf("entity type %q", t.Name))
		}
	}
	for _, t := range b.m.EntityTypes {
		for _, p := range t.DeclaredProperties() {
			if p.Collection && p.CollectionTable != nil {
				claim(p.CollectionTable.Table, fmt.Sprintf("entity type %q: property %q", t.Name, p.Name))
			}
		}
	}
}

// container checks entity sets, singletons and operation imports, which share the container's names.
func (b *builder) container() {
	m := b.m
	m.entitySets, m.singletons = newIndex[*EntitySet](), newIndex[*Singleton]()
	seen := map[string]string{}
	claim := func(declaration, name string) bool {
		if !isIdentifier(name) {
			b.problems.add(declaration, "name is not a valid identifier")
			return false
		}
		k := foldKey(name)
		if prev, taken := seen[k]; taken {
			b.problems.add(declaration, "name is already used by "+prev)
			return false
		}
		seen[k] = declaration
		return true
	}
	for _, s := range m.EntitySets {
		declaration := fmt.Sprintf("entity set %q", s.Name)
		s.entityType, s.bindings = b.entityTypeNamed(s.Type), nil
		if s.entityType == nil {
			b.problems.add(declaration, fmt.Sprintf("entity type %q does not exist", s.Type))
		} else {
			s.entityType.sets = append(s.entityType.sets, s)
		}
		if claim(declaration, s.Name) {
			m.entitySets.add(s.Name, s)
		}
	}
	for _, s := range m.Singletons {
		declaration := fmt.Sprintf("singleton %q", s.Name)
		s.entityType, s.bindings = b.entityTypeNamed(s.Type), nil
		if s.entityType == nil {
			b.problems.add(declaration, fmt.Sprintf("entity type %q does not exist", s.Type))
		}
		if claim(declaration, s.Name) {
			m.singletons.add(s.Name, s)
		}
	}
	for _, g := range m.actionGroups {
		for _, a := range g {
			if !a.Bound {
				claim(fmt.Sprintf("action import %q", a.Name), a.Name)
				break
			}
		}
	}
	for _, g := range m.functionGroups {
		for _, f := range g {
			if !f.Bound {
				claim(fmt.Sprintf("function import %q", f.Name), f.Name)
				break
			}
		}
	}
}

func (b *builder) authorizations() {
	seen := map[string]bool{}
	for i, a := range b.m.Authorizations {
		where := fmt.Sprintf("authorization %q", a.Name)
		if a.Name == "" {
			where = fmt.Sprintf("authorization #%d", i+1)
			b.problems.add(where, "no Name")
		}
		if seen[a.Name] {
			b.problems.add(where, "duplicate name")
		}
		seen[a.Name] = true
		if a.Scheme == "" || strings.ContainsAny(a.Scheme, " \t\r\n,;\"") {
			b.problems.add(where, fmt.Sprintf("Scheme %q is not an HTTP authentication scheme such as \"bearer\"", a.Scheme))
		}
	}
}

// bindings derives the navigation property bindings of entity sets and singletons.
func (b *builder) bindings() {
	var walk func(t *EntityType, prefix string, visited map[*EntityType]bool, out *[]NavigationBinding)
	walk = func(t *EntityType, prefix string, visited map[*EntityType]bool, out *[]NavigationBinding) {
		for _, n := range t.Navigations {
			if n.target == nil {
				continue
			}
			if n.ContainsTarget {
				if !visited[n.target] {
					visited[n.target] = true
					walk(n.target, prefix+n.Name+"/", visited, out)
					delete(visited, n.target)
				}
				continue
			}
			if len(n.target.sets) == 1 {
				*out = append(*out, NavigationBinding{Path: prefix + n.Name, Target: n.target.sets[0]})
			}
		}
	}
	for _, s := range b.m.EntitySets {
		if s.entityType != nil {
			walk(s.entityType, "", map[*EntityType]bool{s.entityType: true}, &s.bindings)
		}
	}
	for _, s := range b.m.Singletons {
		if s.entityType != nil {
			walk(s.entityType, "", map[*EntityType]bool{s.entityType: true}, &s.bindings)
		}
	}
}

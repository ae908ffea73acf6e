package edm

// The lookups below are the ones request handling uses. Each is a map access (exact name first, then the
// case-folded name folded into a stack buffer), so they run in constant time without allocating. On a model that
// is not built they find nothing.

// EntitySet returns the entity set with the given name, compared case-insensitively; nil if there is none.
func (m *Model) EntitySet(name string) *EntitySet {
	s, _ := m.entitySets.get(name)
	return s
}

// Singleton returns the singleton with the given name, compared case-insensitively; nil if there is none.
func (m *Model) Singleton(name string) *Singleton {
	s, _ := m.singletons.get(name)
	return s
}

// EntityType returns the entity type with the given simple or qualified name, compared case-insensitively; nil
// if there is none.
func (m *Model) EntityType(name string) *EntityType {
	t, _ := m.entityTypes.get(stripNamespace(name, m.Namespace))
	return t
}

// ComplexType returns the complex type with the given simple or qualified name, compared case-insensitively;
// nil if there is none.
func (m *Model) ComplexType(name string) *ComplexType {
	t, _ := m.complexTypes.get(stripNamespace(name, m.Namespace))
	return t
}

// EnumType returns the enum type with the given simple or qualified name, compared case-insensitively; nil if
// there is none.
func (m *Model) EnumType(name string) *EnumType {
	t, _ := m.enumTypes.get(stripNamespace(name, m.Namespace))
	return t
}

// ActionOverloads returns the overloads of the action with the given simple or qualified name, compared
// case-insensitively, in declaration order; nil if there is none.
func (m *Model) ActionOverloads(name string) []*Action {
	i, ok := m.actions.get(stripNamespace(name, m.Namespace))
	if !ok {
		return nil
	}
	return m.actionGroups[i]
}

// Action returns the overload of the named action (see ActionOverloads) bound to binding, an entity (collection false)
// or a collection of entities (collection true) of that type; with a nil binding, the unbound action. It
// returns nil if there is no such overload.
func (m *Model) Action(name string, binding *EntityType, collection bool) *Action {
	for _, a := range m.ActionOverloads(name) {
		if a.binding == binding && (binding == nil || a.BindingCollection == collection) {
			return a
		}
	}
	return nil
}

// FunctionOverloads returns the overloads of the function with the given simple or qualified name, compared
// case-insensitively, in declaration order; nil if there is none.
func (m *Model) FunctionOverloads(name string) []*Function {
	i, ok := m.functions.get(stripNamespace(name, m.Namespace))
	if !ok {
		return nil
	}
	return m.functionGroups[i]
}

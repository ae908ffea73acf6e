package edm

import "strings"

// The lookups below are the ones request handling uses. Each is a map access (exact name first, then the
// case-folded name folded into a stack buffer), so they run in constant time without allocating. On a model that
// is not built they find nothing.

// EntitySet returns the entity set with the given name, compared case-insensitively; nil if there is none.
func (m *Model) EntitySet(name string) *EntitySet {
	s, _ := m.entitySets.get(name)
	return s
}

// EntitySetOf returns the one entity set of the entity type et, nil when the model has none or several (a path
// to et's entities then names no set of its own). Unlike the lookups by name it scans the sets.
func (m *Model) EntitySetOf(et *EntityType) *EntitySet {
	var found *EntitySet
	for _, es := range m.EntitySets {
		if es.EntityType() == et {
			if found != nil {
				return nil
			}
			found = es
		}
	}
	return found
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

// index maps names to values: exact names first, then a unique case-insensitive match. Lookups do not allocate
// for names up to foldBuffer bytes.
type index[T comparable] struct {
	exact map[string]T
	fold  map[string]T
	// ambiguous holds folded names shared by several entries; they never match case-insensitively.
	ambiguous map[string]bool
}

// foldBuffer is the size of the stack buffer used to fold a looked-up name.
const foldBuffer = 256

func newIndex[T comparable]() index[T] {
	return index[T]{exact: map[string]T{}, fold: map[string]T{}, ambiguous: map[string]bool{}}
}

// add records v under name. It reports false when the exact name is taken.
func (ix *index[T]) add(name string, v T) bool {
	if _, ok := ix.exact[name]; ok {
		return false
	}
	ix.exact[name] = v
	k := foldKey(name)
	if ix.ambiguous[k] {
		return true
	}
	if _, ok := ix.fold[k]; ok {
		delete(ix.fold, k)
		ix.ambiguous[k] = true
		return true
	}
	ix.fold[k] = v
	return true
}

// get returns the value named exactly name, else the one value whose name equals name case-insensitively.
func (ix *index[T]) get(name string) (T, bool) {
	if v, ok := ix.exact[name]; ok {
		return v, true
	}
	var zero T
	if len(ix.fold) == 0 {
		return zero, false
	}
	if len(name) > foldBuffer {
		v, ok := ix.fold[foldKey(name)]
		return v, ok
	}
	var buf [foldBuffer]byte
	k := appendFold(buf[:0], name)
	v, ok := ix.fold[string(k)]
	return v, ok
}

// stripNamespace removes a leading "<namespace>." (compared case-insensitively) from name.
func stripNamespace(name, namespace string) string {
	if len(name) > len(namespace)+1 && name[len(namespace)] == '.' && strings.EqualFold(name[:len(namespace)], namespace) {
		return name[len(namespace)+1:]
	}
	return name
}

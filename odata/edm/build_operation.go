package edm

import (
	"fmt"
	"slices"
	"strings"
)

// operations checks actions and functions: bindings, parameters, return types and overloads.
func (b *builder) operations() {
	for _, a := range b.m.Actions {
		where := fmt.Sprintf("action %q", a.Name)
		a.binding = b.bindingType(where, a.Bound, a.BindingType, a.BindingCollection)
		b.parameters(where, a.Parameters)
		if a.ReturnType != nil {
			b.returnType(where, a.ReturnType)
		}
	}
	for _, f := range b.m.Functions {
		where := fmt.Sprintf("function %q", f.Name)
		f.binding = b.bindingType(where, f.Bound, f.BindingType, f.BindingCollection)
		b.parameters(where, f.Parameters)
		if f.ReturnType == nil {
			b.problems.add(where, "a function needs a ReturnType")
		} else {
			b.returnType(where, f.ReturnType)
		}
	}
	for _, g := range b.m.actionGroups {
		b.actionOverloads(g)
	}
	for _, g := range b.m.functionGroups {
		b.functionOverloads(g)
	}
}

// actionOverloads checks that the overloads of an action differ in their binding: at most one is unbound, and
// no two are bound to the same entity type or collection of it.
func (b *builder) actionOverloads(group []*Action) {
	type binding struct {
		entityType *EntityType
		collection bool
	}
	unbound := 0
	seen := map[binding]bool{}
	for _, a := range group {
		where := fmt.Sprintf("action %q", a.Name)
		if !a.Bound {
			if unbound++; unbound == 2 {
				b.problems.add(where, "unbound actions cannot be overloaded")
			}
			continue
		}
		if a.binding == nil {
			continue
		}
		k := binding{a.binding, a.BindingCollection}
		if seen[k] {
			b.problems.add(where, fmt.Sprintf("another overload is bound to %s", bindingLabel(a.BindingType, a.BindingCollection)))
		}
		seen[k] = true
	}
}

// functionOverloads checks that the overloads of a function differ in their binding or in the names of their
// parameters, and that overloads with the same binding return the same type.
func (b *builder) functionOverloads(group []*Function) {
	type signature struct {
		entityType *EntityType
		bound      bool
		collection bool
		parameters string
	}
	seen := map[signature]bool{}
	returns := map[signature]*ReturnType{} // by binding only
	for _, f := range group {
		where := fmt.Sprintf("function %q", f.Name)
		if f.Bound && f.binding == nil {
			continue
		}
		names := make([]string, len(f.Parameters))
		for i, p := range f.Parameters {
			names[i] = p.Name
		}
		slices.Sort(names)
		k := signature{f.binding, f.Bound, f.BindingCollection, strings.Join(names, ",")}
		if seen[k] {
			b.problems.add(where, "another overload has the same binding and parameter names")
		}
		seen[k] = true
		byBinding := signature{entityType: f.binding, bound: f.Bound, collection: f.BindingCollection}
		if r, ok := returns[byBinding]; ok && f.ReturnType != nil && r != nil && !sameType(r, f.ReturnType) {
			b.problems.add(where, "overloads with the same binding must have the same return type")
		} else if !ok {
			returns[byBinding] = f.ReturnType
		}
	}
}

func bindingLabel(typeName string, collection bool) string {
	if collection {
		return fmt.Sprintf("a collection of %q", typeName)
	}
	return fmt.Sprintf("%q", typeName)
}

func sameType(a, b *ReturnType) bool {
	return a.Type == b.Type && a.Enum == b.Enum && a.Complex == b.Complex && a.entity == b.entity && a.Collection == b.Collection
}

func (b *builder) bindingType(where string, bound bool, typeName string, collection bool) *EntityType {
	if !bound {
		if typeName != "" || collection {
			b.problems.add(where, "BindingType and BindingCollection need Bound")
		}
		return nil
	}
	if typeName == "" {
		b.problems.add(where, "a bound operation needs a BindingType")
		return nil
	}
	t := b.entityTypeNamed(typeName)
	if t == nil {
		b.problems.add(where, fmt.Sprintf("binding entity type %q does not exist", typeName))
	}
	return t
}

func (b *builder) parameters(where string, ps []Parameter) {
	seen := map[string]string{}
	optional := ""
	for i := range ps {
		p := &ps[i]
		declaration := fmt.Sprintf("%s: parameter %q", where, p.Name)
		if !isIdentifier(p.Name) {
			b.problems.add(declaration, "name is not a valid identifier")
		} else if isReservedMember(p.Name) {
			b.problems.add(declaration, "the name is reserved")
		}
		k := foldKey(p.Name)
		if prev, taken := seen[k]; taken {
			b.problems.add(declaration, fmt.Sprintf("duplicate parameter (also %q)", prev))
		}
		seen[k] = p.Name
		for _, a := range p.Aliases {
			if !isIdentifier(a) {
				b.problems.add(declaration, fmt.Sprintf("alias %q is not a valid identifier", a))
				continue
			} else if isReservedMember(a) {
				b.problems.add(declaration, fmt.Sprintf("alias %q is reserved", a))
				continue
			}
			k := foldKey(a)
			if prev, taken := seen[k]; taken {
				b.problems.add(declaration, fmt.Sprintf("alias %q is already used by %q", a, prev))
				continue
			}
			seen[k] = a
		}
		p.entity = b.typeRef(declaration, p.Type, p.Enum, p.Complex, p.Entity, p.MaxLength, &p.Precision, p.Scale)
		if !p.Required {
			optional = p.Name
		} else if optional != "" {
			b.problems.add(declaration, fmt.Sprintf("required parameter follows optional parameter %q", optional))
		}
	}
}

func (b *builder) returnType(where string, r *ReturnType) {
	r.entity = b.typeRef(where+": return type", r.Type, r.Enum, r.Complex, r.Entity, r.MaxLength, &r.Precision, r.Scale)
}

// typeRef checks the type of a parameter or return type and resolves an entity type name.
func (b *builder) typeRef(where string, k Kind, e *EnumType, c *ComplexType, entity string, maxLength int, precision *int, scale int) *EntityType {
	n := 0
	for _, set := range []bool{k != KindNone, e != nil, c != nil, entity != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		b.problems.add(where, "exactly one of Type, Enum, Complex and Entity must be set")
		return nil
	}
	if k >= kindCount {
		b.problems.add(where, fmt.Sprintf("unknown kind %d", k))
		return nil
	}
	var t *EntityType
	if entity != "" {
		if t = b.entityTypeNamed(entity); t == nil {
			b.problems.add(where, fmt.Sprintf("entity type %q does not exist", entity))
		}
	}
	if msg := facets(k, k == KindNone, maxLength, precision, scale); msg != "" {
		b.problems.add(where, msg)
	}
	return t
}

package syntax

import (
	"errors"
	"fmt"
	"strings"
)

// The mock binder of the ABNF harness: it walks a parsed resource path against the identifier lists of
// abnf-constraints.json the way the ABNF's resourcePath rules do. The mock model has no types, so a name
// may stand in several roles; the walk keeps every state still possible.

type pathState uint8

const (
	psStart pathState = iota
	psEntityColl
	psEntity
	psComplexColl
	psComplex
	psPrimColl
	psPrim
	psStream
	psEach      // after $each: a bound operation may follow
	psKeySeg    // after a key given as a segment: more key segments, or what an entity allows
	psQuery     // only $query may follow
	psCast      // after $all or $entity: a type cast may follow
	psEnd       // nothing may follow
	psEntityRef // $entity with a type cast: nothing may follow
)

type walkState struct {
	st     pathState
	casted bool
}

// unqualify strips a namespace ("Model.Fn" -> "Fn") and checks its parts.
func (m mockModel) unqualify(name string) (string, bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return name, true
	}
	for _, part := range strings.Split(name[:i], ".") {
		if !m.is(part, "namespacePart") {
			return "", false
		}
	}
	return name[i+1:], true
}

func (m mockModel) isKeyLiteral(s string) bool {
	if m.is(s, "keyPathLiteral") {
		return true
	}
	for k := range m["keyPathLiteral"] {
		if decode(k) == s {
			return true
		}
	}
	return false
}

func resolvePath(m mockModel, p *ResourcePath, q *Query) error {
	states := []walkState{{st: psStart}}
	for _, seg := range p.Segments {
		var next []walkState
		for _, s := range states {
			next = append(next, m.step(s, seg)...)
		}
		if len(next) == 0 {
			return fmt.Errorf("segment %q not allowed here", seg.Name)
		}
		states = next
	}
	if len(p.Segments) > 0 && p.Segments[0].Name == "$entity" {
		if q.ID == "" {
			return errors.New("$entity needs $id")
		}
		if len(p.Segments) == 1 && (q.Select != nil || q.Expand != nil) {
			return errors.New("$entity without a type cast allows only $id and $format")
		}
	}
	return nil
}

// operation returns the states after a bound or imported operation call.
func (m mockModel) operation(seg Segment, kinds map[string]pathState, action string) []walkState {
	name, ok := m.unqualify(seg.Name)
	if !ok {
		return nil
	}
	var out []walkState
	if action != "" && m.is(name, action) && len(seg.Args) == 0 {
		out = append(out, walkState{st: psEnd})
	}
	for kind, st := range kinds {
		if !m.is(name, kind) {
			continue
		}
		switch len(seg.Args) {
		case 0:
			out = append(out, walkState{st: psQuery})
		case 1:
			if m.params(seg.Args[0]) {
				out = append(out, walkState{st: st})
			}
		case 2:
			if st == psEntityColl && m.params(seg.Args[0]) {
				out = append(out, walkState{st: psEntity})
			}
		}
	}
	return out
}

func (m mockModel) params(al ArgList) bool {
	for _, a := range al.Args {
		if a.Name == "" || !m.is(a.Name, "parameterName") {
			return false
		}
	}
	return true
}

var importKinds = map[string]pathState{
	"entityColFunctionImport": psEntityColl, "entityFunctionImport": psEntity,
	"complexColFunctionImport": psComplexColl, "complexFunctionImport": psComplex,
	"primitiveColFunctionImport": psPrimColl, "primitiveFunctionImport": psPrim,
}

var boundKinds = map[string]pathState{
	"entityColFunction": psEntityColl, "entityFunction": psEntity, "complexColFunction": psComplexColl,
	"complexFunction": psComplex, "primitiveColFunction": psPrimColl, "primitiveFunction": psPrim,
}

// property returns the states after a property segment of an entity or complex value.
func (m mockModel) property(seg Segment) []walkState {
	if seg.IsQualified() {
		return nil
	}
	var out []walkState
	n := seg.Name
	switch {
	case len(seg.Args) > 1:
		return nil
	case len(seg.Args) == 1:
		if m.is(n, "entityColNavigationProperty") {
			out = append(out, walkState{st: psEntity})
		}
		return out
	}
	for kind, st := range map[string]pathState{
		"entityNavigationProperty": psEntity, "entityColNavigationProperty": psEntityColl,
		"complexProperty": psComplex, "complexColProperty": psComplexColl, "primitiveKeyProperty": psPrim,
		"primitiveNonKeyProperty": psPrim, "primitiveColProperty": psPrimColl, "streamProperty": psStream,
	} {
		if m.is(n, kind) {
			out = append(out, walkState{st: st})
		}
	}
	return out
}

func (m mockModel) cast(seg Segment, kind string, st pathState, casted bool) []walkState {
	if casted || len(seg.Args) > 1 || seg.Literal || len(seg.Args) == 1 && st != psEntityColl {
		return nil
	}
	name, ok := m.unqualify(seg.Name)
	if !ok || !m.is(name, kind) {
		return nil
	}
	if len(seg.Args) == 1 { // a key after the cast
		return []walkState{{st: psEntity, casted: true}}
	}
	return []walkState{{st: st, casted: true}}
}

func (m mockModel) step(s walkState, seg Segment) []walkState {
	var out []walkState
	dollar := !seg.Literal && strings.HasPrefix(seg.Name, "$")
	switch s.st {
	case psStart:
		if seg.Literal {
			return nil
		}
		switch seg.Name {
		case "$metadata", "$batch":
			return []walkState{{st: psEnd}}
		case "$entity", "$all":
			return []walkState{{st: psCast}}
		case "$crossjoin":
			for _, a := range seg.Args[0].Args {
				if !m.is(a.Value.(*Path).Segments[0].Name, "entitySetName") {
					return nil
				}
			}
			return []walkState{{st: psQuery}}
		}
		if seg.IsQualified() {
			return nil
		}
		if m.is(seg.Name, "entitySetName") {
			switch len(seg.Args) {
			case 0:
				out = append(out, walkState{st: psEntityColl})
			case 1:
				out = append(out, walkState{st: psEntity})
			}
		}
		if m.is(seg.Name, "singletonEntity") && len(seg.Args) == 0 {
			out = append(out, walkState{st: psEntity})
		}
		if m.is(seg.Name, "actionImport") && len(seg.Args) == 0 {
			out = append(out, walkState{st: psEnd})
		}
		return append(out, m.operation(seg, importKinds, "")...)
	case psEnd, psEntityRef:
		return nil
	case psQuery:
		if seg.Name == "$query" && !seg.Literal {
			return []walkState{{st: psEnd}}
		}
		return nil
	case psCast:
		return m.cast(seg, "entityTypeName", psEntityRef, false)
	case psEach:
		return m.operation(seg, boundKinds, "action")
	}
	if dollar {
		switch seg.Name {
		case "$query":
			return []walkState{{st: psEnd}}
		case "$count":
			if s.st == psEntityColl || s.st == psComplexColl || s.st == psPrimColl {
				return []walkState{{st: psEnd}}
			}
		case "$ref":
			if s.st == psEntityColl || s.st == psEntity || s.st == psKeySeg {
				return []walkState{{st: psEnd}}
			}
		case "$value":
			if s.st == psEntity || s.st == psPrim || s.st == psKeySeg {
				return []walkState{{st: psEnd}}
			}
		case "$filter":
			if s.st == psEntityColl {
				return []walkState{{st: psEntityColl}}
			}
		case "$each":
			if s.st == psEntityColl {
				return []walkState{{st: psEach}}
			}
		}
		return nil
	}
	if seg.Literal || m.isKeyLiteral(seg.Name) && len(seg.Args) == 0 {
		switch s.st {
		case psEntityColl, psKeySeg:
			if m.isKeyLiteral(seg.Name) {
				out = append(out, walkState{st: psKeySeg})
			}
		case psComplexColl, psPrimColl:
			n := strings.TrimPrefix(seg.Name, "-")
			if n != "" && strings.Trim(n, "0123456789") == "" {
				out = append(out, walkState{st: psEnd})
			}
		}
		if seg.Literal {
			return out
		}
	}
	bound := m.operation(seg, boundKinds, "action")
	switch s.st {
	case psEntityColl:
		out = append(out, m.cast(seg, "entityTypeName", psEntityColl, s.casted)...)
		out = append(out, bound...)
	case psEntity, psKeySeg:
		out = append(out, m.property(seg)...)
		out = append(out, m.cast(seg, "entityTypeName", psEntity, s.casted)...)
		out = append(out, bound...)
	case psComplex:
		out = append(out, m.property(seg)...)
		out = append(out, m.cast(seg, "complexTypeName", psComplex, s.casted)...)
		out = append(out, bound...)
	case psComplexColl:
		out = append(out, m.cast(seg, "complexTypeName", psComplexColl, s.casted)...)
		out = append(out, bound...)
	case psPrimColl, psPrim, psStream:
		out = append(out, bound...)
	}
	return out
}

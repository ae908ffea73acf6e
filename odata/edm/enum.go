package edm

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// EnumType is an enumeration type. Values travel in JSON as member names (flags values as comma-joined names)
// and are stored as the member's integer value.
type EnumType struct {
	// Name is the simple name; the qualified name is "<namespace>.<Name>".
	Name string
	// Members are the named values in declaration order.
	Members []EnumMember
	// Flags marks a flags enumeration: a value may combine several members (bitwise or).
	Flags bool
	// UnderlyingType is Byte, SByte, Int16, Int32 or Int64; the zero Kind means Int32.
	UnderlyingType Kind
	// Description is emitted as a Core.Description annotation.
	Description string

	members index[int]    // member name -> position
	values  map[int64]int // value -> position of the first member with that value
	byValue []int         // positions sorted by value, descending (flags formatting)
}

// EnumMember is one named value of an EnumType.
type EnumMember struct {
	Name  string
	Value int64
}

// Member returns the member with the given name: the exact name first, then a case-insensitive match.
func (e *EnumType) Member(name string) (EnumMember, bool) {
	if e.members.exact == nil {
		for _, m := range e.Members { // not built: linear scan
			if strings.EqualFold(m.Name, name) {
				return m, true
			}
		}
		return EnumMember{}, false
	}
	i, ok := e.members.get(name)
	if !ok {
		return EnumMember{}, false
	}
	return e.Members[i], true
}

// MemberByValue returns the member with the given value.
func (e *EnumType) MemberByValue(v int64) (EnumMember, bool) {
	if e.values == nil {
		for _, m := range e.Members {
			if m.Value == v {
				return m, true
			}
		}
		return EnumMember{}, false
	}
	i, ok := e.values[v]
	if !ok {
		return EnumMember{}, false
	}
	return e.Members[i], true
}

// Format returns the JSON and literal form of v: the member name; for a flags enum without a member of exactly
// that value, the names of the members whose bits make up v, comma-joined in declaration order. A value that no
// member (combination) represents is formatted as its decimal number, which OData accepts as well.
func (e *EnumType) Format(v int64) string {
	if m, ok := e.MemberByValue(v); ok {
		return m.Name
	}
	if !e.Flags || v <= 0 {
		return strconv.FormatInt(v, 10)
	}
	order := e.byValue
	if order == nil {
		order = e.valueOrder()
	}
	chosen := make([]bool, len(e.Members))
	rest := v
	for _, i := range order {
		memberValue := e.Members[i].Value
		if memberValue > 0 && memberValue&rest == memberValue {
			chosen[i] = true
			rest &^= memberValue
		}
	}
	if rest != 0 {
		return strconv.FormatInt(v, 10)
	}
	var b strings.Builder
	for i, ok := range chosen {
		if ok {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(e.Members[i].Name)
		}
	}
	return b.String()
}

// Parse returns the value of s: a member name (case-insensitive), a decimal integer, or for a flags enum a
// comma-separated list of those, or-ed together. The value must be one the enum defines: a member value, or
// for flags a combination of member values.
func (e *EnumType) Parse(s string) (int64, error) {
	parts := []string{s}
	if e.Flags {
		parts = strings.Split(s, ",")
	}
	var v int64
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if m, ok := e.Member(p); ok {
			v |= m.Value
			continue
		}
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("edm: %q is not a member of enum type %s", p, e.Name)
		}
		if !e.valid(n) {
			return 0, fmt.Errorf("edm: %d is not a value of enum type %s", n, e.Name)
		}
		v |= n
	}
	return v, nil
}

// valid reports whether v is a member value or, for flags, a combination of member values.
func (e *EnumType) valid(v int64) bool {
	if _, ok := e.MemberByValue(v); ok {
		return true
	}
	if !e.Flags || v < 0 {
		return false
	}
	var all int64
	for _, m := range e.Members {
		all |= m.Value
	}
	return v&^all == 0
}

// underlying returns the underlying kind with its default applied.
func (e *EnumType) underlying() Kind {
	if e.UnderlyingType == KindNone {
		return KindInt32
	}
	return e.UnderlyingType
}

func (e *EnumType) valueOrder() []int {
	order := make([]int, len(e.Members))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		va, vb := e.Members[a].Value, e.Members[b].Value
		switch {
		case va > vb:
			return -1
		case va < vb:
			return 1
		}
		return 0
	})
	return order
}

// build validates the enum and builds its lookups; errors are reported through problems.
func (e *EnumType) build(problems *errorList) {
	where := fmt.Sprintf("enum type %q", e.Name)
	if !isIdentifier(e.Name) {
		problems.add(where, "name is not a valid identifier")
	}
	underlying := e.underlying()
	if !underlying.isInteger() {
		problems.add(where, fmt.Sprintf("underlying type %s is not Byte, SByte, Int16, Int32 or Int64", underlying))
	}
	if len(e.Members) == 0 {
		problems.add(where, "no members")
	}
	e.members = newIndex[int]()
	e.values = map[int64]int{}
	seen := map[string]string{}
	lo, hi := underlying.intRange()
	for i, m := range e.Members {
		mwhere := fmt.Sprintf("member %q", m.Name)
		if !isIdentifier(m.Name) {
			problems.add(where, mwhere+": name is not a valid identifier")
		}
		k := foldKey(m.Name)
		if prev, taken := seen[k]; taken {
			problems.add(where, fmt.Sprintf("duplicate member %q (also %q)", m.Name, prev))
		} else {
			seen[k] = m.Name
		}
		e.members.add(m.Name, i)
		if j, taken := e.values[m.Value]; taken {
			problems.add(where, fmt.Sprintf("%s: value %d is also the value of %q", mwhere, m.Value, e.Members[j].Name))
		} else {
			e.values[m.Value] = i
		}
		if m.Value < lo || m.Value > hi {
			problems.add(where, fmt.Sprintf("%s: value %d does not fit %s", mwhere, m.Value, underlying))
		}
		if e.Flags && m.Value < 0 {
			problems.add(where, fmt.Sprintf("%s: flags member values must not be negative", mwhere))
		}
	}
	e.byValue = e.valueOrder()
}

package plan

import (
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// Type hierarchies (edm.EntityType.BaseType) are stored one table per hierarchy: the rows of every type of it
// are in the root's table, whose discriminator column (edm.EntityType.Discriminator) holds each row's
// qualified type name. A range of a type reads the columns of the properties of its derived types too, so a
// row of a derived type is answered with them; the discriminator column tells the type of each row
// (Projection.TypeColumn). A test that a row is of type T, or derived from it, is the discriminator IN the
// names of T and its derived types.

// castOr returns cast, or t when cast is nil.
func castOr(t, cast *edm.EntityType) *edm.EntityType {
	if cast != nil {
		return cast
	}
	return t
}

// typeNames returns the qualified names of t and of the types derived from it: the discriminator values of the
// rows that are instances of t.
func typeNames(m *edm.Model, t *edm.EntityType) []string {
	names := []string{m.Namespace + "." + t.Name}
	for _, d := range t.DerivedTypes() {
		if !d.Abstract {
			names = append(names, m.Namespace+"."+d.Name)
		}
	}
	return names
}

// typeCondition is the condition that the row of alias, of t's hierarchy, is an instance of t: "" for the root
// of a hierarchy, whose table holds only its instances.
func (c *compiler) typeCondition(t *edm.EntityType, alias string) string {
	if t.Base() == nil {
		return ""
	}
	return c.isOf(t, alias)
}

// isOf is the condition that the row of alias is an instance of t: its discriminator is t's name or the name
// of a type derived from t. The names are arguments.
func (c *compiler) isOf(t *edm.EntityType, alias string) string {
	names := typeNames(c.m, t)
	column := c.qualifiedColumn(alias, t.Discriminator())
	if len(names) == 1 {
		return column + " = " + c.param(typeString, names[0])
	}
	markers := make([]string, len(names))
	for i, name := range names {
		markers[i] = c.param(typeString, name)
	}
	return column + " IN (" + strings.Join(markers, ", ") + ")"
}

// typeTest is T (or F with neg) of the test that the row of range r is an instance of t. The missing row of a
// LEFT JOIN has a null discriminator and is an instance of nothing.
func (c *compiler) typeTest(r *tableRange, t *edm.EntityType, neg bool) string {
	test := c.isOf(t, r.alias)
	if neg {
		return c.negate(test, r.nullable)
	}
	return test
}

// entityTypeTest binds isof(x, T) and the null test of cast(x, T) for an entity type T and the instance x of
// range r, of type from: a constant when every instance of from is a T (true) or none can be (false), else a
// test of the discriminator.
func entityTypeTest(r *tableRange, from, t *edm.EntityType) boundExpr {
	switch {
	case from.IsA(t):
		if r.nullable {
			return &boundNot{x: &boundBinary{t: typeBoolean, op: syntax.OpEq, l: &boundRange{t: boundType{entity: from, nullable: true}, r: r}, r: &boundLiteral{t: typeNull}}}
		}
		return &boundLiteral{t: typeBoolean, v: true}
	case t.IsA(from):
		return &boundTypeTest{r: r, typ: t}
	}
	return &boundLiteral{t: typeBoolean, v: false}
}

package plan

import (
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// $compute (OData 4.01): each item binds an expression over the entities of one range (the read's, or an
// expansion's) to an alias. $filter, $orderby and $select name the alias as they name a property: the binder
// substitutes the bound expression, and the projection adds a column holding the expression's value, whose
// Column.Path is a property made for it (computedProperty) so that the rows are scanned and written as any
// column. Computed properties are in the answer when $select names them or when there is no $select (or *).

// computed is a computed property of a range: its alias, its bound expression.
type computed struct {
	alias string
	expr  boundExpr
}

// bindCompute binds the $compute items of q on the range r, before its $filter, $orderby and $select, which
// may name their aliases; option is the option as spelt, for errors.
func (c *compiler) bindCompute(r *tableRange, q *syntax.Query, option string) error {
	if len(q.Compute) == 0 {
		return nil
	}
	return c.bindComputeWith(&binder{c: c, option: option, it: r}, q.Compute)
}

// bindComputeWith binds compute items with b, on its range ($apply's compute binds $these too).
func (c *compiler) bindComputeWith(b *binder, items []syntax.ComputeItem) error {
	r := b.it
	for _, it := range items {
		if r.typ.Property(it.Alias) != nil || r.typ.Navigation(it.Alias) != nil || r.computedNamed(it.Alias) != nil {
			return b.fail(CodeSyntax, it.Expr, "the computed property %s has the name of another property of %s", it.Alias, r.typ.Name)
		}
		e, err := b.expr(it.Expr)
		if err != nil {
			return err
		}
		if t := e.typeOf(); !t.isScalar() && !t.null {
			return b.fail(CodeTypeMismatch, it.Expr, "a computed property must be a primitive value, not %s", t)
		}
		r.computed = append(r.computed, &computed{alias: it.Alias, expr: e})
	}
	return nil
}

// computedNamed returns the computed property of r named name, nil if there is none.
func (r *tableRange) computedNamed(name string) *computed {
	for _, cp := range r.computed {
		if cp.alias == name {
			return cp
		}
	}
	return nil
}

// addComputed adds the columns of the computed properties of the level that the answer shows: those selected
// (all of them without $select, or with *).
func (lv *level) addComputed(selected map[string]bool, all bool) {
	for _, cp := range lv.r.computed {
		if !all && !selected[cp.alias] {
			continue
		}
		sql, scale := lv.c.value(cp.expr)
		lv.projection.Columns = append(lv.projection.Columns,
			Column{Path: []*edm.Property{lv.c.computedProperty(cp.alias, cp.expr.typeOf(), scale)}, Selected: true})
		lv.selectList = append(lv.selectList, sql)
	}
}

// computedProperty is the property a computed column is scanned and written as: the expression's type, and
// for a Decimal the storage its SQL value has (see compiler.value): a scaled integer, decimal text, REAL on a
// dialect with scaled decimals, else the database's decimal.
func (c *compiler) computedProperty(alias string, t boundType, scale int) *edm.Property {
	p := &edm.Property{Name: alias, Type: t.kind, Enum: t.enum, Nullable: true, ReadOnly: true}
	if t.null {
		p.Type = edm.KindString
	}
	if p.Type != edm.KindDecimal {
		return p
	}
	switch {
	case scale == textScale:
		p.Precision, p.Scale, p.DecimalStorage = 38, 18, edm.DecimalExact
	case scale >= 0 && c.d.ScaledDecimals():
		p.Precision, p.Scale, p.DecimalStorage = 19, scale, edm.DecimalScaled
	case c.d.ScaledDecimals():
		p.Precision, p.Scale, p.DecimalStorage = edm.MaxFloatDecimalPrecision, 9, edm.DecimalFloat
	default:
		p.Precision, p.Scale = 38, 18
	}
	return p
}

// selectsAll reports whether the $select items hold * (every property, computed ones included).
func selectsAll(items []syntax.SelectItem) bool {
	for _, it := range items {
		if len(it.Path) == 1 && it.Path[0].Name == "*" {
			return true
		}
	}
	return false
}

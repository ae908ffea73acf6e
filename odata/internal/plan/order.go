package plan

import (
	"hash/fnv"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// orderKey is one item of the total order of a read: an $orderby item, or a key property.
type orderKey struct {
	e          boundExpr
	sql        string
	scale      int
	descending bool
	nullable   bool
	column     int
}

// orderBy binds order-by items on the level's range and completes them with the key. withColumns gives each key
// the column that holds its value (added when needed), for $skiptoken.
func (lv *level) orderBy(items []syntax.OrderItem, option string, withColumns bool) ([]orderKey, error) {
	c := lv.c
	var keys []orderKey
	covered := map[*edm.Property]bool{}
	for _, it := range items {
		b := &binder{c: c, option: option, it: lv.r}
		e, err := b.expr(it.Expr)
		if err != nil {
			return nil, err
		}
		t := e.typeOf()
		if !t.isScalar() || t.kind == edm.KindStream {
			if t.null {
				continue // ordering by null orders nothing
			}
			return nil, &Error{Code: CodeTypeMismatch, Option: option, Pos: it.Expr.Position() + 1, Msg: "cannot order by a value of type " + t.String()}
		}
		if isLiteral(e) {
			continue // a constant orders nothing
		}
		sql, scale := c.value(e)
		k := orderKey{e: e, sql: sql, scale: scale, descending: it.Desc, nullable: nullable(e), column: -1}
		if bound, ok := e.(*boundColumn); ok && bound.r == lv.r {
			for i, column := range lv.projection.Columns {
				if n := len(column.Path); n > 0 && column.Path[n-1] == bound.p {
					k.column = i
				}
			}
			if bound.p.IsKey() {
				covered[bound.p] = true
			}
		}
		if bound, ok := e.(*boundColumn); ok && bound.r == lv.r && k.column < 0 && withColumns {
			// The column as stored, which scanKey reads in its property's storage (not sql, the database's own
			// form of a decimal or time kept in another).
			k.column = lv.internal(lv.c.columnSQL(lv.r, bound.p))
		}
		if k.column < 0 && withColumns {
			k.column = lv.internal(sql)
		}
		keys = append(keys, k)
	}
	// The key breaks ties in the direction of the last key asked for, so an index on (that value, key) serves the
	// whole order from either end, with no sort of the ties (a page deep into a descending order stays cheap).
	tieDescending := len(keys) > 0 && keys[len(keys)-1].descending
	for i, p := range lv.r.typ.KeyProperties() {
		if covered[p] {
			continue
		}
		e := &boundColumn{t: propType(p), r: lv.r, p: p}
		sql, scale := c.value(e)
		keys = append(keys, orderKey{e: e, sql: sql, scale: scale, descending: tieDescending, column: lv.projection.Key[i]})
	}
	return keys, nil
}

// orderKeys binds $orderby and completes the order with the key.
func (pl *compiledRead) orderKeys(lv *level, q *syntax.Query) error {
	c := pl.c
	keys, err := lv.orderBy(q.OrderBy, c.optionSpelt("$orderby"), true)
	if err != nil {
		return err
	}
	pl.order = keys
	hash := fnv.New32a()
	hash.Write([]byte(pl.typ.Name))
	for _, it := range q.OrderBy {
		hash.Write([]byte{0})
		hash.Write([]byte(it.Expr.String()))
		if it.Desc {
			hash.Write([]byte(" desc"))
		}
	}
	if n := len(q.OrderBy); n > 0 && q.OrderBy[n-1].Desc {
		// The key breaks ties downwards after a descending key: a $skiptoken made when it broke them upwards
		// resumes elsewhere, so it is not taken for this order.
		hash.Write([]byte{0, 'k', '-'})
	}
	pl.fingerprint = hash.Sum32()
	pl.orderBy = orderSQL(c, keys)
	return nil
}

func orderSQL(c *compiler, keys []orderKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		s := k.sql
		switch {
		case k.e != nil && k.e.typeOf().isString() && !isColumn(k.e):
			s = c.d.CollateBinary(s)
		case k.scale == textScale:
			s = c.d.CollateDecimal(s)
		}
		if k.descending {
			s += " DESC"
		}
		if k.nullable {
			s += c.d.NullsOrder(k.descending)
		}
		out[i] = s
	}
	return out
}

package plan

import (
	"strconv"
	"strings"

	sq "github.com/Masterminds/squirrel"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

// The translator turns bound trees into SQL text. Arguments are not written as "?" directly: each is a marker
// (NUL, its index in the compiler's argument table, NUL), so that a dialect may repeat a sub-expression (SQLite's
// EndsWith uses its operands twice) without the placeholders and the argument list going out of step. finish
// turns markers into placeholders in text order and lists the arguments in the same order.

// slot is an argument known only when a request arrives (a key value, a $skiptoken value, LIMIT, OFFSET): the
// compiled argument list holds slot(i), replaced by the request's i-th value.
type slot int

// arg adds v to the argument table and returns its marker.
func (c *compiler) arg(v any) string {
	c.args = append(c.args, v)
	return "\x00" + strconv.Itoa(len(c.args)-1) + "\x00"
}

// param is an argument of type t with the dialect's type annotation.
func (c *compiler) param(t boundType, v any) string {
	p := c.d.Param(storedKind(t))
	return c.arg(v) + p[1:]
}

// storedKind is the kind of the values of type t as columns hold them: an enum's are Int64.
func storedKind(t boundType) edm.Kind {
	if t.enum != nil {
		return edm.KindInt64
	}
	return t.kind
}

// finish turns the markers of s into placeholders of the dialect and returns the arguments in order.
func (c *compiler) finish(s string) (string, []any) {
	out, args := c.finishQuestionMarks(s)
	if c.d.Placeholder() != sq.Question {
		out, _ = c.d.Placeholder().ReplacePlaceholders(out)
	}
	return out, args
}

// finishQuestionMarks turns the markers of s into ? placeholders and returns the arguments in order: finish
// without the dialect's numbering, for text that assemble completes later.
func (c *compiler) finishQuestionMarks(s string) (string, []any) {
	var b strings.Builder
	b.Grow(len(s))
	var args []any
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			b.WriteString(s)
			break
		}
		j := strings.IndexByte(s[i+1:], 0) + i + 1
		n, _ := strconv.Atoi(s[i+1 : j])
		b.WriteString(s[:i])
		b.WriteByte('?')
		args = append(args, c.args[n])
		s = s[j+1:]
	}
	return b.String(), args
}

// quote quotes an identifier of the model or an alias.
func (c *compiler) quote(name string) string { return c.p.names.QuoteIdent(name) }

// columnSQL is the SQL of property p on range r: its column, or its SQL expression for a computed property.
func (c *compiler) columnSQL(r *tableRange, p *edm.Property) string {
	return modelsql.Value(c.p.names, p, r.alias)
}

// qualifiedColumn is the column of the table aliased alias.
func (c *compiler) qualifiedColumn(alias, column string) string {
	return modelsql.Column(c.p.names, alias, column)
}

func (c *compiler) constBool(v bool) string {
	if v {
		return "1 = 1"
	}
	return "1 = 0"
}

// negate is F(e) given T(e): NOT, made null-safe when T(e) can be NULL.
func (c *compiler) negate(t string, canBeNull bool) string {
	if canBeNull {
		return "(" + t + ") IS NOT TRUE"
	}
	return "NOT (" + t + ")"
}

// condition writes T(e), a condition true exactly when the boolean e is true, or with neg F(e), true exactly when e
// is false. OData's comparisons are two-valued (null eq null is true, null ne 'x' is true, null gt 1 is false),
// and a null Boolean counts as false, so F(e) is the complement of T(e) on every row; SQL's NULL never leaks.
func (c *compiler) condition(e boundExpr, neg bool) string {
	return c.limitSize(c.translateCondition(e, neg))
}

// maxSQL bounds the SQL of one expression: dialects repeat operands (SQLite's Floor uses its operand three
// times), so deeply nested calls could grow the text exponentially. Past the bound the translation is abandoned
// and compile reports LimitExceeded.
const maxSQL = 1 << 20

// limitSize returns s, or NULL when s is longer than maxSQL; then the compilation is too big to finish.
func (c *compiler) limitSize(s string) string {
	if len(s) > maxSQL {
		c.tooBig = true
		return "NULL"
	}
	return s
}

// translateCondition is condition without the size limit.
func (c *compiler) translateCondition(e boundExpr, neg bool) string {
	switch x := e.(type) {
	case *boundLiteral:
		v, _ := x.v.(bool)
		return c.constBool(v != neg)
	case *boundNot:
		return c.condition(x.x, !neg)
	case *boundBinary:
		switch x.op {
		case syntax.OpAnd, syntax.OpOr:
			and := (x.op == syntax.OpAnd) != neg
			op := " OR "
			if and {
				op = " AND "
			}
			return "(" + c.condition(x.l, neg) + op + c.condition(x.r, neg) + ")"
		}
		return c.compare(x, neg)
	case *boundLambda:
		return c.lambda(x, neg)
	case *boundIn:
		return c.in(x, neg)
	case *boundHas:
		return c.has(x, neg)
	case *boundSearch:
		return c.search(x, neg)
	case *boundCall:
		switch x.fn {
		case "contains", "startswith", "endswith", "matchespattern":
			t, const_ := c.stringMatch(x)
			if const_ != nil {
				return c.constBool(*const_ != neg)
			}
			if !neg {
				return t
			}
			return c.negate(t, x.t.nullable)
		}
	}
	// A Boolean value: a column, a case, a cast.
	v, _ := c.value(e)
	t := v + " = " + c.d.BoolValue(true)
	if !neg {
		return t
	}
	if nullable(e) {
		return "(" + v + " = " + c.d.BoolValue(false) + " OR " + v + " IS NULL)"
	}
	return v + " = " + c.d.BoolValue(false)
}

var sqlOps = map[syntax.BinaryOp]string{syntax.OpEq: "=", syntax.OpNe: "<>", syntax.OpGt: ">",
	syntax.OpGe: ">=", syntax.OpLt: "<", syntax.OpLe: "<="}

// flip is the operator with the operands swapped.
func flip(op syntax.BinaryOp) syntax.BinaryOp {
	switch op {
	case syntax.OpGt:
		return syntax.OpLt
	case syntax.OpGe:
		return syntax.OpLe
	case syntax.OpLt:
		return syntax.OpGt
	case syntax.OpLe:
		return syntax.OpGe
	}
	return op
}

// inverse is the operator of the negated comparison.
func inverse(op syntax.BinaryOp) syntax.BinaryOp {
	switch op {
	case syntax.OpEq:
		return syntax.OpNe
	case syntax.OpNe:
		return syntax.OpEq
	case syntax.OpGt:
		return syntax.OpLe
	case syntax.OpGe:
		return syntax.OpLt
	case syntax.OpLt:
		return syntax.OpGe
	}
	return syntax.OpGt
}

func isColumn(e boundExpr) bool {
	switch x := e.(type) {
	case *boundColumn:
		return x.p.SQL == ""
	case *boundItem:
		return true
	}
	return false
}

// compare writes T or F (with neg) of a comparison.
func (c *compiler) compare(x *boundBinary, neg bool) string {
	l, r, op := orient(x)
	switch left := l.(type) {
	case *boundNavigation:
		return c.navNull(left, (op == syntax.OpEq) != neg)
	case *boundRange:
		return c.compareInstance(left, op, neg)
	}
	if isNullLiteral(r) {
		return c.compareWithNull(l, op, neg)
	}
	if isLiteral(l) && !isLiteral(r) {
		l, r, op = r, l, flip(op)
	}
	return c.compareValues(l, r, op, neg)
}

// orient returns the operands and operator of a comparison with an entity operand, else an operand that is not
// the null literal, on the left.
func orient(x *boundBinary) (boundExpr, boundExpr, syntax.BinaryOp) {
	switch x.r.(type) {
	case *boundNavigation, *boundRange:
		return x.r, x.l, flip(x.op)
	}
	if isNullLiteral(x.l) && !isNullLiteral(x.r) {
		return x.r, x.l, flip(x.op)
	}
	return x.l, x.r, x.op
}

// compareInstance compares an instance with null (eq or ne): it is null only when it is the missing row of a
// LEFT JOIN.
func (c *compiler) compareInstance(x *boundRange, op syntax.BinaryOp, neg bool) string {
	isNull := op == syntax.OpEq
	if !x.r.nullable {
		return c.constBool(!isNull != neg)
	}
	key := c.qualifiedColumn(x.r.alias, x.r.typ.KeyProperties()[0].Column)
	if isNull != neg {
		return key + " IS NULL"
	}
	return key + " IS NOT NULL"
}

// compareWithNull compares l with the null literal: eq and ne test for null, and relational comparisons with
// null are false (null le null is true, as null eq null is).
func (c *compiler) compareWithNull(l boundExpr, op syntax.BinaryOp, neg bool) string {
	if isNullLiteral(l) {
		return c.constBool((op == syntax.OpEq || op == syntax.OpGe || op == syntax.OpLe) != neg)
	}
	v, _ := c.value(l)
	switch op {
	case syntax.OpEq, syntax.OpNe:
		if (op == syntax.OpEq) != neg {
			return v + " IS NULL"
		}
		return v + " IS NOT NULL"
	}
	return c.constBool(neg)
}

// operand is one side of a comparison as SQL: its text, its representation (see value) and whether it can be
// null.
type operand struct {
	sql      string
	scale    int
	nullable bool
}

// compareValues compares two values, neither of them the null literal, with the literal, if any, on the right.
func (c *compiler) compareValues(l, r boundExpr, op syntax.BinaryOp, neg bool) string {
	left := operand{nullable: nullable(l)}
	left.sql, left.scale = c.value(l)
	right := operand{nullable: nullable(r)}
	if literal, ok := r.(*boundLiteral); ok && c.d.ScaledDecimals() && left.scale >= 0 && isExactNumber(literal.v) {
		v, exact := scaleLiteral(literal.v, left.scale, op)
		if !exact && (op == syntax.OpEq || op == syntax.OpNe) {
			// A value with more digits than the column's scale: never equal.
			return c.constBool((op == syntax.OpNe) != neg)
		}
		right.sql, right.scale = c.param(tInt64, v), left.scale
	} else {
		right.sql, right.scale = c.value(r)
	}
	c.alignOperands(l, r, &left, &right, op)
	if left.nullable && right.nullable && (op == syntax.OpEq || op == syntax.OpNe) {
		return "(" + c.d.NullSafeEqual(left.sql, right.sql, (op == syntax.OpEq) != neg) + ")"
	}
	return twoValued(left, right, op, neg)
}

// alignOperands brings the SQL of two compared operands to terms the database compares as OData does: numbers
// to one representation where decimals are scaled, computed strings to the binary collation for ordering.
func (c *compiler) alignOperands(l, r boundExpr, left, right *operand, op syntax.BinaryOp) {
	leftType, rightType := l.typeOf(), r.typeOf()
	if leftType.isNumeric() && rightType.isNumeric() && c.d.ScaledDecimals() {
		left.sql, right.sql = c.align(left.sql, left.scale, right.sql, right.scale, promote(leftType.kind, rightType.kind))
	}
	if op != syntax.OpEq && op != syntax.OpNe && leftType.isString() && !isColumn(l) && !isColumn(r) {
		left.sql = c.d.CollateBinary(left.sql)
	}
}

// twoValued writes T or F of a comparison of which at most one side can be null: null ne x is true, and so is
// the negation of a relational comparison with null.
func twoValued(left, right operand, op syntax.BinaryOp, neg bool) string {
	effective := op
	if neg {
		effective = inverse(op)
	}
	base := left.sql + " " + sqlOps[effective] + " " + right.sql
	if effective == syntax.OpEq || (!neg && effective != syntax.OpNe) {
		return base
	}
	var nulls []string
	if left.nullable {
		nulls = append(nulls, left.sql+" IS NULL")
	}
	if right.nullable {
		nulls = append(nulls, right.sql+" IS NULL")
	}
	if len(nulls) == 0 {
		return base
	}
	return "(" + base + " OR " + strings.Join(nulls, " OR ") + ")"
}

// align brings two numeric SQLite operands to one representation: both exact integers at the same scale when
// they are, else both unscaled (REAL); kind is the promoted kind of the comparison.
func (c *compiler) align(ls string, lrep int, rs string, rrep int, kind edm.Kind) (string, string) {
	if kind == edm.KindDouble || kind == edm.KindSingle || lrep < 0 || rrep < 0 {
		if lrep > 0 {
			ls = c.d.Unscale(ls, lrep)
		}
		if rrep > 0 {
			rs = c.d.Unscale(rs, rrep)
		}
		return ls, rs
	}
	switch {
	case lrep < rrep:
		ls = "(" + ls + " * 1" + strings.Repeat("0", rrep-lrep) + ")"
	case rrep < lrep:
		rs = "(" + rs + " * 1" + strings.Repeat("0", lrep-rrep) + ")"
	}
	return ls, rs
}

func isExactNumber(v any) bool {
	switch v.(type) {
	case int64, decimal.Decimal:
		return true
	}
	return false
}

// scaleLiteral returns v x 10^scale as an int64 for comparing with an exact integer expression at that scale by
// op. When the scaled value is not an integer it is rounded so the comparison stays exact (x > 1.5 is x > 1 for
// integers x; ge and lt round up) and exact is false (no value is equal).
func scaleLiteral(v any, scale int, op syntax.BinaryOp) (scaled int64, exact bool) {
	d, _ := asDecimal(v)
	s := d.Shift(int32(scale))
	exact = s.IsInteger()
	if !exact {
		switch op {
		case syntax.OpGt, syntax.OpLe:
			s = s.Floor()
		case syntax.OpGe, syntax.OpLt:
			s = s.Ceil()
		}
	}
	bi := s.BigInt()
	if !bi.IsInt64() {
		// Beyond int64: compare with the nearest representable bound.
		if bi.Sign() > 0 {
			return maxInt64, exact
		}
		return minInt64, exact
	}
	return bi.Int64(), exact
}

const (
	maxInt64 = int64(^uint64(0) >> 1)
	minInt64 = -maxInt64 - 1
)

func asDecimal(v any) (decimal.Decimal, bool) {
	switch x := v.(type) {
	case int64:
		return decimal.NewFromInt(x), true
	case decimal.Decimal:
		return x, true
	}
	return decimal.Decimal{}, false
}

// navNull tests whether a single-valued navigation has no target (isNull) or has one.
func (c *compiler) navNull(x *boundNavigation, isNull bool) string {
	j := x.nav.Join
	if j.Through == nil && len(x.nav.Constraints()) > 0 {
		parts := make([]string, len(j.SourceColumns))
		for i, col := range j.SourceColumns {
			if isNull {
				parts[i] = c.qualifiedColumn(x.r.alias, col) + " IS NULL"
			} else {
				parts[i] = c.qualifiedColumn(x.r.alias, col) + " IS NOT NULL"
			}
		}
		if isNull {
			return "(" + strings.Join(parts, " OR ") + ")"
		}
		return "(" + strings.Join(parts, " AND ") + ")"
	}
	item := &tableRange{alias: c.newAlias(), typ: x.nav.TargetType()}
	sub := c.subquery("1", &boundCollection{from: x.r, nav: x.nav}, item, "", false)
	if isNull {
		return "NOT EXISTS (" + sub + ")"
	}
	return "EXISTS (" + sub + ")"
}

// subquery is "SELECT what FROM <items of src> WHERE <correlation> [AND where]". needTarget false lets a
// many-to-many navigation read its link table alone.
func (c *compiler) subquery(what string, src *boundCollection, item *tableRange, where string, needTarget bool) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	b.WriteString(what)
	b.WriteString(" FROM ")
	var corr []string
	switch {
	case src.prop != nil:
		ct := src.prop.CollectionTable
		b.WriteString(c.quote(ct.Table) + " AS " + c.quote(item.alias))
		for i, col := range ct.SourceColumns {
			corr = append(corr, c.qualifiedColumn(item.alias, ct.OwnerColumns[i])+" = "+c.qualifiedColumn(src.from.alias, col))
		}
	case src.nav.Join.Through != nil:
		j := src.nav.Join
		link := c.newAlias()
		b.WriteString(c.quote(j.Through.Table) + " AS " + c.quote(link))
		if needTarget || item.hasJoins() {
			b.WriteString(" JOIN " + c.quote(item.typ.Table) + " AS " + c.quote(item.alias) + " ON ")
			on := make([]string, len(j.TargetColumns))
			for i, col := range j.TargetColumns {
				on[i] = c.qualifiedColumn(item.alias, col) + " = " + c.qualifiedColumn(link, j.Through.TargetColumns[i])
			}
			b.WriteString(strings.Join(on, " AND "))
		}
		for i, col := range j.SourceColumns {
			corr = append(corr, c.qualifiedColumn(link, j.Through.SourceColumns[i])+" = "+c.qualifiedColumn(src.from.alias, col))
		}
	default:
		j := src.nav.Join
		b.WriteString(c.quote(item.typ.Table) + " AS " + c.quote(item.alias))
		for i, col := range j.TargetColumns {
			corr = append(corr, c.qualifiedColumn(item.alias, col)+" = "+c.qualifiedColumn(src.from.alias, j.SourceColumns[i]))
		}
	}
	b.WriteString(c.joins(item))
	b.WriteString(" WHERE ")
	b.WriteString(strings.Join(corr, " AND "))
	if where != "" {
		b.WriteString(" AND ")
		b.WriteString(where)
	}
	return b.String()
}

// joins is the LEFT JOINs of the to-one navigations used from r (and from those, recursively).
func (c *compiler) joins(r *tableRange) string {
	if !r.hasJoins() {
		return ""
	}
	var b strings.Builder
	for _, j := range r.joins {
		b.WriteString(c.joinClause(j))
		b.WriteString(c.joins(j))
	}
	return b.String()
}

// joinClause is the LEFT JOIN (two through a link table) of the to-one range j.
func (c *compiler) joinClause(j *tableRange) string {
	nj := j.nav.Join
	from := j.from.alias
	var b strings.Builder
	if nj.Through != nil {
		b.WriteString(" LEFT JOIN " + c.quote(nj.Through.Table) + " AS " + c.quote(j.linkAlias) + " ON ")
		for i, col := range nj.SourceColumns {
			if i > 0 {
				b.WriteString(" AND ")
			}
			b.WriteString(c.qualifiedColumn(j.linkAlias, nj.Through.SourceColumns[i]) + " = " + c.qualifiedColumn(from, col))
		}
		from = j.linkAlias
		b.WriteString(" LEFT JOIN " + c.quote(j.typ.Table) + " AS " + c.quote(j.alias) + " ON ")
		for i, col := range nj.TargetColumns {
			if i > 0 {
				b.WriteString(" AND ")
			}
			b.WriteString(c.qualifiedColumn(j.alias, col) + " = " + c.qualifiedColumn(from, nj.Through.TargetColumns[i]))
		}
		return b.String()
	}
	b.WriteString(" LEFT JOIN " + c.quote(j.typ.Table) + " AS " + c.quote(j.alias) + " ON ")
	for i, col := range nj.TargetColumns {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString(c.qualifiedColumn(j.alias, col) + " = " + c.qualifiedColumn(from, nj.SourceColumns[i]))
	}
	return b.String()
}

func (c *compiler) lambda(x *boundLambda, neg bool) string {
	var body string
	if x.body != nil {
		body = c.condition(x.body, x.all)
	}
	sub := c.subquery("1", x.src, x.item, body, x.body != nil)
	// any: EXISTS a match; all: NOT EXISTS a counterexample.
	if x.all != neg {
		return "NOT EXISTS (" + sub + ")"
	}
	return "EXISTS (" + sub + ")"
}

func (c *compiler) in(x *boundIn, neg bool) string {
	if x.coll != nil {
		eq := c.compare(&boundBinary{t: tBool, op: syntax.OpEq, l: x.x, r: &boundItem{t: propType(x.coll.prop).single(), r: x.item}}, false)
		sub := c.subquery("1", x.coll, x.item, eq, true)
		if neg {
			return "NOT EXISTS (" + sub + ")"
		}
		return "EXISTS (" + sub + ")"
	}
	allLit := true
	hasNull := false
	for _, it := range x.items {
		if !isLiteral(it) {
			allLit = false
		}
		if isNullLiteral(it) {
			hasNull = true
		}
	}
	xs, xrep := c.value(x.x)
	xt := x.x.typeOf()
	if !allLit || (c.d.ScaledDecimals() && xt.isNumeric() && xrep < 0) {
		// Not a plain list of literals: one comparison per item.
		var e boundExpr
		for _, it := range x.items {
			eq := &boundBinary{t: tBool, op: syntax.OpEq, l: x.x, r: it}
			if e == nil {
				e = eq
			} else {
				e = &boundBinary{t: tBool, op: syntax.OpOr, l: e, r: eq}
			}
		}
		return c.condition(e, neg)
	}
	var params []string
	for _, it := range x.items {
		l := it.(*boundLiteral)
		if l.v == nil {
			continue
		}
		if c.d.ScaledDecimals() && xrep >= 0 && isExactNumber(l.v) {
			v, ok := scaleLiteral(l.v, xrep, syntax.OpEq)
			if !ok {
				continue // never equal
			}
			params = append(params, c.param(tInt64, v))
			continue
		}
		params = append(params, c.param(l.t, literalArg(c.d, l.t, l.v)))
	}
	xn := nullable(x.x)
	if len(params) == 0 {
		if hasNull && xn {
			if neg {
				return xs + " IS NOT NULL"
			}
			return xs + " IS NULL"
		}
		return c.constBool(neg)
	}
	list := strings.Join(params, ", ")
	if !neg {
		t := xs + " IN (" + list + ")"
		if hasNull && xn {
			return "(" + t + " OR " + xs + " IS NULL)"
		}
		return t
	}
	f := xs + " NOT IN (" + list + ")"
	switch {
	case !xn:
		return f
	case hasNull:
		return "(" + f + " AND " + xs + " IS NOT NULL)"
	}
	return "(" + f + " OR " + xs + " IS NULL)"
}

func (c *compiler) has(x *boundHas, neg bool) string {
	xs, _ := c.value(x.x)
	p := c.param(tInt64, x.v)
	masked := "(" + xs + " & " + p + ")"
	if !neg {
		return masked + " = " + c.param(tInt64, x.v)
	}
	f := masked + " <> " + c.param(tInt64, x.v)
	if nullable(x.x) {
		return "(" + f + " OR " + xs + " IS NULL)"
	}
	return f
}

func (c *compiler) search(x *boundSearch, neg bool) string {
	pattern := "%" + escapeLike(asciiLower(x.term)) + "%"
	parts := make([]string, len(x.props))
	canBeNull := false
	for i, p := range x.props {
		parts[i] = c.d.Like("lower("+c.columnSQL(x.r, p)+")", c.param(tString, pattern))
		canBeNull = canBeNull || p.Nullable || x.r.nullable
	}
	t := "(" + strings.Join(parts, " OR ") + ")"
	if !neg {
		return t
	}
	return c.negate(t, canBeNull)
}

// stringMatch is T of contains, startswith, endswith and matchesPattern; a non-nil constant when the result does
// not depend on the row (a null argument makes it false).
func (c *compiler) stringMatch(x *boundCall) (string, *bool) {
	if isNullLiteral(x.args[0]) || isNullLiteral(x.args[1]) {
		f := false
		return "", &f
	}
	s, _ := c.value(x.args[0])
	if l, ok := x.args[1].(*boundLiteral); ok && x.fn != "matchespattern" {
		v := escapeLike(l.v.(string))
		switch x.fn {
		case "contains":
			v = "%" + v + "%"
		case "startswith":
			v += "%"
		default:
			v = "%" + v
		}
		return c.d.Like(s, c.param(tString, v)), nil
	}
	a, _ := c.value(x.args[1])
	switch x.fn {
	case "contains":
		return c.d.Position(s, a) + " > 0", nil
	case "startswith":
		return "substr(" + s + ", 1, length(" + a + ")) = " + a, nil
	case "endswith":
		return c.d.EndsWith(s, a), nil
	}
	return c.d.Regexp(s, a), nil
}

// natural is the SQL of a value in its natural form (decimals unscaled).
func (c *compiler) natural(e boundExpr) string {
	s, rep := c.value(e)
	if rep > 0 {
		return c.d.Unscale(s, rep)
	}
	return s
}

// value is the SQL of a value. On a dialect with scaled decimals, rep >= 0 says the SQL value is an exact integer
// equal to the value x 10^rep (integer expressions have rep 0, decimal columns their scale); rep -1 is the natural
// value (REAL for decimals on SQLite). On other dialects rep is -1.
func (c *compiler) value(e boundExpr) (string, int) {
	s, rep := c.translateValue(e)
	return c.limitSize(s), rep
}

// translateValue is value without the size limit.
func (c *compiler) translateValue(e boundExpr) (string, int) {
	scaled := c.d.ScaledDecimals()
	exactRep := func(t boundType, scale int) int {
		if !scaled || t.enum != nil {
			return -1
		}
		switch {
		case numericRank(t.kind) == 1:
			return 0
		case t.kind == edm.KindDecimal:
			return scale
		}
		return -1
	}
	switch x := e.(type) {
	case *boundSlot:
		t := x.t
		if x.rep >= 0 && c.d.ScaledDecimals() {
			t = tInt64
		}
		return c.param(t, slotToken+slot(x.i)), x.rep
	case *boundColumn:
		return c.columnSQL(x.r, x.p), exactRep(x.t, x.p.Scale)
	case *boundItem:
		return c.qualifiedColumn(x.r.alias, x.r.side.CollectionTable.ValueColumn), exactRep(x.t, x.r.side.Scale)
	case *boundLiteral:
		if x.v == nil {
			if x.t.null {
				return "NULL", -1
			}
			return c.d.TypedNull(storedKind(x.t)), -1
		}
		if scaled && x.t.enum == nil {
			switch v := x.v.(type) {
			case int64:
				return c.param(x.t, v), 0
			case decimal.Decimal:
				if exp := -int(v.Exponent()); exp >= 0 && exp <= 18 && v.Coefficient().IsInt64() {
					return c.param(tInt64, v.Coefficient().Int64()), exp
				}
			}
		}
		return c.param(x.t, literalArg(c.d, x.t, x.v)), -1
	case *boundNegation:
		s, rep := c.value(x.x)
		return "(-" + s + ")", rep
	case *boundBinary:
		switch x.op {
		case syntax.OpAdd, syntax.OpSub, syntax.OpMul, syntax.OpDiv, syntax.OpDivBy, syntax.OpMod:
			return c.arith(x)
		}
		return "(" + c.condition(x, false) + ") IS TRUE", -1
	case *boundCall:
		return c.callVal(x)
	case *boundCount:
		var where string
		if x.filter != nil {
			where = c.condition(x.filter, false)
		}
		return "(" + c.subquery("COUNT(*)", x.src, x.item, where, x.filter != nil) + ")", exactRep(tInt64, 0)
	case *boundCase:
		var b strings.Builder
		b.WriteString("CASE")
		for i, w := range x.whens {
			b.WriteString(" WHEN " + c.condition(w, false) + " THEN " + c.natural(x.thens[i]))
		}
		b.WriteString(" END")
		return b.String(), exactRep(x.t, 0)
	}
	return "(" + c.condition(e, false) + ") IS TRUE", -1
}

func (c *compiler) arith(x *boundBinary) (string, int) {
	ls, lrep := c.value(x.l)
	rs, rrep := c.value(x.r)
	k := x.t.kind
	op := map[syntax.BinaryOp]string{syntax.OpAdd: " + ", syntax.OpSub: " - ", syntax.OpMul: " * ",
		syntax.OpDiv: " / ", syntax.OpDivBy: " / ", syntax.OpMod: " % "}[x.op]
	if x.op == syntax.OpDiv || x.op == syntax.OpDivBy || x.op == syntax.OpMod {
		rs = "NULLIF(" + rs + ", 0)"
	}
	if !c.d.ScaledDecimals() {
		if x.op == syntax.OpDivBy && numericRank(x.l.typeOf().kind) == 1 && numericRank(x.r.typeOf().kind) == 1 {
			ls = c.d.Cast(ls, edm.KindDecimal)
		}
		return "(" + ls + op + rs + ")", -1
	}
	switch {
	case x.t.enum == nil && x.t.kind == edm.KindDuration:
		return "(" + ls + op + rs + ")", -1
	case numericRank(k) == 1:
		return "(" + ls + op + rs + ")", 0
	case k == edm.KindDecimal && lrep >= 0 && rrep >= 0:
		switch x.op {
		case syntax.OpAdd, syntax.OpSub, syntax.OpMod:
			ls, rs = c.align(ls, lrep, rs, rrep, k)
			return "(" + ls + op + rs + ")", max(lrep, rrep)
		case syntax.OpMul:
			if lrep+rrep <= 9 {
				return "(" + ls + op + rs + ")", lrep + rrep
			}
		}
	}
	// Floating point (REAL) arithmetic, within filters only.
	if lrep > 0 {
		ls = c.d.Unscale(ls, lrep)
	}
	if rrep > 0 {
		rs = c.d.Unscale(rs, rrep)
	}
	if (x.op == syntax.OpDiv || x.op == syntax.OpDivBy) && lrep == 0 {
		ls = c.d.Cast(ls, edm.KindDouble)
	}
	return "(" + ls + op + rs + ")", -1
}

var dateParts = map[string]sqldb.DatePart{"year": sqldb.Year, "month": sqldb.Month, "day": sqldb.Day, "hour": sqldb.Hour, "minute": sqldb.Minute,
	"second": sqldb.Second, "fractionalseconds": sqldb.FractionalSeconds}

func (c *compiler) callVal(x *boundCall) (string, int) {
	intRep := -1
	if c.d.ScaledDecimals() {
		intRep = 0
	}
	arg := func(i int) string { return c.natural(x.args[i]) }
	switch x.fn {
	case "contains", "startswith", "endswith", "matchespattern":
		t, cnst := c.stringMatch(x)
		if cnst != nil {
			return c.d.BoolValue(*cnst), -1
		}
		return "(" + t + ") IS TRUE", -1
	case "length":
		return "length(" + arg(0) + ")", intRep
	case "indexof":
		return "(" + c.d.Position(arg(0), arg(1)) + " - 1)", intRep
	case "substring":
		if len(x.args) == 3 {
			n := arg(2)
			return "(CASE WHEN " + n + " < 0 THEN NULL ELSE " + c.d.Substring(arg(0), arg(1), n) + " END)", -1
		}
		return c.d.Substring(arg(0), arg(1), ""), -1
	case "tolower":
		// Under the binary collation lower and upper change ASCII letters only, on PostgreSQL too (whose
		// database default collation may fold other letters) as on SQLite.
		return "lower(" + c.d.CollateBinary(arg(0)) + ")", -1
	case "toupper":
		return "upper(" + c.d.CollateBinary(arg(0)) + ")", -1
	case "trim":
		return "trim(" + arg(0) + ")", -1
	case "concat":
		return "(" + arg(0) + " || " + arg(1) + ")", -1
	case "year", "month", "day", "hour", "minute", "second", "fractionalseconds":
		k := x.args[0].typeOf().kind
		if x.args[0].typeOf().null {
			return "NULL", -1
		}
		rep := intRep
		if x.fn == "fractionalseconds" {
			rep = -1
		}
		return c.d.DatePart(dateParts[x.fn], k, arg(0)), rep
	case "totalseconds":
		return "(" + c.d.Cast(arg(0), edm.KindDecimal) + " / 1000000)", -1
	case "date":
		return c.d.DateOf(arg(0)), -1
	case "time":
		return c.d.TimeOf(arg(0)), -1
	case "totaloffsetminutes":
		// Stored in UTC: the offset is always 0.
		if nullable(x.args[0]) {
			return "(CASE WHEN " + arg(0) + " IS NULL THEN NULL ELSE 0 END)", intRep
		}
		return "0", intRep
	case "now":
		return c.d.Now(), -1
	case "round", "floor", "ceiling":
		k := x.t.kind
		if numericRank(k) == 1 {
			s, rep := c.value(x.args[0])
			return s, rep
		}
		a := arg(0)
		switch x.fn {
		case "round":
			return c.d.Round(a, k), -1
		case "floor":
			return c.d.Floor(a, k), -1
		}
		return c.d.Ceiling(a, k), -1
	case "cast":
		rep := -1
		if numericRank(x.to) == 1 {
			rep = intRep
		}
		return c.d.Cast(arg(0), x.to), rep
	}
	return "NULL", -1
}

// compiler holds the state of one compilation: the alias counter and the argument table that SQL fragments
// refer to by marker (see arg).
type compiler struct {
	p       *Planner
	d       sqldb.Dialect
	m       *edm.Model
	n       int
	args    []any
	aliases map[string]syntax.Expr
	options []syntax.Option
	tooBig  bool // some SQL exceeded maxSQL
}

func (c *compiler) newAlias() string {
	c.n++
	return "t" + strconv.Itoa(c.n)
}

// optionSpelt returns the option name as the client spelt it.
func (c *compiler) optionSpelt(canon string) string {
	for _, o := range c.options {
		if o.Name == canon {
			return o.Spelt
		}
	}
	return canon
}

const (
	slotLimit  slot = 1 << 20
	slotOffset slot = slotLimit + 1
	slotToken  slot = slotLimit + 2
)

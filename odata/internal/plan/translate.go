package plan

import (
	"math"
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

// finishStatement is finish for a statement that may hold the request's LIMIT and OFFSET: on a dialect that wants
// them as literals (literalLimits), their markers become places of the statement's literals instead of
// placeholders.
func (c *compiler) finishStatement(s string) sqlStatement {
	if !literalLimits(c.d) {
		sql, args := c.finish(s)
		return sqlStatement{sql: sql, args: args}
	}
	return c.finishMarkers(s, true)
}

// literalLimits reports whether the statements of dialect d take LIMIT and OFFSET as integer literals rather
// than parameters (odata/sqlite: SQLite compiles a statement anew at every run when its LIMIT is a parameter);
// such a dialect numbers its placeholders ? (finishStatement writes them so).
func literalLimits(d sqldb.Dialect) bool {
	l, ok := d.(interface{ LiteralLimits() bool })
	return ok && l.LiteralLimits() && d.Placeholder() == sq.Question
}

// finishQuestionMarks turns the markers of s into ? placeholders and returns the arguments in order: finish
// without the dialect's numbering, for text that assemble completes later.
func (c *compiler) finishQuestionMarks(s string) (string, []any) {
	st := c.finishMarkers(s, false)
	return st.sql, st.args
}

// finishMarkers turns the markers of s into ? placeholders and gives the arguments in order; with limits, the
// markers of the LIMIT and OFFSET slots become places of the statement's literals instead.
func (c *compiler) finishMarkers(s string, limits bool) sqlStatement {
	var st sqlStatement
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			b.WriteString(s)
			break
		}
		j := strings.IndexByte(s[i+1:], 0) + i + 1
		n, _ := strconv.Atoi(s[i+1 : j])
		b.WriteString(s[:i])
		if sl, ok := c.args[n].(slot); limits && ok && (sl == slotLimit || sl == slotOffset) {
			st.literals = append(st.literals, literalSlot{at: b.Len(), s: sl})
		} else {
			b.WriteByte('?')
			st.args = append(st.args, c.args[n])
		}
		s = s[j+1:]
	}
	st.sql = b.String()
	if len(st.literals) > 0 && len(st.literals) <= len(renderedText{}.values) {
		st.rendered = new(renderedTexts)
	}
	return st
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

func (c *compiler) constantCondition(v bool) string {
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
		return c.constantCondition(v != neg)
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
	case *boundTypeTest:
		return c.typeTest(x.r, x.typ, neg)
	case *boundSearch:
		return c.search(x, neg)
	case *boundFullText:
		return c.fullText(x, neg)
	case *boundCall:
		switch x.name {
		case "contains", "startswith", "endswith", "matchespattern":
			t, constant := c.stringMatch(x)
			if constant != nil {
				return c.constantCondition(*constant != neg)
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

var comparisonOperators = map[syntax.BinaryOp]string{syntax.OpEq: "=", syntax.OpNe: "<>", syntax.OpGt: ">",
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
	if isNaN(l) || isNaN(r) {
		// IEEE 754: NaN is unordered and equal to nothing, itself included; only ne is true.
		return c.constantCondition((op == syntax.OpNe) != neg)
	}
	if isNullLiteral(r) {
		return c.compareWithNull(l, op, neg)
	}
	if isLiteral(l) && !isLiteral(r) {
		l, r, op = r, l, flip(op)
	}
	return c.compareValues(l, r, op, neg)
}

// isNaN reports whether e is the literal NaN.
func isNaN(e boundExpr) bool {
	literal, ok := e.(*boundLiteral)
	if !ok {
		return false
	}
	f, ok := literal.v.(float64)
	return ok && math.IsNaN(f)
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
	if x.only != nil {
		// A cast to a derived type is null unless the row is an instance of it.
		return c.typeTest(x.r, x.only, isNull != neg)
	}
	if !x.r.nullable {
		return c.constantCondition(!isNull != neg)
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
		return c.constantCondition((op == syntax.OpEq || op == syntax.OpGe || op == syntax.OpLe) != neg)
	}
	v, _ := c.value(l)
	switch op {
	case syntax.OpEq, syntax.OpNe:
		if (op == syntax.OpEq) != neg {
			return v + " IS NULL"
		}
		return v + " IS NOT NULL"
	}
	return c.constantCondition(neg)
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
	literal, literalRight := r.(*boundLiteral)
	switch {
	case literalRight && left.scale == textScale && isExactNumber(literal.v) && promote(l.typeOf().kind, r.typeOf().kind) == edm.KindDecimal:
		// Decimal text compares with the literal's exact text, under the decimal collation (alignOperands).
		d, _ := asDecimal(literal.v)
		right.sql, right.scale = c.param(typeString, d.String()), textScale
	case literalRight && c.d.ScaledDecimals() && left.scale >= 0 && isExactNumber(literal.v):
		v, adjusted, exact := scaleLiteral(literal.v, left.scale, op)
		if !exact && (op == syntax.OpEq || op == syntax.OpNe) {
			// A value with more digits than the column's scale, or beyond int64: never equal.
			return c.constantCondition((op == syntax.OpNe) != neg)
		}
		op = adjusted
		right.sql, right.scale = c.param(typeInt64, v), left.scale
	default:
		right.sql, right.scale = c.value(r)
	}
	c.alignOperands(l, r, &left, &right, op)
	if left.nullable && right.nullable && (op == syntax.OpEq || op == syntax.OpNe) {
		return "(" + c.d.NullSafeEqual(left.sql, right.sql, (op == syntax.OpEq) != neg) + ")"
	}
	return twoValued(left, right, op, neg)
}

// alignOperands brings the SQL of two compared operands to terms the database compares as OData does: numbers
// to one representation where decimals are scaled (decimal text, compared under the decimal collation, when one
// of them is decimal text and they compare as decimals), computed strings to the binary collation for ordering.
func (c *compiler) alignOperands(l, r boundExpr, left, right *operand, op syntax.BinaryOp) {
	leftType, rightType := l.typeOf(), r.typeOf()
	if leftType.isNumeric() && rightType.isNumeric() && c.d.ScaledDecimals() {
		kind := promote(leftType.kind, rightType.kind)
		if kind == edm.KindDecimal && (left.scale == textScale || right.scale == textScale) {
			left.sql = c.d.CollateDecimal(c.textOf(l, left.sql, left.scale))
			right.sql = c.textOf(r, right.sql, right.scale)
		} else {
			left.sql, right.sql = c.align(left.sql, left.scale, right.sql, right.scale, kind)
		}
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
	base := left.sql + " " + comparisonOperators[effective] + " " + right.sql
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
func (c *compiler) align(leftSQL string, leftScale int, rightSQL string, rightScale int, kind edm.Kind) (string, string) {
	if kind == edm.KindDouble || kind == edm.KindSingle || leftScale < 0 || rightScale < 0 {
		return c.asReal(leftSQL, leftScale), c.asReal(rightSQL, rightScale)
	}
	switch {
	case leftScale < rightScale:
		leftSQL = "(" + leftSQL + " * 1" + strings.Repeat("0", rightScale-leftScale) + ")"
	case rightScale < leftScale:
		rightSQL = "(" + rightSQL + " * 1" + strings.Repeat("0", leftScale-rightScale) + ")"
	}
	return leftSQL, rightSQL
}

func isExactNumber(v any) bool {
	switch v.(type) {
	case int64, decimal.Decimal:
		return true
	}
	return false
}

// scaleLiteral returns v x 10^scale as an int64 for comparing with an exact integer expression at that scale by
// op, and the operator to compare with. When the scaled value is not an integer it is rounded so that the
// comparison stays exact (x > 1.5 is x > 1 for integers x; ge and lt round up). Beyond the range of int64 the
// comparison is made with the bound: x < 2^63 is x <= 2^63-1, true for every value, and x > 2^63 is
// x > 2^63-1, true for none; an Int64 never goes through floating point. exact is false when no integer equals
// v x 10^scale: then eq is false and ne true for every value.
func scaleLiteral(v any, scale int, op syntax.BinaryOp) (scaled int64, adjusted syntax.BinaryOp, exact bool) {
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
	integer := s.BigInt()
	switch {
	case integer.IsInt64():
		return integer.Int64(), op, exact
	case integer.Sign() > 0:
		return maxInt64, aboveEveryValue(op), false
	}
	return minInt64, belowEveryValue(op), false
}

// aboveEveryValue is the operator that compares x with the largest int64 as x op v does for a v above it.
func aboveEveryValue(op syntax.BinaryOp) syntax.BinaryOp {
	switch op {
	case syntax.OpLt, syntax.OpLe:
		return syntax.OpLe // true for every x
	case syntax.OpGt, syntax.OpGe:
		return syntax.OpGt // true for none
	}
	return op
}

// belowEveryValue is the operator that compares x with the smallest int64 as x op v does for a v below it.
func belowEveryValue(op syntax.BinaryOp) syntax.BinaryOp {
	switch op {
	case syntax.OpGt, syntax.OpGe:
		return syntax.OpGe // true for every x
	case syntax.OpLt, syntax.OpLe:
		return syntax.OpLt // true for none
	}
	return op
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
	if j.Through == nil && len(x.nav.Constraints()) > 0 && c.rowFilters[x.nav.TargetType()] == nil {
		parts := make([]string, len(j.SourceColumns))
		for i, column := range j.SourceColumns {
			if isNull {
				parts[i] = c.qualifiedColumn(x.r.alias, column) + " IS NULL"
			} else {
				parts[i] = c.qualifiedColumn(x.r.alias, column) + " IS NOT NULL"
			}
		}
		if isNull {
			return "(" + strings.Join(parts, " OR ") + ")"
		}
		return "(" + strings.Join(parts, " AND ") + ")"
	}
	item := &tableRange{alias: c.newAlias(), typ: x.nav.TargetType()}
	subquery := c.subquery("1", &boundCollection{from: x.r, nav: x.nav}, item, "", false)
	if isNull {
		return "NOT EXISTS (" + subquery + ")"
	}
	return "EXISTS (" + subquery + ")"
}

// subquery is "SELECT what FROM <items of source> WHERE <correlation> [AND where]". needTarget false lets a
// many-to-many navigation read its link table alone.
func (c *compiler) subquery(what string, source *boundCollection, item *tableRange, where string, needTarget bool) string {
	if condition := c.rowFilter(item); condition != "" {
		needTarget = true
		if where != "" {
			where = condition + " AND " + where
		} else {
			where = condition
		}
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	b.WriteString(what)
	b.WriteString(" FROM ")
	var correlation []string
	switch {
	case source.prop != nil:
		collectionTable := source.prop.CollectionTable
		b.WriteString(c.quote(collectionTable.Table) + " AS " + c.quote(item.alias))
		for i, column := range collectionTable.SourceColumns {
			correlation = append(correlation, c.qualifiedColumn(item.alias, collectionTable.OwnerColumns[i])+" = "+c.qualifiedColumn(source.from.alias, column))
		}
	case source.nav.Join.Through != nil:
		j := source.nav.Join
		link := c.newAlias()
		b.WriteString(c.quote(j.Through.Table) + " AS " + c.quote(link))
		if needTarget || item.hasJoins() {
			b.WriteString(" JOIN " + c.quote(item.typ.Table) + " AS " + c.quote(item.alias) + " ON ")
			on := make([]string, len(j.TargetColumns))
			for i, column := range j.TargetColumns {
				on[i] = c.qualifiedColumn(item.alias, column) + " = " + c.qualifiedColumn(link, j.Through.TargetColumns[i])
			}
			b.WriteString(strings.Join(on, " AND "))
		}
		for i, column := range j.SourceColumns {
			correlation = append(correlation, c.qualifiedColumn(link, j.Through.SourceColumns[i])+" = "+c.qualifiedColumn(source.from.alias, column))
		}
	default:
		j := source.nav.Join
		b.WriteString(c.quote(item.typ.Table) + " AS " + c.quote(item.alias))
		for i, column := range j.TargetColumns {
			correlation = append(correlation, c.qualifiedColumn(item.alias, column)+" = "+c.qualifiedColumn(source.from.alias, j.SourceColumns[i]))
		}
	}
	b.WriteString(c.joins(item))
	b.WriteString(" WHERE ")
	b.WriteString(strings.Join(correlation, " AND "))
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
	navigationJoin := j.nav.Join
	from := j.from.alias
	var b strings.Builder
	if navigationJoin.Through != nil {
		b.WriteString(" LEFT JOIN " + c.quote(navigationJoin.Through.Table) + " AS " + c.quote(j.linkAlias) + " ON ")
		for i, column := range navigationJoin.SourceColumns {
			if i > 0 {
				b.WriteString(" AND ")
			}
			b.WriteString(c.qualifiedColumn(j.linkAlias, navigationJoin.Through.SourceColumns[i]) + " = " + c.qualifiedColumn(from, column))
		}
		from = j.linkAlias
		b.WriteString(" LEFT JOIN " + c.quote(j.typ.Table) + " AS " + c.quote(j.alias) + " ON ")
		for i, column := range navigationJoin.TargetColumns {
			if i > 0 {
				b.WriteString(" AND ")
			}
			b.WriteString(c.qualifiedColumn(j.alias, column) + " = " + c.qualifiedColumn(from, navigationJoin.Through.TargetColumns[i]))
		}
		c.joinRowFilter(&b, j)
		return b.String()
	}
	b.WriteString(" LEFT JOIN " + c.quote(j.typ.Table) + " AS " + c.quote(j.alias) + " ON ")
	for i, column := range navigationJoin.TargetColumns {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString(c.qualifiedColumn(j.alias, column) + " = " + c.qualifiedColumn(from, navigationJoin.SourceColumns[i]))
	}
	c.joinRowFilter(&b, j)
	return b.String()
}

// joinRowFilter adds the row filter of j's type to the ON clause of its join, so a hidden target joins as none.
func (c *compiler) joinRowFilter(b *strings.Builder, j *tableRange) {
	if condition := c.rowFilterOfAlias(j.typ, j.alias); condition != "" {
		b.WriteString(" AND " + condition)
	}
}

func (c *compiler) lambda(x *boundLambda, neg bool) string {
	var body string
	if x.body != nil {
		body = c.condition(x.body, x.all)
	}
	subquery := c.subquery("1", x.source, x.item, body, x.body != nil)
	// any: EXISTS a match; all: NOT EXISTS a counterexample.
	if x.all != neg {
		return "NOT EXISTS (" + subquery + ")"
	}
	return "EXISTS (" + subquery + ")"
}

// in writes T or F (with neg) of x in a list or in a collection of primitives.
func (c *compiler) in(x *boundIn, neg bool) string {
	if x.collection != nil {
		return c.inCollection(x, neg)
	}
	allLiterals := true
	for _, item := range x.items {
		allLiterals = allLiterals && isLiteral(item)
	}
	valueSQL, scale := c.value(x.x)
	if scale == textScale && allLiterals && exactNumbersOrNull(x.items) {
		// Decimal text IN the literals' exact texts, under the decimal collation.
		return c.inList(x, c.d.CollateDecimal(valueSQL), scale, neg)
	}
	if !allLiterals || (c.d.ScaledDecimals() && x.x.typeOf().isNumeric() && scale < 0) {
		return c.inComparisons(x, neg)
	}
	return c.inList(x, valueSQL, scale, neg)
}

// exactNumbersOrNull reports whether every item is an integer or decimal literal, or null.
func exactNumbersOrNull(items []boundExpr) bool {
	for _, item := range items {
		if v := item.(*boundLiteral).v; v != nil && !isExactNumber(v) {
			return false
		}
	}
	return true
}

// inCollection is x in a collection of primitives: EXISTS an equal item.
func (c *compiler) inCollection(x *boundIn, neg bool) string {
	equal := c.compare(&boundBinary{t: typeBoolean, op: syntax.OpEq, l: x.x, r: &boundItem{t: propType(x.collection.prop).single(), r: x.item}}, false)
	subquery := c.subquery("1", x.collection, x.item, equal, true)
	if neg {
		return "NOT EXISTS (" + subquery + ")"
	}
	return "EXISTS (" + subquery + ")"
}

// inComparisons is x in a list that is not a plain list of literals: one comparison per item.
func (c *compiler) inComparisons(x *boundIn, neg bool) string {
	var e boundExpr
	for _, item := range x.items {
		equal := &boundBinary{t: typeBoolean, op: syntax.OpEq, l: x.x, r: item}
		if e == nil {
			e = equal
		} else {
			e = &boundBinary{t: typeBoolean, op: syntax.OpOr, l: e, r: equal}
		}
	}
	return c.condition(e, neg)
}

// inList is x IN a list of literals (valueSQL is x with its representation scale; decimal text under the decimal
// collation, with the literals' exact texts): null in the list matches a null x, and a value with more digits
// than x's scale matches nothing.
func (c *compiler) inList(x *boundIn, valueSQL string, scale int, neg bool) string {
	var params []string
	hasNull := false
	for _, item := range x.items {
		literal := item.(*boundLiteral)
		switch {
		case literal.v == nil:
			hasNull = true
		case isNaN(literal):
			// Equal to nothing.
		case scale == textScale:
			d, _ := asDecimal(literal.v)
			params = append(params, c.param(typeString, d.String()))
		case c.d.ScaledDecimals() && scale >= 0 && isExactNumber(literal.v):
			if v, _, exact := scaleLiteral(literal.v, scale, syntax.OpEq); exact {
				params = append(params, c.param(typeInt64, v))
			}
		default:
			params = append(params, c.param(literal.t, literalArg(c.d, literal.t, literal.v)))
		}
	}
	matchesNull := hasNull && nullable(x.x)
	if len(params) == 0 {
		if matchesNull {
			return valueSQL + nullTest(!neg)
		}
		return c.constantCondition(neg)
	}
	list := strings.Join(params, ", ")
	if !neg {
		if matchesNull {
			return "(" + valueSQL + " IN (" + list + ") OR " + valueSQL + " IS NULL)"
		}
		return valueSQL + " IN (" + list + ")"
	}
	notIn := valueSQL + " NOT IN (" + list + ")"
	switch {
	case !nullable(x.x):
		return notIn
	case hasNull:
		return "(" + notIn + " AND " + valueSQL + " IS NOT NULL)"
	}
	return "(" + notIn + " OR " + valueSQL + " IS NULL)"
}

// nullTest is " IS NULL", or " IS NOT NULL" when isNull is false.
func nullTest(isNull bool) string {
	if isNull {
		return " IS NULL"
	}
	return " IS NOT NULL"
}

func (c *compiler) has(x *boundHas, neg bool) string {
	valueSQL, _ := c.value(x.x)
	p := c.param(typeInt64, x.v)
	masked := "(" + valueSQL + " & " + p + ")"
	if !neg {
		return masked + " = " + c.param(typeInt64, x.v)
	}
	f := masked + " <> " + c.param(typeInt64, x.v)
	if nullable(x.x) {
		return "(" + f + " OR " + valueSQL + " IS NULL)"
	}
	return f
}

func (c *compiler) search(x *boundSearch, neg bool) string {
	pattern := "%" + escapeLike(asciiLower(x.term)) + "%"
	parts := make([]string, len(x.props))
	canBeNull := false
	for i, p := range x.props {
		parts[i] = c.d.Like("lower("+c.columnSQL(x.r, p)+")", c.param(typeString, pattern))
		canBeNull = canBeNull || p.Nullable || x.r.nullable
	}
	t := "(" + strings.Join(parts, " OR ") + ")"
	if !neg {
		return t
	}
	return c.negate(t, canBeNull)
}

// fullText is T (or with neg F) of a $search expression the full-text index answers.
func (c *compiler) fullText(x *boundFullText, neg bool) string {
	columns := make([]string, len(x.props))
	for i, p := range x.props {
		columns[i] = c.columnSQL(x.r, p)
	}
	t := c.d.FullText().Match(x.index, x.r.alias, columns, c.param(typeString, x.query))
	if !neg {
		return t
	}
	return c.negate(t, x.r.nullable)
}

// stringMatch is T of contains, startswith, endswith and matchesPattern; a non-nil constant when the result does
// not depend on the row (a null argument makes it false).
func (c *compiler) stringMatch(x *boundCall) (string, *bool) {
	if isNullLiteral(x.args[0]) || isNullLiteral(x.args[1]) {
		f := false
		return "", &f
	}
	s, _ := c.value(x.args[0])
	if l, ok := x.args[1].(*boundLiteral); ok && x.name != "matchespattern" {
		v := escapeLike(l.v.(string))
		switch x.name {
		case "contains":
			v = "%" + v + "%"
		case "startswith":
			v += "%"
		default:
			v = "%" + v
		}
		return c.d.Like(s, c.param(typeString, v)), nil
	}
	a, _ := c.value(x.args[1])
	switch x.name {
	case "contains":
		return c.d.Position(s, a) + " > 0", nil
	case "startswith":
		return "substr(" + s + ", 1, length(" + a + ")) = " + a, nil
	case "endswith":
		return c.d.EndsWith(s, a), nil
	}
	return c.d.Regexp(s, a), nil
}

// natural is the SQL of a value in its natural form (decimals unscaled; decimal text as REAL).
func (c *compiler) natural(e boundExpr) string {
	return c.asReal(c.value(e))
}

// asReal is the natural form of a value of representation scale (see value): an exact integer unscaled, decimal
// text converted to REAL.
func (c *compiler) asReal(s string, scale int) string {
	switch {
	case scale > 0:
		return c.d.Unscale(s, scale)
	case scale == textScale:
		return c.d.Cast(s, edm.KindDouble)
	}
	return s
}

// textOf is e, a numeric value whose SQL is s in representation scale, as decimal text: a literal as the
// parameter of its exact text, an exact integer or a REAL through DecimalOfNumber.
func (c *compiler) textOf(e boundExpr, s string, scale int) string {
	if literal, ok := e.(*boundLiteral); ok && isExactNumber(literal.v) {
		d, _ := asDecimal(literal.v)
		return c.param(typeString, d.String())
	}
	switch {
	case scale == textScale:
		return s
	case scale >= 0:
		return c.d.DecimalFunc(sqldb.DecimalOfNumber, s, strconv.Itoa(scale))
	}
	return c.d.DecimalFunc(sqldb.DecimalOfNumber, s, "0")
}

// value is the SQL of a value and its representation, scale. On a dialect with scaled decimals, scale >= 0 says
// the SQL value is an exact integer equal to the value x 10^scale (integer expressions have scale 0, decimal
// columns their own); scale -1 is the natural value (REAL for decimals on SQLite); textScale is decimal text (a
// Decimal column kept as text, sqldb.TextDecimal, and what is computed from it). On other dialects scale is -1.
func (c *compiler) value(e boundExpr) (string, int) {
	s, scale := c.translateValue(e)
	return c.limitSize(s), scale
}

// translateValue is value without the size limit.
func (c *compiler) translateValue(e boundExpr) (string, int) {
	switch x := e.(type) {
	case *boundSlot:
		return c.slotValue(x)
	case *boundColumn:
		return c.storedValue(c.columnSQL(x.r, x.p), x.p), c.columnScale(x.t, x.p)
	case *boundItem:
		return c.storedValue(c.qualifiedColumn(x.r.alias, x.r.side.CollectionTable.ValueColumn), x.r.side), c.columnScale(x.t, x.r.side)
	case *boundLiteral:
		return c.literalSQL(x)
	case *boundNegation:
		s, scale := c.value(x.x)
		if scale == textScale {
			return c.d.DecimalFunc(sqldb.DecimalNeg, s), scale
		}
		return "(-" + s + ")", scale
	case *boundBinary:
		if isArithmetic(x.op) {
			return c.arith(x)
		}
	case *boundCall:
		return c.callValue(x)
	case *boundCount:
		return c.countValue(x)
	case *boundSQL:
		return x.sql, x.scale
	case *boundCase:
		return c.caseValue(x)
	}
	return "(" + c.condition(e, false) + ") IS TRUE", -1
}

// storedValue is the value of column, the SQL of p's column, in the dialect's own form: a Decimal column that
// stores its values in another way (edm.Property.DecimalStorage) is converted, but decimal text, which the
// translator compares and computes with as it is (textScale); so is a DateTimeOffset or TimeOfDay column that
// does (edm.Property.TimeStorage), so that comparisons, order and the date and time functions see one form.
func (c *compiler) storedValue(column string, p *edm.Property) string {
	switch {
	case (p.Type == edm.KindDateTimeOffset || p.Type == edm.KindTimeOfDay) && !sqldb.NativeTime(p):
		return c.d.TimeValue(column, p.Type, p.TimeStorage)
	case p.Type != edm.KindDecimal || p.SQL != "" || sqldb.NativeDecimal(c.d, p) || sqldb.TextDecimal(c.d, p):
		return column
	}
	return c.d.DecimalValue(column, sqldb.DecimalStorage(c.d, p), p.Scale)
}

// textScale is the representation (see value) of decimal text on a dialect that keeps exact decimals as text
// (sqldb.Dialect.TextDecimals): compared under Dialect.CollateDecimal, computed with Dialect.DecimalFunc.
const textScale = -2

// columnScale is the representation of the values of type t of p's column: decimal text for a Decimal kept as
// text (sqldb.TextDecimal), else exactScale at p's scale.
func (c *compiler) columnScale(t boundType, p *edm.Property) int {
	if t.enum == nil && sqldb.TextDecimal(c.d, p) {
		return textScale
	}
	return c.exactScale(t, p.Scale)
}

// exactScale is the representation of a stored value of type t whose decimals have the given scale: exact for
// integers and decimals where decimals are scaled, natural otherwise.
func (c *compiler) exactScale(t boundType, scale int) int {
	if !c.d.ScaledDecimals() || t.enum != nil {
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

// slotValue is a $skiptoken value, an exact integer when the order-by value it follows is one.
func (c *compiler) slotValue(x *boundSlot) (string, int) {
	t := x.t
	switch {
	case x.scale == textScale:
		t = typeString
	case x.scale >= 0 && c.d.ScaledDecimals():
		t = typeInt64
	}
	return c.param(t, slotToken+slot(x.i)), x.scale
}

// literalSQL is a literal: a typed NULL, or a parameter; integers and decimals exact where decimals are scaled.
func (c *compiler) literalSQL(x *boundLiteral) (string, int) {
	if x.v == nil {
		if x.t.null {
			return "NULL", -1
		}
		return c.d.TypedNull(storedKind(x.t)), -1
	}
	if c.d.ScaledDecimals() && x.t.enum == nil {
		switch v := x.v.(type) {
		case int64:
			return c.param(x.t, v), 0
		case decimal.Decimal:
			if exponent := -int(v.Exponent()); exponent >= 0 && exponent <= 18 && v.Coefficient().IsInt64() {
				return c.param(typeInt64, v.Coefficient().Int64()), exponent
			}
		}
	}
	return c.param(x.t, literalArg(c.d, x.t, x.v)), -1
}

// isArithmetic reports whether op is an arithmetic operator.
func isArithmetic(op syntax.BinaryOp) bool {
	switch op {
	case syntax.OpAdd, syntax.OpSub, syntax.OpMul, syntax.OpDiv, syntax.OpDivBy, syntax.OpMod:
		return true
	}
	return false
}

// countValue is $count of a collection: a correlated COUNT subquery.
func (c *compiler) countValue(x *boundCount) (string, int) {
	var where string
	if x.filter != nil {
		where = c.condition(x.filter, false)
	}
	return "(" + c.subquery("COUNT(*)", x.source, x.item, where, x.filter != nil) + ")", c.exactScale(typeInt64, 0)
}

// caseValue is a case expression; its values are natural.
func (c *compiler) caseValue(x *boundCase) (string, int) {
	var b strings.Builder
	b.WriteString("CASE")
	for i, w := range x.whens {
		b.WriteString(" WHEN " + c.condition(w, false) + " THEN " + c.natural(x.thens[i]))
	}
	b.WriteString(" END")
	return b.String(), c.exactScale(x.t, 0)
}

// decimalFunctions are the exact decimal functions of OData's arithmetic on decimal text.
var decimalFunctions = map[syntax.BinaryOp]sqldb.DecimalFunction{syntax.OpAdd: sqldb.DecimalAdd,
	syntax.OpSub: sqldb.DecimalSub, syntax.OpMul: sqldb.DecimalMul, syntax.OpDiv: sqldb.DecimalDiv,
	syntax.OpDivBy: sqldb.DecimalDiv, syntax.OpMod: sqldb.DecimalMod}

// arithmeticOperators are the SQL operators of OData's arithmetic.
var arithmeticOperators = map[syntax.BinaryOp]string{syntax.OpAdd: " + ", syntax.OpSub: " - ", syntax.OpMul: " * ",
	syntax.OpDiv: " / ", syntax.OpDivBy: " / ", syntax.OpMod: " % "}

// arith is the value of arithmetic. Division by zero is null. Where decimals are scaled, integers and the sum,
// difference, remainder and (at small scales) product of exact decimals stay exact; decimal arithmetic with
// decimal text is exact decimal text (Dialect.DecimalFunc); the rest computes in REAL.
func (c *compiler) arith(x *boundBinary) (string, int) {
	leftSQL, leftScale := c.value(x.l)
	rightSQL, rightScale := c.value(x.r)
	kind := x.t.kind
	if kind == edm.KindDecimal && x.t.enum == nil && (leftScale == textScale || rightScale == textScale) {
		// Exact decimal arithmetic on decimal text; division by zero is null.
		return c.d.DecimalFunc(decimalFunctions[x.op], c.textOf(x.l, leftSQL, leftScale), c.textOf(x.r, rightSQL, rightScale)), textScale
	}
	operator := arithmeticOperators[x.op]
	if x.op == syntax.OpDiv || x.op == syntax.OpDivBy || x.op == syntax.OpMod {
		rightSQL = "NULLIF(" + rightSQL + ", 0)"
	}
	if !c.d.ScaledDecimals() {
		if x.op == syntax.OpDivBy && numericRank(x.l.typeOf().kind) == 1 && numericRank(x.r.typeOf().kind) == 1 {
			leftSQL = c.d.Cast(leftSQL, edm.KindDecimal)
		}
		return "(" + leftSQL + operator + rightSQL + ")", -1
	}
	switch {
	case x.t.enum == nil && kind == edm.KindDuration:
		return "(" + leftSQL + operator + rightSQL + ")", -1
	case numericRank(kind) == 1:
		return "(" + leftSQL + operator + rightSQL + ")", 0
	case kind == edm.KindDecimal && leftScale >= 0 && rightScale >= 0:
		switch x.op {
		case syntax.OpAdd, syntax.OpSub, syntax.OpMod:
			leftSQL, rightSQL = c.align(leftSQL, leftScale, rightSQL, rightScale, kind)
			return "(" + leftSQL + operator + rightSQL + ")", max(leftScale, rightScale)
		case syntax.OpMul:
			if leftScale+rightScale <= 9 {
				return "(" + leftSQL + operator + rightSQL + ")", leftScale + rightScale
			}
		}
	}
	// Floating point (REAL) arithmetic, within filters only.
	leftSQL, rightSQL = c.asReal(leftSQL, leftScale), c.asReal(rightSQL, rightScale)
	if (x.op == syntax.OpDiv || x.op == syntax.OpDivBy) && leftScale == 0 {
		leftSQL = c.d.Cast(leftSQL, edm.KindDouble)
	}
	return "(" + leftSQL + operator + rightSQL + ")", -1
}

// callValue is the SQL of the value of a call of a canonical function, with its representation (see value).
func (c *compiler) callValue(x *boundCall) (string, int) {
	if translate, ok := functionSQL[x.name]; ok {
		return translate(c, x)
	}
	return "NULL", -1
}

// functionTranslation writes the SQL of the value of a call, with its representation (see value).
type functionTranslation func(c *compiler, x *boundCall) (string, int)

// functionSQL holds the translation of each canonical function. init sets it: its translations translate their
// arguments with value, which uses it.
var functionSQL map[string]functionTranslation

func init() {
	functionSQL = map[string]functionTranslation{
		"contains":       stringMatchValue,
		"startswith":     stringMatchValue,
		"endswith":       stringMatchValue,
		"matchespattern": stringMatchValue,
		"length": func(c *compiler, x *boundCall) (string, int) {
			return "length(" + c.natural(x.args[0]) + ")", c.integerScale()
		},
		"indexof": func(c *compiler, x *boundCall) (string, int) {
			return "(" + c.d.Position(c.natural(x.args[0]), c.natural(x.args[1])) + " - 1)", c.integerScale()
		},
		"substring": substringValue,
		// Under the binary collation lower and upper change ASCII letters only, on PostgreSQL too (whose
		// database default collation may fold other letters) as on SQLite.
		"tolower": func(c *compiler, x *boundCall) (string, int) {
			return "lower(" + c.d.CollateBinary(c.natural(x.args[0])) + ")", -1
		},
		"toupper": func(c *compiler, x *boundCall) (string, int) {
			return "upper(" + c.d.CollateBinary(c.natural(x.args[0])) + ")", -1
		},
		"trim": func(c *compiler, x *boundCall) (string, int) { return "trim(" + c.natural(x.args[0]) + ")", -1 },
		"concat": func(c *compiler, x *boundCall) (string, int) {
			return "(" + c.natural(x.args[0]) + " || " + c.natural(x.args[1]) + ")", -1
		},
		"year":              datePartValue(sqldb.Year),
		"month":             datePartValue(sqldb.Month),
		"day":               datePartValue(sqldb.Day),
		"hour":              datePartValue(sqldb.Hour),
		"minute":            datePartValue(sqldb.Minute),
		"second":            datePartValue(sqldb.Second),
		"fractionalseconds": datePartValue(sqldb.FractionalSeconds),
		"totalseconds": func(c *compiler, x *boundCall) (string, int) {
			return "(" + c.d.Cast(c.natural(x.args[0]), edm.KindDecimal) + " / 1000000)", -1
		},
		"date":               func(c *compiler, x *boundCall) (string, int) { return c.d.DateOf(c.natural(x.args[0])), -1 },
		"time":               func(c *compiler, x *boundCall) (string, int) { return c.d.TimeOf(c.natural(x.args[0])), -1 },
		"totaloffsetminutes": totalOffsetMinutesValue,
		"now":                func(c *compiler, _ *boundCall) (string, int) { return c.d.Now(), -1 },
		"round":              roundingValue,
		"floor":              roundingValue,
		"ceiling":            roundingValue,
		"cast":               castValue,
		"narrow":             narrowValue,
		"parse":              parseValue,
	}
}

// parseValue reads a string as a number of kind x.to: the number where the text is a literal of that kind
// (integerText, decimalText) and, for an integer kind, within its range; else null.
func parseValue(c *compiler, x *boundCall) (string, int) {
	s, _ := c.value(x.args[0])
	pattern := decimalText
	if _, ok := integerRanges[x.to]; ok {
		pattern = integerText
	}
	number := c.d.Cast(s, x.to)
	scale := -1
	if r, ok := integerRanges[x.to]; ok {
		// The range is checked on the exact (NUMERIC; REAL on SQLite) value before the integer cast, which
		// would fail or saturate.
		number = "(CASE WHEN " + c.d.Cast(s, edm.KindDecimal) + " BETWEEN " + strconv.FormatInt(r[0], 10) + " AND " +
			strconv.FormatInt(r[1], 10) + " THEN " + number + " END)"
		scale = c.integerScale()
	}
	return "(CASE WHEN " + c.d.Regexp(s, c.param(typeString, pattern)) + " THEN " + number + " END)", scale
}

// narrowValue converts an integer (or an enum's underlying value) to an integer kind that does not hold all its
// values: the value where it fits the kind's range, else null.
func narrowValue(c *compiler, x *boundCall) (string, int) {
	r := integerRanges[x.to]
	v := c.natural(x.args[0])
	return "(CASE WHEN " + v + " BETWEEN " + strconv.FormatInt(r[0], 10) + " AND " + strconv.FormatInt(r[1], 10) +
		" THEN " + v + " END)", c.integerScale()
}

// integerScale is the representation of an integer expression: exact at scale 0 where decimals are scaled.
func (c *compiler) integerScale() int {
	if c.d.ScaledDecimals() {
		return 0
	}
	return -1
}

// stringMatchValue is contains, startswith, endswith or matchesPattern as a Boolean value.
func stringMatchValue(c *compiler, x *boundCall) (string, int) {
	t, constant := c.stringMatch(x)
	if constant != nil {
		return c.d.BoolValue(*constant), -1
	}
	return "(" + t + ") IS TRUE", -1
}

// substringValue is substring; with a length, null when the length is negative.
func substringValue(c *compiler, x *boundCall) (string, int) {
	if len(x.args) == 3 {
		length := c.natural(x.args[2])
		return "(CASE WHEN " + length + " < 0 THEN NULL ELSE " + c.d.Substring(c.natural(x.args[0]), c.natural(x.args[1]), length) + " END)", -1
	}
	return c.d.Substring(c.natural(x.args[0]), c.natural(x.args[1]), ""), -1
}

// datePartValue is the translation of the function that extracts part of a date or time: an integer, but
// fractional seconds.
func datePartValue(part sqldb.DatePart) functionTranslation {
	return func(c *compiler, x *boundCall) (string, int) {
		t := x.args[0].typeOf()
		if t.null {
			return "NULL", -1
		}
		scale := c.integerScale()
		if part == sqldb.FractionalSeconds {
			scale = -1
		}
		return c.d.DatePart(part, t.kind, c.natural(x.args[0])), scale
	}
}

// totalOffsetMinutesValue is totaloffsetminutes: timestamps are stored in UTC, so the offset is always 0.
func totalOffsetMinutesValue(c *compiler, x *boundCall) (string, int) {
	if nullable(x.args[0]) {
		return "(CASE WHEN " + c.natural(x.args[0]) + " IS NULL THEN NULL ELSE 0 END)", c.integerScale()
	}
	return "0", c.integerScale()
}

// roundingValue is round, floor or ceiling; the value itself for an integer.
func roundingValue(c *compiler, x *boundCall) (string, int) {
	kind := x.t.kind
	if numericRank(kind) == 1 {
		return c.value(x.args[0])
	}
	a, scale := c.value(x.args[0])
	if scale == textScale {
		f := map[string]sqldb.DecimalFunction{"round": sqldb.DecimalRound, "floor": sqldb.DecimalFloor, "ceiling": sqldb.DecimalCeiling}[x.name]
		return c.d.DecimalFunc(f, a), textScale
	}
	a = c.asReal(a, scale)
	switch x.name {
	case "round":
		return c.d.Round(a, kind), -1
	case "floor":
		return c.d.Floor(a, kind), -1
	}
	return c.d.Ceiling(a, kind), -1
}

// castValue is a cast to a numeric kind or to String. An integer widened to another integer kind is the same
// value, and so is decimal text cast to Decimal; decimal text cast to String is its text.
func castValue(c *compiler, x *boundCall) (string, int) {
	if widensInteger(x.args[0].typeOf().kind, x.to) {
		return c.value(x.args[0])
	}
	if s, scale := c.value(x.args[0]); scale == textScale {
		switch x.to {
		case edm.KindDecimal:
			return s, scale
		case edm.KindString:
			return c.d.Cast(s, edm.KindString), -1
		}
	}
	scale := -1
	if numericRank(x.to) == 1 {
		scale = c.integerScale()
	}
	return c.d.Cast(c.natural(x.args[0]), x.to), scale
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

	rowFilters     map[*edm.EntityType]syntax.Expr // the request's row filters, parsed (RowFilters)
	inRowFilter    bool                            // binding a row filter: its own ranges are not filtered
	rowFilterError error                           // the first row filter that did not bind
	reading                                        // the read's limits (limits.go)
}

func (c *compiler) newAlias() string {
	c.n++
	return "t" + strconv.Itoa(c.n)
}

// optionSpelt returns the option name as the client spelt it.
func (c *compiler) optionSpelt(canonical string) string {
	for _, o := range c.options {
		if o.Name == canonical {
			return o.Spelt
		}
	}
	return canonical
}

const (
	slotLimit  slot = 1 << 20
	slotOffset slot = slotLimit + 1
	slotToken  slot = slotLimit + 2
)

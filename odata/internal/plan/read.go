package plan

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

// Read is one planned GET: a compiled plan (shared, cached) with this request's key values, $top and
// $skiptoken. Its Projection describes the rows of Select.
type Read struct {
	*Projection
	plan  *plan
	keys  []any
	top   *int64
	token []any // keyset values after the $skiptoken's row; nil on the first page
	mask  uint64
}

// Query returns the parsed options of the read ($top and $skiptoken cleared: use Top and the paging methods).
// It is shared: do not modify it.
func (r *Read) Query() *syntax.Query { return r.plan.query }

// Single reports whether the read addresses one entity (by key, or through a single-valued navigation): then
// Select returns at most one row and there is no paging.
func (r *Read) Single() bool { return r.plan.single }

// Memo returns the value build returned on the first call of Memo for a read of the same compiled plan (the
// same scope shape and query text): a place for what a caller derives from the plan's projections, such as how to
// write its rows, computed once and dropped with the plan when the cache lets it go. build gets the read and
// must not call Memo.
func (r *Read) Memo(build func(*Read) any) any {
	pl := r.plan
	pl.memoOnce.Do(func() { pl.memo = build(r) })
	return pl.memo
}

// Top returns the request's $top, nil when not given.
func (r *Read) Top() *int64 { return r.top }

// Resumed reports whether the request carried a $skiptoken (so $skip no longer applies).
func (r *Read) Resumed() bool { return r.token != nil }

// Select returns the SELECT of one page: ordered by the $orderby items and then the key, resuming strictly after
// the $skiptoken's row, and limited to pageSize+1 rows (fewer when $top says so), so that a page with more than
// pageSize rows means there is a next page: drop the extra row and link to NextQuery. $skip applies to the first
// page only. For a single entity, the query of that entity.
func (r *Read) Select(pageSize int) (string, []any) {
	pl := r.plan
	if pl.single {
		return pl.first.sql, r.fill(pl.first.args, 0)
	}
	limit := int64(max(pageSize, 1)) + 1
	if r.top != nil && *r.top < limit {
		limit = *r.top
	}
	if r.token != nil {
		st := pl.resumeStmt(r.mask)
		return st.sql, r.fill(st.args, limit)
	}
	return pl.first.sql, r.fill(pl.first.args, limit)
}

// Count returns SELECT COUNT(*) of the read's rows (its scope, $filter and $search; not $top or $skip), for
// $count=true and /$count.
func (r *Read) Count() (string, []any) {
	st := r.plan.countStatement()
	return st.sql, r.fill(st.args, 0)
}

func (r *Read) fill(args []any, limit int64) []any {
	out := make([]any, len(args))
	for i, a := range args {
		s, ok := a.(slot)
		if !ok {
			out[i] = a
			continue
		}
		switch {
		case s == slotLimit:
			out[i] = limit
		case s == slotOffset:
			out[i] = r.plan.skip
		case s >= slotToken:
			out[i] = r.token[s-slotToken]
		default:
			out[i] = r.keys[s]
		}
	}
	return out
}

// NextQuery returns the raw query string of the next page's link after the row last (the last row of this page,
// as scanned): the request's options without $skip, the rest of $top, and a $skiptoken.
func (r *Read) NextQuery(last []any, pageSize int) (string, error) {
	tok, err := r.SkipToken(last)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(r.plan.rest)
	if r.top != nil {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString("$top=" + strconv.FormatInt(max(*r.top-int64(pageSize), 0), 10))
	}
	if b.Len() > 0 {
		b.WriteByte('&')
	}
	b.WriteString("$skiptoken=" + tok)
	return b.String(), nil
}

// SkipToken returns the $skiptoken that resumes after the row last (as scanned): base64url (no padding) of a JSON
// array holding a fingerprint of the $orderby, then the row's order-by values and key values.
func (r *Read) SkipToken(last []any) (string, error) {
	pl := r.plan
	if pl.single {
		return "", fmt.Errorf("plan: a single entity has no next page")
	}
	vals := make([]any, 0, len(pl.order)+1)
	vals = append(vals, pl.fp)
	for _, k := range pl.order {
		if k.col >= len(last) {
			return "", fmt.Errorf("plan: row has %d columns, want %d", len(last), len(pl.proj.Columns))
		}
		v, err := tokenValue(k, last[k.col])
		if err != nil {
			return "", err
		}
		vals = append(vals, v)
	}
	js, err := json.Marshal(vals)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(js), nil
}

// scanKey converts the scanned value of an order key to its Go value.
func scanKey(k orderKey, v any) (any, error) {
	if col, ok := k.e.(*bCol); ok {
		return sqldb.Scan(col.p, v)
	}
	t := k.e.btyp()
	p := &edm.Property{Name: "value", Type: t.kind, Enum: t.enum}
	if t.kind == edm.KindDecimal && k.rep > 0 {
		p.Scale = k.rep
	}
	return sqldb.Scan(p, v)
}

func tokenValue(k orderKey, v any) (any, error) {
	g, err := scanKey(k, v)
	if err != nil || g == nil {
		return nil, err
	}
	switch x := g.(type) {
	case decimal.Decimal:
		return x.String(), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64), nil
		}
		return x, nil
	case edm.Date:
		return x.String(), nil
	case edm.TimeOfDay:
		return x.Format(9), nil
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano), nil
	case time.Duration:
		return int64(x / time.Microsecond), nil
	}
	return g, nil
}

func badToken(msg string) error {
	return &Error{Code: CodeInvalidValue, Option: "$skiptoken", Msg: "invalid $skiptoken: " + msg}
}

// decodeSkipToken reads a $skiptoken made by SkipToken for the same query, checking every value against the
// type of its order key.
func (r *Read) decodeSkipToken(tok string) error {
	pl := r.plan
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return badToken("not base64url")
	}
	var vals []json.RawMessage
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&vals); err != nil || dec.More() {
		return badToken("not a JSON array")
	}
	if len(vals) != len(pl.order)+1 {
		return badToken("it belongs to another query")
	}
	var fp uint32
	if err := json.Unmarshal(vals[0], &fp); err != nil || fp != pl.fp {
		return badToken("it belongs to another query")
	}
	r.token = make([]any, len(pl.order))
	for i, k := range pl.order {
		v, err := parseTokenValue(k, vals[i+1])
		if err != nil {
			return badToken(err.Error())
		}
		if v == nil {
			if !k.nullable {
				return badToken("null where no null can be")
			}
			r.mask |= 1 << uint(i)
			continue
		}
		t := k.e.btyp()
		if pl.c.d.ScaledDecimals() && k.rep >= 0 && t.isNumeric() {
			d, _ := asDecimal(v)
			s := d.Shift(int32(k.rep))
			if !s.IsInteger() || !s.BigInt().IsInt64() {
				return badToken("value out of range")
			}
			r.token[i] = s.IntPart()
			continue
		}
		r.token[i] = litArg(pl.c.d, t, v)
	}
	if len(pl.order) > 63 {
		return badToken("too many order-by items")
	}
	return nil
}

func parseTokenValue(k orderKey, raw json.RawMessage) (any, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	t := k.e.btyp()
	var s string
	isString := json.Unmarshal(raw, &s) == nil
	var n json.Number
	isNumber := !isString && json.Unmarshal(raw, &n) == nil
	fail := fmt.Errorf("value %s does not fit %s", raw, t)
	if t.enum != nil {
		if !isNumber {
			return nil, fail
		}
		return n.Int64()
	}
	switch t.kind {
	case edm.KindString, edm.KindGuid:
		if !isString || strings.IndexByte(s, 0) >= 0 { // no column holds NUL (PostgreSQL's text cannot)
			return nil, fail
		}
		return s, nil
	case edm.KindBoolean:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fail
		}
		return b, nil
	case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64:
		if !isNumber {
			return nil, fail
		}
		v, err := n.Int64()
		if err != nil {
			return nil, fail
		}
		return v, nil
	case edm.KindDuration:
		if !isNumber {
			return nil, fail
		}
		v, err := n.Int64()
		if err != nil {
			return nil, fail
		}
		return time.Duration(v) * time.Microsecond, nil
	case edm.KindDecimal:
		if !isString {
			return nil, fail
		}
		return decimal.NewFromString(s)
	case edm.KindDouble, edm.KindSingle:
		if isString {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || !(math.IsNaN(f) || math.IsInf(f, 0)) {
				return nil, fail
			}
			return f, nil
		}
		if !isNumber {
			return nil, fail
		}
		return n.Float64()
	case edm.KindDate:
		if !isString {
			return nil, fail
		}
		return edm.ParseDate(s)
	case edm.KindTimeOfDay:
		if !isString {
			return nil, fail
		}
		return edm.ParseTimeOfDay(s)
	case edm.KindDateTimeOffset:
		if !isString {
			return nil, fail
		}
		return time.Parse(time.RFC3339Nano, s)
	case edm.KindBinary:
		if !isString {
			return nil, fail
		}
		return base64.StdEncoding.DecodeString(s)
	}
	return nil, fail
}

// resumeStmt returns the page SELECT resuming after a row whose order-by values are null where mask has a bit.
// The condition is "strictly after in the total order": for items o1..on (nulls first ascending, last
// descending), (o1 after v1) OR (o1 = v1 AND ((o2 after v2) OR ...)).
func (pl *plan) resumeStmt(mask uint64) *stmt {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if st, ok := pl.resume[mask]; ok {
		return st
	}
	c := pl.c
	n := len(pl.order)
	cmp := func(i int, op syntax.BinaryOp) string {
		k := pl.order[i]
		t := k.e.btyp().withNullable(false)
		return c.compare(&bBin{t: tBool, op: op, l: k.e, r: &bSlot{t: t, i: i, rep: k.rep}}, false)
	}
	var after func(i int) string
	after = func(i int) string {
		k := pl.order[i]
		var strictly, equal string
		if mask&(1<<uint(i)) != 0 {
			sqlExpr, _ := c.val(k.e)
			equal = sqlExpr + " IS NULL"
			if !k.desc {
				strictly = sqlExpr + " IS NOT NULL"
			}
		} else {
			equal = cmp(i, syntax.OpEq)
			if k.desc {
				strictly = cmp(i, syntax.OpLt)
				if k.nullable {
					sqlExpr, _ := c.val(k.e)
					strictly = "(" + strictly + " OR " + sqlExpr + " IS NULL)"
				}
			} else {
				strictly = cmp(i, syntax.OpGt)
			}
		}
		if i == n-1 {
			if strictly == "" {
				return "1 = 0"
			}
			return strictly
		}
		rest := "(" + equal + " AND " + after(i+1) + ")"
		if strictly == "" {
			return rest
		}
		return "(" + strictly + " OR " + rest + ")"
	}
	conds := []string{after(0)}
	// A leading bound on the first item lets an index range scan start at the token's row.
	if k := pl.order[0]; mask&1 == 0 && n > 1 && !(k.desc && k.nullable) {
		op := syntax.OpGe
		if k.desc {
			op = syntax.OpLe
		}
		conds = append([]string{cmp(0, op)}, conds...)
	}
	st := pl.statement(conds, true, false)
	if pl.resume == nil {
		pl.resume = map[uint64]*stmt{}
	}
	pl.resume[mask] = &st
	return &st
}

// bindKeys converts the scope's key predicates of this request.
func (r *Read) bindKeys(s Scope) error {
	pl := r.plan
	if len(pl.keys) == 0 {
		return nil
	}
	r.keys = make([]any, 0, 2*len(pl.keys))
	for _, kp := range pl.keys {
		vals, err := pl.c.p.keyValues(kp.typ, kp.args(s))
		if err != nil {
			return err
		}
		for i, k := range kp.typ.KeyProperties() {
			a, err := sqldb.Arg(pl.c.d, k, vals[i])
			if err != nil {
				return &Error{Code: CodeInvalidValue, Option: "path", Msg: err.Error()}
			}
			r.keys = append(r.keys, a)
		}
	}
	return nil
}

// KeyValues converts a key predicate (the Args of a path segment such as Product('x') or
// OrderItem(OrderId='a',LineNumber=1)) to the Go values of t's key properties, in key order.
func (p *Planner) KeyValues(t *edm.EntityType, key []syntax.Arg) ([]any, error) {
	return p.keyValues(t, key)
}

func (p *Planner) keyValues(t *edm.EntityType, key []syntax.Arg) ([]any, error) {
	props := t.KeyProperties()
	out := make([]any, len(props))
	fail := func(a *syntax.Arg, code, msg string) error {
		e := &Error{Code: code, Option: "path", Msg: msg}
		if a != nil {
			e.Pos = a.Pos + 1
		}
		return e
	}
	if len(key) == 0 {
		return nil, fail(nil, CodeSyntax, "missing key")
	}
	set := make([]bool, len(props))
	for i := range key {
		a := &key[i]
		idx := -1
		switch {
		case a.Name == "" && len(key) == 1 && len(props) == 1:
			idx = 0
		case a.Name == "":
			return nil, fail(a, CodeSyntax, t.Name+" has a composite key: name each key property")
		default:
			for j, kp := range props {
				if kp.Name == a.Name {
					idx = j
				}
			}
			if idx < 0 {
				for j, kp := range props {
					if strings.EqualFold(kp.Name, a.Name) {
						idx = j
					}
				}
			}
			if idx < 0 {
				return nil, fail(a, CodeUnknownProperty, a.Name+" is not a key property of "+t.Name)
			}
		}
		if set[idx] {
			return nil, fail(a, CodeSyntax, "key property "+props[idx].Name+" is given twice")
		}
		set[idx] = true
		lit, ok := a.Value.(*syntax.Literal)
		if !ok {
			return nil, fail(a, CodeNotSupported, "a key value must be a literal")
		}
		lt, lv, lerr := literalValue(p.model, lit)
		if lerr != nil {
			lerr.Option = "path"
			return nil, lerr
		}
		kt := propType(props[idx])
		v, ok := coerce(lv, lt, kt)
		if !ok || v == nil {
			return nil, fail(a, CodeTypeMismatch, fmt.Sprintf("key %s is %s, not %s", props[idx].Name, kt, lit.Kind))
		}
		out[idx] = v
	}
	for j, ok := range set {
		if !ok {
			return nil, fail(nil, CodeSyntax, "missing key property "+props[j].Name)
		}
	}
	return out, nil
}

// LinkKey returns a string that is equal for equal tuples of scanned column values; use it to match the link
// values of expanded children with their parents (and to deduplicate).
func LinkKey(values ...any) string {
	var b strings.Builder
	for i, v := range values {
		if i > 0 {
			b.WriteByte(0)
		}
		switch x := v.(type) {
		case nil:
			b.WriteString("n")
		case string:
			b.WriteString("s")
			b.WriteString(x)
		case []byte:
			b.WriteString("s")
			b.Write(x)
		case int64:
			b.WriteString("i")
			b.WriteString(strconv.FormatInt(x, 10))
		case time.Time:
			b.WriteString("t")
			b.WriteString(x.UTC().Format(time.RFC3339Nano))
		default:
			fmt.Fprintf(&b, "v%v", x)
		}
	}
	return b.String()
}

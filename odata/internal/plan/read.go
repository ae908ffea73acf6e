package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

// Read is one planned GET: a compiled plan (shared, cached) with this request's key values, $top and
// $skiptoken. Its Projection describes the rows of Select.
type Read struct {
	*Projection
	plan  *compiledRead
	keys  []any
	top   *int64
	token []any // keyset values after the $skiptoken's row; nil on the first page
	mask  uint64
	// walk is set by UseMatches when the page walks the order's index.
	walk bool
	// offset is the first row of the page of an aggregated read: $skip, or the $skiptoken's offset.
	offset int64
	// Room for the keys, a key predicate's values and the arguments of the first statement of a read, so
	// that a read by key allocates none of them.
	keyRoom, valueRoom [2]any
	argRoom            [4]any
	argRoomUsed        bool
}

// Aggregation describes the rows of a read whose $apply aggregates, nil for a read of entities: then Select
// and Count read those rows (Columns in order), and NextQuery pages by offset.
func (r *Read) Aggregation() *Aggregation { return r.plan.aggregation }

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
		return r.render(&pl.first, 0)
	}
	limit := int64(max(pageSize, 1)) + 1
	if r.top != nil && *r.top < limit {
		limit = *r.top
	}
	if r.token != nil {
		return r.render(pl.resumeStatement(r.mask, r.walk), limit)
	}
	if r.walk {
		return r.render(pl.walk, limit)
	}
	return r.render(&pl.first, limit)
}

// Matches returns the SELECT of two numbers, the rows the read's full-text search matches and an estimate of
// the rows of the table, when the plan of a page depends on them (then pass them to UseMatches before
// Select; the first equals what Count returns), and "" otherwise.
func (r *Read) Matches() (string, []any) {
	if r.plan.walk == nil {
		return "", nil
	}
	sql, args := r.plan.c.finish(r.plan.matches)
	return sql, args
}

// UseMatches chooses the plan of the page (the first, or one a $skiptoken resumes) from the number of rows the search matches and the table's
// size (read by Matches): a frequent query walks the index of the order and tests each entry against the
// matches, stopping after the page's rows (about (skip+limit) * size / matches entries), a rarer one reads its
// matches and sorts them (matches rows). The walk is chosen when matches * walkRatio exceeds the entries it
// passes, and never for an empty table.
func (r *Read) UseMatches(matches, size int64, pageSize int) {
	if r.plan.walk == nil || matches <= 0 {
		return
	}
	limit := int64(max(pageSize, 1)) + 1
	if r.top != nil && *r.top < limit {
		limit = *r.top
	}
	skip := r.plan.skip
	if r.token != nil {
		skip = 0 // $skip applies to the first page only
	}
	passed := float64(skip+limit) * float64(size) / float64(matches)
	r.walk = float64(matches)*walkRatio > passed
}

// Count returns SELECT COUNT(*) of the read's rows (its scope, $filter and $search; not $top or $skip), for
// $count=true and /$count.
func (r *Read) Count() (string, []any) {
	statement := r.plan.countStatement()
	return statement.sql, r.fill(statement.args, 0)
}

// render returns the SQL of statement and its arguments for this request, LIMIT limit.
func (r *Read) render(statement *sqlStatement, limit int64) (string, []any) {
	args := r.fill(statement.args, limit)
	if len(statement.literals) == 0 {
		return statement.sql, args
	}
	var values [2]int64
	if statement.rendered != nil {
		for i, l := range statement.literals {
			values[i] = r.slotInt(l.s, limit)
		}
		if sql, ok := statement.rendered.find(values); ok {
			return sql, args
		}
	}
	var b strings.Builder
	b.Grow(len(statement.sql) + 20*len(statement.literals))
	var digits [20]byte
	at := 0
	for _, l := range statement.literals {
		b.WriteString(statement.sql[at:l.at])
		b.Write(strconv.AppendInt(digits[:0], r.slotInt(l.s, limit), 10))
		at = l.at
	}
	b.WriteString(statement.sql[at:])
	sql := b.String()
	if statement.rendered != nil {
		statement.rendered.keep(values, sql)
	}
	return sql, args
}

// slotInt is the value of slotLimit or slotOffset for this request, LIMIT limit (as slotValue).
func (r *Read) slotInt(s slot, limit int64) int64 {
	switch {
	case s == slotLimit:
		return limit
	case r.plan.aggregation != nil:
		return r.offset
	default:
		return r.plan.skip
	}
}

func (r *Read) fill(args []any, limit int64) []any {
	var out []any
	if len(args) <= len(r.argRoom) && !r.argRoomUsed {
		out, r.argRoomUsed = r.argRoom[:len(args):len(args)], true
	} else {
		out = make([]any, len(args))
	}
	for i, a := range args {
		if s, ok := a.(slot); ok {
			out[i] = r.slotValue(s, limit)
		} else {
			out[i] = a
		}
	}
	return out
}

// slotValue is the value of slot s for this request, LIMIT limit.
func (r *Read) slotValue(s slot, limit int64) any {
	switch {
	case s == slotLimit || s == slotOffset:
		return r.slotInt(s, limit)
	case s >= slotToken:
		return r.token[s-slotToken]
	default:
		return r.keys[s]
	}
}

// bindKeys converts the scope's key predicates of this request.
func (r *Read) bindKeys(s Scope) error {
	pl := r.plan
	if len(pl.keys) == 0 {
		return nil
	}
	r.keys = r.keyRoom[:0]
	for _, predicate := range pl.keys {
		var values []any
		if n := len(predicate.typ.KeyProperties()); n <= len(r.valueRoom) {
			values = r.valueRoom[:n]
		} else {
			values = make([]any, n)
		}
		if err := pl.c.p.keyValuesTo(values, predicate.typ, predicate.args(s)); err != nil {
			return err
		}
		for i, k := range predicate.typ.KeyProperties() {
			a, err := sqldb.Arg(pl.c.d, k, values[i])
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
	out := make([]any, len(t.KeyProperties()))
	if err := p.keyValuesTo(out, t, key); err != nil {
		return nil, err
	}
	return out, nil
}

// keyValuesTo is keyValues into out, whose length is the number of t's key properties.
func (p *Planner) keyValuesTo(out []any, t *edm.EntityType, key []syntax.Arg) error {
	props := t.KeyProperties()
	fail := func(a *syntax.Arg, code, msg string) error {
		e := &Error{Code: code, Option: "path", Msg: msg}
		if a != nil {
			e.Pos = a.Pos + 1
		}
		return e
	}
	if len(key) == 0 {
		return fail(nil, CodeSyntax, "missing key")
	}
	set := make([]bool, len(props))
	for i := range key {
		a := &key[i]
		index := -1
		switch {
		case a.Name == "" && len(key) == 1 && len(props) == 1:
			index = 0
		case a.Name == "":
			return fail(a, CodeSyntax, t.Name+" has a composite key: name each key property")
		default:
			for j, property := range props {
				if property.Name == a.Name {
					index = j
				}
			}
			if index < 0 {
				for j, property := range props {
					if strings.EqualFold(property.Name, a.Name) {
						index = j
					}
				}
			}
			if index < 0 {
				return fail(a, CodeUnknownProperty, a.Name+" is not a key property of "+t.Name)
			}
		}
		if set[index] {
			return fail(a, CodeSyntax, "key property "+props[index].Name+" is given twice")
		}
		set[index] = true
		literal, ok := a.Value.(*syntax.Literal)
		if !ok {
			return fail(a, CodeNotSupported, "a key value must be a literal")
		}
		valueType, value, literalError := literalValue(p.model, literal)
		if literalError == nil {
			literalError = databaseText(literal)
		}
		if literalError != nil {
			literalError.Option = "path"
			return literalError
		}
		keyType := propType(props[index])
		v, ok := coerce(value, valueType, keyType)
		if !ok || v == nil {
			return fail(a, CodeTypeMismatch, fmt.Sprintf("key %s is %s, not %s", props[index].Name, keyType, literal.Kind))
		}
		out[index] = v
	}
	for j, ok := range set {
		if !ok {
			return fail(nil, CodeSyntax, "missing key property "+props[j].Name)
		}
	}
	return nil
}

// LinkKey returns a string that is equal for equal tuples of scanned column values; use it to match the link
// values of expanded children with their parents (and to deduplicate).
func LinkKey(values ...any) string {
	var buf [64]byte
	return string(AppendLinkKey(buf[:0], values...))
}

// AppendLinkKey appends the LinkKey of values to b: a map keyed by LinkKey is looked up with string(b) without
// allocating.
func AppendLinkKey(b []byte, values ...any) []byte {
	for i, v := range values {
		if i > 0 {
			b = append(b, 0)
		}
		switch x := v.(type) {
		case nil:
			b = append(b, 'n')
		case string:
			b = append(append(b, 's'), x...)
		case []byte:
			b = append(append(b, 's'), x...)
		case int64:
			b = strconv.AppendInt(append(b, 'i'), x, 10)
		case time.Time:
			b = x.UTC().AppendFormat(append(b, 't'), time.RFC3339Nano)
		default:
			b = fmt.Appendf(b, "v%v", x)
		}
	}
	return b
}

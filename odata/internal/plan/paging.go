package plan

import (
	"encoding/base64"
	"encoding/json"
	"errors"
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

// pageOptions holds the options that vary between the pages of one query.
type pageOptions struct {
	top, topSpelt     string // the value of $top, percent-decoded, and its name as sent
	token, tokenSpelt string // the same of $skiptoken
	hasTop, hasToken  bool
	query             string // the query without $top and $skiptoken
}

// splitPageOptions separates the $top and $skiptoken options of a raw query from the rest, which is the cache key.
func splitPageOptions(raw string) (pageOptions, error) {
	page := pageOptions{query: raw}
	if raw == "" {
		return page, nil // a read by key, most often: nothing to split
	}
	q := syntax.SplitQuery(raw)
	top, hasTop, err := q.Lookup("$top")
	if err != nil {
		return page, fromSyntax(err)
	}
	token, hasToken, err := q.Lookup("$skiptoken")
	if err != nil {
		return page, fromSyntax(err)
	}
	page.top, page.topSpelt, page.hasTop = top.Value(), top.Name, hasTop
	page.token, page.tokenSpelt, page.hasToken = token.Value(), token.Name, hasToken
	if hasTop || hasToken {
		page.query = q.Without("$top", "$skiptoken").String()
	}
	return page, nil
}

// restOf is the raw query without $top, $skiptoken and $skip, the base of next links.
func restOf(raw string) string {
	return syntax.SplitQuery(raw).Without("$top", "$skiptoken", "$skip").String()
}

func (page pageOptions) parseTop() (*int64, error) {
	if !page.hasTop {
		return nil, nil
	}
	v := page.top
	bad := v == ""
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			bad = true
		}
	}
	if bad {
		return nil, &Error{Code: CodeSyntax, Option: page.topSpelt, Pos: 1, Msg: "expected a non-negative integer, found " + strconv.Quote(v)}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, &Error{Code: CodeSyntax, Option: page.topSpelt, Pos: 1, Msg: "integer out of range: " + v}
	}
	return &n, nil
}

func (page pageOptions) decodeToken() (string, error) {
	if !page.hasToken {
		return "", nil
	}
	v := page.token
	if v == "" {
		return "", &Error{Code: CodeSyntax, Option: page.tokenSpelt, Pos: 1, Msg: "expected a value, found end of input"}
	}
	return v, nil
}

// NextQuery returns the raw query string of the next page's link after the row last (the last row of this page,
// as scanned): the request's options without $skip, the rest of $top, and a $skiptoken.
func (r *Read) NextQuery(last []any, pageSize int) (string, error) {
	var token string
	var err error
	if r.plan.aggregation != nil {
		token = strconv.FormatInt(r.offset+int64(pageSize), 10)
	} else if token, err = r.SkipToken(last); err != nil {
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
	b.WriteString("$skiptoken=" + token)
	return b.String(), nil
}

// SkipToken returns the $skiptoken that resumes after the row last (as scanned): base64url (no padding) of a JSON
// array holding a fingerprint of the $orderby, then the row's order-by values and key values.
func (r *Read) SkipToken(last []any) (string, error) {
	pl := r.plan
	if pl.single {
		return "", fmt.Errorf("plan: a single entity has no next page")
	}
	values := make([]any, 0, len(pl.order)+1)
	values = append(values, pl.fingerprint)
	for _, k := range pl.order {
		if k.column >= len(last) {
			return "", fmt.Errorf("plan: row has %d columns, want %d", len(last), len(pl.projection.Columns))
		}
		v, err := tokenValue(k, last[k.column])
		if err != nil {
			return "", err
		}
		values = append(values, v)
	}
	encoded, err := json.Marshal(values)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(encoded), nil
}

// scanKey converts the scanned value of an order key to its Go value.
func scanKey(k orderKey, v any) (any, error) {
	if column, ok := k.e.(*boundColumn); ok {
		return sqldb.Scan(column.p, v)
	}
	t := k.e.typeOf()
	p := &edm.Property{Name: "value", Type: t.kind, Enum: t.enum}
	if t.kind == edm.KindDecimal && k.scale > 0 {
		p.Scale = k.scale
	}
	return sqldb.Scan(p, v)
}

func tokenValue(k orderKey, v any) (any, error) {
	scanned, err := scanKey(k, v)
	if err != nil || scanned == nil {
		return nil, err
	}
	switch x := scanned.(type) {
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
	return scanned, nil
}

func badToken(msg string) error {
	return &Error{Code: CodeInvalidValue, Option: "$skiptoken", Msg: "invalid $skiptoken: " + msg}
}

// decodeSkipToken reads a $skiptoken made by SkipToken for the same query, checking every value against the
// type of its order key.
// aggregationOffset sets the offset of an aggregated read's page: the $skiptoken's (the number of rows before
// the page), else $skip.
func (r *Read) aggregationOffset(token string) error {
	r.offset = r.plan.skip
	if token == "" {
		return nil
	}
	n, err := strconv.ParseInt(token, 10, 64)
	if err != nil || n < 0 {
		return badToken("not the offset of a page")
	}
	r.offset = n
	return nil
}

func (r *Read) decodeSkipToken(token string) error {
	pl := r.plan
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return badToken("not base64url")
	}
	var values []json.RawMessage
	decoder := json.NewDecoder(strings.NewReader(string(raw)))
	decoder.UseNumber()
	if err := decoder.Decode(&values); err != nil || decoder.More() {
		return badToken("not a JSON array")
	}
	if len(values) != len(pl.order)+1 {
		return badToken("it belongs to another query")
	}
	var fingerprint uint32
	if err := json.Unmarshal(values[0], &fingerprint); err != nil || fingerprint != pl.fingerprint {
		return badToken("it belongs to another query")
	}
	r.token = make([]any, len(pl.order))
	for i, k := range pl.order {
		v, err := parseTokenValue(k, values[i+1])
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
		t := k.e.typeOf()
		if k.scale == textScale {
			d, _ := asDecimal(v)
			r.token[i] = d.String()
			continue
		}
		if pl.c.d.ScaledDecimals() && k.scale >= 0 && t.isNumeric() {
			d, _ := asDecimal(v)
			s := d.Shift(int32(k.scale))
			if !s.IsInteger() || !s.BigInt().IsInt64() {
				return badToken("value out of range")
			}
			r.token[i] = s.IntPart()
			continue
		}
		r.token[i] = literalArg(pl.c.d, t, v)
	}
	if len(pl.order) > 63 {
		return badToken("too many order-by items")
	}
	return nil
}

// parseTokenValue converts one value of a $skiptoken to the Go value of its order key's type.
func parseTokenValue(k orderKey, raw json.RawMessage) (any, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	t := k.e.typeOf()
	v, err := tokenParserOf(t)(readTokenJSON(raw))
	if err == errDoesNotFit {
		return nil, fmt.Errorf("value %s does not fit %s", raw, t)
	}
	return v, err
}

// tokenParserOf returns the token parser of the values of type t.
func tokenParserOf(t boundType) tokenParser {
	switch {
	case t.enum != nil:
		return parseTokenEnum
	case int(t.kind) < len(tokenParsers) && tokenParsers[t.kind] != nil:
		return tokenParsers[t.kind]
	}
	return func(tokenJSON) (any, error) { return nil, errDoesNotFit }
}

// tokenJSON is one value of a $skiptoken as JSON: a string, a number, or another JSON value.
type tokenJSON struct {
	raw      json.RawMessage
	text     string
	isString bool
	number   json.Number
	isNumber bool
}

func readTokenJSON(raw json.RawMessage) tokenJSON {
	v := tokenJSON{raw: raw}
	v.isString = json.Unmarshal(raw, &v.text) == nil
	v.isNumber = !v.isString && json.Unmarshal(raw, &v.number) == nil
	return v
}

// tokenParser converts a $skiptoken value to the Go value of one kind; errDoesNotFit when it is not one.
type tokenParser func(tokenJSON) (any, error)

var errDoesNotFit = errors.New("the value does not fit its type")

// tokenParsers are the token parsers of the kinds an order key can have, indexed by kind.
var tokenParsers = [...]tokenParser{
	edm.KindString:         parseTokenString,
	edm.KindGuid:           parseTokenString,
	edm.KindBoolean:        parseTokenBoolean,
	edm.KindByte:           parseTokenInteger,
	edm.KindSByte:          parseTokenInteger,
	edm.KindInt16:          parseTokenInteger,
	edm.KindInt32:          parseTokenInteger,
	edm.KindInt64:          parseTokenInteger,
	edm.KindDuration:       parseTokenDuration,
	edm.KindDecimal:        fromTokenString(func(s string) (any, error) { return decimal.NewFromString(s) }),
	edm.KindDouble:         parseTokenFloat,
	edm.KindSingle:         parseTokenFloat,
	edm.KindDate:           fromTokenString(func(s string) (any, error) { return edm.ParseDate(s) }),
	edm.KindTimeOfDay:      fromTokenString(func(s string) (any, error) { return edm.ParseTimeOfDay(s) }),
	edm.KindDateTimeOffset: fromTokenString(func(s string) (any, error) { return time.Parse(time.RFC3339Nano, s) }),
	edm.KindBinary:         fromTokenString(func(s string) (any, error) { return base64.StdEncoding.DecodeString(s) }),
}

// fromTokenString is the token parser of a kind written as a JSON string that parse reads.
func fromTokenString(parse func(string) (any, error)) tokenParser {
	return func(v tokenJSON) (any, error) {
		if !v.isString {
			return nil, errDoesNotFit
		}
		return parse(v.text)
	}
}

// parseTokenString reads a String or a Guid: no column holds NUL (PostgreSQL's text cannot).
func parseTokenString(v tokenJSON) (any, error) {
	if !v.isString || strings.IndexByte(v.text, 0) >= 0 {
		return nil, errDoesNotFit
	}
	return v.text, nil
}

func parseTokenBoolean(v tokenJSON) (any, error) {
	var b bool
	if err := json.Unmarshal(v.raw, &b); err != nil {
		return nil, errDoesNotFit
	}
	return b, nil
}

func parseTokenInteger(v tokenJSON) (any, error) {
	if !v.isNumber {
		return nil, errDoesNotFit
	}
	n, err := v.number.Int64()
	if err != nil {
		return nil, errDoesNotFit
	}
	return n, nil
}

// parseTokenEnum reads the Int64 value of an enumeration member.
func parseTokenEnum(v tokenJSON) (any, error) {
	if !v.isNumber {
		return nil, errDoesNotFit
	}
	return v.number.Int64()
}

// parseTokenDuration reads a duration written in microseconds.
func parseTokenDuration(v tokenJSON) (any, error) {
	n, err := parseTokenInteger(v)
	if err != nil {
		return nil, err
	}
	return time.Duration(n.(int64)) * time.Microsecond, nil
}

// parseTokenFloat reads a Double or a Single: a JSON number, or NaN, INF or -INF as a string.
func parseTokenFloat(v tokenJSON) (any, error) {
	if v.isString {
		f, err := strconv.ParseFloat(v.text, 64)
		if err != nil || !(math.IsNaN(f) || math.IsInf(f, 0)) {
			return nil, errDoesNotFit
		}
		return f, nil
	}
	if !v.isNumber {
		return nil, errDoesNotFit
	}
	return v.number.Float64()
}

// resumeStatement returns the page SELECT resuming after a row whose order-by values are null where mask has a bit.
// The condition is "strictly after in the total order": for items o1..on (nulls first ascending, last
// descending), (o1 after v1) OR (o1 = v1 AND ((o2 after v2) OR ...)).
// With walk, the statement walks the order's index (see walkStatement; only where pl.walk is set).
func (pl *compiledRead) resumeStatement(mask uint64, walk bool) *sqlStatement {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	cache := &pl.resume
	if walk {
		cache = &pl.resumeWalk
	}
	if statement, ok := (*cache)[mask]; ok {
		return statement
	}
	c := pl.c
	n := len(pl.order)
	compareWith := func(i int, op syntax.BinaryOp) string {
		k := pl.order[i]
		t := k.e.typeOf().withNullable(false)
		return c.compare(&boundBinary{t: typeBoolean, op: op, l: k.e, r: &boundSlot{t: t, i: i, scale: k.scale}}, false)
	}
	var after func(i int) string
	after = func(i int) string {
		k := pl.order[i]
		var strictly, equal string
		if mask&(1<<uint(i)) != 0 {
			valueSQL, _ := c.value(k.e)
			equal = valueSQL + " IS NULL"
			if !k.descending {
				strictly = valueSQL + " IS NOT NULL"
			}
		} else {
			equal = compareWith(i, syntax.OpEq)
			if k.descending {
				strictly = compareWith(i, syntax.OpLt)
				if k.nullable {
					valueSQL, _ := c.value(k.e)
					strictly = "(" + strictly + " OR " + valueSQL + " IS NULL)"
				}
			} else {
				strictly = compareWith(i, syntax.OpGt)
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
	if k := pl.order[0]; mask&1 == 0 && n > 1 && !(k.descending && k.nullable) {
		op := syntax.OpGe
		if k.descending {
			op = syntax.OpLe
		}
		conds = append([]string{compareWith(0, op)}, conds...)
	}
	where := pl.where
	if walk {
		pl.where = []string{pl.inOrder}
	}
	statement := pl.statement(conds, true, false)
	pl.where = where
	if *cache == nil {
		*cache = map[uint64]*sqlStatement{}
	}
	(*cache)[mask] = &statement
	return &statement
}

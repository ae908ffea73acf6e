package syntax

import (
	"iter"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Query holds the query options of a request, or the nested options of a $select or $expand item or of a
// /$count. An option that was not given is nil or empty.
type Query struct {
	Filter        Expr
	Search        SearchExpr
	OrderBy       []OrderItem
	Select        []SelectItem
	Expand        []ExpandItem
	Compute       []ComputeItem
	Apply         []Transformation // $apply: the transformations in order
	Temporal      []TemporalOption // $at, $from, $to, $toInclusive (OData Temporal extension)
	Top           *int64
	Skip          *int64
	Count         *bool
	Index         *int64
	Levels        *Levels // nested in $expand only
	SkipToken     string  // percent-decoded, as all string-valued options below
	DeltaToken    string
	Format        string
	SchemaVersion string
	ID            string
	// Aliases maps parameter alias names (without "@") to their values.
	Aliases map[string]Expr
	// Custom holds the custom query options in order.
	Custom []CustomOption
	// Options lists every option as given, in order, for error messages about a value (the binder reports
	// a type error in $filter as "$filter:1:Pos: ...", with Pos from the node plus one).
	Options []Option
}

// Option is one query option as it appeared in the request.
type Option struct {
	Name  string // canonical name: "$filter", "$top", "@p", or a custom option's name
	Spelt string // the name as the client wrote it, percent-decoded ("filter", "$Filter"); errors use it
	Pos   int    // byte offset of the raw value in the text parsed (query string or enclosing option value)
	Raw   string // the value as sent, still percent-encoded, with each '+' read as a space
}

// TemporalOption is an option of the OData Temporal extension: its name ("$at", "$from", "$to",
// "$toInclusive") and its value, a date, a date-time, min, max or another expression.
type TemporalOption struct {
	Name  string
	Value Expr
}

// CustomOption is a custom query option (a name without "$" or "@" that is not a system option).
type CustomOption struct {
	Name  string
	Value string // percent-decoded; empty for an option without "="
}

// Levels is the value of $levels: a positive number or max.
type Levels struct {
	Max bool
	N   int64
}

// OrderItem is one $orderby item.
type OrderItem struct {
	Pos  int
	Expr Expr
	Desc bool
}

// ComputeItem is one $compute item: Expr as Alias.
type ComputeItem struct {
	Pos   int
	Expr  Expr
	Alias string
}

// SelectItem is one $select item. Path holds its segments: property names, type casts ("Model.VipCustomer"),
// annotations ("@Core.Messages"), "*" or "Namespace.*"; a function or action name may carry the names of its
// parameters as one argument list of single-segment paths (Model.Fn(Location,Kind)).
type SelectItem struct {
	Pos     int
	Path    []Segment
	Options *Query // nested options in parentheses; nil without
}

// ExpandItem is one $expand item: a navigation path (possibly with type casts, "*" or "$value"), then /$ref or
// /$count, then nested options.
type ExpandItem struct {
	Pos     int
	Path    []Segment
	Ref     bool
	Count   bool
	Options *Query
}

type optionKind uint8

const (
	optionFilter optionKind = iota + 1
	optionSearch
	optionOrderBy
	optionSkip
	optionTop
	optionCount
	optionSelect
	optionExpand
	optionCompute
	optionLevels
	optionIndex
	optionSkipToken
	optionDeltaToken
	optionFormat
	optionSchemaVersion
	optionID
	optionAlias
	optionApply // data aggregation
	// The options of the Temporal extension, recognized only with their "$": $at, $from, $to, $toInclusive.
	optionAt
	optionFrom
	optionTo
	optionToInclusive
)

// temporalOptions are the options of the OData Temporal extension, system options only when spelt with "$"
// (without it, "from" and "to" stay the application's custom options).
var temporalOptions = map[string]optionKind{"at": optionAt, "from": optionFrom, "to": optionTo, "toinclusive": optionToInclusive}

var systemOptions = map[string]optionKind{
	"filter": optionFilter, "search": optionSearch, "orderby": optionOrderBy, "skip": optionSkip, "top": optionTop,
	"count": optionCount, "select": optionSelect, "expand": optionExpand, "compute": optionCompute,
	"levels": optionLevels, "index": optionIndex, "skiptoken": optionSkipToken, "deltatoken": optionDeltaToken,
	"format": optionFormat, "schemaversion": optionSchemaVersion, "id": optionID, "apply": optionApply,
}

var optionNames = [...]string{
	optionFilter: "$filter", optionSearch: "$search", optionOrderBy: "$orderby", optionSkip: "$skip",
	optionTop: "$top", optionCount: "$count", optionSelect: "$select", optionExpand: "$expand",
	optionCompute: "$compute", optionLevels: "$levels", optionIndex: "$index", optionSkipToken: "$skiptoken",
	optionDeltaToken: "$deltatoken", optionFormat: "$format", optionSchemaVersion: "$schemaversion",
	optionID: "$id", optionApply: "$apply", optionAt: "$at", optionFrom: "$from", optionTo: "$to",
	optionToInclusive: "$toInclusive",
}

type optionSet uint32

func set(kinds ...optionKind) optionSet {
	var s optionSet
	for _, k := range kinds {
		s |= 1 << k
	}
	return s
}

func (s optionSet) has(k optionKind) bool { return s&(1<<k) != 0 }

var (
	topOptions = set(optionFilter, optionSearch, optionOrderBy, optionSkip, optionTop, optionCount, optionSelect,
		optionExpand, optionCompute, optionIndex, optionSkipToken, optionDeltaToken, optionFormat, optionSchemaVersion,
		optionID, optionAlias, optionApply, optionAt, optionFrom, optionTo, optionToInclusive)
	expandOptions = set(optionFilter, optionSearch, optionOrderBy, optionSkip, optionTop, optionCount, optionSelect,
		optionExpand, optionCompute, optionLevels, optionAlias, optionApply, optionAt, optionFrom, optionTo, optionToInclusive)
	expandRefOptions  = set(optionFilter, optionSearch, optionOrderBy, optionSkip, optionTop, optionCount)
	expandStarOptions = set(optionLevels)
	selectOptions     = set(optionFilter, optionSearch, optionOrderBy, optionSkip, optionTop, optionCount, optionCompute,
		optionSelect, optionAlias)
	countOptions = set(optionFilter, optionSearch)
)

// ParseQuery parses a raw query string (without the "?") as clients write it: options separated by "&", a '+'
// read as a space (form encoding) and %XX escapes decoded wherever the grammar allows the character they stand
// for (so "%24expand=Items%28%24top%3D2%3B%24skip%3D1%29" works); names matched case-insensitively with or
// without "$", values parsed by the option's grammar. A system option given twice, an unknown "$" option and any
// syntax error are reported as an *Error naming the option. An empty query is valid.
func ParseQuery(raw string) (*Query, error) {
	q, err := parseQuery(formSpaces(raw), defaultBounds)
	if err != nil {
		return nil, err
	}
	return q, nil
}

// splitQuery yields the offset and text of each non-empty part of a raw query between '&' separators:
// "name=value", still percent-encoded and with every '+' as sent (Unescape decodes both).
func splitQuery(raw string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for start := 0; start <= len(raw); {
			end := strings.IndexByte(raw[start:], '&')
			if end < 0 {
				end = len(raw)
			} else {
				end += start
			}
			part, partStart := raw[start:end], start
			start = end + 1
			if part != "" && !yield(partStart, part) {
				return
			}
		}
	}
}

func parseQuery(raw string, lim *Limits) (*Query, *Error) {
	q := &Query{}
	seen := map[string]bool{}
	for partStart, part := range splitQuery(raw) {
		rawName, value, hasValue := strings.Cut(part, "=")
		valuePos := partStart + len(rawName) + 1
		name := decode(rawName)
		if name == "" {
			return nil, &Error{Pos: 1, Code: CodeSyntax, Msg: "empty query option name at offset " + strconv.Itoa(partStart)}
		}
		if !utf8.ValidString(name) {
			return nil, &Error{Option: strconv.Quote(name), Code: CodeSyntax, Msg: "invalid UTF-8 in option name"}
		}
		if err := q.option(name, value, hasValue, valuePos, 0, topOptions, seen, nesting{limits: lim}); err != nil {
			if err.Option == "" {
				err.Option = name
			}
			return nil, err
		}
	}
	return q, nil
}

// nesting is where options are parsed: the $expand nesting (0 at the top) and the limits.
type nesting struct {
	expand int
	limits *Limits
}

// option parses one option name=value into q. base is the offset of value within the top-level option value
// (0 for top-level options); pos is the offset recorded in q.Options.
func (q *Query) option(name, value string, hasValue bool, pos, base int, allowed optionSet, seen map[string]bool,
	at nesting) *Error {
	kind, err := optionKindOf(name)
	if err != nil {
		return err
	}
	if kind == 0 {
		if allowed != topOptions {
			return &Error{Code: CodeSyntax, Msg: "unknown nested option " + strconv.Quote(name)}
		}
		q.Options = append(q.Options, Option{Name: name, Spelt: name, Pos: pos, Raw: value})
		q.Custom = append(q.Custom, CustomOption{Name: name, Value: decode(value)})
		return nil
	}
	canonical := name
	if kind != optionAlias {
		canonical = optionNames[kind]
	}
	if !allowed.has(kind) {
		return &Error{Code: CodeSyntax, Msg: canonical + " is not allowed here"}
	}
	if seen[lower(canonical)] {
		return &Error{Code: CodeSyntax, Msg: canonical + " must not appear more than once"}
	}
	seen[lower(canonical)] = true
	if !hasValue {
		return syntaxErrorAt(base, "expected \"=\" and a value")
	}
	q.Options = append(q.Options, Option{Name: canonical, Spelt: name, Pos: pos, Raw: value})
	return q.setOption(kind, name, value, base, at)
}

// optionKindOf classifies an option name: a parameter alias, a system option with or without "$"
// (case-insensitive), or 0 for a custom option.
func optionKindOf(name string) (optionKind, *Error) {
	switch {
	case strings.HasPrefix(name, "@"):
		if !isIdentifier(name[1:]) {
			return 0, &Error{Code: CodeSyntax, Msg: "invalid parameter alias name"}
		}
		return optionAlias, nil
	case strings.HasPrefix(name, "$"):
		kind, ok := systemOptions[lower(name[1:])]
		if !ok {
			kind, ok = temporalOptions[lower(name[1:])]
		}
		if !ok {
			return 0, &Error{Code: CodeSyntax, Msg: "unknown query option (system query options start with $ and are those OData defines)"}
		}
		return kind, nil
	}
	return systemOptions[lower(name)], nil
}

// setOption parses the value of an option of the given kind, whose raw text starts at offset base, into q.
func (q *Query) setOption(kind optionKind, name, value string, base int, at nesting) (err *Error) {
	lim := at.limits
	switch kind {
	case optionFilter, optionSearch, optionOrderBy, optionCompute, optionAlias, optionApply:
		if err := checkLength(value, base, lim); err != nil {
			return err
		}
	}
	switch kind {
	case optionFilter:
		q.Filter, err = parseExprValue(value, base, lim)
	case optionSearch:
		q.Search, err = parseSearch(value, base)
	case optionOrderBy:
		q.OrderBy, err = parseOrderBy(value, base, lim)
	case optionCompute:
		q.Compute, err = parseCompute(value, base, lim)
	case optionSelect:
		q.Select, err = parseSelect(value, base, at)
	case optionExpand:
		q.Expand, err = parseExpand(value, base, nesting{expand: at.expand + 1, limits: lim})
	case optionSkip:
		q.Skip, err = parseUint(value, base)
	case optionTop:
		q.Top, err = parseUint(value, base)
	case optionIndex:
		q.Index, err = parseIndex(value, base)
	case optionCount:
		q.Count, err = parseBool(value, base)
	case optionLevels:
		q.Levels, err = parseLevels(value, base)
	case optionSkipToken:
		q.SkipToken, err = parseToken(value, base)
	case optionDeltaToken:
		q.DeltaToken, err = parseToken(value, base)
	case optionID:
		q.ID, err = parseToken(value, base)
	case optionFormat:
		q.Format, err = parseFormat(value, base)
	case optionSchemaVersion:
		q.SchemaVersion, err = parseSchemaVersion(value, base)
	case optionAlias:
		err = q.setAlias(name[1:], value, base, lim)
	case optionApply:
		q.Apply, err = parseApply(value, base, lim)
	case optionAt, optionFrom, optionTo, optionToInclusive:
		var e Expr
		if e, err = parseExprValue(value, base, lim); err == nil {
			q.Temporal = append(q.Temporal, TemporalOption{Name: optionNames[kind], Value: e})
		}
	}
	return err
}

// parseBool parses the value of $count: true or false, case-insensitively.
func parseBool(source string, base int) (*bool, *Error) {
	switch v := decode(source); lower(v) {
	case "true":
		yes := true
		return &yes, nil
	case "false":
		return new(bool), nil
	default:
		return nil, syntaxErrorAt(base, "expected true or false, found "+strconv.Quote(v))
	}
}

// parseToken parses the value of $skiptoken, $deltatoken or $id: any text but none, percent-decoded.
func parseToken(source string, base int) (string, *Error) {
	v := decode(source)
	if v == "" {
		return "", syntaxErrorAt(base, "expected a value, found end of input")
	}
	if i := strings.IndexByte(source, '%'); i >= 0 && !validEscapes(source) {
		return "", syntaxErrorAt(base+i, "invalid percent-encoding")
	}
	return v, nil
}

// setAlias parses the value of the parameter alias @name.
func (q *Query) setAlias(name, value string, base int, lim *Limits) *Error {
	e, err := parseExprValue(value, base, lim)
	if err != nil {
		return err
	}
	if q.Aliases == nil {
		q.Aliases = map[string]Expr{}
	}
	q.Aliases[name] = e
	return nil
}

func isIdentifier(s string) bool {
	if s == "" || !isIdentifierStart(s[0]) || !utf8.ValidString(s) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentifierPart(s[i]) {
			return false
		}
	}
	return true
}

// noLeadingSpace rejects a value that starts with whitespace (the grammar has none before a value). A space
// before a digit is let through: it is the sign of a number ("+1"), as an unencoded "+" reads in a query string.
func noLeadingSpace(source string, base int) *Error {
	c, w := decodeAt(source, 0)
	if w == 0 {
		return syntaxErrorAt(base, "expected expression, found end of input")
	}
	if next, _ := decodeAt(source, w); isSpace(c) && !(c == ' ' && isDigit(next)) {
		return syntaxErrorAt(base, "expected expression, found whitespace")
	}
	return nil
}

// parseExprValue parses an expression option value that starts at offset base.
func parseExprValue(source string, base int, lim *Limits) (Expr, *Error) {
	if err := noLeadingSpace(source, base); err != nil {
		return nil, err
	}
	s := newScanner(source, base, modeExpression)
	g, err := parse(exprParser, s, expectation)
	if err != nil {
		return nil, err
	}
	c := converter{operators: s.operators, source: source, base: base, limits: lim}
	e, err := c.expr(g, 0)
	if err != nil {
		return nil, err
	}
	if err := checkNodes(base, lim, e); err != nil {
		return nil, err
	}
	return e, nil
}

func parseOrderBy(source string, base int, lim *Limits) ([]OrderItem, *Error) {
	if err := noLeadingSpace(source, base); err != nil {
		return nil, err
	}
	s := newScanner(source, base, modeExpression)
	g, err := parse(orderByParser, s, expectation)
	if err != nil {
		return nil, err
	}
	c := converter{operators: s.operators, source: source, base: base, limits: lim}
	out := make([]OrderItem, 0, len(g.Items))
	exprs := make([]Expr, 0, len(g.Items))
	for _, it := range g.Items {
		e, err := c.expr(it.Expr, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, OrderItem{Pos: e.Position(), Expr: e, Desc: it.Direction.Value == "desc"})
		exprs = append(exprs, e)
	}
	if err := checkNodes(base, lim, exprs...); err != nil {
		return nil, err
	}
	return out, nil
}

func parseCompute(source string, base int, lim *Limits) ([]ComputeItem, *Error) {
	if err := noLeadingSpace(source, base); err != nil {
		return nil, err
	}
	s := newScanner(source, base, modeExpression)
	g, err := parse(computeParser, s, expectation)
	if err != nil {
		return nil, err
	}
	c := converter{operators: s.operators, source: source, base: base, limits: lim}
	out := make([]ComputeItem, 0, len(g.Items))
	exprs := make([]Expr, 0, len(g.Items))
	for _, it := range g.Items {
		e, err := c.expr(it.Expr, 0)
		if err != nil {
			return nil, err
		}
		if strings.IndexByte(it.Alias.Value, '.') >= 0 {
			return nil, syntaxErrorAt(it.Alias.Pos.Offset, "expected alias name, found "+describe(it.Alias))
		}
		out = append(out, ComputeItem{Pos: e.Position(), Expr: e, Alias: it.Alias.Value})
		exprs = append(exprs, e)
	}
	if err := checkNodes(base, lim, exprs...); err != nil {
		return nil, err
	}
	return out, nil
}

func parseUint(source string, base int) (*int64, *Error) {
	v := decode(source)
	if v == "" {
		return nil, syntaxErrorAt(base, "expected a non-negative integer, found end of input")
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return nil, syntaxErrorAt(base, "expected a non-negative integer, found "+strconv.Quote(v))
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, syntaxErrorAt(base, "integer out of range: "+v)
	}
	return &n, nil
}

func parseIndex(source string, base int) (*int64, *Error) {
	v := decode(source)
	digits := strings.TrimPrefix(v, "-")
	if digits == "" {
		return nil, syntaxErrorAt(base, "expected an integer, found "+strconv.Quote(v))
	}
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			return nil, syntaxErrorAt(base, "expected an integer, found "+strconv.Quote(v))
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, syntaxErrorAt(base, "integer out of range: "+v)
	}
	return &n, nil
}

func parseLevels(source string, base int) (*Levels, *Error) {
	v := decode(source)
	if lower(v) == "max" {
		return &Levels{Max: true}, nil
	}
	if v == "" || v[0] == '0' {
		return nil, syntaxErrorAt(base, "expected a positive integer or max, found "+strconv.Quote(v))
	}
	n, err := parseUint(source, base)
	if err != nil {
		return nil, syntaxErrorAt(base, "expected a positive integer or max, found "+strconv.Quote(v))
	}
	return &Levels{N: *n}, nil
}

func parseFormat(source string, base int) (string, *Error) {
	v := decode(source)
	switch lower(v) {
	case "json", "atom", "xml":
		return v, nil
	}
	if i := strings.IndexByte(v, '/'); i > 0 && i < len(v)-1 && validEscapes(source) {
		return v, nil
	}
	return "", syntaxErrorAt(base, "expected json, atom, xml or a media type, found "+strconv.Quote(v))
}

// SchemaVersion returns the value of the $schemaversion option of a raw query string (without the "?") and
// whether it has one, finding the option as ParseQuery does: its name in any case, with or without "$",
// percent-encoded or not. The value is "*" or a version as the grammar has it; an invalid value, or the option
// given twice, is reported as an *Error naming the option. The other options are not parsed: a service checks
// the schema version a request is made against before it resolves the request's path and query.
func SchemaVersion(raw string) (string, bool, error) {
	p, found, err := SplitQuery(raw).Lookup("$schemaversion")
	if err != nil || !found {
		return "", found, err
	}
	version, perr := parseSchemaVersion(formSpaces(p.Raw), 0)
	if perr != nil {
		perr.Option = p.Name
		return "", true, perr
	}
	return version, true, nil
}

func parseSchemaVersion(source string, base int) (string, *Error) {
	v := decode(source)
	if v == "*" {
		return v, nil
	}
	if v == "" {
		return "", syntaxErrorAt(base, "expected a schema version, found end of input")
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(isIdentifierPart(c) && c < 0x80 || c == '-' || c == '.' || c == '~') {
			return "", syntaxErrorAt(base, "invalid schema version "+strconv.Quote(v))
		}
	}
	return v, nil
}

// nestedOptions parses the options of a /$count in an expression.
func (c *converter) nestedOptions(b lexer.Token, allowed optionSet) (*Query, *Error) {
	return parseOptions(b.Value, b.Pos.Offset, allowed, nesting{expand: c.expand, limits: c.limits})
}

// parseOptions parses nested options "name=value;name=value" whose raw text starts at offset base. The ";" and
// "=" may arrive percent-encoded (%3B, %3D), as form encoding writes them.
func parseOptions(source string, base int, allowed optionSet, at nesting) (*Query, *Error) {
	q := &Query{}
	seen := map[string]bool{}
	parts, err := splitOptions(source, base)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		text := source[p[0]:p[1]]
		eq, eqWidth := indexDecoded(text, '=')
		if eq < 0 {
			if text == "" {
				return nil, syntaxErrorAt(base+p[0], "expected option, found "+strconv.Quote(";"))
			}
			return nil, syntaxErrorAt(base+p[1], `expected "="`)
		}
		name := decode(text[:eq])
		valuePos := base + p[0] + eq + eqWidth
		if err := q.option(name, text[eq+eqWidth:], true, valuePos, valuePos, allowed, seen, at); err != nil {
			if err.Pos == 0 {
				err.Pos = base + p[0] + 1
			}
			return nil, err
		}
	}
	return q, nil
}

// splitOptions splits nested options at ";" outside parentheses and quotes; it returns the raw start and end
// offsets of each option. A %3B splits there too when another option ("name=") follows it, as form encoding
// writes every ";"; otherwise it is text, such as a ";" inside a $search word (Items($search=a%3Bb)).
func splitOptions(source string, base int) ([][2]int, *Error) {
	var parts [][2]int
	s := newScanner(source, base, modeItems)
	depth, start := 0, 0
	var prev byte // the decoded character before i
	for i := 0; i < len(source); {
		c, w := decodeAt(source, i)
		switch {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ';' && depth == 0 && (w == 1 || startsOption(source, i+w)):
			parts = append(parts, [2]int{start, i})
			start = i + w
		case c == '\'' && isIdentifierPart(prev):
			// A quote inside a word (Daniel's in $search) is not a string delimiter.
		case c == '\'' || c == '"':
			e, err := s.skipQuoted(i, w, c)
			if err != nil {
				return nil, syntaxErrorAt(err.pos, err.msg)
			}
			i, prev = e, c
			continue
		}
		i += w
		prev = c
	}
	return append(parts, [2]int{start, len(source)}), nil
}

// startsOption reports whether the raw text source[i:] starts with an option name and "=": "$top=", "top=",
// "@p=", decoded.
func startsOption(source string, i int) bool {
	if c, w := decodeAt(source, i); c == '$' || c == '@' {
		i += w
	}
	if c, _ := decodeAt(source, i); !isIdentifierStart(c) {
		return false
	}
	for {
		c, w := decodeAt(source, i)
		switch {
		case c == '=':
			return true
		case w == 0 || !isIdentifierPart(c):
			return false
		}
		i += w
	}
}

// String prints the query in canonical form: system options in a fixed order, then aliases sorted by name,
// then custom options, separated by "&".
func (q *Query) String() string {
	var b strings.Builder
	writeOptions(&b, q, '&')
	return b.String()
}

// The single-option parsers below take a raw option value as it arrives in a query string: a '+' is a space
// and %XX escapes are decoded where the grammar allows them, as in ParseQuery.

// ParseFilter parses a raw $filter value.
func ParseFilter(raw string) (Expr, error) { return parseFilter(raw, defaultBounds) }

func parseFilter(raw string, lim *Limits) (Expr, error) {
	e, err := parseExprText(raw, lim)
	if err != nil {
		err.Option = "$filter"
		return nil, err
	}
	return e, nil
}

// parseExprText parses a raw expression of at most the limit's length.
func parseExprText(raw string, lim *Limits) (Expr, *Error) {
	source := formSpaces(raw)
	if err := checkLength(source, 0, lim); err != nil {
		return nil, err
	}
	return parseExprValue(source, 0, lim)
}

// ParseExpr parses a raw expression, such as the value of a parameter alias; errors name no option.
func ParseExpr(raw string) (Expr, error) { return parseExpr(raw, defaultBounds) }

func parseExpr(raw string, lim *Limits) (Expr, error) {
	e, err := parseExprText(raw, lim)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// ParseOrderBy parses a raw $orderby value.
func ParseOrderBy(raw string) ([]OrderItem, error) {
	v, err := parseOrderBy(formSpaces(raw), 0, defaultBounds)
	if err != nil {
		err.Option = "$orderby"
		return nil, err
	}
	return v, nil
}

// ParseSelect parses a raw $select value.
func ParseSelect(raw string) ([]SelectItem, error) {
	v, err := parseSelect(formSpaces(raw), 0, nesting{limits: defaultBounds})
	if err != nil {
		err.Option = "$select"
		return nil, err
	}
	return v, nil
}

// ParseExpand parses a raw $expand value.
func ParseExpand(raw string) ([]ExpandItem, error) {
	v, err := parseExpand(formSpaces(raw), 0, nesting{expand: 1, limits: defaultBounds})
	if err != nil {
		err.Option = "$expand"
		return nil, err
	}
	return v, nil
}

// ParseSearch parses a raw $search value.
func ParseSearch(raw string) (SearchExpr, error) {
	v, err := parseSearch(formSpaces(raw), 0)
	if err != nil {
		err.Option = "$search"
		return nil, err
	}
	return v, nil
}

// ParseCompute parses a raw $compute value.
func ParseCompute(raw string) ([]ComputeItem, error) {
	v, err := parseCompute(formSpaces(raw), 0, defaultBounds)
	if err != nil {
		err.Option = "$compute"
		return nil, err
	}
	return v, nil
}

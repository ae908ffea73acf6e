package plan

import (
	"strconv"

	"github.com/storekit/store/odata/syntax"
)

// Limits bound what one read may ask for: the parser's limits (Query, where a zero field takes the syntax
// default), the largest $top and the number of expanded navigations. Past one, Read answers a LimitExceeded
// *Error naming it.
type Limits struct {
	// Query holds the limits of parsing the query (syntax.Limits); its ExpandDepth and LambdaDepth also bound
	// what the binder builds (a parameter alias can nest a lambda inside another).
	Query syntax.Limits
	// MaxTop is the largest $top, at the top level and in every $expand; 0 for no limit.
	MaxTop int64
	// Expands is the number of navigations one read expands, all levels counted ($expand=* counts each
	// navigation of the type); 0 for no limit.
	Expands int
	// NestedRows is the most rows of one collection that the $apply transformations nest and addnested make
	// (the answer refuses a read whose collection holds more); 0 for no limit.
	NestedRows int
}

// ReadOptions holds what a read depends on besides its scope and query text, all of it part of the plan cache
// key: the request's row filters, the properties it may not read and the limits of its query.
type ReadOptions struct {
	Filters  *RowFilters
	Redacted *Redactions
	Limits   Limits
	// Room, when not nil, is a zero Read that ReadWith makes the read in instead of allocating one: a caller
	// that already holds per-request memory saves an allocation per request.
	Room *Read
}

// reading is what a compiler knows of the read it compiles beyond the query: the properties the request may not
// read, its limits, resolved.
type reading struct {
	redacted    *Redactions
	limits      Limits
	query       syntax.Limits // limits.Query with its defaults
	expandCount int           // navigations expanded so far
}

// newReading returns the reading of a read with opts.
func newReading(opts ReadOptions) reading {
	return reading{redacted: opts.Redacted, limits: opts.Limits, query: opts.Limits.Query.WithDefaults()}
}

// exceeds reports whether n is past limit, where a limit of zero or less is none.
func exceeds[N int | int64](n, limit N) bool { return limit > 0 && n > limit }

// checkTop refuses a $top past the limit; option is the option as spelt, pos the 1-based position of its value.
func (l Limits) checkTop(top *int64, option string, pos int) error {
	if top == nil || !exceeds(*top, l.MaxTop) {
		return nil
	}
	return &Error{Code: CodeLimitExceeded, Option: option, Pos: pos,
		Msg: "$top " + strconv.FormatInt(*top, 10) + " exceeds the limit of " + strconv.FormatInt(l.MaxTop, 10)}
}

// countExpands counts n more expanded navigations of the read and refuses them past the limit; option and pos
// locate the $expand item.
func (c *compiler) countExpands(n int, option string, pos int) error {
	c.expandCount += n
	if !exceeds(c.expandCount, c.limits.Expands) {
		return nil
	}
	return &Error{Code: CodeLimitExceeded, Option: option, Pos: pos,
		Msg: "the query expands more than the limit of " + strconv.Itoa(c.limits.Expands) + " navigation properties"}
}

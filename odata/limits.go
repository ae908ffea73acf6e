package odata

import (
	"fmt"
	"math"

	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/syntax"
)

// Limits bound what one request may ask of a service, so that no client makes it do unbounded work. The zero
// value is SPEC part 9: a zero field takes its default, and a negative one means no limit (PageSize and
// MaxPageSize excepted, which must be positive). Past a limit a request is refused, before any SQL runs, with
// the status of the error table (ErrorStatus) and a message that names the limit: 400 LimitExceeded, or 413
// PayloadTooLarge for a body. An entity set may have limits of its own (SetOptions.Limits). The time a request
// may take is Config.TimeBudget.
type Limits struct {
	// PageSize is the number of entities in one page of a collection: DefaultPageSize by default. A client may
	// ask for more or fewer with Prefer: odata.maxpagesize=N, up to MaxPageSize.
	PageSize int
	// MaxPageSize is the largest page a client may ask for: DefaultMaxPageSize by default. It also bounds the
	// rows of each collection the $apply transformations nest and addnested make: a read whose collection
	// holds more is a 400 LimitExceeded.
	MaxPageSize int
	// MaxTop is the largest $top, at the top level and in $expand: none by default ($top beyond the page size
	// is served across pages, its next links carrying what is left of it).
	MaxTop int64
	// ExpandDepth is the deepest nesting of $expand: syntax.DefaultExpandDepth by default.
	ExpandDepth int
	// Expands is the number of navigation properties one request expands, all levels counted ($expand=*
	// counts each navigation of the type), each one query per page: DefaultExpands by default.
	Expands int
	// ExpressionNodes is the number of nodes (operands, operators, calls, list items) of one expression: a
	// $filter, a parameter alias, all the items of an $orderby, each nested option on its own:
	// syntax.DefaultExpressionNodes by default.
	ExpressionNodes int
	// ExpressionLength is the number of bytes of the raw value of one $filter, $orderby, $search, $compute,
	// $apply or parameter alias, each nested option on its own: syntax.DefaultExpressionLength by default.
	ExpressionLength int
	// InListItems is the number of items of the list after in: syntax.DefaultInListItems by default.
	InListItems int
	// LambdaDepth is the deepest nesting of any/all: syntax.DefaultLambdaDepth by default.
	LambdaDepth int
	// Lambdas is the number of any/all in one expression: syntax.DefaultLambdas by default.
	Lambdas int
	// LiteralLength is the number of characters of one literal (a string's text without its quotes):
	// syntax.DefaultLiteralLength by default.
	LiteralLength int
	// PatternSize is the size of a matchesPattern pattern in instructions of its compiled program (Go's
	// regexp/syntax): syntax.DefaultPatternSize by default.
	PatternSize int
	// ApplyTransformations is the number of transformations of one $apply, nested sequences included:
	// syntax.DefaultApplyTransformations by default.
	ApplyTransformations int
	// BodyBytes is the largest body of a write or an action: DefaultBodyBytes by default. A body past it is a
	// 413, refused before it is read when its Content-Length says so. (A server may set a lower limit of its
	// own, with http.MaxBytesReader; past that one it is a 413 too.)
	BodyBytes int64
	// MediaBytes is the largest body of a media entity's bytes (PUT Set(key)/$value, or a POST to its set that
	// is not JSON): DefaultMediaBytes by default.
	MediaBytes int64
	// BatchRequests is the number of requests in one $batch, counting those in change sets and atomicity
	// groups: DefaultBatchRequests by default. Past it the whole batch is a 400.
	BatchRequests int
	// BatchBytes is the largest $batch body: DefaultBatchBytes by default; past it the batch is a 413. Each
	// request inside is held to the BodyBytes of what it addresses too.
	BatchBytes int64
}

// SetLimits are the limits of requests to one entity set that differ from the service's (Limits): those of
// reads whose entities belong to the set (Set, Set(key), and navigations to it), and of writes and actions
// addressed to it. A zero field takes the service's value; a negative MaxTop, ExpandDepth, BodyBytes or
// MediaBytes means no limit.
type SetLimits struct {
	// PageSize is the number of entities in one page of the set's collections.
	PageSize int
	// MaxPageSize is the largest page a client may ask for with Prefer: odata.maxpagesize.
	MaxPageSize int
	// MaxTop is the largest $top.
	MaxTop int64
	// ExpandDepth is the deepest nesting of $expand.
	ExpandDepth int
	// BodyBytes is the largest body of a write or action, such as more for a set of pictures.
	BodyBytes int64
	// MediaBytes is the largest body of a media entity's bytes.
	MediaBytes int64
}

// The defaults of the fields of Limits that bound the engine's own work, one each: the value a zero field
// stands for (SPEC part 9's where it names one). Those of the parser's (ExpandDepth, ExpressionNodes,
// ExpressionLength, InListItems, LambdaDepth, Lambdas, LiteralLength, PatternSize, ApplyTransformations) are
// the Default* constants of odata/syntax, whose Limits has the same fields.
const (
	// DefaultPageSize is the default of Limits.PageSize.
	DefaultPageSize = 100
	// DefaultMaxPageSize is the default of Limits.MaxPageSize.
	DefaultMaxPageSize = 1000
	// DefaultExpands is the default of Limits.Expands.
	DefaultExpands = 32
	// DefaultBodyBytes is the default of Limits.BodyBytes: 1 MiB.
	DefaultBodyBytes = 1 << 20
	// DefaultMediaBytes is the default of Limits.MediaBytes: 16 MiB, as for a batch.
	DefaultMediaBytes = 16 << 20
	// DefaultBatchRequests is the default of Limits.BatchRequests.
	DefaultBatchRequests = 100
	// DefaultBatchBytes is the default of Limits.BatchBytes: 16 MiB.
	DefaultBatchBytes = 16 << 20
)

// requestLimits are the limits of the requests to one entity set, or to the service, defaults applied: no
// limit is the largest value.
type requestLimits struct {
	pageSize, maxPageSize int
	read                  plan.Limits // the limits of the planner (and its parser)
	bodyBytes, mediaBytes int64
}

// serviceLimits resolves the limits of cfg.Limits; fail reports those that contradict each other.
func serviceLimits(l Limits, fail func(format string, args ...any)) (requestLimits, int, int64) {
	out := requestLimits{pageSize: orDefault(l.PageSize, DefaultPageSize), maxPageSize: orDefault(l.MaxPageSize, DefaultMaxPageSize)}
	if out.pageSize < 1 || out.maxPageSize < out.pageSize {
		fail("Limits.PageSize %d and MaxPageSize %d: want 1 <= PageSize <= MaxPageSize", out.pageSize, out.maxPageSize)
	}
	out.read = plan.Limits{
		Query: syntax.Limits{ExpandDepth: l.ExpandDepth, LambdaDepth: l.LambdaDepth, Lambdas: l.Lambdas,
			LiteralLength: l.LiteralLength, PatternSize: l.PatternSize, InListItems: l.InListItems,
			ExpressionNodes: l.ExpressionNodes, ExpressionLength: l.ExpressionLength,
			ApplyTransformations: l.ApplyTransformations}.WithDefaults(),
		MaxTop:  max(l.MaxTop, 0),
		Expands: max(orDefault(l.Expands, DefaultExpands), 0),
	}
	out.read.NestedRows = out.maxPageSize
	out.bodyBytes = bytesLimit(l.BodyBytes, DefaultBodyBytes)
	out.mediaBytes = bytesLimit(l.MediaBytes, DefaultMediaBytes)
	batchRequests := orDefault(l.BatchRequests, DefaultBatchRequests)
	if batchRequests < 0 {
		batchRequests = math.MaxInt
	}
	return out, batchRequests, bytesLimit(l.BatchBytes, DefaultBatchBytes)
}

// forSet returns the limits of a set with the overrides of l; fail reports those that contradict each other.
func (r requestLimits) forSet(l SetLimits, fail func(format string, args ...any)) requestLimits {
	r.pageSize = orDefault(l.PageSize, r.pageSize)
	r.maxPageSize = orDefault(l.MaxPageSize, r.maxPageSize)
	r.read.NestedRows = r.maxPageSize
	if l.PageSize != 0 || l.MaxPageSize != 0 {
		if r.pageSize < 1 || r.maxPageSize < r.pageSize {
			fail("Limits.PageSize %d and MaxPageSize %d: want 1 <= PageSize <= MaxPageSize", r.pageSize, r.maxPageSize)
		}
	}
	if l.MaxTop != 0 {
		r.read.MaxTop = max(l.MaxTop, 0)
	}
	r.read.Query.ExpandDepth = orDefault(l.ExpandDepth, r.read.Query.ExpandDepth)
	if l.BodyBytes != 0 {
		r.bodyBytes = bytesLimit(l.BodyBytes, 0)
	}
	if l.MediaBytes != 0 {
		r.mediaBytes = bytesLimit(l.MediaBytes, 0)
	}
	return r
}

// limitsOf returns the limits of a request to t: those of the entity set it addresses or whose entities it
// reads, else the service's.
func (s *Service) limitsOf(t *target) *requestLimits {
	if t != nil {
		es := t.set
		if es == nil {
			es = t.ctxSet
		}
		if config := s.sets[es]; config != nil {
			return &config.limits
		}
	}
	return &s.limits
}

// orDefault returns v, or def when v is zero.
func orDefault[N int | int64](v, def N) N {
	if v == 0 {
		return def
	}
	return v
}

// bytesLimit returns a size limit: v, def when v is zero, no limit (the largest int64) when v is negative.
func bytesLimit(v, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return math.MaxInt64
	}
	return v
}

// sizeText writes a size limit in bytes, with its size in MiB or KiB when it is a whole number of them:
// "16777216 bytes (16 MiB)".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d bytes (%d MiB)", n, n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d bytes (%d KiB)", n, n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// bodyTooLarge is the answer to a request body past its limit.
func bodyTooLarge(what string, limit int64, cause error) *Error {
	return &Error{Code: CodePayloadTooLarge, Err: cause,
		Message: fmt.Sprintf("The %s exceeds the limit of %s.", what, sizeText(limit))}
}

package plan

import (
	"strconv"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

// Planner compiles the reads of an OData service (one model, one dialect) into SQL and caches the compiled
// plans. It is safe for concurrent use.
//
// A GET is planned in one call, Read, which parses the query string only when the plan is not cached yet:
//
//	r, err := planner.Read(plan.Scope{Set: set}, rawQuery) // *Error on a bad query
//	sql, args := r.Select(pageSize)                        // the page: up to pageSize+1 rows
//	// scan rows into []any of len(r.Columns); convert with sqldb.Scan(col.Path[last], v)
//	// more rows than pageSize: next, _ := r.NextQuery(rows[pageSize-1], pageSize)
//	sql, args = r.Count()                                  // for $count=true and /$count
//	// per $expand: r.Expands[i].Select(links) with the page's link values, see Expand
type Planner struct {
	model    *edm.Model
	dialect  sqldb.Dialect
	cache    *lru
	fold     map[*edm.EntityType]bool
	inline   bool                                   // collections of primitives as aggregated columns
	names    *modelsql.Names                        // the model's identifiers and the planner's aliases, quoted
	defaults map[*edm.EntityType]*defaultProjection // default projections of the entity types read at the top level
	search   map[*edm.EntityType]string             // the full-text indexes of entity types (Options.SearchIndexes)
}

// defaultProjection is the default projection of an entity type at the top level (alias t0), computed once.
type defaultProjection struct {
	projection Projection
	selectList []string
}

// Options configures a Planner.
type Options struct {
	// CacheSize is how many compiled plans are kept (least recently used first out); 0 means 1024 and a
	// negative value disables the cache.
	CacheSize int
	// CaseInsensitiveKeys names entity types whose single String key matches ignoring case (lower() on both
	// sides), such as a customer addressed by e-mail.
	CaseInsensitiveKeys []string
	// InlineCollections reads a selected collection of primitive values in the row of its owner: a column that
	// holds the items as the text of a JSON array in item order (Dialect.ArrayAgg; NULL or '[]' without items;
	// Binary items as hex), whose Column.Path is the collection property. A page is then one statement and its
	// rows can be written as they arrive. Without it, each collection is a query per page (Projection.Collections).
	InlineCollections bool
	// SearchIndexes names, by entity type name, the full-text index (sqldb.FullText, made by odata/schema) of
	// the type's searchable properties that $search uses; a type without one is searched by scanning them.
	SearchIndexes map[string]string
}

// NewPlanner returns a planner for the built model m and dialect d.
func NewPlanner(m *edm.Model, d sqldb.Dialect, opt Options) *Planner {
	size := opt.CacheSize
	if size == 0 {
		size = 1024
	}
	p := &Planner{model: m, dialect: d, fold: map[*edm.EntityType]bool{}, inline: opt.InlineCollections}
	if size > 0 {
		p.cache = newLRU(size)
	}
	p.search = map[*edm.EntityType]string{}
	for name, index := range opt.SearchIndexes {
		if t := m.EntityType(name); t != nil {
			p.search[t] = index
		}
	}
	for _, name := range opt.CaseInsensitiveKeys {
		if t := m.EntityType(name); t != nil {
			p.fold[t] = true
		}
	}
	p.names = modelsql.NewNames(d, m, plannerAliases()...)
	p.defaults = map[*edm.EntityType]*defaultProjection{}
	for _, t := range m.EntityTypes {
		c := &compiler{p: p, d: d, m: m}
		lv := &level{c: c, r: &tableRange{alias: "t0", typ: t}}
		if err := lv.project(&syntax.Query{}, "", "", 0); err == nil {
			p.defaults[t] = &defaultProjection{projection: *lv.projection, selectList: lv.selectList}
		}
	}
	return p
}

// plannerAliases are the table aliases the planner's SQL uses, quoted once with the model's names.
func plannerAliases() []string {
	aliases := make([]string, 0, 3+3*64)
	aliases = append(aliases, "s", "w", "rn")
	for i := 0; i < 64; i++ {
		n := strconv.Itoa(i)
		aliases = append(aliases, "t"+n, "l"+n, "c"+n)
	}
	return aliases
}

// Names returns the planner's quoted identifiers: those of the model and the planner's aliases.
func (p *Planner) Names() *modelsql.Names { return p.names }

// cacheKey identifies a compiled plan: the scope's shape (its entity set, navigations and where keys are, not
// the key values) and the query text without $top and $skiptoken.
type cacheKey struct {
	set       *edm.EntitySet
	singleton *edm.Singleton
	shape     string
	query     string
	filters   string // RowFilters.cacheKey
	redacted  string // Redactions.cacheKey
	limits    Limits
}

// Read plans a GET of scope with the raw (still percent-encoded) query string of the request. The plan is
// compiled on first use and cached by (scope shape, query text without $top and $skiptoken); $top, $skiptoken
// and the key values are read afresh on every call. Errors are *Error values.
func (p *Planner) Read(s Scope, rawQuery string) (*Read, error) {
	return p.ReadWith(s, rawQuery, ReadOptions{})
}

// ReadFiltered is Read with the request's row filters added to every place the read reaches the rows of a
// filtered type (see RowFilters). An error of a row filter (a text that does not parse or bind) is no *Error:
// it is the service's mistake.
func (p *Planner) ReadFiltered(s Scope, rawQuery string, filters *RowFilters) (*Read, error) {
	return p.ReadWith(s, rawQuery, ReadOptions{Filters: filters})
}

// checkReadScope returns the error of a scope no read starts from: a $crossjoin after other segments, or a path
// without an entity set or singleton.
func checkReadScope(s Scope) error {
	crossJoin := len(s.CrossJoin) > 0
	if crossJoin && (s.Set != nil || s.Singleton != nil || s.Key != nil || s.Path != nil) {
		return &Error{Code: CodeSyntax, Option: "path", Msg: "$crossjoin starts a path"}
	}
	if s.Set == nil && (s.Singleton == nil || s.Key != nil) && !crossJoin {
		return &Error{Code: CodeSyntax, Option: "path", Msg: "no entity set"}
	}
	return nil
}

// ReadWith is Read with the request's row filters (as ReadFiltered), without the properties it may not read
// (Redactions) and under its limits (Limits).
func (p *Planner) ReadWith(s Scope, rawQuery string, opts ReadOptions) (*Read, error) {
	if err := checkReadScope(s); err != nil {
		return nil, err
	}
	crossJoin := len(s.CrossJoin) > 0
	page, err := splitPageOptions(rawQuery)
	if err != nil {
		return nil, err
	}
	key := cacheKey{set: s.Set, singleton: s.Singleton, shape: s.shape(), query: page.query,
		filters: opts.Filters.cacheKey(), redacted: opts.Redacted.cacheKey(), limits: opts.Limits}
	var pl *compiledRead
	if p.cache != nil {
		pl = p.cache.get(key)
	}
	r := opts.Room
	if r == nil {
		r = &Read{}
	}
	if pl == nil {
		q, err := opts.Limits.Query.ParseQuery(rawQuery)
		if err != nil {
			return nil, fromSyntax(err)
		}
		if err := opts.Limits.checkTop(q.Top, page.topSpelt, 1); err != nil {
			return nil, err
		}
		if crossJoin {
			pl, err = p.compileCrossJoin(s, q, restOf(rawQuery), opts)
		} else {
			pl, err = p.compile(s, q, restOf(rawQuery), opts)
		}
		if err != nil {
			return nil, err
		}
		if p.cache != nil {
			p.cache.put(key, pl)
		}
		r.top = q.Top
		page.token = q.SkipToken
	} else {
		if r.top, err = page.parseTop(); err != nil {
			return nil, err
		}
		if err := opts.Limits.checkTop(r.top, page.topSpelt, 1); err != nil {
			return nil, err
		}
		if page.token, err = page.decodeToken(); err != nil {
			return nil, err
		}
	}
	if pl.single && r.top != nil {
		// Checked here, not by compile: the plan cache key leaves $top out.
		return nil, &Error{Code: CodeSyntax, Option: page.topSpelt, Msg: "$top does not apply to a single entity"}
	}
	r.plan, r.Projection = pl, pl.projection
	if err := r.bindKeys(s); err != nil {
		return nil, err
	}
	if pl.aggregation != nil {
		return r, r.aggregationOffset(page.token)
	}
	if page.token != "" && !pl.single {
		if err := r.decodeSkipToken(page.token); err != nil {
			return nil, err
		}
	}
	return r, nil
}

package odata

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/openapi"
	"github.com/storekit/store/odata/sqldb"
)

// Config configures a Service.
type Config struct {
	// Model is the entity data model, built (edm.Model.Build), unless Structs adds to it.
	Model *edm.Model
	// Structs are Go struct values (Team{} or (*Team)(nil)) to serve as entity types, each in an entity set named
	// by its English plural (Team: Teams, Category: Categories); odata/edm's "Entity types from Go structs" says
	// how fields, tags and the ID/foreign-key conventions declare them. NewService adds their entity types and
	// sets to Model, which must then be unbuilt (its namespace, actions and other declarations stay; a set it
	// declares of a struct's type keeps that name), or to a new model in DefaultNamespace, and builds it.
	Structs []any
	// Migrate creates the tables and columns the model needs that the database lacks (odata/schema.Migration,
	// applied by odata/migrate and recorded in its schema_migrations table under the model's namespace) when
	// NewService starts. Without it, NewService only reads the database (see SkipSchemaCheck).
	Migrate bool
	// Writes are the writes of the entity sets that Sets does not list: none by default, so such a set is
	// read-only (a write answers 405).
	Writes Writes
	// DB is the database the model's tables live in, with its dialect: open it with odata/sqlite.Open or
	// odata/postgres.Open.
	DB *sqldb.DB
	// Logger receives the causes of internal errors; slog.Default() when nil.
	Logger *slog.Logger
	// Mount is the path the service root is served under, such as "/odata"; absolute URLs in answers
	// (@odata.context, @odata.nextLink, Location, OData-EntityId) end their service root with it. The handler
	// accepts request paths with or without it, so it works behind http.StripPrefix and without.
	Mount string
	// PublicURL is the absolute URL clients reach the server at: scheme, host and any path prefix a proxy adds,
	// such as "https://shop.example.com". When set, every absolute URL in answers starts with PublicURL and
	// Mount, whatever the request's Host header says. When empty, they start with the request's scheme (the
	// request URL's Scheme when a proxy-aware middleware set it, else https over TLS, else http) and its Host:
	// for development, since a client chooses its Host header. X-Forwarded-* headers are never read by the
	// engine; a middleware that trusts the proxy sending them may rewrite r.Host and r.URL.Scheme.
	PublicURL string
	// MaxVersion is the highest OData version the service answers in: Version40 (the default) answers every
	// request in 4.0; Version401 answers in 4.01 the requests whose OData-MaxVersion allows it (see Version).
	// Requests are read with 4.01 syntax either way, and a JSON batch, which exists only in 4.01, is answered in
	// 4.01 unless its OData-MaxVersion is below.
	MaxVersion Version
	// SchemaVersion is the version of the service's schema, such as "1.2" (letters, digits and _ - . ~): when
	// set, $metadata carries it as the Core.SchemaVersion annotation of the schema, and requests that name it in
	// $schemaversion (OData 4.01), or name "*" (the current version), are served while any other version
	// answers 404 Not Found. When empty the schema is unversioned: only $schemaversion=* is served (see
	// DESIGN.md, "Schema versions").
	SchemaVersion string
	// Async turns asynchronous requests (Prefer: respond-async) on; see AsyncOptions. A service that runs them
	// should be shut down with Service.Shutdown, which waits for them.
	Async AsyncOptions
	// ChangeTracking configures the change log behind the delta links of the sets with SetOptions.TrackChanges
	// (see ChangeTrackingOptions); it is not used when no set tracks changes.
	ChangeTracking ChangeTrackingOptions
	// Limits bound what one request may ask: page sizes, $top, $expand, the size of expressions, bodies and
	// batches (see Limits; the zero value has the defaults of SPEC part 9). A set may have its own
	// (SetOptions.Limits).
	Limits Limits
	// TimeBudget is how long one request may run (default DefaultTimeBudget, 10 s; negative for none). Past it
	// the request's context is cancelled, which cancels its running SQL statement, and it answers 503
	// TimeBudgetExceeded with Retry-After (see WithTimeBudget, whose budget, when it wraps the service, is the
	// one that holds).
	TimeBudget time.Duration
	// Sets configures the entity sets by name. A set that is not listed is read-only.
	Sets map[string]SetOptions
	// Singletons configures the writes of singletons by name. A singleton that is not listed is read-only.
	Singletons map[string]SingletonOptions
	// DeleteStatus is the status of a successful DELETE: http.StatusNoContent (the default when zero, as OData
	// has it) or http.StatusOK, with an empty body too, for clients written against a service that answers so.
	DeleteStatus int
	// Actions holds the handler of every action of the model, by binding and name:
	//
	//	"Customer/SetPassword"          bound to one Customer
	//	"Collection(Product)/Archive"   bound to a collection of Products
	//	"ResetCatalog"                  unbound (served at the service root)
	//
	// Names may be namespace-qualified ("Store.Customer/Store.SetPassword"). Every action of the model needs a
	// handler and every handler an action: NewService reports either mistake.
	Actions map[string]ActionFunc
	// Functions holds the handler of every function of the model, keyed as Actions are; one handler serves
	// every overload of its binding (FunctionCall.Function tells which was called). A function is called with
	// GET, its parameters in the URL (Fn(p=1), or Fn(p=@a) with @a in the query), and changes nothing.
	Functions map[string]FunctionFunc
	// OpenAPI configures the OpenAPI document served at $openapi (see package odata/openapi); the zero value
	// gives defaults.
	OpenAPI openapi.Options
	// SkipSchemaCheck leaves out the start-up check of the database: by default NewService compares its tables
	// with the model (odata/schema.Adapt) and reports every missing table or column, column type that cannot
	// hold its property and key without a unique index, rather than answering 500 when a request meets one; and
	// it serves a column another program declared (DATETIME, NUMERIC(p,s), ...) in the form its declaration
	// says. Without the check a property keeps the storage it declares (edm.Property.TimeStorage,
	// DecimalStorage): see odata/DESIGN.md, "Tables other programs made".
	SkipSchemaCheck bool
	// TracerProvider makes the span of each request (and of each request of a batch), with the attributes
	// http.request.method, http.response.status_code, odata.entity_set, odata.request_kind and
	// odata.error_code; the statements of a database opened by odata/sqlite or odata/postgres (see
	// sqldb.Instrument) are its children. When nil, the global provider (otel.GetTracerProvider) as it is at
	// each request: no span at all, for next to no cost, while no program has set one.
	TracerProvider trace.TracerProvider
	// MeterProvider records the request metrics odata.request.duration and odata.request.sql_statements and the
	// statistics of DB's connection pool (db.client.connection.*). When nil, the global provider
	// (otel.GetMeterProvider): the request metrics follow it once a program sets one; the pool statistics need
	// it set before NewService.
	MeterProvider metric.MeterProvider
	// Propagator reads the trace context of a request that arrives without a span in its context (no
	// middleware traced it), so that its span continues its caller's trace; nil: W3C Trace Context
	// (traceparent and tracestate headers).
	Propagator propagation.TextMapPropagator
}

// Writes is the set of write methods an entity set offers; the zero value offers none (read-only). A method
// that is not offered is answered 405 with an Allow header and a message naming the Writes bit that offers it.
type Writes uint8

// The write methods.
const (
	// WritePost offers POST to the collection: a create, or with SetOptions.UpsertBy a full update when the body
	// names an existing entity.
	WritePost Writes = 1 << iota
	// WritePut offers PUT on an entity: a full replace.
	WritePut
	// WritePatch offers PATCH on an entity: an update of the fields sent.
	WritePatch
	// WriteDelete offers DELETE on an entity.
	WriteDelete
	// WriteAll offers every write method.
	WriteAll = WritePost | WritePut | WritePatch | WriteDelete
)

// SetOptions configures one entity set.
type SetOptions struct {
	// Writes lists the write methods the set offers; none when zero.
	Writes Writes
	// UpsertBy names the property a POST body is matched on: absent, null or "" creates an entity (with a value
	// from NewKey), the value of an existing entity updates it in full (200), any other value is a 400. Without
	// it (the default) a POST always creates, as OData has it: the key values the body sends are used unless
	// the key is read-only (computed); a single key property the body leaves out, or that is read-only, gets a
	// new value from NewKey, or from the database when it generates the key (edm.Property.Generated); a key
	// left out that nothing generates is a 400 naming it; a duplicate key is a 409.
	UpsertBy string
	// ClientKey makes a create take every key value from the body: none is generated, and a key the body leaves
	// out is a 400.
	ClientKey bool
	// RejectKeyChange makes a value the body of a PUT, PATCH or POST that updates sends for a key property,
	// the UpsertBy property or an Immutable property a 400 (InvalidValue, with the property as target) when it
	// differs from the value the entity holds. Without it such values are ignored, as OData 4.01 (part 1,
	// 11.4.3) has it for every value a client cannot change; the same value is accepted either way.
	RejectKeyChange bool
	// IgnoreInline makes the writes of the set ignore related entities a body gives inline in its navigation
	// properties (deep insert and deep update, deep.go), as they ignore the values of read-only properties:
	// for a set whose relationships change only otherwise (its actions, $ref, @odata.bind), so that a client
	// may send back an entity it read with $expand.
	IgnoreInline bool
	// CaseInsensitiveKey matches a string key without regard to case, lower(column) = lower(value) on every
	// database, as for e-mail addresses.
	CaseInsensitiveKey bool
	// NewKey returns the value a create gives the UpsertBy property, or without UpsertBy the single key
	// property, when the body gives none; when nil, NewID for a String property, a random UUID for a Guid, and
	// for another type the client must send the key (unless the database generates it).
	NewKey func() any
	// Hooks run inside the write's transaction.
	Hooks Hooks
	// ReadFilter, when not nil, returns the row filter of the set for a request: OData $filter text over the
	// set's entity type (such as "OwnerId eq 'u1'", built from the principal the embedding service put in the
	// context), "" for none. The engine parses, binds and type-checks it as a client's $filter (it cannot use the
	// client's parameter aliases; string values belong in quoted literals, with quotes doubled, and become SQL
	// arguments) and adds it to every way a request reaches the set's rows: collection and by-key reads (a
	// hidden entity is a 404), $count, navigation paths through or to the set, $expand into it, any/all, $count
	// and in over navigations to it, to-one paths in $filter, $orderby and $select (a hidden target is null),
	// $batch parts; and writes: PUT, PATCH, DELETE and actions bound to a hidden entity are 404, and a create or
	// update whose result is hidden is refused with 403 Forbidden and rolled back. It is called for every read a
	// request plans, whatever set it reads; an error it returns is answered as it is when it is an *Error (say,
	// Forbidden without a principal), else as a 500. Navigations inside the filter text are not filtered
	// themselves. Actions bound to the collection, hooks and Tx reads are not filtered. A set with a ReadFilter
	// must be the only set of its entity type.
	ReadFilter func(ctx context.Context) (string, error)
	// Redact, when not nil, returns the properties of the set a request may not read: names of properties of
	// the set's entity type, member paths of complex properties ("Address/City") or navigation properties,
	// computed from the principal the embedding service put in the context; none when nil or empty. A redacted
	// property is left out of every answer (collections, entities by key, navigations to the set, $expand into
	// it, the entities writes, actions and functions answer with, $batch parts) and out of the ETags the request
	// sees, so that no answer tells its value; a query that uses it ($select, $filter, $orderby, lambdas, to-one
	// paths from other sets, parameter aliases) is a 400 NotReadable naming the property, $search matches the
	// searchable properties the request may read, a property path or /$value addressing it is a 403 Forbidden,
	// and a body that sends it is a 400 NotReadable: a client writes only what it reads, and a full update keeps
	// the stored values of what it cannot send. A redacted navigation property cannot be expanded, followed in a
	// path (403) or used in an expression (400), so a redacted foreign key does not show through it (redact the
	// partner navigation of the other set too). A key property cannot be redacted. Redact is called whenever a
	// request plans a read or writes an entity of the set's type; an error it returns is answered as it is when
	// it is an *Error, else as a 500, as is a name the type does not have. Hooks, actions, functions and Tx see
	// every property, and what an operation returns that is not an entity is written as it is; ReadFilter texts
	// may use redacted properties. A set with Redact must be the only set of its entity type.
	Redact func(ctx context.Context) ([]string, error)
	// Limits are the set's own limits where they differ from the service's (Config.Limits): page sizes, $top,
	// $expand depth and body size.
	Limits SetLimits
	// TrackChanges makes the set serve delta links (OData 4.01 part 1, 11.3; see ChangeTrackingOptions): a GET
	// of the set with Prefer: odata.track-changes answers as usual, with Preference-Applied and, on its last
	// page, an @odata.deltaLink; a GET of that link answers the entities created or changed since (their
	// current values, as the defining query selects them) and those deleted or no longer matching its $filter
	// (@odata.removed), with a new delta link. The preference is not applied (the read answers without a delta
	// link) to a read with $top, $skip, $expand or $apply. Every write of the set through the service (POST,
	// PUT, PATCH, DELETE, $batch, deep insert and update, binds and $ref, and the Tx helpers hooks and actions
	// call) notes the entity in the change log in its transaction, and a delete notes the entities of tracked
	// sets that refer to the deleted one, which the database's ON DELETE CASCADE or SET NULL changes; SQL a
	// plug-in runs itself, and other programs writing the table, are not seen. $metadata annotates the set with
	// Capabilities.ChangeTracking. A set that tracks changes must be the only set of its entity type and cannot
	// have a ReadFilter (the delta of a deleted entity could not be filtered) or a CaseInsensitiveKey.
	TrackChanges bool
	// RequireIfMatch makes every change of an existing entity of the set conditional (optimistic concurrency,
	// OData 4.01 Protocol 8.2.4): PUT, PATCH and DELETE of the entity, writes of its collection properties and
	// media bytes, and actions bound to it answer 428 PreconditionRequired, changing nothing, without an
	// If-Match header. $metadata annotates the set with Core.OptimisticConcurrency, listing the properties the
	// ETag is computed over. Creates (POST) and $ref writes are not changes of an entity's ETag properties and
	// need none.
	RequireIfMatch bool
	// NoFilter, NoOrderBy, NoCount, NoExpand and NoSelect declare that reads of the set's entities do not take
	// $filter, $orderby, $count (=true, and the /$count segment), $expand and $select: such a read answers 400
	// OptionNotAllowed naming the option, whether it addresses the set, reaches its entities through a
	// navigation path, or expands them (the options nested in an $expand into the set; and Nav/$count with
	// NoCount). $metadata says so with the Capabilities terms FilterRestrictions/Filterable,
	// SortRestrictions/Sortable, CountRestrictions/Countable, ExpandRestrictions/Expandable and
	// SelectSupport/Supported = false, and the OpenAPI document leaves the options out of the set's paths.
	// Expressions of other options that go through a navigation to the set ($filter=Books/$count gt 1,
	// any/all) and $apply are not restricted: the set's terms speak of the options of its own reads.
	NoFilter, NoOrderBy, NoCount, NoExpand, NoSelect bool
}

// Op is the kind of a save.
type Op uint8

// The kinds of save.
const (
	// OpCreate is a POST that makes a new entity.
	OpCreate Op = iota + 1
	// OpUpdate is a full update: a PUT, or a POST that names an existing entity. Fields that are not sent take
	// their defaults.
	OpUpdate
	// OpPatch is a PATCH: only the fields sent change.
	OpPatch
)

// String returns "Create", "Update" or "Patch".
func (op Op) String() string {
	switch op {
	case OpCreate:
		return "Create"
	case OpUpdate:
		return "Update"
	case OpPatch:
		return "Patch"
	}
	return fmt.Sprintf("Op(%d)", uint8(op))
}

// Change is one save of an entity, as hooks see it.
type Change struct {
	// Op is what the request does.
	Op Op
	// Set is the entity set written to; nil for a singleton.
	Set *edm.EntitySet
	// Singleton is the singleton written to (Config.Singletons); nil for an entity set.
	Singleton *edm.Singleton
	// New is the entity as it will be stored: for Create the defaults and the fields sent, for Update the
	// fields sent and defaults for the others (key, read-only and immutable fields, and lazy fields not sent,
	// keep their stored values), for Patch the stored entity with the fields sent. BeforeSave may change it
	// (defaults, computed fields); AfterSave sees it as it was written. The answer re-reads the entity after
	// AfterSave, so changes AfterSave makes in the database show.
	New Entity
	// Old is the stored entity before the change; nil for Create.
	Old Entity
	// Sent holds the names of the fields the request body set: those the write uses, not the read-only, key
	// and immutable fields it ignores (see SetOptions.RejectKeyChange).
	Sent map[string]bool

	typ *edm.EntityType // the type written, when it is not Set's (an entity created inline in its container)
}

// EntityType returns the type of the entity written: the set's or the singleton's.
func (c *Change) EntityType() *edm.EntityType {
	if c.typ != nil {
		return c.typ
	}
	if c.Singleton != nil {
		return c.Singleton.EntityType()
	}
	return c.Set.EntityType()
}

// SingletonOptions configures the writes of one singleton.
type SingletonOptions struct {
	// Writes lists the write methods the singleton offers: WritePut (a full update) and WritePatch; none
	// when zero (read-only). A singleton cannot be created or deleted.
	Writes Writes
	// Hooks run inside the write's transaction, with Change.Singleton set (BeforeDelete never runs).
	Hooks Hooks
}

// Hooks are the functions a plug-in runs around the writes of one entity set, inside the write's transaction.
// Returning an error rolls the whole request back; an *Error (ValidationError, Forbidden, Conflict, ...) is
// answered as it is, any other error as a 500. When the database asks for a retry (a busy SQLite, a
// PostgreSQL serialization failure or deadlock) the whole transaction runs again, hooks included: keep side
// effects outside the database out of hooks.
type Hooks struct {
	// BeforeSave runs before an entity is stored: validation (return ValidationError with one detail per
	// failed rule; they join the engine's own), defaults and computed fields (change c.New). The engine's
	// checks of required fields and lengths have run on the request; c.New may still hold nil for fields that
	// failed them.
	BeforeSave func(ctx context.Context, tx *Tx, c *Change) error
	// AfterSave runs after the entity is stored (links, counters, cascades).
	AfterSave func(ctx context.Context, tx *Tx, c *Change) error
	// BeforeDelete runs before an entity is deleted (refusals such as Forbidden, cascades).
	BeforeDelete func(ctx context.Context, tx *Tx, old Entity) error
}

// ActionFunc runs a bound or unbound action inside the request's transaction. Its result is written by the
// action's return type: a Go value of the primitive or enum kind, a map[string]any for a complex type, an
// Entity (or a struct of the entity type, see EntityOf) for an entity type, a []any (or a slice of those) for a
// collection; nil for an action without a return type. Returning an error rolls back everything the action did.
type ActionFunc func(ctx context.Context, call *ActionCall) (any, error)

// ActionCall is one invocation of an action.
type ActionCall struct {
	// Tx is the request's transaction.
	Tx *Tx
	// Action is the action invoked.
	Action *edm.Action
	// Entity is the entity the action is bound to, read inside the transaction (its row locked on PostgreSQL,
	// If-Match checked against it); nil for an action bound to a collection or unbound.
	Entity Entity
	// Params holds the parameters of the body by their declared names, decoded and type-checked: a parameter
	// that was not sent is absent, one sent as null is nil.
	Params map[string]any
	// Request is the HTTP request.
	Request *http.Request
}

// Service is an OData service over a model and a database: an http.Handler that answers the OData protocol
// (service document, $metadata, reads, writes, actions) for the model's entity sets. It is safe for concurrent
// use.
type Service struct {
	model            *edm.Model
	db               *sqldb.DB
	logger           *slog.Logger
	mount            string
	publicRoot       string        // PublicURL and mount, or "" to take the scheme and host from the request
	limits           requestLimits // Config.Limits resolved, for requests to no set with limits of its own
	batchRequests    int           // Limits.BatchRequests resolved
	batchBytes       int64         // Limits.BatchBytes resolved
	deleteStatus     int
	budget           time.Duration // Config.TimeBudget with its default; 0 for none
	sets             map[*edm.EntitySet]*setConfig
	rowFilterSets    map[*edm.EntityType]*setConfig // the sets with a ReadFilter, by their (only) entity type
	redactSets       map[*edm.EntityType]*setConfig // the sets with a Redact, by their (only) entity type
	actions          map[*edm.Action]ActionFunc
	functions        map[*edm.Function]FunctionFunc
	singletons       map[*edm.Singleton]*setConfig
	planner          *plan.Planner
	names            *modelsql.Names          // the model's identifiers quoted once (the planner's), for the Tx helpers
	shapeFn          func(*plan.Read) any     // buildShape, the Memo function of reads
	crossJoinShapeFn func(*plan.Read) any     // buildCrossJoinShape, the Memo function of $crossjoin reads
	fold             map[*edm.EntityType]bool // types whose keys match without regard to case
	layouts          map[*edm.EntityType]*layout
	metadataXML      []byte
	metadataXML401   []byte  // metadataXML as a 4.01 document, when maxVersion is Version401
	maxVersion       Version // Config.MaxVersion
	schemaVersion    string  // Config.SchemaVersion
	metadataJS       []byte
	openapi          []byte // the OpenAPI document, see openapi.go
	telemetry        *telemetry
	async            *asyncJobs // nil unless Config.Async.Enabled
	changes          *changeLog // nil unless a set tracks changes (SetOptions.TrackChanges)
}

// publicRoot returns the service root under Config.PublicURL (publicURL and mount), or "" without a public URL.
// A public URL must be an absolute http or https URL with a host, without user information, query or fragment;
// fail reports one that is not.
func publicRoot(publicURL, mount string, fail func(format string, args ...any)) string {
	if publicURL == "" {
		return ""
	}
	u, err := url.Parse(publicURL)
	switch {
	case err != nil:
		fail("PublicURL %q: %v", publicURL, errors.Unwrap(err))
	case u.Scheme != "http" && u.Scheme != "https":
		fail("PublicURL %q: want an http:// or https:// URL", publicURL)
	case u.Host == "":
		fail("PublicURL %q: the URL has no host", publicURL)
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		fail("PublicURL %q: want scheme, host and path only", publicURL)
	}
	return strings.TrimRight(publicURL, "/") + mount
}

// setConfig is the resolved configuration of one entity set.
type setConfig struct {
	SetOptions
	upsert *edm.Property // the UpsertBy property, or nil
	limits requestLimits // the limits of requests to the set: the service's with SetOptions.Limits
	// generated is the property the engine gives a new value (NewKey, NewID, a random Guid) when the body of a
	// create gives none: the UpsertBy property, else the single key property (unless ClientKey) that is
	// read-only, has NewKey or is a String or Guid. nil when there is none, and for a key the database generates
	// (edm.Property.Generated).
	generated *edm.Property
}

// NewService checks cfg against the model, and the database against the model, and returns the service. Every
// mistake is reported, joined: a missing Model or DB, page sizes, Mount, PublicURL or DeleteStatus out of
// shape, an unknown entity set or action, an action without handler, an UpsertBy that names no suitable
// property, hooks on a set that offers no write that would run them, a wrong OpenAPI configuration, and the
// tables and columns of the model that the database lacks or cannot hold (an *schema.MismatchError, see
// Config.SkipSchemaCheck).
func NewService(cfg Config) (*Service, error) {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf("odata: "+format, args...)) }
	model, modelErr := structsModel(cfg)
	if modelErr != nil {
		errs = append(errs, modelErr)
	} else {
		cfg.Model, cfg.Sets = model, withDefaultWrites(cfg, model)
	}
	s := newService(cfg, fail)
	if cfg.DB == nil {
		fail("Config.DB is nil: open the database with odata/sqlite.Open or odata/postgres.Open")
	}
	if modelErr == nil && checkModel(cfg.Model, fail) {
		for _, et := range s.model.EntityTypes {
			s.layouts[et] = newLayout(et, nil)
		}
		s.configureSets(cfg.Sets, fail)
		s.registerActions(cfg.Actions, fail)
		s.registerFunctions(cfg.Functions, fail)
		s.registerSingletons(cfg.Singletons, fail)
		s.writeDocuments(cfg.OpenAPI, fail)
		if cfg.Migrate && cfg.DB != nil && len(errs) == 0 {
			if err := migrateModel(cfg, cfg.Model); err != nil {
				errs = append(errs, err)
			}
		}
		if cfg.DB != nil && !cfg.SkipSchemaCheck {
			if err := checkSchema(cfg.DB, cfg.Model); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	async, err := newAsyncJobs(s, cfg.Async)
	if err != nil {
		return nil, err
	}
	s.async = async
	if s.changes, err = newChangeLog(s, cfg.ChangeTracking); err != nil {
		return nil, err
	}
	tel, err := newTelemetry(cfg)
	if err != nil {
		return nil, fmt.Errorf("odata: telemetry: %w", err)
	}
	s.telemetry = tel
	s.newPlanner()
	return s, nil
}

// newService returns the service of cfg with the defaults of its zero fields, its paging and URLs checked.
func newService(cfg Config, fail func(format string, args ...any)) *Service {
	s := &Service{model: cfg.Model, db: cfg.DB, logger: cfg.Logger,
		sets: map[*edm.EntitySet]*setConfig{}, actions: map[*edm.Action]ActionFunc{},
		functions: map[*edm.Function]FunctionFunc{}, singletons: map[*edm.Singleton]*setConfig{},
		layouts: map[*edm.EntityType]*layout{}}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	s.limits, s.batchRequests, s.batchBytes = serviceLimits(cfg.Limits, fail)
	switch s.budget = cfg.TimeBudget; {
	case s.budget == 0:
		s.budget = DefaultTimeBudget
	case s.budget < 0:
		s.budget = 0
	}
	s.deleteStatus = deleteStatus(cfg.DeleteStatus, fail)
	s.mount = strings.TrimRight(cfg.Mount, "/")
	if s.mount != "" && !strings.HasPrefix(s.mount, "/") {
		fail("Mount %q must start with /", cfg.Mount)
	}
	s.publicRoot = publicRoot(cfg.PublicURL, s.mount, fail)
	if s.maxVersion = cfg.MaxVersion; s.maxVersion > Version401 {
		fail("MaxVersion %d is not a version the engine answers in (Version40 or Version401)", cfg.MaxVersion)
	}
	s.schemaVersion = cfg.SchemaVersion
	checkSchemaVersionConfig(cfg.SchemaVersion, fail)
	return s
}

// deleteStatus returns the status of a successful DELETE for Config.DeleteStatus: 204 when zero; fail reports a
// status other than 204 and 200.
func deleteStatus(status int, fail func(format string, args ...any)) int {
	switch status {
	case 0:
		return http.StatusNoContent
	case http.StatusNoContent, http.StatusOK:
	default:
		fail("DeleteStatus %d: want http.StatusNoContent (204) or http.StatusOK (200)", status)
	}
	return status
}

// checkModel reports whether the model is there and built; fail says why not.
func checkModel(m *edm.Model, fail func(format string, args ...any)) bool {
	switch {
	case m == nil:
		fail("Config.Model is nil")
	case !m.Built():
		fail("Config.Model: %w", edm.ErrNotBuilt)
	default:
		return true
	}
	return false
}

// configureSets gives every entity set of the model its options from Config.Sets (read-only when not listed)
// and checks them.
func (s *Service) configureSets(options map[string]SetOptions, fail func(format string, args ...any)) {
	for _, es := range s.model.EntitySets {
		s.sets[es] = newSetConfig(es, SetOptions{})
		s.sets[es].limits = s.limits
	}
	for _, name := range slices.Sorted(maps.Keys(options)) {
		es := s.model.EntitySet(name)
		switch {
		case es == nil:
			fail("Sets[%q]: the model has no entity set %q", name, name)
		case es.Name != name:
			fail("Sets[%q]: the entity set is called %q", name, es.Name)
		default:
			config := newSetConfig(es, options[name])
			failSet := func(format string, args ...any) {
				fail("Sets[%q]: "+format, append([]any{name}, args...)...)
			}
			config.check(es.EntityType(), failSet)
			config.limits = s.limits.forSet(config.Limits, failSet)
			s.sets[es] = config
		}
	}
	s.configureRowFilters(fail)
}

// configureRowFilters collects the sets with a ReadFilter, and those with a Redact, by entity type: the planner
// filters rows and leaves out properties by type, so such a set must be the only set of its type.
func (s *Service) configureRowFilters(fail func(format string, args ...any)) {
	setsOfType := map[*edm.EntityType]int{}
	for _, es := range s.model.EntitySets {
		setsOfType[es.EntityType()]++
	}
	byType := func(option string, has func(*setConfig) bool) map[*edm.EntityType]*setConfig {
		var out map[*edm.EntityType]*setConfig
		for _, es := range s.model.EntitySets {
			config := s.sets[es]
			if !has(config) {
				continue
			}
			if setsOfType[es.EntityType()] > 1 {
				fail("Sets[%q]: %s needs the only entity set of type %s", es.Name, option, es.EntityType().Name)
				continue
			}
			if out == nil {
				out = map[*edm.EntityType]*setConfig{}
			}
			out[es.EntityType()] = config
		}
		// The entities of a derived type are its base's too: without a set of their own with the option, they
		// are filtered and redacted as the nearest base type's (a cast or isof reaches them as such).
		for _, t := range s.model.EntityTypes {
			if _, own := out[t]; own || t.Base() == nil {
				continue
			}
			for base := t.Base(); base != nil; base = base.Base() {
				if config, ok := out[base]; ok {
					out[t] = config
					break
				}
			}
		}
		return out
	}
	s.rowFilterSets = byType("ReadFilter", func(c *setConfig) bool { return c.ReadFilter != nil })
	s.redactSets = byType("Redact", func(c *setConfig) bool { return c.Redact != nil })
	byType("TrackChanges", func(c *setConfig) bool { return c.TrackChanges })
}

// check reports the options of the set, of type et, that the type refutes or that contradict each other.
func (c *setConfig) check(et *edm.EntityType, fail func(format string, args ...any)) {
	if c.UpsertBy != "" {
		p := et.Property(c.UpsertBy)
		switch {
		case p == nil || p.Name != c.UpsertBy:
			fail("UpsertBy %q is not a property of %s", c.UpsertBy, et.Name)
		case p.Collection || p.Complex != nil || p.SQL != "" || p.Nullable:
			fail("UpsertBy %q must be a non-nullable primitive property stored in a column", c.UpsertBy)
		case c.ClientKey:
			fail("UpsertBy and ClientKey exclude each other")
		}
	}
	if c.CaseInsensitiveKey {
		if k := et.KeyProperties(); len(k) != 1 || k[0].Type != edm.KindString {
			fail("CaseInsensitiveKey needs a single key property of type Edm.String")
		}
	}
	if c.TrackChanges && (c.ReadFilter != nil || c.CaseInsensitiveKey) {
		fail("TrackChanges cannot be combined with ReadFilter or CaseInsensitiveKey")
	}
	if g := c.generated; g != nil && c.Writes&WritePost != 0 && c.NewKey == nil && !engineGenerates(g.Type) {
		what := "the key"
		if g == c.upsert {
			what = "UpsertBy"
		}
		fail("%s %q is of type %s: NewKey is required (or edm.Property.Generated, for a key the database generates)", what, g.Name, g.Type)
	}
	if k := et.KeyProperties(); c.ClientKey && len(k) == 1 && k[0].Generated {
		fail("ClientKey is set but the database generates the key %q", k[0].Name)
	}
	c.checkWrites(fail)
}

// checkWrites reports unknown Writes bits and hooks that no write the set offers would run.
func (c *setConfig) checkWrites(fail func(format string, args ...any)) {
	if c.Writes&^WriteAll != 0 {
		fail("unknown Writes bits %#x", uint8(c.Writes&^WriteAll))
	}
	saves := c.Writes&(WritePost|WritePut|WritePatch) != 0
	if (c.Hooks.BeforeSave != nil || c.Hooks.AfterSave != nil) && !saves {
		fail("save hooks are set but the set offers no POST, PUT or PATCH")
	}
	if c.Hooks.BeforeDelete != nil && c.Writes&WriteDelete == 0 {
		fail("BeforeDelete is set but the set does not offer DELETE")
	}
}

// writeDocuments writes the documents the service answers from memory: $metadata as CSDL XML and JSON, with
// the Capabilities annotations of what the service allows, the sets that require If-Match and its schema
// version, and the OpenAPI document.
func (s *Service) writeDocuments(openAPI openapi.Options, fail func(format string, args ...any)) {
	var buf bytes.Buffer
	capabilities := append(append(s.capabilities(), s.concurrencyAnnotations()...), s.schemaVersionAnnotations()...)
	if err := s.model.WriteXML(&buf, capabilities...); err != nil {
		fail("writing $metadata: %v", err)
	}
	s.metadataXML = bytes.Clone(buf.Bytes())
	if s.maxVersion == Version401 {
		s.metadataXML401 = xmlVersion401(s.metadataXML)
	}
	buf.Reset()
	if err := s.model.WriteJSON(&buf, capabilities...); err != nil {
		fail("writing $metadata: %v", err)
	}
	s.metadataJS = bytes.Clone(buf.Bytes())
	s.openapi = s.buildOpenAPI(openAPI, fail)
}

// newPlanner makes the service's planner. Keys fold case per entity type in the planner: every set of a type
// with a CaseInsensitiveKey set folds.
func (s *Service) newPlanner() {
	var fold []string
	s.fold = map[*edm.EntityType]bool{}
	for es, config := range s.sets {
		if config.CaseInsensitiveKey && !s.fold[es.EntityType()] {
			s.fold[es.EntityType()] = true
			fold = append(fold, es.EntityType().Name)
		}
	}
	sort.Strings(fold)
	s.shapeFn = s.buildShape
	s.crossJoinShapeFn = s.buildCrossJoinShape
	s.planner = plan.NewPlanner(s.model, s.db.Dialect(), plan.Options{CaseInsensitiveKeys: fold, InlineCollections: true})
	s.names = s.planner.Names()
}

// newSetConfig returns the configuration of the set es with opts: its UpsertBy property resolved, and the
// property the engine generates on create (see setConfig.generated).
func newSetConfig(es *edm.EntitySet, opts SetOptions) *setConfig {
	return newTypeConfig(es.EntityType(), opts)
}

// newTypeConfig is newSetConfig for entities of type et (contained entities have no set of their own).
func newTypeConfig(et *edm.EntityType, opts SetOptions) *setConfig {
	config := &setConfig{SetOptions: opts}
	if opts.UpsertBy != "" && !opts.ClientKey {
		config.upsert = et.Property(opts.UpsertBy)
	}
	switch k := et.KeyProperties(); {
	case config.upsert != nil:
		config.generated = config.upsert
	case len(k) == 1 && !opts.ClientKey && (k[0].ReadOnly || opts.NewKey != nil || engineGenerates(k[0].Type)):
		config.generated = k[0]
	}
	if g := config.generated; g != nil && g.Generated {
		config.generated = nil // the database generates it
	}
	return config
}

// registerSingletons resolves the names of Config.Singletons and checks their writes: PUT and PATCH only, and
// hooks only with a write that runs them.
func (s *Service) registerSingletons(options map[string]SingletonOptions, fail func(string, ...any)) {
	for _, sg := range s.model.Singletons {
		s.singletons[sg] = &setConfig{}
	}
	for _, name := range slices.Sorted(maps.Keys(options)) {
		o := options[name]
		sg := s.model.Singleton(name)
		switch {
		case sg == nil:
			fail("Singletons[%q]: the model has no singleton %q", name, name)
			continue
		case o.Writes&^(WritePut|WritePatch) != 0:
			fail("Singletons[%q]: a singleton takes PUT and PATCH only (it is neither created nor deleted)", name)
		case o.Hooks.BeforeDelete != nil:
			fail("Singletons[%q]: BeforeDelete is set but a singleton is never deleted", name)
		case (o.Hooks.BeforeSave != nil || o.Hooks.AfterSave != nil) && o.Writes == 0:
			fail("Singletons[%q]: hooks are set but the singleton offers no write", name)
		}
		s.singletons[sg] = &setConfig{SetOptions: SetOptions{Writes: o.Writes, Hooks: o.Hooks}}
	}
}

// registerActions resolves the keys of Config.Actions and checks that every action has a handler.
func (s *Service) registerActions(handlers map[string]ActionFunc, fail func(string, ...any)) {
	for _, key := range slices.Sorted(maps.Keys(handlers)) {
		handler := handlers[key]
		if handler == nil {
			fail("Actions[%q]: the handler is nil", key)
			continue
		}
		a, err := s.actionOf(key)
		if err != nil {
			fail("Actions[%q]: %v", key, err)
			continue
		}
		if _, dup := s.actions[a]; dup {
			fail("Actions[%q]: a second handler for the same action", key)
			continue
		}
		s.actions[a] = handler
	}
	for _, a := range s.model.Actions {
		if _, ok := s.actions[a]; !ok {
			fail("action %q has no handler: add Actions[%q]", a.Name, operationKey(a.Name, a.Bound, a.BindingType, a.BindingCollection))
		}
	}
}

// actionOf returns the action a key of Config.Actions names ("Type/Name", "Collection(Type)/Name" or "Name"),
// or an error that says why there is none.
func (s *Service) actionOf(key string) (*edm.Action, error) {
	et, collection, name, bound, err := s.operationBinding(key)
	if err != nil {
		return nil, err
	}
	if a := s.model.Action(name, et, collection); a != nil {
		return a, nil
	}
	if len(s.model.ActionOverloads(name)) == 0 {
		return nil, fmt.Errorf("the model has no action %q", name)
	}
	binding, _, _ := strings.Cut(key, "/")
	return nil, fmt.Errorf("the model has no overload of %q bound to %s", name, bindingLabel(binding, bound))
}

// operationBinding reads a key of Config.Actions or Config.Functions: the binding entity type (nil when
// unbound), whether the binding is a collection, and the operation's name.
func (s *Service) operationBinding(key string) (et *edm.EntityType, collection bool, name string, bound bool, err error) {
	binding, name, bound := strings.Cut(key, "/")
	if !bound {
		return nil, false, binding, false, nil
	}
	typeName := binding
	if strings.HasPrefix(typeName, "Collection(") && strings.HasSuffix(typeName, ")") {
		typeName, collection = typeName[len("Collection("):len(typeName)-1], true
	}
	if et = s.model.EntityType(typeName); et == nil {
		return nil, false, "", true, fmt.Errorf("the model has no entity type %q", typeName)
	}
	return et, collection, name, true, nil
}

func bindingLabel(binding string, bound bool) string {
	if !bound {
		return "nothing (unbound)"
	}
	return binding
}

// defaultLayout returns the layout of et with every property that is not lazy.
func (s *Service) defaultLayout(et *edm.EntityType) *layout {
	if s != nil {
		if l, ok := s.layouts[et]; ok {
			return l
		}
	}
	return newLayout(et, nil)
}

// foldKey reports whether the keys of et match without regard to case (SetOptions.CaseInsensitiveKey).
func (s *Service) foldKey(et *edm.EntityType) bool { return s != nil && s.fold[et] }

// targetWhere is the condition, on the table's own name, that selects the entity of a direct Set(key) target.
func (s *Service) targetWhere(t *target) (sq.Sqlizer, error) {
	key, err := s.planner.KeyValues(t.typ, t.scope.Key)
	if err != nil {
		return nil, queryError(err)
	}
	where, err := keyWhere(s.db.Dialect(), s.names, t.typ, key, s.sets[t.set].CaseInsensitiveKey)
	if err != nil || t.typ.Base() == nil {
		return where, err
	}
	// The set of a derived type holds the rows of that type and its derived types only.
	return sq.And{where, typeWhere(s.names, s.model.Namespace, t.typ)}, nil
}

// tx wraps a transaction of the service's database for hooks and actions.
func (s *Service) tx(t *sqldb.Tx) *Tx {
	tx := &Tx{Tx: t, Model: s.model, svc: s}
	if s.changes != nil {
		tx.changes = &trackedChanges{}
	}
	return tx
}

package odata

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/storekit/store/odata/edm"
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
	// says; and it finds the full-text indexes $search uses (odata/schema.Searchable). Without the check a
	// property keeps the storage it declares (edm.Property.TimeStorage, DecimalStorage), see odata/DESIGN.md,
	// "Tables other programs made", and $search scans, unless the program calls Service.CheckSchema (after its
	// migrations, before serving).
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
	// ReadFilter, when not nil, returns the set's row filter for a request: $filter text over its entity type
	// ("" for none) that every read reaching the set's rows, and every write to them, is held to (a hidden entity
	// is a 404). See DESIGN.md, "Row filters". A set with one must be the only set of its entity type.
	ReadFilter func(ctx context.Context) (string, error)
	// Redact, when not nil, returns the properties of the set a request may not read (names, complex member
	// paths, navigations): left out of every answer and ETag, a 400 NotReadable in queries and bodies, a 403 as a
	// path. See DESIGN.md, "Redaction". A set with one must be the only set of its entity type.
	Redact func(ctx context.Context) ([]string, error)
	// Limits are the set's own limits where they differ from the service's (Config.Limits): page sizes, $top,
	// $expand depth and body size.
	Limits SetLimits
	// TrackChanges makes the set serve delta links (Prefer: odata.track-changes, OData 4.01 part 1, 11.3; see
	// ChangeTrackingOptions and DESIGN.md, "Change tracking"). Such a set must be the only set of its entity type
	// and cannot have a ReadFilter or a CaseInsensitiveKey.
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

// Package odata is an OData v4 engine over database/sql: a Service serves the entity sets of an edm.Model that
// live in a SQLite or PostgreSQL database, with the protocol's reads, writes and actions, and lets a plug-in add
// validation, computed fields and operations in Go.
//
// The shortest path serves Go structs (the package Example, which is examples/hello): Config.Structs derives
// the model from them, Config.Migrate creates their tables, Config.Writes opens their sets to writes, and
// ListenAndServe serves them. The program grows by options of the same Config: per-set hooks, row filters and
// writes in Sets, actions and functions declared in Model, PostgreSQL through odata/postgres.Open.
//
// A Service is an http.Handler built once from a Config:
//
//	svc, err := odata.NewService(odata.Config{
//		Model: model, // built edm.Model
//		DB:    db,    // *sqldb.DB from sqlite.Open(path) or postgres.Open(url, pool): the pool and its dialect
//		Mount: "/odata",
//		Sets: map[string]odata.SetOptions{
//			"Product": {Writes: odata.WriteAll, Hooks: odata.Hooks{BeforeSave: validateProduct}},
//			"Order":   {}, // read-only; its actions still run
//		},
//		Actions: map[string]odata.ActionFunc{"Order/MarkAsPaid": markAsPaid},
//	})
//	http.Handle("/odata/", svc)
//
// NewService checks the registration against the model, and the database's tables against the model
// (odata/schema.Adapt: every missing table or column, column that cannot hold its property, key without a
// unique index; a column another program declared, such as a SQLite DATETIME, is served in the form it holds),
// and reports every mistake at once. odata/schema also writes the tables a model implies, as DDL
// (schema.Create) or as a migration (schema.Migration, applied by odata/migrate).
//
// # Answers
//
// The service document, $metadata (CSDL XML, or CSDL JSON with $format=json or Accept: application/json),
// entity sets, entities by key (('k'), (k), (Id='k'), composite (A='x',B=1), or a key segment), navigation
// (to-one, to-many, many-to-many, contained), /$count, property paths, a property's /$value, a media
// entity's /$value, and /$entity?$id=Set(key) (the entity an id names, relative or absolute, with the other
// query options). Answers are OData 4.0 JSON with odata.metadata=minimal (or none, or full, as the client's
// Accept or $format asks; IEEE754Compatible=true writes Int64 and Decimal values as strings): @odata.context,
// @odata.etag and an ETag header, @odata.count, @odata.nextLink with a keyset $skiptoken, @odata.id for an entity
// whose key is not selected; collections are streamed row by row, so memory does not grow with the page size.
//
// Versions: requests are read with OData 4.01 syntax and answered in 4.0, or, with Config.MaxVersion
// Version401, in 4.01 when their OData-MaxVersion is 4.01 or above (OData-Version 4.01, CSDL XML of Version
// 4.01; the JSON payloads are the same, with the odata. prefix 4.01 allows to leave out). An OData-MaxVersion
// below 4.0 is a 406. Preferences the engine honours: odata.maxpagesize, return=minimal|representation,
// omit-values=nulls (null properties left out of entities), odata.include-annotations (met: the answers carry no
// instance annotations but control information), odata.continue-on-error (batches); each one applied is named
// in Preference-Applied.
//
// # Queries
//
// Reads take $compute (properties computed by SQL, which $select, $filter and $orderby name like the type's own,
// in the answer when selected or when nothing is), $filter (the OData expression language with paths through to-one navigations, any/all, the
// canonical functions), $orderby, $select (member paths of complex properties too), $expand with nested
// $select, $filter, $orderby, $top, $skip, $count, $expand, $levels (a recursive navigation repeated; max as
// deep as Limits.ExpandDepth allows), $compute, $search and /$ref, /$count forms, $search over the
// Searchable properties, $top, $skip, $count and $skiptoken, planned into parameterised SQL and cached by query
// shape. A query the model does not allow is a 400 naming the option and the position; valid OData the engine
// does not translate is a 501.
//
// # Writes
//
// POST creates (or, with the UpsertBy value of an existing entity, updates in full), PUT replaces, PATCH changes
// the fields sent, DELETE deletes (204, or 200 with Config.DeleteStatus); each in one transaction with the set's
// hooks, the side table rows of collections, link rows and contained entities. Values of read-only, key and
// immutable properties a client cannot change are ignored, as OData 4.01 says (a 400 when they differ, with
// SetOptions.RejectKeyChange). Bodies are type-checked against the model; every failed rule
// of the engine and of BeforeSave is one detail of a single ValidationError. If-Match is checked against the
// stored row inside the transaction. Database errors a client caused (unique and foreign key violations) are
// 409 and 400, never 500.
//
// # Functions
//
// A function of the model is called with GET: unbound at the service root (Fn(p=1)), bound to an entity
// (Set('k')/Ns.Fn()) or to an entity set (Set/Ns.Fn()), with parameters as literals in the parentheses, as
// parameter aliases (Fn(p=@a)?@a=1), or as query options named after them (Fn()?p=1, OData 4.01); a function
// without parameters may leave out the parentheses. The overload whose parameter names match is called. Its
// handler (Config.Functions, a FunctionFunc) gets the converted parameters and the bound entity in a transaction
// that is rolled back when it returns, and its result is written as the return type says. The result of a
// composable function (edm.Function.IsComposable) that returns entities of an entity set takes the system query
// options and further segments: the keys of the entities its handler returns (at most 10,000) scope a read of
// their set with the request's options, Bestsellers()?$filter=Pages gt 150&$select=Title, and a key and what
// may follow it address one of them, Bestsellers()('b1')/Publisher (404 for an entity it did not return).
//
// A singleton listed in Config.Singletons takes PUT and PATCH like an entity (hooks with Change.Singleton,
// If-Match, 200 with the singleton as stored); it is the first row of its type's table in key order, and it is
// never created or deleted.
//
// Entity references: GET Set('k')/Nav/$ref (with $filter, $orderby, $top, $skip, $count) and Set('k')/Nav/$ref
// of a single-valued navigation answer the ids of the targets; when the set offers PATCH, POST of
// {"@odata.id": "Target('t')"} adds a reference to a collection, PUT sets a single-valued one, DELETE removes one
// (Nav('t')/$ref, or Nav/$ref?$id=Target('t')) or empties a single-valued one. They change link rows or the
// foreign key columns of the join, not the entities, and run no hooks. A POST or PATCH body sets references with
// "Nav@odata.bind": an id (null to empty a nullable navigation) or, for a collection, an array of ids added to it.
// A POST body may also hold related entities inline (deep insert): they are created in the same transaction, with
// the hooks of their sets (which must offer POST), before the entity for a single-valued navigation and after it
// for a collection; the answer is the entity created, its related entities read with $expand. A PATCH or PUT
// body may hold them too (deep update): an object with the key of an existing entity updates it, one without
// creates one, and a collection's array replaces the related entities (those it leaves out are unlinked, or
// deleted when they cannot be without the entity); null empties a nullable single-valued navigation. A set with
// SetOptions.IgnoreInline ignores entities sent inline, as it ignores read-only values.
//
// A media entity (edm.EntityType.HasStream) takes its bytes as they are: PUT Set('k')/$value replaces them and
// POST to its set with a body that is not JSON creates an entity of them, the request's Content-Type becoming its
// media type (at most Limits.MediaBytes).
//
// # Row filters and redaction
//
// SetOptions.ReadFilter gives a set a per-request row filter and SetOptions.Redact a per-request list of
// properties a request may not read; DESIGN.md ("Row filters", "Redaction") says everywhere each applies.
//
// # Limits
//
// Config.Limits bounds what one request may ask, SPEC part 9's values by default (a zero field is the default,
// a negative one no limit): page sizes (Prefer: odata.maxpagesize), $top, $expand depth and breadth, the size of
// expressions, in lists, lambdas, literals and patterns, bodies and batches. Each default is a constant: the
// Default* constants of this package for the engine's own limits, those of odata/syntax for the parser's (its
// Limits has the same field names); DESIGN.md's "Limits" tabulates them. Config.TimeBudget (10 s) bounds its
// time. SetOptions.Limits gives a set its own page sizes, MaxTop, ExpandDepth, BodyBytes and MediaBytes. Past a
// limit the answer is 400 LimitExceeded (413 PayloadTooLarge for a body) with a message naming the limit.
//
// # Batches
//
// POST $batch takes a JSON batch (OData 4.01) or a multipart/mixed batch of at most Limits.BatchRequests requests.
// Each request is served as if it came alone, with the batch request's context and headers; the requests of an
// atomicity group (a change set) share one transaction, committed when all succeed and rolled back as a whole
// otherwise. Requests refer to entities created earlier in the batch as $id (JSON id or Content-ID), and JSON
// requests name what they wait for with dependsOn; a request whose dependency failed answers 424.
//
// # Asynchronous requests
//
// With Config.Async, a request that prefers respond-async (a batch included, as a whole) is answered 202 Accepted
// with a status monitor URL ({root}/$async/{128 random bits}) in Location and runs in the background under
// AsyncOptions.TimeBudget; GET on the monitor answers 202 while it runs and then 200 with the request's answer as
// application/http (AsyncResult with its status in 4.01), and DELETE cancels it (its transaction rolls back).
// The state lives in a table of the service's database, so every node of a deployment serves every monitor and
// cancels what another runs; Service.Shutdown waits for the requests still running.
//
// # Delta links
//
// A set with SetOptions.TrackChanges answers a GET that prefers odata.track-changes with a delta link on its last
// page; a GET of the link answers the entities created or changed since, with their current values, and those
// deleted or no longer matching the query as removed, then a new delta link. The changes are kept in a table of
// the service's database (ChangeTrackingOptions), written in each write's transaction, so every node of a
// deployment serves the links any node issued.
//
// # Plug-ins
//
// Hooks and actions get a *Tx: the request's transaction with helpers (Get, Query, Insert, Update, Delete,
// Builder) that read and write whole entities as Entity maps of the Go types in odata/DESIGN.md.
//
// A model derived from Go structs (edm.EntityTypesOf) lets them work with those structs instead: GetAs and
// QueryAs read entities as structs, Tx.InsertStruct and Tx.UpdateStruct write them, EntityOf and Entity.Decode
// convert between a struct and an Entity (a hook's Change.New, an action's bound entity), and an action may
// return a struct as its entity:
//
//	book, err := odata.GetAs[Book](ctx, tx, id)
//	book.Title = strings.TrimSpace(book.Title)
//	err = tx.UpdateStruct(ctx, book)
//
// Every error a handler, hook or action returns is rendered by WriteError: an *Error with its code (one of the
// Code constants) and the status that code has in one table (ErrorStatus), anything else as a 500 whose cause is
// only logged.
package odata

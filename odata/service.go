package odata

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/openapi"
	"github.com/storekit/store/odata/sqldb"
)

// Service is an OData service over a model and a database: an http.Handler that answers the OData protocol
// (service document, $metadata, reads, writes, actions) for the model's entity sets. It is safe for concurrent
// use.
type Service struct {
	model            *edm.Model
	db               *sqldb.DB
	logger           *slog.Logger
	searchIndexes    map[string]string // the full-text indexes $search uses, by entity type name (checkSchema)
	mount            string
	publicRoot       string        // PublicURL and mount, or "" to take the scheme and host from the request
	limits           requestLimits // Config.Limits resolved, for requests to no set with limits of its own
	batchRequests    int           // Limits.BatchRequests resolved
	batchBytes       int64         // Limits.BatchBytes resolved
	deleteStatus     int
	budgetCause      *budgetExceeded // Config.TimeBudget with its default; nil for none
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
	metadataJS       []byte  // CSDL JSON written as 4.0 ("$Version": "4.0")
	metadataJS401    []byte  // metadataJS as a 4.01 document, when maxVersion is Version401
	openapi          []byte  // the OpenAPI document, see openapi.go
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
		s.configureSets(cfg.Sets, fail)
		s.registerActions(cfg.Actions, fail)
		s.registerFunctions(cfg.Functions, fail)
		s.registerSingletons(cfg.Singletons, fail)
		if cfg.Migrate && cfg.DB != nil && len(errs) == 0 {
			if err := migrateModel(cfg, cfg.Model); err != nil {
				errs = append(errs, err)
			}
		}
		if cfg.DB != nil && !cfg.SkipSchemaCheck {
			indexes, missing, err := checkSchema(cfg.DB, cfg.Model)
			if err != nil {
				errs = append(errs, err)
			} else {
				s.useSearchIndexes(indexes, missing)
			}
		}
		// After the check, which gives the types whose tables have a row version their ETag (schema.Adapt).
		for _, et := range s.model.EntityTypes {
			s.layouts[et] = newLayout(et, nil)
		}
		s.writeDocuments(cfg.OpenAPI, fail)
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
	switch budget := cfg.TimeBudget; {
	case budget == 0:
		s.budgetCause = &budgetExceeded{budget: DefaultTimeBudget}
	case budget > 0:
		s.budgetCause = &budgetExceeded{budget: budget}
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
	if s.maxVersion == Version401 {
		s.metadataJS401 = bytes.Clone(buf.Bytes())
	}
	s.metadataJS = jsonVersion40(buf.Bytes())
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
	s.planner = plan.NewPlanner(s.model, s.db.Dialect(), plan.Options{CaseInsensitiveKeys: fold, InlineCollections: true,
		SearchIndexes: s.searchIndexes})
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

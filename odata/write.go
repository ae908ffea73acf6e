package odata

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"

	sq "github.com/Masterminds/squirrel"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// inTx runs fn in a transaction and commits it, with the changes of tracked sets appended to the change log just
// before (changeLog.flush); an error of fn, or of the commit, rolls everything back. A
// transaction the database asks to retry runs again, by the policy of sqldb.RunTx. Inside an atomicity group of
// a batch, fn runs in the group's transaction instead, which the batch commits or rolls back (batch.go).
func (s *Service) inTx(ctx context.Context, fn func(tx *Tx) error) error {
	if group := sharedTx(ctx, s); group != nil {
		return group.run(fn)
	}
	return sqldb.RunTx(ctx, s.db, func(sqlTx *sqldb.Tx) error {
		tx := s.tx(sqlTx)
		if err := fn(tx); err != nil {
			return err
		}
		return s.changes.flush(ctx, sqlTx, tx.changes)
	})
}

// dbError gives a database error of a write its meaning for the client: unique and foreign key violations and
// failed checks are the client's doing (409 or 400), never a 500. Errors that are already *Error pass.
func (s *Service) dbError(err error, deleting bool) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	switch s.db.Dialect().ClassifyError(err) {
	case sqldb.ErrUniqueViolation:
		return &Error{Code: CodeConflict, Err: err,
			Message: "The entity conflicts with an existing one: a value that must be unique is already taken."}
	case sqldb.ErrForeignKeyViolation:
		if deleting {
			return &Error{Code: CodeConflict, Err: err,
				Message: "The entity cannot be deleted: other entities still refer to it."}
		}
		return &Error{Code: CodeInvalidValue, Err: err,
			Message: "A value refers to an entity that does not exist."}
	case sqldb.ErrCheckViolation:
		return &Error{Code: CodeValidationFailed, Err: err,
			Message: "A value breaks a rule of the database (a missing required value or a check)."}
	case sqldb.ErrRetry:
		return busyError(err)
	case sqldb.ErrUnavailable, sqldb.ErrReadOnly, sqldb.ErrFull:
		return faultError(s.db.Dialect().ClassifyError(err), err)
	}
	return err
}

// body is a decoded write body.
type body struct {
	vals    Entity          // the values sent, by property name
	sent    map[string]bool // the properties sent (also those whose value failed)
	bad     map[string]bool // the properties whose value failed to decode
	details []ErrorDetail   // one per problem: unknown fields, navigation properties, wrong types, bad values
	// binds are the "<nav>@odata.bind" members, in order; resolveBinds resolves their ids.
	binds []bind
	// nested are the navigation properties given inline in a create (deep insert, deep.go).
	nested []nested
	// derive, when not nil, sets values from the stored entity once an update has read and locked it: the new
	// items of a collection property after an insert or removal (collection.go).
	derive func(old Entity) error
}

// decodeEntity decodes a write body of op (Create for any POST) for entity type et of a set configured by config.
// Annotations (names with "@") are ignored, but for "<nav>@odata.bind", and so are the properties whose value
// the write does not use (see setConfig.uses), whatever their value: OData 4.01 part 1, 11.4.3 (a client may send
// back the whole entity it read).
func decodeEntity(et *edm.EntityType, members []member, config *setConfig, op Op) *body {
	var d decoder
	vals := Entity{}
	sent := map[string]bool{}
	bad := map[string]bool{}
	var binds []bind
	var nestedList []nested
	for _, m := range members {
		if i := strings.IndexByte(m.name, '@'); i >= 0 {
			if n := et.Navigation(m.name[:i]); i > 0 && n != nil && m.name[i:] == "@odata.bind" {
				binds = d.bind(binds, n, m.raw)
			}
			continue
		}
		p := et.Property(m.name)
		if p == nil {
			if n := et.Navigation(m.name); n != nil {
				if !config.IgnoreInline {
					nestedList = d.nested(nestedList, n, m.raw)
				}
			} else {
				d.fail(CodeUnknownField, m.name, "%s is not a property of %s.", m.name, et.Name)
			}
			continue
		}
		if !config.uses(p, op) {
			continue
		}
		if sent[p.Name] {
			d.fail(CodeInvalidValue, p.Name, "%s is given more than once.", p.Name)
			continue
		}
		sent[p.Name] = true
		t := propType(p)
		if p == config.generated {
			t.nullable = true // null asks for a new value
		}
		if v, ok := d.value(t, p.Name, m.raw); ok {
			vals[p.Name] = v
		} else {
			bad[p.Name] = true
		}
	}
	return &body{vals: vals, sent: sent, bad: bad, details: d.details, binds: binds, nested: nestedList}
}

// uses reports whether a write of op (Create for any POST, which may turn into an Update with UpsertBy) uses
// the value a body sends for p. A create uses every value but those of read-only properties, and the UpsertBy
// value (which names the entity a POST updates). An update uses the values of the properties it can change, and
// with RejectKeyChange those of the key, UpsertBy and Immutable properties, to compare them with the stored ones.
func (c *setConfig) uses(p *edm.Property, op Op) bool {
	switch {
	case p == c.upsert:
		return op == OpCreate || c.RejectKeyChange
	case op == OpCreate:
		return !p.Computed()
	case c.fixed(p):
		return c.RejectKeyChange && (p.IsKey() || p.Immutable)
	}
	return true
}

// defaults returns an entity with the default of every property stored in a column: the declared Default, else
// false or zero for a non-nullable Boolean or number that is not a key, else nil (so a key the body leaves out
// is missing, or generated). Complex members get theirs.
func defaults(et *edm.EntityType) Entity {
	e := Entity{}
	for _, p := range et.Properties {
		switch {
		case p.SQL != "":
		case p.IsKey() && p.Default == nil:
			e[p.Name] = nil
		default:
			e[p.Name] = defaultOf(p)
		}
	}
	return e
}

func defaultOf(p *edm.Property) any {
	if p.Collection {
		if p.Default != nil {
			return p.Default
		}
		return []any{}
	}
	if p.Complex != nil {
		if p.Nullable {
			return nil
		}
		m := map[string]any{}
		for _, mp := range p.Complex.Properties {
			m[mp.Name] = defaultOf(mp)
		}
		return m
	}
	if p.Default != nil {
		return normalize(p, p.Default)
	}
	if p.Nullable || p.Enum != nil {
		return nil
	}
	switch p.Type {
	case edm.KindBoolean:
		return false
	case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64:
		return int64(0)
	case edm.KindDecimal:
		return decimal.Zero
	case edm.KindDouble, edm.KindSingle:
		return 0.0
	}
	return nil
}

// fillComplex completes a complex value sent in a body: members that were not sent take their value in base
// (the stored value, for a PATCH) or, without one, their defaults.
func fillComplex(p *edm.Property, v any, base any) any {
	m, ok := asMap(v)
	if !ok || p.Complex == nil || p.Collection {
		return v
	}
	bm, _ := asMap(base)
	out := make(map[string]any, len(p.Complex.Properties))
	for _, mp := range p.Complex.Properties {
		sv, sent := m[mp.Name]
		bv, hasBase := bm[mp.Name]
		switch {
		case sent && mp.Complex != nil:
			out[mp.Name] = fillComplex(mp, sv, bv)
		case sent:
			out[mp.Name] = sv
		case hasBase:
			out[mp.Name] = bv
		default:
			out[mp.Name] = defaultOf(mp)
		}
	}
	return out
}

// missingRequired returns a detail for each required property of e without a value (nil, or a string of
// spaces). skip leaves properties out (lazy ones that were neither loaded nor sent).
func missingRequired(et *edm.EntityType, e Entity, skip func(*edm.Property) bool) []ErrorDetail {
	var out []ErrorDetail
	for _, p := range et.Properties {
		if !p.Required && !(p.IsKey() && !p.Computed()) {
			continue
		}
		if skip != nil && skip(p) {
			continue
		}
		v := e[p.Name]
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" || v != nil && !ok {
			continue
		}
		msg := p.RequiredMessage
		if msg == "" {
			msg = p.Name + " is required."
		}
		out = append(out, ErrorDetail{Code: CodeRequired, Target: p.Name, Message: msg})
	}
	return out
}

// sameValue reports whether a and b are the same value of p (compared by their JSON form, so 1.50 equals 1.5);
// fold compares strings case-insensitively.
func sameValue(p *edm.Property, a, b any, fold bool) bool {
	if fold {
		if x, ok := a.(string); ok {
			if y, ok := b.(string); ok {
				return strings.EqualFold(x, y)
			}
		}
	}
	f := plainField(p)
	ja, err1 := appendGoField(nil, f, normalize(p, a), nil)
	jb, err2 := appendGoField(nil, f, normalize(p, b), nil)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// visibleField is plainField without the members of a complex property that hidden holds (those a request may
// not read).
func visibleField(p *edm.Property, hidden map[*edm.Property]bool) *field {
	if hidden == nil || p.Complex == nil || p.Collection {
		return plainField(p)
	}
	return (&layout{hidden: hidden}).addField(p, true)
}

// plainField builds the field of a property outside any layout (for comparing and writing Go values).
func plainField(p *edm.Property) *field {
	f := &field{prop: p, name: fieldName(p.Name), col: 0, out: true, whole: true}
	if p.Complex != nil && !p.Collection {
		f.col = -1
		for _, m := range p.Complex.Properties {
			f.members = append(f.members, plainField(m))
		}
	}
	return f
}

// storable returns the part of e that a write stores: no properties computed by SQL, no nil values of
// non-nullable properties (their column default applies), nothing skip leaves out.
func storable(et *edm.EntityType, e Entity, skip func(*edm.Property) bool) Entity {
	out := Entity{}
	for _, p := range et.Properties {
		v, ok := e[p.Name]
		if !ok || p.SQL != "" || (v == nil && !p.Nullable && !p.Collection) || (skip != nil && skip(p)) {
			continue
		}
		out[p.Name] = v
	}
	return out
}

// saveHooks runs BeforeSave and joins its validation details with the engine's.
func saveHook(ctx context.Context, tx *Tx, hook func(context.Context, *Tx, *Change) error, c *Change, details []ErrorDetail) error {
	if hook != nil {
		if err := hook(ctx, tx, c); err != nil {
			var e *Error
			if errors.As(err, &e) && e.Code == "ValidationFailed" && len(details) > 0 {
				return ValidationError(append(details, e.Details...)...)
			}
			if len(details) == 0 {
				return err
			}
		}
	}
	if len(details) > 0 {
		return ValidationError(details...)
	}
	return nil
}

// post answers POST to an entity set: a create, or a full update of the entity the UpsertBy value names.
func (s *Service) post(req *request) error {
	t := req.target
	if isMediaPost(t, req.r) {
		return s.postMedia(req)
	}
	config := s.sets[t.set]
	members, err := readJSONBody(req.r, false, s.limitsOf(t).bodyBytes)
	if err != nil {
		return err
	}
	et, err := s.bodyType(members, t.typ, false) // abstract: refused below when the POST creates
	if err != nil {
		return err
	}
	ctx := req.r.Context()
	if err := s.checkWritable(ctx, et, members); err != nil {
		return err
	}
	b := decodeEntity(et, members, config, OpCreate)
	s.resolveBinds(req, b)
	vals := b.vals
	if u := config.upsert; u != nil && vals[u.Name] != nil && vals[u.Name] != "" {
		fold := config.CaseInsensitiveKey && u.IsKey()
		where, err := propWhere(s.db.Dialect(), s.names, et, u, vals[u.Name], fold)
		if err != nil {
			return s.dbError(err, false)
		}
		if len(b.nested) > 0 {
			return BadRequest(CodeInvalidValue, b.nested[0].nav.Name, "Related entities are created inline only by a POST that creates.")
		}
		// The entity keeps its type: the body is an update of the type stored.
		storedType, err := s.storedType(ctx, t.typ, where)
		if err != nil {
			return s.dbError(err, false)
		}
		if err := s.keepType(members, storedType); err != nil {
			return err
		}
		if storedType != et {
			b = decodeEntity(storedType, members, config, OpCreate)
			s.resolveBinds(req, b)
		}
		t.typ = storedType
		missing := BadRequest(CodeInvalidValue, u.Name, fmt.Sprintf("%s %s does not exist", et.Name, u.Name))
		return s.replace(req, OpUpdate, where, b, missing)
	}
	if u := config.upsert; u != nil && b.bad[u.Name] {
		return ValidationError(b.details...)
	}
	if et.Abstract {
		return abstractType(s.qualifiedName(et))
	}

	var stored Entity
	err = s.inTx(ctx, func(tx *Tx) error {
		var err error
		stored, err = s.create(ctx, tx, req, et, t.set, config, b)
		return err
	})
	if err != nil {
		return s.dbError(err, false)
	}
	return s.writeEntity(req, http.StatusCreated, t.set, et, stored)
}

// create creates the entity of type et that b holds, in set (for a contained entity its container's set) with
// config, inside tx: its binds, the inline entities it refers to, the hooks, the row, the inline entities that
// refer to it. It returns the entity as stored.
func (s *Service) create(ctx context.Context, tx *Tx, req *request, et *edm.EntityType, set *edm.EntitySet, config *setConfig, b *body) (Entity, error) {
	e := newEntity(et, config, b)
	if err := s.bindProperties(ctx, tx, e, b); err != nil {
		return nil, err
	}
	if err := s.createNestedBefore(ctx, tx, req, e, b, config, set); err != nil {
		return nil, err
	}
	details := append(b.details, missingRequired(et, e, func(p *edm.Property) bool { return b.bad[p.Name] })...)
	c := &Change{Op: OpCreate, Set: set, New: e, Sent: b.sent, typ: et}
	if err := saveHook(ctx, tx, config.Hooks.BeforeSave, c, details); err != nil {
		return nil, err
	}
	row := storable(et, c.New, nil)
	if err := tx.Insert(ctx, et, row); err != nil {
		return nil, err
	}
	keepGenerated(et, row, c.New)
	if err := s.bindLinks(ctx, tx, et, c.New, b); err != nil {
		return nil, err
	}
	if err := s.createNestedAfter(ctx, tx, req, et, c.New, b, config, set); err != nil {
		return nil, err
	}
	return s.afterSave(ctx, tx, config, c)
}

// newEntity returns the entity a create stores: the defaults, the values b sent (read-only fields, the UpsertBy
// one included, are ignored: the server computes them) and a new value of the generated property (see
// setConfig.generated) unless the body gave it one. A key the database generates stays nil until the insert.
func newEntity(et *edm.EntityType, config *setConfig, b *body) Entity {
	e := defaults(et)
	for name := range b.sent {
		p := et.Property(name)
		if b.bad[name] || p.Computed() {
			continue // computed by the server: ignored on create
		}
		e[name] = fillComplex(p, b.vals[name], nil)
	}
	if g := config.generated; g != nil && (e[g.Name] == nil || e[g.Name] == "") {
		e[g.Name] = newValue(g, config.NewKey)
	}
	return e
}

// newValue is the value the engine gives the generated property p of a create: newKey's, else a random Guid
// for a Guid property, else NewID().
func newValue(p *edm.Property, newKey func() any) any {
	switch {
	case newKey != nil:
		return normalize(p, newKey())
	case p.Type == edm.KindGuid:
		return edm.NewGuid()
	}
	return NewID()
}

// engineGenerates reports whether the engine gives a key of kind k a value without SetOptions.NewKey: NewID()
// for a String, a random Guid.
func engineGenerates(k edm.Kind) bool { return k == edm.KindString || k == edm.KindGuid }

// keepGenerated copies to e the key the database generated for it, which the insert read back into row.
func keepGenerated(et *edm.EntityType, row, e Entity) {
	if k := et.KeyProperties(); len(k) == 1 && k[0].Generated {
		e[k[0].Name] = row[k[0].Name]
	}
}

// afterSave runs the set's AfterSave hook on the change just written and returns the entity as stored.
func (s *Service) afterSave(ctx context.Context, tx *Tx, config *setConfig, c *Change) (Entity, error) {
	if config.Hooks.AfterSave != nil {
		if err := config.Hooks.AfterSave(ctx, tx, c); err != nil {
			return nil, err
		}
	}
	et := c.EntityType()
	key, err := entityKey(et, c.New)
	if err != nil {
		return nil, err
	}
	where, err := keyWhere(s.db.Dialect(), s.names, et, key, false)
	if err != nil {
		return nil, err
	}
	if where, err = s.visibleWhere(ctx, et, where); err != nil {
		return nil, err
	}
	stored, err := tx.getWhere(ctx, et, where, false)
	if errors.Is(err, ErrNotFound) && s.rowFilterSets[et] != nil {
		// The row filter hides what the write made: refuse it, so the transaction rolls back.
		return nil, errHiddenResult(et)
	}
	return stored, err
}

// writtenWhere is the condition of the row a write of t changes: the singleton's row, or the target's.
func (s *Service) writtenWhere(ctx context.Context, t *target) (sq.Sqlizer, error) {
	if sg := writtenSingleton(t); sg != nil {
		return s.singletonWhere(ctx, sg)
	}
	return s.targetWhere(t)
}

// put answers PUT (op Update) and PATCH (op Patch) on Set(key) or on a singleton.
func (s *Service) put(req *request, op Op) error {
	t := req.target
	members, err := readJSONBody(req.r, false, s.limitsOf(t).bodyBytes)
	if err != nil {
		return err
	}
	where, err := s.writtenWhere(req.r.Context(), t)
	if err != nil {
		return s.dbError(err, false)
	}
	// The entity keeps its type: the body is an update of the type stored.
	if t.typ, err = s.storedType(req.r.Context(), t.typ, where); err != nil {
		return s.dbError(err, false)
	}
	if err := s.keepType(members, t.typ); err != nil {
		return err
	}
	if err := s.checkWritable(req.r.Context(), t.typ, members); err != nil {
		return err
	}
	b := decodeEntity(t.typ, members, s.writeConfig(t), op)
	s.resolveBinds(req, b)
	return s.replace(req, op, where, b, nil)
}

// writtenSingleton returns the singleton a write addresses, nil for an entity of a set.
func writtenSingleton(t *target) *edm.Singleton {
	if t.scope.Singleton != nil && len(t.scope.Path) == 0 {
		return t.scope.Singleton
	}
	return nil
}

// writeConfig returns the configuration of the set or singleton a write addresses.
func (s *Service) writeConfig(t *target) *setConfig {
	if sg := writtenSingleton(t); sg != nil {
		return s.singletons[sg]
	}
	return s.sets[t.set]
}

// singletonWhere is the condition that selects the row of the singleton sg: the first of its type's table in
// key order, as reads take it (a 404 when the table is empty).
func (s *Service) singletonWhere(ctx context.Context, sg *edm.Singleton) (sq.Sqlizer, error) {
	et := sg.EntityType()
	var columns []string
	for _, k := range et.KeyProperties() {
		columns = append(columns, s.names.QuoteIdent(k.Column))
	}
	q := sq.Select(columns...).From(s.names.QuoteIdent(et.Table)).OrderBy(columns...).Limit(1).PlaceholderFormat(s.db.Dialect().Placeholder())
	values := make([]any, len(columns))
	targets := make([]any, len(columns))
	for i := range values {
		targets[i] = &values[i]
	}
	if err := q.RunWith(s.db).QueryRowContext(ctx).Scan(targets...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, entityNotFound(et)
		}
		return nil, err
	}
	key := make([]any, len(values))
	for i, k := range et.KeyProperties() {
		v, err := sqldb.Scan(k, values[i])
		if err != nil {
			return nil, err
		}
		key[i] = v
	}
	return keyWhere(s.db.Dialect(), s.names, et, key, false)
}

// replace saves b as a full update (op Update) or a patch (op Patch) of the entity of the request's set that
// where selects, after checking If-Match against it with its row locked, and answers 200 with the entity as
// stored. missing, when not nil, is the answer when no entity matches instead of the 404.
func (s *Service) replace(req *request, op Op, where sq.Sqlizer, b *body, missing error) error {
	t := req.target
	stored, err := s.replaceIn(req.r.Context(), req, op, where, b, missing)
	if err != nil {
		return err
	}
	if sg := writtenSingleton(t); sg != nil {
		return s.writeStored(req, http.StatusOK, sg.EntityType(), sg.Name, sg.Name, stored)
	}
	return s.writeEntity(req, http.StatusOK, t.set, t.typ, stored)
}

// replaceIn saves b as replace does and returns the entity as stored, for the caller to answer.
func (s *Service) replaceIn(ctx context.Context, req *request, op Op, where sq.Sqlizer, b *body, missing error) (Entity, error) {
	t := req.target
	var stored Entity
	err := s.inTx(ctx, func(tx *Tx) error {
		where, err := s.visibleWhere(ctx, t.typ, where)
		if err != nil {
			return err
		}
		old, err := tx.getWhere(ctx, t.typ, where, true)
		if missing != nil && errors.Is(err, ErrNotFound) {
			return missing
		}
		if err != nil {
			return err
		}
		if err := s.checkIfMatch(req.r, tx, t.typ, old, s.requiresIfMatch(t)); err != nil {
			return err
		}
		if b.derive != nil {
			if err := b.derive(old); err != nil {
				return err
			}
		}
		config := s.writeConfig(t)
		if len(b.nested) > 0 && t.set == nil {
			return BadRequest(CodeInvalidValue, b.nested[0].nav.Name, "Related entities are updated inline with the entities of an entity set only.")
		}
		if err := s.updateNestedBefore(ctx, tx, req, b, config, t.set); err != nil {
			return err
		}
		c := &Change{Op: op, Set: t.set, Singleton: writtenSingleton(t), Old: old, Sent: b.sent}
		if t.set != nil && t.typ != t.set.EntityType() {
			c.typ = t.typ
		}
		if stored, err = s.update(ctx, tx, c, config, b); err != nil {
			return err
		}
		return s.updateNestedAfter(ctx, tx, req, t.typ, stored, b, config, t.set)
	})
	if err != nil {
		return nil, s.dbError(err, false)
	}
	return stored, nil
}

// update saves the full update or patch c (its Op, Set or Singleton, Old and Sent set) with the values of b and
// returns the entity as stored.
func (s *Service) update(ctx context.Context, tx *Tx, c *Change, config *setConfig, b *body) (Entity, error) {
	et, op, old := c.EntityType(), c.Op, c.Old
	e := updateBase(et, config, op, old)
	details := append(b.details, applySent(et, config, op, e, old, b)...)
	if err := s.bindProperties(ctx, tx, e, b); err != nil {
		return nil, err
	}
	hidden, err := s.hiddenOf(ctx, et)
	if err != nil {
		return nil, err
	}
	keepHidden(et, e, old, hidden)
	// Lazy properties are not read with the entity: a full update keeps them unless they are sent.
	notLoaded := func(p *edm.Property) bool {
		_, loaded := old[p.Name]
		return p.Lazy && !loaded && !b.sent[p.Name]
	}
	details = append(details, missingRequired(et, e, func(p *edm.Property) bool { return notLoaded(p) || b.bad[p.Name] })...)
	c.New = e
	if err := saveHook(ctx, tx, config.Hooks.BeforeSave, c, details); err != nil {
		return nil, err
	}
	if err := tx.Update(ctx, et, storable(et, c.New, notLoaded)); err != nil {
		return nil, err
	}
	if err := s.bindLinks(ctx, tx, et, c.New, b); err != nil {
		return nil, err
	}
	return s.afterSave(ctx, tx, config, c)
}

// fixed reports whether an update cannot change p: a key, read-only or immutable property, or the UpsertBy one.
func (c *setConfig) fixed(p *edm.Property) bool {
	return p.IsKey() || p.Computed() || p.Immutable || p == c.upsert
}

// updateBase returns the entity an update of old starts from: for a patch the stored entity, for a full update
// the defaults with the stored values of the fixed properties.
func updateBase(et *edm.EntityType, config *setConfig, op Op, old Entity) Entity {
	if op == OpPatch {
		return maps.Clone(old)
	}
	e := defaults(et)
	for k, v := range old {
		if p := et.Property(k); p != nil && config.fixed(p) {
			e[k] = v
		}
	}
	return e
}

// applySent sets the values of b on e, the update of old (a complex value sent in part completed from the
// stored one by a patch). Values sent for fixed properties are ignored; with RejectKeyChange it returns a
// detail for each that differs from the stored one.
func applySent(et *edm.EntityType, config *setConfig, op Op, e, old Entity, b *body) []ErrorDetail {
	var details []ErrorDetail
	for _, p := range et.Properties {
		if !b.sent[p.Name] || b.bad[p.Name] {
			continue
		}
		v := b.vals[p.Name]
		if config.fixed(p) {
			if refused := config.refuseChange(p, v, old); refused != nil && config.RejectKeyChange {
				details = append(details, *refused)
			}
			continue
		}
		var base any
		if op == OpPatch {
			base = old[p.Name]
		}
		e[p.Name] = fillComplex(p, v, base)
	}
	return details
}

// refuseChange returns the detail refusing v, sent for the fixed property p, when it differs from the value old
// holds; nil when it is the same, or when p was not read with old and is stored in a column (a lazy property).
func (c *setConfig) refuseChange(p *edm.Property, v any, old Entity) *ErrorDetail {
	stored, loaded := old[p.Name]
	if !loaded && p.SQL == "" || sameValue(p, v, stored, p.IsKey() && c.CaseInsensitiveKey) {
		return nil
	}
	msg := " does not match the entity being updated; it cannot be changed."
	if p.Immutable && !p.IsKey() && p != c.upsert {
		msg = " cannot be changed once the entity exists."
	}
	return &ErrorDetail{Code: CodeInvalidValue, Target: p.Name, Message: p.Name + msg}
}

// delete answers DELETE on Set(key): Config.DeleteStatus (204, or 200 with an empty body).
func (s *Service) delete(req *request) error {
	t := req.target
	config := s.sets[t.set]
	et := t.typ
	ctx := req.r.Context()
	err := s.inTx(ctx, func(tx *Tx) error {
		where, err := s.targetWhere(t)
		if err != nil {
			return err
		}
		if where, err = s.visibleWhere(ctx, et, where); err != nil {
			return err
		}
		old, err := tx.getWhere(ctx, et, where, true)
		if err != nil {
			return err
		}
		if err := s.checkIfMatch(req.r, tx, et, old, s.requiresIfMatch(t)); err != nil {
			return err
		}
		if config.Hooks.BeforeDelete != nil {
			if err := config.Hooks.BeforeDelete(ctx, tx, old); err != nil {
				return err
			}
		}
		key, err := entityKey(et, old)
		if err != nil {
			return err
		}
		return tx.Delete(ctx, et, key...)
	})
	if err != nil {
		return s.dbError(err, true)
	}
	h := req.w.Header()
	h["Odata-Version"] = req.version.header()
	if s.deleteStatus == http.StatusOK {
		h.Set("Content-Length", "0")
	}
	req.w.WriteHeader(s.deleteStatus)
	return nil
}

// checkIfMatch checks the preconditions of a change of the stored entity old: 428 when required (the set's
// RequireIfMatch) and the request has no If-Match header; 412 when the request has an If-Match header that
// matches neither "*" nor the entity's ETag, or an If-None-Match header that matches "*" (the entity exists) or
// its ETag (RFC 9110, 13.1.2: a write with If-None-Match applies only when no tag matches).
func (s *Service) checkIfMatch(r *http.Request, tx *Tx, et *edm.EntityType, old Entity, required bool) error {
	ifMatch := strings.Join(r.Header.Values("If-Match"), ",")
	ifNoneMatch := strings.Join(r.Header.Values("If-None-Match"), ",")
	if required && strings.TrimSpace(ifMatch) == "" {
		return &Error{Code: CodePreconditionRequired, Target: "If-Match",
			Message: "A " + et.Name + " is changed only with an If-Match header carrying the ETag it was read with (optimistic concurrency): read it and send its ETag."}
	}
	if strings.TrimSpace(ifMatch) == "" && strings.TrimSpace(ifNoneMatch) == "" {
		return nil
	}
	for _, c := range [...]struct{ name, list string }{{"If-Match", ifMatch}, {"If-None-Match", ifNoneMatch}} {
		if strings.TrimSpace(c.list) == "" {
			continue
		}
		if err := checkETagList(c.name, c.list); err != nil {
			return err
		}
	}
	l, err := s.answerLayout(r.Context(), et)
	if err != nil {
		return err
	}
	writer := entityWriter{layout: l}
	sum, err := writer.etag(old)
	if err != nil {
		return err
	}
	if strings.TrimSpace(ifMatch) != "" && !etagMatches(ifMatch, sum) {
		return &Error{Code: CodePreconditionFailed,
			Message: fmt.Sprintf("The %s has changed since it was read (its ETag is %s): read it again.", et.Name, formatETag(sum))}
	}
	if strings.TrimSpace(ifNoneMatch) != "" && etagMatches(ifNoneMatch, sum) {
		return &Error{Code: CodePreconditionFailed, Target: "If-None-Match",
			Message: fmt.Sprintf("The %s exists with an ETag the If-None-Match header names (%s): it is not changed.", et.Name, formatETag(sum))}
	}
	return nil
}

// etagMatches reports whether a list of entity tags (If-Match, If-None-Match) holds "*" or the ETag of sum. The
// comparison is weak: W/ prefixes are ignored.
func etagMatches(list string, sum uint64) bool {
	var opaque [18]byte
	want := appendETag(opaque[:0], sum)[2:] // "0123456789abcdef" with quotes
	for _, tag := range strings.Split(list, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" {
			return true
		}
		tag = strings.TrimPrefix(tag, "W/")
		if tag == string(want) {
			return true
		}
	}
	return false
}

// writeEntity answers a saved entity: the entity with its ETag, or for Prefer: return=minimal 204 with
// OData-EntityId. A create carries Location.
func (s *Service) writeEntity(req *request, status int, es *edm.EntitySet, et *edm.EntityType, e Entity) error {
	key, err := entityKey(et, e)
	if err != nil {
		return err
	}
	return s.writeStored(req, status, et, es.Name+formatKey(et, key), es.Name+"/$entity", e)
}

// writeStored answers a write with the entity e of type et stored at path (relative to the service root), its
// context URL's fragment fragment.
func (s *Service) writeStored(req *request, status int, et *edm.EntityType, path, fragment string, e Entity) error {
	url := req.base() + "/" + path
	l, err := s.answerLayout(req.r.Context(), et)
	if err != nil {
		return err
	}
	if t := req.target; t != nil && t.set != nil && t.set.EntityType() != et {
		// An entity of a derived type in its base type's set: its answer says its type.
		derived := *l
		derived.expected = t.set.EntityType()
		l = &derived
	}
	writer := entityWriter{layout: l}
	sum, err := writer.etag(e)
	if err != nil {
		return err
	}
	h := req.w.Header()
	h.Set("ETag", formatETag(sum))
	h["Odata-Version"] = req.version.header()
	if status == http.StatusCreated {
		h.Set("Location", url)
		h.Set("OData-EntityId", url)
	}
	if parsePrefer(req.r.Header).minimal {
		h.Set("OData-EntityId", url)
		h.Set("Preference-Applied", "return=minimal")
		req.w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if err := req.negotiateJSON(); err != nil {
		req.format = jsonFormat{} // the write is done: answer in the default format rather than refuse it
	}
	ctx := req.contextMember(fragment)
	b, err := writer.appendEntity(nil, e, ctx, req.answer(), path)
	if err != nil {
		return err
	}
	req.jsonHeaders()
	req.w.WriteHeader(status)
	_, err = req.w.Write(b)
	return err
}

package odata

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// Entity references ($ref): the references of a navigation's targets are read with GET and changed with POST
// (add to a collection), PUT (set a single-valued navigation) and DELETE (remove one, or empty a single-valued
// one), on Set(key)/Nav/$ref and Set(key)/Nav(key)/$ref. A change of references changes links only (a link
// table's rows or the foreign key columns of the join), in one transaction, when the entity's set offers
// PATCH; hooks do not run. Both entities must be visible through the row filters.

// ref resolves the $ref segment i, which ends the path after a collection or an entity.
func (r *pathResolver) ref(i int) error {
	t := r.target
	switch {
	case i+1 < len(r.segments):
		return NotFound("No segment may follow $ref.")
	case t.kind != tCollection && t.kind != tEntity:
		return BadRequest(CodeBadRequest, "path", "$ref follows a collection or an entity.")
	}
	t.ref = true
	return nil
}

// refBase is the start of the ids of the entities t addresses: the service root and their entity set, or
// their container's path for contained entities.
func (s *Service) refBase(req *request) string {
	t := req.target
	if t.ctxSet != nil {
		return req.base() + "/" + t.ctxSet.Name
	}
	return req.base() + "/" + t.containedBase
}

// appendRef appends a reference object {"@odata.context": ..., "@odata.id": id}; ctx is the context member
// with its trailing comma-free JSON, or nil.
func appendRef(b, ctx []byte, id string) []byte {
	b = append(b, '{')
	if ctx != nil {
		b = append(append(b, ctx...), ',')
	}
	b = append(b, `"@odata.id":`...)
	b = appendString(b, id)
	return append(b, '}')
}

// writeRef answers the reference of the one entity writer holds.
func (s *Service) writeRef(req *request, writer *rowWriter) error {
	var ctx []byte
	if !req.noMetadata() {
		ctx = req.appendContext(nil, "$ref")
	}
	req.jsonHeaders()
	req.w.WriteHeader(http.StatusOK)
	_, err := req.w.Write(appendRef(nil, ctx, s.refBase(req)+rowKey(writer)))
	return err
}

// refLink is what a change of references works on: the navigation, and the target addressing the entity it
// starts from (a direct Set(key)).
type refLink struct {
	nav    *edm.NavigationProperty
	parent *target
}

// refLinkOf returns the link a $ref target changes, nil when its references cannot be changed: the path is
// not Set(key)/Nav[(key)]/$ref, the navigation is a containment, or the set does not offer PATCH.
func (s *Service) refLinkOf(t *target) *refLink {
	if !t.ref || t.scope.Set == nil || t.scope.Key == nil || len(t.scope.Path) != 1 {
		return nil
	}
	n := t.scope.Path[0].Nav
	if n.ContainsTarget || s.sets[t.scope.Set].Writes&WritePatch == 0 {
		return nil
	}
	parentScope, _ := t.scope.Parent()
	parent := &target{kind: tEntity, typ: t.scope.Set.EntityType(), scope: parentScope, set: t.scope.Set, direct: true, single: true}
	return &refLink{nav: n, parent: parent}
}

// refMethods is the Allow header of a $ref target.
func (s *Service) refMethods(t *target) string {
	link := s.refLinkOf(t)
	switch {
	case link == nil:
		return "GET"
	case !link.nav.Collection:
		return "GET, PUT, DELETE"
	case t.kind == tCollection:
		return "GET, POST, DELETE"
	}
	return "GET, DELETE"
}

// refRequest answers a request to a $ref target.
func (s *Service) refRequest(req *request, method string) error {
	if method == http.MethodGet {
		q, err := syntax.ParseQuery(req.r.URL.RawQuery)
		if err != nil {
			return syntaxError(err)
		}
		if len(q.Select) > 0 || len(q.Expand) > 0 {
			return BadRequest(CodeBadRequest, "$ref", "$select and $expand do not apply to references.")
		}
		return s.readEntities(req)
	}
	t := req.target
	link := s.refLinkOf(t)
	ctx := req.r.Context()
	var err error
	switch {
	case method == http.MethodDelete && t.kind == tCollection:
		err = s.deleteRefByID(req, link)
	case method == http.MethodDelete:
		err = s.inTx(ctx, func(tx *Tx) error { return s.unlink(ctx, tx, link, t) })
	default: // POST to a collection, PUT to a single-valued navigation
		var id *target
		if id, err = s.refBody(req, link.nav.TargetType()); err == nil {
			err = s.inTx(ctx, func(tx *Tx) error { return s.link(ctx, tx, link, id) })
		}
	}
	if err != nil {
		return s.dbError(err, false)
	}
	req.w.Header()["Odata-Version"] = req.version.header()
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

// deleteRefByID removes the reference a DELETE of Set(key)/Nav/$ref names in $id.
func (s *Service) deleteRefByID(req *request, link *refLink) error {
	q, err := syntax.ParseQuery(req.r.URL.RawQuery)
	if err != nil {
		return syntaxError(err)
	}
	if q.ID == "" {
		return BadRequest(CodeBadRequest, "$id", "Name the reference to remove in $id, or address it: Nav(key)/$ref.")
	}
	id, err := s.entityOfID(req, q.ID, link.nav.TargetType(), "$id")
	if err != nil {
		return err
	}
	ctx := req.r.Context()
	return s.inTx(ctx, func(tx *Tx) error { return s.unlink(ctx, tx, link, id) })
}

// refBody reads the body of a POST or PUT of a reference, {"@odata.id": "Set(key)"}, and returns the target of
// the entity it names.
func (s *Service) refBody(req *request, want *edm.EntityType) (*target, error) {
	members, err := readJSONBody(req.r, true, s.limitsOf(req.target).bodyBytes)
	if err != nil {
		return nil, err
	}
	var id string
	for _, m := range members {
		if m.name == "@odata.id" || m.name == "@id" {
			if err := json.Unmarshal(m.raw, &id); err != nil {
				return nil, BadRequest(CodeInvalidValue, "@odata.id", "@odata.id must be a string: the URL of an entity.")
			}
		}
	}
	if id == "" {
		return nil, BadRequest(CodeRequired, "@odata.id", "The body must name the entity in @odata.id.")
	}
	return s.entityOfID(req, id, want, "@odata.id")
}

// entityOfID resolves an entity id (an absolute URL under the service root, or a path relative to it, such as
// Products(5)) to the target of that entity, which must be an entity of a set of type want.
func (s *Service) entityOfID(req *request, id string, want *edm.EntityType, option string) (*target, error) {
	bad := func(why string) error {
		return BadRequest(CodeInvalidValue, option, fmt.Sprintf("%q does not name an entity of %s: %s", id, want.Name, why))
	}
	rest, ours := req.idPath(id)
	if !ours {
		return nil, bad("it is not a URL of this service")
	}
	path, err := syntax.ParsePath(rest)
	if err != nil {
		return nil, bad("it is not a resource path")
	}
	t, err := s.resolve(rest, path)
	if err != nil {
		return nil, bad("no such resource")
	}
	if t.kind != tEntity || !t.direct || t.typ != want {
		return nil, bad("it must be Set(key) of a set of " + want.Name)
	}
	return t, nil
}

// idPath returns the path an entity id names below the service root, still percent-encoded: the id relative to
// the root (Mount and a leading "/" may come first), or absolute under the service's root URL; false for an
// absolute URL of another service.
func (req *request) idPath(id string) (string, bool) {
	rest := id
	if base := req.base(); strings.HasPrefix(rest, base+"/") {
		rest = rest[len(base)+1:]
	} else if strings.Contains(rest, "://") {
		return "", false
	}
	return strings.TrimPrefix(strings.TrimPrefix(rest, "/"), strings.TrimPrefix(req.service.mount, "/")+"/"), true
}

// link adds the entity of id to the references of link (POST), or makes it the reference (PUT).
func (s *Service) link(ctx context.Context, tx *Tx, link *refLink, id *target) error {
	sourceKey, err := s.readKey(ctx, tx.Tx, link.parent)
	if err != nil {
		return err
	}
	targetKey, err := s.bodyEntityKey(ctx, tx, id, "@odata.id")
	if err != nil {
		return err
	}
	return linkKeys(ctx, tx, link.nav, link.parent.typ, sourceKey, targetKey)
}

// linkKeys links the entity of source with sourceKey to the target of n with targetKey: a link row, the
// target's columns of a back reference, or the source's columns of a to-one navigation.
func linkKeys(ctx context.Context, tx *Tx, n *edm.NavigationProperty, source *edm.EntityType, sourceKey, targetKey []any) error {
	j, target := n.Join, n.TargetType()
	switch {
	case j.Through != nil:
		sourceVals, err := tx.columnValues(ctx, source, sourceKey, j.SourceColumns)
		if err != nil {
			return err
		}
		targetVals, err := tx.columnValues(ctx, target, targetKey, j.TargetColumns)
		if err != nil {
			return err
		}
		return tx.addLinkRow(ctx, j.Through, sourceVals, targetVals)
	case n.Collection:
		sourceVals, err := tx.columnValues(ctx, source, sourceKey, j.SourceColumns)
		if err != nil {
			return err
		}
		return tx.setColumns(ctx, target, targetKey, j.TargetColumns, sourceVals)
	}
	targetVals, err := tx.columnValues(ctx, target, targetKey, j.TargetColumns)
	if err != nil {
		return err
	}
	return tx.setColumns(ctx, source, sourceKey, j.SourceColumns, targetVals)
}

// unlink removes the reference of link to the entity of id (for a single-valued navigation, whichever it is).
func (s *Service) unlink(ctx context.Context, tx *Tx, link *refLink, id *target) error {
	j, n := link.nav.Join, link.nav
	sourceKey, err := s.readKey(ctx, tx.Tx, link.parent)
	if err != nil {
		return err
	}
	source, target := link.parent.typ, n.TargetType()
	if !n.Collection {
		if !n.Nullable {
			return BadRequest(CodeInvalidValue, n.Name, fmt.Sprintf("%s is required: set another reference with PUT instead.", n.Name))
		}
		return tx.setColumns(ctx, source, sourceKey, j.SourceColumns, make([]any, len(j.SourceColumns)))
	}
	targetKey, err := s.readKey(ctx, tx.Tx, id)
	if err != nil {
		return err
	}
	sourceVals, err := tx.columnValues(ctx, source, sourceKey, j.SourceColumns)
	if err != nil {
		return err
	}
	if j.Through != nil {
		targetVals, err := tx.columnValues(ctx, target, targetKey, j.TargetColumns)
		if err != nil {
			return err
		}
		return tx.deleteLinkRow(ctx, j.Through, sourceVals, targetVals)
	}
	if !columnsNullable(target, j.TargetColumns, n.Partner) {
		return BadRequest(CodeInvalidValue, n.Name, fmt.Sprintf("A %s cannot be without its %s: delete it, or link it elsewhere.", target.Name, link.parent.typ.Name))
	}
	where := sq.And{}
	for i, c := range j.TargetColumns {
		where = append(where, sq.Eq{tx.names().QuoteIdent(c): sourceVals[i]})
	}
	return tx.setColumnsWhere(ctx, target, targetKey, j.TargetColumns, make([]any, len(j.TargetColumns)), where)
}

// columnsNullable reports whether the columns of et may be null: their properties are nullable, or, for
// columns without a property, the partner navigation is.
func columnsNullable(et *edm.EntityType, columns []string, partner string) bool {
	for _, c := range columns {
		if p := columnProperty(et, c); p != nil && !p.Nullable {
			return false
		}
	}
	if n := et.Navigation(partner); n != nil && partner != "" {
		return n.Nullable
	}
	return true
}

// columnValues reads the values of columns of the entity of et with the given key, as the driver returns them.
func (tx *Tx) columnValues(ctx context.Context, et *edm.EntityType, key []any, columns []string) ([]any, error) {
	where, err := keyWhere(tx.Dialect(), tx.names(), et, key, false)
	if err != nil {
		return nil, err
	}
	quoted := make([]string, len(columns))
	for i, c := range columns {
		quoted[i] = tx.names().QuoteIdent(c)
	}
	values := make([]any, len(columns))
	ptrs := make([]any, len(columns))
	for i := range values {
		ptrs[i] = &values[i]
	}
	err = tx.Builder().Select(quoted...).From(tx.names().QuoteIdent(et.Table)).Where(where).QueryRowContext(ctx).Scan(ptrs...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, entityNotFound(et)
	}
	return values, err
}

// setColumns sets columns of the entity of et with the given key to values.
func (tx *Tx) setColumns(ctx context.Context, et *edm.EntityType, key []any, columns []string, values []any) error {
	return tx.setColumnsWhere(ctx, et, key, columns, values, nil)
}

// setColumnsWhere is setColumns for the entity when it also meets and (when not nil); a 404 when none does.
func (tx *Tx) setColumnsWhere(ctx context.Context, et *edm.EntityType, key []any, columns []string, values []any, and sq.Sqlizer) error {
	where, err := keyWhere(tx.Dialect(), tx.names(), et, key, false)
	if err != nil {
		return err
	}
	update := tx.Builder().Update(tx.names().QuoteIdent(et.Table)).Where(where)
	if and != nil {
		update = update.Where(and)
	}
	for i, c := range columns {
		update = update.Set(tx.names().QuoteIdent(c), values[i])
	}
	update = bumpRowVersion(tx.names(), et, update)
	res, err := update.ExecContext(ctx)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return NotFound("The reference does not exist.")
	}
	tx.record(et, key)
	return nil
}

// addLinkRow adds a row to a link table unless it holds it already.
func (tx *Tx) addLinkRow(ctx context.Context, l *edm.LinkTable, sourceVals, targetVals []any) error {
	where := linkWhere(tx, l, sourceVals, targetVals)
	var one int
	err := tx.Builder().Select("1").From(tx.names().QuoteIdent(l.Table)).Where(where).Limit(1).QueryRowContext(ctx).Scan(&one)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	columns := make([]string, 0, len(l.SourceColumns)+len(l.TargetColumns))
	for _, c := range append(append([]string(nil), l.SourceColumns...), l.TargetColumns...) {
		columns = append(columns, tx.names().QuoteIdent(c))
	}
	_, err = tx.Builder().Insert(tx.names().QuoteIdent(l.Table)).Columns(columns...).
		Values(append(append([]any(nil), sourceVals...), targetVals...)...).ExecContext(ctx)
	return err
}

// deleteLinkRow removes a row of a link table; a 404 when there is none.
func (tx *Tx) deleteLinkRow(ctx context.Context, l *edm.LinkTable, sourceVals, targetVals []any) error {
	res, err := tx.Builder().Delete(tx.names().QuoteIdent(l.Table)).Where(linkWhere(tx, l, sourceVals, targetVals)).ExecContext(ctx)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return NotFound("The reference does not exist.")
	}
	return nil
}

// linkWhere selects the row of a link table that links the given values.
func linkWhere(tx *Tx, l *edm.LinkTable, sourceVals, targetVals []any) sq.And {
	where := sq.And{}
	for i, c := range l.SourceColumns {
		where = append(where, sq.Eq{tx.names().QuoteIdent(c): sourceVals[i]})
	}
	for i, c := range l.TargetColumns {
		where = append(where, sq.Eq{tx.names().QuoteIdent(c): targetVals[i]})
	}
	return where
}

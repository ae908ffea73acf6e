package odata

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/syntax"
)

// $all (OData 4.01 URL Conventions 4.16, "Addressing All Entities in a Service") is the collection of the
// entities of every entity set and singleton, $all/Ns.Type those of the type (and its derived types). It is read
// as the GETs of the sets, then of the singletons, in the order the model declares them, with the request's
// options, so
// that each set's row filter, redactions, capabilities and limits apply as to a GET of it; $top, $skip and
// $count count across the sets, and a page holds the entities of as many sets as it has room for. Its answer is a
// Collection(Edm.EntityType), each entity with its @odata.type and @odata.id (JSON Format 4.01, 4.5.3, 4.5.8).
// See DESIGN.md, "All entities".

// allFragment is the context URL fragment of $all.
const allFragment = "Collection(Edm.EntityType)"

// all resolves the path $all, or $all/Ns.Type (segment 1): the entities of every entity set, or those of the
// type.
func (r *pathResolver) all() error {
	t := r.target
	t.kind = tAll
	if len(r.segments) < 2 {
		return nil
	}
	seg := r.segments[1]
	et := r.service.model.EntityType(seg.Name)
	if et == nil {
		return NotFound(fmt.Sprintf("The service has no entity type %s.", seg.Name))
	}
	t.cast = et
	return nil
}

// allMembers returns the targets of the GETs $all stands for, one per entity set whose entities may be of the
// type cast (all sets when cast is nil): the set itself when its type is cast or derives from it, the set
// narrowed to cast (Set/Ns.Type) when cast derives from its type; then one per singleton of the type.
func (s *Service) allMembers(cast *edm.EntityType) []*target {
	var out []*target
	for _, es := range s.model.EntitySets {
		et := es.EntityType()
		t := &target{kind: tCollection, typ: et, set: es, ctxSet: es, direct: true, scope: plan.Scope{Set: es}, path: es.Name}
		switch {
		case cast == nil || et.IsA(cast):
		case cast.IsA(et):
			t.typ, t.set, t.direct, t.cast, t.scope.Cast = cast, nil, false, cast, cast
			t.path += "/" + s.model.Namespace + "." + cast.Name
		default:
			continue
		}
		out = append(out, t)
	}
	for _, sg := range s.model.Singletons {
		if et := sg.EntityType(); cast == nil || et.IsA(cast) {
			out = append(out, &target{kind: tEntity, typ: et, single: true, ctxPath: sg.Name, entityID: sg.Name,
				scope: plan.Scope{Singleton: sg}, path: sg.Name})
		}
	}
	return out
}

// searchable returns the members whose type has searchable properties: $search on $all looks for the terms in
// the sets that can be searched (URL Conventions 4.16's example is $all?$search=red), where a GET of a set without
// searchable properties is a 501.
func searchable(members []*target) []*target {
	var out []*target
	for _, m := range members {
		if slices.ContainsFunc(m.typ.Properties, func(p *edm.Property) bool { return p.Searchable }) {
			out = append(out, m)
		}
	}
	return out
}

// allPage is the state of a page of $all under way: what is left of $top and $skip, the room left on the page,
// and the $skiptoken of the next page once one is known.
type allPage struct {
	top, skip int64 // -1: no $top
	room      int
	next      string
	written   int
}

// readAll answers a GET of $all: a page of the entities of the sets, the count of all when asked, and a next
// link whose $skiptoken names the set to go on with and where in it ("2.<token of the set's next page>").
func (s *Service) readAll(req *request) error {
	if err := req.negotiateJSON(); err != nil {
		return err
	}
	q := req.query
	if len(q.Apply) > 0 {
		return Errorf(CodeNotImplemented, "$apply is not supported on $all: apply it to an entity set.")
	}
	members := s.allMembers(req.target.cast)
	if q.Search != nil {
		members = searchable(members)
	}
	start, inner, err := allSkipToken(q.SkipToken, len(members))
	if err != nil {
		return err
	}
	base := syntax.SplitQuery(req.r.URL.RawQuery).Without("$top", "$skip", "$skiptoken", "$count")
	size, preferred := s.pageSizeFor(req.r, req.target)
	p := &allPage{top: -1, room: size}
	if q.Top != nil {
		p.top = *q.Top
	}
	if q.Skip != nil {
		p.skip = *q.Skip
	}
	count := int64(-1)
	if q.Count != nil && *q.Count {
		if count, err = s.countAll(req, members, base); err != nil {
			return err
		}
	}
	var page pageWriter
	page.start(req, allFragment, count, size, preferred)
	defer page.release()
	for i := start; i < len(members) && p.room > 0 && p.top != 0; i++ {
		query := base
		if i == start && inner != "" {
			query = query.With("$skiptoken", inner)
		}
		if err = s.readAllMember(req, &page, members[i], query, p); err != nil {
			break
		}
		if p.next != "" {
			p.next = strconv.Itoa(i) + "." + p.next
			break
		}
		if p.room == 0 && p.top != 0 && i+1 < len(members) {
			p.next = strconv.Itoa(i+1) + "."
		}
	}
	if err == nil {
		err = page.finishAll(req, base, p)
	}
	return page.end(s, req, err)
}

// allSkipToken reads the $skiptoken of a next page of $all: the index of the set to go on with, a dot, and the
// $skiptoken of that set's next page ("" to start it from its beginning).
func allSkipToken(token string, sets int) (int, string, error) {
	if token == "" {
		return 0, "", nil
	}
	index, inner, ok := strings.Cut(token, ".")
	i, err := strconv.Atoi(index)
	if !ok || err != nil || i < 0 || i >= sets {
		return 0, "", BadRequest(CodeInvalidValue, "$skiptoken", "The $skiptoken is not one of this service's next links.")
	}
	return i, inner, nil
}

// countAll returns the number of entities of the members with the options of base ($filter, $search), each under
// its row filter.
func (s *Service) countAll(req *request, members []*target, base syntax.QueryString) (int64, error) {
	var total int64
	for _, m := range members {
		n, err := s.countMember(req, m, base.String())
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// countMember returns the number of entities of the GET of m with the options raw.
func (s *Service) countMember(req *request, m *target, raw string) (int64, error) {
	if m.single {
		row, err := s.readSingleton(req, m, syntax.SplitQuery(raw))
		if err != nil || row == nil {
			return 0, err
		}
		return 1, nil
	}
	sub := *req
	sub.target = m
	read, _, err := s.planQuery(&sub, m.scope, raw)
	if err != nil {
		return 0, err
	}
	query, args := read.Count()
	var n int64
	if err := s.db.QueryRowContext(req.r.Context(), query, args...).Scan(&n); err != nil {
		return 0, s.readError(err)
	}
	return n, nil
}

// readAllMember writes the entities of the GET of m with the options query that the page has room for, after
// what is left of $skip, and notes in p what is left of $top, $skip and the room, and the $skiptoken of the
// set's next page when it has more.
func (s *Service) readAllMember(req *request, page *pageWriter, m *target, query syntax.QueryString, p *allPage) error {
	if err := s.checkReadable(req.r.Context(), m); err != nil {
		return err
	}
	if m.single {
		return s.readAllSingleton(req, page, m, query, p)
	}
	if p.skip > 0 {
		n, err := s.countMember(req, m, query.String())
		if err != nil {
			return err
		}
		if n <= p.skip {
			p.skip -= n
			return nil
		}
		query, p.skip = query.With("$skip", strconv.FormatInt(p.skip, 10)), 0
	}
	// A set's own page size bounds its part of the page, as it bounds a page of its GET; what is left of $top is
	// the set's $top, held to the set's MaxTop.
	room, _ := s.pageSizeFor(req.r, m)
	room = min(room, p.room)
	if p.top >= 0 {
		query = query.With("$top", strconv.FormatInt(p.top, 10))
		room = int(min(int64(room), p.top))
	}
	sub := *req
	sub.target = m
	read, shape, err := s.planQuery(&sub, m.scope, query.String())
	if err != nil {
		return err
	}
	rowsRead, ew, err := s.readAllRows(&sub, read, shape, room)
	if err != nil || len(rowsRead) == 0 {
		return err
	}
	writer := ew.writer
	n := min(len(rowsRead), room)
	for i, row := range rowsRead[:n] {
		if p.written > 0 || i > 0 {
			page.buf = append(page.buf, ',')
		}
		copy(writer.values, row)
		if err := writer.convert(); err != nil {
			return err
		}
		if page.buf, err = ew.expanded.appendRow(page.buf, writer, row); err != nil {
			return err
		}
		if err := page.flush(); err != nil {
			return err
		}
	}
	p.written += n
	p.room -= n
	if p.top >= 0 {
		p.top -= int64(n)
	}
	if len(rowsRead) > n && p.top != 0 {
		p.next, err = read.SkipToken(rowsRead[n-1])
	}
	return err
}

// singletonOptions are the options of $all that do not apply to a single entity: a singleton's part of $all is
// read without them, and left out when the request filters or searches (see readSingleton).
var singletonOptions = []string{"$filter", "$search", "$orderby", "$top", "$skip", "$skiptoken", "$count"}

// allSingleton is the entity of a singleton read for $all, with its writer.
type allSingleton struct {
	row  []any
	rows *allRows
}

// readSingleton reads the entity of the singleton m for $all with the options of query that apply to one entity
// ($select, $expand, $compute, ...): nil when the singleton has none, or when the request filters or searches
// ($filter and $search are not evaluated on a single entity, so no singleton is taken to match).
func (s *Service) readSingleton(req *request, m *target, query syntax.QueryString) (*allSingleton, error) {
	if query.Has("$filter", "$search") {
		return nil, nil
	}
	sub := *req
	sub.target = m
	read, shape, err := s.planQuery(&sub, m.scope, query.Without(singletonOptions...).String())
	if err != nil {
		return nil, err
	}
	rowsRead, rows, err := s.readAllRows(&sub, read, shape, 1)
	if err != nil || len(rowsRead) == 0 {
		return nil, err
	}
	return &allSingleton{row: rowsRead[0], rows: rows}, nil
}

// readAllSingleton writes the entity of the singleton m when the page has room for it and $skip is spent (else it
// spends one of $skip), as readAllMember does for a set.
func (s *Service) readAllSingleton(req *request, page *pageWriter, m *target, query syntax.QueryString, p *allPage) error {
	one, err := s.readSingleton(req, m, query)
	switch {
	case err != nil || one == nil:
		return err
	case p.skip > 0:
		p.skip--
		return nil
	}
	if p.written > 0 {
		page.buf = append(page.buf, ',')
	}
	writer := one.rows.writer
	copy(writer.values, one.row)
	if err := writer.convert(); err != nil {
		return err
	}
	if page.buf, err = one.rows.expanded.appendRow(page.buf, writer, one.row); err != nil {
		return err
	}
	p.written++
	p.room--
	if p.top > 0 {
		p.top--
	}
	return page.flush()
}

// allRows are the rows of one set of a page of $all and their writer.
type allRows struct {
	writer   *rowWriter
	expanded *expWriter
}

// readAllRows reads at most room rows of the read (one more when the set has more) with their expansions, and
// returns them with the writer that writes them as entities of $all: with their type and id.
func (s *Service) readAllRows(sub *request, read *plan.Read, shape *readShape, room int) ([][]any, *allRows, error) {
	query, args := read.Select(room)
	rows, err := s.db.QueryContext(sub.r.Context(), query, args...)
	if err != nil {
		return nil, nil, s.readError(err)
	}
	defer rows.Close()
	writer := newRowWriter(shape.layout)
	sub.setFormat(writer, shape.levelShape)
	more, err := s.firstRow(sub.r.Context(), sub.target, rows, writer)
	if err != nil || !more {
		return nil, nil, err
	}
	rowsRead, expanded, err := s.readExpandedPage(sub, shape, rows, writer, more, room)
	if err != nil {
		return nil, nil, err
	}
	untyped := *sub.answer()
	untyped.untyped = true
	writer.format = &untyped
	expanded.rootID = sub.target.rowPath
	return rowsRead, &allRows{writer: writer, expanded: expanded}, nil
}

// finishAll ends the envelope of a page of $all, with its next link when p has one: the request's options
// without $skip (spent), with what is left of $top and the page's $skiptoken.
func (w *pageWriter) finishAll(req *request, base syntax.QueryString, p *allPage) error {
	w.buf = append(w.buf, ']')
	if p.next != "" {
		next := base
		if p.top >= 0 {
			next = next.With("$top", strconv.FormatInt(p.top, 10))
		}
		if req.query.Count != nil && *req.query.Count {
			next = next.With("$count", "true")
		}
		next = next.With("$skiptoken", p.next)
		w.buf = append(w.buf, `,"@odata.nextLink":`...)
		w.buf = appendString(w.buf, req.base()+"/"+req.target.path+"?"+next.String())
	}
	w.buf = append(w.buf, '}')
	return w.close(req)
}

package odata

import (
	"fmt"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

// $crossjoin(Set1,...,SetN) (OData 4.01 URL Conventions, "Addressing the Cross Join of Entity Sets") answers the
// combinations of the sets' entities as a collection of instances of a complex type with one navigation property
// per set, named as the set. The planner reads a page of them in one statement (plan.Scope.CrossJoin); this file
// writes each row: an expanded member as its entity (with its own expansions, read per page as those of an
// entity set), any other as the navigation link to its entity, as the specification asks.

// crossJoin resolves the first segment $crossjoin(...): the entity sets it names, each once.
func (r *pathResolver) crossJoin(first syntax.Segment) error {
	t := r.target
	var sets []*edm.EntitySet
	for _, a := range first.Args[0].Args {
		p, _ := a.Value.(*syntax.Path)
		if p == nil || len(p.Segments) != 1 {
			return BadRequest(CodeSyntaxError, "path", "$crossjoin names entity sets.")
		}
		es := r.service.model.EntitySet(p.Segments[0].Name)
		if es == nil {
			return NotFound(fmt.Sprintf("The service has no entity set %s.", p.Segments[0].Name))
		}
		sets = append(sets, es)
	}
	t.kind, t.scope.CrossJoin = tCrossJoin, sets
	return nil
}

// crossJoinShape is how to write the rows of a $crossjoin read, derived once per plan (plan.Read.Memo).
type crossJoinShape struct {
	members []*memberShape
}

// memberShape is how to write one member of the rows of a $crossjoin.
type memberShape struct {
	member *plan.Member
	name   []byte      // `"Set":`
	link   []byte      // `"Set@odata.navigationLink":`
	shape  *levelShape // the entity and its expansions, when expanded
	// target stands for the entity set in the writers of its entities: their ids and links are Set(key).
	target *target
}

// buildCrossJoinShape is the Memo function of $crossjoin reads.
func (s *Service) buildCrossJoinShape(read *plan.Read) any {
	shape := &crossJoinShape{}
	for _, m := range read.Members() {
		ms := &memberShape{member: m, name: fieldName(m.Set.Name), link: fieldName(m.Set.Name + "@odata.navigationLink"),
			target: &target{kind: tCollection, typ: m.Set.EntityType(), set: m.Set, ctxSet: m.Set, direct: true,
				scope: plan.Scope{Set: m.Set}, path: m.Set.Name}}
		if m.Expanded {
			ms.shape = s.newShape(&m.Projection)
		}
		shape.members = append(shape.members, ms)
	}
	return shape
}

// memberWriter writes one expanded member of the rows of a page.
type memberWriter struct {
	writer   *rowWriter
	expanded *expWriter
}

// readCrossJoin answers a GET of $crossjoin(...): a page of the combinations, with @odata.count and the next
// link as for an entity set. The page is read whole first: the expansions of its members need every row.
func (s *Service) readCrossJoin(req *request) error {
	t, ctx := req.target, req.r.Context()
	read, err := s.planRead(ctx, t.scope, req.r.URL.RawQuery, s.limitsOf(t))
	if err != nil {
		return queryError(err)
	}
	req.query = read.Query()
	if err := req.negotiateJSON(); err != nil {
		return err
	}
	if agg := read.Aggregation(); agg != nil {
		return s.readAggregated(req, read, agg)
	}
	shape := read.Memo(s.crossJoinShapeFn).(*crossJoinShape)
	size, preferred := s.pageSizeFor(req.r, t)
	count, err := s.countIfAsked(ctx, read, req.query)
	if err != nil {
		return err
	}
	query, args := read.Select(size)
	var rowsRead [][]any
	err = s.each(ctx, query, args, len(read.Columns), func(row []any) error {
		rowsRead = append(rowsRead, append([]any(nil), row...))
		return nil
	})
	if err != nil {
		return err
	}
	page := rowsRead[:min(len(rowsRead), size)]
	writers := make([]*memberWriter, len(shape.members))
	for i, ms := range shape.members {
		if ms.shape == nil || !ms.member.Selected {
			continue
		}
		if writers[i], err = s.memberWriter(req, ms, page); err != nil {
			return err
		}
	}
	var pw pageWriter
	pw.start(req, "Collection(Edm.ComplexType)", count, size, preferred)
	defer pw.release()
	err = pw.writeCrossJoin(req, shape, writers, page)
	if err == nil {
		var last []any
		if len(rowsRead) > size {
			last = rowsRead[size-1]
		}
		err = pw.finish(req, read, last, size)
	}
	return pw.end(s, req, err)
}

// memberWriter reads the expansions of an expanded member for the rows of a page and returns its writer.
func (s *Service) memberWriter(req *request, ms *memberShape, page [][]any) (*memberWriter, error) {
	m := ms.member
	rows := make([][]any, len(page))
	for j, row := range page {
		rows[j] = row[m.Offset : m.Offset+len(m.Columns)]
	}
	writer := newRowWriter(ms.shape.layout)
	writer.format, writer.target, writer.expanded = req.answer(), ms.target, ms.shape.expandedNavigations()
	var expansions []*expansion
	if len(ms.shape.expands) > 0 && len(rows) > 0 {
		var err error
		if expansions, err = s.expand(req.r.Context(), ms.shape, rows); err != nil {
			return nil, err
		}
	}
	return &memberWriter{writer: writer, expanded: s.newExpWriter(req, ms.shape, writer, expansions)}, nil
}

// writeCrossJoin writes the rows of a page of a $crossjoin: per selected member, its entity when expanded, else
// its navigation link (none with odata.metadata=none, which has no links).
func (w *pageWriter) writeCrossJoin(req *request, shape *crossJoinShape, writers []*memberWriter, page [][]any) error {
	base := req.base()
	for i, row := range page {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = append(w.buf, '{')
		for j, ms := range shape.members {
			m := ms.member
			if !m.Selected {
				continue
			}
			values := row[m.Offset : m.Offset+len(m.Columns)]
			if mw := writers[j]; mw != nil {
				copy(mw.writer.values, values)
				if err := mw.writer.convert(); err != nil {
					return err
				}
				w.buf = appendName(w.buf, ms.name)
				var err error
				if w.buf, err = mw.expanded.appendRow(w.buf, mw.writer, values); err != nil {
					return err
				}
				continue
			}
			if req.noMetadata() {
				continue
			}
			key, err := memberKey(m, values)
			if err != nil {
				return err
			}
			w.buf = appendName(w.buf, ms.link)
			w.buf = appendString(w.buf, base+"/"+m.Set.Name+key)
		}
		w.buf = append(w.buf, '}')
		if err := w.flush(); err != nil {
			return err
		}
	}
	return nil
}

// memberKey returns the key predicate of a member's entity from its scanned values.
func memberKey(m *plan.Member, values []any) (string, error) {
	et := m.Set.EntityType()
	key := make([]any, len(m.Key))
	for i, c := range m.Key {
		column := m.Columns[c].Path
		v, err := sqldb.Scan(column[len(column)-1], values[c])
		if err != nil {
			return "", err
		}
		key[i] = v
	}
	return formatKey(et, key), nil
}

package odata

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

// Every GET of entities goes through the planner of odata/internal/plan: the target's scope and the raw query
// string make a *plan.Read (compiled once per scope shape and query text, then cached), whose statements this
// file runs and whose rows it writes. Pages without $expand stream: each row is written as it is scanned. With
// $expand the rows of a page are read first, then each expanded navigation is one query for the whole page,
// stitched to the parents by plan.LinkKey.

// read answers a GET.
func (s *Service) read(req *request) error {
	switch req.target.kind {
	case tCount:
		return s.readCount(req)
	case tMediaValue:
		return s.readMedia(req)
	case tPropertyValue:
		return s.readProperty(req)
	case tCollection, tEntity:
		return s.readEntities(req)
	case tCrossJoin:
		return s.readCrossJoin(req)
	case tAll:
		return s.readAll(req)
	case tProperty:
		if err := req.negotiateJSON(); err != nil {
			return err
		}
		return s.readProperty(req)
	}
	return NotFound("No resource matches the path.")
}

// queryError turns an error of the planner into the answer: 400 naming the option, or 501 for valid OData the
// engine does not translate.
func queryError(err error) error {
	var planErr *plan.Error
	if !errors.As(err, &planErr) {
		return err
	}
	if planErr.Code == plan.CodeNotSupported {
		return &Error{Code: CodeNotImplemented, Target: planErr.Option, Message: planErr.Error(), Err: err}
	}
	message := optionMessage(planErr.Code, planErr.Option, planErr.Error())
	return &Error{Code: planErr.Code, Target: planErr.Option, Message: message, Err: err}
}

// readError gives a database error of a read its meaning for the client: values of the query the database
// cannot compute with (an overflow, an invalid pattern) are the client's (400), a busy database is 503.
func (s *Service) readError(err error) error {
	if err == nil {
		return nil // before the errors.As, whose target escapes: no allocation on the way of every read
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	switch s.db.Dialect().ClassifyError(err) {
	case sqldb.ErrInvalidData:
		return &Error{Code: CodeInvalidValue, Err: err,
			Message: "The database cannot compute the query with the values it gives (a number out of range, an invalid pattern or a value too long)."}
	case sqldb.ErrRetry:
		return busyError(err)
	case sqldb.ErrUnavailable, sqldb.ErrReadOnly, sqldb.ErrFull:
		return faultError(s.db.Dialect().ClassifyError(err), err)
	}
	return err
}

// readShape is what the service derives once from a compiled plan (plan.Read.Memo): how to write its rows.
type readShape struct {
	*levelShape
	selectList string // the context URL's select list, "(Name,Products())", or ""
}

// levelShape is how to write the rows of one level of a read: the root entities or the children of an expansion.
type levelShape struct {
	layout  *layout
	expands []*expandShape
}

// expandShape is one expanded navigation property.
type expandShape struct {
	expand *plan.Expand
	name   []byte // `"Nav":`
	count  []byte // `"Nav@odata.count":`
	child  *levelShape
	// set is the entity set of the targets, for the ids of $ref; nil when they are contained (their id is the
	// parent's followed by the navigation).
	set *edm.EntitySet
}

// buildShape is the Memo function of reads (Service.shapeFn).
func (s *Service) buildShape(read *plan.Read) any {
	return &readShape{levelShape: s.newShape(read.Projection), selectList: selectList(s.model, read.Type, read.Query())}
}

// newShape returns how to write the rows of a projection and of its expansions.
func (s *Service) newShape(p *plan.Projection) *levelShape {
	shape := &levelShape{layout: layoutOf(p)}
	for _, expand := range p.Expands {
		navigation := &expandShape{expand: expand, name: fieldName(expand.Nav.Name),
			count: fieldName(expand.Nav.Name + "@odata.count"), child: s.newShape(&expand.Projection)}
		if target := expand.Nav.TargetType(); navigation.child.layout.typ != target {
			navigation.child.layout.expected = target // a cast in $expand: the context implies the target's type
		}
		if !expand.Nav.ContainsTarget {
			navigation.set = s.model.EntitySetOf(expand.Nav.TargetType())
		}
		shape.expands = append(shape.expands, navigation)
	}
	return shape
}

// needsIDs reports whether writing the children of sh in the format needs the ids of its rows: contained
// children whose own id is written ($ref, full metadata, a $select without their key) are below them.
func (sh *levelShape) needsIDs(format *answerFormat) bool {
	for _, navigation := range sh.expands {
		child := navigation.child
		ownID := navigation.expand.Ref || format != nil && format.needsPath(child.layout)
		if ownID && navigation.set == nil || child.needsIDs(format) {
			return true
		}
	}
	return false
}

// expandedNavigations returns the navigation properties sh expands.
func (sh *levelShape) expandedNavigations() []*edm.NavigationProperty {
	var out []*edm.NavigationProperty
	for _, navigation := range sh.expands {
		out = append(out, navigation.expand.Nav)
	}
	return out
}

// plan plans the read of the request's target with its query string.
func (s *Service) plan(req *request, scope plan.Scope) (*plan.Read, *readShape, error) {
	raw := req.r.URL.RawQuery
	if req.tracking != nil {
		raw = req.tracking.query
	}
	return s.planQuery(req, scope, raw)
}

// planQuery plans the read of scope, the rows of the request's target, with the query string raw.
func (s *Service) planQuery(req *request, scope plan.Scope, raw string) (*plan.Read, *readShape, error) {
	ctx := req.r.Context()
	limits := req.limits
	if limits == nil {
		limits = s.limitsOf(req.target)
	}
	var room *plan.Read
	if !req.readRoomUsed {
		room, req.readRoomUsed = &req.readRoom, true
	}
	read, err := s.planReadIn(ctx, scope, raw, limits, room)
	if err != nil {
		if refused := s.restrictedInvalid(req.target, raw, limits); refused != nil {
			return nil, nil, refused
		}
		return nil, nil, queryError(err)
	}
	if err := s.restrictedOptions(req.target, read.Query(), read.Projection.Expands); err != nil {
		return nil, nil, err
	}
	req.query = read.Query()
	return read, read.Memo(s.shapeFn).(*readShape), nil
}

// selectList returns the select list of the context URL of a read of et with the options q, in OData 4.0 form:
// the selected properties (member paths as given), then each expanded navigation property followed by the
// select list of its own options in parentheses ("Category(Name,Products())"). "" when the read has neither.
func selectList(m *edm.Model, et *edm.EntityType, q *syntax.Query) string {
	if q == nil || len(q.Select) == 0 && len(q.Expand) == 0 {
		return ""
	}
	var items []string
	for _, it := range q.Select {
		names := make([]string, len(it.Path))
		cur := et
		var prop *edm.Property
		for i, seg := range it.Path {
			names[i] = seg.Name
			switch {
			case i == 0 && cur != nil:
				if p := cur.Property(seg.Name); p != nil {
					names[i], prop = p.Name, p
				} else if n := cur.Navigation(seg.Name); n != nil {
					names[i] = n.Name
				}
			case prop != nil && prop.Complex != nil:
				if p := prop.Property(seg.Name); p != nil {
					names[i], prop = p.Name, p
				}
			}
		}
		items = append(items, strings.Join(names, "/"))
	}
	for _, it := range q.Expand {
		if it.Ref || it.Count || len(it.Path) == 0 {
			continue
		}
		var navs []*edm.NavigationProperty
		last := it.Path[len(it.Path)-1]
		if last.Name == "*" {
			navs = et.Navigations
		} else if n := et.Navigation(it.Path[0].Name); n != nil {
			navs = []*edm.NavigationProperty{n}
		}
		for _, n := range navs {
			inner := ""
			if it.Options != nil {
				inner = selectList(m, n.TargetType(), it.Options)
			}
			if inner == "" {
				inner = "()"
			}
			items = append(items, n.Name+inner)
		}
	}
	if len(items) == 0 {
		return ""
	}
	return "(" + strings.Join(items, ",") + ")"
}

// contextFragment returns the part of the context URL after "#" for the entities of t with the select list
// sel.
func contextFragment(m *edm.Model, t *target, sel string, single bool) string {
	var base string
	entity := single
	switch {
	case t.ctxSet != nil:
		base = t.ctxSet.Name
	case t.ctxPath != "":
		base = t.ctxPath
		if m.Singleton(t.ctxPath) != nil {
			entity = false
		}
	default:
		base = m.Namespace + "." + t.typ.Name
		entity = false
		if !single {
			base = "Collection(" + base + ")"
		}
	}
	if t.cast != nil && (t.ctxSet != nil || t.ctxPath != "") {
		base += "/" + m.Namespace + "." + t.cast.Name
	}
	base += sel
	if entity {
		base += "/$entity"
	}
	return base
}

// pageSizeFor returns the page size for the request r to t and whether a Prefer header chose it.
func (s *Service) pageSizeFor(r *http.Request, t *target) (int, bool) {
	limits := s.limitsOf(t)
	if len(r.Header["Prefer"]) == 0 {
		return limits.pageSize, false
	}
	p := parsePrefer(r.Header)
	if p.maxPageSize > 0 {
		return min(p.maxPageSize, limits.maxPageSize), true
	}
	return limits.pageSize, false
}

// rowHook, when set by a test, is called after each row of a collection is scanned.
var rowHook func()

// readEntities answers a collection or one entity.
func (s *Service) readEntities(req *request) error {
	if s.changes != nil {
		if done, err := s.startTracking(req); done || err != nil {
			return err
		}
	}
	read, shape, err := s.plan(req, req.target.scope)
	if err != nil {
		return err
	}
	if err := req.negotiateJSON(); err != nil {
		return err
	}
	if agg := read.Aggregation(); agg != nil {
		return s.readAggregated(req, read, agg)
	}
	if read.Single() {
		return s.readEntity(req, read, shape)
	}
	return s.readCollection(req, read, shape)
}

// readCollection answers one page of a collection. Without expansions each row is written as it is scanned;
// with them the page is read whole first, since their queries need the link values of every row.
func (s *Service) readCollection(req *request, read *plan.Read, shape *readShape) error {
	ctx := req.r.Context()
	q, err := s.queryPage(req, read)
	if err != nil {
		return err
	}
	defer q.rows.Close()
	rows, count, size, preferred := q.rows, q.count, q.size, q.preferred
	writer := getRowWriter(shape.layout)
	defer putRowWriter(writer)
	req.setFormat(writer, shape.levelShape)
	more, err := s.firstRow(ctx, req.target, rows, writer)
	if err != nil {
		return err
	}
	var rowsRead [][]any
	var expanded *expWriter
	if len(shape.expands) > 0 {
		if rowsRead, expanded, err = s.readExpandedPage(req, shape, rows, writer, more, size); err != nil {
			return err
		}
		defer expanded.release()
	}

	fragment := ""
	if !req.noMetadata() {
		fragment = contextFragment(s.model, req.target, shape.selectList, false)
	}
	var page pageWriter
	if req.target.ref {
		fragment, page.refBase = "Collection($ref)", s.refBase(req)
	}
	if req.tracking != nil {
		if !trackable(req.query) {
			req.tracking = nil // the preference is not applied
		} else if parsePrefer(req.r.Header).trackChanges {
			addPreferenceApplied(req.w.Header(), "odata.track-changes")
		}
	}
	page.start(req, fragment, count, size, preferred)
	defer page.release()
	var last []any // the last row of the page, as scanned, when there is a next page
	if expanded != nil {
		last, err = page.writeExpanded(rowsRead, writer, expanded, size)
	} else {
		last, err = page.writeStream(rows, writer, more, size)
	}
	if err == nil {
		err = page.finish(req, read, last, size)
	}
	return page.end(s, req, err)
}

// pageQuery is the query of one page of a collection under way: its rows (close them), the count the request
// asked for (else -1), the page size and whether a Prefer header chose it.
type pageQuery struct {
	rows      *sql.Rows
	count     int64
	size      int
	preferred bool
}

// queryPage counts the read's rows when asked ($count=true) and queries its page.
func (s *Service) queryPage(req *request, read *plan.Read) (pageQuery, error) {
	size, preferred := s.pageSizeFor(req.r, req.target)
	ctx := req.r.Context()
	var count int64
	var err error
	if query, args := read.Matches(); query != "" {
		count, err = s.countMatches(ctx, read, req.query, query, args, size)
	} else {
		count, err = s.countIfAsked(ctx, read, req.query)
	}
	if err != nil {
		return pageQuery{}, err
	}
	query, args := read.Select(size)
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return pageQuery{}, s.readError(err)
	}
	return pageQuery{rows: rows, count: count, size: size, preferred: preferred}, nil
}

// countMatches asks the full-text index how many rows a search matches (query, args: Read.Matches) and lets the
// read choose the page's plan from that number; it is also the count when the query asks for one ($count=true),
// which it returns, else -1.
func (s *Service) countMatches(ctx context.Context, read *plan.Read, q *syntax.Query, query string, args []any,
	size int) (int64, error) {
	var matches, rows int64
	if err := s.db.QueryRowContext(ctx, query, args...).Scan(&matches, &rows); err != nil {
		return 0, s.readError(err)
	}
	read.UseMatches(matches, rows, size)
	if q.Count == nil || !*q.Count {
		return -1, nil
	}
	return matches, nil
}

// countIfAsked returns the number of entities of the read's collection when the query asks for it
// ($count=true), else -1.
func (s *Service) countIfAsked(ctx context.Context, read *plan.Read, q *syntax.Query) (int64, error) {
	if q.Count == nil || !*q.Count {
		return -1, nil
	}
	query, args := read.Count()
	var count int64
	if err := s.db.QueryRowContext(ctx, query, args...).Scan(&count); err != nil {
		return 0, s.readError(err)
	}
	return count, nil
}

// firstRow scans the first row of a page into writer and reports whether there is one. It runs before the answer
// starts, so an error in that row is still an error answer; an empty page of a navigation whose starting
// entity does not exist is a 404 (checkParent).
func (s *Service) firstRow(ctx context.Context, t *target, rows rowSource, writer *rowWriter) (bool, error) {
	if rows.Next() {
		if err := scanConvert(rows, writer); err != nil {
			return false, s.readError(err)
		}
		return true, nil
	}
	if err := rows.Err(); err != nil {
		return false, s.readError(err)
	}
	return false, s.checkParent(ctx, t)
}

// readExpandedPage reads the rest of a page whose first row, if more, is in writer, then runs the queries of its
// expansions. It returns the rows as scanned (one more than size when a next page follows) and the writer of
// the rows with their expansions.
func (s *Service) readExpandedPage(req *request, shape *readShape, rows *sql.Rows, writer *rowWriter, more bool,
	size int) ([][]any, *expWriter, error) {
	rowsRead := make([][]any, 0, min(size+1, 128))
	var arena rowArena // the copies of the rows, a few in each allocation
	for more {
		rowsRead = append(rowsRead, arena.copy(writer.values))
		if len(rowsRead) > size {
			break
		}
		if more = rows.Next(); more {
			if err := rows.Scan(writer.pointers...); err != nil {
				return nil, nil, s.readError(err)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, s.readError(err)
	}
	rows.Close()
	expansions, err := s.expand(req.r.Context(), shape.levelShape, rowsRead[:min(len(rowsRead), size)])
	if err != nil {
		return nil, nil, err
	}
	return rowsRead, s.newExpWriter(req, shape.levelShape, writer, expansions), nil
}

// pageWriter writes the JSON answer of one page of a collection once its first row is read: the envelope
// ({"@odata.context", "@odata.count", "value": [...], "@odata.nextLink"}) around the rows. The rows gather in
// one pooled buffer, which goes out whenever it holds pageBufferSize bytes, so memory does not grow with the
// page beyond that. The status line and headers wait for the first write: a page that fits in the buffer goes
// out in one write with its Content-Length, and an error before the first write can still be answered as an
// error (started is false). An error after it comes after the answer started: the caller aborts it.
type pageWriter struct {
	buf    []byte  // the answer not yet written
	pooled *[]byte // where buf came from, and goes back to
	head   lazyHeader
	// refBase, when not "", makes each row its reference ($ref): {"@odata.id": refBase + its key}.
	refBase string
}

// lazyHeader writes the status line and headers of a 200 answer before the first bytes of its body.
type lazyHeader struct {
	w       http.ResponseWriter
	started bool
}

// Write writes the header when it has not been written, then p.
func (l *lazyHeader) Write(p []byte) (int, error) {
	if !l.started {
		l.started = true
		l.w.WriteHeader(http.StatusOK)
	}
	return l.w.Write(p)
}

// start sets the headers, then writes the envelope up to the opening of "value": the context URL with fragment
// (none with odata.metadata=none) and the count when it is not negative. It takes a buffer from the pool:
// release returns it.
func (w *pageWriter) start(req *request, fragment string, count int64, size int, preferred bool) {
	h := req.w.Header()
	req.jsonHeaders()
	if preferred {
		addPreferenceApplied(h, "odata.maxpagesize="+strconv.Itoa(size))
	}
	w.head = lazyHeader{w: req.w}
	w.pooled = pageBuffers.Get().(*[]byte)
	w.buf = append((*w.pooled)[:0], '{')
	if !req.noMetadata() {
		w.buf = req.appendContext(w.buf, fragment)
		w.buf = append(w.buf, ',')
	}
	if count >= 0 {
		w.buf = append(w.buf, `"@odata.count":`...)
		w.buf = strconv.AppendInt(w.buf, count, 10)
		w.buf = append(w.buf, ',')
	}
	w.buf = append(w.buf, `"value":[`...)
}

// started reports whether the status line and headers went out.
func (w *pageWriter) started() bool { return w.head.started }

// release returns the buffer to its pool.
func (w *pageWriter) release() {
	if w.pooled == nil {
		return
	}
	if cap(w.buf) <= 2*pageBufferSize {
		*w.pooled = w.buf[:0]
	}
	pageBuffers.Put(w.pooled)
	w.buf, w.pooled = nil, nil
}

// flush writes what buf holds once it reaches pageBufferSize.
func (w *pageWriter) flush() error {
	if len(w.buf) < pageBufferSize {
		return nil
	}
	_, err := w.head.Write(w.buf)
	w.buf = w.buf[:0]
	return err
}

// close writes what buf holds, the end of the answer: with its Content-Length when it is the whole answer (one
// write, no chunked encoding).
func (w *pageWriter) close(req *request) error {
	if !w.started() {
		req.setLength(req.w.Header(), len(w.buf))
	}
	_, err := w.head.Write(w.buf)
	w.buf = w.buf[:0]
	return err
}

// writeStream writes the rows of rows as they are scanned, the first (when more) already in writer, at most size of
// them. It returns the last row written when another follows it, the start of the next page.
func (w *pageWriter) writeStream(rows rowSource, writer *rowWriter, more bool, size int) ([]any, error) {
	var last []any
	for n := 0; more && n < size; n++ {
		if n > 0 {
			w.buf = append(w.buf, ',')
		}
		if w.refBase != "" {
			w.buf = appendRef(w.buf, nil, w.refBase+rowKey(writer))
		} else {
			w.buf = writer.appendObject(w.buf)
		}
		if err := w.flush(); err != nil {
			return nil, err
		}
		if more = rows.Next(); more {
			if n == size-1 {
				// The page ends here and another follows: its last row is the next link's start. The row
				// after it is not needed.
				last = append(make([]any, 0, len(writer.values)), writer.values...)
				break
			}
			if err := scanConvert(rows, writer); err != nil {
				return nil, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !more {
		return nil, nil
	}
	return last, nil
}

// writeExpanded writes the rows read (at most size of them) with their expansions. It returns the last row
// written when another was read after it, the start of the next page.
func (w *pageWriter) writeExpanded(rowsRead [][]any, writer *rowWriter, expanded *expWriter, size int) ([]any, error) {
	for i, row := range rowsRead[:min(len(rowsRead), size)] {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		copy(writer.values, row)
		if err := writer.convert(); err != nil {
			return nil, err
		}
		var err error
		if w.buf, err = expanded.appendRow(w.buf, writer, row); err != nil {
			return nil, err
		}
		if err := w.flush(); err != nil {
			return nil, err
		}
	}
	if len(rowsRead) > size {
		return rowsRead[size-1], nil
	}
	return nil, nil
}

// finish ends the envelope, with the next link when last (the last row of the page) is not nil, else the delta
// link of a read that tracks changes, and flushes the answer.
func (w *pageWriter) finish(req *request, read *plan.Read, last []any, size int) error {
	w.buf = append(w.buf, ']')
	if last != nil {
		next, err := read.NextQuery(last, size)
		if err != nil {
			return err
		}
		if req.tracking != nil {
			next += req.tracking.nextSuffix()
		}
		w.buf = append(w.buf, `,"@odata.nextLink":`...)
		w.buf = appendString(w.buf, req.base()+"/"+req.target.path+"?"+next)
	} else if req.tracking != nil {
		w.buf = append(w.buf, `,"@odata.deltaLink":`...)
		w.buf = appendString(w.buf, req.tracking.deltaLink(req))
	}
	w.buf = append(w.buf, '}')
	return w.close(req)
}

// pageBufferSize is the size from which a page's buffer is written out: a page of 100 entities of fifty
// properties fits, so it goes out in one write with its length.
const pageBufferSize = 256 << 10

// pageBuffers holds the buffers of collection answers between requests; each grows to the pages it writes.
var pageBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// checkParent answers 404 when the entity a navigation starts from does not exist (Category('missing')/Products
// is not an empty collection).
func (s *Service) checkParent(ctx context.Context, t *target) error {
	parent, ok := t.scope.Parent()
	if !ok {
		return nil
	}
	read, err := s.planRead(ctx, parent, "", &s.limits)
	if err != nil {
		return queryError(err)
	}
	query, args := read.Count()
	var n int64
	if err := s.db.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return s.readError(err)
	}
	if n == 0 {
		return NotFound(fmt.Sprintf("The %s does not exist.", read.Type.Name))
	}
	return nil
}

// rowSource is the part of *sql.Rows a read uses.
type rowSource interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

func scanConvert(rows rowSource, writer *rowWriter) error {
	if err := rows.Scan(writer.pointers...); err != nil {
		return err
	}
	if rowHook != nil {
		rowHook()
	}
	return writer.convert()
}

// abort ends an answer that has started: the error is logged and the connection cut, so the client sees a
// truncated body rather than a well-formed partial one.
func abort(s *Service, req *request, err error) error {
	s.logger.ErrorContext(req.r.Context(), "answer aborted", append(requestAttrs(req.r, req.target), "err", err)...)
	panic(http.ErrAbortHandler)
}

// end ends the answer of a page with the error err of writing it: nil when there is none; err itself, answered as
// any other error, while nothing was sent; else the answer is aborted.
func (pw *pageWriter) end(s *Service, req *request, err error) error {
	switch {
	case err == nil:
		return nil
	case !pw.started():
		// Nothing was sent: the error is answered as any other.
		delete(req.w.Header(), "Preference-Applied")
		return err
	}
	return abort(s, req, err)
}

// readEntity answers one entity (by key, through a to-one navigation, or a singleton).
func (s *Service) readEntity(req *request, read *plan.Read, shape *readShape) error {
	t := req.target
	ctx := req.r.Context()
	writer, err := s.readRow(ctx, read, shape.layout)
	if err != nil {
		return err
	}
	if writer == nil {
		return s.missing(ctx, t)
	}
	defer putRowWriter(writer)
	if t.ref {
		return s.writeRef(req, writer)
	}
	req.setFormat(writer, shape.levelShape)
	var expanded *expWriter
	if len(shape.expands) > 0 {
		expansions, err := s.expand(ctx, shape.levelShape, [][]any{writer.values})
		if err != nil {
			return err
		}
		expanded = s.newExpWriter(req, shape.levelShape, writer, expansions)
		defer expanded.release()
	}
	etag := writer.etag()
	req.jsonHeaders()
	h := req.w.Header()
	h["Etag"] = etagHeader(etag)
	if inm := req.r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, etag) {
		req.w.WriteHeader(http.StatusNotModified)
		return nil
	}
	b := writer.out[:0]
	if !req.noMetadata() {
		writer.ctx = req.appendContext(writer.ctx[:0], contextFragment(s.model, t, shape.selectList, true))
	}
	if expanded != nil {
		if b, err = expanded.appendRow(b, writer, writer.values); err != nil {
			return err
		}
	} else {
		b = writer.appendObject(b)
	}
	writer.out = b
	// The whole answer is here: one write with its length, no chunked encoding (as a page that fits its
	// buffer, pageWriter.finish).
	req.setLength(h, len(b))
	_, err = req.w.Write(b)
	return err
}

// setFormat makes writer write the entities of the request's target in the answer's format: their ids and
// links from the target, the navigation properties shape expands after the members.
func (req *request) setFormat(writer *rowWriter, shape *levelShape) {
	writer.format = req.answer()
	writer.target = req.target
	writer.expanded = shape.expandedNavigations()
}

// readRow runs the statement of a single-entity read and returns its converted row, nil when there is none.
func (s *Service) readRow(ctx context.Context, read *plan.Read, l *layout) (*rowWriter, error) {
	query, args := read.Select(1)
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.readError(err)
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, s.readError(rows.Err())
	}
	writer := getRowWriter(l)
	if err := scanConvert(rows, writer); err != nil {
		return nil, s.readError(err)
	}
	return writer, s.readError(rows.Close())
}

// missing is the answer for a single entity that does not exist: 204 for an empty to-one navigation from an
// entity that exists, else 404.
func (s *Service) missing(ctx context.Context, t *target) error {
	if t.toOne {
		if err := s.checkParent(ctx, t); err != nil {
			return err
		}
		return errNoContent
	}
	return NotFound(fmt.Sprintf("The %s does not exist.", t.typ.Name))
}

// errNoContent makes ServeHTTP answer 204 without a body: it is no failure, so no code fits it.
var errNoContent = errors.New("odata: no content")

func (s *Service) readCount(req *request) error {
	read, _, err := s.plan(req, req.target.scope)
	if err != nil {
		return err
	}
	query, args := read.Count()
	var n int64
	ctx := req.r.Context()
	if err := s.db.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return s.readError(err)
	}
	if n == 0 {
		if err := s.checkParent(ctx, req.target); err != nil {
			return err
		}
	}
	h := req.w.Header()
	h["Content-Type"] = hdrText
	h["Odata-Version"] = req.version.header()
	_, err = req.w.Write(strconv.AppendInt(nil, n, 10))
	return err
}

// readSelected reads the one entity of the target with the properties props selected.
func (s *Service) readSelected(req *request, props ...*edm.Property) (*rowWriter, error) {
	names := make([]string, len(props))
	for i, p := range props {
		names[i] = p.Name
	}
	ctx := req.r.Context()
	read, err := s.planRead(ctx, req.target.scope, "$select="+strings.Join(names, ","), &s.limits)
	if err != nil {
		return nil, queryError(err)
	}
	shape := read.Memo(s.shapeFn).(*readShape)
	writer, err := s.readRow(ctx, read, shape.layout)
	if err == nil && writer == nil {
		err = s.missing(ctx, req.target)
	}
	return writer, err
}

// readProperty answers a property of one entity, as JSON or, for /$value, as its raw value.
func (s *Service) readProperty(req *request) error {
	t := req.target
	top := t.props[0]
	writer, err := s.readSelected(req, top)
	if err != nil {
		return err
	}
	e, err := writer.entity()
	if err != nil {
		return err
	}
	v := e[top.Name]
	for _, mp := range t.props[1:] {
		m, _ := asMap(v)
		v = m[mp.Name]
	}
	p := t.props[len(t.props)-1]
	if t.item != nil {
		return s.writeCollectionItem(req, writer, p, v)
	}
	if v == nil {
		return errNoContent
	}
	req.w.Header()["Etag"] = etagHeader(writer.etag())
	if t.kind == tPropertyValue {
		return writeRaw(req, p, v)
	}
	req.jsonHeaders()
	var ctx []byte
	if !req.noMetadata() {
		ctx = req.appendContext(nil, t.entityPath+"/"+propPath(t.props))
	}
	var b []byte
	hidden, err := s.hiddenOf(req.r.Context(), t.typ)
	if err != nil {
		return err
	}
	f := visibleField(p, hidden)
	if p.Complex != nil && !p.Collection {
		b, err = appendGoField(nil, f, v, req.answer())
		if err != nil {
			return err
		}
		if len(ctx) > 0 {
			if len(b) > 2 {
				ctx = append(ctx, ',')
			}
			b = append(append([]byte{'{'}, ctx...), b[1:]...)
		}
	} else {
		b = append(b, '{')
		if len(ctx) > 0 {
			b = append(append(b, ctx...), ',')
		}
		b = append(b, `"value":`...)
		if b, err = appendGoField(b, f, v, req.answer()); err != nil {
			return err
		}
		b = append(b, '}')
	}
	_, err = req.w.Write(b)
	return err
}

func propPath(props []*edm.Property) string {
	names := make([]string, len(props))
	for i, p := range props {
		names[i] = p.Name
	}
	return strings.Join(names, "/")
}

// writeRaw writes a primitive value as its raw text (binary as bytes).
func writeRaw(req *request, p *edm.Property, v any) error {
	h := req.w.Header()
	h["Odata-Version"] = req.version.header()
	if b, ok := v.([]byte); ok {
		h.Set("Content-Type", "application/octet-stream")
		_, err := req.w.Write(b)
		return err
	}
	h["Content-Type"] = hdrText
	if s, ok := v.(string); ok && p.Enum == nil {
		_, err := req.w.Write([]byte(s))
		return err
	}
	b, err := appendValue(nil, p, v)
	if err != nil {
		return err
	}
	if len(b) >= 2 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) == nil {
			b = []byte(s)
		}
	}
	_, err = req.w.Write(b)
	return err
}

// readMedia answers a media entity's $value: its bytes with its content type.
func (s *Service) readMedia(req *request) error {
	t := req.target
	data, ct := t.typ.Stream()
	writer, err := s.readSelected(req, data, ct)
	if err != nil {
		return err
	}
	e, err := writer.entity()
	if err != nil {
		return err
	}
	h := req.w.Header()
	h["Odata-Version"] = req.version.header()
	mt, _ := e[ct.Name].(string)
	if mt == "" {
		mt = "application/octet-stream"
	}
	h.Set("Content-Type", mt)
	h["Etag"] = etagHeader(writer.etag())
	b, _ := e[data.Name].([]byte)
	if b == nil {
		return errNoContent
	}
	h.Set("Content-Length", strconv.Itoa(len(b)))
	_, err = req.w.Write(b)
	return err
}

// readKey reads the key values of the one entity a target addresses (for actions bound to an entity reached
// through a navigation), in q (the request's transaction). A missing entity is a 404.
func (s *Service) readKey(ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, t *target) ([]any, error) {
	read, err := s.planRead(ctx, t.scope, "", &s.limits)
	if err != nil {
		return nil, queryError(err)
	}
	query, args := read.Select(1)
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, entityNotFound(t.typ)
	}
	vals := make([]any, len(read.Columns))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	key := make([]any, len(read.Key))
	for i, c := range read.Key {
		path := read.Columns[c].Path
		if key[i], err = sqldb.Scan(path[len(path)-1], vals[c]); err != nil {
			return nil, err
		}
	}
	return key, rows.Close()
}

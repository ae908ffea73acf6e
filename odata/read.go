package odata

import (
	"bufio"
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
func (s *Service) read(rq *request) error {
	switch rq.t.kind {
	case tCount:
		return s.readCount(rq)
	case tMediaValue:
		return s.readMedia(rq)
	case tPropertyValue:
		return s.readProperty(rq)
	case tCollection, tEntity:
		return s.readEntities(rq)
	case tProperty:
		if err := rq.negotiateJSON(); err != nil {
			return err
		}
		return s.readProperty(rq)
	}
	return NotFound("No resource matches the path.")
}

// queryError turns an error of the planner into the answer: 400 naming the option, or 501 for valid OData the
// engine does not translate.
func queryError(err error) error {
	var qe *plan.Error
	if !errors.As(err, &qe) {
		return err
	}
	if qe.Code == plan.CodeNotSupported {
		return &Error{Code: CodeNotImplemented, Target: qe.Option, Message: qe.Error(), Err: err}
	}
	return &Error{Code: qe.Code, Target: qe.Option, Message: qe.Error(), Err: err}
}

// readError gives a database error of a read its meaning for the client: values of the query the database
// cannot compute with (an overflow, an invalid pattern) are the client's (400), a busy database is 503.
func (s *Service) readError(err error) error {
	var e *Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	switch s.dialect.ClassifyError(err) {
	case sqldb.ErrInvalidData:
		return &Error{Code: CodeInvalidValue, Err: err,
			Message: "The database cannot compute the query with the values it gives (a number out of range, an invalid pattern or a value too long)."}
	case sqldb.ErrRetry:
		return busyError(err)
	}
	return err
}

// readShape is what the service derives once from a compiled plan (plan.Read.Memo): how to write its rows.
type readShape struct {
	*shape
	selectList string // the context URL's select list, "(Name,Products())", or ""
}

// shape is how to write the rows of one level of a read: the root entities or the children of an expansion.
type shape struct {
	l       *layout
	expands []*expandShape
}

// expandShape is one expanded navigation property.
type expandShape struct {
	x     *plan.Expand
	name  []byte // `"Nav":`
	count []byte // `"Nav@odata.count":`
	child *shape
	// set is the entity set of the targets, for the ids of $ref; nil when they are contained (their id is the
	// parent's followed by the navigation).
	set *edm.EntitySet
}

// buildShape is the Memo function of reads (see Service.shapeOf).
func (s *Service) buildShape(r *plan.Read) any {
	return &readShape{shape: s.newShape(r.Projection), selectList: selectList(s.model, r.Type, r.Query())}
}

func (s *Service) newShape(p *plan.Projection) *shape {
	sh := &shape{l: layoutOf(p)}
	for _, x := range p.Expands {
		es := &expandShape{x: x, name: fieldName(x.Nav.Name), count: fieldName(x.Nav.Name + "@odata.count"),
			child: s.newShape(&x.Projection)}
		if !x.Nav.ContainsTarget {
			es.set = onlySet(s.model, x.Nav.TargetType())
		}
		sh.expands = append(sh.expands, es)
	}
	return sh
}

// needsIDs reports whether writing the children of sh needs the ids of its rows (contained $ref targets).
func (sh *shape) needsIDs() bool {
	for _, es := range sh.expands {
		if es.x.Ref && es.set == nil || es.child.needsIDs() {
			return true
		}
	}
	return false
}

// plan plans the read of the request's target with its query string.
func (s *Service) plan(rq *request, scope plan.Scope) (*plan.Read, *readShape, error) {
	r, err := s.planner.Read(scope, rq.r.URL.RawQuery)
	if err != nil {
		return nil, nil, queryError(err)
	}
	rq.q = r.Query()
	return r, r.Memo(s.shapeFn).(*readShape), nil
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
	base += sel
	if entity {
		base += "/$entity"
	}
	return base
}

// pageSizeFor returns the page size for the request and whether a Prefer header chose it.
func (s *Service) pageSizeFor(r *http.Request) (int, bool) {
	if len(r.Header["Prefer"]) == 0 {
		return s.pageSize, false
	}
	p := parsePrefer(r.Header)
	if p.maxPageSize > 0 {
		return min(p.maxPageSize, s.maxPageSize), true
	}
	return s.pageSize, false
}

// rowHook, when set by a test, is called after each row of a collection is scanned.
var rowHook func()

// readEntities answers a collection or one entity.
func (s *Service) readEntities(rq *request) error {
	r, sh, err := s.plan(rq, rq.t.scope)
	if err != nil {
		return err
	}
	if err := rq.negotiateJSON(); err != nil {
		return err
	}
	if r.Single() {
		return s.readEntity(rq, r, sh)
	}
	return s.readCollection(rq, r, sh)
}

// readCollection answers one page of a collection. Without expansions each row is written as it is scanned;
// with them the page is read whole first, since their queries need the link values of every row.
func (s *Service) readCollection(rq *request, r *plan.Read, sh *readShape) error {
	size, preferred := s.pageSizeFor(rq.r)
	ctx := rq.r.Context()
	count, err := s.countIfAsked(ctx, r, rq.q)
	if err != nil {
		return err
	}
	query, args := r.Select(size)
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return s.readError(err)
	}
	defer rows.Close()
	rw := newRowWriter(sh.l)
	rw.etagOn = !rq.none
	more, err := s.firstRow(ctx, rq.t, rows, rw)
	if err != nil {
		return err
	}
	var rowsRead [][]any
	var xw *expWriter
	if len(sh.expands) > 0 {
		if rowsRead, xw, err = s.readExpandedPage(rq, sh, rows, rw, more, size); err != nil {
			return err
		}
	}

	fragment := ""
	if !rq.none {
		fragment = contextFragment(s.model, rq.t, sh.selectList, false)
	}
	var page pageWriter
	page.start(rq, fragment, count, size, preferred)
	defer page.release()
	var last []any // the last row of the page, as scanned, when there is a next page
	if xw != nil {
		last, err = page.writeExpanded(rowsRead, rw, xw, size)
	} else {
		last, err = page.writeStream(rows, rw, more, size)
	}
	if err == nil {
		err = page.finish(rq, r, last, size)
	}
	if err != nil {
		return abort(s, rq, err)
	}
	return nil
}

// countIfAsked returns the number of entities of the read's collection when the query asks for it
// ($count=true), else -1.
func (s *Service) countIfAsked(ctx context.Context, r *plan.Read, q *syntax.Query) (int64, error) {
	if q.Count == nil || !*q.Count {
		return -1, nil
	}
	query, args := r.Count()
	var count int64
	if err := s.db.QueryRowContext(ctx, query, args...).Scan(&count); err != nil {
		return 0, s.readError(err)
	}
	return count, nil
}

// firstRow scans the first row of a page into rw and reports whether there is one. It runs before the answer
// starts, so an error in that row is still an error answer; an empty page of a navigation whose starting
// entity does not exist is a 404 (checkParent).
func (s *Service) firstRow(ctx context.Context, t *target, rows rowSource, rw *rowWriter) (bool, error) {
	if rows.Next() {
		if err := scanConvert(rows, rw); err != nil {
			return false, s.readError(err)
		}
		return true, nil
	}
	if err := rows.Err(); err != nil {
		return false, s.readError(err)
	}
	return false, s.checkParent(ctx, t)
}

// readExpandedPage reads the rest of a page whose first row, if more, is in rw, then runs the queries of its
// expansions. It returns the rows as scanned (one more than size when a next page follows) and the writer of
// the rows with their expansions.
func (s *Service) readExpandedPage(rq *request, sh *readShape, rows *sql.Rows, rw *rowWriter, more bool,
	size int) ([][]any, *expWriter, error) {
	var rowsRead [][]any
	for more {
		rowsRead = append(rowsRead, append([]any(nil), rw.vals...))
		if len(rowsRead) > size {
			break
		}
		if more = rows.Next(); more {
			if err := rows.Scan(rw.ptrs...); err != nil {
				return nil, nil, s.readError(err)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, s.readError(err)
	}
	rows.Close()
	xs, err := s.expand(rq.r.Context(), sh.shape, rowsRead[:min(len(rowsRead), size)])
	if err != nil {
		return nil, nil, err
	}
	return rowsRead, s.newExpWriter(rq, sh.shape, xs), nil
}

// pageWriter writes the JSON answer of one page of a collection once its first row is read: the envelope
// ({"@odata.context", "@odata.count", "value": [...], "@odata.nextLink"}) around the rows. Each row goes to a
// pooled buffered writer as soon as it is written, so memory does not grow with the page. An error of its
// methods comes after the answer started: the caller aborts it.
type pageWriter struct {
	out *bufio.Writer
	buf []byte
}

// start writes the headers, then the envelope up to the opening of "value": the context URL with fragment
// (none with odata.metadata=none) and the count when it is not negative. It takes a writer from the pool:
// release returns it.
func (w *pageWriter) start(rq *request, fragment string, count int64, size int, preferred bool) {
	h := rq.w.Header()
	rq.jsonHeaders()
	if preferred {
		h["Preference-Applied"] = []string{"odata.maxpagesize=" + strconv.Itoa(size)}
	}
	rq.w.WriteHeader(http.StatusOK)
	w.out = writers.Get().(*bufio.Writer)
	w.out.Reset(rq.w)
	w.buf = make([]byte, 0, 1024)
	w.buf = append(w.buf, '{')
	if !rq.none {
		w.buf = rq.appendContext(w.buf, fragment)
		w.buf = append(w.buf, ',')
	}
	if count >= 0 {
		w.buf = append(w.buf, `"@odata.count":`...)
		w.buf = strconv.AppendInt(w.buf, count, 10)
		w.buf = append(w.buf, ',')
	}
	w.buf = append(w.buf, `"value":[`...)
}

// release returns the buffered writer to its pool.
func (w *pageWriter) release() {
	if w.out != nil {
		w.out.Reset(nil)
		writers.Put(w.out)
	}
}

// flush hands what buf holds to the buffered writer.
func (w *pageWriter) flush() error {
	_, err := w.out.Write(w.buf)
	w.buf = w.buf[:0]
	return err
}

// writeStream writes the rows of rows as they are scanned, the first (when more) already in rw, at most size of
// them. It returns the last row written when another follows it, the start of the next page.
func (w *pageWriter) writeStream(rows rowSource, rw *rowWriter, more bool, size int) ([]any, error) {
	var last []any
	for n := 0; more && n < size; n++ {
		if n > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = rw.appendObject(w.buf)
		if err := w.flush(); err != nil {
			return nil, err
		}
		if n == size-1 {
			last = append(make([]any, 0, len(rw.vals)), rw.vals...)
		}
		if more = rows.Next(); more {
			if err := scanConvert(rows, rw); err != nil {
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
func (w *pageWriter) writeExpanded(rowsRead [][]any, rw *rowWriter, xw *expWriter, size int) ([]any, error) {
	for i, row := range rowsRead[:min(len(rowsRead), size)] {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		copy(rw.vals, row)
		if err := rw.convert(); err != nil {
			return nil, err
		}
		var err error
		if w.buf, err = xw.appendRow(w.buf, rw, row); err != nil {
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

// finish ends the envelope, with the next link when last (the last row of the page) is not nil, and flushes
// the answer.
func (w *pageWriter) finish(rq *request, r *plan.Read, last []any, size int) error {
	w.buf = append(w.buf, ']')
	if last != nil {
		next, err := r.NextQuery(last, size)
		if err != nil {
			return err
		}
		w.buf = append(w.buf, `,"@odata.nextLink":`...)
		w.buf = appendString(w.buf, rq.base()+"/"+rq.t.path+"?"+next)
	}
	w.buf = append(w.buf, '}')
	if _, err := w.out.Write(w.buf); err != nil {
		return err
	}
	return w.out.Flush()
}

// writers holds the buffered writers of collection answers between requests.
var writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 16<<10) }}

// checkParent answers 404 when the entity a navigation starts from does not exist (Category('missing')/Products
// is not an empty collection).
func (s *Service) checkParent(ctx context.Context, t *target) error {
	parent, ok := t.scope.Parent()
	if !ok {
		return nil
	}
	r, err := s.planner.Read(parent, "")
	if err != nil {
		return queryError(err)
	}
	query, args := r.Count()
	var n int64
	if err := s.db.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return s.readError(err)
	}
	if n == 0 {
		return NotFound(fmt.Sprintf("The %s does not exist.", r.Type.Name))
	}
	return nil
}

// rowSource is the part of *sql.Rows a read uses.
type rowSource interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

func scanConvert(rows rowSource, rw *rowWriter) error {
	if err := rows.Scan(rw.ptrs...); err != nil {
		return err
	}
	if rowHook != nil {
		rowHook()
	}
	return rw.convert()
}

// abort ends an answer that has started: the error is logged and the connection cut, so the client sees a
// truncated body rather than a well-formed partial one.
func abort(s *Service, rq *request, err error) error {
	s.logger.ErrorContext(rq.r.Context(), "answer aborted", "method", rq.r.Method, "path", rq.r.URL.Path, "err", err)
	panic(http.ErrAbortHandler)
}

// readEntity answers one entity (by key, through a to-one navigation, or a singleton).
func (s *Service) readEntity(rq *request, r *plan.Read, sh *readShape) error {
	t := rq.t
	ctx := rq.r.Context()
	rw, err := s.readRow(ctx, r, sh.l)
	if err != nil {
		return err
	}
	if rw == nil {
		return s.missing(ctx, t)
	}
	var xw *expWriter
	if len(sh.expands) > 0 {
		xs, err := s.expand(ctx, sh.shape, [][]any{rw.vals})
		if err != nil {
			return err
		}
		xw = s.newExpWriter(rq, sh.shape, xs)
	}
	etag := rw.etag()
	rq.jsonHeaders()
	h := rq.w.Header()
	h["Etag"] = []string{formatETag(etag)}
	if inm := rq.r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, etag) {
		rq.w.WriteHeader(http.StatusNotModified)
		return nil
	}
	rw.etagOn = !rq.none
	b := make([]byte, 0, 1024)
	if !rq.none {
		rw.ctx = rq.appendContext(make([]byte, 0, 128), contextFragment(s.model, t, sh.selectList, true))
	}
	if xw != nil {
		if b, err = xw.appendRow(b, rw, rw.vals); err != nil {
			return err
		}
	} else {
		b = rw.appendObject(b)
	}
	_, err = rq.w.Write(b)
	return err
}

// readRow runs the statement of a single-entity read and returns its converted row, nil when there is none.
func (s *Service) readRow(ctx context.Context, r *plan.Read, l *layout) (*rowWriter, error) {
	query, args := r.Select(1)
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.readError(err)
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, s.readError(rows.Err())
	}
	rw := newRowWriter(l)
	if err := scanConvert(rows, rw); err != nil {
		return nil, s.readError(err)
	}
	return rw, s.readError(rows.Close())
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

func (s *Service) readCount(rq *request) error {
	r, _, err := s.plan(rq, rq.t.scope)
	if err != nil {
		return err
	}
	query, args := r.Count()
	var n int64
	ctx := rq.r.Context()
	if err := s.db.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return s.readError(err)
	}
	if n == 0 {
		if err := s.checkParent(ctx, rq.t); err != nil {
			return err
		}
	}
	h := rq.w.Header()
	h["Content-Type"] = hdrText
	h["Odata-Version"] = hdrVersion
	_, err = rq.w.Write(strconv.AppendInt(nil, n, 10))
	return err
}

// readSelected reads the one entity of the target with the properties props selected.
func (s *Service) readSelected(rq *request, props ...*edm.Property) (*rowWriter, error) {
	names := make([]string, len(props))
	for i, p := range props {
		names[i] = p.Name
	}
	r, err := s.planner.Read(rq.t.scope, "$select="+strings.Join(names, ","))
	if err != nil {
		return nil, queryError(err)
	}
	sh := r.Memo(s.shapeFn).(*readShape)
	ctx := rq.r.Context()
	rw, err := s.readRow(ctx, r, sh.l)
	if err == nil && rw == nil {
		err = s.missing(ctx, rq.t)
	}
	return rw, err
}

// readProperty answers a property of one entity, as JSON or, for /$value, as its raw value.
func (s *Service) readProperty(rq *request) error {
	t := rq.t
	top := t.props[0]
	rw, err := s.readSelected(rq, top)
	if err != nil {
		return err
	}
	e, err := rw.entity()
	if err != nil {
		return err
	}
	v := e[top.Name]
	for _, mp := range t.props[1:] {
		m, _ := asMap(v)
		v = m[mp.Name]
	}
	p := t.props[len(t.props)-1]
	if v == nil {
		return errNoContent
	}
	rq.w.Header()["Etag"] = []string{formatETag(rw.etag())}
	if t.kind == tPropertyValue {
		return writeRaw(rq, p, v)
	}
	rq.jsonHeaders()
	var ctx []byte
	if !rq.none {
		ctx = rq.appendContext(nil, t.entityPath+"/"+propPath(t.props))
	}
	var b []byte
	f := plainField(p)
	if p.Complex != nil && !p.Collection {
		b, err = appendGoField(nil, f, v)
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
		if b, err = appendGoField(b, f, v); err != nil {
			return err
		}
		b = append(b, '}')
	}
	_, err = rq.w.Write(b)
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
func writeRaw(rq *request, p *edm.Property, v any) error {
	h := rq.w.Header()
	h["Odata-Version"] = hdrVersion
	if b, ok := v.([]byte); ok {
		h.Set("Content-Type", "application/octet-stream")
		_, err := rq.w.Write(b)
		return err
	}
	h["Content-Type"] = hdrText
	if s, ok := v.(string); ok && p.Enum == nil {
		_, err := rq.w.Write([]byte(s))
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
	_, err = rq.w.Write(b)
	return err
}

// readMedia answers a media entity's $value: its bytes with its content type.
func (s *Service) readMedia(rq *request) error {
	t := rq.t
	data, ct := t.typ.Stream()
	rw, err := s.readSelected(rq, data, ct)
	if err != nil {
		return err
	}
	e, err := rw.entity()
	if err != nil {
		return err
	}
	h := rq.w.Header()
	h["Odata-Version"] = hdrVersion
	mt, _ := e[ct.Name].(string)
	if mt == "" {
		mt = "application/octet-stream"
	}
	h.Set("Content-Type", mt)
	h["Etag"] = []string{formatETag(rw.etag())}
	b, _ := e[data.Name].([]byte)
	if b == nil {
		return errNoContent
	}
	h.Set("Content-Length", strconv.Itoa(len(b)))
	_, err = rq.w.Write(b)
	return err
}

// readKey reads the key values of the one entity a target addresses (for actions bound to an entity reached
// through a navigation), in q (the request's transaction). A missing entity is a 404.
func (s *Service) readKey(ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, t *target) ([]any, error) {
	r, err := s.planner.Read(t.scope, "")
	if err != nil {
		return nil, queryError(err)
	}
	query, args := r.Select(1)
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
	vals := make([]any, len(r.Columns))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	key := make([]any, len(r.Key))
	for i, c := range r.Key {
		path := r.Columns[c].Path
		if key[i], err = sqldb.Scan(path[len(path)-1], vals[c]); err != nil {
			return nil, err
		}
	}
	return key, rows.Close()
}

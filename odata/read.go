package odata

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqlgen"
	"github.com/storekit/store/odata/syntax"
)

// readRequest is a bound read: the entities a path addresses and the query options that shape the answer. It
// is what the query planner gets.
type readRequest struct {
	typ    *edm.EntityType
	scope  scope // the rows the path addresses (nil: the whole table)
	single bool
	query  *syntax.Query
	layout *layout // the properties to select ($select), with the key and ETag properties
	limit  int     // the most rows to return (a page plus one, to tell whether there is a next page)
	skip   int64   // $skip, on the first page only
	after  []json.RawMessage
}

// readPlan is the SQL of a read and how to read its rows.
type readPlan struct {
	sql    string
	args   []any
	layout *layout // the columns the SQL selects, in order
	token  []int   // the columns whose values, in order, make the $skiptoken that resumes after a row
}

// planRead turns a bound read into SQL. This is the seam where the query planner of odata/sqlgen plugs in: it
// will bind $filter, $orderby, $search and $expand against the model (rq.query), AND its condition with
// rq.scope, order by the $orderby items then the key, resume after the values of rq.after (keyset), and
// return the token columns that match its order. Until then reads are the rows of the scope in key order; the
// options that need the planner are refused before this is called (see plannerOptions).
func (s *Service) planRead(rq *readRequest) (*readPlan, error) {
	d := s.dialect
	et := rq.typ
	alias := d.QuoteIdent(et.Table)
	b := selectFrom(d, rq.layout)
	if rq.scope != nil {
		b = b.Where(rq.scope(d, alias, 0))
	}
	if len(rq.after) > 0 {
		cond, err := s.afterKey(et, alias, rq.after)
		if err != nil {
			return nil, err
		}
		b = b.Where(cond)
	}
	b = b.OrderBy(keyOrder(d, et, alias)...)
	if rq.limit > 0 {
		b = b.Limit(uint64(rq.limit))
	}
	if rq.skip > 0 {
		b = b.Offset(uint64(rq.skip))
	}
	query, args, err := b.PlaceholderFormat(d.Placeholder()).ToSql()
	if err != nil {
		return nil, err
	}
	return &readPlan{sql: query, args: args, layout: rq.layout, token: rq.layout.keys}, nil
}

// planCount returns the SQL that counts the entities of a read, ignoring paging.
func (s *Service) planCount(rq *readRequest) (string, []any, error) {
	d := s.dialect
	alias := d.QuoteIdent(rq.typ.Table)
	b := sq.Select("COUNT(*)").From(alias)
	if rq.scope != nil {
		b = b.Where(rq.scope(d, alias, 0))
	}
	return b.PlaceholderFormat(d.Placeholder()).ToSql()
}

// afterKey is the keyset condition "key > token" for key order.
func (s *Service) afterKey(et *edm.EntityType, alias string, after []json.RawMessage) (sq.Sqlizer, error) {
	props := et.KeyProperties()
	bad := BadRequest("BadRequest", "$skiptoken", "The $skiptoken is not valid: use the @odata.nextLink of an answer as it is.")
	if len(after) != len(props) {
		return nil, bad
	}
	cols := make([]string, len(props))
	marks := make([]string, len(props))
	args := make([]any, len(props))
	var dec decoder
	for i, p := range props {
		v, ok := dec.value(propType(p), p.Name, after[i])
		if !ok || v == nil {
			return nil, bad
		}
		arg, err := sqlgen.Arg(s.dialect, p, v)
		if err != nil {
			return nil, bad
		}
		cols[i] = alias + "." + s.dialect.QuoteIdent(p.Column)
		marks[i] = "?"
		args[i] = arg
	}
	if len(props) == 1 {
		return sq.Expr(cols[0]+" > ?", args...), nil
	}
	return sq.Expr("("+strings.Join(cols, ", ")+") > ("+strings.Join(marks, ", ")+")", args...), nil
}

// plannerOptions are the query options that need the query planner; until it is plugged in (see planRead) a
// request that uses one is answered 501 naming the option.
func plannerOptions(q *syntax.Query) error {
	var name string
	switch {
	case q.Filter != nil:
		name = "$filter"
	case len(q.OrderBy) > 0:
		name = "$orderby"
	case len(q.Expand) > 0:
		name = "$expand"
	case q.Search != nil:
		name = "$search"
	case len(q.Compute) > 0:
		name = "$compute"
	case q.Index != nil:
		name = "$index"
	default:
		return nil
	}
	return &Error{Status: http.StatusNotImplemented, Code: "NotImplemented", Target: spelt(q, name),
		Message: "The query option " + name + " is not supported yet."}
}

// spelt returns the option name as the client wrote it.
func spelt(q *syntax.Query, name string) string {
	for _, o := range q.Options {
		if o.Name == name {
			return o.Spelt
		}
	}
	return name
}

// read answers a GET.
func (s *Service) read(rq *request) error {
	t := rq.t
	switch t.kind {
	case tCount:
		return s.readCount(rq)
	case tMediaValue:
		return s.readMedia(rq)
	case tPropertyValue:
		return s.readProperty(rq)
	}
	if err := rq.negotiateJSON(); err != nil {
		return err
	}
	switch t.kind {
	case tCollection:
		return s.readCollection(rq)
	case tEntity:
		return s.readEntity(rq)
	case tProperty:
		return s.readProperty(rq)
	}
	return NotFound("No resource matches the path.")
}

// selection returns the layout of a $select (the default layout without one).
func (s *Service) selection(rq *request) (*layout, error) {
	et := rq.t.typ
	q := rq.q
	if len(q.Select) == 0 {
		return s.defaultLayout(et), nil
	}
	show := map[*edm.Property]bool{}
	var names []string
	all := false
	for _, it := range q.Select {
		if it.Options != nil || len(it.Path) != 1 || len(it.Path[0].Args) > 0 {
			return nil, &Error{Status: http.StatusNotImplemented, Code: "NotImplemented", Target: spelt(q, "$select"),
				Message: "$select supports property names and * only, for now."}
		}
		name := it.Path[0].Name
		if name == "*" || strings.HasSuffix(name, ".*") {
			all = true
			continue
		}
		p := et.Property(name)
		if p == nil {
			if et.Navigation(name) != nil {
				return nil, &Error{Status: http.StatusNotImplemented, Code: "NotImplemented", Target: spelt(q, "$select"),
					Message: "Selecting the navigation property " + name + " is not supported yet."}
			}
			return nil, BadRequest("UnknownProperty", spelt(q, "$select"), fmt.Sprintf("%s has no property %s.", et.Name, name))
		}
		if !show[p] {
			show[p] = true
			names = append(names, p.Name)
		}
	}
	if all {
		for _, p := range et.Properties {
			if !p.Lazy {
				show[p] = true
			}
		}
		names = append([]string{"*"}, names...)
	}
	l := newLayout(et, show)
	l.selected = names
	return l, nil
}

// contextFragment returns the part of the context URL after "#" for the entities of t shown by l.
func contextFragment(m *edm.Model, t *target, l *layout, single bool) string {
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
	if l != nil && l.selected != nil {
		base += "(" + strings.Join(l.selected, ",") + ")"
	}
	if entity {
		base += "/$entity"
	}
	return base
}

// pageSize returns the page size for the request and whether a Prefer header chose it.
func (s *Service) pageSizeFor(r *http.Request) (int, bool) {
	p := parsePrefer(r.Header)
	if p.maxPageSize > 0 {
		return min(p.maxPageSize, s.maxPageSize), true
	}
	return s.pageSize, false
}

// rowHook, when set by a test, is called after each row of a collection is scanned.
var rowHook func()

func (s *Service) readCollection(rq *request) error {
	t, q := rq.t, rq.q
	if err := plannerOptions(q); err != nil {
		return err
	}
	l, err := s.selection(rq)
	if err != nil {
		return err
	}
	size, preferred := s.pageSizeFor(rq.r)
	rr := &readRequest{typ: t.typ, scope: t.scope, query: q, layout: l, limit: size + 1}
	remaining := int64(-1) // $top left after this page; -1 without $top
	if q.Top != nil {
		if *q.Top <= int64(size) {
			rr.limit = int(*q.Top)
		} else {
			remaining = *q.Top - int64(size)
		}
	}
	if q.Skip != nil {
		rr.skip = *q.Skip
	}
	if q.SkipToken != "" {
		if rr.after, err = decodeToken(q.SkipToken); err != nil {
			return err
		}
		rr.skip = 0
	}
	ctx := rq.r.Context()
	count := int64(-1)
	if q.Count != nil && *q.Count {
		query, args, err := s.planCount(rr)
		if err != nil {
			return err
		}
		if err := s.db.QueryRowContext(ctx, query, args...).Scan(&count); err != nil {
			return err
		}
	}
	var plan *readPlan
	if rr.limit > 0 {
		if plan, err = s.planRead(rr); err != nil {
			return err
		}
	}
	var rows rowSource = emptyRows{}
	if plan != nil {
		r, err := s.db.QueryContext(ctx, plan.sql, plan.args...)
		if err != nil {
			return err
		}
		defer r.Close()
		rows = r
	} else {
		plan = &readPlan{layout: l, token: l.keys}
	}
	rw := newRowWriter(plan.layout)
	rw.etagOn = !rq.none
	// The first row is read before the answer starts, so an error in it is still an error answer.
	more := rows.Next()
	if more {
		if err := scanConvert(rows, rw); err != nil {
			return err
		}
	} else if err := rows.Err(); err != nil {
		return err
	}

	rq.jsonHeaders()
	if preferred {
		rq.w.Header().Set("Preference-Applied", "odata.maxpagesize="+strconv.Itoa(size))
	}
	rq.w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(rq.w, 16<<10)
	buf := make([]byte, 0, 1024)
	buf = append(buf, '{')
	if c := rq.contextMember(contextFragment(s.model, t, l, false)); c != nil {
		buf = append(buf, c...)
		buf = append(buf, ',')
	}
	if count >= 0 {
		buf = append(buf, `"@odata.count":`...)
		buf = strconv.AppendInt(buf, count, 10)
		buf = append(buf, ',')
	}
	buf = append(buf, `"value":[`...)
	n := 0
	var token []byte
	hasNext := false
	for more {
		if n == size {
			hasNext = true
			break
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = rw.appendObject(buf)
		if _, err := bw.Write(buf); err != nil {
			return abort(s, rq, err)
		}
		buf = buf[:0]
		n++
		token = appendToken(token[:0], rw, plan.token)
		if more = rows.Next(); more {
			if err := scanConvert(rows, rw); err != nil {
				return abort(s, rq, err)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return abort(s, rq, err)
	}
	buf = append(buf, ']')
	if hasNext && remaining != 0 {
		buf = append(buf, `,"@odata.nextLink":`...)
		buf = appendString(buf, rq.nextLink(token, remaining))
	}
	buf = append(buf, '}')
	if _, err := bw.Write(buf); err != nil {
		return abort(s, rq, err)
	}
	if err := bw.Flush(); err != nil {
		return abort(s, rq, err)
	}
	return nil
}

// rowSource is the part of *sql.Rows a collection read uses.
type rowSource interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

type emptyRows struct{}

func (emptyRows) Next() bool        { return false }
func (emptyRows) Scan(...any) error { return errors.New("no rows") }
func (emptyRows) Err() error        { return nil }

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

// appendToken appends the JSON array of the token columns of the converted row.
func appendToken(b []byte, rw *rowWriter, cols []int) []byte {
	b = append(b, '[')
	for i, c := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, rw.colJSON(c)...)
	}
	return append(b, ']')
}

// decodeToken decodes a $skiptoken: base64url of a JSON array of values.
func decodeToken(tok string) ([]json.RawMessage, error) {
	bad := BadRequest("BadRequest", "$skiptoken", "The $skiptoken is not valid: use the @odata.nextLink of an answer as it is.")
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return nil, bad
	}
	var vals []json.RawMessage
	if err := json.Unmarshal(raw, &vals); err != nil || len(vals) == 0 {
		return nil, bad
	}
	return vals, nil
}

// nextLink returns the absolute URL of the next page: the request's URL with $skip and $top removed, the
// remaining $top (when there was one) and the $skiptoken.
func (rq *request) nextLink(token []byte, remaining int64) string {
	var b strings.Builder
	b.WriteString(rq.base())
	b.WriteByte('/')
	b.WriteString(rq.t.path)
	b.WriteByte('?')
	n := 0
	for _, part := range strings.Split(rq.r.URL.RawQuery, "&") {
		if part == "" {
			continue
		}
		name, _, _ := strings.Cut(part, "=")
		if dec, err := url.QueryUnescape(name); err == nil {
			name = dec
		}
		switch strings.ToLower(strings.TrimPrefix(name, "$")) {
		case "skip", "top", "skiptoken":
			continue
		}
		if n > 0 {
			b.WriteByte('&')
		}
		n++
		b.WriteString(part)
	}
	if n > 0 {
		b.WriteByte('&')
	}
	if remaining > 0 {
		b.WriteString("$top=")
		b.WriteString(strconv.FormatInt(remaining, 10))
		b.WriteByte('&')
	}
	b.WriteString("$skiptoken=")
	b.WriteString(base64.RawURLEncoding.EncodeToString(token))
	return b.String()
}

// readEntity answers one entity.
func (s *Service) readEntity(rq *request) error {
	t, q := rq.t, rq.q
	if len(q.Expand) > 0 {
		return plannerOptions(&syntax.Query{Expand: q.Expand, Options: q.Options})
	}
	l, err := s.selection(rq)
	if err != nil {
		return err
	}
	rw, err := s.readOne(rq.r.Context(), &readRequest{typ: t.typ, scope: t.scope, single: true, query: q, layout: l, limit: 1})
	if err != nil {
		return err
	}
	if rw == nil {
		return s.missing(t)
	}
	etag := rw.etag()
	rq.jsonHeaders()
	rq.w.Header().Set("ETag", formatETag(etag))
	if inm := rq.r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, etag) {
		rq.w.WriteHeader(http.StatusNotModified)
		return nil
	}
	rw.etagOn = !rq.none
	rw.ctx = rq.contextMember(contextFragment(s.model, t, l, true))
	_, err = rq.w.Write(rw.appendObject(nil))
	return err
}

// missing is the answer for a single entity that does not exist: 204 for an empty to-one navigation, else 404.
func (s *Service) missing(t *target) error {
	if t.toOne {
		return errNoContent
	}
	return NotFound(fmt.Sprintf("The %s does not exist.", t.typ.Name))
}

// errNoContent makes ServeHTTP answer 204 without a body.
var errNoContent = &Error{Status: http.StatusNoContent}

// readOne runs a single-entity read and returns its converted row, nil when there is none.
func (s *Service) readOne(ctx context.Context, rr *readRequest) (*rowWriter, error) {
	plan, err := s.planRead(rr)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, plan.sql, plan.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	rw := newRowWriter(plan.layout)
	if err := scanConvert(rows, rw); err != nil {
		return nil, err
	}
	return rw, rows.Close()
}

func (s *Service) readCount(rq *request) error {
	if err := plannerOptions(rq.q); err != nil {
		return err
	}
	query, args, err := s.planCount(&readRequest{typ: rq.t.typ, scope: rq.t.scope, query: rq.q})
	if err != nil {
		return err
	}
	var n int64
	if err := s.db.QueryRowContext(rq.r.Context(), query, args...).Scan(&n); err != nil {
		return err
	}
	h := rq.w.Header()
	h.Set("Content-Type", "text/plain;charset=utf-8")
	h.Set("OData-Version", "4.0")
	_, err = rq.w.Write(strconv.AppendInt(nil, n, 10))
	return err
}

// readProperty answers a property of one entity, as JSON or, for /$value, as its raw value.
func (s *Service) readProperty(rq *request) error {
	t := rq.t
	top := t.props[0]
	l := newLayout(t.typ, map[*edm.Property]bool{top: true})
	rw, err := s.readOne(rq.r.Context(), &readRequest{typ: t.typ, scope: t.scope, single: true, query: rq.q, layout: l, limit: 1})
	if err != nil {
		return err
	}
	if rw == nil {
		return s.missing(t)
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
	rq.w.Header().Set("ETag", formatETag(rw.etag()))
	if t.kind == tPropertyValue {
		return writeRaw(rq, p, v)
	}
	rq.jsonHeaders()
	ctx := rq.contextMember(t.entityPath + "/" + propPath(t.props))
	var b []byte
	f := &field{prop: p, name: fieldName(p.Name), col: 0}
	if p.Complex != nil && !p.Collection {
		for _, lf := range l.fields {
			if lf.prop == top {
				f = lf
			}
		}
		for _, mp := range t.props[1:] {
			for _, mf := range f.members {
				if mf.prop.Name == mp.Name {
					f = mf
				}
			}
		}
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
	h.Set("OData-Version", "4.0")
	if b, ok := v.([]byte); ok {
		h.Set("Content-Type", "application/octet-stream")
		_, err := rq.w.Write(b)
		return err
	}
	h.Set("Content-Type", "text/plain;charset=utf-8")
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
	l := newLayout(t.typ, map[*edm.Property]bool{data: true, ct: true})
	rw, err := s.readOne(rq.r.Context(), &readRequest{typ: t.typ, scope: t.scope, single: true, query: rq.q, layout: l, limit: 1})
	if err != nil {
		return err
	}
	if rw == nil {
		return s.missing(t)
	}
	e, err := rw.entity()
	if err != nil {
		return err
	}
	h := rq.w.Header()
	h.Set("OData-Version", "4.0")
	mt, _ := e[ct.Name].(string)
	if mt == "" {
		mt = "application/octet-stream"
	}
	h.Set("Content-Type", mt)
	h.Set("ETag", formatETag(rw.etag()))
	b, _ := e[data.Name].([]byte)
	if b == nil {
		return errNoContent
	}
	h.Set("Content-Length", strconv.Itoa(len(b)))
	_, err = rq.w.Write(b)
	return err
}

package odata

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// Delta links (OData 4.01 part 1, 11.3; JSON format, 15). A GET of a tracked set with Prefer:
// odata.track-changes reads the position of the change log (changes.go) before it reads the entities, and the
// last page of its answer carries a delta link naming that position and the defining query; the next links of the
// earlier pages carry the position in a $deltatoken of their own, so that the delta link starts where the first
// page did whatever happens between the pages. A GET of the delta link reads the position again, then the keys of
// the entities the log holds between the two, a page of them at a time in key order, and answers each as the
// entity (when it exists and matches the defining query, read with it and a $filter on the page's keys), or as
// removed: "changed" when it exists but the defining query no longer selects it, "deleted" when it is gone.
// Whether an entity matched before is not known, so a change of one that never matched is reported as removed
// too, which a client ignores.

// tracking is the change tracking of a read of entities: where its delta link starts.
type tracking struct {
	set    *edm.EntitySet
	from   int64  // the position of the change log before the first page was read
	fromAt int64  // when it was read (Unix milliseconds)
	query  string // the raw query the read plans: the request's without $deltatoken
}

// startTracking looks at a GET of a collection for change tracking. A $deltatoken of a delta link, or of the next
// page of a delta answer, is served here (done); the next page of a read that tracks changes, and a read that
// prefers odata.track-changes of a set that tracks them, get req.tracking and are read as usual.
func (s *Service) startTracking(req *request) (done bool, err error) {
	t := req.target
	if t.kind != tCollection || !t.direct || t.ref || t.set == nil {
		return false, nil
	}
	raw := req.r.URL.RawQuery
	tracks := s.sets[t.set].TrackChanges
	options := syntax.SplitQuery(raw)
	token, found, err := options.Lookup("$deltatoken")
	switch {
	case err != nil:
		return true, syntaxError(err)
	case found && !tracks:
		return true, BadRequest(CodeInvalidValue, "$deltatoken", "The entity set "+t.set.Name+" does not track changes: the $deltatoken is not one this service issued.")
	case found:
		tok, err := s.deltaToken(req, token.Value())
		if err == nil && tok.Kind != tokenInitial {
			err = onlyDeltaToken(options)
		}
		if err == nil {
			err = s.checkAge(req, tok)
		}
		if err != nil {
			return true, err
		}
		if tok.Kind != tokenInitial {
			return true, s.serveDelta(req, tok, options)
		}
		req.tracking = &tracking{set: t.set, from: tok.From, fromAt: tok.FromAt, query: options.Without("$deltatoken").String()}
	case tracks && len(req.r.Header["Prefer"]) > 0 && parsePrefer(req.r.Header).trackChanges && !options.Has("$top", "$skip", "$expand", "$apply"):
		at := time.Now().UnixMilli()
		from, err := s.changes.position(req.r.Context())
		if err != nil {
			return true, s.readError(err)
		}
		req.tracking = &tracking{set: t.set, from: from, fromAt: at, query: raw}
	}
	return false, nil
}

// deltaToken reads the $deltatoken text of a request to its target's set: a token of another set is a 400.
func (s *Service) deltaToken(req *request, text string) (*deltaToken, error) {
	tok, err := decodeDeltaToken(text)
	if err != nil {
		return nil, err
	}
	if tok.Set != req.target.set.Name {
		return nil, BadRequest(CodeInvalidValue, "$deltatoken", "The $deltatoken is not one this service issued for "+req.target.set.Name+".")
	}
	return tok, nil
}

// onlyDeltaToken refuses the options of a delta link's request but $deltatoken and $format: the defining query is
// in the token.
func onlyDeltaToken(options syntax.QueryString) error {
	for _, o := range options {
		if o.Option != "$deltatoken" && o.Option != "$format" {
			return BadRequest(CodeBadRequest, o.Name, "A delta link takes no query options but $format: the defining query is part of it.")
		}
	}
	return nil
}

// checkAge answers a token older than the change log keeps: 410 Gone with the URL of a full read of its defining
// query in Location.
func (s *Service) checkAge(req *request, tok *deltaToken) error {
	if time.Now().UnixMilli()-tok.FromAt > s.changes.keep.Milliseconds() {
		query := tok.Query
		if tok.Kind == tokenInitial {
			query = definingQuery(req.r.URL.RawQuery)
		}
		location := req.base() + "/" + tok.Set
		if query != "" {
			location += "?" + query
		}
		return &Error{Code: CodeGone, Target: "$deltatoken", Header: http.Header{"Location": {location}},
			Message: "The delta link is older than the changes the service keeps: read the entities again (Location)."}
	}
	return nil
}

// trackable reports whether the read with the options q can track changes: not with $top, $skip, $expand or $apply,
// whose results the change log cannot follow.
func trackable(q *syntax.Query) bool {
	for _, o := range q.Options {
		switch o.Name {
		case "$top", "$skip", "$expand", "$apply", "$index":
			return false
		}
	}
	return true
}

// nextSuffix returns what the next link of a page of a read that tracks changes adds to the query: the
// $deltatoken that carries the position its delta link starts at.
func (tr *tracking) nextSuffix() string {
	return "&$deltatoken=" + (&deltaToken{Kind: tokenInitial, Set: tr.set.Name, From: tr.from, FromAt: tr.fromAt}).encode()
}

// deltaLink returns the delta link of the read.
func (tr *tracking) deltaLink(req *request) string {
	tok := &deltaToken{Kind: tokenDelta, Set: tr.set.Name, Query: definingQuery(tr.query), From: tr.from, FromAt: tr.fromAt}
	return req.base() + "/" + tr.set.Name + "?$deltatoken=" + tok.encode()
}

// definingQuery returns the raw query of a read without the options of paging and format: what a delta link
// reads again.
func definingQuery(raw string) string {
	return syntax.SplitQuery(raw).Without("$skiptoken", "$deltatoken", "$count", "$format").String()
}

// withFilter returns the raw query with the raw $filter expression and added to its $filter, if it has one.
func withFilter(raw, and string) string {
	q := syntax.SplitQuery(raw)
	if filter, found, _ := q.Lookup("$filter"); found {
		and = "(" + filter.Raw + ")+and+(" + and + ")"
	}
	return q.With("$filter", and).String()
}

// deltaPage is one page of a delta answer being read.
type deltaPage struct {
	keys   []string         // the keys of the page, as the log holds them
	values map[string][]any // their values, by key
	seen   map[string]bool  // the keys answered as entities
}

// serveDelta answers a GET of a delta link or of the next page of a delta answer: the changes the token's
// position and the defining query select, a page of them, then a next link or a new delta link.
func (s *Service) serveDelta(req *request, tok *deltaToken, options syntax.QueryString) error {
	format, _, err := options.Lookup("$format")
	if err != nil {
		return syntaxError(err)
	}
	req.query = &syntax.Query{Format: format.Value()}
	if err := req.negotiateJSON(); err != nil {
		return err
	}
	t := req.target
	ctx := req.r.Context()
	next := &deltaToken{Kind: tokenNext, Set: tok.Set, Query: tok.Query, From: tok.From, FromAt: tok.FromAt, To: tok.To, ToAt: tok.ToAt}
	if tok.Kind == tokenDelta {
		next.ToAt = time.Now().UnixMilli()
		var err error
		if next.To, err = s.changes.position(ctx); err != nil {
			return s.readError(err)
		}
	}
	limits := s.limitsOf(t)
	defining, err := s.planRead(ctx, t.scope, tok.Query, limits)
	if err != nil {
		return queryError(err)
	}
	if !trackable(defining.Query()) {
		return BadRequest(CodeInvalidValue, "$deltatoken", "The $deltatoken is not one this service issued.")
	}
	shape := defining.Memo(s.shapeFn).(*readShape)
	size, preferred := s.pageSizeFor(req.r, t)
	keys, more, err := s.changes.changedKeys(ctx, tok.Set, next.From, next.To, tok.After, size)
	if err != nil {
		return s.readError(err)
	}
	page := &deltaPage{keys: keys, values: map[string][]any{}, seen: map[string]bool{}}
	for _, key := range keys {
		if page.values[key], err = s.logKey(t.typ, key); err != nil {
			return err
		}
	}
	var link string
	if more {
		next.After = keys[len(keys)-1]
		link = `,"@odata.nextLink":`
	} else {
		next = &deltaToken{Kind: tokenDelta, Set: tok.Set, Query: tok.Query, From: next.To, FromAt: next.ToAt}
		link = `,"@odata.deltaLink":`
	}
	link = string(appendString([]byte(link), req.base()+"/"+tok.Set+"?$deltatoken="+next.encode()))
	return s.writeDelta(req, tok.Query, shape, page, size, preferred, link)
}

// logKey returns the key values of an entity of et whose key the change log holds as text ("('k')").
func (s *Service) logKey(et *edm.EntityType, text string) ([]any, error) {
	path, err := syntax.ParsePath("K" + text)
	if err != nil || len(path.Segments) != 1 || len(path.Segments[0].Args) != 1 {
		return nil, BadRequest(CodeInvalidValue, "$deltatoken", "The change log holds a key of "+et.Name+" that does not parse.")
	}
	key, err := s.planner.KeyValues(et, path.Segments[0].Args[0].Args)
	if err != nil {
		return nil, queryError(err)
	}
	return key, nil
}

// keyFilter returns the raw $filter expression that selects the entities of et with the keys of the page.
func keyFilter(et *edm.EntityType, page *deltaPage, keys []string) string {
	values := make([][]any, len(keys))
	for i, k := range keys {
		values[i] = page.values[k]
	}
	return syntax.Escape(keysFilter(et, values))
}

// deltaLimits are the limits of the reads of a delta page: the set's, without bounds on the size of the $filter
// the page's keys add to the defining query (which passed them when it was first read).
func deltaLimits(l *requestLimits) *requestLimits {
	out := *l
	out.read.Query.ExpressionNodes, out.read.Query.ExpressionLength, out.read.Query.InListItems = -1, -1, -1
	return &out
}

// deltaWriter writes the answer of a delta page: the envelope is started with the first entry (or at the end of an
// empty page), so that an error before it is still an error answer.
type deltaWriter struct {
	req       *request
	page      pageWriter
	fragment  string // the context URL's fragment
	size      int
	preferred bool // Prefer: odata.maxpagesize chose the size
	started   bool
	entries   int
}

// start starts the envelope unless it has started.
func (w *deltaWriter) start() {
	if !w.started {
		w.page.start(w.req, w.fragment, -1, w.size, w.preferred)
		w.started = true
	}
}

// next starts the envelope or separates the entry about to be appended from the one before.
func (w *deltaWriter) next() {
	w.start()
	if w.entries > 0 {
		w.page.buf = append(w.page.buf, ',')
	}
	w.entries++
}

// finish ends the envelope with link (the next link or the delta link, as a member) and flushes the answer.
func (w *deltaWriter) finish(link string) error {
	w.start()
	w.page.buf = append(append(append(w.page.buf, ']'), link...), '}')
	return w.page.close(w.req)
}

// writeDelta writes a page of a delta answer: the entries of the page, then link (the next link or the delta
// link, as a member). An error before the answer went out is answered as any other; after, it is aborted.
func (s *Service) writeDelta(req *request, query string, shape *readShape, page *deltaPage, size int, preferred bool, link string) error {
	w := &deltaWriter{req: req, fragment: req.target.set.Name + shape.selectList + "/$delta", size: size, preferred: preferred}
	err := s.writeDeltaEntries(req, w, query, shape, page)
	if err == nil {
		err = w.finish(link)
	}
	if w.started {
		defer w.page.release()
	}
	if err == nil || !w.page.started() {
		return err
	}
	return abort(s, req, err)
}

// writeDeltaEntries writes the entries of a delta page: the entities the defining query selects, read with a
// $filter on the page's keys added to it, then the other keys as removed.
func (s *Service) writeDeltaEntries(req *request, w *deltaWriter, query string, shape *readShape, page *deltaPage) error {
	t := req.target
	ctx := req.r.Context()
	limits := deltaLimits(s.limitsOf(t))
	if len(page.keys) > 0 {
		read, err := s.planRead(ctx, t.scope, withFilter(query, keyFilter(t.typ, page, page.keys)), limits)
		if err != nil {
			return queryError(err)
		}
		sel, args := read.Select(len(page.keys))
		rows, err := s.db.QueryContext(ctx, sel, args...)
		if err != nil {
			return s.readError(err)
		}
		defer rows.Close()
		writer := newRowWriter(read.Memo(s.shapeFn).(*readShape).layout)
		req.setFormat(writer, shape.levelShape)
		for rows.Next() {
			if err := scanConvert(rows, writer); err != nil {
				return s.readError(err)
			}
			w.next()
			w.page.buf = writer.appendObject(w.page.buf)
			page.seen[rowKey(writer)] = true
			if err := w.page.flush(); err != nil {
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return s.readError(err)
		}
	}
	existing, err := s.existingKeys(ctx, req, page, limits)
	if err != nil {
		return err
	}
	for _, key := range page.keys {
		if page.seen[key] {
			continue
		}
		w.next()
		if w.page.buf, err = s.appendRemoved(w.page.buf, req, key, page.values[key], existing[key]); err != nil {
			return err
		}
	}
	return nil
}

// existingKeys returns which keys of the page that were not answered as entities still exist.
func (s *Service) existingKeys(ctx context.Context, req *request, page *deltaPage, limits *requestLimits) (map[string]bool, error) {
	var rest []string
	for _, key := range page.keys {
		if !page.seen[key] {
			rest = append(rest, key)
		}
	}
	existing := map[string]bool{}
	if len(rest) == 0 {
		return existing, nil
	}
	t := req.target
	names := make([]string, 0, len(t.typ.KeyProperties()))
	for _, p := range t.typ.KeyProperties() {
		names = append(names, p.Name)
	}
	read, err := s.planRead(ctx, t.scope, "$select="+strings.Join(names, ",")+"&$filter="+keyFilter(t.typ, page, rest), limits)
	if err != nil {
		return nil, queryError(err)
	}
	sel, args := read.Select(len(rest))
	rows, err := s.db.QueryContext(ctx, sel, args...)
	if err != nil {
		return nil, s.readError(err)
	}
	defer rows.Close()
	writer := newRowWriter(read.Memo(s.shapeFn).(*readShape).layout)
	for rows.Next() {
		if err := scanConvert(rows, writer); err != nil {
			return nil, s.readError(err)
		}
		existing[rowKey(writer)] = true
	}
	return existing, s.readError(rows.Err())
}

// appendRemoved appends the object of a removed entity of the target's set, with the key key (as the log holds
// it) and its values: deleted, or changed when it exists but no longer matches. In OData 4.01 it is the removed
// control information, the id and the key properties; in 4.0 a deleted entity with its context, id and reason
// (JSON format 4.0, 14.4). Both whatever odata.metadata says, as the formats require.
func (s *Service) appendRemoved(b []byte, req *request, key string, values []any, exists bool) ([]byte, error) {
	set := req.target.set
	reason := "deleted"
	if exists {
		reason = "changed"
	}
	id := req.base() + "/" + set.Name + key
	b = append(b, '{')
	if req.version != Version401 {
		b = append(req.appendContext(b, set.Name+"/$deletedEntity"), `,"id":`...)
		b = append(appendString(b, id), `,"reason":`...)
		return append(appendString(b, reason), '}'), nil
	}
	format := req.answer()
	if format.full() {
		b = append(req.appendContext(b, set.Name+"/$deletedEntity"), ',')
	}
	b = append(b, `"@odata.removed":{"reason":`...)
	b = append(appendString(b, reason), `},"@odata.id":`...)
	b = appendString(b, id)
	for i, p := range set.EntityType().KeyProperties() {
		b = append(appendString(append(b, ','), p.Name), ':')
		var err error
		if b, err = appendValueQuoted(b, p, values[i], format.ieee754 && quotesNumbers(p)); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

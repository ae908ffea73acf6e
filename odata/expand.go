package odata

import (
	"context"
	"strconv"

	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqldb"
)

// expansion holds the children of one expanded navigation property for all the rows of a page (or for all the
// children of a parent expansion), read with one query, and their counts.
type expansion struct {
	shape *expandShape
	rows  [][]any // child rows as scanned, without their link values
	// byParent maps plan.LinkKey of the link values to the parent's children in groups: their indexes into
	// rows, in order, are first and then next[first], next[next[first]]... until -1. A child needs no
	// allocation of its own.
	byParent map[string]int
	groups   []children
	next     []int
	counts   map[string]int64 // the same key -> the number of children (nested $count=true, Nav/$count)
	sub      []*expansion     // the children's own expansions
	writer   *rowWriter
}

// children are the first and the last child of a parent in an expansion's rows.
type children struct{ first, last int }

// add appends a copy of the child row (without its link values) of the parent with the link key k.
func (x *expansion) add(k []byte, row []any, arena *rowArena) {
	i := len(x.rows)
	x.rows = append(x.rows, arena.copy(row))
	x.next = append(x.next, -1)
	if g, ok := x.byParent[string(k)]; ok {
		x.next[x.groups[g].last] = i
		x.groups[g].last = i
		return
	}
	x.byParent[string(k)] = len(x.groups)
	x.groups = append(x.groups, children{i, i})
}

// childrenOf returns the children of the parent with the link key k, and whether it has any.
func (x *expansion) childrenOf(k []byte) (children, bool) {
	g, ok := x.byParent[string(k)]
	if !ok {
		return children{}, false
	}
	return x.groups[g], true
}

// expand runs the queries of the expansions of shape for the parent rows (as scanned), recursively.
func (s *Service) expand(ctx context.Context, shape *levelShape, parents [][]any) ([]*expansion, error) {
	out := make([]*expansion, len(shape.expands))
	var key []byte // scratch for link keys
	for i, navigation := range shape.expands {
		x := &expansion{shape: navigation}
		e := navigation.expand
		n := len(e.Link)
		if e.WithCount || e.CountOnly {
			x.counts = make(map[string]int64, len(parents))
			if query, args := e.Counts(parents); query != "" {
				err := s.each(ctx, query, args, n+1, func(row []any) error {
					c, _ := row[n].(int64)
					key = plan.AppendLinkKey(key[:0], row[:n]...)
					x.counts[string(key)] = c
					return nil
				})
				if err != nil {
					return nil, err
				}
			}
		}
		if !e.CountOnly {
			x.byParent = make(map[string]int, len(parents))
			if query, args := e.Select(parents); query != "" {
				var arena rowArena
				err := s.each(ctx, query, args, n+len(e.Columns), func(row []any) error {
					key = plan.AppendLinkKey(key[:0], row[:n]...)
					x.add(key, row[n:], &arena)
					return nil
				})
				if err != nil {
					return nil, err
				}
			}
			x.writer = getRowWriter(navigation.child.layout)
			if len(navigation.child.expands) > 0 && len(x.rows) > 0 {
				var err error
				if x.sub, err = s.expand(ctx, navigation.child, x.rows); err != nil {
					return nil, err
				}
			}
		}
		out[i] = x
	}
	return out, nil
}

// rowArena copies rows into chunks of several rows each: reading a page or an expansion allocates a few
// chunks rather than a slice per row.
type rowArena struct {
	free []any // the unused part of the last chunk
	rows int   // the rows copied so far
}

// copy returns a copy of row, whose capacity is its length (an append to it does not reach the next row).
func (a *rowArena) copy(row []any) []any {
	w := len(row)
	if len(a.free) < w {
		a.free = make([]any, min(max(a.rows, 8), 64)*w)
	}
	c := a.free[:w:w]
	a.free = a.free[w:]
	a.rows++
	copy(c, row)
	return c
}

// each runs a query and calls fn with each row as scanned (the slice is reused between rows).
func (s *Service) each(ctx context.Context, query string, args []any, width int, fn func(row []any) error) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return s.readError(err)
	}
	defer rows.Close()
	vals := make([]any, width)
	ptrs := make([]any, width)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return s.readError(err)
		}
		if err := fn(vals); err != nil {
			return err
		}
	}
	return s.readError(rows.Err())
}

// expWriter writes rows with their expansions.
type expWriter struct {
	expansions []*expansion
	base       string // the service root URL, for @odata.id
	format     *answerFormat
	// rootID returns the canonical path of a root row (Set('k'), or a containment path), when the root row or
	// a contained child needs it; nil otherwise.
	rootID func(writer *rowWriter) string
	link   []any  // scratch for a parent's link values
	key    []byte // scratch for their link key
}

// newExpWriter returns the writer of the rows of writer (its format and target set) with their expansions.
func (s *Service) newExpWriter(req *request, shape *levelShape, writer *rowWriter, expansions []*expansion) *expWriter {
	w := &expWriter{expansions: expansions, base: req.base(), format: writer.format}
	for _, x := range expansions {
		x.setWriters(w.format)
	}
	if shape.needsIDs(w.format) || writer.needsPath() {
		w.rootID = writer.target.rowPath
	}
	return w
}

// rowPath returns the canonical path of the entity of the converted row of writer, read by the target t:
// Set('k'), a containment path, or a singleton's name.
func (t *target) rowPath(writer *rowWriter) string {
	switch {
	case t.scope.Singleton != nil && len(t.scope.Path) == 0:
		return t.scope.Singleton.Name
	case t.ctxSet != nil:
		return t.ctxSet.Name + rowKey(writer)
	case t.containedBase != "" && t.toOne:
		return t.containedBase
	case t.containedBase != "":
		return t.containedBase + rowKey(writer)
	}
	return t.typ.Name + rowKey(writer)
}

// release returns the row writers of the expansions to their pool once the answer is written.
func (w *expWriter) release() {
	for _, x := range w.expansions {
		x.release()
	}
}

func (x *expansion) release() {
	if x.writer != nil {
		putRowWriter(x.writer)
		x.writer = nil
	}
	for _, sub := range x.sub {
		sub.release()
	}
}

func (x *expansion) setWriters(format *answerFormat) {
	if x.writer != nil {
		x.writer.format = format
		x.writer.expanded = x.shape.child.expandedNavigations()
	}
	for _, sub := range x.sub {
		sub.setWriters(format)
	}
}

// rowKey returns the key predicate of the converted row of writer: ('k') or (A='x',B=1).
func rowKey(writer *rowWriter) string {
	l := writer.layout
	key := make([]any, len(l.keys))
	for i, c := range l.keys {
		v, err := sqldb.Scan(l.cols[c], writer.values[c])
		if err != nil {
			return "()"
		}
		key[i] = v
	}
	return formatKey(l.typ, key)
}

// appendRow appends the converted row of writer (whose scanned values are row) as an object with its expansions.
func (w *expWriter) appendRow(b []byte, writer *rowWriter, row []any) ([]byte, error) {
	id := ""
	if w.rootID != nil {
		id = w.rootID(writer)
	}
	return w.appendObject(b, writer, row, w.expansions, id)
}

// appendObject appends the converted row of writer (whose scanned values are row, and whose entity's path is id,
// "" when not needed) as an object with its expansions.
func (w *expWriter) appendObject(b []byte, writer *rowWriter, row []any, expansions []*expansion, id string) ([]byte, error) {
	b = writer.appendMembers(b, id)
	for _, x := range expansions {
		var err error
		if b, err = w.appendExpansion(b, x, row, id); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendExpansion appends the members of one expansion of the parent row (with the path id): its navigation
// link (full metadata), its count when asked, and the related entity (or null) or the array of them.
func (w *expWriter) appendExpansion(b []byte, x *expansion, row []any, id string) ([]byte, error) {
	e := x.shape.expand
	if w.format != nil && w.format.full() && id != "" {
		b = w.format.appendNavigationLink(b, e.Nav, id)
	}
	w.link = w.link[:0]
	for _, c := range e.Link {
		w.link = append(w.link, row[c])
	}
	w.key = plan.AppendLinkKey(w.key[:0], w.link...)
	if x.counts != nil {
		b = appendName(b, x.shape.count)
		b = strconv.AppendInt(b, x.counts[string(w.key)], 10)
	}
	if e.CountOnly {
		return b, nil
	}
	b = appendName(b, x.shape.name)
	c, ok := x.childrenOf(w.key)
	if !e.Nav.Collection {
		if !ok {
			return append(b, "null"...), nil
		}
		return w.appendChild(b, x, c.first, id)
	}
	b = append(b, '[')
	for idx := c.first; ok && idx >= 0; idx = x.next[idx] {
		if idx != c.first {
			b = append(b, ',')
		}
		var err error
		if b, err = w.appendChild(b, x, idx, id); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// appendChild appends the child row idx of the expansion x of the parent with the path parentID: the entity
// with its own expansions, or its reference ($ref).
func (w *expWriter) appendChild(b []byte, x *expansion, idx int, parentID string) ([]byte, error) {
	child := x.rows[idx]
	copy(x.writer.values, child)
	if err := x.writer.convert(); err != nil {
		return b, err
	}
	childID := ""
	if x.shape.expand.Ref || x.shape.child.needsIDs(w.format) || x.writer.needsOwnID() {
		childID = x.shape.idOf(parentID, x.writer)
	}
	if x.shape.expand.Ref {
		b = append(b, `{"@odata.id":`...)
		b = appendString(b, w.base+"/"+childID)
		return append(b, '}'), nil
	}
	return w.appendObject(b, x.writer, child, x.sub, childID)
}

// idOf returns the canonical path of a child row: Set('k'), or below its parent for a contained target.
func (es *expandShape) idOf(parent string, writer *rowWriter) string {
	if es.set != nil {
		return es.set.Name + rowKey(writer)
	}
	if es.expand.Nav.Collection {
		return parent + "/" + es.expand.Nav.Name + rowKey(writer)
	}
	return parent + "/" + es.expand.Nav.Name
}

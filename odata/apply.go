package odata

import (
	"slices"
	"strconv"

	"github.com/storekit/store/odata/internal/plan"
)

// readAggregated answers a read whose $apply aggregates (plan.Read.Aggregation): a page of rows, each written
// from its columns, nested where a column's path is (a grouping through a navigation or complex property, the
// alias of a join), with a next link by offset. The rows are no entities: they have no id, ETag or links.
func (s *Service) readAggregated(req *request, read *plan.Read, agg *plan.Aggregation) error {
	q, err := s.queryPage(req, read)
	if err != nil {
		return err
	}
	defer q.rows.Close()
	rows, count, size, preferred := q.rows, q.count, q.size, q.preferred
	tree := aggregateTree(agg)
	format := req.answer()
	values := make([]any, len(agg.Columns))
	if agg.Sequence {
		values = append(values, nil)
	}
	pointers := make([]any, len(values))
	for i := range values {
		pointers[i] = &values[i]
	}
	var page pageWriter
	fragment := ""
	switch {
	case req.noMetadata():
	case req.target.scope.CrossJoin != nil:
		fragment = "Collection(Edm.ComplexType)"
	default:
		fragment = contextFragment(s.model, req.target, agg.Select, false)
	}
	page.start(req, fragment, count, size, preferred)
	defer page.release()
	more := false
	for n := 0; rows.Next(); n++ {
		if n == size {
			more = true
			break
		}
		if err := rows.Scan(pointers...); err != nil {
			return s.aggregateError(req, &page, err)
		}
		if n > 0 {
			page.buf = append(page.buf, ',')
		}
		if page.buf, err = tree.appendObject(page.buf, agg, values, format); err != nil {
			return s.aggregateError(req, &page, err)
		}
		if err := page.flush(); err != nil {
			return s.aggregateError(req, &page, err)
		}
	}
	if err := rows.Err(); err != nil {
		return s.aggregateError(req, &page, s.readError(err))
	}
	var last []any
	if more {
		last = values
	}
	if err := page.finish(req, read, last, size); err != nil {
		return s.aggregateError(req, &page, err)
	}
	return nil
}

// aggregateError answers err when nothing was sent yet, else ends the answer.
func (s *Service) aggregateError(req *request, page *pageWriter, err error) error {
	if !page.started() {
		delete(req.w.Header(), "Preference-Applied")
		return err
	}
	return abort(s, req, err)
}

// aggregateNode is a member of an aggregated row: a column (column >= 0) or an object of members.
type aggregateNode struct {
	name    []byte // `"Name":`
	column  int
	members []*aggregateNode
}

// aggregateTree arranges the columns of agg by their paths, in the order of their first appearance.
func aggregateTree(agg *plan.Aggregation) *aggregateNode {
	root := &aggregateNode{column: -1}
	for i, col := range agg.Columns {
		node := root
		for depth, name := range col.Path {
			var next *aggregateNode
			for _, m := range node.members {
				if string(m.name) == string(fieldName(name)) {
					next = m
				}
			}
			if next == nil {
				next = &aggregateNode{name: fieldName(name), column: -1}
				node.members = append(node.members, next)
			}
			if depth == len(col.Path)-1 {
				next.column = i
			}
			node = next
		}
	}
	return root
}

// appendObject appends the JSON object of the node's members for one row in the answer's format (types of
// the values JSON does not tell with odata.metadata=full, Int64 and Decimal as strings with IEEE754Compatible,
// nulls left out with omit-values=nulls); an object whose values are all null (an outer join without a match, a
// grouping navigation without a target) is null.
func (n *aggregateNode) appendObject(b []byte, agg *plan.Aggregation, values []any, format *answerFormat) ([]byte, error) {
	b = append(b, '{')
	for _, m := range n.members {
		if !m.present(agg, values) {
			continue
		}
		null := m.allNull(values)
		if null && format.omitNulls {
			continue
		}
		if m.column < 0 {
			b = appendName(b, m.name)
			if null {
				b = append(b, "null"...)
				continue
			}
			var err error
			if b, err = m.appendObject(b, agg, values, format); err != nil {
				return b, err
			}
			continue
		}
		p := agg.Columns[m.column].Property
		b = format.appendPropertyType(b, p, null)
		b = appendName(b, m.name)
		start := len(b)
		var err error
		if b, err = appendColumn(b, p, values[m.column]); err != nil {
			return b, err
		}
		if format.ieee754 && quotesNumbers(p) && !null {
			text := append([]byte(nil), b[start:]...)
			b = appendQuotedNumbers(b[:start], text)
		}
	}
	return append(b, '}'), nil
}

// allNull reports whether every column below n is null in the row.
func (n *aggregateNode) allNull(values []any) bool {
	if n.column >= 0 {
		return values[n.column] == nil
	}
	for _, m := range n.members {
		if !m.allNull(values) {
			return false
		}
	}
	return true
}

// present reports whether the row has a member below n: every row has every column, except the rows of a concat
// whose sequence gave no such column (plan.AggregateColumn.In).
func (n *aggregateNode) present(agg *plan.Aggregation, values []any) bool {
	if n.column >= 0 {
		in := agg.Columns[n.column].In
		return in == nil || !agg.Sequence || slices.Contains(in, sequenceNumber(values[len(values)-1]))
	}
	for _, m := range n.members {
		if m.present(agg, values) {
			return true
		}
	}
	return false
}

// sequenceNumber is the number of a concat sequence as the database driver scanned it.
func sequenceNumber(v any) int {
	switch n := v.(type) {
	case int64:
		return int(n)
	case int32:
		return int(n)
	case int:
		return n
	case float64:
		return int(n)
	case []byte:
		i, _ := strconv.Atoi(string(n))
		return i
	case string:
		i, _ := strconv.Atoi(n)
		return i
	}
	return -1
}

package odata

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/storekit/store/odata/edm"
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
		if nested := agg.Columns[m.column].Nested; nested != nil {
			if nested.Single && !null && emptyRows(values[m.column]) {
				continue // a single-valued navigation without a target: the property is left out
			}
			b = appendName(b, m.name)
			if null {
				b = append(b, "null"...)
				continue
			}
			var err error
			if b, err = appendNested(b, nested, values[m.column], format); err != nil {
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

// appendNested appends the JSON array of the rows of a collection of nest or addnested from src, the text of its
// column: a JSON array of rows, each the array of the values of agg's columns as the driver would scan them
// (plan.AggregateColumn.Nested); the one row of agg.Single as an object. A collection of more than agg.MaxRows
// rows is refused.
func appendNested(b []byte, agg *plan.Aggregation, src any, format *answerFormat) ([]byte, error) {
	text, ok := nestedText(src)
	if !ok {
		return b, fmt.Errorf("odata: nested collection of type %T", src)
	}
	tree := aggregateTree(agg)
	width := len(agg.Columns)
	if agg.Sequence {
		width++
	}
	values := make([]any, width)
	if !agg.Single {
		b = append(b, '[')
	}
	err := scanRows(text, func(i int, k itemKind, v []byte) error {
		if i >= width {
			return errArray
		}
		if i == len(agg.Columns) {
			values[i] = nestedValue(sequenceProperty, false, k, v)
			return nil
		}
		column := &agg.Columns[i]
		values[i] = nestedValue(column.Property, column.Nested != nil, k, v)
		return nil
	}, func(n int) error {
		if agg.MaxRows > 0 && n >= agg.MaxRows {
			return &Error{Code: CodeLimitExceeded, Target: "$apply", Message: "A collection of nest or addnested holds more than " +
				strconv.Itoa(agg.MaxRows) + " rows (the largest page): narrow it with filter or top."}
		}
		if n > 0 && agg.Single {
			return errArray
		}
		if n > 0 {
			b = append(b, ',')
		}
		var err error
		b, err = tree.appendObject(b, agg, values, format)
		clear(values)
		return err
	})
	if err != nil || agg.Single {
		return b, err
	}
	return append(b, ']'), nil
}

// sequenceProperty is how the number of a concat's sequence in a row of a nested collection is read.
var sequenceProperty = &edm.Property{Type: edm.KindInt64}

// nestedText is the text of a nested collection as the driver scanned it.
func nestedText(src any) ([]byte, bool) {
	switch v := src.(type) {
	case string:
		return []byte(v), true
	case []byte:
		return v, true
	}
	return nil, false
}

// emptyRows reports whether src, the text of a nested collection, holds no row.
func emptyRows(src any) bool {
	text, _ := nestedText(src)
	i := skipSpace(text, 0)
	if i >= len(text) || text[i] != '[' {
		return false
	}
	i = skipSpace(text, i+1)
	return i < len(text) && text[i] == ']'
}

// nestedValue is the value of the item of kind k and text v of a row of a nested collection as the database
// driver would scan it for a column of p (nested: the column holds a collection itself, as text).
func nestedValue(p *edm.Property, nested bool, k itemKind, v []byte) any {
	switch k {
	case itemNull:
		return nil
	case itemTrue:
		return true
	case itemFalse:
		return false
	case itemNumber:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil && (p.Enum != nil || p.Type != edm.KindDouble && p.Type != edm.KindSingle) {
			return n
		}
		if f, err := strconv.ParseFloat(string(v), 64); err == nil {
			return f
		}
		return string(v)
	}
	switch {
	case nested || p.Enum != nil:
	case p.Type == edm.KindBinary:
		if out, err := decodeHex(string(v)); err == nil {
			return out
		}
	case p.Type == edm.KindDouble || p.Type == edm.KindSingle:
		// PostgreSQL writes NaN and the infinities as the strings "NaN", "Infinity", "-Infinity".
		if f, err := strconv.ParseFloat(string(v), 64); err == nil {
			return f
		}
	}
	return string(v)
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

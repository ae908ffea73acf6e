package schema

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// Querier reads the catalog of a database and tells its dialect: a *sqldb.DB, *sqldb.Conn or *sqldb.Tx.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	Dialect() sqldb.Dialect
}

// Problem is one difference between the model and the database that the engine cannot work with.
type Problem struct {
	// Table is the table concerned; Column the column, or the key's columns comma-separated, "" for the table
	// as a whole.
	Table  string
	Column string
	// Message says what is wrong and which declaration of the model needs it.
	Message string
}

// String returns the problem as one line: `table "book", column "year": ...`.
func (p Problem) String() string {
	s := fmt.Sprintf("table %q", p.Table)
	if p.Column != "" {
		s += fmt.Sprintf(", column %q", p.Column)
	}
	return s + ": " + p.Message
}

// MismatchError is the error of a database whose tables do not match the model: every problem found, by
// table and column in the model's order.
type MismatchError struct {
	Problems []Problem
}

// Error lists the problems, one per line.
func (e *MismatchError) Error() string {
	var b strings.Builder
	plural := "s"
	if len(e.Problems) == 1 {
		plural = ""
	}
	fmt.Fprintf(&b, "schema: the database does not match the model (%d problem%s):", len(e.Problems), plural)
	for _, p := range e.Problems {
		b.WriteString("\n\t")
		b.WriteString(p.String())
	}
	return b.String()
}

// Check compares the tables of database q with what the built model m implies (see Create)
// and returns a *MismatchError listing every problem: a missing table, a missing column, a column whose type
// cannot hold its property's values or that refuses null for a nullable property, the key of an entity type or
// link table without a primary key or unique index, a key the database generates (edm.Property.Generated) whose
// column gets no value when an insert leaves it out. Other columns, tables, indexes and constraints of the database are not its concern; nor is
// it ever changed (see Migration). Other errors are those of reading the catalog.
func Check(ctx context.Context, q Querier, m *edm.Model) error {
	d := q.Dialect()
	tables, err := describe(m)
	if err != nil {
		return err
	}
	var problems []Problem
	for _, t := range tables {
		found, err := readTable(ctx, q, t.name)
		if err != nil {
			return err
		}
		problems = append(problems, compare(d, t, found)...)
	}
	if len(problems) > 0 {
		return &MismatchError{Problems: problems}
	}
	return nil
}

// compare returns the problems of the table found in the catalog as t needs it.
func compare(d sqldb.Dialect, t *table, found *catalogTable) []Problem {
	if found == nil {
		return []Problem{{Table: t.name, Message: "the table does not exist (it stores " + t.of + ")"}}
	}
	var problems []Problem
	for _, c := range t.columns {
		if msg := compareColumn(d, c, found.columns[c.name]); msg != "" {
			problems = append(problems, Problem{Table: t.name, Column: c.name, Message: msg})
		}
	}
	return append(problems, keyProblems(t, found)...)
}

// keyProblems returns the problem of a key of t without a unique index in the table found, if it has none. The
// key of a side table is not checked: the engine replaces an owner's rows as a whole.
func keyProblems(t *table, found *catalogTable) []Problem {
	if t.sideTable || found.provesUnique(t.key) {
		return nil
	}
	return []Problem{{Table: t.name, Column: strings.Join(t.key, ","),
		Message: "no primary key or unique index on the key of " + t.of}}
}

// compareColumn says what is wrong with the column found for c, "" when nothing is.
func compareColumn(d sqldb.Dialect, c *column, found *catalogColumn) string {
	kind, maxLength := c.stored(d)
	switch {
	case found == nil:
		return "the column does not exist (" + c.describe() + ")"
	case !d.ColumnHolds(found.typ, kind, maxLength, c.precision, c.scale):
		msg := fmt.Sprintf("the column's type %s cannot hold %s (%s wants %s)", found.typ, c.describe(),
			d.Name(), d.ColumnType(kind, c.precision, c.scale))
		if c.kind == edm.KindDecimal {
			msg += "; if the column keeps its values in another way, say how in the property's DecimalStorage"
		}
		return msg
	case found.notNull && c.nullable && c.property != nil:
		return "the column is NOT NULL but " + c.describe() + " is nullable"
	case c.generated && !found.generated:
		return fmt.Sprintf("the column gets no value when an insert leaves it out, but the database generates %s (%s wants %s)",
			c.describe(), d.Name(), d.GeneratedKey(c.kind))
	}
	return ""
}

// describe names what c holds: "Book/Title, Edm.String".
func (c *column) describe() string {
	kind := c.kind.String()
	switch {
	case c.property != nil && c.property.Enum != nil:
		kind = c.property.Enum.Name + ", stored as " + kind
	case c.kind == edm.KindDecimal && c.storage != edm.DecimalAuto:
		kind += fmt.Sprintf("(%d,%d) stored as %s", c.precision, c.scale, c.storage)
	case c.kind == edm.KindDecimal:
		kind += fmt.Sprintf("(%d,%d)", c.precision, c.scale)
	case c.kind == edm.KindString && c.maxLength > 0:
		kind += fmt.Sprintf("(%d)", c.maxLength)
	}
	return c.of + ", " + kind
}

// catalogTable is a table as the catalog describes it.
type catalogTable struct {
	columns map[string]*catalogColumn
	indexes []*index
}

// catalogColumn is a column as the catalog describes it.
type catalogColumn struct {
	typ     string
	notNull bool
	// generated is true when an insert that leaves the column out gives it a value (a default, an identity,
	// the rowid).
	generated bool
}

// hasIndex reports whether the table has an index that serves one on columns: for unique, a unique index on
// the same columns in any order (as a foreign key to them needs); otherwise any index whose first columns they
// are.
func (t *catalogTable) hasIndex(columns []string, unique bool) bool {
	for _, x := range t.indexes {
		if unique && x.unique && sameSet(x.columns, columns) || !unique && startsWith(x.columns, columns) {
			return true
		}
	}
	return false
}

// provesUnique reports whether a unique index of the table makes the values of columns unique: one whose
// columns, or the columns its expressions read, are some of them (a unique lower(email) makes email unique).
func (t *catalogTable) provesUnique(columns []string) bool {
	for _, x := range t.indexes {
		if !x.unique {
			continue
		}
		var read []string
		for _, c := range x.columns {
			read = append(read, t.referenced(c)...)
		}
		if len(read) > 0 && subset(read, columns) {
			return true
		}
	}
	return false
}

// referenced returns the columns of the table that an index column reads: itself, or the names of columns in
// the text of an expression (outside string literals; double-quoted or bare).
func (t *catalogTable) referenced(text string) []string {
	if t.columns[text] != nil {
		return []string{text}
	}
	var out []string
	for i := 0; i < len(text); {
		c := text[i]
		var name string
		switch {
		case c == '\'':
			end := strings.IndexByte(text[i+1:], '\'')
			if end < 0 {
				return out
			}
			i += end + 2
			continue
		case c == '"':
			end := strings.IndexByte(text[i+1:], '"')
			if end < 0 {
				return out
			}
			name, i = text[i+1:i+1+end], i+end+2
		case isNameByte(c) && (c < '0' || c > '9'):
			j := i
			for j < len(text) && isNameByte(text[j]) {
				j++
			}
			name, i = text[i:j], j
		default:
			i++
			continue
		}
		if t.columns[name] != nil && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// isNameByte reports whether c may be part of a bare SQL name.
func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// readTable reads the table called name from the catalog; nil when there is none.
func readTable(ctx context.Context, q Querier, name string) (*catalogTable, error) {
	d := q.Dialect()
	t := &catalogTable{columns: map[string]*catalogColumn{}}
	err := query(ctx, q, d.TableColumns(), name, func(rows *sql.Rows) error {
		var column string
		c := &catalogColumn{}
		if err := rows.Scan(&column, &c.typ, &c.notNull, &c.generated); err != nil {
			return err
		}
		t.columns[column] = c
		return nil
	})
	if err != nil || len(t.columns) == 0 {
		return nil, err
	}
	err = query(ctx, q, d.TableIndexes(), name, func(rows *sql.Rows) error {
		var name, column string
		var unique bool
		if err := rows.Scan(&name, &unique, &column); err != nil {
			return err
		}
		if n := len(t.indexes); n == 0 || t.indexes[n-1].name != name {
			t.indexes = append(t.indexes, &index{name: name, unique: unique})
		}
		last := t.indexes[len(t.indexes)-1]
		last.columns = append(last.columns, column)
		return nil
	})
	return t, err
}

// query runs the catalog query text with the table name as its argument and calls scan for each row.
func query(ctx context.Context, q Querier, text, table string, scan func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, text, table)
	if err != nil {
		return fmt.Errorf("schema: reading the catalog of table %q: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return fmt.Errorf("schema: reading the catalog of table %q: %w", table, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("schema: reading the catalog of table %q: %w", table, err)
	}
	return nil
}

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
// cannot hold its property's values in the storage the property declares (edm.Property.DecimalStorage,
// TimeStorage; for a column that holds them in another form the engine reads, the message names the storage to
// declare, which Adapt does itself) or that refuses null for a nullable property, the key of an entity type or
// link table without a primary key or unique index, a key the database generates (edm.Property.Generated) whose
// column gets no value when an insert leaves it out. Other columns, tables, indexes and constraints of the
// database are not its concern; nor is it ever changed (see Migration). Other errors are those of reading the
// catalog.
func Check(ctx context.Context, q Querier, m *edm.Model) error {
	return check(ctx, q, m, false)
}

// Adapt checks the database as Check does, after giving every property that declares the database's own
// storage (edm.DecimalAuto, edm.TimeAuto) and whose column holds its values in another form the engine reads
// that form, as the column's declared type says (odata/DESIGN.md's storage table): on SQLite a DATETIME or
// TIMESTAMP column (TIME for a TimeOfDay) is edm.TimeSQL and an INTEGER one edm.TimeUnix, a NUMERIC(p,s) or
// DECIMAL(p,s) column of a Decimal of at most 15 digits edm.DecimalFloat and a TEXT one edm.DecimalExact; on
// PostgreSQL a timestamp without time zone is edm.TimeSQL, a double precision or real column of a Decimal
// edm.DecimalFloat. A root entity type without declared ETag properties whose table has the row version
// (edm.RowVersionColumn, an integer column, and its trigger, as Create makes them) gets its ETag from it
// (edm.EntityType.UseRowVersion). odata.NewService runs it at start-up. It changes the model only where the database needs
// it and only when the database matches; a model that two databases with differently declared columns serve
// needs a model each.
func Adapt(ctx context.Context, q Querier, m *edm.Model) error {
	return check(ctx, q, m, true)
}

// check is Check, or with adapt Adapt.
func check(ctx context.Context, q Querier, m *edm.Model, adapt bool) error {
	d := q.Dialect()
	tables, err := describe(m)
	if err != nil {
		return err
	}
	var problems []Problem
	var adapted []*column
	var versioned []*edm.EntityType
	for _, t := range tables {
		found, err := readTable(ctx, q, t.name)
		if err != nil {
			return err
		}
		if adapt && found != nil {
			adapted = append(adapted, fit(d, t, found)...)
			if versioned, err = appendVersioned(ctx, q, versioned, t, found); err != nil {
				return err
			}
		}
		problems = append(problems, compare(d, t, found)...)
	}
	if len(problems) > 0 {
		return &MismatchError{Problems: problems}
	}
	for _, c := range adapted {
		c.property.DecimalStorage, c.property.TimeStorage = c.storage, c.time
	}
	for _, et := range versioned {
		et.UseRowVersion(edm.RowVersionColumn)
	}
	return nil
}

// fit gives each column of t whose property declares the database's own storage and whose column found cannot
// hold it so, the first other storage that it holds (adapted), and returns the columns it changed.
func fit(d sqldb.Dialect, t *table, found *catalogTable) []*column {
	var changed []*column
	for _, c := range t.columns {
		f := found.columns[c.name]
		if f == nil {
			continue
		}
		if alt := adapted(d, c, f.typ); alt != c {
			c.storage, c.time = alt.storage, alt.time
			changed = append(changed, c)
		}
	}
	return changed
}

// alternatives returns c in each other storage that the engine reads when c's property declares the
// database's own (edm.DecimalAuto, edm.TimeAuto), in the order Adapt prefers them: for a DateTimeOffset
// edm.TimeSQL then edm.TimeUnix, for a TimeOfDay edm.TimeSQL, for a Decimal edm.DecimalExact then, up to
// edm.MaxFloatDecimalPrecision digits, edm.DecimalFloat; none for other columns.
func alternatives(c *column) []*column {
	p := c.property
	if p == nil || p.Enum != nil || p.SQL != "" || c.storage != edm.DecimalAuto || c.time != edm.TimeAuto {
		return nil
	}
	var out []*column
	with := func(storage edm.DecimalStorage, time edm.TimeStorage) {
		alt := *c
		alt.storage, alt.time = storage, time
		out = append(out, &alt)
	}
	switch c.kind {
	case edm.KindDateTimeOffset:
		with(edm.DecimalAuto, edm.TimeSQL)
		with(edm.DecimalAuto, edm.TimeUnix)
	case edm.KindTimeOfDay:
		with(edm.DecimalAuto, edm.TimeSQL)
	case edm.KindDecimal:
		with(edm.DecimalExact, edm.TimeAuto)
		if c.precision <= edm.MaxFloatDecimalPrecision {
			with(edm.DecimalFloat, edm.TimeAuto)
		}
	}
	return out
}

// adapted returns c in the first other storage (alternatives) that its column, of type typ, holds when it does
// not hold c's own; c otherwise.
func adapted(d sqldb.Dialect, c *column, typ string) *column {
	if holds(d, c, typ) {
		return c
	}
	for _, alt := range alternatives(c) {
		if holds(d, alt, typ) {
			return alt
		}
	}
	return c
}

// holds reports whether a column of type typ holds c's values in c's storage (Dialect.ColumnHolds,
// TimeColumnHolds).
func holds(d sqldb.Dialect, c *column, typ string) bool {
	if timeKind(c.kind) {
		return d.TimeColumnHolds(typ, c.kind, c.time, c.precision)
	}
	kind, maxLength := c.stored(d)
	return d.ColumnHolds(typ, kind, maxLength, c.precision, c.scale)
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
	switch {
	case found == nil:
		return "the column does not exist (" + c.describe() + ")"
	case !holds(d, c, found.typ):
		return cannotHold(d, c, found.typ)
	case found.notNull && c.nullable && c.property != nil:
		return "the column is NOT NULL but " + c.describe() + " is nullable"
	case c.generated && !found.generated:
		return fmt.Sprintf("the column gets no value when an insert leaves it out, but the database generates %s (%s wants %s)",
			c.describe(), d.Name(), d.GeneratedKey(c.kind))
	}
	return ""
}

// cannotHold is the message of a column of type typ that cannot hold c's values: the type the engine wants and,
// when the column holds them in another form it reads, the storage to declare (which Adapt finds itself), or
// the declarations of the other storages of c's kind.
func cannotHold(d sqldb.Dialect, c *column, typ string) string {
	msg := fmt.Sprintf("the column's type %s cannot hold %s (%s wants %s)", typ, c.describe(), d.Name(), columnType(d, c))
	alts := alternatives(c)
	for _, alt := range alts {
		if holds(d, alt, typ) {
			return msg + fmt.Sprintf("; it holds them %s: declare that storage (or let odata.NewService find it, schema.Adapt)",
				storageName(alt))
		}
	}
	if timeKind(c.kind) && c.time == edm.TimeAuto {
		var other []string
		for _, alt := range alts {
			other = append(other, fmt.Sprintf("%s %s", columnType(d, alt), storageName(alt)))
		}
		return msg + "; a column of another form is served as its storage says: " + strings.Join(other, ", ")
	}
	if c.kind == edm.KindDecimal {
		msg += "; if the column keeps its values in another way, say how in the property's DecimalStorage"
	}
	return msg
}

// storageName names the storage of c as a model declares it: "as TimeSQL (storage=sql)".
func storageName(c *column) string {
	if timeKind(c.kind) {
		return fmt.Sprintf("as Time%s (storage=%s)", timeStorageNames[c.time], c.time)
	}
	return fmt.Sprintf("as Decimal%s (storage=%s)", decimalStorageNames[c.storage], c.storage)
}

// timeStorageNames and decimalStorageNames are the Go names of the storages after their prefix.
var (
	timeStorageNames    = [...]string{edm.TimeAuto: "Auto", edm.TimeSQL: "SQL", edm.TimeUnix: "Unix"}
	decimalStorageNames = [...]string{edm.DecimalAuto: "Auto", edm.DecimalScaled: "Scaled", edm.DecimalExact: "Exact",
		edm.DecimalFloat: "Float"}
)

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
	case timeKind(c.kind) && c.time != edm.TimeAuto:
		kind += " stored as " + c.time.String()
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
	return queryArgs(ctx, q, text, table, []any{table}, scan)
}

// queryArgs is query with the arguments args, of the catalog of table.
func queryArgs(ctx context.Context, q Querier, text, table string, args []any, scan func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, text, args...)
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

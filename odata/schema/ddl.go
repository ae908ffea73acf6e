package schema

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// Create returns the statements that create the tables of the built model m in an empty database of dialect
// d: a table per entity type (a column per primitive or enum property and per member of a complex property,
// none for a property computed by SQL, the key as primary key), a side table per collection property (keyed by
// owner and position), a link table per many-to-many navigation (keyed by both sides), the foreign keys of the
// navigations' joins, a unique index on the columns other tables refer to when they are not the key, and an
// index on the columns of each foreign key, and the full-text index of the searchable properties of each entity
// type's table (SearchIndex, sqldb.FullText; on SQLite an FTS4 table and its triggers); the table of a root entity
// type without declared ETag properties gets the row version column edm.RowVersionColumn and the trigger that
// keeps it (odata/DESIGN.md, "ETags and row versions"). Names and column types follow odata/DESIGN.md. The
// statements are in the order they can run; on a database that cannot add a foreign key to a table (SQLite),
// CREATE TABLE declares them.
func Create(d sqldb.Dialect, m *edm.Model) ([]string, error) {
	tables, err := describe(m)
	if err != nil {
		return nil, err
	}
	if err := checkGenerated(d, tables); err != nil {
		return nil, err
	}
	var creates, indexes, foreign []string
	for _, t := range tables {
		creates = append(creates, createTable(d, t))
		for _, c := range rowVersionCreates(d, t) {
			creates = append(creates, c.sql)
		}
		for _, x := range t.indexes {
			indexes = append(indexes, createIndex(d, t, x))
		}
		indexes = append(indexes, createSearch(d, t)...)
		foreign = append(foreign, addForeignKeys(d, t, t.foreign)...)
	}
	return append(append(creates, indexes...), foreign...), nil
}

// checkGenerated returns the error of a key the model has the database generate (edm.Property.Generated) of a
// kind d cannot generate.
func checkGenerated(d sqldb.Dialect, tables []*table) error {
	var errs []error
	for _, t := range tables {
		for _, c := range t.columns {
			if c.generated && d.GeneratedKey(c.kind) == "" {
				errs = append(errs, fmt.Errorf("schema: %s: %s cannot generate values of %s", c.of, d.Name(), c.kind))
			}
		}
	}
	return errors.Join(errs...)
}

// stored is the kind of value c's column holds on d (sqldb.ColumnKind) and its maximum length.
func (c *column) stored(d sqldb.Dialect) (edm.Kind, int) {
	k := sqldb.ColumnKind(d, c.kind, c.storage, c.precision)
	if k != c.kind {
		return k, 0
	}
	return k, c.maxLength
}

// createTable is the CREATE TABLE statement of t, with its foreign keys when the database cannot add them
// later. A key the database generates is declared with its column (Dialect.GeneratedKey), primary key
// included.
func createTable(d sqldb.Dialect, t *table) string {
	var lines []string
	primaryKey := "PRIMARY KEY (" + quoteAll(d, t.key) + ")"
	for _, c := range t.columns {
		if c.generated {
			lines = append(lines, d.QuoteIdent(c.name)+" "+d.GeneratedKey(c.kind))
			primaryKey = ""
			continue
		}
		lines = append(lines, columnDefinition(d, c, defaultOf(d, c, false)))
	}
	if t.rowVersionOf != nil {
		lines = append(lines, rowVersionDefinition(d, false))
	}
	if primaryKey != "" {
		lines = append(lines, primaryKey)
	}
	for _, f := range t.foreign {
		if !addsForeignKeys(d) {
			lines = append(lines, foreignKeyConstraint(d, t, f))
		}
	}
	return "CREATE TABLE " + d.QuoteIdent(t.name) + " (\n\t" + strings.Join(lines, ",\n\t") + "\n)" + d.TableOptions()
}

// columnType is the type of c's column on d: for its kind and storage (Dialect.ColumnType, TimeColumnType).
func columnType(d sqldb.Dialect, c *column) string {
	if timeKind(c.kind) {
		return d.TimeColumnType(c.kind, c.time)
	}
	k, _ := c.stored(d)
	typ := d.ColumnType(k, c.precision, c.scale)
	if c.kind == edm.KindDecimal && k == edm.KindString {
		// Decimal text (SQLite's DecimalExact) compares and sorts as exact decimals, in indexes too.
		typ = d.CollateDecimal(typ)
	}
	return typ
}

// timeKind reports whether k has a time storage (edm.TimeStorage): DateTimeOffset and TimeOfDay.
func timeKind(k edm.Kind) bool { return k == edm.KindDateTimeOffset || k == edm.KindTimeOfDay }

// columnDefinition is the definition of c in a CREATE TABLE or ADD COLUMN, with the DEFAULT clause def when
// it is not "".
func columnDefinition(d sqldb.Dialect, c *column, def string) string {
	s := d.QuoteIdent(c.name) + " " + columnType(d, c)
	if !c.nullable {
		s += " NOT NULL"
	}
	if def != "" {
		s += " DEFAULT " + def
	}
	return s
}

// defaultOf is the SQL of the default value of c, "" for none: the property's declared Default; without one,
// for a non-nullable column the server computes (read-only) or that is being added to a table that may hold
// rows (adding), what the engine gives such a value on create: false or zero for a Boolean or number; and the
// current time for a read-only DateTimeOffset, such as a creation time, in the database's own storage (a
// column of another time storage gets no default).
func defaultOf(d sqldb.Dialect, c *column, adding bool) string {
	if c.fixedDefault != "" {
		return c.fixedDefault
	}
	p := c.property
	if p == nil || p.Collection {
		return ""
	}
	if p.Default != nil {
		if s, ok := literal(d, p, p.Default); ok {
			return s
		}
		return ""
	}
	if c.nullable || !c.readOnly && !adding || p.IsKey() || p.Enum != nil {
		return ""
	}
	switch c.kind {
	case edm.KindBoolean:
		return d.BoolValue(false)
	case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64, edm.KindDecimal,
		edm.KindDouble, edm.KindSingle:
		return "0"
	case edm.KindDateTimeOffset:
		if c.readOnly && c.time == edm.TimeAuto {
			return d.Now()
		}
	}
	return ""
}

// literal is v, a value of property p, as an SQL literal of p's column; false for a value that has none
// (bytes, a value that does not fit).
func literal(d sqldb.Dialect, p *edm.Property, v any) (string, bool) {
	if name, ok := v.(string); ok && p.Enum != nil {
		n, err := p.Enum.Parse(name)
		if err != nil {
			return "", false
		}
		v = n
	}
	arg, err := sqldb.Arg(d, p, v)
	if err != nil {
		return "", false
	}
	switch a := arg.(type) {
	case bool:
		return d.BoolValue(a), true
	case int64:
		return strconv.FormatInt(a, 10), true
	case float64:
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return "", false
		}
		return strconv.FormatFloat(a, 'g', -1, 64), true
	case string:
		return "'" + strings.ReplaceAll(a, "'", "''") + "'", true
	case time.Time:
		return "'" + a.Format(time.RFC3339Nano) + "'", true
	}
	return "", false
}

// foreignKeyConstraint is the constraint clause of the foreign key f of t.
func foreignKeyConstraint(d sqldb.Dialect, t *table, f *foreignKey) string {
	return "CONSTRAINT " + d.QuoteIdent(t.name+"_"+strings.Join(f.columns, "_")+"_fkey") +
		" FOREIGN KEY (" + quoteAll(d, f.columns) + ") " + references(d, f)
}

// references is the REFERENCES clause of f.
func references(d sqldb.Dialect, f *foreignKey) string {
	s := "REFERENCES " + d.QuoteIdent(f.references) + " (" + quoteAll(d, f.to) + ")"
	if f.setNull {
		return s + " ON DELETE SET NULL"
	}
	return s + " ON DELETE CASCADE"
}

// addsForeignKeys reports whether d adds foreign keys to existing tables (else CREATE TABLE and ADD COLUMN
// declare them).
func addsForeignKeys(d sqldb.Dialect) bool { return d.AddForeignKey("table", "constraint") != "" }

// addForeignKeys returns the statements that add the foreign keys of t, none where CREATE TABLE declares them.
func addForeignKeys(d sqldb.Dialect, t *table, keys []*foreignKey) []string {
	var out []string
	for _, f := range keys {
		if s := d.AddForeignKey(t.name, foreignKeyConstraint(d, t, f)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// createIndex is the CREATE INDEX statement of x on t.
func createIndex(d sqldb.Dialect, t *table, x *index) string {
	unique := ""
	if x.unique {
		unique = "UNIQUE "
	}
	return "CREATE " + unique + "INDEX " + d.QuoteIdent(x.name) + " ON " + d.QuoteIdent(t.name) +
		" (" + quoteAll(d, x.columns) + ")"
}

// quoteAll is the names quoted and comma-separated.
func quoteAll(d sqldb.Dialect, names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = d.QuoteIdent(n)
	}
	return strings.Join(quoted, ", ")
}

package sqldb

import (
	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
)

// DatePart names a field of a date, time of day or date-time value, as the OData functions year ... second and
// fractionalseconds read it.
type DatePart uint8

// Date parts.
const (
	Year DatePart = iota
	Month
	Day
	Hour
	Minute
	Second
	FractionalSeconds
)

// DecimalFunction names an exact decimal function of a dialect whose TextDecimals is true (Dialect.DecimalFunc).
type DecimalFunction uint8

// The exact decimal functions. DecimalOfNumber(x, scale) is the decimal text of x x 10^-scale, x an integer
// (scale the SQL integer literal of a scale), a REAL (scale "0": the shortest decimal that reads back as it) or
// decimal text; the others take decimal text: DecimalAdd, DecimalSub, DecimalMul, DecimalDiv (rounded half away
// from zero to the scale PostgreSQL's NUMERIC division gives the quotient) and DecimalMod (with the sign of the
// dividend) two operands, DecimalNeg, DecimalRound (half away from zero), DecimalFloor and DecimalCeiling one;
// their results are PostgreSQL's NUMERIC results, scale included.
const (
	DecimalOfNumber DecimalFunction = iota
	DecimalAdd
	DecimalSub
	DecimalMul
	DecimalDiv
	DecimalMod
	DecimalNeg
	DecimalRound
	DecimalFloor
	DecimalCeiling
)

// Dialect holds every difference between the supported databases; the adapters odata/sqlite and odata/postgres
// implement it (sqlite.Dialect, postgres.Dialect), each with the SQL text of its database and the classification
// of its driver's errors. Code outside the adapters never asks which database it talks to: it asks its Dialect.
//
// Methods that build SQL take SQL expressions (already quoted and parameterised) and return an expression; they
// never see request values, which are always bound arguments ("?" placeholders, numbered by squirrel for
// PostgreSQL).
type Dialect interface {
	// Name is "sqlite" or "postgres": for logs and messages, and the directory of the dialect's files in a
	// migration source (odata/migrate). Code never branches on it; it asks the methods below.
	Name() string
	// Placeholder is the bind parameter format (? or $n).
	Placeholder() sq.PlaceholderFormat
	// QuoteIdent quotes a model identifier (table or column name). Identifiers never come from a request.
	QuoteIdent(name string) string
	// ClassifyError tells what a driver error means.
	ClassifyError(err error) ErrorClass

	// How values are stored (odata/DESIGN.md's storage table); Arg, Scan and the planner follow these.

	// ScaledDecimals reports whether Edm.Decimal columns hold value x 10^scale as integers (SQLite) rather than
	// a decimal type (PostgreSQL NUMERIC).
	ScaledDecimals() bool
	// TextDecimals reports whether a Decimal column stored as edm.DecimalExact holds the decimal's text, which
	// the database compares only under CollateDecimal and computes with only through DecimalFunc (SQLite), rather
	// than a decimal type (PostgreSQL NUMERIC).
	TextDecimals() bool
	// TextTimestamps reports whether Edm.DateTimeOffset columns hold text in TimestampTextLayout (SQLite) rather
	// than a timestamp type (PostgreSQL TIMESTAMPTZ).
	TextTimestamps() bool
	// StoresNaN reports whether floating-point columns can hold NaN and the infinities (PostgreSQL). Where
	// they cannot (SQLite turns NaN into NULL), Arg refuses such a value.
	StoresNaN() bool

	// Row and transaction locks, and sequences.

	// LockForUpdate is the suffix (with its leading space) that locks the rows a SELECT reads until the
	// transaction ends: " FOR UPDATE" on PostgreSQL; "" on SQLite, whose write transactions hold the whole
	// database's write lock from BEGIN (odata/sqlite.Open sets _txlock=immediate). Every read of a row that the
	// same transaction then changes on the strength of what it read appends it.
	LockForUpdate() string
	// TransactionLock is the statement that takes a lock named by its one argument, an int64 key, until the
	// transaction ends, so that transactions doing the same work run one after the other (PostgreSQL
	// pg_advisory_xact_lock); "" on SQLite, whose write transactions already run one at a time.
	TransactionLock() string
	// NextValue is the statement that draws the next value of the named sequence (CREATE SEQUENCE, nextval),
	// "" when the database has no sequences (SQLite). The name comes from code, never from a request.
	NextValue(sequence string) string

	// SQL text of the planner's translation of OData expressions.

	// Param is the placeholder of an argument of kind k: "?" on SQLite; on PostgreSQL "?::type", so that every
	// parameter has a type even where the context gives none (arithmetic, function arguments).
	Param(k edm.Kind) string
	// TypedNull is NULL as a value of kind k, for places where the database cannot infer the type of a bare NULL
	// (CAST(NULL AS type) on PostgreSQL; NULL on SQLite, whose values carry their own types).
	TypedNull(k edm.Kind) string
	// Unscale turns a scaled decimal expression into its value (a REAL on SQLite); only called when
	// ScaledDecimals.
	Unscale(expr string, scale int) string
	// DecimalValue is the value of expr, a Decimal column of the given scale that stores its values as storage
	// (edm.DecimalScaled, DecimalExact or DecimalFloat, one the dialect does not use itself; never decimal text
	// where TextDecimals, which the planner uses as it is), in the dialect's own form of decimals: the exact
	// integer value x 10^scale where ScaledDecimals (SQLite), else NUMERIC.
	DecimalValue(expr string, storage edm.DecimalStorage, scale int) string
	// TimeValue is the value of expr, a DateTimeOffset or TimeOfDay column (kind k) that stores its values as s
	// (edm.TimeSQL or TimeUnix, never TimeAuto), in the dialect's own form of k: on SQLite the text of
	// TimestampTextLayout (or HH:MM:SS.ffffff), on PostgreSQL timestamp with time zone (or time). The planner
	// compares, orders and computes with that.
	TimeValue(expr string, k edm.Kind, s edm.TimeStorage) string
	// CollateDecimal makes decimal text compare and sort as the exact decimals it spells: expr followed by the
	// COLLATE clause of the decimal collation (odata/sqlite.DecimalCollation). Applied to a column type, it is
	// the declaration of a column of decimal text. Only called when TextDecimals.
	CollateDecimal(expr string) string
	// DecimalFunc is the SQL of an exact decimal function (see DecimalFunction) over decimal text; its value is
	// decimal text, NULL when an operand is NULL or a divisor zero. Only called when TextDecimals.
	DecimalFunc(f DecimalFunction, args ...string) string
	// Cast converts expr to kind k (String, an integer kind, Decimal, Double, Single).
	Cast(expr string, k edm.Kind) string
	// BoolValue is the literal true or false.
	BoolValue(v bool) string
	// NullSafeEqual compares two nullable expressions, null equal to null, never yielding NULL; equal false
	// negates it.
	NullSafeEqual(a, b string, equal bool) string
	// Like matches expr against a LIKE pattern (a placeholder) with "\" as the escape character, case-sensitively.
	Like(expr, pattern string) string
	// Position is the 1-based position of needle in s, 0 when it does not occur (case-sensitive).
	Position(s, needle string) string
	// Substring is the part of s from the 0-based position from, n characters long (to the end when n is "").
	Substring(s, from, n string) string
	// EndsWith reports whether s ends with the (non-literal) suffix.
	EndsWith(s, suffix string) string
	// Regexp matches s against a regular expression pattern.
	Regexp(s, pattern string) string
	// DatePart extracts part from expr of kind Date, TimeOfDay or DateTimeOffset (in UTC) as an integer, or for
	// FractionalSeconds as a fraction (Decimal; REAL on SQLite).
	DatePart(part DatePart, k edm.Kind, expr string) string
	// DateOf and TimeOf are the date and the time of day (UTC) of a DateTimeOffset expression.
	DateOf(expr string) string
	TimeOf(expr string) string
	// Now is the current point in time as a DateTimeOffset value.
	Now() string
	// Round, Floor and Ceiling apply to a numeric expression of kind k; Round rounds half away from zero.
	Round(expr string, k edm.Kind) string
	Floor(expr string, k edm.Kind) string
	Ceiling(expr string, k edm.Kind) string
	// CollateBinary makes a string expression compare and sort by bytes (PostgreSQL columns are COLLATE "C";
	// expressions without a column need it spelt).
	CollateBinary(expr string) string
	// NullsOrder is the ORDER BY suffix that puts nulls first ascending and last descending (OData's order).
	NullsOrder(desc bool) string
	// ArrayAgg aggregates value, an expression over the rows of a subquery, into the text of a JSON array in
	// the order of the order expression; Binary values (kind k) become hex strings. Over no rows it is '[]' on
	// SQLite and NULL on PostgreSQL.
	ArrayAgg(value, order string, k edm.Kind) string
	// JSONRow is the JSON array of the values of one row (kinds[i] the kind of values[i]), an item for
	// ArrayAgg: Binary values as hex strings, and Decimals as text where the driver reads them as text, so
	// that each item reads back as the column would scan.
	JSONRow(values []string, kinds []edm.Kind) string

	// Tables and the catalog, for odata/schema: the DDL of a model and the check of a database against it.

	// ColumnType is the type of a column that stores values of kind k (precision and scale are a Decimal's,
	// stored in the dialect's own way; see ColumnKind for the others), as odata/DESIGN.md's storage table gives
	// it: TEXT, INTEGER (a scaled decimal), REAL, BLOB on SQLite;
	// TEXT COLLATE "C", BOOLEAN, SMALLINT, INTEGER, BIGINT, NUMERIC(p,s), ... on PostgreSQL.
	ColumnType(k edm.Kind, precision, scale int) string
	// ColumnHolds reports whether a column of the given type, as the TableColumns query reads it from the catalog,
	// stores every value of kind k as the engine writes and reads it: a String of up to maxLength characters (0
	// for no limit), a Decimal of the precision and scale.
	ColumnHolds(columnType string, k edm.Kind, maxLength, precision, scale int) bool
	// TimeColumnType is the type of a column that stores values of kind k (DateTimeOffset or TimeOfDay) as s:
	// ColumnType's for edm.TimeAuto; DATETIME (TIME for a TimeOfDay) or INTEGER on SQLite, TIMESTAMP (without
	// time zone; TIME) or BIGINT on PostgreSQL.
	TimeColumnType(k edm.Kind, s edm.TimeStorage) string
	// TimeColumnHolds reports whether a column of the given type, as the TableColumns query reads it, holds the
	// values of kind k (DateTimeOffset or TimeOfDay) with precision fraction digits (1 to 6) in the form of s,
	// as the engine reads and writes them: for edm.TimeAuto the dialect's own, as ColumnHolds.
	TimeColumnHolds(columnType string, k edm.Kind, s edm.TimeStorage, precision int) bool
	// GeneratedKey is the definition, after the quoted column name, of the single key column of kind k whose
	// values the database generates when an insert leaves it out (edm.Property.Generated), its primary key
	// included: INTEGER PRIMARY KEY AUTOINCREMENT (the rowid, never reused) for Int32 and Int64 and a random
	// UUID default for Guid on SQLite; GENERATED BY DEFAULT AS IDENTITY and gen_random_uuid() on PostgreSQL.
	// "" when the database cannot generate values of kind k.
	GeneratedKey(k edm.Kind) string
	// TableOptions is what follows the column list of a CREATE TABLE: " STRICT" on SQLite (a value of the wrong
	// storage class, such as an unscaled decimal, is then an error), "" on PostgreSQL.
	TableOptions() string
	// AddForeignKey is the statement that adds a foreign key constraint (its SQL, "CONSTRAINT name FOREIGN KEY
	// (...) REFERENCES ...") to an existing table: ALTER TABLE ... ADD ... on PostgreSQL. It is "" on SQLite,
	// which cannot add a constraint to a table: its CREATE TABLE declares them, and may refer to a table created
	// after it.
	AddForeignKey(table, constraint string) string
	// TableColumns is the query, of one argument (a table name), that reads a table's columns from the catalog:
	// a row (name, type, not null, generated) per column, in table order; no rows when there is no such table.
	// Generated is true for a column that gets a value when an insert leaves it out: one with a default, an
	// identity column, the rowid.
	TableColumns() string
	// TableIndexes is the query, of one argument (a table name), that reads a table's primary key and its
	// indexes without a WHERE clause from the catalog: a row (index name, unique, column) per column, index by
	// index, each index's columns in order, where column is the column's name or the text of an expression
	// (lower(email); SQLite gives the text of the whole column list for each expression of an index). The
	// primary key is a unique index.
	TableIndexes() string
	// FullText is the full-text index of the dialect, which serves $search (odata/DESIGN.md, "$search").
	FullText() FullText

	// Clauses of writes.

	// Returning is the clause that returns columns from an INSERT, UPDATE or DELETE ("RETURNING ..."; both
	// databases support it, so no last-insert-id dance is needed).
	Returning(columns ...string) string
	// Upsert is the clause that turns an INSERT into an update of the given columns when a row with the same
	// conflict columns exists.
	Upsert(conflict, update []string) string
}

// FullText is how a database indexes the searchable columns of a table for $search: on SQLite an FTS4
// external-content table kept in step by triggers, on PostgreSQL a stored generated tsvector column and its GIN
// index. Table, index and column names come from the model, never from a request.
type FullText interface {
	// Create returns the statements that create the index called index over columns (in order) of table, keep
	// it in step with the table's rows and fill it with the rows the table already holds.
	Create(table, index string, columns []string) []string
	// Catalog is the query, of two arguments (the index's name and its table's), that reads the definitions
	// of an index Create made from the catalog: a row of one text per object; no rows when there is none.
	Catalog() string
	// Matches reports whether definitions, read by Catalog, are those of the index Create makes over columns
	// of table, so that a query may use it.
	Matches(table, index string, columns []string, definitions []string) bool
	// Match is a condition true for the rows of table, aliased alias, whose columns (SQL values of the alias,
	// in the index's order) match the full-text query in the bind parameter param (written in Syntax); never
	// null unless the alias is a row of nulls (an outer join).
	Match(index, alias string, columns []string, param string) string
	// CountMatches is the SELECT of the number of rows that match the query in param, read from the index
	// alone (it holds exactly the table's rows), for a count with no other condition; "" where the index
	// cannot tell it (PostgreSQL's, whose matches the table's rows must confirm).
	CountMatches(index, param string) string
	// MatchInOrder is Match in the form that has the database visit the rows in the order of an index of the
	// ORDER BY, testing each against the set of matches, rather than read every match and sort them: the plan
	// of a page of a frequent query, which stops after the page's rows (odata/DESIGN.md, "Full-text search").
	// "" where the database's planner makes that choice alone (PostgreSQL).
	MatchInOrder(index, alias string, columns []string, param string) string
	// Size is the query, of no arguments, of a cheap estimate of the number of rows of table that MatchInOrder
	// weighs the matches against; "" where MatchInOrder is.
	Size(table string) string
	// Syntax is the language of the queries Match takes.
	Syntax() FullTextSyntax
}

// FullTextSyntax is a language of full-text queries.
type FullTextSyntax int

const (
	// FTS4 is SQLite's enhanced query syntax: "phrase", "prefix*", AND, OR, binary NOT, parentheses.
	FTS4 FullTextSyntax = iota + 1
	// TSQuery is PostgreSQL's to_tsquery: 'word', 'prefix':*, <-> (phrase), &, |, unary !, parentheses.
	TSQuery
)

// Package schema derives a database schema from a model: the tables, columns, keys, foreign keys, side tables,
// link tables and indexes that an edm.Model implies under the storage conventions of odata/DESIGN.md, for the
// dialect of the database (odata/sqlite, odata/postgres).
//
// Three uses, from the least to the most hands-off:
//
//   - Create returns the DDL of the whole schema, to review or hand to a migration tool of one's own;
//     Changes returns the statements that add what a given database lacks.
//   - Check compares a database with the model and returns one *MismatchError listing every missing table or
//     column, every column whose type cannot hold its property and every key without a unique index. Adapt
//     first gives the properties whose columns another program declared (DATETIME, NUMERIC(p,s), a timestamp
//     without time zone, ...) the storage those columns hold (edm.Property.DecimalStorage, TimeStorage), then
//     checks; odata.NewService runs it at start-up (unless Config.SkipSchemaCheck), so a model property without
//     a column stops the start instead of failing requests.
//   - Migration is an odata/migrate source that applies Changes as a versioned migration: run by migrate.Up at
//     start-up, it creates the tables of an empty database and later adds the tables, columns and indexes a
//     changed model needs. It only adds: it never drops or alters what exists, and refuses (with the problems)
//     a change that adding cannot make.
//
// Each takes a built model: given one whose Build was forgotten (or failed), each answers edm.ErrNotBuilt,
// wrapped, which says to call Build.
//
// # Column types
//
// The column of each kind, as Create declares it and Check accepts it (Check also accepts other spellings of
// the same storage, such as VARCHAR(n) of at least the MaxLength, or a wider integer):
//
//	kind                      SQLite (STRICT tables)              PostgreSQL
//	String                    TEXT                                TEXT COLLATE "C" (text, varchar(n))
//	Boolean                   INTEGER 0 or 1                      BOOLEAN
//	Byte, SByte, Int16        INTEGER                             SMALLINT (or wider)
//	Int32, Int64              INTEGER                             INTEGER, BIGINT (or wider)
//	Decimal(p,s), p <= 19     INTEGER holding value x 10^s        NUMERIC(p,s) (NUMERIC, or wider p and s)
//	Decimal(p,s), p > 19      TEXT COLLATE odata_decimal          NUMERIC(p,s)
//	  DecimalScaled           INTEGER holding value x 10^s        SMALLINT, INTEGER or BIGINT for p <= 4, 9, 18+
//	  DecimalExact            TEXT COLLATE odata_decimal          NUMERIC(p,s)
//	  DecimalFloat (p <= 15)  REAL (or NUMERIC affinity)          DOUBLE PRECISION (REAL for p <= 6)
//	Double, Single            REAL                                DOUBLE PRECISION, REAL
//	Date, TimeOfDay           TEXT YYYY-MM-DD, HH:MM:SS.ffffff    DATE, TIME
//	DateTimeOffset            TEXT YYYY-MM-DDTHH:MM:SS.ffffffZ    TIMESTAMPTZ
//	  TimeSQL                 TEXT (or DATETIME, TIMESTAMP)       TIMESTAMP (without time zone)
//	  TimeUnix                INTEGER seconds                     BIGINT seconds
//	TimeOfDay, TimeSQL        TEXT (or TIME) HH:MM:SS[.fff]       TIME
//	Duration                  INTEGER microseconds                BIGINT microseconds
//	Guid                      TEXT (lower case)                   UUID
//	Binary, Stream            BLOB                                BYTEA
//	enum                      the column of its underlying integer kind
//
// Check refuses a Decimal column that would give wrong answers: a scaled decimal on SQLite needs INTEGER
// affinity (a NUMERIC or DECIMAL(p,s) column keeps 19.99 as a REAL, which a scaled reading takes for 0.1999:
// declare edm.DecimalFloat for such a column), and text decimals on SQLite need TEXT affinity. Their collation,
// odata_decimal, which odata/sqlite registers on its connections, compares decimal texts exactly, so that
// indexes on such columns serve the planner's comparisons and orders; Check accepts a TEXT column without it,
// as the planner spells the collation in its SQL.
//
// A property computed by SQL has no column; a collection property has its side table; a complex property is a
// column per member. A navigation's join implies a foreign key on the side whose join columns are not its key.
// When an entity is deleted, a nullable reference to it becomes null and the entities with a required one go
// with it (the rule of the project's other schemas), as do its collection items and link rows. A schema that
// wants other rules (refusing the delete, a check, a unique column the model does not express) starts from
// Create's DDL, or adds to the tables: Check only asks for what the engine needs.
package schema

// Package sqldb is the SQL toolkit of the odata engine for the code that runs its own SQL on the engine's
// database: plug-ins (the hooks and actions of an odata.Service, such as the store's entities, and services
// beside it, such as its storefront), migrations, and the database adapters odata/sqlite and odata/postgres,
// which implement its Dialect.
//
//   - DB (db.go) is a database as the adapters' Open return it: the *sql.DB pool with its Dialect, one value that
//     the engine, migrations, schema checks and plug-ins take whole. Its BeginTx and Conn return a Tx and a Conn
//     that carry the Dialect too.
//   - Dialect (dialect.go) holds every difference between the supported databases: placeholders, identifier
//     quoting, how values are stored, row and advisory locks, sequences, the SQL text of the planner's
//     translation and the classes of driver errors (ErrorClass, errors.go). Code outside the adapters never
//     asks which database it talks to; it asks its Dialect. Standard (standard.go) is the part of the SQL text
//     both databases spell alike, which the adapters embed.
//   - Statements (statement.go): NewStatement writes a fixed statement once for both databases; Builder starts a
//     squirrel builder with the dialect's placeholders.
//   - Values (values.go): Arg converts the Go value of a property to the argument its column takes and Scan
//     converts a scanned column back (odata/DESIGN.md's storage table), in the storage a property declares
//     (edm.Property.DecimalStorage, TimeStorage); TimeArg, ScanTime, DecimalArg and ScanDecimal
//     do the same for hand-written SQL.
//   - Transactions (tx.go): RunTx runs a transaction of a DB with the one retry policy of the project; a database
//     that stays busy is ErrBusy, which odata answers 503 with Retry-After.
//   - Read replicas (replica.go): DB.Replicate adds replicas, to which QueryContext and QueryRowContext send the
//     statements of a context marked by ForRead; WithSession and SessionToken carry a client's last commit so
//     that it reads its own writes.
//   - Telemetry (instrument.go): Instrument wraps a driver's connector so that each statement run under a
//     context with a recording OpenTelemetry span is a child span of it (the adapters' Open does it), and
//     WithStatementCounter counts the statements of a context.
//
// The engine's own query planner is not part of this package: it lives in odata/internal/plan, and only the
// odata Service uses it.
package sqldb

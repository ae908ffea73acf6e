package sqldb

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// instrumentationName is the name of the tracer of the statement spans.
const instrumentationName = "github.com/storekit/store/odata/sqldb"

// Instrument returns a connector whose connections report every statement they run (queries, executions,
// prepared statements, BEGIN, COMMIT and ROLLBACK) to whoever observes the context the statement runs with:
//
//   - When the context holds a recording OpenTelemetry span (the request span of an odata.Service, or of a
//     middleware), the statement is a child span of it, made by the parent's own TracerProvider: kind client,
//     named by the operation ("SELECT", "INSERT", "BEGIN", ...), with the attributes db.system.name (system,
//     such as "sqlite" or "postgresql"), db.operation.name and db.query.text, the statement's text as the
//     caller wrote it (parameterised: argument values are never recorded). A query's span ends when its rows
//     are closed. A failed statement sets the span's status to Error and error.type to the error's class by
//     d.ClassifyError ("unique_violation", "retry", ...; "_OTHER" for the rest), never the driver's message,
//     which may quote values.
//   - When the context holds StatementCounters (WithStatementCounter), each of them counts the statement.
//   - An error that d classifies as ErrRetry, ErrUnavailable, ErrReadOnly or ErrFull is returned as a *Fault
//     that wraps it, so that code without the dialect tells the fault (odata answers 503 or 507, not 500). A BEGIN that
//     fails on a broken connection is also driver.ErrBadConn for database/sql, which drops the connection and
//     begins again on another one (at last on a new one): BEGIN has written nothing.
//
// With neither, a statement costs two context look-ups more than it would through c. odata/sqlite.Open and
// odata/postgres.Open instrument the databases they open; wrap the connector of a database opened another way
// and open it with sql.OpenDB. The connections behave as c's own (every optional interface of database/sql/
// driver is passed on as the driver implements it); only sql.Conn.Raw sees the wrapper, and DriverConn
// returns the driver's connection inside it.
func Instrument(c driver.Connector, system string, d Dialect) driver.Connector {
	return &connector{inner: c, inst: &instrumentation{system: semconv.DBSystemNameKey.String(system), dialect: d}}
}

// DriverConn returns the driver's own connection of a connection an Instrument connector made, as
// sql.Conn.Raw hands it over, unwrapping as well any wrapper with a method Unwrap() driver.Conn (an adapter's
// own, such as odata/sqlite's); any other value is returned as it is.
func DriverConn(c any) any {
	for {
		switch w := c.(type) {
		case *conn:
			c = w.inner
		case interface{ Unwrap() driver.Conn }:
			c = w.Unwrap()
		default:
			return c
		}
	}
}

// StatementCounter counts the statements that instrumented connections run under a context that holds it
// (WithStatementCounter). It is safe for concurrent use.
type StatementCounter struct {
	n      atomic.Int64
	parent *StatementCounter
}

// Count returns the number of statements counted so far.
func (c *StatementCounter) Count() int64 { return c.n.Load() }

type counterKey struct{}

// WithStatementCounter returns a context under which instrumented connections count each statement in c, and
// in the counters of ctx as well (a counter of a request and one of a part of it both count).
func WithStatementCounter(ctx context.Context, c *StatementCounter) context.Context {
	c.parent, _ = ctx.Value(counterKey{}).(*StatementCounter)
	return context.WithValue(ctx, counterKey{}, c)
}

// instrumentation is what the connections of one Instrument connector share.
type instrumentation struct {
	system  attribute.KeyValue
	dialect Dialect
}

// statement is the observation of one statement that a span records; nil when nothing records.
type statement struct {
	span trace.Span
	inst *instrumentation
}

// begin counts a statement in the counters of ctx and, when ctx holds a recording span, starts the statement's
// child span. operation is "" for a statement of the given text, whose first word names it.
func (in *instrumentation) begin(ctx context.Context, operation, text string) *statement {
	for c, _ := ctx.Value(counterKey{}).(*StatementCounter); c != nil; c = c.parent {
		c.n.Add(1)
	}
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return nil
	}
	attrs := make([]attribute.KeyValue, 0, 3)
	attrs = append(attrs, in.system)
	if operation == "" {
		operation = operationName(text)
	}
	name := in.system.Value.AsString()
	if operation != "" {
		attrs = append(attrs, semconv.DBOperationNameKey.String(operation))
		name = operation
	}
	if text != "" {
		attrs = append(attrs, semconv.DBQueryTextKey.String(text))
	}
	_, span := parent.TracerProvider().Tracer(instrumentationName).Start(ctx, name,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return &statement{span: span, inst: in}
}

// end ends the statement's span with the outcome err (nil or io.EOF: success).
func (st *statement) end(err error) {
	if st == nil {
		return
	}
	if err != nil && err != io.EOF {
		class := errorType(st.inst.dialect, err)
		st.span.SetAttributes(semconv.ErrorTypeKey.String(class))
		st.span.SetStatus(codes.Error, class)
	}
	st.span.End()
}

// errorType is the error.type of a failed statement: the class of the error, never its message.
func errorType(d Dialect, err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline_exceeded"
	case errors.Is(err, driver.ErrBadConn):
		return "bad_connection"
	}
	if d != nil {
		switch d.ClassifyError(err) {
		case ErrUniqueViolation:
			return "unique_violation"
		case ErrForeignKeyViolation:
			return "foreign_key_violation"
		case ErrCheckViolation:
			return "check_violation"
		case ErrRetry:
			return "retry"
		case ErrInvalidData:
			return "invalid_data"
		case ErrUnavailable:
			return "unavailable"
		case ErrReadOnly:
			return "read_only"
		case ErrFull:
			return "full"
		}
	}
	return "_OTHER"
}

// operationName returns the first word of a statement, upper-cased ("SELECT", "INSERT", "WITH"), or "".
func operationName(text string) string {
	text = strings.TrimLeft(text, " \t\r\n(")
	end := 0
	for end < len(text) && end < 16 {
		c := text[end]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			break
		}
		end++
	}
	return strings.ToUpper(text[:end])
}

// connector makes instrumented connections.
type connector struct {
	inner driver.Connector
	inst  *instrumentation
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	ci, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, markFault(c.inst.dialect, err)
	}
	return newConn(ci, c.inst), nil
}

func (c *connector) Driver() driver.Driver { return c.inner.Driver() }

// Close closes the driver's connector when it has a Close method (database/sql calls it on DB.Close).
func (c *connector) Close() error {
	if closer, ok := c.inner.(io.Closer); ok {
		return closer.Close()
	}
	return nil
}

// conn is an instrumented connection. It implements every optional interface of a driver connection and
// does what database/sql does without one when the driver's connection lacks it.
type conn struct {
	inner   driver.Conn
	inst    *instrumentation
	execer  driver.ExecerContext
	queryer driver.QueryerContext
}

func newConn(ci driver.Conn, inst *instrumentation) *conn {
	c := &conn{inner: ci, inst: inst}
	c.execer, _ = ci.(driver.ExecerContext)
	c.queryer, _ = ci.(driver.QueryerContext)
	return c
}

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var si driver.Stmt
	var err error
	if p, ok := c.inner.(driver.ConnPrepareContext); ok {
		si, err = p.PrepareContext(ctx, query)
	} else {
		si, err = c.inner.Prepare(query)
		if err == nil && ctx.Err() != nil {
			si.Close()
			return nil, ctx.Err()
		}
	}
	if err != nil {
		return nil, markFault(c.inst.dialect, err)
	}
	return newStmt(si, c, query), nil
}

func (c *conn) Close() error { return c.inner.Close() }

func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	st := c.inst.begin(ctx, "BEGIN", "")
	var tx driver.Tx
	var err error
	if b, ok := c.inner.(driver.ConnBeginTx); ok {
		tx, err = b.BeginTx(ctx, opts)
	} else if opts.Isolation != driver.IsolationLevel(0) || opts.ReadOnly {
		err = errors.New("sql: driver does not support non-default isolation level or read-only transactions")
	} else {
		tx, err = c.inner.Begin()
	}
	st.end(err)
	if err != nil {
		if c.inst.dialect != nil && c.inst.dialect.ClassifyError(err) == ErrUnavailable {
			// BEGIN wrote nothing: database/sql begins again on another connection, and at last on a new one,
			// rather than failing on each connection that a restart of the database left broken in the pool.
			err = badConn{err}
		}
		return nil, markFault(c.inst.dialect, err)
	}
	return &transaction{inner: tx, conn: c, ctx: ctx}, nil
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if c.execer == nil {
		if legacy, ok := c.inner.(driver.Execer); ok {
			values, err := namedValues(args)
			if err != nil {
				return nil, err
			}
			st := c.inst.begin(ctx, "", query)
			res, err := legacy.Exec(query, values)
			st.end(skipNotRun(err))
			return res, markFault(c.inst.dialect, err)
		}
		return nil, driver.ErrSkip // database/sql prepares the statement instead
	}
	st := c.inst.begin(ctx, "", query)
	res, err := c.execer.ExecContext(ctx, query, args)
	st.end(skipNotRun(err))
	return res, markFault(c.inst.dialect, err)
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if c.queryer == nil {
		if legacy, ok := c.inner.(driver.Queryer); ok {
			values, err := namedValues(args)
			if err != nil {
				return nil, err
			}
			st := c.inst.begin(ctx, "", query)
			rows, err := legacy.Query(query, values)
			return wrapRows(rows, markFault(c.inst.dialect, err), st)
		}
		return nil, driver.ErrSkip
	}
	st := c.inst.begin(ctx, "", query)
	rows, err := c.queryer.QueryContext(ctx, query, args)
	return wrapRows(rows, markFault(c.inst.dialect, err), st)
}

// skipNotRun is the outcome a statement span records: nil for driver.ErrSkip, which means the driver did not
// run the statement (database/sql then runs it another way, which records it again).
func skipNotRun(err error) error {
	if err == driver.ErrSkip {
		return nil
	}
	return err
}

func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if checker, ok := c.inner.(driver.NamedValueChecker); ok {
		return checker.CheckNamedValue(nv)
	}
	return driver.ErrSkip // database/sql's default conversion
}

func (c *conn) ResetSession(ctx context.Context) error {
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *conn) IsValid() bool {
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *conn) Ping(ctx context.Context) error {
	if p, ok := c.inner.(driver.Pinger); ok {
		return markFault(c.inst.dialect, p.Ping(ctx))
	}
	return nil
}

// namedValues converts arguments for the methods of drivers that take no names, as database/sql does.
func namedValues(named []driver.NamedValue) ([]driver.Value, error) {
	values := make([]driver.Value, len(named))
	for i, nv := range named {
		if nv.Name != "" {
			return nil, errors.New("sql: driver does not support the use of Named Parameters")
		}
		values[i] = nv.Value
	}
	return values, nil
}

// transaction is an instrumented transaction: COMMIT and ROLLBACK are statements of the context it began with.
type transaction struct {
	inner driver.Tx
	conn  *conn
	ctx   context.Context
}

func (t *transaction) Commit() error {
	st := t.conn.inst.begin(t.ctx, "COMMIT", "")
	err := t.inner.Commit()
	st.end(err)
	return markFault(t.conn.inst.dialect, err)
}

func (t *transaction) Rollback() error {
	st := t.conn.inst.begin(t.ctx, "ROLLBACK", "")
	err := t.inner.Rollback()
	st.end(err)
	return markFault(t.conn.inst.dialect, err)
}

// stmt is an instrumented prepared statement.
type stmt struct {
	inner driver.Stmt
	conn  *conn
	query string
}

// stmtConverter is a stmt whose driver statement converts its arguments itself (driver.ColumnConverter).
type stmtConverter struct{ *stmt }

func (s stmtConverter) ColumnConverter(idx int) driver.ValueConverter {
	return s.inner.(driver.ColumnConverter).ColumnConverter(idx)
}

func newStmt(si driver.Stmt, c *conn, query string) driver.Stmt {
	s := &stmt{inner: si, conn: c, query: query}
	if _, ok := si.(driver.ColumnConverter); ok {
		return stmtConverter{s}
	}
	return s
}

func (s *stmt) Close() error  { return s.inner.Close() }
func (s *stmt) NumInput() int { return s.inner.NumInput() }

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	st := s.conn.inst.begin(context.Background(), "", s.query)
	res, err := s.inner.Exec(args)
	st.end(err)
	return res, markFault(s.conn.inst.dialect, err)
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	st := s.conn.inst.begin(context.Background(), "", s.query)
	rows, err := s.inner.Query(args)
	return wrapRows(rows, markFault(s.conn.inst.dialect, err), st)
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	st := s.conn.inst.begin(ctx, "", s.query)
	var res driver.Result
	var err error
	if e, ok := s.inner.(driver.StmtExecContext); ok {
		res, err = e.ExecContext(ctx, args)
	} else {
		var values []driver.Value
		if values, err = namedValues(args); err == nil {
			res, err = s.inner.Exec(values)
		}
	}
	st.end(err)
	return res, markFault(s.conn.inst.dialect, err)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	st := s.conn.inst.begin(ctx, "", s.query)
	if q, ok := s.inner.(driver.StmtQueryContext); ok {
		rows, err := q.QueryContext(ctx, args)
		return wrapRows(rows, markFault(s.conn.inst.dialect, err), st)
	}
	values, err := namedValues(args)
	if err != nil {
		st.end(err)
		return nil, err
	}
	rows, err := s.inner.Query(values)
	return wrapRows(rows, markFault(s.conn.inst.dialect, err), st)
}

// badConn is an error of BEGIN on a broken connection: it is driver.ErrBadConn for database/sql, which then
// drops the connection and begins again on another, and wraps the driver's error.
type badConn struct{ err error }

func (e badConn) Error() string        { return e.err.Error() }
func (e badConn) Unwrap() error        { return e.err }
func (e badConn) Is(target error) bool { return target == driver.ErrBadConn }

// CheckNamedValue converts arguments as database/sql would: by the driver's statement, else its connection.
func (s *stmt) CheckNamedValue(nv *driver.NamedValue) error {
	if checker, ok := s.inner.(driver.NamedValueChecker); ok {
		return checker.CheckNamedValue(nv)
	}
	return s.conn.CheckNamedValue(nv)
}

// wrapRows returns the driver's rows of a query; when its statement is recorded, wrapped so that the span ends
// when they are closed.
func wrapRows(ri driver.Rows, err error, st *statement) (driver.Rows, error) {
	if err != nil {
		st.end(skipNotRun(err))
		return nil, err
	}
	if st == nil {
		return ri, nil
	}
	return &rows{inner: ri, st: st}, nil
}

// rows are the rows of a recorded query. They implement every optional interface of driver rows, answering
// as database/sql does without one when the driver's rows lack it.
type rows struct {
	inner driver.Rows
	st    *statement
	err   error // the first error of Next but io.EOF
}

func (r *rows) Columns() []string { return r.inner.Columns() }

func (r *rows) Close() error {
	err := r.inner.Close()
	if r.st != nil {
		outcome := r.err
		if outcome == nil {
			outcome = err
		}
		r.st.end(outcome)
		r.st = nil
	}
	return err
}

func (r *rows) Next(dest []driver.Value) error {
	err := r.inner.Next(dest)
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
	return err
}

func (r *rows) HasNextResultSet() bool {
	if n, ok := r.inner.(driver.RowsNextResultSet); ok {
		return n.HasNextResultSet()
	}
	return false
}

func (r *rows) NextResultSet() error {
	if n, ok := r.inner.(driver.RowsNextResultSet); ok {
		return n.NextResultSet()
	}
	return io.EOF
}

func (r *rows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.inner.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

func (r *rows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.inner.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *rows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.inner.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *rows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if t, ok := r.inner.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *rows) ColumnTypePrecisionScale(i int) (precision, scale int64, ok bool) {
	if t, ok := r.inner.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

package sqldb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
)

// statementSpan is what a test compares of a statement's span.
type statementSpan struct {
	Name   string
	Kind   trace.SpanKind
	Parent bool // a child of the test's request span
	Attrs  map[string]string
	Status codes.Code
}

// statementSpans returns the spans the recorder ended, but the request span, in the order they ended.
func statementSpans(rec *tracetest.SpanRecorder, request trace.SpanContext) []statementSpan {
	var out []statementSpan
	for _, s := range rec.Ended() {
		if s.SpanContext().SpanID() == request.SpanID() {
			continue
		}
		attrs := map[string]string{}
		for _, kv := range s.Attributes() {
			attrs[string(kv.Key)] = kv.Value.Emit()
		}
		out = append(out, statementSpan{Name: s.Name(), Kind: s.SpanKind(), Attrs: attrs, Status: s.Status().Code,
			Parent: s.Parent().SpanID() == request.SpanID() && s.Parent().TraceID() == request.TraceID()})
	}
	return out
}

func TestInstrument_Spans(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		if _, err := db.Exec(`CREATE TABLE item (id TEXT PRIMARY KEY, n INTEGER NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		system := map[string]string{"sqlite": "sqlite", "postgres": "postgresql"}[db.Dialect().Name()]
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		defer tp.Shutdown(context.Background())
		ctx, request := tp.Tracer("test").Start(context.Background(), "request")

		insert := sqldb.NewStatement(`INSERT INTO item (id, n) VALUES (?, ?)`).For(db.Dialect())
		selectN := sqldb.NewStatement(`SELECT n FROM item WHERE id = ?`).For(db.Dialect())
		err := sqldb.RunTx(ctx, db.DB, func(tx *sqldb.Tx) error {
			_, err := tx.ExecContext(ctx, insert, "secret-key", 42)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRowContext(ctx, selectN, "secret-key").Scan(&n); err != nil || n != 42 {
			t.Fatalf("QueryRow = %d, %v, want 42", n, err)
		}
		if _, err := db.ExecContext(ctx, insert, "secret-key", 1); db.Dialect().ClassifyError(err) != sqldb.ErrUniqueViolation {
			t.Fatalf("duplicate insert: %v, want a unique violation", err)
		}
		stmt, err := db.PrepareContext(ctx, selectN)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := stmt.QueryContext(ctx, "secret-key")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
		stmt.Close()
		// Without a span in the context nothing is recorded.
		if _, err := db.ExecContext(context.Background(), `DELETE FROM item`); err != nil {
			t.Fatal(err)
		}
		request.End()

		query := func(text string) map[string]string {
			op := strings.Fields(text)[0]
			return map[string]string{"db.system.name": system, "db.operation.name": op, "db.query.text": text}
		}
		failed := query(insert)
		failed["error.type"] = "unique_violation"
		want := []statementSpan{
			{"BEGIN", trace.SpanKindClient, true, map[string]string{"db.system.name": system, "db.operation.name": "BEGIN"}, codes.Unset},
			{"INSERT", trace.SpanKindClient, true, query(insert), codes.Unset},
			{"COMMIT", trace.SpanKindClient, true, map[string]string{"db.system.name": system, "db.operation.name": "COMMIT"}, codes.Unset},
			{"SELECT", trace.SpanKindClient, true, query(selectN), codes.Unset},
			{"INSERT", trace.SpanKindClient, true, failed, codes.Error},
			{"SELECT", trace.SpanKindClient, true, query(selectN), codes.Unset},
		}
		got := statementSpans(rec, request.SpanContext())
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("statement spans (-want +got):\n%s", diff)
		}
		for _, s := range rec.Ended() {
			for _, kv := range s.Attributes() {
				if strings.Contains(kv.Value.Emit(), "secret-key") {
					t.Errorf("span %s attribute %s = %q holds an argument value", s.Name(), kv.Key, kv.Value.Emit())
				}
			}
		}
	})
}

func TestInstrument_QuerySpanEndsWithRows(t *testing.T) {
	db := dbtest.SQLite(t)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx, request := tp.Tracer("test").Start(context.Background(), "request")
	defer request.End()
	rows, err := db.QueryContext(ctx, `SELECT 1 UNION ALL SELECT 2`)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(rec.Ended()); got != 0 {
		t.Errorf("spans ended while the rows are open = %d, want 0", got)
	}
	for rows.Next() {
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if got := len(rec.Ended()); got != 1 {
		t.Errorf("spans ended after the rows closed = %d, want 1", got)
	}
}

func TestWithStatementCounter(t *testing.T) {
	db := dbtest.SQLite(t)
	outer, inner := &sqldb.StatementCounter{}, &sqldb.StatementCounter{}
	ctx := sqldb.WithStatementCounter(context.Background(), outer)
	if _, err := db.ExecContext(ctx, `CREATE TABLE item (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	ictx := sqldb.WithStatementCounter(ctx, inner)
	err := sqldb.RunTx(ictx, db.DB, func(tx *sqldb.Tx) error {
		if _, err := tx.ExecContext(ictx, `INSERT INTO item VALUES (1)`); err != nil {
			return err
		}
		var n int
		return tx.QueryRowContext(ictx, `SELECT count(*) FROM item`).Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
	// BEGIN, INSERT, SELECT, COMMIT in the inner context; CREATE TABLE before it.
	got := map[string]int64{"outer": outer.Count(), "inner": inner.Count()}
	if diff := cmp.Diff(map[string]int64{"outer": 5, "inner": 4}, got); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}

// TestInstrument_Attributes checks the operation names of statements as code writes them.
func TestInstrument_Attributes(t *testing.T) {
	db := dbtest.SQLite(t)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx, request := tp.Tracer("test").Start(context.Background(), "request")
	for _, text := range []string{"  select 1", "\nSELECT 1 UNION SELECT 2", "WITH a AS (SELECT 1) SELECT * FROM a", "pragma user_version"} {
		if _, err := db.ExecContext(ctx, text); err != nil {
			t.Fatal(err)
		}
	}
	request.End()
	var got []string
	for _, s := range statementSpans(rec, request.SpanContext()) {
		got = append(got, s.Name+"|"+s.Attrs[string(attribute.Key("db.operation.name"))])
	}
	want := []string{"SELECT|SELECT", "SELECT|SELECT", "WITH|WITH", "PRAGMA|PRAGMA"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("span names (-want +got):\n%s", diff)
	}
}

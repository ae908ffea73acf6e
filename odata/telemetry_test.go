package odata_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
)

// telemetryFixture is a library service whose telemetry goes to an in-memory span recorder and a manual metric
// reader.
type telemetryFixture struct {
	*fixture
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
}

func newTelemetryFixture(t *testing.T, db *dbtest.DB) *telemetryFixture {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	f := newFixtureWith(t, db, func(cfg *odata.Config) {
		cfg.TracerProvider, cfg.MeterProvider = tp, mp
	})
	f.seed()
	return &telemetryFixture{fixture: f, spans: spans, reader: reader, tp: tp}
}

// spanSummary is what the tests compare of a span.
type spanSummary struct {
	Name   string
	Kind   trace.SpanKind
	Attrs  map[string]string
	Status codes.Code
}

func summarize(s sdktrace.ReadOnlySpan) spanSummary {
	return spanSummary{Name: s.Name(), Kind: s.SpanKind(), Attrs: attrMap(s.Attributes()), Status: s.Status().Code}
}

func attrMap(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// requestSpans returns the spans of the request the recorder saw last (those of its trace), the request span
// first, then the others in the order they ended; the recorder is emptied.
func (f *telemetryFixture) requestSpans(t *testing.T) (sdktrace.ReadOnlySpan, []sdktrace.ReadOnlySpan) {
	t.Helper()
	ended := f.spans.Ended()
	f.spans.Reset()
	var request sdktrace.ReadOnlySpan
	for _, s := range ended {
		if s.SpanKind() == trace.SpanKindServer {
			request = s
		}
	}
	if request == nil {
		t.Fatalf("no request span among %d spans", len(ended))
	}
	var children []sdktrace.ReadOnlySpan
	for _, s := range ended {
		if s != request && s.SpanContext().TraceID() == request.SpanContext().TraceID() {
			children = append(children, s)
		}
	}
	return request, children
}

// checkStatementSpans checks that every span is a statement span, a child of parent with the documented
// attributes and no argument value, and returns their operation names.
func checkStatementSpans(t *testing.T, parent sdktrace.ReadOnlySpan, spans []sdktrace.ReadOnlySpan, secrets ...string) []string {
	t.Helper()
	var ops []string
	for _, s := range spans {
		a := attrMap(s.Attributes())
		if s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %s: parent %s, want the request span %s", s.Name(), s.Parent().SpanID(), parent.SpanContext().SpanID())
		}
		if s.SpanKind() != trace.SpanKindClient || a["db.system.name"] == "" || a["db.operation.name"] != s.Name() {
			t.Errorf("span %s: kind %s, attributes %v; want a client span with db.system.name and db.operation.name", s.Name(), s.SpanKind(), a)
		}
		switch s.Name() {
		case "BEGIN", "COMMIT", "ROLLBACK":
		default:
			if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(a["db.query.text"])), s.Name()) {
				t.Errorf("span %s: db.query.text %q does not start with the operation", s.Name(), a["db.query.text"])
			}
		}
		for _, v := range a {
			for _, secret := range secrets {
				if strings.Contains(v, secret) {
					t.Errorf("span %s holds the argument value %q: %q", s.Name(), secret, v)
				}
			}
		}
		ops = append(ops, s.Name())
	}
	return ops
}

func TestService_TelemetrySpans(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newTelemetryFixture(t, db)
		for _, tc := range []struct {
			name, method, path, body string
			want                     spanSummary
			// wantOps is the operations of the statements; nil when only the first and last are checked (firstLast).
			wantOps   []string
			firstLast []string
			contains  string
		}{
			{name: "by key", method: "GET", path: "/odata/Book('b1')",
				want: spanSummary{"GET Book", trace.SpanKindServer, map[string]string{"http.request.method": "GET",
					"http.response.status_code": "200", "odata.entity_set": "Book", "odata.request_kind": "entity"}, codes.Unset},
				wantOps: []string{"SELECT"}},
			{name: "page", method: "GET", path: "/odata/Book?$top=2&$filter=Title%20ne%20'secret-title'",
				want: spanSummary{"GET Book", trace.SpanKindServer, map[string]string{"http.request.method": "GET",
					"http.response.status_code": "200", "odata.entity_set": "Book", "odata.request_kind": "collection"}, codes.Unset},
				wantOps: []string{"SELECT"}},
			{name: "count", method: "GET", path: "/odata/Book/$count",
				want: spanSummary{"GET Book", trace.SpanKindServer, map[string]string{"http.request.method": "GET",
					"http.response.status_code": "200", "odata.entity_set": "Book", "odata.request_kind": "count"}, codes.Unset},
				wantOps: []string{"SELECT"}},
			{name: "patch", method: "PATCH", path: "/odata/Book('b1')", body: `{"Title":"secret-title"}`,
				want: spanSummary{"PATCH Book", trace.SpanKindServer, map[string]string{"http.request.method": "PATCH",
					"http.response.status_code": "200", "odata.entity_set": "Book", "odata.request_kind": "update"}, codes.Unset},
				firstLast: []string{"BEGIN", "COMMIT"}, contains: "UPDATE"},
			{name: "action", method: "POST", path: "/odata/Book('b1')/Rate", body: `{"Stars":5}`,
				want: spanSummary{"POST Book/Rate", trace.SpanKindServer, map[string]string{"http.request.method": "POST",
					"http.response.status_code": "200", "odata.entity_set": "Book", "odata.request_kind": "action"}, codes.Unset},
				firstLast: []string{"BEGIN", "COMMIT"}},
			{name: "not found", method: "GET", path: "/odata/Book('secret-key')",
				want: spanSummary{"GET Book", trace.SpanKindServer, map[string]string{"http.request.method": "GET",
					"http.response.status_code": "404", "odata.entity_set": "Book", "odata.request_kind": "entity",
					"odata.error_code": "NotFound"}, codes.Unset},
				wantOps: []string{"SELECT"}},
			{name: "failed validation rolls back", method: "PATCH", path: "/odata/Book('b1')", body: `{"Pages":-1}`,
				want: spanSummary{"PATCH Book", trace.SpanKindServer, map[string]string{"http.request.method": "PATCH",
					"http.response.status_code": "400", "odata.entity_set": "Book", "odata.request_kind": "update",
					"odata.error_code": "ValidationFailed"}, codes.Unset},
				firstLast: []string{"BEGIN", "ROLLBACK"}},
			{name: "unknown set", method: "GET", path: "/odata/Nothing",
				want: spanSummary{"GET", trace.SpanKindServer, map[string]string{"http.request.method": "GET",
					"http.response.status_code": "404", "odata.request_kind": "unknown", "odata.error_code": "NotFound"}, codes.Unset}},
			{name: "metadata", method: "GET", path: "/odata/$metadata",
				want: spanSummary{"GET $metadata", trace.SpanKindServer, map[string]string{"http.request.method": "GET",
					"http.response.status_code": "200", "odata.request_kind": "metadata"}, codes.Unset}},
			{name: "method not known", method: "BREW", path: "/odata/Book",
				want: spanSummary{"HTTP Book", trace.SpanKindServer, map[string]string{"http.request.method": "_OTHER",
					"http.response.status_code": "405", "odata.entity_set": "Book", "odata.request_kind": "collection",
					"odata.error_code": "MethodNotAllowed"}, codes.Unset}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				f.do(tc.method, tc.path, tc.body)
				request, children := f.requestSpans(t)
				if diff := cmp.Diff(tc.want, summarize(request)); diff != "" {
					t.Errorf("%s %s: request span (-want +got):\n%s", tc.method, tc.path, diff)
				}
				ops := checkStatementSpans(t, request, children, "secret-key", "secret-title")
				switch {
				case tc.firstLast != nil:
					if len(ops) < 2 || ops[0] != tc.firstLast[0] || ops[len(ops)-1] != tc.firstLast[1] {
						t.Errorf("%s %s: statements %v, want %s first and %s last", tc.method, tc.path, ops, tc.firstLast[0], tc.firstLast[1])
					}
					if tc.contains != "" && !slices.Contains(ops, tc.contains) {
						t.Errorf("%s %s: statements %v, want an %s", tc.method, tc.path, ops, tc.contains)
					}
				default:
					if diff := cmp.Diff(tc.wantOps, ops); diff != "" {
						t.Errorf("%s %s: statements (-want +got):\n%s", tc.method, tc.path, diff)
					}
				}
			})
		}
	})
}

// TestService_TelemetryFunction: a function call is a request of kind function, named by its function.
func TestService_TelemetryFunction(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	f := newFixtureWith(t, dbtest.SQLite(t), func(cfg *odata.Config) {
		m := libraryModel()
		m.Functions = []*edm.Function{{Name: "Pages", Bound: true, BindingType: "Book",
			ReturnType: &edm.ReturnType{Type: edm.KindInt64}}}
		if err := m.Build(); err != nil {
			t.Fatal(err)
		}
		cfg.Model, cfg.TracerProvider = m, tp
		cfg.Sets, cfg.Actions = libraryConfig(m)
		cfg.Functions = map[string]odata.FunctionFunc{"Book/Pages": func(ctx context.Context, call *odata.FunctionCall) (any, error) {
			return call.Entity["Pages"], nil
		}}
	})
	f.seed()
	f.must(200, "GET", "/odata/Book('b1')/Pages()", "")
	tf := &telemetryFixture{fixture: f, spans: spans, tp: tp}
	request, children := tf.requestSpans(t)
	want := spanSummary{"GET Book/Pages", trace.SpanKindServer, map[string]string{"http.request.method": "GET",
		"http.response.status_code": "200", "odata.entity_set": "Book", "odata.request_kind": "function"}, codes.Unset}
	if diff := cmp.Diff(want, summarize(request)); diff != "" {
		t.Errorf("request span (-want +got):\n%s", diff)
	}
	if ops := checkStatementSpans(t, request, children); !slices.Contains(ops, "SELECT") {
		t.Errorf("statements %v, want the SELECT of the bound entity", ops)
	}
}

// TestService_TelemetryTraceparent: a request without a span in its context continues the trace its
// traceparent header names; one that a middleware traced is an internal child of the middleware's span.
func TestService_TelemetryTraceparent(t *testing.T) {
	f := newTelemetryFixture(t, dbtest.SQLite(t))
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	f.do("GET", "/odata/Book('b1')", "", "traceparent", "00-"+traceID+"-"+parentID+"-01")
	request, _ := f.requestSpans(t)
	got := []string{request.SpanContext().TraceID().String(), request.Parent().SpanID().String()}
	if diff := cmp.Diff([]string{traceID, parentID}, got); diff != "" || !request.Parent().IsRemote() {
		t.Errorf("request span trace and parent (-want +got):\n%s remote parent %v", diff, request.Parent().IsRemote())
	}

	ctx, outer := f.tp.Tracer("middleware").Start(context.Background(), "middleware", trace.WithSpanKind(trace.SpanKindServer))
	req := httptest.NewRequestWithContext(ctx, "GET", "http://example.com/odata/Book('b1')", nil)
	req.Header.Set("traceparent", "00-"+traceID+"-"+parentID+"-01")
	f.svc.ServeHTTP(httptest.NewRecorder(), req)
	outer.End()
	var engine sdktrace.ReadOnlySpan
	for _, s := range f.spans.Ended() {
		if s.Name() == "GET Book" {
			engine = s
		}
	}
	f.spans.Reset()
	if engine == nil {
		t.Fatal("no span of the engine")
	}
	if engine.SpanKind() != trace.SpanKindInternal || engine.Parent().SpanID() != outer.SpanContext().SpanID() {
		t.Errorf("engine span: kind %s, parent %s; want internal, child of the middleware's %s", engine.SpanKind(),
			engine.Parent().SpanID(), outer.SpanContext().SpanID())
	}
}

// TestService_TelemetryBatch: each request of a batch is a span below the batch's, its statements below it.
func TestService_TelemetryBatch(t *testing.T) {
	f := newTelemetryFixture(t, dbtest.SQLite(t))
	postJSONBatch(t, f.fixture, `{"requests":[
		{"id":"1","method":"get","url":"Book('b1')"},
		{"id":"2","method":"patch","url":"Book('b2')","atomicityGroup":"g","body":{"Pages":7}}]}`)
	batch, spans := f.requestSpans(t)
	if diff := cmp.Diff(spanSummary{"POST $batch", trace.SpanKindServer, map[string]string{"http.request.method": "POST",
		"http.response.status_code": "200", "odata.request_kind": "batch"}, codes.Unset}, summarize(batch)); diff != "" {
		t.Errorf("batch span (-want +got):\n%s", diff)
	}
	var parts []spanSummary
	var groupOps []string
	for _, s := range spans {
		switch {
		case s.SpanKind() == trace.SpanKindInternal:
			if s.Parent().SpanID() != batch.SpanContext().SpanID() {
				t.Errorf("part span %s is not a child of the batch span", s.Name())
			}
			parts = append(parts, summarize(s))
		case s.Parent().SpanID() == batch.SpanContext().SpanID():
			groupOps = append(groupOps, s.Name()) // the atomicity group's transaction
		}
	}
	want := []spanSummary{
		{"GET Book", trace.SpanKindInternal, map[string]string{"http.request.method": "GET", "http.response.status_code": "200",
			"odata.entity_set": "Book", "odata.request_kind": "entity"}, codes.Unset},
		{"PATCH Book", trace.SpanKindInternal, map[string]string{"http.request.method": "PATCH", "http.response.status_code": "200",
			"odata.entity_set": "Book", "odata.request_kind": "update"}, codes.Unset},
	}
	if diff := cmp.Diff(want, parts); diff != "" {
		t.Errorf("part spans (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"BEGIN", "COMMIT"}, groupOps); diff != "" {
		t.Errorf("statements of the batch span itself (-want +got):\n%s", diff)
	}
}

// metricPoint is one data point of a histogram: its attributes, its count and sum.
type metricPoint struct {
	Attrs map[string]string
	Count uint64
	Sum   float64
}

// collect returns the metrics the reader collects, by name.
func collect(t *testing.T, reader *sdkmetric.ManualReader) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

func histogramPoints[N int64 | float64](data metricdata.Aggregation) []metricPoint {
	h, ok := data.(metricdata.Histogram[N])
	if !ok {
		return nil
	}
	var out []metricPoint
	for _, p := range h.DataPoints {
		out = append(out, metricPoint{Attrs: attrMap(p.Attributes.ToSlice()), Count: p.Count, Sum: float64(p.Sum)})
	}
	return out
}

func TestService_TelemetryMetrics(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newTelemetryFixture(t, db)
		statements := 0
		for _, path := range []string{"/odata/Book('b1')", "/odata/Book('b2')", "/odata/Book('missing')"} {
			f.do("GET", path, "")
			_, children := f.requestSpans(t)
			statements += len(children)
		}
		postJSONBatch(t, f.fixture, `{"requests":[{"id":"1","method":"get","url":"Book('b1')"}]}`)
		_, children := f.requestSpans(t)
		for _, s := range children {
			if s.SpanKind() == trace.SpanKindClient { // not the span of the batch's request
				statements++
			}
		}

		got := collect(t, f.reader)
		durations := histogramPoints[float64](got["odata.request.duration"])
		var counts []metricPoint
		for _, p := range durations {
			if p.Sum <= 0 {
				t.Errorf("duration of %v = %g, want > 0", p.Attrs, p.Sum)
			}
			counts = append(counts, metricPoint{Attrs: p.Attrs, Count: p.Count})
		}
		want := []metricPoint{
			{Attrs: map[string]string{"http.request.method": "GET", "http.response.status_code": "200",
				"odata.entity_set": "Book", "odata.request_kind": "entity"}, Count: 2},
			{Attrs: map[string]string{"http.request.method": "GET", "http.response.status_code": "404",
				"odata.entity_set": "Book", "odata.request_kind": "entity", "odata.error_code": "NotFound"}, Count: 1},
			{Attrs: map[string]string{"http.request.method": "POST", "http.response.status_code": "200",
				"odata.request_kind": "batch"}, Count: 1},
		}
		sortPoints := func(p []metricPoint) {
			sort.Slice(p, func(i, j int) bool {
				return p[i].Attrs["http.response.status_code"]+p[i].Attrs["odata.request_kind"] < p[j].Attrs["http.response.status_code"]+p[j].Attrs["odata.request_kind"]
			})
		}
		sortPoints(want)
		sortPoints(counts)
		if diff := cmp.Diff(want, counts); diff != "" {
			t.Errorf("odata.request.duration points (-want +got):\n%s", diff)
		}
		sum := 0.0
		for _, p := range histogramPoints[int64](got["odata.request.sql_statements"]) {
			sum += p.Sum
		}
		if int(sum) != statements || statements == 0 {
			t.Errorf("odata.request.sql_statements sums to %g, want the %d statement spans", sum, statements)
		}
		pool, ok := got["db.client.connection.count"].(metricdata.Sum[int64])
		if !ok {
			t.Fatalf("db.client.connection.count = %T, want a sum of int64", got["db.client.connection.count"])
		}
		var states []string
		for _, p := range pool.DataPoints {
			a := attrMap(p.Attributes.ToSlice())
			states = append(states, a["db.client.connection.state"]+" "+a["db.client.connection.pool.name"])
		}
		sort.Strings(states)
		if diff := cmp.Diff([]string{"idle " + db.Dialect().Name(), "used " + db.Dialect().Name()}, states); diff != "" {
			t.Errorf("db.client.connection.count points (-want +got):\n%s", diff)
		}
		for _, name := range []string{"db.client.connection.max", "db.client.connection.waits", "db.client.connection.wait_duration", "db.client.connection.closed"} {
			if got[name] == nil {
				t.Errorf("no metric %s", name)
			}
		}
	})
}

// TestService_TelemetryGlobal: without providers in Config the service records nothing until a program sets
// the global ones, and then records through them.
func TestService_TelemetryGlobal(t *testing.T) {
	f := newFixtureTB(t, dbtest.SQLite(t))
	f.seed()
	f.must(200, "GET", "/odata/Book('b1')", "")

	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	before := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(before) })
	f.must(200, "GET", "/odata/Book('b1')", "")
	var names []string
	for _, s := range spans.Ended() {
		names = append(names, s.Name())
	}
	if diff := cmp.Diff([]string{"SELECT", "GET Book"}, names); diff != "" {
		t.Errorf("spans with the global provider (-want +got):\n%s", diff)
	}
}

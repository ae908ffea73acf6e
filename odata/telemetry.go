package odata

import (
	"context"
	"database/sql"
	"net/http"
	"net/textproto"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/storekit/store/odata/sqldb"
)

// instrumentationName names the tracer and meter of the engine.
const instrumentationName = "github.com/storekit/store/odata"

// The attributes of the engine's own (see the Telemetry section of odata/DESIGN.md).
const (
	attrEntitySet   = attribute.Key("odata.entity_set")
	attrRequestKind = attribute.Key("odata.request_kind")
	attrErrorCode   = attribute.Key("odata.error_code")
)

// The global providers before any program set its own: otel.GetTracerProvider and otel.GetMeterProvider return
// these same values until then, and the engine records nothing through them.
var (
	unsetTracerProvider = otel.GetTracerProvider()
	unsetMeterProvider  = otel.GetMeterProvider()
)

// durationBuckets are the bucket bounds of odata.request.duration in seconds: those OpenTelemetry's semantic
// conventions advise for http.server.request.duration.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// statementBuckets are the bucket bounds of odata.request.sql_statements.
var statementBuckets = []float64{0, 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100}

// telemetry is what a Service records of its requests: a span per request (and per request of a batch), the
// request metrics, and the connection pool of its database.
type telemetry struct {
	// tracer is the tracer of Config.TracerProvider; nil with the global provider, looked up per request, or
	// when tracing is off (off).
	tracer trace.Tracer
	off    bool
	// propagator reads the trace context of requests that arrive without a span in their context; traceFields
	// are the header names it reads, canonical, so that a request without them costs no extraction.
	propagator  propagation.TextMapPropagator
	traceFields []string
	duration    metric.Float64Histogram
	statements  metric.Int64Histogram
}

// newTelemetry returns the telemetry of cfg: its providers, or the global ones when nil.
func newTelemetry(cfg Config) (*telemetry, error) {
	tel := &telemetry{propagator: cfg.Propagator}
	switch tp := cfg.TracerProvider; tp.(type) {
	case nil:
	case tracenoop.TracerProvider:
		tel.off = true
	default:
		tel.tracer = tp.Tracer(instrumentationName)
	}
	if tel.propagator == nil {
		tel.propagator = propagation.TraceContext{}
	}
	for _, f := range tel.propagator.Fields() {
		tel.traceFields = append(tel.traceFields, textproto.CanonicalMIMEHeaderKey(f))
	}
	mp := cfg.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	meter := mp.Meter(instrumentationName)
	var err error
	tel.duration, err = meter.Float64Histogram("odata.request.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of the OData requests the service answered."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		return nil, err
	}
	tel.statements, err = meter.Int64Histogram("odata.request.sql_statements", metric.WithUnit("{statement}"),
		metric.WithDescription("SQL statements an OData request ran, BEGIN, COMMIT and ROLLBACK included."),
		metric.WithExplicitBucketBoundaries(statementBuckets...))
	if err != nil {
		return nil, err
	}
	if cfg.DB != nil && recordsPool(cfg.MeterProvider) {
		if err := observePool(meter, cfg.DB.DB, cfg.DB.Dialect().Name()); err != nil {
			return nil, err
		}
	}
	return tel, nil
}

// recordsPool reports whether the pool statistics go to a meter provider: Config.MeterProvider unless it is the
// no-op one, or a global one a program has set (callbacks registered on the global provider before that would
// be kept, with the database, for as long as the process runs).
func recordsPool(mp metric.MeterProvider) bool {
	switch mp.(type) {
	case nil:
		return otel.GetMeterProvider() != unsetMeterProvider
	case metricnoop.MeterProvider:
		return false
	}
	return true
}

// currentTracer returns the tracer of a request, nil when no span records.
func (tel *telemetry) currentTracer() trace.Tracer {
	if tel.tracer != nil || tel.off {
		return tel.tracer
	}
	tp := otel.GetTracerProvider()
	if tp == unsetTracerProvider {
		return nil
	}
	return tp.Tracer(instrumentationName)
}

// observation is one request the telemetry observes: its span, the start of its duration and its statement
// count when metrics record, and what the request resolved to and ended with.
type observation struct {
	tel    *telemetry
	r      *http.Request // the request with the span and the counter in its context
	w      statusRecorder
	span   trace.Span // nil when no span records
	start  time.Time  // zero when no metric records
	count  sqldb.StatementCounter
	target *target
	err    error
	done   bool
}

// begin starts observing r (a request of a batch when part: a span only, no metrics of its own); nil when
// nothing records it, which costs an atomic load and the checks of the instruments.
func (tel *telemetry) begin(w http.ResponseWriter, r *http.Request, part bool) *observation {
	ctx := r.Context()
	var span trace.Span
	if tracer := tel.currentTracer(); tracer != nil {
		parent, kind := ctx, trace.SpanKindInternal
		if !part && !trace.SpanContextFromContext(ctx).IsValid() {
			// No middleware traced the request: the engine is its server, and honours its caller's trace.
			kind = trace.SpanKindServer
			if tel.hasTraceHeaders(r.Header) {
				parent = tel.propagator.Extract(ctx, propagation.HeaderCarrier(r.Header))
			}
		}
		var sctx context.Context
		method := methodName(r.Method)
		sctx, span = tracer.Start(parent, spanMethod(method), trace.WithSpanKind(kind),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(method)))
		if span.IsRecording() {
			ctx = sctx
		} else {
			span = nil
		}
	}
	metrics := !part && tel.duration.Enabled(ctx)
	if span == nil && !metrics {
		return nil
	}
	o := &observation{tel: tel, span: span, w: statusRecorder{ResponseWriter: w}}
	if metrics {
		o.start = time.Now()
		ctx = sqldb.WithStatementCounter(ctx, &o.count)
	}
	o.r = r.WithContext(ctx)
	return o
}

// hasTraceHeaders reports whether h holds a header the propagator reads.
func (tel *telemetry) hasTraceHeaders(h http.Header) bool {
	for _, f := range tel.traceFields {
		if len(h[f]) > 0 {
			return true
		}
	}
	return false
}

// finish records what the request resolved to (nil when its path did not resolve) and the error it answered.
func (o *observation) finish(t *target, err error) {
	o.target, o.err, o.done = t, err, true
}

// end ends the observation: the span's name, attributes and status, and the metrics. A request whose handler
// panicked (finish was not called) counts as a 500 InternalError unless its answer had begun.
func (o *observation) end() {
	status := o.w.code()
	code := ""
	switch {
	case !o.done && !o.w.wrote:
		status, code = http.StatusInternalServerError, CodeInternal
	case o.err != nil && status >= 400:
		code = answerError(o.r, o.err).Code
	}
	method := methodName(o.r.Method)
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, semconv.HTTPRequestMethodKey.String(method), semconv.HTTPResponseStatusCode(status),
		attrRequestKind.String(requestKind(o.target, o.r.Method)))
	resource := ""
	if o.target != nil {
		if set := o.target.setName(); set != "" {
			attrs = append(attrs, attrEntitySet.String(set))
		}
		resource = o.target.resourceName()
	}
	if code != "" {
		attrs = append(attrs, attrErrorCode.String(code))
	}
	if o.span != nil {
		o.endSpan(method, resource, status, code, attrs)
	}
	if !o.start.IsZero() {
		set := metric.WithAttributeSet(attribute.NewSet(attrs...)) // last: NewSet sorts attrs in place
		ctx := o.r.Context()
		o.tel.duration.Record(ctx, time.Since(o.start).Seconds(), set)
		o.tel.statements.Record(ctx, o.count.Count(), set)
	}
}

// endSpan ends the request's span, named by the method and the resource ("GET Product", "POST $batch"); a
// server error sets its status to Error and error.type to the error code.
func (o *observation) endSpan(method, resource string, status int, code string, attrs []attribute.KeyValue) {
	if resource != "" {
		o.span.SetName(spanMethod(method) + " " + resource)
	}
	o.span.SetAttributes(attrs[1:]...) // the method is there since the start
	if status >= 500 {
		if code == "" {
			code = http.StatusText(status)
		}
		o.span.SetAttributes(semconv.ErrorTypeKey.String(code))
		o.span.SetStatus(codes.Error, code)
	}
	o.span.End()
}

// methodName is the method as the http.request.method attribute has it: the known methods as they are, any
// other "_OTHER" (a client chooses it, and the attribute must not take any value it sends).
func methodName(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodTrace, http.MethodConnect:
		return m
	}
	return "_OTHER"
}

// spanMethod is a method (methodName's) as span names have it: "HTTP" for "_OTHER".
func spanMethod(method string) string {
	if method == "_OTHER" {
		return "HTTP"
	}
	return method
}

// requestKind is the odata.request_kind of a request that resolved to t (nil: "unknown"): "service_document",
// "metadata", "openapi", "batch", "action", "function"; for writes "create" (POST), "replace" (PUT), "update" (PATCH) and
// "delete"; for reads what they read: "collection", "entity", "count", "property" or "value".
func requestKind(t *target, method string) string {
	if t == nil {
		return "unknown"
	}
	switch t.kind {
	case tRoot:
		return "service_document"
	case tMetadata:
		return "metadata"
	case tOpenAPI:
		return "openapi"
	case tBatch:
		return "batch"
	case tAction:
		return "action"
	case tFunction:
		return "function"
	}
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "replace"
	case http.MethodPatch:
		return "update"
	case http.MethodDelete:
		return "delete"
	}
	switch t.kind {
	case tCollection:
		return "collection"
	case tEntity:
		return "entity"
	case tCount:
		return "count"
	case tProperty:
		return "property"
	case tCrossJoin:
		return "crossjoin"
	}
	return "value"
}

// setName is the odata.entity_set of a request: the entity set (or singleton) its path starts at, "" for none.
func (t *target) setName() string {
	switch {
	case t.scope.Set != nil:
		return t.scope.Set.Name
	case t.scope.Singleton != nil:
		return t.scope.Singleton.Name
	}
	return ""
}

// resourceName names what a request addressed in its span's name: the entity set, with the action or function
// bound to it ("Product/Rate"), an unbound action or function, "$metadata", "$batch", "$openapi" or "/" for the
// service document.
func (t *target) resourceName() string {
	switch t.kind {
	case tRoot:
		return "/"
	case tMetadata:
		return "$metadata"
	case tOpenAPI:
		return "$openapi"
	case tBatch:
		return "$batch"
	}
	name, operation := t.setName(), ""
	switch {
	case t.action != nil:
		operation = t.action.Name
	case len(t.functions) > 0: // the overloads share their name
		operation = t.functions[0].Name
	default:
		return name
	}
	if name != "" {
		return name + "/" + operation
	}
	return operation
}

// statusRecorder remembers the status an answer was given.
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusRecorder) WriteHeader(status int) {
	if !w.wrote && status >= 200 {
		w.status, w.wrote = status, true
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// code returns the status answered, 200 when nothing was written.
func (w *statusRecorder) code() int {
	if !w.wrote {
		return http.StatusOK
	}
	return w.status
}

// observePool reports the statistics of db's connection pool (sql.DB.Stats) at each collection, with the
// attribute db.client.connection.pool.name = pool: db.client.connection.count (by db.client.connection.state,
// idle or used), db.client.connection.max (when the pool has a limit), and the totals since the pool opened
// db.client.connection.waits, db.client.connection.wait_duration (s) and db.client.connection.closed (by
// reason: max_idle, max_idle_time, max_lifetime).
func observePool(meter metric.Meter, db *sql.DB, pool string) error {
	count, err := meter.Int64ObservableUpDownCounter("db.client.connection.count", metric.WithUnit("{connection}"),
		metric.WithDescription("Connections of the pool, by state."))
	if err != nil {
		return err
	}
	limit, err := meter.Int64ObservableUpDownCounter("db.client.connection.max", metric.WithUnit("{connection}"),
		metric.WithDescription("The most connections the pool opens."))
	if err != nil {
		return err
	}
	waits, err := meter.Int64ObservableCounter("db.client.connection.waits", metric.WithUnit("{wait}"),
		metric.WithDescription("Times a statement waited for a connection of the pool."))
	if err != nil {
		return err
	}
	waited, err := meter.Float64ObservableCounter("db.client.connection.wait_duration", metric.WithUnit("s"),
		metric.WithDescription("Time statements waited for a connection of the pool, in all."))
	if err != nil {
		return err
	}
	closed, err := meter.Int64ObservableCounter("db.client.connection.closed", metric.WithUnit("{connection}"),
		metric.WithDescription("Connections the pool closed, by reason."))
	if err != nil {
		return err
	}
	name := semconv.DBClientConnectionPoolNameKey.String(pool)
	state := semconv.DBClientConnectionStateKey
	with := func(kv ...attribute.KeyValue) metric.MeasurementOption {
		return metric.WithAttributeSet(attribute.NewSet(append(kv, name)...))
	}
	idle, used, all := with(state.String("idle")), with(state.String("used")), with()
	reason := attribute.Key("reason")
	maxIdle, maxIdleTime, maxLifetime := with(reason.String("max_idle")), with(reason.String("max_idle_time")),
		with(reason.String("max_lifetime"))
	_, err = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		s := db.Stats()
		o.ObserveInt64(count, int64(s.Idle), idle)
		o.ObserveInt64(count, int64(s.InUse), used)
		if s.MaxOpenConnections > 0 {
			o.ObserveInt64(limit, int64(s.MaxOpenConnections), all)
		}
		o.ObserveInt64(waits, s.WaitCount, all)
		o.ObserveFloat64(waited, s.WaitDuration.Seconds(), all)
		o.ObserveInt64(closed, s.MaxIdleClosed, maxIdle)
		o.ObserveInt64(closed, s.MaxIdleTimeClosed, maxIdleTime)
		o.ObserveInt64(closed, s.MaxLifetimeClosed, maxLifetime)
		return nil
	}, count, limit, waits, waited, closed)
	return err
}

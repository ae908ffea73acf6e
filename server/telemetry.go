package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"
	promclient "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Telemetry of the store server (docs/telemetry.md): a span per request, the OData engine's spans and
// statement spans below it, exported over OTLP when the standard OTEL_EXPORTER_OTLP_*ENDPOINT variables name a
// collector; the request, engine and pool metrics at /metrics (Prometheus text format, an admin's token) and
// over OTLP likewise.

// instrumentationName names the tracer and meter of the server.
const instrumentationName = "github.com/storekit/store/server"

// metricsPath is the path of the Prometheus metrics.
const metricsPath = "/metrics"

// serviceName is the service.name of the resource unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES names
// another.
const serviceName = "storeserver"

// otlpConfig says which signals go to an OpenTelemetry collector over otlpConfig (http/protobuf), as the standard
// environment variables configure it.
type otlpConfig struct {
	// Traces: OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set and OTEL_TRACES_EXPORTER
	// is not "none".
	Traces bool
	// Metrics: OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is set and
	// OTEL_METRICS_EXPORTER is not "none".
	Metrics bool
}

// otlpFromEnv reads the standard variables: which signals are exported (none with OTEL_SDK_DISABLED=true), and
// that their protocol, when set, is http/protobuf, the only one this server sends.
func otlpFromEnv(getenv func(string) string) (otlpConfig, error) {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return otlpConfig{}, nil
	}
	endpoint := getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	o := otlpConfig{
		Traces: (endpoint || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "") &&
			getenv("OTEL_TRACES_EXPORTER") != "none",
		Metrics: (endpoint || getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != "") &&
			getenv("OTEL_METRICS_EXPORTER") != "none",
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"} {
		if p := getenv(name); p != "" && p != "http/protobuf" {
			return otlpConfig{}, fmt.Errorf("%s=%s: this server exports OTLP over http/protobuf only", name, p)
		}
	}
	return o, nil
}

// telemetry holds the server's providers and its own instruments.
type telemetry struct {
	tp       *sdktrace.TracerProvider // nil when no trace is exported
	mp       *sdkmetric.MeterProvider // nil when no metric is read
	metrics  http.Handler             // the /metrics handler; nil without Config.Metrics
	tracer   trace.Tracer             // nil when no trace is exported
	prop     propagation.TextMapPropagator
	duration metric.Float64Histogram // nil when no metric is read
}

// newTelemetry sets up the providers cfg asks for: a meter provider read by /metrics (config.Metrics) and by an
// OTLP exporter (cfg.OTLP.Metrics), a tracer provider exporting over OTLP (cfg.OTLP.Traces). The OTLP exporters
// read the rest of their configuration (headers, timeout, compression, certificates) and the SDK its own
// (OTEL_TRACES_SAMPLER, OTEL_BSP_*, OTEL_METRIC_EXPORT_INTERVAL, OTEL_RESOURCE_ATTRIBUTES, ...) from the process
// environment.
func newTelemetry(ctx context.Context, cfg config) (*telemetry, error) {
	var spans sdktrace.SpanProcessor
	if cfg.OTLP.Traces {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTLP trace exporter: %w", err)
		}
		spans = sdktrace.NewBatchSpanProcessor(exp)
	}
	var readers []sdkmetric.Reader
	if cfg.OTLP.Metrics {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTLP metric exporter: %w", err)
		}
		readers = append(readers, sdkmetric.NewPeriodicReader(exp))
	}
	return buildTelemetry(ctx, cfg.Metrics, spans, readers)
}

// buildTelemetry returns the telemetry whose spans go to spans (none when nil) and whose metrics to readers and,
// with prometheus, to the /metrics handler.
func buildTelemetry(ctx context.Context, prometheus bool, spans sdktrace.SpanProcessor, readers []sdkmetric.Reader) (*telemetry, error) {
	t := &telemetry{prop: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})}
	if !prometheus && spans == nil && len(readers) == 0 {
		return t, nil
	}
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName(serviceName)), resource.WithFromEnv(),
		resource.WithTelemetrySDK())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	if spans != nil {
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans), sdktrace.WithResource(res))
		t.tracer = t.tp.Tracer(instrumentationName)
	}
	if prometheus {
		reg := promclient.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		exp, err := otelprom.New(otelprom.WithRegisterer(reg))
		if err != nil {
			return nil, fmt.Errorf("Prometheus exporter: %w", err)
		}
		readers = append(readers, exp)
		t.metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	}
	if len(readers) > 0 {
		opts := []sdkmetric.Option{sdkmetric.WithResource(res)}
		for _, r := range readers {
			opts = append(opts, sdkmetric.WithReader(r))
		}
		t.mp = sdkmetric.NewMeterProvider(opts...)
		t.duration, err = t.mp.Meter(instrumentationName).Float64Histogram("http.server.request.duration",
			metric.WithUnit("s"), metric.WithDescription("Duration of the HTTP requests the server answered."),
			metric.WithExplicitBucketBoundaries(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10))
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}

// tracerProvider is the provider the components trace with: the no-op one when no trace is exported (never
// the global one).
func (t *telemetry) tracerProvider() trace.TracerProvider {
	if t.tp == nil {
		return tracenoop.NewTracerProvider()
	}
	return t.tp
}

// meterProvider is the provider the components record with: the no-op one when no metric is read.
func (t *telemetry) meterProvider() metric.MeterProvider {
	if t.mp == nil {
		return metricnoop.NewMeterProvider()
	}
	return t.mp
}

// shutdown exports what the providers still hold and stops them.
func (t *telemetry) shutdown(ctx context.Context) error {
	var errs []error
	if t.tp != nil {
		errs = append(errs, t.tp.Shutdown(ctx))
	}
	if t.mp != nil {
		errs = append(errs, t.mp.Shutdown(ctx))
	}
	return errors.Join(errs...)
}

// routeKey is the context key of the *string a request's route template is written to (recordRoute).
type routeKey struct{}

// start starts the span of request r, continuing the trace of its traceparent header; it returns r with the
// span and a place for its route in its context, and the span (nil when no trace is exported).
func (t *telemetry) start(r *http.Request) (*http.Request, trace.Span) {
	if t.tracer == nil && t.duration == nil {
		return r, nil
	}
	ctx := context.WithValue(r.Context(), routeKey{}, new(string))
	var span trace.Span
	if t.tracer != nil {
		ctx = t.prop.Extract(ctx, propagation.HeaderCarrier(r.Header))
		ctx, span = t.tracer.Start(ctx, spanMethod(r.Method), trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(httpMethod(r.Method)),
				semconv.URLPath(logPath(r.URL.Path)), semconv.ClientAddress(clientString(clientAddrFrom(r.Context())))))
	}
	return r.WithContext(ctx), span
}

// end records the answer of request r: the span's route, status and error code (a server error sets its status
// to Error), and the duration metric.
func (t *telemetry) end(r *http.Request, span trace.Span, status int, code string, elapsed time.Duration) {
	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, semconv.HTTPRequestMethodKey.String(httpMethod(r.Method)), semconv.HTTPResponseStatusCode(status))
	route := ""
	if p, ok := r.Context().Value(routeKey{}).(*string); ok && *p != "" {
		route = *p
		attrs = append(attrs, semconv.HTTPRoute(route))
	}
	if status >= 500 {
		if code == "" {
			code = http.StatusText(status)
		}
		attrs = append(attrs, semconv.ErrorTypeKey.String(code))
	}
	if span != nil {
		if route != "" {
			span.SetName(spanMethod(r.Method) + " " + route)
		}
		span.SetAttributes(attrs[1:]...) // the method is there since the start
		if code != "" {
			span.SetAttributes(attribute.String("odata.error_code", code))
		}
		if status >= 500 {
			span.SetStatus(codes.Error, code)
		}
		span.End()
	}
	if t.duration != nil {
		// Last: NewSet sorts attrs in place.
		t.duration.Record(r.Context(), elapsed.Seconds(), metric.WithAttributeSet(attribute.NewSet(attrs...)))
	}
}

// recordRoute is the router's middleware that writes the template of the route a request matched
// ("/orderdetails/{orderId}", "/odata/") where start left a place for it.
func recordRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := r.Context().Value(routeKey{}).(*string); ok {
			if route := mux.CurrentRoute(r); route != nil {
				*p, _ = route.GetPathTemplate()
			}
		}
		next.ServeHTTP(w, r)
	})
}

// knownMethods are the methods http.request.method takes as they are.
var knownMethods = map[string]bool{http.MethodGet: true, http.MethodHead: true, http.MethodPost: true,
	http.MethodPut: true, http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true,
	http.MethodTrace: true, http.MethodConnect: true}

// httpMethod is a method as the http.request.method attribute takes it: a known one as it is, any other (a
// client chooses it, and the attribute must not take whatever it sends) "_OTHER".
func httpMethod(m string) string {
	if knownMethods[m] {
		return m
	}
	return "_OTHER"
}

// spanMethod is the method in a span's name: "HTTP" for one that is not known.
func spanMethod(m string) string {
	if knownMethods[m] {
		return m
	}
	return "HTTP"
}

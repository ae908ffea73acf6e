package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/storekit/store/odata"
)

// newTelemetryServer is newTestServer with telemetry: spans to the returned recorder, metrics at /metrics.
func newTelemetryServer(t *testing.T) (*testServer, *tracetest.SpanRecorder) {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	tel, err := buildTelemetry(context.Background(), true, spans, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.shutdown(context.Background()) })
	s := &testServer{log: &syncBuffer{}, auth: newFakeAuth(), odata: &fakeOData{}, gate: &drainGate{}}
	s.h, err = newHandler(newLogger(s.log, "json"), &components{OData: s.odata, Storefront: fakeStorefront, Auth: s.auth},
		s.gate, config{RequestBudget: odata.DefaultTimeBudget}, tel)
	if err != nil {
		t.Fatal(err)
	}
	return s, spans
}

// serverSpan is what the tests compare of a request's span.
type serverSpan struct {
	Name   string
	Kind   trace.SpanKind
	Attrs  map[string]string
	Status codes.Code
}

func TestTelemetry_RequestSpan(t *testing.T) {
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	s, spans := newTelemetryServer(t)
	for _, tc := range []struct {
		name, method, target string
		header               []string
		want                 serverSpan
	}{
		{"storefront route", "GET", "/orderdetails/o-42", []string{"Authorization: Bearer " + customerToken},
			serverSpan{"GET /orderdetails/{orderId}", trace.SpanKindServer, map[string]string{"http.request.method": "GET",
				"http.route": "/orderdetails/{orderId}", "http.response.status_code": "200", "url.path": "/orderdetails/o-42",
				"client.address": "192.0.2.1"}, codes.Unset}},
		{"no token", "GET", "/cart", nil,
			serverSpan{"GET /cart", trace.SpanKindServer, map[string]string{"http.request.method": "GET",
				"http.route": "/cart", "http.response.status_code": "401", "url.path": "/cart", "client.address": "192.0.2.1",
				"odata.error_code": "Unauthorized"}, codes.Unset}},
		{"server error", "GET", "/odata/panic", []string{"Authorization: Bearer " + adminToken},
			serverSpan{"GET /odata/", trace.SpanKindServer, map[string]string{"http.request.method": "GET",
				"http.route": "/odata/", "http.response.status_code": "500", "url.path": "/odata/panic",
				"client.address": "192.0.2.1", "odata.error_code": "InternalError", "error.type": "InternalError"}, codes.Error}},
		{"secret path segment", "GET", "/newsletter/subscriptionactivation/SECRETTOKEN/true", nil,
			serverSpan{"GET /newsletter/subscriptionactivation/{token}/{active}", trace.SpanKindServer, map[string]string{
				"http.request.method": "GET", "http.route": "/newsletter/subscriptionactivation/{token}/{active}",
				"http.response.status_code": "200", "url.path": "/newsletter/subscriptionactivation/REDACTED/true",
				"client.address": "192.0.2.1"}, codes.Unset}},
		{"no route", "BREW", "/nowhere", nil,
			serverSpan{"HTTP", trace.SpanKindServer, map[string]string{"http.request.method": "_OTHER",
				"http.response.status_code": "401", "url.path": "/nowhere", "client.address": "192.0.2.1",
				"odata.error_code": "Unauthorized"}, codes.Unset}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans.Reset()
			header := append([]string{"traceparent: 00-" + traceID + "-" + parentID + "-01"}, tc.header...)
			s.do(tc.method, tc.target, nil, header...)
			ended := spans.Ended()
			if len(ended) != 1 {
				t.Fatalf("%s %s: %d spans, want 1", tc.method, tc.target, len(ended))
			}
			span := ended[0]
			attrs := map[string]string{}
			for _, kv := range span.Attributes() {
				attrs[string(kv.Key)] = kv.Value.Emit()
			}
			got := serverSpan{span.Name(), span.SpanKind(), attrs, span.Status().Code}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s %s: span (-want +got):\n%s", tc.method, tc.target, diff)
			}
			if span.SpanContext().TraceID().String() != traceID || span.Parent().SpanID().String() != parentID {
				t.Errorf("%s %s: span in trace %s below %s, want the traceparent's %s below %s", tc.method, tc.target,
					span.SpanContext().TraceID(), span.Parent().SpanID(), traceID, parentID)
			}
			var line map[string]any
			for _, l := range s.logLines(t) {
				if l["msg"] == "request" {
					line = l
				}
			}
			gotIDs := []any{line["trace_id"], line["span_id"], line["request_id"] != nil}
			wantIDs := []any{traceID, span.SpanContext().SpanID().String(), true}
			if diff := cmp.Diff(wantIDs, gotIDs); diff != "" {
				t.Errorf("%s %s: ids of the log line (-want +got):\n%s", tc.method, tc.target, diff)
			}
		})
	}
}

// TestTelemetry_RequestSpanParent: the OData engine (components.OData) sees the request's span in its context.
func TestTelemetry_RequestSpanParent(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tel, err := buildTelemetry(context.Background(), false, spans, nil)
	if err != nil {
		t.Fatal(err)
	}
	var inner trace.SpanContext
	od := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner = trace.SpanContextFromContext(r.Context())
		writeJSON(w, http.StatusOK, map[string]any{})
	})
	h, err := newHandler(newLogger(&syncBuffer{}, "json"), &components{OData: od, Auth: newFakeAuth()}, &drainGate{},
		config{RequestBudget: odata.DefaultTimeBudget}, tel)
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{h: h}
	s.do("GET", "/odata/Product", nil, "Authorization: Bearer "+adminToken)
	ended := spans.Ended()
	if len(ended) != 1 || !inner.IsValid() || inner.SpanID() != ended[0].SpanContext().SpanID() {
		t.Errorf("the handler's span context %v, want the request span's (%d ended)", inner, len(ended))
	}
	if _, ok := any(tel.tracerProvider()).(*sdktrace.TracerProvider); !ok {
		t.Errorf("tracerProvider() = %T, want the SDK's", tel.tracerProvider())
	}
}

func TestTelemetry_Metrics(t *testing.T) {
	s, _ := newTelemetryServer(t)
	s.do("GET", "/cart", nil, "Authorization: Bearer "+customerToken)
	s.do("GET", "/cart", nil)
	for _, tc := range []struct {
		name   string
		header []string
		want   int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"customer", []string{"Authorization: Bearer " + customerToken}, http.StatusForbidden},
		{"admin", []string{"Authorization: Bearer " + adminToken}, http.StatusOK},
	} {
		if got := s.do("GET", metricsPath, nil, tc.header...).Code; got != tc.want {
			t.Errorf("GET /metrics with %s = %d, want %d", tc.name, got, tc.want)
		}
	}
	rec := s.do("GET", metricsPath, nil, "Authorization: Bearer "+adminToken)
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type = %q, want the Prometheus text format", ct)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatalf("/metrics does not parse as Prometheus text: %v\n%s", err, rec.Body)
	}
	duration := families["http_server_request_duration_seconds"]
	if duration == nil || duration.GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("http_server_request_duration_seconds = %v, want a histogram", duration)
	}
	got := map[string]uint64{}
	for _, m := range duration.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["http_route"] == "/cart" {
			got[labels["http_request_method"]+" "+labels["http_response_status_code"]] = m.GetHistogram().GetSampleCount()
		}
	}
	if diff := cmp.Diff(map[string]uint64{"GET 200": 1, "GET 401": 1}, got); diff != "" {
		t.Errorf("requests of /cart by method and status (-want +got):\n%s", diff)
	}
	if families["go_goroutines"] == nil {
		t.Error("no go_goroutines: the Go runtime's metrics are missing")
	}
}

func TestOTLPFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want otlpConfig
	}{
		{"none", nil, otlpConfig{}},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, otlpConfig{Traces: true, Metrics: true}},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, otlpConfig{Traces: true}},
		{"metrics off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_METRICS_EXPORTER": "none"}, otlpConfig{Traces: true}},
		{"traces off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, otlpConfig{Metrics: true}},
		{"disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "TRUE"}, otlpConfig{}},
	} {
		got, err := otlpFromEnv(mapEnv(tc.env))
		if err != nil || got != tc.want {
			t.Errorf("otlpFromEnv(%v) = %+v, %v; want %+v", tc.env, got, err, tc.want)
		}
	}
}

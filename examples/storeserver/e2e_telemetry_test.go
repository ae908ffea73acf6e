package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	collmetric "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	colltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/storekit/store/odata/dbtest"
)

// TestStore_Metrics: /metrics answers an admin in the Prometheus text format, with the requests of the OData
// engine by set, method and status, their statements and the connection pool.
func TestStore_Metrics(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false")
		admin := s.admin(t)
		admin.must(t, http.StatusOK, "GET", "/odata/Product?$top=5", nil)
		admin.must(t, http.StatusNotFound, "GET", "/odata/Product('"+unknownID+"')", nil)
		s.client("").must(t, http.StatusUnauthorized, "GET", "/metrics", nil)

		r := admin.must(t, http.StatusOK, "GET", "/metrics", nil)
		parser := expfmt.NewTextParser(model.LegacyValidation)
		families, err := parser.TextToMetricFamilies(strings.NewReader(string(r.body)))
		if err != nil {
			t.Fatalf("/metrics does not parse as Prometheus text: %v", err)
		}
		got := map[string]string{}
		for _, m := range families["odata_request_duration_seconds"].GetMetric() {
			l := labels(m)
			if l["odata_entity_set"] == "Product" {
				got[l["http_request_method"]+" "+l["http_response_status_code"]+" "+l["odata_request_kind"]+" "+l["odata_error_code"]] =
					strings.Repeat("x", int(m.GetHistogram().GetSampleCount()))
			}
		}
		want := map[string]string{"GET 200 collection ": "x", "GET 404 entity NotFound": "x"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("odata_request_duration_seconds of Product (-want +got):\n%s", diff)
		}
		statements := 0.0
		for _, m := range families["odata_request_sql_statements"].GetMetric() {
			statements += m.GetHistogram().GetSampleSum()
		}
		if statements < 2 {
			t.Errorf("odata_request_sql_statements sum to %g, want a statement per request at least", statements)
		}
		for name, typ := range map[string]dto.MetricType{
			"db_client_connection_count": dto.MetricType_GAUGE, "db_client_connection_max": dto.MetricType_GAUGE,
			"db_client_connection_waits_total": dto.MetricType_COUNTER, "db_client_connection_closed_total": dto.MetricType_COUNTER,
			"db_client_connection_wait_duration_seconds_total": dto.MetricType_COUNTER,
			"http_server_request_duration_seconds":             dto.MetricType_HISTOGRAM,
		} {
			if f := families[name]; f == nil || f.GetType() != typ {
				t.Errorf("metric %s = %v, want a %s", name, f, typ)
			}
		}
	})
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// collector is an OTLP/HTTP collector that keeps what it receives.
type collector struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	metrics []string // the names of the metrics received
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch r.URL.Path {
	case "/v1/traces":
		var req colltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				c.spans = append(c.spans, ss.GetSpans()...)
			}
		}
	case "/v1/metrics":
		var req collmetric.ExportMetricsServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rm := range req.GetResourceMetrics() {
			for _, sm := range rm.GetScopeMetrics() {
				for _, m := range sm.GetMetrics() {
					c.metrics = append(c.metrics, m.GetName())
				}
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		v := kv.GetValue()
		switch {
		case v.GetStringValue() != "":
			out[kv.GetKey()] = v.GetStringValue()
		default:
			out[kv.GetKey()] = strings.TrimSpace(strings.TrimPrefix(v.String(), "int_value:"))
		}
	}
	return out
}

// TestStore_OTLP: with OTEL_EXPORTER_OTLP_ENDPOINT set, the program sends its traces and metrics to the
// collector there: the server's span of a request, the engine's below it and a span per SQL statement below
// that, in the trace the request's traceparent names.
func TestStore_OTLP(t *testing.T) {
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}
	for k, v := range env {
		t.Setenv(k, v) // the exporters read their settings from the process environment
	}
	s := start(t, dbtest.SQLite(t), env, "-demo=false")
	admin := s.admin(t)
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	admin.must(t, http.StatusOK, "GET", "/odata/Country('US')", nil, "traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	s.stop() // exports what the providers hold

	c.mu.Lock()
	defer c.mu.Unlock()
	var server, engine *tracepb.Span
	for _, sp := range c.spans {
		if strings.EqualFold(hexID(sp.GetTraceId()), traceID) {
			switch sp.GetName() {
			case "GET /odata/":
				server = sp
			case "GET Country":
				engine = sp
			}
		}
	}
	if server == nil || engine == nil {
		t.Fatalf("spans of the trace: server %v, engine %v; want both", server, engine)
	}
	if got := hexID(engine.GetParentSpanId()); got != hexID(server.GetSpanId()) {
		t.Errorf("engine span's parent %s, want the server span %s", got, hexID(server.GetSpanId()))
	}
	want := map[string]string{"http.request.method": "GET", "http.response.status_code": "200",
		"odata.entity_set": "Country", "odata.request_kind": "entity"}
	if diff := cmp.Diff(want, attrs(engine.GetAttributes())); diff != "" {
		t.Errorf("engine span attributes (-want +got):\n%s", diff)
	}
	statements := 0
	for _, sp := range c.spans {
		if hexID(sp.GetParentSpanId()) != hexID(engine.GetSpanId()) {
			continue
		}
		statements++
		a := attrs(sp.GetAttributes())
		if sp.GetKind() != tracepb.Span_SPAN_KIND_CLIENT || a["db.system.name"] != "sqlite" || a["db.operation.name"] != "SELECT" ||
			!strings.HasPrefix(a["db.query.text"], "SELECT") || strings.Contains(a["db.query.text"], "'US'") {
			t.Errorf("statement span %s: kind %s, attributes %v", sp.GetName(), sp.GetKind(), a)
		}
	}
	if statements == 0 {
		t.Error("no statement span below the engine's span")
	}
	for _, name := range []string{"odata.request.duration", "http.server.request.duration", "db.client.connection.count"} {
		found := false
		for _, m := range c.metrics {
			found = found || m == name
		}
		if !found {
			t.Errorf("metric %s not exported (got %v)", name, c.metrics)
		}
	}
}

func hexID(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

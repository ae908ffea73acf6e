package odata_test

import (
	"context"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// BenchmarkService_Get100 measures a whole GET of 100 books through the handler on SQLite.
func BenchmarkService_Get100(b *testing.B) {
	f := newBenchFixture(b)
	insertBooks(b, f, 100)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		f.svc.ServeHTTP(w, httptest.NewRequest("GET", "http://example.com/odata/Book", nil))
		if w.Code != 200 {
			b.Fatalf("GET = %d %s", w.Code, w.Body)
		}
	}
}

// BenchmarkService_Select100 measures a whole GET of 100 books with three of their properties through the
// handler on SQLite. Book's table has the row version (odata/schema.Create), so the ETag needs one column beside
// the selection and the key, not every property.
func BenchmarkService_Select100(b *testing.B) {
	f := newBenchFixture(b)
	insertBooks(b, f, 100)
	benchGet(b, f, "http://example.com/odata/Book?$select=Id,Title,Price")
}

// BenchmarkService_Expand50 measures a whole GET of 50 books, each with its two authors, through the handler on
// SQLite.
func BenchmarkService_Expand50(b *testing.B) {
	f := newBenchFixture(b)
	insertBooks(b, f, 100)
	f.exec(`INSERT INTO author (id, name, email) VALUES ('a1', 'Ada', 'ada@example.com'), ('a2', 'Brian', NULL)`)
	f.exec(`INSERT INTO book_author (book_id, author_id) SELECT id, 'a1' FROM book UNION ALL SELECT id, 'a2' FROM book`)
	benchGet(b, f, "http://example.com/odata/Book?$top=50&$expand=Authors")
}

// benchGet measures GET url through the handler.
func benchGet(b *testing.B, f *fixture, url string) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		f.svc.ServeHTTP(w, httptest.NewRequest("GET", url, nil))
		if w.Code != 200 {
			b.Fatalf("GET %s = %d %s", url, w.Code, w.Body)
		}
	}
}

// BenchmarkService_Patch measures a PATCH of one field through the handler on SQLite: the transaction, the
// locked read, hooks, the update and the re-read.
func BenchmarkService_Patch(b *testing.B) {
	f := newBenchFixture(b)
	insertBooks(b, f, 10)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("PATCH", "http://example.com/odata/Book('k0001')", strings.NewReader(`{"Pages":`+strconv.Itoa(i%1000)+`}`))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		f.svc.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("PATCH = %d %s", w.Code, w.Body)
		}
	}
}

// Benchmarks run on SQLite only: they measure the code path, and a SQLite file has no server or network in it
// to blur that; the tests run the same code on both databases.
func newBenchFixture(b *testing.B) *fixture { return newFixtureTB(b, dbtest.SQLite(b)) }

// BenchmarkService_GetByKey measures the most frequent request, one entity by key, through the handler on SQLite.
func BenchmarkService_GetByKey(b *testing.B) {
	f := newBenchFixture(b)
	insertBooks(b, f, 100)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		f.svc.ServeHTTP(w, httptest.NewRequest("GET", "http://example.com/odata/Book('k0042')", nil))
		if w.Code != 200 {
			b.Fatalf("GET = %d %s", w.Code, w.Body)
		}
	}
}

// BenchmarkService_Telemetry measures the two most frequent reads, one entity by key and a page of 100, with
// telemetry off (no providers in Config and no global ones: what every service without telemetry runs) and
// on (an SDK tracer provider sampling every request, its spans batched to an exporter that drops them, and an
// SDK meter provider), in the same run:
//
//	go test ./odata -run '^$' -bench 'Service_Telemetry' -benchmem -count 5
func BenchmarkService_Telemetry(b *testing.B) {
	for _, on := range []bool{false, true} {
		var telemetry func(cfg *odata.Config)
		if on {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			b.Cleanup(func() {
				_ = tp.Shutdown(context.Background())
				_ = mp.Shutdown(context.Background())
			})
			telemetry = func(cfg *odata.Config) { cfg.TracerProvider, cfg.MeterProvider = tp, mp }
		}
		f := newFixtureWith(b, dbtest.SQLite(b), telemetry)
		insertBooks(b, f, 100)
		state := map[bool]string{false: "off", true: "on"}[on]
		for _, read := range []struct{ name, path string }{
			{"ByKey", "/odata/Book('k0042')"},
			{"Page100", "/odata/Book"},
		} {
			b.Run(read.name+"/"+state, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					w := httptest.NewRecorder()
					f.svc.ServeHTTP(w, httptest.NewRequest("GET", "http://example.com"+read.path, nil))
					if w.Code != 200 {
						b.Fatalf("GET %s = %d %s", read.path, w.Code, w.Body)
					}
				}
			})
		}
	}
}

// BenchmarkService_Redact measures a read by key, a page of 100 and a PATCH without and with a Redact on Book
// (two properties, the same for every request), in the same run: the cost of redaction is a call of Redact and
// the resolution of its names per planned read and per step of a write, and a plan per list of names.
//
//	go test ./odata -run '^$' -bench 'Service_Redact' -benchmem -count 5
func BenchmarkService_Redact(b *testing.B) {
	for _, on := range []bool{false, true} {
		var redact func(cfg *odata.Config)
		if on {
			redact = func(cfg *odata.Config) {
				book := cfg.Sets["Book"]
				book.Redact = func(context.Context) ([]string, error) { return []string{"Isbn", "Price"}, nil }
				cfg.Sets["Book"] = book
			}
		}
		f := newFixtureWith(b, dbtest.SQLite(b), redact)
		insertBooks(b, f, 100)
		state := map[bool]string{false: "off", true: "on"}[on]
		for _, c := range []struct{ name, method, path, body string }{
			{"ByKey", "GET", "/odata/Book('k0042')", ""},
			{"Page100", "GET", "/odata/Book", ""},
			{"Patch", "PATCH", "/odata/Book('k0001')", `{"Pages":7}`},
		} {
			b.Run(c.name+"/"+state, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					req := httptest.NewRequest(c.method, "http://example.com"+c.path, strings.NewReader(c.body))
					if c.body != "" {
						req.Header.Set("Content-Type", "application/json")
					}
					w := httptest.NewRecorder()
					f.svc.ServeHTTP(w, req)
					if w.Code != 200 {
						b.Fatalf("%s %s = %d %s", c.method, c.path, w.Code, w.Body)
					}
				}
			})
		}
	}
}

// BenchmarkService_Search measures $search on 20,000 documents (SQLite), answered from the full-text index and,
// in the same run, by the scan of a table without it: a word in one document of 16 with the count and a page
// of 20, two words, and a rare word.
//
//	go test ./odata -run '^$' -bench 'Service_Search' -benchmem -count 5
func BenchmarkService_Search(b *testing.B) {
	for _, index := range []bool{true, false} {
		db := dbtest.SQLite(b)
		m := createSearchSchema(b, db, !index)
		if _, err := db.Exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999)
			INSERT INTO doc (id, title, body, code, rank)
			SELECT printf('d%05d', i), 'word' || i || ' ' || (CASE i % 16 WHEN 0 THEN 'lamp' WHEN 1 THEN 'oak' ELSE 'desk' END),
				(CASE i % 5 WHEN 0 THEN 'pine oak table' ELSE 'stone chair' END), 'C-' || i, i % 6 FROM n`); err != nil {
			b.Fatal(err)
		}
		svc := searchService(b, db, m, odata.SetOptions{}, io.Discard)
		kind := map[bool]string{true: "index", false: "scan"}[index]
		for _, q := range []struct{ name, query string }{
			{"Word", "$search=lamp&$count=true&$top=20"},
			{"TwoWords", "$search=oak%20pine&$count=true&$top=20"},
			{"Rare", "$search=word4242"},
		} {
			b.Run(q.name+"/"+kind, func(b *testing.B) {
				b.ReportAllocs()
				url := "http://example.com/odata/Doc?" + q.query
				for b.Loop() {
					w := httptest.NewRecorder()
					svc.ServeHTTP(w, httptest.NewRequest("GET", url, nil))
					if w.Code != 200 {
						b.Fatalf("GET %s = %d %s", url, w.Code, w.Body)
					}
				}
			})
		}
	}
}

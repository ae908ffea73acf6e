package odata_test

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

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

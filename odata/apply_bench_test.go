package odata_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/shopspring/decimal"
)

// seedGroupedStore fills the library of f with 100,000 books spread over 200 publishers (SQL-generated rows,
// seconds rather than minutes).
func seedGroupedStore(b *testing.B, f *fixture) {
	b.Helper()
	f.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
		INSERT INTO publisher (id, name, address_street, address_city, address_zip, founded)
		SELECT 'p' || i, 'Publisher ' || i, '', '', '', '2000-01-01' FROM n`)
	f.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
		INSERT INTO book (id, title, price, pages, edition, flag, level, in_print, genre, formats, size_width, size_height, publisher_id)
		SELECT 'b' || i, 'Book ' || i, 10000 + i % 50000, 100 + i % 900, 1, 0, 0, 1, 1, 2, 10, 20, 'p' || (1 + i % 200) FROM n`)
}

// BenchmarkApply_GroupBy measures a whole GET of a grouped aggregate over 100,000 books (200 groups through a
// navigation) through the handler on SQLite; BenchmarkApply_GroupByHandWritten the same SQL and answer written by
// hand with database/sql and encoding/json.
func BenchmarkApply_GroupBy(b *testing.B) {
	f := newBenchFixture(b)
	seedGroupedStore(b, f)
	benchGet(b, f, "http://example.com/odata/Book?$apply=groupby((Publisher/Name),aggregate(Price%20with%20sum%20as%20Total,$count%20as%20N))")
}

func BenchmarkApply_GroupByHandWritten(b *testing.B) {
	f := newBenchFixture(b)
	seedGroupedStore(b, f)
	type group struct {
		Publisher struct{ Name *string }
		Total     decimal.Decimal
		N         int64
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rows, err := f.db.QueryContext(r.Context(), `SELECT p.name, SUM(b.price), COUNT(*) FROM book b
			LEFT JOIN publisher p ON p.id = b.publisher_id GROUP BY p.name ORDER BY p.name`)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer rows.Close()
		var out []group
		for rows.Next() {
			var g group
			var total int64
			if err := rows.Scan(&g.Publisher.Name, &total, &g.N); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			g.Total = decimal.New(total, -4)
			out = append(out, g)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"@odata.context": "http://example.com/odata/$metadata#Book(Publisher(Name),Total,N)", "value": out})
	})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, httptest.NewRequest("GET", "http://example.com/odata/Book", nil))
		if w.Code != 200 {
			b.Fatalf("GET = %d %s", w.Code, w.Body)
		}
	}
}

// BenchmarkApply_GroupByNest measures a whole GET of the three dearest books of each of the 200 publishers of
// 100,000 books (a page of 100 groups, each collection a correlated subquery) through the handler on SQLite.
func BenchmarkApply_GroupByNest(b *testing.B) {
	f := newBenchFixture(b)
	seedGroupedStore(b, f)
	benchGet(b, f, "http://example.com/odata/Book?$apply=groupby((Publisher/Name),nest(orderby(Price%20desc)/top(3)/groupby((Title,Price))%20as%20Top))")
}

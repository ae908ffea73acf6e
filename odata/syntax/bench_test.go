package syntax

import "testing"

const (
	shortFilter = "Category eq 'electronics' or Price gt 100"
	longFilter  = "Category eq 'electronics' and Price gt 100 and Price le 2000.50 and contains(tolower(Name),'phone') and " +
		"not startswith(Sku,'X-') and Published eq true and ProductType eq Store.ProductType'SimpleProduct' and " +
		"StockQuantity add 5 gt MinStockQuantity mul 2 and Categories/any(c:c/CategoryId eq '5f1c2b3a4d5e6f7a8b9c0d1e') and " +
		"TierPrices/all(t:t/Price ge 0) and year(CreatedOnUtc) ge 2020 and CreatedOnUtc lt 2030-01-01T00:00:00Z and " +
		"Id in ('a','b','c','d') and length(Name) gt 3 and round(Weight) eq 2 and (Width gt 1 or Height gt 1) and " +
		"Manufacturer/Name ne null and substring(Name,1,2) eq 'ho' and MarkAsNew eq false and DisplayOrder mod 2 eq 0"
	typicalQuery = "$filter=Category%20eq%20'electronics'%20and%20Price%20gt%20100&$orderby=Price%20desc,Name&$select=Id,Name,Price&$expand=Categories($select=CategoryId)&$top=20&$skip=40&$count=true"
)

func BenchmarkParseFilter(b *testing.B) {
	for _, bc := range []struct{ name, in string }{{"short", shortFilter}, {"long", longFilter}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := ParseFilter(bc.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseQuery(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseQuery(typicalQuery); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParsePath(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"key", "/Book('k0042')"},
		{"navigation", "/Customers('O''Neil')/Orders(1)/Items"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := ParsePath(bc.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

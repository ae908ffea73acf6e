package storefront_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/sqlite"
	"github.com/storekit/store/storefront"
)

// serveMux adapts an http.ServeMux to storefront.Router, acting for one customer as the server's authentication
// would after checking a bearer token.
type serveMux struct {
	mux               *http.ServeMux
	customerID, email string
}

func (m serveMux) Handle(method, pattern string, h http.Handler) {
	as := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(storefront.WithCustomer(r.Context(), m.customerID, m.email)))
	})
	if strings.HasSuffix(pattern, "/") {
		m.mux.Handle(method+" "+pattern+"{$}", as)
		pattern = strings.TrimSuffix(pattern, "/")
	}
	m.mux.Handle(method+" "+pattern, as)
}

// HandlePublic serves a route that needs no customer as it is.
func (m serveMux) HandlePublic(method, pattern string, h http.Handler) {
	m.mux.Handle(method+" "+pattern, h)
}

// Example serves the storefront on a new SQLite database and puts a product in a customer's cart.
//
// SQLite only: an Example is documentation that runs with nothing beside it (no database server) and prints
// fixed output; the tests of the package run the same code on both databases.
func Example() {
	dir, err := os.MkdirTemp("", "storefront")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(filepath.Join(dir, "store.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := migrate.Up(ctx, db, entities.Migrations, storefront.Migrations); err != nil {
		log.Fatal(err)
	}
	// A customer and a product at 19.99 (money is stored x 10^4 on SQLite).
	if _, err := db.Exec(`INSERT INTO customer (id, email) VALUES ('c1', 'ann@example.com');
INSERT INTO product (id, name, se_name, price) VALUES ('p1', 'Fountain Pen', 'fountain-pen', 199900);`); err != nil {
		log.Fatal(err)
	}

	store := storefront.New(storefront.Config{DB: db, CountriesEnabled: true})
	mux := http.NewServeMux()
	store.Register(serveMux{mux: mux, customerID: "c1", email: "ann@example.com"})

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("POST", "/addproducttocart/catalog/p1/1?quantity=3", nil))
	var added struct {
		Message string `json:"message"`
		Count   string `json:"updatetopcartsectionhtml"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &added); err != nil {
		log.Fatal(err)
	}
	fmt.Println(rec.Code, added.Message, "("+added.Count+")")

	rec = httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/cart", nil))
	var cart struct {
		Items []struct {
			ProductName string
			Quantity    int
			UnitPrice   string
		}
		SubTotal      string
		SubTotalValue json.Number
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &cart); err != nil {
		log.Fatal(err)
	}
	for _, it := range cart.Items {
		fmt.Printf("%d x %s at %s\n", it.Quantity, it.ProductName, it.UnitPrice)
	}
	fmt.Println("subtotal:", cart.SubTotal, cart.SubTotalValue)
	// Output:
	// 200 The product has been added to your shopping cart (3)
	// 3 x Fountain Pen at $19.99
	// subtotal: $59.97 59.97
}

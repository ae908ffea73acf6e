package main

import (
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// TestStore_ReadReplica runs the store on a primary with a streaming replica (-db-replicas; .ci/pg-replica makes
// them, STORE_TEST_PG_PRIMARY and STORE_TEST_PG_REPLICA name them): an admin who creates products reads each at
// once through the position cookie, and a customer's checkout, on the primary, answers with the cookie too.
func TestStore_ReadReplica(t *testing.T) {
	primary, replica := os.Getenv("STORE_TEST_PG_PRIMARY"), os.Getenv("STORE_TEST_PG_REPLICA")
	if primary == "" || replica == "" {
		t.Skip("STORE_TEST_PG_PRIMARY and STORE_TEST_PG_REPLICA are not set (eval $(.ci/pg-replica) sets them)")
	}
	admin, err := sql.Open("pgx", primary)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := fmt.Sprintf("storereplica_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Skipf("cannot create a database on the primary: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	withDB := func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + name
		return u.String()
	}
	s := start(t, &dbtest.DB{URL: withDB(primary)}, nil, "-demo=false", "-db-replicas", withDB(replica))
	a := s.admin(t)

	// position returns the value of the position cookie an answer sets, failing the test without one.
	position := func(r *response, what string) string {
		for _, c := range (&http.Response{Header: r.header}).Cookies() {
			if c.Name == odata.PositionCookie && c.Value != "" {
				return c.Value
			}
		}
		t.Fatalf("%s: no %s cookie in the answer %v", what, odata.PositionCookie, r.header)
		return ""
	}
	var product string
	for i := 0; i < 20; i++ {
		r := a.must(t, http.StatusCreated, "POST", "/odata/Product", map[string]any{"Name": fmt.Sprintf("Pen %d", i),
			"Price": 2, "ManageInventoryMethod": "ManageStock", "StockQuantity": 10})
		product = str(r.json(t), "Id")
		cookie := odata.PositionCookie + "=" + position(r, "POST /odata/Product")
		if got := a.send(t, request{method: "GET", path: "/odata/Product('" + product + "')",
			header: []string{"Cookie", cookie}}); got.status != http.StatusOK {
			t.Fatalf("GET of the product just created = %s, want 200", got)
		}
	}

	ann := newCustomer(t, s, a, "ann@example.com")
	ann.must(t, http.StatusOK, "POST", "/addproducttocart/catalog/"+product+"/1?quantity=2", nil)
	ann.must(t, http.StatusOK, "POST", "/checkout/SaveShipping/", addressForm("ShippingNewAddress"))
	ann.must(t, http.StatusOK, "POST", "/checkout/SaveShippingMethod/", url.Values{"shippingoption": {"Ground___Shipping.FixedRate"}})
	ann.must(t, http.StatusOK, "POST", "/checkout/SavePaymentMethod/", url.Values{"paymentmethod": {"Payments.CheckMoneyOrder"}})
	ann.must(t, http.StatusOK, "POST", "/checkout/SavePaymentInfo/", url.Values{})
	r := ann.must(t, http.StatusOK, "POST", "/checkout/ConfirmOrder/", url.Values{})
	order := str(r.json(t), "OrderId")
	// The checkout's position, handed to the admin, makes the new order readable at once.
	cookie := odata.PositionCookie + "=" + position(r, "ConfirmOrder")
	if got := a.send(t, request{method: "GET", path: "/odata/Order('" + order + "')",
		header: []string{"Cookie", cookie}}); got.status != http.StatusOK {
		t.Errorf("GET /odata/Order('%s') = %s, want 200", order, got)
	}
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// generatedPassword returns the admin password the program logged on first start, "" when it logged none.
func generatedPassword(t testing.TB, log string) string {
	t.Helper()
	pw := ""
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line %q is not JSON: %v", sc.Text(), err)
		}
		if p, ok := line["password"].(string); ok {
			if pw != "" {
				t.Errorf("the log shows a generated password twice")
			}
			pw = p
		}
	}
	return pw
}

// TestStore_Restart stops the program and starts it again on the same database: every row is kept, nothing is
// seeded again, and passwords and tokens still work.
func TestStore_Restart(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		noPassword := map[string]string{"STORE_ADMIN_PASSWORD": ""}
		first := start(t, db, noPassword)
		pw := generatedPassword(t, first.stderr.String())
		if len(pw) < 16 {
			t.Fatalf("first start: generated admin password %q, want one in the log", pw)
		}
		admin := first.client(first.login(t, adminEmail, pw))
		m := admin.must(t, http.StatusCreated, "POST", "/odata/Manufacturer", map[string]any{"Name": "Kept"}).json(t)
		ann := newCustomer(t, first, admin, "ann@example.com")
		demo := admin.must(t, http.StatusOK, "GET", "/odata/Product", nil).json(t)["value"].([]any)
		if len(demo) == 0 {
			t.Fatalf("no demo catalog on first start")
		}
		gone := str(demo[0].(map[string]any), "Id")
		admin.must(t, http.StatusOK, "DELETE", "/odata/Product('"+gone+"')", nil)
		ann.must(t, http.StatusOK, "POST", "/addproducttocart/catalog/"+str(demo[1].(map[string]any), "Id")+"/2", nil)

		tables := []string{"product", "category", "manufacturer", "picture", "customer", "customer_role", "country",
			"state_province", "shipping_method", "payment_method", "shopping_cart_item", "access_token", "customer_role_mapping"}
		counts := func(s *storeServer) map[string]int {
			out := map[string]int{}
			for _, table := range tables {
				out[table] = s.count(t, `SELECT 1 FROM `+table)
			}
			return out
		}
		before := counts(first)
		first.stop()

		second := start(t, db, noPassword)
		if got := generatedPassword(t, second.stderr.String()); got != "" {
			t.Errorf("second start logged a generated password %q, want none", got)
		}
		if !strings.Contains(second.stderr.String(), `"migrations_applied":0`) {
			t.Errorf("second start applied migrations again:\n%s", second.stderr)
		}
		if diff := cmp.Diff(before, counts(second)); diff != "" {
			t.Errorf("rows after a restart (-before +after):\n%s", diff)
		}
		ann.s, admin.s = second, second // the same tokens, on the new process
		got := admin.must(t, http.StatusOK, "GET", "/odata/Manufacturer('"+str(m, "Id")+"')", nil).json(t)
		delete(m, "@odata.context") // names the port
		delete(got, "@odata.context")
		if diff := cmp.Diff(m, got); diff != "" {
			t.Errorf("manufacturer after a restart (-before +after):\n%s", diff)
		}
		admin.fails(t, http.StatusNotFound, "NotFound", "GET", "/odata/Product('"+gone+"')", nil)
		if n := len(ann.must(t, http.StatusOK, "GET", "/wishlist", nil).json(t)["Items"].([]any)); n != 1 {
			t.Errorf("wishlist after a restart: %d lines, want 1", n)
		}
		second.login(t, adminEmail, pw)
		second.login(t, "ann@example.com", "customer-pw-1")
	})
}

// TestStore_ShopFlow is a whole shop day over HTTP only: the admin builds a catalog and a customer through
// /odata, the customer shops and checks out through the storefront, and the admin moves the order to Complete.
func TestStore_ShopFlow(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil)
		admin := s.admin(t)

		category := str(admin.must(t, http.StatusCreated, "POST", "/odata/Category", map[string]any{"Name": "Writing"}).json(t), "Id")
		maker := str(admin.must(t, http.StatusCreated, "POST", "/odata/Manufacturer", map[string]any{"Name": "Penworks"}).json(t), "Id")
		p := admin.must(t, http.StatusCreated, "POST", "/odata/Product", map[string]any{"Name": "Fountain Pen", "Sku": "FP-1",
			"Price": 19.99, "ManageInventoryMethod": "ManageStock", "StockQuantity": 10}).json(t)
		product := str(p, "Id")
		pURL := "/odata/Product('" + product + "')"
		admin.must(t, http.StatusOK, "POST", pURL+"/CreateProductCategory", map[string]any{"CategoryId": category})
		admin.must(t, http.StatusOK, "POST", pURL+"/CreateProductCollection", map[string]any{"CollectionId": maker, "IsFeaturedProduct": true})
		admin.must(t, http.StatusCreated, "POST", "/odata/Customer", map[string]any{"Email": "ann@example.com", "FirstName": "Ann", "LastName": "Lee"})
		admin.must(t, http.StatusOK, "POST", "/odata/Customer('ann@example.com')/SetPassword", map[string]any{"password": "ann-password"})

		ann := s.client(s.login(t, "ann@example.com", "ann-password"))
		r := ann.must(t, http.StatusOK, "POST", "/addproducttocart/details/"+product+"/1",
			url.Values{"addtocart_" + product + ".EnteredQuantity": {"2"}}).json(t)
		if r["success"] != true || str(r, "updatetopcartsectionhtml") != "2" {
			t.Errorf("add 2 from the details page = %v", r)
		}
		ann.must(t, http.StatusOK, "POST", "/addproducttocart/catalog/"+product+"/1?quantity=1", nil)
		ann.must(t, http.StatusOK, "POST", "/addproducttocart/catalog/"+product+"/2", nil)
		cart := ann.must(t, http.StatusOK, "GET", "/cart", nil).json(t)
		if num(cart, "TotalProducts") != "3" || str(cart, "SubTotal") != "$59.97" || num(cart, "SubTotalValue") != "59.97" {
			t.Errorf("cart = %v, want 3 pens for $59.97", cart)
		}
		if line := path(cart, "Items", 0).(map[string]any); str(line, "ProductSeName") != "fountain-pen" || str(line, "Sku") != "FP-1" {
			t.Errorf("cart line = %v", line)
		}
		if n := len(ann.must(t, http.StatusOK, "GET", "/wishlist", nil).json(t)["Items"].([]any)); n != 1 {
			t.Errorf("wishlist: %d lines, want 1", n)
		}

		next := ann.must(t, http.StatusOK, "POST", "/checkout/SaveShipping/", addressForm("ShippingNewAddress")).json(t)
		if str(next, "goto_section") != "shipping_method" {
			t.Errorf("SaveShipping = %v, want the shipping method next", next)
		}
		ann.must(t, http.StatusOK, "POST", "/checkout/SaveShippingMethod/", url.Values{"shippingoption": {"Next Day Air___Shipping.FixedRate"}})
		ann.must(t, http.StatusOK, "POST", "/checkout/SavePaymentMethod/", url.Values{"paymentmethod": {"Payments.CashOnDelivery"}})
		confirm := ann.must(t, http.StatusOK, "POST", "/checkout/SavePaymentInfo/", url.Values{}).json(t)
		model := path(confirm, "update_section", "model").(map[string]any)
		totals := []string{str(model, "OrderSubtotal"), str(model, "OrderShipping"), str(model, "PaymentMethodAdditionalFee"), str(model, "OrderTotal")}
		if diff := cmp.Diff([]string{"$59.97", "$20.00", "$2.00", "$81.97"}, totals); diff != "" {
			t.Errorf("confirm-order totals (-want +got):\n%s", diff)
		}
		placed := ann.must(t, http.StatusOK, "POST", "/checkout/ConfirmOrder/", url.Values{}).json(t)
		order := str(placed, "OrderId")
		if num(placed, "success") != "1" || !idPattern.MatchString(order) || len(str(placed, "OrderCode")) != 8 {
			t.Fatalf("ConfirmOrder = %v", placed)
		}
		ann.fails(t, http.StatusBadRequest, "BadRequest", "POST", "/checkout/ConfirmOrder/", url.Values{})

		h := ann.must(t, http.StatusOK, "GET", "/order/history", nil).json(t)
		o := path(h, "Orders", 0).(map[string]any)
		if str(o, "Id") != order || str(o, "OrderTotal") != "$81.97" || num(o, "OrderTotalValue") != "81.97" || str(o, "OrderStatus") != "Pending" {
			t.Errorf("history = %v, want the order of $81.97, Pending", o)
		}
		d := ann.must(t, http.StatusOK, "GET", "/orderdetails/"+order, nil).json(t)
		got := []string{num(d, "OrderSubtotalValue"), num(d, "OrderShippingValue"), num(d, "PaymentMethodAdditionalFeeValue"),
			num(d, "OrderTotalValue"), str(d, "ShippingMethod"), str(d, "PaymentMethodSystemName"),
			num(path(d, "Items", 0).(map[string]any), "Quantity"), str(path(d, "Items", 0).(map[string]any), "UnitPrice")}
		want := []string{"59.97", "20", "2", "81.97", "Next Day Air", "Payments.CashOnDelivery", "3", "$19.99"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("order details (-want +got):\n%s", diff)
		}

		oURL := "/odata/Order('" + order + "')"
		od := admin.must(t, http.StatusOK, "GET", oURL, nil).json(t)
		if num(od, "OrderTotal") != "81.97" || str(od, "CustomerEmail") != "ann@example.com" || str(path(od, "ShippingAddress").(map[string]any), "City") != "New York" {
			t.Errorf("GET %s = %v", oURL, od)
		}
		items := admin.must(t, http.StatusOK, "GET", oURL+"/Items", nil).json(t)["value"].([]any)
		if len(items) != 1 || num(items[0].(map[string]any), "Price") != "59.97" {
			t.Errorf("GET %s/Items = %v, want one line of 59.97", oURL, items)
		}
		for _, move := range []string{"Ship", "Deliver", "MarkAsPaid"} {
			admin.must(t, http.StatusOK, "POST", oURL+"/"+move, nil)
		}
		od = admin.must(t, http.StatusOK, "GET", oURL, nil).json(t)
		if diff := cmp.Diff([]string{"Complete", "Paid", "Delivered"}, []string{str(od, "OrderStatus"), str(od, "PaymentStatus"), str(od, "ShippingStatus")}); diff != "" {
			t.Errorf("order after Ship, Deliver, MarkAsPaid (-want +got):\n%s", diff)
		}
		if o := path(ann.must(t, http.StatusOK, "GET", "/order/history", nil).json(t), "Orders", 0).(map[string]any); str(o, "OrderStatus") != "Complete" {
			t.Errorf("the customer's history shows %v, want Complete", o["OrderStatus"])
		}
		p = admin.must(t, http.StatusOK, "GET", pURL, nil).json(t)
		if num(p, "StockQuantity") != "7" || num(p, "Sold") != "3" {
			t.Errorf("product after the order: StockQuantity %v, Sold %v, want 7, 3", p["StockQuantity"], p["Sold"])
		}
		if n := len(ann.must(t, http.StatusOK, "GET", "/cart", nil).json(t)["Items"].([]any)); n != 0 {
			t.Errorf("cart after the order: %d lines, want 0", n)
		}
	})
}

// TestStore_BusyPort starts the program on a port that is taken: it fails before the database is touched, and
// the next start, on a free port, is the first start that migrates, seeds and prints the generated password.
func TestStore_BusyPort(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		busy, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer busy.Close()
		var stderr syncBuffer
		vars := map[string]string{"STORE_ADMIN_PASSWORD": ""}
		err = run(context.Background(), []string{"storeserver", "-addr", busy.Addr().String(), "-db", db.URL},
			func(k string) string { return vars[k] }, io.Discard, &stderr)
		if err == nil || !strings.Contains(err.Error(), "address already in use") {
			t.Fatalf("run on a busy port = %v, want an error", err)
		}
		if strings.Contains(stderr.String(), "password") {
			t.Errorf("run on a busy port logged a password:\n%s", stderr.String())
		}
		if n := tableCount(t, db); n != 0 {
			t.Errorf("run on a busy port left %d tables in the database, want none", n)
		}
		s := start(t, db, vars)
		pw := generatedPassword(t, s.stderr.String())
		if pw == "" {
			t.Fatalf("the start on a free port logged no generated password:\n%s", s.stderr)
		}
		s.login(t, adminEmail, pw)
	})
}

// tableCount returns how many tables the database holds.
func tableCount(t testing.TB, db *dbtest.DB) int {
	t.Helper()
	q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'`
	if db.Dialect().Name() == "postgres" {
		q = `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()`
	}
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStore_Drain stops the program while a write is in flight: new requests answer 503 with the error body
// (/healthz too), the write completes, and then the program closes its port and returns.
func TestStore_Drain(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false")
		token := s.login(t, adminEmail, adminPassword)

		// The write sends Expect: 100-continue, so the server's 100 Continue tells that its handler is running
		// (reading the body); the body is held back until the drain has begun.
		body, bodyWriter := io.Pipe()
		req, err := http.NewRequest("POST", s.url+"/odata/Manufacturer", body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Expect", "100-continue")
		handlerRunning := make(chan struct{})
		var once sync.Once
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			Got100Continue: func() { once.Do(func() { close(handlerRunning) }) },
		}))
		transport := &http.Transport{ExpectContinueTimeout: time.Minute}
		defer transport.CloseIdleConnections()
		type result struct {
			status int
			err    error
		}
		written := make(chan result, 1)
		go func() {
			resp, err := transport.RoundTrip(req)
			if err != nil {
				written <- result{err: err}
				return
			}
			resp.Body.Close()
			written <- result{status: resp.StatusCode}
		}()
		<-handlerRunning

		stopped := make(chan struct{})
		go func() {
			s.stop()
			close(stopped)
		}()
		for !strings.Contains(s.stderr.String(), "draining in-flight requests") {
			select {
			case <-stopped:
				t.Fatalf("the program stopped with a write in flight:\n%s", s.stderr)
			case <-time.After(10 * time.Millisecond):
			}
		}
		anonymous := s.client("")
		for _, path := range []string{"/healthz", "/api/token", "/cart"} {
			anonymous.fails(t, http.StatusServiceUnavailable, "ServiceUnavailable", "GET", path, nil)
		}
		if _, err := io.WriteString(bodyWriter, `{"Name":"Written during the drain"}`); err != nil {
			t.Fatal(err)
		}
		bodyWriter.Close()
		if got := <-written; got.err != nil || got.status != http.StatusCreated {
			t.Errorf("the write in flight = %d, %v, want 201", got.status, got.err)
		}
		<-stopped
		if _, err := http.Get(s.url + "/healthz"); err == nil {
			t.Errorf("GET /healthz after the program stopped succeeded")
		}
		if n := s.count(t, `SELECT 1 FROM manufacturer WHERE name = ?`, "Written during the drain"); n != 1 {
			t.Errorf("manufacturers written during the drain = %d, want 1", n)
		}
	})
}

// TestStore_MoneyRange adds a product at a huge price in a big quantity: the cart total would be past what
// NUMERIC(19,4) holds on both databases, which is a 400 when the line changes; within the range the order is
// placed, and a price raised past it afterwards is a 400 at ConfirmOrder, never a 500.
func TestStore_MoneyRange(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false")
		admin := s.admin(t)
		yacht := str(admin.must(t, http.StatusCreated, "POST", "/odata/Product", map[string]any{"Name": "Yacht",
			"Price": 900000000000000, "OrderMaximumQuantity": 1000000}).json(t), "Id")
		ann := newCustomer(t, s, admin, "ann@example.com")
		e := ann.fails(t, http.StatusBadRequest, "LimitExceeded", "POST", "/addproducttocart/catalog/"+yacht+"/1?quantity=500000", nil)
		if e.Target != "quantity" || !strings.Contains(e.Message, "922337203685477.5807") {
			t.Errorf("adding 500000 yachts = %+v, want a 400 on quantity naming the limit", e)
		}
		ann.must(t, http.StatusOK, "POST", "/addproducttocart/catalog/"+yacht+"/1?quantity=1", nil)
		line := str(path(ann.must(t, http.StatusOK, "GET", "/cart", nil).json(t), "Items", 0).(map[string]any), "Id")
		ann.fails(t, http.StatusBadRequest, "LimitExceeded", "POST", "/updatecartitem/"+line+"?quantity=2", nil)
		if n := num(path(ann.must(t, http.StatusOK, "GET", "/cart", nil).json(t), "Items", 0).(map[string]any), "Quantity"); n != "1" {
			t.Errorf("quantity after the refused update = %s, want 1", n)
		}
		ann.must(t, http.StatusOK, "POST", "/deletecartitem/"+line, nil)
		placeOrder(t, ann, yacht, 1)

		ann.must(t, http.StatusOK, "POST", "/addproducttocart/catalog/"+yacht+"/1?quantity=1", nil)
		dinghy := str(admin.must(t, http.StatusCreated, "POST", "/odata/Product", map[string]any{"Name": "Dinghy", "Price": 1}).json(t), "Id")
		ann.must(t, http.StatusOK, "POST", "/addproducttocart/catalog/"+dinghy+"/1?quantity=1", nil)
		ann.must(t, http.StatusOK, "POST", "/checkout/SaveShipping/", addressForm("ShippingNewAddress"))
		ann.must(t, http.StatusOK, "POST", "/checkout/SaveShippingMethod/", url.Values{"shippingoption": {"Ground___Shipping.FixedRate"}})
		ann.must(t, http.StatusOK, "POST", "/checkout/SavePaymentMethod/", url.Values{"paymentmethod": {"Payments.CheckMoneyOrder"}})
		ann.must(t, http.StatusOK, "POST", "/checkout/SavePaymentInfo/", url.Values{})
		admin.must(t, http.StatusOK, "PATCH", "/odata/Product('"+dinghy+"')", map[string]any{"Price": 100000000000000})
		ann.fails(t, http.StatusBadRequest, "LimitExceeded", "POST", "/checkout/ConfirmOrder/", url.Values{})
		if n := s.count(t, `SELECT 1 FROM "order"`); n != 1 {
			t.Errorf("orders = %d, want the one placed within the range", n)
		}
	})
}

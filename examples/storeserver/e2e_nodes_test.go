package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// TestStore_TwoNodes runs two server nodes on one PostgreSQL database, as behind a load balancer, and sends each
// customer's requests to both: they start together (each migration is applied once, one node seeds), a third start changes nothing,
// checkout steps and the race for the last units alternate between the nodes, a token revoked through one node
// is refused by it on the next request and by the other once its token cache bound passed, a $skiptoken next link of one node is served by the other, and
// failed sign-ins are counted across both, per e-mail and per address.
func TestStore_TwoNodes(t *testing.T) {
	if dbtest.PostgresURL() == "" {
		t.Skip(dbtest.EnvPostgres + " is not set: several server nodes need a database server (a SQLite file belongs to one process)")
	}
	db := dbtest.Postgres(t)
	// Each node's pool is small, as a deployment sizes it: nodes x max-open stays under max_connections. Each
	// node reuses a token check for tokenCache: the bound on a revocation made through the other node.
	const tokenCache = 500 * time.Millisecond
	poolFlags := []string{"-db-max-open", "10", "-db-max-idle", "4", "-token-cache-ttl", tokenCache.String()}

	// Both nodes start at once on the new database.
	nodes := make([]*storeServer, 2)
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nodes[i], errs[i] = launch(t, db, nil, poolFlags...)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	a, b := nodes[0], nodes[1]
	if got := logCount(t, a, "seeded the database") + logCount(t, b, "seeded the database"); got != 1 {
		t.Errorf("nodes that seeded = %d, want 1\nA:\n%s\nB:\n%s", got, a.stderr, b.stderr)
	}
	// Each migration is applied once, by one node or the other (each takes a transaction lock), and recorded
	// once.
	applied := []int{migrationsApplied(t, a), migrationsApplied(t, b)}
	if recorded := a.count(t, `SELECT 1 FROM schema_migrations`); applied[0]+applied[1] != recorded || recorded == 0 {
		t.Errorf("migrations applied by A and B = %v, want %d in all (the rows of schema_migrations)", applied, recorded)
	}

	t.Run("OKThirdStartChangesNothing", func(t *testing.T) {
		tables := []string{"product", "category", "customer", "customer_role", "country", "state_province",
			"shipping_method", "payment_method", "seed_marker", "schema_migrations"}
		counts := func() map[string]int {
			out := map[string]int{}
			for _, table := range tables {
				out[table] = a.count(t, `SELECT 1 FROM `+table)
			}
			return out
		}
		before := counts()
		c := start(t, db, nil, poolFlags...)
		if n := logCount(t, c, "seeded the database"); n != 0 || migrationsApplied(t, c) != 0 {
			t.Errorf("a third node seeded %d times and applied %d migrations, want none:\n%s", n, migrationsApplied(t, c), c.stderr)
		}
		c.client("").must(t, http.StatusOK, "GET", "/healthz", nil)
		c.stop()
		if diff := cmp.Diff(before, counts()); diff != "" {
			t.Errorf("rows after a third start (-before +after):\n%s", diff)
		}
	})

	adminToken := a.login(t, adminEmail, adminPassword)
	admins := []*client{a.client(adminToken), b.client(adminToken)}
	const customers, units = 50, 10
	product := admins[1].must(t, http.StatusCreated, "POST", "/odata/Product", map[string]any{"Name": "Last units",
		"Sku": "LAST-1", "Price": 5, "ManageInventoryMethod": "ManageStock", "StockQuantity": units}).json(t)
	productID := str(product, "Id")

	// Every customer is created through one node and signs in on the other; each checkout step goes to the
	// node the previous one did not.
	type shopper struct {
		email string
		on    [2]*client // the customer's token on node A and on node B
	}
	shoppers := make([]*shopper, customers)
	steps := []request{
		{method: "POST", path: "/addproducttocart/catalog/" + productID + "/1?quantity=1"},
		{method: "POST", path: "/checkout/SaveShipping/", body: addressForm("ShippingNewAddress")},
		{method: "POST", path: "/checkout/SaveShippingMethod/", body: url.Values{"shippingoption": {"Ground___Shipping.FixedRate"}}},
		{method: "POST", path: "/checkout/SavePaymentMethod/", body: url.Values{"paymentmethod": {"Payments.CheckMoneyOrder"}}},
		{method: "POST", path: "/checkout/SavePaymentInfo/", body: url.Values{}},
	}
	stepErrs := make(chan error, customers)
	sem := make(chan struct{}, 4)
	for i := range shoppers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			stepErrs <- func() error {
				sh := &shopper{email: fmt.Sprintf("racer%02d@example.com", i)}
				if err := expect(admins[i%2], http.StatusCreated, request{method: "POST", path: "/odata/Customer",
					body: map[string]any{"Email": sh.email, "FirstName": "Racer"}}); err != nil {
					return err
				}
				if err := expect(admins[(i+1)%2], http.StatusOK, request{method: "POST",
					path: "/odata/Customer('" + sh.email + "')/SetPassword", body: map[string]any{"password": "customer-pw-1"}}); err != nil {
					return err
				}
				r, err := nodes[i%2].client("").try(request{method: "POST", path: "/api/token",
					body: map[string]string{"email": sh.email, "password": "customer-pw-1"}})
				if err != nil {
					return err
				}
				var tok struct {
					AccessToken string `json:"access_token"`
				}
				if r.status != http.StatusOK || json.Unmarshal(r.body, &tok) != nil || tok.AccessToken == "" {
					return fmt.Errorf("sign-in of %s = %s", sh.email, r)
				}
				sh.on = [2]*client{a.client(tok.AccessToken), b.client(tok.AccessToken)}
				for k, rq := range steps {
					if err := expect(sh.on[(i+k)%2], http.StatusOK, rq); err != nil {
						return fmt.Errorf("%s, step %d on node %c: %w", sh.email, k+1, "AB"[(i+k)%2], err)
					}
				}
				shoppers[i] = sh
				return nil
			}()
		}()
	}
	wg.Wait()
	close(stepErrs)
	for err := range stepErrs {
		if err != nil {
			t.Fatal(err)
		}
	}

	t.Run("OKRaceForTheLastUnits", func(t *testing.T) {
		answers := make([]*response, customers)
		errs := make([]error, customers)
		ready := make(chan struct{})
		for i, sh := range shoppers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-ready
				answers[i], errs[i] = sh.on[(i+len(steps))%2].try(request{method: "POST", path: "/checkout/ConfirmOrder/", body: url.Values{}})
			}()
		}
		close(ready)
		wg.Wait()
		count := map[string]int{}
		numbers := map[string]bool{}
		for i, r := range answers {
			if errs[i] != nil {
				t.Fatalf("ConfirmOrder of %s: %v", shoppers[i].email, errs[i])
			}
			switch r.status {
			case http.StatusOK:
				m := r.json(t)
				if num(m, "success") != "1" || num(m, "OrderNumber") == "" {
					t.Errorf("ConfirmOrder of %s = %s, want success and an order number", shoppers[i].email, r)
				}
				numbers[num(m, "OrderNumber")] = true
				count["200"]++
			case http.StatusConflict:
				if e := r.error(t); e.Code != "Conflict" || len(e.Details) != 1 || e.Details[0].Target != productID {
					t.Errorf("ConfirmOrder of %s = %s, want a Conflict on the product", shoppers[i].email, r)
				}
				count["409"]++
			default:
				t.Errorf("ConfirmOrder of %s = %s, want 200 or 409", shoppers[i].email, r)
				count[fmt.Sprint(r.status)]++
			}
		}
		if diff := cmp.Diff(map[string]int{"200": units, "409": customers - units}, count); diff != "" {
			t.Errorf("ConfirmOrder answers (-want +got):\n%s", diff)
		}
		if len(numbers) != units {
			t.Errorf("distinct order numbers = %d, want %d", len(numbers), units)
		}
		for i, admin := range admins {
			p := admin.must(t, http.StatusOK, "GET", "/odata/Product('"+productID+"')?$select=StockQuantity,Sold", nil).json(t)
			if num(p, "StockQuantity") != "0" || num(p, "Sold") != fmt.Sprint(units) {
				t.Errorf("product on node %c = %v, want StockQuantity 0 and Sold %d", "AB"[i], p, units)
			}
		}
		if n := a.count(t, `SELECT 1 FROM "order"`); n != units {
			t.Errorf("orders = %d, want %d", n, units)
		}
		if n := a.count(t, `SELECT 1 FROM product WHERE stock_quantity < 0`); n != 0 {
			t.Errorf("products with negative stock = %d", n)
		}
		if n := a.count(t, `SELECT 1 FROM checkout_state`); n != customers-units {
			t.Errorf("checkout states left = %d, want %d (the customers without an order)", n, customers-units)
		}
	})

	t.Run("OKRevokedOnOneNodeRefusedOnTheOther", func(t *testing.T) {
		email := shoppers[0].email
		for i, n := range nodes {
			other := nodes[1-i]
			tok := n.login(t, email, "customer-pw-1")
			other.client(tok).must(t, http.StatusOK, "GET", "/cart", nil)
			n.client(tok).must(t, http.StatusOK, "POST", "/api/token/revoke", nil)
			n.client(tok).fails(t, http.StatusUnauthorized, "Unauthorized", "GET", "/cart", nil)
			refusedWithin(t, other.client(tok), tokenCache)
		}
		// A new password set through one node revokes the customer's tokens on both.
		old := [2]*client{shoppers[1].on[0], shoppers[1].on[1]}
		old[1].must(t, http.StatusOK, "GET", "/cart", nil)
		admins[0].must(t, http.StatusOK, "POST", "/odata/Customer('"+shoppers[1].email+"')/SetPassword",
			map[string]any{"password": "customer-pw-2"})
		old[0].fails(t, http.StatusUnauthorized, "Unauthorized", "GET", "/cart", nil)
		refusedWithin(t, old[1], tokenCache)
		b.client(a.login(t, shoppers[1].email, "customer-pw-2")).must(t, http.StatusOK, "GET", "/cart", nil)
	})

	t.Run("OKNextLinkServedByTheOtherNode", func(t *testing.T) {
		const query = "/odata/Customer?$select=Email&$orderby=Email%20desc&$filter=startswith(Email,'racer')"
		all := emails(admins[0].must(t, http.StatusOK, "GET", query, nil).json(t))
		if len(all) != customers {
			t.Fatalf("GET %s: %d customers, want %d", query, len(all), customers)
		}
		var got []string
		next, pages := query, 0
		for i := 0; next != ""; i++ {
			pages++
			node := nodes[i%2]
			page := admins[i%2].must(t, http.StatusOK, "GET", next, nil, "Prefer", "odata.maxpagesize=15").json(t)
			got = append(got, emails(page)...)
			link := str(page, "@odata.nextLink")
			if link == "" {
				break
			}
			if !strings.HasPrefix(link, node.url+"/odata/Customer?") || !strings.Contains(link, "skiptoken") {
				t.Fatalf("next link %q, want one of node %s with a $skiptoken", link, node.url)
			}
			next = strings.TrimPrefix(link, node.url) // to the other node
			if i > customers {
				t.Fatal("the next links do not end")
			}
		}
		if diff := cmp.Diff(all, got); diff != "" {
			t.Errorf("pages served alternately by both nodes (-one read +pages):\n%s", diff)
		}
		if pages != 4 {
			t.Errorf("%d customers in pages of 15 = %d pages, want 4", customers, pages)
		}
	})

	t.Run("OKFailedSignInsCountedAcrossNodes", func(t *testing.T) {
		email := shoppers[2].email
		wrong := map[string]string{"email": email, "password": "wrong-password"}
		for i := 0; i < 10; i++ {
			nodes[i%2].client("").fails(t, http.StatusBadRequest, "InvalidCredentials", "POST", "/api/token", wrong)
		}
		for i, n := range nodes {
			r := n.client("").do(t, "POST", "/api/token", map[string]string{"email": strings.ToUpper(email), "password": "customer-pw-1"})
			if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" || r.error(t).Code != "TooManyRequests" {
				t.Errorf("sign-in on node %c after 10 failures across both = %s (Retry-After %q), want 429 with Retry-After",
					"AB"[i], r, r.header.Get("Retry-After"))
			}
		}
	})

	// Last: it blocks the tests' address. Its 10 failures above and 38 more count; two real ones, one on each
	// node, make 50, and then both nodes refuse the address for any e-mail.
	t.Run("OKFailuresOfAnAddressCountedAcrossNodes", func(t *testing.T) {
		failures(t, a, "127.0.0.1", 38)
		for i, n := range nodes {
			n.client("").fails(t, http.StatusBadRequest, "InvalidCredentials", "POST", "/api/token",
				map[string]string{"email": fmt.Sprintf("nobody-%d@example.com", i), "password": "any-password"})
		}
		for i, n := range nodes {
			r := n.client("").do(t, "POST", "/api/token", map[string]string{"email": shoppers[3].email, "password": "customer-pw-1"})
			if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
				t.Errorf("sign-in on node %c after 50 failures of the address across both = %s, want 429 with Retry-After",
					"AB"[i], r)
			}
		}
		if n := a.count(t, `SELECT 1 FROM login_attempt WHERE client_address = '127.0.0.1'`); n != 50 {
			t.Errorf("attempt rows of the address = %d, want 50", n)
		}
	})
}

// expect sends rq and returns an error unless the answer has the status; it may run in any goroutine.
func expect(c *client, status int, rq request) error {
	r, err := c.try(rq)
	if err != nil {
		return err
	}
	if r.status != status {
		return fmt.Errorf("%s %s = %s, want %d", rq.method, rq.path, r, status)
	}
	return nil
}

// logCount returns how many of a node's log lines have the message.
func logCount(t testing.TB, s *storeServer, msg string) int {
	t.Helper()
	n := 0
	for _, line := range logLines(t, s) {
		if line["msg"] == msg {
			n++
		}
	}
	return n
}

// migrationsApplied returns the migrations_applied of a node's start-up log.
func migrationsApplied(t testing.TB, s *storeServer) int {
	t.Helper()
	for _, line := range logLines(t, s) {
		if n, ok := line["migrations_applied"].(float64); ok {
			return int(n)
		}
	}
	t.Fatalf("no migrations_applied in the log:\n%s", s.stderr)
	return 0
}

func logLines(t testing.TB, s *storeServer) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s.stderr.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line %q is not JSON: %v", sc.Text(), err)
		}
		out = append(out, line)
	}
	return out
}

// refusedWithin checks that c's token, just revoked through another node, is refused once bound has passed
// since the revocation: it may be accepted until then (the node reuses its checks for bound), never after.
func refusedWithin(t *testing.T, c *client, bound time.Duration) {
	t.Helper()
	time.Sleep(bound)
	c.fails(t, http.StatusUnauthorized, "Unauthorized", "GET", "/cart", nil)
}

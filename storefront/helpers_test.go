package storefront_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
	"github.com/storekit/store/storefront"
)

// Test request headers naming the customer a request acts for (the server sets it from the bearer token).
const (
	headerCustomer = "X-Test-Customer"
	headerEmail    = "X-Test-Email"
)

// testRouter is the server's Router on an http.ServeMux: a pattern ending in "/" also matches without it, and
// the customer comes from the test headers.
type testRouter struct{ mux *http.ServeMux }

func (r testRouter) Handle(method, pattern string, h http.Handler) {
	wrapped := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if id := req.Header.Get(headerCustomer); id != "" {
			req = req.WithContext(storefront.WithCustomer(req.Context(), id, req.Header.Get(headerEmail)))
		}
		h.ServeHTTP(w, req)
	})
	if len(pattern) > 1 && strings.HasSuffix(pattern, "/") {
		r.mux.Handle(method+" "+pattern+"{$}", wrapped)
		r.mux.Handle(method+" "+strings.TrimSuffix(pattern, "/"), wrapped)
		return
	}
	r.mux.Handle(method+" "+pattern, wrapped)
}

// HandlePublic serves a route without the customer headers.
func (r testRouter) HandlePublic(method, pattern string, h http.Handler) {
	r.mux.Handle(method+" "+pattern, h)
}

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// testNow is the fixtures' current time.
var testNow = time.Date(2030, 6, 15, 12, 0, 0, 0, time.UTC)

// fixture is a migrated database with the storefront served over a ServeMux.
type fixture struct {
	t      testing.TB
	db     *dbtest.DB
	h      http.Handler
	clock  *clock
	cfg    storefront.Config
	emails map[string]string // customer id -> e-mail
	mu     sync.Mutex
}

type fixtureOption func(*storefront.Config)

func countriesDisabled(c *storefront.Config) { c.CountriesEnabled = false }

func newFixture(t testing.TB, db *dbtest.DB, opts ...fixtureOption) *fixture {
	t.Helper()
	ctx := context.Background()
	if _, err := migrate.Up(ctx, db.DB, entities.Migrations, storefront.Migrations); err != nil {
		t.Fatalf("migrate.Up(entities, storefront) = %v", err)
	}
	f := &fixture{t: t, db: db, clock: &clock{t: testNow}, emails: map[string]string{}}
	f.exec(`INSERT INTO country (id, name) VALUES ('US', 'United States'), ('CA', 'Canada'), ('DE', 'Germany')`)
	f.exec(`INSERT INTO state_province (id, country_id, name) VALUES ('US-NY', 'US', 'New York'), ('US-CA', 'US', 'California'),
	('CA-QC', 'CA', 'Quebec')`)
	cfg := storefront.Config{DB: db.DB, CountriesEnabled: true, Now: f.clock.Now,
		Logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&cfg)
	}
	f.cfg = cfg
	f.h = f.node(db.DB)
	return f
}

// node returns the storefront's handler on the database pool db: a second pool on the same database is what a
// second server node has.
func (f *fixture) node(db *sqldb.DB) http.Handler {
	cfg := f.cfg
	cfg.DB = db
	mux := http.NewServeMux()
	storefront.New(cfg).Register(testRouter{mux})
	return mux
}

// secondNode returns the storefront's handler on a new connection pool to the fixture's database.
func (f *fixture) secondNode() http.Handler {
	f.t.Helper()
	var (
		db  *sqldb.DB
		err error
	)
	if f.db.Dialect().Name() == "sqlite" {
		db, err = sqlite.Open(f.db.URL)
	} else {
		db, err = postgres.Open(f.db.URL, postgres.Pool{MaxOpen: 10})
	}
	if err != nil {
		f.t.Fatalf("open a second pool: %v", err)
	}
	f.t.Cleanup(func() { db.Close() })
	return f.node(db)
}

// q rewrites ? placeholders for the fixture's dialect.
func (f *fixture) q(query string) string {
	s, err := f.db.Dialect().Placeholder().ReplacePlaceholders(query)
	if err != nil {
		panic(err)
	}
	return s
}

func (f *fixture) exec(query string, args ...any) {
	f.t.Helper()
	if _, err := f.db.Exec(f.q(query), args...); err != nil {
		f.t.Fatalf("Exec(%q) = %v", query, err)
	}
}

func (f *fixture) count(query string, args ...any) int {
	f.t.Helper()
	var n int
	if err := f.db.QueryRow(f.q(query), args...).Scan(&n); err != nil {
		f.t.Fatalf("QueryRow(%q) = %v", query, err)
	}
	return n
}

// money returns m as the fixture's dialect stores money.
func (f *fixture) money(m string) any {
	v, err := sqldb.DecimalArg(f.db.Dialect(), decimal.RequireFromString(m), 4)
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

// customer creates a customer with the e-mail and returns its id.
func (f *fixture) customer(email string) string {
	f.t.Helper()
	id := odata.NewID()
	f.exec(`INSERT INTO customer (id, email, username, first_name, last_name) VALUES (?, ?, ?, 'Ann', 'Lee')`, id, email, email)
	f.mu.Lock()
	f.emails[id] = email
	f.mu.Unlock()
	return id
}

// role creates a role and returns its id.
func (f *fixture) role(name string, freeShipping bool, purchasedWith any) string {
	f.t.Helper()
	id := odata.NewID()
	f.exec(`INSERT INTO customer_role (id, name, free_shipping, purchased_with_product_id) VALUES (?, ?, ?, ?)`,
		id, name, freeShipping, purchasedWith)
	return id
}

func (f *fixture) addToRole(customerID, roleID string) {
	f.t.Helper()
	f.exec(`INSERT INTO customer_role_mapping (customer_id, customer_role_id) VALUES (?, ?)`, customerID, roleID)
}

// cols are product columns and their values; money columns take decimal strings, timestamps time.Time.
type cols map[string]any

var moneyColumns = map[string]bool{"price": true, "old_price": true, "product_cost": true, "additional_shipping_charge": true}

// product creates a product (price 19.99 unless given) and returns its id.
func (f *fixture) product(name string, c cols) string {
	f.t.Helper()
	id := odata.NewID()
	names := []string{"id", "name"}
	vals := []any{id, name}
	c = merge(cols{"price": "19.99", "se_name": strings.ToLower(strings.ReplaceAll(name, " ", "-")), "sku": "SKU-" + id[12:]}, c)
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := c[k]
		switch {
		case moneyColumns[k]:
			v = f.money(v.(string))
		default:
			if t, ok := v.(time.Time); ok {
				v = sqldb.TimeArg(f.db.Dialect(), t)
			}
		}
		names, vals = append(names, k), append(vals, v)
	}
	q, args, err := sqldb.Builder(f.db.Dialect()).Insert("product").Columns(names...).Values(vals...).ToSql()
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.db.Exec(q, args...); err != nil {
		f.t.Fatalf("insert product %s: %v", name, err)
	}
	return id
}

func merge(a, b cols) cols {
	out := cols{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// request is one storefront request.
type request struct {
	customer    string
	method      string
	path        string
	form        url.Values // sent urlencoded (nil: no body)
	contentType string     // with body, instead of form
	body        string
	multipart   bool        // send form as multipart/form-data
	header      http.Header // "Host" sets the request's Host
}

func (f *fixture) serve(r request) *httptest.ResponseRecorder {
	f.t.Helper()
	return f.serveOn(f.h, r)
}

// serveOn serves r with the handler h (of a server node).
func (f *fixture) serveOn(h http.Handler, r request) *httptest.ResponseRecorder {
	var body io.Reader
	ct := r.contentType
	switch {
	case r.form != nil && r.multipart:
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for k, vs := range r.form {
			for _, v := range vs {
				_ = mw.WriteField(k, v)
			}
		}
		mw.Close()
		body, ct = &buf, mw.FormDataContentType()
	case r.form != nil:
		body, ct = strings.NewReader(r.form.Encode()), "application/x-www-form-urlencoded"
	case r.body != "":
		body = strings.NewReader(r.body)
	}
	req := httptest.NewRequest(r.method, r.path, body)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for k, vs := range r.header {
		if k == "Host" {
			req.Host = vs[0]
			continue
		}
		req.Header[k] = vs
	}
	if r.customer != "" {
		req.Header.Set(headerCustomer, r.customer)
		f.mu.Lock()
		req.Header.Set(headerEmail, f.emails[r.customer])
		f.mu.Unlock()
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// post sends a POST with form data (nil: no body) as customer.
func (f *fixture) post(customer, path string, form url.Values) *httptest.ResponseRecorder {
	f.t.Helper()
	return f.serve(request{customer: customer, method: http.MethodPost, path: path, form: form})
}

func (f *fixture) get(customer, path string) *httptest.ResponseRecorder {
	f.t.Helper()
	return f.serve(request{customer: customer, method: http.MethodGet, path: path})
}

// ok decodes a 200 JSON answer (numbers as json.Number) and fails the test on any other status.
func ok(t testing.TB, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d %s, want 200", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type = %q, want application/json; charset=utf-8", ct)
	}
	return decode(t, rec)
}

func decode(t testing.TB, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decode %s: %v", rec.Body, err)
	}
	return m
}

// apiError is the error body of SPEC part 8.
type apiError struct {
	Code    string              `json:"code"`
	Message string              `json:"message"`
	Target  string              `json:"target"`
	Details []odata.ErrorDetail `json:"details"`
}

// fails checks that rec is an error with the status and code, and returns its body.
func fails(t testing.TB, rec *httptest.ResponseRecorder, status int, code string) apiError {
	t.Helper()
	var body struct {
		Error apiError `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("status %d, body %s: %v", rec.Code, rec.Body, err)
	}
	if rec.Code != status || body.Error.Code != code {
		t.Fatalf("answer = %d %s, want %d with code %s", rec.Code, rec.Body, status, code)
	}
	if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Errorf("error Content-Type = %q, want application/json...", rec.Header().Get("Content-Type"))
	}
	return body.Error
}

// messages returns the messages of an error's details.
func detailMessages(e apiError) []string {
	out := []string{}
	for _, d := range e.Details {
		out = append(out, d.Message)
	}
	return out
}

// num returns v (a json.Number) as its text.
func num(v any) string {
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	return "<not a number>"
}

// path returns the value at a path of map keys and slice indexes in a decoded answer.
func path(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			s, _ := v.([]any)
			if k >= len(s) {
				return nil
			}
			v = s[k]
		}
	}
	return v
}

// usAddress is a valid new address under the prefix (ShippingNewAddress or BillingNewAddress).
func usAddress(prefix string) url.Values {
	return url.Values{
		prefix + ".FirstName": {"Ann"}, prefix + ".LastName": {"Lee"}, prefix + ".Email": {"ann@example.com"},
		prefix + ".CountryId": {"US"}, prefix + ".StateProvinceId": {"US-NY"}, prefix + ".City": {"New York"},
		prefix + ".Address1": {"1 Main St"}, prefix + ".ZipPostalCode": {"10001"}, prefix + ".PhoneNumber": {"555-0100"},
	}
}

func with(v url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out.Set(kv[i], kv[i+1])
	}
	return out
}

// addToCart puts qty of the product on the customer's list (1 cart, 2 wishlist) through the catalog route.
func (f *fixture) addToCart(customer, productID string, listType, qty int) {
	f.t.Helper()
	ok(f.t, f.post(customer, "/addproducttocart/catalog/"+productID+"/"+itoa(listType)+"?quantity="+itoa(qty), nil))
}

func itoa(n int) string { return strconv.Itoa(n) }

// checkout runs the steps up to SavePaymentInfo with the shipping form, the shipping option (skipped when "")
// and the payment method.
func (f *fixture) checkout(customer string, shipping url.Values, option, payment string) {
	f.t.Helper()
	ok(f.t, f.post(customer, "/checkout/SaveShipping/", shipping))
	if option != "" {
		ok(f.t, f.post(customer, "/checkout/SaveShippingMethod/", url.Values{"shippingoption": {option}}))
	}
	ok(f.t, f.post(customer, "/checkout/SavePaymentMethod/", url.Values{"paymentmethod": {payment}}))
	ok(f.t, f.post(customer, "/checkout/SavePaymentInfo/", url.Values{}))
}

// confirm places the order and returns its id.
func (f *fixture) confirm(customer string) string {
	f.t.Helper()
	m := ok(f.t, f.post(customer, "/checkout/ConfirmOrder/", nil))
	id, _ := m["OrderId"].(string)
	return id
}

// stock returns a product's stock quantity and sold count.
func (f *fixture) stock(productID string) (stock, sold int) {
	f.t.Helper()
	if err := f.db.QueryRow(f.q(`SELECT stock_quantity, sold FROM product WHERE id = ?`), productID).Scan(&stock, &sold); err != nil {
		f.t.Fatal(err)
	}
	return stock, sold
}

package odata_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	sq "github.com/Masterminds/squirrel"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/schema"
)

// firstWriteRecorder records how many rows had been scanned when the answer was first written to.
type firstWriteRecorder struct {
	*httptest.ResponseRecorder
	scanned *atomic.Int64
	atFirst int64
}

func (w *firstWriteRecorder) Write(b []byte) (int, error) {
	if w.atFirst < 0 {
		w.atFirst = w.scanned.Load()
	}
	return w.ResponseRecorder.Write(b)
}

// TestService_Streaming checks that a page of 1000 entities is written while rows are still being scanned,
// rather than built in memory first.
func TestService_Streaming(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {

		f := newFixture(t, db)
		insertBooks(t, f, 1000)
		var scanned atomic.Int64
		defer odata.SetRowHook(func() { scanned.Add(1) })()
		w := &firstWriteRecorder{ResponseRecorder: httptest.NewRecorder(), scanned: &scanned, atFirst: -1}
		req := httptest.NewRequest("GET", "http://example.com/odata/Book", nil)
		req.Header.Set("Prefer", "odata.maxpagesize=1000")
		f.svc.ServeHTTP(w, req)
		if w.Code != 200 {
			t.Fatalf("GET Book = %d\n%s", w.Code, w.Body)
		}
		if n := strings.Count(w.Body.String(), `"@odata.etag"`); n != 1000 {
			t.Fatalf("GET Book: %d entities, want 1000", n)
		}
		if w.atFirst < 0 || w.atFirst >= 1000 {
			t.Errorf("the answer was first written after %d of 1000 rows were scanned, want before the last", w.atFirst)
		}
	})
}

// insertBooks inserts n books with ids k0000, k0001, ... in one transaction.
func insertBooks(t testing.TB, f *fixture, n int) {
	t.Helper()
	ctx := context.Background()
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := libraryModel()
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	otx := &odata.Tx{Tx: tx, Model: m}
	bt := m.EntityType("Book")
	for i := 0; i < n; i++ {
		e := odata.Entity{"Id": "k" + pad4(i), "Title": "Book number " + pad4(i), "Price": decimal.New(int64(1999+i), -2),
			"Pages": int64(100 + i), "Edition": int64(1), "Flag": int64(0), "Level": int64(0), "InPrint": true,
			"Genre": "Science", "Formats": int64(3), "Rating": 4.5, "Isbn": "isbn-" + pad4(i),
			"Size": map[string]any{"Width": int64(10), "Height": int64(20)}, "Tags": []any{"a", "b"}, "PublisherId": nil}
		if err := otx.Insert(ctx, bt, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func pad4(i int) string {
	s := "000" + itoa(i)
	return s[len(s)-4:]
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestNewService_SchemaCheck starts the library service on a database that lacks a column and whose price
// column cannot hold decimals (a REAL, for 19 digits: a TEXT column would be served as decimal text, schema.Adapt), with a configuration mistake as well: one error reports all three; with
// SkipSchemaCheck only the configuration is checked.
func TestNewService_SchemaCheck(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		createLibrarySchema(t, db)
		for _, s := range []string{`ALTER TABLE loan DROP COLUMN due`, `ALTER TABLE book DROP COLUMN price`,
			`ALTER TABLE book ADD COLUMN price REAL`} {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		m := libraryModel()
		if err := m.Build(); err != nil {
			t.Fatal(err)
		}
		sets, actions := libraryConfig(m)
		sets["Nope"] = odata.SetOptions{}
		cfg := odata.Config{Model: m, DB: db.DB, Sets: sets, Actions: actions}
		_, err := odata.NewService(cfg)
		for _, want := range []string{
			`Sets["Nope"]: the model has no entity set`,
			`table "book", column "price": the column's type `,
			`cannot hold Book/Price, Edm.Decimal(19,4)`,
			`table "loan", column "due": the column does not exist (Loan/Due, Edm.Date)`,
		} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("NewService() error = %v, want one containing %q", err, want)
			}
		}
		var mismatch *schema.MismatchError
		if !errors.As(err, &mismatch) || len(mismatch.Problems) != 2 {
			t.Errorf("NewService() error = %v, want a *schema.MismatchError of 2 problems", err)
		}
		cfg.SkipSchemaCheck = true
		if _, err := odata.NewService(cfg); err == nil || errors.As(err, &mismatch) {
			t.Errorf("NewService(SkipSchemaCheck) error = %v, want the configuration mistake alone", err)
		}
	})
}

// TestNewService_Errors is SQLite only: NewService checks its configuration without running SQL but the
// catalog queries of the schema check (whose problems TestNewService_SchemaCheck lists on both databases).
func TestNewService_Errors(t *testing.T) {
	db := dbtest.SQLite(t)
	createLibrarySchema(t, db)
	noop := func(context.Context, *odata.ActionCall) (any, error) { return nil, nil }
	hook := func(context.Context, *odata.Tx, *odata.Change) error { return nil }
	for _, tc := range []struct {
		name string
		edit func(c *odata.Config)
		want string
	}{
		{"nil model", func(c *odata.Config) { c.Model = nil }, "Config.Model is nil"},
		{"model not built", func(c *odata.Config) { c.Model = libraryModel() }, "not built"},
		{"nil DB", func(c *odata.Config) { c.DB = nil }, "Config.DB is nil: open the database with odata/sqlite.Open or odata/postgres.Open"},
		{"unknown set", func(c *odata.Config) { c.Sets["Nope"] = odata.SetOptions{} }, `Sets["Nope"]: the model has no entity set`},
		{"set name in other case", func(c *odata.Config) { c.Sets["book"] = odata.SetOptions{} }, `the entity set is called "Book"`},
		{"unknown UpsertBy", func(c *odata.Config) { c.Sets["Author"] = odata.SetOptions{UpsertBy: "Code"} }, `UpsertBy "Code" is not a property`},
		{"nullable UpsertBy", func(c *odata.Config) { c.Sets["Author"] = odata.SetOptions{UpsertBy: "Email"} }, "must be a non-nullable primitive"},
		{"case-insensitive composite key", func(c *odata.Config) { c.Sets["Loan"] = odata.SetOptions{CaseInsensitiveKey: true} }, "CaseInsensitiveKey needs a single key"},
		{"hooks on a read-only set", func(c *odata.Config) {
			c.Sets["Author"] = odata.SetOptions{Hooks: odata.Hooks{BeforeSave: hook}}
		}, "save hooks are set but the set offers no POST, PUT or PATCH"},
		{"delete hook without DELETE", func(c *odata.Config) {
			c.Sets["Author"] = odata.SetOptions{Writes: odata.WritePatch, Hooks: odata.Hooks{BeforeDelete: func(context.Context, *odata.Tx, odata.Entity) error { return nil }}}
		}, "BeforeDelete is set but the set does not offer DELETE"},
		{"action without handler", func(c *odata.Config) { delete(c.Actions, "Book/Rate") }, `action "Rate" has no handler: add Actions["Book/Rate"]`},
		{"handler without action", func(c *odata.Config) { c.Actions["Book/Burn"] = noop }, `Actions["Book/Burn"]: the model has no action "Burn"`},
		{"handler with the wrong binding", func(c *odata.Config) { c.Actions["Author/Rate"] = noop }, `no overload of "Rate" bound to Author`},
		{"handler on an unknown type", func(c *odata.Config) { c.Actions["Shelf/Rate"] = noop }, `no entity type "Shelf"`},
		{"nil handler", func(c *odata.Config) { c.Actions["Ping"] = nil }, `Actions["Ping"]: the handler is nil`},
		{"page sizes", func(c *odata.Config) { c.Limits.PageSize, c.Limits.MaxPageSize = 50, 10 }, "Limits.PageSize 50 and MaxPageSize 10"},
		{"page sizes of a set", func(c *odata.Config) {
			book := c.Sets["Book"]
			book.Limits = odata.SetLimits{PageSize: 2000}
			c.Sets["Book"] = book
		}, `Sets["Book"]: Limits.PageSize 2000 and MaxPageSize 1000`},
		{"mount", func(c *odata.Config) { c.Mount = "odata" }, `Mount "odata" must start with /`},
		{"schema version *", func(c *odata.Config) { c.SchemaVersion = "*" }, `SchemaVersion "*" is not a version $schemaversion can name`},
		{"schema version with a space", func(c *odata.Config) { c.SchemaVersion = "1 0" }, `SchemaVersion "1 0" is not a version $schemaversion can name`},
		{"schema version with a slash", func(c *odata.Config) { c.SchemaVersion = "1/0" }, `SchemaVersion "1/0" is not a version $schemaversion can name`},
		{"schema version percent-encoded", func(c *odata.Config) { c.SchemaVersion = "1%2E0" }, `SchemaVersion "1%2E0" is not a version $schemaversion can name`},
		{"delete status", func(c *odata.Config) { c.DeleteStatus = 201 }, "DeleteStatus 201: want http.StatusNoContent (204) or http.StatusOK (200)"},
		{"public URL without scheme", func(c *odata.Config) { c.PublicURL = "shop.example.org" }, `PublicURL "shop.example.org": want an http:// or https:// URL`},
		{"public URL with a query", func(c *odata.Config) { c.PublicURL = "https://shop.example.org/?a=1" }, "want scheme, host and path only"},
		{"public URL without host", func(c *odata.Config) { c.PublicURL = "https:///odata" }, "the URL has no host"},
		{"read-only Int64 key without NewKey", func(c *odata.Config) { readOnlyInt64Key(c, false) },
			`Sets["Publisher"]: the key "Id" is of type Edm.Int64: NewKey is required (or edm.Property.Generated, for a key the database generates)`},
		{"ClientKey on a generated key", func(c *odata.Config) { readOnlyInt64Key(c, true) },
			`Sets["Publisher"]: ClientKey is set but the database generates the key "Id"`},
		{"Redact on a type of two sets", func(c *odata.Config) { twoBookSets(c, odata.SetOptions{Redact: redactor("Book")}) },
			`Sets["Book"]: Redact needs the only entity set of type Book`},
		{"ReadFilter on a type of two sets", func(c *odata.Config) { twoBookSets(c, odata.SetOptions{ReadFilter: bookReadFilter}) },
			`Sets["Book"]: ReadFilter needs the only entity set of type Book`},
	} {
		m := libraryModel()
		if err := m.Build(); err != nil {
			t.Fatal(err)
		}
		sets, actions := libraryConfig(m)
		cfg := odata.Config{Model: m, DB: db.DB, Sets: sets, Actions: actions}
		tc.edit(&cfg)
		_, err := odata.NewService(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: NewService error = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	m := libraryModel()
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	sets, actions := libraryConfig(m)
	if _, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Sets: sets, Actions: actions}); err != nil {
		t.Errorf("NewService(valid config) = %v", err)
	}
}

// readOnlyInt64Key gives c a library model whose Publisher key is a read-only Int64 (generated by the database
// when generated, with ClientKey); the schema check is skipped, the table is not changed.
func readOnlyInt64Key(c *odata.Config, generated bool) {
	m := libraryModel()
	for _, et := range m.EntityTypes {
		if et.Name == "Publisher" {
			id := et.Properties[0]
			id.Type, id.MaxLength, id.ReadOnly, id.Generated = edm.KindInt64, 0, true, generated
		}
	}
	if err := m.Build(); err != nil {
		panic(err)
	}
	c.Model, c.SkipSchemaCheck = m, true
	c.Sets, c.Actions = libraryConfig(m)
	c.Sets["Publisher"] = odata.SetOptions{Writes: odata.WritePost, ClientKey: generated}
}

// twoBookSets gives c a library model with a second entity set of type Book, and book as the options of the set
// Book; the schema check is skipped.
func twoBookSets(c *odata.Config, book odata.SetOptions) {
	m := libraryModel()
	m.EntitySets = append(m.EntitySets, &edm.EntitySet{Name: "Archive", Type: "Book"})
	if err := m.Build(); err != nil {
		panic(err)
	}
	c.Model, c.SkipSchemaCheck = m, true
	c.Sets, c.Actions = libraryConfig(m)
	c.Sets["Book"] = book
}

// TestNewService_AllErrors checks that NewService reports every mistake of a configuration at once, not only the
// first: a missing database hides none of the mistakes of the sets and actions.
func TestNewService_AllErrors(t *testing.T) {
	m := libraryModel()
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	sets, actions := libraryConfig(m)
	sets["Nope"] = odata.SetOptions{}
	delete(actions, "Book/Rate")
	_, err := odata.NewService(odata.Config{Model: m, Sets: sets, Actions: actions, Mount: "odata", Limits: odata.Limits{PageSize: -1}})
	want := []string{"Config.DB is nil", "PageSize -1", `Mount "odata"`, `Sets["Nope"]`,
		`action "Rate" has no handler`}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("NewService(config with %d mistakes) error = %v, want one containing %q", len(want), err, w)
		}
	}
	_, err = odata.NewService(odata.Config{Mount: "odata"})
	for _, w := range []string{"Config.Model is nil", "Config.DB is nil", `Mount "odata"`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("NewService(Config{Mount: \"odata\"}) error = %v, want one containing %q", err, w)
		}
	}
}

func TestTx_Helpers(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		m := libraryModel()
		if err := m.Build(); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		sqlTx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer sqlTx.Rollback()
		tx := &odata.Tx{Tx: sqlTx, Model: m}
		bt, pt := m.EntityType("Book"), m.EntityType("Publisher")
		b, err := tx.Get(ctx, bt, "b1")
		if err != nil {
			t.Fatal(err)
		}
		if b["Title"] != "Alpha" || !b["Price"].(decimal.Decimal).Equal(decimal.RequireFromString("12.5")) ||
			b["Genre"] != int64(1) || len(b["Tags"].([]any)) != 2 || b["Size"].(map[string]any)["Height"] != int64(20) {
			t.Errorf("Get(Book b1) = %v", b)
		}
		if _, err := tx.Get(ctx, bt, "zz"); !errIsNotFound(err) {
			t.Errorf("Get(Book zz) error = %v, want ErrNotFound", err)
		}
		p, err := tx.Get(ctx, pt, "p1")
		if err != nil || p["Address"].(map[string]any)["City"] != "London" || p["Founded"] != (edm.Date{Year: 1935, Month: 7, Day: 30}) {
			t.Errorf("Get(Publisher p1) = %v, %v", p, err)
		}
		list, err := tx.Query(ctx, bt, odataEq("pages", int64(200)))
		if err != nil || len(list) != 1 || list[0]["Id"] != "b2" {
			t.Errorf("Query(pages = 200) = %v, %v", list, err)
		}
		list, err = tx.Query(ctx, bt, nil, `"book"."pages" DESC`)
		if err != nil || len(list) != 3 || list[0]["Id"] != "b3" {
			t.Errorf("Query(order by pages desc) = %v, %v", ids(list), err)
		}
		if err := tx.Update(ctx, bt, odata.Entity{"Id": "b1", "Tags": []any{"x"}, "Pages": 7}); err != nil {
			t.Fatal(err)
		}
		if err := tx.Update(ctx, bt, odata.Entity{"Id": "zz", "Pages": 7}); !errIsNotFound(err) {
			t.Errorf("Update(zz) error = %v, want ErrNotFound", err)
		}
		b, _ = tx.Get(ctx, bt, "b1")
		if b["Pages"] != int64(7) || len(b["Tags"].([]any)) != 1 {
			t.Errorf("after Update: Pages %v Tags %v", b["Pages"], b["Tags"])
		}
		if err := tx.Delete(ctx, bt, "b1"); err != nil {
			t.Fatal(err)
		}
		if err := tx.Delete(ctx, bt, "b1"); !errIsNotFound(err) {
			t.Errorf("second Delete error = %v, want ErrNotFound", err)
		}
		var n int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM chapter WHERE book_id = 'b1'`).Scan(&n); err != nil || n != 0 {
			t.Errorf("contained chapters after Delete: %d, %v", n, err)
		}
		if _, err := tx.Builder().Update("book").Set("pages", 1).Where("id = ?", "b2").Exec(); err != nil {
			t.Errorf("Builder: %v", err)
		}
	})
}

func ids(list []odata.Entity) []any {
	var out []any
	for _, e := range list {
		out = append(out, e["Id"])
	}
	return out
}

func errIsNotFound(err error) bool { return errors.Is(err, odata.ErrNotFound) }

func odataEq(col string, v any) sq.Sqlizer { return sq.Eq{col: v} }

// TestService_PublicURL checks where absolute URLs take their scheme and host from: Config.PublicURL when set,
// whatever the Host header says; else the request's Host with the scheme of the request URL (set by a
// middleware that trusts the proxy) or TLS. X-Forwarded-* headers are never read by the engine.
func TestService_PublicURL(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		public := libraryService(t, db, func(c *odata.Config) { c.PublicURL = "https://shop.example.org/store/" })
		forged := []string{"X-Forwarded-Host", "forged.test", "X-Forwarded-Proto", "https", "Forwarded", "host=forged.test;proto=https"}
		serve := func(svc *odata.Service, method, path, body, scheme string, headers ...string) response {
			t.Helper()
			var r io.Reader
			if body != "" {
				r = strings.NewReader(body)
			}
			req := httptest.NewRequest(method, "http://evil.test"+path, r)
			req.URL.Scheme = scheme // as a proxy-aware middleware leaves it; httptest.NewRequest sets "http"
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			for i := 0; i+1 < len(headers); i += 2 {
				req.Header.Set(headers[i], headers[i+1])
			}
			w := httptest.NewRecorder()
			svc.ServeHTTP(w, req)
			return response{Status: w.Code, Header: w.Header(), Body: w.Body.String()}
		}
		requests := []struct{ method, path, body string }{
			{"GET", "/odata/", ""},
			{"GET", "/odata/Book?$top=3&$expand=Authors", ""},
			{"GET", "/odata/Book('b1')", ""},
			{"POST", "/odata/Book", `{"Title":"Delta"}`},
			{"PATCH", "/odata/Book('b1')", `{"Pages":7}`},
		}
		for _, rq := range requests {
			for _, prefer := range []string{"odata.maxpagesize=1", "return=minimal"} {
				resp := serve(public, rq.method, rq.path, rq.body, "", append([]string{"Prefer", prefer}, forged...)...)
				all := resp.Body + fmt.Sprint(resp.Header)
				if strings.Contains(all, "evil.test") || strings.Contains(all, "forged.test") {
					t.Errorf("%s %s with Host evil.test and PublicURL = %d %v %s, want no trace of the request's hosts",
						rq.method, rq.path, resp.Status, resp.Header, resp.Body)
				}
				if !strings.Contains(all, "https://shop.example.org/store/odata/") {
					t.Errorf("%s %s with PublicURL = %d %v %s, want URLs under https://shop.example.org/store/odata/",
						rq.method, rq.path, resp.Status, resp.Header, resp.Body)
				}
			}
		}
		for _, tc := range []struct {
			name, scheme string
			want         string
		}{
			{"ForwardedHeadersIgnored", "", `"@odata.context":"http://evil.test/odata/$metadata#Book"`},
			{"SchemeOfTheRequestURL", "https", `"@odata.context":"https://evil.test/odata/$metadata#Book"`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp := serve(f.svc, "GET", "/odata/Book?$top=1", "", tc.scheme, forged...)
				if !strings.Contains(resp.Body, tc.want) || strings.Contains(resp.Body, "forged.test") {
					t.Errorf("GET Book without PublicURL = %s, want %s", resp.Body, tc.want)
				}
			})
		}
	})
}

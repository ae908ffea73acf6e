package odata_test

import (
	"context"
	"strings"
	"testing"

	sq "github.com/Masterminds/squirrel"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/openapi/openapitest"
)

// functionsFixture serves the library with functions of every kind: unbound with overloads (Bestsellers() and
// Bestsellers(Top)), unbound returning a primitive (PriceOf), bound to a book (Similar, Dimensions, Nothing),
// bound to the Book collection (AveragePages), and one that tries to write (Sneaky).
func functionsFixture(t *testing.T, db *dbtest.DB) *fixture { return functionsFixtureWith(t, db, nil) }

// functionsFixtureWith is functionsFixture with the configuration then changed by change (when not nil).
func functionsFixtureWith(t *testing.T, db *dbtest.DB, change func(cfg *odata.Config)) *fixture {
	t.Helper()
	f := newFixtureWith(t, db, func(cfg *odata.Config) {
		m := libraryModel()
		var size *edm.ComplexType
		for _, et := range m.EntityTypes {
			for _, p := range et.Properties {
				if p.Name == "Size" {
					size = p.Complex
				}
			}
		}
		books := &edm.ReturnType{Entity: "Book", Collection: true}
		m.Functions = []*edm.Function{
			{Name: "Bestsellers", ReturnType: books},
			{Name: "Bestsellers", Parameters: []edm.Parameter{{Name: "Top", Type: edm.KindInt32, Required: true}}, ReturnType: books},
			{Name: "PriceOf", Parameters: []edm.Parameter{{Name: "BookId", Type: edm.KindString, Required: true},
				{Name: "Copies", Type: edm.KindInt32}}, ReturnType: &edm.ReturnType{Type: edm.KindDecimal, Precision: 19, Scale: 4, Nullable: true}},
			{Name: "Similar", Bound: true, BindingType: "Book", ReturnType: books},
			{Name: "Dimensions", Bound: true, BindingType: "Book", ReturnType: &edm.ReturnType{Complex: size}},
			{Name: "Nothing", Bound: true, BindingType: "Book", ReturnType: &edm.ReturnType{Entity: "Book", Nullable: true}},
			{Name: "AveragePages", Bound: true, BindingType: "Book", BindingCollection: true,
				ReturnType: &edm.ReturnType{Type: edm.KindDouble}},
			{Name: "Sneaky", ReturnType: &edm.ReturnType{Type: edm.KindBoolean}},
		}
		if err := m.Build(); err != nil {
			t.Fatal(err)
		}
		cfg.Model = m
		cfg.Sets, cfg.Actions = libraryConfig(m)
		book := m.EntityType("Book")
		cfg.Functions = map[string]odata.FunctionFunc{
			"Bestsellers": func(ctx context.Context, call *odata.FunctionCall) (any, error) {
				all, err := call.Tx.Query(ctx, book, nil, "pages DESC")
				if top, ok := call.Params["Top"].(int64); ok && int(top) < len(all) {
					all = all[:top]
				}
				return all, err
			},
			"PriceOf": func(ctx context.Context, call *odata.FunctionCall) (any, error) {
				b, err := call.Tx.Get(ctx, book, call.Params["BookId"])
				if err != nil {
					return nil, err
				}
				copies := int64(1)
				if n, ok := call.Params["Copies"].(int64); ok {
					copies = n
				}
				return b["Price"].(decimal.Decimal).Mul(decimal.NewFromInt(copies)), nil
			},
			"Book/Similar": func(ctx context.Context, call *odata.FunctionCall) (any, error) {
				return call.Tx.Query(ctx, book, sq.NotEq{"id": call.Entity["Id"]}, "id")
			},
			"Book/Dimensions": func(ctx context.Context, call *odata.FunctionCall) (any, error) {
				return call.Entity["Size"], nil
			},
			"Book/Nothing": func(context.Context, *odata.FunctionCall) (any, error) { return nil, nil },
			"Collection(Book)/AveragePages": func(ctx context.Context, call *odata.FunctionCall) (any, error) {
				var avg float64
				err := call.Tx.Builder().Select("avg(pages)").From("book").QueryRowContext(ctx).Scan(&avg)
				return avg, err
			},
			"Sneaky": func(ctx context.Context, call *odata.FunctionCall) (any, error) {
				_, err := call.Tx.Builder().Delete("book").ExecContext(ctx)
				return err == nil, err
			},
		}
		if change != nil {
			change(cfg)
		}
	})
	f.seed()
	return f
}

// TestService_Functions calls functions of every kind on both databases: unbound (overloads chosen by their
// parameter names), bound to an entity and to a collection, with parameters inline and as aliases, returning
// entities, a complex value, primitives and nothing; and the mistakes a client can make.
func TestService_Functions(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := functionsFixture(t, db)
		base := "http://example.com/odata/"
		for _, tc := range []struct {
			name, method, path string
			status             int
			want               string
		}{
			{"unbound, no parameters", "GET", "Bestsellers()", 200,
				`"@odata.context":"` + base + `$metadata#Book","value":[{"@odata.etag":"*","Id":"b3"`},
			{"the overload with Top", "GET", "Bestsellers(Top=1)", 200, `"value":[{"@odata.etag":"*","Id":"b3","Title":"Gamma"`},
			{"qualified", "GET", "Lib.Bestsellers(Top=2)", 200, `"Title":"Beta"`},
			{"a parameter alias", "GET", "PriceOf(BookId=@id,Copies=@n)?@id='b2'&@n=3", 200,
				`{"@odata.context":"` + base + `$metadata#Edm.Decimal","value":37.5}`},
			{"an optional parameter left out", "GET", "PriceOf(BookId='b1')", 200, `"value":12.5}`},
			{"an alias holding NUL: the function's text, a key no entity has", "GET", "PriceOf(BookId=@id)?@id='b%00'", 404, `"code":"NotFound"`},
			{"a parameter holding NUL", "GET", "PriceOf(BookId='b1%00')", 404, `"code":"NotFound"`},
			{"a filter literal holding NUL, which no column holds", "GET", "Book?$filter=Title%20eq%20'a%00'", 400, `NUL character`},
			{"a key holding NUL", "GET", "Book('b1%00')", 400, `NUL character`},
			{"bound to an entity", "GET", "Book('b1')/Lib.Similar()", 200, `"Title":"Beta"`},
			{"bound, unqualified", "GET", "Book('b1')/Similar()", 200, `"Title":"Gamma"`},
			{"a complex result", "GET", "Book('b2')/Dimensions()", 200,
				`{"@odata.context":"` + base + `$metadata#Lib.Size","Width":10,"Height":20}`},
			{"bound to the collection", "GET", "Book/AveragePages()", 200, `"value":200}`},
			{"no result", "GET", "Book('b1')/Nothing()", 204, ``},
			{"bound to a missing entity", "GET", "Book('nope')/Similar()", 404, `"code":"NotFound"`},
			{"a missing required parameter", "GET", "PriceOf()", 400, `"target":"BookId"`},
			{"a parameter of the wrong type", "GET", "PriceOf(BookId=5)", 400, `"target":"BookId"`},
			{"an unknown parameter", "GET", "PriceOf(BookId='b1',Colour='red')", 400, `"target":"Colour"`},
			{"an undefined alias", "GET", "PriceOf(BookId=@x)", 400, `@x is not defined`},
			{"POST to a function", "POST", "Bestsellers()", 405, `"code":"MethodNotAllowed"`},
			{"without parentheses (4.01)", "GET", "Bestsellers", 200, `"Title":"Gamma"`},
			{"parameters as query options (4.01)", "GET", "PriceOf()?BookId='b2'&Copies=2", 200, `"value":25}`},
			{"a string parameter as a bare query option", "GET", "PriceOf?BookId=b2", 200, `"value":12.5}`},
			{"a parameter named like a system option", "GET", "Bestsellers()?Top=1", 200, `"Title":"Gamma"`},
			{"bound, without parentheses", "GET", "Book/AveragePages", 200, `"value":200}`},
			{"after a function that is not composable", "GET", "Bestsellers()/$count", 404, `not composable`},
			{"a query option on a result that is not composable", "GET", "Bestsellers()?$top=1", 400, `not composable`},
			{"bound to another type", "GET", "Publisher('p1')/Similar()", 404, `No overload`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp := f.do(tc.method, "/odata/"+tc.path, "")
				resp.Body = etagPattern.ReplaceAllString(resp.Body, "*")
				if resp.Status != tc.status || !strings.Contains(resp.Body, tc.want) || tc.status == 200 && strings.Contains(tc.path, "Top=1") && strings.Count(resp.Body, `"Id"`) != 1 {
					t.Errorf("%s %s = %d %s, want %d with %s", tc.method, tc.path, resp.Status, resp.Body, tc.status, tc.want)
				}
			})
		}
		// A function changes nothing: its transaction is rolled back.
		f.must(200, "GET", "/odata/Sneaky()", "")
		if got := f.count("/odata/Book"); got != "3" {
			t.Errorf("after Sneaky(), Book/$count = %s, want 3", got)
		}
	})
}

// TestNewService_FunctionHandlers reports a function without handler and a handler without function.
func TestNewService_FunctionHandlers(t *testing.T) {
	m := libraryModel()
	m.Functions = []*edm.Function{{Name: "Count", ReturnType: &edm.ReturnType{Type: edm.KindInt32}}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	db := dbtest.SQLite(t)
	createLibrarySchema(t, db)
	sets, actions := libraryConfig(m)
	_, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Sets: sets, Actions: actions,
		Functions: map[string]odata.FunctionFunc{"Book/Count": func(context.Context, *odata.FunctionCall) (any, error) { return 1, nil }}})
	for _, want := range []string{`Functions["Book/Count"]: the model has no overload of "Count" bound to Book`,
		`function "Count" has no handler: add Functions["Count"]`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewService = %v, want an error with %s", err, want)
		}
	}
}

// TestService_ApplyServiceDefined: a service-defined transformation in $apply that the model does not define is
// the client's mistake (400, as an unknown function in $filter), one it defines is valid OData the engine does not
// translate (501).
func TestService_ApplyServiceDefined(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := functionsFixture(t, db)
		for _, tc := range []struct {
			query  string
			status int
			code   string
		}{
			{"Book?$apply=Lib.Condense()", 400, "SyntaxError"},
			{"Book?$apply=Default.CustomSetTransform()", 400, "SyntaxError"},
			{"Book?$apply=filter(Pages%20gt%201)/Other.Condense(Pages)", 400, "SyntaxError"},
			{"Book?$apply=Lib.Similar()", 501, "NotImplemented"},
			{"Book?$apply=Lib.AveragePages()", 501, "NotImplemented"},
		} {
			resp := f.do("GET", "/odata/"+tc.query, "")
			if resp.Status != tc.status || !strings.Contains(resp.Body, `"code":"`+tc.code+`"`) {
				t.Errorf("GET %s = %d %s, want %d %s", tc.query, resp.Status, resp.Body, tc.status, tc.code)
			}
		}
	})
}

// TestService_FunctionsOpenAPI checks the functions in the OpenAPI document: a GET per overload, required
// parameters as aliases; the document stays valid and every GET it lists answers as documented.
func TestService_FunctionsOpenAPI(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := functionsFixture(t, db)
		f.must(201, "POST", "/odata/Cover", `{"BookId":"b1","MimeType":"image/png","Data":"iVBORw0KGgo="}`)
		doc, paths := validOpenAPI(t, f)
		for _, want := range []string{"/odata/Bestsellers()", "/odata/Bestsellers(Top=@Top)", "/odata/PriceOf(BookId=@BookId)",
			"/odata/Book('{Id}')/Lib.Similar()", "/odata/Book/Lib.AveragePages()"} {
			if paths[want]["get"] == nil {
				t.Errorf("the document has no GET %s", want)
			}
		}
		get := func(path string) (int, []byte, error) {
			r := f.do("GET", path, "")
			return r.Status, []byte(r.Body), nil
		}
		results, err := openapitest.Walk(doc, get, map[string]string{"@Top": "1", "@BookId": "'b1'"})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			if !r.OK() {
				t.Errorf("GET %s (%s) = %d, want one of %v\n%s", r.Path, r.Template, r.Status, r.Want, r.Body)
			}
		}
	})
}

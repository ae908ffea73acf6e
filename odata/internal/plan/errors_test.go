package plan_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqlite"
	"github.com/storekit/store/odata/syntax"
)

func TestReadErrors(t *testing.T) {
	m := builtModel(t)
	p := newPlanner(m, sqlite.Dialect{})
	for _, c := range []struct {
		path, query string
		want        plan.Error
	}{
		{"Product", "$filter=Nme eq 'x'", plan.Error{Code: "UnknownProperty", Option: "$filter", Pos: 1, Msg: "Product has no property Nme"}},
		{"Product", "filter=Nme eq 'x'", plan.Error{Code: "UnknownProperty", Option: "filter", Pos: 1, Msg: "Product has no property Nme"}},
		{"Product", "$filter=Manufacturer/Nam eq 'x'", plan.Error{Code: "UnknownProperty", Option: "$filter", Pos: 14, Msg: "Manufacturer has no property Nam"}},
		{"Product", "$filter=Categories/any(c:c/Nope)", plan.Error{Code: "UnknownProperty", Option: "$filter", Pos: 20, Msg: "Category has no property Nope"}},
		{"Product", "$filter=Dimensions/Depth gt 1", plan.Error{Code: "UnknownProperty", Option: "$filter", Pos: 12, Msg: "Dimensions has no property Depth (Dimensions/Depth)"}},
		{"Product", "$filter=Name eq 5", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 6, Msg: "eq cannot compare Edm.String with Edm.Int64"}},
		{"Product", "$filter=Price eq 'abc'", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 7, Msg: "eq cannot compare Edm.Decimal with Edm.String"}},
		{"Product", "$filter=CreatedOnUtc gt 2024-01-01", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 14, Msg: "gt cannot compare Edm.DateTimeOffset with Edm.Date"}},
		{"Product", "$filter=ProductType eq 7", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 13, Msg: "eq cannot compare ProductType with Edm.Int64"}},
		{"Product", "$filter=ProductType eq 'Nope'", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 13, Msg: "'Nope' is not a member of ProductType"}},
		{"Product", "$filter=ProductType eq Store.Permissions'Read'", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 13, Msg: "eq cannot compare ProductType with Permissions"}},
		{"Product", "$filter=Name in (1,2)", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 10, Msg: "in cannot compare Edm.String with Edm.Int64"}},
		{"Product", "$filter=Price", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 1, Msg: "expected a Boolean expression, found Edm.Decimal"}},
		{"Product", "$filter=Name and Published", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 1, Msg: "and needs Boolean operands, found Edm.String"}},
		{"Product", "$filter=Tags eq 'x'", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 6, Msg: "eq cannot compare Collection(Edm.String) values"}},
		{"Product", "$filter=Name add 1 eq 2", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 6, Msg: "add needs numeric operands, found Edm.String"}},
		{"Product", "$filter=contains(Name)", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 1, Msg: "contains takes 2 arguments, found 1"}},
		{"Product", "$filter=length(Name,Sku) eq 1", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 1, Msg: "length takes 1 argument, found 2"}},
		{"Product", "$filter=substring(Name) eq 'x'", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 1, Msg: "substring takes 2 or 3 arguments, found 1"}},
		{"Product", "$filter=length(Price) eq 1", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 8, Msg: "argument 1 of length must be Edm.String, found Edm.Decimal"}},
		{"Product", "$filter=year(Name) eq 1", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 6, Msg: "argument 1 of year must be Edm.Date or Edm.DateTimeOffset, found Edm.String"}},
		{"Product", "$filter=ProductType has 'SimpleProduct'", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 1, Msg: "has needs a flags enumeration on the left, found ProductType"}},
		{"Customer", "$filter=Permissions has 'Fly'", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 17, Msg: "'Fly' is not a value of Permissions"}},
		{"Product", "$filter=Name eq @x", plan.Error{Code: "SyntaxError", Option: "$filter", Pos: 9, Msg: "parameter alias @x is not defined"}},
		{"Product", "$filter=Name eq @x&@x=1", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 6, Msg: "eq cannot compare Edm.String with Edm.Int64"}},
		{"Product", "$filter=Name eq", plan.Error{Code: "SyntaxError", Option: "$filter", Pos: 8, Msg: "expected expression, found end of input"}},
		{"Product", "$orderby=Foo", plan.Error{Code: "UnknownProperty", Option: "$orderby", Pos: 1, Msg: "Product has no property Foo"}},
		{"Product", "$orderby=Tags", plan.Error{Code: "TypeMismatch", Option: "$orderby", Pos: 1, Msg: "cannot order by a value of type Collection(Edm.String)"}},
		{"Product", "$select=Id,Foo", plan.Error{Code: "UnknownProperty", Option: "$select", Pos: 4, Msg: "Product has no property Foo"}},
		{"Product", "$select=Dimensions/Depth", plan.Error{Code: "UnknownProperty", Option: "$select", Pos: 12, Msg: "Dimensions has no property Depth"}},
		{"Product", "$expand=Foo", plan.Error{Code: "UnknownProperty", Option: "$expand", Pos: 1, Msg: "Product has no navigation property Foo"}},
		{"Product", "$expand=Categories($filter=Nme eq 'x')", plan.Error{Code: "UnknownProperty", Option: "$expand", Pos: 20, Msg: "Category has no property Nme"}},
		{"Product", "$expand=Manufacturer($top=1)", plan.Error{Code: "SyntaxError", Option: "$expand", Pos: 19, Msg: "$top does not apply to the single-valued Manufacturer"}},
		{"Product", "$compute=Price mul 2 as Name", plan.Error{Code: "SyntaxError", Option: "$compute", Pos: 7, Msg: "the computed property Name has the name of another property of Product"}},
		{"Product", "$compute=Categories as C", plan.Error{Code: "TypeMismatch", Option: "$compute", Pos: 1, Msg: "a computed property must be a primitive value, not Collection(Category)"}},
		{"Product", "$compute=Prize mul 2 as P", plan.Error{Code: "UnknownProperty", Option: "$compute", Pos: 1, Msg: "Product has no property Prize"}},
		{"Product", "$apply=groupby((Name))/addnested(Categories,identity as C)", plan.Error{Code: "NotSupported", Option: "$apply", Pos: 27, Msg: "addnested applies to entities, before they are aggregated"}},
		{"Product", "$apply=nest(identity as A,groupby((Name)) as A)", plan.Error{Code: "SyntaxError", Option: "$apply", Msg: "the alias A of nest is the name of another property of the result"}},
		{"Category", "$apply=addnested(Products,identity as Name)", plan.Error{Code: "SyntaxError", Option: "$apply", Pos: 11, Msg: "the alias Name of addnested is the name of a property of Category"}},
		{"Product", "$apply=aggregate(Price with sum as T)/filter(Price gt 1)", plan.Error{Code: "UnknownProperty", Option: "$apply", Pos: 39, Msg: "Price is not a property of the aggregated result"}},
		{"Product", "$apply=aggregate(Name with sum as T)", plan.Error{Code: "TypeMismatch", Option: "$apply", Pos: 11, Msg: "sum needs a number, not Edm.String"}},
		{"Product", "$apply=groupby((Manufacturer))", plan.Error{Code: "NotSupported", Option: "$apply", Pos: 10, Msg: "grouping by an entity or a complex value is not supported: group by its properties"}},
		{"Product", "$apply=groupby((Name))&$expand=Manufacturer", plan.Error{Code: "NotSupported", Option: "$expand", Pos: 1, Msg: "$expand after an aggregating $apply is not supported"}},
		{"Product", "$apply=concat(aggregate($count as X),aggregate(Name with max as X))", plan.Error{Code: "TypeMismatch", Option: "$apply", Msg: "the sequences of concat give X different types"}},
		{"Product", "$apply=bottomcount(0,Price)", plan.Error{Code: "InvalidValue", Option: "$apply", Pos: 13, Msg: "the number of bottomcount must be positive"}},
		{"Product", "$apply=groupby((Name))&$skiptoken=-1", plan.Error{Code: "InvalidValue", Option: "$skiptoken", Msg: "invalid $skiptoken: not the offset of a page"}},
		{"Product", "$index=1", plan.Error{Code: "SyntaxError", Option: "$index", Pos: 1, Msg: "$index applies to a POST that inserts into an ordered collection, not to a read"}},
		{"Product", "$expand=Categories($compute=Name as Name)", plan.Error{Code: "SyntaxError", Option: "$expand", Pos: 21, Msg: "the computed property Name has the name of another property of Category"}},
		{"Product", "$filter=lenght(Name) eq 1", plan.Error{Code: "SyntaxError", Option: "$filter", Pos: 1, Msg: "unknown function lenght"}},
		{"Product", "$filter=geo.foo(Name) eq 1", plan.Error{Code: "SyntaxError", Option: "$filter", Pos: 1, Msg: "unknown function geo.foo"}},
		{"Product", "$filter=Manufacturer/lenght(Name) eq 1", plan.Error{Code: "SyntaxError", Option: "$filter", Pos: 14, Msg: "unknown function lenght"}},
		{"Product", "$filter=Store.Nope(x=1) eq 1", plan.Error{Code: "SyntaxError", Option: "$filter", Pos: 1, Msg: "unknown function Store.Nope"}},
		{"Product", "$filter=geo.distance(Name,Name) lt 1", plan.Error{Code: "NotSupported", Option: "$filter", Pos: 1, Msg: "function geo.distance is not supported"}},
		{"Product", "$filter=geo.distance(Name) lt 1", plan.Error{Code: "SyntaxError", Option: "$filter", Pos: 1, Msg: "geo.distance takes 2 arguments, not 1"}},
		{"Product", "$filter=geo.length(Name,Name) lt 1", plan.Error{Code: "SyntaxError", Option: "$filter", Pos: 1, Msg: "geo.length takes 1 argument, not 2"}},
		{"Product", "$filter=Categories('c1')/Name eq 'x'", plan.Error{Code: "NotSupported", Option: "$filter", Pos: 1, Msg: "key predicates and function calls in member paths are not supported"}},
		{"Product", "$filter=Name in ()", plan.Error{Code: "SyntaxError", Option: "$filter", Pos: 9, Msg: "in needs a list of one or more values"}},
		{"Product", "$filter=cast(Price,Edm.Int32) eq 1", plan.Error{Code: "NotSupported", Option: "$filter", Pos: 1, Msg: "cast from Edm.Decimal to Edm.Int32 is not supported"}},
		{"Product", "$filter=CreatedOnUtc add duration'P1D' gt now()", plan.Error{Code: "NotSupported", Option: "$filter", Pos: 14, Msg: "add on dates and times is not supported"}},
		{"Product", "$filter=$root/Product('p01')/Name eq 'x'", plan.Error{Code: "NotSupported", Option: "$filter", Pos: 1, Msg: "$root paths are not supported"}},
		{"Product", "$filter=Weight mod 2 eq 0", plan.Error{Code: "NotSupported", Option: "$filter", Pos: 8, Msg: "mod on floating-point values is not supported"}},
		{"Customer", "$filter=BillingAddress eq 'x'", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 1, Msg: "eq cannot take a complex value: BillingAddress"}},
		{"Customer", "$filter=BillingAddress gt null", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 1, Msg: "gt cannot take a complex value: BillingAddress"}},
		{"Customer", "$filter=length(BillingAddress) gt 1", plan.Error{Code: "NotSupported", Option: "$filter", Pos: 8, Msg: "complex values cannot be used in expressions: BillingAddress"}},
		{"Product", "$filter=cast(Price,Edm.Foo) eq 1", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 12, Msg: "Edm.Foo is not a type"}},
		{"Product", "$filter=cast(Price,Edm.GeographyPoint) eq 1", plan.Error{Code: "NotSupported", Option: "$filter", Pos: 12, Msg: "cast to Edm.GeographyPoint is not supported"}},
		{"Product", "$filter=cast(Price,Store.PostalAddress) eq null", plan.Error{Code: "NotSupported", Option: "$filter", Pos: 12, Msg: "cast to Store.PostalAddress is not supported"}},
		{"Order", "$search=x", plan.Error{Code: "NotSupported", Option: "$search", Pos: 1, Msg: "$search is not supported on Order: it has no searchable properties"}},
		{"Product", "$skiptoken=abc", plan.Error{Code: "InvalidValue", Option: "$skiptoken", Msg: "invalid $skiptoken: not a JSON array"}},
		{"Product", "$skiptoken=WzEsMl0", plan.Error{Code: "InvalidValue", Option: "$skiptoken", Msg: "invalid $skiptoken: it belongs to another query"}},
		{"Product", "$top=1&$top=2", plan.Error{Code: "SyntaxError", Option: "$top", Msg: "$top must not appear more than once"}},
		{"Product('p01')", "$filter=Price gt 1", plan.Error{Code: "SyntaxError", Option: "$filter", Msg: "$filter does not apply to a single entity"}},
		{"Product('p01')", "$top=1", plan.Error{Code: "SyntaxError", Option: "$top", Msg: "$top does not apply to a single entity"}},
		{"Product('p01')", "$skip=1", plan.Error{Code: "SyntaxError", Option: "$skip", Msg: "$skip does not apply to a single entity"}},
		{"Product('p01')", "$count=true", plan.Error{Code: "SyntaxError", Option: "$count", Msg: "$count does not apply to a single entity"}},
		{"Product(1)", "", plan.Error{Code: "TypeMismatch", Option: "path", Pos: 9, Msg: "key Id is Edm.String, not integer"}},
		{"OrderItem('o1')", "", plan.Error{Code: "SyntaxError", Option: "path", Pos: 11, Msg: "OrderItem has a composite key: name each key property"}},
		{"OrderItem(OrderId='o1')", "", plan.Error{Code: "SyntaxError", Option: "path", Msg: "missing key property LineNumber"}},
		{"OrderItem(OrderId='o1',Line=1)", "", plan.Error{Code: "UnknownProperty", Option: "path", Pos: 24, Msg: "Line is not a key property of OrderItem"}},
	} {
		_, err := p.Read(scopeOf(t, m, c.path), encodeOptions(c.query))
		var got *plan.Error
		if !errors.As(err, &got) {
			t.Errorf("Read(%s?%s) = %v, want %v", c.path, c.query, err, &c.want)
			continue
		}
		if diff := cmp.Diff(c.want, *got); diff != "" {
			t.Errorf("Read(%s?%s) error (-want +got):\n%s", c.path, c.query, diff)
		}
	}
}

func TestErrorString(t *testing.T) {
	for _, c := range []struct {
		err  plan.Error
		want string
	}{
		{plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 6, Msg: "m"}, "$filter:1:6: m"},
		{plan.Error{Code: "InvalidValue", Option: "$skiptoken", Msg: "m"}, "$skiptoken: m"},
		{plan.Error{Code: "SyntaxError", Msg: "m"}, "m"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error(%+v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// TestSkipTokenOfAnotherQuery checks that a token is refused by a query with another $orderby.
func TestSkipTokenOfAnotherQuery(t *testing.T) {
	m := builtModel(t)
	dbs := fixtureDBs(t, m)
	p := newPlanner(m, dbs[0].Dialect())
	scope := plan.Scope{Set: m.EntitySet("Product")}
	r, err := p.Read(scope, "$orderby=Name")
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := fetch(dbs[0], r, 2)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := r.SkipToken(rows[1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Read(scope, "$orderby=Name&$skiptoken="+tok); err != nil {
		t.Errorf("Read with its own token = %v", err)
	}
	var e *plan.Error
	if _, err := p.Read(scope, "$orderby=Price&$skiptoken="+tok); !errors.As(err, &e) || e.Code != plan.CodeInvalidValue {
		t.Errorf("Read with another query's token = %v, want InvalidValue", err)
	}
	// A token whose value does not fit the order key's type.
	r2, _ := p.Read(scope, "$orderby=Price")
	rows, _, _ = fetch(dbs[0], r2, 1)
	tok2, _ := r2.SkipToken(rows[0])
	tampered := tamper(t, tok2)
	if _, err := p.Read(scope, "$orderby=Price&$skiptoken="+tampered); !errors.As(err, &e) || e.Code != plan.CodeInvalidValue {
		t.Errorf("Read with a tampered token = %v, want InvalidValue", err)
	}
	// A string value holding NUL, which no column holds (PostgreSQL would refuse to compare with it).
	nul := nameToken(t, "a\x00b", "p01")
	if _, err := p.Read(scope, "$orderby=Name&$skiptoken="+nul); !errors.As(err, &e) || e.Code != plan.CodeInvalidValue {
		t.Errorf("Read with a token holding NUL = %v, want InvalidValue", err)
	}
}

// tamper replaces the first order-by value of a token by a string.
func tamper(t *testing.T, tok string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		t.Fatal(err)
	}
	var vals []any
	if err := json.Unmarshal(raw, &vals); err != nil {
		t.Fatal(err)
	}
	vals[1] = "not a decimal"
	out, _ := json.Marshal(vals)
	return base64.RawURLEncoding.EncodeToString(out)
}

// TestTooComplex checks that nesting that repeats operands in SQL stops at a bound instead of growing the text
// exponentially.
func TestTooComplex(t *testing.T) {
	m := builtModel(t)
	p := newPlanner(m, sqlite.Dialect{})
	f := "Weight"
	for i := 0; i < 40; i++ {
		f = "floor(" + f + ")"
	}
	_, err := p.Read(plan.Scope{Set: m.EntitySet("Product")}, "$filter="+f+" eq 1")
	var e *plan.Error
	if !errors.As(err, &e) || e.Code != plan.CodeLimitExceeded {
		t.Errorf("Read(40 nested floor) = %v, want LimitExceeded", err)
	}
}

// TestReadLimits reads under small limits: each past its limit is a LimitExceeded error naming it, on a cached
// plan too ($top is read afresh), and the same query within the limits plans.
func TestReadLimits(t *testing.T) {
	m := builtModel(t)
	p := newPlanner(m, sqlite.Dialect{})
	for _, c := range []struct {
		name   string
		limits plan.Limits
		query  string
		want   *plan.Error
	}{
		{"$top", plan.Limits{MaxTop: 10}, "$top=11", &plan.Error{Code: "LimitExceeded", Option: "$top", Pos: 1, Msg: "$top 11 exceeds the limit of 10"}},
		{"$top spelt otherwise", plan.Limits{MaxTop: 10}, "top=11&$orderby=Name", &plan.Error{Code: "LimitExceeded", Option: "top", Pos: 1, Msg: "$top 11 exceeds the limit of 10"}},
		{"$top at the limit", plan.Limits{MaxTop: 10}, "$top=10", nil},
		{"nested $top", plan.Limits{MaxTop: 10}, "$expand=Categories($top=11)", &plan.Error{Code: "LimitExceeded", Option: "$expand", Pos: 1, Msg: "$top 11 exceeds the limit of 10"}},
		{"expansions", plan.Limits{Expands: 2}, "$expand=Categories($expand=Parent,Children)", &plan.Error{Code: "LimitExceeded", Option: "$expand", Pos: 27, Msg: "the query expands more than the limit of 2 navigation properties"}},
		{"expansions of *", plan.Limits{Expands: 1}, "$expand=*", &plan.Error{Code: "LimitExceeded", Option: "$expand", Pos: 1, Msg: "the query expands more than the limit of 1 navigation properties"}},
		{"expansions at the limit", plan.Limits{Expands: 2}, "$expand=Categories($expand=Parent)", nil},
		{"expand depth", plan.Limits{Query: syntax.Limits{ExpandDepth: 1}}, "$expand=Categories($expand=Parent)", &plan.Error{Code: "LimitExceeded", Option: "$expand", Pos: 20, Msg: "$expand depth exceeds the limit of 1"}},
		{"literal length", plan.Limits{Query: syntax.Limits{LiteralLength: 2}}, "$filter=Name eq 'abc'", &plan.Error{Code: "LimitExceeded", Option: "$filter", Pos: 9, Msg: "the literal exceeds the limit of 2 characters"}},
		{"lambda depth through an alias", plan.Limits{Query: syntax.Limits{LambdaDepth: 1}}, "$filter=Categories/any(c:@p)&@p=c/Products/any(x:x/Published)", &plan.Error{Code: "LimitExceeded", Option: "@p", Pos: 12, Msg: "lambda expressions nest deeper than 1 levels"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := plan.ReadOptions{Limits: c.limits}
			for _, pass := range []string{"first", "cached"} {
				_, err := p.ReadWith(plan.Scope{Set: m.EntitySet("Product")}, encodeOptions(c.query), opts)
				var got *plan.Error
				if err != nil && !errors.As(err, &got) {
					t.Fatalf("ReadWith(%s) %s = %v, want a *plan.Error", c.query, pass, err)
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("ReadWith(%s) %s: error (-want +got):\n%s", c.query, pass, diff)
				}
			}
		})
	}
	// Without limits the same queries plan: the limits are part of the cache key.
	if _, err := p.Read(plan.Scope{Set: m.EntitySet("Product")}, "$top=11"); err != nil {
		t.Errorf("Read($top=11) without limits = %v", err)
	}
}

// TestTopOnSingleEntityCached: $top on one entity is a 400 also when the entity's plan (cached without $top)
// is already in the cache.
func TestTopOnSingleEntityCached(t *testing.T) {
	m := builtModel(t)
	p := newPlanner(m, sqlite.Dialect{})
	rp, err := syntax.ParsePath("Product('p01')")
	if err != nil {
		t.Fatal(err)
	}
	scope := plan.Scope{Set: m.EntitySet("Product"), Key: rp.Segments[0].Args[0].Args}
	if _, err := p.Read(scope, ""); err != nil {
		t.Fatal(err)
	}
	_, err = p.Read(scope, "$top=5")
	if e, ok := err.(*plan.Error); !ok || e.Msg != "$top does not apply to a single entity" {
		t.Errorf("Read(Product('p01')?$top=5) after Read(Product('p01')) = %v, want the $top error", err)
	}
}

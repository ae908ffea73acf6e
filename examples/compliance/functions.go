package main

import (
	"context"
	"fmt"
	"strings"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
)

// functionDeclarations are the contract's functions. GetTopProducts is both unbound (the suite calls
// /GetTopProducts()) and bound to the Product collection, each with three overloads; Calculate, Convert and
// CalculatePrice are overloaded by their parameter names.
func functionDeclarations() []*edm.Function {
	products := &edm.ReturnType{Entity: "Product", Collection: true}
	double := &edm.ReturnType{Type: edm.KindDouble}
	param := func(name string, k edm.Kind) edm.Parameter { return edm.Parameter{Name: name, Type: k, Required: true} }
	topOverloads := [][]edm.Parameter{nil, {param("count", edm.KindInt64)},
		{param("count", edm.KindInt64), param("category", edm.KindString)}}
	var out []*edm.Function
	for _, params := range topOverloads {
		out = append(out, &edm.Function{Name: "GetTopProducts", Parameters: params, ReturnType: products},
			&edm.Function{Name: "GetTopProducts", Bound: true, BindingType: "Product", BindingCollection: true,
				Parameters: params, ReturnType: products})
	}
	product := func(name string, params []edm.Parameter, result *edm.ReturnType) *edm.Function {
		return &edm.Function{Name: name, Bound: true, BindingType: "Product", Parameters: params, ReturnType: result}
	}
	return append(out,
		product("GetTotalPrice", []edm.Parameter{param("taxRate", edm.KindDouble)}, double),
		&edm.Function{Name: "GetProductStats", Bound: true, BindingType: "Product", BindingCollection: true,
			ReturnType: &edm.ReturnType{Type: edm.KindInt64}},
		product("GetRelatedProducts", nil, products),
		&edm.Function{Name: "GetAveragePrice", Bound: true, BindingType: "Product", BindingCollection: true, ReturnType: double},
		&edm.Function{Name: "FindProducts", Parameters: []edm.Parameter{param("name", edm.KindString),
			param("maxPrice", edm.KindDouble)}, ReturnType: products},
		&edm.Function{Name: "Calculate", Parameters: []edm.Parameter{param("value", edm.KindInt64)},
			ReturnType: &edm.ReturnType{Type: edm.KindInt64}},
		&edm.Function{Name: "Calculate", Parameters: []edm.Parameter{param("a", edm.KindInt64), param("b", edm.KindInt64)},
			ReturnType: &edm.ReturnType{Type: edm.KindInt64}},
		&edm.Function{Name: "Convert", Parameters: []edm.Parameter{param("input", edm.KindString)},
			ReturnType: &edm.ReturnType{Type: edm.KindString}},
		&edm.Function{Name: "Convert", Parameters: []edm.Parameter{param("number", edm.KindInt64)},
			ReturnType: &edm.ReturnType{Type: edm.KindString}},
		product("CalculatePrice", []edm.Parameter{param("discount", edm.KindDouble)}, double),
		product("CalculatePrice", []edm.Parameter{param("discount", edm.KindDouble), param("tax", edm.KindDouble)}, double),
		product("GetInfo", []edm.Parameter{param("format", edm.KindString)}, &edm.ReturnType{Type: edm.KindString}),
	)
}

// functions are the handlers of the model's functions, by binding and name.
func functions() map[string]odata.FunctionFunc {
	return map[string]odata.FunctionFunc{
		"GetTopProducts":                     topProducts,
		"Collection(Product)/GetTopProducts": topProducts,
		"Product/GetTotalPrice": func(_ context.Context, call *odata.FunctionCall) (any, error) {
			return price(call.Entity) * (1 + call.Params["taxRate"].(float64)), nil
		},
		"Collection(Product)/GetProductStats": func(ctx context.Context, call *odata.FunctionCall) (any, error) {
			var n int64
			err := call.Tx.Builder().Select("count(*)").From(call.Tx.Dialect().QuoteIdent("product")).QueryRowContext(ctx).Scan(&n)
			return n, err
		},
		"Product/GetRelatedProducts": func(ctx context.Context, call *odata.FunctionCall) (any, error) {
			q := call.Tx.Dialect().QuoteIdent
			related := sq.Select(q("related_product_id")).From(q(relationTable)).
				Where(sq.Eq{q("product_id"): call.Entity["ID"]})
			return call.Tx.Query(ctx, call.Tx.Model.EntityType("Product"), sq.Expr(q("id")+" IN (?)", related), "name")
		},
		"Collection(Product)/GetAveragePrice": func(ctx context.Context, call *odata.FunctionCall) (any, error) {
			var avg *float64
			err := call.Tx.Builder().Select("avg(" + call.Tx.Dialect().QuoteIdent("price") + ")").
				From(call.Tx.Dialect().QuoteIdent("product")).QueryRowContext(ctx).Scan(&avg)
			if err != nil || avg == nil {
				return 0.0, err
			}
			return *avg, nil
		},
		"FindProducts": func(ctx context.Context, call *odata.FunctionCall) (any, error) {
			all, err := call.Tx.Query(ctx, call.Tx.Model.EntityType("Product"),
				sq.LtOrEq{call.Tx.Dialect().QuoteIdent("price"): call.Params["maxPrice"]}, "name")
			var out []odata.Entity
			for _, p := range all {
				if name, _ := p["Name"].(string); strings.Contains(name, call.Params["name"].(string)) {
					out = append(out, p)
				}
			}
			return out, err
		},
		"Calculate": func(_ context.Context, call *odata.FunctionCall) (any, error) {
			if v, ok := call.Params["value"].(int64); ok {
				return v * 2, nil
			}
			return call.Params["a"].(int64) + call.Params["b"].(int64), nil
		},
		"Convert": func(_ context.Context, call *odata.FunctionCall) (any, error) {
			if s, ok := call.Params["input"].(string); ok {
				return strings.ToUpper(s), nil
			}
			return fmt.Sprint(call.Params["number"]), nil
		},
		"Product/CalculatePrice": func(_ context.Context, call *odata.FunctionCall) (any, error) {
			p := price(call.Entity) * (1 - call.Params["discount"].(float64)/100)
			if tax, ok := call.Params["tax"].(float64); ok {
				p *= 1 + tax/100
			}
			return p, nil
		},
		"Product/GetInfo": func(_ context.Context, call *odata.FunctionCall) (any, error) {
			name, _ := call.Entity["Name"].(string)
			return fmt.Sprintf("%s (%s)", name, call.Params["format"]), nil
		},
	}
}

// topProducts returns the products by price, highest first: all of them, the first count, or the first count
// of the category of that name.
func topProducts(ctx context.Context, call *odata.FunctionCall) (any, error) {
	q := call.Tx.Dialect().QuoteIdent
	var where sq.Sqlizer
	if category, ok := call.Params["category"].(string); ok {
		where = sq.Expr(q("category_id")+" IN (?)", sq.Select(q("id")).From(q("category")).
			Where(sq.Eq{q("name"): category}))
	}
	all, err := call.Tx.Query(ctx, call.Tx.Model.EntityType("Product"), where, q("price")+" DESC", q("id"))
	if n, ok := call.Params["count"].(int64); ok && n >= 0 && int(n) < len(all) {
		all = all[:n]
	}
	return all, err
}

package odata

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

// FunctionFunc is the handler of a function: it computes the result from the parameters. It runs in a
// transaction that is rolled back when it returns, so a function changes nothing, as OData has it. The result
// is written as the function's return type says (see ActionFunc); nil is 204 No Content.
type FunctionFunc func(ctx context.Context, call *FunctionCall) (any, error)

// FunctionCall is one call of a function.
type FunctionCall struct {
	// Tx is the call's transaction, rolled back when the handler returns.
	Tx *Tx
	// Function is the overload called: the one whose parameter names match those of the URL.
	Function *edm.Function
	// Entity is the entity the function is bound to (a 404 when it does not exist or a row filter hides it);
	// nil for a function bound to a collection or unbound.
	Entity Entity
	// Set is the entity set a function bound to a collection is called on; nil otherwise.
	Set *edm.EntitySet
	// Params holds the parameters of the URL by their declared names, converted to the parameters' types: a
	// parameter that was not given is absent, one given as null is nil.
	Params map[string]any
	// Request is the HTTP request.
	Request *http.Request
}

// errRolledBack ends the transaction of a function call: RunTx rolls it back and callFunction drops the error.
var errRolledBack = errors.New("odata: the function's transaction is rolled back")

// callFunction answers GET of a function: the parameters are converted from the URL (in the parentheses,
// with aliases from the query, or as query options named after the parameters, as OData 4.01 allows), the
// overload they name is chosen, the bound entity is read, and the handler runs in a transaction that is then
// rolled back; its result is written by the function's return type.
func (s *Service) callFunction(req *request) error {
	t := req.target
	args := append(slices.Clip(t.funcArgs), queryParams(t.funcOptions)...)
	f := chooseOverload(t.functions, args)
	composed := t.composedRest != "" || hasSystemOptions(req.query)
	if composed {
		if _, err := s.composedSet(t, f); err != nil {
			return err
		}
	}
	params, err := s.functionParams(f, args, req.query.Aliases)
	if err != nil {
		return err
	}
	if err := req.negotiateJSON(); err != nil {
		return err
	}
	ctx := req.r.Context()
	var body []byte
	var etag string
	var keys [][]any // the keys of the entities a composed call returned
	err = s.inReadTx(ctx, func(tx *Tx) error {
		call := &FunctionCall{Tx: tx, Function: f, Params: params, Request: req.r}
		if f.Bound && !f.BindingCollection {
			if call.Entity, err = s.boundEntity(ctx, tx, t); err != nil {
				return err
			}
		}
		if f.Bound && f.BindingCollection {
			call.Set = t.set
		}
		result, err := s.functions[f](ctx, call)
		if err != nil {
			return err
		}
		if composed {
			keys, err = resultKeys(f, result)
			return err
		}
		if result, err = withRowVersion(ctx, tx, f.ReturnType, result); err != nil {
			return err
		}
		body, etag, err = s.renderResult(req, f.Name, f.ReturnType, result)
		return err
	})
	if err != nil {
		return s.readError(err)
	}
	if composed {
		return s.readComposed(req, f, keys)
	}
	return writeOperationResult(req, body, etag)
}

// splitParameterOptions takes the options named after a parameter of one of the overloads of a function call
// out of its query (OData 4.01: GetTopProducts()?count=5, where count is the parameter, not $count: a name
// spelt without "$" or "@" that a parameter has), and returns the rest of the query and those options,
// percent-decoded.
func splitParameterOptions(q syntax.QueryString, overloads []*edm.Function) (syntax.QueryString, []syntax.CustomOption) {
	var rest syntax.QueryString
	var params []syntax.CustomOption
	for _, p := range q {
		isParam := !strings.HasPrefix(p.Name, "$") && !strings.HasPrefix(p.Name, "@") &&
			slices.ContainsFunc(overloads, func(f *edm.Function) bool { return f.Parameter(p.Name) != nil })
		if isParam {
			params = append(params, syntax.CustomOption{Name: p.Name, Value: p.Value()})
		} else {
			rest = append(rest, p)
		}
	}
	return rest, params
}

// queryParams returns the parameters a function call gives as query options as arguments: a literal, or for
// text that is none the string itself (?category=Electronics).
func queryParams(options []syntax.CustomOption) []syntax.Arg {
	var args []syntax.Arg
	for _, o := range options {
		value, err := syntax.ParseExpr(syntax.Escape(o.Value))
		if _, literal := value.(*syntax.Literal); err != nil || !literal {
			value = &syntax.Literal{Kind: syntax.LitString, Text: o.Value, Value: o.Value}
		}
		args = append(args, syntax.Arg{Name: o.Name, Value: value})
	}
	return args
}

// boundEntity reads the entity an operation is bound to without locking it, as a row filter lets the request
// see it.
func (s *Service) boundEntity(ctx context.Context, tx *Tx, t *target) (Entity, error) {
	where, err := s.boundWhere(ctx, tx, t)
	if err != nil {
		return nil, err
	}
	if where, err = s.visibleWhere(ctx, t.typ, where); err != nil {
		return nil, err
	}
	return tx.getWhere(ctx, t.typ, where, false)
}

// inReadTx runs fn in a transaction that is rolled back afterwards (in a batch's change set, in its
// transaction).
func (s *Service) inReadTx(ctx context.Context, fn func(tx *Tx) error) error {
	if group := sharedTx(ctx, s); group != nil {
		return group.run(fn)
	}
	err := sqldb.RunTx(ctx, s.db, func(sqlTx *sqldb.Tx) error {
		if err := fn(s.tx(sqlTx)); err != nil {
			return err
		}
		return errRolledBack
	})
	if errors.Is(err, errRolledBack) {
		return nil
	}
	return err
}

// functionParams converts the parameters of a function call's URL to their Go values. An unknown or repeated
// parameter, a value of the wrong type and a missing required parameter are 400s, every one a detail.
func (s *Service) functionParams(f *edm.Function, args []syntax.Arg, aliases map[string]syntax.Expr) (map[string]any, error) {
	params := map[string]any{}
	var details []ErrorDetail
	for _, a := range args {
		p := f.Parameter(a.Name)
		switch {
		case p == nil:
			details = append(details, ErrorDetail{Code: CodeUnknownField, Target: a.Name,
				Message: fmt.Sprintf("The function %s has no parameter %s.", f.Name, a.Name)})
			continue
		case hasKey(params, p.Name):
			details = append(details, ErrorDetail{Code: CodeInvalidValue, Target: p.Name,
				Message: fmt.Sprintf("The parameter %s is given more than once.", p.Name)})
			continue
		}
		v, err := s.planner.ParameterValue(p, a.Value, aliases)
		if err != nil {
			e := queryError(err).(*Error)
			if e.Code == CodeNotImplemented {
				return nil, e
			}
			details = append(details, ErrorDetail{Code: e.Code, Target: p.Name, Message: e.Message})
			continue
		}
		params[p.Name] = v
	}
	for i := range f.Parameters {
		p := &f.Parameters[i]
		if !hasKey(params, p.Name) && p.Required && !slices.ContainsFunc(details, func(d ErrorDetail) bool { return d.Target == p.Name }) {
			details = append(details, ErrorDetail{Code: CodeRequired, Target: p.Name,
				Message: fmt.Sprintf("The parameter %s is required.", p.Name)})
		}
	}
	if len(details) > 0 {
		return nil, ValidationError(details...)
	}
	return params, nil
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// function resolves segment i, a call of one of the overloads of a function bound to what the target addresses
// (unbound at the root), into the target of the call. A function without parameters may be called without
// parentheses (OData 4.01), and so may one whose parameters are given as query options.
func (r *pathResolver) function(i int, overloads []*edm.Function) error {
	seg, t := r.segments[i], r.target
	if len(overloads) == 0 {
		return NotFound(fmt.Sprintf("No overload of the function %s is bound here.", seg.Name))
	}
	f := overloads[0]
	rest := ""
	switch {
	case len(seg.Args) > 1:
		rest = r.raw[seg.Args[1].Pos-r.offset:]
	case i+1 < len(r.segments):
		rest = r.raw[r.segments[i+1].Pos-1-r.offset:]
	}
	switch {
	case f.Bound && f.BindingCollection && !t.direct:
		return Errorf(CodeNotImplemented, "The function %s is called on an entity set only, not through a navigation.", f.Name)
	case rest != "" && f.IsComposable && f.ReturnType != nil && f.ReturnType.EntityType() != nil:
		t.composedRest = rest
	case rest != "" && f.IsComposable:
		return Errorf(CodeNotImplemented, "Composing the result of the function %s, which is not entities, is not supported.", f.Name)
	case rest != "":
		return NotFound(fmt.Sprintf("Nothing may follow the function %s: it is not composable.", f.Name))
	}
	t.kind, t.functions, t.funcArgs = tFunction, overloads, nil
	if len(seg.Args) >= 1 {
		t.funcArgs = seg.Args[0].Args
	}
	return nil
}

// chooseOverload returns the overload a call's parameter names select: the one whose parameters are exactly
// those named, else the first that has every named parameter and needs no other, else the first with the most
// of them (whose missing or unknown parameters are then reported).
func chooseOverload(overloads []*edm.Function, args []syntax.Arg) *edm.Function {
	best, bestScore := overloads[0], -1
	for _, f := range overloads {
		known, required := 0, 0
		for _, a := range args {
			if f.Parameter(a.Name) != nil {
				known++
			}
		}
		for _, p := range f.Parameters {
			if p.Required {
				required++
			}
		}
		score := known * 4
		if known == len(args) {
			score += 2
			if required <= known {
				score++
			}
			if len(f.Parameters) == known {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = f, score
		}
	}
	return best
}

// boundFunctions returns the overloads of the function named name bound to what t addresses.
func (s *Service) boundFunctions(t *target, name string) []*edm.Function {
	var out []*edm.Function
	// The functions bound to the nearest type (the target's, else a base of it: they apply to derived types).
	for typ := t.typ; typ != nil && len(out) == 0; typ = typ.Base() {
		for _, f := range s.model.FunctionOverloads(name) {
			if f.Bound && f.Binding() == typ && f.BindingCollection == (t.kind == tCollection) {
				out = append(out, f)
			}
		}
	}
	return out
}

// unboundFunctions returns the unbound overloads of the function named name.
func (s *Service) unboundFunctions(name string) []*edm.Function {
	var out []*edm.Function
	for _, f := range s.model.FunctionOverloads(name) {
		if !f.Bound {
			out = append(out, f)
		}
	}
	return out
}

// registerFunctions resolves the keys of Config.Functions (as for Actions: "Type/Name", "Collection(Type)/Name"
// or "Name"; one handler serves every overload of that binding) and checks that every function has a handler.
func (s *Service) registerFunctions(handlers map[string]FunctionFunc, fail func(string, ...any)) {
	for _, key := range slices.Sorted(maps.Keys(handlers)) {
		handler := handlers[key]
		if handler == nil {
			fail("Functions[%q]: the handler is nil", key)
			continue
		}
		overloads, err := s.functionsOf(key)
		if err != nil {
			fail("Functions[%q]: %v", key, err)
			continue
		}
		for _, f := range overloads {
			s.functions[f] = handler
		}
	}
	for _, f := range s.model.Functions {
		if _, ok := s.functions[f]; !ok {
			fail("function %q has no handler: add Functions[%q]", f.Name, operationKey(f.Name, f.Bound, f.BindingType, f.BindingCollection))
		}
	}
}

// functionsOf returns the overloads of the function a key of Config.Functions names, or an error that says why
// there are none.
func (s *Service) functionsOf(key string) ([]*edm.Function, error) {
	et, collection, name, bound, err := s.operationBinding(key)
	if err != nil {
		return nil, err
	}
	var out []*edm.Function
	for _, f := range s.model.FunctionOverloads(name) {
		if f.Bound == bound && f.Binding() == et && (!bound || f.BindingCollection == collection) {
			out = append(out, f)
		}
	}
	switch {
	case len(out) > 0:
		return out, nil
	case len(s.model.FunctionOverloads(name)) == 0:
		return nil, fmt.Errorf("the model has no function %q", name)
	}
	binding, _, _ := strings.Cut(key, "/")
	return nil, fmt.Errorf("the model has no overload of %q bound to %s", name, bindingLabel(binding, bound))
}

// operationKey is the key of Config.Actions or Config.Functions for an operation.
func operationKey(name string, bound bool, bindingType string, collection bool) string {
	switch {
	case !bound:
		return name
	case collection:
		return "Collection(" + bindingType + ")/" + name
	}
	return bindingType + "/" + name
}

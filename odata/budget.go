package odata

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// DefaultTimeBudget is the time budget of a request when Config.TimeBudget is zero (SPEC part 9).
const DefaultTimeBudget = 10 * time.Second

// budgetKey is the context key of the time budget WithTimeBudget gave a request.
type budgetKey struct{}

// WithTimeBudget returns a handler that runs next with a deadline budget after the request arrived: the
// request's context is cancelled then, which cancels the SQL statement that is running (SQLite interrupts it,
// PostgreSQL cancels it on the server), and the request answers 503 TimeBudgetExceeded with Retry-After and a
// message naming the budget (WriteError). A budget of zero or less leaves the request without one.
//
// A Service applies its Config.TimeBudget itself; WithTimeBudget is for the routes a service serves beside the
// engine, so that they answer the same way. Wrapped around a Service, it replaces the Service's own budget (one
// deadline per request, not two).
func WithTimeBudget(next http.Handler, budget time.Duration) http.Handler {
	if budget <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, cancel := budgeted(r, budget)
		defer cancel()
		next.ServeHTTP(w, r)
	})
}

// hasBudget reports whether WithTimeBudget already gave r its budget.
func hasBudget(r *http.Request) bool {
	_, ok := r.Context().Value(budgetKey{}).(time.Duration)
	return ok
}

// budgeted returns r with a context that ends budget from now and records the budget for contextError.
func budgeted(r *http.Request, budget time.Duration) (*http.Request, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(r.Context(), budget)
	return r.WithContext(&budgetContext{Context: ctx, budget: budget}), cancel
}

// budgetContext is the context of a request under its time budget: the deadline's own context, which also
// answers the budget's key. It is one allocation where context.WithValue is two (its node and the boxed
// budget), on every request; the budget is boxed only when asked for, by an answer past it.
type budgetContext struct {
	context.Context
	budget time.Duration
}

// Value returns the budget for budgetKey, else the deadline context's value.
func (c *budgetContext) Value(key any) any {
	if _, ok := key.(budgetKey); ok {
		return c.budget
	}
	return c.Context.Value(key)
}

// contextError returns the error a request whose context has ended answers with instead of e, a failure of the
// server: the client went away (499, for the log only), or the time budget ran out (503). Otherwise e.
func contextError(ctx context.Context, e *Error) *Error {
	switch ctx.Err() {
	case context.Canceled:
		return &Error{Code: CodeClientClosedRequest, Message: "The client closed the request before the answer.", Err: e}
	case context.DeadlineExceeded:
		budget, ok := ctx.Value(budgetKey{}).(time.Duration)
		if !ok {
			return e
		}
		retry := max(1, int(budget/time.Second))
		return &Error{Code: CodeTimeBudgetExceeded, Err: e,
			Message: fmt.Sprintf("The request ran past its time budget of %s and was cancelled.", budget),
			Header:  http.Header{"Retry-After": {strconv.Itoa(retry)}}}
	}
	return e
}

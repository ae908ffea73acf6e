package odata

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// DefaultTimeBudget is the time budget of a request when Config.TimeBudget is zero (SPEC part 9).
const DefaultTimeBudget = 10 * time.Second

// budgetKey is the context key that tells a request has the time budget WithTimeBudget gave it (budgetMark).
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
	cause := &budgetExceeded{budget: budget}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, cancel := budgeted(r, cause, true)
		defer cancel()
		next.ServeHTTP(w, r)
	})
}

// hasBudget reports whether WithTimeBudget (or an asynchronous job) already gave r its budget.
func hasBudget(r *http.Request) bool {
	_, ok := r.Context().Value(budgetKey{}).(bool)
	return ok
}

// budgeted returns r with a context that ends cause's budget from now, with cause as the cause of its end
// (contextError). With marked, the context also tells hasBudget that r has its budget.
func budgeted(r *http.Request, cause *budgetExceeded, marked bool) (*http.Request, context.CancelFunc) {
	ctx, cancel := context.WithTimeoutCause(r.Context(), cause.budget, cause)
	if marked {
		ctx = budgetMark{ctx}
	}
	return r.WithContext(ctx), cancel
}

// budgetExceeded is the cause of the end of a request's context when its time budget ran out. One is made per
// budget, not per request.
type budgetExceeded struct {
	budget time.Duration
}

// Error says which budget ran out.
func (b *budgetExceeded) Error() string { return "time budget of " + b.budget.String() + " exceeded" }

// budgetMark is a context under a budget that answers budgetKey (hasBudget).
type budgetMark struct {
	context.Context
}

// Value returns true for budgetKey, else the budget context's value.
func (c budgetMark) Value(key any) any {
	if _, ok := key.(budgetKey); ok {
		return true
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
		var exceeded *budgetExceeded
		if !errors.As(context.Cause(ctx), &exceeded) {
			return e
		}
		budget := exceeded.budget
		retry := max(1, int(budget/time.Second))
		return &Error{Code: CodeTimeBudgetExceeded, Err: e,
			Message: fmt.Sprintf("The request ran past its time budget of %s and was cancelled.", budget),
			Header:  http.Header{"Retry-After": {strconv.Itoa(retry)}}}
	}
	return e
}

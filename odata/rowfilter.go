package odata

import (
	"context"
	"errors"
	"fmt"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
)

// rowFilters returns the row filters of the request of ctx (SetOptions.ReadFilter), nil when no set has one or
// every text is empty.
func (s *Service) rowFilters(ctx context.Context) (*plan.RowFilters, error) {
	if len(s.rowFilterSets) == 0 {
		return nil, nil
	}
	texts, err := perType(ctx, s.rowFilterSets, "ReadFilter", func(c *setConfig) func(context.Context) (string, error) { return c.ReadFilter })
	if err != nil {
		return nil, err
	}
	return plan.NewRowFilters(texts), nil
}

// perType calls the function option of each set of sets (SetOptions.ReadFilter, Redact) for the request of ctx
// and returns the results by entity type. An error a function returns is answered as it is when it is an
// *Error (say, Forbidden without a principal), else it is the service's failure.
func perType[V any](ctx context.Context, sets map[*edm.EntityType]*setConfig, option string,
	function func(*setConfig) func(context.Context) (V, error)) (map[*edm.EntityType]V, error) {
	out := make(map[*edm.EntityType]V, len(sets))
	for t, config := range sets {
		v, err := function(config)(ctx)
		if err != nil {
			var answer *Error
			if errors.As(err, &answer) {
				return nil, answer
			}
			return nil, fmt.Errorf("%s of %s: %w", option, t.Name, err)
		}
		out[t] = v
	}
	return out, nil
}

// planRead plans a read of scope with the request's row filters, without the properties it may not read, under
// limits.
func (s *Service) planRead(ctx context.Context, scope plan.Scope, rawQuery string, limits *requestLimits) (*plan.Read, error) {
	return s.planReadIn(ctx, scope, rawQuery, limits, nil)
}

// planReadIn is planRead making the read in room, a zero plan.Read, when room is not nil.
func (s *Service) planReadIn(ctx context.Context, scope plan.Scope, rawQuery string, limits *requestLimits,
	room *plan.Read) (*plan.Read, error) {
	filters, err := s.rowFilters(ctx)
	if err != nil {
		return nil, err
	}
	redacted, err := s.redactions(ctx)
	if err != nil {
		return nil, err
	}
	return s.planner.ReadWith(scope, rawQuery,
		plan.ReadOptions{Filters: filters, Redacted: redacted, Limits: limits.read, Room: room})
}

// visibleWhere returns where (a condition on the table's own name, for getWhere) with the request's row filter
// of et added, so that a write never reads a hidden entity: it is a 404 as a missing one.
func (s *Service) visibleWhere(ctx context.Context, et *edm.EntityType, where sq.Sqlizer) (sq.Sqlizer, error) {
	if s.rowFilterSets[et] == nil {
		return where, nil
	}
	filters, err := s.rowFilters(ctx)
	if err != nil {
		return nil, err
	}
	condition, args, err := s.planner.RowCondition(et, filters)
	if err != nil || condition == "" {
		return where, err
	}
	return sq.And{where, sq.Expr(condition, args...)}, nil
}

// errHiddenResult answers a create or update whose result the row filter of the request hides.
func errHiddenResult(et *edm.EntityType) error {
	return Forbidden(fmt.Sprintf("The %s would not be visible to this request.", et.Name))
}

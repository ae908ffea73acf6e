package syntax

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// limitResult is what a parse under limits gave: the error's text and code, or "" for success.
type limitResult struct {
	Err, Code string
}

func resultOf(err error) limitResult {
	var se *Error
	if errors.As(err, &se) {
		return limitResult{Err: se.Error(), Code: se.Code}
	}
	if err != nil {
		return limitResult{Err: err.Error()}
	}
	return limitResult{}
}

func limitExceeded(msg string) limitResult { return limitResult{Err: msg, Code: CodeLimitExceeded} }

// TestLimits parses a query with each limit set small: one past it is refused with a LimitExceeded error that
// names the limit, one at it is accepted, and a negative limit accepts what the default refuses.
func TestLimits(t *testing.T) {
	list := func(n int) string { return "Name in (" + strings.TrimSuffix(strings.Repeat("'a',", n), ",") + ")" }
	tests := []struct {
		name   string
		limits Limits
		query  string
		want   limitResult
	}{
		{"expand depth", Limits{ExpandDepth: 1}, "$expand=A($expand=B)", limitExceeded("$expand:1:11: $expand depth exceeds the limit of 1")},
		{"expand depth at the limit", Limits{ExpandDepth: 2}, "$expand=A($expand=B)", limitResult{}},
		{"lambda depth", Limits{LambdaDepth: 1}, "$filter=A/any(a:a/B/any(b:b eq 1))", limitExceeded("$filter:1:13: lambda nesting exceeds the limit of 1 levels")},
		{"lambdas", Limits{Lambdas: 2}, "$filter=A/any(a:a eq 1) or B/any(b:b) or C/all(c:c)", limitExceeded("$filter:1:36: the expression holds more than the limit of 2 lambdas (any/all)")},
		{"lambdas at the limit", Limits{Lambdas: 2}, "$filter=A/any(a:a eq 1) or B/any()", limitResult{}},
		{"literal length", Limits{LiteralLength: 3}, "$filter=Name eq 'abcd'", limitExceeded("$filter:1:9: the literal exceeds the limit of 3 characters")},
		{"number literal length", Limits{LiteralLength: 3}, "$filter=Pages eq 1000", limitExceeded("$filter:1:10: the literal exceeds the limit of 3 characters")},
		{"literal at the limit", Limits{LiteralLength: 3}, "$filter=Name eq 'abc' and Pages eq 100", limitResult{}},
		{"pattern size", Limits{PatternSize: 10}, "$filter=matchesPattern(Name,'a{1,20}')", limitExceeded("$filter:1:21: the pattern of matchesPattern exceeds the limit of 10 compiled instructions")},
		{"list items", Limits{InListItems: 2}, "$filter=" + list(3), limitExceeded("$filter:1:9: the list holds more than the limit of 2 items")},
		{"list items at the limit", Limits{InListItems: 2}, "$filter=" + list(2), limitResult{}},
		{"list items by default", Limits{}, "$filter=" + list(1001), limitExceeded("$filter:1:9: the list holds more than the limit of 1000 items")},
		{"no list limit", Limits{InListItems: -1}, "$filter=" + list(1001), limitResult{}},
		{"nodes", Limits{ExpressionNodes: 6}, "$filter=A eq 1 and B eq 2", limitExceeded("$filter:1:1: the expression holds more than the limit of 6 nodes")},
		{"nodes at the limit", Limits{ExpressionNodes: 7}, "$filter=A eq 1 and B eq 2", limitResult{}},
		{"nodes of a call", Limits{ExpressionNodes: 3}, "$filter=contains(Name,'a')", limitResult{}},
		{"nodes of a list", Limits{ExpressionNodes: 4}, "$filter=" + list(3), limitExceeded("$filter:1:1: the expression holds more than the limit of 4 nodes")},
		{"nodes of a lambda", Limits{ExpressionNodes: 5}, "$filter=A/any(a:a/B eq 1)", limitResult{}},
		{"nodes of a lambda past the limit", Limits{ExpressionNodes: 4}, "$filter=A/any(a:a/B eq 1)", limitExceeded("$filter:1:1: the expression holds more than the limit of 4 nodes")},
		{"nodes of a key predicate", Limits{ExpressionNodes: 2}, "$filter=Items('a')/Name eq 1", limitExceeded("$filter:1:1: the expression holds more than the limit of 2 nodes")},
		{"nodes of $orderby, all items", Limits{ExpressionNodes: 2}, "$orderby=A,B desc,C", limitExceeded("$orderby:1:1: the expression holds more than the limit of 2 nodes")},
		{"nodes of a parameter alias", Limits{ExpressionNodes: 3}, "$filter=A eq @p&@p=1 add 2 add 3", limitExceeded("@p:1:1: the expression holds more than the limit of 3 nodes")},
		{"nodes of a nested $filter", Limits{ExpressionNodes: 2}, "$expand=A($filter=B eq 1)", limitExceeded("$expand:1:11: the expression holds more than the limit of 2 nodes")},
		{"nodes by default", Limits{}, "$filter=" + strings.Repeat("A eq 1 or ", 750) + "A eq 1", limitExceeded("$filter:1:1: the expression holds more than the limit of 3000 nodes")},
		{"no node limit", Limits{ExpressionNodes: -1}, "$filter=" + strings.Repeat("A eq 1 or ", 750) + "A eq 1", limitResult{}},
		{"length", Limits{ExpressionLength: 10}, "$filter=Name eq 'abc'", limitExceeded("$filter:1:1: the value is longer than the limit of 10 bytes")},
		{"length of $search", Limits{ExpressionLength: 3}, "$search=blue", limitExceeded("$search:1:1: the value is longer than the limit of 3 bytes")},
		{"length of $orderby", Limits{ExpressionLength: 3}, "$orderby=Name", limitExceeded("$orderby:1:1: the value is longer than the limit of 3 bytes")},
		{"length counts the raw text", Limits{ExpressionLength: 12}, "$filter=Name%20eq%201", limitExceeded("$filter:1:1: the value is longer than the limit of 12 bytes")},
		{"length at the limit", Limits{ExpressionLength: 14}, "$filter=Name eq 'abc'", limitResult{}},
		{"transformations", Limits{ApplyTransformations: 3}, "$apply=filter(A eq 1)/groupby((B),filter(C eq 1)/aggregate($count as N))",
			limitExceeded("$apply:1:1: $apply holds 4 transformations, more than the limit of 3")},
		{"transformations at the limit", Limits{ApplyTransformations: 4}, "$apply=filter(A eq 1)/groupby((B),filter(C eq 1)/aggregate($count as N))", limitResult{}},
		{"transformations by default", Limits{}, "$apply=" + strings.Repeat("top(5)/", 32) + "top(1)",
			limitExceeded("$apply:1:1: $apply holds 33 transformations, more than the limit of 32")},
		{"nodes of $apply", Limits{ExpressionNodes: 3}, "$apply=filter(A eq 1 and B eq 2)", limitExceeded("$apply:1:1: the expression holds more than the limit of 3 nodes")},
		{"length of $apply", Limits{ExpressionLength: 10}, "$apply=filter(A eq 1)", limitExceeded("$apply:1:1: the value is longer than the limit of 10 bytes")},
		{"length by default", Limits{}, "$filter=Name eq 1 or " + strings.Repeat(" ", 16<<10), limitExceeded("$filter:1:1: the value is longer than the limit of 16384 bytes")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.limits.ParseQuery(tt.query)
			if diff := cmp.Diff(tt.want, resultOf(err)); diff != "" {
				t.Errorf("%+v.ParseQuery(%.60q): (-want +got)\n%s", tt.limits, tt.query, diff)
			}
		})
	}
}

// TestLimitsOfOtherParsers checks that ParsePath, ParseFilter and ParseExpr honour the limits too.
func TestLimitsOfOtherParsers(t *testing.T) {
	small := Limits{LiteralLength: 3, InListItems: 1, ExpressionLength: 20}
	tests := []struct {
		name  string
		parse func(string) error
		in    string
		want  limitResult
	}{
		{"path key", func(s string) error { _, err := small.ParsePath(s); return err }, "/Books('abcd')/Title", limitExceeded("path:1:8: the literal exceeds the limit of 3 characters")},
		{"path function parameter", func(s string) error { _, err := small.ParsePath(s); return err }, "/Fn(p='abcd')", limitExceeded("path:1:7: the literal exceeds the limit of 3 characters")},
		{"path within the limits", func(s string) error { _, err := small.ParsePath(s); return err }, "/Books('abc')/Title", limitResult{}},
		{"filter", func(s string) error { _, err := small.ParseFilter(s); return err }, "Name in ('a','b')", limitExceeded("$filter:1:9: the list holds more than the limit of 1 items")},
		{"filter length", func(s string) error { _, err := small.ParseFilter(s); return err }, "Name eq 'a' or Name eq 'b'", limitExceeded("$filter:1:1: the value is longer than the limit of 20 bytes")},
		{"expression", func(s string) error { _, err := small.ParseExpr(s); return err }, "'abcd'", limitExceeded(":1:1: the literal exceeds the limit of 3 characters")},
		{"package-level parsers keep the defaults", func(s string) error { _, err := ParseFilter(s); return err }, "Name eq '" + strings.Repeat("x", 1000) + "'", limitResult{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, resultOf(tt.parse(tt.in))); diff != "" {
				t.Errorf("parse(%.60q): (-want +got)\n%s", tt.in, diff)
			}
		})
	}
}

// TestLimitsWithDefaults checks the defaults a zero Limits stands for, and that negative limits stay.
func TestLimitsWithDefaults(t *testing.T) {
	want := Limits{ExpandDepth: 3, LambdaDepth: 4, Lambdas: 32, LiteralLength: 1000, PatternSize: 1000, InListItems: 1000,
		ExpressionNodes: 3000, ExpressionLength: 16384, ApplyTransformations: 32}
	if diff := cmp.Diff(want, Limits{}.WithDefaults()); diff != "" {
		t.Errorf("Limits{}.WithDefaults(): (-want +got)\n%s", diff)
	}
	want.ExpressionNodes, want.InListItems = -1, 5
	if diff := cmp.Diff(want, Limits{ExpressionNodes: -1, InListItems: 5}.WithDefaults()); diff != "" {
		t.Errorf("WithDefaults of negative and set fields: (-want +got)\n%s", diff)
	}
}

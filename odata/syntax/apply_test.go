package syntax

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseApply_DataAggregationForms parses the $apply forms of Data Aggregation 4.0 that a grammar needs
// beyond the common ones and prints them back canonically.
func TestParseApply_DataAggregationForms(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"from list", "aggregate(Amount with average from Time,Product/Name with max as A)",
			"aggregate(Amount with average from Time,Product/Name with max as A)"},
		{"from list then another item", "aggregate(Amount with sum from Time,Region with max as A,$count as N)",
			"aggregate(Amount with sum from Time,Region with max as A,$count as N)"},
		{"custom aggregate from a path, then another item", "aggregate(Forecast from Time,Budget)",
			"aggregate(Forecast from Time,Budget)"},
		{"type cast with a custom method", "aggregate(Self.Digital with Custom.discount as D)",
			"aggregate(Self.Digital with Custom.discount as D)"},
		{"custom function without parameters", "Self.condense()", "Self.condense()"},
		{"rolluprecursive", "groupby((rolluprecursive($root/Orgs,H,Org/ID)),aggregate(Amount with sum as T))",
			"groupby((rolluprecursive($root/Orgs,H,Org/ID)),aggregate(Amount with sum as T))"},
		{"rolluprecursive with transformations",
			"groupby((rolluprecursive($root/Orgs,H,Org/ID,descendants($root/Orgs,H,ID,filter(ID eq 'US'),keep start))))",
			"groupby((rolluprecursive($root/Orgs,H,Org/ID,descendants($root/Orgs,H,ID,filter(ID eq 'US'),keep start))))"},
		{"addnested with two sequences", "addnested(Products,filter(Amount gt 3) as F,top(1) as G)",
			"addnested(Products,filter(Amount gt 3) as F,top(1) as G)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery("$apply=" + tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, PrintApply(q.Apply)); diff != "" {
				t.Errorf("PrintApply (-want +got):\n%s", diff)
			}
		})
	}
}

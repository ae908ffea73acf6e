package syntax

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSchemaVersion checks that SchemaVersion finds the option as ParseQuery does and reads its value by the
// same grammar.
func TestSchemaVersion(t *testing.T) {
	type result struct {
		Version string
		Found   bool
		Err     string
	}
	for _, tc := range []struct {
		raw  string
		want result
	}{
		{"", result{}},
		{"$top=1&$filter=Name eq 'x'", result{}},
		{"$schemaversion=1.0", result{Version: "1.0", Found: true}},
		{"$schemaversion=*", result{Version: "*", Found: true}},
		{"$top=1&schemaversion=2024-01", result{Version: "2024-01", Found: true}},
		{"$SchemaVersion=v~1", result{Version: "v~1", Found: true}},
		{"%24schemaversion=%2A", result{Version: "*", Found: true}},
		{"$schemaversion=__nonexistent_schema_version__", result{Version: "__nonexistent_schema_version__", Found: true}},
		{"custom=1&@a=2&$schemaversion=3", result{Version: "3", Found: true}},
		{"$schemaversion=", result{Found: true, Err: "$schemaversion:1:1: expected a schema version, found end of input"}},
		{"$schemaversion=1 0", result{Found: true, Err: `$schemaversion:1:1: invalid schema version "1 0"`}},
		{"schemaversion=1&$schemaversion=1", result{Found: true, Err: "$schemaversion: $schemaversion must not appear more than once"}},
		{"$unknown=1&$schemaversion=2", result{Version: "2", Found: true}},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			v, found, err := SchemaVersion(tc.raw)
			got := result{Version: v, Found: found}
			if err != nil {
				got.Err = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("SchemaVersion(%q) (-want +got):\n%s", tc.raw, diff)
			}
		})
	}
}

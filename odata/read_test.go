package odata_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"sort"
	"strings"
	"testing"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// decodeJSON decodes an answer body for comparisons.
func decodeJSON(t *testing.T, body string) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decode %q: %v", body, err)
	}
	return m
}

func sortStrings(s []string) { sort.Strings(s) }

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

func TestRun_Help(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), []string{"storeserver", "-help"}, func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Fatalf("run(-help) = %v, want nil", err)
	}
	for _, want := range []string{"-addr", "STORE_ADDR", "-db-max-open", "STORE_DB_MAX_OPEN"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run(-help) printed no %q", want)
		}
	}
}

func TestRun_BadConfiguration(t *testing.T) {
	env := map[string]string{"STORE_TOKEN_TTL": "forever"}
	err := run(context.Background(), []string{"storeserver"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "STORE_TOKEN_TTL") {
		t.Errorf("run(STORE_TOKEN_TTL=forever) = %v, want an error naming STORE_TOKEN_TTL", err)
	}
}

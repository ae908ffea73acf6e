package edm_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func TestWriteXML(t *testing.T) {
	m := sampleModel()
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.WriteXML(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.xml.golden", buf.Bytes())
}

func TestWriteJSON(t *testing.T) {
	m := sampleModel()
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.json.golden", buf.Bytes())
}

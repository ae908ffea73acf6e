package main

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestProgram checks that the program stays the short first program the README and the package documentation
// show: at most 25 lines, and the same declarations as the Example of package odata.
func TestProgram(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(src, []byte("\n")); n > 25 {
		t.Errorf("main.go has %d lines, want at most 25", n)
	}
	got := declarations(t, "main.go", "main")
	want := declarations(t, filepath.Join("..", "..", "odata", "example_hello_test.go"), "Example")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("main.go differs from odata's Example (-Example +main.go):\n%s", diff)
	}
}

// declarations returns the type declarations and the body of the function named fn of the Go file path.
func declarations(t *testing.T, path, fn string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		var node any
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.TYPE {
				node = d
			}
		case *ast.FuncDecl:
			if d.Name.Name == fn {
				node = d.Body
			}
		}
		if node != nil {
			var b strings.Builder
			if err := printer.Fprint(&b, fset, node); err != nil {
				t.Fatal(err)
			}
			out = append(out, b.String())
		}
	}
	return out
}

// TestRun builds the program with its address replaced by a free port, runs it in an empty directory and
// talks to it as the README's curl lines do: creates, a filtered and expanded read, $metadata and $openapi.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the program")
	}
	dir := t.TempDir()
	addr := freeAddr(t)
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	patched := filepath.Join(dir, "main.go")
	if err := os.WriteFile(patched, bytes.Replace(src, []byte(`"localhost:8080"`), []byte(`"`+addr+`"`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	self, err := filepath.Abs("main.go")
	if err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{self: patched}})
	if err := os.WriteFile(filepath.Join(dir, "overlay.json"), overlay, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "hello")
	if out, err := exec.Command("go", "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	base := "http://" + addr
	waitUp(t, base+"/", &stderr)

	send(t, "POST", base+"/Teams", `{"Name":"Ajax"}`, http.StatusCreated)
	send(t, "POST", base+"/Teams", `{"Name":"Feyenoord"}`, http.StatusCreated)
	send(t, "POST", base+"/Players", `{"Name":"Jan","TeamID":1}`, http.StatusCreated)
	body := send(t, "GET", base+"/Teams?$expand=Players($select=Name)&$filter=startswith(Name,'A')&$select=Name", "", http.StatusOK)
	var page struct {
		Value []struct {
			Name    string
			Players []struct{ Name string }
		} `json:"value"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatalf("GET Teams: %v in %s", err, body)
	}
	want := []struct {
		Name    string
		Players []struct{ Name string }
	}{{Name: "Ajax", Players: []struct{ Name string }{{Name: "Jan"}}}}
	if diff := cmp.Diff(want, page.Value); diff != "" {
		t.Errorf("GET Teams mismatch (-want +got):\n%s", diff)
	}
	if metadata := send(t, "GET", base+"/$metadata", "", http.StatusOK); !bytes.Contains(metadata, []byte(`<EntitySet Name="Players" EntityType="Default.Player"`)) {
		t.Errorf("$metadata lacks the set Players:\n%s", metadata)
	}
	var doc struct{ Paths map[string]any }
	if err := json.Unmarshal(send(t, "GET", base+"/$openapi", "", http.StatusOK), &doc); err != nil || doc.Paths["/Teams"] == nil {
		t.Errorf("$openapi: %v, paths %v, want /Teams among them", err, doc.Paths)
	}
	if _, err := os.Stat(filepath.Join(dir, "hello.db")); err != nil {
		t.Errorf("the program made no hello.db in its directory: %v", err)
	}
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitUp waits until url answers, for at most 30 seconds.
func waitUp(t *testing.T, url string, stderr *bytes.Buffer) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return
		}
	}
	t.Fatalf("the program did not answer at %s; its output:\n%s", url, stderr)
}

// send makes a request with a JSON body (none when empty) and returns the answer's body, failing unless its
// status is want.
func send(t *testing.T, method, url, body string, want int) []byte {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s = %d %s, want %d", method, url, resp.StatusCode, got, want)
	}
	return got
}

package syntax

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/abnf-unsupported.tsv with the cases that fail now")

// abnfCase is one row of the OASIS ABNF test corpus (../../testdata/abnf-cases.tsv).
type abnfCase struct {
	suite, rule string
	pass        bool
	failAt      string
	input       string // unescaped
	raw         string // as in the file (tabs escaped)
}

func loadABNFCases(t testing.TB) []abnfCase {
	t.Helper()
	f, err := os.Open("../../testdata/abnf-cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []abnfCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		cols := strings.SplitN(sc.Text(), "\t", 5)
		if len(cols) != 5 {
			t.Fatalf("bad row %q", sc.Text())
		}
		out = append(out, abnfCase{suite: cols[0], rule: cols[1], pass: cols[2] == "true", failAt: cols[3],
			raw: cols[4], input: strings.ReplaceAll(cols[4], `\t`, "\t")})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// mockModel is the identifier list of a suite's constraints: which names count as entity sets, properties,
// functions and so on. It plays the binder's part for the cases whose outcome depends on the model. As in the
// OASIS test tool, a rule the constraints do not list takes any name, and one listed with no names takes none.
type mockModel map[string]map[string]bool

// suiteConstraints names the constraints file of each suite of the corpus, as the OASIS test case files
// declare them (abnf/odata-abnf-testcases.yaml and abnf/odata-aggregation-testcases.yaml of
// github.com/oasis-tcs/odata-abnf). The temporal test cases declare none, so every name fits every rule.
var suiteConstraints = map[string]string{
	"odata-abnf":        "../../testdata/abnf-constraints.json",
	"odata-aggregation": "../../testdata/abnf-aggregation-constraints.json",
}

// loadMockModels returns the mock model of each suite; a suite without constraints has an empty one.
func loadMockModels(t testing.TB) map[string]mockModel {
	t.Helper()
	out := map[string]mockModel{}
	for suite, file := range suiteConstraints {
		out[suite] = loadMockModel(t, file)
	}
	return out
}

func loadMockModel(t testing.TB, file string) mockModel {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string][]string
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	m := mockModel{}
	for rule, names := range raw {
		m[rule] = map[string]bool{}
		for _, n := range names {
			m[rule][n] = true
		}
	}
	return m
}

func (m mockModel) is(name string, rules ...string) bool {
	for _, r := range rules {
		names, constrained := m[r]
		if !constrained || names[name] {
			return true
		}
	}
	return false
}

// unsupportedCase is a checked-in ABNF case that this parser does not handle yet, with the reason.
type unsupportedCase struct{ rule, input, reason string }

const unsupportedFile = "testdata/abnf-unsupported.tsv"

func loadUnsupported(t testing.TB) map[string]unsupportedCase {
	t.Helper()
	out := map[string]unsupportedCase{}
	b, err := os.ReadFile(unsupportedFile)
	if errors.Is(err, os.ErrNotExist) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.SplitN(line, "\t", 3)
		if len(cols) != 3 {
			t.Fatalf("%s: bad line %q", unsupportedFile, line)
		}
		out[cols[0]+"\t"+cols[1]] = unsupportedCase{cols[0], cols[1], cols[2]}
	}
	return out
}

// checkABNF runs one case through the entry point its rule maps to; nil means the input was accepted.
func checkABNF(m mockModel, rule, input string) error {
	switch rule {
	case "odataUri":
		return checkURI(m, input)
	case "odataRelativeUri":
		return checkRelativeURI(m, input)
	case "resourcePath":
		return checkPath(m, input, "")
	case "entitySetName":
		if !m.is(input, "entitySetName") {
			return errors.New("not an entity set")
		}
		return nil
	case "queryOptions", "systemQueryOption", "customQueryOption", "filter", "orderby", "orderBy", "select",
		"expand", "search", "skiptoken", "deltatoken", "compute":
		q, err := ParseQuery(input)
		if err != nil {
			return err
		}
		return checkQuery(m, q)
	case "commonExpr", "boolCommonExpr", "boolcommonExpr", "firstMemberExpr", "propertyPathExpr", "notExpr",
		"isofExpr":
		_, err := ParseExpr(input)
		return err
	case "anyExpr":
		_, err := ParseExpr("Items/" + input)
		return err
	case "searchExpr":
		_, err := ParseSearch(input)
		return err
	case "functionParameter":
		return checkPath(m, "ProductsByColor("+input+")", "")
	}
	return fmt.Errorf("no entry point for rule %s", rule)
}

// checkURI splits an absolute URL into service root and relative part; any "/" after the host may end the
// service root.
func checkURI(m mockModel, input string) error {
	rest := ""
	switch {
	case strings.HasPrefix(strings.ToLower(input), "http://"):
		rest = input[len("http://"):]
	case strings.HasPrefix(strings.ToLower(input), "https://"):
		rest = input[len("https://"):]
	default:
		return errors.New("expected http:// or https://")
	}
	slash := strings.IndexByte(rest, '/')
	if slash <= 0 {
		return errors.New("expected host and /")
	}
	rel := rest[slash+1:]
	var err error
	for {
		if err = checkRelativeURI(m, rel); err == nil || rel == "" {
			return err
		}
		i := strings.IndexByte(rel, '/')
		if i < 0 || strings.ContainsAny(rel[:i], "?#") {
			return err
		}
		rel = rel[i+1:]
	}
}

func checkRelativeURI(m mockModel, input string) error {
	path, query := input, ""
	if i := strings.IndexByte(input, '?'); i >= 0 {
		path, query = input[:i], input[i+1:]
	}
	if i := strings.IndexByte(path, '#'); i >= 0 {
		if !strings.HasPrefix(path, "$metadata") {
			return errors.New("fragment outside $metadata")
		}
		path = path[:i]
	}
	if path == "" {
		return nil
	}
	return checkPath(m, path, query)
}

func checkPath(m mockModel, path, query string) error {
	p, err := ParsePath(path)
	if err != nil {
		return err
	}
	q, err := ParseQuery(query)
	if err != nil {
		return err
	}
	if err := checkQuery(m, q); err != nil {
		return err
	}
	return resolvePath(m, p, q)
}

func checkQuery(m mockModel, q *Query) error {
	for _, c := range q.Custom {
		if !m.is(c.Name, "customName", "parameterName") {
			return fmt.Errorf("unknown custom option %q", c.Name)
		}
	}
	return nil
}

// TestABNF runs the OASIS ABNF test corpus through the parser, each suite against its own constraints: the URL and expression cases (odata-abnf), the
// Data Aggregation cases (odata-aggregation, 201) and the temporal ones (odata-temporal, 13), and logs the
// passed, failed and unsupported counts of each (go test -v -run TestABNF prints them). A listed unsupported case
// that starts to pass fails the test, so the list shrinks as the grammar grows.
func TestABNF(t *testing.T) {
	cases := loadABNFCases(t)
	models := loadMockModels(t)
	unsupported := loadUnsupported(t)
	// Counts by suite: odata-abnf (the URL and expression grammar), odata-aggregation ($apply) and
	// odata-temporal.
	type counts struct{ passed, failed, unsup int }
	bySuite := map[string]*counts{}
	var suites []string
	var nowFailing []abnfCase
	var failures []string
	for _, c := range cases {
		n := bySuite[c.suite]
		if n == nil {
			n = &counts{}
			bySuite[c.suite] = n
			suites = append(suites, c.suite)
		}
		passed, failed, unsup := &n.passed, &n.failed, &n.unsup
		key := c.rule + "\t" + c.raw
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
					failures = append(failures, fmt.Sprintf("PANIC %s %q: %v", c.rule, c.input, r))
				}
			}()
			err = checkABNF(models[c.suite], c.rule, c.input)
		}()
		ok := (err == nil) == c.pass
		if _, listed := unsupported[key]; listed {
			if ok && !*update {
				failures = append(failures, fmt.Sprintf("%s %q now passes: remove it from %s", c.rule, c.input, unsupportedFile))
			}
			if !ok {
				*unsup++
				nowFailing = append(nowFailing, c)
				continue
			}
		}
		if ok {
			*passed++
			continue
		}
		*failed++
		nowFailing = append(nowFailing, c)
		if c.pass {
			failures = append(failures, fmt.Sprintf("%s(%q) = %v, want success", c.rule, c.input, err))
		} else {
			failures = append(failures, fmt.Sprintf("%s(%q) succeeded, want failure at %s", c.rule, c.input, c.failAt))
		}
	}
	for _, s := range suites {
		n := bySuite[s]
		line := fmt.Sprintf("ABNF %s: %d passed, %d failed, %d unsupported", s, n.passed, n.failed, n.unsup)
		t.Log(line)
		if testing.Verbose() {
			fmt.Println(line)
		}
	}
	if *update {
		writeUnsupported(t, nowFailing, unsupported)
		return
	}
	sort.Strings(failures)
	for _, f := range failures {
		t.Error(f)
	}
}

func writeUnsupported(t *testing.T, cases []abnfCase, old map[string]unsupportedCase) {
	var b strings.Builder
	b.WriteString("# ABNF corpus cases (rule, input as in abnf-cases.tsv, reason) that the parser does not handle yet.\n")
	b.WriteString("# TestABNF fails when one of them starts to pass: remove it then. Rewrite with go test -run TestABNF -update.\n")
	for _, c := range cases {
		reason := "TODO: say precisely why it fails"
		if u, ok := old[c.rule+"\t"+c.raw]; ok {
			reason = u.reason
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\n", c.rule, c.raw, reason)
	}
	if err := os.WriteFile(unsupportedFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

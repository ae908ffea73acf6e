package odata_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storekit/store/odata/dbtest"
)

// fuzzSeeds returns (path, query) seeds: the OASIS ABNF corpus of the repository (testdata/abnf-cases.tsv),
// its expressions and options applied to this model's Book, and the requests of this package's tests.
func fuzzSeeds(t testing.TB) [][2]string {
	var seeds [][2]string
	add := func(path, query string) { seeds = append(seeds, [2]string{path, query}) }
	f, err := os.Open("../testdata/abnf-cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 5 || cols[0] == "suite" {
			continue
		}
		rule, input := cols[1], cols[4]
		switch rule {
		case "odataUri":
			if u, err := url.Parse(input); err == nil {
				p := strings.TrimPrefix(u.EscapedPath(), "/")
				_, rest, _ := strings.Cut(p, "/")
				add(rest, u.RawQuery)
			}
		case "odataRelativeUri":
			p, q, _ := strings.Cut(input, "?")
			add(p, q)
		case "resourcePath", "entitySetName":
			add(input, "")
		case "queryOptions", "systemQueryOption", "customQueryOption":
			add("Book", input)
		case "commonExpr", "boolCommonExpr", "boolcommonExpr", "filter", "firstMemberExpr", "propertyPathExpr",
			"isofExpr", "anyExpr", "notExpr":
			add("Book", "$filter="+input)
		case "expand", "select", "orderby", "search", "compute", "skiptoken", "deltatoken":
			add("Book", "$"+rule+"="+input)
		case "orderBy":
			add("Book", "$orderby="+input)
		case "searchExpr":
			add("Book", "$search="+input)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, q := range queryCases {
		p, query, _ := strings.Cut(q, "?")
		add(p, query)
	}
	for _, s := range []string{
		"", "$metadata", "Book('b1')/Title/$value", "Book('b1')/Size/Height", "Cover('x')/$value", "Book/b1",
		"Publisher('p1')/Address/City", "Book('b1')/Lib.Book/Chapters", "Book?$skiptoken=WzEsImIxIl0",
		"Book?$filter=substring(Title,1,2) eq 'lp' and length(Title) gt 3 and indexof(Title,'p') ge 0",
		"Book?$filter=year(Published) eq 2024 or UpdatedOnUtc lt now() or ReadingTime gt duration'P1D'",
		"Book?$filter=round(Rating) eq 4 and floor(Weight) le 2 and ceiling(Price) ge 1 and Price mod 2 eq 0",
		"Book?$filter=cast(Pages,Edm.String) eq '100' and CatalogGuid ne null and Stamp eq binary'AAE='",
		"Book?$filter=Tags/all(t:contains(t,'a'))&$orderby=Size/Width desc&$top=1&$skip=1",
		"Book?$filter=Title in ('Alpha','Beta') and tolower(Title) eq 'alpha' and trim(Title) eq concat('Al','pha')",
		"Book?$filter=Authors/any(a:a/Books/any(b:b/Pages gt 100))&$expand=Authors($levels=2)",
		"Book?$filter=@p eq 'Alpha' and Title eq @p&@p='Alpha'",
		"Loan?$filter=Book/Publisher/Address/City eq 'London'&$orderby=Due desc",
	} {
		p, q, _ := strings.Cut(s, "?")
		add(p, q)
	}
	return seeds
}

// fuzzTimeout bounds one request of FuzzService: a slower one is a finding (a query that can tie up the
// database).
const fuzzTimeout = 10 * time.Second

// FuzzService sends random paths and query strings to a Service over the test model on SQLite: it must not
// panic, answer no server error but 501, and every error body must be the JSON of SPEC part 8. SQLite only:
// fuzzing wants many requests a second and a database that a test can create without a server;
// TestFuzzSeeds_SameOnEveryDatabase sends its seeds to PostgreSQL too.
func FuzzService(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s[0], s[1])
	}
	fx := newFixtureTB(f, dbtest.SQLite(f))
	fx.seed()
	fx.exec(`UPDATE book SET publisher_id = NULL, isbn = '(x', rating = 4.5 WHERE id = 'b3'`)
	f.Fuzz(func(t *testing.T, path, query string) { fuzzRequest(t, fx, path, query) })
}

// TestFuzzSeeds_SameOnEveryDatabase sends each seed of FuzzService to the test model on SQLite and on
// PostgreSQL: the property of the fuzz target holds on PostgreSQL too, and both answer the same status and error
// code. (FuzzService itself runs on SQLite, which keeps fuzzing fast; go test runs its seeds there.)
func TestFuzzSeeds_SameOnEveryDatabase(t *testing.T) {
	if dbtest.PostgresURL() == "" {
		t.Skip(dbtest.EnvPostgres + " is not set: the seeds run on SQLite as FuzzService's corpus")
	}
	var fxs []*fixture
	for _, db := range []*dbtest.DB{dbtest.SQLite(t), dbtest.Postgres(t)} {
		fx := newFixture(t, db)
		fx.seed()
		fx.exec(`UPDATE book SET publisher_id = NULL, isbn = '(x', rating = 4.5 WHERE id = 'b3'`)
		fxs = append(fxs, fx)
	}
	answer := func(w *httptest.ResponseRecorder) string {
		if w.Code < 400 {
			return strconv.Itoa(w.Code)
		}
		var e struct{ Error struct{ Code string } }
		_ = json.Unmarshal(w.Body.Bytes(), &e)
		return strconv.Itoa(w.Code) + " " + e.Error.Code
	}
	compared, ok := 0, 0
	for _, seed := range fuzzSeeds(t) {
		lite := fuzzRequest(t, fxs[0], seed[0], seed[1])
		pg := fuzzRequest(t, fxs[1], seed[0], seed[1])
		if lite == nil || pg == nil {
			continue
		}
		compared++
		if lite.Code == http.StatusOK {
			ok++
		}
		if a, b := answer(lite), answer(pg); a != b {
			t.Errorf("GET %s?%s: %s on SQLite, %s on PostgreSQL\n%.300s\n%.300s", seed[0], seed[1], a, b, lite.Body, pg.Body)
		}
	}
	t.Logf("%d requests answered alike, %d of them 200", compared, ok)
	if compared < 500 {
		t.Errorf("compared %d answers, want the seeds (500 or more)", compared)
	}
}

// fuzzRequest sends GET /odata/path?query to fx and checks the answer (see FuzzService). It returns the
// recorded answer, or nil when net/http would not accept the request line.
func fuzzRequest(t *testing.T, fx *fixture, path, query string) *httptest.ResponseRecorder {
	t.Helper()
	target := "/odata/" + strings.ReplaceAll(path, " ", "%20")
	if query != "" {
		target += "?" + strings.ReplaceAll(query, " ", "%20")
	}
	for i := 0; i < len(target); i++ {
		if c := target[i]; c <= ' ' || c == 0x7f || c == '#' {
			return nil // not a request line net/http accepts
		}
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return nil // net/http answers 400 itself
	}
	req := (&http.Request{Method: "GET", URL: u, Host: "example.com", Header: http.Header{},
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}).WithContext(context.Background())
	w := httptest.NewRecorder()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		fx.svc.ServeHTTP(w, req)
	}()
	select {
	case p := <-done:
		if p != nil {
			t.Fatalf("GET %s panicked: %v", target, p)
		}
	case <-time.After(fuzzTimeout):
		t.Fatalf("GET %s took more than %v", target, fuzzTimeout)
	}
	if err := checkAnswer(w.Code, w.Header(), w.Body.Bytes()); err != nil {
		t.Fatalf("GET %s = %d: %v\n%.500s", target, w.Code, err, w.Body.String())
	}
	return w
}

// checkAnswer checks the status and body of an answer: no server error but 501, an error body of the SPEC
// part 8 shape, valid JSON for JSON answers.
func checkAnswer(status int, h http.Header, body []byte) error {
	if status >= 500 && status != http.StatusNotImplemented {
		return fmt.Errorf("server error")
	}
	ct := h.Get("Content-Type")
	if status >= 400 {
		if !strings.HasPrefix(ct, "application/json") {
			return fmt.Errorf("error Content-Type %q", ct)
		}
		return checkErrorBody(body)
	}
	if strings.HasPrefix(ct, "application/json") && !json.Valid(body) {
		return fmt.Errorf("invalid JSON")
	}
	if (status == http.StatusNoContent || status == http.StatusNotModified) && len(body) > 0 {
		return fmt.Errorf("a body with %d", status)
	}
	return nil
}

// checkErrorBody checks {"error": {"code", "message", "target"?, "details"?: [{"code", "target"?, "message"}]}}.
func checkErrorBody(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	type detail struct {
		Code    *string `json:"code"`
		Target  *string `json:"target"`
		Message *string `json:"message"`
	}
	var e struct {
		Error *struct {
			Code    *string  `json:"code"`
			Message *string  `json:"message"`
			Target  *string  `json:"target"`
			Details []detail `json:"details"`
		} `json:"error"`
	}
	if err := dec.Decode(&e); err != nil {
		return fmt.Errorf("error body: %v", err)
	}
	if dec.More() {
		return fmt.Errorf("error body: data after the object")
	}
	if e.Error == nil || e.Error.Code == nil || *e.Error.Code == "" || e.Error.Message == nil || *e.Error.Message == "" {
		return fmt.Errorf("error body without code or message")
	}
	for _, d := range e.Error.Details {
		if d.Code == nil || *d.Code == "" || d.Message == nil {
			return fmt.Errorf("error detail without code or message")
		}
	}
	return nil
}

// TestFuzzSeeds runs the fuzz target's property over its seeds (go test runs them too, as FuzzService's seed
// corpus; this keeps a count of what they cover).
func TestFuzzSeeds(t *testing.T) {
	if n := len(fuzzSeeds(t)); n < 600 {
		t.Errorf("fuzzSeeds = %d seeds, want the ABNF corpus and the tests' requests (600 or more)", n)
	}
}

package odata_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// limitCase is a request to a service with limits: the answer's status and, for an error, its code, target
// and a part of its message; for a success, texts the body must and must not hold.
type limitCase struct {
	name       string
	limits     odata.Limits
	sets       map[string]odata.SetLimits // the limits of sets, by name
	method     string
	path, body string
	header     []string // name, value pairs
	unsized    bool     // send the body without Content-Length
	status     int
	code       string
	target     string
	message    string // a part of the error's message
	has, not   []string
}

// TestLimits sends requests past each limit, configured small, on SQLite and PostgreSQL: each is refused with
// its status (400 LimitExceeded, 413 for a body) and an error that names the limit, and a request at the limit
// is served.
func TestLimits(t *testing.T) {
	const longTitle = `{"Title":"A title long enough to be over the limit"}`
	cases := []limitCase{
		{name: "page size", limits: odata.Limits{PageSize: 2}, method: "GET", path: "/odata/Book",
			status: 200, has: []string{`"b1"`, `"b2"`, "$skiptoken="}, not: []string{`"b3"`}},
		{name: "page size a client prefers", limits: odata.Limits{PageSize: 1, MaxPageSize: 2}, method: "GET", path: "/odata/Book",
			header: []string{"Prefer", "odata.maxpagesize=50"}, status: 200, has: []string{`"b2"`, "$skiptoken="}, not: []string{`"b3"`}},
		{name: "page size of a set", sets: map[string]odata.SetLimits{"Book": {PageSize: 1}}, method: "GET", path: "/odata/Book",
			status: 200, has: []string{`"b1"`, "$skiptoken="}, not: []string{`"b2"`}},
		{name: "page size of a set through a navigation", sets: map[string]odata.SetLimits{"Book": {PageSize: 1}}, method: "GET",
			path: "/odata/Author('a1')/Books", status: 200, has: []string{`"b1"`, "$skiptoken="}, not: []string{`"b2"`}},
		{name: "page size of another set", sets: map[string]odata.SetLimits{"Book": {PageSize: 1}}, method: "GET", path: "/odata/Author",
			status: 200, has: []string{`"a1"`, `"a2"`}, not: []string{"$skiptoken="}},
		{name: "$top", limits: odata.Limits{MaxTop: 2}, method: "GET", path: "/odata/Book?$top=3",
			status: 400, code: odata.CodeLimitExceeded, target: "$top", message: "$top 3 exceeds the limit of 2"},
		{name: "$top at the limit", limits: odata.Limits{MaxTop: 2}, method: "GET", path: "/odata/Book?$top=2",
			status: 200, has: []string{`"b2"`}, not: []string{`"b3"`}},
		{name: "$top in $expand", limits: odata.Limits{MaxTop: 2}, method: "GET", path: "/odata/Author?$expand=Books($top=3)",
			status: 400, code: odata.CodeLimitExceeded, target: "$expand", message: "$top 3 exceeds the limit of 2"},
		{name: "$top of a set", sets: map[string]odata.SetLimits{"Book": {MaxTop: 1}}, method: "GET", path: "/odata/Book?$top=2",
			status: 400, code: odata.CodeLimitExceeded, target: "$top", message: "the limit of 1"},
		{name: "$top of another set", sets: map[string]odata.SetLimits{"Book": {MaxTop: 1}}, method: "GET", path: "/odata/Author?$top=2",
			status: 200, has: []string{`"a2"`}},
		{name: "$expand depth", limits: odata.Limits{ExpandDepth: 1}, method: "GET", path: "/odata/Author?$expand=Books($expand=Publisher)",
			status: 400, code: odata.CodeLimitExceeded, target: "$expand", message: "$expand depth exceeds the limit of 1"},
		{name: "$expand depth of a set", limits: odata.Limits{ExpandDepth: 1}, sets: map[string]odata.SetLimits{"Author": {ExpandDepth: 2}},
			method: "GET", path: "/odata/Author?$expand=Books($expand=Publisher)", status: 200, has: []string{"Penguin"}},
		{name: "expansions", limits: odata.Limits{Expands: 2}, method: "GET", path: "/odata/Book?$expand=*",
			status: 400, code: odata.CodeLimitExceeded, target: "$expand", message: "expands more than the limit of 2 navigation properties"},
		{name: "expansions at the limit", limits: odata.Limits{Expands: 2}, method: "GET", path: "/odata/Book?$expand=Publisher,Authors",
			status: 200, has: []string{"Penguin", "Ada"}},
		{name: "expression nodes", limits: odata.Limits{ExpressionNodes: 7}, method: "GET", path: "/odata/Book?$filter=Pages gt 1 and Pages lt 900 and Pages ne 3",
			status: 400, code: odata.CodeLimitExceeded, target: "$filter", message: "more than the limit of 7 nodes"},
		{name: "$orderby nodes", limits: odata.Limits{ExpressionNodes: 2}, method: "GET", path: "/odata/Book?$orderby=Pages,Title,Price",
			status: 400, code: odata.CodeLimitExceeded, target: "$orderby", message: "more than the limit of 2 nodes"},
		{name: "expression length", limits: odata.Limits{ExpressionLength: 30}, method: "GET", path: "/odata/Book?$filter=Title eq 'Alpha' or Title eq 'Beta'",
			status: 400, code: odata.CodeLimitExceeded, target: "$filter", message: "longer than the limit of 30 bytes"},
		{name: "expression length in the body of $query", limits: odata.Limits{ExpressionLength: 30}, method: "POST", path: "/odata/Book/$query",
			body: "$filter=Title%20eq%20'Alpha'%20or%20Title%20eq%20'Beta'", header: []string{"Content-Type", "text/plain"},
			status: 400, code: odata.CodeLimitExceeded, target: "$filter", message: "longer than the limit of 30 bytes"},
		{name: "body of $query", limits: odata.Limits{BodyBytes: 20}, method: "POST", path: "/odata/Book/$query",
			body: "$filter=Title%20eq%20'Alpha'", header: []string{"Content-Type", "text/plain"},
			status: 413, code: odata.CodePayloadTooLarge, message: "The request body exceeds the limit of 20 bytes."},
		{name: "body of $query of a set", sets: map[string]odata.SetLimits{"Book": {BodyBytes: 20}}, method: "POST", path: "/odata/Book/$query",
			body: "$filter=Title%20eq%20'Alpha'", header: []string{"Content-Type", "text/plain"},
			status: 413, code: odata.CodePayloadTooLarge, message: "the limit of 20 bytes"},
		{name: "page size of a set in $all", sets: map[string]odata.SetLimits{"Book": {PageSize: 1}}, method: "GET", path: "/odata/$all/Lib.Book",
			status: 200, has: []string{`Book('b1')`, "$skiptoken=0."}, not: []string{`Book('b2')`}},
		{name: "$top of a set in $all", sets: map[string]odata.SetLimits{"Book": {MaxTop: 1}}, method: "GET", path: "/odata/$all/Lib.Book?$top=2",
			status: 400, code: odata.CodeLimitExceeded, target: "$top", message: "the limit of 1"},
		{name: "in list", limits: odata.Limits{InListItems: 2}, method: "GET", path: "/odata/Book?$filter=Title in ('Alpha','Beta','Gamma')",
			status: 400, code: odata.CodeLimitExceeded, target: "$filter", message: "more than the limit of 2 items"},
		{name: "in list at the limit", limits: odata.Limits{InListItems: 2}, method: "GET", path: "/odata/Book?$filter=Title in ('Alpha','Beta')",
			status: 200, has: []string{"Alpha", "Beta"}, not: []string{"Gamma"}},
		{name: "lambda depth", limits: odata.Limits{LambdaDepth: 1}, method: "GET", path: "/odata/Author?$filter=Books/any(b:b/Authors/any(a:a/Name eq 'Ada'))",
			status: 400, code: odata.CodeLimitExceeded, target: "$filter", message: "lambda nesting exceeds the limit of 1 levels"},
		{name: "lambdas", limits: odata.Limits{Lambdas: 1}, method: "GET", path: "/odata/Author?$filter=Books/any(b:b/InPrint) or Books/all(c:c/InPrint)",
			status: 400, code: odata.CodeLimitExceeded, target: "$filter", message: "more than the limit of 1 lambdas"},
		{name: "literal length", limits: odata.Limits{LiteralLength: 4}, method: "GET", path: "/odata/Book?$filter=Title eq 'Alpha'",
			status: 400, code: odata.CodeLimitExceeded, target: "$filter", message: "the literal exceeds the limit of 4 characters"},
		{name: "literal length of a key", limits: odata.Limits{LiteralLength: 2}, method: "GET", path: "/odata/Book('b1xx')/Chapters",
			status: 400, code: odata.CodeLimitExceeded, target: "path", message: "the literal exceeds the limit of 2 characters"},
		{name: "pattern size", limits: odata.Limits{PatternSize: 10}, method: "GET", path: "/odata/Book?$filter=matchesPattern(Title,'A{1,20}')",
			status: 400, code: odata.CodeLimitExceeded, target: "$filter", message: "the limit of 10 compiled instructions"},
		{name: "no limit", limits: odata.Limits{InListItems: -1, LiteralLength: -1}, method: "GET",
			path: "/odata/Book?$filter=Title in (" + strings.Repeat("'x',", 1000) + "'" + strings.Repeat("y", 1001) + "')", status: 200},
		{name: "body", limits: odata.Limits{BodyBytes: 40}, method: "POST", path: "/odata/Book", body: longTitle,
			status: 413, code: odata.CodePayloadTooLarge, message: "The request body exceeds the limit of 40 bytes."},
		{name: "body without its length", limits: odata.Limits{BodyBytes: 40}, method: "POST", path: "/odata/Book", body: longTitle, unsized: true,
			status: 413, code: odata.CodePayloadTooLarge, message: "The request body exceeds the limit of 40 bytes."},
		{name: "body at the limit", limits: odata.Limits{BodyBytes: int64(len(longTitle))}, method: "POST", path: "/odata/Book", body: longTitle, unsized: true,
			status: 201},
		{name: "body of an action", limits: odata.Limits{BodyBytes: 20}, method: "POST", path: "/odata/Book('b1')/Rate", body: `{"Stars":4,"Comment":"fine"}`,
			status: 413, code: odata.CodePayloadTooLarge, message: "the limit of 20 bytes"},
		{name: "body of a set", sets: map[string]odata.SetLimits{"Book": {BodyBytes: 2048}}, limits: odata.Limits{BodyBytes: 1024}, method: "PATCH",
			path: "/odata/Book('b1')", body: `{"Title":"` + strings.Repeat("x", 150) + `","Isbn":null,"Pages":1` + strings.Repeat(" ", 1000) + `}`,
			status: 200},
		{name: "body of another set", sets: map[string]odata.SetLimits{"Book": {BodyBytes: 2048}}, limits: odata.Limits{BodyBytes: 1024}, method: "PATCH",
			path: "/odata/Publisher('p1')", body: `{"Name":"Penguin"` + strings.Repeat(" ", 1100) + `}`,
			status: 413, code: odata.CodePayloadTooLarge, message: "the limit of 1024 bytes (1 KiB)"},
		{name: "media bytes", limits: odata.Limits{MediaBytes: 4}, method: "POST", path: "/odata/Cover", body: "\x89PNG\r\n",
			header: []string{"Content-Type", "image/png"}, status: 413, code: odata.CodePayloadTooLarge, message: "The media exceeds the limit of 4 bytes."},
		{name: "media bytes of a set", sets: map[string]odata.SetLimits{"Cover": {MediaBytes: 4}}, method: "POST", path: "/odata/Cover", body: "\x89PNG\r\n",
			header: []string{"Content-Type", "image/png"}, unsized: true, status: 413, code: odata.CodePayloadTooLarge, message: "the limit of 4 bytes"},
		{name: "media bytes at the limit (read, and refused for the book it lacks)", limits: odata.Limits{MediaBytes: 6}, method: "POST",
			path: "/odata/Cover", body: "\x89PNG\r\n", header: []string{"Content-Type", "image/png"}, status: 400, code: odata.CodeValidationFailed},
		{name: "batch requests", limits: odata.Limits{BatchRequests: 2}, method: "POST", path: "/odata/$batch",
			body:   `{"requests":[{"id":"1","method":"GET","url":"Book"},{"id":"2","method":"GET","url":"Author"},{"id":"3","method":"GET","url":"Loan"}]}`,
			status: 400, code: odata.CodeLimitExceeded, target: "$batch", message: "The batch holds 3 requests; the limit is 2 requests per batch."},
		{name: "batch requests at the limit", limits: odata.Limits{BatchRequests: 2}, method: "POST", path: "/odata/$batch",
			body: `{"requests":[{"id":"1","method":"GET","url":"Book"},{"id":"2","method":"GET","url":"Author"}]}`, status: 200},
		{name: "batch bytes", limits: odata.Limits{BatchBytes: 64}, method: "POST", path: "/odata/$batch",
			body:   `{"requests":[{"id":"1","method":"GET","url":"Book"},{"id":"2","method":"GET","url":"Author"}]}`,
			status: 413, code: odata.CodePayloadTooLarge, message: "The batch body exceeds the limit of 64 bytes."},
		{name: "batch bytes without their length", limits: odata.Limits{BatchBytes: 64}, method: "POST", path: "/odata/$batch", unsized: true,
			body:   `{"requests":[{"id":"1","method":"GET","url":"Book"},{"id":"2","method":"GET","url":"Author"}]}`,
			status: 413, code: odata.CodePayloadTooLarge, message: "The batch body exceeds the limit of 64 bytes."},
		{name: "body of a batch request", limits: odata.Limits{BodyBytes: 20}, method: "POST", path: "/odata/$batch",
			body:   `{"requests":[{"id":"1","method":"PATCH","url":"Book('b1')","body":{"Title":"A long new title"}}]}`,
			status: 200, has: []string{`"status":413`, "the limit of 20 bytes"}},
		{name: "limits of the parser in a batch request", limits: odata.Limits{MaxTop: 1}, method: "POST", path: "/odata/$batch",
			body:   `{"requests":[{"id":"1","method":"GET","url":"Book?$top=2"}]}`,
			status: 200, has: []string{`"status":400`, "$top 2 exceeds the limit of 1"}},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		newFixture(t, db).seed()
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				svc := libraryService(t, db, func(c *odata.Config) {
					c.Limits = tc.limits
					for name, limits := range tc.sets {
						opts := c.Sets[name]
						opts.Limits = limits
						c.Sets[name] = opts
					}
				})
				resp := serveLimited(svc, tc)
				checkLimitAnswer(t, tc, resp)
			})
		}
	})
}

// serveLimited sends the request of tc to svc.
func serveLimited(svc http.Handler, tc limitCase) response {
	var body io.Reader
	if tc.body != "" {
		body = strings.NewReader(tc.body)
		if tc.unsized {
			body = io.MultiReader(body) // no length known: a chunked body
		}
	}
	req := httptest.NewRequest(tc.method, "http://example.com"+encodeURL(tc.path), body)
	if tc.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(tc.header); i += 2 {
		req.Header.Set(tc.header[i], tc.header[i+1])
	}
	w := httptest.NewRecorder()
	svc.ServeHTTP(w, req)
	return response{Status: w.Code, Header: w.Header(), Body: w.Body.String()}
}

// checkLimitAnswer compares the answer with what tc wants.
func checkLimitAnswer(t *testing.T, tc limitCase, resp response) {
	t.Helper()
	if resp.Status != tc.status {
		t.Fatalf("%s %.80s = %d, want %d\n%.600s", tc.method, tc.path, resp.Status, tc.status, resp.Body)
	}
	if tc.code != "" {
		e := decodeError(t, resp.Body)
		if diff := cmp.Diff([]any{tc.code, tc.target, true}, []any{e.Code, e.Target, strings.Contains(e.Message, tc.message)}); diff != "" {
			t.Errorf("%s %.80s: error %+v, want code %s, target %q, a message with %q (-want +got):\n%s",
				tc.method, tc.path, e, tc.code, tc.target, tc.message, diff)
		}
	}
	checkBody(t, tc.method+" "+tc.path, resp.Body, tc.has, tc.not)
}

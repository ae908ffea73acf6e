package odata_test

import (
	"strings"
	"testing"

	"github.com/storekit/store/odata/dbtest"
)

// TestService_Statuses checks the status and code of requests the engine cannot serve as asked: an unknown
// function or an empty in list is the client's mistake (400, naming the function), valid OData the engine does
// not implement is 501 NotImplemented (never "unknown option"), and a malformed If-Match is 400.
func TestService_Statuses(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newQueryFixture(t, db)
		for _, c := range []struct {
			method, path, ifMatch string
			status                int
			code, message         string // message: a part of it
		}{
			{"GET", "Book?$filter=lenght(Title) eq 1", "", 400, "SyntaxError", "unknown function lenght"},
			{"GET", "Book?$filter=geo.foo(Title) eq 1", "", 400, "SyntaxError", "unknown function geo.foo"},
			{"GET", "Book?$filter=Publisher/lenght(Name) eq 1", "", 400, "SyntaxError", "unknown function lenght"},
			{"GET", "Book?$filter=geo.distance(Title,Title) lt 1", "", 501, "NotImplemented", "geo.distance"},
			{"GET", "Book?$filter=Authors('a1')/Name eq 'Ada'", "", 501, "NotImplemented", "key predicates"},
			{"GET", "Book?$filter=Title in ()", "", 400, "SyntaxError", "one or more values"},
			{"GET", "Book?$apply=groupby((Title))/frobnicate(Title)", "", 400, "SyntaxError", "unknown transformation"},
			{"GET", "Book?apply=aggregate(Pages with total as Total)", "", 400, "SyntaxError", "unknown aggregation method"},
			{"GET", "Book('b1')?$apply=groupby((Title))", "", 400, "SyntaxError", "$apply does not apply to a single entity"},
			{"GET", "Book?$apply=ancestors($root/Book,H,Id,filter(Pages gt 1))", "", 400, "InvalidValue", `Book has no recursive hierarchy "H"`},
			{"GET", "Book?$expand=Authors($apply=groupby((Name)))", "", 501, "NotImplemented", "$apply"},
			{"GET", "Book?$index=1", "", 400, "SyntaxError", "$index applies to a POST that inserts into an ordered collection"},
			{"GET", "Book?$expand=Authors($compute=Name as Name)", "", 400, "SyntaxError", "has the name of another property"},
			{"GET", "Book?$levels=2", "", 400, "SyntaxError", "$levels is not allowed here"},
			{"PATCH", "Book('b1')", "abc", 400, "BadRequest", "If-Match"},
			{"PATCH", "Book('b1')", `W/abc`, 400, "BadRequest", "If-Match"},
			{"PATCH", "Book('b1')", `"unterminated`, 400, "BadRequest", "If-Match"},
			{"PATCH", "Book('b1')", `"a" "b"`, 400, "BadRequest", "If-Match"},
			{"DELETE", "Book('b1')", `W/"0000000000000000" junk`, 400, "BadRequest", "If-Match"},
			{"PATCH", "Book('b1')", `"stale"`, 412, "PreconditionFailed", "has changed"},
			{"PATCH", "Book('b1')", `W/"0000000000000000", "a,b"`, 412, "PreconditionFailed", "has changed"},
			{"PATCH", "Book('b1')", `*`, 200, "", ""},
		} {
			var headers []string
			if c.ifMatch != "" {
				headers = []string{"If-Match", c.ifMatch}
			}
			body := ""
			if c.method == "PATCH" {
				body = `{"Pages":5}`
			}
			resp := f.do(c.method, "/odata/"+encodeURL(c.path), body, headers...)
			if resp.Status != c.status {
				t.Errorf("%s %s (If-Match %s) = %d, want %d\n%s", c.method, c.path, c.ifMatch, resp.Status, c.status, resp.Body)
				continue
			}
			if c.status < 400 {
				continue
			}
			if e := decodeError(t, resp.Body); e.Code != c.code || !strings.Contains(e.Message, c.message) {
				t.Errorf("%s %s (If-Match %s): error %s %q, want %s with %q", c.method, c.path, c.ifMatch, e.Code, e.Message, c.code, c.message)
			}
		}
	})
}

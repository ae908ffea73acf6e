package odata_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// redactedOf are the properties each principal of the redaction tests may not read, by entity set: "r1" may not
// read a book's Isbn, Price, Tags and the height of its Size, a publisher's city, an author's e-mail or a cover's
// media type; "admin" reads everything; "titleless" may not read a book's Title, its only searchable property;
// "unlinked" may not read which publisher a book has, by its foreign key or by either navigation; "bad" names a
// property Book does not have, "key" its key.
var redactedOf = map[string]map[string][]string{
	"r1": {"Book": {"Isbn", "Price", "Tags", "Size/Height"}, "Publisher": {"Address/City"}, "Author": {"Email"},
		"Cover": {"MimeType"}},
	"titleless": {"Book": {"Title"}},
	"unlinked":  {"Book": {"PublisherId", "Publisher"}, "Publisher": {"Books"}},
	"bad":       {"Book": {"Nope"}},
	"key":       {"Book": {"Id"}},
}

// redactor returns the Redact function of the set named set in the tests: the names redactedOf lists for the
// principal of the context; a request without one is refused.
func redactor(set string) func(ctx context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		principal, _ := ctx.Value(principalKey{}).(string)
		if principal == "" {
			return nil, odata.Forbidden("No principal.")
		}
		if principal == "broken" {
			return nil, errors.New("the directory of principals is down")
		}
		return redactedOf[principal][set], nil
	}
}

// withRedactions gives the sets of the library the Redact of redactedOf, and Cover PUT (of its bytes).
func withRedactions(cfg *odata.Config) {
	for _, set := range []string{"Book", "Publisher", "Author", "Cover"} {
		opts := cfg.Sets[set]
		opts.Redact = redactor(set)
		cfg.Sets[set] = opts
	}
	cover := cfg.Sets["Cover"]
	cover.Writes |= odata.WritePut
	cfg.Sets["Cover"] = cover
}

// secrets are what the redacted values hold (see newRedactionFixture), lower-cased: no answer to r1 may hold one.
var secrets = []string{"secret", "4242", "7777"}

// newRedactionFixture is the functions fixture (the library with functions returning entities) with the
// redactions of redactedOf, and values in the redacted properties that no other value holds: book b1 has the
// Isbn 978-secret, the Price 4242.4242, the tag secret-tag and the height 7777; the publisher is in SecretCity,
// author a1's e-mail is secret@example.com, and cover v1 of b1 is of type image/secret.
func newRedactionFixture(t *testing.T, db *dbtest.DB) *fixture {
	t.Helper()
	f := functionsFixtureWith(t, db, withRedactions)
	f.exec(`UPDATE book SET isbn = '978-secret', price = ?, size_height = 7777 WHERE id = 'b1'`, priceArg(db, "4242.4242"))
	f.exec(`UPDATE book_tags SET value = 'secret-tag' WHERE book_id = 'b1' AND ordinal = 0`)
	f.exec(`UPDATE publisher SET address_city = 'SecretCity' WHERE id = 'p1'`)
	f.exec(`UPDATE author SET email = 'secret@example.com' WHERE id = 'a1'`)
	f.exec(`INSERT INTO cover (id, book_id, mime_type, data) VALUES ('v1', 'b1', 'image/secret', ?)`, []byte{1, 2})
	return f
}

// revealed returns the secrets body holds.
func revealed(body string) []string {
	var out []string
	for _, s := range secrets {
		if strings.Contains(strings.ToLower(body), s) {
			out = append(out, s)
		}
	}
	return out
}

// TestRedactionBypass reaches the redacted properties of r1 by every access path, on SQLite and PostgreSQL: no
// answer holds a redacted value (the raw bodies are searched), a query that uses one is a 400 NotReadable that
// names it, a property path to one is a 403, and a write that sends one is a 400.
func TestRedactionBypass(t *testing.T) {
	notReadable := func(target, property string) []string {
		return []string{`"code":"NotReadable"`, `"target":"` + target + `"`, property}
	}
	cases := []struct {
		name, method, path, body string
		status                   int
		has, hasNot              []string
	}{
		{"collection", "GET", "/odata/Book", "", 200, []string{`"Title":"Alpha"`, `"Size":{"Width":10}`}, []string{"Price", "Isbn", "Tags", "Height"}},
		{"by key", "GET", "/odata/Book('b1')", "", 200, []string{`"Title":"Alpha"`}, []string{"Price", "Isbn"}},
		{"$select=*", "GET", "/odata/Book?$select=*", "", 200, []string{`"Pages":100`}, []string{"Price", "Isbn"}},
		{"$select of a complex property with a redacted member", "GET", "/odata/Book('b1')?$select=Size", "", 200, []string{`"Size":{"Width":10}`}, []string{"Height"}},
		{"$select", "GET", "/odata/Book?$select=Title,Price", "", 400, notReadable("$select", "Price of Book"), nil},
		{"$select of a member", "GET", "/odata/Book?$select=Size/Height", "", 400, notReadable("$select", "Size/Height of Book"), nil},
		{"$filter", "GET", "/odata/Book?$filter=Price gt 4000", "", 400, notReadable("$filter", "Price of Book"), nil},
		{"$filter on a member", "GET", "/odata/Book?$filter=Size/Height eq 7777", "", 400, notReadable("$filter", "Size/Height of Book"), nil},
		{"$filter with a function", "GET", "/odata/Book?$filter=contains(Isbn,'secret')", "", 400, notReadable("$filter", "Isbn of Book"), nil},
		{"$filter with in", "GET", "/odata/Book?$filter=Isbn in ('978-secret')", "", 400, notReadable("$filter", "Isbn of Book"), nil},
		{"$filter through a parameter alias", "GET", "/odata/Book?$filter=Title eq @p&@p=Isbn", "", 400, notReadable("@p", "Isbn of Book"), nil},
		{"$filter with $it", "GET", "/odata/Book?$filter=$it/Price gt 1", "", 400, notReadable("$filter", "Price of Book"), nil},
		{"$crossjoin expanded", "GET", "/odata/$crossjoin(Book,Publisher)?$expand=Book,Publisher", "", 200, []string{`"Title":"Alpha"`, `"Name":"Penguin"`}, []string{"Price", "Isbn", "Tags", "Height"}},
		{"$crossjoin expanded with $select", "GET", "/odata/$crossjoin(Book,Author)?$expand=Book($select=Title,Price)", "", 400, notReadable("$expand", "Price of Book"), nil},
		{"$crossjoin $filter", "GET", "/odata/$crossjoin(Book,Publisher)?$filter=Book/Price gt 4000", "", 400, notReadable("$filter", "Price of Book"), nil},
		{"$crossjoin $filter on a member", "GET", "/odata/$crossjoin(Book,Publisher)?$filter=Publisher/Address/City eq Book/Title", "", 400, notReadable("$filter", "Address/City of Publisher"), nil},
		{"$crossjoin $orderby", "GET", "/odata/$crossjoin(Book,Author)?$orderby=Author/Email", "", 400, notReadable("$orderby", "Email of Author"), nil},
		{"$apply groupby", "GET", "/odata/Book?$apply=groupby((Isbn))", "", 400, notReadable("$apply", "Isbn of Book"), nil},
		{"$apply aggregate", "GET", "/odata/Book?$apply=aggregate(Price with sum as Total)", "", 400, notReadable("$apply", "Price of Book"), nil},
		{"$apply aggregate in an expression", "GET", "/odata/Publisher?$filter=Books/aggregate(Price with max) gt 1", "", 400, notReadable("$filter", "Price of Book"), nil},
		{"$apply concat keeps the readable columns", "GET", "/odata/Book?$apply=concat(identity,identity)", "", 200, []string{`"Title":"Alpha"`}, []string{"Price", "Isbn", "Height"}},
		{"$apply join keeps the readable columns", "GET", "/odata/Publisher?$apply=join(Books as B)", "", 200, []string{`"Title":"Alpha"`}, []string{"Price", "Isbn", "Height", "City"}},
		{"$apply $these", "GET", "/odata/Book?$apply=filter(Pages gt $these/aggregate(Price with average))", "", 400, notReadable("$apply", "Price of Book"), nil},
		{"lambda over a redacted collection", "GET", "/odata/Book?$filter=Tags/any(t:t eq 'secret-tag')", "", 400, notReadable("$filter", "Tags of Book"), nil},
		{"$count of a redacted collection", "GET", "/odata/Book?$filter=Tags/$count gt 1", "", 400, notReadable("$filter", "Tags of Book"), nil},
		{"$orderby", "GET", "/odata/Book?$orderby=Price desc", "", 400, notReadable("$orderby", "Price of Book"), nil},
		{"$compute", "GET", "/odata/Book?$compute=Price mul 1 as P&$select=P", "", 400, notReadable("$compute", "Price of Book"), nil},
		{"/$count with a $filter", "GET", "/odata/Book/$count?$filter=Price gt 4000", "", 400, notReadable("$filter", "Price of Book"), nil},
		{"$search over a readable property", "GET", "/odata/Book?$search=alpha", "", 200, []string{`"Title":"Alpha"`}, []string{"Price"}},
		{"property path", "GET", "/odata/Book('b1')/Price", "", 403, []string{`"code":"Forbidden"`, "Price of Book"}, nil},
		{"property path of a missing entity", "GET", "/odata/Book('nope')/Price", "", 403, []string{`"code":"Forbidden"`}, nil},
		{"property $value", "GET", "/odata/Book('b1')/Isbn/$value", "", 403, []string{`"code":"Forbidden"`}, nil},
		{"collection property path", "GET", "/odata/Book('b1')/Tags", "", 403, []string{`"code":"Forbidden"`}, nil},
		{"member path", "GET", "/odata/Book('b1')/Size/Height", "", 403, []string{`"code":"Forbidden"`}, nil},
		{"complex property path", "GET", "/odata/Book('b1')/Size", "", 200, []string{`"Width":10`}, []string{"Height"}},
		{"media $value of a redacted content type", "GET", "/odata/Cover('v1')/$value", "", 403, []string{`"code":"Forbidden"`}, nil},
		{"media entity", "GET", "/odata/Cover('v1')", "", 200, []string{`"Id":"v1"`}, []string{"MimeType"}},
		{"navigation to the set", "GET", "/odata/Publisher('p1')/Books", "", 200, []string{`"Title":"Alpha"`}, []string{"Price"}},
		{"navigation by key", "GET", "/odata/Author('a1')/Books('b1')", "", 200, []string{`"Title":"Alpha"`}, []string{"Price"}},
		{"to-one navigation", "GET", "/odata/Loan(BookId='b1',MemberNo=7)/Book", "", 200, []string{`"Title":"Alpha"`}, []string{"Price"}},
		{"$expand from another set", "GET", "/odata/Publisher?$expand=Books", "", 200, []string{`"Title":"Alpha"`}, []string{"Price", "Isbn"}},
		{"$expand to-one", "GET", "/odata/Loan?$expand=Book", "", 200, []string{`"Title":"Alpha"`}, []string{"Price"}},
		{"$expand many-to-many", "GET", "/odata/Book('b1')?$expand=Authors", "", 200, []string{`"Name":"Ada"`}, []string{"Email"}},
		{"$expand with $select", "GET", "/odata/Publisher?$expand=Books($select=Price)", "", 400, notReadable("$expand", "Price of Book"), nil},
		{"$expand with $filter", "GET", "/odata/Publisher?$expand=Books($filter=Price gt 1)", "", 400, notReadable("$expand", "Price of Book"), nil},
		{"$expand with $orderby", "GET", "/odata/Publisher?$expand=Books($orderby=Isbn)", "", 400, notReadable("$expand", "Isbn of Book"), nil},
		{"lambda from another set", "GET", "/odata/Publisher?$filter=Books/any(b:b/Price gt 4000)", "", 400, notReadable("$filter", "Price of Book"), nil},
		{"to-one path from another set", "GET", "/odata/Loan?$filter=Book/Isbn eq '978-secret'", "", 400, notReadable("$filter", "Isbn of Book"), nil},
		{"to-one path in $orderby", "GET", "/odata/Loan?$orderby=Book/Price", "", 400, notReadable("$orderby", "Price of Book"), nil},
		{"a redacted member", "GET", "/odata/Publisher('p1')", "", 200, []string{`"Street":"80 Strand"`}, []string{"City"}},
		{"a redacted member in $filter", "GET", "/odata/Publisher?$filter=Address/City eq 'SecretCity'", "", 400, notReadable("$filter", "Address/City of Publisher"), nil},
		{"a complex value with a redacted member compared with null", "GET", "/odata/Publisher?$filter=Address eq null", "", 400, notReadable("$filter", "Address/City of Publisher"), nil},
		{"a complex property path with a redacted member", "GET", "/odata/Publisher('p1')/Address", "", 200, []string{`"Street":"80 Strand"`}, []string{"City"}},
		{"a redacted member's path", "GET", "/odata/Publisher('p1')/Address/City", "", 403, []string{`"code":"Forbidden"`}, nil},
		{"full metadata", "GET", "/odata/Book('b1')?$format=application/json;odata.metadata=full", "", 200, []string{`"@odata.type":"#Lib.Book"`}, []string{"Price", "Isbn"}},
		{"an action's entity", "POST", "/odata/Book('b1')/Reprint", "", 200, []string{`"Title":"Alpha"`, `"Edition":2`}, []string{"Price", "Isbn"}},
		{"a function's entities", "GET", "/odata/Bestsellers()", "", 200, []string{`"Title":"Alpha"`}, []string{"Price", "Isbn"}},
		{"$batch", "POST", "/odata/$batch", `{"requests":[{"id":"1","method":"GET","url":"Book('b1')"},{"id":"2","method":"GET","url":"Book?$filter=Price gt 1"}]}`,
			200, []string{`"status":200`, `"status":400`, `"NotReadable"`}, []string{`"Price":`}},
		{"$batch property path", "POST", "/odata/$batch", `{"requests":[{"id":"1","method":"GET","url":"Book('b1')/Price"}]}`,
			200, []string{`"status":403`}, nil},
		{"$batch write", "POST", "/odata/$batch", `{"requests":[{"id":"1","method":"PATCH","url":"Book('b1')","body":{"Price":1}}]}`,
			200, []string{`"status":400`, `"NotReadable"`}, nil},
		{"create sending a redacted property", "POST", "/odata/Book", `{"Title":"Delta","Price":5}`, 400, notReadable("Price", "Price of Book"), nil},
		{"create sending a redacted member", "POST", "/odata/Book", `{"Title":"Delta","Size":{"Width":1,"Height":2}}`, 400, notReadable("Size/Height", "Size/Height of Book"), nil},
		{"PATCH sending a redacted property", "PATCH", "/odata/Book('b1')", `{"Price":1}`, 400, notReadable("Price", "Price of Book"), nil},
		{"insert into a redacted collection", "POST", "/odata/Book('b1')/Tags?$index=0", `{"value":"x"}`, 403, []string{`"Forbidden"`}, nil},
		{"a member of a redacted collection", "GET", "/odata/Book('b1')/Tags/0", "", 403, []string{`"Forbidden"`}, nil},
		{"removing a member of a redacted collection", "DELETE", "/odata/Book('b1')/Tags/0", "", 403, []string{`"Forbidden"`}, nil},
		{"PUT sending a redacted member", "PUT", "/odata/Publisher('p1')", `{"Name":"Penguin","Address":{"City":"Oxford"}}`, 400, notReadable("Address/City", "Address/City of Publisher"), nil},
		{"a read-only redacted property is refused too", "PATCH", "/odata/Book('b1')", `{"Title":"Alpha","Isbn":null}`, 400, notReadable("Isbn", "Isbn of Book"), nil},
		{"deep insert of an entity with a redacted property", "POST", "/odata/Publisher", `{"Name":"New","Books":[{"Title":"X"},{"Title":"Y","Price":1}]}`,
			400, notReadable("Books[1]/Price", "Price of Book"), nil},
		{"deep insert of an entity with a redacted member", "POST", "/odata/Book", `{"Title":"X","Publisher":{"Name":"New","Address":{"City":"x"}}}`,
			400, notReadable("Publisher/Address/City", "Address/City of Publisher"), nil},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newRedactionFixture(t, db)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f.t = t
				resp := f.doAs("r1", tc.method, encodeURL(tc.path), tc.body)
				if resp.Status != tc.status {
					t.Fatalf("%s %s = %d, want %d\n%s", tc.method, tc.path, resp.Status, tc.status, resp.Body)
				}
				checkBody(t, tc.method+" "+tc.path, resp.Body, tc.has, tc.hasNot)
				if got := revealed(resp.Body); got != nil {
					t.Errorf("%s %s reveals %q:\n%s", tc.method, tc.path, got, resp.Body)
				}
				for name, values := range resp.Header {
					if got := revealed(strings.Join(values, " ")); got != nil && name != "Location" {
						t.Errorf("%s %s: header %s reveals %q", tc.method, tc.path, name, got)
					}
				}
			})
		}
		f.t = t
		// The admin reads the values the cases looked for, so the cases could have found them.
		for path, want := range map[string]string{
			"/odata/Book('b1')": `"Isbn":"978-secret","Price":4242.4242`, "/odata/Book('b1')/Tags": "secret-tag",
			"/odata/Book('b1')/Size": `"Height":7777`, "/odata/Publisher('p1')/Address": "SecretCity",
			"/odata/Author('a1')/Email": "secret@example.com", "/odata/Cover('v1')": "image/secret",
		} {
			if resp := f.doAs("admin", "GET", path, ""); resp.Status != 200 || !strings.Contains(resp.Body, want) {
				t.Errorf("GET %s as admin = %d %s, want %s", path, resp.Status, resp.Body, want)
			}
		}
	})
}

// TestRedactedNavigation follows the link between a book and its publisher as "unlinked", who may read neither
// the foreign key nor the navigations on both sides: no answer tells which publisher a book has.
func TestRedactedNavigation(t *testing.T) {
	cases := []struct {
		name, method, path string
		status             int
		has, hasNot        []string
	}{
		{"the entity", "GET", "/odata/Book('b1')", 200, []string{`"Title":"Alpha"`}, []string{"p1", "PublisherId"}},
		{"$expand=*", "GET", "/odata/Book('b1')?$expand=*", 200, []string{`"Name":"Ada"`}, []string{"p1", "Penguin"}},
		{"$expand=* from the other side", "GET", "/odata/Publisher?$expand=*", 200, []string{"Penguin"}, []string{"Alpha"}},
		{"$expand", "GET", "/odata/Book?$expand=Publisher", 400, []string{`"NotReadable"`, "Publisher of Book"}, nil},
		{"the foreign key in $filter", "GET", "/odata/Book?$filter=PublisherId eq 'p1'", 400, []string{"PublisherId of Book"}, nil},
		{"a path through the navigation", "GET", "/odata/Book?$filter=Publisher/Name eq 'Penguin'", 400, []string{"Publisher of Book"}, nil},
		{"the navigation compared with null", "GET", "/odata/Book?$filter=Publisher eq null", 400, []string{"Publisher of Book"}, nil},
		{"a lambda over the partner", "GET", "/odata/Publisher?$filter=Books/any()", 400, []string{"Books of Publisher"}, nil},
		{"the navigation as a path", "GET", "/odata/Book('b1')/Publisher", 403, []string{`"Forbidden"`, "Publisher of Book"}, []string{"Penguin"}},
		{"a path through the navigation's target", "GET", "/odata/Book('b1')/Publisher/Name", 403, nil, []string{"Penguin"}},
		{"the partner as a path", "GET", "/odata/Publisher('p1')/Books", 403, nil, []string{"Alpha"}},
		{"an action through the navigation", "POST", "/odata/Book('b1')/Publisher/Relocate", 403, nil, nil},
		{"another navigation", "GET", "/odata/Book('b1')/Authors", 200, []string{`"Name":"Ada"`}, nil},
		{"the navigation's references", "GET", "/odata/Book('b1')/Publisher/$ref", 403, nil, []string{"p1"}},
		{"the partner's references", "GET", "/odata/Publisher('p1')/Books/$ref", 403, nil, []string{"b1"}},
		{"a reference set through the navigation", "PUT", "/odata/Book('b1')/Publisher/$ref", 403, nil, nil},
		{"a bind of the navigation", "PATCH", "/odata/Book('b1')", 400, []string{`"NotReadable"`, `"target":"Publisher"`}, nil},
		{"an entity inline in the navigation", "POST", "/odata/Book", 400, []string{`"NotReadable"`, `"target":"Publisher"`}, nil},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newRedactionFixture(t, db)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f.t = t
				body := map[string]string{
					"POST /odata/Book('b1')/Publisher/Relocate": `{"Address":{"Street":"x"}}`,
					"PUT /odata/Book('b1')/Publisher/$ref":      `{"@odata.id":"Publisher('p1')"}`,
					"PATCH /odata/Book('b1')":                   `{"Publisher@odata.bind":"Publisher('p1')"}`,
					"POST /odata/Book":                          `{"Title":"X","Publisher":{"Name":"New"}}`,
				}[tc.method+" "+tc.path]
				resp := f.doAs("unlinked", tc.method, encodeURL(tc.path), body)
				if resp.Status != tc.status {
					t.Fatalf("%s %s = %d, want %d\n%s", tc.method, tc.path, resp.Status, tc.status, resp.Body)
				}
				checkBody(t, tc.method+" "+tc.path, resp.Body, tc.has, tc.hasNot)
			})
		}
	})
}

// TestRedactedMedia creates a media entity as r1, who may not read its media type: the bytes would write it.
func TestRedactedMedia(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newRedactionFixture(t, db)
		for _, c := range []struct {
			method, path string
			status       int
		}{
			{"POST", "/odata/Cover", http.StatusBadRequest},
			{"PUT", "/odata/Cover('v1')/$value", http.StatusForbidden},
		} {
			req := httptest.NewRequest(c.method, "http://example.com"+c.path, strings.NewReader("\x89PNG"))
			req.Header.Set("Content-Type", "image/png")
			req = req.WithContext(context.WithValue(req.Context(), principalKey{}, "r1"))
			w := httptest.NewRecorder()
			f.svc.ServeHTTP(w, req)
			if w.Code != c.status || revealed(w.Body.String()) != nil {
				t.Errorf("%s %s as r1 = %d %s, want %d", c.method, c.path, w.Code, w.Body, c.status)
			}
		}
		if got := f.doAs("admin", "GET", "/odata/Cover/$count", ""); got.Body != "1" {
			t.Errorf("covers after the refused writes: %s, want 1", got.Body)
		}
	})
}

// TestRedactionWrites writes entities whose values r1 may not read, on SQLite and PostgreSQL: a create gives them
// their defaults, a full update and a patch keep them, and the answers and ETags do not tell them; an ETag r1
// read works in its If-Match.
func TestRedactionWrites(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newRedactionFixture(t, db)
		admin := func(path string) string {
			f.t.Helper()
			return f.doAs("admin", "GET", path, "").Body
		}
		steps := []struct {
			name, method, path, body string
			status                   int
			check, want              string // a path the admin reads after the step, and what it holds
		}{
			{"create", "POST", "/odata/Book", `{"Title":"Delta","Size":{"Width":3}}`, 201, encodeURL("/odata/Book?$filter=Title eq 'Delta'"), `"Price":0,`},
			{"full update keeps the redacted values", "PUT", "/odata/Book('b1')", `{"Title":"Alpha 2","Size":{"Width":11}}`, 200,
				"/odata/Book('b1')", `"Isbn":"978-secret","Price":4242.4242`},
			{"full update keeps a redacted member", "PUT", "/odata/Book('b1')", `{"Title":"Alpha 3"}`, 200, "/odata/Book('b1')/Size", `"Width":0,"Height":7777}`},
			{"full update keeps a redacted collection", "PUT", "/odata/Book('b1')", `{"Title":"Alpha 4"}`, 200, "/odata/Book('b1')/Tags", "secret-tag"},
			{"patch keeps them", "PATCH", "/odata/Book('b1')", `{"Title":"Alpha 5","Size":{"Width":12}}`, 200, "/odata/Book('b1')/Size", `"Width":12,"Height":7777}`},
			{"a complex value set to null keeps its redacted member", "PATCH", "/odata/Publisher('p1')", `{"Address":null}`, 200,
				"/odata/Publisher('p1')/Address", `"Street":null,"City":"SecretCity"`},
			{"a full update of a complex value keeps its redacted member", "PUT", "/odata/Publisher('p1')", `{"Name":"Penguin","Address":{"Street":"1 Way"}}`, 200,
				"/odata/Publisher('p1')/Address", `"Street":"1 Way","City":"SecretCity"`},
		}
		for _, step := range steps {
			f.t = t
			resp := f.doAs("r1", step.method, step.path, step.body)
			if resp.Status != step.status {
				t.Fatalf("%s: %s %s = %d, want %d\n%s", step.name, step.method, step.path, resp.Status, step.status, resp.Body)
			}
			if got := revealed(resp.Body); got != nil {
				t.Errorf("%s: the answer reveals %q:\n%s", step.name, got, resp.Body)
			}
			if got := admin(step.check); !strings.Contains(got, step.want) {
				t.Errorf("%s: GET %s as admin = %s, want %s", step.name, step.check, got, step.want)
			}
		}
		// The ETag of a type with a row version tells nothing of the values, so every principal gets the same
		// one; it changes with a value r1 may not read (the entity changed), and only the new one works in
		// If-Match.
		f.t = t
		etag := func(principal string) string {
			return f.doAs(principal, "GET", "/odata/Book('b1')", "").Header.Get("ETag")
		}
		before, adminBefore := etag("r1"), etag("admin")
		f.exec(`UPDATE book SET price = ? WHERE id = 'b1'`, priceArg(db, "1.5"))
		after, adminAfter := etag("r1"), etag("admin")
		if before != adminBefore || after != adminAfter || after == before {
			t.Errorf("ETags of r1 %s -> %s, of admin %s -> %s: want the same for both, changed by the Price", before, after, adminBefore, adminAfter)
		}
		patch := func(ifMatch string) *httptest.ResponseRecorder {
			req := httptest.NewRequest("PATCH", "http://example.com/odata/Book('b1')", strings.NewReader(`{"Pages":5}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("If-Match", ifMatch)
			req = req.WithContext(context.WithValue(req.Context(), principalKey{}, "r1"))
			w := httptest.NewRecorder()
			f.svc.ServeHTTP(w, req)
			return w
		}
		if w := patch(before); w.Code != http.StatusPreconditionFailed {
			t.Errorf("PATCH with r1's stale If-Match = %d %s, want 412", w.Code, w.Body)
		}
		if w := patch(after); w.Code != http.StatusOK || w.Header().Get("ETag") == after {
			t.Errorf("PATCH with r1's If-Match = %d %s, want 200 and a new ETag", w.Code, w.Body)
		}
	})
}

// TestRedactionMistakes checks the answers when Redact fails or names what cannot be redacted, and a $search
// without a readable searchable property.
func TestRedactionMistakes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newRedactionFixture(t, db)
		for _, c := range []struct {
			principal, path string
			status          int
			code            string
		}{
			{"", "/odata/Book", 403, odata.CodeForbidden},
			{"broken", "/odata/Book", 500, odata.CodeInternal},
			{"bad", "/odata/Book", 500, odata.CodeInternal},
			{"key", "/odata/Book", 500, odata.CodeInternal},
			{"titleless", "/odata/Book?$search=alpha", 400, odata.CodeNotReadable},
			{"titleless", "/odata/Author", 200, ""},
		} {
			resp := f.doAs(c.principal, "GET", c.path, "")
			got := []any{resp.Status, ""}
			if resp.Status >= 400 {
				got[1] = decodeError(t, resp.Body).Code
			}
			if diff := cmp.Diff([]any{c.status, c.code}, got); diff != "" {
				t.Errorf("GET %s as %q (-want +got):\n%s", c.path, c.principal, diff)
			}
		}
	})
}

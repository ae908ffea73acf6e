package odata_test

import (
	"strings"
	"testing"

	"github.com/storekit/store/odata/dbtest"
)

// TestService_Refs reads and changes entity references on both databases: a many-to-many navigation (link
// rows), a to-one navigation (the foreign key of the source) and a to-many one by back reference (the foreign
// key of the target); ids relative and absolute; the mistakes a client can make.
func TestService_Refs(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		f.exec(`INSERT INTO publisher (id, name) VALUES ('p2', 'Pelican')`)
		base := "http://example.com/odata/"
		steps := []struct {
			name, method, path, body string
			status                   int
			want                     string
		}{
			{"the references of a collection", "GET", "Book('b2')/Authors/$ref?$orderby=Id", "", 200,
				`{"@odata.context":"` + base + `$metadata#Collection($ref)","value":[{"@odata.id":"` + base + `Author('a1')"},{"@odata.id":"` + base + `Author('a2')"}]}`},
			{"with query options", "GET", "Book('b2')/Authors/$ref?$orderby=Name%20desc&$top=1&$count=true", "", 200,
				`"@odata.count":2,"value":[{"@odata.id":"` + base + `Author('a2')"}]`},
			{"the reference of a to-one navigation", "GET", "Book('b1')/Publisher/$ref", "", 200,
				`{"@odata.context":"` + base + `$metadata#$ref","@odata.id":"` + base + `Publisher('p1')"}`},
			{"contained entities", "GET", "Book('b1')/Chapters/$ref?$top=1", "", 200, `"@odata.id":"` + base + `Book('b1')/Chapters('c1')"`},
			{"$select does not apply", "GET", "Book('b2')/Authors/$ref?$select=Name", "", 400, `"code":"BadRequest"`},
			{"$expand does not apply", "GET", "Book('b2')/Authors/$ref?$expand=Books", "", 400, `"code":"BadRequest"`},
			{"of a missing entity", "GET", "Book('nope')/Authors/$ref", "", 404, `"code":"NotFound"`},
			{"add a link row", "POST", "Book('b3')/Authors/$ref", `{"@odata.id":"Author('a2')"}`, 204, ``},
			{"add it again", "POST", "Book('b3')/Authors/$ref", `{"@odata.id":"` + base + `Author('a2')"}`, 204, ``},
			{"the link is there", "GET", "Book('b3')/Authors/$ref", "", 200, `"value":[{"@odata.id":"` + base + `Author('a2')"}]`},
			{"remove by $id", "DELETE", "Book('b2')/Authors/$ref?$id=Author('a1')", "", 204, ``},
			{"remove by key", "DELETE", "Book('b2')/Authors('a2')/$ref", "", 204, ``},
			{"the links are gone", "GET", "Book('b2')/Authors/$ref", "", 200, `"value":[]`},
			{"remove a link that is not there", "DELETE", "Book('b2')/Authors('a2')/$ref", "", 404, `"code":"NotFound"`},
			{"set a to-one reference", "PUT", "Book('b1')/Publisher/$ref", `{"@odata.id":"Publisher('p2')"}`, 204, ``},
			{"the foreign key changed", "GET", "Book('b1')?$select=PublisherId", "", 200, `"PublisherId":"p2"`},
			{"empty a to-one reference", "DELETE", "Book('b1')/Publisher/$ref", "", 204, ``},
			{"the foreign key is null", "GET", "Book('b1')?$select=PublisherId", "", 200, `"PublisherId":null`},
			{"add by back reference", "POST", "Publisher('p2')/Books/$ref", `{"@odata.id":"Book('b1')"}`, 204, ``},
			{"the target's key points back", "GET", "Book('b1')?$select=PublisherId", "", 200, `"PublisherId":"p2"`},
			{"remove a back reference", "DELETE", "Publisher('p2')/Books/$ref?$id=Book('b1')", "", 204, ``},
			{"the target's key is null", "GET", "Book('b1')?$select=PublisherId", "", 200, `"PublisherId":null`},
			{"an id of another type", "POST", "Book('b3')/Authors/$ref", `{"@odata.id":"Publisher('p1')"}`, 400, `"target":"@odata.id"`},
			{"an id that names nothing", "POST", "Book('b3')/Authors/$ref", `{"@odata.id":"Nope(1)"}`, 400, `"target":"@odata.id"`},
			{"an id of another service", "POST", "Book('b3')/Authors/$ref", `{"@odata.id":"http://other.example/Author('a1')"}`, 400, `"target":"@odata.id"`},
			{"no id", "POST", "Book('b3')/Authors/$ref", `{}`, 400, `"target":"@odata.id"`},
			{"an id of a missing entity", "POST", "Book('b3')/Authors/$ref", `{"@odata.id":"Author('zz')"}`, 400, `"target":"@odata.id"`},
			{"DELETE of a collection without $id", "DELETE", "Book('b3')/Authors/$ref", "", 400, `"target":"$id"`},
			{"a read-only set", "POST", "Author('a1')/Books/$ref", `{"@odata.id":"Book('b1')"}`, 405, `"code":"MethodNotAllowed"`},
			{"POST to a single-valued navigation", "POST", "Book('b1')/Publisher/$ref", `{"@odata.id":"Publisher('p1')"}`, 405, `"code":"MethodNotAllowed"`},
			{"a segment after $ref", "GET", "Book('b1')/Publisher/$ref/Name", "", 400, `"code":"SyntaxError"`},
		}
		for _, s := range steps {
			resp := f.do(s.method, "/odata/"+s.path, s.body)
			if resp.Status != s.status || !strings.Contains(resp.Body, s.want) {
				t.Errorf("%s: %s %s = %d %s, want %d with %s", s.name, s.method, s.path, resp.Status, resp.Body, s.status, s.want)
			}
		}
	})
}

// TestService_Binds sets references in POST and PATCH bodies with @odata.bind on both databases: a to-one
// navigation whose foreign key is a property (set before the save), a many-to-many one (link rows after it), null
// for a nullable one; a bound entity that does not exist rolls the write back.
func TestService_Binds(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		f.exec(`INSERT INTO publisher (id, name) VALUES ('p2', 'Pelican')`)
		created := f.must(201, "POST", "/odata/Book", `{"Title":"Delta","Publisher@odata.bind":"Publisher('p2')",`+
			`"Authors@odata.bind":["Author('a1')","http://example.com/odata/Author('a2')"]}`)
		if !strings.Contains(created.Body, `"PublisherId":"p2"`) {
			t.Errorf("POST with Publisher@odata.bind = %s, want PublisherId p2", created.Body)
		}
		location := strings.TrimPrefix(created.Header.Get("Location"), "http://example.com")
		if got := f.must(200, "GET", location+"/Authors/$ref?$orderby=Id", "").Body; !strings.Contains(got, `Author('a1')"},{"@odata.id":"http://example.com/odata/Author('a2')"}]`) {
			t.Errorf("the created book's authors = %s, want a1 and a2", got)
		}
		f.must(200, "PATCH", location, `{"Publisher@odata.bind":null,"Authors@odata.bind":["Author('a1')"]}`)
		if got := f.must(200, "GET", location+"?$select=PublisherId&$expand=Authors($select=Id)", "").Body; !strings.Contains(got, `"PublisherId":null`) ||
			strings.Count(got, `"Id":`) != 2 {
			t.Errorf("after PATCH = %s, want no publisher and the two authors", got)
		}
		before := f.count("/odata/Book")
		if resp := f.do("POST", "/odata/Book", `{"Title":"Echo","Authors@odata.bind":["Author('zz')"]}`); resp.Status != 400 ||
			!strings.Contains(resp.Body, `"target":"Authors@odata.bind"`) {
			t.Errorf("POST bound to a missing author = %d %s, want 400 naming the bind", resp.Status, resp.Body)
		}
		if after := f.count("/odata/Book"); after != before {
			t.Errorf("a failed POST left %s books, want %s", after, before)
		}
	})
}

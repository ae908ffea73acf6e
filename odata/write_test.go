package odata_test

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// errorBody is the error answer of the service contract.
type errorBody struct {
	Code    string
	Message string
	Target  string
	Details []struct{ Code, Target, Message string }
}

func decodeError(t *testing.T, body string) errorBody {
	t.Helper()
	m := decodeJSON(t, body)
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("not an error body: %s", body)
	}
	var out errorBody
	out.Code, _ = e["code"].(string)
	out.Message, _ = e["message"].(string)
	out.Target, _ = e["target"].(string)
	ds, _ := e["details"].([]any)
	for _, d := range ds {
		dm := d.(map[string]any)
		var x struct{ Code, Target, Message string }
		x.Code, _ = dm["code"].(string)
		x.Target, _ = dm["target"].(string)
		x.Message, _ = dm["message"].(string)
		out.Details = append(out.Details, x)
	}
	return out
}

// detailTargets lists code:target of each detail of an error answer.
func detailTargets(t *testing.T, body string) []string {
	t.Helper()
	var out []string
	for _, d := range decodeError(t, body).Details {
		out = append(out, d.Code+":"+d.Target)
	}
	return out
}

var idPattern = regexp.MustCompile(`^[0-9a-f]{24}$`)

func TestService_Create(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		resp := f.must(201, "POST", "/odata/Book", `{"Title":"New","Price":19.99,"Tags":["a","b"],"Size":{"Width":3},"Genre":"Science","PublisherId":"p1"}`)
		got := decodeJSON(t, resp.Body)
		id, _ := got["Id"].(string)
		if !idPattern.MatchString(id) {
			t.Fatalf("POST Book: Id = %q, want 24 hex digits", id)
		}
		if loc, want := resp.Header.Get("Location"), "http://example.com/odata/Book('"+id+"')"; loc != want {
			t.Errorf("POST Book: Location = %q, want %q", loc, want)
		}
		if got["@odata.etag"] != resp.Header.Get("ETag") {
			t.Errorf("POST Book: @odata.etag %v != ETag header %q", got["@odata.etag"], resp.Header.Get("ETag"))
		}
		want := map[string]string{"Title": "New", "Price": "19.99", "Edition": "1", "InPrint": "true", "Genre": "Science",
			"Formats": "Paperback", "Size": "map[Height:0 Width:3]", "Tags": "[a b]", "UpdatedOnUtc": "2026-11-22T01:02:03.456Z",
			"Sold": "0", "Isbn": "<nil>", "@odata.context": "http://example.com/odata/$metadata#Book/$entity"}
		for k, w := range want {
			if g := fmtValue(got[k]); g != w {
				t.Errorf("POST Book: %s = %s, want %s", k, g, w)
			}
		}
		// The stored entity reads back with the same body and ETag.
		again := f.must(200, "GET", "/odata/Book('"+id+"')", "")
		if again.Body != resp.Body || again.Header.Get("ETag") != resp.Header.Get("ETag") {
			t.Errorf("GET after POST differs:\nPOST %s\nGET  %s", resp.Body, again.Body)
		}
		// Id absent, null or "" all create.
		for _, body := range []string{`{"Title":"x","Id":null}`, `{"Title":"y","Id":""}`} {
			r := f.must(201, "POST", "/odata/Book", body)
			if id := decodeJSON(t, r.Body)["Id"].(string); !idPattern.MatchString(id) {
				t.Errorf("POST %s: Id = %q", body, id)
			}
		}
	})
}

func fmtValue(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = fmtValue(it)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sortStrings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + fmtValue(x[k])
		}
		return "map[" + strings.Join(parts, " ") + "]"
	case nil:
		return "<nil>"
	}
	return strings.TrimSpace(strings.Trim(jsonText(v), `"`))
}

func TestService_PostUpsert(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		// A POST naming an existing entity is a full update: omitted fields reset to their defaults.
		resp := f.must(200, "POST", "/odata/Book", `{"Id":"b1","Title":"Alpha 2"}`)
		got := decodeJSON(t, resp.Body)
		for k, w := range map[string]string{"Title": "Alpha 2", "Pages": "0", "Price": "0", "Tags": "[]",
			"Size": "map[Height:0 Width:0]", "PublisherId": "<nil>", "Id": "b1"} {
			if g := fmtValue(got[k]); g != w {
				t.Errorf("POST Book with Id: %s = %s, want %s", k, g, w)
			}
		}
		if resp.Header.Get("Location") != "" {
			t.Errorf("POST Book with Id: Location = %q, want none", resp.Header.Get("Location"))
		}
		resp = f.must(400, "POST", "/odata/Book", `{"Id":"nope","Title":"x"}`)
		e := decodeError(t, resp.Body)
		if e.Target != "Id" || e.Message != "Book Id does not exist" {
			t.Errorf("POST Book with unknown Id: error = %+v, want target Id, message %q", e, "Book Id does not exist")
		}
		// Member is upserted by Id, its key being the e-mail.
		f.must(200, "POST", "/odata/Member", `{"Id":"m1","Email":"reader@example.com","Name":"Rita R"}`)
		r := f.must(201, "POST", "/odata/Member", `{"Email":"new@example.com"}`)
		if id := decodeJSON(t, r.Body)["Id"].(string); !idPattern.MatchString(id) {
			t.Errorf("POST Member: Id = %q", id)
		}
		if loc := r.Header.Get("Location"); loc != "http://example.com/odata/Member('new@example.com')" {
			t.Errorf("POST Member: Location = %q", loc)
		}
		f.must(409, "POST", "/odata/Member", `{"Email":"new@example.com"}`)
	})
}

func TestService_PutPatchDelete(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		got := decodeJSON(t, f.must(200, "PUT", "/odata/Book('b1')", `{"Title":"T","Id":"b1","Tags":["z"]}`).Body)
		for k, w := range map[string]string{"Title": "T", "Pages": "0", "Tags": "[z]", "Edition": "1", "Price": "0"} {
			if g := fmtValue(got[k]); g != w {
				t.Errorf("PUT Book: %s = %s, want %s", k, g, w)
			}
		}
		if e := decodeError(t, f.must(400, "PUT", "/odata/Book('b1')", `{"Title":"T","Id":"b2"}`).Body); e.Target != "Id" {
			t.Errorf("PUT Book with another Id: target = %q, want Id", e.Target)
		}
		got = decodeJSON(t, f.must(200, "PATCH", "/odata/Book('b2')", `{"Pages":5,"Formats":"Hardcover,Audio"}`).Body)
		for k, w := range map[string]string{"Title": "Beta", "Pages": "5", "Formats": "Hardcover,Audio", "Price": "12.5"} {
			if g := fmtValue(got[k]); g != w {
				t.Errorf("PATCH Book: %s = %s, want %s", k, g, w)
			}
		}
		// Member: the key matches case-insensitively; Id and Email must match on PUT.
		f.must(200, "PUT", "/odata/Member('READER@example.com')", `{"Email":"reader@EXAMPLE.com","Id":"m1","Name":"R"}`)
		f.must(400, "PUT", "/odata/Member('reader@example.com')", `{"Email":"other@example.com","Name":"R"}`)
		f.must(400, "PATCH", "/odata/Member('reader@example.com')", `{"Id":"m2"}`)

		for _, m := range []string{"PUT", "PATCH", "DELETE"} {
			f.must(404, m, "/odata/Book('zz')", `{"Title":"x"}`)
		}
		resp := f.must(200, "DELETE", "/odata/Book('b1')", "")
		if resp.Body != "" || resp.Header.Get("OData-Version") != "4.0" {
			t.Errorf("DELETE: body %q, OData-Version %q; want empty, 4.0", resp.Body, resp.Header.Get("OData-Version"))
		}
		f.must(404, "GET", "/odata/Book('b1')", "")
		// Its tags, author links and chapters went with it.
		for _, table := range []string{"book_tags", "book_author", "chapter"} {
			var n int
			if err := db.QueryRow(`SELECT COUNT(*) FROM ` + table + ` WHERE book_id = 'b1'`).Scan(&n); err != nil || n != 0 {
				t.Errorf("after DELETE: %d rows in %s (%v), want 0", n, table, err)
			}
		}
		// A hook refuses; nothing changes.
		f.exec(`UPDATE book SET title = 'Protected' WHERE id = 'b3'`)
		f.must(403, "DELETE", "/odata/Book('b3')", "")
		f.must(200, "GET", "/odata/Book('b3')", "")
	})
}

func TestService_ReturnMinimal(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		resp := f.must(204, "PATCH", "/odata/Book('b1')", `{"Pages":1}`, "Prefer", "return=minimal")
		if resp.Body != "" || resp.Header.Get("OData-EntityId") != "http://example.com/odata/Book('b1')" ||
			resp.Header.Get("Preference-Applied") != "return=minimal" || resp.Header.Get("ETag") == "" {
			t.Errorf("PATCH return=minimal: headers %v body %q", resp.Header, resp.Body)
		}
		f.must(204, "PUT", "/odata/Book('b1')", `{"Title":"x"}`, "Prefer", "return=minimal")
		f.must(204, "POST", "/odata/Book", `{"Id":"b1","Title":"x"}`, "Prefer", "return=minimal")
		resp = f.must(201, "POST", "/odata/Book", `{"Title":"x"}`, "Prefer", "return=minimal")
		if resp.Body == "" || resp.Header.Get("Location") == "" {
			t.Errorf("POST create return=minimal: body %q, Location %q; want the entity and a Location", resp.Body, resp.Header.Get("Location"))
		}
	})
}

func TestService_IfMatch(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		etag := f.must(200, "GET", "/odata/Book('b1')", "").Header.Get("ETag")
		if !strings.HasPrefix(etag, `W/"`) {
			t.Fatalf("ETag = %q, want a weak ETag", etag)
		}
		f.must(412, "PATCH", "/odata/Book('b1')", `{"Pages":1}`, "If-Match", `W/"0000000000000000"`)
		resp := f.must(200, "PATCH", "/odata/Book('b1')", `{"Pages":1}`, "If-Match", etag)
		next := resp.Header.Get("ETag")
		if next == etag {
			t.Errorf("ETag unchanged after PATCH: %s", next)
		}
		e := decodeError(t, f.must(412, "PATCH", "/odata/Book('b1')", `{"Pages":2}`, "If-Match", etag).Body)
		if e.Code != "PreconditionFailed" {
			t.Errorf("stale If-Match: code %q, want PreconditionFailed", e.Code)
		}
		f.must(200, "PATCH", "/odata/Book('b1')", `{"Pages":2}`, "If-Match", "*")
		f.must(412, "DELETE", "/odata/Book('b1')", "", "If-Match", next)
		f.must(412, "PUT", "/odata/Book('b1')", `{"Title":"x"}`, "If-Match", next)
		f.must(412, "POST", "/odata/Book('b1')/Rate", `{"Stars":1}`, "If-Match", next)
		cur := f.must(200, "GET", "/odata/Book('b1')", "").Header.Get("ETag")
		f.must(304, "GET", "/odata/Book('b1')", "", "If-None-Match", cur)
		f.must(200, "DELETE", "/odata/Book('b1')", "", "If-Match", `"x", `+strings.TrimPrefix(cur, "W/"))
	})
}

func TestService_MethodNotAllowed(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct{ method, path, allow string }{
			{"POST", "/odata/Author", "GET"},
			{"PUT", "/odata/Author('a1')", "GET"},
			{"DELETE", "/odata/Author('a1')", "GET"},
			{"PATCH", "/odata/Cover('x')", "GET, DELETE"},
			{"PUT", "/odata/Cover('x')", "GET, DELETE"},
			{"DELETE", "/odata/Book", "GET, POST"},
			{"POST", "/odata/Book('b1')", "GET, PUT, PATCH, DELETE"},
			{"DELETE", "/odata/Book('b1')/Publisher", "GET"},
			{"POST", "/odata/Book('b1')/Chapters", "GET"},
			{"GET", "/odata/Book('b1')/Rate", "POST"},
			{"POST", "/odata/$metadata", "GET"},
			{"PUT", "/odata/", "GET"},
		} {
			resp := f.do(tc.method, tc.path, `{}`)
			if resp.Status != 405 || resp.Header.Get("Allow") != tc.allow {
				t.Errorf("%s %s = %d Allow %q, want 405 Allow %q", tc.method, tc.path, resp.Status, resp.Header.Get("Allow"), tc.allow)
			}
			if c := decodeError(t, resp.Body).Code; c != "MethodNotAllowed" {
				t.Errorf("%s %s: code %q", tc.method, tc.path, c)
			}
		}
	})
}

func TestService_ContentType(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, ct := range []string{"text/plain", "application/xml", "application/x-www-form-urlencoded"} {
			resp := f.must(415, "POST", "/odata/Book", `{"Title":"x"}`, "Content-Type", ct)
			if c := decodeError(t, resp.Body).Code; c != "UnsupportedMediaType" {
				t.Errorf("POST with %s: code %q", ct, c)
			}
		}
		f.must(415, "PATCH", "/odata/Book('b1')", `{"Title":"x"}`, "Content-Type", "")
		f.must(201, "POST", "/odata/Book", `{"Title":"x"}`, "Content-Type", "application/json; charset=utf-8")
		f.must(201, "POST", "/odata/Book", `{"Title":"x"}`, "Content-Type", "application/json;odata.metadata=minimal")
		f.must(200, "GET", "/odata/Book('b1')", "", "Content-Type", "text/plain")
		f.must(200, "DELETE", "/odata/Book('b2')", "", "Content-Type", "text/xml")
		if e := decodeError(t, f.must(400, "POST", "/odata/Book", ``, "Content-Type", "application/json").Body); e.Code != "InvalidJson" {
			t.Errorf("POST with an empty body: code %q, want InvalidJson", e.Code)
		}
	})
}

func TestService_Validation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct {
			name, method, path, body string
			want                     []string
		}{
			{"rules of engine and hook in one answer", "POST", "/odata/Book",
				`{"Title":"  ","Isbn":"123456789012345678","Price":-1,"Pages":-3}`,
				[]string{"InvalidValue:Isbn", "Required:Title", "InvalidValue:Price", "InvalidValue:Pages"}},
			{"unknown field", "POST", "/odata/Book", `{"Title":"x","Nope":1}`, []string{"UnknownField:Nope"}},
			{"wrong JSON type", "POST", "/odata/Book", `{"Title":5}`, []string{"TypeMismatch:Title"}},
			{"wrong JSON types", "PATCH", "/odata/Book('b1')", `{"Pages":"5","InPrint":1,"Tags":"a","Size":[1]}`,
				[]string{"TypeMismatch:Pages", "TypeMismatch:InPrint", "TypeMismatch:Tags", "TypeMismatch:Size"}},
			{"invalid values", "PATCH", "/odata/Book('b1')",
				`{"Price":"abc","Genre":"Poetry","Published":"2024-02-30","CatalogGuid":"x","Stamp":"!!","Edition":40000,"Flag":256,"ReadingTime":"1 day"}`,
				[]string{"InvalidValue:Price", "InvalidValue:Genre", "InvalidValue:Published", "InvalidValue:CatalogGuid",
					"InvalidValue:Stamp", "InvalidValue:Edition", "InvalidValue:Flag", "InvalidValue:ReadingTime"}},
			{"too many decimal places", "PATCH", "/odata/Book('b1')", `{"Price":1.00001}`, []string{"InvalidValue:Price"}},
			{"decimal beyond 64-bit scaled", "PATCH", "/odata/Book('b1')", `{"Price":922337203685477.5808}`, []string{"InvalidValue:Price"}},
			{"NUL in text", "PATCH", "/odata/Book('b1')", `{"Title":"a\u0000b","Tags":["\u0000"]}`, []string{"InvalidValue:Title", "InvalidValue:Tags[0]"}},
			{"long item and member", "PATCH", "/odata/Book('b1')", `{"Tags":["123456789012345678901"]}`, []string{"InvalidValue:Tags[0]"}},
			{"unknown member", "PATCH", "/odata/Publisher('p1')", `{"Address":{"Street":"x","Planet":"Mars"}}`, []string{"UnknownField:Address/Planet"}},
			{"null for a non-nullable field", "PATCH", "/odata/Book('b1')", `{"Pages":null}`, []string{"InvalidValue:Pages"}},
			{"navigation property", "POST", "/odata/Book", `{"Title":"x","Publisher":{"Name":"y"}}`, []string{"InvalidValue:Publisher"}},
			{"navigation binding", "POST", "/odata/Book", `{"Title":"x","Publisher@odata.bind":"Publisher('p1')"}`, []string{"InvalidValue:Publisher"}},
			{"required on patch", "PATCH", "/odata/Book('b1')", `{"Title":""}`, []string{"Required:Title"}},
			{"required on put", "PUT", "/odata/Publisher('p1')", `{"Founded":"2000-01-01"}`, []string{"Required:Name"}},
			{"key changed", "PATCH", "/odata/Book('b1')", `{"Id":"b9"}`, []string{"InvalidValue:Id"}},
			{"immutable changed", "PATCH", "/odata/Member('reader@example.com')", `{"Email":"x@example.com"}`, []string{"InvalidValue:Email"}},
			{"duplicate field", "POST", "/odata/Book", `{"Title":"x","title":"y"}`, []string{"InvalidValue:Title"}},
		} {
			resp := f.do(tc.method, tc.path, tc.body)
			if resp.Status != 400 {
				t.Errorf("%s: %s %s = %d, want 400\n%s", tc.name, tc.method, tc.path, resp.Status, resp.Body)
				continue
			}
			e := decodeError(t, resp.Body)
			if e.Code != "ValidationFailed" {
				t.Errorf("%s: code %q, want ValidationFailed", tc.name, e.Code)
			}
			if diff := cmp.Diff(tc.want, detailTargets(t, resp.Body)); diff != "" {
				t.Errorf("%s: details mismatch (-want +got):\n%s", tc.name, diff)
			}
			if len(tc.want) > 0 && e.Target != strings.SplitN(tc.want[0], ":", 2)[1] {
				t.Errorf("%s: target %q, want the first detail's", tc.name, e.Target)
			}
		}
		e := decodeError(t, f.must(400, "POST", "/odata/Book", `{"Title":"  "}`).Body)
		if e.Message != "Book title is required" {
			t.Errorf("required message = %q, want the declared one", e.Message)
		}
		// Nothing was stored by the failed requests.
		got := decodeJSON(t, f.must(200, "GET", "/odata/Book('b1')", "").Body)
		if got["Title"] != "Alpha" || fmtValue(got["Pages"]) != "100" {
			t.Errorf("after failed writes: Title %v, Pages %v", got["Title"], got["Pages"])
		}
		for _, tc := range []struct{ body, code string }{
			{`{"Title":`, "InvalidJson"},
			{`[1]`, "InvalidJson"},
			{`{"Title":"x"} {}`, "InvalidJson"},
		} {
			if e := decodeError(t, f.must(400, "POST", "/odata/Book", tc.body).Body); e.Code != tc.code {
				t.Errorf("POST %s: code %q, want %q", tc.body, e.Code, tc.code)
			}
		}
	})
}

func TestService_ReadOnlyAndAnnotations(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		// The values they hold are ignored, whatever they are, as are annotations (OData 4.01 part 1, 11.4.3).
		before := decodeJSON(t, f.must(200, "GET", "/odata/Book('b1')", "").Body)
		for _, body := range []string{
			`{"@odata.etag":"W/\"x\"","Id":"b1","Sold":0,"HasCover":false,"Pages":7,"Pages@odata.type":"#Int32"}`,
			`{"Sold":5,"HasCover":true,"UpdatedOnUtc":"yesterday","Pages":8}`,
			`{"Sold":"five","Sold":6,"UpdatedOnUtc":null,"Pages":9}`,
		} {
			got := decodeJSON(t, f.must(200, "PATCH", "/odata/Book('b1')", body).Body)
			if fmtValue(got["Sold"]) != fmtValue(before["Sold"]) || got["HasCover"] != before["HasCover"] {
				t.Errorf("PATCH %s: Sold %v, HasCover %v; want the stored %v, %v", body, got["Sold"], got["HasCover"], before["Sold"], before["HasCover"])
			}
		}
		f.must(200, "PUT", "/odata/Book('b1')", `{"Id":"b1","Title":"Alpha","Sold":123,"UpdatedOnUtc":"2000-01-01T00:00:00Z"}`)
		f.must(200, "PATCH", "/odata/Member('READER@EXAMPLE.COM')", `{"Email":"reader@example.com","Id":"m1"}`)
		// On create, read-only fields are computed by the server.
		got := decodeJSON(t, f.must(201, "POST", "/odata/Book", `{"@odata.type":"#Lib.Book","Title":"x","Sold":99,"UpdatedOnUtc":"2000-01-01T00:00:00Z"}`).Body)
		if fmtValue(got["Sold"]) != "0" || got["UpdatedOnUtc"] != "2026-11-22T01:02:03.456Z" {
			t.Errorf("POST with read-only fields: Sold %v, UpdatedOnUtc %v", got["Sold"], got["UpdatedOnUtc"])
		}
	})
}

func TestService_Conflicts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		f.must(200, "PATCH", "/odata/Book('b1')", `{"Isbn":"978-0"}`)
		if e := decodeError(t, f.must(409, "PATCH", "/odata/Book('b2')", `{"Isbn":"978-0"}`).Body); e.Code != "Conflict" {
			t.Errorf("duplicate Isbn: code %q, want Conflict", e.Code)
		}
		f.must(400, "PATCH", "/odata/Book('b2')", `{"PublisherId":"nope"}`)
		// Composite keys come from the body.
		resp := f.must(201, "POST", "/odata/Loan", `{"BookId":"b2","MemberNo":3,"Due":"2026-01-31"}`)
		if loc := resp.Header.Get("Location"); loc != "http://example.com/odata/Loan(BookId='b2',MemberNo=3)" {
			t.Errorf("POST Loan: Location = %q", loc)
		}
		f.must(409, "POST", "/odata/Loan", `{"BookId":"b2","MemberNo":3}`)
		f.must(200, "PATCH", "/odata/Loan(MemberNo=3,BookId='b2')", `{"Due":null}`)
		f.must(200, "DELETE", "/odata/Loan(BookId='b2',MemberNo=3)", "")
	})
}

// TestService_IfMatchConcurrent sends the same conditional PATCH from several clients at once: the check runs on
// the locked row inside the transaction, so exactly one wins and the others get 412.
func TestService_IfMatchConcurrent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		etag := f.must(200, "GET", "/odata/Book('b1')", "").Header.Get("ETag")
		const n = 6
		statuses := make(chan int, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				statuses <- f.do("PATCH", "/odata/Book('b1')", fmt.Sprintf(`{"Pages":%d}`, 1000+i), "If-Match", etag).Status
			}(i)
		}
		wg.Wait()
		close(statuses)
		count := map[int]int{}
		for s := range statuses {
			count[s]++
		}
		if count[200] != 1 || count[412] != n-1 {
			t.Errorf("concurrent conditional PATCHes: statuses %v, want one 200 and %d 412", count, n-1)
		}
	})
}

package odata_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// staleETag is an ETag no entity has.
const staleETag = `W/"0000000000000000"`

// rowVersionWrite is one kind of write of Book('b1'): it sends ifMatch (when not "") and returns the status of
// the write (inside a batch, the inner one) and the ETag its answer gave ("" for none).
type rowVersionWrite struct {
	name string
	// change configures the service (nil: the library fixture's).
	change func(cfg *odata.Config)
	// write makes the write.
	write func(t *testing.T, f *fixture, ifMatch string) (int, string)
	// status is the status of the write when it succeeds.
	status int
	// noIfMatch marks a write that takes no If-Match (another program's).
	noIfMatch bool
}

// rowVersionWrites are the writes that change Book('b1'), one of each kind.
func rowVersionWrites() []rowVersionWrite {
	plain := func(method, path, body string) func(t *testing.T, f *fixture, ifMatch string) (int, string) {
		return func(t *testing.T, f *fixture, ifMatch string) (int, string) {
			var headers []string
			if ifMatch != "" {
				headers = []string{"If-Match", ifMatch}
			}
			resp := f.do(method, path, body, headers...)
			return resp.Status, resp.Header.Get("ETag")
		}
	}
	return []rowVersionWrite{
		{name: "PATCH", write: plain("PATCH", "/odata/Book('b1')", `{"Title":"Patched"}`), status: 200},
		{name: "PUT", write: plain("PUT", "/odata/Book('b1')", `{"Title":"Put"}`), status: 200},
		{name: "POST upsert", change: setOption("Book", func(o *odata.SetOptions) { o.UpsertBy = "Id" }),
			write: plain("POST", "/odata/Book", `{"Id":"b1","Title":"Upserted"}`), status: 200},
		{name: "deep update", write: plain("PATCH", "/odata/Book('b1')",
			`{"Title":"Deep","Chapters":[{"Id":"c1","Title":"First"},{"Number":3,"Title":"Three"}]}`), status: 200},
		{name: "collection member insert", write: plain("POST", "/odata/Book('b1')/Tags?$index=0", `{"value":"new"}`), status: 204},
		{name: "bound action", write: plain("POST", "/odata/Book('b1')/Reprint", ``), status: 200},
		{name: "JSON batch", write: jsonBatchPatch, status: 200},
		{name: "multipart batch", write: multipartBatchPatch, status: 200},
		{name: "another program's UPDATE", noIfMatch: true, status: 0,
			write: func(t *testing.T, f *fixture, _ string) (int, string) {
				f.exec(`UPDATE book SET title = 'Raw' WHERE id = 'b1'`)
				return 0, ""
			}},
	}
}

// jsonBatchPatch patches Book('b1') in a JSON batch.
func jsonBatchPatch(t *testing.T, f *fixture, ifMatch string) (int, string) {
	headers := `"Content-Type":"application/json"`
	if ifMatch != "" {
		quoted, _ := json.Marshal(ifMatch)
		headers += `,"If-Match":` + string(quoted)
	}
	resp := f.must(200, "POST", "/odata/$batch", `{"requests":[{"id":"1","method":"PATCH","url":"Book('b1')",`+
		`"headers":{`+headers+`},"body":{"Title":"Batched"}}]}`)
	var answer struct {
		Responses []struct {
			Status  int
			Headers map[string]string
		}
	}
	if err := json.Unmarshal([]byte(resp.Body), &answer); err != nil || len(answer.Responses) != 1 {
		t.Fatalf("batch answer %s: %v", resp.Body, err)
	}
	r := answer.Responses[0]
	etag := r.Headers["etag"]
	if etag == "" {
		etag = r.Headers["ETag"]
	}
	return r.Status, etag
}

// multipartBatchPatch patches Book('b1') in a change set of a multipart batch.
func multipartBatchPatch(t *testing.T, f *fixture, ifMatch string) (int, string) {
	header := ""
	if ifMatch != "" {
		header = "If-Match: " + ifMatch + "\r\n"
	}
	body := "--b\r\nContent-Type: multipart/mixed; boundary=cs\r\n\r\n" +
		"--cs\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: 1\r\n\r\n" +
		"PATCH Book('b1') HTTP/1.1\r\nContent-Type: application/json\r\n" + header + "\r\n" + `{"Title":"Multipart"}` + "\r\n" +
		"--cs--\r\n\r\n--b--\r\n"
	resp := f.must(200, "POST", "/odata/$batch", body, "Content-Type", "multipart/mixed; boundary=b")
	// The answer's one response: its status line and headers.
	_, text, _ := strings.Cut(resp.Body, "HTTP/1.1 ")
	text = "HTTP/1.1 " + text
	var status int
	if _, err := fmt.Sscanf(text, "HTTP/1.1 %d", &status); err != nil {
		t.Fatalf("inner answer %q: %v", text, err)
	}
	etag := ""
	for _, line := range strings.Split(text, "\r\n") {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.EqualFold(name, "ETag") {
			etag = strings.TrimSpace(value)
		}
	}
	return status, etag
}

// rowVersionOf reads the row version of Book('b1').
func rowVersionOf(t *testing.T, f *fixture) int64 {
	t.Helper()
	var v int64
	if err := f.db.QueryRowContext(context.Background(), `SELECT row_version FROM book WHERE id = 'b1'`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRowVersion_EveryWrite checks, on both databases, that every kind of write changes the row version of
// Book('b1') and its ETag (the one the write answers is the one a read then gives), that a stale If-Match
// answers 412 and changes nothing, and that the ETag read under $select is the one read without it.
func TestRowVersion_EveryWrite(t *testing.T) {
	for _, w := range rowVersionWrites() {
		t.Run(w.name, func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
				f := newFixtureWith(t, db, w.change)
				f.seed()
				etag := func() string {
					full := f.must(200, "GET", "/odata/Book('b1')", "").Header.Get("ETag")
					selected := f.must(200, "GET", "/odata/Book('b1')?$select=Title", "").Header.Get("ETag")
					if full != selected || full == "" {
						t.Errorf("ETag %q, under $select %q: want the same", full, selected)
					}
					return full
				}
				before, version := etag(), rowVersionOf(t, f)
				if !w.noIfMatch {
					if status, _ := w.write(t, f, staleETag); status != http.StatusPreconditionFailed {
						t.Errorf("with a stale If-Match: %d, want 412", status)
					}
					if got := rowVersionOf(t, f); got != version {
						t.Errorf("a refused write changed the row version %d -> %d", version, got)
					}
				}
				ifMatch := before
				if w.noIfMatch {
					ifMatch = ""
				}
				status, answered := w.write(t, f, ifMatch)
				if status != w.status {
					t.Fatalf("write: %d, want %d", status, w.status)
				}
				after := etag()
				if got := rowVersionOf(t, f); got == version {
					t.Errorf("the row version stayed %d", got)
				}
				if after == before {
					t.Errorf("the ETag stayed %s", after)
				}
				if answered != "" && answered != after {
					t.Errorf("the write answered ETag %s, a read gives %s", answered, after)
				}
				if w.noIfMatch {
					return
				}
				// The ETag read before the write is stale now.
				if status, _ := w.write(t, f, before); status != http.StatusPreconditionFailed {
					t.Errorf("again with the ETag read before: %d, want 412", status)
				}
			})
		})
	}
}

// TestRowVersion_Delete checks If-Match on DELETE: a stale ETag is a 412, the current one deletes.
func TestRowVersion_Delete(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		etag := f.must(200, "GET", "/odata/Book('b1')", "").Header.Get("ETag")
		f.must(http.StatusPreconditionFailed, "DELETE", "/odata/Book('b1')", "", "If-Match", staleETag)
		f.must(http.StatusNoContent, "DELETE", "/odata/Book('b1')", "", "If-Match", etag)
	})
}

// TestRowVersion_IfNoneMatch checks If-None-Match on a read by key: 304 with the current ETag, 200 with a
// stale one.
func TestRowVersion_IfNoneMatch(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		etag := f.must(200, "GET", "/odata/Book('b1')?$select=Title", "").Header.Get("ETag")
		f.must(http.StatusNotModified, "GET", "/odata/Book('b1')", "", "If-None-Match", etag)
		f.must(http.StatusOK, "GET", "/odata/Book('b1')", "", "If-None-Match", staleETag)
	})
}

// TestRowVersion_SelectETags checks that an ETag read under $select is the one read without it for each source
// of ETags: Book's row version, Publisher's declared ETag property, and Author's hash of every property (its
// table without the row version's trigger, which the engine then does not trust); in collections too.
func TestRowVersion_SelectETags(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		drop := `DROP TRIGGER author_row_version`
		if db.Dialect().Name() == "postgres" {
			drop += ` ON author`
		}
		createLibrarySchema(t, db)
		if _, err := db.ExecContext(context.Background(), drop); err != nil {
			t.Fatal(err)
		}
		m := libraryModel()
		for _, et := range m.EntityTypes {
			if et.Name == "Publisher" {
				et.ETag = []string{"Name"}
			}
		}
		if err := m.Build(); err != nil {
			t.Fatal(err)
		}
		sets, actions := libraryConfig(m)
		author := sets["Author"]
		author.Writes = odata.WriteAll
		sets["Author"] = author
		svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Mount: "/odata", Sets: sets, Actions: actions,
			Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		f := &fixture{t: t, db: db, svc: svc}
		f.seed()
		sources := map[string]bool{}
		for _, et := range []string{"Book", "Publisher", "Author"} {
			sources[et] = m.EntityType(et).RowVersion() != nil
		}
		if diff := cmp.Diff(map[string]bool{"Book": true, "Publisher": false, "Author": false}, sources); diff != "" {
			t.Errorf("types with a row version (-want +got):\n%s", diff)
		}
		for _, c := range []struct{ entity, selected, set string }{
			{"/odata/Book('b1')", "?$select=Title", "/odata/Book?$orderby=Id"},
			{"/odata/Publisher('p1')", "?$select=Founded", "/odata/Publisher?$orderby=Id"},
			{"/odata/Author('a1')", "?$select=Name", "/odata/Author?$orderby=Id"},
		} {
			full := f.must(200, "GET", c.entity, "").Header.Get("ETag")
			if got := f.must(200, "GET", c.entity+c.selected, "").Header.Get("ETag"); got != full || full == "" {
				t.Errorf("GET %s%s: ETag %q, without $select %q", c.entity, c.selected, got, full)
			}
			if got, want := collectionETags(t, f, c.set+"&"+c.selected[1:]), collectionETags(t, f, c.set); !cmp.Equal(got, want) || len(want) == 0 {
				t.Errorf("GET %s under %s: ETags %q, without $select %q", c.set, c.selected, got, want)
			}
			f.must(http.StatusPreconditionFailed, "PATCH", c.entity, `{}`, "If-Match", staleETag)
			f.must(http.StatusOK, "PATCH", c.entity, `{}`, "If-Match", full)
		}
		// The declared ETag property and the hash of every property change with the values, not with a write
		// that leaves them: an UPDATE of Author's name changes Author's ETag.
		before := f.must(200, "GET", "/odata/Author('a1')?$select=Id", "").Header.Get("ETag")
		f.exec(`UPDATE author SET name = 'Ada L' WHERE id = 'a1'`)
		if after := f.must(200, "GET", "/odata/Author('a1')?$select=Id", "").Header.Get("ETag"); after == before {
			t.Errorf("Author's ETag stayed %s after its name changed", after)
		}
	})
}

// collectionETags returns the @odata.etag of each entity of a collection read.
func collectionETags(t *testing.T, f *fixture, path string) []string {
	t.Helper()
	var page struct {
		Value []map[string]any `json:"value"`
	}
	if err := json.Unmarshal([]byte(f.must(200, "GET", path, "").Body), &page); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range page.Value {
		s, _ := e["@odata.etag"].(string)
		out = append(out, s)
	}
	return out
}

// TestRowVersion_InsertedRows checks that rows inserted by the engine and by another program start at a random
// version below 2^48 (a row deleted and created again under its key does not get its former ETag back).
func TestRowVersion_InsertedRows(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.must(201, "POST", "/odata/Book", `{"Title":"One"}`)
		f.must(201, "POST", "/odata/Book", `{"Title":"Two"}`)
		f.exec(`INSERT INTO author (id, name) VALUES ('x1', 'X'), ('x2', 'Y')`)
		for _, table := range []string{"book", "author"} {
			rows, err := db.QueryContext(context.Background(), `SELECT row_version FROM `+table)
			if err != nil {
				t.Fatal(err)
			}
			var versions []int64
			for rows.Next() {
				var v int64
				if err := rows.Scan(&v); err != nil {
					t.Fatal(err)
				}
				versions = append(versions, v)
			}
			rows.Close()
			if len(versions) != 2 || versions[0] == versions[1] || versions[0] < 0 || versions[0] >= 1<<48 || versions[1] < 0 || versions[1] >= 1<<48 {
				t.Errorf("%s row versions %v, want two different ones in [0, 2^48)", table, versions)
			}
		}
	})
}

// TestRowVersion_Hierarchy checks a hierarchy of types whose root declares no ETag: every type of it has the
// root's row version, read through the root's set or a derived type's, under $select or not, and a write through
// either changes it.
func TestRowVersion_Hierarchy(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		model := hierarchyServiceModel()
		for _, et := range model.EntityTypes {
			if et.Name == "Item" {
				et.ETag = nil
			}
		}
		m := createSchema(t, db, model,
			`INSERT INTO item (id, name, version, pages, odata_type) VALUES ('i2', 'Atlas', 1, 120, 'Shop.Book')`)
		svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Logger: discardLogger(),
			Sets: map[string]odata.SetOptions{"Items": {Writes: odata.WriteAll}, "Books": {Writes: odata.WriteAll}}})
		if err != nil {
			t.Fatal(err)
		}
		f := &fixture{t: t, db: db, svc: svc}
		for _, name := range []string{"Item", "Book", "Ebook"} {
			if et := m.EntityType(name); et.RowVersion() == nil || et.RowVersion() != m.EntityType("Item").RowVersion() {
				t.Errorf("%s has not the root's row version", name)
			}
		}
		etags := func() []string {
			var out []string
			for _, path := range []string{"/Items('i2')", "/Books('i2')", "/Items('i2')?$select=Name", "/Books('i2')?$select=Pages"} {
				out = append(out, f.must(200, "GET", path, "").Header.Get("ETag"))
			}
			return out
		}
		before := etags()
		for _, e := range before {
			if e != before[0] || e == "" {
				t.Fatalf("ETags %q, want one", before)
			}
		}
		f.must(http.StatusPreconditionFailed, "PATCH", "/Books('i2')", `{"Pages":121}`, "If-Match", staleETag)
		f.must(http.StatusOK, "PATCH", "/Books('i2')", `{"Pages":121}`, "If-Match", before[0])
		after := etags()
		if after[0] == before[0] || after[1] != after[0] || after[2] != after[0] || after[3] != after[0] {
			t.Errorf("ETags after the write %q, before %q: want one, changed", after, before)
		}
		f.must(http.StatusOK, "PATCH", "/Items('i2')", `{"Name":"Atlas 2"}`, "If-Match", after[0])
	})
}

package odata_test

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// batchAnswer is one response of a JSON batch answer.
type batchAnswer struct {
	ID             string            `json:"id"`
	AtomicityGroup string            `json:"atomicityGroup"`
	Status         int               `json:"status"`
	Headers        map[string]string `json:"headers"`
	Body           json.RawMessage   `json:"body"`
}

// postJSONBatch sends a JSON batch and returns its responses; the batch itself must answer 200.
func postJSONBatch(t *testing.T, f *fixture, body string, headers ...string) []batchAnswer {
	t.Helper()
	resp := f.must(200, "POST", "/odata/$batch", body, headers...)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("batch answer Content-Type = %q", ct)
	}
	var doc struct {
		Responses []batchAnswer `json:"responses"`
	}
	if err := json.Unmarshal([]byte(resp.Body), &doc); err != nil {
		t.Fatalf("batch answer %s: %v", resp.Body, err)
	}
	return doc.Responses
}

// statuses lists id:status of each response, in order.
func statuses(answers []batchAnswer) []string {
	out := make([]string, len(answers))
	for i, a := range answers {
		out[i] = fmt.Sprintf("%s:%d", a.ID, a.Status)
	}
	return out
}

// count returns the number of entities a collection path (with its query) answers.
func (f *fixture) count(path string) string {
	f.t.Helper()
	collection, query, _ := strings.Cut(path, "?")
	return f.must(200, "GET", collection+"/$count?"+query, "").Body
}

func TestBatch_JSON(t *testing.T) {
	type check struct{ path, want string } // a $count after the batch
	for _, tc := range []struct {
		name     string
		prefer   string
		requests string
		want     []string
		checks   []check
		// bodies holds members the body of a response must have, by response id.
		bodies map[string]map[string]string
	}{
		{
			name: "reads and writes, $id reference",
			requests: `[
				{"id":"1","method":"get","url":"Book('b1')?$select=Title"},
				{"id":"2","method":"post","url":"Book","body":{"Title":"Batched","Pages":3}},
				{"id":"3","method":"patch","url":"$2","body":{"Pages":7},"dependsOn":["2"]},
				{"id":"4","method":"get","url":"$2?$select=Title,Pages","dependsOn":["3"]},
				{"id":"5","method":"get","url":"/odata/Book/$count"}]`,
			want:   []string{"1:200", "2:201", "3:200", "4:200", "5:200"},
			checks: []check{{"/odata/Book", "4"}},
			bodies: map[string]map[string]string{"1": {"Title": "Alpha"}, "4": {"Title": "Batched", "Pages": "7"}},
		},
		{
			name: "atomicity group whose second write fails stores nothing",
			requests: `[
				{"id":"1","atomicityGroup":"g","method":"post","url":"Book","body":{"Title":"Kept?"}},
				{"id":"2","atomicityGroup":"g","method":"patch","url":"Book('b1')","body":{"Title":"Changed"}},
				{"id":"3","atomicityGroup":"g","method":"post","url":"Book","body":{"Title":"Bad","Price":-1}},
				{"id":"4","atomicityGroup":"g","method":"delete","url":"Book('b2')"}]`,
			want:   []string{"1:424", "2:424", "3:400", "4:424"},
			checks: []check{{"/odata/Book", "3"}, {"/odata/Book?$filter=Title eq 'Alpha'", "1"}},
		},
		{
			name: "a database error in a group rolls the group back",
			requests: `[
				{"id":"1","atomicityGroup":"g","method":"post","url":"Publisher","body":{"Name":"Orbit"}},
				{"id":"2","atomicityGroup":"g","method":"post","url":"Loan","body":{"BookId":"b1","MemberNo":7}}]`,
			want:   []string{"1:424", "2:409"},
			checks: []check{{"/odata/Publisher", "1"}},
		},
		{
			name: "a failed action rolls back the writes before it",
			requests: `[
				{"id":"1","atomicityGroup":"g","method":"patch","url":"Book('b2')","body":{"Pages":1}},
				{"id":"2","atomicityGroup":"g","method":"post","url":"Book('b1')/Lib.Fail"}]`,
			want:   []string{"1:424", "2:409"},
			checks: []check{{"/odata/Book?$filter=Pages eq 200", "1"}, {"/odata/Book?$filter=Title eq 'Changed'", "0"}},
		},
		{
			name: "group committed, references inside it and dependsOn the group",
			requests: `[
				{"id":"p","atomicityGroup":"g","method":"post","url":"Publisher","body":{"Name":"Orbit"}},
				{"id":"b","atomicityGroup":"g","method":"post","url":"Book","body":{"Title":"Orbital"}},
				{"id":"q","atomicityGroup":"g","method":"patch","url":"$p","body":{"Name":"Orbit Books"},"dependsOn":["p"]},
				{"id":"r","method":"get","url":"$p?$select=Name","dependsOn":["g"]}]`,
			want:   []string{"p:201", "b:201", "q:200", "r:200"},
			checks: []check{{"/odata/Publisher", "2"}, {"/odata/Book", "4"}},
			bodies: map[string]map[string]string{"r": {"Name": "Orbit Books"}},
		},
		{
			name: "processing stops at the first failure",
			requests: `[
				{"id":"1","method":"get","url":"Book('zz')"},
				{"id":"2","method":"post","url":"Book","body":{"Title":"Never"}}]`,
			want:   []string{"1:404"},
			checks: []check{{"/odata/Book", "3"}},
		},
		{
			name:   "continue-on-error: dependents of a failure are 424",
			prefer: "odata.continue-on-error",
			requests: `[
				{"id":"1","method":"get","url":"Book('zz')"},
				{"id":"2","method":"get","url":"Book('b1')/$count"},
				{"id":"3","method":"delete","url":"Book('b3')","dependsOn":["1"]},
				{"id":"4","method":"patch","url":"$1","body":{"Pages":1}},
				{"id":"5","atomicityGroup":"g","method":"post","url":"Book","body":{"Title":"x"},"dependsOn":["1"]},
				{"id":"6","method":"get","url":"Book('b3')?$select=Id"}]`,
			want:   []string{"1:404", "2:400", "3:424", "4:424", "5:424", "6:200"},
			checks: []check{{"/odata/Book", "3"}},
		},
		{
			name:   "headers of a request apply to it alone",
			prefer: "odata.continue-on-error",
			requests: `[
				{"id":"1","method":"patch","url":"Book('b1')","headers":{"Prefer":"return=minimal"},"body":{"Pages":5}},
				{"id":"2","method":"patch","url":"Book('b1')","headers":{"If-Match":"W/\"0000000000000000\""},"body":{"Pages":6}},
				{"id":"3","method":"get","url":"Book('b1')","headers":{"Accept":"text/csv"}}]`,
			want:   []string{"1:204", "2:412", "3:406"},
			checks: []check{{"/odata/Book?$filter=Pages eq 5", "1"}},
		},
		{
			name:   "refused inside a batch: GET in a group, a nested $batch, an unknown set",
			prefer: "odata.continue-on-error",
			requests: `[
				{"id":"1","atomicityGroup":"g","method":"get","url":"Book"},
				{"id":"2","method":"post","url":"$batch","body":{"requests":[]}},
				{"id":"3","method":"get","url":"Nope"}]`,
			want: []string{"1:400", "2:400", "3:404"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
				f := newFixture(t, db)
				f.seed()
				answers := postJSONBatch(t, f, `{"requests":`+tc.requests+`}`, "Prefer", tc.prefer)
				if diff := cmp.Diff(tc.want, statuses(answers)); diff != "" {
					t.Errorf("statuses (-want +got):\n%s", diff)
				}
				for _, a := range answers {
					if a.Status >= 400 && decodeError(t, string(a.Body)).Code == "" {
						t.Errorf("response %s: error without code: %s", a.ID, a.Body)
					}
					for member, want := range tc.bodies[a.ID] {
						if got := fmtValue(decodeJSON(t, string(a.Body))[member]); got != want {
							t.Errorf("response %s: %s = %s, want %s", a.ID, member, got, want)
						}
					}
				}
				for _, c := range tc.checks {
					if got := f.count(strings.ReplaceAll(c.path, " ", "%20")); got != c.want {
						t.Errorf("after the batch, %s has %s entities, want %s", c.path, got, c.want)
					}
				}
			})
		})
	}
}

func TestBatch_JSONAnswer(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	f.seed()
	resp := f.must(200, "POST", "/odata/$batch", `{"requests":[
		{"id":"1","atomicityGroup":"g","method":"post","url":"Publisher","body":{"Name":"Orbit"}},
		{"id":"2","method":"get","url":"Book('b1')/Title/$value"}]}`, "Prefer", "odata.continue-on-error")
	if got := resp.Header.Get("Preference-Applied"); got != "odata.continue-on-error" {
		t.Errorf("Preference-Applied = %q", got)
	}
	var doc struct{ Responses []batchAnswer }
	if err := json.Unmarshal([]byte(resp.Body), &doc); err != nil {
		t.Fatal(err)
	}
	created := doc.Responses[0]
	if created.AtomicityGroup != "g" || !strings.HasPrefix(created.Headers["location"], "http://example.com/odata/Publisher('") {
		t.Errorf("create answer: group %q, headers %v", created.AtomicityGroup, created.Headers)
	}
	if got := string(doc.Responses[1].Body); got != `"Alpha"` {
		t.Errorf("text answer body = %s, want the text as a JSON string", got)
	}
}

func TestBatch_Malformed(t *testing.T) {
	many := make([]string, odata.DefaultBatchRequests+1)
	for i := range many {
		many[i] = fmt.Sprintf(`{"id":"%d","method":"get","url":"Book"}`, i)
	}
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		code, message           string
	}{
		{"not JSON", "application/json", `{"requests":[`, 400, odata.CodeInvalidJSON, "not a JSON batch"},
		{"no requests", "application/json", `{}`, 400, odata.CodeInvalidJSON, `"requests"`},
		{"unknown member", "application/json", `{"requests":[{"id":"1","method":"get","url":"Book","x":1}]}`, 400, odata.CodeInvalidJSON, `"x"`},
		{"no id", "application/json", `{"requests":[{"method":"get","url":"Book"}]}`, 400, odata.CodeInvalidJSON, "needs an id"},
		{"duplicate id", "application/json", `{"requests":[{"id":"1","method":"get","url":"Book"},{"id":"1","method":"get","url":"Book"}]}`, 400, odata.CodeBadRequest, "used twice"},
		{"bad method", "application/json", `{"requests":[{"id":"1","method":"trace","url":"Book"}]}`, 400, odata.CodeBadRequest, "method"},
		{"no url", "application/json", `{"requests":[{"id":"1","method":"get"}]}`, 400, odata.CodeBadRequest, "no url"},
		{"forward dependsOn", "application/json", `{"requests":[{"id":"1","method":"get","url":"Book","dependsOn":["2"]},{"id":"2","method":"get","url":"Book"}]}`, 400, odata.CodeBadRequest, "not an earlier request"},
		{"group split", "application/json", `{"requests":[{"id":"1","atomicityGroup":"g","method":"post","url":"Book"},{"id":"2","method":"get","url":"Book"},{"id":"3","atomicityGroup":"g","method":"post","url":"Book"}]}`, 400, odata.CodeBadRequest, "adjacent"},
		{"if", "application/json", `{"requests":[{"id":"1","method":"get","url":"Book","if":"true"}]}`, 501, odata.CodeNotImplemented, "if member"},
		{"binary body not base64url", "application/json", `{"requests":[{"id":"1","method":"post","url":"Cover","headers":{"content-type":"image/png"},"body":"%%%"}]}`, 400, odata.CodeInvalidJSON, "base64url"},
		{"too many requests", "application/json", `{"requests":[` + strings.Join(many, ",") + `]}`, 400, odata.CodeLimitExceeded, "limit is 100 requests"},
		{"wrong content type", "text/plain", `{"requests":[]}`, 415, odata.CodeUnsupportedMediaType, "application/json or multipart/mixed"},
		{"no content type", "", `{"requests":[]}`, 415, odata.CodeUnsupportedMediaType, "Content-Type"},
		{"multipart without boundary", "multipart/mixed", "--x\r\n\r\n--x--", 400, odata.CodeBadRequest, "boundary"},
		{"multipart garbage", "multipart/mixed;boundary=x", "no parts here", 400, odata.CodeBadRequest, "no part"},
		{"multipart cut short", "multipart/mixed;boundary=x", "--x\r\nContent-Type: application/http\r\n\r\nGET Book HTTP/1.1\r\n", 400, odata.CodeBadRequest, "malformed"},
		{"multipart part type", "multipart/mixed;boundary=x", "--x\r\nContent-Type: text/plain\r\n\r\nhi\r\n--x--\r\n", 400, odata.CodeBadRequest, "application/http"},
		{"multipart request line", "multipart/mixed;boundary=x", "--x\r\nContent-Type: application/http\r\n\r\nGET\r\n\r\n--x--\r\n", 400, odata.CodeBadRequest, "request line"},
		{"multipart too many", "multipart/mixed;boundary=x", strings.Repeat("--x\r\nContent-Type: application/http\r\n\r\nGET Book HTTP/1.1\r\n\r\n\r\n", 101) + "--x--\r\n", 400, odata.CodeLimitExceeded, "limit is 100 requests"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, dbtest.SQLite(t))
			resp := f.do("POST", "/odata/$batch", tc.body, "Content-Type", tc.contentType)
			if resp.Status != tc.status {
				t.Fatalf("status = %d, want %d\n%s", resp.Status, tc.status, resp.Body)
			}
			e := decodeError(t, resp.Body)
			if e.Code != tc.code || !strings.Contains(e.Message, tc.message) {
				t.Errorf("error = %s %q, want %s containing %q", e.Code, e.Message, tc.code, tc.message)
			}
		})
	}
}

func TestBatch_BodyLimit(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	body := `{"requests":[{"id":"1","method":"get","url":"Book"}]}`
	for _, tc := range []struct {
		name    string
		prepare func(w http.ResponseWriter, r *http.Request)
		message string
	}{
		{"Content-Length past the engine's limit", func(w http.ResponseWriter, r *http.Request) {
			r.ContentLength = odata.DefaultBatchBytes + 1
		}, "16 MiB"},
		{"past the server's limit", func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, 10)
		}, "limit of 10 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "http://example.com/odata/$batch", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			tc.prepare(w, r)
			f.svc.ServeHTTP(w, r)
			if w.Code != 413 {
				t.Fatalf("status = %d, want 413\n%s", w.Code, w.Body)
			}
			if e := decodeError(t, w.Body.String()); e.Code != odata.CodePayloadTooLarge || !strings.Contains(e.Message, tc.message) {
				t.Errorf("error = %s %q, want PayloadTooLarge naming %q", e.Code, e.Message, tc.message)
			}
		})
	}
}

// multipartBody writes a multipart batch: each entry is a request ("METHOD URL" then optional body after a
// newline, with Content-ID id) or a change set of such requests.
type multipartEntry struct {
	id, request string
	changeSet   []multipartEntry
}

func multipartBody(boundary string, entries []multipartEntry) string {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString("--" + boundary + "\r\n")
		if e.changeSet != nil {
			b.WriteString("Content-Type: multipart/mixed; boundary=cs\r\n\r\n")
			b.WriteString(multipartBody("cs", e.changeSet))
			b.WriteString("\r\n")
			continue
		}
		b.WriteString("Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n")
		if e.id != "" {
			b.WriteString("Content-ID: " + e.id + "\r\n")
		}
		line, body, _ := strings.Cut(e.request, "\n")
		b.WriteString("\r\n" + line + " HTTP/1.1\r\n")
		if body != "" {
			b.WriteString("Content-Type: application/json\r\n")
		}
		b.WriteString("\r\n" + body + "\r\n")
	}
	b.WriteString("--" + boundary + "--\r\n")
	return b.String()
}

// readMultipartAnswer summarises a multipart batch answer: one "id:status" per response, a change set as
// "[...]" of its responses.
func readMultipartAnswer(t *testing.T, contentType string, body io.Reader) []string {
	t.Helper()
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil || mediaType != "multipart/mixed" {
		t.Fatalf("answer Content-Type %q", contentType)
	}
	var out []string
	reader := multipart.NewReader(body, params["boundary"])
	for {
		part, err := reader.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(part.Header.Get("Content-Type"), "multipart/mixed") {
			inner := readMultipartAnswer(t, part.Header.Get("Content-Type"), part)
			out = append(out, "["+strings.Join(inner, " ")+"]")
			continue
		}
		data, _ := io.ReadAll(part)
		line, _, _ := strings.Cut(string(data), "\r\n")
		fields := strings.Fields(line)
		if len(fields) < 2 {
			t.Fatalf("part without status line: %q", data)
		}
		out = append(out, part.Header.Get("Content-ID")+":"+fields[1])
	}
}

func TestBatch_Multipart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []multipartEntry
		want    []string
		books   string // the number of books after the batch
	}{
		{
			name: "reads and a change set with references",
			entries: []multipartEntry{
				{id: "r1", request: "GET Book('b1')"},
				{changeSet: []multipartEntry{
					{id: "1", request: "POST Book\n" + `{"Title":"Multi"}`},
					{id: "2", request: "PATCH /$1\n" + `{"Pages":9}`}, // a reference written as an absolute path
					{id: "3", request: "DELETE /odata/Book('b3')"},
				}},
				{id: "r2", request: "GET $1?$select=Pages"},
				{id: "r3", request: "GET http://example.com/odata/Book/$count"},
			},
			want:  []string{"r1:200", "[1:201 2:200 3:204]", "r2:200", "r3:200"},
			books: "3",
		},
		{
			name: "a change set that fails answers once and stores nothing",
			entries: []multipartEntry{
				{changeSet: []multipartEntry{
					{id: "1", request: "POST Book\n" + `{"Title":"Multi"}`},
					{id: "2", request: "PATCH Book('b1')\n" + `{"Pages":-3}`},
				}},
				{id: "r", request: "GET Book"},
			},
			want:  []string{"2:400"},
			books: "3",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
				f := newFixture(t, db)
				f.seed()
				resp := f.must(200, "POST", "/odata/$batch", multipartBody("batch_1", tc.entries),
					"Content-Type", "multipart/mixed; boundary=batch_1")
				got := readMultipartAnswer(t, resp.Header.Get("Content-Type"), strings.NewReader(resp.Body))
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("answer (-want +got):\n%s", diff)
				}
				if !strings.Contains(resp.Body, "Content-ID: ") {
					t.Errorf("the answer's parts do not spell the header Content-ID:\n%.400s", resp.Body)
				}
				if n := f.count("/odata/Book"); n != tc.books {
					t.Errorf("books after the batch = %s, want %s", n, tc.books)
				}
			})
		})
	}
}

// TestBatch_StripPrefix serves the batch behind http.StripPrefix, as the server does: URLs relative to the
// service root, absolute paths with the mount and $id references resolve the same.
func TestBatch_StripPrefix(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	f.seed()
	handler := http.StripPrefix("/odata", f.svc)
	r := httptest.NewRequest("POST", "http://example.com/odata/$batch", strings.NewReader(`{"requests":[
		{"id":"1","method":"post","url":"Book","body":{"Title":"Stripped"}},
		{"id":"2","method":"get","url":"$1?$select=Title"},
		{"id":"3","method":"get","url":"/odata/Book('b1')?$select=Title"}]}`))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, r)
	var doc struct{ Responses []batchAnswer }
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatalf("%d %s: %v", w.Code, w.Body, err)
	}
	if diff := cmp.Diff([]string{"1:201", "2:200", "3:200"}, statuses(doc.Responses)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if got := fmtValue(decodeJSON(t, string(doc.Responses[1].Body))["Title"]); got != "Stripped" {
		t.Errorf("GET $1: Title = %s", got)
	}
}

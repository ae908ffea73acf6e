package odata_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net/url"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/schema"
	"github.com/storekit/store/odata/syntax"
)

// searchModel is the model of the $search tests: documents with three searchable properties (two nullable) on
// shelves.
func searchModel() *edm.Model {
	return &edm.Model{Namespace: "S",
		EntityTypes: []*edm.EntityType{
			{Name: "Shelf", Key: []string{"Id"}, Properties: []*edm.Property{
				{Name: "Id", Type: edm.KindString, MaxLength: 10},
			}, Navigations: []*edm.NavigationProperty{
				{Name: "Docs", Target: "Doc", Collection: true, Join: edm.Join{TargetColumns: []string{"shelf_id"}}},
			}},
			{Name: "Doc", Key: []string{"Id"}, Properties: []*edm.Property{
				{Name: "Id", Type: edm.KindString, MaxLength: 10},
				{Name: "Title", Type: edm.KindString, Searchable: true},
				{Name: "Body", Type: edm.KindString, Nullable: true, Searchable: true},
				{Name: "Code", Type: edm.KindString, Nullable: true, Searchable: true},
				{Name: "Rank", Type: edm.KindInt32},
				{Name: "ShelfId", Type: edm.KindString, Nullable: true, MaxLength: 10},
			}},
		},
		EntitySets: []*edm.EntitySet{{Name: "Shelf", Type: "Shelf"}, {Name: "Doc", Type: "Doc"}},
	}
}

// searchVocabulary are the words of the documents: no word is another's stem, but lamp is a prefix of lamplight
// and lampshade, ta of table and tan.
var searchVocabulary = []string{"red", "blue", "green", "lamp", "lamplight", "lampshade", "table", "tan", "chair",
	"oak", "pine", "desk", "stone", "wool", "silver", "gold"}

// searchDoc is a document of the fixture.
type searchDoc struct {
	id, title string
	body      *string
	code      *string
	rank      int
	shelf     string
}

// searchFixture is a service over documents and the documents it holds, for the reference evaluation.
type searchFixture struct {
	*fixture
	t    *testing.T
	docs map[string]*searchDoc
	log  *bytes.Buffer
}

// words returns n words of the vocabulary, some capitalized.
func words(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = searchVocabulary[r.Intn(len(searchVocabulary))]
		if r.Intn(4) == 0 {
			w[i] = strings.ToUpper(w[i][:1]) + w[i][1:]
		}
	}
	return strings.Join(w, " ")
}

// newSearchFixture creates the tables of searchModel (with the full-text index unless bare), 80 documents on
// two shelves, and a service with pages of 7 whose Doc set has the options opts.
func newSearchFixture(t *testing.T, db *dbtest.DB, bare bool, opts odata.SetOptions) *searchFixture {
	t.Helper()
	f := &searchFixture{fixture: &fixture{t: t, db: db}, t: t, docs: map[string]*searchDoc{}, log: &bytes.Buffer{}}
	m := createSearchSchema(t, db, bare)
	f.exec(`INSERT INTO shelf (id) VALUES ('s1'), ('s2')`)
	r := rand.New(rand.NewSource(27))
	for i := 0; i < 80; i++ {
		d := &searchDoc{id: fmt.Sprintf("d%02d", i), title: words(r, 1+r.Intn(3)), rank: r.Intn(6),
			shelf: []string{"s1", "s2"}[i%2]}
		if n := r.Intn(6); n > 0 {
			b := words(r, n)
			d.body = &b
		}
		if r.Intn(3) > 0 {
			c := words(r, 1)
			d.code = &c
		}
		f.insert(d)
	}
	f.svc = searchService(t, db, m, opts, f.log)
	return f
}

// createSearchSchema creates the tables of searchModel, with the full-text index unless bare, and returns the
// built model.
func createSearchSchema(tb testing.TB, db *dbtest.DB, bare bool) *edm.Model {
	tb.Helper()
	m := searchModel()
	if err := m.Build(); err != nil {
		tb.Fatal(err)
	}
	statements, err := schema.Create(db.Dialect(), m)
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range statements {
		if bare && strings.Contains(s, "doc_search") {
			continue
		}
		if _, err := db.Exec(s); err != nil {
			tb.Fatalf("%v\n%s", err, s)
		}
	}
	return m
}

// searchService is a service of m on db with pages of 7, whose Doc set has the options opts, logging to log.
func searchService(tb testing.TB, db *dbtest.DB, m *edm.Model, opts odata.SetOptions, log io.Writer) *odata.Service {
	tb.Helper()
	opts.Writes = odata.WriteAll
	cfg := odata.Config{Model: m, DB: db.DB, Mount: "/odata",
		Sets:   map[string]odata.SetOptions{"Doc": opts, "Shelf": {}},
		Limits: odata.Limits{PageSize: 7},
		Logger: slog.New(slog.NewTextHandler(log, nil))}
	svc, err := odata.NewService(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return svc
}

// insert adds d with SQL, as another program would.
func (f *searchFixture) insert(d *searchDoc) {
	f.t.Helper()
	f.exec(`INSERT INTO doc (id, title, body, code, rank, shelf_id) VALUES (?, ?, ?, ?, ?, ?)`,
		d.id, d.title, d.body, d.code, d.rank, d.shelf)
	f.docs[d.id] = d
}

// searchTokensOf splits text as the full-text index does: runs of letters and digits, lower-cased.
func searchTokensOf(text string) []string {
	t := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	for i := range t {
		t[i] = strings.ToLower(t[i])
	}
	return t
}

// texts are the token lists of d a phrase must lie within: each column on SQLite (FTS4 keeps columns apart),
// the columns joined by spaces on PostgreSQL (one tsvector).
func (d *searchDoc) texts(postgres bool) [][]string {
	var cols []string
	for _, s := range []*string{&d.title, d.body, d.code} {
		if s != nil {
			cols = append(cols, *s)
		}
	}
	if postgres {
		return [][]string{searchTokensOf(strings.Join(cols, " "))}
	}
	var out [][]string
	for _, c := range cols {
		out = append(out, searchTokensOf(c))
	}
	return out
}

// matches is the reference evaluation of a $search expression on d.
func (d *searchDoc) matches(e syntax.SearchExpr, postgres bool) bool {
	switch n := e.(type) {
	case *syntax.SearchNot:
		return !d.matches(n.X, postgres)
	case *syntax.SearchBinary:
		if n.Op == syntax.SearchOr {
			return d.matches(n.Left, postgres) || d.matches(n.Right, postgres)
		}
		return d.matches(n.Left, postgres) && d.matches(n.Right, postgres)
	case *syntax.SearchTerm:
		prefix := !n.Phrase && strings.HasSuffix(n.Text, "*")
		want := searchTokensOf(n.Text)
		if len(want) == 0 {
			return false
		}
		for _, text := range d.texts(postgres) {
			if phraseIn(text, want, prefix, postgres) {
				return true
			}
		}
	}
	return false
}

// phraseIn reports whether the tokens want follow each other in text, the last (every one on PostgreSQL) a
// prefix when prefix is true.
func phraseIn(text, want []string, prefix, postgres bool) bool {
	for i := 0; i+len(want) <= len(text); i++ {
		ok := true
		for j, w := range want {
			if (prefix && (postgres || j == len(want)-1) && !strings.HasPrefix(text[i+j], w)) ||
				(!prefix || !postgres && j < len(want)-1) && text[i+j] != w {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// want returns the ids, in order, of the documents that match search and keep.
func (f *searchFixture) want(search string, keep func(*searchDoc) bool) []string {
	f.t.Helper()
	e, err := syntax.ParseSearch(search)
	if err != nil {
		f.t.Fatalf("$search=%s: %v", search, err)
	}
	ids := []string{}
	for id, d := range f.docs {
		if (keep == nil || keep(d)) && d.matches(e, f.db.Dialect().Name() == "postgres") {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// ids follows the pages of GET path and returns the ids of the entities (ordered by the request), and the count
// of the first page when it has one (-1 otherwise).
func (f *searchFixture) ids(path string) ([]string, int) {
	f.t.Helper()
	ids, count := []string{}, -1
	for next := path; next != ""; {
		m := decodeJSON(f.t, f.must(200, "GET", next, "").Body)
		if c, ok := m["@odata.count"]; ok && count < 0 {
			fmt.Sscan(fmtValue(c), &count)
		}
		list, _ := m["value"].([]any)
		for _, e := range list {
			ids = append(ids, e.(map[string]any)["Id"].(string))
		}
		next, _ = m["@odata.nextLink"].(string)
		next = strings.TrimPrefix(next, "http://example.com")
	}
	return ids, count
}

// searchExpressions are the $search expressions the tests compare with the reference evaluation.
var searchExpressions = []string{
	"lamp", "LAMP", "lamp*", "lampl*", "ta*", "red blue", "red AND blue", "red OR blue", "NOT red", "red NOT blue",
	"NOT red AND NOT blue", "red OR NOT blue", "NOT NOT red", `"red lamp"`, `"Red Lamp" OR "pine table"`,
	`NOT "oak desk"`, `"red lamp*"`, "(red OR blue) AND NOT (oak OR pine)", "NOT (red AND blue)",
	"(red OR (blue AND NOT green)) AND lamp*", "gold NOT (silver OR wool) OR lamp", "-", "red AND -", "NOT -",
	"lamp* OR -", "nothing", "NOT (gold OR silver OR wool OR stone)", "((red))", "red OR blue green",
	`"tan" NOT ta*`, "NOT red OR NOT blue", "(NOT red) AND (NOT blue OR green)",
	// Longer than FTS4's limit of 12 levels of operators in one MATCH.
	strings.Repeat("nothing OR ", 30) + "lamp", strings.Repeat("NOT nothing AND ", 20) + "lamp*",
	strings.Repeat("(red OR ", 20) + "blue" + strings.Repeat(")", 20),
	strings.Repeat("(NOT red OR ", 15) + "blue" + strings.Repeat(")", 15),
}

// TestSearch_Reference compares $search through the full-text index with the reference evaluation over the
// fixture, alone and with $filter, $orderby, $count, paging, $top and $skip, /$count, $apply and $expand.
func TestSearch_Reference(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newSearchFixture(t, db, false, odata.SetOptions{})
		if strings.Contains(f.log.String(), "Doc") {
			t.Errorf("start-up log names Doc although its index exists:\n%s", f.log)
		}
		for _, s := range searchExpressions {
			q := url.QueryEscape(s)
			want := f.want(s, nil)
			got, count := f.ids("/odata/Doc?$search=" + q + "&$select=Id&$orderby=Id&$count=true")
			if diff := cmp.Diff(want, got); diff != "" || count != len(want) {
				t.Errorf("$search=%s: ids (-want +got):\n%s count %d", s, diff, count)
			}
			high := f.want(s, func(d *searchDoc) bool { return d.rank > 2 })
			got, count = f.ids("/odata/Doc?$search=" + q + "&$filter=Rank%20gt%202&$count=true&$select=Id")
			sort.Strings(got)
			if diff := cmp.Diff(high, got); diff != "" || count != len(high) {
				t.Errorf("$search=%s with $filter: ids (-want +got):\n%s count %d", s, diff, count)
			}
			paged, _ := f.ids("/odata/Doc?$search=" + q + "&$orderby=Id%20desc&$skip=2&$top=9&$select=Id")
			wantPaged := reversed(want)
			wantPaged = wantPaged[min(2, len(wantPaged)):]
			wantPaged = wantPaged[:min(9, len(wantPaged))]
			if diff := cmp.Diff(wantPaged, paged); diff != "" {
				t.Errorf("$search=%s with $skip and $top: ids (-want +got):\n%s", s, diff)
			}
			// In key order with a small $top a frequent query walks the key's index (Read.UseMatches).
			for _, page := range []struct{ skip, top int }{{0, 3}, {1, 4}, {0, 1}} {
				got, count := f.ids(fmt.Sprintf("/odata/Doc?$search=%s&$select=Id&$skip=%d&$top=%d&$count=true", q, page.skip, page.top))
				wantPage := want[min(page.skip, len(want)):]
				wantPage = wantPage[:min(page.top, len(wantPage))]
				if diff := cmp.Diff(wantPage, got); diff != "" || count != len(want) {
					t.Errorf("$search=%s in key order, $skip=%d&$top=%d: ids (-want +got):\n%s count %d", s, page.skip, page.top, diff, count)
				}
			}
			// Pages of 7 in key order, each resumed by the next link (walking the key's index when frequent).
			if got, _ := f.ids("/odata/Doc?$search=" + q + "&$select=Id"); !cmp.Equal(want, got) {
				t.Errorf("$search=%s in pages in key order: ids (-want +got):\n%s", s, cmp.Diff(want, got))
			}
			if n := f.must(200, "GET", "/odata/Doc/$count?$search="+q, "").Body; n != fmt.Sprint(len(want)) {
				t.Errorf("/$count?$search=%s = %s, want %d", s, n, len(want))
			}
			agg := decodeJSON(t, f.must(200, "GET", "/odata/Doc?$apply=search("+url.PathEscape(s)+
				")/aggregate($count%20as%20N)", "").Body)
			if n := fmtValue(agg["value"].([]any)[0].(map[string]any)["N"]); n != fmt.Sprint(len(want)) {
				t.Errorf("$apply=search(%s)/aggregate = %s, want %d", s, n, len(want))
			}
			shelf := decodeJSON(t, f.must(200, "GET", "/odata/Shelf('s2')?$expand=Docs($search="+q+";$select=Id;$orderby=Id)", "").Body)
			var nested []string
			for _, e := range shelf["Docs"].([]any) {
				nested = append(nested, e.(map[string]any)["Id"].(string))
			}
			if diff := cmp.Diff(f.want(s, func(d *searchDoc) bool { return d.shelf == "s2" }), append([]string{}, nested...)); diff != "" {
				t.Errorf("$expand=Docs($search=%s): ids (-want +got):\n%s", s, diff)
			}
		}
	})
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

// TestSearch_IndexFollowsWrites changes documents through the service and with SQL, as another program would,
// and compares $search with the reference evaluation after each change: the triggers (SQLite) and the index
// (PostgreSQL) keep in step with inserts, updates and deletes.
func TestSearch_IndexFollowsWrites(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newSearchFixture(t, db, false, odata.SetOptions{})
		check := func(step string) {
			t.Helper()
			for _, s := range []string{"lamp", "zebra", "zebra OR quartz", "NOT zebra", "quartz*", `"blue zebra"`} {
				got, _ := f.ids("/odata/Doc?$search=" + url.QueryEscape(s) + "&$select=Id&$orderby=Id")
				if diff := cmp.Diff(f.want(s, nil), got); diff != "" {
					t.Errorf("after %s: $search=%s (-want +got):\n%s", step, s, diff)
				}
			}
		}
		body := "blue zebra"
		f.insert(&searchDoc{id: "x01", title: "Quartz", body: &body, shelf: "s1"})
		check("an insert by SQL")
		f.exec(`UPDATE doc SET title = 'zebra lamp', body = NULL WHERE id = 'd01'`)
		f.docs["d01"].title, f.docs["d01"].body = "zebra lamp", nil
		f.exec(`UPDATE doc SET rank = 5 WHERE id = 'd02'`)
		f.docs["d02"].rank = 5
		check("updates by SQL")
		if db.Dialect().Name() == "sqlite" {
			// The index refers to rows by rowid: a new rowid moves the row's words with it.
			f.exec(`UPDATE doc SET rowid = rowid + 1000 WHERE id IN ('d01', 'd06')`)
			check("a change of rowids by SQL")
		}
		f.exec(`DELETE FROM doc WHERE id IN ('d03', 'x01')`)
		delete(f.docs, "d03")
		delete(f.docs, "x01")
		check("a delete by SQL")
		f.must(201, "POST", "/odata/Doc", `{"Id":"x02","Title":"quartzite zebra","Rank":1}`)
		f.docs["x02"] = &searchDoc{id: "x02", title: "quartzite zebra", rank: 1}
		f.must(200, "PATCH", "/odata/Doc('d04')", `{"Code":"Zebra"}`, "Prefer", "return=representation")
		code := "Zebra"
		f.docs["d04"].code = &code
		f.must(204, "DELETE", "/odata/Doc('d05')", "")
		delete(f.docs, "d05")
		check("writes of the service")
	})
}

// TestSearch_WithoutIndex serves a table without the full-text index: the start-up log names the type and
// $search scans, matching a term within words as before (lamp finds lamplight).
func TestSearch_WithoutIndex(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newSearchFixture(t, db, true, odata.SetOptions{})
		if log := f.log.String(); !strings.Contains(log, "$search scans") || !strings.Contains(log, "Doc") {
			t.Errorf("start-up log does not say Doc is scanned:\n%s", log)
		}
		got, _ := f.ids("/odata/Doc?$search=lamp&$select=Id&$orderby=Id")
		if diff := cmp.Diff(f.scan("lamp", []string{"title", "body", "code"}), got); diff != "" {
			t.Errorf("$search=lamp without index (-want +got):\n%s", diff)
		}
	})
}

// scan returns the ids of the documents whose columns contain term, ignoring ASCII case.
func (f *searchFixture) scan(term string, columns []string) []string {
	ids := []string{}
	for id, d := range f.docs {
		values := map[string]*string{"title": &d.title, "body": d.body, "code": d.code}
		for _, c := range columns {
			if v := values[c]; v != nil && strings.Contains(strings.ToLower(*v), term) {
				ids = append(ids, id)
				break
			}
		}
	}
	sort.Strings(ids)
	return ids
}

// TestSearch_Redaction searches a set whose Body a request may not read, which must not use the index (it would
// match the hidden column) and scans the readable ones.
func TestSearch_Redaction(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newSearchFixture(t, db, false, odata.SetOptions{
			Redact: func(context.Context) ([]string, error) { return []string{"Body"}, nil }})
		got, _ := f.ids("/odata/Doc?$search=lamp&$select=Id&$orderby=Id")
		if diff := cmp.Diff(f.scan("lamp", []string{"title", "code"}), got); diff != "" {
			t.Errorf("$search=lamp with Body hidden (-want +got):\n%s", diff)
		}
	})
}

// TestSearch_RowFilter searches a set with a row filter: the answers of the index within the filter.
func TestSearch_RowFilter(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		filtered := newSearchFixture(t, db, false, odata.SetOptions{
			ReadFilter: func(context.Context) (string, error) { return "Rank le 2", nil }})
		for _, s := range []string{"lamp", "NOT red", "red OR blue*"} {
			got, count := filtered.ids("/odata/Doc?$search=" + url.QueryEscape(s) + "&$select=Id&$orderby=Id&$count=true")
			want := filtered.want(s, func(d *searchDoc) bool { return d.rank <= 2 })
			if diff := cmp.Diff(want, got); diff != "" || count != len(want) {
				t.Errorf("$search=%s with a row filter (-want +got):\n%s count %d", s, diff, count)
			}
		}
	})
}

// TestSearch_Punctuation searches words with punctuation: a code with a hyphen is the phrase of its parts, with
// * a prefix, on both databases; a hyphenated word is the phrase of its parts on SQLite, and matches only the
// hyphenated word on PostgreSQL, whose parser keeps it as a token of its own (odata/DESIGN.md, "$search").
func TestSearch_Punctuation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newSearchFixture(t, db, false, odata.SetOptions{})
		f.exec(`UPDATE doc SET code = 'AB-123' WHERE id = 'd10'`)
		f.exec(`UPDATE doc SET code = 'ab-1234 x' WHERE id = 'd11'`)
		f.exec(`UPDATE doc SET title = 'Zig-Zag' WHERE id = 'd12'`)
		f.exec(`UPDATE doc SET title = 'zig zag' WHERE id = 'd13'`)
		zigzag := []string{"d12", "d13"}
		if db.Dialect().Name() == "postgres" {
			zigzag = []string{"d12"}
		}
		for _, tc := range []struct {
			search string
			want   []string
		}{
			{"zig-zag", zigzag},
			{`"zig zag"`, []string{"d12", "d13"}},
			{"AB-123", []string{"d10"}},
			{"ab-123*", []string{"d10", "d11"}},
			{"ab-12", []string{}},
			{`"AB-123" AND NOT x`, []string{"d10"}},
			{`"o'neil\ & (x | !y):*"`, []string{}},
			{`it's\&|!:*`, []string{}},
		} {
			got, _ := f.ids("/odata/Doc?$search=" + url.QueryEscape(tc.search) + "&$select=Id&$orderby=Id")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("$search=%s (-want +got):\n%s", tc.search, diff)
			}
		}
	})
}

// TestSearch_UsesIndex checks with EXPLAIN, on a table of 5,000 rows, that the condition $search becomes is
// answered from the full-text index: the FTS4 table on SQLite, the GIN index of the stored vector on PostgreSQL.
func TestSearch_UsesIndex(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newSearchFixture(t, db, false, odata.SetOptions{})
		series := `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) `
		from := `FROM n`
		if db.Dialect().Name() == "postgres" {
			series, from = "", "FROM generate_series(1, 5000) AS n(i)"
		}
		f.exec(series + `INSERT INTO doc (id, title, body, code, rank) SELECT 'g' || i, 'word' || i || ' oak', 'pine', NULL, 1 ` + from)
		f.exec(`ANALYZE`)
		q := func(c string) string { return db.Dialect().QuoteIdent("t0") + "." + db.Dialect().QuoteIdent(c) }
		cond := db.Dialect().FullText().Match("doc_search", "t0", []string{q("title"), q("body"), q("code")}, "$1")
		explain, arg := "EXPLAIN ", "'word42'"
		if db.Dialect().Name() == "sqlite" {
			explain, arg = "EXPLAIN QUERY PLAN ", `"word42"`
			cond = strings.Replace(cond, "$1", "?", 1)
		}
		var on querier = db
		if db.Dialect().Name() == "postgres" {
			// The stored vector makes a sequential scan of these 5,000 short rows cheaper than the index
			// in the planner's eyes: check that the condition can use the index at all.
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if _, err := tx.Exec("SET LOCAL enable_seqscan = off"); err != nil {
				t.Fatal(err)
			}
			on = tx
		}
		plan := explainPlan(t, on, explain+"SELECT t0.id FROM doc AS t0 WHERE "+cond, arg)
		t.Log(plan)
		want := "Index Scan on doc_search"
		if db.Dialect().Name() == "sqlite" {
			want = "VIRTUAL TABLE INDEX"
		}
		if !strings.Contains(plan, want) {
			t.Errorf("the plan of a $search condition does not use the index (want %q):\n%s", want, plan)
		}
		got, _ := f.ids("/odata/Doc?$search=word42&$select=Id")
		if diff := cmp.Diff([]string{"g42"}, got); diff != "" {
			t.Errorf("$search=word42 (-want +got):\n%s", diff)
		}
		if walk := db.Dialect().FullText().MatchInOrder("doc_search", "t0", nil, "?"); walk != "" {
			// A frequent word's page walks the key's index, testing each entry's rowid against the matches,
			// without a sort (and without reading the rows that fail).
			plan := explainPlan(t, db, "EXPLAIN QUERY PLAN SELECT t0.id FROM doc AS t0 WHERE "+walk+" ORDER BY t0.id LIMIT 10", `"oak"`)
			if !strings.Contains(plan, "SCAN t0 USING") || strings.Contains(plan, "TEMP B-TREE") {
				t.Errorf("the plan of a walk in key order scans no index or sorts:\n%s", plan)
			}
			plan = explainPlan(t, db, "EXPLAIN QUERY PLAN SELECT t0.id FROM doc AS t0 WHERE "+cond+" ORDER BY t0.id LIMIT 10", `"word42"`)
			if !strings.Contains(plan, "SEARCH t0 USING INTEGER PRIMARY KEY") {
				t.Errorf("the plan of a page of a rare word does not look its matches up by rowid:\n%s", plan)
			}
		}
	})
}

// TestSearch_AfterApplySteps searches the rows earlier $apply steps left (the first 30 by Id, those of a filter):
// the index answers for the entities those steps kept.
func TestSearch_AfterApplySteps(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newSearchFixture(t, db, false, odata.SetOptions{})
		var first []string
		for id := range f.docs {
			first = append(first, id)
		}
		sort.Strings(first)
		inFirst := map[string]bool{}
		for _, id := range first[:30] {
			inFirst[id] = true
		}
		for _, s := range []string{"lamp", "NOT lamp", "red OR NOT blue", `"red lamp" OR oak`} {
			for _, step := range []struct {
				apply string
				keep  func(*searchDoc) bool
			}{
				{"orderby(Id)/top(30)", func(d *searchDoc) bool { return inFirst[d.id] }},
				{"filter(Rank%20gt%202)", func(d *searchDoc) bool { return d.rank > 2 }},
				{"compute(Rank%20add%201%20as%20R)", nil},
			} {
				got, count := f.ids("/odata/Doc?$apply=" + step.apply + "/search(" + url.PathEscape(s) + ")&$orderby=Id&$count=true")
				if diff := cmp.Diff(f.want(s, step.keep), got); diff != "" || count != len(got) {
					t.Errorf("$apply=%s/search(%s) (-want +got):\n%s", step.apply, s, diff)
				}
			}
		}
	})
}

// querier runs a query: a database or a transaction.
type querier interface {
	Query(query string, args ...any) (*sql.Rows, error)
}

// explainPlan returns the last column of the rows of an EXPLAIN of query, one line a row.
func explainPlan(t *testing.T, db querier, query string, args ...any) string {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		cols, _ := rows.Columns()
		v := make([]any, len(cols))
		for i := range v {
			v[i] = new(any)
		}
		if err := rows.Scan(v...); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprint(*(v[len(v)-1].(*any))))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

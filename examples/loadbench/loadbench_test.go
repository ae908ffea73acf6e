package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

// TestLoadbench seeds a small store, checks that the three targets answer every read scenario alike, and runs
// every scenario briefly on each target it applies to: no errors, no timing asserted.
func TestLoadbench(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := t.Context()
		opts := defaultSeedOptions()
		opts.DB, opts.Products, opts.Categories = db.URL, 1000, 20
		seeded, err := seedStore(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		cfg := defaultBenchConfig()
		cfg.DB, cfg.Duration, cfg.Warmup, cfg.Rounds = db.URL, 200*time.Millisecond, 0, 1
		cfg.Clients, cfg.WriteClients, cfg.Page, cfg.MaxOpen = 2, 2, 5, 4

		t.Run("Seed", func(t *testing.T) { testSeed(t, db, opts, seeded) })
		ensureSearchIndex(t, db)
		t.Run("SameAnswers", func(t *testing.T) { testSameAnswers(t, cfg) })
		t.Run("SearchAndContains", func(t *testing.T) { testSearchAndContains(t, cfg) })
		t.Run("Run", func(t *testing.T) {
			cfg := cfg
			cfg.StoreNodes = 2 // each of the 2 clients on a node of its own
			testRun(t, cfg)
		})
	})
}

func testSeed(t *testing.T, db *dbtest.DB, opts seedOptions, seeded seedResult) {
	for _, c := range []struct {
		query string
		want  int
	}{
		{"SELECT count(*) FROM product", opts.Products},
		{"SELECT count(*) FROM category", opts.Categories},
		{"SELECT count(*) FROM product_category", seeded.Links},
		{"SELECT count(DISTINCT product_id) FROM product_category", opts.Products},
		{"SELECT count(*) FROM category WHERE parent_category_id IS NULL", opts.Categories / 5},
		// Every product has a price, a slug, a SKU and its times; one in twenty is a lamp.
		{"SELECT count(*) FROM product WHERE price > 0 AND se_name IS NOT NULL AND sku IS NOT NULL AND full_description IS NOT NULL", opts.Products},
		{"SELECT count(*) FROM customer_role", 3}, // the store's own first-start seed ran
	} {
		var got int
		if err := db.QueryRowContext(t.Context(), c.query).Scan(&got); err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if got != c.want {
			t.Errorf("%s = %d, want %d", c.query, got, c.want)
		}
	}
	// 1 to 3 links a product, 2 on average.
	if avg := float64(seeded.Links) / float64(opts.Products); avg < 1.8 || avg > 2.2 {
		t.Errorf("links per product = %.2f, want about %.0f", avg, opts.LinksPerProduct)
	}
	if _, err := seedStore(t.Context(), opts); err == nil || !strings.Contains(err.Error(), "already holds") {
		t.Errorf("seeding a seeded store: err = %v, want it refused", err)
	}
}

// testSameAnswers compares the answers of the targets to each read scenario: the baseline and the store server
// answer what the engine answers (the same members, values and ETags, in the same order), but for the host in
// absolute URLs and the $skiptoken of next links, which each makes its own way.
func testSameAnswers(t *testing.T, cfg benchConfig) {
	ctx := t.Context()
	e, err := newEnv(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	targets, err := startTargets(ctx, cfg, []string{targetStore, targetEngine, targetBaseline})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopTargets(targets) })
	for _, s := range newScenarios(e.products, cfg.Page, cfg.WriteClients) {
		if s.kind != kindRead {
			continue
		}
		t.Run(s.id, func(t *testing.T) {
			answers := map[string]any{}
			for _, tg := range targets {
				url := tg.url + "/odata/" + encodeQuery(s.path)
				switch s.id {
				case "key":
					url = tg.url + "/odata/Product('" + e.ids[len(e.ids)/2] + "')"
				case "page-N":
					link, err := e.pageLink(ctx, tg)
					if err != nil {
						t.Fatal(err)
					}
					if link.Page != cfg.Page {
						t.Errorf("%s: the walk reached page %d, want %d", tg.name, link.Page, cfg.Page)
					}
					url = link.URL
				}
				body, err := e.c.get(ctx, url, tg.auth, true)
				if err != nil {
					t.Fatalf("%s: %v", tg.name, err)
				}
				answers[tg.name] = normalize(t, body, tg.url)
			}
			want := answers[targetEngine]
			if ids := keys(want); s.id != "count" && len(ids) == 0 {
				t.Errorf("the engine's answer holds no entity: %v", want)
			}
			for _, other := range []string{targetBaseline, targetStore} {
				if diff := cmp.Diff(keys(want), keys(answers[other])); diff != "" {
					t.Errorf("%s: keys differ from the engine's (-engine +%s):\n%s", s.request, other, diff)
				}
				if diff := cmp.Diff(want, answers[other]); diff != "" {
					t.Errorf("%s: answer differs from the engine's (-engine +%s):\n%s", s.request, other, diff)
				}
			}
		})
	}
}

// ensureSearchIndex creates the store's full-text index of products where the store's migrations have not: the
// FTS4 table product_search on SQLite, kept by the content of product (filled here once), or the stored
// generated column search_vector with the GIN index product_search on PostgreSQL, as the baseline asks them.
func ensureSearchIndex(t *testing.T, db *dbtest.DB) {
	ctx := t.Context()
	exists := "SELECT count(*) FROM sqlite_master WHERE name = 'product_search'"
	create := []string{
		`CREATE VIRTUAL TABLE product_search USING fts4(content="product", name, short_description, sku, ` +
			`tokenize=unicode61 "remove_diacritics=0")`,
		`INSERT INTO product_search(product_search) VALUES ('rebuild')`,
	}
	if db.Dialect().Name() == "postgres" {
		exists = "SELECT count(*) FROM (SELECT to_regclass('product_search') AS r) AS x WHERE r IS NOT NULL"
		create = []string{
			"ALTER TABLE product ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (" + productSearchVector + ") STORED",
			"CREATE INDEX product_search ON product USING gin (search_vector)",
		}
	}
	var n int
	if err := db.QueryRowContext(ctx, exists).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		return
	}
	for _, stmt := range create {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// testSearchAndContains compares the products the full-text $search finds (the engine's, and the baseline's,
// which asks the store's index by hand) with those of contains on Name: the same where the index's words are
// the words contains looks for, and where they are not, the difference is the one each case names.
func testSearchAndContains(t *testing.T, cfg benchConfig) {
	ctx := t.Context()
	e, err := newEnv(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	targets, err := startTargets(ctx, cfg, []string{targetEngine, targetBaseline})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopTargets(targets) })
	engine, baseline := targets[0], targets[1]
	for _, c := range []struct {
		search, filter string
		// same: both find the same products; else why not, and whether $search finds more (or fewer).
		same bool
		more bool
	}{
		{search: "lamp", filter: "contains(Name,'lamp')", same: true},
		{search: "oak lamp", filter: "contains(Name,'oak') and contains(Name,'lamp')", same: true},
		{search: "Modern", filter: "contains(Name,'Modern')", same: true},
		{search: "LAMP lamp", filter: "contains(Name,'lamp')", same: true},
		// The index folds case; contains compares as written, and names write adjectives capitalised.
		{search: "modern", filter: "contains(Name,'modern')", more: true},
		// The index holds whole words: a part of one is no match (OData's prefix search, lam*, would be).
		{search: "lam", filter: "contains(Name,'lam')"},
		// A number in a name is a word of its own: 12 is not in 112 or 1203.
		{search: "12", filter: "contains(Name,'12')"},
	} {
		t.Run(c.search, func(t *testing.T) {
			found := allIDs(t, e, baseline, "Product?$search="+c.search+"&$select=Id,Name,Price")
			if diff := cmp.Diff(found, allIDs(t, e, engine, "Product?$search="+c.search+"&$select=Id,Name,Price")); diff != "" {
				t.Errorf("$search=%s: the engine finds other products than the index asked by hand (-by hand +engine):\n%s", c.search, diff)
			}
			want := allIDs(t, e, engine, "Product?$filter="+c.filter+"&$select=Id,Name,Price")
			diff := cmp.Diff(want, found)
			switch {
			case c.same && diff != "":
				t.Errorf("$search=%s and $filter=%s find different products (-contains +search):\n%s", c.search, c.filter, diff)
			case c.same && len(found) == 0:
				t.Errorf("$search=%s finds nothing", c.search)
			case !c.same && diff == "":
				t.Errorf("$search=%s and $filter=%s find the same %d products, want them to differ", c.search, c.filter, len(found))
			case !c.same && c.more != (len(found) > len(want)):
				t.Errorf("$search=%s finds %d products, $filter=%s %d: want search to find more: %v", c.search, len(found), c.filter, len(want), c.more)
			}
		})
	}
}

// allIDs returns the sorted keys of every product of a read, following its next links.
func allIDs(t *testing.T, e *env, tg *target, path string) []string {
	t.Helper()
	url, ids := tg.url+"/odata/"+encodeQuery(path), []string{}
	for url != "" {
		body, err := e.c.get(t.Context(), url, tg.auth, true)
		if err != nil {
			t.Fatalf("%s: %s: %v", tg.name, url, err)
		}
		var page struct {
			NextLink string `json:"@odata.nextLink"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, keys(normalize(t, body, tg.url))...)
		url = page.NextLink
	}
	slices.Sort(ids)
	return ids
}

var skiptoken = regexp.MustCompile(`\$skiptoken=[^"&]*`)

// normalize returns an answer with root replaced by ROOT and the $skiptoken of next links by TOKEN, decoded
// when it is JSON.
func normalize(t *testing.T, body []byte, root string) any {
	s := strings.ReplaceAll(string(body), root, "ROOT")
	s = skiptoken.ReplaceAllString(s, "$$skiptoken=TOKEN")
	if !strings.HasPrefix(s, "{") {
		return s
	}
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("answer %.200s: %v", s, err)
	}
	return v
}

// keys returns the Ids of the entities of an answer (a collection's, or one entity's).
func keys(answer any) []string {
	m, _ := answer.(map[string]any)
	if id, ok := m["Id"].(string); ok {
		return []string{id}
	}
	var ids []string
	values, _ := m["value"].([]any)
	for _, v := range values {
		e, _ := v.(map[string]any)
		id, _ := e["Id"].(string)
		ids = append(ids, id)
	}
	return ids
}

func testRun(t *testing.T, cfg benchConfig) {
	dir := t.TempDir()
	cfg.JSONPath, cfg.SVGPath = filepath.Join(dir, "bench.json"), filepath.Join(dir, "bench.svg")
	var log bytes.Buffer
	cfg.Log = &log
	rep, err := runBenchmark(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	for _, s := range rep.Scenarios {
		ran = append(ran, s.ID)
		sc := findScenario(t, s.ID, cfg)
		for _, tg := range []string{targetStore, targetEngine, targetBaseline} {
			res, ok := s.Results[tg]
			if ok != sc.runsOn(tg) {
				t.Errorf("%s on %s: measured %v, want %v", s.ID, tg, ok, sc.runsOn(tg))
				continue
			}
			if ok && (res.Requests == 0 || res.Errors > 0) {
				t.Errorf("%s on %s: %d requests, %d errors (first: %s), want some and none", s.ID, tg, res.Requests, res.Errors, res.FirstError)
			}
		}
	}
	var want []string
	for _, s := range newScenarios(1000, cfg.Page, cfg.WriteClients) {
		want = append(want, s.id)
	}
	if diff := cmp.Diff(want, ran); diff != "" {
		t.Errorf("scenarios run (-want +got):\n%s", diff)
	}

	var out bytes.Buffer
	if err := writeReport(rep, cfg, &out); err != nil {
		t.Fatal(err)
	}
	for _, s := range want {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the printed report does not name scenario %s:\n%s", s, out.String())
		}
	}
	raw, err := os.ReadFile(cfg.JSONPath)
	if err != nil {
		t.Fatal(err)
	}
	var back report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep.Checks, back.Checks); diff != "" {
		t.Errorf("the checks of the JSON (-run +json):\n%s", diff)
	}
	if !slices.ContainsFunc(rep.Checks, func(c check) bool { return c.Name == "store req/s, checkout (6 requests each)" }) {
		t.Errorf("checks = %+v, want the checkout's req/s counted as its 6 requests", rep.Checks)
	}
	if i := slices.IndexFunc(rep.Checks, func(c check) bool { return c.Name == "errors" }); i < 0 || !rep.Checks[i].Pass {
		t.Errorf("checks = %+v, want an errors check that passed", rep.Checks)
	}
	svg, err := os.ReadFile(cfg.SVGPath)
	if err != nil {
		t.Fatal(err)
	}
	checkSVG(t, svg, want)
}

func findScenario(t *testing.T, id string, cfg benchConfig) *scenario {
	for _, s := range newScenarios(1000, cfg.Page, cfg.WriteClients) {
		if s.id == id {
			return s
		}
	}
	t.Fatalf("no scenario %s", id)
	return nil
}

// checkSVG checks that the picture is well-formed XML whose texts name every scenario.
func checkSVG(t *testing.T, svg []byte, scenarios []string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	var texts []string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG: %v", err)
		}
		if c, ok := tok.(xml.CharData); ok {
			texts = append(texts, string(c))
		}
	}
	for _, s := range scenarios {
		if !slices.Contains(texts, s) {
			t.Errorf("the SVG has no label %s", s)
		}
	}
}

func TestBulkTablePlan(t *testing.T) {
	cols := []tableColumn{{name: "id", notNull: true}, {name: "name", notNull: true}, {name: "flag"},
		{name: "published", notNull: true, hasDflt: true}}
	value := func(int) any { return nil }
	for _, c := range []struct {
		name    string
		values  []string
		want    []string
		wantErr string
	}{
		{name: "OK", values: []string{"published", "name", "id"}, want: []string{"id", "name", "published"}},
		{name: "DefaultsAndNulls", values: []string{"id", "name"}, want: []string{"id", "name"}},
		{name: "MissingNotNull", values: []string{"id", "flag"},
			wantErr: "table t: column name is NOT NULL without a default and loadbench has no value for it"},
		{name: "UnknownColumn", values: []string{"id", "name", "colour"},
			wantErr: "table t: loadbench writes column colour, which the table does not have"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bt := &bulkTable{table: "t", values: map[string]func(int) any{}}
			for _, v := range c.values {
				bt.values[v] = value
			}
			got, err := bt.plan(cols)
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr {
					t.Fatalf("plan() err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, ic := range got {
				names = append(names, ic.name)
			}
			if diff := cmp.Diff(c.want, names); diff != "" {
				t.Errorf("plan() columns (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAppendValues(t *testing.T) {
	for _, c := range []struct {
		name string
		got  []byte
		want string
	}{
		{"ScaledInteger", appendDecimal(nil, int64(14500)), "1.45"},
		{"ScaledWhole", appendDecimal(nil, int64(12990000)), "1299"},
		{"ScaledSmall", appendDecimal(nil, int64(1)), "0.0001"},
		{"ScaledNegative", appendDecimal(nil, int64(-5000)), "-0.5"},
		{"ScaledZero", appendDecimal(nil, int64(0)), "0"},
		{"NumericText", appendDecimal(nil, "893.0700"), "893.07"},
		{"NumericWhole", appendDecimal(nil, []byte("1299.0000")), "1299"},
		{"NumericZero", appendDecimal(nil, "0.0000"), "0"},
		{"Null", appendDecimal(nil, nil), "null"},
		{"TimeText", appendTime(nil, "2025-01-01T00:00:00.256000Z"), `"2025-01-01T00:00:00.256Z"`},
		{"TimeTextWhole", appendTime(nil, "2025-01-01T00:00:00.000000Z"), `"2025-01-01T00:00:00Z"`},
		{"Time", appendTime(nil, time.Date(2025, 1, 1, 1, 0, 0, 120000000, time.FixedZone("", 3600))), `"2025-01-01T00:00:00.12Z"`},
		{"TimeNull", appendTime(nil, nil), "null"},
		{"String", appendJSONString(nil, "a\"b\\c\n\x01é\u2028"), `"a\"b\\c\n\u0001é\u2028"`},
	} {
		if string(c.got) != c.want {
			t.Errorf("%s: got %s, want %s", c.name, c.got, c.want)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		name   string
		rounds []result
		want   result
	}{
		{"Odd", []result{{Requests: 10, RPS: 3, P50ms: 9}, {Requests: 20, RPS: 1, P50ms: 1, Errors: 1, FirstError: "x"}, {Requests: 30, RPS: 2, P50ms: 5}},
			result{Requests: 60, Errors: 1, RPS: 2, P50ms: 5, FirstError: "x"}},
		{"Even", []result{{RPS: 1, P99ms: 4}, {RPS: 3, P99ms: 2}}, result{RPS: 2, P99ms: 3}},
		{"None", nil, result{}},
	} {
		if diff := cmp.Diff(c.want, median(c.rounds)); diff != "" {
			t.Errorf("%s: median (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestPercentile(t *testing.T) {
	lat := make([]time.Duration, 100)
	for i := range lat {
		lat[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{0.5, 50 * time.Millisecond}, {0.99, 99 * time.Millisecond}, {1, 100 * time.Millisecond}, {0, time.Millisecond}} {
		if got := percentile(lat, c.p); got != c.want {
			t.Errorf("percentile(1..100 ms, %v) = %v, want %v", c.p, got, c.want)
		}
	}
}

// TestRun_Usage checks the command line: unknown commands and flags are errors, help is not.
func TestRun_Usage(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		args    []string
		wantErr bool
	}{
		{[]string{"loadbench", "help"}, false},
		{[]string{"loadbench", "bench"}, true},
		{[]string{"loadbench", "run", "-clients", "0"}, true},
		{[]string{"loadbench", "run", "-targets", "store,nginx"}, true},
		{[]string{"loadbench", "seed", "-products", "0"}, true},
		{[]string{"loadbench", "report"}, true},
		{[]string{"loadbench", "serve", "-db", "x.db", "now"}, true},
		{[]string{"loadbench", "serve", "-nginx", ":80"}, true},
	} {
		err := run(ctx, c.args, io.Discard, io.Discard)
		if (err != nil) != c.wantErr {
			t.Errorf("run(%q) = %v, want error %v", c.args, err, c.wantErr)
		}
	}
}

// TestBaseline_Refuses checks that the baseline answers only what it serves: other options, values, paths and
// methods are errors, never a different answer.
func TestBaseline_Refuses(t *testing.T) {
	b := newBaseline(sqldb.NewDB(nil, sqlite.Dialect{})) // every request here is refused before any SQL
	for _, c := range []struct {
		method, target string
		want           int
	}{
		{"GET", "/odata/Product?$count=yes", http.StatusBadRequest},
		{"GET", "/odata/Product?$search=lamp%20OR%20mug", http.StatusBadRequest},
		{"GET", "/odata/Product?$search=%22oak%20lamp%22", http.StatusBadRequest},
		{"GET", "/odata/Product?$search=lamp*", http.StatusBadRequest},
		{"GET", "/odata/Product?$apply=groupby((Name))", http.StatusBadRequest},
		{"GET", "/odata/Product?$orderby=Name", http.StatusBadRequest},
		{"GET", "/odata/Product?$filter=Price%20lt%205", http.StatusBadRequest},
		{"GET", "/odata/Product?$select=Id", http.StatusBadRequest},
		{"GET", "/odata/Product?$top=101", http.StatusBadRequest},
		{"GET", "/odata/Product?$skip=-1", http.StatusBadRequest},
		{"GET", "/odata/Product('x')?$select=Id", http.StatusBadRequest},
		{"GET", "/odata/Category", http.StatusNotFound},
		{"POST", "/odata/Product", http.StatusMethodNotAllowed},
	} {
		w := httptest.NewRecorder()
		b.ServeHTTP(w, httptest.NewRequest(c.method, c.target, nil))
		if w.Code != c.want {
			t.Errorf("%s %s = %d %s, want %d", c.method, c.target, w.Code, w.Body, c.want)
		}
	}
}

// TestReport_EngineFloors checks the floors of engine/baseline: 0.9 on reads, 0.85 on the searches, whose
// baseline asks the full-text index by hand.
func TestReport_EngineFloors(t *testing.T) {
	r := &report{}
	for _, c := range []struct {
		id             string
		engine, baseln float64
	}{{"key", 88, 100}, {"search", 88, 100}, {"search-two", 84, 100}, {"top", 90, 100}} {
		r.Scenarios = append(r.Scenarios, &scenarioReport{ID: c.id, Kind: kindRead, Results: map[string]result{
			targetEngine: {RPS: c.engine}, targetBaseline: {RPS: c.baseln}}})
	}
	r.finish()
	got := map[string]bool{}
	for _, c := range r.Checks {
		if id, ok := strings.CutPrefix(c.Name, "engine/baseline req/s, "); ok {
			got[id] = c.Pass
		}
	}
	want := map[string]bool{"key": false, "search": true, "search-two": false, "top": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("engine/baseline checks passed (-want +got):\n%s", diff)
	}
}

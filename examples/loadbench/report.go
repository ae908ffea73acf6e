package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// The targets of the performance work, which the report checks.
const (
	minEngineOverBaseline = 0.9  // each read scenario: the engine's req/s over the baseline's
	minSearchOverBaseline = 0.85 // the same of the $search scenarios, whose baseline asks the full-text index by hand
	minStoreOverEngine    = 0.7  // each scenario: the store server's req/s over the engine's
	minStoreRPS           = 500  // each store scenario
	maxPageOverFirst      = 1.5  // p50 of page N over p50 of page 1
	maxDeepOverFirst      = 3    // p50 of $orderby=Price desc&$skip=<deep> over $orderby=Price desc&$top=100
	minPostRPS            = 1500 // POST of products by the store server from 4 clients
)

// report is the outcome of a run; it is also the JSON that -json writes.
type report struct {
	Started      time.Time `json:"started"`
	Database     string    `json:"database"` // sqlite or postgres
	Products     int       `json:"products"`
	Clients      int       `json:"clients"`
	WriteClients int       `json:"write_clients"`
	Duration     string    `json:"duration"`
	Warmup       string    `json:"warmup"`
	Rounds       int       `json:"rounds"`
	// Scenarios hold the median of the rounds of each target, and each round.
	Scenarios []*scenarioReport `json:"scenarios"`
	// PageLinks are the links page-N read, with the page they lead to and how long the walk took.
	PageLinks map[string]pageLink `json:"page_links,omitempty"`
	// Ratios are the engine/baseline and store/engine req/s of each scenario.
	Ratios []ratio `json:"ratios"`
	// Checks compare the measurements with the targets of the performance work.
	Checks []check `json:"checks"`
}

// scenarioReport is the measurement of one scenario.
type scenarioReport struct {
	ID      string              `json:"id"`
	Request string              `json:"request"`
	Kind    kind                `json:"kind"`
	Clients int                 `json:"clients"`
	Results map[string]result   `json:"results"` // median of the rounds, by target
	Rounds  map[string][]result `json:"rounds"`
	// RequestsPerOp is the number of HTTP requests of one operation when it is more than one (a checkout);
	// results count operations.
	RequestsPerOp int `json:"requests_per_operation,omitempty"`
}

// ratio holds the ratios of req/s of one scenario; a ratio is nil when a target was not measured.
type ratio struct {
	Scenario       string   `json:"scenario"`
	EngineBaseline *float64 `json:"engine_over_baseline,omitempty"`
	StoreEngine    *float64 `json:"store_over_engine,omitempty"`
}

// check is a measurement compared with its target.
type check struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Op is ">=" (a floor) or "<=" (a ceiling).
	Op    string  `json:"op"`
	Limit float64 `json:"limit"`
	Pass  bool    `json:"pass"`
}

func newReport(cfg benchConfig, products int) *report {
	db := "sqlite"
	if isPostgres(cfg.DB) {
		db = "postgres"
	}
	return &report{Started: time.Now().UTC().Round(time.Second), Database: db, Products: products,
		Clients: cfg.Clients, WriteClients: cfg.WriteClients, Duration: cfg.Duration.String(),
		Warmup: cfg.Warmup.String(), Rounds: cfg.Rounds}
}

func (r *report) scenario(id string) *scenarioReport {
	for _, s := range r.Scenarios {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// engineFloor is the least engine/baseline ratio of req/s the scenario id is to reach.
func engineFloor(id string) float64 {
	if strings.HasPrefix(id, "search") {
		return minSearchOverBaseline
	}
	return minEngineOverBaseline
}

// rpsRatio returns a's req/s over b's in s, nil when either was not measured.
func rpsRatio(s *scenarioReport, a, b string) *float64 {
	ra, okA := s.Results[a]
	rb, okB := s.Results[b]
	if !okA || !okB || rb.RPS == 0 {
		return nil
	}
	v := ra.RPS / rb.RPS
	return &v
}

func (r *report) addCheck(name string, value float64, op string, limit float64) {
	pass := value >= limit
	if op == "<=" {
		pass = value <= limit
	}
	r.Checks = append(r.Checks, check{Name: name, Value: value, Op: op, Limit: limit, Pass: pass})
}

// finish computes the ratios and the checks.
func (r *report) finish() {
	r.Ratios, r.Checks = nil, nil
	for _, s := range r.Scenarios {
		rt := ratio{Scenario: s.ID, EngineBaseline: rpsRatio(s, targetEngine, targetBaseline),
			StoreEngine: rpsRatio(s, targetStore, targetEngine)}
		if rt.EngineBaseline != nil || rt.StoreEngine != nil {
			r.Ratios = append(r.Ratios, rt)
		}
		if rt.EngineBaseline != nil {
			r.addCheck("engine/baseline req/s, "+s.ID, *rt.EngineBaseline, ">=", engineFloor(s.ID))
		}
		if rt.StoreEngine != nil {
			r.addCheck("store/engine req/s, "+s.ID, *rt.StoreEngine, ">=", minStoreOverEngine)
		}
		if st, ok := s.Results[targetStore]; ok {
			if n := s.RequestsPerOp; n > 1 {
				r.addCheck(fmt.Sprintf("store req/s, %s (%d requests each)", s.ID, n), st.RPS*float64(n), ">=", minStoreRPS)
			} else {
				r.addCheck("store req/s, "+s.ID, st.RPS, ">=", minStoreRPS)
			}
		}
	}
	r.latencyChecks("page-N", "page-1", "p50 page N / page 1", maxPageOverFirst)
	r.latencyChecks("orderby-skip", "orderby-price", "p50 $orderby $skip deep / $top", maxDeepOverFirst)
	if s := r.scenario("post-product"); s != nil {
		if st, ok := s.Results[targetStore]; ok {
			r.addCheck(fmt.Sprintf("store POST Product/s from %d clients", s.Clients), st.RPS, ">=", minPostRPS)
		}
	}
	errs := 0
	for _, s := range r.Scenarios {
		for _, res := range s.Results {
			errs += res.Errors
		}
	}
	r.addCheck("errors", float64(errs), "<=", 0)
}

// latencyChecks compares the p50 of scenario a with b's on each target that ran both.
func (r *report) latencyChecks(a, b, name string, limit float64) {
	sa, sb := r.scenario(a), r.scenario(b)
	if sa == nil || sb == nil {
		return
	}
	for _, t := range []string{targetStore, targetEngine, targetBaseline} {
		ra, okA := sa.Results[t]
		rb, okB := sb.Results[t]
		if okA && okB && rb.P50ms > 0 {
			r.addCheck(name+", "+t, ra.P50ms/rb.P50ms, "<=", limit)
		}
	}
}

// writeReport prints the report's tables to w and writes the JSON and the picture the settings ask for.
func writeReport(r *report, cfg benchConfig, w io.Writer) error {
	if err := printReport(w, r); err != nil {
		return err
	}
	if cfg.JSONPath != "" {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(cfg.JSONPath, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if cfg.SVGPath != "" {
		if err := os.WriteFile(cfg.SVGPath, drawRatios(r), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// printReport prints the measurements, the ratios and the checks as tables.
func printReport(w io.Writer, r *report) error {
	fmt.Fprintf(w, "loadbench on %s, %d products: %d clients (%d for writes), %s per measurement after %s of warm-up, median of %d rounds\n\n",
		r.Database, r.Products, r.Clients, r.WriteClients, r.Duration, r.Warmup, r.Rounds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\ttarget\treq/s\tp50 ms\tp99 ms\terrors\t")
	for _, s := range r.Scenarios {
		first := true
		for _, t := range []string{targetStore, targetEngine, targetBaseline} {
			res, ok := s.Results[t]
			if !ok {
				continue
			}
			name := ""
			if first {
				name, first = s.ID, false
			}
			fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.2f\t%.2f\t%d\t\n", name, t, res.RPS, res.P50ms, res.P99ms, res.Errors)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "scenario\tengine/baseline (>= %.2f, search >= %.2f)\tstore/engine (>= %.2f)\t\n",
		minEngineOverBaseline, minSearchOverBaseline, minStoreOverEngine)
	for _, rt := range r.Ratios {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", rt.Scenario, ratioText(rt.EngineBaseline, engineFloor(rt.Scenario)),
			ratioText(rt.StoreEngine, minStoreOverEngine))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, l := range slices.Sorted(maps.Keys(r.PageLinks)) {
		p := r.PageLinks[l]
		fmt.Fprintf(w, "page-N on %s: page %d, reached by following the next links in %.2f s\n", l, p.Page, p.Walk)
	}
	failed := 0
	for _, c := range r.Checks {
		if !c.Pass {
			failed++
		}
	}
	fmt.Fprintf(w, "\nchecks: %d of %d met\n", len(r.Checks)-failed, len(r.Checks))
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.Pass {
			mark = "MISS"
		}
		fmt.Fprintf(w, "  %s %s: %.2f %s %g\n", mark, c.Name, c.Value, c.Op, c.Limit)
	}
	return nil
}

func ratioText(v *float64, limit float64) string {
	if v == nil {
		return "-"
	}
	if *v < limit {
		return fmt.Sprintf("%.2f MISS", *v)
	}
	return fmt.Sprintf("%.2f ok", *v)
}

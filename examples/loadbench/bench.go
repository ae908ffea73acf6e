package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/storekit/store/odata"
)

// benchConfig are the settings of the run command.
type benchConfig struct {
	DB, StoreURL          string
	Targets, Scenarios    string
	Clients, WriteClients int
	Duration, Warmup      time.Duration
	Rounds, Page, MaxOpen int
	// StoreNodes is the number of store servers started in-process on the database when StoreURL is empty.
	StoreNodes                int
	AdminEmail, AdminPassword string
	JSONPath, SVGPath         string
	// Listen holds the address each in-process engine or baseline target listens on, by target name; a
	// target without one listens on a free port of 127.0.0.1.
	Listen map[string]string
	// Log receives a line per measurement while the run goes on.
	Log io.Writer
}

func defaultBenchConfig() benchConfig {
	s := defaultSeedOptions()
	return benchConfig{Targets: "store,engine,baseline", Clients: 8, WriteClients: 4, Duration: 10 * time.Second,
		Warmup: 2 * time.Second, Rounds: 3, Page: 500, MaxOpen: 20, StoreNodes: 1, AdminEmail: s.AdminEmail, AdminPassword: s.AdminPassword}
}

// check reports the first mistake in the settings.
func (c benchConfig) check() ([]string, *regexp.Regexp, error) {
	if c.Clients < 1 || c.WriteClients < 1 || c.Rounds < 1 || c.Page < 2 || c.MaxOpen < 1 || c.StoreNodes < 1 {
		return nil, nil, errors.New("-clients, -write-clients, -rounds, -db-max-open and -store-nodes must be at least 1, -page at least 2")
	}
	if c.Duration <= 0 || c.Warmup < 0 {
		return nil, nil, errors.New("-duration must be positive and -warmup not negative")
	}
	var names []string
	for _, n := range strings.Split(c.Targets, ",") {
		n = strings.TrimSpace(n)
		if n != targetStore && n != targetEngine && n != targetBaseline {
			return nil, nil, fmt.Errorf("-targets: unknown target %q (want store, engine, baseline)", n)
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	re, err := regexp.Compile(c.Scenarios)
	if err != nil {
		return nil, nil, fmt.Errorf("-scenarios: %w", err)
	}
	return names, re, nil
}

// env is what the scenarios share during a run.
type env struct {
	cfg      benchConfig
	c        *client
	runID    string
	products int
	// ids are product keys spread over the whole table, for the reads by key and the carts.
	ids []string

	mu        sync.Mutex
	links     map[string]pageLink // by target
	customers map[string][]string // Authorization headers of the target's customers
}

// sampleIDs is how many product keys a run reads by key.
const sampleIDs = 1000

// newEnv reads the size of the store and a sample of its product keys.
func newEnv(ctx context.Context, cfg benchConfig) (*env, error) {
	db, err := openDB(cfg.DB, 2)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	e := &env{cfg: cfg, c: newClient(max(cfg.Clients, cfg.WriteClients)), runID: odata.NewID()[6:],
		links: map[string]pageLink{}, customers: map[string][]string{}}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM product").Scan(&e.products); err != nil {
		return nil, fmt.Errorf("count the products: %w", err)
	}
	if e.products == 0 {
		return nil, errors.New("the store has no products: run loadbench seed first")
	}
	rows, err := db.QueryContext(ctx, "SELECT id FROM product ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	step := max(1, e.products/sampleIDs)
	for i := 0; rows.Next(); i++ {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		if i%step == 0 {
			e.ids = append(e.ids, id)
		}
	}
	return e, rows.Err()
}

// pageLink returns the link of page cfg.Page of t's next-link walk, walking once per target.
func (e *env) pageLink(ctx context.Context, t *target) (pageLink, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if l, ok := e.links[t.name]; ok {
		return l, nil
	}
	l, err := walk(ctx, e.c, t, e.cfg.Page)
	if err != nil {
		return pageLink{}, fmt.Errorf("walk the next links: %w", err)
	}
	e.links[t.name] = l
	return l, nil
}

// customerAuths returns the Authorization headers of n customers of t, registered on first use.
func (e *env) customerAuths(ctx context.Context, t *target, n int) ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	have := e.customers[t.name]
	if len(have) < n {
		more, err := registerCustomers(ctx, e.c, t, fmt.Sprintf("%s-%d", e.runID, len(have)), n-len(have))
		if err != nil {
			return nil, err
		}
		have = append(have, more...)
		e.customers[t.name] = have
	}
	return have[:n], nil
}

// runBenchmark starts the targets and measures every selected scenario on each target it applies to.
func runBenchmark(ctx context.Context, cfg benchConfig) (*report, error) {
	names, only, err := cfg.check()
	if err != nil {
		return nil, err
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	e, err := newEnv(ctx, cfg)
	if err != nil {
		return nil, err
	}
	targets, err := startTargets(ctx, cfg, names)
	if err != nil {
		return nil, err
	}
	defer stopTargets(targets)
	rep := newReport(cfg, e.products)
	for _, s := range newScenarios(e.products, cfg.Page, cfg.WriteClients) {
		if !only.MatchString(s.id) {
			continue
		}
		sr, err := runScenario(ctx, e, s, targets)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", s.id, err)
		}
		if len(sr.Results) > 0 {
			rep.Scenarios = append(rep.Scenarios, sr)
		}
	}
	rep.PageLinks = e.links
	rep.finish()
	return rep, ctx.Err()
}

// runScenario measures s on each target it applies to, cfg.Rounds times, the targets taking turns in an order
// that rotates each round.
func runScenario(ctx context.Context, e *env, s *scenario, targets []*target) (*scenarioReport, error) {
	var on []*target
	for _, t := range targets {
		if s.runsOn(t.name) {
			on = append(on, t)
		}
	}
	n := s.clients
	if n == 0 {
		n = e.cfg.Clients
	}
	ops := map[string][]op{}
	for _, t := range on {
		o, err := s.ops(ctx, e, t, n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.name, err)
		}
		ops[t.name] = o
	}
	rounds := map[string][]result{}
	for r := range e.cfg.Rounds {
		for k := range on {
			t := on[(k+r)%len(on)]
			res := measure(ctx, ops[t.name], e.cfg.Warmup, e.cfg.Duration)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			rounds[t.name] = append(rounds[t.name], res)
			fmt.Fprintf(e.cfg.Log, "round %d/%d  %-16s %-8s %9.1f req/s  p50 %7.2f ms  p99 %7.2f ms  errors %d\n",
				r+1, e.cfg.Rounds, s.id, t.name, res.RPS, res.P50ms, res.P99ms, res.Errors)
			if res.FirstError != "" {
				fmt.Fprintf(e.cfg.Log, "    first error: %s\n", res.FirstError)
			}
		}
	}
	sr := &scenarioReport{ID: s.id, Request: s.request, Kind: s.kind, Clients: n, Results: map[string]result{},
		Rounds: rounds, RequestsPerOp: s.requests}
	for name, rs := range rounds {
		sr.Results[name] = median(rs)
	}
	return sr, nil
}

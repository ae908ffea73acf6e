// Command loadbench measures the store under load: it seeds a store of a given size on SQLite or PostgreSQL,
// then drives three servers of the same database over HTTP with concurrent clients and compares them.
//
//	go run ./examples/loadbench seed -db bench.db -products 100000
//	go run ./examples/loadbench run -db bench.db -clients 8 -duration 10s -json bench.json -svg bench.svg
//
// -db names a SQLite file, or a PostgreSQL database with a postgres:// or postgresql:// URL.
//
// # Seeding
//
// seed runs the store's migrations and first-start seed through the store server itself (it starts
// server.Run on a free port and stops it once it listens: roles, countries, shipping and payment methods and
// the admin, without the demo catalog), then writes the catalog with multi-row INSERT statements, prepared
// once per transaction: categories (a fifth of them top-level, the others their children), products with
// every column of the product table, and the links between them (1 to 3 categories a product, 2 on average).
// It writes exactly the columns the migrated tables have, read from the database's catalog, so a column a
// later migration adds is either given its default or named in an error. A progress bar goes to stderr. Then it
// runs ANALYZE on the three tables (VACUUM ANALYZE on PostgreSQL), as after any bulk load. A database that already holds products is refused:
// seed a new one.
//
// # Targets
//
// run measures each scenario against three targets serving the same database:
//
//   - store: the store server (server.Run, started in-process on a free port, or the server at -store-url),
//     with its authentication, request log and middleware; reads use an administrator's bearer token;
//   - engine: the bare engine, odata.NewService over the store's model (entities.NewModel) with no hooks,
//     middleware or authentication (Product takes writes; the model's actions answer 501);
//   - baseline: a hand-written net/http and database/sql handler for the read scenarios only, answering the
//     same JSON (members, ETags and next links) with the least code: no parser, no planner, SQL written out.
//
// # Scenarios
//
// Reads (every target): an entity by key, a page of Product, $filter on Price and with contains, $search of
// one word and of two (with $count=true, through the store's full-text index), $orderby Price desc, $select,
// $expand=Categories, /$count, $skip deep into the set by key and by Price desc, and the
// first and the 500th page of a next-link walk (the link of page 500 is found by following the next links
// once). Metadata (store and engine): the service document and $metadata. Writes (store and engine): POST of
// products from -write-clients clients (4). Shop (store only): add-to-cart and a whole checkout (add to cart,
// the five checkout steps and the confirmation) as customers the run registers through the admin API.
//
// Each scenario runs -rounds times (3); in each round every target is warmed up for -warmup and then driven
// by -clients clients for -duration, the targets taking turns in a different order each round, so that the
// machine's state weighs on all alike. The report gives the median round's requests per second, p50 and p99
// latency and the errors (non-2xx answers and transport failures) of each target, the ratios engine/baseline
// and store/engine of each scenario, page 500 over page 1 and the deep $orderby page over the first: as a
// table on stdout, as JSON (-json) and as an SVG picture of the ratios (-svg).
//
// # Serving
//
// serve starts the engine and the baseline on the database at fixed addresses of 127.0.0.1 and serves them
// until interrupted, for a load generator of one's own (wrk, or a side-by-side with other servers):
//
//	go run ./examples/loadbench serve -db bench.db -engine 127.0.0.1:18081 -baseline 127.0.0.1:18082
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(os.Stderr, "loadbench: %v\n", err)
		}
		os.Exit(2)
	}
}

const usage = `Usage:
  loadbench seed -db FILE|URL [-products 100000] [-categories 200] ...
  loadbench run  -db FILE|URL [-clients 8] [-duration 10s] [-rounds 3] [-json FILE] [-svg FILE] ...
  loadbench report -json FILE [-svg FILE]   (the tables and the picture of the JSON of an earlier run)
  loadbench serve -db FILE|URL [-engine 127.0.0.1:18081] [-baseline 127.0.0.1:18082] [-cpuprofile FILE]
                                            (serve the engine and the baseline until interrupted, for other tools)

Run "loadbench seed -help" or "loadbench run -help" for the flags of each.
`

// run runs the subcommand args[1] with the rest of args.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return flag.ErrHelp
	}
	switch args[1] {
	case "seed":
		return runSeed(ctx, args[2:], stderr)
	case "run":
		return runBench(ctx, args[2:], stdout, stderr)
	case "report":
		return runReport(args[2:], stdout, stderr)
	case "serve":
		return runServe(ctx, args[2:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[1])
}

// runSeed parses the flags of the seed command and seeds the store.
func runSeed(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadbench seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opts := defaultSeedOptions()
	fs.StringVar(&opts.DB, "db", "loadbench.db", "SQLite file, or a postgres:// URL of an empty (or migrated, catalog-free) database")
	fs.IntVar(&opts.Products, "products", opts.Products, "products to write")
	fs.IntVar(&opts.Categories, "categories", opts.Categories, "categories to write")
	fs.Float64Var(&opts.LinksPerProduct, "links-per-product", opts.LinksPerProduct, "average categories of a product (1 to 3)")
	fs.StringVar(&opts.AdminEmail, "admin-email", opts.AdminEmail, "e-mail of the administrator the store's seed creates")
	fs.StringVar(&opts.AdminPassword, "admin-password", opts.AdminPassword, "its password (run signs in with it)")
	fs.Uint64Var(&opts.RandomSeed, "random-seed", opts.RandomSeed, "seed of the generated names, prices and links")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("seed: unexpected arguments %q", fs.Args())
	}
	opts.Progress = stderr
	_, err := seedStore(ctx, opts)
	return err
}

// runBench parses the flags of the run command and runs the benchmark.
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadbench run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := defaultBenchConfig()
	fs.StringVar(&cfg.DB, "db", "loadbench.db", "the seeded SQLite file, or postgres:// URL")
	fs.StringVar(&cfg.StoreURL, "store-url", "", "URL of a running store server on the same database, or comma-separated URLs of several\nnodes (default: start -store-nodes in-process)")
	fs.StringVar(&cfg.Targets, "targets", cfg.Targets, "comma-separated targets to drive: store, engine, baseline")
	fs.StringVar(&cfg.Scenarios, "scenarios", "", "regular expression: run only the scenarios whose name matches")
	fs.IntVar(&cfg.Clients, "clients", cfg.Clients, "concurrent clients of each scenario")
	fs.IntVar(&cfg.WriteClients, "write-clients", cfg.WriteClients, "concurrent clients of the POST scenario")
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "measured time of each scenario, target and round")
	fs.DurationVar(&cfg.Warmup, "warmup", cfg.Warmup, "unmeasured time before each measurement")
	fs.IntVar(&cfg.Rounds, "rounds", cfg.Rounds, "rounds; the median round is reported")
	fs.IntVar(&cfg.Page, "page", cfg.Page, "the page of the next-link walk compared with page 1")
	fs.IntVar(&cfg.MaxOpen, "db-max-open", cfg.MaxOpen, "connection pool size of each in-process target")
	fs.IntVar(&cfg.StoreNodes, "store-nodes", cfg.StoreNodes, "store servers to start in-process on the database, each client sending to one of them\n(several nodes of one PostgreSQL database; -store-url takes a comma-separated list instead)")
	fs.StringVar(&cfg.AdminEmail, "admin-email", cfg.AdminEmail, "administrator e-mail (as seeded)")
	fs.StringVar(&cfg.AdminPassword, "admin-password", cfg.AdminPassword, "administrator password (as seeded)")
	fs.StringVar(&cfg.JSONPath, "json", "", "write the results as JSON to this file")
	fs.StringVar(&cfg.SVGPath, "svg", "", "draw the ratios as an SVG picture in this file")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run (targets and clients) to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("run: unexpected arguments %q", fs.Args())
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	cfg.Log = stderr
	rep, err := runBenchmark(ctx, cfg)
	if err != nil {
		return err
	}
	return writeReport(rep, cfg, stdout)
}

// runServe serves the engine and the baseline targets on the database until ctx ends, so that other load
// generators (wrk, or a side-by-side with other servers) can drive them.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadbench serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := defaultBenchConfig()
	fs.StringVar(&cfg.DB, "db", "loadbench.db", "the seeded SQLite file, or postgres:// URL")
	fs.IntVar(&cfg.MaxOpen, "db-max-open", cfg.MaxOpen, "connection pool size of each target")
	engine := fs.String("engine", "127.0.0.1:18081", "address of the engine; \"\": not served")
	base := fs.String("baseline", "127.0.0.1:18082", "address of the hand-written baseline; \"\": not served")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the servers, until interrupted, to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected arguments %q", fs.Args())
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	cfg.Listen = map[string]string{targetEngine: *engine, targetBaseline: *base}
	var names []string
	for _, n := range []string{targetEngine, targetBaseline} {
		if cfg.Listen[n] != "" {
			names = append(names, n)
		}
	}
	ts, err := startTargets(ctx, cfg, names)
	if err != nil {
		return err
	}
	for _, t := range ts {
		fmt.Fprintf(stdout, "%s %s/odata\n", t.name, t.url)
	}
	<-ctx.Done()
	stopTargets(ts)
	return nil
}

// startCPUProfile starts a CPU profile of the process into the file path and returns what stops it; with path
// "", nothing.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// runReport prints the tables of the JSON an earlier run wrote, and draws its picture.
func runReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadbench report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("json", "", "the JSON a run wrote (required)")
	svg := fs.String("svg", "", "draw the ratios as an SVG picture in this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *in == "" || fs.NArg() > 0 {
		return errors.New("report: -json FILE is required, and nothing else")
	}
	b, err := os.ReadFile(*in)
	if err != nil {
		return err
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("report: %s: %w", *in, err)
	}
	r.finish()
	return writeReport(&r, benchConfig{SVGPath: *svg}, stdout)
}

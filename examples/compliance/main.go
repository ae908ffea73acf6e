// Command compliance serves the reference model of the OData compliance suite
// (github.com/NLstn/odata-compliance-suite, its CONTRACT.md) with nothing but the engine's public API, at the
// service root, so the suite can measure the engine:
//
//	go run ./examples/compliance -addr 127.0.0.1:9090 -db compliance.db
//	go run ./examples/compliance -addr 127.0.0.1:9090 -db 'postgres://postgres@127.0.0.1:5432/compliance?sslmode=disable'
//
// -db names a SQLite file, or a PostgreSQL database with a postgres:// or postgresql:// URL (COMPLIANCE_DB and
// COMPLIANCE_ADDR when the flags are not given). Every start drops the program's tables and creates them afresh;
// the start and the unbound action Reseed (which the suite calls before each suite) restore the exact seed rows,
// with fixed keys.
//
// # What is served
//
// The entity sets Products (Guid key, ETag from Version, which every update and every price-changing action
// increments), Categories (unique Name), ProductDescriptions (composite key ProductID and LanguageKey),
// MediaItems (a media entity: Content is its $value, ContentType its media type), ReadOnlyItems (no writes),
// DecimalSamples and RestrictedItems (no writes, and reads that take no $filter, $orderby, $count, $expand or
// $select: restricted.go); the type SpecialProduct derived from Product (SpecialProperty and SpecialFeature; its rows are
// in Products, ProductType names the type of each product, and /Products/ComplianceService.SpecialProduct
// casts to it); the singleton Company (type CompanyInfo, ETag from Version); the flags enum ProductStatus, the
// complex types Address and Dimensions; the navigations Product/Category, Product/Descriptions,
// Product/RelatedProducts (many-to-many), Category/Products and ProductDescription/Product; Core.Description on
// Name, Description, SerialNumber and Tags, Core.Computed on CreatedAt and Version, Core.Immutable on
// SerialNumber; Product's Tags, an ordered collection of strings the contract does not have (the suite reads a
// collection property from a product); the actions ApplyDiscount, IncreasePrice, Activate, CalculateDiscount (bound to a Product), MarkAllAsReviewed
// (bound to the collection), ResetAllPrices, ResetProducts, Process and Reseed (unbound); the functions
// GetTopProducts (unbound and bound to the collection, three overloads each), GetTotalPrice, GetRelatedProducts,
// GetInfo and CalculatePrice (two overloads; bound to a Product), GetProductStats and GetAveragePrice (bound to
// the collection), FindProducts, Calculate and Convert (unbound, the last two overloaded); and the seed rows of
// the reference server. $metadata carries the Capabilities the engine derives from the sets' options, so
// ReadOnlyItems and RestrictedItems are read-only there too (Core.Permissions Read), and RestrictedItems is not
// filterable, sortable, countable or expandable and has no SelectSupport.
//
// The service answers in OData 4.01 when a request's OData-MaxVersion allows it (odata.Config.MaxVersion), in 4.0
// otherwise; its schema has version 1.0 (odata.Config.SchemaVersion: Core.SchemaVersion in $metadata,
// $schemaversion=1.0 or * served, any other version 404); and it runs a request that prefers respond-async in
// the background (odata.Config.Async: 202 with a status monitor under /$async/, its state in the table
// odata_async). Products tracks changes
// (odata.SetOptions.TrackChanges): a read that prefers odata.track-changes ends with a delta link, served from the
// change log in the table odata_changes.
//
// # What is left out, and the engine feature it waits for
//
//   - Query options after a function call: the contract declares no function composable, so they are a 400 (the
//     engine composes the entity results of composable functions, odata.FunctionFunc).
//   - The geography properties Location (GeographyPoint), Route (GeographyLineString) and Area
//     (GeographyPolygon): the engine has no geography types.
//   - The overloads of the unbound action Process: CSDL overloads bound operations only, so Process is one action
//     whose second parameter, minPrice, is optional.
//   - Core.OptimisticConcurrency on Products (odata.SetOptions.RequireIfMatch): it would make every change
//     without If-Match a 428, and the suite changes products without one.
//   - The precision and scale (10, 2) of Price and of the Dimensions members: the engine gives Precision and Scale
//     to Decimal properties only, and these are Double as the contract says.
//
// The key of Products is server-generated, as the contract says: read-only (Core.Computed in $metadata), so a
// POST ignores a key the body sends and always gets a new Guid. Keys are generated (Guid) when a POST to
// Categories, MediaItems or DecimalSamples leaves the key out; there a POST always creates (a key the client
// sends is used, an existing one is a 409), as OData says, and ProductDescriptions takes its composite key from
// the body.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "compliance: %v\n", err)
		os.Exit(1)
	}
}

// run serves until ctx is cancelled. Its first line on stdout is "listening on http://ADDR".
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", "127.0.0.1:9090", "address to listen on (env COMPLIANCE_ADDR; port 0 picks a free one)")
	dsn := flags.String("db", "compliance.db", "SQLite file, or a postgres:// URL (env COMPLIANCE_DB)")
	if err := flags.Parse(args[1:]); err != nil {
		return err
	}
	set := map[string]bool{}
	flags.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if v := getenv("COMPLIANCE_ADDR"); v != "" && !set["addr"] {
		*addr = v
	}
	if v := getenv("COMPLIANCE_DB"); v != "" && !set["db"] {
		*dsn = v
	}

	db, err := open(*dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	m := model()
	if err := m.Build(); err != nil {
		return err
	}
	if err := createSchema(ctx, db, m); err != nil {
		return err
	}
	svc, err := newService(m, db, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return err
	}
	if err := seedThrough(svc); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	// The service is the whole handler: an http.ServeMux would clean paths the suite sends on purpose.
	srv := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return svc.Shutdown(shutdown) // the asynchronous requests still running
}

// open opens the database dsn names: PostgreSQL for a postgres:// or postgresql:// URL, else a SQLite file.
func open(dsn string) (*sqldb.DB, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return postgres.Open(dsn, postgres.Pool{})
	}
	return sqlite.Open(dsn)
}

// newService serves the model at the root: every set but ReadOnlyItems takes every write, with generated Guid keys;
// the singleton Company takes PUT and PATCH.
// schemaVersion is the version of the model the service serves (odata.Config.SchemaVersion).
const schemaVersion = "1.0"

func newService(m *edm.Model, db *sqldb.DB, logger *slog.Logger) (*odata.Service, error) {
	guid := func() any { return edm.NewGuid() }
	return odata.NewService(odata.Config{
		Model: m, DB: db, Logger: logger, MaxVersion: odata.Version401,
		// $metadata carries Core.SchemaVersion; $schemaversion=1.0 or * is served, another version is a 404.
		SchemaVersion: schemaVersion,
		Async:         odata.AsyncOptions{Enabled: true},
		Sets: map[string]odata.SetOptions{
			// A key (or Immutable value) an update's body sends is ignored, as OData 4.01 has it (part 1, 11.4.3:
			// "the service MUST ignore that value when applying the update"); no set rejects it
			// (odata.SetOptions.RejectKeyChange).
			// Products tracks changes: Prefer: odata.track-changes gives a delta link (the suite's 11.2.8).
			"Products": {Writes: odata.WriteAll, NewKey: guid, TrackChanges: true,
				Hooks: odata.Hooks{BeforeSave: productBeforeSave}},
			"Categories":          {Writes: odata.WriteAll, NewKey: guid},
			"ProductDescriptions": {Writes: odata.WriteAll},
			"MediaItems": {Writes: odata.WriteAll, NewKey: guid,
				Hooks: odata.Hooks{BeforeSave: mediaItemBeforeSave}},
			"DecimalSamples": {Writes: odata.WriteAll, NewKey: guid},
			restrictedSet:    restrictedOptions,
		},
		Singletons: map[string]odata.SingletonOptions{
			"Company": {Writes: odata.WritePut | odata.WritePatch, Hooks: odata.Hooks{BeforeSave: companyBeforeSave}},
		},
		Actions:   actions(),
		Functions: functions(),
	})
}

// seedThrough fills the new tables by calling the service's own Reseed action, so the start and a reseed
// restore the same rows the same way.
func seedThrough(svc *odata.Service) error {
	answer := httptest.NewRecorder()
	request := httptest.NewRequest(http.MethodPost, "/Reseed", strings.NewReader("{}"))
	request.Header.Set("Content-Type", "application/json")
	svc.ServeHTTP(answer, request)
	if answer.Code != http.StatusOK {
		return fmt.Errorf("seeding: Reseed answered %d %s", answer.Code, answer.Body)
	}
	return nil
}

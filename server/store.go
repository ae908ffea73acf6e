package server

import (
	"context"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/storefront"
)

// storeComponents builds the store's components on the open database: the entity sets and actions of the OData
// service, the storefront routes, the authenticator, their migrations and the first-start seed. It is the one
// place that names the store's packages.
func storeComponents(ctx context.Context, deps wiring) (*components, error) {
	cfg := deps.Config
	auth := &entities.Auth{DB: deps.DB, TokenTTL: cfg.TokenTTL, CacheTTL: cfg.TokenCacheTTL}
	oc := odata.Config{DB: deps.DB, Logger: deps.Logger, Mount: odataMount, PublicURL: cfg.PublicURL,
		OpenAPI: storeOpenAPI(), TimeBudget: cfg.RequestBudget,
		// SPEC part 9: 1 MiB a request body, a batch's too; the Picture set's own limit is 16 MiB.
		Limits:          odata.Limits{BodyBytes: maxBodyBytes, BatchBytes: maxBodyBytes},
		SkipSchemaCheck: true, // checked after the migrations: od.CheckSchema
		TracerProvider:  deps.TracerProvider, MeterProvider: deps.MeterProvider}
	err := entities.Register(&oc, entities.Options{CountriesEnabled: cfg.CountriesEnabled, PrincipalChanged: auth.Forget})
	if err != nil {
		return nil, err
	}
	od, err := odata.NewService(oc)
	if err != nil {
		return nil, err
	}
	store := storefront.New(storefront.Config{DB: deps.DB, Logger: deps.Logger,
		CountriesEnabled: cfg.CountriesEnabled, PublicURL: cfg.PublicURL})
	return &components{
		Migrations: []migrate.Source{entities.Migrations, storefront.Migrations},
		// After the migrations: the service compares the tables with its model and finds the full-text index
		// of the product search (0008_product_search), which $search then uses.
		CheckSchema: od.CheckSchema,
		OData:       od,
		Storefront:  store.Register,
		Seed: func(ctx context.Context) (string, error) {
			res, err := entities.Seed(ctx, deps.DB, entities.SeedOptions{
				AdminEmail: cfg.AdminEmail, AdminPassword: cfg.AdminPassword, Demo: cfg.Demo, Logger: deps.Logger,
			})
			return res.GeneratedAdminPassword, err
		},
		Auth: auth,
		Ready: func(ctx context.Context) error {
			var one int
			return deps.DB.QueryRowContext(ctx, "SELECT 1").Scan(&one)
		},
	}, nil
}

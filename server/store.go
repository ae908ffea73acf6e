package server

import (
	"context"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/storefront"
)

// storeComponents builds the store's components on the open database: the entity sets and actions of the OData
// service, the storefront routes, the authenticator, their migrations and the first-start seed. It is the one
// place that names the store's packages.
func storeComponents(ctx context.Context, deps Deps) (*Components, error) {
	cfg := deps.Config
	auth := &entities.Auth{DB: deps.DB, TokenTTL: cfg.TokenTTL, CacheTTL: cfg.TokenCacheTTL}
	od, err := entities.NewService(entities.Config{DB: deps.DB, Logger: deps.Logger,
		Mount: "/odata", PublicURL: cfg.PublicURL, CountriesEnabled: cfg.CountriesEnabled, OpenAPI: storeOpenAPI(),
		TimeBudget: cfg.RequestBudget, SkipSchemaCheck: true, // checked after the migrations: CheckSchema
		TracerProvider: deps.TracerProvider, MeterProvider: deps.MeterProvider})
	if err != nil {
		return nil, err
	}
	store := storefront.New(storefront.Config{DB: deps.DB, Logger: deps.Logger,
		CountriesEnabled: cfg.CountriesEnabled, PublicURL: cfg.PublicURL})
	return &Components{
		Migrations: []migrate.Source{entities.Migrations, storefront.Migrations},
		CheckSchema: func(ctx context.Context) error {
			return entities.CheckSchema(ctx, deps.DB)
		},
		OData:      od,
		Storefront: func(r Router) { store.Register(r) },
		Seed: func(ctx context.Context) (string, error) {
			res, err := entities.Seed(ctx, deps.DB, entities.SeedOptions{
				AdminEmail: cfg.AdminEmail, AdminPassword: cfg.AdminPassword, Demo: cfg.Demo, Logger: deps.Logger,
			})
			return res.GeneratedAdminPassword, err
		},
		Auth: auth,
	}, nil
}

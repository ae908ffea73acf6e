package odata

import (
	"context"
	"fmt"
	"time"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/schema"
	"github.com/storekit/store/odata/sqldb"
)

// schemaCheckTimeout bounds the start-up check of the database: a few catalog queries per table.
const schemaCheckTimeout = time.Minute

// checkSchema compares the tables of db with the model m and gives the properties whose columns another program
// declared the storage those columns hold (schema.Adapt), nil when they match. It then finds the full-text
// indexes $search uses (schema.Searchable): their names by entity type name, and the entity types with
// searchable properties and no index.
func checkSchema(db *sqldb.DB, m *edm.Model) (map[string]string, []string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), schemaCheckTimeout)
	defer cancel()
	return checkSchemaContext(ctx, db, m)
}

// checkSchemaContext is checkSchema under ctx.
func checkSchemaContext(ctx context.Context, db *sqldb.DB, m *edm.Model) (map[string]string, []string, error) {
	if err := schema.Adapt(ctx, db, m); err != nil {
		return nil, nil, fmt.Errorf("odata: %w", err)
	}
	indexed, missing, err := schema.Searchable(ctx, db, m)
	if err != nil {
		return nil, nil, fmt.Errorf("odata: %w", err)
	}
	indexes := map[string]string{}
	for _, et := range indexed {
		indexes[et.Name] = schema.SearchIndex(et.Table)
	}
	names := make([]string, len(missing))
	for i, et := range missing {
		names[i] = et.Name
	}
	return indexes, names, nil
}

// CheckSchema runs the check of the database that Config.SkipSchemaCheck leaves out of NewService, for a program
// that migrates the database after building the service: it compares the tables with the model and adapts it
// (odata/schema.Adapt), and finds the full-text indexes $search uses (odata/schema.Searchable), logging once the
// entity types whose searchable properties have none and are scanned. Call it before the service answers
// requests; without it, under SkipSchemaCheck, $search scans.
func (s *Service) CheckSchema(ctx context.Context) error {
	indexes, missing, err := checkSchemaContext(ctx, s.db, s.model)
	if err != nil {
		return err
	}
	s.useSearchIndexes(indexes, missing)
	s.newPlanner()
	return nil
}

// useSearchIndexes makes the planner use indexes, and logs the entity types that have none.
func (s *Service) useSearchIndexes(indexes map[string]string, missing []string) {
	s.searchIndexes = indexes
	if len(missing) > 0 {
		s.logger.Info("$search scans the searchable properties of these entity types: their tables have no "+
			"full-text index (odata/schema.Create and Migration make one)", "entity_types", missing)
	}
}

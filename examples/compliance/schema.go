package main

import (
	"context"
	"fmt"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/schema"
	"github.com/storekit/store/odata/sqldb"
)

// createSchema drops the program's tables and creates them afresh from the model (odata/schema.Create: a table
// per entity type, the side table of each collection property, the link table of RelatedProducts, the foreign keys of the navigations and their indexes),
// and the unique category name the contract asks for, which the model does not express.
func createSchema(ctx context.Context, db *sqldb.DB, m *edm.Model) error {
	dialect := db.Dialect()
	q := dialect.QuoteIdent
	tables := allTables(m)
	statements := []string{"DROP TABLE IF EXISTS " + q(relationTable)}
	for i := len(tables) - 1; i >= 0; i-- {
		// The side tables of collection properties refer to their owner's table: they go first.
		for _, p := range tables[i].Properties {
			if p.Collection {
				statements = append(statements, "DROP TABLE IF EXISTS "+q(p.CollectionTable.Table))
			}
		}
		statements = append(statements, "DROP TABLE IF EXISTS "+q(tables[i].Table))
	}
	create, err := schema.Create(dialect, m)
	if err != nil {
		return err
	}
	statements = append(append(statements, create...),
		fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s (%s)", q("category_name"), q("category"), q("name")))
	for _, s := range statements {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// allTables returns the entity types that have a table of their own (derived types are stored in their base's)
// in the model's order, in which every table follows the tables it refers to.
func allTables(m *edm.Model) []*edm.EntityType {
	var out []*edm.EntityType
	for _, t := range m.EntityTypes {
		if t.Base() == nil {
			out = append(out, t)
		}
	}
	return out
}

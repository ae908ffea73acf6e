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
// declared the storage those columns hold (schema.Adapt), nil when they match.
func checkSchema(db *sqldb.DB, m *edm.Model) error {
	ctx, cancel := context.WithTimeout(context.Background(), schemaCheckTimeout)
	defer cancel()
	if err := schema.Adapt(ctx, db, m); err != nil {
		return fmt.Errorf("odata: %w", err)
	}
	return nil
}

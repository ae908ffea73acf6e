package entities

import (
	"github.com/storekit/store/odata/sqldb"
)

// moneyScale is the scale of Edm.Decimal money columns (NUMERIC(19,4); SQLite stores value x 10^4).
const moneyScale = 4

func isSQLite(d sqldb.Dialect) bool { return d.Name() == "sqlite" }

package postgres

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/storekit/store/odata/sqldb"
)

// Replicas are the read replicas of Open: PostgreSQL streaming replicas (hot standbys) of the primary Open
// connects to. The reads of requests that write nothing go to one of them, as sqldb.DB.Replicate tells: not the
// reads of a client that committed less than MaxLag ago until the replica has replayed its commit (the primary's
// WAL position after the commit, pg_current_wal_insert_lsn(), against the replica's pg_last_wal_replay_lsn()),
// and none while a replica lags by more than MaxLag or fails (its reads then go to another replica or to the
// primary). See docs/scaling.md.
type Replicas struct {
	// URLs are the replicas' postgres:// URLs. Each replica gets a pool with the settings of the primary's.
	URLs []string
	// MaxLag is how far behind the primary a replica may be and still serve reads (default 5 s).
	MaxLag time.Duration
}

// The positions the replicas are compared by: WAL positions in bytes.
const (
	primaryPosition = "SELECT (pg_current_wal_insert_lsn() - '0/0')::int8"
	replayPosition  = "SELECT COALESCE((pg_last_wal_replay_lsn() - '0/0')::int8, -1)"
)

// replicate opens the pools of pool.Replicas and adds them to db; db is closed when that fails.
func replicate(db *sqldb.DB, pool Pool) (*sqldb.DB, error) {
	if len(pool.Replicas.URLs) == 0 {
		return db, nil
	}
	var pools []*sql.DB
	for i, url := range pool.Replicas.URLs {
		p, err := openPool(url, pool)
		if err != nil {
			for _, p := range pools {
				p.Close()
			}
			db.Close()
			return nil, fmt.Errorf("replica %d: %w", i+1, err)
		}
		pools = append(pools, p)
	}
	db.Replicate(sqldb.Replication{Replicas: pools, PrimaryPosition: primaryPosition, ReplayPosition: replayPosition,
		MaxLag: pool.Replicas.MaxLag, Failed: replicaFailed})
	return db, nil
}

// replicaFailed reports whether err, of a read on a replica, says the replica cannot serve it, so that the
// primary runs it: no answer or a refused connection (unreachable, connection lost, no such database yet), a
// connection fault, shutdown, too many connections, a conflict with recovery (40001), or a table, column or
// function it does not have yet (a migration the primary ran that the replica has not replayed: the engine reads
// only what its schema has). Other errors are the
// statement's own, which the primary would answer alike.
func replicaFailed(err error) bool {
	var connectErr *pgconn.ConnectError
	var pgErr *pgconn.PgError
	if errors.As(err, &connectErr) || !errors.As(err, &pgErr) {
		return true
	}
	switch code := pgErr.Code; {
	case code[:2] == "08", code[:2] == "57", code[:2] == "53", code == "40001",
		code == "42P01", code == "42703", code == "42704", code == "42883":
		return true
	}
	return false
}

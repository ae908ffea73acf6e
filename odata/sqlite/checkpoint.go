package sqlite

import (
	"context"
	"database/sql/driver"
	"sync"
	"time"
)

// checkpointInterval is how often the checkpointer moves the pages the WAL holds into the database file.
const checkpointInterval = 100 * time.Millisecond

// checkpointer moves committed pages from the WAL into the database file in the background, in place of
// SQLite's automatic checkpoints (PRAGMA wal_autocheckpoint=0 on every connection of the pool). An automatic
// checkpoint runs inside the COMMIT that crosses 1,000 pages, while that transaction still holds the write
// lock, so every write behind it waited for the copy and its fsync: a PASSIVE checkpoint on a connection of its
// own lets writers and readers go on meanwhile. It starts with the pool's first connection and stops when the
// pool is closed (database/sql closes the connector).
type checkpointer struct {
	dsn  string
	once sync.Once
	stop chan struct{}
	done chan struct{}
}

func newCheckpointer(dsn string) *checkpointer {
	return &checkpointer{dsn: dsn, stop: make(chan struct{}), done: make(chan struct{})}
}

// start starts the checkpoints once. A failure to open the checkpointer's connection leaves the database as it
// would be with no checkpoints: SQLite still checkpoints when the last connection closes.
func (c *checkpointer) start() {
	c.once.Do(func() {
		conn, err := sqliteDriver.Open(c.dsn)
		if err != nil {
			close(c.done)
			return
		}
		go c.run(conn)
	})
}

func (c *checkpointer) run(conn driver.Conn) {
	defer close(c.done)
	defer conn.Close()
	exec := conn.(driver.ExecerContext)
	tick := time.NewTicker(checkpointInterval)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
			_, _ = exec.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)", nil)
		}
	}
}

// close stops the checkpoints (after start or without it) and waits for the last one to end.
func (c *checkpointer) close() {
	c.once.Do(func() { close(c.done) }) // never started: nothing runs
	select {
	case <-c.stop:
	default:
		close(c.stop)
	}
	<-c.done
}

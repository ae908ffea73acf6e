// Package sqlite connects the engine to SQLite through github.com/mattn/go-sqlite3 (cgo): Open opens a database
// with the settings the engine relies on, and Dialect (dialect.go) is everything about SQLite's SQL that the
// engine and plug-ins need, as a sqldb.Dialect. Import it only where the program opens its database; the engine
// itself imports no driver.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/mattn/go-sqlite3"

	"github.com/storekit/store/odata/sqldb"
)

// DriverName is the database/sql driver Open uses: mattn/go-sqlite3 with the SQL functions and collations the
// engine's SQL needs registered on every connection: REGEXP, for the OData function matchesPattern, and the
// exact decimals of decimal.go (DecimalCollation and the odata_decimal functions).
const DriverName = "sqlite3_storekit"

// sqliteDriver is the driver registered as DriverName.
var sqliteDriver = &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
	if err := c.RegisterFunc("regexp", regexpMatch, true); err != nil {
		return err
	}
	return registerDecimals(c)
}}

func init() {
	sql.Register(DriverName, sqliteDriver)
}

// dsnConnector opens connections of the driver to one data source, as sql.Open does for a driver without a
// connector of its own.
type dsnConnector struct {
	dsn        string
	gate       *writeGate
	checkpoint *checkpointer
}

func (c *dsnConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := sqliteDriver.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	sc := conn.(*sqlite3.SQLiteConn)
	for _, pragma := range connectionPragmas {
		if _, err := sc.Exec(pragma, nil); err != nil {
			sc.Close()
			return nil, err
		}
	}
	c.checkpoint.start()
	return &gatedConn{SQLiteConn: sc, gate: c.gate}, nil
}

// connectionPragmas are the settings of each connection that the DSN cannot carry: no automatic checkpoints
// (checkpoint.go) and a page cache of DefaultCacheKiB.
var connectionPragmas = []string{
	"PRAGMA wal_autocheckpoint=0",
	"PRAGMA cache_size=-" + strconv.Itoa(DefaultCacheKiB),
}

func (c *dsnConnector) Driver() driver.Driver { return sqliteDriver }

// Close stops the background checkpoints (database/sql calls it on DB.Close).
func (c *dsnConnector) Close() error {
	c.checkpoint.close()
	return nil
}

// regexpMatch implements "s REGEXP pattern" (SQLite calls regexp(pattern, s)) with Go's regexp syntax. A NULL
// operand gives NULL.
func regexpMatch(pattern, s any) (any, error) {
	p, ok1 := text(pattern)
	v, ok2 := text(s)
	if !ok1 || !ok2 {
		return nil, nil
	}
	re, err := compiled(p)
	if err != nil {
		return nil, errors.New(regexpError + err.Error())
	}
	return re.MatchString(v), nil
}

func text(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		// The driver passes NULL as a nil []byte.
		return string(x), x != nil
	}
	return "", false
}

// patterns caches compiled patterns; it is emptied when it grows past maxPatterns.
var patterns struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}

const maxPatterns = 256

func compiled(p string) (*regexp.Regexp, error) {
	patterns.Lock()
	re, ok := patterns.m[p]
	patterns.Unlock()
	if ok {
		return re, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	patterns.Lock()
	if patterns.m == nil || len(patterns.m) >= maxPatterns {
		patterns.m = map[string]*regexp.Regexp{}
	}
	patterns.m[p] = re
	patterns.Unlock()
	return re, nil
}

// Open opens the SQLite database file at path with the settings the engine relies on: foreign keys on, a busy
// timeout, write transactions that take the write lock at BEGIN (so two writers never deadlock
// upgrading a read lock) and case-sensitive LIKE (OData string functions are case-sensitive), through DriverName
// (so REGEXP works), and a page cache of DefaultCacheKiB per connection. Each connection keeps its last
// 128 prepared statements: the engine's SQL text is the same for every request of a shape (values are arguments),
// so a repeated read is not parsed again. The pool keeps as many idle connections as it opens (DefaultPoolSize;
// change both with SetMaxOpenConns and SetMaxIdleConns): database/sql's default of 2 idle closed and reopened a
// connection, with its settings and statement cache, on up to a quarter of the requests of 16 concurrent clients.
// The transactions of every pool this process opens on one file queue in Go for SQLite's single write lock
// (writegate.go), so the next one begins the moment the last one ends rather than when its busy handler wakes up,
// and the WAL is checkpointed by a goroutine of the pool (checkpoint.go) rather than inside the commit that fills
// it. The connections are instrumented (sqldb.Instrument, system "sqlite"): a statement run under a context with a
// recording OpenTelemetry span is a child span of it. The result carries the pool and Dialect{} together.
//
// A new database (no file at path, or an empty one) is created in the WAL journal mode, which lets readers run
// beside the writer. An existing file keeps its journal mode: the mode is stored in the file, so switching it
// would change the file for every program that opens it (they would need the -wal and -shm files beside it),
// and Open writes nothing to a file the program was only pointed at. Pass SwitchToWAL to switch such a file.
func Open(path string, options ...Option) (*sqldb.DB, error) {
	if path == "" || strings.HasPrefix(path, ":memory:") {
		return nil, errors.New("sqlite: a file path is required (an in-memory database is empty on every pooled connection)")
	}
	q := url.Values{}
	q.Set("_fk", "1")
	q.Set("_busy_timeout", strconv.FormatInt(busyTimeout.Milliseconds(), 10))
	if switchToWAL(path, options) {
		q.Set("_journal_mode", "WAL")
	}
	q.Set("_txlock", "immediate")
	q.Set("_cslike", "1")
	q.Set("_synchronous", "NORMAL")
	q.Set("_stmt_cache_size", "128")
	dsn := "file:" + path + "?" + q.Encode()
	db := sql.OpenDB(sqldb.Instrument(&dsnConnector{dsn: dsn, gate: gateOf(path), checkpoint: newCheckpointer(dsn)},
		"sqlite", Dialect{}))
	db.SetMaxOpenConns(DefaultPoolSize)
	db.SetMaxIdleConns(DefaultPoolSize)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return sqldb.NewDB(db, Dialect{}), nil
}

// An Option changes how Open opens a database.
type Option func(*openOptions)

// openOptions are the choices the Options make.
type openOptions struct {
	wal bool
}

// SwitchToWAL makes Open switch an existing database file to the WAL journal mode, as it does a new one. The mode
// is kept in the file: every program that opens the file afterwards finds it in WAL. Use it for a file the
// program owns, for the concurrency of readers and the writer that WAL gives.
func SwitchToWAL() Option {
	return func(o *openOptions) { o.wal = true }
}

// switchToWAL reports whether Open sets the WAL journal mode: for a new database (no file at path, or an empty
// one) or when the options ask (SwitchToWAL). A file Open cannot stat is left as it is.
func switchToWAL(path string, options []Option) bool {
	var o openOptions
	for _, apply := range options {
		apply(&o)
	}
	if o.wal {
		return true
	}
	info, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist) || err == nil && info.Mode().IsRegular() && info.Size() == 0
}

// DefaultCacheKiB is the page cache of each connection (PRAGMA cache_size): 16 MiB, where SQLite's default is
// 2 MB, filled only with the pages read, so at most DefaultPoolSize x 16 MiB (256 MiB) for a database of that
// size or more. With 2 MB, smaller than one 5 MB index of a 100,000-product store, a $count or a deep $skip
// that steps over 50,000 index entries read most of its pages in again on every request (loadbench on that
// store: $count 970 req/s before, about 2,900 after; $orderby=Price desc&$skip=49900 420 before, 750-900
// after). A memory map of the file (PRAGMA mmap_size), which would share the pages between connections, made
// the same reads as fast but halved the rate of writes (product POSTs 1,300-1,400/s without, 780-790/s with),
// so it stays off.
const DefaultCacheKiB = 16 << 10

// DefaultPoolSize is the number of connections Open's pool opens and keeps idle: WAL lets that many readers run
// at once beside the one writer.
const DefaultPoolSize = 16

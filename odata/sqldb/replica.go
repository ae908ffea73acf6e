package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Replication describes the read replicas of a DB, for DB.Replicate; odata/postgres.Open fills it from its
// Pool.Replicas. A position is an int64 that grows with the database's log (PostgreSQL: the WAL position in
// bytes).
type Replication struct {
	// Replicas are the pools of the replicas, each a copy of the primary that replays its log.
	Replicas []*sql.DB
	// PrimaryPosition is the SQL that returns, on the primary, a position that includes every transaction
	// committed before it ran.
	PrimaryPosition string
	// ReplayPosition is the SQL that returns, on a replica, the position it has replayed up to.
	ReplayPosition string
	// MaxLag is how far behind the primary a replica may be and still serve reads (default 5 s).
	MaxLag time.Duration
	// CheckEvery is how often the replicas' positions are read (default MaxLag / 10, at least 100 ms).
	CheckEvery time.Duration
	// Failed reports whether err, an error of a statement on a replica, says the replica cannot serve it
	// (unreachable, shutting down, a conflict with its recovery): the statement then runs on the primary and the
	// replica is skipped until its next check succeeds.
	Failed func(err error) bool
}

// replicas is the routing state of a DB with read replicas.
type replicas struct {
	Replication
	primary *sql.DB
	list    []*replica
	next    atomic.Uint32 // round robin among the usable replicas
	stop    chan struct{}
	done    chan struct{}
	closed  sync.Once
}

// replica is one read replica and what its last check found.
type replica struct {
	pool   *sql.DB
	replay atomic.Int64 // the position it had replayed at the last check
	usable atomic.Bool  // answered the last check within MaxLag and failed no statement since
}

// sample is the primary's position at a time, for measuring the replicas' lag.
type sample struct {
	at  time.Time
	pos int64
}

// Replicated reports whether db has read replicas (Replicate): without them, marking reads (ForRead) and
// carrying sessions (WithSession) change nothing, and callers may skip them.
func (db *DB) Replicated() bool { return db.replicas != nil }

// Replicate adds read replicas to db and starts checking their positions in the background; Close stops that and
// closes their pools. Call it once, before db is used (the adapters' Open does). Then db's QueryContext and
// QueryRowContext run the statements of a context marked by ForRead on a replica when one is usable for it: it
// has replayed the position of the context's session (WithSession: the client's last commit) and lags the
// primary by less than MaxLag; otherwise, and when the replica fails the statement, on the primary.
// Transactions (BeginTx, RunTx), ExecContext and Conn always use the primary.
func (db *DB) Replicate(r Replication) {
	if len(r.Replicas) == 0 {
		return
	}
	if r.MaxLag <= 0 {
		r.MaxLag = 5 * time.Second
	}
	if r.CheckEvery <= 0 {
		r.CheckEvery = max(r.MaxLag/10, 100*time.Millisecond)
	}
	if r.Failed == nil {
		r.Failed = func(error) bool { return true }
	}
	rs := &replicas{Replication: r, primary: db.DB, stop: make(chan struct{}), done: make(chan struct{})}
	for _, pool := range r.Replicas {
		rs.list = append(rs.list, &replica{pool: pool})
	}
	db.replicas = rs
	var samples []sample
	rs.check(&samples)
	go rs.run(samples)
}

// run checks the replicas every CheckEvery until Close.
func (rs *replicas) run(samples []sample) {
	defer close(rs.done)
	tick := time.NewTicker(rs.CheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-rs.stop:
			return
		case <-tick.C:
			rs.check(&samples)
		}
	}
}

// check reads the primary's position, keeps it with the earlier ones of the last MaxLag, and marks each replica
// usable when it has replayed what the primary had written MaxLag ago (the oldest sample kept).
func (rs *replicas) check(samples *[]sample) {
	ctx, cancel := context.WithTimeout(context.Background(), max(rs.CheckEvery, time.Second))
	defer cancel()
	now := time.Now()
	var pos int64
	if err := rs.primary.QueryRowContext(ctx, rs.PrimaryPosition).Scan(&pos); err == nil {
		*samples = append(*samples, sample{now, pos})
	}
	// Keep the newest sample at least MaxLag old and those after it.
	s := *samples
	i := 0
	for i+1 < len(s) && now.Sub(s[i+1].at) >= rs.MaxLag {
		i++
	}
	*samples = append(s[:0], s[i:]...)
	var bound int64 // the position a replica must have replayed to lag by less than MaxLag
	if len(*samples) > 0 && now.Sub((*samples)[0].at) >= rs.MaxLag {
		bound = (*samples)[0].pos
	}
	for _, r := range rs.list {
		var replay int64
		err := r.pool.QueryRowContext(ctx, rs.ReplayPosition).Scan(&replay)
		if err != nil {
			r.usable.Store(false)
			continue
		}
		r.replay.Store(replay)
		r.usable.Store(replay >= bound)
	}
}

// pick returns the pool of a usable replica that has replayed need, or nil.
func (rs *replicas) pick(need int64) *replica {
	n := len(rs.list)
	start := int(rs.next.Add(1))
	for i := 0; i < n; i++ {
		r := rs.list[(start+i)%n]
		if r.usable.Load() && r.replay.Load() >= need {
			return r
		}
	}
	return nil
}

// close stops the checks and closes the replicas' pools.
func (rs *replicas) close() error {
	var errs []error
	rs.closed.Do(func() {
		close(rs.stop)
		<-rs.done
		for _, r := range rs.list {
			errs = append(errs, r.pool.Close())
		}
	})
	return errors.Join(errs...)
}

// reader returns the replica that runs the statements of ctx, or nil for the primary.
func (db *DB) reader(ctx context.Context) *replica {
	if db.replicas == nil || ctx.Value(forReadKey{}) == nil {
		return nil
	}
	var need int64
	if s, _ := ctx.Value(sessionKey{}).(*session); s != nil {
		need = s.need()
	}
	return db.replicas.pick(need)
}

// failed reports whether err of a statement on r means the primary runs it instead, and then skips r until its
// next check.
func (db *DB) failed(ctx context.Context, r *replica, err error) bool {
	if err == nil || ctx.Err() != nil || errors.Is(err, sql.ErrNoRows) || !db.replicas.Failed(err) {
		return false
	}
	r.usable.Store(false)
	return true
}

// QueryContext runs a query, as sql.DB.QueryContext does (db.DB.QueryContext is that one): on a replica when
// ctx is marked by ForRead and one is usable (see Replicate), on the primary otherwise.
func (db *DB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if r := db.reader(ctx); r != nil {
		rows, err := r.pool.QueryContext(ctx, query, args...)
		if !db.failed(ctx, r, err) {
			return rows, err
		}
	}
	return db.DB.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query that returns at most one row, as sql.DB.QueryRowContext does
// (db.DB.QueryRowContext is that one): on a replica when ctx is marked by ForRead and one is usable (see
// Replicate), on the primary otherwise.
func (db *DB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if r := db.reader(ctx); r != nil {
		row := r.pool.QueryRowContext(ctx, query, args...)
		if !db.failed(ctx, r, row.Err()) {
			return row
		}
	}
	return db.DB.QueryRowContext(ctx, query, args...)
}

// ExecContext runs a statement on the primary, as sql.DB.ExecContext does (db.DB.ExecContext is that one), and
// records the primary's position in ctx's session (WithSession) when db has replicas.
func (db *DB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := db.DB.ExecContext(ctx, query, args...)
	if err == nil {
		db.wrote(ctx)
	}
	return res, err
}

// Close closes the pool and those of the replicas, as sql.DB.Close does.
func (db *DB) Close() error {
	var err error
	if db.replicas != nil {
		err = db.replicas.close()
	}
	return errors.Join(db.DB.Close(), err)
}

// wrote records the primary's position after a commit in ctx's session, so that the client's next reads go to a
// replica only once it has replayed the commit. When the position cannot be read, the session's reads go to the
// primary for as long as a replica may lag.
func (db *DB) wrote(ctx context.Context) {
	s, _ := ctx.Value(sessionKey{}).(*session)
	if db.replicas == nil || s == nil {
		return
	}
	// The commit stands whatever becomes of the request: read the position even when it was cancelled since.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var pos int64
	if err := db.DB.QueryRowContext(ctx, db.replicas.PrimaryPosition).Scan(&pos); err != nil {
		pos = math.MaxInt64
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wrote = max(s.wrote, pos)
	s.keep = db.replicas.MaxLag + db.replicas.CheckEvery
}

type forReadKey struct{}

// ForRead marks ctx as the context of statements that write nothing, which a DB with read replicas may run on
// one of them (Replicate). The engine marks the reads of its requests that write nothing (not $batch, delta links,
// actions or functions); plug-ins may mark their own.
func ForRead(ctx context.Context) context.Context { return context.WithValue(ctx, forReadKey{}, true) }

type sessionKey struct{}

// session is what a client's requests carry between them for reading their own writes: the position of its
// last commit, which its reads need (from the client), and the position of this request's commits (for it).
type session struct {
	mu      sync.Mutex
	carried int64
	wrote   int64
	keep    time.Duration
}

func (s *session) need() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(s.carried, s.wrote)
}

// WithSession returns ctx with a session for reading one's own writes, which starts at token, the Token of an
// earlier request of the client ("" or a malformed token: none), and records the position of the commits made
// under it (RunTx, DB.ExecContext) when the DB has replicas. The reads under it go to a replica only once it has
// replayed the commits (both the earlier ones of the token and the request's own). When ctx has a session
// already, it is returned unchanged and fresh is false.
func WithSession(ctx context.Context, token string) (_ context.Context, fresh bool) {
	if ctx.Value(sessionKey{}) != nil {
		return ctx, false
	}
	s := &session{}
	if pos, err := strconv.ParseInt(token, 10, 64); err == nil && pos > 0 {
		s.carried = pos
	}
	return context.WithValue(ctx, sessionKey{}, s), true
}

// SessionToken returns the token the client is to send with its next requests (to WithSession), and how long it
// needs to keep it (after that every usable replica has replayed the commit): "" and 0 when nothing was committed
// under ctx's session on a DB with replicas.
func SessionToken(ctx context.Context) (token string, keep time.Duration) {
	s, _ := ctx.Value(sessionKey{}).(*session)
	if s == nil {
		return "", 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote == 0 {
		return "", 0
	}
	return strconv.FormatInt(s.wrote, 10), s.keep
}

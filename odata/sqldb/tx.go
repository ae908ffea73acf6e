package sqldb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// ErrBusy is the cause of RunTx's error when the database still asked for the transaction to run again after
// the last attempt: errors.Is(err, ErrBusy) tells that trying again later may succeed. odata answers it 503
// Service Unavailable with Retry-After (odata.AsError), for its own requests and for the plug-ins' alike.
var ErrBusy = errors.New("the database is busy")

// The retry policy of RunTx.
const (
	// txAttempts is how often RunTx runs a transaction at most.
	txAttempts = 5
	// txFirstPause is the pause before the second attempt; each later pause doubles it. Every pause is drawn
	// at random between half and one and a half times its length (jitter), so that transactions that
	// collided do not collide again in step.
	txFirstPause = 5 * time.Millisecond
)

// RunTx runs fn in a transaction of db and commits it. An error of fn, of BEGIN or of the commit rolls
// everything back (so does a panic of fn, which goes on) and is returned.
//
// The policy, the same for every caller: when the error says the whole transaction may run again
// (db.Dialect().ClassifyError(err) == ErrRetry: SQLite busy or locked, a PostgreSQL serialization failure or deadlock; or
// an error marked with Retry), RunTx runs it again, up to 5 attempts in all, after pauses of about 5, 10, 20
// and 40 ms (each drawn between half and one and a half times that), and stops waiting as soon as ctx is
// done. When the last attempt fails that way too, the error wraps ErrBusy and the last error. When the
// connection broke before the commit was sent (ClassifyError is ErrUnavailable: the database restarted, the
// session was terminated), nothing was written, and RunTx runs the transaction once more at once, on another
// connection (database/sql drops a broken one; see Instrument for BEGIN); a connection that breaks during the
// commit leaves its outcome unknown, so that one is not run again. An error the dialect classifies as
// ErrRetry (but past the attempts, which is ErrBusy), ErrUnavailable, ErrReadOnly or ErrFull is returned as a
// *Fault. fn must therefore be safe to run more than once: keep side effects outside the database out of it.
//
// RunTx uses the primary of a DB with read replicas, and after the commit records the primary's position in
// ctx's session (WithSession), so that the client's next reads wait for a replica that has it.
func RunTx(ctx context.Context, db *DB, fn func(tx *Tx) error) error {
	pause := txFirstPause
	reconnected := false
	for attempt := 1; ; attempt++ {
		committing, err := runOnce(ctx, db, fn)
		if err == nil {
			return nil
		}
		if !committing && !reconnected && ctx.Err() == nil && db.dialect.ClassifyError(err) == ErrUnavailable {
			reconnected = true
			attempt--
			continue
		}
		if !retryable(db.dialect, err) {
			return markFault(db.dialect, err)
		}
		if attempt == txAttempts || ctx.Err() != nil {
			return fmt.Errorf("%w: %w", ErrBusy, err)
		}
		timer := time.NewTimer(pause/2 + rand.N(pause))
		select {
		case <-ctx.Done():
			timer.Stop()
			return fmt.Errorf("%w: %w", ErrBusy, err)
		case <-timer.C:
		}
		pause *= 2
	}
}

// runOnce runs fn in one transaction; committing reports whether the error is the commit's.
func runOnce(ctx context.Context, db *DB, fn func(tx *Tx) error) (committing bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	// After a commit the rollback does nothing; after an error or a panic of fn it ends the transaction.
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return true, err
	}
	db.wrote(ctx)
	return true, nil
}

// Retry marks err as a conflict after which the whole transaction may run again, for RunTx: for a failure the
// caller knows a new attempt settles, such as the unique violation of a row that a concurrent transaction
// inserted first, which the next attempt finds. The result wraps err.
func Retry(err error) error { return &retryError{err} }

type retryError struct{ err error }

func (e *retryError) Error() string { return e.err.Error() }
func (e *retryError) Unwrap() error { return e.err }

func retryable(d Dialect, err error) bool {
	var marked *retryError
	return errors.As(err, &marked) || d.ClassifyError(err) == ErrRetry
}

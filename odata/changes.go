package odata

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/sqldb"
)

// ChangeTrackingOptions configures the log of changes behind delta links (OData 4.01 part 1, 11.3): the sets with
// SetOptions.TrackChanges answer Prefer: odata.track-changes with a delta link, and a GET of a delta link answers
// the entities added, changed and removed since the link was issued.
//
// The changes are kept in a table of the service's database (created when the service starts if it does not
// exist), written in the transaction of every write of a tracked set, so that every node of a deployment on one
// database serves the delta links any node issued, and a change commits or rolls back with the write. A row names
// the set and the key of an entity that was created, changed or deleted, at a position in the log (a sequence the
// database generates); a delta link names a position. To keep transactions that commit out of order from slipping
// below a position already handed out, a write takes the log's lock (Dialect.TransactionLock; SQLite's write
// transactions already run one at a time) just before it commits and appends its rows under it: positions are
// then in commit order. See odata/DESIGN.md, "Change tracking".
type ChangeTrackingOptions struct {
	// Table names the table of the log: DefaultChangeTable when empty.
	Table string
	// Keep is how long a change stays in the log, and so how long a delta link stays valid (DefaultChangeKeep,
	// 7 days, when zero); an older delta link answers 410 Gone with the URL of a full read in Location.
	Keep time.Duration
}

// Defaults of ChangeTrackingOptions.
const (
	DefaultChangeTable = "odata_changes"
	DefaultChangeKeep  = 7 * 24 * time.Hour
)

// changePruneMargin is how much longer than Keep the rows of the log are kept: clocks of server nodes may differ
// by less than that without a delta link that is still valid missing a change.
const changePruneMargin = time.Hour

// changePruneEvery is how often a node deletes the rows of the log kept past their time (in the transaction of
// a write that appends rows).
const changePruneEvery = 10 * time.Minute

// changeLog is the log of changes of the tracked entity sets.
type changeLog struct {
	db      *sqldb.DB
	table   string // quoted
	lockKey int64  // the advisory lock appends are serialized by, from the table's name
	keep    time.Duration
	// tracked holds the tracked sets by their entity type (a tracked set is the only set of its type: the Tx
	// helpers write types); an entity of a derived type belongs to the sets of its base types too.
	tracked map[*edm.EntityType]*edm.EntitySet
	// lastPrune is when this node last deleted old rows (Unix milliseconds).
	lastPrune atomic.Int64
}

// newChangeLog returns the log of s's tracked sets, nil when no set tracks changes; it creates the table when the
// database lacks it.
func newChangeLog(s *Service, opts ChangeTrackingOptions) (*changeLog, error) {
	tracked := map[*edm.EntityType]*edm.EntitySet{}
	for es, config := range s.sets {
		if config.TrackChanges {
			tracked[es.EntityType()] = es
		}
	}
	if len(tracked) == 0 {
		return nil, nil
	}
	name := opts.Table
	if name == "" {
		name = DefaultChangeTable
	}
	d := s.db.Dialect()
	c := &changeLog{db: s.db, table: d.QuoteIdent(name), keep: opts.Keep, tracked: tracked}
	if c.keep <= 0 {
		c.keep = DefaultChangeKeep
	}
	h := fnv.New64a()
	h.Write([]byte("odata change log " + name))
	c.lockKey = int64(h.Sum64() >> 1)
	ddl := []string{
		"CREATE TABLE IF NOT EXISTS " + c.table + " (seq " + d.GeneratedKey(edm.KindInt64) + ", " +
			"set_name " + d.ColumnType(edm.KindString, 0, 0) + " NOT NULL, " +
			"entity_key " + d.ColumnType(edm.KindString, 0, 0) + " NOT NULL, " +
			"changed_at " + d.ColumnType(edm.KindInt64, 0, 0) + " NOT NULL)" + d.TableOptions(),
		"CREATE INDEX IF NOT EXISTS " + d.QuoteIdent(name+"_set_name_seq_idx") + " ON " + c.table + " (set_name, seq)",
		"CREATE INDEX IF NOT EXISTS " + d.QuoteIdent(name+"_changed_at_idx") + " ON " + c.table + " (changed_at)",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, stmt := range ddl {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("odata: creating the change log %s: %w", name, err)
		}
	}
	return c, nil
}

// trackedChanges collects the entities of tracked sets a transaction changes, for the delta change log, each
// once (not to be confused with a batch's change sets).
type trackedChanges struct {
	seen    map[changeRef]bool
	changes []changeRef
}

// changeRef is one entity of a tracked set: the set's name and the key as formatKey writes it ("('k')").
type changeRef struct {
	set, key string
}

// add notes a change of the entity of et with the given key values for each tracked set it belongs to: the set of
// its type or of a type it derives from.
func (c *changeLog) add(set *trackedChanges, et *edm.EntityType, key []any) {
	if set == nil {
		return
	}
	for t := et; t != nil; t = t.Base() {
		es := c.tracked[t]
		if es == nil {
			continue
		}
		ref := changeRef{set: es.Name, key: formatKey(t, key)}
		if set.seen[ref] {
			continue
		}
		if set.seen == nil {
			set.seen = map[changeRef]bool{}
		}
		set.seen[ref] = true
		set.changes = append(set.changes, ref)
	}
}

// record notes the change of the entity of et with the given key values in tx, when the service tracks its set.
func (tx *Tx) record(et *edm.EntityType, key []any) {
	if tx.svc != nil && tx.svc.changes != nil {
		tx.svc.changes.add(tx.changes, et, key)
	}
}

// recordReferrers notes, before the entity of et that sub selects is deleted, the entities of tracked sets that
// refer to it by a foreign key: the database's ON DELETE SET NULL or CASCADE changes or deletes them (see
// odata/schema), which no write of theirs tells. sub returns the SELECT of the given columns of that entity.
func (tx *Tx) recordReferrers(ctx context.Context, et *edm.EntityType, sub func(cols []string) sq.SelectBuilder) error {
	if tx.changes == nil || tx.svc == nil || tx.svc.changes == nil {
		return nil
	}
	done := map[string]bool{}
	for other := range tx.svc.changes.tracked {
		for _, ref := range foreignKeys(other, et) {
			id := other.Name + "(" + strings.Join(ref.from, ",") + ")"
			if done[id] {
				continue
			}
			done[id] = true
			if err := tx.recordWhere(ctx, other, modelsql.TupleIn(tx.names(), other.Table, ref.from, sub(ref.to))); err != nil {
				return err
			}
		}
	}
	return nil
}

// foreignKey is a foreign key of one entity type's table to another's: its columns and those they refer to.
type foreignKey struct{ from, to []string }

// foreignKeys returns the foreign keys of the table of from (its hierarchy's) to the table of to, by the direct
// navigations between the two hierarchies in either direction (declared on from or a type derived from it; declared
// on to, inherited ones included; to a type of the other's hierarchy line): the side whose join columns are not its
// key holds the foreign key. Containments are left out (their entities have no set).
func foreignKeys(from, to *edm.EntityType) []foreignKey {
	var out []foreignKey
	isKey := func(cols []string) bool { return slices.Equal(cols, modelsql.KeyColumns(from)) }
	related := func(a, b *edm.EntityType) bool { return a.IsA(b) || b.IsA(a) }
	for _, u := range append([]*edm.EntityType{from}, from.DerivedTypes()...) {
		for _, n := range u.Navigations {
			if j := n.Join; j.Through == nil && !n.ContainsTarget && related(n.TargetType(), to) && !isKey(j.SourceColumns) {
				out = append(out, foreignKey{from: j.SourceColumns, to: j.TargetColumns})
			}
		}
	}
	for _, n := range to.Navigations {
		if j := n.Join; j.Through == nil && !n.ContainsTarget && related(n.TargetType(), from) && !isKey(j.TargetColumns) {
			out = append(out, foreignKey{from: j.TargetColumns, to: j.SourceColumns})
		}
	}
	return out
}

// recordWhere notes the change of every entity of et that where (on the table's own name) selects.
func (tx *Tx) recordWhere(ctx context.Context, et *edm.EntityType, where sq.Sqlizer) error {
	names := tx.names()
	keys := et.KeyProperties()
	rows, err := tx.Builder().Select(modelsql.Columns(names, et.Table, modelsql.KeyColumns(et))...).
		From(names.QuoteIdent(et.Table)).Where(where).QueryContext(ctx)
	if err != nil {
		return err
	}
	defer rows.Close()
	stored := make([]any, len(keys))
	ptrs := make([]any, len(keys))
	for i := range stored {
		ptrs[i] = &stored[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		key := make([]any, len(keys))
		for i, p := range keys {
			if key[i], err = sqldb.Scan(p, stored[i]); err != nil {
				return err
			}
		}
		tx.record(et, key)
	}
	return rows.Err()
}

// flush appends the changes of set to the log in tx, the transaction that made them, just before it commits: it
// takes the log's lock first, so that the positions of the rows follow the order of the commits, and deletes the
// rows kept past their time when this node has not done so for a while.
func (c *changeLog) flush(ctx context.Context, tx *sqldb.Tx, set *trackedChanges) error {
	if c == nil || set == nil || len(set.changes) == 0 {
		return nil
	}
	if lock := c.db.Dialect().TransactionLock(); lock != "" {
		if _, err := tx.ExecContext(ctx, lock, c.lockKey); err != nil {
			return fmt.Errorf("odata: change log lock: %w", err)
		}
	}
	now := time.Now()
	builder := sqldb.Builder(c.db.Dialect()).RunWith(tx)
	// One statement per 200 rows keeps the number of bound parameters far below both databases' limits.
	for start := 0; start < len(set.changes); start += 200 {
		q := builder.Insert(c.table).Columns("set_name", "entity_key", "changed_at")
		for _, ref := range set.changes[start:min(start+200, len(set.changes))] {
			q = q.Values(ref.set, ref.key, now.UnixMilli())
		}
		if _, err := q.ExecContext(ctx); err != nil {
			return fmt.Errorf("odata: change log: %w", err)
		}
	}
	if last := c.lastPrune.Load(); now.UnixMilli()-last >= changePruneEvery.Milliseconds() && c.lastPrune.CompareAndSwap(last, now.UnixMilli()) {
		cutoff := now.Add(-c.keep - changePruneMargin).UnixMilli()
		if _, err := builder.Delete(c.table).Where(sq.Lt{"changed_at": cutoff}).ExecContext(ctx); err != nil {
			return fmt.Errorf("odata: change log: %w", err)
		}
	}
	return nil
}

// position returns the position of the last change in the log, 0 when it is empty: every change a transaction
// committed before the call is at or below it, and every later one above it (flush).
func (c *changeLog) position(ctx context.Context) (int64, error) {
	var seq int64
	err := sqldb.Builder(c.db.Dialect()).RunWith(c.db).Select("COALESCE(MAX(seq), 0)").From(c.table).
		QueryRowContext(ctx).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("odata: change log: %w", err)
	}
	return seq, nil
}

// changedKeys returns the keys of the entities of set changed after the position from and up to to, in order of
// their text after the key after (none: from the first), at most size of them, and whether more follow.
func (c *changeLog) changedKeys(ctx context.Context, set string, from, to int64, after string, size int) ([]string, bool, error) {
	where := sq.And{sq.Eq{"set_name": set}, sq.Gt{"seq": from}, sq.LtOrEq{"seq": to}}
	if after != "" {
		where = append(where, sq.Gt{"entity_key": after})
	}
	rows, err := sqldb.Builder(c.db.Dialect()).RunWith(c.db).Select("entity_key").From(c.table).Where(where).
		GroupBy("entity_key").OrderBy("entity_key").Limit(uint64(size) + 1).QueryContext(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("odata: change log: %w", err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var key string
		if err := rows.Scan(&key); err != nil {
			return nil, false, fmt.Errorf("odata: change log: %w", err)
		}
		keys = append(keys, key)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("odata: change log: %w", err)
	}
	if len(keys) > size {
		return keys[:size], true, nil
	}
	return keys, false, nil
}

// The kinds of delta tokens.
const (
	tokenDelta   = "d" // a delta link: the changes after From, of the defining query Query
	tokenNext    = "n" // the next page of a delta answer: the changes after From up to To, keys after After
	tokenInitial = "i" // the next page of a read that tracks changes: its delta link will start at From
)

// deltaToken is the state a $deltatoken carries: base64url (no padding) of a JSON array [1, kind, set, query,
// from, fromAt, to, toAt, after]. It holds no secret: a client that changes it gets at most the changes of a query
// it could send itself, and a value out of shape is a 400.
type deltaToken struct {
	Kind  string
	Set   string // the entity set's name
	Query string // the defining query: the raw query of the first read without paging and format options
	From  int64  // the position in the change log the changes are after
	// FromAt is when the position From was read (Unix milliseconds): past ChangeTrackingOptions.Keep the log may
	// have lost changes after it, and the token is gone (410).
	FromAt int64
	To     int64  // tokenNext: the position the changes are up to
	ToAt   int64  // tokenNext: when To was read, the FromAt of the delta link of the last page
	After  string // tokenNext: the last key of the previous page
}

// deltaTokenVersion is the first element of every token's array.
const deltaTokenVersion = 1

// encode returns the token's text.
func (t *deltaToken) encode() string {
	b, _ := json.Marshal([]any{deltaTokenVersion, t.Kind, t.Set, t.Query, t.From, t.FromAt, t.To, t.ToAt, t.After})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeDeltaToken reads the text of a $deltatoken; a text this service did not issue is a 400.
func decodeDeltaToken(text string) (*deltaToken, error) {
	bad := BadRequest(CodeInvalidValue, "$deltatoken", "The $deltatoken is not one this service issued.")
	raw, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil {
		return nil, bad
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) != 9 {
		return nil, bad
	}
	var version int
	t := &deltaToken{}
	for i, dst := range []any{&version, &t.Kind, &t.Set, &t.Query, &t.From, &t.FromAt, &t.To, &t.ToAt, &t.After} {
		if err := json.Unmarshal(parts[i], dst); err != nil {
			return nil, bad
		}
	}
	switch {
	case version != deltaTokenVersion, t.From < 0, t.FromAt <= 0, t.Set == "",
		t.Kind != tokenDelta && t.Kind != tokenNext && t.Kind != tokenInitial,
		t.Kind == tokenNext && (t.To < t.From || t.ToAt <= 0 || t.After == ""):
		return nil, bad
	}
	return t, nil
}

package odata

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
	"github.com/storekit/store/odata/sqldb"
)

// ErrNotFound is the cause of the 404 errors the Tx helpers return for a missing entity:
// errors.Is(err, odata.ErrNotFound) tells a missing row from other failures.
var ErrNotFound = errors.New("odata: entity not found")

// entityNotFound is the 404 for a missing entity of type et, wrapping ErrNotFound.
func entityNotFound(et *edm.EntityType) *Error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf("The %s does not exist.", et.Name), Err: ErrNotFound}
}

// Tx is the transaction of one write request (or action), with what plug-ins need to run their own SQL in it:
// the database's transaction with its dialect (the embedded *sqldb.Tx: tx.ExecContext, tx.Dialect(), ...), the
// model and helpers that read and write whole entities by the model (columns, complex members,
// side tables of collections and the storage conversions of odata/DESIGN.md).
//
// The helpers work on the stored form only: they do not apply defaults, run hooks or check MaxLength and
// Required; the Service does that for requests before it calls them.
//
// Plug-ins write their own SQL with github.com/Masterminds/squirrel, the engine's query builder, or as
// sqldb.Statement values: Builder returns a squirrel builder and Query takes a squirrel condition. That is the
// one place the engine's API hands out squirrel types, on purpose; values go in as arguments (sqldb.Arg and
// friends convert them), identifiers come from the model.
type Tx struct {
	*sqldb.Tx
	Model *edm.Model

	svc     *Service
	changes *trackedChanges // the changes of tracked sets, for the change log (changes.go); nil outside a Service's writes
}

// names quotes identifiers for the helpers: from the Service's quoted names of the model, or with the Dialect
// for a Tx made outside a Service.
func (tx *Tx) names() modelsql.Quoter {
	if tx.svc != nil {
		return tx.svc.names
	}
	return tx.Dialect()
}

// Builder returns a squirrel statement builder with the dialect's placeholders that runs its statements in the
// transaction.
func (tx *Tx) Builder() sq.StatementBuilderType {
	return sqldb.Builder(tx.Dialect()).RunWith(tx.Tx)
}

// Get reads the entity of type et with the given key values (in key order), with every property that is not
// lazy. A key of a type whose entity set has SetOptions.CaseInsensitiveKey matches without regard to case. A
// missing entity is a 404 *Error wrapping ErrNotFound.
func (tx *Tx) Get(ctx context.Context, et *edm.EntityType, key ...any) (Entity, error) {
	for _, k := range key {
		if s, ok := k.(string); ok && strings.IndexByte(s, 0) >= 0 {
			// No column holds the NUL character (PostgreSQL refuses it as an argument): no entity has the key.
			return nil, entityNotFound(et)
		}
	}
	where, err := keyWhere(tx.Dialect(), tx.names(), et, key, tx.svc.foldKey(et))
	if err != nil {
		return nil, err
	}
	return tx.getWhere(ctx, et, where, false)
}

// getWhere reads the one entity of et matching where (on the table's own name), locking its row until the
// transaction ends when forUpdate (Dialect.LockForUpdate).
func (tx *Tx) getWhere(ctx context.Context, et *edm.EntityType, where sq.Sqlizer, forUpdate bool) (Entity, error) {
	l := tx.svc.defaultLayout(et)
	b := selectFrom(tx.Dialect(), tx.names(), l).Where(where).Limit(1)
	if et.Base() != nil {
		b = b.Where(typeWhere(tx.names(), tx.Model.Namespace, et)) // a derived type: its rows only
	}
	if lock := tx.Dialect().LockForUpdate(); forUpdate && lock != "" {
		b = b.Suffix(strings.TrimPrefix(lock, " "))
	}
	list, err := tx.queryLayout(ctx, l, b)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, entityNotFound(et)
	}
	return list[0], nil
}

// Query reads the entities of type et that match where (nil: all), ordered by the SQL expressions orderBy (by
// key when none is given). Columns in where and orderBy may be written bare or qualified by the quoted table
// name; they come from code, never from a request.
func (tx *Tx) Query(ctx context.Context, et *edm.EntityType, where sq.Sqlizer, orderBy ...string) ([]Entity, error) {
	l := tx.svc.defaultLayout(et)
	b := selectFrom(tx.Dialect(), tx.names(), l)
	if where != nil {
		b = b.Where(where)
	}
	if et.Base() != nil {
		b = b.Where(typeWhere(tx.names(), tx.Model.Namespace, et)) // a derived type: its rows only
	}
	if len(orderBy) == 0 {
		orderBy = modelsql.Columns(tx.names(), et.Table, modelsql.KeyColumns(et))
	}
	return tx.queryLayout(ctx, l, b.OrderBy(orderBy...))
}

func (tx *Tx) queryLayout(ctx context.Context, l *layout, b sq.SelectBuilder) ([]Entity, error) {
	query, args, err := b.PlaceholderFormat(tx.Dialect().Placeholder()).ToSql()
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	writer := newRowWriter(l)
	var out []Entity
	for rows.Next() {
		if err := rows.Scan(writer.pointers...); err != nil {
			return nil, err
		}
		e, err := writer.entity()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// selectFrom starts the SELECT of a layout's columns from its type's table, which keeps its own name as alias.
func selectFrom(d sqldb.Dialect, q modelsql.Quoter, l *layout) sq.SelectBuilder {
	return sq.Select(modelsql.Select(d, q, l.typ.Table, l.cols)...).From(q.QuoteIdent(l.typ.Table))
}

// keyWhere is the condition that selects the entity of et with the given key values on the table's own name;
// fold compares a string key without regard to case (modelsql.Equals).
func keyWhere(d sqldb.Dialect, q modelsql.Quoter, et *edm.EntityType, key []any, fold bool) (sq.Sqlizer, error) {
	props := et.KeyProperties()
	if len(key) != len(props) {
		return nil, fmt.Errorf("odata: %s has %d key properties, got %d values", et.Name, len(props), len(key))
	}
	and := make(sq.And, len(props))
	for i, p := range props {
		w, err := propWhere(d, q, et, p, key[i], fold)
		if err != nil {
			return nil, err
		}
		and[i] = w
	}
	return and, nil
}

// propWhere is the condition that the column of p on the table of et (by its own name) equals v, folded as
// keyWhere's when fold.
func propWhere(d sqldb.Dialect, q modelsql.Quoter, et *edm.EntityType, p *edm.Property, v any, fold bool) (sq.Sqlizer, error) {
	arg, err := sqldb.Arg(d, p, normalize(p, v))
	if err != nil {
		return nil, err
	}
	return modelsql.PropertyEquals(d, q, p, et.Table, arg, fold), nil
}

// normalize converts the loose Go values plug-in code tends to write (int, int32, float32, an enum member
// name) to the canonical ones; other values are returned as they are.
func normalize(p *edm.Property, v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case float32:
		return float64(x)
	case string:
		if p.Enum != nil {
			if n, err := p.Enum.Parse(x); err == nil {
				return n
			}
		}
	}
	return v
}

// Insert stores e as a new entity of type et: the columns of the properties present in e (a complex property
// fills all its member columns) and the side table rows of its collections. Absent properties take the
// column's database default. Properties computed by SQL are ignored. A key the database generates
// (edm.Property.Generated) that e leaves out (or holds nil) is read back into e.
func (tx *Tx) Insert(ctx context.Context, et *edm.EntityType, e Entity) error {
	var cols []string
	var vals []any
	for _, p := range et.Properties {
		v, ok := e[p.Name]
		if !ok || p.SQL != "" || p.Collection || p.Generated && v == nil {
			continue
		}
		c, a, err := columnArgs(tx.Dialect(), tx.names(), p, v)
		if err != nil {
			return err
		}
		cols = append(cols, c...)
		vals = append(vals, a...)
	}
	if rv := et.RowVersion(); rv != nil {
		// A random first version: a row deleted and created again under its key does not get an ETag back
		// that a client may hold from before.
		cols = append(cols, tx.names().QuoteIdent(rv.Column))
		vals = append(vals, firstRowVersion())
	}
	if column := et.Discriminator(); column != "" {
		// A row of a hierarchy's table says its type.
		cols = append(cols, tx.names().QuoteIdent(column))
		vals = append(vals, tx.Model.Namespace+"."+et.Name)
	}
	if err := tx.insertRow(ctx, et, cols, vals, e); err != nil {
		return err
	}
	key, err := entityKey(et, e)
	if err != nil {
		return err
	}
	tx.record(et, key)
	for _, p := range et.Properties {
		if v, ok := e[p.Name]; ok && p.Collection {
			if err := tx.insertItems(ctx, et, p, key, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// insertRow inserts the row of e, an entity of type et, with the columns cols and their arguments vals. The
// generated key e lacks is returned by the insert (Dialect.Returning) and stored in e.
func (tx *Tx) insertRow(ctx context.Context, et *edm.EntityType, cols []string, vals []any, e Entity) error {
	table := tx.names().QuoteIdent(et.Table)
	var generated *edm.Property
	if k := et.KeyProperties(); len(k) == 1 && k[0].Generated && e[k[0].Name] == nil {
		generated = k[0]
	}
	if generated == nil {
		if len(cols) == 0 {
			return fmt.Errorf("odata: %s: the entity has no values to insert", et.Name)
		}
		return tx.exec(ctx, sqldb.Builder(tx.Dialect()).Insert(table).Columns(cols...).Values(vals...))
	}
	returning := tx.Dialect().Returning(generated.Column)
	query, args := "INSERT INTO "+table+" DEFAULT VALUES "+returning, []any(nil)
	if len(cols) > 0 {
		var err error
		query, args, err = sqldb.Builder(tx.Dialect()).Insert(table).Columns(cols...).Values(vals...).Suffix(returning).ToSql()
		if err != nil {
			return err
		}
	}
	var stored any
	if err := tx.QueryRowContext(ctx, query, args...).Scan(&stored); err != nil {
		return err
	}
	v, err := sqldb.Scan(generated, stored)
	if err != nil {
		return err
	}
	e[generated.Name] = v
	return nil
}

// Update stores the properties present in e on the existing entity of type et whose key e holds: their
// columns, and for collections the side table rows (replaced). Key properties are not changed. A missing
// entity is a 404 *Error wrapping ErrNotFound.
func (tx *Tx) Update(ctx context.Context, et *edm.EntityType, e Entity) error {
	key, err := entityKey(et, e)
	if err != nil {
		return err
	}
	names := tx.names()
	table := names.QuoteIdent(et.Table)
	where, err := keyWhere(tx.Dialect(), names, et, key, false)
	if err != nil {
		return err
	}
	q := sqldb.Builder(tx.Dialect()).Update(table).Where(where)
	n := 0
	for _, p := range et.Properties {
		v, ok := e[p.Name]
		if !ok || p.SQL != "" || p.Collection || p.IsKey() {
			continue
		}
		cols, args, err := columnArgs(tx.Dialect(), names, p, v)
		if err != nil {
			return err
		}
		for i, c := range cols {
			q = q.Set(c, args[i])
			n++
		}
	}
	if rv := et.RowVersion(); rv != nil {
		q = bumpRowVersion(names, et, q)
		n++
	}
	if n == 0 {
		k := et.KeyProperties()[0]
		q = q.Set(names.QuoteIdent(k.Column), sq.Expr(modelsql.Column(names, et.Table, k.Column)))
	}
	if err := tx.execOne(ctx, et, q); err != nil {
		return err
	}
	tx.record(et, key)
	for _, p := range et.Properties {
		v, ok := e[p.Name]
		if !ok || !p.Collection {
			continue
		}
		if err := tx.deleteItems(ctx, et, p, key); err != nil {
			return err
		}
		if err := tx.insertItems(ctx, et, p, key, v); err != nil {
			return err
		}
	}
	return nil
}

// Delete removes the entity of type et with the given key values: the rows of its collections, the link rows
// of its many-to-many navigations (in both directions), the entities it contains, and its own row. A missing
// entity is a 404 *Error wrapping ErrNotFound.
func (tx *Tx) Delete(ctx context.Context, et *edm.EntityType, key ...any) error {
	d := tx.Dialect()
	names := tx.names()
	table := names.QuoteIdent(et.Table)
	where, err := keyWhere(d, names, et, key, false)
	if err != nil {
		return err
	}
	for _, p := range et.Properties {
		if p.Collection {
			if err := tx.deleteItems(ctx, et, p, key); err != nil {
				return err
			}
		}
	}
	// Rows that refer to the entity: link rows and contained entities, matched through the columns the joins
	// name (which need not be the key).
	sub := func(cols []string) sq.SelectBuilder {
		return sq.Select(modelsql.Columns(names, et.Table, cols)...).From(table).Where(where)
	}
	if err := tx.recordReferrers(ctx, et, sub); err != nil {
		return err
	}
	done := map[string]bool{}
	for _, other := range tx.Model.EntityTypes {
		for _, n := range other.Navigations {
			j := n.Join
			if j.Through != nil {
				if other == et {
					if err := tx.deleteRefs(ctx, j.Through.Table, j.Through.SourceColumns, sub(j.SourceColumns), done); err != nil {
						return err
					}
				}
				if n.TargetType() == et {
					if err := tx.deleteRefs(ctx, j.Through.Table, j.Through.TargetColumns, sub(j.TargetColumns), done); err != nil {
						return err
					}
				}
				continue
			}
			if n.ContainsTarget && other == et {
				if err := tx.deleteContained(ctx, n, sub(j.SourceColumns)); err != nil {
					return err
				}
			}
		}
	}
	if err := tx.execOne(ctx, et, sqldb.Builder(d).Delete(table).Where(where)); err != nil {
		return err
	}
	tx.record(et, key)
	return nil
}

// deleteRefs deletes the rows of table whose cols are in the subquery's rows (once per table and columns).
func (tx *Tx) deleteRefs(ctx context.Context, table string, cols []string, in sq.SelectBuilder, done map[string]bool) error {
	id := table + "(" + strings.Join(cols, ",") + ")"
	if done[id] {
		return nil
	}
	done[id] = true
	d := tx.Dialect()
	names := tx.names()
	return tx.exec(ctx, sqldb.Builder(d).Delete(names.QuoteIdent(table)).Where(modelsql.TupleIn(names, "", cols, in)))
}

// deleteContained deletes the entities a containment navigation leads to, with their collections.
func (tx *Tx) deleteContained(ctx context.Context, n *edm.NavigationProperty, sourceIn sq.SelectBuilder) error {
	d := tx.Dialect()
	target := n.TargetType()
	names := tx.names()
	table := names.QuoteIdent(target.Table)
	cond := modelsql.TupleIn(names, target.Table, n.Join.TargetColumns, sourceIn)
	for _, p := range target.Properties {
		if !p.Collection {
			continue
		}
		ct := p.CollectionTable
		src := sq.Select(modelsql.Columns(names, target.Table, ct.SourceColumns)...).From(table).Where(cond)
		if err := tx.exec(ctx, sqldb.Builder(d).Delete(names.QuoteIdent(ct.Table)).
			Where(modelsql.TupleIn(names, "", ct.OwnerColumns, src))); err != nil {
			return err
		}
	}
	return tx.exec(ctx, sqldb.Builder(d).Delete(table).Where(cond))
}

func (tx *Tx) exec(ctx context.Context, q interface {
	ToSql() (string, []any, error)
}) error {
	query, args, err := q.ToSql()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, query, args...)
	return err
}

// execOne runs q, an UPDATE or DELETE of one entity of et; a statement that matches no row is a 404 *Error
// wrapping ErrNotFound.
func (tx *Tx) execOne(ctx context.Context, et *edm.EntityType, q interface {
	ToSql() (string, []any, error)
}) error {
	query, args, err := q.ToSql()
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return err
	}
	if affected, err := res.RowsAffected(); err == nil && affected == 0 {
		return entityNotFound(et)
	}
	return nil
}

// columnArgs returns the columns and arguments that store v, the value of property p (one column, or one per
// member of a complex property).
func columnArgs(d sqldb.Dialect, q modelsql.Quoter, p *edm.Property, v any) ([]string, []any, error) {
	if p.Complex == nil {
		arg, err := sqldb.Arg(d, p, normalize(p, v))
		if err != nil {
			return nil, nil, err
		}
		return []string{q.QuoteIdent(p.Column)}, []any{arg}, nil
	}
	var m map[string]any
	if v != nil {
		var ok bool
		if m, ok = asMap(v); !ok {
			return nil, nil, fmt.Errorf("odata: property %s: a complex value must be a map[string]any, not %T", p.Name, v)
		}
	}
	var cols []string
	var args []any
	for _, mp := range p.Properties() {
		c, a, err := columnArgs(d, q, mp, m[mp.Name])
		if err != nil {
			return nil, nil, err
		}
		cols = append(cols, c...)
		args = append(args, a...)
	}
	return cols, args, nil
}

// entityKey returns e's key values in key order.
func entityKey(et *edm.EntityType, e Entity) ([]any, error) {
	props := et.KeyProperties()
	key := make([]any, len(props))
	for i, p := range props {
		v, ok := e[p.Name]
		if !ok || v == nil {
			return nil, fmt.Errorf("odata: %s: the entity has no value for the key property %s", et.Name, p.Name)
		}
		key[i] = normalize(p, v)
	}
	return key, nil
}

// sideIsKey reports whether the side table of ct refers to the key columns of et (the default).
func sideIsKey(et *edm.EntityType, ct *edm.CollectionTable) bool {
	keys := et.KeyProperties()
	if len(keys) != len(ct.SourceColumns) {
		return false
	}
	for i, k := range keys {
		if k.Column != ct.SourceColumns[i] || k.SQL != "" {
			return false
		}
	}
	return true
}

// ownerWhere is the condition on the side table of ct that selects the rows of the entity of et with the given
// key: its owner columns equal the key, or the entity's source columns read in a subquery.
func ownerWhere(d sqldb.Dialect, q modelsql.Quoter, et *edm.EntityType, ct *edm.CollectionTable, key []any) (sq.Sqlizer, error) {
	if sideIsKey(et, ct) {
		args, err := keyArgs(d, et, key)
		if err != nil {
			return nil, err
		}
		and := make(sq.And, len(args))
		for i, arg := range args {
			and[i] = sq.Expr(modelsql.Column(q, "", ct.OwnerColumns[i])+" = ?", arg)
		}
		return and, nil
	}
	src, err := sourceSelect(d, q, et, ct, key)
	if err != nil {
		return nil, err
	}
	return modelsql.TupleIn(q, "", ct.OwnerColumns, src), nil
}

// ownerValues returns the values of the owner columns of ct for the entity of et with the given key: the key
// arguments, or the entity's source columns as stored.
func (tx *Tx) ownerValues(ctx context.Context, et *edm.EntityType, ct *edm.CollectionTable, key []any) ([]any, error) {
	d := tx.Dialect()
	if sideIsKey(et, ct) {
		return keyArgs(d, et, key)
	}
	src, err := sourceSelect(d, tx.names(), et, ct, key)
	if err != nil {
		return nil, err
	}
	query, args, err := src.PlaceholderFormat(d.Placeholder()).ToSql()
	if err != nil {
		return nil, err
	}
	owner := make([]any, len(ct.SourceColumns))
	ptrs := make([]any, len(owner))
	for i := range owner {
		ptrs[i] = &owner[i]
	}
	if err := tx.QueryRowContext(ctx, query, args...).Scan(ptrs...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, entityNotFound(et)
		}
		return nil, err
	}
	return owner, nil
}

// keyArgs returns the stored arguments of the key values of et.
func keyArgs(d sqldb.Dialect, et *edm.EntityType, key []any) ([]any, error) {
	args := make([]any, len(key))
	for i, k := range et.KeyProperties() {
		arg, err := sqldb.Arg(d, k, key[i])
		if err != nil {
			return nil, err
		}
		args[i] = arg
	}
	return args, nil
}

// sourceSelect is the SELECT (with ? placeholders) of the source columns of ct of the entity of et with the
// given key.
func sourceSelect(d sqldb.Dialect, q modelsql.Quoter, et *edm.EntityType, ct *edm.CollectionTable, key []any) (sq.SelectBuilder, error) {
	where, err := keyWhere(d, q, et, key, false)
	if err != nil {
		return sq.SelectBuilder{}, err
	}
	return sq.Select(modelsql.Columns(q, et.Table, ct.SourceColumns)...).From(q.QuoteIdent(et.Table)).Where(where), nil
}

func (tx *Tx) deleteItems(ctx context.Context, et *edm.EntityType, p *edm.Property, key []any) error {
	d := tx.Dialect()
	where, err := ownerWhere(d, tx.names(), et, p.CollectionTable, key)
	if err != nil {
		return err
	}
	return tx.exec(ctx, sqldb.Builder(d).Delete(tx.names().QuoteIdent(p.CollectionTable.Table)).Where(where))
}

func (tx *Tx) insertItems(ctx context.Context, et *edm.EntityType, p *edm.Property, key []any, v any) error {
	if v == nil {
		return nil
	}
	items, ok := v.([]any)
	if !ok {
		return fmt.Errorf("odata: property %s: a collection must be a []any, not %T", p.Name, v)
	}
	if len(items) == 0 {
		return nil
	}
	d := tx.Dialect()
	ct := p.CollectionTable
	cols := modelsql.Columns(tx.names(), "", append(append([]string(nil), ct.OwnerColumns...), ct.ValueColumn, ct.OrdinalColumn))
	owner, err := tx.ownerValues(ctx, et, ct, key)
	if err != nil {
		return err
	}
	// One statement per 200 items keeps the number of bound parameters far below both databases' limits.
	for start := 0; start < len(items); start += 200 {
		q := sqldb.Builder(d).Insert(tx.names().QuoteIdent(ct.Table)).Columns(cols...)
		for i := start; i < min(start+200, len(items)); i++ {
			arg, err := sqldb.Arg(d, p, normalize(p, items[i]))
			if err != nil {
				return err
			}
			row := append(append(make([]any, 0, len(cols)), owner...), arg, int64(i))
			q = q.Values(row...)
		}
		if err := tx.exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// bumpRowVersion adds to the UPDATE q of a row of et the increment of its row version, when et has one: the
// database's trigger then leaves the row alone (it bumps the version only of updates that do not).
func bumpRowVersion(q modelsql.Quoter, et *edm.EntityType, u sq.UpdateBuilder) sq.UpdateBuilder {
	rv := et.RowVersion()
	if rv == nil {
		return u
	}
	column := q.QuoteIdent(rv.Column)
	return u.Set(column, sq.Expr(column+" + 1"))
}

// firstRowVersion is the row version of a row the engine inserts: random, below 2^48 so that increments never
// overflow.
func firstRowVersion() int64 { return rand.Int64N(1 << 48) }

package schema

import (
	"context"
	"fmt"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// Row versions (odata/DESIGN.md, "ETags and row versions"): the table of an entity type without declared ETag
// properties gets an integer column edm.RowVersionColumn that starts at a random value below 2^48 and grows by
// one with every UPDATE of the row. The engine's own updates increment it; a trigger increments it for the
// updates of other programs that do not (SQLite: AFTER UPDATE, a second UPDATE by key; PostgreSQL: BEFORE
// UPDATE, NEW's version set before the row is written). An update that sets the version itself keeps it. Adapt finds column and trigger and makes the type's ETag the version alone
// (edm.EntityType.UseRowVersion), so a read under $select reads the selection, the key and the version.

// firstVersionBits bounds the random first version: 48 bits, so that increments never overflow an int64.
const firstVersionBits = "281474976710655" // 2^48 - 1

// markRowVersions notes the tables that get a row version: those of root entity types without declared ETag
// properties where no property claims the column.
func (b *builder) markRowVersions(m *edm.Model) {
	for _, et := range m.EntityTypes {
		t := b.ofType[et]
		if et.Base() != nil || len(et.ETag) > 0 || t == nil || t.byName[edm.RowVersionColumn] != nil {
			continue
		}
		t.rowVersionOf = et
	}
}

// rowVersionDefinition is the definition of the row version column in a CREATE TABLE, or with adding in an
// ADD COLUMN: SQLite adds a column only with a constant default (0; rowVersionFill gives the rows a random
// one and the engine gives the rows it inserts one).
func rowVersionDefinition(d sqldb.Dialect, adding bool) string {
	def := "0"
	switch {
	case d.Name() == "postgres":
		def = "floor(random() * " + firstVersionBits + ")::bigint"
	case !adding:
		def = "(random() & " + firstVersionBits + ")"
	}
	return d.QuoteIdent(edm.RowVersionColumn) + " " + d.ColumnType(edm.KindInt64, 0, 0) + " NOT NULL DEFAULT " + def
}

// rowVersionTrigger returns the statements that create the trigger (on PostgreSQL its function too) that
// increments the row version of t for every update that does not.
func rowVersionTrigger(d sqldb.Dialect, t *table) []string {
	name := d.QuoteIdent(t.name + "_" + edm.RowVersionColumn)
	table := d.QuoteIdent(t.name)
	v := d.QuoteIdent(edm.RowVersionColumn)
	if d.Name() == "postgres" {
		return []string{
			"CREATE OR REPLACE FUNCTION " + name + "() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN IF NEW." + v +
				" IS NOT DISTINCT FROM OLD." + v + " THEN NEW." + v + " := OLD." + v + " + 1; END IF; RETURN NEW; END$$",
			"CREATE TRIGGER " + name + " BEFORE UPDATE ON " + table + " FOR EACH ROW EXECUTE FUNCTION " + name + "()",
		}
	}
	where := make([]string, len(t.key))
	for i, k := range t.key {
		where[i] = d.QuoteIdent(k) + " = NEW." + d.QuoteIdent(k)
	}
	return []string{"CREATE TRIGGER " + name + " AFTER UPDATE ON " + table + " FOR EACH ROW WHEN NEW." + v +
		" IS OLD." + v + " BEGIN UPDATE " + table + " SET " + v + " = OLD." + v + " + 1 WHERE " +
		strings.Join(where, " AND ") + "; END"}
}

// rowVersionCreates returns the statements that complete a new table t with its row version: the trigger
// (createTable declares the column).
func rowVersionCreates(d sqldb.Dialect, t *table) []change {
	if t.rowVersionOf == nil {
		return nil
	}
	return triggerChanges(d, t, "")
}

// triggerChanges are the statements of rowVersionTrigger as changes, the first named what.
func triggerChanges(d sqldb.Dialect, t *table, what string) []change {
	var out []change
	for _, s := range rowVersionTrigger(d, t) {
		out = append(out, change{what, s})
		what = ""
	}
	return out
}

// rowVersionChanges returns the changes that give the existing table t, as found, its row version: the column
// (with a random version for each row it holds) and the trigger, whichever it lacks. A column of that name
// that does not hold integers is left alone (the type then keeps other ETags).
func rowVersionChanges(ctx context.Context, q Querier, t *table, found *catalogTable) ([]change, error) {
	if t.rowVersionOf == nil {
		return nil, nil
	}
	d := q.Dialect()
	var out []change
	if f := found.columns[edm.RowVersionColumn]; f == nil {
		table := d.QuoteIdent(t.name)
		out = append(out, change{"add column " + t.name + "." + edm.RowVersionColumn,
			"ALTER TABLE " + table + " ADD COLUMN " + rowVersionDefinition(d, true)})
		if d.Name() != "postgres" {
			out = append(out, change{"", "UPDATE " + table + " SET " + d.QuoteIdent(edm.RowVersionColumn) +
				" = random() & " + firstVersionBits})
		}
	} else if !d.ColumnHolds(f.typ, edm.KindInt64, 0, 0, 0) {
		return nil, nil
	}
	has, err := hasRowVersionTrigger(ctx, q, t.name)
	if err != nil || has {
		return out, err
	}
	return append(out, triggerChanges(d, t, "add trigger "+t.name+"_"+edm.RowVersionColumn)...), nil
}

// hasRowVersion reports whether the table found has the row version of t: the integer column and its trigger.
func hasRowVersion(ctx context.Context, q Querier, t *table, found *catalogTable) (bool, error) {
	f := found.columns[edm.RowVersionColumn]
	if t.rowVersionOf == nil || f == nil || !q.Dialect().ColumnHolds(f.typ, edm.KindInt64, 0, 0, 0) {
		return false, nil
	}
	return hasRowVersionTrigger(ctx, q, t.name)
}

// hasRowVersionTrigger reports whether the table called table has the trigger of its row version (by name).
func hasRowVersionTrigger(ctx context.Context, q Querier, table string) (bool, error) {
	text := "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? AND name = ?"
	if q.Dialect().Name() == "postgres" {
		text = "SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass(quote_ident($1)) AND tgname = $2"
	}
	rows, err := q.QueryContext(ctx, text, table, table+"_"+edm.RowVersionColumn)
	if err != nil {
		return false, fmt.Errorf("schema: reading the triggers of table %q: %w", table, err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return false, err
		}
	}
	return n > 0, rows.Err()
}

// appendVersioned appends to versioned the entity type of t when the table found has its row version.
func appendVersioned(ctx context.Context, q Querier, versioned []*edm.EntityType, t *table, found *catalogTable) ([]*edm.EntityType, error) {
	has, err := hasRowVersion(ctx, q, t, found)
	if err != nil || !has {
		return versioned, err
	}
	return append(versioned, t.rowVersionOf), nil
}

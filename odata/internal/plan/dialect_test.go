package plan_test

import (
	"testing"

	"github.com/storekit/store/odata/sqldb"
)

// TestUpsertAndReturning runs the write clauses of the dialects on both databases.
func TestUpsertAndReturning(t *testing.T) {
	m := builtModel(t)
	for _, db := range fixtureDBs(t, m) {
		d := db.Dialect
		q := d.QuoteIdent
		ins := "INSERT INTO " + q("country") + " (" + q("id") + ", " + q("name") + ") VALUES (?, ?) " +
			d.Upsert([]string{"id"}, []string{"name"}) + " " + d.Returning("id", "name")
		stmt, _ := d.Placeholder().ReplacePlaceholders(ins)
		var id, name string
		if err := db.QueryRow(stmt, "FR", "République française").Scan(&id, &name); err != nil {
			t.Fatalf("%s: %s: %v", d.Name(), stmt, err)
		}
		if id != "FR" || name != "République française" {
			t.Errorf("%s: upsert returned %s %s", d.Name(), id, name)
		}
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		sel, _ := d.Placeholder().ReplacePlaceholders("SELECT " + q("name") + " FROM " + q("country") + " WHERE " + q("id") + " = ?" + d.LockForUpdate())
		if err := tx.QueryRow(sel, "FR").Scan(&name); err != nil {
			t.Errorf("%s: %s: %v", d.Name(), sel, err)
		}
		tx.Rollback()
	}
}

// TestKeyWhere checks the key condition for writes, including a case-insensitive key.
func TestKeyWhere(t *testing.T) {
	m := builtModel(t)
	for _, db := range fixtureDBs(t, m) {
		p := newPlanner(m, db.Dialect)
		for _, c := range []struct {
			path string
			want int64
		}{
			{"Customer('ALICE@EXAMPLE.COM')", 1},
			{"Customer('nobody@example.com')", 0},
			{"OrderItem(OrderId='o1',LineNumber=2)", 1},
			{"Product('p01')", 1},
		} {
			s := scopeOf(t, m, c.path)
			cond, err := p.KeyWhere(s.Set.EntityType(), s.Key)
			if err != nil {
				t.Fatal(err)
			}
			q, args, err := sqldb.Builder(db.Dialect).Select("COUNT(*)").From(db.Dialect.QuoteIdent(s.Set.EntityType().Table)).Where(cond).ToSql()
			if err != nil {
				t.Fatal(err)
			}
			n, err := count(db, q, args)
			if err != nil {
				t.Fatal(err)
			}
			if n != c.want {
				t.Errorf("%s: KeyWhere(%s) matches %d rows, want %d (%s)", db.Dialect.Name(), c.path, n, c.want, q)
			}
		}
	}
}

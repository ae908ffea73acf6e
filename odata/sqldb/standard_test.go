package sqldb_test

import (
	"database/sql"
	"errors"
	"testing"

	"github.com/storekit/store/odata/dbtest"
)

// TestStandard_Clauses runs the write clauses both dialects share, and the row lock, on both databases.
func TestStandard_Clauses(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		d := db.Dialect()
		q := d.QuoteIdent
		if _, err := db.Exec(`CREATE TABLE country (id TEXT PRIMARY KEY, name TEXT NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		insert := func(upsert string) (id, name string, err error) {
			stmt, _ := d.Placeholder().ReplacePlaceholders("INSERT INTO " + q("country") + " (" + q("id") + ", " +
				q("name") + ") VALUES (?, ?) " + upsert + " " + d.Returning("id", "name"))
			err = db.QueryRow(stmt, "FR", "République française").Scan(&id, &name)
			return id, name, err
		}
		if _, err := db.Exec(`INSERT INTO country (id, name) VALUES ('FR', 'France')`); err != nil {
			t.Fatal(err)
		}
		if id, name, err := insert(d.Upsert([]string{"id"}, []string{"name"})); err != nil || id != "FR" || name != "République française" {
			t.Errorf("INSERT ... DO UPDATE RETURNING = %s %s, %v, want FR République française", id, name, err)
		}
		if _, _, err := insert(d.Upsert([]string{"id"}, nil)); !errors.Is(err, sql.ErrNoRows) {
			t.Errorf("INSERT ... DO NOTHING RETURNING = %v, want no row", err)
		}
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		sel, _ := d.Placeholder().ReplacePlaceholders("SELECT " + q("name") + " FROM " + q("country") + " WHERE " +
			q("id") + " = ?" + d.LockForUpdate())
		var name string
		if err := tx.QueryRow(sel, "FR").Scan(&name); err != nil {
			t.Errorf("%s: %v", sel, err)
		}
	})
}

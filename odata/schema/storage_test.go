package schema_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/schema"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

// storageModel is one entity type Event of table event with a property per column of the storage tests, every
// one declaring the database's own storage unless decimal or time say otherwise.
func storageModel(t *testing.T, decimal edm.DecimalStorage, time edm.TimeStorage) *edm.Model {
	t.Helper()
	return storageModelIn(t, "", decimal, time)
}

// storageModelIn is storageModel with its table called table ("" for event).
func storageModelIn(t *testing.T, table string, decimal edm.DecimalStorage, time edm.TimeStorage) *edm.Model {
	t.Helper()
	m := &edm.Model{Namespace: "Storage", EntityTypes: []*edm.EntityType{{Name: "Event", Table: table, Key: []string{"Id"},
		Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindInt32},
			{Name: "StartsAt", Type: edm.KindDateTimeOffset, Nullable: true, TimeStorage: time},
			{Name: "Stamp", Type: edm.KindDateTimeOffset, Nullable: true},
			{Name: "Opens", Type: edm.KindTimeOfDay, Nullable: true},
			{Name: "Price", Type: edm.KindDecimal, Precision: 10, Scale: 2, Nullable: true, DecimalStorage: decimal},
			{Name: "Fee", Type: edm.KindDecimal, Precision: 12, Scale: 2, Nullable: true},
		}}}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAdapt creates a table as other programs declare one and checks the storage Adapt gives each property,
// while Check names the storage to declare and changes nothing, and Changes finds nothing to add.
func TestAdapt(t *testing.T) {
	tables := map[string]string{
		"sqlite": `CREATE TABLE event (id INTEGER PRIMARY KEY, starts_at DATETIME, stamp INTEGER, opens TIME,
			price NUMERIC(10,2), fee TEXT)`,
		"postgres": `CREATE TABLE event (id integer PRIMARY KEY, starts_at timestamp, stamp bigint, opens time,
			price double precision, fee numeric(12,2))`,
	}
	want := map[string]map[string]string{
		"sqlite":   {"StartsAt": "sql", "Stamp": "unix", "Opens": "sql", "Price": "float", "Fee": "exact"},
		"postgres": {"StartsAt": "sql", "Stamp": "unix", "Opens": "auto", "Price": "float", "Fee": "auto"},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, tables[db.Dialect().Name()]); err != nil {
			t.Fatal(err)
		}
		m := storageModel(t, edm.DecimalAuto, edm.TimeAuto)
		// A migration has nothing to add but the row version: the columns are served in the form they hold.
		statements, err := schema.Changes(ctx, db, m)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range statements {
			if !strings.Contains(s, "row_version") {
				t.Errorf("Changes: %q, want only the row version's", s)
			}
		}
		err = schema.Check(ctx, db, m)
		var mismatch *schema.MismatchError
		if !errors.As(err, &mismatch) {
			t.Fatalf("Check = %v, want a *schema.MismatchError", err)
		}
		for _, p := range mismatch.Problems {
			if !strings.Contains(p.Message, ": declare that storage (or let odata.NewService find it, schema.Adapt)") {
				t.Errorf("Check: %s, want the storage to declare", p)
			}
		}
		if got := storages(m); !cmp.Equal(got, map[string]string{"StartsAt": "auto", "Stamp": "auto", "Opens": "auto",
			"Price": "auto", "Fee": "auto"}) {
			t.Errorf("storages after Check = %v, want all auto", got)
		}
		if err := schema.Adapt(ctx, db, m); err != nil {
			t.Fatalf("Adapt = %v", err)
		}
		if diff := cmp.Diff(want[db.Dialect().Name()], storages(m)); diff != "" {
			t.Errorf("storages after Adapt (-want +got):\n%s", diff)
		}
		if err := schema.Check(ctx, db, m); err != nil {
			t.Errorf("Check after Adapt = %v", err)
		}
	})
}

// TestAdapt_Mismatch checks that Adapt leaves the model as it is when the database does not match it.
func TestAdapt_Mismatch(t *testing.T) {
	db := dbtest.SQLite(t)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE event (id INTEGER PRIMARY KEY, starts_at DATETIME, stamp REAL,
		opens TIME, price NUMERIC(10,2), fee TEXT)`); err != nil {
		t.Fatal(err)
	}
	m := storageModel(t, edm.DecimalAuto, edm.TimeAuto)
	err := schema.Adapt(ctx, db, m)
	want := `schema: the database does not match the model (1 problem):
	table "event", column "stamp": the column's type REAL cannot hold Event/Stamp, Edm.DateTimeOffset (sqlite wants TEXT); a column of another form is served as its storage says: TEXT as TimeSQL (storage=sql), INTEGER as TimeUnix (storage=unix)`
	if err == nil || err.Error() != want {
		t.Errorf("Adapt = %v, want %s", err, want)
	}
	if got := storages(m)["StartsAt"]; got != "auto" {
		t.Errorf("StartsAt after a refused Adapt: %s, want auto", got)
	}
}

// storages returns the storage of each property but the key, by name.
func storages(m *edm.Model) map[string]string {
	out := map[string]string{}
	for _, p := range m.EntityTypes[0].Properties[1:] {
		if p.Type == edm.KindDecimal {
			out[p.Name] = p.DecimalStorage.String()
		} else {
			out[p.Name] = p.TimeStorage.String()
		}
	}
	return out
}

// TestCreate_TimeStorage checks the columns Create declares for a time storage the model declares, and that
// the database it makes passes Check.
func TestCreate_TimeStorage(t *testing.T) {
	want := map[string]map[edm.TimeStorage]string{
		"sqlite":   {edm.TimeSQL: `"starts_at" TEXT,`, edm.TimeUnix: `"starts_at" INTEGER,`},
		"postgres": {edm.TimeSQL: `"starts_at" TIMESTAMP,`, edm.TimeUnix: `"starts_at" BIGINT,`},
	}
	for _, d := range []sqldb.Dialect{sqlite.Dialect{}, postgres.Dialect{}} {
		for storage, line := range want[d.Name()] {
			statements, err := schema.Create(d, storageModel(t, edm.DecimalAuto, storage))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(statements[0], "\n\t"+line+"\n") {
				t.Errorf("%s: Create with StartsAt stored as %s = %s, want the line %s", d.Name(), storage, statements[0], line)
			}
		}
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		for i, storage := range []edm.TimeStorage{edm.TimeSQL, edm.TimeUnix} {
			m := storageModelIn(t, "event_"+storage.String(), edm.DecimalAuto, storage)
			statements, err := schema.Create(db.Dialect(), m)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range statements {
				if _, err := db.Exec(s); err != nil {
					t.Fatalf("%d: %s: %v", i, s, err)
				}
			}
			if err := schema.Check(context.Background(), db, m); err != nil {
				t.Errorf("Check of the tables Create made for StartsAt stored as %s = %v", storage, err)
			}
		}
	})
}

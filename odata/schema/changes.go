package schema

import (
	"context"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/sqldb"
)

// change is one statement of a migration and what it does, for the migration's name.
type change struct {
	what string
	sql  string
}

// Changes returns the statements that bring database q to the built model m by adding what it
// lacks: the tables (as Create writes them), the columns of existing tables, and the indexes the model implies
// (see Create; a full-text index only where no object of its name exists). It never drops or changes what exists. A problem no addition solves (a column of the wrong
// type, a key without a unique index, a non-nullable column without a Default to fill the rows a table may
// hold) is returned as a *MismatchError, with no statements; a column that holds its property's values in
// another form that Adapt gives the property (a DATETIME column for a DateTimeOffset) is no problem. A database
// that matches gets none.
func Changes(ctx context.Context, q Querier, m *edm.Model) ([]string, error) {
	changes, err := plan(ctx, q, m)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.sql
	}
	return out, nil
}

// Migration returns the migration source, named name in the schema_migrations table, that keeps a database
// in step with the built model m: each time migrate.Up runs it and the database lacks something of the model
// (Changes), the additions are applied as the source's next version, in one transaction under the dialect's
// TransactionLock, and recorded with a name that lists them ("create table book; add column book.year").
func Migration(name string, m *edm.Model) migrate.Source {
	return migrate.Source{Name: name, Changes: func(ctx context.Context, tx *sqldb.Tx) (string, []string, error) {
		changes, err := plan(ctx, tx, m)
		if err != nil || len(changes) == 0 {
			return "", nil, err
		}
		var what []string
		statements := make([]string, len(changes))
		for i, c := range changes {
			statements[i] = c.sql
			if c.what != "" {
				what = append(what, c.what)
			}
		}
		return strings.Join(what, "; "), statements, nil
	}}
}

// plan returns the changes that bring q to m (see Changes).
func plan(ctx context.Context, q Querier, m *edm.Model) ([]change, error) {
	d := q.Dialect()
	tables, err := describe(m)
	if err != nil {
		return nil, err
	}
	var creates, columns, indexes, foreign []change
	var problems []Problem
	for _, t := range tables {
		found, err := readTable(ctx, q, t.name)
		if err != nil {
			return nil, err
		}
		if found == nil {
			creates = append(creates, change{"create table " + t.name, createTable(d, t)})
			creates = append(creates, rowVersionCreates(d, t)...)
			indexes = append(indexes, missingIndexes(d, t, &catalogTable{})...)
			indexes = append(indexes, searchChanges(d, t)...)
			foreign = append(foreign, foreignKeyChanges(d, t, t.foreign)...)
			continue
		}
		added, keys, unsolved := addColumns(d, t, found)
		columns = append(columns, added...)
		versions, err := rowVersionChanges(ctx, q, t, found)
		if err != nil {
			return nil, err
		}
		columns = append(columns, versions...)
		problems = append(problems, unsolved...)
		problems = append(problems, keyProblems(t, found)...)
		indexes = append(indexes, missingIndexes(d, t, found)...)
		if len(t.search) > 0 {
			defs, err := readSearch(ctx, q, t)
			if err != nil {
				return nil, err
			}
			if len(defs) == 0 {
				indexes = append(indexes, searchChanges(d, t)...)
			}
		}
		foreign = append(foreign, foreignKeyChanges(d, t, keys)...)
	}
	if len(problems) > 0 {
		return nil, &MismatchError{Problems: problems}
	}
	return append(append(append(creates, columns...), indexes...), foreign...), nil
}

// addColumns returns the ADD COLUMN changes of the columns of t the table found lacks, the foreign keys to add
// with them (those whose columns are all new, on a database that adds constraints to tables), and the problems
// of the columns it has or cannot add.
func addColumns(d sqldb.Dialect, t *table, found *catalogTable) ([]change, []*foreignKey, []Problem) {
	var added []change
	var problems []Problem
	isNew := map[string]bool{}
	for _, c := range t.columns {
		if f := found.columns[c.name]; f != nil {
			// A column that holds c's values in another form the engine reads is served so (Adapt).
			if msg := compareColumn(d, adapted(d, c, f.typ), f); msg != "" {
				problems = append(problems, Problem{Table: t.name, Column: c.name, Message: msg})
			}
			continue
		}
		def := defaultOf(d, c, true)
		if !c.nullable && def == "" {
			problems = append(problems, Problem{Table: t.name, Column: c.name, Message: "the column does not exist " +
				"and cannot be added to a table that may hold rows: " + c.describe() + " is not nullable and has " +
				"no Default (declare one, or add the column yourself)"})
			continue
		}
		isNew[c.name] = true
		definition := columnDefinition(d, c, def)
		if f := singleColumnKey(t, c.name); f != nil && !addsForeignKeys(d) {
			// The database cannot add the constraint later: the column declares it.
			definition += " " + references(d, f)
		}
		added = append(added, change{"add column " + t.name + "." + c.name,
			"ALTER TABLE " + d.QuoteIdent(t.name) + " ADD COLUMN " + definition})
	}
	var keys []*foreignKey
	for _, f := range t.foreign {
		if allNew(f.columns, isNew) {
			keys = append(keys, f)
		}
	}
	return added, keys, problems
}

// singleColumnKey returns the foreign key of t on the one column name, nil if there is none.
func singleColumnKey(t *table, name string) *foreignKey {
	for _, f := range t.foreign {
		if len(f.columns) == 1 && f.columns[0] == name {
			return f
		}
	}
	return nil
}

func allNew(columns []string, isNew map[string]bool) bool {
	for _, c := range columns {
		if !isNew[c] {
			return false
		}
	}
	return true
}

// missingIndexes returns the CREATE INDEX changes of the indexes of t the table found lacks.
func missingIndexes(d sqldb.Dialect, t *table, found *catalogTable) []change {
	var out []change
	for _, x := range t.indexes {
		if !found.hasIndex(x.columns, x.unique) {
			out = append(out, change{"create index " + x.name, createIndex(d, t, x)})
		}
	}
	return out
}

// searchChanges returns the changes that create the full-text index of t, none for a table without searchable
// columns.
func searchChanges(d sqldb.Dialect, t *table) []change {
	var out []change
	for i, s := range createSearch(d, t) {
		what := ""
		if i == 0 {
			what = "create search index " + SearchIndex(t.name)
		}
		out = append(out, change{what, s})
	}
	return out
}

// foreignKeyChanges returns the changes that add the foreign keys of t, none on a database whose CREATE TABLE
// or ADD COLUMN declares them.
func foreignKeyChanges(d sqldb.Dialect, t *table, keys []*foreignKey) []change {
	var out []change
	for _, s := range addForeignKeys(d, t, keys) {
		out = append(out, change{"", s})
	}
	return out
}

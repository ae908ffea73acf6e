package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// rowsPerStatement and rowsPerTx size the bulk inserts: a statement of many rows is parsed once per transaction
// and binds rowsPerStatement x columns arguments, below both databases' limits (SQLite 32,766, PostgreSQL
// 65,535); a transaction commits rowsPerTx rows.
const (
	maxArgsPerStatement = 30000
	maxRowsPerStatement = 500
	rowsPerTx           = 5000
)

// bulkTable describes the rows to write into one table.
type bulkTable struct {
	// table is the table's name, as the migrations create it.
	table string
	// typ is the entity type stored in the table: the values of its properties' columns are converted by
	// sqldb.Arg, as the engine writes them. Columns without a property are written as they are.
	typ *edm.EntityType
	// rows is the number of rows.
	rows int
	// values gives the Go value of each column the rows set, for row i. A column of the table that it does not
	// name takes its default from the migrations, or NULL when it has none and is nullable; a NOT NULL column
	// without a default that it does not name is an error, and so is a named column the table does not have.
	values map[string]func(i int) any
}

// tableColumn is a column as the database's catalog describes it.
type tableColumn struct {
	name             string
	notNull, hasDflt bool
}

// readColumns reads the columns of a table from the database's catalog (sqldb.Dialect.TableColumns).
func readColumns(ctx context.Context, db *sqldb.DB, table string) ([]tableColumn, error) {
	d := db.Dialect()
	rows, err := db.QueryContext(ctx, d.TableColumns(), table)
	if err != nil {
		return nil, fmt.Errorf("read the columns of %s: %w", table, err)
	}
	defer rows.Close()
	var cols []tableColumn
	for rows.Next() {
		var c tableColumn
		var typ string
		if err := rows.Scan(&c.name, &typ, &c.notNull, &c.hasDflt); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("table %s does not exist: were the store's migrations applied?", table)
	}
	return cols, nil
}

// insertColumn is a column the insert writes and how its value is made.
type insertColumn struct {
	name  string
	value func(i int) any
	prop  *edm.Property // nil: the value is bound as it is
}

// plan returns the columns the insert of t writes, in table order, checking them against the table's columns.
func (t *bulkTable) plan(cols []tableColumn) ([]insertColumn, error) {
	var out []insertColumn
	var problems []string
	known := map[string]bool{}
	for _, c := range cols {
		known[c.name] = true
		f, ok := t.values[c.name]
		if !ok {
			if c.notNull && !c.hasDflt {
				problems = append(problems, fmt.Sprintf("column %s is NOT NULL without a default and loadbench has no value for it", c.name))
			}
			continue
		}
		ic := insertColumn{name: c.name, value: f}
		if t.typ != nil {
			ic.prop = propertyOfColumn(t.typ, c.name)
		}
		out = append(out, ic)
	}
	for name := range t.values {
		if !known[name] {
			problems = append(problems, fmt.Sprintf("loadbench writes column %s, which the table does not have", name))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, fmt.Errorf("table %s: %s", t.table, strings.Join(problems, "; "))
	}
	return out, nil
}

// propertyOfColumn returns the scalar property of typ stored in column, nil when there is none.
func propertyOfColumn(typ *edm.EntityType, column string) *edm.Property {
	for _, p := range typ.Properties {
		if p.Column == column && p.Complex == nil && !p.Collection {
			return p
		}
	}
	return nil
}

// insertStatement returns the INSERT of n rows of the columns, with the dialect's placeholders.
func insertStatement(d sqldb.Dialect, table string, cols []insertColumn, n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(d.QuoteIdent(table))
	b.WriteString(" (")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.QuoteIdent(c.name))
	}
	b.WriteString(") VALUES ")
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return sqldb.NewStatement(b.String()).For(d)
}

// writeTable inserts the rows of t, rowsPerTx rows per transaction, with multi-row statements prepared once per
// transaction, drawing a progress bar on progress.
func writeTable(ctx context.Context, db *sqldb.DB, t *bulkTable, progress io.Writer) error {
	cols, err := readColumns(ctx, db, t.table)
	if err != nil {
		return err
	}
	ins, err := t.plan(cols)
	if err != nil {
		return err
	}
	perStmt := max(1, min(maxRowsPerStatement, maxArgsPerStatement/len(ins)))
	bar := newProgress(progress, t.table, t.rows)
	w := &bulkWriter{db: db, t: t, cols: ins, perStmt: perStmt, args: make([]any, 0, perStmt*len(ins))}
	for from := 0; from < t.rows; from += rowsPerTx {
		to := min(from+rowsPerTx, t.rows)
		if err := w.writeTx(ctx, from, to); err != nil {
			fmt.Fprintln(progress)
			return err
		}
		bar.add(to - from)
	}
	bar.finish()
	return nil
}

// bulkWriter writes the rows of one table.
type bulkWriter struct {
	db      *sqldb.DB
	t       *bulkTable
	cols    []insertColumn
	perStmt int
	args    []any
	full    string // the statement of perStmt rows
}

// writeTx inserts rows [from, to) in one transaction.
func (w *bulkWriter) writeTx(ctx context.Context, from, to int) error {
	return sqldb.RunTx(ctx, w.db, func(tx *sqldb.Tx) error {
		var stmt *sql.Stmt
		for i := from; i < to; i += w.perStmt {
			n := min(w.perStmt, to-i)
			if err := w.fill(i, n); err != nil {
				return err
			}
			if n < w.perStmt {
				if _, err := tx.ExecContext(ctx, insertStatement(w.db.Dialect(), w.t.table, w.cols, n), w.args...); err != nil {
					return fmt.Errorf("insert into %s: %w", w.t.table, err)
				}
				continue
			}
			if stmt == nil {
				if w.full == "" {
					w.full = insertStatement(w.db.Dialect(), w.t.table, w.cols, w.perStmt)
				}
				var err error
				if stmt, err = tx.PrepareContext(ctx, w.full); err != nil {
					return fmt.Errorf("prepare the insert into %s: %w", w.t.table, err)
				}
				defer stmt.Close()
			}
			if _, err := stmt.ExecContext(ctx, w.args...); err != nil {
				return fmt.Errorf("insert into %s: %w", w.t.table, err)
			}
		}
		return nil
	})
}

// fill sets w.args to the arguments of rows [from, from+n).
func (w *bulkWriter) fill(from, n int) error {
	w.args = w.args[:0]
	for i := from; i < from+n; i++ {
		for _, c := range w.cols {
			v := c.value(i)
			if c.prop != nil && v != nil {
				var err error
				if v, err = sqldb.Arg(w.db.Dialect(), c.prop, v); err != nil {
					return fmt.Errorf("%s.%s of row %d: %w", w.t.table, c.name, i, err)
				}
			}
			w.args = append(w.args, v)
		}
	}
	return nil
}

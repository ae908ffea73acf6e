package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
)

// createSchema drops the program's tables and creates them afresh from the model, with the column types of
// odata/DESIGN.md for the dialect: one table per entity type (complex properties as one column per member), the
// link table of RelatedProducts, foreign keys for the to-one navigations (a nullable reference is set to null
// when its target goes, a required one takes its rows with it) and the unique category name.
func createSchema(ctx context.Context, db *sql.DB, dialect sqldb.Dialect, m *edm.Model) error {
	q := dialect.QuoteIdent
	tables := allTables(m)
	statements := []string{"DROP TABLE IF EXISTS " + q(relationTable)}
	for i := len(tables) - 1; i >= 0; i-- {
		statements = append(statements, "DROP TABLE IF EXISTS "+q(tables[i].Table))
	}
	for _, et := range tables {
		statements = append(statements, createTable(dialect, et))
	}
	product := m.EntityType("Product")
	key := columnType(dialect, product.KeyProperties()[0])
	references := fmt.Sprintf("REFERENCES %s (%s) ON DELETE CASCADE", q(product.Table), q("id"))
	statements = append(statements,
		fmt.Sprintf("CREATE TABLE %s (%s %s NOT NULL %s, %s %s NOT NULL %s, PRIMARY KEY (%[2]s, %[5]s))",
			q(relationTable), q("product_id"), key, references, q("related_product_id"), key, references),
		fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s (%s)", q("category_name"), q("category"), q("name")),
		fmt.Sprintf("CREATE INDEX %s ON %s (%s)", q("product_category"), q(product.Table), q("category_id")))
	for _, s := range statements {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// allTables returns the entity types in the model's order, in which every table follows the tables it refers to.
func allTables(m *edm.Model) []*edm.EntityType { return m.EntityTypes }

// createTable returns the CREATE TABLE statement of et.
func createTable(dialect sqldb.Dialect, et *edm.EntityType) string {
	q := dialect.QuoteIdent
	var columns []string
	for _, p := range et.Properties {
		for _, c := range storedColumns(p) {
			column := q(c.Column) + " " + columnType(dialect, c)
			if !p.Nullable && !c.Nullable {
				column += " NOT NULL"
			}
			columns = append(columns, column)
		}
	}
	var key []string
	for _, p := range et.KeyProperties() {
		key = append(key, q(p.Column))
	}
	columns = append(columns, "PRIMARY KEY ("+strings.Join(key, ", ")+")")
	for _, n := range et.Navigations {
		constraints := n.Constraints()
		if n.Collection || len(constraints) == 0 {
			continue
		}
		var from, to []string
		nullable := false
		for _, c := range constraints {
			p := et.Property(c.Property)
			nullable = nullable || p.Nullable
			from = append(from, q(p.Column))
			to = append(to, q(n.TargetType().Property(c.ReferencedProperty).Column))
		}
		onDelete := "CASCADE"
		if nullable {
			onDelete = "SET NULL"
		}
		columns = append(columns, fmt.Sprintf("FOREIGN KEY (%s) REFERENCES %s (%s) ON DELETE %s",
			strings.Join(from, ", "), q(n.TargetType().Table), strings.Join(to, ", "), onDelete))
	}
	return "CREATE TABLE " + q(et.Table) + " (\n\t" + strings.Join(columns, ",\n\t") + "\n)"
}

// storedColumns returns the properties stored in columns for p: p itself, or the members of a complex property
// (with their full column names).
func storedColumns(p *edm.Property) []*edm.Property {
	if p.Complex == nil {
		return []*edm.Property{p}
	}
	var out []*edm.Property
	for _, member := range p.Properties() {
		out = append(out, storedColumns(member)...)
	}
	return out
}

// columnType is the column type of a property per odata/DESIGN.md.
func columnType(dialect sqldb.Dialect, p *edm.Property) string {
	_, postgres := dialect.(postgres.Dialect) // the program chose the adapter in open
	if p.Enum != nil {
		return "INTEGER"
	}
	sqliteTypes := map[edm.Kind]string{edm.KindString: "TEXT", edm.KindDouble: "REAL", edm.KindSingle: "REAL",
		edm.KindDate: "TEXT", edm.KindTimeOfDay: "TEXT", edm.KindDateTimeOffset: "TEXT", edm.KindGuid: "TEXT",
		edm.KindBinary: "BLOB", edm.KindStream: "BLOB"}
	postgresTypes := map[edm.Kind]string{edm.KindString: `TEXT COLLATE "C"`, edm.KindBoolean: "BOOLEAN",
		edm.KindByte: "SMALLINT", edm.KindSByte: "SMALLINT", edm.KindInt16: "SMALLINT", edm.KindInt32: "INTEGER",
		edm.KindInt64: "BIGINT", edm.KindDuration: "BIGINT", edm.KindDouble: "DOUBLE PRECISION", edm.KindSingle: "REAL",
		edm.KindDate: "DATE", edm.KindTimeOfDay: "TIME", edm.KindDateTimeOffset: "TIMESTAMPTZ", edm.KindGuid: "UUID",
		edm.KindBinary: "BYTEA", edm.KindStream: "BYTEA"}
	switch {
	case postgres && p.Type == edm.KindDecimal:
		return fmt.Sprintf("NUMERIC(%d,%d)", p.Precision, p.Scale)
	case postgres:
		return postgresTypes[p.Type]
	}
	if t, ok := sqliteTypes[p.Type]; ok {
		return t
	}
	return "INTEGER" // Boolean, the integers, Duration and Decimal (scaled)
}

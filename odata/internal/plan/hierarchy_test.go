package plan_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

// hierarchyModel is a shop of items: Item with the derived types Book and Ebook (derived from Book) and the
// abstract Gadget with Phone; shelves hold items (Shelf/Items, Item/Shelf).
func hierarchyModel(tb testing.TB) *edm.Model {
	tb.Helper()
	m := &edm.Model{Namespace: "Shop", EntityTypes: []*edm.EntityType{
		{Name: "Shelf", Key: []string{"Id"}, Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindString}, {Name: "Name", Type: edm.KindString}},
			Navigations: []*edm.NavigationProperty{{Name: "Items", Target: "Item", Collection: true, Partner: "Shelf",
				Join: edm.Join{TargetColumns: []string{"shelf_id"}}}}},
		{Name: "Item", Key: []string{"Id"}, Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindString},
			{Name: "Name", Type: edm.KindString},
			{Name: "Price", Type: edm.KindInt32},
			{Name: "ShelfId", Type: edm.KindString, Nullable: true}},
			Navigations: []*edm.NavigationProperty{{Name: "Shelf", Target: "Shelf", Nullable: true, Partner: "Items",
				Join: edm.Join{SourceColumns: []string{"shelf_id"}}}}},
		{Name: "Book", BaseType: "Item", Properties: []*edm.Property{
			{Name: "Pages", Type: edm.KindInt32, Nullable: true}}},
		{Name: "Ebook", BaseType: "Shop.Book", Properties: []*edm.Property{
			{Name: "Megabytes", Type: edm.KindInt32, Nullable: true}}},
		{Name: "Gadget", BaseType: "Item", Abstract: true, Properties: []*edm.Property{
			{Name: "Watts", Type: edm.KindInt32, Nullable: true}}},
		{Name: "Phone", BaseType: "Gadget", Properties: []*edm.Property{
			{Name: "Screen", Type: edm.KindDouble, Nullable: true}}},
	}, EntitySets: []*edm.EntitySet{{Name: "Shelves", Type: "Shelf"}, {Name: "Items", Type: "Item"},
		{Name: "Books", Type: "Book"}}}
	if err := m.Build(); err != nil {
		tb.Fatal(err)
	}
	return m
}

// hierarchyRows are the fixture rows of the hierarchy's table: key, type, name, price, shelf, pages, megabytes,
// watts, screen.
var hierarchyRows = [][]any{
	{"i1", "Shop.Item", "Pen", 2, "s1", nil, nil, nil, nil},
	{"i2", "Shop.Book", "Atlas", 30, "s1", 120, nil, nil, nil},
	{"i3", "Shop.Ebook", "Primer", 10, "s2", 80, 5, nil, nil},
	{"i4", "Shop.Phone", "Pocket", 300, nil, nil, nil, 5, 6.1},
	{"i5", "Shop.Book", "Diary", 8, "s2", 200, nil, nil, nil},
}

func loadHierarchy(t *testing.T, db *dbtest.DB, m *edm.Model) {
	t.Helper()
	createSchema(t, db, m)
	for _, s := range []string{"INSERT INTO shelf (id, name) VALUES ('s1', 'Top')", "INSERT INTO shelf (id, name) VALUES ('s2', 'Low')"} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	insert, _ := db.Dialect().Placeholder().ReplacePlaceholders(
		"INSERT INTO item (id, odata_type, name, price, shelf_id, pages, megabytes, watts, screen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
	for _, r := range hierarchyRows {
		if _, err := db.Exec(insert, r...); err != nil {
			t.Fatal(err)
		}
	}
}

// hierarchyCases are reads of the hierarchy: a path (with casts) and a query, the keys of the rows expected, and
// for each row the names of the derived properties it has a value for.
var hierarchyCases = []struct {
	path, query string
	want        []string
}{
	{"Items", "", []string{"i1", "i2", "i3", "i4", "i5"}},
	{"Items/Shop.Book", "", []string{"i2", "i3", "i5"}},
	{"Items/Shop.Ebook", "", []string{"i3"}},
	{"Items/Shop.Gadget", "", []string{"i4"}},
	{"Books", "", []string{"i2", "i3", "i5"}},
	{"Books/Shop.Ebook", "", []string{"i3"}},
	{"Items('i2')/Shop.Book", "", []string{"i2"}},
	{"Items('i1')/Shop.Book", "", nil},
	{"Books('i4')", "", nil},
	{"Shelves('s2')/Items/Shop.Book", "", []string{"i3", "i5"}},
	{"Shelves('s1')/Items/Shop.Ebook", "", nil},
	{"Items('i3')/Shop.Book/Shelf", "", []string{"s2"}},
	{"Items('i1')/Shop.Book/Shelf", "", nil},
	{"Items", "$filter=isof(Shop.Book)", []string{"i2", "i3", "i5"}},
	{"Items", "$filter=isof('Shop.Ebook')", []string{"i3"}},
	{"Items", "$filter=not isof(Shop.Book)", []string{"i1", "i4"}},
	{"Items", "$filter=isof($it,Shop.Gadget) or Price lt 5", []string{"i1", "i4"}},
	{"Items", "$filter=isof(Shop.Item)", []string{"i1", "i2", "i3", "i4", "i5"}},
	{"Items", "$filter=isof(Shop.Shelf)", nil},
	{"Items/Shop.Book", "$filter=isof(Shop.Item)", []string{"i2", "i3", "i5"}},
	{"Items", "$filter=Shop.Book/Pages gt 100", []string{"i2", "i5"}},
	{"Items", "$filter=Shop.Book/Pages eq null", []string{"i1", "i4"}},
	{"Items", "$filter=cast(Shop.Book) eq null", []string{"i1", "i4"}},
	{"Items", "$filter=cast($it,Shop.Ebook) ne null", []string{"i3"}},
	{"Items", "$orderby=Shop.Book/Pages desc,Id", []string{"i5", "i2", "i3", "i1", "i4"}},
	{"Items/Shop.Book", "$filter=Pages lt 150", []string{"i2", "i3"}},
	{"Items", "$select=Name,Shop.Book/Pages", []string{"i1", "i2", "i3", "i4", "i5"}},
	{"Shelves", "$filter=Items/any(i:isof(i,Shop.Ebook))", []string{"s2"}},
	{"Shelves", "$expand=Items($filter=isof(Shop.Book))", []string{"s1", "s2"}},
	{"Shelves", "$expand=Items/Shop.Ebook($select=Megabytes)", []string{"s1", "s2"}},
}

// TestHierarchy reads a hierarchy on every database: the rows of each case, the columns of derived properties
// and the type column, and the SQL of both dialects compared with testdata/hierarchy.golden.
func TestHierarchy(t *testing.T) {
	m := hierarchyModel(t)
	dbs := []*dbtest.DB{dbtest.SQLite(t)}
	if dbtest.PostgresURL() != "" {
		dbs = append(dbs, dbtest.Postgres(t))
	}
	for _, db := range dbs {
		loadHierarchy(t, db, m)
	}
	var b strings.Builder
	b.WriteString("# Reads of a hierarchy of types: the keys of the fixture rows and the page query of each dialect.\n" +
		"# go test -update rewrites this file.\n\n")
	for _, c := range hierarchyCases {
		scope := scopeOf(t, m, c.path)
		for _, db := range dbs {
			r, err := newPlanner(m, db.Dialect()).Read(scope, encodeOptions(c.query))
			if err != nil {
				t.Errorf("%s: Read(%s?%s) = %v", db.Dialect().Name(), c.path, c.query, err)
				continue
			}
			_, keys, err := fetch(db, r, 100)
			if err != nil {
				t.Errorf("%s: %s?%s: %v", db.Dialect().Name(), c.path, c.query, err)
				continue
			}
			if diff := cmp.Diff(c.want, keys, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s: %s?%s rows (-want +got):\n%s", db.Dialect().Name(), c.path, c.query, diff)
			}
		}
		fmt.Fprintf(&b, "### %s?%s\n", c.path, c.query)
		for _, d := range []sqldb.Dialect{sqlite.Dialect{}, postgres.Dialect{}} {
			r, err := newPlanner(m, d).Read(scope, encodeOptions(c.query))
			if err != nil {
				t.Errorf("%s: Read(%s?%s) = %v", d.Name(), c.path, c.query, err)
				continue
			}
			s, args := r.Select(100)
			fmt.Fprintf(&b, "%s: %s\n  args: %s\n", d.Name(), s, formatArgs(args))
			for _, e := range r.Projection.Expands {
				// The children of two parents, s1 and s2.
				s, args := e.Select([][]any{{"s1"}, {"s2"}})
				fmt.Fprintf(&b, "%s %s: %s\n  args: %s\n", d.Name(), e.Nav.Name, s, formatArgs(args))
			}
		}
		b.WriteByte('\n')
	}
	golden(t, "hierarchy.golden", b.String())
}

// TestHierarchyProjection checks the columns of reads of a hierarchy: the properties of the derived types after
// the type's own, and the type column last.
func TestHierarchyProjection(t *testing.T) {
	m := hierarchyModel(t)
	tests := []struct {
		path, query string
		columns     []string // the selected columns, by property name, then "type" for the type column
	}{
		{"Items", "", []string{"Id", "Name", "Price", "ShelfId", "Pages", "Megabytes", "Watts", "Screen", "type"}},
		{"Items/Shop.Book", "", []string{"Id", "Name", "Price", "ShelfId", "Pages", "Megabytes", "type"}},
		{"Items/Shop.Ebook", "", []string{"Id", "Name", "Price", "ShelfId", "Pages", "Megabytes", "type"}},
		{"Shelves", "", []string{"Id", "Name"}},
		{"Items", "$select=Name,Shop.Ebook/Megabytes", []string{"Name", "Megabytes", "type"}},
		{"Items", "$select=*", []string{"Id", "Name", "Price", "ShelfId", "Pages", "Megabytes", "Watts", "Screen", "type"}},
	}
	for _, tt := range tests {
		r, err := newPlanner(m, sqlite.Dialect{}).Read(scopeOf(t, m, tt.path), encodeOptions(tt.query))
		if err != nil {
			t.Errorf("Read(%s?%s) = %v", tt.path, tt.query, err)
			continue
		}
		var got []string
		for i, c := range r.Projection.Columns {
			switch {
			case i == r.Projection.TypeColumn():
				got = append(got, "type")
			case c.Selected:
				got = append(got, c.Path[len(c.Path)-1].Name)
			}
		}
		if diff := cmp.Diff(tt.columns, got); diff != "" {
			t.Errorf("Read(%s?%s) columns (-want +got):\n%s", tt.path, tt.query, diff)
		}
	}
}

// TestHierarchyErrors checks the answers to casts and type functions that do not apply.
func TestHierarchyErrors(t *testing.T) {
	m := hierarchyModel(t)
	tests := []struct {
		path, query, code string
	}{
		{"Items", "$filter=Pages gt 1", plan.CodeUnknownProperty},
		{"Items", "$filter=Shop.Book/Name eq 'x'", plan.CodeNotSupported},
		{"Items", "$filter=cast(Shop.Book)/Pages gt 1", plan.CodeSyntax},
		{"Items", "$filter=cast(Name,Shop.Book) eq null", plan.CodeTypeMismatch},
		{"Items", "$filter=cast(Edm.String) eq null", plan.CodeTypeMismatch},
		{"Items", "$select=Shop.Book", plan.CodeNotSupported},
		{"Items", "$select=Shop.Shelf/Name", plan.CodeTypeMismatch},
	}
	for _, tt := range tests {
		_, err := newPlanner(m, sqlite.Dialect{}).Read(scopeOf(t, m, tt.path), encodeOptions(tt.query))
		var e *plan.Error
		if !errors.As(err, &e) || e.Code != tt.code {
			t.Errorf("Read(%s?%s) = %v, want code %s", tt.path, tt.query, err, tt.code)
		}
	}
	scope := plan.Scope{Set: m.EntitySet("Books"), Cast: m.EntityType("Gadget")}
	if _, err := newPlanner(m, sqlite.Dialect{}).Read(scope, ""); err == nil {
		t.Error("Read(Books/Shop.Gadget) = nil error, want a type mismatch")
	}
}

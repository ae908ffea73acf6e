package odata_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
)

// hierarchyServiceModel is a shop of items: Item with the derived type Book, Ebook derived from Book and the
// abstract Gadget; items stand on shelves.
func hierarchyServiceModel() *edm.Model {
	return &edm.Model{Namespace: "Shop", EntityTypes: []*edm.EntityType{
		{Name: "Shelf", Key: []string{"Id"}, Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindString}, {Name: "Name", Type: edm.KindString}},
			Navigations: []*edm.NavigationProperty{{Name: "Items", Target: "Item", Collection: true, Partner: "Shelf",
				Join: edm.Join{TargetColumns: []string{"shelf_id"}}}}},
		{Name: "Item", Key: []string{"Id"}, ETag: []string{"Version"}, Properties: []*edm.Property{
			{Name: "Id", Type: edm.KindString},
			{Name: "Name", Type: edm.KindString, Required: true},
			{Name: "Version", Type: edm.KindInt32, ReadOnly: true},
			{Name: "ShelfId", Type: edm.KindString, Nullable: true}},
			Navigations: []*edm.NavigationProperty{{Name: "Shelf", Target: "Shelf", Nullable: true, Partner: "Items",
				Join: edm.Join{SourceColumns: []string{"shelf_id"}}}}},
		{Name: "Book", BaseType: "Item", Properties: []*edm.Property{
			{Name: "Pages", Type: edm.KindInt32, Nullable: true}}},
		{Name: "Ebook", BaseType: "Book", Properties: []*edm.Property{
			{Name: "Megabytes", Type: edm.KindInt32, Nullable: true, Required: true}}},
		{Name: "Gadget", BaseType: "Item", Abstract: true, Properties: []*edm.Property{
			{Name: "Watts", Type: edm.KindInt32, Nullable: true}}},
	}, EntitySets: []*edm.EntitySet{{Name: "Shelves", Type: "Shelf"}, {Name: "Items", Type: "Item"},
		{Name: "Books", Type: "Book"}}}
}

func newHierarchyService(t *testing.T, db *dbtest.DB, readFilter string, items ...func(*odata.SetOptions)) (*fixture, *[]string) {
	t.Helper()
	m := createSchema(t, db, hierarchyServiceModel(),
		`INSERT INTO shelf (id, name) VALUES ('s1', 'Top')`,
		`INSERT INTO item (id, name, version, shelf_id) VALUES ('i1', 'Pen', 1, 's1')`,
		`INSERT INTO item (id, name, version, shelf_id, pages, odata_type) VALUES ('i2', 'Atlas', 1, 's1', 120, 'Shop.Book')`,
		`INSERT INTO item (id, name, version, pages, megabytes, odata_type) VALUES ('i3', 'Primer', 1, 80, 5, 'Shop.Ebook')`)
	var saved []string // the types the hooks saw
	hook := func(_ context.Context, _ *odata.Tx, c *odata.Change) error {
		saved = append(saved, c.EntityType().Name)
		if c.Op == odata.OpCreate {
			c.New["Version"] = int64(1)
		} else {
			c.New["Version"] = c.Old["Version"].(int64) + 1
		}
		return nil
	}
	itemOptions := odata.SetOptions{Writes: odata.WriteAll, Hooks: odata.Hooks{BeforeSave: hook},
		ReadFilter: func(context.Context) (string, error) { return readFilter, nil }}
	for _, change := range items {
		change(&itemOptions)
	}
	svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Logger: discardLogger(),
		Sets: map[string]odata.SetOptions{"Items": itemOptions,
			"Shelves": {Writes: odata.WritePost}, "Books": {Writes: odata.WriteAll, Hooks: odata.Hooks{BeforeSave: hook}}}})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, db: db, svc: svc}, &saved
}

// TestService_HierarchyReads reads a hierarchy on both databases: every entity answered with the properties of
// its own type and, when that is not the type of the context, its @odata.type; casts in paths narrow to a type
// (a 404 for an entity of another type), and $filter, $select and $count follow.
func TestService_HierarchyReads(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f, _ := newHierarchyService(t, db, "")
		tests := []struct {
			path string
			want string // the JSON answer without @odata.etag members, or a status
		}{
			{"/Items?$select=Id,Name,Shop.Book/Pages",
				`{"@odata.context":"http://example.com/$metadata#Items(Id,Name,Shop.Book/Pages)","value":[` +
					`{"Id":"i1","Name":"Pen"},` +
					`{"@odata.type":"#Shop.Book","Id":"i2","Name":"Atlas","Pages":120},` +
					`{"@odata.type":"#Shop.Ebook","Id":"i3","Name":"Primer","Pages":80}]}`},
			{"/Items('i3')",
				`{"@odata.context":"http://example.com/$metadata#Items/$entity","@odata.type":"#Shop.Ebook",` +
					`"Id":"i3","Name":"Primer","Version":1,"ShelfId":null,"Pages":80,"Megabytes":5}`},
			{"/Items/Shop.Book?$select=Id,Pages",
				`{"@odata.context":"http://example.com/$metadata#Items/Shop.Book(Id,Pages)","value":[` +
					`{"Id":"i2","Pages":120},{"@odata.type":"#Shop.Ebook","Id":"i3","Pages":80}]}`},
			{"/Items('i2')/Shop.Book?$select=Name",
				`{"@odata.context":"http://example.com/$metadata#Items/Shop.Book(Name)/$entity","@odata.id":"http://example.com/Items('i2')","Name":"Atlas"}`},
			{"/Items('i2')/Shop.Book/Pages", `{"@odata.context":"http://example.com/$metadata#Items('i2')/Shop.Book/Pages","value":120}`},
			{"/Items('i2')/Shop.Book/Shelf?$select=Name",
				`{"@odata.context":"http://example.com/$metadata#Shelves(Name)/$entity","@odata.id":"http://example.com/Shelves('s1')","Name":"Top"}`},
			{"/Items/Shop.Book/$count", "2"},
			{"/Items/Shop.Ebook/$count?$filter=Megabytes gt 1", "1"},
			{"/Items?$filter=isof(Shop.Book) and not isof(Shop.Ebook)&$select=Id", `{"@odata.context":"http://example.com/$metadata#Items(Id)","value":[{"@odata.type":"#Shop.Book","Id":"i2"}]}`},
			{"/Items?$filter=isof('Shop.Ebook')&$count=true&$select=Id", `{"@odata.context":"http://example.com/$metadata#Items(Id)","@odata.count":1,"value":[{"@odata.type":"#Shop.Ebook","Id":"i3"}]}`},
			{"/Items?$filter=Shop.Book/Pages lt 100&$select=Id", `{"@odata.context":"http://example.com/$metadata#Items(Id)","value":[{"@odata.type":"#Shop.Ebook","Id":"i3"}]}`},
			{"/Books?$select=Id", `{"@odata.context":"http://example.com/$metadata#Books(Id)","value":[{"Id":"i2"},{"@odata.type":"#Shop.Ebook","Id":"i3"}]}`},
			{"/Books/$count", "2"},
			{"/Books('i1')", "404"},
			{"/Shelves?$select=Id&$expand=Items/Shop.Book($select=Id)",
				`{"@odata.context":"http://example.com/$metadata#Shelves(Id,Items(Id))","value":[{"Id":"s1","Items":[{"@odata.type":"#Shop.Book","Id":"i2"}]}]}`},
			{"/Shelves?$select=Id&$expand=Items($select=Name;$filter=not isof(Shop.Book))",
				`{"@odata.context":"http://example.com/$metadata#Shelves(Id,Items(Name))","value":[{"Id":"s1","Items":[{"@odata.id":"http://example.com/Items('i1')","Name":"Pen"}]}]}`},
			{"/Items('i1')/Shop.Book", "404"},
			{"/Items('i1')/Shop.Book/Pages", "404"},
			{"/Items('i1')/Shop.Shelf", "400"},
			{"/Items('i1')/Shop.Nothing", "404"},
			{"/Items?$filter=Pages gt 1", "400"},
			{"/Items?$filter=Shop.Book/Name eq 'x'", "501"},
			{"/Items?$filter=cast(Name,Shop.Book) eq null", "400"},
		}
		for _, tt := range tests {
			resp := f.do("GET", strings.ReplaceAll(tt.path, " ", "%20"), "")
			got := withoutETagText(resp.Body)
			if len(tt.want) == 3 && tt.want[0] >= '1' && tt.want[0] <= '5' {
				got = strconv.Itoa(resp.Status)
			}
			if got != tt.want {
				t.Errorf("GET %s = %d %s, want %s", tt.path, resp.Status, resp.Body, tt.want)
			}
		}
		validOpenAPI(t, f) // the document of a model with derived types is valid, and its GET paths answer
		full := f.must(200, "GET", "/Items('i1')?$select=Name", "", "Accept", "application/json;odata.metadata=full").Body
		if !strings.Contains(full, `"@odata.type":"#Shop.Item"`) {
			t.Errorf("GET /Items('i1') with full metadata = %s, want its @odata.type", full)
		}
	})
}

// TestService_HierarchyWrites creates entities of derived types with @odata.type on both databases, updates
// them keeping their type, and refuses types outside the hierarchy, abstract types and type changes.
func TestService_HierarchyWrites(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f, saved := newHierarchyService(t, db, "")
		resp := f.must(201, "POST", "/Items", `{"@odata.type":"#Shop.Ebook","Id":"e1","Name":"Guide","Pages":10,"Megabytes":2}`)
		if got, want := withoutETagText(resp.Body), `{"@odata.context":"http://example.com/$metadata#Items/$entity","@odata.type":"#Shop.Ebook",`+
			`"Id":"e1","Name":"Guide","Version":1,"ShelfId":null,"Pages":10,"Megabytes":2}`; got != want {
			t.Errorf("POST an Ebook = %s, want %s", got, want)
		}
		f.must(201, "POST", "/Items", `{"Id":"p1","Name":"Plain"}`)
		if got := f.must(201, "POST", "/Items", `{"@type":"#Shop.Book","Id":"b1","Name":"Short form"}`).Body; !strings.Contains(got, `"@odata.type":"#Shop.Book"`) {
			t.Errorf("POST with @type (OData 4.01) = %s, want a Book", got)
		}
		f.must(204, "DELETE", "/Items('b1')", "")
		f.must(200, "PATCH", "/Items('e1')", `{"Megabytes":3,"@odata.type":"#Shop.Book"}`)
		f.must(200, "PUT", "/Items('i2')", `{"Name":"Atlas 2","Pages":130}`)
		var got []string
		rows, err := db.Query(`SELECT id, odata_type, COALESCE(pages, 0), COALESCE(megabytes, 0) FROM item ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id, typ string
			var pages, megabytes int
			if err := rows.Scan(&id, &typ, &pages, &megabytes); err != nil {
				t.Fatal(err)
			}
			got = append(got, strings.Join([]string{id, typ, itoa(pages), itoa(megabytes)}, " "))
		}
		want := []string{"e1 Shop.Ebook 10 3", "i1 Shop.Item 0 0", "i2 Shop.Book 130 0", "i3 Shop.Ebook 80 5", "p1 Shop.Item 0 0"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("stored rows (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"Ebook", "Item", "Book", "Ebook", "Book"}, *saved); diff != "" {
			t.Errorf("types the hooks saw (-want +got):\n%s", diff)
		}
		for _, tt := range []struct {
			method, path, body, target string
		}{
			{"POST", "/Items", `{"@odata.type":"#Shop.Shelf","Id":"x","Name":"x"}`, "@odata.type"},
			{"POST", "/Items", `{"@odata.type":"#Shop.Gadget","Id":"x","Name":"x"}`, "@odata.type"},
			{"POST", "/Items", `{"@odata.type":7,"Id":"x","Name":"x"}`, "@odata.type"},
			{"POST", "/Items", `{"Id":"x","Name":"x","Pages":3}`, "Pages"},
			{"POST", "/Items", `{"@odata.type":"#Shop.Ebook","Id":"x","Name":"x"}`, "Megabytes"},
			{"PATCH", "/Items('i1')", `{"Pages":3}`, "Pages"},
			{"PATCH", "/Items('i1')", `{"@odata.type":"#Shop.Book"}`, "@odata.type"},
			{"PATCH", "/Items('i3')", `{"@odata.type":"#Shop.Gadget"}`, "@odata.type"},
		} {
			resp := f.do(tt.method, tt.path, tt.body)
			if resp.Status != 400 || !strings.Contains(resp.Body, `"target":"`+tt.target+`"`) {
				t.Errorf("%s %s %s = %d %s, want 400 naming %s", tt.method, tt.path, tt.body, resp.Status, resp.Body, tt.target)
			}
		}
		// The set of a derived type holds its entities only.
		for _, tt := range []struct {
			method, path, body string
			want               int
		}{
			{"PATCH", "/Books('i1')", `{"Name":"x"}`, 404},
			{"PUT", "/Books('i1')", `{"Name":"x"}`, 404},
			{"DELETE", "/Books('i1')", "", 404},
			{"POST", "/Books", `{"@odata.type":"#Shop.Item","Id":"x","Name":"x"}`, 400},
			{"POST", "/Books", `{"Id":"b9","Name":"New"}`, 201},
			{"PATCH", "/Books('i3')", `{"Megabytes":7}`, 200},
			{"DELETE", "/Books('b9')", "", 204},
		} {
			if resp := f.do(tt.method, tt.path, tt.body); resp.Status != tt.want {
				t.Errorf("%s %s = %d %s, want %d", tt.method, tt.path, resp.Status, resp.Body, tt.want)
			}
		}
		if got := f.must(200, "GET", "/Items('i1')?$select=Name", "").Body; !strings.Contains(got, `"Name":"Pen"`) {
			t.Errorf("GET /Items('i1') after the writes to Books = %s, want it unchanged", got)
		}
		// Deep insert: an inline entity names its type too.
		f.must(201, "POST", "/Shelves", `{"Id":"s9","Name":"New","Items":[`+
			`{"@odata.type":"#Shop.Book","Id":"n1","Name":"Inline","Pages":5},{"Id":"n2","Name":"Plain"}]}`)
		if got := withoutETagText(f.must(200, "GET", "/Shelves('s9')/Items?$select=Id", "").Body); got !=
			`{"@odata.context":"http://example.com/$metadata#Items(Id)","value":[{"@odata.type":"#Shop.Book","Id":"n1"},{"Id":"n2"}]}` {
			t.Errorf("GET /Shelves('s9')/Items = %s, want a Book and an Item", got)
		}
		if resp := f.do("POST", "/Shelves", `{"Id":"s8","Name":"x","Items":[{"@odata.type":"#Shop.Shelf","Id":"n3","Name":"x"}]}`); resp.Status != 400 ||
			!strings.Contains(resp.Body, `"target":"Items[0]/@odata.type"`) {
			t.Errorf("POST /Shelves with an inline entity of another type = %d %s, want 400 naming Items[0]/@odata.type", resp.Status, resp.Body)
		}
		if resp := f.do("POST", "/Items/Shop.Book", `{"Id":"x","Name":"x"}`); resp.Status != 405 {
			t.Errorf("POST /Items/Shop.Book = %d, want 405 (entities are created in the set)", resp.Status)
		}
	})
}

// withoutETagText drops the @odata.etag members of a JSON answer, keeping the order of the others.
func withoutETagText(body string) string {
	const member = `"@odata.etag":"`
	for {
		i := strings.Index(body, member)
		if i < 0 {
			return body
		}
		j := strings.Index(body[i+len(member):], `",`)
		if j < 0 {
			return body
		}
		body = body[:i] + body[i+len(member)+j+2:]
	}
}

// TestService_HierarchyRowFilter checks that the row filter of a base type's set holds for its derived types,
// whichever way they are reached: a cast, isof, the set of a derived type without a filter of its own, writes.
func TestService_HierarchyRowFilter(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f, _ := newHierarchyService(t, db, "Name ne 'Primer'")
		for _, tt := range []struct {
			method, path, body string
			want               int
			contains           string
		}{
			{"GET", "/Items/Shop.Book/$count", "", 200, "1"},
			{"GET", "/Items?$filter=isof(Shop.Ebook)&$select=Id", "", 200, `"value":[]`},
			{"GET", "/Items('i3')/Shop.Ebook", "", 404, ""},
			{"GET", "/Books/$count", "", 200, "1"},
			{"GET", "/Books('i3')", "", 404, ""},
			{"PATCH", "/Items('i3')", `{"Pages":1}`, 404, ""},
			{"PATCH", "/Books('i3')", `{"Pages":1}`, 404, ""},
			{"POST", "/Items", `{"@odata.type":"#Shop.Ebook","Id":"x","Name":"Primer","Megabytes":1}`, 403, ""},
		} {
			resp := f.do(tt.method, strings.ReplaceAll(tt.path, " ", "%20"), tt.body)
			if resp.Status != tt.want || !strings.Contains(resp.Body, tt.contains) {
				t.Errorf("%s %s = %d %s, want %d with %s", tt.method, tt.path, resp.Status, resp.Body, tt.want, tt.contains)
			}
		}
	})
}

// TestService_HierarchyUpsert posts entities to a set with UpsertBy: an update keeps the stored type and decodes
// the body against it; a create takes the type @odata.type names.
func TestService_HierarchyUpsert(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f, _ := newHierarchyService(t, db, "", func(o *odata.SetOptions) { o.UpsertBy = "Id" })
		if got := f.must(200, "POST", "/Items", `{"Id":"i3","Name":"Primer 2","Megabytes":9}`).Body; !strings.Contains(got, `"@odata.type":"#Shop.Ebook"`) ||
			!strings.Contains(got, `"Name":"Primer 2","Version":2,"ShelfId":null,"Pages":null,"Megabytes":9`) {
			t.Errorf("POST /Items updating the Ebook i3 = %s, want it updated in full as an Ebook", got)
		}
		for _, body := range []string{
			`{"@odata.type":"#Shop.Book","Id":"i1","Name":"x"}`, // a type change
			`{"Id":"i1","Name":"x","Pages":1}`,                  // not a property of the stored Item
			`{"@odata.type":"#Shop.Gadget","Name":"x"}`,         // an abstract type created
		} {
			if resp := f.do("POST", "/Items", body); resp.Status != 400 {
				t.Errorf("POST /Items %s = %d %s, want 400", body, resp.Status, resp.Body)
			}
		}
	})
}

package schema_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
)

// libraryModel exercises every kind of property, key, navigation and table the schema supports: every primitive
// kind, enums (one with Int16 values, one of flags) with defaults, a nullable complex property with a nested
// complex member and a non-nullable one, collections of strings and of enums (one whose side table refers to a
// column other than the key), a property computed by SQL, a read-only creation time, composite keys, a nullable
// and a required to-one navigation, a to-many navigation by back reference, a many-to-many navigation declared
// from both sides, a self-referencing one, contained entities keyed within their container (through a column
// the type has no property for), and a link table that is also an entity type's table.
func libraryModel() *edm.Model {
	genre := &edm.EnumType{Name: "Genre", UnderlyingType: edm.KindInt16, Members: []edm.EnumMember{
		{Name: "Fiction", Value: 1}, {Name: "Science", Value: 2}}}
	format := &edm.EnumType{Name: "Format", Flags: true, Members: []edm.EnumMember{
		{Name: "Hardcover", Value: 1}, {Name: "Paperback", Value: 2}, {Name: "Ebook", Value: 4}}}
	geo := &edm.ComplexType{Name: "Geo", Properties: []*edm.Property{
		{Name: "Lat", Type: edm.KindDouble}, {Name: "Lon", Type: edm.KindDouble}}}
	address := &edm.ComplexType{Name: "Address", Properties: []*edm.Property{
		{Name: "Street", Type: edm.KindString, Nullable: true, MaxLength: 100},
		{Name: "City", Type: edm.KindString},
		{Name: "Geo", Complex: geo},
	}}
	size := &edm.ComplexType{Name: "Size", Properties: []*edm.Property{
		{Name: "Width", Type: edm.KindInt32, Default: 0},
		{Name: "Height", Type: edm.KindInt32, Default: 0},
	}}
	id := func() *edm.Property {
		return &edm.Property{Name: "Id", Type: edm.KindString, MaxLength: 24, ReadOnly: true}
	}
	return &edm.Model{
		Namespace: "Lib",
		EntityTypes: []*edm.EntityType{
			{Name: "Publisher", Key: []string{"Id"}, Properties: []*edm.Property{
				id(),
				{Name: "Name", Type: edm.KindString, MaxLength: 100},
				{Name: "Address", Complex: address, Nullable: true},
				{Name: "Founded", Type: edm.KindDate, Nullable: true},
				{Name: "CreatedOnUtc", Type: edm.KindDateTimeOffset, ReadOnly: true},
			}, Navigations: []*edm.NavigationProperty{
				{Name: "Books", Target: "Book", Collection: true, Partner: "Publisher",
					Join: edm.Join{TargetColumns: []string{"publisher_id"}}},
			}},
			{Name: "Author", Key: []string{"Id"}, Properties: []*edm.Property{
				id(),
				{Name: "Name", Type: edm.KindString},
				{Name: "Photo", Type: edm.KindStream, Nullable: true},
			}, Navigations: []*edm.NavigationProperty{
				{Name: "Books", Target: "Book", Collection: true, Partner: "Authors",
					Join: edm.Join{Through: &edm.LinkTable{Table: "book_author",
						SourceColumns: []string{"author_id"}, TargetColumns: []string{"book_id"}}}},
			}},
			{Name: "Book", Key: []string{"Id"}, Properties: []*edm.Property{
				id(),
				{Name: "Title", Type: edm.KindString, MaxLength: 200},
				{Name: "Isbn", Type: edm.KindString, Nullable: true, MaxLength: 17},
				{Name: "Price", Type: edm.KindDecimal, Precision: 19, Scale: 4, Default: decimal.RequireFromString("9.99")},
				{Name: "Pages", Type: edm.KindInt32},
				{Name: "Edition", Type: edm.KindInt16, Default: 1},
				{Name: "Flag", Type: edm.KindByte},
				{Name: "Level", Type: edm.KindSByte},
				{Name: "Sold", Type: edm.KindInt64, ReadOnly: true},
				{Name: "Rating", Type: edm.KindDouble, Nullable: true},
				{Name: "Weight", Type: edm.KindSingle, Nullable: true},
				{Name: "InPrint", Type: edm.KindBoolean, Default: true},
				{Name: "Genre", Enum: genre, Default: "Fiction"},
				{Name: "Formats", Enum: format, Default: "Paperback"},
				{Name: "Published", Type: edm.KindDate, Nullable: true},
				{Name: "ReadingTime", Type: edm.KindDuration, Nullable: true},
				{Name: "ReleaseTime", Type: edm.KindTimeOfDay, Nullable: true},
				{Name: "UpdatedOnUtc", Type: edm.KindDateTimeOffset, Nullable: true, ReadOnly: true},
				{Name: "CatalogGuid", Type: edm.KindGuid, Nullable: true},
				{Name: "Stamp", Type: edm.KindBinary, Nullable: true, MaxLength: 16},
				{Name: "Size", Complex: size},
				{Name: "Tags", Type: edm.KindString, Collection: true, MaxLength: 20},
				{Name: "Genres", Enum: genre, Collection: true},
				{Name: "PublisherId", Type: edm.KindString, Nullable: true, MaxLength: 24},
				{Name: "Summary", Type: edm.KindString, SQL: "{{.}}.title || ' (' || {{.}}.pages || ')'"},
			}, Navigations: []*edm.NavigationProperty{
				{Name: "Publisher", Target: "Publisher", Nullable: true, Partner: "Books",
					Join: edm.Join{SourceColumns: []string{"publisher_id"}}},
				{Name: "Authors", Target: "Author", Collection: true, Partner: "Books",
					Join: edm.Join{Through: &edm.LinkTable{Table: "book_author",
						SourceColumns: []string{"book_id"}, TargetColumns: []string{"author_id"}}}},
				{Name: "Chapters", Target: "Chapter", Collection: true, ContainsTarget: true,
					Join: edm.Join{TargetColumns: []string{"book_id"}}},
				{Name: "Related", Target: "Book", Collection: true,
					Join: edm.Join{Through: &edm.LinkTable{Table: "book_related",
						SourceColumns: []string{"book_id"}, TargetColumns: []string{"related_book_id"}}}},
			}},
			{Name: "Chapter", Key: []string{"Number"}, Properties: []*edm.Property{
				{Name: "Number", Type: edm.KindInt32},
				{Name: "Title", Type: edm.KindString, Nullable: true},
			}},
			{Name: "Loan", Key: []string{"BookId", "MemberNo"}, Properties: []*edm.Property{
				{Name: "BookId", Type: edm.KindString, MaxLength: 24},
				{Name: "MemberNo", Type: edm.KindInt32},
				{Name: "Due", Type: edm.KindDate, Nullable: true},
			}, Navigations: []*edm.NavigationProperty{
				{Name: "Book", Target: "Book", Join: edm.Join{SourceColumns: []string{"book_id"}}},
			}},
			{Name: "Member", Key: []string{"Email"}, Properties: []*edm.Property{
				id(),
				{Name: "Email", Type: edm.KindString, MaxLength: 100},
				{Name: "Roles", Type: edm.KindString, Collection: true, Nullable: true,
					CollectionTable: &edm.CollectionTable{Table: "member_role", SourceColumns: []string{"id"},
						OwnerColumns: []string{"member_id"}}},
			}},
			{Name: "Shelf", Key: []string{"Id"}, Properties: []*edm.Property{
				id(),
				{Name: "Label", Type: edm.KindString},
			}, Navigations: []*edm.NavigationProperty{
				{Name: "Books", Target: "Book", Collection: true,
					Join: edm.Join{Through: &edm.LinkTable{Table: "shelf_book",
						SourceColumns: []string{"shelf_id"}, TargetColumns: []string{"book_id"}}}},
			}},
			{Name: "ShelfBook", Key: []string{"ShelfId", "BookId"}, Properties: []*edm.Property{
				{Name: "ShelfId", Type: edm.KindString, MaxLength: 24},
				{Name: "BookId", Type: edm.KindString, MaxLength: 24},
				{Name: "Position", Type: edm.KindInt32},
			}},
		},
		EntitySets: []*edm.EntitySet{
			{Name: "Publishers", Type: "Publisher"}, {Name: "Authors", Type: "Author"}, {Name: "Books", Type: "Book"},
			{Name: "Loans", Type: "Loan"}, {Name: "Members", Type: "Member"}, {Name: "Shelves", Type: "Shelf"},
			{Name: "ShelfBooks", Type: "ShelfBook"},
		},
	}
}

// builtModel returns libraryModel built, with change applied first when not nil.
func builtModel(t testing.TB, change func(m *edm.Model)) *edm.Model {
	t.Helper()
	m := libraryModel()
	if change != nil {
		change(m)
	}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	return m
}

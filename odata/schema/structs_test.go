package schema_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/schema"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
)

// The structs of libraryModel: the same model declared as Go types with tags (edm.EntityTypesOf).

type genre int16

func (genre) EnumType() *edm.EnumType {
	return &edm.EnumType{Name: "Genre", UnderlyingType: edm.KindInt16, Members: []edm.EnumMember{
		{Name: "Fiction", Value: 1}, {Name: "Science", Value: 2}}}
}

type format int32

func (format) EnumType() *edm.EnumType {
	return &edm.EnumType{Name: "Format", Flags: true, Members: []edm.EnumMember{
		{Name: "Hardcover", Value: 1}, {Name: "Paperback", Value: 2}, {Name: "Ebook", Value: 4}}}
}

type Geo struct{ Lat, Lon float64 }

type Address struct {
	Street *string `odata:",maxlength=100"`
	City   string
	Geo    Geo
}

type Size struct {
	Width  int32 `odata:",default=0"`
	Height int32 `odata:",default=0"`
}

// entity is embedded by the types keyed by a string the engine generates: its field is theirs.
type entity struct {
	Id string `odata:",key,maxlength=24,readonly"`
}

type Publisher struct {
	entity
	Name         string `odata:",maxlength=100"`
	Address      *Address
	Founded      *edm.Date
	CreatedOnUtc time.Time `odata:",readonly"`
	Books        []Book    `odata:",fk=PublisherId,partner=Publisher"`
}

type Author struct {
	entity
	Name  string
	Photo []byte  `odata:",type=Stream,nullable"`
	Books []*Book `odata:",link=book_author,partner=Authors"`
}

type Book struct {
	entity
	Title       string          `odata:",maxlength=200"`
	Isbn        *string         `odata:",maxlength=17"`
	Price       decimal.Decimal `odata:",precision=19,scale=4,default=9.99"`
	Pages       int32
	Edition     int16 `odata:",default=1"`
	Flag        uint8
	Level       int8
	Sold        int64 `odata:",readonly"`
	Rating      *float64
	Weight      *float32
	InPrint     bool   `odata:",default=true"`
	Genre       genre  `odata:",default=Fiction"`
	Formats     format `odata:",default=Paperback"`
	Published   *edm.Date
	ReadingTime *time.Duration
	ReleaseTime *edm.TimeOfDay
	Updated     *time.Time `odata:"UpdatedOnUtc,readonly"`
	CatalogGuid *string    `odata:",type=Guid"`
	Stamp       []byte     `odata:",maxlength=16,nullable"`
	Size        Size
	Tags        []string `odata:",maxlength=20"`
	Genres      []genre
	PublisherId *string        `odata:",maxlength=24"`
	Summary     string         // computed by SQL: set on the declaration
	Publisher   *Publisher     `odata:",fk=PublisherId,nullable,partner=Books"`
	Authors     []Author       `odata:",link=book_author,partner=Books"`
	Chapters    []Chapter      `odata:",fkcolumns=book_id,contains"`
	Related     []Book         `odata:",link=book_related,linktarget=related_book_id"`
	internal    map[string]int // unexported: not a property
	Scratch     map[string]int `odata:"-"`
}

type Chapter struct {
	Number int32 `odata:",key"`
	Title  *string
}

type Loan struct {
	BookId   string `odata:",key,maxlength=24"`
	MemberNo int32  `odata:",key"`
	Due      *edm.Date
	Book     Book `odata:",fk=BookId"`
}

type Member struct {
	Id    string    `odata:",maxlength=24,readonly"`
	Email string    `odata:",key,maxlength=100"`
	Roles []*string // its side table: set on the declaration
}

type Shelf struct {
	entity
	Label string
	Books []Book `odata:",link=shelf_book"`
}

type ShelfBook struct {
	ShelfId  string `odata:",key,maxlength=24"`
	BookId   string `odata:",key,maxlength=24"`
	Position int32
}

// structModel is libraryModel derived from the structs above, with what tags do not say set on the declarations.
func structModel(t *testing.T) *edm.Model {
	t.Helper()
	types, err := edm.EntityTypesOf(Publisher{}, Author{}, (*Book)(nil), Chapter{}, Loan{}, Member{}, Shelf{}, ShelfBook{})
	if err != nil {
		t.Fatal(err)
	}
	m := &edm.Model{Namespace: "Lib", EntityTypes: types, EntitySets: libraryModel().EntitySets}
	for _, p := range types[2].Properties {
		if p.Name == "Summary" {
			p.SQL = "{{.}}.title || ' (' || {{.}}.pages || ')'"
		}
	}
	types[5].Properties[2].CollectionTable = &edm.CollectionTable{Table: "member_role", SourceColumns: []string{"id"},
		OwnerColumns: []string{"member_id"}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestEntityTypesOf_SameAsLiteral compares the model derived from structs with libraryModel, declared literally:
// the same DDL on both databases and the same CSDL, XML and JSON.
func TestEntityTypesOf_SameAsLiteral(t *testing.T) {
	literal, derived := builtModel(t, nil), structModel(t)
	for _, d := range []sqldb.Dialect{sqlite.Dialect{}, postgres.Dialect{}} {
		want, err := schema.Create(d, literal)
		if err != nil {
			t.Fatal(err)
		}
		got, err := schema.Create(d, derived)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Create(%s) of the struct model differs from the literal model's (-literal +struct):\n%s", d.Name(), diff)
		}
	}
	for _, w := range []struct {
		name  string
		write func(m *edm.Model, b *bytes.Buffer) error
	}{
		{"XML", func(m *edm.Model, b *bytes.Buffer) error { return m.WriteXML(b) }},
		{"JSON", func(m *edm.Model, b *bytes.Buffer) error { return m.WriteJSON(b) }},
	} {
		var want, got bytes.Buffer
		if err := w.write(literal, &want); err != nil {
			t.Fatal(err)
		}
		if err := w.write(derived, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(strings.Split(want.String(), "\n"), strings.Split(got.String(), "\n")); diff != "" {
			t.Errorf("CSDL %s of the struct model differs from the literal model's (-literal +struct):\n%s", w.name, diff)
		}
	}
}

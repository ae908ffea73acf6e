package odata_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
)

// TestService_BinaryJSON checks that Binary values are written in base64url, as OData JSON has it, and read in
// either alphabet, with or without padding.
func TestService_BinaryJSON(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct {
			sent string
			want string
		}{
			{`"+/+/"`, "-_-_"},
			{`"-_-_"`, "-_-_"},
			{`"AAEC/w=="`, "AAEC_w"},
			{`"AAEC_w"`, "AAEC_w"},
			{`"AAEC/w"`, "AAEC_w"},
			{`""`, ""},
		} {
			got := decodeJSON(t, f.must(200, "PATCH", "/odata/Book('b1')", `{"Stamp":`+tc.sent+`}`).Body)["Stamp"]
			if got != tc.want {
				t.Errorf("PATCH Stamp %s: answer %v, want %q", tc.sent, got, tc.want)
			}
			if got := decodeJSON(t, f.must(200, "GET", "/odata/Book('b1')?$select=Stamp", "").Body)["Stamp"]; got != tc.want {
				t.Errorf("PATCH Stamp %s, then GET: %v, want %q", tc.sent, got, tc.want)
			}
		}
	})
}

// TestService_JSONFormatNegotiation checks the parameters of the JSON format a client asks for with Accept or
// $format: odata.metadata minimal, full or none (metadata, as 4.01 allows), IEEE754Compatible; a value the
// service does not know is a 406.
func TestService_JSONFormatNegotiation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct {
			query, accept string
			status        int
			contentType   string
		}{
			{"", "", 200, "application/json;odata.metadata=minimal"},
			{"", "application/json;odata.metadata=full", 200, "application/json;odata.metadata=full"},
			{"", "application/json;odata.metadata=FULL", 200, "application/json;odata.metadata=full"},
			{"", "application/json;metadata=full", 200, "application/json;odata.metadata=full"},
			{"", "application/json;odata.metadata=none", 200, "application/json;odata.metadata=none"},
			{"", "application/json;IEEE754Compatible=true", 200, "application/json;odata.metadata=minimal;IEEE754Compatible=true"},
			{"", "application/json;odata.metadata=full;IEEE754Compatible=true", 200, "application/json;odata.metadata=full;IEEE754Compatible=true"},
			{"", "application/json;IEEE754Compatible=false", 200, "application/json;odata.metadata=minimal"},
			{"", "application/json;odata.metadata=bogus", 406, "application/json;odata.metadata=minimal"},
			{"", "application/json;IEEE754Compatible=maybe", 406, "application/json;odata.metadata=minimal"},
			{"", "application/json;odata.metadata=bogus, */*;q=0.5", 200, "application/json;odata.metadata=minimal"},
			{"", "application/json;odata.metadata=bogus, application/json;odata.metadata=none;q=0.5", 200, "application/json;odata.metadata=none"},
			{"?$format=application/json;odata.metadata=full", "", 200, "application/json;odata.metadata=full"},
			{"?$format=application/json;odata.metadata=bogus", "", 406, "application/json;odata.metadata=minimal"},
			{"?$format=application/json;IEEE754Compatible=true", "text/html", 200, "application/json;odata.metadata=minimal;IEEE754Compatible=true"},
		} {
			for _, path := range []string{"/odata/Book('b1')", "/odata/Book", "/odata/Book('b1')/Title", "/odata/"} {
				resp := f.do("GET", path+tc.query, "", "Accept", tc.accept)
				if resp.Status != tc.status || resp.Header.Get("Content-Type") != tc.contentType {
					t.Errorf("GET %s%s Accept %q = %d %q, want %d %q\n%s", path, tc.query, tc.accept, resp.Status,
						resp.Header.Get("Content-Type"), tc.status, tc.contentType, resp.Body)
				}
				if tc.status == 406 && decodeError(t, resp.Body).Code != "NotAcceptable" {
					t.Errorf("GET %s%s Accept %q: %s, want NotAcceptable", path, tc.query, tc.accept, resp.Body)
				}
			}
		}
	})
}

// etagPattern matches the ETags in an answer, which TestService_JSONFormat leaves out of its comparisons.
var etagPattern = regexp.MustCompile(`W/\\"[0-9a-f]{16}\\"`)

// TestService_JSONFormat checks the control information and number forms of answers: @odata.id for an entity
// whose key is not selected, the members odata.metadata=full adds (types, ids, edit, navigation and media
// links), none of them with odata.metadata=none, and Int64 and Decimal values as strings with
// IEEE754Compatible=true, in reads, expansions, writes and action results.
func TestService_JSONFormat(t *testing.T) {
	const (
		full = "application/json;odata.metadata=full"
		none = "application/json;odata.metadata=none"
		ieee = "application/json;IEEE754Compatible=true"
	)
	base := "http://example.com/odata/"
	for _, tc := range []struct {
		name, method, path, body, accept string
		want                             string
	}{
		{"a $select without the key gives the id", "GET", "/odata/Book('b1')?$select=Title", "", "",
			`{"@odata.context":"` + base + `$metadata#Book(Title)/$entity","@odata.id":"` + base + `Book('b1')","@odata.etag":"*","Title":"Alpha"}`},
		{"a $select with the key does not", "GET", "/odata/Book('b1')?$select=Id,Title", "", "",
			`{"@odata.context":"` + base + `$metadata#Book(Id,Title)/$entity","@odata.etag":"*","Id":"b1","Title":"Alpha"}`},
		{"ids of contained entities in an expansion", "GET", "/odata/Book('b1')?$select=Id&$expand=Chapters($select=Title;$top=1)", "", "",
			`{"@odata.context":"` + base + `$metadata#Book(Id,Chapters(Title))/$entity","@odata.etag":"*","Id":"b1",` +
				`"Chapters":[{"@odata.id":"` + base + `Book('b1')/Chapters('c1')","@odata.etag":"*","Title":"One"}]}`},
		{"ids of contained entities read through their container", "GET", "/odata/Book(%27b1%27)/Chapters?$select=Title&$top=1", "", "",
			`{"@odata.context":"` + base + `$metadata#Book(%27b1%27)/Chapters(Title)","value":[{"@odata.id":"` + base +
				`Book('b1')/Chapters('c1')","@odata.etag":"*","Title":"One"}]}`},
		{"none", "GET", "/odata/Book?$select=Title&$top=1&$count=true", "", none,
			`{"@odata.count":3,"value":[{"Title":"Alpha"}]}`},
		{"full", "GET", "/odata/Publisher('p1')?$select=Id,Name,Address,Founded", "", full,
			`{"@odata.context":"` + base + `$metadata#Publisher(Id,Name,Address,Founded)/$entity","@odata.type":"#Lib.Publisher",` +
				`"@odata.id":"` + base + `Publisher('p1')","@odata.etag":"*","@odata.editLink":"` + base + `Publisher('p1')",` +
				`"Id":"p1","Name":"Penguin","Address":{"@odata.type":"#Lib.Address","Street":"80 Strand","City":"London","Zip":"WC2R"},` +
				`"Founded@odata.type":"#Date","Founded":"1935-07-30","Books@odata.navigationLink":"` + base + `Publisher('p1')/Books"}`},
		{"full with expansions and IEEE754Compatible", "GET",
			"/odata/Book('b1')?$select=Price,Sold,Pages,Stamp,Tags&$expand=Publisher($select=Name),Chapters($select=Number;$top=1)", "",
			full + ";IEEE754Compatible=true",
			`{"@odata.context":"` + base + `$metadata#Book(Price,Sold,Pages,Stamp,Tags,Publisher(Name),Chapters(Number))/$entity",` +
				`"@odata.type":"#Lib.Book","@odata.id":"` + base + `Book('b1')","@odata.etag":"*","@odata.editLink":"` + base + `Book('b1')",` +
				`"Price@odata.type":"#Decimal","Price":"12.5","Pages":100,"Sold@odata.type":"#Int64","Sold":"0","Stamp":null,` +
				`"Tags@odata.type":"#Collection(String)","Tags":["classic","paper"],` +
				`"Authors@odata.navigationLink":"` + base + `Book('b1')/Authors","Covers@odata.navigationLink":"` + base + `Book('b1')/Covers",` +
				`"Publisher@odata.navigationLink":"` + base + `Book('b1')/Publisher","Publisher":{"@odata.type":"#Lib.Publisher",` +
				`"@odata.id":"` + base + `Publisher('p1')","@odata.etag":"*","@odata.editLink":"` + base + `Publisher('p1')","Name":"Penguin",` +
				`"Books@odata.navigationLink":"` + base + `Publisher('p1')/Books"},` +
				`"Chapters@odata.navigationLink":"` + base + `Book('b1')/Chapters","Chapters":[{"@odata.type":"#Lib.Chapter",` +
				`"@odata.id":"` + base + `Book('b1')/Chapters('c1')","@odata.etag":"*","@odata.editLink":"` + base + `Book('b1')/Chapters('c1')","Number":1}]}`},
		{"full for a media entity", "GET", "/odata/Cover('v1')", "", full,
			`{"@odata.context":"` + base + `$metadata#Cover/$entity","@odata.type":"#Lib.Cover","@odata.id":"` + base + `Cover('v1')",` +
				`"@odata.etag":"*","@odata.editLink":"` + base + `Cover('v1')","@odata.mediaReadLink":"` + base + `Cover('v1')/$value",` +
				`"@odata.mediaEditLink":"` + base + `Cover('v1')/$value","Id":"v1","BookId":"b1","MimeType":"image/png"}`},
		{"minimal for a media entity: its media read link", "GET", "/odata/Cover?$select=MimeType", "", "",
			`"value":[{"@odata.id":"` + base + `Cover('v1')","@odata.etag":"*","@odata.mediaReadLink":"` + base + `Cover('v1')/$value","MimeType":"image/png"}`},
		{"none for a media entity: no media link", "GET", "/odata/Cover('v1')", "", none,
			`{"Id":"v1","BookId":"b1","MimeType":"image/png"}`},
		{"IEEE754Compatible for a property", "GET", "/odata/Book('b1')/Sold", "", ieee,
			`{"@odata.context":"` + base + `$metadata#Book('b1')/Sold","value":"0"}`},
		{"IEEE754Compatible: strings for Int64 and Decimal only", "PATCH", "/odata/Book('b2')?$select=Price", `{"Price":"13.25","Pages":"7"}`, ieee,
			`{"error":{"code":"ValidationFailed"`},
		{"IEEE754Compatible in a write", "PATCH", "/odata/Book('b2')", `{"Price":"13.25"}`, ieee,
			`"Price":"13.25","Pages":200,`},
		{"full in a write", "PATCH", "/odata/Publisher('p1')", `{"Founded":null}`, full,
			`{"@odata.context":"` + base + `$metadata#Publisher/$entity","@odata.type":"#Lib.Publisher","@odata.id":"` + base + `Publisher('p1')",`},
		{"full in an action result", "POST", "/odata/Book('b1')/Reprint", "", full + ";IEEE754Compatible=true",
			`"@odata.type":"#Lib.Book","@odata.id":"` + base + `Book('b1')","@odata.etag":"*","@odata.editLink":"` + base + `Book('b1')","Id":"b1",` +
				`"Title":"Alpha","Isbn":null,"Price@odata.type":"#Decimal","Price":"12.5","Pages":100,"Edition@odata.type":"#Int16","Edition":2,`},
		{"IEEE754Compatible in an action result", "POST", "/odata/Book/Discount", `{"Percent":"10"}`, ieee,
			`{"@odata.context":"` + base + `$metadata#Edm.Int32","value":3}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
				f := newFixture(t, db)
				f.seed()
				f.exec(`INSERT INTO cover (id, book_id, mime_type, data) VALUES ('v1', 'b1', 'image/png', ?)`, []byte{1, 2})
				resp := f.do(tc.method, tc.path, tc.body, "Accept", tc.accept)
				got := etagPattern.ReplaceAllString(resp.Body, "*")
				if !strings.Contains(got, tc.want) {
					t.Errorf("%s %s Accept %q = %d\n%s\nwant it to hold\n%s", tc.method, tc.path, tc.accept, resp.Status, got, tc.want)
				}
			})
		})
	}
}

// TestService_ServiceDocumentImports checks that the service document lists each function import once, however
// many overloads it has, and no action import (they are not read with GET), and that $metadata declares each
// import once. SQLite only: both come from the model, no SQL is run.
func TestService_ServiceDocumentImports(t *testing.T) {
	f := newFixtureWith(t, dbtest.SQLite(t), func(cfg *odata.Config) {
		m := libraryModel()
		m.Functions = []*edm.Function{
			{Name: "Bestsellers", ReturnType: &edm.ReturnType{Entity: "Book", Collection: true}},
			{Name: "Bestsellers", Parameters: []edm.Parameter{{Name: "Top", Type: edm.KindInt32}},
				ReturnType: &edm.ReturnType{Entity: "Book", Collection: true}},
			{Name: "Similar", Bound: true, BindingType: "Book", ReturnType: &edm.ReturnType{Entity: "Book", Collection: true}},
		}
		if err := m.Build(); err != nil {
			t.Fatal(err)
		}
		cfg.Model = m
		cfg.Sets, cfg.Actions = libraryConfig(m)
		none := func(context.Context, *odata.FunctionCall) (any, error) { return nil, nil }
		cfg.Functions = map[string]odata.FunctionFunc{"Bestsellers": none, "Book/Similar": none}
	})
	var doc struct {
		Value []struct{ Name, Kind, URL string }
	}
	if err := json.Unmarshal([]byte(f.must(200, "GET", "/odata/", "").Body), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range doc.Value {
		got = append(got, v.Kind+" "+v.Name+" "+v.URL)
	}
	want := []string{"EntitySet Publisher Publisher", "EntitySet Author Author", "EntitySet Book Book",
		"EntitySet Cover Cover", "EntitySet Loan Loan", "EntitySet Member Member", "FunctionImport Bestsellers Bestsellers"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("service document (-want +got):\n%s", diff)
	}
	metadata := f.must(200, "GET", "/odata/$metadata", "").Body
	for _, element := range []string{`<FunctionImport Name="Bestsellers"`, `<ActionImport Name="Ping"`} {
		if n := strings.Count(metadata, element); n != 1 {
			t.Errorf("$metadata holds %s %d times, want once", element, n)
		}
	}
}

package odata_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// TestService_ApplyNest: nest gives one row (one per group within groupby) holding a collection per sequence,
// addnested adds the transformed related collection to each entity, both in the rows' order and followed by
// further transformations; misuse is 400 and what is not translated 501, on both databases.
func TestService_ApplyNest(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct {
			name, query string
			// keep, when set, are the members kept of the objects of the collections (entities have many).
			keep []string
			want string
		}{
			{"nest at the top", "Book?$apply=nest(groupby((Title))%20as%20Titles)", nil,
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Titles())","value":[{"Titles":[{"Title":"Alpha"},{"Title":"Beta"},{"Title":"Gamma"}]}]}`},
			{"two sequences, each over the input set",
				"Book?$apply=filter(Pages%20gt%20100)/nest(aggregate($count%20as%20N)%20as%20C,groupby((Title),aggregate(Pages%20with%20sum%20as%20P))%20as%20T)", nil,
				`{"@odata.context":"http://example.com/odata/$metadata#Book(C(),T())","value":[{"C":[{"N":2}],"T":[{"Title":"Beta","P":200},{"Title":"Gamma","P":300}]}]}`},
			{"entities in the order of the sequence", "Book?$apply=nest(orderby(Pages%20desc)/top(2)%20as%20Top)", []string{"Id", "Pages"},
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Top())","value":[{"Top":[{"Id":"b3","Pages":300},{"Id":"b2","Pages":200}]}]}`},
			{"an empty collection", "Book?$apply=nest(filter(Pages%20gt%201000)/groupby((Title))%20as%20None)", nil,
				`{"@odata.context":"http://example.com/odata/$metadata#Book(None())","value":[{"None":[]}]}`},
			{"nest, then compute", "Book?$apply=nest(aggregate(Price%20with%20sum%20as%20Total)%20as%20S)/compute(1%20as%20One)", nil,
				`{"@odata.context":"http://example.com/odata/$metadata#Book(S(),One)","value":[{"S":[{"Total":37.5}],"One":1}]}`},
			{"nest within groupby, each group its own rows",
				"Book?$apply=groupby((Publisher/Name),nest(orderby(Pages%20desc)/top(2)%20as%20Top))", []string{"Title"},
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Publisher(Name),Top())","value":[{"Publisher":{"Name":"Penguin"},"Top":[{"Title":"Gamma"},{"Title":"Beta"}]}]}`},
			{"nest within groupby, then orderby and top",
				"Book?$apply=groupby((Title),nest(aggregate(Pages%20with%20sum%20as%20P)%20as%20S))/orderby(Title%20desc)/top(2)", nil,
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Title,S())","value":[{"Title":"Gamma","S":[{"P":300}]},{"Title":"Beta","S":[{"P":200}]}]}`},
			{"nest within groups of a computed value",
				"Book?$apply=compute(Pages%20mul%202%20as%20Twice)/groupby((Twice),nest(aggregate($count%20as%20N)%20as%20C))/filter(Twice%20gt%20300)", nil,
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Twice,C())","value":[{"Twice":400,"C":[{"N":1}]},{"Twice":600,"C":[{"N":1}]}]}`},
			{"nest within nest", "Book?$apply=nest(groupby((Title),nest(aggregate($count%20as%20N)%20as%20C))%20as%20T)&$select=T", nil,
				`{"@odata.context":"http://example.com/odata/$metadata#Book(T())","value":[{"T":[{"Title":"Alpha","C":[{"N":1}]},{"Title":"Beta","C":[{"N":1}]},{"Title":"Gamma","C":[{"N":1}]}]}]}`},
			{"nest in a concat", "Book?$apply=concat(nest(groupby((Title))%20as%20T),aggregate($count%20as%20N))", nil,
				`{"@odata.context":"http://example.com/odata/$metadata#Book(T(),N)","value":[{"T":[{"Title":"Alpha"},{"Title":"Beta"},{"Title":"Gamma"}]},{"N":3}]}`},
			{"a concat in a nest: each row its own members", "Book?$apply=nest(concat(groupby((Title)),aggregate($count%20as%20N))%20as%20C)", nil,
				`{"@odata.context":"http://example.com/odata/$metadata#Book(C())","value":[{"C":[{"Title":"Alpha"},{"Title":"Beta"},{"Title":"Gamma"},{"N":3}]}]}`},
			{"a collection of collections", "Book?$apply=nest(nest(aggregate($count%20as%20N)%20as%20C)%20as%20Outer)", nil,
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Outer())","value":[{"Outer":[{"C":[{"N":3}]}]}]}`},
			{"addnested with filter and orderby inside",
				"Book?$apply=addnested(Chapters,filter(Number%20ge%201)/orderby(Number%20desc)%20as%20Late)&$select=Id,Late&$orderby=Id", []string{"Title"},
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Id,Late())","value":[{"Id":"b1","Late":[{"Title":"Two"},{"Title":"One"}]},{"Id":"b2","Late":[{"Title":"Uno"}]},{"Id":"b3","Late":[]}]}`},
			{"addnested through a link table, then filter",
				"Book?$apply=addnested(Authors,aggregate($count%20as%20N)%20as%20Count)/filter(Pages%20gt%20100)&$select=Id,Count", nil,
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Id,Count())","value":[{"Id":"b2","Count":[{"N":2}]},{"Id":"b3","Count":[{"N":0}]}]}`},
			{"addnested keeps the order of the entities",
				"Book?$apply=orderby(Pages%20desc)/addnested(Chapters,groupby((Title))%20as%20C)&$select=Id,C", nil,
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Id,C())","value":[{"Id":"b3","C":[]},{"Id":"b2","C":[{"Title":"Uno"}]},{"Id":"b1","C":[{"Title":"One"},{"Title":"Two"}]}]}`},
		} {
			resp := f.must(200, "GET", "/odata/"+tc.query, "")
			got := decodeJSON(t, resp.Body)
			if tc.keep != nil {
				keepMembers(got, tc.keep)
			}
			if diff := cmp.Diff(numbers(decodeJSON(t, tc.want)), numbers(got)); diff != "" {
				t.Errorf("%s: GET %s (-want +got):\n%s", tc.name, tc.query, diff)
			}
		}
		for _, tc := range []struct {
			query  string
			status int
			code   string
		}{
			{"Book?$apply=nest(groupby((Title)))", 400, "SyntaxError"},
			{"Book?$apply=nest(identity%20as%20A,identity%20as%20A)", 400, "SyntaxError"},
			{"Book?$apply=groupby((Title),nest(identity%20as%20Title))", 400, "SyntaxError"},
			{"Book?$apply=nest(groupby((Title))%20as%20T)/filter(T%20eq%20null)", 400, "UnknownProperty"},
			{"Book?$apply=nest(groupby((Title))%20as%20T)&$orderby=T", 400, "UnknownProperty"},
			{"Book?$apply=nest(groupby((Nope))%20as%20T)", 400, "UnknownProperty"},
			{"Book?$apply=addnested(Nope,identity%20as%20X)", 400, "UnknownProperty"},
			{"Book?$apply=addnested(Chapters,identity%20as%20Title)", 400, "SyntaxError"},
			{"Book?$apply=addnested(Chapters,identity)", 400, "SyntaxError"},
			{"Book?$apply=addnested(Publisher,filter(Name%20eq%20'x')%20as%20P)", 400, "SyntaxError"},
			{"Book?$apply=groupby((Title))/addnested(Chapters,identity%20as%20C)", 501, "NotImplemented"},
			{"Book?$apply=nest(expand(Chapters)%20as%20T)", 501, "NotImplemented"},
			{"Book?$apply=groupby((Title),nest(identity%20as%20T)/aggregate($count%20as%20N))", 501, "NotImplemented"},
			{"Book?$apply=concat(nest(identity%20as%20A),nest(identity%20as%20A))", 501, "NotImplemented"},
			{"Book?$apply=addnested(Chapters,identity%20as%20A,identity%20as%20B)", 501, "NotImplemented"},
		} {
			resp := f.do("GET", "/odata/"+tc.query, "")
			if resp.Status != tc.status || !strings.Contains(resp.Body, `"code":"`+tc.code+`"`) {
				t.Errorf("GET %s = %d %s, want %d %s", tc.query, resp.Status, resp.Body, tc.status, tc.code)
			}
		}
	})
}

// TestService_ApplyAddNestedSingle: addnested over a single-valued navigation adds its target, transformed, as
// an object, and leaves the property out of an entity without one, on both databases.
func TestService_ApplyAddNestedSingle(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		f.exec(`INSERT INTO book (id, title, price, pages, edition, flag, level, in_print, genre, formats, size_width, size_height)
			VALUES ('b4', 'Delta', ?, 50, 1, 0, 0, ?, 1, 2, 10, 20)`, priceArg(db, "1"), boolArg(db, false))
		const query = "/odata/Book?$apply=addnested(Publisher,compute(length(Name)%20as%20Letters)%20as%20P)&$select=Id,P&$orderby=Id"
		got := decodeJSON(t, f.must(200, "GET", query, "").Body)
		rows, _ := got["value"].([]any)
		for _, row := range rows {
			if p, ok := row.(map[string]any)["P"].(map[string]any); ok {
				for name := range p {
					if name != "Name" && name != "Letters" {
						delete(p, name)
					}
				}
			}
		}
		penguin := `{"Name":"Penguin","Letters":7}`
		want := `{"@odata.context":"http://example.com/odata/$metadata#Book(Id,P())","value":[{"Id":"b1","P":` + penguin +
			`},{"Id":"b2","P":` + penguin + `},{"Id":"b3","P":` + penguin + `},{"Id":"b4"}]}`
		if diff := cmp.Diff(numbers(decodeJSON(t, want)), numbers(got)); diff != "" {
			t.Errorf("GET %s (-want +got):\n%s", query, diff)
		}
	})
}

// TestService_ApplyNestFormats: the rows of a collection follow the answer's format as the rows around them do.
func TestService_ApplyNestFormats(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		const query = "/odata/Book?$apply=nest(filter(Title%20eq%20'Alpha')/groupby((Title),aggregate(Pages%20with%20sum%20as%20Pages,Price%20with%20sum%20as%20Total,Rating%20with%20max%20as%20Best))%20as%20R)"
		for _, tc := range []struct {
			name    string
			headers []string
			want    string
		}{
			{"full", []string{"Accept", "application/json;odata.metadata=full"},
				`{"@odata.context":"http://example.com/odata/$metadata#Book(R())","value":[{"R":[{"Title":"Alpha","Pages@odata.type":"#Int64","Pages":100,"Total@odata.type":"#Decimal","Total":12.5,"Best":null}]}]}`},
			{"IEEE754Compatible", []string{"Accept", "application/json;IEEE754Compatible=true"},
				`{"@odata.context":"http://example.com/odata/$metadata#Book(R())","value":[{"R":[{"Title":"Alpha","Pages":"100","Total":"12.5","Best":null}]}]}`},
			{"omit nulls, no metadata", []string{"Accept", "application/json;odata.metadata=none", "Prefer", "omit-values=nulls"},
				`{"value":[{"R":[{"Title":"Alpha","Pages":100,"Total":12.5}]}]}`},
		} {
			resp := f.must(200, "GET", query, "", tc.headers...)
			if diff := cmp.Diff(decodeJSON(t, tc.want), decodeJSON(t, resp.Body)); diff != "" {
				t.Errorf("%s: GET %s (-want +got):\n%s", tc.name, query, diff)
			}
		}
	})
}

// TestService_ApplyNestLimit: a collection holds at most Limits.MaxPageSize rows; one that would hold more is
// a 400 LimitExceeded, on both databases.
func TestService_ApplyNestLimit(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixtureWith(t, db, func(cfg *odata.Config) { cfg.Limits = odata.Limits{PageSize: 2, MaxPageSize: 2} })
		f.seed()
		for _, tc := range []struct {
			query  string
			status int
		}{
			{"Book?$apply=nest(filter(Pages%20gt%20100)/groupby((Title))%20as%20T)", 200},
			{"Book?$apply=nest(groupby((Title))%20as%20T)", 400},
			{"Book?$apply=addnested(Chapters,identity%20as%20C)", 200},
			{"Book?$apply=groupby((Publisher/Name),nest(identity%20as%20All))", 400},
		} {
			resp := f.do("GET", "/odata/"+tc.query, "")
			if resp.Status != tc.status || tc.status == 400 && !strings.Contains(resp.Body, `"code":"LimitExceeded"`) {
				t.Errorf("GET %s = %d %s, want %d", tc.query, resp.Status, resp.Body, tc.status)
			}
		}
	})
}

// keepMembers reduces the objects of the collections in the rows of an answer to the members keep.
func keepMembers(answer map[string]any, keep []string) {
	rows, _ := answer["value"].([]any)
	for _, row := range rows {
		for _, v := range row.(map[string]any) {
			items, ok := v.([]any)
			if !ok {
				continue
			}
			for _, item := range items {
				object := item.(map[string]any)
				for name := range object {
					if !contains(keep, name) {
						delete(object, name)
					}
				}
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

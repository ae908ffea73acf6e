package odata_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// TestService_Apply: $apply answers entities while they stay the set's, and rows of their own (with the context
// URL's select list, nested objects for grouping through a navigation, a next link by offset) once aggregated;
// the query options after it apply to its result; mistakes are 400 and what is not translated 501, on both
// databases.
func TestService_Apply(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct {
			name, query string
			want        string
		}{
			{"count", "Book?$apply=aggregate($count%20as%20N)",
				`{"@odata.context":"http://example.com/odata/$metadata#Book(N)","value":[{"N":3}]}`},
			{"concat of sequences that differ: each row its own members, the sequences in order",
				"Book?$apply=concat(aggregate($count%20as%20N),aggregate(Price%20with%20sum%20as%20Total))",
				`{"@odata.context":"http://example.com/odata/$metadata#Book(N,Total)","value":[{"N":3},{"Total":37.5}]}`},
			{"concat, then filter on a member one sequence lacks",
				"Book?$apply=concat(groupby((Title)),aggregate($count%20as%20N))/filter(N%20eq%203%20or%20Title%20eq%20'Beta')",
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Title,N)","value":[{"Title":"Beta"},{"N":3}]}`},
			{"sum, exact decimal", "Book?$apply=aggregate(Price%20with%20sum%20as%20Total,Pages%20with%20max%20as%20Most)",
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Total,Most)","value":[{"Total":37.5,"Most":300}]}`},
			{"group through a navigation", "Book?$apply=groupby((Publisher/Name),aggregate(Pages%20with%20sum%20as%20Pages))",
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Publisher(Name),Pages)","value":[{"Publisher":{"Name":"Penguin"},"Pages":600}]}`},
			{"filter, then group, then filter", "Book?$apply=filter(Pages%20gt%20100)/groupby((Title),aggregate($count%20as%20N))/filter(Title%20ne%20'Beta')",
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Title,N)","value":[{"Title":"Gamma","N":1}]}`},
			{"options after $apply", "Book?$apply=groupby((Title))&$orderby=Title%20desc&$top=2&$count=true",
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Title)","@odata.count":3,"value":[{"Title":"Gamma"},{"Title":"Beta"}]}`},
			{"average of a decimal", "Book?$apply=aggregate(Price%20with%20average%20as%20Mean)",
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Mean)","value":[{"Mean":12.5}]}`},
			{"a join", "Book?$apply=join(Chapters%20as%20C)/groupby((Title,C/Title))&$orderby=C/Title",
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Title,C(Title))","value":[{"Title":"Alpha","C":{"Title":"One"}},{"Title":"Alpha","C":{"Title":"Two"}},{"Title":"Beta","C":{"Title":"Uno"}}]}`},
		} {
			resp := f.must(200, "GET", "/odata/"+tc.query, "")
			if diff := cmp.Diff(numbers(decodeJSON(t, tc.want)), numbers(decodeJSON(t, resp.Body))); diff != "" {
				t.Errorf("%s: GET %s (-want +got):\n%s", tc.name, tc.query, diff)
			}
		}
		// Entities stay entities: filter, orderby and top give the set's entities, ETags included.
		body := f.must(200, "GET", "/odata/Book?$apply=filter(Pages%20ge%20200)/orderby(Pages%20desc)/top(1)&$select=Id", "").Body
		if got := withoutControls(decodeJSON(t, body)); !cmp.Equal(got, withoutControls(decodeJSON(t, `{"value":[{"Id":"b3"}]}`))) {
			t.Errorf("entities after $apply = %s", body)
		}
		// expand(...) adds a navigation to the entities, as $expand would.
		body = f.must(200, "GET", "/odata/Book?$apply=filter(Pages%20lt%20300)/expand(Chapters,filter(Number%20eq%201))&$select=Id", "").Body
		want := `{"value":[{"Id":"b1","Chapters":[{"Id":"c1","BookId":"b1","Number":1,"Title":"One"}]},{"Id":"b2","Chapters":[{"Id":"c3","BookId":"b2","Number":1,"Title":"Uno"}]}]}`
		if diff := cmp.Diff(withoutControls(decodeJSON(t, want)), withoutControls(decodeJSON(t, body))); diff != "" {
			t.Errorf("expand in $apply (-want +got):\n%s", diff)
		}
		// Pages of aggregated rows.
		page := f.must(200, "GET", "/odata/Book?$apply=groupby((Title))", "", "Prefer", "odata.maxpagesize=2")
		next, _ := decodeJSON(t, page.Body)["@odata.nextLink"].(string)
		if !strings.Contains(next, "$skiptoken=2") {
			t.Fatalf("first page %s: want a next link with $skiptoken=2", page.Body)
		}
		rest := f.must(200, "GET", strings.TrimPrefix(next, "http://example.com"), "", "Prefer", "odata.maxpagesize=2")
		if got := withoutControls(decodeJSON(t, rest.Body)); !cmp.Equal(got, withoutControls(decodeJSON(t, `{"value":[{"Title":"Gamma"}]}`))) {
			t.Errorf("second page = %s", rest.Body)
		}
		for _, tc := range []struct {
			query  string
			status int
			code   string
		}{
			{"Book?$apply=aggregate(Pages%20with%20total%20as%20T)", 400, "SyntaxError"},
			{"Book?$apply=aggregate(Title%20with%20sum%20as%20T)", 400, "TypeMismatch"},
			{"Book?$apply=aggregate(Nope%20with%20sum%20as%20T)", 400, "UnknownProperty"},
			{"Book?$apply=groupby((Title))/filter(Pages%20gt%201)", 400, "UnknownProperty"},
			{"Book?$apply=groupby((Title))&$select=Pages", 400, "UnknownProperty"},
			{"Book?$apply=aggregate(Pages%20with%20sum)", 400, "SyntaxError"},
			{"Book?$apply=topcount(0,Pages)", 400, "InvalidValue"},
			{"Book?$apply=toppercent(150,Pages)", 400, "InvalidValue"},
			{"Book?$apply=groupby((Title))&$skiptoken=x", 400, "InvalidValue"},
			{"Book?$apply=concat(aggregate($count%20as%20X),groupby((Title),aggregate(Title%20with%20max%20as%20X)))", 400, "TypeMismatch"},
			{"Book('b1')?$apply=identity", 400, "SyntaxError"},
			{"Book?$apply=groupby((Publisher))", 501, "NotImplemented"},
			{"Book?$apply=aggregate(Forecast)", 400, "UnknownProperty"},
			{"Book?$apply=aggregate(Pages%20as%20P)", 400, "SyntaxError"},
			{"Book?$apply=groupby((Title))&$expand=Chapters", 501, "NotImplemented"},
			{"Book?$expand=Chapters($apply=aggregate($count%20as%20N))", 501, "NotImplemented"},
			{"Book?$apply=aggregate(Pages%20with%20sum%20from%20Title,Edition%20with%20max%20as%20X)", 501, "NotImplemented"},
			{"Book?$apply=Lib.Condense()", 400, "SyntaxError"},
			{"Book?$filter=aggregate(Pages%20with%20sum)%20gt%205", 400, "TypeMismatch"},
			{"Book?$apply=groupby((rolluprecursive($root/Book,Tree,Id,filter(Id%20eq%20'b1'))))", 501, "NotImplemented"},
		} {
			resp := f.do("GET", "/odata/"+tc.query, "")
			if resp.Status != tc.status || !strings.Contains(resp.Body, `"code":"`+tc.code+`"`) {
				t.Errorf("GET %s = %d %s, want %d %s", tc.query, resp.Status, resp.Body, tc.status, tc.code)
			}
		}
	})
}

// TestService_ApplyFormats: aggregated rows follow the answer's format: value types with full metadata,
// Int64 and Decimal as strings with IEEE754Compatible, nulls left out with omit-values=nulls, no control
// information with none.
func TestService_ApplyFormats(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		const query = "/odata/Book?$apply=groupby((Title),aggregate(Pages%20with%20sum%20as%20Pages,Price%20with%20sum%20as%20Total,Rating%20with%20max%20as%20Best))&$filter=Title%20eq%20'Alpha'"
		for _, tc := range []struct {
			name    string
			headers []string
			want    string
		}{
			{"full", []string{"Accept", "application/json;odata.metadata=full"},
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Title,Pages,Total,Best)","value":[{"Title":"Alpha","Pages@odata.type":"#Int64","Pages":100,"Total@odata.type":"#Decimal","Total":12.5,"Best":null}]}`},
			{"IEEE754Compatible", []string{"Accept", "application/json;IEEE754Compatible=true"},
				`{"@odata.context":"http://example.com/odata/$metadata#Book(Title,Pages,Total,Best)","value":[{"Title":"Alpha","Pages":"100","Total":"12.5","Best":null}]}`},
			{"omit nulls, no metadata", []string{"Accept", "application/json;odata.metadata=none", "Prefer", "omit-values=nulls"},
				`{"value":[{"Title":"Alpha","Pages":100,"Total":12.5}]}`},
		} {
			resp := f.must(200, "GET", query, "", tc.headers...)
			if diff := cmp.Diff(decodeJSON(t, tc.want), decodeJSON(t, resp.Body)); diff != "" {
				t.Errorf("%s: GET %s (-want +got):\n%s", tc.name, query, diff)
			}
		}
	})
}

// TestService_AggregateExpressions: aggregate() in $filter, $orderby and $compute over related entities, and
// $these in $apply, on both databases.
func TestService_AggregateExpressions(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct{ query, want string }{
			{"Book?$filter=Chapters/aggregate($count)%20ge%202&$select=Id", `{"value":[{"Id":"b1"}]}`},
			{"Book?$compute=Chapters/aggregate(Number%20with%20max)%20as%20Last&$select=Id,Last&$orderby=Id",
				`{"value":[{"Id":"b1","Last":2},{"Id":"b2","Last":1},{"Id":"b3","Last":null}]}`},
			{"Book?$orderby=Chapters/aggregate(Number%20with%20sum)%20desc,Id&$select=Id", `{"value":[{"Id":"b1"},{"Id":"b2"},{"Id":"b3"}]}`},
			{"Book?$apply=filter(Pages%20gt%20$these/aggregate(Pages%20with%20average))&$select=Id", `{"value":[{"Id":"b3"}]}`},
			{"Book?$apply=groupby((Title),aggregate(Pages%20with%20sum%20as%20P))/compute(P%20mul%20100%20div%20$these/aggregate(P%20with%20sum)%20as%20Share)/filter(Title%20eq%20'Gamma')",
				`{"value":[{"Title":"Gamma","P":300,"Share":50}]}`},
		} {
			resp := f.must(200, "GET", "/odata/"+tc.query, "")
			if diff := cmp.Diff(numbers(withoutControls(decodeJSON(t, tc.want))), numbers(withoutControls(decodeJSON(t, resp.Body)))); diff != "" {
				t.Errorf("GET %s (-want +got):\n%s", tc.query, diff)
			}
		}
		resp := f.do("GET", "/odata/Book?$filter=Pages%20gt%20$these/aggregate(Pages%20with%20average)", "")
		if resp.Status != 501 {
			t.Errorf("$these outside $apply = %d %s, want 501", resp.Status, resp.Body)
		}
	})
}

// TestService_CrossJoinApply: $apply on a $crossjoin aggregates the combinations (paths start with a set's
// name, and so do the answer's nested objects); what does not aggregate is 501.
func TestService_CrossJoinApply(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct{ query, want string }{
			{"$crossjoin(Book,Publisher)?$apply=filter(Book/PublisherId%20eq%20Publisher/Id)/groupby((Publisher/Name),aggregate(Book/Pages%20with%20sum%20as%20Pages,$count%20as%20Books))",
				`{"@odata.context":"http://example.com/odata/$metadata#Collection(Edm.ComplexType)","value":[{"Publisher":{"Name":"Penguin"},"Pages":600,"Books":3}]}`},
			{"$crossjoin(Book,Author)?$apply=filter(Book/Authors/any(a:a/Id%20eq%20Author/Id))/groupby((Author/Name),aggregate($count%20as%20N))&$orderby=Author/Name",
				`{"@odata.context":"http://example.com/odata/$metadata#Collection(Edm.ComplexType)","value":[{"Author":{"Name":"Ada"},"N":2},{"Author":{"Name":"Brian"},"N":1}]}`},
		} {
			resp := f.must(200, "GET", "/odata/"+tc.query, "")
			if diff := cmp.Diff(numbers(decodeJSON(t, tc.want)), numbers(decodeJSON(t, resp.Body))); diff != "" {
				t.Errorf("GET %s (-want +got):\n%s", tc.query, diff)
			}
		}
		for _, query := range []string{"$crossjoin(Book,Author)?$apply=filter(Book/Pages%20gt%201)", "$crossjoin(Book,Author)?$apply=topcount(1,Book/Pages)"} {
			if resp := f.do("GET", "/odata/"+query, ""); resp.Status != 501 {
				t.Errorf("GET %s = %d %s, want 501", query, resp.Status, resp.Body)
			}
		}
	})
}

// TestService_TemporalOptions: the options of the Temporal extension parse (with their "$" only) and answer
// 501, since the service keeps no history; without "$" they are the application's custom options.
func TestService_TemporalOptions(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct {
			query  string
			status int
		}{
			{"Book?$at=2024-01-01", 501},
			{"Book?$from=2012-07-26T09:00:00Z&$to=max", 501},
			{"Book?$expand=Chapters($toInclusive=2012-08-02)", 501},
			{"Book?$at=2024-13-01", 400},
			{"Book?from=2024-01-01&to=tomorrow&$select=Id", 200},
		} {
			if resp := f.do("GET", "/odata/"+tc.query, ""); resp.Status != tc.status {
				t.Errorf("GET %s = %d %s, want %d", tc.query, resp.Status, resp.Body, tc.status)
			}
		}
	})
}

// TestService_Isolation: a request for snapshot isolation is answered 412 and not processed, as OData says of a
// service without it; a batch is refused whole.
func TestService_Isolation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct {
			method, path, body, header string
			status                     int
		}{
			{"GET", "/odata/Book", "", "OData-Isolation", 412},
			{"GET", "/odata/Book", "", "Isolation", 412},
			{"PATCH", "/odata/Book('b1')", `{"Pages":7}`, "OData-Isolation", 412},
		} {
			if resp := f.do(tc.method, tc.path, tc.body, tc.header, "snapshot"); resp.Status != tc.status {
				t.Errorf("%s %s with %s: snapshot = %d %s, want %d", tc.method, tc.path, tc.header, resp.Status, resp.Body, tc.status)
			}
		}
		if got := f.must(200, "GET", "/odata/Book('b1')/Pages/$value", "").Body; got != "100" {
			t.Errorf("Pages after the refused PATCH = %s, want 100", got)
		}
	})
}

package odata_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
)

// withRestrictedAuthor declares that reads of Author take none of $filter, $orderby, $count, $expand and
// $select; Book takes them all.
func withRestrictedAuthor(cfg *odata.Config) {
	cfg.Sets["Author"] = odata.SetOptions{NoFilter: true, NoOrderBy: true, NoCount: true, NoExpand: true, NoSelect: true}
}

// TestSetRestrictions reads a set that declares the query options it does not take: the options of its own
// reads, of navigation paths to its entities and nested in an $expand of them are answered 400 OptionNotAllowed
// naming the option; what it allows, and the other sets, are served.
func TestSetRestrictions(t *testing.T) {
	tests := []struct {
		name, path string
		status     int
		target     string // the error's target; "" for a success
	}{
		{"filter", "/odata/Author?$filter=Name eq 'Ada'", 400, "$filter"},
		{"filter spelt without $", "/odata/Author?filter=Name eq 'Ada'", 400, "filter"},
		{"filter of an unknown property", "/odata/Author?$filter=Nope ne null", 400, "$filter"},
		{"orderby of an unknown property", "/odata/Author?$top=1&$orderby=Nope", 400, "$orderby"},
		{"select of an unknown property", "/odata/Author('a1')?$select=Nope", 400, "$select"},
		{"count segment with an invalid filter", "/odata/Author/$count?$filter=Nope", 400, "$count"},
		{"orderby", "/odata/Author?$orderby=Name", 400, "$orderby"},
		{"count=true", "/odata/Author?$count=true", 400, "$count"},
		{"count=false is no count", "/odata/Author?$count=false", 200, ""},
		{"count segment", "/odata/Author/$count", 400, "$count"},
		{"expand", "/odata/Author?$expand=Books", 400, "$expand"},
		{"expand star", "/odata/Author?$expand=*", 400, "$expand"},
		{"select", "/odata/Author?$select=Name", 400, "$select"},
		{"select of an entity", "/odata/Author('a1')?$select=Name", 400, "$select"},
		{"expand of an entity", "/odata/Author('a1')?$expand=Books", 400, "$expand"},
		{"top and skip are allowed", "/odata/Author?$top=1&$skip=1", 200, ""},
		{"an entity without options", "/odata/Author('a1')", 200, ""},
		{"navigation path, filter", "/odata/Book('b1')/Authors?$filter=Name eq 'Ada'", 400, "$filter"},
		{"navigation path, orderby", "/odata/Book('b1')/Authors?$orderby=Name", 400, "$orderby"},
		{"navigation path, count segment", "/odata/Book('b1')/Authors/$count", 400, "$count"},
		{"navigation path, select", "/odata/Book('b1')/Authors?$select=Name", 400, "$select"},
		{"navigation path without options", "/odata/Book('b1')/Authors?$top=1", 200, ""},
		{"nested filter", "/odata/Book?$expand=Authors($filter=Name eq 'Ada')", 400, "$expand"},
		{"nested orderby", "/odata/Book?$expand=Authors($orderby=Name)", 400, "$expand"},
		{"nested count", "/odata/Book?$expand=Authors($count=true)", 400, "$expand"},
		{"expanded count", "/odata/Book?$expand=Authors/$count", 400, "$expand"},
		{"nested select", "/odata/Book?$expand=Authors($select=Name)", 400, "$expand"},
		{"nested expand", "/odata/Book?$expand=Authors($expand=Books)", 400, "$expand"},
		{"nested two levels down", "/odata/Publisher?$expand=Books($expand=Authors($select=Name))", 400, "$expand"},
		{"expanding the set is allowed", "/odata/Book?$expand=Authors($top=1)", 200, ""},
		{"expanding the set's references is allowed", "/odata/Book?$expand=Authors/$ref", 200, ""},
		{"another set takes every option", "/odata/Book?$filter=Pages gt 0&$orderby=Title&$count=true&$select=Title&$expand=Authors", 200, ""},
		{"another set's count", "/odata/Book/$count", 200, ""},
		{"expansions from the set's entities to others are not", "/odata/Book?$expand=Publisher($expand=Books($select=Title))", 200, ""},
	}
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixtureWith(t, db, withRestrictedAuthor)
		f.seed()
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f.t = t
				resp := f.do("GET", encodeURL(tt.path), "")
				var body struct {
					Error struct{ Code, Target, Message string }
				}
				if tt.status != 200 {
					if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
						t.Fatalf("GET %s: %v\n%s", tt.path, err, resp.Body)
					}
				}
				type answer struct {
					Status       int
					Code, Target string
				}
				want := answer{Status: tt.status, Target: tt.target}
				if tt.status != 200 {
					want.Code = odata.CodeOptionNotAllowed
				}
				got := answer{resp.Status, body.Error.Code, body.Error.Target}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("GET %s (-want +got):\n%s\n%s", tt.path, diff, resp.Body)
				}
				if tt.status != 200 && !strings.Contains(body.Error.Message, "Author") {
					t.Errorf("GET %s: message %q does not name the entity set Author", tt.path, body.Error.Message)
				}
			})
		}
	})
}

// TestSetRestrictionsMetadata reads what $metadata and $openapi say of a set with restrictions: the
// Capabilities terms with false, Core.Permissions Read on the read-only sets, and no parameters or /$count path
// for the options the set does not take; the XML form validates against the OASIS CSDL schemas.
func TestSetRestrictionsMetadata(t *testing.T) {
	f := newFixtureWith(t, dbtest.SQLite(t), withRestrictedAuthor)
	var doc map[string]any
	if err := json.Unmarshal([]byte(f.must(200, "GET", "/odata/$metadata?$format=json", "").Body), &doc); err != nil {
		t.Fatal(err)
	}
	annotations, _ := doc["Lib"].(map[string]any)["$Annotations"].(map[string]any)
	type terms struct {
		Filterable, Sortable, Countable, Expandable, SelectSupported, Permissions any
	}
	read := func(set string) terms {
		target, _ := annotations["Lib.Container/"+set].(map[string]any)
		field := func(term, property string) any {
			record, _ := target["@Org.OData.Capabilities.V1."+term].(map[string]any)
			return record[property]
		}
		return terms{field("FilterRestrictions", "Filterable"), field("SortRestrictions", "Sortable"),
			field("CountRestrictions", "Countable"), field("ExpandRestrictions", "Expandable"),
			field("SelectSupport", "Supported"), target["@Org.OData.Core.V1.Permissions"]}
	}
	got := map[string]terms{"Author": read("Author"), "Book": read("Book"), "Cover": read("Cover")}
	want := map[string]terms{
		"Author": {false, false, false, false, false, "Read"},
		"Book":   {Filterable: true, Sortable: true, Countable: true, Expandable: true},
		"Cover":  {Filterable: true, Sortable: true, Countable: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("terms by set (-want +got):\n%s", diff)
	}
	if _, ok := annotations["Lib.Container/Author"].(map[string]any)["@Org.OData.Capabilities.V1.FilterRestrictions"].(map[string]any)["NonFilterableProperties"]; ok {
		t.Errorf("Author lists non-filterable properties though it takes no $filter")
	}

	var api struct {
		Paths map[string]struct {
			Get struct {
				Parameters []struct {
					Ref string `json:"$ref"`
				}
			}
		}
	}
	if err := json.Unmarshal(f.svc.OpenAPIDocument(), &api); err != nil {
		t.Fatal(err)
	}
	parameters := func(path string) []string {
		var out []string
		for _, p := range api.Paths[path].Get.Parameters {
			out = append(out, strings.TrimPrefix(p.Ref, "#/components/parameters/"))
		}
		sort.Strings(out)
		return out
	}
	gotParams := map[string][]string{"/odata/Author": parameters("/odata/Author"),
		"/odata/Author('{Id}')": parameters("/odata/Author('{Id}')"), "/odata/Book('{Id}')/Authors": parameters("/odata/Book('{Id}')/Authors")}
	wantParams := map[string][]string{"/odata/Author": {"skip", "top"}, "/odata/Author('{Id}')": nil,
		"/odata/Book('{Id}')/Authors": {"skip", "top"}}
	if diff := cmp.Diff(wantParams, gotParams); diff != "" {
		t.Errorf("OpenAPI parameters (-want +got):\n%s", diff)
	}
	for _, path := range []string{"/odata/Author/$count", "/odata/Book('{Id}')/Authors/$count"} {
		if _, ok := api.Paths[path]; ok {
			t.Errorf("the OpenAPI document has %s, which the set does not serve", path)
		}
	}
	if _, ok := api.Paths["/odata/Book/$count"]; !ok {
		t.Errorf("the OpenAPI document lacks /odata/Book/$count")
	}

	validateMetadataXML(t, f.must(200, "GET", "/odata/$metadata", "").Body)
}

// TestSetRestrictionsOpenAPIWalk calls every GET operation of the document of a service with a restricted set:
// none of them uses what the set refuses.
func TestSetRestrictionsOpenAPIWalk(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixtureWith(t, db, withRestrictedAuthor)
		f.seed()
		f.must(201, "POST", "/odata/Cover", `{"BookId":"b1","MimeType":"image/png","Data":"iVBORw0KGgo="}`)
		walkOpenAPI(t, f)
	})
}

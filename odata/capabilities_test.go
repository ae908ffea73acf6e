package odata_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// TestService_Capabilities reads the Capabilities annotations of $metadata: each set's writes as the service
// offers them (Author is read-only, Cover takes POST and DELETE), what $filter, $orderby, $expand and $search
// can use, $batch on the container, and that collections are ordered and take positional inserts; the XML form validates against the OASIS CSDL schemas.
func TestService_Capabilities(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	var doc map[string]any
	if err := json.Unmarshal([]byte(f.must(200, "GET", "/odata/$metadata?$format=json", "").Body), &doc); err != nil {
		t.Fatal(err)
	}
	annotations, _ := doc["Lib"].(map[string]any)["$Annotations"].(map[string]any)
	term := func(target, name, property string) any {
		record, _ := annotations[target].(map[string]any)["@Org.OData.Capabilities.V1."+name].(map[string]any)
		return record[property]
	}
	type writes struct{ Insertable, Updatable, Deletable any }
	for set, want := range map[string]writes{
		"Author": {false, false, false},
		"Cover":  {true, false, true},
		"Book":   {true, true, true},
	} {
		target := "Lib.Container/" + set
		got := writes{term(target, "InsertRestrictions", "Insertable"), term(target, "UpdateRestrictions", "Updatable"),
			term(target, "DeleteRestrictions", "Deletable")}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s restrictions (-want +got):\n%s", set, diff)
		}
	}
	if got := term("Lib.Container/Book", "SortRestrictions", "NonSortableProperties"); got == nil {
		t.Errorf("Book SortRestrictions lists no non-sortable property (Size is complex, Tags a collection)")
	}
	// Collections are ordered; those a set takes writes of take positional inserts ($index).
	collections := map[string]map[string]any{}
	for _, target := range []string{"Lib.Book/Tags", "Lib.Member/Roles"} {
		collections[target], _ = annotations[target].(map[string]any)
	}
	wantCollections := map[string]map[string]any{
		"Lib.Book/Tags":    {"@Org.OData.Core.V1.Ordered": true, "@Org.OData.Core.V1.PositionalInsert": true},
		"Lib.Member/Roles": {"@Org.OData.Core.V1.Ordered": true, "@Org.OData.Core.V1.PositionalInsert": true},
	}
	if diff := cmp.Diff(wantCollections, collections); diff != "" {
		t.Errorf("collection annotations (-want +got):\n%s", diff)
	}
	if got := annotations["Lib.Container"].(map[string]any)["@Org.OData.Capabilities.V1.BatchSupported"]; got != true {
		t.Errorf("BatchSupported = %v, want true", got)
	}
	// The canonical functions served (no geo.*), and the $apply transformations.
	functions, _ := annotations["Lib.Container"].(map[string]any)["@Org.OData.Capabilities.V1.FilterFunctions"].([]any)
	has := map[string]bool{}
	for _, f := range functions {
		has[f.(string)] = true
	}
	if !has["contains"] || !has["matchesPattern"] || !has["isof"] || !has["Org.OData.Aggregation.V1.isdescendant"] ||
		has["geo.distance"] || has["hassubset"] {
		t.Errorf("FilterFunctions = %v: want contains, matchesPattern, isof and Org.OData.Aggregation.V1.isdescendant, no geo.distance or hassubset", functions)
	}
	apply, _ := annotations["Lib.Container"].(map[string]any)["@Org.OData.Aggregation.V1.ApplySupported"].(map[string]any)
	if diff := cmp.Diff(map[string]any{"Rollup": "SingleHierarchy", "Transformations": []any{"addnested", "aggregate", "ancestors",
		"bottomcount", "bottompercent", "bottomsum", "compute", "concat", "descendants", "expand", "filter", "groupby", "identity",
		"join", "nest", "orderby", "outerjoin", "search", "skip", "top", "topcount", "toppercent", "topsum", "traverse"}}, apply); diff != "" {
		t.Errorf("ApplySupported (-want +got):\n%s", diff)
	}

	validateMetadataXML(t, f.must(200, "GET", "/odata/$metadata", "").Body)
}

// validateMetadataXML checks the CSDL XML of a $metadata answer against the OASIS schemas with xmllint; it
// skips the test when xmllint is not installed (Debian package libxml2-utils; .ci/run installs it).
func validateMetadataXML(t *testing.T, xml string) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed (Debian package libxml2-utils)")
	}
	path := filepath.Join(t.TempDir(), "metadata.xml")
	if err := os.WriteFile(path, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	xsd := filepath.Join("edm", "testdata", "oasis", "edmx.xsd")
	if out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", xsd, path).CombinedOutput(); err != nil {
		t.Errorf("xmllint: %v\n%s", err, out)
	}
}

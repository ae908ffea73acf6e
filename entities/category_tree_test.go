package entities_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// TestCategory_Tree walks the catalog tree, the recursive hierarchy Tree of Category, with the hierarchical
// transformations of $apply and the hierarchy functions of $filter.
func TestCategory_Tree(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		svc := newService(t, db, true)
		ids := map[string]string{}
		for _, c := range []struct{ name, parent string }{
			{"Computers", ""}, {"Laptops", "Computers"}, {"Gaming laptops", "Laptops"}, {"Desktops", "Computers"}, {"Books", ""},
		} {
			body := `{"Name":"` + c.name + `"}`
			if c.parent != "" {
				body = `{"Name":"` + c.name + `","ParentCategoryId":"` + ids[c.parent] + `"}`
			}
			code, m := call(t, svc, "POST", "/Category", body)
			if code != http.StatusCreated {
				t.Fatalf("POST Category %s = %d %v", c.name, code, m)
			}
			ids[c.name] = m["Id"].(string)
		}
		const tree = "$root/Category,Tree,Id"
		for _, tc := range []struct{ query, want []string }{
			{[]string{"$apply", "descendants(" + tree + ",filter(Name eq 'Computers'))", "$orderby", "Name"},
				[]string{"Desktops", "Gaming laptops", "Laptops"}},
			{[]string{"$apply", "descendants(" + tree + ",filter(Name eq 'Computers'),1,keep start)", "$orderby", "Name"},
				[]string{"Computers", "Desktops", "Laptops"}},
			{[]string{"$apply", "ancestors(" + tree + ",filter(Name eq 'Gaming laptops'))", "$orderby", "Name"},
				[]string{"Computers", "Laptops"}},
			{[]string{"$apply", "traverse(" + tree + ",preorder,Name)"},
				[]string{"Books", "Computers", "Desktops", "Laptops", "Gaming laptops"}},
			{[]string{"$filter", "Org.OData.Aggregation.V1.isleaf(HierarchyNodes=$root/Category,HierarchyQualifier='Tree',Node=Id)", "$orderby", "Name"},
				[]string{"Books", "Desktops", "Gaming laptops"}},
		} {
			q := url.Values{}
			for i := 0; i < len(tc.query); i += 2 {
				q.Set(tc.query[i], tc.query[i+1])
			}
			code, m := call(t, svc, "GET", "/Category?"+q.Encode(), "")
			if code != http.StatusOK {
				t.Fatalf("GET Category?%s = %d %v", q.Encode(), code, m)
			}
			var names []string
			for _, v := range m["value"].([]any) {
				names = append(names, v.(map[string]any)["Name"].(string))
			}
			if diff := cmp.Diff(tc.want, names); diff != "" {
				t.Errorf("GET Category?%s names (-want +got):\n%s", q.Encode(), diff)
			}
		}
	})
}

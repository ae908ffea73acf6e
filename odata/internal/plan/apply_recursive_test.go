package plan_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqlite"
)

func TestRecursiveHierarchyErrors(t *testing.T) {
	m := builtModel(t)
	p := newPlanner(m, sqlite.Dialect{})
	for _, c := range []struct {
		path, query string
		want        plan.Error
	}{
		{"Category", "$apply=ancestors($root/Category,Forest,Id,filter(Id eq 'c6'))", plan.Error{Code: "InvalidValue", Option: "$apply", Pos: 26, Msg: `Category has no recursive hierarchy "Forest"`}},
		{"Category", "$apply=ancestors($root/Product,Tree,Id,filter(Id eq 'c6'))", plan.Error{Code: "InvalidValue", Option: "$apply", Pos: 25, Msg: `Product has no recursive hierarchy "Tree"`}},
		{"Category", "$apply=ancestors($root/Nodes,Tree,Id,filter(Id eq 'c6'))", plan.Error{Code: "InvalidValue", Option: "$apply", Pos: 11, Msg: "the nodes of a hierarchy are an entity set ($root/Set)"}},
		{"Category", "$apply=descendants($root/Category,Tree,Id,aggregate($count as N))", plan.Error{Code: "InvalidValue", Option: "$apply", Msg: "the start nodes of descendants are found by transformations that keep rows as they are (filter, search, top, ...), not by aggregate"}},
		{"Category", "$apply=descendants($root/Category,Tree,Parent,filter(Id eq 'c1'))", plan.Error{Code: "TypeMismatch", Option: "$apply", Pos: 33, Msg: "the node value must be a primitive value, not Category"}},
		{"Category", "$apply=descendants($root/Category,Tree,Nope,filter(Id eq 'c1'))", plan.Error{Code: "UnknownProperty", Option: "$apply", Pos: 33, Msg: "Category has no property Nope"}},
		{"Category", "$filter=Aggregation.isdescendant(HierarchyNodes=$root/Category,HierarchyQualifier='Tree',Node=Id)", plan.Error{Code: "SyntaxError", Option: "$filter", Pos: 1, Msg: "isdescendant needs the parameter Ancestor"}},
		{"Category", "$filter=Aggregation.isdescendant(HierarchyNodes=$root/Category,HierarchyQualifier='Tree',Node=Id,Ancestor='c1',MaxDistance=0)", plan.Error{Code: "InvalidValue", Option: "$filter", Pos: 116, Msg: "MaxDistance must be a positive integer"}},
		{"Category", "$filter=Aggregation.isroot(HierarchyNodes=$root/Category,HierarchyQualifier='Forest',Node=Id)", plan.Error{Code: "InvalidValue", Option: "$filter", Pos: 69, Msg: `Category has no recursive hierarchy "Forest"`}},
		{"Category", "$filter=Aggregation.isleaf(HierarchyNodes=$root/Category,HierarchyQualifier='Tree',Node=Id,Other='c1')", plan.Error{Code: "SyntaxError", Option: "$filter", Pos: 90, Msg: "isleaf has no parameter Other"}},
		{"Category", "$filter=Aggregation.isroot(HierarchyNodes=$root/Category,HierarchyQualifier='Tree',Node=Parent)", plan.Error{Code: "TypeMismatch", Option: "$filter", Pos: 81, Msg: "Node is a node identifier, a primitive value, not Category"}},
		{"Category", "$apply=expand(Parent)/traverse($root/Category,Tree,Id,preorder)", plan.Error{Code: "NotSupported", Option: "$apply", Msg: "traverse after expand is not supported"}},
		{"Category", "$apply=traverse($root/Category,Tree,Id,preorder,Products)", plan.Error{Code: "TypeMismatch", Option: "$apply", Pos: 42, Msg: "cannot order by a value of type Collection(Product)"}},
	} {
		_, err := p.Read(scopeOf(t, m, c.path), encodeOptions(c.query))
		var got *plan.Error
		if !errors.As(err, &got) {
			t.Errorf("Read(%s?%s) = %v, want %v", c.path, c.query, err, c.want)
			continue
		}
		if diff := cmp.Diff(c.want, *got); diff != "" {
			t.Errorf("Read(%s?%s) error mismatch (-want +got):\n%s", c.path, c.query, diff)
		}
	}
}

// TestRecursiveHierarchyCycle runs the hierarchical transformations over data whose parents form a cycle
// (c7 > c8 > c7, c9 under c7) on every database: each walk ends, and traverse leaves out the nodes no root
// reaches.
func TestRecursiveHierarchyCycle(t *testing.T) {
	m := builtModel(t)
	for _, db := range fixtureDBs(t, m) {
		et := m.EntityType("Category")
		insertEntity(t, db, et, row{"Id": "c7", "Name": "Loop A"})
		insertEntity(t, db, et, row{"Id": "c8", "Name": "Loop B", "ParentCategoryId": "c7"})
		insertEntity(t, db, et, row{"Id": "c9", "Name": "Below", "ParentCategoryId": "c7"})
		q := db.Dialect().QuoteIdent
		if _, err := db.Exec("UPDATE " + q("category") + " SET " + q("parent_category_id") + " = 'c8' WHERE " + q("id") + " = 'c7'"); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ apply, want string }{
			{"descendants($root/Category,Tree,Id,filter(Id eq 'c7'))", "c7 | c8 | c9"},
			{"descendants($root/Category,Tree,Id,filter(Id eq 'c8'),3)", "c7 | c8 | c9"},
			{"ancestors($root/Category,Tree,Id,filter(Id eq 'c9'))", "c7 | c8"},
			{"ancestors($root/Category,Tree,Id,filter(Id eq 'c9'),5,keep start)", "c7 | c8 | c9"},
			{"traverse($root/Category,Tree,Id,preorder)/aggregate($count as N)", "N=6"},
		} {
			raw := "$apply=" + encodeQuery(c.apply)
			r, err := newPlanner(m, db.Dialect()).Read(plan.Scope{Set: m.EntitySet("Category")}, raw)
			if err != nil {
				t.Fatalf("%s: Read(%q) = %v", db.Dialect().Name(), raw, err)
			}
			got, err := applyRows(db.Dialect().Name(), r, func(s string, args []any) ([][]any, error) {
				out, _, err := fetchSQL(db, s, args, nil)
				return out, err
			})
			if err != nil {
				t.Fatalf("%s: %s: %v", db.Dialect().Name(), c.apply, err)
			}
			if got != c.want {
				t.Errorf("%s: %s = %s, want %s", db.Dialect().Name(), c.apply, got, c.want)
			}
		}
	}
}

// TestHierarchyFunctions filters the fixture's categories (c1 > c2 > c6, c1 > c3; roots c4 and c5) with the
// hierarchy functions of the Aggregation vocabulary on every database.
func TestHierarchyFunctions(t *testing.T) {
	m := builtModel(t)
	const nodes = "HierarchyNodes=$root/Category,HierarchyQualifier='Tree',Node=Id"
	cases := []struct{ filter, want string }{
		{"Org.OData.Aggregation.V1.isroot(" + nodes + ")", "c1 | c4 | c5"},
		{"not Aggregation.isroot(" + nodes + ")", "c2 | c3 | c6"},
		{"Aggregation.isleaf(" + nodes + ")", "c3 | c4 | c5 | c6"},
		{"Aggregation.issibling(" + nodes + ",Other='c2')", "c3"},
		{"Aggregation.issibling(" + nodes + ",Other='c4')", ""},
		{"Aggregation.isdescendant(" + nodes + ",Ancestor='c1')", "c2 | c3 | c6"},
		{"Aggregation.isdescendant(" + nodes + ",Ancestor='c1',MaxDistance=1,IncludeSelf=true)", "c1 | c2 | c3"},
		{"Aggregation.isancestor(" + nodes + ",Descendant='c6')", "c1 | c2"},
		{"Aggregation.isancestor(" + nodes + ",Descendant='c6',IncludeSelf=true) and Published", "c1 | c2 | c6"},
		{"Aggregation.isdescendant(" + nodes + ",Ancestor=ParentCategoryId)", "c2 | c3 | c6"},
		{"Aggregation.isancestor(HierarchyNodes=$root/Category,HierarchyQualifier='Tree',Node=ParentCategoryId,Descendant=Id)", "c2 | c3 | c6"},
	}
	for _, db := range fixtureDBs(t, m) {
		for _, c := range cases {
			raw := "$filter=" + encodeQuery(c.filter)
			r, err := newPlanner(m, db.Dialect()).Read(plan.Scope{Set: m.EntitySet("Category")}, raw)
			if err != nil {
				t.Errorf("%s: Read(%q) = %v", db.Dialect().Name(), raw, err)
				continue
			}
			got, err := applyRows(db.Dialect().Name(), r, func(s string, args []any) ([][]any, error) {
				out, _, err := fetchSQL(db, s, args, nil)
				return out, err
			})
			if err != nil {
				t.Errorf("%s: %s: %v", db.Dialect().Name(), c.filter, err)
				continue
			}
			if got != c.want {
				t.Errorf("%s: $filter=%s = %s, want %s", db.Dialect().Name(), c.filter, got, c.want)
			}
		}
	}
}

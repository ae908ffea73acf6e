package main

import (
	"strconv"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
)

// HierarchyNodes is the recursive hierarchy the suite's hierarchical transformations walk: nodes with an integer
// ID and a Name, each naming its parent by ParentID. The type declares the hierarchy Tree (node property ID,
// parent navigation Parent), written to $metadata as the Aggregation.RecursiveHierarchy annotation that
// ancestors, descendants and traverse name: ancestors($root/HierarchyNodes,Tree,ID,filter(ID eq 4)).
const hierarchySet = "HierarchyNodes"

// hierarchyNodeType is the entity type of HierarchyNodes.
func hierarchyNodeType() *edm.EntityType {
	return &edm.EntityType{Name: "HierarchyNode", Key: []string{"ID"},
		Properties: []*edm.Property{
			{Name: "ID", Type: edm.KindInt32},
			requiredString("Name", 100),
			{Name: "ParentID", Type: edm.KindInt32, Nullable: true},
		},
		Navigations: []*edm.NavigationProperty{
			{Name: "Parent", Target: "HierarchyNode", Nullable: true, Partner: "Children",
				Join: edm.Join{SourceColumns: []string{"parent_id"}}},
			{Name: "Children", Target: "HierarchyNode", Collection: true, Partner: "Parent",
				Join: edm.Join{TargetColumns: []string{"parent_id"}}},
		},
		RecursiveHierarchies: []edm.RecursiveHierarchy{{Qualifier: "Tree", NodeProperty: "ID", ParentNavigation: "Parent"}},
	}
}

// hierarchySeed is the tree of the suite: 1 and 5 are roots, 2 and 3 children of 1, 4 a child of 2.
func hierarchySeed() seed {
	node := func(id int64, parent any) odata.Entity {
		return odata.Entity{"ID": id, "Name": "Node " + strconv.FormatInt(id, 10), "ParentID": parent}
	}
	return seed{"HierarchyNode", []odata.Entity{node(1, nil), node(2, int64(1)), node(3, int64(1)), node(4, int64(2)), node(5, nil)}}
}

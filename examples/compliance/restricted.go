package main

import (
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
)

// RestrictedItems is a read-only entity set whose reads take none of $filter, $orderby, $count (=true and
// /$count), $expand and $select (odata.SetOptions.NoFilter, NoOrderBy, NoCount, NoExpand, NoSelect). $metadata
// says so with the Capabilities terms FilterRestrictions, SortRestrictions, CountRestrictions,
// ExpandRestrictions and SelectSupport (false each), and with Core.Permissions Read; the suite's vocabulary
// tests read them and check that the service refuses those options (400) and writes (405).
const restrictedSet = "RestrictedItems"

// restrictedItemType is the entity type of RestrictedItems.
func restrictedItemType() *edm.EntityType {
	return &edm.EntityType{Name: "RestrictedItem", Key: []string{"ID"}, Properties: []*edm.Property{
		guidKey(), requiredString("Name", 100)}}
}

// restrictedOptions are the options of RestrictedItems: no writes, and none of the restricted query options.
var restrictedOptions = odata.SetOptions{NoFilter: true, NoOrderBy: true, NoCount: true, NoExpand: true, NoSelect: true}

// restrictedSeed is the seed rows of RestrictedItems.
func restrictedSeed() seed {
	return seed{"RestrictedItem", []odata.Entity{
		{"ID": "b2000000-0000-4000-8000-000000000001", "Name": "Restricted item A"},
		{"ID": "b2000000-0000-4000-8000-000000000002", "Name": "Restricted item B"},
	}}
}

package edm_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	edmpkg "github.com/storekit/store/odata/edm"
)

// TestWriteAnnotationsOfOneTarget: blocks of annotations of the same target, from the model and from a
// service's extra ones, are written as one Annotations element and one $Annotations member (a JSON object
// cannot name a member twice), with the terms in order; the schema's own are inline in the schema.
func TestWriteAnnotationsOfOneTarget(t *testing.T) {
	m := builtSample(t)
	extra := []edmpkg.Annotations{
		{Target: "Store.Container", Terms: []edmpkg.Annotation{{Term: "Org.OData.Core.V1.Description", Value: "The store"}}},
		{Target: "Store.Container/Product", Terms: []edmpkg.Annotation{
			{Term: "Org.OData.Core.V1.OptimisticConcurrency", Value: []any{edmpkg.PropertyPath("Price")}}}},
		{Target: "Store", Terms: []edmpkg.Annotation{{Term: "Org.OData.Core.V1.Description", Value: "Store schema"}}},
	}
	var x, j bytes.Buffer
	if err := m.WriteXML(&x, extra...); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteJSON(&j, extra...); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"Store.Container", "Store.Container/Product"} {
		if n := strings.Count(x.String(), `<Annotations Target="`+target+`">`); n != 1 {
			t.Errorf("CSDL XML has %d Annotations elements of %s, want 1", n, target)
		}
		if n := strings.Count(j.String(), `"`+target+`": {`); n != 1 {
			t.Errorf("CSDL JSON has %d $Annotations members %s, want 1", n, target)
		}
	}
	var doc struct {
		Store struct {
			Annotations map[string]map[string]any `json:"$Annotations"`
		}
	}
	if err := json.Unmarshal(j.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{
		"Store.Container": {
			"@Org.OData.Capabilities.V1.BatchSupported": false,
			"@Org.OData.Core.V1.Description":            "The store",
		},
		"Store.Container/Product": {
			"@Org.OData.Capabilities.V1.ExpandRestrictions": map[string]any{
				"@type":                   "https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.json#Org.OData.Capabilities.V1.ExpandRestrictionsType",
				"NonExpandableProperties": []any{map[string]any{"$NavigationPropertyPath": "Pictures"}},
			},
			"@Org.OData.Core.V1.OptimisticConcurrency": []any{map[string]any{"$PropertyPath": "Price"}},
		},
	}
	got := map[string]map[string]any{}
	for target := range want {
		got[target] = doc.Store.Annotations[target]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("$Annotations (-want +got):\n%s", diff)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(j.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	var store map[string]json.RawMessage
	if err := json.Unmarshal(raw["Store"], &store); err != nil {
		t.Fatal(err)
	}
	if got := string(store["@Org.OData.Core.V1.Description"]); got != `"Store schema"` {
		t.Errorf("schema annotation = %s, want \"Store schema\"", got)
	}
	if !strings.Contains(x.String(), `<Annotation Term="Org.OData.Core.V1.SchemaVersion" String="2.1"/>
      <Annotation Term="Org.OData.Core.V1.Description" String="Store schema"/>`) {
		t.Errorf("CSDL XML: the schema's annotations are not first in it, in order:\n%.1500s", x.String())
	}
}

// TestWriteCoreAlias: the reference of the Core vocabulary declares its alias Core, and a term written by it
// ("Core.Description", Model.CoreTerm) is written so, in CSDL XML and JSON; a model with a vocabulary called Core
// declares no alias, and CoreTerm then names the term by its namespace.
func TestWriteCoreAlias(t *testing.T) {
	cases := []struct {
		name       string
		vocabulary bool   // whether the model has a vocabulary called Core
		term       string // CoreTerm("Description")
		xmlInclude string
		jsonAlias  string // the $Alias of the Core vocabulary's $Include
	}{
		{"alias", false, "Core.Description", `<edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/>`, "Core"},
		{"clash", true, "Org.OData.Core.V1.Description", `<edmx:Include Namespace="Org.OData.Core.V1"/>`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := sampleModel()
			if c.vocabulary {
				m.Vocabularies = append(m.Vocabularies, edmpkg.Vocabulary{Namespace: "Core", URI: "https://example.com/core.xml"})
			}
			if err := m.Build(); err != nil {
				t.Fatal(err)
			}
			term := m.CoreTerm("Description")
			if term != c.term {
				t.Fatalf("CoreTerm(Description) = %q, want %q", term, c.term)
			}
			extra := edmpkg.Annotations{Target: "Store.Customer", Terms: []edmpkg.Annotation{{Term: term, Value: "A customer"}}}
			var x, j bytes.Buffer
			if err := m.WriteXML(&x, extra); err != nil {
				t.Fatal(err)
			}
			if err := m.WriteJSON(&j, extra); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{c.xmlInclude, `<Annotation Term="` + c.term + `" String="A customer"/>`} {
				if !strings.Contains(x.String(), want) {
					t.Errorf("CSDL XML lacks %s", want)
				}
			}
			var doc struct {
				Reference map[string]struct {
					Include []map[string]string `json:"$Include"`
				} `json:"$Reference"`
				Store struct {
					Annotations map[string]map[string]any `json:"$Annotations"`
				}
			}
			if err := json.Unmarshal(j.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			include := doc.Reference["https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.json"].Include
			got := []any{len(include), doc.Store.Annotations["Store.Customer"]["@"+c.term]}
			if len(include) == 1 {
				got = append(got, include[0]["$Alias"])
			}
			if diff := cmp.Diff([]any{1, "A customer", c.jsonAlias}, got); diff != "" {
				t.Errorf("CSDL JSON (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBuildCoreAliasTerm: a model's annotation may name a Core term by the alias Core.
func TestBuildCoreAliasTerm(t *testing.T) {
	m := sampleModel()
	m.Annotations = append(m.Annotations, edmpkg.Annotations{Target: "Store.Customer",
		Terms: []edmpkg.Annotation{{Term: "Core.Description", Value: "A customer"}}})
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	var x bytes.Buffer
	if err := m.WriteXML(&x); err != nil {
		t.Fatal(err)
	}
	if want := `<Annotation Term="Core.Description" String="A customer"/>`; !strings.Contains(x.String(), want) {
		t.Errorf("CSDL XML lacks %s", want)
	}
}

package edm_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	edmpkg "github.com/storekit/store/odata/edm"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func TestWriteXML(t *testing.T) {
	m := sampleModel()
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.WriteXML(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.xml.golden", buf.Bytes())
}

func TestWriteJSON(t *testing.T) {
	m := sampleModel()
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.json.golden", buf.Bytes())
}

func sampleDocuments(t *testing.T) (xmlDoc, jsonDoc []byte) {
	t.Helper()
	m := builtSample(t)
	var x, j bytes.Buffer
	if err := m.WriteXML(&x); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	return x.Bytes(), j.Bytes()
}

// node is a generic XML element.
type node struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []*node    `xml:",any"`
}

func (n *node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value
		}
	}
	return ""
}

func (n *node) all(local string) []*node {
	var out []*node
	for _, c := range n.Children {
		if c.XMLName.Local == local {
			out = append(out, c)
		}
	}
	return out
}

func (n *node) walk(f func(*node)) {
	f(n)
	for _, c := range n.Children {
		c.walk(f)
	}
}

// TestWriteXMLStructure checks the XML document is well-formed and consistent: every type reference resolves,
// keys name properties, constraints name properties, bindings name sets, and annotation vocabularies are
// referenced.
func TestWriteXMLStructure(t *testing.T) {
	doc, _ := sampleDocuments(t)
	var root node
	if err := xml.Unmarshal(doc, &root); err != nil {
		t.Fatalf("the CSDL XML is not well-formed: %v", err)
	}
	const edmx, edm = "http://docs.oasis-open.org/odata/ns/edmx", "http://docs.oasis-open.org/odata/ns/edm"
	if root.XMLName != (xml.Name{Space: edmx, Local: "Edmx"}) || root.attr("Version") != "4.0" {
		t.Fatalf("root = %v Version=%q, want edmx:Edmx Version=4.0", root.XMLName, root.attr("Version"))
	}
	included := map[string]bool{}
	for _, ref := range root.all("Reference") {
		for _, inc := range ref.all("Include") {
			included[inc.attr("Namespace")] = true
		}
	}
	ds := root.all("DataServices")
	if len(ds) != 1 || len(ds[0].all("Schema")) != 1 {
		t.Fatal("want one DataServices with one Schema")
	}
	schema := ds[0].all("Schema")[0]
	if schema.XMLName.Space != edm || schema.attr("Namespace") != "Store" {
		t.Fatalf("Schema = %v Namespace=%q", schema.XMLName, schema.attr("Namespace"))
	}
	declared := map[string]*node{}
	for _, c := range schema.Children {
		switch c.XMLName.Local {
		case "EntityType", "ComplexType", "EnumType":
			declared["Store."+c.attr("Name")] = c
		}
	}
	sets := map[string]bool{}
	for _, c := range schema.all("EntityContainer")[0].all("EntitySet") {
		sets[c.attr("Name")] = true
	}
	checkType := func(where, typ string) {
		typ = strings.TrimSuffix(strings.TrimPrefix(typ, "Collection("), ")")
		if _, ok := edmKind(typ); ok {
			return
		}
		if declared[typ] == nil {
			t.Errorf("%s: type %q is not declared", where, typ)
		}
	}
	schema.walk(func(n *node) {
		switch n.XMLName.Local {
		case "Property", "NavigationProperty", "Parameter", "ReturnType":
			checkType(n.XMLName.Local+" "+n.attr("Name"), n.attr("Type"))
		case "Annotation":
			term := n.attr("Term")
			if ns := term[:strings.LastIndexByte(term, '.')]; !included[ns] {
				t.Errorf("annotation %s: vocabulary %s is not referenced", term, ns)
			}
		case "NavigationPropertyBinding":
			if !sets[n.attr("Target")] {
				t.Errorf("binding %s: target %q is not an entity set", n.attr("Path"), n.attr("Target"))
			}
		}
	})
	for _, et := range schema.all("EntityType") {
		props := map[string]bool{}
		for _, p := range et.all("Property") {
			props[p.attr("Name")] = true
		}
		keys := et.all("Key")
		if len(keys) != 1 || len(keys[0].all("PropertyRef")) == 0 {
			t.Errorf("EntityType %s: want one Key with PropertyRefs", et.attr("Name"))
			continue
		}
		for _, pr := range keys[0].all("PropertyRef") {
			if !props[pr.attr("Name")] {
				t.Errorf("EntityType %s: key %q is not a property", et.attr("Name"), pr.attr("Name"))
			}
		}
		for _, nav := range et.all("NavigationProperty") {
			target := declared[nav.attr("Type")]
			for _, rc := range nav.all("ReferentialConstraint") {
				if !props[rc.attr("Property")] {
					t.Errorf("%s/%s: constraint property %q does not exist", et.attr("Name"), nav.attr("Name"), rc.attr("Property"))
				}
				found := false
				for _, p := range target.all("Property") {
					found = found || p.attr("Name") == rc.attr("ReferencedProperty")
				}
				if !found {
					t.Errorf("%s/%s: referenced property %q does not exist", et.attr("Name"), nav.attr("Name"), rc.attr("ReferencedProperty"))
				}
			}
			if strings.HasPrefix(nav.attr("Type"), "Collection(") && nav.attr("Nullable") != "" {
				t.Errorf("%s/%s: Nullable on a collection", et.attr("Name"), nav.attr("Name"))
			}
		}
	}
	// Bound operations have the binding parameter first.
	for _, kind := range []string{"Action", "Function"} {
		for _, op := range schema.all(kind) {
			ps := op.all("Parameter")
			if op.attr("IsBound") == "true" && (len(ps) == 0 || ps[0].attr("Name") != "bindingParameter") {
				t.Errorf("%s %s: bound, but the first parameter is not bindingParameter", kind, op.attr("Name"))
			}
		}
	}
}

func edmKind(name string) (edmpkg.Kind, bool) { return edmpkg.ParseKind(name) }

// member is a property as both CSDL forms describe it.
type member struct {
	Type     string // qualified, Collection(...) for collections
	Nullable bool
	Facets   string
}

// TestCSDLFormsAgree checks that the XML and the JSON document describe the same structural and navigation
// properties with the same types, nullability and facets (each form has its own defaults).
func TestCSDLFormsAgree(t *testing.T) {
	xmlDoc, jsonDoc := sampleDocuments(t)
	var root node
	if err := xml.Unmarshal(xmlDoc, &root); err != nil {
		t.Fatal(err)
	}
	fromXML := map[string]member{}
	schema := root.all("DataServices")[0].all("Schema")[0]
	for _, c := range schema.Children {
		for _, p := range append(c.all("Property"), c.all("NavigationProperty")...) {
			nullable := p.attr("Nullable") != "false"
			if strings.HasPrefix(p.attr("Type"), "Collection(") && p.XMLName.Local == "NavigationProperty" {
				nullable = false
			}
			fromXML[c.attr("Name")+"/"+p.attr("Name")] = member{
				Type: p.attr("Type"), Nullable: nullable,
				Facets: p.attr("MaxLength") + "," + p.attr("Precision") + "," + p.attr("Scale") + "," + p.attr("DefaultValue"),
			}
		}
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(jsonDoc))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("the CSDL JSON is not valid JSON: %v", err)
	}
	fromJSON := map[string]member{}
	for typeName, v := range doc["Store"].(map[string]any) {
		obj, ok := v.(map[string]any)
		if !ok || (obj["$Kind"] != "EntityType" && obj["$Kind"] != "ComplexType") {
			continue
		}
		for name, pv := range obj {
			p, ok := pv.(map[string]any)
			if !ok || strings.HasPrefix(name, "$") || strings.HasPrefix(name, "@") {
				continue
			}
			typ, _ := p["$Type"].(string)
			if typ == "" {
				typ = "Edm.String"
			}
			if p["$Collection"] == true {
				typ = "Collection(" + typ + ")"
			}
			str := func(k string) string {
				switch x := p[k].(type) {
				case nil:
					return ""
				case string:
					return x
				case bool:
					return fmt.Sprint(x)
				case json.Number:
					return x.String()
				}
				return fmt.Sprint(p[k])
			}
			fromJSON[typeName+"/"+name] = member{
				Type: typ, Nullable: p["$Nullable"] == true,
				Facets: str("$MaxLength") + "," + str("$Precision") + "," + str("$Scale") + "," + str("$DefaultValue"),
			}
		}
	}
	if diff := cmp.Diff(fromXML, fromJSON); diff != "" {
		t.Errorf("XML and JSON disagree (-xml +json):\n%s", diff)
	}
}

// TestWriteJSONStructure checks the CSDL JSON rules clients depend on.
func TestWriteJSONStructure(t *testing.T) {
	_, doc := sampleDocuments(t)
	var root map[string]any
	if err := json.Unmarshal(doc, &root); err != nil {
		t.Fatalf("the CSDL JSON is not valid JSON: %v", err)
	}
	if root["$Version"] != "4.01" || root["$EntityContainer"] != "Store.Container" {
		t.Errorf("$Version = %v, $EntityContainer = %v", root["$Version"], root["$EntityContainer"])
	}
	refs, _ := root["$Reference"].(map[string]any)
	included := map[string]bool{}
	for _, r := range refs {
		for _, inc := range r.(map[string]any)["$Include"].([]any) {
			included[inc.(map[string]any)["$Namespace"].(string)] = true
		}
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if k == "$Type" && strings.HasPrefix(c.(string), "Collection(") {
					t.Errorf("%s: $Type %q holds Collection(...)", path, c)
				}
				if k == "$ReferentialConstraint" {
					if _, ok := c.(map[string]any); !ok {
						t.Errorf("%s: $ReferentialConstraint is not an object", path)
					}
				}
				if at := strings.IndexByte(k, '@'); at >= 0 && k != "@type" {
					term := k[at+1:]
					if ns := term[:strings.LastIndexByte(term, '.')]; !included[ns] {
						t.Errorf("%s: annotation %s: vocabulary not referenced", path, term)
					}
				}
				walk(path+"/"+k, c)
			}
		case []any:
			for i, c := range v {
				walk(fmt.Sprintf("%s/%d", path, i), c)
			}
		}
	}
	walk("", root)
	schema := root["Store"].(map[string]any)
	for _, name := range []string{"SetPassword", "Archive", "BestSellers", "PriceOf"} {
		overloads, ok := schema[name].([]any)
		if !ok || len(overloads) == 0 {
			t.Errorf("%s is not an array of overloads", name)
			continue
		}
		for _, o := range overloads {
			kind := o.(map[string]any)["$Kind"]
			if kind != "Action" && kind != "Function" {
				t.Errorf("%s overload $Kind = %v", name, kind)
			}
		}
	}
	if got := len(schema["Archive"].([]any)); got != 3 {
		t.Errorf("Archive has %d overloads, want 3", got)
	}
	container := schema["Container"].(map[string]any)
	auths, ok := container["@Org.OData.Authorization.V1.Authorizations"].([]any)
	if !ok || len(auths) != 1 {
		t.Fatalf("container Authorizations = %v", container["@Org.OData.Authorization.V1.Authorizations"])
	}
	a := auths[0].(map[string]any)
	if a["Name"] != "Bearer" || a["Scheme"] != "bearer" || !strings.HasSuffix(a["@type"].(string), "#Org.OData.Authorization.V1.Http") {
		t.Errorf("authorization = %v", a)
	}
}

// TestWriteXMLSchemaValid validates the XML document against the OASIS CSDL XML schemas with xmllint, when it
// is installed.
func TestWriteXMLSchemaValid(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed (Debian package libxml2-utils)")
	}
	doc, _ := sampleDocuments(t)
	path := filepath.Join(t.TempDir(), "metadata.xml")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", filepath.Join("testdata", "oasis", "edmx.xsd"), path).CombinedOutput()
	if err != nil {
		t.Errorf("xmllint: %v\n%s", err, out)
	}
}

// TestWriteTypesOnly checks that a model without container children is still a valid document: CSDL XML
// requires an entity container to have children, so the writers leave it out.
func TestWriteTypesOnly(t *testing.T) {
	m := &edmpkg.Model{Namespace: "Types", EnumTypes: []*edmpkg.EnumType{{Name: "Color",
		Members: []edmpkg.EnumMember{{Name: "Red", Value: 1}}}},
		Authorizations: []edmpkg.Authorization{{Name: "Bearer", Scheme: "bearer"}}}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	var x, j bytes.Buffer
	if err := m.WriteXML(&x); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{x.String(), j.String()} {
		if strings.Contains(doc, "EntityContainer") || strings.Contains(doc, "Authorization") {
			t.Errorf("document has a container or its annotations:\n%s", doc)
		}
	}
	if !json.Valid(j.Bytes()) || !strings.Contains(x.String(), `<Member Name="Red" Value="1"/>`) {
		t.Errorf("unexpected documents:\n%s\n%s", x.String(), j.String())
	}
}

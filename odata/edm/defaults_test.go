package edm_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
)

// TestDefaultsAndEscaping checks every kind of default in both CSDL forms, and that text with special
// characters survives both.
func TestDefaultsAndEscaping(t *testing.T) {
	const tricky = "Quotes \" ' & <tags>\n\ttab\r, backslash \\, unicode é✓"
	const control = tricky + " control \x01" // XML cannot carry U+0001: descriptions get U+FFFD
	level := &edm.EnumType{Name: "Level", UnderlyingType: edm.KindInt64, Members: []edm.EnumMember{{Name: "Low", Value: 1}, {Name: "High", Value: 1 << 40}}}
	props := []*edm.Property{
		{Name: "Id", Type: edm.KindInt64, Description: control},
		{Name: "S", Type: edm.KindString, Default: tricky},
		{Name: "B", Type: edm.KindBoolean, Default: false},
		{Name: "I8", Type: edm.KindSByte, Default: int8(-5)},
		{Name: "U8", Type: edm.KindByte, Default: uint8(200)},
		{Name: "I16", Type: edm.KindInt16, Default: int16(-300)},
		{Name: "I32", Type: edm.KindInt32, Default: int32(70000)},
		{Name: "I64", Type: edm.KindInt64, Default: uint64(1) << 40},
		{Name: "UI", Type: edm.KindInt64, Default: uint(7)},
		{Name: "U16", Type: edm.KindInt32, Default: uint16(9)},
		{Name: "U32", Type: edm.KindInt64, Default: uint32(10)},
		{Name: "Dec", Type: edm.KindDecimal, Precision: 10, Scale: 2, Default: decimal.RequireFromString("-12.5")},
		{Name: "DecInt", Type: edm.KindDecimal, Precision: 10, Scale: 2, Default: 3},
		{Name: "F64", Type: edm.KindDouble, Default: 1e21},
		{Name: "F32", Type: edm.KindSingle, Default: float32(0.25)},
		{Name: "FInt", Type: edm.KindDouble, Default: 2},
		{Name: "FNaN", Type: edm.KindDouble, Default: math.NaN()},
		{Name: "FInf", Type: edm.KindDouble, Default: math.Inf(-1)},
		{Name: "D", Type: edm.KindDate, Default: edm.Date{Year: 2024, Month: time.February, Day: 29}},
		{Name: "T", Type: edm.KindTimeOfDay, Default: edm.NewTimeOfDay(23, 59, 1, 500_000_000)},
		{Name: "DT", Type: edm.KindDateTimeOffset, Precision: 3,
			Default: time.Date(2024, 1, 2, 4, 4, 5, 0, time.FixedZone("+01", 3600))},
		{Name: "Dur", Type: edm.KindDuration, Default: -90 * time.Second},
		{Name: "G", Type: edm.KindGuid, Default: "01234567-89AB-CDEF-0123-456789ABCDEF"},
		{Name: "Bin", Type: edm.KindBinary, Default: []byte{1, 2}},
		{Name: "E", Enum: level, Default: int64(1 << 40)},
	}
	m := &edm.Model{
		Namespace:   "Kinds",
		Description: tricky,
		EntityTypes: []*edm.EntityType{
			{Name: "Everything", Key: []string{"Id"}, Properties: props, Description: tricky,
				Navigations: []*edm.NavigationProperty{{Name: "Next", Target: "Everything", Nullable: true,
					Join: edm.Join{SourceColumns: []string{"i64"}}}}},
		},
		EntitySets:     []*edm.EntitySet{{Name: "Everything", Type: "Everything"}},
		Singletons:     []*edm.Singleton{{Name: "First", Type: "Everything", Description: tricky}},
		Authorizations: []edm.Authorization{{Name: "Basic", Scheme: "basic", BearerFormat: "none", Description: tricky}},
	}
	if err := m.Build(); err != nil {
		t.Fatal(err)
	}
	first := m.Singleton("first")
	if first.EntityType() != m.EntityType("Everything") || first.Binding("next") != m.EntitySet("Everything") || len(first.Bindings()) != 1 {
		t.Errorf("singleton First not resolved: %v %v", first.EntityType(), first.Bindings())
	}

	wantXML := map[string]string{
		"S": tricky, "B": "false", "I8": "-5", "U8": "200", "I16": "-300", "I32": "70000",
		"I64": "1099511627776", "UI": "7", "U16": "9", "U32": "10", "Dec": "-12.5", "DecInt": "3", "F64": "1e+21",
		"F32": "0.25", "FInt": "2", "FNaN": "NaN", "FInf": "-INF", "D": "2024-02-29", "T": "23:59:01.5",
		"DT": "2024-01-02T03:04:05Z", "Dur": "-PT1M30S", "G": "01234567-89ab-cdef-0123-456789abcdef", "E": "High",
	}
	wantJSON := map[string]string{
		"B": "false", "I8": "-5", "U8": "200",
		"I16": "-300", "I32": "70000", "I64": "1099511627776", "UI": "7", "U16": "9", "U32": "10", "Dec": "-12.5",
		"DecInt": "3", "F64": "1e+21", "F32": "0.25", "FInt": "2", "FNaN": `"NaN"`, "FInf": `"-INF"`,
		"D": `"2024-02-29"`, "T": `"23:59:01.5"`, "DT": `"2024-01-02T03:04:05Z"`, "Dur": `"-PT1M30S"`,
		"G": `"01234567-89ab-cdef-0123-456789abcdef"`, "E": `"High"`,
	}

	var xb, jb bytes.Buffer
	if err := m.WriteXML(&xb); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteJSON(&jb); err != nil {
		t.Fatal(err)
	}

	// XML: well-formed, text round-trips, defaults as literals.
	var root node
	if err := xml.Unmarshal(xb.Bytes(), &root); err != nil {
		t.Fatalf("XML not well-formed: %v", err)
	}
	gotXML := map[string]string{}
	var descriptions []string
	root.walk(func(n *node) {
		if n.XMLName.Local == "Property" && n.attr("DefaultValue") != "" {
			gotXML[n.attr("Name")] = n.attr("DefaultValue")
		}
		if n.attr("Term") == "Org.OData.Core.V1.Description" || n.attr("Property") == "Description" {
			descriptions = append(descriptions, n.attr("String"))
		}
	})
	if diff := cmp.Diff(wantXML, gotXML); diff != "" {
		t.Errorf("XML DefaultValue mismatch (-want +got):\n%s", diff)
	}
	if len(descriptions) != 5 {
		t.Errorf("found %d descriptions in XML, want 5", len(descriptions))
	}
	for _, d := range descriptions {
		if d != tricky && d != strings.ReplaceAll(control, "\x01", "\uFFFD") {
			t.Errorf("XML description = %q, want %q", d, tricky)
		}
	}

	// JSON: valid, text round-trips exactly, defaults as JSON values.
	var doc, schema, typ map[string]json.RawMessage
	if err := json.Unmarshal(jb.Bytes(), &doc); err != nil {
		t.Fatalf("JSON not valid: %v", err)
	}
	if err := json.Unmarshal(doc["Kinds"], &schema); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(schema["Everything"], &typ); err != nil {
		t.Fatal(err)
	}
	gotJSON := map[string]string{}
	for name, raw := range typ {
		var p map[string]json.RawMessage
		if json.Unmarshal(raw, &p) == nil && p["$DefaultValue"] != nil {
			gotJSON[name] = string(p["$DefaultValue"])
		}
	}
	var s string
	if err := json.Unmarshal([]byte(gotJSON["S"]), &s); err != nil || s != tricky {
		t.Errorf("JSON default of S = %q, %v, want %q", s, err, tricky)
	}
	delete(gotJSON, "S")
	if diff := cmp.Diff(wantJSON, gotJSON); diff != "" {
		t.Errorf("JSON $DefaultValue mismatch (-want +got):\n%s", diff)
	}
	var desc string
	if err := json.Unmarshal(typ["@Org.OData.Core.V1.Description"], &desc); err != nil || desc != tricky {
		t.Errorf("JSON description = %q, %v, want %q", desc, err, tricky)
	}
	if !bytes.Contains(jb.Bytes(), []byte(`"BearerFormat": "none"`)) || !bytes.Contains(xb.Bytes(), []byte(`<PropertyValue Property="BearerFormat" String="none"/>`)) {
		t.Error("BearerFormat missing from the Authorizations annotation")
	}
	if !bytes.Contains(jb.Bytes(), []byte(`"$UnderlyingType": "Edm.Int64"`)) || !bytes.Contains(jb.Bytes(), []byte(`"High": 1099511627776`)) {
		t.Error("Int64 enum not written as expected")
	}
}

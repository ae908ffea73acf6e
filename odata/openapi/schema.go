package openapi

import (
	"encoding/json"
	"math"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
)

// The schemas of the OpenAPI document: one per entity type as the service answers it ("<Namespace>.<Type>"), one
// for a create or full replace ("-create") and one for a PATCH ("-update") as in the OASIS mapping, one per
// complex and enum type. Facets become JSON Schema keywords: nullability a "null" type, MaxLength maxLength,
// Decimal precision and scale minimum, maximum and multipleOf, Int64 and Decimal numbers or strings (the service
// reads both, and writes numbers), formats date, date-time, time, duration, uuid, int32, int64, decimal.

// schemaName returns the components.schemas name of a model type.
func (g *docBuilder) schemaName(name string) string { return g.m.Namespace + "." + name }

// ref returns a schema that refers to a model type's schema.
func (g *docBuilder) ref(name string) *jsObject {
	return newObject().set("$ref", "#/components/schemas/"+g.schemaName(name))
}

// typeSchemas adds the schemas of the model's enum, complex and entity types to components.schemas.
func (g *docBuilder) typeSchemas() {
	for _, e := range g.m.EnumTypes {
		g.schemas.set(g.schemaName(e.Name), enumSchema(e))
	}
	for _, c := range g.m.ComplexTypes {
		o := newObject().set("title", c.Name).set("type", "object")
		describe(o, c.Description)
		props := newObject()
		for _, p := range c.Properties {
			props.set(p.Name, g.propertySchema(p))
		}
		o.set("properties", props)
		g.schemas.set(g.schemaName(c.Name), o)
	}
	for _, et := range g.m.EntityTypes {
		g.schemas.set(g.schemaName(et.Name), g.entitySchema(et))
		if w := g.writable[et]; w.create {
			g.schemas.set(g.schemaName(et.Name)+"-create", g.inputSchema(et, w, true))
		}
		if w := g.writable[et]; w.update {
			g.schemas.set(g.schemaName(et.Name)+"-update", g.inputSchema(et, w, false))
		}
	}
}

// enumSchema is an enum type: its member names (flags values: a comma-separated combination).
func enumSchema(e *edm.EnumType) *jsObject {
	o := newObject().set("title", e.Name).set("type", "string")
	names := make([]string, len(e.Members))
	for i, m := range e.Members {
		names[i] = m.Name
	}
	desc := e.Description
	if e.Flags {
		var alternatives []string
		for _, n := range names {
			alternatives = append(alternatives, escapePattern(n))
		}
		group := "(" + strings.Join(alternatives, "|") + ")"
		o.set("pattern", "^"+group+"(,"+group+")*$")
		desc = strings.TrimSpace(desc + " A comma-separated combination of " + strings.Join(names, ", ") + ".")
	} else {
		o.set("enum", names)
	}
	describe(o, desc)
	return o
}

func escapePattern(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// entitySchema is an entity as the service answers it: every structural property (lazy ones only when
// selected, computed ones read-only) and every navigation property (only when expanded).
func (g *docBuilder) entitySchema(et *edm.EntityType) *jsObject {
	o := newObject().set("title", et.Name).set("type", "object")
	describe(o, et.Description)
	props := newObject()
	for _, p := range et.Properties {
		if p.Type == edm.KindStream {
			continue
		}
		s := g.propertySchema(p)
		if p.Computed() {
			s.set("readOnly", true)
		}
		if p.Lazy {
			describe(s, joinSentences(p.Description, "Returned only when $select names it."))
		}
		props.set(p.Name, s)
	}
	for _, n := range et.Navigations {
		props.set(n.Name, g.navigationSchema(n))
	}
	return o.set("properties", props)
}

// navigationSchema is an expanded navigation property: an entity (or null), or an array of entities.
func (g *docBuilder) navigationSchema(n *edm.NavigationProperty) *jsObject {
	target := g.ref(n.TargetType().Name)
	var s *jsObject
	switch {
	case n.Collection:
		s = newObject().set("type", "array").set("items", target)
	case n.Nullable:
		s = newObject().set("anyOf", []any{target, newObject().set("type", "null")})
	default:
		s = newObject().set("allOf", []any{target})
	}
	return describe(s, joinSentences(n.Description, "Present with $expand="+n.Name+"."))
}

// inputSchema is the body of a create or full replace (create) or of a PATCH: the properties a client may send.
// A create lists the required ones; the property the set matches a POST on (UpsertBy) is in it, to name an
// existing entity for a full update. A PATCH leaves out keys and immutable properties.
func (g *docBuilder) inputSchema(et *edm.EntityType, w writable, create bool) *jsObject {
	title := et.Name + " (for create)"
	if !create {
		title = et.Name + " (for update)"
	}
	o := newObject().set("title", title).set("type", "object")
	props := newObject()
	var required []string
	for _, p := range et.Properties {
		upsert := p == w.upsert
		switch {
		case p.Type == edm.KindStream:
			continue
		case upsert && create:
		case p.Computed():
			continue
		case !create && (p.IsKey() || p.Immutable):
			continue
		}
		s := g.propertySchema(p)
		if upsert && create {
			describe(s, joinSentences(p.Description, "Absent, null or empty to create; the "+p.Name+
				" of an existing entity to replace it in full."))
			if !p.Nullable {
				s.set("type", []string{jsonType(s), "null"})
			}
		}
		props.set(p.Name, s)
		if create && p.Required && !upsert {
			required = append(required, p.Name)
		}
	}
	o.set("properties", props)
	if len(required) > 0 {
		o.set("required", required)
	}
	return o
}

// jsonType returns a schema's "type" when it is one name, "" otherwise.
func jsonType(s *jsObject) string {
	t, _ := s.get("type").(string)
	return t
}

// propertySchema is the schema of a structural property, with its facets, default and description.
func (g *docBuilder) propertySchema(p *edm.Property) *jsObject {
	var s *jsObject
	switch {
	case p.Collection:
		item := g.valueSchema(p.Type, p.Enum, p.Complex, p.MaxLength, p.Precision, p.Scale, p.Nullable)
		s = newObject().set("type", "array").set("items", item)
	default:
		s = g.valueSchema(p.Type, p.Enum, p.Complex, p.MaxLength, p.Precision, p.Scale, p.Nullable)
	}
	if d, ok := defaultValue(p); ok {
		s.set("default", d)
	}
	if p.StandardBase64 && !p.Collection {
		s.set("contentEncoding", "base64")
	}
	return describe(s, p.Description)
}

// valueSchema is the schema of one value of a primitive, enum or complex type.
func (g *docBuilder) valueSchema(k edm.Kind, e *edm.EnumType, c *edm.ComplexType, maxLength, precision, scale int, nullable bool) *jsObject {
	var ref *jsObject
	switch {
	case e != nil:
		ref = g.ref(e.Name)
	case c != nil:
		ref = g.ref(c.Name)
	}
	if ref != nil {
		if nullable {
			return newObject().set("anyOf", []any{ref, newObject().set("type", "null")})
		}
		return newObject().set("allOf", []any{ref})
	}
	s := primitiveSchema(k, maxLength, precision, scale)
	if nullable {
		switch t := s.get("type").(type) {
		case string:
			s.set("type", []string{t, "null"})
		case []string:
			s.set("type", append(t, "null"))
		default:
			alternatives, _ := s.get("anyOf").([]any)
			s.set("anyOf", append(alternatives, newObject().set("type", "null")))
		}
	}
	return s
}

// primitiveSchema is the schema of a primitive kind with its facets, as the OASIS mapping writes it.
func primitiveSchema(k edm.Kind, maxLength, precision, scale int) *jsObject {
	s := newObject()
	switch k {
	case edm.KindString:
		s.set("type", "string")
		if maxLength > 0 {
			s.set("maxLength", maxLength)
		}
	case edm.KindBoolean:
		s.set("type", "boolean")
	case edm.KindByte, edm.KindSByte, edm.KindInt16:
		lo, hi := intRange(k)
		s.set("type", "integer").set("format", map[edm.Kind]string{edm.KindByte: "uint8", edm.KindSByte: "int8",
			edm.KindInt16: "int16"}[k]).set("minimum", lo).set("maximum", hi)
	case edm.KindInt32:
		s.set("type", "integer").set("format", "int32")
	case edm.KindInt64:
		s.set("type", []string{"integer", "string"}).set("format", "int64")
	case edm.KindDecimal:
		s.set("type", []string{"number", "string"}).set("format", "decimal")
		decimalFacets(s, precision, scale)
	case edm.KindDouble, edm.KindSingle:
		format := "double"
		if k == edm.KindSingle {
			format = "float"
		}
		s.set("anyOf", []any{newObject().set("type", "number").set("format", format),
			newObject().set("type", "string").set("enum", []string{"-INF", "INF", "NaN"})})
	case edm.KindDate:
		s.set("type", "string").set("format", "date")
	case edm.KindTimeOfDay:
		s.set("type", "string").set("format", "time")
	case edm.KindDateTimeOffset:
		s.set("type", "string").set("format", "date-time")
	case edm.KindDuration:
		s.set("type", "string").set("format", "duration")
	case edm.KindGuid:
		s.set("type", "string").set("format", "uuid")
	case edm.KindBinary, edm.KindStream:
		s.set("type", "string").set("contentEncoding", "base64url")
		if maxLength > 0 {
			s.set("maxLength", (maxLength+2)/3*4)
		}
	}
	return s
}

// intRange returns the range of the integer kinds narrower than Int32.
func intRange(k edm.Kind) (lo, hi int64) {
	switch k {
	case edm.KindByte:
		return 0, math.MaxUint8
	case edm.KindSByte:
		return math.MinInt8, math.MaxInt8
	}
	return math.MinInt16, math.MaxInt16
}

// decimalFacets writes a Decimal's scale as multipleOf and its range as minimum and maximum: the smaller of what
// the precision allows and what the service stores (value x 10^scale in 64 bits up to
// edm.MaxScaledDecimalPrecision digits, see odata/DESIGN.md; a wider Decimal is exact). A property declared
// edm.DecimalScaled beyond that precision accepts less than the range written.
func decimalFacets(s *jsObject, precision, scale int) {
	step := decimal.New(1, -int32(scale))
	s.set("multipleOf", json.Number(step.String()))
	if precision > edm.MaxScaledDecimalPrecision {
		p := decimal.New(1, int32(precision-scale)).Sub(step)
		s.set("minimum", json.Number(p.Neg().String())).set("maximum", json.Number(p.String()))
		return
	}
	hi := decimal.New(math.MaxInt64, -int32(scale))
	lo := decimal.New(math.MinInt64, -int32(scale))
	if precision > 0 && precision-scale < 19 {
		if p := decimal.New(1, int32(precision-scale)).Sub(step); p.LessThan(hi) {
			hi, lo = p, p.Neg()
		}
	}
	s.set("minimum", json.Number(lo.String())).set("maximum", json.Number(hi.String()))
}

// defaultValue returns a property's default as JSON writes it, with false when it has none.
func defaultValue(p *edm.Property) (any, bool) {
	v := p.Default
	if v == nil || p.Collection || p.Complex != nil {
		return nil, false
	}
	if p.Enum != nil {
		switch x := v.(type) {
		case string:
			return x, true
		case int64:
			return p.Enum.Format(x), true
		}
		return nil, false
	}
	switch x := v.(type) {
	case string, bool, int64:
		return x, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		return x, true
	case decimal.Decimal:
		return json.Number(x.String()), true
	case edm.Date:
		return x.String(), true
	case edm.TimeOfDay:
		return x.String(), true
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano), true
	case time.Duration:
		return edm.FormatDuration(x), true
	}
	return nil, false
}

// describe sets a schema's description when text is not empty.
func describe(o *jsObject, text string) *jsObject {
	if text != "" {
		o.set("description", text)
	}
	return o
}

// joinSentences joins two texts with a space, either may be empty.
func joinSentences(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " " + b
}

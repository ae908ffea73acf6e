package edm

import (
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/internal/gostruct"
)

// GoEnum is implemented by a Go integer type that stands for an enum type: a field of that type (or a pointer
// to, or a slice of it) is a property of the enum type EnumType returns. EntityTypesOf calls it once per Go type
// and shares the declaration among the properties it derives, so EnumType may return a new declaration every
// time (then models derived separately do not share one).
type GoEnum interface {
	EnumType() *EnumType
}

// EntityTypesOf derives an entity type from the Go struct type of each value (a struct, or a pointer to one:
// Book{} or (*Book)(nil)), as the package documentation's "Entity types from Go structs" describes. The
// entity types are named after the Go types and declared as the literal model would declare them; complex and
// enum types they use are referred to by their properties (Build adds them to the model). The declarations
// are ordinary values: change them before Build where the tags say nothing (a Table, a property's SQL or
// RequiredMessage, an ETag).
//
// Navigations may lead only to the structs of the same call. EntityTypesOf reports every wrong declaration
// it finds, joined (errors.Join), each naming the struct and its field, and returns no types then.
func EntityTypesOf(values ...any) ([]*EntityType, error) {
	d := &deriver{problems: &errorList{}, entities: map[reflect.Type]*EntityType{}, complexes: map[reflect.Type]*ComplexType{},
		enums: map[reflect.Type]*EnumType{}}
	var types []reflect.Type
	for i, v := range values {
		t := reflect.TypeOf(v)
		if t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case t == nil || t.Kind() != reflect.Struct:
			d.problems.add(fmt.Sprintf("value #%d", i+1), fmt.Sprintf("%T is not a struct or a pointer to one", v))
		case t.Name() == "":
			d.problems.add(fmt.Sprintf("value #%d", i+1), "an entity type needs a named struct type")
		case d.entities[t] != nil:
			d.problems.add(fmt.Sprintf("struct %q", t.Name()), "given twice")
		default:
			d.entities[t] = &EntityType{Name: t.Name()}
			types = append(types, t)
		}
	}
	for _, t := range types {
		d.entityProperties(t)
	}
	for _, t := range types {
		d.entityNavigations(t)
	}
	if len(d.problems.list) > 0 {
		return nil, joinProblems(d.problems)
	}
	out := make([]*EntityType, len(types))
	for i, t := range types {
		out[i] = d.entities[t]
	}
	return out, nil
}

// deriver derives the declarations of one EntityTypesOf call.
type deriver struct {
	problems  *errorList
	entities  map[reflect.Type]*EntityType
	complexes map[reflect.Type]*ComplexType
	enums     map[reflect.Type]*EnumType
}

// fields returns the fields of t, reporting the wrong ones under where.
func (d *deriver) fields(where string, t reflect.Type) []gostruct.Field {
	s := gostruct.Fields(t)
	for _, err := range s.Problems {
		d.problems.add(where, err.Error())
	}
	return s.Fields
}

// entityProperties derives the key and the properties of the entity type of t.
func (d *deriver) entityProperties(t reflect.Type) {
	et := d.entities[t]
	where := fmt.Sprintf("struct %q", t.Name())
	var conventional *Property
	for _, f := range d.fields(where, t) {
		if d.isNavigation(&f) {
			continue
		}
		p := d.property(where, &f)
		if _, key := f.Option("key"); key {
			et.Key = append(et.Key, p.Name)
		}
		if conventional == nil && strings.EqualFold(f.GoName, "ID") {
			conventional = p
		}
		et.Properties = append(et.Properties, p)
	}
	switch {
	case len(et.Key) > 0:
	case conventional != nil:
		// The key by convention: a field named ID (or Id); a database-generated one when it is an integer.
		et.Key = []string{conventional.Name}
		conventional.Generated = conventional.Generated || kindFamily(conventional.Type) == kindFamily(KindInt64)
	default:
		d.problems.add(where, `no key: name the key field ID or tag the key field(s) with odata:",key"`)
	}
}

// isNavigation reports whether the field f is a navigation property: one whose tag names a join, or whose type
// is an entity struct of the same call (T, *T, []T or []*T), joined by convention (see conventionalJoin).
func (d *deriver) isNavigation(f *gostruct.Field) bool {
	if f.Navigation() {
		return true
	}
	t := f.Type
	if t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return d.entities[t] != nil
}

// entityNavigations derives the navigation properties of the entity type of t.
func (d *deriver) entityNavigations(t reflect.Type) {
	et := d.entities[t]
	where := fmt.Sprintf("struct %q", t.Name())
	for _, f := range gostruct.Fields(t).Fields {
		if d.isNavigation(&f) {
			if n := d.navigation(where, et, &f); n != nil {
				et.Navigations = append(et.Navigations, n)
			}
		}
	}
}

// complexType returns the complex type of the struct type t, derived once per EntityTypesOf call.
func (d *deriver) complexType(t reflect.Type, report func(string)) *ComplexType {
	if c := d.complexes[t]; c != nil {
		return c
	}
	if t.Name() == "" {
		report("an unnamed struct type cannot be a complex type")
		return nil
	}
	c := &ComplexType{Name: t.Name()}
	d.complexes[t] = c // before its members: a type that contains itself refers to itself (Build reports it)
	where := fmt.Sprintf("struct %q", t.Name())
	for _, f := range d.fields(where, t) {
		if f.Navigation() {
			d.problems.add(fmt.Sprintf("%s: field %q", where, f.GoName), "a complex type has no navigation properties")
			continue
		}
		if _, key := f.Option("key"); key {
			d.problems.add(fmt.Sprintf("%s: field %q", where, f.GoName), "a complex type has no key")
		}
		c.Properties = append(c.Properties, d.property(where, &f))
	}
	return c
}

// Go types with an EDM kind of their own (the others map by their reflect.Kind).
var (
	timeType      = reflect.TypeFor[time.Time]()
	durationType  = reflect.TypeFor[time.Duration]()
	dateType      = reflect.TypeFor[Date]()
	timeOfDayType = reflect.TypeFor[TimeOfDay]()
	decimalType   = reflect.TypeFor[decimal.Decimal]()
	goEnumType    = reflect.TypeFor[GoEnum]()
)

// property derives the property of the field f of a struct (named where).
func (d *deriver) property(where string, f *gostruct.Field) *Property {
	p := &Property{Name: f.Name}
	report := func(msg string) { d.problems.add(fmt.Sprintf("%s: field %q", where, f.GoName), msg) }
	d.propertyType(p, f.Type, report)
	if o, ok := f.Option("type"); ok {
		typeOption(p, o.Value, report)
	}
	for _, o := range f.Options {
		if o.Key == "type" || o.Key == "key" && !o.HasValue {
			continue
		}
		propertyOption(p, o, report)
	}
	return p
}

// propertyType sets the type of p from the field's Go type t: a pointer is nullable, a slice (but []byte) a
// collection, a struct a complex type, and the rest a primitive or enum type.
func (d *deriver) propertyType(p *Property, t reflect.Type, report func(string)) {
	if t.Kind() == reflect.Pointer {
		p.Nullable, t = true, t.Elem()
	}
	switch {
	case t.Kind() == reflect.Pointer:
		report(fmt.Sprintf("a pointer to a pointer (%s) has no EDM type", t))
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		if p.Nullable {
			report("a pointer to a slice: a collection is never null (use the slice)")
		}
		p.Collection, p.Nullable = true, false
		item := t.Elem()
		if item.Kind() == reflect.Pointer {
			p.Nullable, item = true, item.Elem()
		}
		switch {
		case d.scalarType(p, item):
		case d.entities[item] != nil:
			report(entityField(item))
		default:
			report(fmt.Sprintf("the Go type %s has no EDM type: a collection holds primitive or enum values", t))
		}
	case d.scalarType(p, t):
	case t.Kind() == reflect.Struct && d.entities[t] != nil:
		report(entityField(t))
	case t.Kind() == reflect.Struct:
		p.Complex = d.complexType(t, report)
	default:
		report(fmt.Sprintf("the Go type %s has no EDM type", t))
	}
}

// entityField is the problem of a field of an entity struct (or a slice of them) whose tag does not make it a
// navigation.
func entityField(t reflect.Type) string {
	return fmt.Sprintf("%s is an entity type: a navigation's tag names its foreign key (fk=, fkcolumns=) or link table (link=)", t.Name())
}

// scalarType sets the primitive kind or enum type of p for the Go type t and reports whether it has one.
func (d *deriver) scalarType(p *Property, t reflect.Type) bool {
	if t.Implements(goEnumType) && isInteger(t.Kind()) {
		e, ok := d.enums[t]
		if !ok {
			e = reflect.Zero(t).Interface().(GoEnum).EnumType()
			d.enums[t] = e
		}
		p.Enum = e
		return e != nil
	}
	switch t {
	case timeType:
		p.Type = KindDateTimeOffset
	case durationType:
		p.Type = KindDuration
	case dateType:
		p.Type = KindDate
	case timeOfDayType:
		p.Type = KindTimeOfDay
	case decimalType:
		p.Type = KindDecimal
	default:
		p.Type = goKinds[t.Kind()]
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			p.Type = KindBinary
		}
	}
	return p.Type != KindNone
}

// isInteger reports whether k is a Go integer kind.
func isInteger(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Uint64 }

// goKinds is the kind of each Go kind that has one.
var goKinds = map[reflect.Kind]Kind{
	reflect.String: KindString, reflect.Bool: KindBoolean,
	reflect.Int8: KindSByte, reflect.Int16: KindInt16, reflect.Int32: KindInt32, reflect.Int64: KindInt64, reflect.Int: KindInt64,
	reflect.Uint8: KindByte, reflect.Float32: KindSingle, reflect.Float64: KindDouble,
}

// kindFamily groups the kinds whose Go values have the same type (string, int64, float64, []byte): type= may
// choose another kind of the field's family.
func kindFamily(k Kind) int {
	switch {
	case k == KindString || k == KindGuid:
		return 1
	case k.isInteger():
		return 2
	case k == KindDouble || k == KindSingle:
		return 3
	case k == KindBinary || k == KindStream:
		return 4
	}
	return 0
}

// typeOption applies type=: another primitive kind whose Go values the field's type holds.
func typeOption(p *Property, name string, report func(string)) {
	k, ok := ParseKind(name)
	if !ok {
		k, ok = ParseKind("Edm." + name)
	}
	switch {
	case !ok:
		report(fmt.Sprintf("type=%s: not an EDM primitive type", name))
	case p.Type == KindNone || kindFamily(k) == 0 || kindFamily(k) != kindFamily(p.Type):
		report(fmt.Sprintf("type=%s: a field of this Go type cannot hold %s values", name, k))
	default:
		p.Type = k
	}
}

// flagOptions are the options without a value and what they set.
var flagOptions = map[string]func(p *Property){
	"generated":  func(p *Property) { p.Generated = true },
	"readonly":   func(p *Property) { p.ReadOnly = true },
	"immutable":  func(p *Property) { p.Immutable = true },
	"required":   func(p *Property) { p.Required = true },
	"searchable": func(p *Property) { p.Searchable = true },
	"lazy":       func(p *Property) { p.Lazy = true },
	"stdbase64":  func(p *Property) { p.StandardBase64 = true },
}

// valueOptions are the options with a value and how they apply it; an error says what is wrong with it.
var valueOptions = map[string]func(p *Property, value string) error{
	"maxlength":   func(p *Property, v string) error { return count(v, &p.MaxLength) },
	"precision":   func(p *Property, v string) error { return count(v, &p.Precision) },
	"scale":       func(p *Property, v string) error { return count(v, &p.Scale) },
	"column":      func(p *Property, v string) error { p.Column = v; return nil },
	"description": func(p *Property, v string) error { p.Description = v; return nil },
	"default":     defaultOption,
	"storage":     storageOption,
}

// propertyOption applies the option o (but type= and key) to p.
func propertyOption(p *Property, o gostruct.Option, report func(string)) {
	if set, ok := flagOptions[o.Key]; ok {
		if o.HasValue {
			report(fmt.Sprintf("option %s takes no value", o.Key))
		}
		set(p)
		return
	}
	if apply, ok := valueOptions[o.Key]; ok {
		if !o.HasValue {
			report(fmt.Sprintf("option %s needs a value (%s=...)", o.Key, o.Key))
		} else if err := apply(p, o.Value); err != nil {
			report(fmt.Sprintf("%s=%s: %v", o.Key, o.Value, err))
		}
		return
	}
	switch {
	case o.Key == "nullable" && !o.HasValue:
		if p.Type != KindBinary && p.Type != KindStream || p.Collection {
			report("option nullable applies to []byte and navigations; other properties are nullable as pointers (*T)")
		}
		p.Nullable = true
	case o.Key == "key":
		report("option key takes no value")
	default:
		report(propertyOptionProblem(o.Key))
	}
}

// count parses a non-negative integer facet.
func count(s string, to *int) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("not a non-negative integer")
	}
	*to = n
	return nil
}

// storageOption sets the storage named by s: of a DateTimeOffset or TimeOfDay the TimeStorage ("auto", "sql",
// "unix"), of other kinds the DecimalStorage ("auto", "scaled", "exact", "float"), which Build checks.
func storageOption(p *Property, s string) error {
	if p.Type == KindDateTimeOffset || p.Type == KindTimeOfDay {
		for st := TimeAuto; st <= TimeUnix; st++ {
			if st.String() == s {
				p.TimeStorage = st
				return nil
			}
		}
		return timeStorageProblem(s)
	}
	for st := DecimalAuto; st <= DecimalFloat; st++ {
		if st.String() == s {
			p.DecimalStorage = st
			return nil
		}
	}
	return decimalStorageProblem(s)
}

// defaultOption sets the Default from its text form: the literal of the property's kind without quotes
// (Build checks it against the facets) or an enum member's name.
func defaultOption(p *Property, s string) error {
	if p.Collection || p.Complex != nil {
		return fmt.Errorf("a collection or complex property has no default")
	}
	if p.Enum != nil {
		p.Default = s // a member name or number; Build checks it
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			p.Default = n
		}
		return nil
	}
	parse := defaultParsers[p.Type]
	if parse == nil {
		return fmt.Errorf("%s properties have no default", p.Type)
	}
	v, err := parse(s)
	if err != nil {
		return fmt.Errorf("not a value of %s", p.Type)
	}
	p.Default = v
	return nil
}

// defaultParsers read the default of each kind that has one from its text.
var defaultParsers = map[Kind]func(s string) (any, error){
	KindString:  func(s string) (any, error) { return s, nil },
	KindGuid:    func(s string) (any, error) { return ParseGuid(s) },
	KindBoolean: func(s string) (any, error) { return strconv.ParseBool(s) },
	KindByte:    parseInteger, KindSByte: parseInteger, KindInt16: parseInteger, KindInt32: parseInteger, KindInt64: parseInteger,
	KindDecimal: func(s string) (any, error) { return decimal.NewFromString(s) },
	KindDouble:  parseFloat, KindSingle: parseFloat,
	KindDate:           func(s string) (any, error) { return ParseDate(s) },
	KindTimeOfDay:      func(s string) (any, error) { return ParseTimeOfDay(s) },
	KindDateTimeOffset: func(s string) (any, error) { return time.Parse(time.RFC3339Nano, s) },
	KindDuration:       func(s string) (any, error) { return ParseDuration(s) },
	KindBinary:         func(s string) (any, error) { return base64.StdEncoding.DecodeString(s) },
}

func parseInteger(s string) (any, error) { return strconv.ParseInt(s, 10, 64) }

func parseFloat(s string) (any, error) { return strconv.ParseFloat(s, 64) }

// navigation derives the navigation property of the field f of the entity type source.
func (d *deriver) navigation(where string, source *EntityType, f *gostruct.Field) *NavigationProperty {
	report := func(msg string) { d.problems.add(fmt.Sprintf("%s: field %q", where, f.GoName), msg) }
	n := &NavigationProperty{Name: f.Name}
	t := f.Type
	if t.Kind() == reflect.Slice {
		n.Collection, t = true, t.Elem()
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	target := d.entities[t]
	if target == nil {
		report(fmt.Sprintf("a navigation leads to a struct of the same EntityTypesOf call (T, *T, []T or []*T), not %s", f.Type))
		return nil
	}
	n.Target = target.Name
	joins := 0
	for _, k := range []string{"fk", "fkcolumns", "link"} {
		if _, ok := f.Option(k); ok {
			joins++
		}
	}
	if joins > 1 {
		report("give one of fk=, fkcolumns= and link=")
		return nil
	}
	if joins == 0 && !d.conventionalJoin(n, source, target, f.Name, report) {
		return nil
	}
	for _, o := range f.Options {
		d.navigationOption(n, source, target, f, o, report)
	}
	if _, link := f.Option("link"); !link {
		for _, k := range []string{"linksource", "linktarget"} {
			if _, ok := f.Option(k); ok {
				report(fmt.Sprintf("option %s needs link=", k))
			}
		}
	}
	return n
}

// navigationOption applies the option o of a navigation from source to target.
func (d *deriver) navigationOption(n *NavigationProperty, source, target *EntityType, f *gostruct.Field, o gostruct.Option, report func(string)) {
	if flag := map[string]*bool{"nullable": &n.Nullable, "contains": &n.ContainsTarget}[o.Key]; flag != nil {
		if o.HasValue {
			report(fmt.Sprintf("option %s takes no value", o.Key))
		}
		*flag = true
		return
	}
	if !navigationOptions[o.Key] {
		report(navigationOptionProblem(o.Key))
		return
	}
	if !o.HasValue {
		report(fmt.Sprintf("option %s needs a value (%s=...)", o.Key, o.Key))
		return
	}
	// The side whose columns refer to the other: the source of a to-one navigation, the target of a to-many one.
	holder, columns := source, &n.Join.SourceColumns
	if n.Collection {
		holder, columns = target, &n.Join.TargetColumns
	}
	switch o.Key {
	case "fk":
		*columns = d.propertyColumns(holder, gostruct.List(o.Value), report)
	case "fkcolumns":
		*columns = gostruct.List(o.Value)
	case "link":
		n.Join.Through = &LinkTable{Table: o.Value,
			SourceColumns: d.linkColumns(source, f, "linksource"), TargetColumns: d.linkColumns(target, f, "linktarget")}
	case "partner":
		n.Partner = o.Value
	case "description":
		n.Description = o.Value
	case "hierarchy":
		source.RecursiveHierarchies = append(source.RecursiveHierarchies, RecursiveHierarchy{Qualifier: o.Value, ParentNavigation: n.Name})
	}
}

// conventionalJoin sets the join of the navigation n from source to target whose tag names none: the foreign
// key is the property named after the navigation with ID appended (in any case) in source for a to-one navigation
// (Team *Team: TeamID), and the property named after source with ID appended in target for a to-many one
// (Players []Player in Team: Player's TeamID). It reports false, and the fix, when there is no such property.
func (d *deriver) conventionalJoin(n *NavigationProperty, source, target *EntityType, field string, report func(string)) bool {
	holder, columns, base := source, &n.Join.SourceColumns, field
	if n.Collection {
		holder, columns, base = target, &n.Join.TargetColumns, source.Name
	}
	if p := primitiveProperty(holder, func(p *Property) bool { return strings.EqualFold(p.Name, base+"ID") }); p != nil {
		*columns = []string{columnName(p)}
		return true
	}
	report(fmt.Sprintf("no foreign key: give %s a property %sID, or tag the field with fk=, fkcolumns= or link=", holder.Name, base))
	return false
}

// navigationOptions are the options of a navigation with a value.
var navigationOptions = map[string]bool{"fk": true, "fkcolumns": true, "link": true, "linksource": true,
	"linktarget": true, "partner": true, "description": true, "hierarchy": true}

// propertyColumns returns the columns of the properties of t named names.
func (d *deriver) propertyColumns(t *EntityType, names []string, report func(string)) []string {
	columns := make([]string, len(names))
	for i, name := range names {
		p := findProperty(t, name)
		if p == nil {
			report(fmt.Sprintf("fk=%s: %s has no primitive property %q", name, t.Name, name))
			continue
		}
		columns[i] = columnName(p)
	}
	return columns
}

// linkColumns returns the link table's columns that equal the key columns of t: the option's (names of
// columns) when the field has it, else "<table of t>_<key column>" for each key property.
func (d *deriver) linkColumns(t *EntityType, f *gostruct.Field, option string) []string {
	if o, ok := f.Option(option); ok {
		return gostruct.List(o.Value)
	}
	var columns []string
	for _, k := range t.Key {
		if p := findProperty(t, k); p != nil {
			columns = append(columns, SnakeCase(t.Name)+"_"+columnName(p))
		}
	}
	return columns
}

// findProperty returns the primitive or enum property of t named name, nil if there is none.
func findProperty(t *EntityType, name string) *Property {
	return primitiveProperty(t, func(p *Property) bool { return p.Name == name })
}

// columnName returns the column of p: its Column, or the snake_case of its name.
func columnName(p *Property) string {
	if p.Column != "" {
		return p.Column
	}
	return SnakeCase(p.Name)
}

// joinProblems joins the problems of a list (as Build does).
func joinProblems(l *errorList) error { return errors.Join(l.list...) }

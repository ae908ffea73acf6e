package edm

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// DefaultContainer is the entity container name used when Model.Container is empty.
const DefaultContainer = "Container"

// sqlPlaceholder stands for the entity table's alias in Property.SQL.
const sqlPlaceholder = "{{.}}"

// maxTemporalPrecision is the number of fractional-second digits storage keeps (microseconds).
const maxTemporalPrecision = 6

// errorList collects build errors in declaration order.
type errorList struct{ list []error }

func (l *errorList) add(where, msg string) {
	l.list = append(l.list, errors.New("edm: "+where+": "+msg))
}

// Build validates the model, fills in defaults, resolves names and builds the lookup indexes. It reports every
// wrong declaration it finds, joined (errors.Join), each naming the declaration:
//
//	edm: entity type "Product": key property "Ident" does not exist
//
// After a successful Build the model must not be modified. After a failed Build the model finds nothing and
// cannot be written; fix the declarations and call Build again.
func (m *Model) Build() error {
	if m.built {
		return errors.New("edm: the model is already built")
	}
	b := &builder{m: m, problems: &errorList{}, badJoin: map[*NavigationProperty]bool{}, mirrored: map[*NavigationProperty]bool{}}
	b.build()
	if len(b.problems.list) > 0 {
		m.reset()
		return errors.Join(b.problems.list...)
	}
	m.built = true
	return nil
}

// reset drops the indexes of a model whose Build failed.
func (m *Model) reset() {
	m.entityTypes, m.complexTypes, m.enumTypes = index[*EntityType]{}, index[*ComplexType]{}, index[*EnumType]{}
	m.entitySets, m.singletons = index[*EntitySet]{}, index[*Singleton]{}
	m.actions, m.functions = index[int]{}, index[int]{}
	m.actionGroups, m.functionGroups = nil, nil
}

type builder struct {
	m        *Model
	problems *errorList
	// cyclic is set when a complex type contains itself; complex properties are then not expanded.
	cyclic bool
	// badJoin holds navigations whose join was reported wrong; mirrored holds those compared with a partner.
	badJoin  map[*NavigationProperty]bool
	mirrored map[*NavigationProperty]bool
}

func (b *builder) build() {
	m := b.m
	if !isNamespace(m.Namespace) {
		b.problems.add(fmt.Sprintf("namespace %q", m.Namespace), "not a valid namespace (identifiers separated by dots)")
	}
	for _, r := range reservedNamespaces {
		if strings.EqualFold(m.Namespace, r) {
			b.problems.add(fmt.Sprintf("namespace %q", m.Namespace), "the namespace is reserved")
		}
	}
	if m.Container == "" {
		m.Container = DefaultContainer
	}
	if !b.collectTypes() {
		return // nil declarations: nothing else can be checked safely
	}
	b.schemaNames()
	for _, e := range m.EnumTypes {
		e.build(b.problems)
	}
	for _, c := range m.ComplexTypes {
		b.complexType(c)
	}
	b.complexCycles()
	for _, t := range m.EntityTypes {
		b.entityType(t)
	}
	b.tables()
	for _, t := range m.EntityTypes {
		for _, n := range t.Navigations {
			b.navigation(t, n)
		}
	}
	for _, t := range m.EntityTypes {
		for _, n := range t.Navigations {
			b.partner(t, n)
		}
	}
	b.container()
	b.operations()
	b.authorizations()
	b.bindings()
}

// noNil adds a "nil declaration" error, named what #n, for each nil element of list; it reports whether there
// was none.
func noNil[T any](b *builder, what string, list []*T) bool {
	ok := true
	for i, x := range list {
		if x == nil {
			b.problems.add(fmt.Sprintf("%s #%d", what, i+1), "nil declaration")
			ok = false
		}
	}
	return ok
}

// collectTypes checks for nil declarations and adds the enum and complex types that properties, parameters and
// return types refer to without being listed. It reports false if a declaration is nil.
func (b *builder) collectTypes() bool {
	if !b.noNilDeclarations() {
		return false
	}
	c := newTypeCollector(b)
	for i := 0; i < len(b.m.ComplexTypes); i++ { // the list grows while walking
		if !c.addPropertyTypes(b.m.ComplexTypes[i].Properties) {
			return false
		}
	}
	for _, t := range b.m.EntityTypes {
		if !c.addPropertyTypes(t.Properties) {
			return false
		}
	}
	for _, a := range b.m.Actions {
		c.addSignatureTypes(a.Parameters, a.ReturnType)
	}
	for _, f := range b.m.Functions {
		c.addSignatureTypes(f.Parameters, f.ReturnType)
	}
	return true
}

// noNilDeclarations reports every nil declaration of the model and of its entity and complex types; it
// returns whether there was none.
func (b *builder) noNilDeclarations() bool {
	m := b.m
	ok := noNil(b, "enum type", m.EnumTypes)
	ok = noNil(b, "complex type", m.ComplexTypes) && ok
	ok = noNil(b, "entity type", m.EntityTypes) && ok
	ok = noNil(b, "entity set", m.EntitySets) && ok
	ok = noNil(b, "singleton", m.Singletons) && ok
	ok = noNil(b, "action", m.Actions) && ok
	ok = noNil(b, "function", m.Functions) && ok
	for _, t := range m.EntityTypes {
		if t != nil {
			ok = noNil(b, fmt.Sprintf("entity type %q: property", t.Name), t.Properties) && ok
			ok = noNil(b, fmt.Sprintf("entity type %q: navigation", t.Name), t.Navigations) && ok
		}
	}
	for _, c := range m.ComplexTypes {
		if c != nil {
			ok = noNil(b, fmt.Sprintf("complex type %q: property", c.Name), c.Properties) && ok
		}
	}
	return ok
}

// typeCollector adds the enum and complex types a model refers to to its lists, each once.
type typeCollector struct {
	b         *builder
	enums     map[*EnumType]bool
	complexes map[*ComplexType]bool
}

func newTypeCollector(b *builder) *typeCollector {
	c := &typeCollector{b: b, enums: map[*EnumType]bool{}, complexes: map[*ComplexType]bool{}}
	for _, e := range b.m.EnumTypes {
		c.enums[e] = true
	}
	for _, t := range b.m.ComplexTypes {
		c.complexes[t] = true
	}
	return c
}

func (c *typeCollector) addEnum(e *EnumType) {
	if e != nil && !c.enums[e] {
		c.enums[e] = true
		c.b.m.EnumTypes = append(c.b.m.EnumTypes, e)
	}
}

// addComplex adds a complex type and the types of its properties; it reports false at a nil property.
func (c *typeCollector) addComplex(t *ComplexType) bool {
	if t == nil || c.complexes[t] {
		return true
	}
	c.complexes[t] = true
	c.b.m.ComplexTypes = append(c.b.m.ComplexTypes, t)
	return c.addPropertyTypes(t.Properties)
}

// addPropertyTypes adds the enum and complex types of properties; it reports a nil property and returns false.
func (c *typeCollector) addPropertyTypes(properties []*Property) bool {
	for i, p := range properties {
		if p == nil {
			c.b.problems.add(fmt.Sprintf("property #%d", i+1), "nil declaration")
			return false
		}
		c.addEnum(p.Enum)
		if !c.addComplex(p.Complex) {
			return false
		}
	}
	return true
}

// addSignatureTypes adds the enum and complex types of an operation's parameters and return type.
func (c *typeCollector) addSignatureTypes(parameters []Parameter, result *ReturnType) {
	for _, p := range parameters {
		c.addEnum(p.Enum)
		c.addComplex(p.Complex)
	}
	if result != nil {
		c.addEnum(result.Enum)
		c.addComplex(result.Complex)
	}
}

// schemaNames checks that schema children have unique names (case-insensitively, as lookups are), allowing
// overloads of one action or function, and builds the type indexes.
func (b *builder) schemaNames() {
	m := b.m
	m.entityTypes, m.complexTypes, m.enumTypes = newIndex[*EntityType](), newIndex[*ComplexType](), newIndex[*EnumType]()
	m.actions, m.functions = newIndex[int](), newIndex[int]()
	m.actionGroups, m.functionGroups = nil, nil
	seen := map[string]string{} // folded name -> "kind \"Name\""
	claim := func(kind, name string) bool {
		declaration := fmt.Sprintf("%s %q", kind, name)
		if !isIdentifier(name) {
			b.problems.add(declaration, "name is not a valid identifier")
		}
		k := foldKey(name)
		if prev, taken := seen[k]; taken {
			b.problems.add(declaration, "name is already used by "+prev)
			return false
		}
		seen[k] = declaration
		return true
	}
	claim("entity container", m.Container)
	for _, e := range m.EnumTypes {
		claim("enum type", e.Name)
		m.enumTypes.add(e.Name, e) // indexed even when the name clashes, so references resolve
	}
	for _, c := range m.ComplexTypes {
		claim("complex type", c.Name)
		m.complexTypes.add(c.Name, c) // indexed even when the name clashes, so references resolve
	}
	for _, t := range m.EntityTypes {
		claim("entity type", t.Name)
		m.entityTypes.add(t.Name, t) // indexed even when the name clashes, so references resolve
	}
	m.actionGroups = groupOverloads(b, "action", m.Actions, func(a *Action) string { return a.Name }, &m.actions, claim)
	m.functionGroups = groupOverloads(b, "function", m.Functions, func(f *Function) string { return f.Name }, &m.functions, claim)
}

// groupOverloads groups the operations of one kind by name: overloads share a name (spelt the same way) and one
// index entry that points at their group.
func groupOverloads[T any](b *builder, kind string, ops []T, name func(T) string, nameIndex *index[int],
	claim func(kind, name string) bool) [][]T {
	var groups [][]T
	for _, op := range ops {
		n := name(op)
		if i, ok := nameIndex.get(n); ok {
			if first := name(groups[i][0]); first != n {
				b.problems.add(fmt.Sprintf("%s %q", kind, n), fmt.Sprintf("overloads must have the same name as %q", first))
			}
			groups[i] = append(groups[i], op)
			continue
		}
		if claim(kind, n) {
			nameIndex.add(n, len(groups))
			groups = append(groups, []T{op})
		}
	}
	return groups
}

// entityTypeNamed resolves a declared reference to an entity type: its simple name or "<namespace>.<name>",
// exactly.
func (b *builder) entityTypeNamed(name string) *EntityType {
	if t, ok := b.m.entityTypes.exact[name]; ok {
		return t
	}
	if rest, ok := strings.CutPrefix(name, b.m.Namespace+"."); ok {
		return b.m.entityTypes.exact[rest]
	}
	return nil
}

func (b *builder) complexType(c *ComplexType) {
	where := fmt.Sprintf("complex type %q", c.Name)
	if len(c.Properties) == 0 {
		b.problems.add(where, "no properties")
	}
	c.propertyIndex = newIndex[*Property]()
	columns := map[string]string{}
	for _, p := range c.Properties {
		b.property(where, p, false)
		if !c.propertyIndex.add(p.Name, p) {
			b.problems.add(where, fmt.Sprintf("duplicate property %q", p.Name))
			continue
		}
		if prev, taken := columns[p.Column]; taken && p.Column != "" {
			b.problems.add(where, fmt.Sprintf("property %q: column %q is also the column of property %q", p.Name, p.Column, prev))
		} else {
			columns[p.Column] = p.Name
		}
	}
}

// complexCycles reports complex types that contain themselves (they would need infinitely many columns).
func (b *builder) complexCycles() {
	state := map[*ComplexType]int{} // 1 visiting, 2 done
	var visit func(c *ComplexType) bool
	visit = func(c *ComplexType) bool {
		switch state[c] {
		case 1:
			return false
		case 2:
			return true
		}
		state[c] = 1
		for _, p := range c.Properties {
			if p.Complex != nil && !visit(p.Complex) {
				return false
			}
		}
		state[c] = 2
		return true
	}
	for _, c := range b.m.ComplexTypes {
		if state[c] == 0 && !visit(c) {
			b.problems.add(fmt.Sprintf("complex type %q", c.Name), "contains itself through its properties")
			b.cyclic = true
			return
		}
	}
}

// property validates a structural property of an entity type (inEntity) or complex type and fills in its
// column.
func (b *builder) property(where string, p *Property, inEntity bool) {
	declaration := fmt.Sprintf("%s: property %q", where, p.Name)
	report := func(msg string) { b.problems.add(declaration, msg) }
	validName := checkMemberName(p.Name, report)
	oneType := checkPropertyType(p, report)
	if p.SQL != "" {
		computedProperty(p, inEntity, report)
	} else {
		defaultColumn(p, validName, report)
	}
	checkCollection(p, inEntity, report)
	if p.Complex != nil && (p.Default != nil || p.Searchable) {
		report("a complex property has no Default and cannot be Searchable")
	}
	if msg := facets(p.Type, p.Enum != nil || p.Complex != nil, p.MaxLength, &p.Precision, p.Scale); msg != "" {
		report(msg)
	}
	if p.Default != nil && oneType && p.Complex == nil && !p.Collection {
		if v, err := normalizeDefault(p); err != nil {
			report(err.Error())
		} else {
			p.Default = v
		}
	}
	checkPropertyFlags(p, inEntity, report)
}

// checkMemberName reports the name of a property, navigation or parameter that is not an identifier or is
// reserved; it returns whether the name is an identifier.
func checkMemberName(name string, report func(msg string)) bool {
	if !isIdentifier(name) {
		report("name is not a valid identifier")
		return false
	}
	if isReservedMember(name) {
		report("the name is reserved")
	}
	return true
}

// checkPropertyType reports a property that does not have exactly one of Type, Enum and Complex, or has an
// unknown kind; it returns whether exactly one is set.
func checkPropertyType(p *Property, report func(msg string)) bool {
	types := 0
	if p.Type != KindNone {
		types++
		if p.Type >= kindCount {
			report(fmt.Sprintf("unknown kind %d", p.Type))
		}
	}
	if p.Enum != nil {
		types++
	}
	if p.Complex != nil {
		types++
	}
	if types != 1 {
		report("exactly one of Type, Enum and Complex must be set")
	}
	return types == 1
}

// computedProperty checks a property computed by SQL, splits its SQL at the placeholders and makes it
// read-only.
func computedProperty(p *Property, inEntity bool, report func(msg string)) {
	switch {
	case !inEntity:
		report("SQL is allowed on entity type properties only")
	case p.Collection || p.Complex != nil:
		report("SQL is allowed on primitive and enum properties only")
	case p.Column != "":
		report("a property computed by SQL has no Column")
	case p.Default != nil || p.Required || p.Immutable:
		report("a property computed by SQL is read-only: no Default, Required or Immutable")
	}
	parts, err := splitSQL(p.SQL)
	if err != nil {
		report("SQL: " + err.Error())
	}
	p.sqlParts = parts
	p.ReadOnly = true
}

// defaultColumn fills in the column of a stored property and checks it. A defaulted column is not reported
// when the name it comes from was (validName false).
func defaultColumn(p *Property, validName bool, report func(msg string)) {
	defaulted := p.Column == ""
	if defaulted {
		p.Column = SnakeCase(p.Name)
	}
	if !isSQLName(p.Column) && (validName || !defaulted) {
		report(fmt.Sprintf("column %q is not a valid column name (ASCII letters, digits and _, at most %d bytes)", p.Column, maxSQLName))
	}
}

// checkCollection checks what a collection property may not have, and that only collections have a side table.
func checkCollection(p *Property, inEntity bool, report func(msg string)) {
	if !p.Collection {
		if p.CollectionTable != nil {
			report("CollectionTable is set but the property is not a collection")
		}
		return
	}
	switch {
	case p.Complex != nil:
		report("collections of complex values are not supported")
	case !inEntity:
		report("collection members of complex types are not supported")
	case p.Default != nil:
		report("a collection has no Default")
	case p.Searchable:
		report("a collection cannot be Searchable")
	}
}

// checkPropertyFlags checks ReadOnly, RequiredMessage and Searchable against the rest of the declaration, and
// where Stream properties may stand.
func checkPropertyFlags(p *Property, inEntity bool, report func(msg string)) {
	if p.ReadOnly && p.SQL == "" && (p.Immutable || p.Required) {
		report("a read-only property cannot be Immutable or Required")
	}
	if p.RequiredMessage != "" && !p.Required {
		report("RequiredMessage is set but the property is not Required")
	}
	if p.Searchable && (p.Type != KindString || p.Collection) {
		report("only String properties can be Searchable")
	}
	if p.Type == KindStream && !inEntity {
		report("Stream properties are allowed on entity types only")
	}
}

// facets validates MaxLength, Precision and Scale for a kind (structured: an enum or complex type, which have
// none) and applies the temporal precision default. It returns a message, or "".
func facets(k Kind, structured bool, maxLength int, precision *int, scale int) string {
	var messages []string
	switch {
	case maxLength < 0:
		messages = append(messages, "MaxLength must not be negative")
	case maxLength > 0 && (structured || (k != KindString && k != KindBinary && k != KindStream)):
		messages = append(messages, fmt.Sprintf("MaxLength does not apply to %s", kindOrStructured(k, structured)))
	}
	switch {
	case structured:
		if *precision != 0 || scale != 0 {
			messages = append(messages, "Precision and Scale do not apply to enum and complex types")
		}
	case k == KindDecimal:
		if *precision <= 0 {
			messages = append(messages, "Edm.Decimal requires Precision (total digits) and Scale (digits after the point)")
		} else if scale < 0 || scale > *precision {
			messages = append(messages, fmt.Sprintf("Scale %d must be between 0 and Precision %d", scale, *precision))
		}
	case k.isTemporal():
		if *precision < 0 || *precision > maxTemporalPrecision {
			messages = append(messages, fmt.Sprintf("Precision of %s must be 0 to %d (fractional-second digits kept by storage)", k, maxTemporalPrecision))
		} else if *precision == 0 {
			*precision = maxTemporalPrecision
		}
		if scale != 0 {
			messages = append(messages, fmt.Sprintf("Scale does not apply to %s", k))
		}
	default:
		if *precision != 0 || scale != 0 {
			messages = append(messages, fmt.Sprintf("Precision and Scale do not apply to %s", k))
		}
	}
	return strings.Join(messages, "; ")
}

func kindOrStructured(k Kind, structured bool) string {
	if structured {
		return "enum and complex types"
	}
	return k.String()
}

// splitSQL splits a computed property's SQL at its placeholders and checks that it is one expression.
func splitSQL(s string) ([]string, error) {
	parts := strings.Split(s, sqlPlaceholder)
	for _, p := range parts {
		if strings.Contains(p, "{{") || strings.Contains(p, "}}") {
			return nil, fmt.Errorf("the only placeholder is %s", sqlPlaceholder)
		}
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unterminated %c quote", c)
			}
			i += j + 1
		case '(':
			depth++
		case ')':
			if depth--; depth < 0 {
				return nil, errors.New("unbalanced parentheses")
			}
		case ';':
			return nil, errors.New("must be a single expression (no ';')")
		case 0:
			return nil, errors.New("contains a NUL byte")
		}
	}
	if depth != 0 {
		return nil, errors.New("unbalanced parentheses")
	}
	return parts, nil
}

// normalizeDefault checks a property's Default against its type and returns it as the canonical Go value.
func normalizeDefault(p *Property) (any, error) {
	var v any
	var err error
	switch {
	case p.Enum != nil:
		v, err = enumDefault(p.Enum, p.Default)
	case p.Type < kindCount && defaultNormalizers[p.Type] != nil:
		v, err = defaultNormalizers[p.Type](p, p.Default)
	default:
		return nil, fmt.Errorf("%s properties have no default", p.Type)
	}
	if err == errDefaultType {
		return nil, fmt.Errorf("default %#v (%T) is not a value of %s", p.Default, p.Default, typeLabel(p))
	}
	return v, err
}

// errDefaultType says that a default is not a Go value of its property's type; normalizeDefault words it.
var errDefaultType = errors.New("default of the wrong type")

// defaultNormalizer checks a default v of a property of one kind and returns its canonical Go value.
type defaultNormalizer func(p *Property, v any) (any, error)

// defaultNormalizers has the normalizer of each kind that can have a default (Stream has none).
var defaultNormalizers = [kindCount]defaultNormalizer{
	KindString:         stringDefault,
	KindBoolean:        typedDefault[bool](nil),
	KindByte:           integerDefault,
	KindSByte:          integerDefault,
	KindInt16:          integerDefault,
	KindInt32:          integerDefault,
	KindInt64:          integerDefault,
	KindDecimal:        decimalDefault,
	KindDouble:         floatDefault,
	KindSingle:         floatDefault,
	KindDate:           typedDefault(Date.IsValid),
	KindTimeOfDay:      typedDefault(TimeOfDay.IsValid),
	KindDateTimeOffset: dateTimeDefault,
	KindDuration:       typedDefault[time.Duration](nil),
	KindGuid:           guidDefault,
	KindBinary:         typedDefault[[]byte](nil),
}

// typedDefault accepts a default of the Go type T, and that valid accepts when it is not nil, as it is.
func typedDefault[T any](valid func(T) bool) defaultNormalizer {
	return func(_ *Property, v any) (any, error) {
		x, ok := v.(T)
		if !ok || valid != nil && !valid(x) {
			return nil, errDefaultType
		}
		return x, nil
	}
}

// enumDefault accepts a member name or a value of the enum type, as an int64.
func enumDefault(e *EnumType, v any) (any, error) {
	if s, ok := v.(string); ok {
		n, err := e.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("default %q is not a member of enum type %q", s, e.Name)
		}
		return n, nil
	}
	n, ok := asInt64(v)
	if !ok {
		return nil, errDefaultType
	}
	if !e.valid(n) {
		return nil, fmt.Errorf("default %d is not a value of enum type %q", n, e.Name)
	}
	return n, nil
}

// stringDefault accepts a string within MaxLength that CSDL XML can carry.
func stringDefault(p *Property, v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, errDefaultType
	}
	if p.MaxLength > 0 && utf8.RuneCountInString(s) > p.MaxLength {
		return nil, fmt.Errorf("default %q is longer than MaxLength %d", s, p.MaxLength)
	}
	if !xmlSafe(s) {
		return nil, fmt.Errorf("default %q holds characters CSDL XML cannot carry (control characters or invalid UTF-8)", s)
	}
	return s, nil
}

// integerDefault accepts any Go integer in the range of the property's kind, as an int64.
func integerDefault(p *Property, v any) (any, error) {
	n, ok := asInt64(v)
	if !ok {
		return nil, errDefaultType
	}
	if lo, hi := p.Type.intRange(); n < lo || n > hi {
		return nil, fmt.Errorf("default %d does not fit %s", n, p.Type)
	}
	return n, nil
}

// decimalDefault accepts a decimal.Decimal or a Go integer that fits the property's Precision and Scale.
func decimalDefault(p *Property, v any) (any, error) {
	d, ok := v.(decimal.Decimal)
	if !ok {
		n, ok := asInt64(v)
		if !ok {
			return nil, errDefaultType
		}
		d = decimal.NewFromInt(n)
	}
	if !fitsDecimal(d, p.Precision, p.Scale) {
		return nil, fmt.Errorf("default %s does not fit Precision %d and Scale %d", d, p.Precision, p.Scale)
	}
	return d, nil
}

// floatDefault accepts a float64, a float32 or a Go integer, as a float64.
func floatDefault(_ *Property, v any) (any, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	}
	n, ok := asInt64(v)
	if !ok {
		return nil, errDefaultType
	}
	return float64(n), nil
}

// dateTimeDefault accepts a time.Time, in UTC.
func dateTimeDefault(_ *Property, v any) (any, error) {
	t, ok := v.(time.Time)
	if !ok {
		return nil, errDefaultType
	}
	return t.UTC(), nil
}

// guidDefault accepts a GUID string, in canonical lower-case form.
func guidDefault(_ *Property, v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, errDefaultType
	}
	g, err := ParseGuid(s)
	if err != nil {
		return nil, errDefaultType
	}
	return g, nil
}

// xmlSafe reports whether s is valid UTF-8 made of characters XML 1.0 allows.
func xmlSafe(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r >= 0xFFFE {
			return false
		}
	}
	return true
}

// asInt64 converts any Go integer to int64.
func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		if uint64(x) <= math.MaxInt64 {
			return int64(x), true
		}
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	}
	return 0, false
}

// fitsDecimal reports whether d has at most scale digits after the point and precision digits in all.
func fitsDecimal(d decimal.Decimal, precision, scale int) bool {
	if !d.Equal(d.Truncate(int32(scale))) {
		return false
	}
	intDigits := len(d.Abs().Truncate(0).String())
	if d.Abs().LessThan(decimal.NewFromInt(1)) {
		intDigits = 0
	}
	return intDigits <= precision-scale
}

// entityType validates an entity type and fills in its table, indexes, key, ETag and the side tables of its
// collections.
func (b *builder) entityType(t *EntityType) {
	where := fmt.Sprintf("entity type %q", t.Name)
	report := func(msg string) { b.problems.add(where, msg) }
	defaulted := t.Table == ""
	if defaulted {
		t.Table = SnakeCase(t.Name)
	}
	if !isSQLName(t.Table) && (isIdentifier(t.Name) || !defaulted) {
		report(fmt.Sprintf("table %q is not a valid table name (ASCII letters, digits and _, at most %d bytes)", t.Table, maxSQLName))
	}
	t.key, t.etag, t.stream, t.contentType, t.sets = nil, nil, nil, nil, nil
	b.entityMembers(t, where, report)
	entityKey(t, report)
	entityColumns(t, report)
	for _, p := range t.Properties {
		if p.Collection {
			b.collectionTable(t, p)
		}
	}
	entityETag(t, report)
	mediaEntity(t, report)
}

// entityMembers validates the properties and indexes them and the navigations, whose names they share.
func (b *builder) entityMembers(t *EntityType, where string, report func(msg string)) {
	t.propertyIndex, t.navigationIndex = newIndex[*Property](), newIndex[*NavigationProperty]()
	names := map[string]bool{}
	for _, p := range t.Properties {
		p.isKey = false
		b.property(where, p, true)
		if names[p.Name] {
			report(fmt.Sprintf("duplicate property %q", p.Name))
			continue
		}
		names[p.Name] = true
		t.propertyIndex.add(p.Name, p)
		b.instantiate(p)
	}
	for _, n := range t.Navigations {
		if names[n.Name] {
			report(fmt.Sprintf("navigation %q: name is already used by a property or navigation", n.Name))
		}
		names[n.Name] = true
		t.navigationIndex.add(n.Name, n)
	}
}

// entityKey resolves the key properties.
func entityKey(t *EntityType, report func(msg string)) {
	if len(t.Key) == 0 {
		report("no key")
	}
	for _, k := range t.Key {
		p, ok := t.propertyIndex.exact[k]
		if !ok {
			report(fmt.Sprintf("key property %q does not exist", k))
			continue
		}
		if p.isKey {
			report(fmt.Sprintf("key property %q is listed twice", k))
			continue
		}
		if problem := keyProblem(p); problem != "" {
			report(fmt.Sprintf("key property %q %s", k, problem))
			continue
		}
		p.isKey = true
		t.key = append(t.key, p)
	}
}

// entityColumns checks that no two properties, complex members included, share a column of the table, and that
// the full column names of complex members are valid (once per property).
func entityColumns(t *EntityType, report func(msg string)) {
	owners := map[string]string{} // column -> property
	reportedLong := map[string]bool{}
	var claim func(p *Property, owner string)
	claim = func(p *Property, owner string) {
		if p.Complex != nil {
			for _, f := range p.fields {
				claim(f, owner)
			}
			return
		}
		if p.Column == "" || p.Collection {
			return
		}
		if previous, taken := owners[p.Column]; taken {
			report(fmt.Sprintf("property %q: column %q is also the column of property %q", owner, p.Column, previous))
			return
		}
		owners[p.Column] = owner
		if !isSQLName(p.Column) && p != t.propertyIndex.exact[owner] && !reportedLong[owner] {
			reportedLong[owner] = true
			report(fmt.Sprintf("property %q: column %q is not a valid column name (at most %d bytes)", owner, p.Column, maxSQLName))
		}
	}
	for _, p := range t.Properties {
		claim(p, p.Name)
	}
}

// entityETag resolves the ETag properties: the declared ones, else every property but lazy and Stream ones.
func entityETag(t *EntityType, report func(msg string)) {
	if len(t.ETag) == 0 {
		for _, p := range t.Properties {
			if !p.Lazy && p.Type != KindStream {
				t.etag = append(t.etag, p)
			}
		}
	}
	for _, name := range t.ETag {
		p, ok := t.propertyIndex.exact[name]
		if !ok {
			report(fmt.Sprintf("ETag property %q does not exist", name))
			continue
		}
		t.etag = append(t.etag, p)
	}
}

// mediaEntity resolves the stream and content type properties of a media entity.
func mediaEntity(t *EntityType, report func(msg string)) {
	if !t.HasStream {
		if t.StreamProperty != "" || t.ContentTypeProperty != "" {
			report("StreamProperty and ContentTypeProperty need HasStream")
		}
		return
	}
	if p := t.propertyIndex.exact[t.StreamProperty]; p == nil || p.Collection || (p.Type != KindBinary && p.Type != KindStream) {
		report(fmt.Sprintf("HasStream needs StreamProperty to name a Binary or Stream property (got %q)", t.StreamProperty))
	} else {
		t.stream = p
	}
	if p := t.propertyIndex.exact[t.ContentTypeProperty]; p == nil || p.Collection || p.Type != KindString {
		report(fmt.Sprintf("HasStream needs ContentTypeProperty to name a String property (got %q)", t.ContentTypeProperty))
	} else {
		t.contentType = p
	}
}

// tables checks that no two entity types or side tables share a table.
func (b *builder) tables() {
	owner := map[string]string{}
	claim := func(table, declaration string) {
		if prev, taken := owner[table]; taken {
			b.problems.add(declaration, fmt.Sprintf("table %q is also the table of %s", table, prev))
			return
		}
		owner[table] = declaration
	}
	for _, t := range b.m.EntityTypes {
		claim(t.Table, fmt.Sprintf("entity type %q", t.Name))
	}
	for _, t := range b.m.EntityTypes {
		for _, p := range t.Properties {
			if p.Collection && p.CollectionTable != nil {
				claim(p.CollectionTable.Table, fmt.Sprintf("entity type %q: property %q", t.Name, p.Name))
			}
		}
	}
}

// keyProblem says why p cannot be a key property, or returns "".
func keyProblem(p *Property) string {
	switch {
	case p.Nullable:
		return "is nullable"
	case p.Collection:
		return "is a collection"
	case p.Complex != nil:
		return "is not of a primitive or enum type"
	case p.SQL != "":
		return "is computed by SQL"
	case p.Lazy:
		return "is lazy"
	}
	switch p.Type {
	case KindBinary, KindStream, KindDouble, KindSingle:
		return fmt.Sprintf("is of type %s, which cannot be a key", p.Type)
	}
	return ""
}

// instantiate builds the members of a complex property with full column names (recursively).
func (b *builder) instantiate(p *Property) {
	p.fields, p.members = nil, index[*Property]{}
	if p.Complex == nil || b.cyclic {
		return
	}
	p.members = newIndex[*Property]()
	for _, m := range p.Complex.Properties {
		f := *m
		f.Column = p.Column + "_" + m.Column
		f.fields, f.members = nil, index[*Property]{}
		field := &f
		b.instantiate(field)
		p.fields = append(p.fields, field)
		p.members.add(field.Name, field)
	}
}

// collectionTable fills in the side table of a collection property.
func (b *builder) collectionTable(t *EntityType, p *Property) {
	where := fmt.Sprintf("entity type %q: property %q", t.Name, p.Name)
	if p.CollectionTable == nil {
		p.CollectionTable = &CollectionTable{}
	}
	table := p.CollectionTable
	if table.Table == "" {
		table.Table = t.Table + "_" + p.Column
	}
	if len(table.SourceColumns) == 0 {
		for _, k := range t.key {
			table.SourceColumns = append(table.SourceColumns, k.Column)
		}
	}
	if len(table.OwnerColumns) == 0 {
		for _, c := range table.SourceColumns {
			table.OwnerColumns = append(table.OwnerColumns, t.Table+"_"+c)
		}
	}
	if table.ValueColumn == "" {
		table.ValueColumn = "value"
	}
	if table.OrdinalColumn == "" {
		table.OrdinalColumn = "ordinal"
	}
	if !isSQLName(table.Table) {
		b.problems.add(where, fmt.Sprintf("side table %q is not a valid table name", table.Table))
	}
	if len(table.OwnerColumns) != len(table.SourceColumns) {
		b.problems.add(where, fmt.Sprintf("side table has %d owner columns for %d source columns", len(table.OwnerColumns), len(table.SourceColumns)))
	}
	for _, c := range table.SourceColumns {
		if !isSQLName(c) {
			b.problems.add(where, fmt.Sprintf("source column %q is not a valid column name", c))
		}
	}
	columns := append(slices.Clone(table.OwnerColumns), table.ValueColumn, table.OrdinalColumn)
	seen := map[string]bool{}
	for _, c := range columns {
		if !isSQLName(c) {
			b.problems.add(where, fmt.Sprintf("side table column %q is not a valid column name", c))
		}
		if seen[c] {
			b.problems.add(where, fmt.Sprintf("side table column %q is used twice", c))
		}
		seen[c] = true
	}
}

func keyColumns(t *EntityType) []string {
	columns := make([]string, len(t.key))
	for i, k := range t.key {
		columns[i] = k.Column
	}
	return columns
}

// navigation validates a navigation property of t, resolves its target and fills in the join's default
// columns and the referential constraints of a foreign key.
func (b *builder) navigation(t *EntityType, n *NavigationProperty) {
	where := fmt.Sprintf("entity type %q: navigation %q", t.Name, n.Name)
	reported := len(b.problems.list)
	defer func() { b.badJoin[n] = len(b.problems.list) > reported }()
	report := func(msg string) { b.problems.add(where, msg) }
	n.source, n.target, n.partner, n.constraints = t, nil, nil, nil
	checkMemberName(n.Name, report)
	n.target = b.entityTypeNamed(n.Target)
	if n.target == nil {
		report(fmt.Sprintf("target entity type %q does not exist", n.Target))
		return
	}
	if n.Collection && n.Nullable {
		report("Nullable does not apply to a collection")
	}
	j := &n.Join
	if j.Through == nil {
		directJoin(t, n, report)
	} else {
		linkJoin(t, n, report)
	}
	checkJoinColumns("join source", j.SourceColumns, report)
	checkJoinColumns("join target", j.TargetColumns, report)
	if !n.Collection && j.Through == nil && len(j.SourceColumns) == len(j.TargetColumns) {
		n.constraints = referentialConstraints(t, n)
	}
}

// directJoin fills in and checks the columns of a join without a link table: a to-many join defaults its
// source columns to the source's key, a to-one join its target columns to the target's key.
func directJoin(t *EntityType, n *NavigationProperty, report func(msg string)) {
	j := &n.Join
	if n.Collection {
		if len(j.SourceColumns) == 0 {
			j.SourceColumns = keyColumns(t)
		}
		if len(j.TargetColumns) == 0 {
			report("a to-many join needs TargetColumns (the target's columns referring to the source)")
		}
	} else {
		if len(j.TargetColumns) == 0 {
			j.TargetColumns = keyColumns(n.target)
		}
		if len(j.SourceColumns) == 0 {
			report("a to-one join needs SourceColumns (the source's foreign key columns)")
		}
	}
	if len(j.SourceColumns) > 0 && len(j.TargetColumns) > 0 && len(j.SourceColumns) != len(j.TargetColumns) {
		report(fmt.Sprintf("join has %d source columns and %d target columns", len(j.SourceColumns), len(j.TargetColumns)))
	}
}

// linkJoin fills in and checks the columns of a join through a link table; they default to the keys of the
// source and the target.
func linkJoin(t *EntityType, n *NavigationProperty, report func(msg string)) {
	j, link := &n.Join, n.Join.Through
	if len(j.SourceColumns) == 0 {
		j.SourceColumns = keyColumns(t)
	}
	if len(j.TargetColumns) == 0 {
		j.TargetColumns = keyColumns(n.target)
	}
	if !isSQLName(link.Table) {
		report(fmt.Sprintf("link table %q is not a valid table name", link.Table))
	}
	if len(link.SourceColumns) != len(j.SourceColumns) {
		report(fmt.Sprintf("link table %q has %d source columns for %d source columns of the join", link.Table, len(link.SourceColumns), len(j.SourceColumns)))
	}
	if len(link.TargetColumns) != len(j.TargetColumns) {
		report(fmt.Sprintf("link table %q has %d target columns for %d target columns of the join", link.Table, len(link.TargetColumns), len(j.TargetColumns)))
	}
	checkJoinColumns("link table", append(slices.Clone(link.SourceColumns), link.TargetColumns...), report)
}

// checkJoinColumns reports invalid and repeated column names in a list of join columns.
func checkJoinColumns(what string, columns []string, report func(msg string)) {
	seen := map[string]bool{}
	for _, c := range columns {
		if !isSQLName(c) {
			report(fmt.Sprintf("%s: %q is not a valid column name", what, c))
		}
		if seen[c] {
			report(fmt.Sprintf("%s: column %q is listed twice", what, c))
		}
		seen[c] = true
	}
}

// referentialConstraints returns the constraints of a to-one navigation whose source and target columns are
// all columns of primitive or enum properties; nil otherwise.
func referentialConstraints(t *EntityType, n *NavigationProperty) []ReferentialConstraint {
	var constraints []ReferentialConstraint
	for i, c := range n.Join.SourceColumns {
		source, target := columnProperty(t, c), columnProperty(n.target, n.Join.TargetColumns[i])
		if source == nil || target == nil {
			return nil
		}
		constraints = append(constraints, ReferentialConstraint{Property: source.Name, ReferencedProperty: target.Name})
	}
	return constraints
}

// columnProperty returns the primitive or enum property of t stored in column c.
func columnProperty(t *EntityType, c string) *Property {
	for _, p := range t.Properties {
		if p.Column == c && p.Complex == nil && !p.Collection {
			return p
		}
	}
	return nil
}

func (b *builder) partner(t *EntityType, n *NavigationProperty) {
	if n.Partner == "" || n.target == nil {
		return
	}
	where := fmt.Sprintf("entity type %q: navigation %q", t.Name, n.Name)
	p := n.target.navigationIndex.exact[n.Partner]
	switch {
	case p == nil:
		b.problems.add(where, fmt.Sprintf("partner %q does not exist on entity type %q", n.Partner, n.target.Name))
		return
	case p.target == nil:
		return // reported on p
	case p.target != t:
		b.problems.add(where, fmt.Sprintf("partner %q leads to %q, not back to %q", n.Partner, p.Target, t.Name))
		return
	case p.Partner != "" && p.Partner != n.Name:
		// Report only when p's own partner is valid, else the error is p's and reported there.
		if q := t.navigationIndex.exact[p.Partner]; q != nil && q.target == n.target {
			b.problems.add(where, fmt.Sprintf("partner %q names %q as its partner", n.Partner, p.Partner))
		}
		return
	}
	n.partner = p
	if b.badJoin[n] || b.badJoin[p] || b.mirrored[p] {
		return
	}
	b.mirrored[n] = true
	j, partnerJoin := n.Join, p.Join
	mirrored := slices.Equal(j.SourceColumns, partnerJoin.TargetColumns) && slices.Equal(j.TargetColumns, partnerJoin.SourceColumns)
	switch {
	case (j.Through == nil) != (partnerJoin.Through == nil):
		mirrored = false
	case j.Through != nil:
		mirrored = mirrored && j.Through.Table == partnerJoin.Through.Table &&
			slices.Equal(j.Through.SourceColumns, partnerJoin.Through.TargetColumns) &&
			slices.Equal(j.Through.TargetColumns, partnerJoin.Through.SourceColumns)
	}
	if !mirrored {
		b.problems.add(where, fmt.Sprintf("join does not mirror the join of partner %q", n.Partner))
	}
}

// container checks entity sets, singletons and operation imports, which share the container's names.
func (b *builder) container() {
	m := b.m
	m.entitySets, m.singletons = newIndex[*EntitySet](), newIndex[*Singleton]()
	seen := map[string]string{}
	claim := func(declaration, name string) bool {
		if !isIdentifier(name) {
			b.problems.add(declaration, "name is not a valid identifier")
			return false
		}
		k := foldKey(name)
		if prev, taken := seen[k]; taken {
			b.problems.add(declaration, "name is already used by "+prev)
			return false
		}
		seen[k] = declaration
		return true
	}
	for _, s := range m.EntitySets {
		declaration := fmt.Sprintf("entity set %q", s.Name)
		s.entityType, s.bindings = b.entityTypeNamed(s.Type), nil
		if s.entityType == nil {
			b.problems.add(declaration, fmt.Sprintf("entity type %q does not exist", s.Type))
		} else {
			s.entityType.sets = append(s.entityType.sets, s)
		}
		if claim(declaration, s.Name) {
			m.entitySets.add(s.Name, s)
		}
	}
	for _, s := range m.Singletons {
		declaration := fmt.Sprintf("singleton %q", s.Name)
		s.entityType, s.bindings = b.entityTypeNamed(s.Type), nil
		if s.entityType == nil {
			b.problems.add(declaration, fmt.Sprintf("entity type %q does not exist", s.Type))
		}
		if claim(declaration, s.Name) {
			m.singletons.add(s.Name, s)
		}
	}
	for _, g := range m.actionGroups {
		for _, a := range g {
			if !a.Bound {
				claim(fmt.Sprintf("action import %q", a.Name), a.Name)
				break
			}
		}
	}
	for _, g := range m.functionGroups {
		for _, f := range g {
			if !f.Bound {
				claim(fmt.Sprintf("function import %q", f.Name), f.Name)
				break
			}
		}
	}
}

// operations checks actions and functions: bindings, parameters, return types and overloads.
func (b *builder) operations() {
	for _, a := range b.m.Actions {
		where := fmt.Sprintf("action %q", a.Name)
		a.binding = b.bindingType(where, a.Bound, a.BindingType, a.BindingCollection)
		b.parameters(where, a.Parameters)
		if a.ReturnType != nil {
			b.returnType(where, a.ReturnType)
		}
	}
	for _, f := range b.m.Functions {
		where := fmt.Sprintf("function %q", f.Name)
		f.binding = b.bindingType(where, f.Bound, f.BindingType, f.BindingCollection)
		b.parameters(where, f.Parameters)
		if f.ReturnType == nil {
			b.problems.add(where, "a function needs a ReturnType")
		} else {
			b.returnType(where, f.ReturnType)
		}
	}
	for _, g := range b.m.actionGroups {
		b.actionOverloads(g)
	}
	for _, g := range b.m.functionGroups {
		b.functionOverloads(g)
	}
}

// actionOverloads checks that the overloads of an action differ in their binding: at most one is unbound, and
// no two are bound to the same entity type or collection of it.
func (b *builder) actionOverloads(group []*Action) {
	type binding struct {
		entityType *EntityType
		collection bool
	}
	unbound := 0
	seen := map[binding]bool{}
	for _, a := range group {
		where := fmt.Sprintf("action %q", a.Name)
		if !a.Bound {
			if unbound++; unbound == 2 {
				b.problems.add(where, "unbound actions cannot be overloaded")
			}
			continue
		}
		if a.binding == nil {
			continue
		}
		k := binding{a.binding, a.BindingCollection}
		if seen[k] {
			b.problems.add(where, fmt.Sprintf("another overload is bound to %s", bindingLabel(a.BindingType, a.BindingCollection)))
		}
		seen[k] = true
	}
}

// functionOverloads checks that the overloads of a function differ in their binding or in the names of their
// parameters, and that overloads with the same binding return the same type.
func (b *builder) functionOverloads(group []*Function) {
	type signature struct {
		entityType *EntityType
		bound      bool
		collection bool
		parameters string
	}
	seen := map[signature]bool{}
	returns := map[signature]*ReturnType{} // by binding only
	for _, f := range group {
		where := fmt.Sprintf("function %q", f.Name)
		if f.Bound && f.binding == nil {
			continue
		}
		names := make([]string, len(f.Parameters))
		for i, p := range f.Parameters {
			names[i] = p.Name
		}
		slices.Sort(names)
		k := signature{f.binding, f.Bound, f.BindingCollection, strings.Join(names, ",")}
		if seen[k] {
			b.problems.add(where, "another overload has the same binding and parameter names")
		}
		seen[k] = true
		byBinding := signature{entityType: f.binding, bound: f.Bound, collection: f.BindingCollection}
		if r, ok := returns[byBinding]; ok && f.ReturnType != nil && r != nil && !sameType(r, f.ReturnType) {
			b.problems.add(where, "overloads with the same binding must have the same return type")
		} else if !ok {
			returns[byBinding] = f.ReturnType
		}
	}
}

func bindingLabel(typeName string, collection bool) string {
	if collection {
		return fmt.Sprintf("a collection of %q", typeName)
	}
	return fmt.Sprintf("%q", typeName)
}

func sameType(a, b *ReturnType) bool {
	return a.Type == b.Type && a.Enum == b.Enum && a.Complex == b.Complex && a.entity == b.entity && a.Collection == b.Collection
}

func (b *builder) bindingType(where string, bound bool, typeName string, collection bool) *EntityType {
	if !bound {
		if typeName != "" || collection {
			b.problems.add(where, "BindingType and BindingCollection need Bound")
		}
		return nil
	}
	if typeName == "" {
		b.problems.add(where, "a bound operation needs a BindingType")
		return nil
	}
	t := b.entityTypeNamed(typeName)
	if t == nil {
		b.problems.add(where, fmt.Sprintf("binding entity type %q does not exist", typeName))
	}
	return t
}

func (b *builder) parameters(where string, ps []Parameter) {
	seen := map[string]string{}
	optional := ""
	for i := range ps {
		p := &ps[i]
		declaration := fmt.Sprintf("%s: parameter %q", where, p.Name)
		if !isIdentifier(p.Name) {
			b.problems.add(declaration, "name is not a valid identifier")
		} else if isReservedMember(p.Name) {
			b.problems.add(declaration, "the name is reserved")
		}
		k := foldKey(p.Name)
		if prev, taken := seen[k]; taken {
			b.problems.add(declaration, fmt.Sprintf("duplicate parameter (also %q)", prev))
		}
		seen[k] = p.Name
		for _, a := range p.Aliases {
			if !isIdentifier(a) {
				b.problems.add(declaration, fmt.Sprintf("alias %q is not a valid identifier", a))
				continue
			} else if isReservedMember(a) {
				b.problems.add(declaration, fmt.Sprintf("alias %q is reserved", a))
				continue
			}
			k := foldKey(a)
			if prev, taken := seen[k]; taken {
				b.problems.add(declaration, fmt.Sprintf("alias %q is already used by %q", a, prev))
				continue
			}
			seen[k] = a
		}
		p.entity = b.typeRef(declaration, p.Type, p.Enum, p.Complex, p.Entity, p.MaxLength, &p.Precision, p.Scale)
		if !p.Required {
			optional = p.Name
		} else if optional != "" {
			b.problems.add(declaration, fmt.Sprintf("required parameter follows optional parameter %q", optional))
		}
	}
}

func (b *builder) returnType(where string, r *ReturnType) {
	r.entity = b.typeRef(where+": return type", r.Type, r.Enum, r.Complex, r.Entity, r.MaxLength, &r.Precision, r.Scale)
}

// typeRef checks the type of a parameter or return type and resolves an entity type name.
func (b *builder) typeRef(where string, k Kind, e *EnumType, c *ComplexType, entity string, maxLength int, precision *int, scale int) *EntityType {
	n := 0
	for _, set := range []bool{k != KindNone, e != nil, c != nil, entity != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		b.problems.add(where, "exactly one of Type, Enum, Complex and Entity must be set")
		return nil
	}
	if k >= kindCount {
		b.problems.add(where, fmt.Sprintf("unknown kind %d", k))
		return nil
	}
	var t *EntityType
	if entity != "" {
		if t = b.entityTypeNamed(entity); t == nil {
			b.problems.add(where, fmt.Sprintf("entity type %q does not exist", entity))
		}
	}
	if msg := facets(k, k == KindNone, maxLength, precision, scale); msg != "" {
		b.problems.add(where, msg)
	}
	return t
}

func (b *builder) authorizations() {
	seen := map[string]bool{}
	for i, a := range b.m.Authorizations {
		where := fmt.Sprintf("authorization %q", a.Name)
		if a.Name == "" {
			where = fmt.Sprintf("authorization #%d", i+1)
			b.problems.add(where, "no Name")
		}
		if seen[a.Name] {
			b.problems.add(where, "duplicate name")
		}
		seen[a.Name] = true
		if a.Scheme == "" || strings.ContainsAny(a.Scheme, " \t\r\n,;\"") {
			b.problems.add(where, fmt.Sprintf("Scheme %q is not an HTTP authentication scheme such as \"bearer\"", a.Scheme))
		}
	}
}

// bindings derives the navigation property bindings of entity sets and singletons.
func (b *builder) bindings() {
	var walk func(t *EntityType, prefix string, visited map[*EntityType]bool, out *[]NavigationBinding)
	walk = func(t *EntityType, prefix string, visited map[*EntityType]bool, out *[]NavigationBinding) {
		for _, n := range t.Navigations {
			if n.target == nil {
				continue
			}
			if n.ContainsTarget {
				if !visited[n.target] {
					visited[n.target] = true
					walk(n.target, prefix+n.Name+"/", visited, out)
					delete(visited, n.target)
				}
				continue
			}
			if len(n.target.sets) == 1 {
				*out = append(*out, NavigationBinding{Path: prefix + n.Name, Target: n.target.sets[0]})
			}
		}
	}
	for _, s := range b.m.EntitySets {
		if s.entityType != nil {
			walk(s.entityType, "", map[*EntityType]bool{s.entityType: true}, &s.bindings)
		}
	}
	for _, s := range b.m.Singletons {
		if s.entityType != nil {
			walk(s.entityType, "", map[*EntityType]bool{s.entityType: true}, &s.bindings)
		}
	}
}

// typeLabel names a property's type in messages: "Edm.Int32" or `enum type "ProductType"`.
func typeLabel(p *Property) string {
	if p.Enum != nil {
		return fmt.Sprintf("enum type %q", p.Enum.Name)
	}
	return p.Type.String()
}

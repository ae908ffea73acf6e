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
type errorList struct{ errs []error }

func (l *errorList) add(where, msg string) {
	l.errs = append(l.errs, errors.New("edm: "+where+": "+msg))
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
	b := &builder{m: m, errs: &errorList{}, badJoin: map[*NavigationProperty]bool{}, mirrored: map[*NavigationProperty]bool{}}
	b.build()
	if len(b.errs.errs) > 0 {
		m.reset()
		return errors.Join(b.errs.errs...)
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
	m    *Model
	errs *errorList
	// cyclic is set when a complex type contains itself; complex properties are then not expanded.
	cyclic bool
	// badJoin holds navigations whose join was reported wrong; mirrored holds those compared with a partner.
	badJoin  map[*NavigationProperty]bool
	mirrored map[*NavigationProperty]bool
}

func (b *builder) build() {
	m := b.m
	if !isNamespace(m.Namespace) {
		b.errs.add(fmt.Sprintf("namespace %q", m.Namespace), "not a valid namespace (identifiers separated by dots)")
	}
	for _, r := range reservedNamespaces {
		if strings.EqualFold(m.Namespace, r) {
			b.errs.add(fmt.Sprintf("namespace %q", m.Namespace), "the namespace is reserved")
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
		e.build(b.errs)
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
			b.errs.add(fmt.Sprintf("%s #%d", what, i+1), "nil declaration")
			ok = false
		}
	}
	return ok
}

// collectTypes checks for nil declarations and adds the enum and complex types that properties, parameters and
// return types refer to without being listed. It reports false if a declaration is nil.
func (b *builder) collectTypes() bool {
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
	if !ok {
		return false
	}

	enums := map[*EnumType]bool{}
	for _, e := range m.EnumTypes {
		enums[e] = true
	}
	complexes := map[*ComplexType]bool{}
	for _, c := range m.ComplexTypes {
		complexes[c] = true
	}
	addEnum := func(e *EnumType) {
		if e != nil && !enums[e] {
			enums[e] = true
			m.EnumTypes = append(m.EnumTypes, e)
		}
	}
	var addComplex func(c *ComplexType) bool
	var addProps func(ps []*Property) bool
	addComplex = func(c *ComplexType) bool {
		if c == nil || complexes[c] {
			return true
		}
		complexes[c] = true
		m.ComplexTypes = append(m.ComplexTypes, c)
		return addProps(c.Properties)
	}
	addProps = func(ps []*Property) bool {
		for i, p := range ps {
			if p == nil {
				b.errs.add(fmt.Sprintf("property #%d", i+1), "nil declaration")
				return false
			}
			addEnum(p.Enum)
			if !addComplex(p.Complex) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(m.ComplexTypes); i++ { // the list grows while walking
		if !addProps(m.ComplexTypes[i].Properties) {
			return false
		}
	}
	for _, t := range m.EntityTypes {
		if !addProps(t.Properties) {
			return false
		}
	}
	for _, a := range m.Actions {
		for _, p := range a.Parameters {
			addEnum(p.Enum)
			addComplex(p.Complex)
		}
		if r := a.ReturnType; r != nil {
			addEnum(r.Enum)
			addComplex(r.Complex)
		}
	}
	for _, f := range m.Functions {
		for _, p := range f.Parameters {
			addEnum(p.Enum)
			addComplex(p.Complex)
		}
		if r := f.ReturnType; r != nil {
			addEnum(r.Enum)
			addComplex(r.Complex)
		}
	}
	return true
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
		decl := fmt.Sprintf("%s %q", kind, name)
		if !isIdentifier(name) {
			b.errs.add(decl, "name is not a valid identifier")
		}
		k := foldKey(name)
		if prev, dup := seen[k]; dup {
			b.errs.add(decl, "name is already used by "+prev)
			return false
		}
		seen[k] = decl
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
func groupOverloads[T any](b *builder, kind string, ops []T, name func(T) string, ix *index[int],
	claim func(kind, name string) bool) [][]T {
	var groups [][]T
	for _, op := range ops {
		n := name(op)
		if i, ok := ix.get(n); ok {
			if first := name(groups[i][0]); first != n {
				b.errs.add(fmt.Sprintf("%s %q", kind, n), fmt.Sprintf("overloads must have the same name as %q", first))
			}
			groups[i] = append(groups[i], op)
			continue
		}
		if claim(kind, n) {
			ix.add(n, len(groups))
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
		b.errs.add(where, "no properties")
	}
	c.props = newIndex[*Property]()
	columns := map[string]string{}
	for _, p := range c.Properties {
		b.property(where, p, false)
		if !c.props.add(p.Name, p) {
			b.errs.add(where, fmt.Sprintf("duplicate property %q", p.Name))
			continue
		}
		if prev, dup := columns[p.Column]; dup && p.Column != "" {
			b.errs.add(where, fmt.Sprintf("property %q: column %q is also the column of property %q", p.Name, p.Column, prev))
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
			b.errs.add(fmt.Sprintf("complex type %q", c.Name), "contains itself through its properties")
			b.cyclic = true
			return
		}
	}
}

// property validates a structural property of an entity type (inEntity) or complex type and fills in its
// column.
func (b *builder) property(where string, p *Property, inEntity bool) {
	pw := fmt.Sprintf("%s: property %q", where, p.Name)
	add := func(msg string) { b.errs.add(pw, msg) }
	validName := isIdentifier(p.Name)
	if !validName {
		add("name is not a valid identifier")
	} else if isReservedMember(p.Name) {
		add("the name is reserved")
	}
	n := 0
	if p.Type != KindNone {
		n++
		if p.Type >= kindCount {
			add(fmt.Sprintf("unknown kind %d", p.Type))
		}
	}
	if p.Enum != nil {
		n++
	}
	if p.Complex != nil {
		n++
	}
	if n != 1 {
		add("exactly one of Type, Enum and Complex must be set")
	}
	if p.SQL != "" {
		switch {
		case !inEntity:
			add("SQL is allowed on entity type properties only")
		case p.Collection || p.Complex != nil:
			add("SQL is allowed on primitive and enum properties only")
		case p.Column != "":
			add("a property computed by SQL has no Column")
		case p.Default != nil || p.Required || p.Immutable:
			add("a property computed by SQL is read-only: no Default, Required or Immutable")
		}
		parts, err := splitSQL(p.SQL)
		if err != nil {
			add("SQL: " + err.Error())
		}
		p.sqlText = parts
		p.ReadOnly = true
	} else {
		defaulted := p.Column == ""
		if defaulted {
			p.Column = SnakeCase(p.Name)
		}
		if !isSQLName(p.Column) && (validName || !defaulted) {
			add(fmt.Sprintf("column %q is not a valid column name (ASCII letters, digits and _, at most %d bytes)", p.Column, maxSQLName))
		}
	}
	if p.Collection {
		switch {
		case p.Complex != nil:
			add("collections of complex values are not supported")
		case !inEntity:
			add("collection members of complex types are not supported")
		case p.Default != nil:
			add("a collection has no Default")
		case p.Searchable:
			add("a collection cannot be Searchable")
		}
	} else if p.CollectionTable != nil {
		add("CollectionTable is set but the property is not a collection")
	}
	if p.Complex != nil {
		if p.Default != nil || p.Searchable {
			add("a complex property has no Default and cannot be Searchable")
		}
	}
	if msg := facets(p.Type, p.Enum != nil || p.Complex != nil, p.MaxLength, &p.Precision, p.Scale); msg != "" {
		add(msg)
	}
	if p.Default != nil && n == 1 && p.Complex == nil && !p.Collection {
		v, err := normalizeDefault(p)
		if err != nil {
			add(err.Error())
		} else {
			p.Default = v
		}
	}
	if p.ReadOnly && p.SQL == "" && (p.Immutable || p.Required) {
		add("a read-only property cannot be Immutable or Required")
	}
	if p.RequiredMessage != "" && !p.Required {
		add("RequiredMessage is set but the property is not Required")
	}
	if p.Searchable && (p.Type != KindString || p.Collection) {
		add("only String properties can be Searchable")
	}
	if p.Type == KindStream && !inEntity {
		add("Stream properties are allowed on entity types only")
	}
}

// facets validates MaxLength, Precision and Scale for a kind (structured: an enum or complex type, which have
// none) and applies the temporal precision default. It returns a message, or "".
func facets(k Kind, structured bool, maxLength int, precision *int, scale int) string {
	var msgs []string
	switch {
	case maxLength < 0:
		msgs = append(msgs, "MaxLength must not be negative")
	case maxLength > 0 && (structured || (k != KindString && k != KindBinary && k != KindStream)):
		msgs = append(msgs, fmt.Sprintf("MaxLength does not apply to %s", kindOrStructured(k, structured)))
	}
	switch {
	case structured:
		if *precision != 0 || scale != 0 {
			msgs = append(msgs, "Precision and Scale do not apply to enum and complex types")
		}
	case k == KindDecimal:
		if *precision <= 0 {
			msgs = append(msgs, "Edm.Decimal requires Precision (total digits) and Scale (digits after the point)")
		} else if scale < 0 || scale > *precision {
			msgs = append(msgs, fmt.Sprintf("Scale %d must be between 0 and Precision %d", scale, *precision))
		}
	case k.isTemporal():
		if *precision < 0 || *precision > maxTemporalPrecision {
			msgs = append(msgs, fmt.Sprintf("Precision of %s must be 0 to %d (fractional-second digits kept by storage)", k, maxTemporalPrecision))
		} else if *precision == 0 {
			*precision = maxTemporalPrecision
		}
		if scale != 0 {
			msgs = append(msgs, fmt.Sprintf("Scale does not apply to %s", k))
		}
	default:
		if *precision != 0 || scale != 0 {
			msgs = append(msgs, fmt.Sprintf("Precision and Scale do not apply to %s", k))
		}
	}
	return strings.Join(msgs, "; ")
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
	v := p.Default
	bad := func() (any, error) {
		return nil, fmt.Errorf("default %#v (%T) is not a value of %s", v, v, typeLabel(p))
	}
	if e := p.Enum; e != nil {
		if s, ok := v.(string); ok {
			n, err := e.Parse(s)
			if err != nil {
				return nil, fmt.Errorf("default %q is not a member of enum type %q", s, e.Name)
			}
			return n, nil
		}
		n, ok := asInt64(v)
		if !ok {
			return bad()
		}
		if !e.valid(n) {
			return nil, fmt.Errorf("default %d is not a value of enum type %q", n, e.Name)
		}
		return n, nil
	}
	switch k := p.Type; k {
	case KindString:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		if p.MaxLength > 0 && utf8.RuneCountInString(s) > p.MaxLength {
			return nil, fmt.Errorf("default %q is longer than MaxLength %d", s, p.MaxLength)
		}
		if !xmlSafe(s) {
			return nil, fmt.Errorf("default %q holds characters CSDL XML cannot carry (control characters or invalid UTF-8)", s)
		}
		return s, nil
	case KindBoolean:
		if _, ok := v.(bool); !ok {
			return bad()
		}
		return v, nil
	case KindByte, KindSByte, KindInt16, KindInt32, KindInt64:
		n, ok := asInt64(v)
		if !ok {
			return bad()
		}
		if lo, hi := k.intRange(); n < lo || n > hi {
			return nil, fmt.Errorf("default %d does not fit %s", n, k)
		}
		return n, nil
	case KindDecimal:
		var d decimal.Decimal
		switch x := v.(type) {
		case decimal.Decimal:
			d = x
		default:
			n, ok := asInt64(v)
			if !ok {
				return bad()
			}
			d = decimal.NewFromInt(n)
		}
		if !fitsDecimal(d, p.Precision, p.Scale) {
			return nil, fmt.Errorf("default %s does not fit Precision %d and Scale %d", d, p.Precision, p.Scale)
		}
		return d, nil
	case KindDouble, KindSingle:
		switch x := v.(type) {
		case float64:
			return x, nil
		case float32:
			return float64(x), nil
		}
		n, ok := asInt64(v)
		if !ok {
			return bad()
		}
		return float64(n), nil
	case KindDate:
		d, ok := v.(Date)
		if !ok || !d.IsValid() {
			return bad()
		}
		return d, nil
	case KindTimeOfDay:
		t, ok := v.(TimeOfDay)
		if !ok || !t.IsValid() {
			return bad()
		}
		return t, nil
	case KindDateTimeOffset:
		t, ok := v.(time.Time)
		if !ok {
			return bad()
		}
		return t.UTC(), nil
	case KindDuration:
		if _, ok := v.(time.Duration); !ok {
			return bad()
		}
		return v, nil
	case KindGuid:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		g, err := ParseGuid(s)
		if err != nil {
			return bad()
		}
		return g, nil
	case KindBinary:
		if _, ok := v.([]byte); !ok {
			return bad()
		}
		return v, nil
	}
	return nil, fmt.Errorf("%s properties have no default", p.Type)
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

func (b *builder) entityType(t *EntityType) {
	where := fmt.Sprintf("entity type %q", t.Name)
	add := func(msg string) { b.errs.add(where, msg) }
	defaulted := t.Table == ""
	if defaulted {
		t.Table = SnakeCase(t.Name)
	}
	if !isSQLName(t.Table) && (isIdentifier(t.Name) || !defaulted) {
		add(fmt.Sprintf("table %q is not a valid table name (ASCII letters, digits and _, at most %d bytes)", t.Table, maxSQLName))
	}
	t.props, t.navs = newIndex[*Property](), newIndex[*NavigationProperty]()
	t.key, t.etag, t.stream, t.contentType, t.sets = nil, nil, nil, nil, nil
	names := map[string]bool{}
	for _, p := range t.Properties {
		p.isKey = false
		b.property(where, p, true)
		if names[p.Name] {
			add(fmt.Sprintf("duplicate property %q", p.Name))
			continue
		}
		names[p.Name] = true
		t.props.add(p.Name, p)
		b.instantiate(p)
	}
	for _, n := range t.Navigations {
		if names[n.Name] {
			add(fmt.Sprintf("navigation %q: name is already used by a property or navigation", n.Name))
		}
		names[n.Name] = true
		t.navs.add(n.Name, n)
	}

	// Key.
	if len(t.Key) == 0 {
		add("no key")
	}
	for _, k := range t.Key {
		p, ok := t.props.exact[k]
		if !ok {
			add(fmt.Sprintf("key property %q does not exist", k))
			continue
		}
		if p.isKey {
			add(fmt.Sprintf("key property %q is listed twice", k))
			continue
		}
		if msg := keyProblem(p); msg != "" {
			add(fmt.Sprintf("key property %q %s", k, msg))
			continue
		}
		p.isKey = true
		t.key = append(t.key, p)
	}

	// Columns of the table.
	columns := map[string]string{}
	longReported := map[string]bool{}
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
		if prev, dup := columns[p.Column]; dup {
			add(fmt.Sprintf("property %q: column %q is also the column of property %q", owner, p.Column, prev))
			return
		}
		columns[p.Column] = owner
		if !isSQLName(p.Column) && p != t.props.exact[owner] && !longReported[owner] {
			longReported[owner] = true
			add(fmt.Sprintf("property %q: column %q is not a valid column name (at most %d bytes)", owner, p.Column, maxSQLName))
		}
	}
	for _, p := range t.Properties {
		claim(p, p.Name)
	}

	// Side tables of collections.
	for _, p := range t.Properties {
		if p.Collection {
			b.collectionTable(t, p)
		}
	}

	// ETag.
	if len(t.ETag) == 0 {
		for _, p := range t.Properties {
			if !p.Lazy && p.Type != KindStream {
				t.etag = append(t.etag, p)
			}
		}
	}
	for _, name := range t.ETag {
		p, ok := t.props.exact[name]
		if !ok {
			add(fmt.Sprintf("ETag property %q does not exist", name))
			continue
		}
		t.etag = append(t.etag, p)
	}

	// Media entity.
	switch {
	case t.HasStream:
		if p := t.props.exact[t.StreamProperty]; p == nil || p.Collection || (p.Type != KindBinary && p.Type != KindStream) {
			add(fmt.Sprintf("HasStream needs StreamProperty to name a Binary or Stream property (got %q)", t.StreamProperty))
		} else {
			t.stream = p
		}
		if p := t.props.exact[t.ContentTypeProperty]; p == nil || p.Collection || p.Type != KindString {
			add(fmt.Sprintf("HasStream needs ContentTypeProperty to name a String property (got %q)", t.ContentTypeProperty))
		} else {
			t.contentType = p
		}
	case t.StreamProperty != "" || t.ContentTypeProperty != "":
		add("StreamProperty and ContentTypeProperty need HasStream")
	}
}

// tables checks that no two entity types or side tables share a table.
func (b *builder) tables() {
	owner := map[string]string{}
	claim := func(table, decl string) {
		if prev, dup := owner[table]; dup {
			b.errs.add(decl, fmt.Sprintf("table %q is also the table of %s", table, prev))
			return
		}
		owner[table] = decl
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
		fp := &f
		b.instantiate(fp)
		p.fields = append(p.fields, fp)
		p.members.add(fp.Name, fp)
	}
}

// collectionTable fills in the side table of a collection property.
func (b *builder) collectionTable(t *EntityType, p *Property) {
	where := fmt.Sprintf("entity type %q: property %q", t.Name, p.Name)
	if p.CollectionTable == nil {
		p.CollectionTable = &CollectionTable{}
	}
	ct := p.CollectionTable
	if ct.Table == "" {
		ct.Table = t.Table + "_" + p.Column
	}
	if len(ct.SourceColumns) == 0 {
		for _, k := range t.key {
			ct.SourceColumns = append(ct.SourceColumns, k.Column)
		}
	}
	if len(ct.OwnerColumns) == 0 {
		for _, c := range ct.SourceColumns {
			ct.OwnerColumns = append(ct.OwnerColumns, t.Table+"_"+c)
		}
	}
	if ct.ValueColumn == "" {
		ct.ValueColumn = "value"
	}
	if ct.OrdinalColumn == "" {
		ct.OrdinalColumn = "ordinal"
	}
	if !isSQLName(ct.Table) {
		b.errs.add(where, fmt.Sprintf("side table %q is not a valid table name", ct.Table))
	}
	if len(ct.OwnerColumns) != len(ct.SourceColumns) {
		b.errs.add(where, fmt.Sprintf("side table has %d owner columns for %d source columns", len(ct.OwnerColumns), len(ct.SourceColumns)))
	}
	for _, c := range ct.SourceColumns {
		if !isSQLName(c) {
			b.errs.add(where, fmt.Sprintf("source column %q is not a valid column name", c))
		}
	}
	cols := append(slices.Clone(ct.OwnerColumns), ct.ValueColumn, ct.OrdinalColumn)
	seen := map[string]bool{}
	for _, c := range cols {
		if !isSQLName(c) {
			b.errs.add(where, fmt.Sprintf("side table column %q is not a valid column name", c))
		}
		if seen[c] {
			b.errs.add(where, fmt.Sprintf("side table column %q is used twice", c))
		}
		seen[c] = true
	}
}

func keyColumns(t *EntityType) []string {
	cols := make([]string, len(t.key))
	for i, k := range t.key {
		cols[i] = k.Column
	}
	return cols
}

func (b *builder) navigation(t *EntityType, n *NavigationProperty) {
	where := fmt.Sprintf("entity type %q: navigation %q", t.Name, n.Name)
	reported := len(b.errs.errs)
	defer func() { b.badJoin[n] = len(b.errs.errs) > reported }()
	add := func(msg string) { b.errs.add(where, msg) }
	n.source, n.target, n.partner, n.constraints = t, nil, nil, nil
	if !isIdentifier(n.Name) {
		add("name is not a valid identifier")
	} else if isReservedMember(n.Name) {
		add("the name is reserved")
	}
	n.target = b.entityTypeNamed(n.Target)
	if n.target == nil {
		add(fmt.Sprintf("target entity type %q does not exist", n.Target))
		return
	}
	if n.Collection && n.Nullable {
		add("Nullable does not apply to a collection")
	}
	j := &n.Join
	checkCols := func(what string, cols []string) {
		seen := map[string]bool{}
		for _, c := range cols {
			if !isSQLName(c) {
				add(fmt.Sprintf("%s: %q is not a valid column name", what, c))
			}
			if seen[c] {
				add(fmt.Sprintf("%s: column %q is listed twice", what, c))
			}
			seen[c] = true
		}
	}
	if j.Through == nil {
		if n.Collection {
			if len(j.SourceColumns) == 0 {
				j.SourceColumns = keyColumns(t)
			}
			if len(j.TargetColumns) == 0 {
				add("a to-many join needs TargetColumns (the target's columns referring to the source)")
			}
		} else {
			if len(j.TargetColumns) == 0 {
				j.TargetColumns = keyColumns(n.target)
			}
			if len(j.SourceColumns) == 0 {
				add("a to-one join needs SourceColumns (the source's foreign key columns)")
			}
		}
		if len(j.SourceColumns) > 0 && len(j.TargetColumns) > 0 && len(j.SourceColumns) != len(j.TargetColumns) {
			add(fmt.Sprintf("join has %d source columns and %d target columns", len(j.SourceColumns), len(j.TargetColumns)))
		}
	} else {
		l := j.Through
		if len(j.SourceColumns) == 0 {
			j.SourceColumns = keyColumns(t)
		}
		if len(j.TargetColumns) == 0 {
			j.TargetColumns = keyColumns(n.target)
		}
		if !isSQLName(l.Table) {
			add(fmt.Sprintf("link table %q is not a valid table name", l.Table))
		}
		if len(l.SourceColumns) != len(j.SourceColumns) {
			add(fmt.Sprintf("link table %q has %d source columns for %d source columns of the join", l.Table, len(l.SourceColumns), len(j.SourceColumns)))
		}
		if len(l.TargetColumns) != len(j.TargetColumns) {
			add(fmt.Sprintf("link table %q has %d target columns for %d target columns of the join", l.Table, len(l.TargetColumns), len(j.TargetColumns)))
		}
		checkCols("link table", append(slices.Clone(l.SourceColumns), l.TargetColumns...))
	}
	checkCols("join source", j.SourceColumns)
	checkCols("join target", j.TargetColumns)

	// Referential constraints of a to-one foreign key.
	if !n.Collection && j.Through == nil && len(j.SourceColumns) == len(j.TargetColumns) {
		var rc []ReferentialConstraint
		for i, c := range j.SourceColumns {
			sp, tp := columnProperty(t, c), columnProperty(n.target, j.TargetColumns[i])
			if sp == nil || tp == nil {
				rc = nil
				break
			}
			rc = append(rc, ReferentialConstraint{Property: sp.Name, ReferencedProperty: tp.Name})
		}
		n.constraints = rc
	}
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
	p := n.target.navs.exact[n.Partner]
	switch {
	case p == nil:
		b.errs.add(where, fmt.Sprintf("partner %q does not exist on entity type %q", n.Partner, n.target.Name))
		return
	case p.target == nil:
		return // reported on p
	case p.target != t:
		b.errs.add(where, fmt.Sprintf("partner %q leads to %q, not back to %q", n.Partner, p.Target, t.Name))
		return
	case p.Partner != "" && p.Partner != n.Name:
		// Report only when p's own partner is valid, else the error is p's and reported there.
		if q := t.navs.exact[p.Partner]; q != nil && q.target == n.target {
			b.errs.add(where, fmt.Sprintf("partner %q names %q as its partner", n.Partner, p.Partner))
		}
		return
	}
	n.partner = p
	if b.badJoin[n] || b.badJoin[p] || b.mirrored[p] {
		return
	}
	b.mirrored[n] = true
	j, pj := n.Join, p.Join
	mirrored := slices.Equal(j.SourceColumns, pj.TargetColumns) && slices.Equal(j.TargetColumns, pj.SourceColumns)
	switch {
	case (j.Through == nil) != (pj.Through == nil):
		mirrored = false
	case j.Through != nil:
		mirrored = mirrored && j.Through.Table == pj.Through.Table &&
			slices.Equal(j.Through.SourceColumns, pj.Through.TargetColumns) &&
			slices.Equal(j.Through.TargetColumns, pj.Through.SourceColumns)
	}
	if !mirrored {
		b.errs.add(where, fmt.Sprintf("join does not mirror the join of partner %q", n.Partner))
	}
}

// container checks entity sets, singletons and operation imports, which share the container's names.
func (b *builder) container() {
	m := b.m
	m.entitySets, m.singletons = newIndex[*EntitySet](), newIndex[*Singleton]()
	seen := map[string]string{}
	claim := func(decl, name string) bool {
		if !isIdentifier(name) {
			b.errs.add(decl, "name is not a valid identifier")
			return false
		}
		k := foldKey(name)
		if prev, dup := seen[k]; dup {
			b.errs.add(decl, "name is already used by "+prev)
			return false
		}
		seen[k] = decl
		return true
	}
	for _, s := range m.EntitySets {
		decl := fmt.Sprintf("entity set %q", s.Name)
		s.typ, s.bindings = b.entityTypeNamed(s.Type), nil
		if s.typ == nil {
			b.errs.add(decl, fmt.Sprintf("entity type %q does not exist", s.Type))
		} else {
			s.typ.sets = append(s.typ.sets, s)
		}
		if claim(decl, s.Name) {
			m.entitySets.add(s.Name, s)
		}
	}
	for _, s := range m.Singletons {
		decl := fmt.Sprintf("singleton %q", s.Name)
		s.typ, s.bindings = b.entityTypeNamed(s.Type), nil
		if s.typ == nil {
			b.errs.add(decl, fmt.Sprintf("entity type %q does not exist", s.Type))
		}
		if claim(decl, s.Name) {
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
	m := b.m
	for _, a := range m.Actions {
		where := fmt.Sprintf("action %q", a.Name)
		a.binding = b.bindingType(where, a.Bound, a.BindingType, a.BindingCollection)
		b.parameters(where, a.Parameters)
		if a.ReturnType != nil {
			b.returnType(where, a.ReturnType)
		}
	}
	for _, f := range m.Functions {
		where := fmt.Sprintf("function %q", f.Name)
		f.binding = b.bindingType(where, f.Bound, f.BindingType, f.BindingCollection)
		b.parameters(where, f.Parameters)
		if f.ReturnType == nil {
			b.errs.add(where, "a function needs a ReturnType")
		} else {
			b.returnType(where, f.ReturnType)
		}
	}
	for _, g := range m.actionGroups {
		unbound := 0
		type binding struct {
			t    *EntityType
			coll bool
		}
		seen := map[binding]bool{}
		for _, a := range g {
			where := fmt.Sprintf("action %q", a.Name)
			if !a.Bound {
				if unbound++; unbound == 2 {
					b.errs.add(where, "unbound actions cannot be overloaded")
				}
				continue
			}
			if a.binding == nil {
				continue
			}
			k := binding{a.binding, a.BindingCollection}
			if seen[k] {
				b.errs.add(where, fmt.Sprintf("another overload is bound to %s", bindingLabel(a.BindingType, a.BindingCollection)))
			}
			seen[k] = true
		}
	}
	for _, g := range m.functionGroups {
		type signature struct {
			t      *EntityType
			bound  bool
			coll   bool
			params string
		}
		seen := map[signature]bool{}
		returns := map[signature]*ReturnType{} // by binding only
		for _, f := range g {
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
				b.errs.add(where, "another overload has the same binding and parameter names")
			}
			seen[k] = true
			rk := signature{t: f.binding, bound: f.Bound, coll: f.BindingCollection}
			if r, ok := returns[rk]; ok && f.ReturnType != nil && r != nil && !sameType(r, f.ReturnType) {
				b.errs.add(where, "overloads with the same binding must have the same return type")
			} else if !ok {
				returns[rk] = f.ReturnType
			}
		}
	}
}

func bindingLabel(typ string, coll bool) string {
	if coll {
		return fmt.Sprintf("a collection of %q", typ)
	}
	return fmt.Sprintf("%q", typ)
}

func sameType(a, b *ReturnType) bool {
	return a.Type == b.Type && a.Enum == b.Enum && a.Complex == b.Complex && a.entity == b.entity && a.Collection == b.Collection
}

func (b *builder) bindingType(where string, bound bool, typ string, coll bool) *EntityType {
	if !bound {
		if typ != "" || coll {
			b.errs.add(where, "BindingType and BindingCollection need Bound")
		}
		return nil
	}
	if typ == "" {
		b.errs.add(where, "a bound operation needs a BindingType")
		return nil
	}
	t := b.entityTypeNamed(typ)
	if t == nil {
		b.errs.add(where, fmt.Sprintf("binding entity type %q does not exist", typ))
	}
	return t
}

func (b *builder) parameters(where string, ps []Parameter) {
	seen := map[string]string{}
	optional := ""
	for i := range ps {
		p := &ps[i]
		pw := fmt.Sprintf("%s: parameter %q", where, p.Name)
		if !isIdentifier(p.Name) {
			b.errs.add(pw, "name is not a valid identifier")
		} else if isReservedMember(p.Name) {
			b.errs.add(pw, "the name is reserved")
		}
		k := foldKey(p.Name)
		if prev, dup := seen[k]; dup {
			b.errs.add(pw, fmt.Sprintf("duplicate parameter (also %q)", prev))
		}
		seen[k] = p.Name
		for _, a := range p.Aliases {
			if !isIdentifier(a) {
				b.errs.add(pw, fmt.Sprintf("alias %q is not a valid identifier", a))
				continue
			} else if isReservedMember(a) {
				b.errs.add(pw, fmt.Sprintf("alias %q is reserved", a))
				continue
			}
			k := foldKey(a)
			if prev, dup := seen[k]; dup {
				b.errs.add(pw, fmt.Sprintf("alias %q is already used by %q", a, prev))
				continue
			}
			seen[k] = a
		}
		p.entity = b.typeRef(pw, p.Type, p.Enum, p.Complex, p.Entity, p.MaxLength, &p.Precision, p.Scale)
		if !p.Required {
			optional = p.Name
		} else if optional != "" {
			b.errs.add(pw, fmt.Sprintf("required parameter follows optional parameter %q", optional))
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
		b.errs.add(where, "exactly one of Type, Enum, Complex and Entity must be set")
		return nil
	}
	if k >= kindCount {
		b.errs.add(where, fmt.Sprintf("unknown kind %d", k))
		return nil
	}
	var t *EntityType
	if entity != "" {
		if t = b.entityTypeNamed(entity); t == nil {
			b.errs.add(where, fmt.Sprintf("entity type %q does not exist", entity))
		}
	}
	if msg := facets(k, k == KindNone, maxLength, precision, scale); msg != "" {
		b.errs.add(where, msg)
	}
	return t
}

func (b *builder) authorizations() {
	seen := map[string]bool{}
	for i, a := range b.m.Authorizations {
		where := fmt.Sprintf("authorization %q", a.Name)
		if a.Name == "" {
			where = fmt.Sprintf("authorization #%d", i+1)
			b.errs.add(where, "no Name")
		}
		if seen[a.Name] {
			b.errs.add(where, "duplicate name")
		}
		seen[a.Name] = true
		if a.Scheme == "" || strings.ContainsAny(a.Scheme, " \t\r\n,;\"") {
			b.errs.add(where, fmt.Sprintf("Scheme %q is not an HTTP authentication scheme such as \"bearer\"", a.Scheme))
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
		if s.typ != nil {
			walk(s.typ, "", map[*EntityType]bool{s.typ: true}, &s.bindings)
		}
	}
	for _, s := range b.m.Singletons {
		if s.typ != nil {
			walk(s.typ, "", map[*EntityType]bool{s.typ: true}, &s.bindings)
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

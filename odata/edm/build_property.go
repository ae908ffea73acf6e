package edm

import (
	"errors"
	"fmt"
	"strings"
)

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
	if msg := decimalStorage(p); msg != "" {
		report(msg)
	}
	if msg := timeStorage(p); msg != "" {
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

// decimalStorage validates DecimalStorage: a known kind, on a stored Decimal only, and a Precision a
// floating-point column keeps. It returns a message, or "".
func decimalStorage(p *Property) string {
	switch {
	case p.DecimalStorage == DecimalAuto:
		return ""
	case p.DecimalStorage > DecimalFloat:
		return fmt.Sprintf("unknown DecimalStorage %d", p.DecimalStorage)
	case p.Type != KindDecimal || p.Enum != nil || p.Complex != nil:
		return "DecimalStorage applies to Edm.Decimal only"
	case p.SQL != "":
		return "DecimalStorage does not apply to a property computed by SQL"
	case p.DecimalStorage == DecimalFloat && p.Precision > MaxFloatDecimalPrecision:
		return fmt.Sprintf("a Decimal stored as DecimalFloat has at most %d digits of Precision (a floating-point number keeps no more), not %d",
			MaxFloatDecimalPrecision, p.Precision)
	}
	return ""
}

// timeStorage validates TimeStorage: a known kind, on a stored DateTimeOffset or TimeOfDay only (TimeUnix on a
// DateTimeOffset). It returns a message, or "".
func timeStorage(p *Property) string {
	switch {
	case p.TimeStorage == TimeAuto:
		return ""
	case p.TimeStorage > TimeUnix:
		return fmt.Sprintf("unknown TimeStorage %d", p.TimeStorage)
	case p.Enum != nil || p.Complex != nil || p.Type != KindDateTimeOffset && p.Type != KindTimeOfDay:
		return "TimeStorage applies to Edm.DateTimeOffset and Edm.TimeOfDay only"
	case p.SQL != "":
		return "TimeStorage does not apply to a property computed by SQL"
	case p.TimeStorage == TimeUnix && p.Type != KindDateTimeOffset:
		return "TimeUnix applies to Edm.DateTimeOffset only"
	}
	return ""
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

// typeLabel names a property's type in messages: "Edm.Int32" or `enum type "ProductType"`.
func typeLabel(p *Property) string {
	if p.Enum != nil {
		return fmt.Sprintf("enum type %q", p.Enum.Name)
	}
	return p.Type.String()
}

package odata

import (
	"strings"

	"github.com/storekit/store/odata/edm"
)

// This file holds the parameters of the JSON format a client asks for (OData JSON Format 4.01, section 3):
// odata.metadata, the control information an answer carries, and IEEE754Compatible, the form of its Int64 and
// Decimal values; and the pieces of control information the writers of entities share.

// metadataLevel is the control information an answer carries (odata.metadata).
type metadataLevel uint8

const (
	// metadataMinimal (the default): the context URL, ETags, counts and next links, and an entity's id when
	// its key is not in the answer.
	metadataMinimal metadataLevel = iota
	// metadataNone: counts and next links only.
	metadataNone
	// metadataFull: besides the minimal, each entity's type, id and edit link, the type of each value JSON does
	// not tell, the navigation links and the media read link.
	metadataFull
)

// metadataLevels are the values of odata.metadata, by name.
var metadataLevels = map[string]metadataLevel{"minimal": metadataMinimal, "none": metadataNone, "full": metadataFull}

// jsonFormat is the form of a JSON answer the client asked for.
type jsonFormat struct {
	metadata metadataLevel
	// ieee754 writes Int64 and Decimal values as JSON strings (IEEE754Compatible=true), for clients whose
	// numbers are IEEE 754 doubles.
	ieee754 bool
	// omitNulls leaves properties whose value is null out of entities (Prefer: omit-values=nulls, OData 4.01
	// part 1, 8.2.8.6; also honoured in 4.0 answers): a property the answer selects and does not show is null.
	omitNulls bool
}

// parseJSONFormat reads the parameters of an application/json media type: odata.metadata (or metadata, as
// 4.01 allows) and IEEE754Compatible, names and values without regard to case. ok is false for a value the
// service cannot serve (odata.metadata=bogus, IEEE754Compatible=maybe).
func parseJSONFormat(params map[string]string) (format jsonFormat, ok bool) {
	for name, value := range params {
		value = strings.ToLower(value)
		switch strings.ToLower(name) {
		case "odata.metadata", "metadata":
			level, known := metadataLevels[value]
			if !known {
				return jsonFormat{}, false
			}
			format.metadata = level
		case "ieee754compatible":
			switch value {
			case "true":
				format.ieee754 = true
			case "false":
			default:
				return jsonFormat{}, false
			}
		}
	}
	return format, true
}

// contentTypes holds the Content-Type header of each form of JSON answer, by metadata level and ieee754.
var contentTypes = func() (types [3][2][]string) {
	for name, level := range metadataLevels {
		types[level][0] = []string{"application/json;odata.metadata=" + name}
		types[level][1] = []string{"application/json;odata.metadata=" + name + ";IEEE754Compatible=true"}
	}
	return types
}()

// contentType returns the Content-Type header value of answers in the format.
func (f jsonFormat) contentType() []string {
	ieee := 0
	if f.ieee754 {
		ieee = 1
	}
	return contentTypes[f.metadata][ieee]
}

// answerFormat is what the writers of entities need to know about an answer beside its values: the form the
// client asked for, and the service root and namespace its ids and type names are made of.
type answerFormat struct {
	jsonFormat
	req       *request // the request, for the service root URL (made when an id needs it)
	root      string   // the service root URL once made
	namespace string   // the model's namespace
	// untyped marks the entities of a collection whose context names no type or set (Collection(Edm.EntityType),
	// $all): each carries its type and id with minimal metadata too (JSON Format 4.01, 4.5.3 and 4.5.8).
	untyped bool
}

// base returns the service root URL.
func (a *answerFormat) base() string {
	if a.root == "" && a.req != nil {
		a.root = a.req.base()
	}
	return a.root
}

// minimalFormat is the format of answers that ask nothing.
var minimalFormat = &answerFormat{}

// full reports whether the answer carries full metadata.
func (a *answerFormat) full() bool { return a.metadata == metadataFull }

// controls reports whether the answer carries the control information of minimal metadata (context, ETags).
func (a *answerFormat) controls() bool { return a.metadata != metadataNone }

// needsID reports whether an entity of layout l needs its @odata.id in the answer: always with full metadata,
// with minimal metadata when the answer does not show all of its key ($select without the key).
func (a *answerFormat) needsID(l *layout) bool {
	return a.metadata == metadataFull || a.metadata == metadataMinimal && (!l.keysShown || a.untyped)
}

// needsPath reports whether an entity of layout l needs its path in the answer: for its id (needsID), its links
// (full metadata), or its media links (a media entity, unless odata.metadata=none).
func (a *answerFormat) needsPath(l *layout) bool {
	return a.full() || a.needsID(l) || a.controls() && l.typ.HasStream
}

// appendEntityControls appends the control information that precedes an entity's properties, after its
// context URL: the type (full), the id (absolute, when needsID; path is relative to the service root), the ETag
// (unless none), the edit link (full), and a media entity's media read link (unless none) and media edit link
// (full): its $value, which GET reads and PUT replaces.
func (a *answerFormat) appendEntityControls(b []byte, l *layout, rowType *edm.EntityType, path string, etag func() uint64) []byte {
	full := a.full()
	if rowType == nil {
		rowType = l.typ
	}
	// The type with full metadata; with minimal metadata when it is not the one the context implies (an entity
	// of a derived type in a collection of its base type).
	if full || a.controls() && (rowType != l.expectedType() || a.untyped) {
		b = appendName(b, typeName)
		b = a.appendTypeName(b, rowType.Name)
	}
	media := l.typ.HasStream && a.controls() && path != ""
	var url []byte
	if (a.needsID(l) || full || media) && path != "" {
		url = appendString(nil, a.base()+"/"+path)
	}
	if a.needsID(l) && url != nil {
		b = append(appendName(b, idName), url...)
	}
	if a.controls() && etag != nil {
		b = appendETagMember(b, etag())
	}
	if full && url != nil {
		b = append(appendName(b, editLinkName), url...)
	}
	if media {
		value := appendString(nil, a.base()+"/"+path+"/$value")
		b = append(appendName(b, mediaReadLinkName), value...)
		if full {
			b = append(appendName(b, mediaEditLinkName), value...)
		}
	}
	return b
}

// appendTypeName appends "#Namespace.Name" as a JSON string.
func (a *answerFormat) appendTypeName(b []byte, name string) []byte {
	return appendString(b, "#"+a.namespace+"."+name)
}

// appendPropertyType appends the "Name@odata.type" member of a property with full metadata when JSON does not
// tell its type (anything but a String, Boolean, Int32 or Double, or a complex value, which carries its type
// inside) and its value is not null.
func (a *answerFormat) appendPropertyType(b []byte, p *edm.Property, null bool) []byte {
	if !a.full() || null {
		return b
	}
	name := propertyTypeName(a.namespace, p)
	if name == "" {
		return b
	}
	b = appendName(b, nil)
	b = appendString(b, p.Name+"@odata.type")
	b = append(b, ':')
	return appendString(b, "#"+name)
}

// propertyTypeName returns the type name "@odata.type" gives for a property whose type JSON does not tell, or
// "" when it does or the value carries it (complex values).
func propertyTypeName(namespace string, p *edm.Property) string {
	var name string
	switch {
	case p.Complex != nil && !p.Collection:
		return ""
	case p.Complex != nil:
		name = namespace + "." + p.Complex.Name
	case p.Enum != nil:
		name = namespace + "." + p.Enum.Name
	case p.Collection:
		name = p.Type.String()
	default:
		switch p.Type {
		case edm.KindString, edm.KindBoolean, edm.KindInt32, edm.KindDouble:
			return ""
		}
		name = p.Type.String()
	}
	name = strings.TrimPrefix(name, "Edm.")
	if p.Collection {
		return "Collection(" + name + ")"
	}
	return name
}

// appendNavigationLinks appends the "Nav@odata.navigationLink" member of each navigation property of l's type
// but those in skip (they are expanded, and their writer adds the link), for full metadata; path is the
// entity's, relative to the service root.
func (a *answerFormat) appendNavigationLinks(b []byte, l *layout, path string, skip []*edm.NavigationProperty) []byte {
	if !a.full() || path == "" {
		return b
	}
	for _, n := range l.typ.Navigations {
		if !containsNavigation(skip, n) {
			b = a.appendNavigationLink(b, n, path)
		}
	}
	return b
}

// appendNavigationLink appends the "Nav@odata.navigationLink" member of n for the entity at path.
func (a *answerFormat) appendNavigationLink(b []byte, n *edm.NavigationProperty, path string) []byte {
	b = appendName(b, nil)
	b = appendString(b, n.Name+"@odata.navigationLink")
	b = append(b, ':')
	return appendString(b, a.base()+"/"+path+"/"+n.Name)
}

func containsNavigation(list []*edm.NavigationProperty, n *edm.NavigationProperty) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

// Names of control information members.
var (
	typeName          = []byte(`"@odata.type":`)
	idName            = []byte(`"@odata.id":`)
	editLinkName      = []byte(`"@odata.editLink":`)
	mediaReadLinkName = []byte(`"@odata.mediaReadLink":`)
	mediaEditLinkName = []byte(`"@odata.mediaEditLink":`)
)

// quotesNumbers reports whether IEEE754Compatible writes the values of p as strings: Int64 and Decimal.
func quotesNumbers(p *edm.Property) bool {
	return p.Enum == nil && p.Complex == nil && (p.Type == edm.KindInt64 || p.Type == edm.KindDecimal)
}

// appendQuotedNumbers appends the JSON text of a value of p (a number, null, or an array of them) with each
// number as a JSON string, as IEEE754Compatible=true has it.
func appendQuotedNumbers(b []byte, text []byte) []byte {
	inNumber := false
	for _, c := range text {
		isNumber := c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c >= '0' && c <= '9'
		if isNumber != inNumber {
			b = append(b, '"')
			inNumber = isNumber
		}
		b = append(b, c)
	}
	if inNumber {
		b = append(b, '"')
	}
	return b
}

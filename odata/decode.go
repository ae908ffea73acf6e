package odata

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
)

// member is one name/value pair of a JSON object, in the order of the body.
type member struct {
	name string
	raw  json.RawMessage
}

// readJSONBody reads a request body that must be a JSON object. An empty body is an empty object when
// emptyOK (action parameters); otherwise it is an error. The Content-Type must be application/json (with any
// parameters) whenever there is a body.
func readJSONBody(r *http.Request, emptyOK bool) ([]member, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, err
		}
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &Error{Code: CodePayloadTooLarge,
				Message: fmt.Sprintf("The request body exceeds the limit of %d bytes.", mbe.Limit), Err: err}
		}
		return nil, BadRequest(CodeInvalidJSON, "", "The request body could not be read.")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if emptyOK {
			return nil, nil
		}
		if err := checkJSONContentType(r); err != nil {
			return nil, err
		}
		return nil, BadRequest(CodeInvalidJSON, "", "The request body is empty; a JSON object is required.")
	}
	if err := checkJSONContentType(r); err != nil {
		return nil, err
	}
	return parseObject(body)
}

func checkJSONContentType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || mt != "application/json" {
		return &Error{Code: CodeUnsupportedMediaType,
			Message: "The request body must be JSON, sent with Content-Type: application/json."}
	}
	return nil
}

// parseObject splits a JSON object into its members, in order.
func parseObject(body []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, invalidJSON(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, BadRequest(CodeInvalidJSON, "", "The request body must be a JSON object.")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, invalidJSON(err)
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, invalidJSON(err)
		}
		out = append(out, member{name: name, raw: raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, invalidJSON(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, BadRequest(CodeInvalidJSON, "", "The request body must hold one JSON object and nothing after it.")
	}
	return out, nil
}

func invalidJSON(err error) *Error {
	msg := "The request body is not valid JSON"
	var se *json.SyntaxError
	if errors.As(err, &se) {
		msg += fmt.Sprintf(" (at byte %d: %s)", se.Offset, se.Error())
	} else if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		msg += " (it ends too early)"
	}
	return &Error{Code: CodeInvalidJSON, Message: msg + ".", Err: err}
}

// valueType describes the type of a value to decode: a property, a complex member or an action parameter.
type valueType struct {
	name       string
	kind       edm.Kind
	enum       *edm.EnumType
	complex    *edm.ComplexType
	entity     *edm.EntityType
	collection bool
	nullable   bool
	maxLength  int
	precision  int
	scale      int
}

func propType(p *edm.Property) valueType {
	return valueType{name: p.Name, kind: p.Type, enum: p.Enum, complex: p.Complex, collection: p.Collection,
		nullable: p.Nullable, maxLength: p.MaxLength, precision: p.Precision, scale: p.Scale}
}

func paramType(p *edm.Parameter) valueType {
	return valueType{name: p.Name, kind: p.Type, enum: p.Enum, complex: p.Complex, entity: p.EntityType(),
		collection: p.Collection, nullable: p.Nullable, maxLength: p.MaxLength, precision: p.Precision, scale: p.Scale}
}

// decoder converts JSON values to Go values, collecting one ErrorDetail per problem.
type decoder struct {
	details []ErrorDetail
}

func (d *decoder) fail(code, target, format string, args ...any) {
	d.details = append(d.details, ErrorDetail{Code: code, Target: target, Message: fmt.Sprintf(format, args...)})
}

// value decodes raw as a value of type t; target names it in errors. ok is false when a detail was recorded.
func (d *decoder) value(t valueType, target string, raw json.RawMessage) (any, bool) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		if !t.nullable && !t.collection {
			d.fail(CodeInvalidValue, target, "%s cannot be null.", target)
			return nil, false
		}
		return nil, true
	}
	if t.collection {
		if len(raw) == 0 || raw[0] != '[' {
			d.fail(CodeTypeMismatch, target, "%s must be a JSON array.", target)
			return nil, false
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			d.fail(CodeTypeMismatch, target, "%s must be a JSON array.", target)
			return nil, false
		}
		item := t
		item.collection = false
		out := make([]any, len(items))
		ok := true
		for i, r := range items {
			v, good := d.value(item, target+"["+strconv.Itoa(i)+"]", r)
			out[i] = v
			ok = ok && good
		}
		return out, ok
	}
	if t.complex != nil {
		return d.structured(t.complex.Properties, nil, target, raw)
	}
	if t.entity != nil {
		v, ok := d.structured(t.entity.Properties, t.entity, target, raw)
		if m, isMap := v.(map[string]any); isMap {
			return Entity(m), ok
		}
		return v, ok
	}
	return d.primitive(t, target, raw)
}

// structured decodes a JSON object of a complex or entity type: members by name (case-insensitive when not
// exact), unknown members and navigation properties are errors, annotations are ignored.
func (d *decoder) structured(props []*edm.Property, et *edm.EntityType, target string, raw json.RawMessage) (any, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		d.fail(CodeTypeMismatch, target, "%s must be a JSON object.", target)
		return nil, false
	}
	members, err := parseObject(raw)
	if err != nil {
		d.fail(CodeTypeMismatch, target, "%s must be a JSON object.", target)
		return nil, false
	}
	out := map[string]any{}
	ok := true
	for _, m := range members {
		if strings.Contains(m.name, "@") {
			continue
		}
		p := findProperty(props, m.name)
		sub := target + "/" + m.name
		if p == nil {
			if et != nil && et.Navigation(m.name) != nil {
				d.fail(CodeInvalidValue, sub, "The navigation property %s cannot be set here.", m.name)
			} else {
				d.fail(CodeUnknownField, sub, "%s has no member %s.", target, m.name)
			}
			ok = false
			continue
		}
		v, good := d.value(propType(p), target+"/"+p.Name, m.raw)
		ok = ok && good
		out[p.Name] = v
	}
	return out, ok
}

func findProperty(props []*edm.Property, name string) *edm.Property {
	for _, p := range props {
		if p.Name == name {
			return p
		}
	}
	var found *edm.Property
	for _, p := range props {
		if strings.EqualFold(p.Name, name) {
			if found != nil {
				return nil
			}
			found = p
		}
	}
	return found
}

// primitive decodes a primitive or enum value.
func (d *decoder) primitive(t valueType, target string, raw json.RawMessage) (any, bool) {
	isString := len(raw) > 0 && raw[0] == '"'
	isNumber := len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
	str := func() (string, bool) {
		var s string
		if !isString || json.Unmarshal(raw, &s) != nil {
			d.fail(CodeTypeMismatch, target, "%s must be a JSON string.", target)
			return "", false
		}
		return s, true
	}
	invalid := func(what string, err error) (any, bool) {
		msg := fmt.Sprintf("%s is not a valid %s.", target, what)
		if err != nil {
			if s := errText(err); s != "" {
				msg = fmt.Sprintf("%s is not a valid %s: %s.", target, what, s)
			}
		}
		d.details = append(d.details, ErrorDetail{Code: CodeInvalidValue, Target: target, Message: msg})
		return nil, false
	}
	if t.enum != nil {
		var s string
		switch {
		case isString:
			var ok bool
			if s, ok = str(); !ok {
				return nil, false
			}
		case isNumber:
			s = string(raw)
		default:
			d.fail(CodeTypeMismatch, target, "%s must be a JSON string naming a member of %s.", target, t.enum.Name)
			return nil, false
		}
		v, err := t.enum.Parse(s)
		if err != nil {
			return invalid(t.enum.Name+" value", nil)
		}
		return v, true
	}
	switch t.kind {
	case edm.KindString:
		s, ok := str()
		if !ok {
			return nil, false
		}
		if strings.IndexByte(s, 0) >= 0 {
			// PostgreSQL's text cannot hold it; refused on every database alike.
			d.fail(CodeInvalidValue, target, "%s must not contain the NUL character (\\u0000).", target)
			return nil, false
		}
		if t.maxLength > 0 && utf8.RuneCountInString(s) > t.maxLength {
			d.fail(CodeInvalidValue, target, "%s must be at most %d characters long.", target, t.maxLength)
			return nil, false
		}
		return s, true
	case edm.KindBoolean:
		switch string(raw) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
		d.fail(CodeTypeMismatch, target, "%s must be true or false.", target)
		return nil, false
	case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64:
		text := string(raw)
		if isString && t.kind == edm.KindInt64 {
			s, _ := str()
			text = s
		} else if !isNumber {
			d.fail(CodeTypeMismatch, target, "%s must be a JSON number.", target)
			return nil, false
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return invalid("integer", nil)
		}
		lo, hi := intRange(t.kind)
		if n < lo || n > hi {
			d.fail(CodeInvalidValue, target, "%s must be between %d and %d.", target, lo, hi)
			return nil, false
		}
		return n, true
	case edm.KindDecimal:
		text := string(raw)
		if isString {
			s, _ := str()
			text = s
		} else if !isNumber {
			d.fail(CodeTypeMismatch, target, "%s must be a JSON number.", target)
			return nil, false
		}
		m, err := decimal.NewFromString(text)
		if err != nil {
			return invalid("decimal number", nil)
		}
		if !m.Shift(int32(t.scale)).IsInteger() {
			d.fail(CodeInvalidValue, target, "%s must have at most %d decimal places.", target, t.scale)
			return nil, false
		}
		if t.precision > 0 {
			intDigits := len(m.Truncate(0).Abs().String())
			if m.Abs().LessThan(decimal.New(1, 0)) {
				intDigits = 0
			}
			if intDigits > t.precision-t.scale {
				d.fail(CodeInvalidValue, target, "%s is out of range (at most %d digits before the decimal point).", target, t.precision-t.scale)
				return nil, false
			}
		}
		// Both databases hold the value: SQLite stores it as the integer value x 10^scale, so that integer must
		// fit in 64 bits (NUMERIC(19,4) on PostgreSQL holds more).
		if !m.Shift(int32(t.scale)).BigInt().IsInt64() {
			d.fail(CodeInvalidValue, target, "%s is out of range (from %s to %s).", target,
				decimal.New(math.MinInt64, -int32(t.scale)).StringFixed(int32(t.scale)),
				decimal.New(math.MaxInt64, -int32(t.scale)).StringFixed(int32(t.scale)))
			return nil, false
		}
		return m, true
	case edm.KindDouble, edm.KindSingle:
		if isString {
			s, _ := str()
			switch s {
			case "NaN":
				return math.NaN(), true
			case "INF":
				return math.Inf(1), true
			case "-INF":
				return math.Inf(-1), true
			}
			d.fail(CodeTypeMismatch, target, "%s must be a JSON number.", target)
			return nil, false
		}
		if !isNumber {
			d.fail(CodeTypeMismatch, target, "%s must be a JSON number.", target)
			return nil, false
		}
		bits := 64
		if t.kind == edm.KindSingle {
			bits = 32
		}
		f, err := strconv.ParseFloat(string(raw), bits)
		if err != nil {
			return invalid("number", nil)
		}
		return f, true
	}
	// The remaining kinds travel as strings.
	s, ok := str()
	if !ok {
		return nil, false
	}
	switch t.kind {
	case edm.KindDate:
		v, err := edm.ParseDate(s)
		if err != nil {
			return invalid("date (YYYY-MM-DD)", nil)
		}
		return v, true
	case edm.KindTimeOfDay:
		v, err := edm.ParseTimeOfDay(s)
		if err != nil {
			return invalid("time of day (HH:MM:SS)", nil)
		}
		return v, true
	case edm.KindDateTimeOffset:
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return invalid("date and time (RFC 3339, such as 2026-11-22T01:02:03Z)", nil)
		}
		return v.UTC(), true
	case edm.KindDuration:
		v, err := edm.ParseDuration(s)
		if err != nil {
			return invalid("duration (such as P1DT2H)", nil)
		}
		return v, true
	case edm.KindGuid:
		v, err := edm.ParseGuid(s)
		if err != nil {
			return invalid("GUID", nil)
		}
		return v, true
	case edm.KindBinary, edm.KindStream:
		v, err := decodeBase64(s)
		if err != nil {
			return invalid("base64 text", nil)
		}
		if t.maxLength > 0 && len(v) > t.maxLength {
			d.fail(CodeInvalidValue, target, "%s must be at most %d bytes long.", target, t.maxLength)
			return nil, false
		}
		return v, true
	}
	d.fail(CodeInvalidValue, target, "%s cannot be set.", target)
	return nil, false
}

// errText is the part of an error message worth showing a client ("" for none).
func errText(err error) string {
	s := err.Error()
	if i := strings.Index(s, ": "); i >= 0 && strings.HasPrefix(s, "edm") {
		s = s[i+2:]
	}
	return s
}

// decodeBase64 accepts standard and URL-safe base64, with or without padding.
func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "-_") {
		return base64.RawURLEncoding.DecodeString(s)
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// intRange returns the range of an integer kind.
func intRange(k edm.Kind) (lo, hi int64) {
	switch k {
	case edm.KindByte:
		return 0, 255
	case edm.KindSByte:
		return -128, 127
	case edm.KindInt16:
		return math.MinInt16, math.MaxInt16
	case edm.KindInt32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

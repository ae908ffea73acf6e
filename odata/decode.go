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

// bodyReadError is the answer when reading a request body failed with err: the *Error a reader returned, 413 past
// the server's limit (http.MaxBytesReader), else a 400 with code and message.
func bodyReadError(err error, code, message string) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return &Error{Code: CodePayloadTooLarge,
			Message: fmt.Sprintf("The request body exceeds the limit of %d bytes.", tooLarge.Limit), Err: err}
	}
	return BadRequest(code, "", message)
}

// readJSONBody reads a request body that must be a JSON object, of at most limit bytes (else a 413). An empty
// body is an empty object when emptyOK (action parameters); otherwise it is an error. The Content-Type must be
// application/json (with any parameters) whenever there is a body.
func readJSONBody(r *http.Request, emptyOK bool, limit int64) ([]member, error) {
	body, err := readBody(r, limit, "request body", CodeInvalidJSON)
	if err != nil {
		return nil, err
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

// readBody reads the body of r, at most limit bytes: a body whose Content-Length is past the limit is refused
// before it is read, one that turns out longer when read is refused then (413 either way). what names the body
// in messages ("request body"); a body that cannot be read is a 400 of the given code.
func readBody(r *http.Request, limit int64, what, code string) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, bodyTooLarge(what, limit, nil)
	}
	reader := r.Body
	if limit < math.MaxInt64 {
		reader = io.NopCloser(io.LimitReader(r.Body, limit+1))
	}
	body, err := io.ReadAll(reader)
	if err != nil {
		return nil, bodyReadError(err, code, "The "+what+" could not be read.")
	}
	if int64(len(body)) > limit {
		return nil, bodyTooLarge(what, limit, nil)
	}
	return body, nil
}

func checkJSONContentType(r *http.Request) error {
	contentType := r.Header.Get("Content-Type")
	mediaType, _, err := mime.ParseMediaType(contentType)
	if contentType == "" || err != nil || mediaType != "application/json" {
		return &Error{Code: CodeUnsupportedMediaType,
			Message: "The request body must be JSON, sent with Content-Type: application/json."}
	}
	return nil
}

// parseObject splits a JSON object into its members, in order.
func parseObject(body []byte) ([]member, error) {
	tokens := json.NewDecoder(bytes.NewReader(body))
	tokens.UseNumber()
	token, err := tokens.Token()
	if err != nil {
		return nil, invalidJSON(err)
	}
	if d, ok := token.(json.Delim); !ok || d != '{' {
		return nil, BadRequest(CodeInvalidJSON, "", "The request body must be a JSON object.")
	}
	var out []member
	for tokens.More() {
		token, err := tokens.Token()
		if err != nil {
			return nil, invalidJSON(err)
		}
		name, _ := token.(string)
		var raw json.RawMessage
		if err := tokens.Decode(&raw); err != nil {
			return nil, invalidJSON(err)
		}
		out = append(out, member{name: name, raw: raw})
	}
	if _, err := tokens.Token(); err != nil {
		return nil, invalidJSON(err)
	}
	if _, err := tokens.Token(); err != io.EOF {
		return nil, BadRequest(CodeInvalidJSON, "", "The request body must hold one JSON object and nothing after it.")
	}
	return out, nil
}

func invalidJSON(err error) *Error {
	msg := "The request body is not valid JSON"
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		msg += fmt.Sprintf(" (at byte %d: %s)", syntaxErr.Offset, syntaxErr.Error())
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
	storage    edm.DecimalStorage // a Decimal property's (edm.DecimalAuto for a parameter)
	time       edm.TimeStorage    // a DateTimeOffset or TimeOfDay property's (edm.TimeAuto for a parameter)
}

func propType(p *edm.Property) valueType {
	return valueType{name: p.Name, kind: p.Type, enum: p.Enum, complex: p.Complex, collection: p.Collection,
		nullable: p.Nullable, maxLength: p.MaxLength, precision: p.Precision, scale: p.Scale, storage: p.DecimalStorage,
		time: p.TimeStorage}
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

// primitive decodes a primitive or enum value; raw is not null.
func (d *decoder) primitive(t valueType, target string, raw json.RawMessage) (any, bool) {
	var v any
	var refused *ErrorDetail
	switch {
	case t.enum != nil:
		v, refused = decodeEnum(t, target, raw)
	case int(t.kind) < len(primitiveDecoders) && primitiveDecoders[t.kind] != nil:
		v, refused = primitiveDecoders[t.kind](t, target, raw)
	default:
		refused = detailf(CodeInvalidValue, target, "%s cannot be set.", target)
	}
	if refused != nil {
		d.details = append(d.details, *refused)
		return nil, false
	}
	return v, true
}

// primitiveDecoder decodes the JSON text raw (not null) of a value of one primitive kind, or returns the detail
// that says why the value is refused.
type primitiveDecoder func(t valueType, target string, raw json.RawMessage) (any, *ErrorDetail)

// primitiveDecoders has the decoder of each primitive kind, indexed by kind. The kinds from Date on travel as
// JSON strings in the text form their edm parser reads.
var primitiveDecoders = [...]primitiveDecoder{
	edm.KindString:         decodeString,
	edm.KindBoolean:        decodeBoolean,
	edm.KindByte:           decodeInteger,
	edm.KindSByte:          decodeInteger,
	edm.KindInt16:          decodeInteger,
	edm.KindInt32:          decodeInteger,
	edm.KindInt64:          decodeInteger,
	edm.KindDecimal:        decodeDecimal,
	edm.KindDouble:         decodeFloat,
	edm.KindSingle:         decodeFloat,
	edm.KindDate:           decodeText("date (YYYY-MM-DD)", func(s string) (any, error) { return edm.ParseDate(s) }),
	edm.KindTimeOfDay:      decodeText("time of day (HH:MM:SS)", func(s string) (any, error) { return edm.ParseTimeOfDay(s) }),
	edm.KindDateTimeOffset: decodeDateTimeOffset,
	edm.KindDuration:       decodeText("duration (such as P1DT2H)", func(s string) (any, error) { return edm.ParseDuration(s) }),
	edm.KindGuid:           decodeText("GUID", func(s string) (any, error) { return edm.ParseGuid(s) }),
	edm.KindBinary:         decodeBinary,
	edm.KindStream:         decodeBinary,
}

// detailf returns the detail of a refused value.
func detailf(code, target, format string, args ...any) *ErrorDetail {
	return &ErrorDetail{Code: code, Target: target, Message: fmt.Sprintf(format, args...)}
}

// invalid refuses the value of target: it is not a valid what ("date (YYYY-MM-DD)").
func invalid(target, what string) *ErrorDetail {
	return detailf(CodeInvalidValue, target, "%s is not a valid %s.", target, what)
}

// notNumber refuses the value of target: it is not a JSON number.
func notNumber(target string) *ErrorDetail {
	return detailf(CodeTypeMismatch, target, "%s must be a JSON number.", target)
}

// isJSONString and isJSONNumber tell the JSON type of a value's text by its first byte.
func isJSONString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }

func isJSONNumber(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// jsonText returns the Go string of a JSON string; a value of another JSON type is a TypeMismatch.
func jsonText(target string, raw json.RawMessage) (string, *ErrorDetail) {
	var s string
	if !isJSONString(raw) || json.Unmarshal(raw, &s) != nil {
		return "", detailf(CodeTypeMismatch, target, "%s must be a JSON string.", target)
	}
	return s, nil
}

// decodeEnum decodes a member of an enum type: its name as a JSON string, or its value as a number.
func decodeEnum(t valueType, target string, raw json.RawMessage) (any, *ErrorDetail) {
	var s string
	switch {
	case isJSONString(raw):
		var refused *ErrorDetail
		if s, refused = jsonText(target, raw); refused != nil {
			return nil, refused
		}
	case isJSONNumber(raw):
		s = string(raw)
	default:
		return nil, detailf(CodeTypeMismatch, target, "%s must be a JSON string naming a member of %s.", target, t.enum.Name)
	}
	v, err := t.enum.Parse(s)
	if err != nil {
		return nil, invalid(target, t.enum.Name+" value")
	}
	return v, nil
}

// decodeString decodes a string of at most t.maxLength characters (when set) without the NUL character, which
// PostgreSQL's text cannot hold (refused on every database alike).
func decodeString(t valueType, target string, raw json.RawMessage) (any, *ErrorDetail) {
	s, refused := jsonText(target, raw)
	switch {
	case refused != nil:
		return nil, refused
	case strings.IndexByte(s, 0) >= 0:
		return nil, detailf(CodeInvalidValue, target, "%s must not contain the NUL character (\\u0000).", target)
	case t.maxLength > 0 && utf8.RuneCountInString(s) > t.maxLength:
		return nil, detailf(CodeInvalidValue, target, "%s must be at most %d characters long.", target, t.maxLength)
	}
	return s, nil
}

func decodeBoolean(_ valueType, target string, raw json.RawMessage) (any, *ErrorDetail) {
	switch string(raw) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return nil, detailf(CodeTypeMismatch, target, "%s must be true or false.", target)
}

// decodeInteger decodes an integer in the range of its kind: a JSON number, or for Int64 also a JSON string
// (IEEE754Compatible clients send those).
func decodeInteger(t valueType, target string, raw json.RawMessage) (any, *ErrorDetail) {
	text := string(raw)
	if isJSONString(raw) && t.kind == edm.KindInt64 {
		var refused *ErrorDetail
		if text, refused = jsonText(target, raw); refused != nil {
			return nil, refused
		}
	} else if !isJSONNumber(raw) {
		return nil, notNumber(target)
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return nil, invalid(target, "integer")
	}
	if lo, hi := intRange(t.kind); n < lo || n > hi {
		return nil, detailf(CodeInvalidValue, target, "%s must be between %d and %d.", target, lo, hi)
	}
	return n, nil
}

// decodeDecimal decodes a decimal number, a JSON number or string, within the scale and precision of t.
func decodeDecimal(t valueType, target string, raw json.RawMessage) (any, *ErrorDetail) {
	text := string(raw)
	if isJSONString(raw) {
		var refused *ErrorDetail
		if text, refused = jsonText(target, raw); refused != nil {
			return nil, refused
		}
	} else if !isJSONNumber(raw) {
		return nil, notNumber(target)
	}
	m, err := decimal.NewFromString(text)
	if err != nil {
		return nil, invalid(target, "decimal number")
	}
	if refused := checkDecimal(t, target, m); refused != nil {
		return nil, refused
	}
	return m, nil
}

// checkDecimal refuses a decimal that has more decimal places than the scale of t, more digits before the
// decimal point than its precision allows, or that one of the databases cannot hold: where SQLite stores it as
// the integer value x 10^scale (edm.DecimalStorage.Scaled), that integer must fit in 64 bits on both databases
// (NUMERIC(19,4) on PostgreSQL holds more).
func checkDecimal(t valueType, target string, m decimal.Decimal) *ErrorDetail {
	scale := int32(t.scale)
	if !m.Shift(scale).IsInteger() {
		return detailf(CodeInvalidValue, target, "%s must have at most %d decimal places.", target, t.scale)
	}
	if t.precision > 0 {
		intDigits := len(m.Truncate(0).Abs().String())
		if m.Abs().LessThan(decimal.New(1, 0)) {
			intDigits = 0
		}
		if intDigits > t.precision-t.scale {
			return detailf(CodeInvalidValue, target, "%s is out of range (at most %d digits before the decimal point).", target, t.precision-t.scale)
		}
	}
	if t.storage.Scaled(t.precision) && !m.Shift(scale).BigInt().IsInt64() {
		return detailf(CodeInvalidValue, target, "%s is out of range (from %s to %s).", target,
			decimal.New(math.MinInt64, -scale).StringFixed(scale), decimal.New(math.MaxInt64, -scale).StringFixed(scale))
	}
	return nil
}

// decodeFloat decodes a Double or Single: a JSON number, or the JSON strings "NaN", "INF" and "-INF".
func decodeFloat(t valueType, target string, raw json.RawMessage) (any, *ErrorDetail) {
	if isJSONString(raw) {
		s, _ := jsonText(target, raw)
		switch s {
		case "NaN":
			return math.NaN(), nil
		case "INF":
			return math.Inf(1), nil
		case "-INF":
			return math.Inf(-1), nil
		}
		return nil, notNumber(target)
	}
	if !isJSONNumber(raw) {
		return nil, notNumber(target)
	}
	bits := 64
	if t.kind == edm.KindSingle {
		bits = 32
	}
	f, err := strconv.ParseFloat(string(raw), bits)
	if err != nil {
		return nil, invalid(target, "number")
	}
	return f, nil
}

// decodeText returns the decoder of a kind that travels as a JSON string, which parse reads; what names the
// form in the message of a value parse refuses.
func decodeText(what string, parse func(string) (any, error)) primitiveDecoder {
	return func(_ valueType, target string, raw json.RawMessage) (any, *ErrorDetail) {
		s, refused := jsonText(target, raw)
		if refused != nil {
			return nil, refused
		}
		v, err := parse(s)
		if err != nil {
			return nil, invalid(target, what)
		}
		return v, nil
	}
}

// decodeDateTimeOffset decodes an RFC 3339 date and time; a column of whole seconds (edm.TimeUnix) takes no
// fraction of a second.
func decodeDateTimeOffset(t valueType, target string, raw json.RawMessage) (any, *ErrorDetail) {
	v, refused := decodeText("date and time (RFC 3339, such as 2026-11-22T01:02:03Z)", parseDateTimeOffset)(t, target, raw)
	if refused == nil && t.time == edm.TimeUnix && v.(time.Time).Nanosecond() != 0 {
		return nil, detailf(CodeInvalidValue, target, "%s must be a whole second (its column holds seconds since 1970).", target)
	}
	return v, refused
}

// parseDateTimeOffset reads an RFC 3339 date and time, as UTC.
func parseDateTimeOffset(s string) (any, error) {
	v, err := time.Parse(time.RFC3339Nano, s)
	return v.UTC(), err
}

// decodeBinary decodes Binary and Stream values: base64url text (as OData JSON has it) or standard base64, at
// most t.maxLength bytes when it is set.
func decodeBinary(t valueType, target string, raw json.RawMessage) (any, *ErrorDetail) {
	s, refused := jsonText(target, raw)
	if refused != nil {
		return nil, refused
	}
	v, err := decodeBase64(s)
	if err != nil {
		return nil, invalid(target, "base64 text")
	}
	if t.maxLength > 0 && len(v) > t.maxLength {
		return nil, detailf(CodeInvalidValue, target, "%s must be at most %d bytes long.", target, t.maxLength)
	}
	return v, nil
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

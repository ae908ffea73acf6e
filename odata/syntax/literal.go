package syntax

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/storekit/store/odata/internal/temporal"
)

// literal converts a literal token into a Literal, checking ranges the lexer does not and the length limit.
func literal(t lexer.Token, lim *Limits) (*Literal, *Error) {
	l := &Literal{Pos: t.Pos.Offset, Text: t.Value}
	kind := t.Type
	if kind == tokenLiteral {
		kind = literalKind(t.Value)
	}
	if kind != tokenString && kind != tokenJSONString && utf8.RuneCountInString(t.Value) > lim.LiteralLength {
		return nil, literalTooLong(l.Pos, lim.LiteralLength)
	}
	var err *Error
	switch kind {
	case tokenNull:
		l.Kind = LitNull
	case tokenBoolean:
		l.Kind, l.Value = LitBool, t.Value == "true"
	case tokenInteger, tokenDecimal, tokenDouble:
		err = numberLiteral(l, kind)
	case tokenString, tokenJSONString:
		err = stringLiteral(l, kind, lim.LiteralLength)
	case tokenGUID:
		l.Kind, l.Value = LitGuid, strings.ToLower(t.Value)
	case tokenDate, tokenDateTime, tokenTimeOfDay:
		err = temporalLiteral(l, kind)
	case tokenTypedLiteral:
		err = typedLiteral(l)
	default:
		err = syntaxErrorAt(l.Pos, "expected literal, found "+describe(t))
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// numberLiteral sets the value of an integer, decimal or double literal. An integer outside the Int64 range is
// a decimal.
func numberLiteral(l *Literal, kind lexer.TokenType) *Error {
	if kind == tokenInteger {
		if n, err := strconv.ParseInt(l.Text, 10, 64); err == nil {
			l.Kind, l.Value = LitInt, n
			return nil
		}
	}
	if kind != tokenDouble {
		l.Kind, l.Value = LitDecimal, strings.TrimPrefix(l.Text, "+")
		return nil
	}
	l.Kind = LitDouble
	switch l.Text {
	case "INF":
		l.Value = math.Inf(1)
	case "-INF":
		l.Value = math.Inf(-1)
	case "NaN":
		l.Value = math.NaN()
	default:
		f, err := strconv.ParseFloat(l.Text, 64)
		if err != nil {
			return syntaxErrorAt(l.Pos, "double literal out of range: "+l.Text)
		}
		l.Value = f
	}
	return nil
}

// literalTooLong is the error for a literal past the limit (Limits.LiteralLength): its value (a string's text
// without the quotes) holds more than limit characters.
func literalTooLong(off, limit int) *Error {
	return limitErrorAt(off, fmt.Sprintf("the literal exceeds the limit of %d characters", limit))
}

// stringLiteral sets the value of a '...' literal or of a "..." JSON string of at most limit characters.
func stringLiteral(l *Literal, kind lexer.TokenType, limit int) *Error {
	var text string
	if kind == tokenString {
		text = unquote(l.Text)
	} else if err := json.Unmarshal([]byte(l.Text), &text); err != nil {
		return syntaxErrorAt(l.Pos, "invalid JSON string")
	}
	if !utf8.ValidString(text) {
		return syntaxErrorAt(l.Pos, "the string is not UTF-8 text")
	}
	if utf8.RuneCountInString(text) > limit {
		return literalTooLong(l.Pos, limit)
	}
	l.Kind, l.Value = LitString, text
	return nil
}

// temporalLiteral sets the value of a date, date-time or time-of-day literal.
func temporalLiteral(l *Literal, kind lexer.TokenType) *Error {
	var ok bool
	switch kind {
	case tokenDate:
		l.Kind = LitDate
		l.Value, ok = parseDate(l.Text)
		if !ok {
			return syntaxErrorAt(l.Pos, "invalid date: "+l.Text)
		}
	case tokenDateTime:
		l.Kind = LitDateTimeOffset
		l.Value, ok = parseDateTime(l.Text)
		if !ok {
			return syntaxErrorAt(l.Pos, "invalid date-time: "+l.Text)
		}
	default:
		l.Kind = LitTimeOfDay
		l.Value, ok = temporal.ParseTimeOfDay(l.Text)
		if !ok {
			return syntaxErrorAt(l.Pos, "invalid time of day: "+l.Text)
		}
	}
	return nil
}

// literalKind recovers the lexer's classification of a literal token from its text (the lexer has checked
// the form already, so the first distinguishing character decides).
func literalKind(v string) lexer.TokenType {
	switch {
	case v == "":
		return 0
	case v[0] == '\'':
		return tokenString
	case v == "null":
		return tokenNull
	case v == "true" || v == "false":
		return tokenBoolean
	case v == "INF" || v == "-INF" || v == "NaN":
		return tokenDouble
	case strings.IndexByte(v, '\'') > 0:
		return tokenTypedLiteral
	case strings.IndexByte(v, ':') >= 0:
		if strings.IndexByte(v, 'T') >= 0 {
			return tokenDateTime
		}
		return tokenTimeOfDay
	case len(v) == 36 && v[8] == '-' && v[13] == '-' && v[18] == '-' && v[23] == '-':
		return tokenGUID
	case strings.IndexAny(v, "eE") >= 0:
		return tokenDouble
	case strings.IndexByte(v[1:], '-') >= 0:
		return tokenDate
	case strings.IndexByte(v, '.') >= 0:
		return tokenDecimal
	}
	return tokenInteger
}

// unquote strips the quotes of a '...' literal and resolves doubled quotes.
func unquote(s string) string {
	if len(s) < 2 {
		return ""
	}
	s = s[1 : len(s)-1]
	if strings.Contains(s, "''") {
		s = strings.ReplaceAll(s, "''", "'")
	}
	return s
}

// typedLiteral handles prefix'...' literals: binary, duration, geography, geometry and enums.
func typedLiteral(l *Literal) *Error {
	q := strings.IndexByte(l.Text, '\'')
	prefix, body := l.Text[:q], unquote(l.Text[q:])
	if signed := bodySigns(prefix, body); signed != body {
		body = signed
		l.Text = prefix + "'" + strings.ReplaceAll(body, "'", "''") + "'"
	}
	switch strings.ToLower(prefix) {
	case "binary", "x":
		b, ok := decodeBinary(body)
		if !ok {
			return syntaxErrorAt(l.Pos, "invalid base64url in binary literal")
		}
		l.Kind, l.Value = LitBinary, b
	case "duration":
		d, err := temporal.ParseDuration(body)
		if err != nil {
			return syntaxErrorAt(l.Pos, "invalid duration: "+body)
		}
		l.Kind, l.Value = LitDuration, d
	case "geography":
		l.Kind, l.Value = LitGeography, body
	case "geometry":
		l.Kind, l.Value = LitGeometry, body
	default:
		if strings.IndexByte(prefix, '.') < 0 {
			return syntaxErrorAt(l.Pos, "unknown literal prefix "+strconv.Quote(prefix))
		}
		if body == "" {
			return syntaxErrorAt(l.Pos, "empty enum literal")
		}
		for _, m := range strings.Split(body, ",") {
			if !isEnumMember(m) {
				return syntaxErrorAt(l.Pos, "invalid enum member "+strconv.Quote(m))
			}
		}
		l.Kind, l.Type, l.Value = LitEnum, prefix, body
	}
	return nil
}

// bodySigns returns the body of a prefix'body' literal with a space where the grammar allows a sign turned into
// "+" (a duration's sign, the sign of an enum member given as a number): that is how an unencoded "+" reads in a
// query string. It returns body itself when there is none.
func bodySigns(prefix, body string) string {
	if strings.IndexByte(body, ' ') < 0 {
		return body
	}
	if strings.EqualFold(prefix, "duration") {
		return spaceAsSign(body, func(c byte) bool { return c == 'P' || c == 'p' })
	}
	if strings.IndexByte(prefix, '.') < 0 {
		return body // binary, geography, geometry: no sign
	}
	members := strings.Split(body, ",")
	for i, m := range members {
		members[i] = spaceAsSign(m, isDigit)
	}
	return strings.Join(members, ",")
}

// spaceAsSign returns s with a leading space turned into "+" when the character after it satisfies follows.
func spaceAsSign(s string, follows func(byte) bool) string {
	if len(s) < 2 || s[0] != ' ' || !follows(s[1]) {
		return s
	}
	return "+" + s[1:]
}

func isEnumMember(m string) bool {
	if m == "" {
		return false
	}
	if isIdentifierStart(m[0]) {
		for i := 1; i < len(m); i++ {
			if !isIdentifierPart(m[i]) {
				return false
			}
		}
		return true
	}
	_, err := strconv.ParseInt(m, 10, 64)
	return err == nil
}

func decodeBinary(s string) ([]byte, bool) {
	t := strings.TrimRight(s, "=")
	if b, err := base64.RawURLEncoding.DecodeString(t); err == nil {
		return b, true
	}
	if b, err := base64.RawStdEncoding.DecodeString(t); err == nil {
		return b, true
	}
	return nil, false
}

// parseDate parses [-]yyyy-mm-dd (more year digits allowed) into midnight UTC.
func parseDate(s string) (time.Time, bool) {
	year, month, day, ok := temporal.ParseDate(s)
	if !ok {
		return time.Time{}, false
	}
	return time.Date(year, month, day, 0, 0, 0, 0, time.UTC), true
}

// parseDateTime parses date "T" time ("Z" / sign hh:mm).
func parseDateTime(s string) (time.Time, bool) {
	t := strings.IndexByte(s, 'T')
	if t < 0 {
		return time.Time{}, false
	}
	date, ok := parseDate(s[:t])
	if !ok {
		return time.Time{}, false
	}
	clock, zone := s[t+1:], "Z"
	switch {
	case strings.HasSuffix(clock, "Z"):
		clock = clock[:len(clock)-1]
	case len(clock) > 6 && (clock[len(clock)-6] == '+' || clock[len(clock)-6] == '-'):
		clock, zone = clock[:len(clock)-6], clock[len(clock)-6:]
	default:
		return time.Time{}, false
	}
	sinceMidnight, ok := temporal.ParseTimeOfDay(clock)
	if !ok {
		return time.Time{}, false
	}
	location := time.UTC
	if zone != "Z" {
		// The offset hh:mm has the form and range of a time of day.
		offset, ok := temporal.ParseTimeOfDay(zone[1:])
		if !ok {
			return time.Time{}, false
		}
		seconds := int(offset / time.Second)
		if zone[0] == '-' {
			seconds = -seconds
		}
		location = time.FixedZone(zone, seconds)
	}
	year, month, day := date.Date()
	return time.Date(year, month, day, 0, 0, 0, 0, location).Add(sinceMidnight), true
}

// checkText refuses a search term (percent-decoded) that is not UTF-8 text or holds the NUL character: terms are
// matched against columns, which cannot hold it, and PostgreSQL refuses to compare with it, so every database
// answers the same. A string literal may hold NUL (a parameter of a function, an alias): the planner refuses it
// where the value would reach the database.
func checkText(s string, off int) *Error {
	if !utf8.ValidString(s) {
		return syntaxErrorAt(off, "the string is not UTF-8 text")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return syntaxErrorAt(off, "the string holds the NUL character %00")
	}
	return nil
}

package syntax

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// literal converts a literal token into a Literal, checking ranges the lexer does not.
func literal(t lexer.Token) (*Literal, *Error) {
	off := t.Pos.Offset
	l := &Literal{Pos: off, Text: t.Value}
	kind := t.Type
	if kind == tLit {
		kind = literalKind(t.Value)
	}
	switch kind {
	case tNull:
		l.Kind = LitNull
	case tBool:
		l.Kind, l.Value = LitBool, t.Value == "true"
	case tInt:
		if n, err := strconv.ParseInt(t.Value, 10, 64); err == nil {
			l.Kind, l.Value = LitInt, n
		} else {
			l.Kind, l.Value = LitDecimal, strings.TrimPrefix(t.Value, "+")
		}
	case tDecimal:
		l.Kind, l.Value = LitDecimal, strings.TrimPrefix(t.Value, "+")
	case tDouble:
		l.Kind = LitDouble
		switch t.Value {
		case "INF":
			l.Value = math.Inf(1)
		case "-INF":
			l.Value = math.Inf(-1)
		case "NaN":
			l.Value = math.NaN()
		default:
			f, err := strconv.ParseFloat(t.Value, 64)
			if err != nil {
				return nil, errAt(off, "double literal out of range: "+t.Value)
			}
			l.Value = f
		}
	case tString:
		s := unquote(t.Value)
		if err := checkText(s, off); err != nil {
			return nil, err
		}
		l.Kind, l.Value = LitString, s
	case tJSONString:
		var s string
		if err := json.Unmarshal([]byte(t.Value), &s); err != nil {
			return nil, errAt(off, "invalid JSON string")
		}
		if err := checkText(s, off); err != nil {
			return nil, err
		}
		l.Kind, l.Value = LitString, s
	case tGuid:
		l.Kind, l.Value = LitGuid, strings.ToLower(t.Value)
	case tDate:
		d, ok := parseDate(t.Value)
		if !ok {
			return nil, errAt(off, "invalid date: "+t.Value)
		}
		l.Kind, l.Value = LitDate, d
	case tDateTime:
		d, ok := parseDateTime(t.Value)
		if !ok {
			return nil, errAt(off, "invalid date-time: "+t.Value)
		}
		l.Kind, l.Value = LitDateTimeOffset, d
	case tTime:
		d, ok := parseTimeOfDay(t.Value)
		if !ok {
			return nil, errAt(off, "invalid time of day: "+t.Value)
		}
		l.Kind, l.Value = LitTimeOfDay, d
	case tTyped:
		return typedLiteral(l)
	default:
		return nil, errAt(off, "expected literal, found "+describe(t))
	}
	return l, nil
}

// literalKind recovers the lexer's classification of a literal token from its text (the lexer has checked
// the form already, so the first distinguishing character decides).
func literalKind(v string) lexer.TokenType {
	switch {
	case v == "":
		return 0
	case v[0] == '\'':
		return tString
	case v == "null":
		return tNull
	case v == "true" || v == "false":
		return tBool
	case v == "INF" || v == "-INF" || v == "NaN":
		return tDouble
	case strings.IndexByte(v, '\'') > 0:
		return tTyped
	case strings.IndexByte(v, ':') >= 0:
		if strings.IndexByte(v, 'T') >= 0 {
			return tDateTime
		}
		return tTime
	case len(v) == 36 && v[8] == '-' && v[13] == '-' && v[18] == '-' && v[23] == '-':
		return tGuid
	case strings.IndexAny(v, "eE") >= 0:
		return tDouble
	case strings.IndexByte(v[1:], '-') >= 0:
		return tDate
	case strings.IndexByte(v, '.') >= 0:
		return tDecimal
	}
	return tInt
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
func typedLiteral(l *Literal) (*Literal, *Error) {
	q := strings.IndexByte(l.Text, '\'')
	prefix, body := l.Text[:q], unquote(l.Text[q:])
	switch strings.ToLower(prefix) {
	case "binary", "x":
		b, ok := decodeBinary(body)
		if !ok {
			return nil, errAt(l.Pos, "invalid base64url in binary literal")
		}
		l.Kind, l.Value = LitBinary, b
	case "duration":
		d, ok := parseDuration(body)
		if !ok {
			return nil, errAt(l.Pos, "invalid duration: "+body)
		}
		l.Kind, l.Value = LitDuration, d
	case "geography":
		l.Kind, l.Value = LitGeography, body
	case "geometry":
		l.Kind, l.Value = LitGeometry, body
	default:
		if strings.IndexByte(prefix, '.') < 0 {
			return nil, errAt(l.Pos, "unknown literal prefix "+strconv.Quote(prefix))
		}
		if body == "" {
			return nil, errAt(l.Pos, "empty enum literal")
		}
		for _, m := range strings.Split(body, ",") {
			if !isEnumMember(m) {
				return nil, errAt(l.Pos, "invalid enum member "+strconv.Quote(m))
			}
		}
		l.Kind, l.Type, l.Value = LitEnum, prefix, body
	}
	return l, nil
}

func isEnumMember(m string) bool {
	if m == "" {
		return false
	}
	if isIdentStart(m[0]) {
		for i := 1; i < len(m); i++ {
			if !isIdentChar(m[i]) {
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

func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// parseDate parses [-]yyyy-mm-dd (more year digits allowed).
func parseDate(s string) (time.Time, bool) {
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	} else if strings.HasPrefix(s, "+") {
		return time.Time{}, false
	}
	parts := strings.Split(s, "-")
	if len(parts) != 3 || len(parts[0]) < 4 || len(parts[1]) != 2 || len(parts[2]) != 2 {
		return time.Time{}, false
	}
	y, ok1 := atoi(parts[0])
	m, ok2 := atoi(parts[1])
	d, ok3 := atoi(parts[2])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	if neg {
		y = -y
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return time.Time{}, false
	}
	return t, true
}

// parseTimeOfDay parses hh:mm[:ss[.fffffffff]] into a duration since midnight.
func parseTimeOfDay(s string) (time.Duration, bool) {
	if len(s) < 5 || s[2] != ':' {
		return 0, false
	}
	h, ok1 := atoi(s[0:2])
	m, ok2 := atoi(s[3:5])
	if !ok1 || !ok2 || h > 23 || m > 59 {
		return 0, false
	}
	d := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute
	s = s[5:]
	if s == "" {
		return d, true
	}
	if len(s) < 3 || s[0] != ':' {
		return 0, false
	}
	sec, ok := atoi(s[1:3])
	if !ok || sec > 59 {
		return 0, false
	}
	d += time.Duration(sec) * time.Second
	s = s[3:]
	if s == "" {
		return d, true
	}
	if s[0] != '.' || len(s) < 2 || len(s) > 13 {
		return 0, false
	}
	frac := s[1:]
	var ns int64
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(frac) {
			if !isDigit(frac[i]) {
				return 0, false
			}
			ns += int64(frac[i] - '0')
		}
	}
	for i := 9; i < len(frac); i++ {
		if !isDigit(frac[i]) {
			return 0, false
		}
	}
	return d + time.Duration(ns), true
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
	rest := s[t+1:]
	var zone string
	switch {
	case strings.HasSuffix(rest, "Z"):
		rest, zone = rest[:len(rest)-1], "Z"
	case len(rest) > 6 && (rest[len(rest)-6] == '+' || rest[len(rest)-6] == '-'):
		rest, zone = rest[:len(rest)-6], rest[len(rest)-6:]
	default:
		return time.Time{}, false
	}
	tod, ok := parseTimeOfDay(rest)
	if !ok {
		return time.Time{}, false
	}
	loc := time.UTC
	if zone != "Z" {
		h, ok1 := atoi(zone[1:3])
		m, ok2 := atoi(zone[4:6])
		if !ok1 || !ok2 || zone[3] != ':' || h > 23 || m > 59 {
			return time.Time{}, false
		}
		secs := h*3600 + m*60
		if zone[0] == '-' {
			secs = -secs
		}
		loc = time.FixedZone(zone, secs)
	}
	y, mo, d := date.Date()
	return time.Date(y, mo, d, 0, 0, 0, 0, loc).Add(tod), true
}

// parseDuration parses an xsd:dayTimeDuration: [-]P[nD][T[nH][nM][n[.f]S]], exactly (integer nanoseconds).
func parseDuration(s string) (time.Duration, bool) {
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	if !strings.HasPrefix(s, "P") || len(s) < 2 {
		return 0, false
	}
	s = s[1:]
	var total int64
	add := func(n, unit int64) bool {
		if n > math.MaxInt64/unit || total > math.MaxInt64-n*unit {
			return false
		}
		total += n * unit
		return true
	}
	inTime, seen := false, false
	order := 0 // D=1, H=2, M=3, S=4: units must appear in this order, each at most once
	for len(s) > 0 {
		if s[0] == 'T' {
			if inTime || len(s) == 1 {
				return 0, false
			}
			inTime = true
			s = s[1:]
			continue
		}
		i := 0
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == 0 || i > 18 || i == len(s) {
			return 0, false
		}
		n, _ := strconv.ParseInt(s[:i], 10, 64)
		var frac int64
		if s[i] == '.' {
			j := i + 1
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			digits := s[i+1 : j]
			if digits == "" || j == len(s) || s[j] != 'S' || !inTime {
				return 0, false
			}
			for k := 0; k < 9; k++ {
				frac *= 10
				if k < len(digits) {
					frac += int64(digits[k] - '0')
				}
			}
			i = j
		}
		unit, u := s[i], 0
		switch {
		case unit == 'D' && !inTime:
			u = 1
		case unit == 'H' && inTime:
			u = 2
		case unit == 'M' && inTime:
			u = 3
		case unit == 'S' && inTime:
			u = 4
		default:
			return 0, false
		}
		if u <= order {
			return 0, false
		}
		order = u
		mult := [...]int64{0, int64(24 * time.Hour), int64(time.Hour), int64(time.Minute), int64(time.Second)}[u]
		if !add(n, mult) || !add(frac, 1) {
			return 0, false
		}
		s = s[i+1:]
		seen = true
	}
	if !seen {
		return 0, false
	}
	d := time.Duration(total)
	if neg {
		d = -d
	}
	return d, true
}

// checkText refuses a string value (percent-decoded) that is not UTF-8 text or holds the NUL character: no
// database column could match it, and PostgreSQL refuses to compare with it, so every database answers the same.
func checkText(s string, off int) *Error {
	if !utf8.ValidString(s) {
		return errAt(off, "the string is not UTF-8 text")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return errAt(off, "the string holds the NUL character %00")
	}
	return nil
}

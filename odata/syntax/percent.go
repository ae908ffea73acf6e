package syntax

import "strings"

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// hexValue returns the value of the hexadecimal digit c.
func hexValue(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// decodeAt returns the decoded character at raw offset i and its raw width (3 for %XX, else 1; 0 at the end).
// A '%' that does not start a valid escape is returned as '%' with width 1; callers reject it.
func decodeAt(s string, i int) (byte, int) {
	if i >= len(s) {
		return 0, 0
	}
	c := s[i]
	if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
		return hexValue(s[i+1])<<4 | hexValue(s[i+2]), 3
	}
	return c, 1
}

// Unescape decodes a part of a raw query string as ParseQuery does: a '+' is a space (form encoding), %XX with
// two hex digits is one byte, anything else (a '%' without them) stays as it is. It returns s itself when there
// is nothing to do.
func Unescape(s string) string { return decode(formSpaces(s)) }

// formSpaces reads every '+' of raw query text as the space form encoding writes it (Go's url.Values, curl
// --data-urlencode, Python's urlencode and browsers' URLSearchParams send a space as '+' and a plus sign as %2B).
// It runs before percent-decoding, so %2B stays a plus. The result is as long as s, so offsets into it are
// offsets into s; it is s itself when s has no '+'.
func formSpaces(s string) string { return strings.ReplaceAll(s, "+", " ") }

// decode percent-decodes s (a '+' is left alone: query text has been through formSpaces, and in a resource path a
// plus is a plus). It returns s itself when there is nothing to do.
func decode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c, w := decodeAt(s, i)
		b.WriteByte(c)
		i += w
	}
	return b.String()
}

// indexDecoded returns the raw offset and raw width of the first character of s that decodes to c (c itself or
// its %XX escape), or -1 and 0.
func indexDecoded(s string, c byte) (int, int) {
	for i := 0; i < len(s); {
		d, w := decodeAt(s, i)
		if d == c {
			return i, w
		}
		i += w
	}
	return -1, 0
}

func validEscapes(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			return false
		}
	}
	return true
}

// escapeText writes decoded text so that the lexer reads it back unchanged: '%', '&', '#' and '+' are
// percent-encoded (a '%' would otherwise start an escape, '&' and '#' end a query option or URL, and a '+' in a
// query string is a space).
func escapeText(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '%':
			b.WriteString("%25")
		case '&':
			b.WriteString("%26")
		case '#':
			b.WriteString("%23")
		case '+':
			b.WriteString("%2B")
		default:
			b.WriteByte(c)
		}
	}
}

// writeLiteralSegment percent-encodes a key-as-segment so it stays one segment.
func writeLiteralSegment(b *strings.Builder, s string) {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '/' || c == '%' || c == '?' || c == '#' || c == '&' || c == '(' || c == ')' || c <= ' ' || c >= 0x7f:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		default:
			b.WriteByte(c)
		}
	}
}

// writeOptionText percent-encodes what would end an option value, and a '+' (which reads as a space).
func writeOptionText(b *strings.Builder, s string, sep byte) {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' || c == '&' || c == '#' || c == '+' || c == sep || c == '(' && sep == ';' || c == ')' && sep == ';' || c <= ' ' || c == 0x7f {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		} else {
			b.WriteByte(c)
		}
	}
}

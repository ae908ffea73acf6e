package odata

import (
	"strings"
	"unsafe"
)

// ETags are FNV-1a 64 hashes over the JSON of the ETag properties' values, each followed by a zero byte.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

// zero separates the values hashed into an ETag.
var zero = []byte{0}

func fnvAdd(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// appendETag appends the weak ETag of a hash: W/"0123456789abcdef".
func appendETag(b []byte, sum uint64) []byte {
	b = append(b, 'W', '/', '"')
	for i := 60; i >= 0; i -= 4 {
		b = append(b, hexDigits[(sum>>uint(i))&0xf])
	}
	return append(b, '"')
}

// appendETagJSON appends the ETag as a JSON string: "W/\"0123456789abcdef\"".
func appendETagJSON(b []byte, sum uint64) []byte {
	b = append(b, '"', 'W', '/', '\\', '"')
	for i := 60; i >= 0; i -= 4 {
		b = append(b, hexDigits[(sum>>uint(i))&0xf])
	}
	return append(b, '\\', '"', '"')
}

// formatETag returns the weak ETag of a hash as a header value.
func formatETag(sum uint64) string { return string(appendETag(make([]byte, 0, 21), sum)) }

// etagHeader returns the ETag header's value list for a hash in one allocation: the list and the text of its
// one value share it (the text is never changed after).
func etagHeader(sum uint64) []string {
	h := new(struct {
		values [1]string
		text   [21]byte
	})
	b := appendETag(h.text[:0], sum)
	h.values[0] = unsafe.String(unsafe.SliceData(b), len(b))
	return h.values[:]
}

// checkETagList answers 400 when the value of header (If-Match, If-None-Match) is neither "*" nor a
// comma-separated list of entity tags, each an optional W/ and a quoted opaque tag (RFC 9110, 8.8.3).
func checkETagList(header, list string) error {
	if validETagList(list) {
		return nil
	}
	return &Error{Code: CodeBadRequest, Target: header,
		Message: "The " + header + ` header must be "*" or a list of entity tags such as W/"0123456789abcdef".`}
}

// validETagList reports whether list is a comma-separated list of entity tags or "*" (empty elements allowed,
// as in every HTTP list).
func validETagList(list string) bool {
	elements := 0
	i := 0
	for {
		for i < len(list) && (list[i] == ',' || isListSpace(list[i])) {
			i++
		}
		if i == len(list) {
			return elements > 0
		}
		end, ok := entityTagEnd(list, i)
		if !ok {
			return false
		}
		elements++
		i = end
		for i < len(list) && isListSpace(list[i]) {
			i++
		}
		if i < len(list) && list[i] != ',' {
			return false
		}
	}
}

// isListSpace reports whether c is optional white space of HTTP.
func isListSpace(c byte) bool { return c == ' ' || c == '\t' }

// entityTagEnd returns the index after the entity tag (or "*") that starts at list[i].
func entityTagEnd(list string, i int) (int, bool) {
	if list[i] == '*' {
		return i + 1, true
	}
	if strings.HasPrefix(list[i:], "W/") {
		i += 2
	}
	if i == len(list) || list[i] != '"' {
		return 0, false
	}
	for i++; i < len(list); i++ {
		switch c := list[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x21 || c == 0x7f:
			return 0, false // etagc is %x21 / %x23-7E / obs-text
		}
	}
	return 0, false
}

package edm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SnakeCase returns the table or column name for a type or property name: words are lower-cased and joined
// with underscores. A word starts at an upper-case letter that follows a lower-case letter or a digit, or at the
// last upper-case letter of a run that is followed by a lower-case letter:
//
//	SeName -> se_name, FeaturedProductsOnHomaPage -> featured_products_on_homa_page, ID -> id,
//	CustomerGuid -> customer_guid, HTTPServer -> http_server, Address2 -> address2
//
// Existing underscores are kept (never doubled).
func SnakeCase(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 4)
	runes := []rune(name)
	for i, r := range runes {
		if unicode.IsUpper(r) {
			if i > 0 && runes[i-1] != '_' {
				prev := runes[i-1]
				nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					b.WriteByte('_')
				}
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// maxIdentifier is the longest simple identifier CSDL allows, in characters.
const maxIdentifier = 128

// isIdentifier reports whether s is a CSDL SimpleIdentifier: a letter or underscore followed by letters, digits,
// connectors and combining marks, at most 128 characters.
func isIdentifier(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > maxIdentifier {
		return false
	}
	for i, r := range s {
		if r == utf8.RuneError {
			return false
		}
		if r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) {
			continue
		}
		if i > 0 && (unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Pc, unicode.Cf)) {
			continue
		}
		return false
	}
	return true
}

// isNamespace reports whether s is a CSDL namespace: simple identifiers separated by dots, at most 511
// characters.
func isNamespace(s string) bool {
	if s == "" || len(s) > 511 {
		return false
	}
	for part := range strings.SplitSeq(s, ".") {
		if !isIdentifier(part) {
			return false
		}
	}
	return true
}

// maxSQLName is the longest table or column name accepted: PostgreSQL truncates identifiers beyond 63 bytes.
const maxSQLName = 63

// isSQLName reports whether s is an acceptable table or column name: ASCII letters, digits and underscores, not
// starting with a digit, at most 63 bytes. Generated SQL quotes every identifier anyway; the restriction keeps
// names portable and unsurprising.
func isSQLName(s string) bool {
	if s == "" || len(s) > maxSQLName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// reservedMember lists names a property, navigation property or parameter may not have, compared
// case-insensitively: they are literals or operators of the URL expression language, where a bare member name
// would be ambiguous.
var reservedMember = []string{"null", "true", "false", "INF", "NaN", "not", "bindingParameter"}

// isReservedMember reports whether name is reserved for members (see reservedMember).
func isReservedMember(name string) bool {
	for _, r := range reservedMember {
		if strings.EqualFold(name, r) {
			return true
		}
	}
	return false
}

// reservedNamespaces may not be used as the model's namespace (CSDL reserves them).
var reservedNamespaces = []string{"Edm", "odata", "System", "Transient"}

// foldRune maps r to the smallest rune of its simple case-folding orbit, so two strings are equal under
// strings.EqualFold exactly when their folded forms are equal byte for byte.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < m {
			m = f
		}
	}
	return m
}

// appendFold appends the case-folded form of s to dst. The folded form is never longer than s.
func appendFold(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, foldRune(r))
		i += n
	}
	return dst
}

// foldKey returns the case-folded form of s as a string (for building indexes; allocates).
func foldKey(s string) string { return string(appendFold(nil, s)) }

package odata

import (
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The databases aggregate collection properties into JSON arrays of scalars (see collectionSQL). This small
// scanner reads them without encoding/json's reflection: it calls fn for each item with its kind and text
// (strings unescaped into a reused buffer).

// itemKind is the JSON kind of an array item.
type itemKind uint8

const (
	itemNull itemKind = iota
	itemString
	itemNumber
	itemTrue
	itemFalse
)

var errArray = errors.New("odata: malformed aggregated collection")

// scanArray calls fn for each item of the JSON array text. scratch is reused for unescaped strings; the slice
// fn gets is valid only during the call.
func scanArray(text []byte, scratch []byte, fn func(k itemKind, v []byte) error) ([]byte, error) {
	i := skipSpace(text, 0)
	if i >= len(text) || text[i] != '[' {
		return scratch, errArray
	}
	i = skipSpace(text, i+1)
	if i < len(text) && text[i] == ']' {
		return scratch, nil
	}
	for {
		i = skipSpace(text, i)
		if i >= len(text) {
			return scratch, errArray
		}
		var err error
		switch c := text[i]; {
		case c == '"':
			var end int
			scratch, end, err = unquote(text, i, scratch[:0])
			if err != nil {
				return scratch, err
			}
			if err := fn(itemString, scratch); err != nil {
				return scratch, err
			}
			i = end
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(text) && (text[j] >= '0' && text[j] <= '9' || text[j] == '.' || text[j] == 'e' || text[j] == 'E' || text[j] == '+' || text[j] == '-') {
				j++
			}
			if err := fn(itemNumber, text[i:j]); err != nil {
				return scratch, err
			}
			i = j
		case hasWord(text, i, "null"):
			if err := fn(itemNull, nil); err != nil {
				return scratch, err
			}
			i += 4
		case hasWord(text, i, "true"):
			if err := fn(itemTrue, nil); err != nil {
				return scratch, err
			}
			i += 4
		case hasWord(text, i, "false"):
			if err := fn(itemFalse, nil); err != nil {
				return scratch, err
			}
			i += 5
		default:
			return scratch, errArray
		}
		i = skipSpace(text, i)
		if i >= len(text) {
			return scratch, errArray
		}
		switch text[i] {
		case ',':
			i++
		case ']':
			return scratch, nil
		default:
			return scratch, errArray
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

func hasWord(b []byte, i int, w string) bool { return len(b)-i >= len(w) && string(b[i:i+len(w)]) == w }

// unquote appends the unescaped content of the JSON string starting at b[i] (a quote) to out and returns the
// index after the closing quote.
func unquote(b []byte, i int, out []byte) ([]byte, int, error) {
	i++
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return out, i + 1, nil
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(b) {
			return out, 0, errArray
		}
		switch e := b[i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(b, i+2)
			if !ok {
				return out, 0, errArray
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(b, i+2); ok && i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						out = utf8.AppendRune(out, d)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return out, 0, errArray
		}
		i += 2
	}
	return out, 0, errArray
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	return rune(n), err == nil
}

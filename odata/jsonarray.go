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
		var err error
		if scratch, i, err = scanItem(text, skipSpace(text, i), scratch, fn); err != nil {
			return scratch, err
		}
		i = skipSpace(text, i)
		switch {
		case i < len(text) && text[i] == ',':
			i++
		case i < len(text) && text[i] == ']':
			return scratch, nil
		default:
			return scratch, errArray
		}
	}
}

// scanRows reads the JSON array of rows text, each row a JSON array of scalars: it calls item for each item
// with its place in the row, kind and text (valid only during the call), and row after each row with its number.
func scanRows(text []byte, item func(i int, k itemKind, v []byte) error, row func(n int) error) error {
	i := skipSpace(text, 0)
	if i >= len(text) || text[i] != '[' {
		return errArray
	}
	i = skipSpace(text, i+1)
	if i < len(text) && text[i] == ']' {
		return nil
	}
	var scratch []byte
	for n := 0; ; n++ {
		if i >= len(text) || text[i] != '[' {
			return errArray
		}
		i = skipSpace(text, i+1)
		for j := 0; i < len(text) && text[i] != ']'; j++ {
			if j > 0 {
				if text[i] != ',' {
					return errArray
				}
				i = skipSpace(text, i+1)
			}
			var err error
			if scratch, i, err = scanItem(text, i, scratch, func(k itemKind, v []byte) error { return item(j, k, v) }); err != nil {
				return err
			}
			i = skipSpace(text, i)
		}
		if i >= len(text) {
			return errArray
		}
		if err := row(n); err != nil {
			return err
		}
		i = skipSpace(text, i+1)
		switch {
		case i < len(text) && text[i] == ',':
			i = skipSpace(text, i+1)
		case i < len(text) && text[i] == ']':
			return nil
		default:
			return errArray
		}
	}
}

// literalItems are the items of an array that are JSON words.
var literalItems = [...]struct {
	word string
	kind itemKind
}{{"null", itemNull}, {"true", itemTrue}, {"false", itemFalse}}

// scanItem calls fn for the item that starts at text[i] and returns scratch and the index after the item.
func scanItem(text []byte, i int, scratch []byte, fn func(k itemKind, v []byte) error) ([]byte, int, error) {
	if i >= len(text) {
		return scratch, i, errArray
	}
	if c := text[i]; c == '"' {
		var end int
		var err error
		if scratch, end, err = unquote(text, i, scratch[:0]); err != nil {
			return scratch, i, err
		}
		return scratch, end, fn(itemString, scratch)
	} else if c == '-' || c >= '0' && c <= '9' {
		end := numberEnd(text, i+1)
		return scratch, end, fn(itemNumber, text[i:end])
	}
	for _, literal := range literalItems {
		if hasWord(text, i, literal.word) {
			return scratch, i + len(literal.word), fn(literal.kind, nil)
		}
	}
	return scratch, i, errArray
}

// numberEnd returns the index after the JSON number whose text goes on at text[j].
func numberEnd(text []byte, j int) int {
	for j < len(text) && (text[j] >= '0' && text[j] <= '9' || text[j] == '.' || text[j] == 'e' || text[j] == 'E' ||
		text[j] == '+' || text[j] == '-') {
		j++
	}
	return j
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

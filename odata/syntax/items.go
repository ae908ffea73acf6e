package syntax

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Items mode: $select and $expand. A "(" after an item starts a balanced blob that the option parser splits
// into nested options (or, in $select, parameter names).
func (s *scanner) nextItem() (lexer.Token, error) {
	if s.skipSpace() {
		return s.fail(s.cursor-1, "unexpected whitespace")
	}
	start := s.cursor
	c, w := decodeAt(s.source, s.cursor)
	if w == 0 {
		return s.token(tokenEOF, start, start, ""), nil
	}
	switch {
	case isIdentifierStart(c):
		end := s.scanWord(start, true)
		s.cursor = end
		word := s.text(start, end)
		if !utf8.ValidString(word) {
			return s.fail(start, "invalid UTF-8 in identifier")
		}
		return s.token(tokenIdentifier, start, end, word), nil
	case c == '@':
		return s.scanAt(start, w)
	case c == '$':
		return s.scanDollar(start, w)
	case c == '(':
		if err := s.pendBlob(start, w); err != nil {
			return lexer.Token{}, err
		}
		return s.Next()
	}
	s.cursor = start + w
	switch c {
	case '/':
		return s.token(tokenSlash, start, s.cursor, "/"), nil
	case ',':
		return s.token(tokenComma, start, s.cursor, ","), nil
	case '*':
		return s.token(tokenStar, start, s.cursor, "*"), nil
	case '.':
		return s.token(tokenDot, start, s.cursor, "."), nil
	}
	return s.fail(start, "unexpected "+describeByte(c))
}

func itemsExpect(prev lexer.TokenType, hasPrev bool) string {
	if !hasPrev || prev == tokenComma || prev == tokenSlash {
		return "name"
	}
	return `"," or "/"`
}

// parseItems lexes and parses a $select or $expand list.
func parseItems(source string, base int) (*grammarItems, *Error) {
	c, w := decodeAt(source, 0)
	if w == 0 {
		return nil, syntaxErrorAt(base, "expected name, found end of input")
	}
	if isSpace(c) {
		return nil, syntaxErrorAt(base, "expected name, found whitespace")
	}
	return parse(itemsParser, newScanner(source, base, modeItems), itemsExpect)
}

func itemSegment(s *grammarItemSegment) Segment {
	seg := Segment{Pos: s.Name.Pos.Offset, Name: s.Name.Value}
	if s.Star.Type != 0 {
		seg.Name += ".*"
	}
	return seg
}

func parseSelect(source string, base int, at nesting) ([]SelectItem, *Error) {
	g, err := parseItems(source, base)
	if err != nil {
		return nil, err
	}
	out := make([]SelectItem, 0, len(g.Items))
	for _, it := range g.Items {
		item := SelectItem{Pos: it.Segments[0].Name.Pos.Offset}
		for _, s := range it.Segments {
			if nameKind(s.Name) == tokenDollar {
				return nil, syntaxErrorAt(s.Name.Pos.Offset, "unexpected "+describe(s.Name)+" in $select")
			}
			item.Path = append(item.Path, itemSegment(s))
		}
		if it.Blob != nil {
			text, pos := it.Blob.Text.Value, it.Blob.Text.Pos.Offset
			if looksLikeOptions(text) {
				q, err := parseOptions(text, pos, selectOptions, at)
				if err != nil {
					return nil, err
				}
				item.Options = q
			} else {
				params, err := parameterNames(text, pos)
				if err != nil {
					return nil, err
				}
				last := &item.Path[len(item.Path)-1]
				last.Args = []ArgList{{Pos: it.Blob.Open.Pos.Offset, Args: params}}
			}
		}
		out = append(out, item)
	}
	return out, nil
}

// looksLikeOptions tells nested options ("$top=1;...", "@a=...", "top=1") from parameter names ("A,B").
func looksLikeOptions(text string) bool {
	c, _ := decodeAt(text, 0)
	if c == '$' || c == '@' {
		return true
	}
	for i := 0; i < len(text); {
		d, w := decodeAt(text, i)
		if d == '=' {
			return true
		}
		if !isIdentifierPart(d) {
			return false
		}
		i += w
	}
	return false
}

// parameterNames parses the parameter names of a function in $select, "A,B" (the comma may arrive as %2C), whose
// raw text starts at offset base.
func parameterNames(text string, base int) ([]Arg, *Error) {
	var out []Arg
	for pos := 0; ; {
		comma, commaWidth := indexDecoded(text[pos:], ',')
		end := len(text)
		if comma >= 0 {
			end = pos + comma
		}
		name := decode(text[pos:end])
		if !isIdentifier(name) {
			return nil, syntaxErrorAt(base+pos, "expected parameter name, found "+strconv.Quote(name))
		}
		out = append(out, Arg{Pos: base + pos, Value: &Path{Pos: base + pos, Segments: []Segment{{Pos: base + pos, Name: name}}}})
		if comma < 0 {
			return out, nil
		}
		pos = end + commaWidth
	}
}

// parseExpand parses a $expand value that starts at offset base; at.expand is the $expand nesting (1 at the top).
func parseExpand(source string, base int, at nesting) ([]ExpandItem, *Error) {
	if at.expand > at.limits.ExpandDepth {
		return nil, limitErrorAt(base, fmt.Sprintf("$expand depth exceeds the limit of %d", at.limits.ExpandDepth))
	}
	g, err := parseItems(source, base)
	if err != nil {
		return nil, err
	}
	out := make([]ExpandItem, 0, len(g.Items))
	for _, it := range g.Items {
		item, star, err := expandItemPath(it)
		if err != nil {
			return nil, err
		}
		if it.Blob != nil {
			if len(item.Path) == 1 && item.Path[0].Name == "$value" {
				return nil, syntaxErrorAt(it.Blob.Open.Pos.Offset, `unexpected "(" after $value`)
			}
			q, err := parseOptions(it.Blob.Text.Value, it.Blob.Text.Pos.Offset, expandItemOptions(item, star), at)
			if err != nil {
				return nil, err
			}
			item.Options = q
		}
		out = append(out, item)
	}
	return out, nil
}

// expandItemPath converts the path of an $expand item: navigations and type casts, "*" or $value alone, then
// /$ref or /$count. It reports whether the path ends with "*".
func expandItemPath(it *grammarItem) (item ExpandItem, star bool, err *Error) {
	item = ExpandItem{Pos: it.Segments[0].Name.Pos.Offset}
	for i, s := range it.Segments {
		last := i == len(it.Segments)-1
		n := s.Name
		if nameKind(n) == tokenDollar {
			switch {
			case n.Value == "$ref" && last && i > 0:
				item.Ref = true
				continue
			case n.Value == "$count" && last && i > 0 && !star:
				item.Count = true
				continue
			case n.Value == "$value" && len(it.Segments) == 1:
			default:
				return item, false, syntaxErrorAt(n.Pos.Offset, "unexpected "+describe(n)+" in $expand")
			}
		}
		if star {
			return item, false, syntaxErrorAt(n.Pos.Offset, `unexpected segment after "*"`)
		}
		star = n.Type == tokenStar
		item.Path = append(item.Path, itemSegment(s))
	}
	return item, star, nil
}

// expandItemOptions returns the nested options an $expand item may have.
func expandItemOptions(item ExpandItem, star bool) optionSet {
	switch {
	case item.Ref:
		return expandRefOptions
	case item.Count:
		return countOptions
	case star:
		return expandStarOptions
	}
	return expandOptions
}

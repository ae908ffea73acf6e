package syntax

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// ResourcePath is a parsed resource path: the segments after the service root. An empty path is the service
// root itself. Segment names are not resolved here: whether "Products" is an entity set, a navigation property,
// a function import or a key given as a segment is for the binder to decide with the model.
//
// The "$"-segments keep their name: "$metadata", "$batch", "$entity", "$all", "$crossjoin" (its entity set
// names as single-segment paths in Args[0]), "$count", "$value", "$ref", "$each", "$query" and "$filter"
// (its expression in Args[0]).
type ResourcePath struct {
	Segments []Segment
}

// String prints the path (without a leading "/").
func (p *ResourcePath) String() string {
	var b strings.Builder
	for i, s := range p.Segments {
		if i > 0 {
			b.WriteByte('/')
		}
		if s.Literal || s.Name == "$filter" {
			writeSegment(&b, s)
			continue
		}
		escapeText(&b, s.Name)
		for _, argumentList := range s.Args {
			b.WriteByte('(')
			for j, a := range argumentList.Args {
				if j > 0 {
					b.WriteByte(',')
				}
				if a.Name != "" {
					b.WriteString(a.Name)
					b.WriteByte('=')
				}
				if l, ok := a.Value.(*Literal); ok {
					// A "/" or "?" in a key literal would end the segment or the path.
					for k := 0; k < len(l.Text); k++ {
						switch c := l.Text[k]; c {
						case '/':
							b.WriteString("%2F")
						case '?':
							b.WriteString("%3F")
						default:
							escapeText(&b, l.Text[k:k+1])
						}
					}
					continue
				}
				writeExpr(&b, a.Value, 0)
			}
			b.WriteByte(')')
		}
	}
	return b.String()
}

var segmentParser = buildParser[grammarSegment]()

func pathExpect(prev lexer.TokenType, hasPrev bool) string {
	if !hasPrev {
		return "name"
	}
	switch prev {
	case tokenLeftParenthesis, tokenComma:
		return "key or parameter"
	case tokenEquals:
		return "literal or parameter alias"
	case tokenName:
		return `"(" or "/"`
	}
	return `"," or ")"`
}

// ParsePath parses a raw resource path relative to the service root, still percent-encoded
// ("Customers('O”Neil')/Orders", "Customers%28%27O%27%27Neil%27%29"). A leading and a trailing "/" are
// ignored. Errors are *Error values with Option "path". The most frequent paths, an entity set and an entity
// set with a simple key ("/Products", "/Products('k1')", "/Products(42)"), are read without the grammar, to the
// same result.
func ParsePath(raw string) (*ResourcePath, error) { return parseResourcePath(raw, defaultBounds) }

func parseResourcePath(raw string, lim *Limits) (*ResourcePath, error) {
	if p := parseSimplePath(raw, nil); p != nil {
		return p, nil
	}
	p, err := parsePath(raw, lim)
	if err != nil {
		err.Option = "path"
		return nil, err
	}
	return p, nil
}

// parseSimplePath parses the most frequent paths without the grammar: "/Set", "/Set('key')" and "/Set(123)" (an
// optional trailing "/"), whose key is letters, digits and "-_.@" only. It returns what parsePath returns for
// them, and nil for any other path, which parsePath then reads. The tree is made in into when it is not nil.
func parseSimplePath(raw string, into *simplePath) *ResourcePath {
	s := strings.TrimSuffix(raw, "/")
	if len(s) < 2 || s[0] != '/' {
		return nil
	}
	name, key, hasKey := strings.Cut(s[1:], "(")
	if !isASCIIIdentifier(name) {
		return nil
	}
	if !hasKey {
		p := into
		if p == nil {
			p = new(simplePath)
		}
		*p = simplePath{segment: [1]Segment{{Pos: 1, Name: name}}}
		p.path.Segments = p.segment[:]
		return &p.path
	}
	keyText, closed := strings.CutSuffix(key, ")")
	if !closed {
		return nil
	}
	keyPos := 1 + len(name) + 1
	var literal Literal
	if !simpleKeyLiteral(&literal, keyText, keyPos) {
		return nil
	}
	// One allocation holds the whole tree, as a read by key parses one on every request (none in into).
	p := into
	if p == nil {
		p = new(simplePath)
	}
	*p = simplePath{segment: [1]Segment{{Pos: 1, Name: name}}, literal: literal}
	p.arg[0] = Arg{Pos: keyPos, Value: &p.literal}
	p.args[0] = ArgList{Pos: keyPos - 1, Args: p.arg[:]}
	p.segment[0].Args = p.args[:]
	p.path.Segments = p.segment[:]
	return &p.path
}

// simplePath holds the nodes of a path parseSimplePath reads.
type simplePath struct {
	path    ResourcePath
	segment [1]Segment
	args    [1]ArgList
	arg     [1]Arg
	literal Literal
}

// simpleKeyLiteral reads the key of a simple path, at offset pos, into lit: a quoted string of letters, digits
// and "-_.@", or up to 18 digits (so the number fits an Int64). It reports false for any other text.
func simpleKeyLiteral(lit *Literal, text string, pos int) bool {
	if len(text) >= 2 && text[0] == '\'' && text[len(text)-1] == '\'' {
		value := text[1 : len(text)-1]
		for i := 0; i < len(value); i++ {
			if c := value[i]; !isASCIIAlphanumeric(c) && c != '-' && c != '_' && c != '.' && c != '@' {
				return false
			}
		}
		*lit = Literal{Pos: pos, Kind: LitString, Text: text, Value: value}
		return true
	}
	if text == "" || len(text) > 18 {
		return false
	}
	var n int64
	for i := 0; i < len(text); i++ {
		if !isDigit(text[i]) {
			return false
		}
		n = n*10 + int64(text[i]-'0')
	}
	*lit = Literal{Pos: pos, Kind: LitInt, Text: text, Value: n}
	return true
}

// isASCIIIdentifier reports whether s is an identifier of ASCII letters, digits and "_" (not a "$" segment).
func isASCIIIdentifier(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isASCIIAlphanumeric(s[i]) && s[i] != '_' {
			return false
		}
	}
	return true
}

func isASCIIAlphanumeric(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func parsePath(raw string, lim *Limits) (*ResourcePath, *Error) {
	base := 0
	if strings.HasPrefix(raw, "/") {
		base = 1
	}
	rp := &ResourcePath{}
	parts, splitError := splitPath(raw, base)
	if splitError != nil {
		return nil, splitError
	}
	for i, span := range parts {
		text := raw[span[0]:span[1]]
		if text == "" {
			if i == len(parts)-1 && i > 0 {
				break // trailing slash
			}
			if len(parts) == 1 {
				break // service root
			}
			return nil, syntaxErrorAt(span[0], "empty path segment")
		}
		seg, err := pathSegment(text, span[0], i == 0, lim)
		if err != nil {
			return nil, err
		}
		if err := checkSegmentOrder(rp.Segments, seg); err != nil {
			return nil, err
		}
		rp.Segments = append(rp.Segments, seg)
	}
	return rp, nil
}

// splitPath splits at "/" outside parentheses; inside parentheses, quoted text is skipped.
func splitPath(raw string, start int) ([][2]int, *Error) {
	var parts [][2]int
	depth := 0
	segStart := start
	for i := start; i < len(raw); {
		c, w := decodeAt(raw, i)
		switch {
		case c == '(':
			depth++
			if depth > maxNesting {
				return nil, limitErrorAt(i, "nesting exceeds the limit of 64 levels")
			}
		case c == ')':
			if depth > 0 {
				depth--
			}
		case c == '/' && w == 1 && depth == 0:
			parts = append(parts, [2]int{segStart, i})
			segStart = i + 1
		case (c == '\'' || c == '"') && depth > 0:
			q := c
			j := i + w
			for {
				quoted, quotedWidth := decodeAt(raw, j)
				if quotedWidth == 0 {
					return nil, syntaxErrorAt(j, "unterminated string literal")
				}
				j += quotedWidth
				if quoted == q {
					if n, nextWidth := decodeAt(raw, j); n == q && q == '\'' {
						j += nextWidth
						continue
					}
					break
				}
			}
			i = j
			continue
		}
		i += w
	}
	return append(parts, [2]int{segStart, len(raw)}), nil
}

func hasParen(text string) bool {
	for i := 0; i < len(text); {
		c, w := decodeAt(text, i)
		if c == '(' || c == ')' {
			return true
		}
		i += w
	}
	return false
}

// pathSegment parses one segment whose raw text starts at offset base.
func pathSegment(text string, base int, first bool, lim *Limits) (Segment, *Error) {
	if c, _ := decodeAt(text, 0); c == '$' {
		return dollarSegment(text, base, lim)
	}
	s := newScanner(text, base, modeExpression)
	s.inPath = true
	g, err := parse(segmentParser, s, pathExpect)
	if err == nil && nameKind(g.Name) == tokenIdentifier && !hasBlob(g.Args) {
		c := converter{operators: s.operators, source: text, base: base, inPath: true, limits: lim}
		seg := Segment{Pos: base, Name: g.Name.Value}
		for _, a := range g.Args {
			args, err := c.args(a, 0)
			if err != nil {
				return Segment{}, err
			}
			seg.Args = append(seg.Args, ArgList{Pos: a.Open.Pos.Offset, Args: args})
		}
		return seg, nil
	}
	if !first && !hasParen(text) && validEscapes(text) {
		// A key given as a segment (Customers/1, People/O'Neil, Categories/Smartphone%2FTablet).
		return Segment{Pos: base, Name: decode(text), Literal: true}, nil
	}
	if err == nil {
		return Segment{}, syntaxErrorAt(base, "expected name, found "+describe(g.Name))
	}
	return Segment{}, err
}

var dollarSegments = map[string]bool{"$metadata": true, "$batch": true, "$entity": true, "$all": true,
	"$crossjoin": true, "$count": true, "$value": true, "$ref": true, "$each": true, "$query": true, "$filter": true}

func dollarSegment(text string, base int, lim *Limits) (Segment, *Error) {
	s := newScanner(text, base, modeExpression)
	g, err := parse(segmentParser, s, pathExpect)
	if err != nil {
		return Segment{}, err
	}
	name := g.Name.Value
	if !dollarSegments[name] {
		return Segment{}, syntaxErrorAt(base, "unknown segment "+describe(g.Name))
	}
	seg := Segment{Pos: base, Name: name}
	switch name {
	case "$filter":
		if len(g.Args) != 1 || len(g.Args[0].Args) != 1 || g.Args[0].Args[0].Name.Type != 0 || g.Args[0].Args[0].Then != nil ||
			g.Args[0].Args[0].Tail != nil {
			return Segment{}, syntaxErrorAt(base+len(name), "expected (expression) after $filter")
		}
		c := converter{operators: s.operators, source: text, base: base, limits: lim}
		e, err := c.nested(g.Args[0].Args[0].Value, 0)
		if err != nil {
			return Segment{}, err
		}
		seg.Args = []ArgList{{Pos: g.Args[0].Open.Pos.Offset, Args: []Arg{{Pos: e.Position(), Value: e}}}}
	case "$crossjoin":
		if len(g.Args) != 1 || len(g.Args[0].Args) == 0 {
			return Segment{}, syntaxErrorAt(base+len(name), "expected (entity sets) after $crossjoin")
		}
		c := converter{operators: s.operators, source: text, base: base, limits: lim}
		args, err := c.args(g.Args[0], 0)
		if err != nil {
			return Segment{}, err
		}
		for _, a := range args {
			p, ok := a.Value.(*Path)
			if !ok || a.Name != "" || p.Base != BaseImplicit || len(p.Segments) != 1 || len(p.Segments[0].Args) > 0 || p.Segments[0].IsQualified() {
				return Segment{}, syntaxErrorAt(a.Pos, "expected entity set name")
			}
		}
		seg.Args = []ArgList{{Pos: g.Args[0].Open.Pos.Offset, Args: args}}
	default:
		if len(g.Args) > 0 {
			return Segment{}, syntaxErrorAt(base+len(name), `unexpected "(" after `+name)
		}
	}
	return seg, nil
}

// checkAfterCastable checks the segment after $all or $entity (last): a qualified type name, or $query after
// $all. $all/$query passes the options of $all in a body: URL Conventions 4.17 appends /$query to the resource
// path of any GET, though the ABNF's resourcePath omits it after $all.
func checkAfterCastable(last, seg Segment) *Error {
	if last.Name == "$all" && seg.Name == "$query" && !seg.Literal {
		return nil
	}
	if seg.Literal || !seg.IsQualified() || len(seg.Args) > 0 {
		return syntaxErrorAt(seg.Pos, "expected a qualified type name after "+last.Name)
	}
	return nil
}

// checkAfterCast checks the segment after the type cast that follows $all or $entity (castable): only $query,
// after $all.
func checkAfterCast(castable, seg Segment) *Error {
	if castable.Name == "$all" && seg.Name == "$query" && !seg.Literal {
		return nil
	}
	return syntaxErrorAt(seg.Pos-1, "no segment may follow the type cast after "+castable.Name)
}

// checkSegmentOrder enforces what the grammar says about where "$"-segments may stand.
func checkSegmentOrder(prev []Segment, seg Segment) *Error {
	if len(prev) == 0 {
		switch seg.Name {
		case "$count", "$value", "$ref", "$each", "$query", "$filter":
			if !seg.Literal {
				return syntaxErrorAt(seg.Pos, seg.Name+" cannot start a path")
			}
		}
		return nil
	}
	last := prev[len(prev)-1]
	if !last.Literal {
		switch last.Name {
		case "$metadata", "$batch", "$count", "$value", "$ref", "$query":
			return syntaxErrorAt(seg.Pos-1, "no segment may follow "+last.Name)
		case "$crossjoin":
			if seg.Name != "$query" {
				return syntaxErrorAt(seg.Pos-1, "only $query may follow $crossjoin")
			}
		case "$all", "$entity":
			return checkAfterCastable(last, seg)
		}
		if len(prev) >= 2 && (prev[len(prev)-2].Name == "$all" || prev[len(prev)-2].Name == "$entity") && !prev[len(prev)-2].Literal {
			return checkAfterCast(prev[len(prev)-2], seg)
		}
	}
	if !seg.Literal {
		switch seg.Name {
		case "$metadata", "$batch", "$entity", "$all", "$crossjoin":
			return syntaxErrorAt(seg.Pos, seg.Name+" must be the first segment")
		}
	}
	return nil
}

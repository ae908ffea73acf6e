package syntax

import (
	"slices"
	"strings"
)

// QueryString is a raw query string (without the "?") split at its '&' separators into parameters, in order,
// as ParseQuery reads it. It is for callers that look at a query, or rewrite it, without parsing the options'
// values (a next link, a delta link, the planner's cache key, the $id of /$entity, the parameters of a function
// call), so that every one of them reads names by the same rules as ParseQuery:
//
//   - a system query option is known with or without its "$" (OData 4.01), its name in any case, any of its
//     characters percent-encoded: $filter, filter, $Filter and %24filter are one option; the options of the
//     Temporal extension ($at, $from, $to, $toInclusive) only with their "$";
//   - a parameter alias is "@" and its name, a custom option any other name, both as spelt;
//   - a '+' is a space and %XX one byte, in names and values (Unescape); empty parts ("a=1&&b=2") are skipped.
//
// String writes the parameters back as they were sent, so a query rewritten with Without or With keeps the
// client's spelling of every option it does not change.
type QueryString []QueryParam

// QueryParam is one name=value parameter of a query string.
type QueryParam struct {
	// Name is the name as sent, decoded as Unescape decodes it: "$Filter", "filter", "@p", "count".
	Name string
	// Option is the name ParseQuery knows the parameter by: the canonical name of a system query option
	// ("$filter" for $filter, filter, $Filter and %24filter), otherwise Name.
	Option string
	// Raw is the value as sent, still percent-encoded and with each '+' as sent; "" when there is no "=".
	Raw string

	text string // name=value as sent
}

// SplitQuery splits a raw query string into its parameters.
func SplitQuery(raw string) QueryString {
	if raw == "" {
		return nil
	}
	out := make(QueryString, 0, strings.Count(raw, "&")+1)
	for _, part := range splitQuery(raw) {
		rawName, value, _ := strings.Cut(part, "=")
		name := Unescape(rawName)
		out = append(out, QueryParam{Name: name, Option: optionName(name), Raw: value, text: part})
	}
	return out
}

// Value returns the parameter's value decoded as Unescape decodes it ('+' a space, %XX one byte).
func (p QueryParam) Value() string { return Unescape(p.Raw) }

// Custom reports whether p is a custom query option: neither a system query option nor a parameter alias.
func (p QueryParam) Custom() bool {
	return !strings.HasPrefix(p.Option, "$") && !strings.HasPrefix(p.Option, "@")
}

// Lookup returns the parameter called name and whether the query has it. The name is matched as the query's are
// (Lookup("$id") finds id, $ID and %24id; Lookup("id") is the same). A system query option or a parameter alias
// given more than once is an *Error naming the option as sent, as ParseQuery reports it; of a custom option
// given more than once, the first is returned.
func (q QueryString) Lookup(name string) (QueryParam, bool, error) {
	option := optionName(name)
	var found QueryParam
	ok := false
	for _, p := range q {
		if p.Option != option {
			continue
		}
		if !ok {
			found, ok = p, true
			if p.Custom() {
				break
			}
			continue
		}
		return found, true, &Error{Option: p.Name, Code: CodeSyntax, Msg: option + " must not appear more than once"}
	}
	return found, ok, nil
}

// Has reports whether the query has a parameter called by one of the names (matched as Lookup matches them).
func (q QueryString) Has(names ...string) bool {
	options := canonicalNames(names)
	for _, p := range q {
		if slices.Contains(options, p.Option) {
			return true
		}
	}
	return false
}

// Without returns the query without the parameters called by the names (matched as Lookup matches them).
func (q QueryString) Without(names ...string) QueryString {
	options := canonicalNames(names)
	out := make(QueryString, 0, len(q))
	for _, p := range q {
		if !slices.Contains(options, p.Option) {
			out = append(out, p)
		}
	}
	return out
}

// With returns the query with the option called name set to the raw (percent-encoded) value: in place of the
// first parameter of that name, the others removed, or at the end when there is none. The option is written
// by its canonical name ("$filter").
func (q QueryString) With(name, raw string) QueryString {
	option := optionName(name)
	set := QueryParam{Name: option, Option: option, Raw: raw, text: option + "=" + raw}
	out := make(QueryString, 0, len(q)+1)
	done := false
	for _, p := range q {
		switch {
		case p.Option != option:
			out = append(out, p)
		case !done:
			out, done = append(out, set), true
		}
	}
	if !done {
		out = append(out, set)
	}
	return out
}

// String returns the raw query string of the parameters, each as it was sent, separated by '&'.
func (q QueryString) String() string {
	n := 0
	for _, p := range q {
		n += len(p.text) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range q {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.text)
	}
	return b.String()
}

// Escape returns text percent-encoded as a query option's value, so that ParseQuery and the single-option
// parsers read it as written and Unescape(Escape(text)) == text: every byte but letters, digits and
// -._~'()*,:@$/! is written as %XX (a space as %20, a plus sign as %2B).
func Escape(text string) string {
	const hexDigits = "0123456789ABCDEF"
	n := 0
	for i := 0; i < len(text); i++ {
		if !keptInValue(text[i]) {
			n++
		}
	}
	if n == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 2*n)
	for i := 0; i < len(text); i++ {
		if c := text[i]; keptInValue(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	return b.String()
}

// keptInValue reports whether Escape writes c as itself: the unreserved characters of RFC 3986 and those
// sub-delimiters and gen-delimiters that neither end a query option nor read differently in one.
func keptInValue(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~'()*,:@$/!", c) >= 0
}

// optionName returns the name ParseQuery knows an option called name (decoded) by: the canonical name of a
// system query option, otherwise name itself.
func optionName(name string) string {
	kind, err := optionKindOf(name)
	if err != nil || kind == 0 || kind == optionAlias {
		return name
	}
	return optionNames[kind]
}

// canonicalNames returns the names ParseQuery knows the options called by the names by.
func canonicalNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = optionName(n)
	}
	return out
}

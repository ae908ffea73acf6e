package openapitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// Getter sends GET path (from the host root, with its query string) to the service under test and returns the
// answer's status and body.
type Getter func(path string) (status int, body []byte, err error)

// Result is the answer to one GET operation of a document.
type Result struct {
	// Template is the path of the document; Path the one requested, parameters filled in.
	Template, Path string
	// Status is the answer's status; Want the success statuses the operation documents ("200", "204").
	Status int
	Want   []string
	// Body is the answer's body.
	Body []byte
}

// OK reports whether the status is one of the documented success statuses.
func (r Result) OK() bool {
	for _, w := range r.Want {
		if w == fmt.Sprint(r.Status) {
			return true
		}
	}
	return false
}

// Walk calls every GET operation of doc, a JSON OpenAPI document whose paths start at the host root, and returns
// the answers in the document's order of paths.
//
// Path parameters inside an OData key predicate, as in /odata/Book('{Id}')/Chapters('{Id_1}') or
// /odata/Loan(BookId='{BookId}',MemberNo={MemberNo}), take the key values of real entities: Walk reads the
// collection before the predicate (/odata/Book) and tries its entities in turn (the property is the
// parameter's name without a _N suffix) until the whole path answers something other than 404. Every other path
// parameter and every required query parameter takes values[name]; a missing one is an error.
func Walk(doc []byte, get Getter, values map[string]string) ([]Result, error) {
	var d struct {
		Paths      orderedPaths `json:"paths"`
		Components struct {
			Parameters map[string]parameter `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	w := &walker{get: get, values: values}
	var out []Result
	for _, p := range d.Paths {
		if p.item.Get == nil {
			continue
		}
		query := url.Values{}
		for _, prm := range append(append([]parameter{}, p.item.Parameters...), p.item.Get.Parameters...) {
			if prm.Ref != "" {
				prm = d.Components.Parameters[strings.TrimPrefix(prm.Ref, "#/components/parameters/")]
			}
			if prm.In == "query" && prm.Required {
				v, ok := values[prm.Name]
				if !ok {
					return out, fmt.Errorf("%s: no value for the required query parameter %s", p.path, prm.Name)
				}
				query.Set(prm.Name, v)
			}
		}
		suffix := ""
		if len(query) > 0 {
			suffix = "?" + query.Encode()
		}
		var want []string
		for status := range p.item.Get.Responses {
			if strings.HasPrefix(status, "2") {
				want = append(want, status)
			}
		}
		sort.Strings(want)
		path, status, body, err := w.fill("", p.path, suffix)
		if err != nil {
			return out, fmt.Errorf("%s: %w", p.path, err)
		}
		out = append(out, Result{Template: p.path, Path: path, Status: status, Want: want, Body: body})
	}
	return out, nil
}

type parameter struct {
	Ref      string `json:"$ref"`
	Name     string `json:"name"`
	In       string `json:"in"`
	Required bool   `json:"required"`
}

type operation struct {
	Parameters []parameter                `json:"parameters"`
	Responses  map[string]json.RawMessage `json:"responses"`
}

type pathItem struct {
	Parameters []parameter `json:"parameters"`
	Get        *operation  `json:"get"`
}

// orderedPaths reads the paths object keeping the document's order.
type orderedPaths []struct {
	path string
	item pathItem
}

func (o *orderedPaths) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var item pathItem
		if err := dec.Decode(&item); err != nil {
			return err
		}
		*o = append(*o, struct {
			path string
			item pathItem
		}{tok.(string), item})
	}
	return nil
}

// candidates is how many entities Walk tries for one key predicate.
const candidates = 20

type walker struct {
	get    Getter
	values map[string]string
}

// fill fills the parameters of rest (done is the part already filled) and requests the path with suffix.
func (w *walker) fill(done, rest, suffix string) (string, int, []byte, error) {
	open := strings.IndexByte(rest, '{')
	if open < 0 {
		status, body, err := w.get(done + rest + suffix)
		return done + rest, status, body, err
	}
	segStart := strings.LastIndexByte(rest[:open], '/') + 1
	segEnd := len(rest)
	if i := strings.IndexByte(rest[open:], '/'); i >= 0 {
		segEnd = open + i
	}
	segment := rest[segStart:segEnd]
	paren := strings.IndexByte(segment, '(')
	if paren < 0 || paren > open-segStart {
		closing := strings.IndexByte(rest[open:], '}') + open
		name := rest[open+1 : closing]
		v, ok := w.values[name]
		if !ok {
			return "", 0, nil, fmt.Errorf("no value for the path parameter %s", name)
		}
		return w.fill(done+rest[:open]+url.PathEscape(v), rest[closing+1:], suffix)
	}
	collection := done + rest[:segStart+paren]
	status, body, err := w.get(collection + "?$top=" + fmt.Sprint(candidates))
	if err != nil {
		return "", 0, nil, err
	}
	if status != 200 {
		return "", 0, nil, fmt.Errorf("GET %s = %d %s, want 200 to find keys", collection, status, body)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var page struct {
		Value []map[string]any `json:"value"`
	}
	if err := dec.Decode(&page); err != nil {
		return "", 0, nil, fmt.Errorf("GET %s: %v", collection, err)
	}
	var last struct {
		path   string
		status int
		body   []byte
	}
	for _, e := range page.Value {
		pred, err := predicate(segment[paren:], e)
		if err != nil {
			return "", 0, nil, fmt.Errorf("GET %s: %v", collection, err)
		}
		path, status, body, err := w.fill(collection+pred, rest[segEnd:], suffix)
		if err != nil {
			return "", 0, nil, err
		}
		if status != 404 {
			return path, status, body, nil
		}
		last.path, last.status, last.body = path, status, body
	}
	if last.path == "" {
		return "", 0, nil, fmt.Errorf("GET %s has no entity to fill the key of %s with", collection, segment)
	}
	return last.path, last.status, last.body, nil
}

// predicate fills the parameters of a key predicate template ("('{Id_1}')", "(A='{A}',B={B})") from an entity.
func predicate(template string, e map[string]any) (string, error) {
	var b strings.Builder
	for {
		open := strings.IndexByte(template, '{')
		if open < 0 {
			b.WriteString(template)
			return b.String(), nil
		}
		closing := strings.IndexByte(template, '}')
		name := template[open+1 : closing]
		if i := strings.LastIndexByte(name, '_'); i > 0 && strings.Trim(name[i+1:], "0123456789") == "" {
			name = name[:i]
		}
		b.WriteString(template[:open])
		switch v := e[name].(type) {
		case string:
			text := v
			if open > 0 && template[open-1] == '\'' {
				text = strings.ReplaceAll(v, "'", "''")
			}
			b.WriteString(url.PathEscape(text))
		case json.Number:
			b.WriteString(v.String())
		case bool:
			fmt.Fprint(&b, v)
		default:
			return "", fmt.Errorf("the entity has no key property %s: %v", name, e)
		}
		template = template[closing+1:]
	}
}

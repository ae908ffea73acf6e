package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/storekit/store/odata/edm"
)

// Redactions are the properties one request may not read, by entity type: a read leaves them out of every
// projection (a default one, $select=*, $select of the complex property around a redacted member, $expand into
// the type) and out of the ETag, and a query that uses one ($select, $filter, $orderby, a lambda, a to-one path,
// a parameter alias) is a NotReadable *Error that names the property, never its value. $search matches the
// searchable properties the request may read. A redacted navigation property cannot be expanded ($expand=*
// leaves it out) or followed in an expression (a path, a lambda, $count, a comparison with null), so it tells
// nothing of the foreign key it joins on. A row filter may use them all: it is the service's. The redactions are
// part of the plan cache key. A nil *Redactions redacts nothing.
type Redactions struct {
	byType map[*edm.EntityType]map[*edm.Property]bool // the redacted properties and members, with every member of a redacted complex property
	navs   map[*edm.EntityType]map[*edm.NavigationProperty]bool
	key    string
}

// NewRedactions returns the redactions of the given names by entity type: a property of the type, a member path
// of a complex property ("Address/City") or a navigation property, names matched as the model matches them. A
// key property or a name the type does not have is an error (the service's mistake, not the client's). It
// returns nil when no type has a name.
func NewRedactions(byType map[*edm.EntityType][]string) (*Redactions, error) {
	r := &Redactions{byType: map[*edm.EntityType]map[*edm.Property]bool{}, navs: map[*edm.EntityType]map[*edm.NavigationProperty]bool{}}
	var parts []string
	for t, names := range byType {
		if len(names) == 0 {
			continue
		}
		hidden, navs := map[*edm.Property]bool{}, map[*edm.NavigationProperty]bool{}
		canonical := make([]string, 0, len(names))
		for _, name := range names {
			if n := t.Navigation(name); n != nil && t.Property(name) == nil {
				navs[n] = true
				canonical = append(canonical, n.Name)
				continue
			}
			path, err := redactedPath(t, name)
			if err != nil {
				return nil, err
			}
			hide(hidden, path[len(path)-1])
			canonical = append(canonical, pathName(path))
		}
		sort.Strings(canonical)
		if len(hidden) > 0 {
			r.byType[t] = hidden
		}
		if len(navs) > 0 {
			r.navs[t] = navs
		}
		parts = append(parts, t.Name+"\x00"+strings.Join(canonical, "\x00"))
	}
	if len(parts) == 0 {
		return nil, nil
	}
	sort.Strings(parts)
	r.key = strings.Join(parts, "\x01")
	return r, nil
}

// redactedPath resolves a name of NewRedactions to the property and members it names.
func redactedPath(t *edm.EntityType, name string) ([]*edm.Property, error) {
	segments := strings.Split(name, "/")
	p := t.Property(segments[0])
	switch {
	case p == nil && t.Navigation(segments[0]) != nil:
		return nil, fmt.Errorf("redaction of %s: %s is a navigation property, which has no members", t.Name, segments[0])
	case p == nil:
		return nil, fmt.Errorf("redaction of %s: %s has no property %s", t.Name, t.Name, segments[0])
	case p.IsKey():
		return nil, fmt.Errorf("redaction of %s: %s is a key property, which cannot be redacted", t.Name, p.Name)
	}
	path := []*edm.Property{p}
	for _, s := range segments[1:] {
		m := path[len(path)-1].Property(s)
		if m == nil {
			return nil, fmt.Errorf("redaction of %s: %s is no member path of %s", t.Name, name, t.Name)
		}
		path = append(path, m)
	}
	return path, nil
}

// hide marks p and, for a complex property, all its members.
func hide(hidden map[*edm.Property]bool, p *edm.Property) {
	hidden[p] = true
	for _, m := range p.Properties() {
		hide(hidden, m)
	}
}

// pathName is the canonical text of a property path: its names joined by "/".
func pathName(path []*edm.Property) string {
	names := make([]string, len(path))
	for i, p := range path {
		names[i] = p.Name
	}
	return strings.Join(names, "/")
}

// Hidden returns the redacted properties of t: the properties and complex members a request may not read
// (every member of a redacted complex property too), nil when none. It is shared: do not modify it.
func (r *Redactions) Hidden(t *edm.EntityType) map[*edm.Property]bool {
	if r == nil {
		return nil
	}
	return r.byType[t]
}

// HiddenNavigation reports whether the request may not follow the navigation property n of t.
func (r *Redactions) HiddenNavigation(t *edm.EntityType, n *edm.NavigationProperty) bool {
	return r != nil && r.navs[t][n]
}

// cacheKey is the part of the plan cache key that the redactions make.
func (r *Redactions) cacheKey() string {
	if r == nil {
		return ""
	}
	return r.key
}

// PartlyHidden reports whether the complex property p has a redacted member in hidden (at any depth).
func PartlyHidden(hidden map[*edm.Property]bool, p *edm.Property) bool {
	for _, m := range p.Properties() {
		if hidden[m] || PartlyHidden(hidden, m) {
			return true
		}
	}
	return false
}

// hidden reports whether the compiler's request may not read p, a property or member of t. Inside a row filter
// (the service's text) nothing is hidden.
func (c *compiler) hidden(t *edm.EntityType, p *edm.Property) bool {
	return !c.inRowFilter && c.redacted.Hidden(t)[p]
}

// hiddenNavigation reports whether the compiler's request may not follow n from t; inside a row filter it may.
func (c *compiler) hiddenNavigation(t *edm.EntityType, n *edm.NavigationProperty) bool {
	return !c.inRowFilter && c.redacted.HiddenNavigation(t, n)
}

// notReadable is the error of a query that uses the redacted property p (named by name) of t.
func notReadable(option string, pos int, t *edm.EntityType, name string) *Error {
	return &Error{Code: CodeNotReadable, Option: option, Pos: pos,
		Msg: "the property " + name + " of " + t.Name + " is not readable by this request"}
}

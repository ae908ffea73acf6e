package modelsql

import (
	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// Names holds the identifiers of a model quoted once by a dialect: every table and column name it uses (side
// tables and link tables included), and extra names such as aliases. It is a Quoter that costs a map lookup
// for those and quotes any other name on the fly. It is safe for concurrent use once built.
type Names struct {
	quoted  map[string]string
	dialect sqldb.Dialect
}

// NewNames quotes the identifiers of the built model m and the extra names with d.
func NewNames(d sqldb.Dialect, m *edm.Model, extra ...string) *Names {
	n := &Names{quoted: map[string]string{}, dialect: d}
	n.add(extra...)
	var property func(p *edm.Property)
	property = func(p *edm.Property) {
		n.add(p.Column)
		for _, member := range p.Properties() {
			property(member)
		}
		if ct := p.CollectionTable; ct != nil {
			n.add(ct.Table, ct.ValueColumn, ct.OrdinalColumn)
			n.add(ct.OwnerColumns...)
		}
	}
	for _, t := range m.EntityTypes {
		n.add(t.Table, t.Discriminator())
		for _, p := range t.Properties {
			property(p)
		}
		for _, nav := range t.Navigations {
			n.add(nav.Join.SourceColumns...)
			n.add(nav.Join.TargetColumns...)
			if link := nav.Join.Through; link != nil {
				n.add(link.Table)
				n.add(link.SourceColumns...)
				n.add(link.TargetColumns...)
			}
		}
	}
	return n
}

func (n *Names) add(names ...string) {
	for _, name := range names {
		if _, ok := n.quoted[name]; !ok && name != "" {
			n.quoted[name] = n.dialect.QuoteIdent(name)
		}
	}
}

// QuoteIdent returns name quoted, from the names quoted beforehand when it is one of them.
func (n *Names) QuoteIdent(name string) string {
	if quoted, ok := n.quoted[name]; ok {
		return quoted
	}
	return n.dialect.QuoteIdent(name)
}

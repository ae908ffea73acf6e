package odata

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// Binds: a POST or PATCH body may set the references of a navigation with "<Nav>@odata.bind": the id of an
// entity for a single-valued navigation (null to empty a nullable one), an array of ids for a collection. A
// single-valued navigation whose foreign key columns are properties of the entity sets those properties before
// the save (so BeforeSave sees them and a required one is satisfied); the others are linked after the entity is
// written, as $ref does (a collection's ids are added to its references). Containments cannot be bound.

// bind is one "<Nav>@odata.bind" member of a body.
type bind struct {
	nav *edm.NavigationProperty
	ids []string // the entity ids; none for null
	// targets are the resolved ids (resolveBinds); done marks a bind that bindProperties applied.
	targets []*target
	done    bool
}

// bind decodes a "<Nav>@odata.bind" member onto binds.
func (d *decoder) bind(binds []bind, n *edm.NavigationProperty, raw json.RawMessage) []bind {
	name := n.Name + "@odata.bind"
	var ids []string
	switch {
	case n.ContainsTarget:
		d.fail(CodeInvalidValue, name, "%s holds contained entities: they are created through it, not bound.", n.Name)
		return binds
	case n.Collection:
		if err := json.Unmarshal(raw, &ids); err != nil {
			d.fail(CodeInvalidValue, name, "%s takes an array of entity ids, such as [\"%s('k')\"].", name, n.TargetType().Name)
			return binds
		}
	default:
		var id *string
		if err := json.Unmarshal(raw, &id); err != nil {
			d.fail(CodeInvalidValue, name, "%s takes the id of an entity, such as \"%s('k')\".", name, n.TargetType().Name)
			return binds
		}
		if id == nil && !n.Nullable {
			d.fail(CodeInvalidValue, name, "%s is required: it cannot be bound to null.", n.Name)
			return binds
		}
		if id != nil {
			ids = []string{*id}
		}
	}
	return append(binds, bind{nav: n, ids: ids})
}

// resolveBinds resolves the ids of the body's binds to the targets of their entities; an id that names no
// entity of the navigation's type is a detail of the body.
func (s *Service) resolveBinds(req *request, b *body) {
	for i := range b.binds {
		bd := &b.binds[i]
		for _, id := range bd.ids {
			t, err := s.entityOfID(req, id, bd.nav.TargetType(), bd.nav.Name+"@odata.bind")
			var e *Error
			if errors.As(err, &e) {
				b.details = append(b.details, ErrorDetail{Code: e.Code, Target: e.Target, Message: e.Message})
				continue
			}
			bd.targets = append(bd.targets, t)
		}
	}
}

// bindProperties applies the binds of single-valued navigations whose foreign key columns are all properties
// of the entity: it sets those properties of e to the bound entity's values (or null), as sent values.
func (s *Service) bindProperties(ctx context.Context, tx *Tx, e Entity, b *body) error {
	for i := range b.binds {
		bd := &b.binds[i]
		props := foreignKeyProperties(bd.nav)
		if bd.nav.Collection || props == nil {
			continue
		}
		values := make([]any, len(props))
		if len(bd.targets) > 0 {
			key, err := s.bodyEntityKey(ctx, tx, bd.targets[0], bd.nav.Name+"@odata.bind")
			if err != nil {
				return err
			}
			raw, err := tx.columnValues(ctx, bd.nav.TargetType(), key, bd.nav.Join.TargetColumns)
			if err != nil {
				return err
			}
			for j, p := range props {
				if values[j], err = sqldb.Scan(p, raw[j]); err != nil {
					return err
				}
			}
		}
		for j, p := range props {
			e[p.Name] = values[j]
			b.sent[p.Name] = true
		}
		bd.done = true
	}
	return nil
}

// foreignKeyProperties returns the properties of the source of a direct single-valued navigation that hold its
// foreign key columns, in join order; nil when a column is no property's (or the join has a link table).
func foreignKeyProperties(n *edm.NavigationProperty) []*edm.Property {
	if n.Join.Through != nil {
		return nil
	}
	var props []*edm.Property
	for _, c := range n.Join.SourceColumns {
		p := columnProperty(n.SourceType(), c)
		if p == nil {
			return nil
		}
		props = append(props, p)
	}
	return props
}

// bindLinks applies the binds bindProperties did not, once the entity e of type et is written: each bound
// entity is linked to it as $ref links it, and a single-valued navigation bound to null is emptied.
func (s *Service) bindLinks(ctx context.Context, tx *Tx, et *edm.EntityType, e Entity, b *body) error {
	var sourceKey []any
	for _, bd := range b.binds {
		if bd.done {
			continue
		}
		if sourceKey == nil {
			var err error
			if sourceKey, err = entityKey(et, e); err != nil {
				return err
			}
		}
		if !bd.nav.Collection && len(bd.targets) == 0 {
			cols := bd.nav.Join.SourceColumns
			if err := tx.setColumns(ctx, et, sourceKey, cols, make([]any, len(cols))); err != nil {
				return err
			}
		}
		for _, t := range bd.targets {
			targetKey, err := s.bodyEntityKey(ctx, tx, t, bd.nav.Name+"@odata.bind")
			if err != nil {
				return err
			}
			if err := linkKeys(ctx, tx, bd.nav, et, sourceKey, targetKey); err != nil {
				return err
			}
		}
	}
	return nil
}

// bodyEntityKey reads the key of the entity an id of a body names (in the member named member); an entity that
// does not exist, or that a row filter hides, is a 400 naming the member: the body is wrong, not the URL.
func (s *Service) bodyEntityKey(ctx context.Context, tx *Tx, t *target, member string) ([]any, error) {
	key, err := s.readKey(ctx, tx.Tx, t)
	if errors.Is(err, ErrNotFound) {
		return nil, BadRequest(CodeInvalidValue, member, fmt.Sprintf("%s names a %s that does not exist.", member, t.typ.Name))
	}
	return key, err
}

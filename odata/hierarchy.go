package odata

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sq "github.com/Masterminds/squirrel"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/modelsql"
)

// Entity types with a base type (edm.EntityType.BaseType) are stored one table per hierarchy: the rows of every
// type of it are in the root's table, whose discriminator column holds each row's qualified type name. Reads
// through the planner answer each entity with the properties of its own type and, when that is not the type
// the context implies, its @odata.type. Writes: a POST names the type to create with @odata.type in its body (a
// type of the set's hierarchy, derived from the set's type, not abstract); PUT and PATCH keep the stored type,
// and validate the body against it.

// odataTypeMember is the control information that names the type of an entity in a body.
const odataTypeMember = "@odata.type"

// bodyType returns the entity type the body members name with @odata.type, et when they name none. A type that
// is not et or derived from it is a 400, and so is an abstract one when creating.
func (s *Service) bodyType(members []member, et *edm.EntityType, creating bool) (*edm.EntityType, error) {
	named := et
	for _, m := range members {
		if m.name != odataTypeMember && m.name != "@type" { // OData 4.01 JSON may leave out the odata. prefix
			continue
		}
		var name string
		if err := json.Unmarshal(m.raw, &name); err != nil {
			return nil, BadRequest(CodeTypeMismatch, odataTypeMember, "@odata.type must be a string naming an entity type.")
		}
		t := s.model.EntityType(strings.TrimPrefix(name, "#"))
		if t == nil || !t.IsA(et) {
			return nil, BadRequest(CodeInvalidValue, odataTypeMember,
				fmt.Sprintf("%s is not %s or a type derived from it.", name, s.qualifiedName(et)))
		}
		named = t
	}
	if creating && named.Abstract {
		return nil, abstractType(s.qualifiedName(named))
	}
	return named, nil
}

// abstractType is the answer to a create of an entity of the abstract type named name.
func abstractType(name string) error {
	return BadRequest(CodeInvalidValue, odataTypeMember, fmt.Sprintf("%s is abstract: name the type of the entity to create with @odata.type.", name))
}

// qualifiedName is the namespace-qualified name of et, as its rows' discriminator holds it.
func (s *Service) qualifiedName(et *edm.EntityType) string { return s.model.Namespace + "." + et.Name }

// storedType returns the type of the stored entity of et's hierarchy that where selects (on the table's own
// name): et when the hierarchy is et alone or no entity matches (the write then answers 404 as usual).
func (s *Service) storedType(ctx context.Context, et *edm.EntityType, where sq.Sqlizer) (*edm.EntityType, error) {
	column := et.Discriminator()
	if column == "" {
		return et, nil
	}
	q := sq.Select(s.names.QuoteIdent(column)).From(s.names.QuoteIdent(et.Table)).Where(where).Limit(1).
		PlaceholderFormat(s.db.Dialect().Placeholder())
	var name string
	if err := q.RunWith(s.db).QueryRowContext(ctx).Scan(&name); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return et, nil
		}
		return nil, err
	}
	return typeNamed(et, name), nil
}

// typeNamed returns the type of et's subtree (et or a type derived from it) whose qualified name is name; et
// when it is none of them.
func typeNamed(et *edm.EntityType, name string) *edm.EntityType {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if name == et.Name {
		return et
	}
	for _, d := range et.DerivedTypes() {
		if d.Name == name {
			return d
		}
	}
	return et
}

// keepType checks that the @odata.type of an update's body, if any, names the stored type of the entity or one
// of its bases: an update does not change the type of an entity.
func (s *Service) keepType(members []member, stored *edm.EntityType) error {
	named, err := s.bodyType(members, stored.Root(), false)
	if err != nil {
		return err
	}
	if !stored.IsA(named) {
		return BadRequest(CodeInvalidValue, odataTypeMember, fmt.Sprintf("The entity is a %s: an update does not change its type to %s.",
			s.qualifiedName(stored), s.qualifiedName(named)))
	}
	return nil
}

// typeWhere is the condition, on the table's own name quoted by q, that a row of et's hierarchy (of a model whose
// namespace is namespace) is an instance of et: its discriminator names et or a type derived from it.
func typeWhere(q modelsql.Quoter, namespace string, et *edm.EntityType) sq.Sqlizer {
	names := []string{namespace + "." + et.Name}
	for _, d := range et.DerivedTypes() {
		if !d.Abstract { // no row has an abstract type
			names = append(names, namespace+"."+d.Name)
		}
	}
	return sq.Eq{q.QuoteIdent(et.Table) + "." + q.QuoteIdent(et.Discriminator()): names}
}

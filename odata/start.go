package odata

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/migrate"
	"github.com/storekit/store/odata/schema"
)

// DefaultNamespace is the namespace of the model NewService derives from Config.Structs when Config.Model is nil.
const DefaultNamespace = "Default"

// migrateTimeout bounds Config.Migrate's migration at NewService.
const migrateTimeout = 5 * time.Minute

// ListenAndServe serves the service of c on the TCP address addr, as http.ListenAndServe does, with a server
// that bounds the time to read a request's headers (10 s). It returns NewService's error, or the server's. A
// program that mounts the service beside other handlers, or shuts it down gracefully, calls NewService and
// runs its own http.Server (examples/embedstructs shows both).
func ListenAndServe(addr string, c Config) error {
	svc, err := NewService(c)
	if err != nil {
		return err
	}
	srv := &http.Server{Addr: addr, Handler: svc, ReadHeaderTimeout: 10 * time.Second}
	return srv.ListenAndServe()
}

// structsModel returns the model of c: Config.Model with the entity types and sets of Config.Structs added
// and built, Config.Model itself when there are no structs (see Config.Structs).
func structsModel(c Config) (*edm.Model, error) {
	if len(c.Structs) == 0 {
		return c.Model, nil
	}
	m := c.Model
	if m == nil {
		m = &edm.Model{Namespace: DefaultNamespace}
	} else if m.Built() {
		return nil, errors.New("odata: Config.Model is built: with Config.Structs, give it unbuilt (NewService adds the structs' types and builds it)")
	}
	types, err := edm.EntityTypesOf(c.Structs...)
	if err != nil {
		return nil, err
	}
	for _, et := range types {
		m.EntityTypes = append(m.EntityTypes, et)
		if !hasSetOf(m, et.Name) {
			m.EntitySets = append(m.EntitySets, &edm.EntitySet{Name: plural(et.Name), Type: et.Name})
		}
	}
	if err := m.Build(); err != nil {
		return nil, err
	}
	return m, nil
}

// hasSetOf reports whether the model declares an entity set of the entity type named typeName.
func hasSetOf(m *edm.Model, typeName string) bool {
	for _, es := range m.EntitySets {
		if es.Type == typeName || strings.HasSuffix(es.Type, "."+typeName) {
			return true
		}
	}
	return false
}

// plural is the name of the entity set NewService declares for a struct type named name (Config.Structs): the
// English plural by its spelling (Team: Teams, Category: Categories, Box: Boxes, Address: Addresses). Declare
// the set in Config.Model to name it otherwise.
func plural(name string) string {
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, "y") && len(lower) > 1 && !strings.ContainsRune("aeiou", rune(lower[len(lower)-2])):
		return name[:len(name)-1] + "ies"
	case strings.HasSuffix(lower, "s"), strings.HasSuffix(lower, "x"), strings.HasSuffix(lower, "z"),
		strings.HasSuffix(lower, "ch"), strings.HasSuffix(lower, "sh"):
		return name + "es"
	}
	return name + "s"
}

// migrateModel creates what the built model m needs that the database of c lacks (Config.Migrate).
func migrateModel(c Config, m *edm.Model) error {
	ctx, cancel := context.WithTimeout(context.Background(), migrateTimeout)
	defer cancel()
	if _, err := migrate.Up(ctx, c.DB, schema.Migration(m.Namespace, m)); err != nil {
		return fmt.Errorf("odata: Config.Migrate: %w", err)
	}
	return nil
}

// withDefaultWrites returns the set options of c with Config.Writes given to the sets Config.Sets does not list.
func withDefaultWrites(c Config, m *edm.Model) map[string]SetOptions {
	if c.Writes == 0 || m == nil {
		return c.Sets
	}
	sets := make(map[string]SetOptions, len(m.EntitySets))
	for _, es := range m.EntitySets {
		sets[es.Name] = SetOptions{Writes: c.Writes}
	}
	for name, o := range c.Sets {
		sets[name] = o
	}
	return sets
}

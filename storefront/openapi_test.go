package storefront_test

import (
	"net/http"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/sqlite"
	"github.com/storekit/store/storefront"
)

// routeList records the routes Register adds.
type routeList []string

func (r *routeList) Handle(method, pattern string, _ http.Handler) {
	*r = append(*r, method+" "+pattern)
}

func (r *routeList) HandlePublic(method, pattern string, h http.Handler) {
	r.Handle(method, pattern, h)
}

// TestOpenAPI checks that the storefront's operations are its routes: one per route, none more.
func TestOpenAPI(t *testing.T) {
	var routes routeList
	storefront.New(storefront.Config{DB: sqldb.NewDB(nil, sqlite.Dialect{})}).Register(&routes)
	var ops []string
	for _, op := range storefront.OpenAPI().Operations {
		ops = append(ops, op.Method+" "+op.Path)
		if len(op.Responses) == 0 || op.Responses[0].Status != "200" || op.Responses[0].Schema == nil {
			t.Errorf("%s %s: the first response is not a 200 with a schema", op.Method, op.Path)
		}
	}
	sort.Strings(routes)
	sort.Strings(ops)
	if diff := cmp.Diff([]string(routes), ops); diff != "" {
		t.Errorf("OpenAPI().Operations differ from the routes of Register (-routes +operations):\n%s", diff)
	}
}

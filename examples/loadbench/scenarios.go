package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"
)

// kind is the group of a scenario, which tells the targets it runs on.
type kind string

const (
	kindRead     kind = "read"     // every target
	kindMetadata kind = "metadata" // store and engine
	kindWrite    kind = "write"    // store and engine
	kindShop     kind = "shop"     // store
)

// scenario is one kind of request (or flow) the clients send over and over.
type scenario struct {
	// id names the scenario in flags, JSON and pictures; request shows what is sent.
	id, request string
	kind        kind
	// clients is the number of clients; 0: the run's -clients.
	clients int
	// path is the path and query under /odata/ of a read of a fixed URL, "" for the others.
	path string
	// requests is the number of HTTP requests of one operation when it is more than one.
	requests int
	// ops returns the operation of each of n clients against t.
	ops func(ctx context.Context, e *env, t *target, n int) ([]op, error)
}

// runsOn reports whether the scenario applies to the target.
func (s *scenario) runsOn(target string) bool {
	switch s.kind {
	case kindRead:
		return true
	case kindMetadata, kindWrite:
		return target == targetStore || target == targetEngine
	}
	return target == targetStore
}

// readScenario is a GET of one fixed path under /odata/.
func readScenario(id, path string) *scenario {
	return &scenario{id: id, request: "GET /odata/" + path, kind: kindRead, path: path,
		ops: func(_ context.Context, e *env, t *target, n int) ([]op, error) {
			return repeat(n, func(i int) op {
				url := t.node(i) + "/odata/" + encodeQuery(path)
				return func(ctx context.Context) error {
					_, err := e.c.get(ctx, url, t.auth, false)
					return err
				}
			}), nil
		}}
}

// repeat returns the ops of n clients.
func repeat(n int, f func(i int) op) []op {
	ops := make([]op, n)
	for i := range ops {
		ops[i] = f(i)
	}
	return ops
}

// encodeQuery writes a path and query as a client sends them: spaces percent-encoded.
func encodeQuery(s string) string { return strings.ReplaceAll(s, " ", "%20") }

// The words of the search scenarios, from the seed's names and short descriptions: one product in twenty is a
// lamp, one in twelve is of oak. Each search asks for the count too, as a shop's search page shows how many
// products match, so the whole set of matches is read, not only the first page.
const (
	searchOne = "lamp"
	searchTwo = "oak lamp"
)

// newScenarios returns every scenario, for a store of products products, comparing page pageN of the next-link
// walk with page 1.
func newScenarios(products, pageN, writeClients int) []*scenario {
	half := products / 2
	deep := max(half-pageSize, 0)
	return []*scenario{
		keyScenario(),
		readScenario("top", "Product?$top=100"),
		readScenario("filter-price", "Product?$filter=Price gt 500&$top=100"),
		readScenario("orderby-price", "Product?$orderby=Price desc&$top=100"),
		readScenario("filter-contains", "Product?$filter=contains(Name,'lamp')&$top=100"),
		readScenario("search", "Product?$search="+searchOne+"&$count=true&$top=100"),
		readScenario("search-two", "Product?$search="+searchTwo+"&$count=true&$top=100"),
		readScenario("select", "Product?$select=Id,Name,Price&$top=100"),
		readScenario("expand", "Product?$expand=Categories&$top=50"),
		readScenario("count", "Product/$count?$filter=Price gt 500"),
		readScenario("skip", fmt.Sprintf("Product?$top=100&$skip=%d", half)),
		readScenario("orderby-skip", fmt.Sprintf("Product?$orderby=Price desc&$skip=%d", deep)),
		readScenario("page-1", "Product"),
		pageScenario(pageN),
		{id: "service-document", request: "GET /odata/", kind: kindMetadata, ops: metadataOps("")},
		{id: "metadata", request: "GET /odata/$metadata", kind: kindMetadata, ops: metadataOps("$metadata")},
		postProductScenario(writeClients),
		addToCartScenario(),
		checkoutScenario(),
	}
}

// keyScenario reads products by key, each client its own random sequence of the sampled keys (the same
// sequences on every target).
func keyScenario() *scenario {
	return &scenario{id: "key", request: "GET /odata/Product('<id>')", kind: kindRead,
		ops: func(_ context.Context, e *env, t *target, n int) ([]op, error) {
			return repeat(n, func(i int) op {
				rnd := rand.New(rand.NewPCG(uint64(i), 1))
				return func(ctx context.Context) error {
					url := t.node(i) + "/odata/Product('" + e.ids[rnd.IntN(len(e.ids))] + "')"
					_, err := e.c.get(ctx, url, t.auth, false)
					return err
				}
			}), nil
		}}
}

// pageScenario reads page n of the walk along the next links from GET /odata/Product, whose link is found
// by following them once (the last page when there are fewer).
func pageScenario(n int) *scenario {
	return &scenario{id: "page-N", request: fmt.Sprintf("GET the @odata.nextLink of page %d", n-1), kind: kindRead,
		ops: func(ctx context.Context, e *env, t *target, clients int) ([]op, error) {
			link, err := e.pageLink(ctx, t)
			if err != nil {
				return nil, err
			}
			return repeat(clients, func(i int) op {
				url := t.node(i) + strings.TrimPrefix(link.URL, t.url) // the same link on the client's node
				return func(ctx context.Context) error {
					_, err := e.c.get(ctx, url, t.auth, false)
					return err
				}
			}), nil
		}}
}

func metadataOps(path string) func(context.Context, *env, *target, int) ([]op, error) {
	return func(_ context.Context, e *env, t *target, n int) ([]op, error) {
		return repeat(n, func(i int) op {
			url := t.node(i) + "/odata/" + path
			return func(ctx context.Context) error {
				_, err := e.c.get(ctx, url, t.auth, false)
				return err
			}
		}), nil
	}
}

// postProductScenario creates products, each named by the client, a counter and the run (names of distinct
// products, as a shop has: no two share a slug root, so the store chooses their slugs concurrently); at price
// 1.00 they stay out of the pages the read scenarios compare.
func postProductScenario(clients int) *scenario {
	return &scenario{id: "post-product", request: "POST /odata/Product", kind: kindWrite, clients: clients,
		ops: func(_ context.Context, e *env, t *target, n int) ([]op, error) {
			return repeat(n, func(i int) op {
				url := t.node(i) + "/odata/Product"
				var count atomic.Int64
				return func(ctx context.Context) error {
					body := fmt.Sprintf(`{"Name":"Loadbench item %d %d %s","Price":1.00,"Published":false}`, i, count.Add(1), e.runID)
					_, err := e.c.post(ctx, url, t.auth, "application/json", body)
					return err
				}
			}), nil
		}}
}

// pageLink is the URL of the page of the next-link walk that page-N reads.
type pageLink struct {
	URL string `json:"url"`
	// Page is the page number the link leads to; Walk how long following the links once took.
	Page int     `json:"page"`
	Walk float64 `json:"walk_seconds"`
}

// walk follows the next links from GET /odata/Product up to page n (or the last page) and returns the link of
// that page.
func walk(ctx context.Context, c *client, t *target, n int) (pageLink, error) {
	start := time.Now()
	url, page := t.url+"/odata/Product", 1
	for page < n {
		body, err := c.get(ctx, url, t.auth, true)
		if err != nil {
			return pageLink{}, err
		}
		var p struct {
			NextLink string `json:"@odata.nextLink"`
		}
		if err := json.Unmarshal(body, &p); err != nil {
			return pageLink{}, fmt.Errorf("page %d: %w", page, err)
		}
		if p.NextLink == "" {
			break
		}
		url, page = p.NextLink, page+1
	}
	return pageLink{URL: url, Page: page, Walk: time.Since(start).Seconds()}, nil
}

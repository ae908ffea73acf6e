package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
)

// seedOptions are the settings of the seed command.
type seedOptions struct {
	DB                        string
	Products, Categories      int
	LinksPerProduct           float64
	AdminEmail, AdminPassword string
	RandomSeed                uint64
	// Progress receives the progress bars; nil: none.
	Progress io.Writer
}

func defaultSeedOptions() seedOptions {
	return seedOptions{Products: 100000, Categories: 200, LinksPerProduct: 2,
		AdminEmail: "admin@example.com", AdminPassword: "loadbench-admin", RandomSeed: 1}
}

// seedResult tells what seedStore wrote.
type seedResult struct {
	Products, Categories, Links int
	Elapsed                     time.Duration
}

// seedStore migrates and seeds the store database as the store server's first start does, then writes the
// catalog: categories, products and their links.
func seedStore(ctx context.Context, o seedOptions) (seedResult, error) {
	if o.Products < 1 || o.Categories < 1 || o.LinksPerProduct < 1 || o.LinksPerProduct > 3 {
		return seedResult{}, fmt.Errorf("seed: need at least 1 product and 1 category, and 1 to 3 links per product")
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	start := time.Now()
	// The store server's own start applies the migrations and the first-start seed.
	srv, err := startStore(ctx, o.DB, o.AdminEmail, o.AdminPassword, 4, io.Discard)
	if err != nil {
		return seedResult{}, err
	}
	if err := srv.stop(); err != nil {
		return seedResult{}, err
	}
	db, err := openDB(o.DB, 2)
	if err != nil {
		return seedResult{}, err
	}
	defer db.Close()
	var existing int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM product").Scan(&existing); err != nil {
		return seedResult{}, err
	}
	if existing > 0 {
		return seedResult{}, fmt.Errorf("seed: the database already holds %d products; seed a new database", existing)
	}
	model, err := entities.NewModel()
	if err != nil {
		return seedResult{}, err
	}
	g := newCatalog(o)
	tables := []*bulkTable{g.categoryTable(model), g.productTable(model), g.linkTable(model)}
	for _, t := range tables {
		if err := writeTable(ctx, db, t, o.Progress); err != nil {
			return seedResult{}, err
		}
	}
	// As after any bulk load, the planner's statistics are brought up to date, so that the first measurement
	// meets the plans of a store of this size (SQLite keeps them in sqlite_stat1). On PostgreSQL the tables are
	// vacuumed too, which sets their visibility map, as autovacuum would within minutes: until then an index-only
	// scan (a $count, the keys of a deep $skip) still reads every table row it steps over.
	analyze := "ANALYZE "
	if isPostgres(o.DB) {
		analyze = "VACUUM ANALYZE "
	}
	for _, t := range tables {
		if _, err := db.ExecContext(ctx, analyze+db.Dialect().QuoteIdent(t.table)); err != nil {
			return seedResult{}, fmt.Errorf("analyze %s: %w", t.table, err)
		}
	}
	res := seedResult{Products: o.Products, Categories: o.Categories, Links: len(g.links), Elapsed: time.Since(start)}
	fmt.Fprintf(o.Progress, "seeded %d products, %d categories and %d links in %s\n", res.Products, res.Categories,
		res.Links, res.Elapsed.Round(100*time.Millisecond))
	return res, nil
}

// catalog generates the rows of the catalog. Every value is a function of the row number and the random seed,
// so the same options give the same catalog (but for the keys, which odata.NewID makes).
type catalog struct {
	seed        uint64
	products    []string // keys
	categories  []string
	links       []link
	createdBase time.Time
}

// link is a row of product_category.
type link struct {
	product, category int
	order             int
}

func newCatalog(o seedOptions) *catalog {
	g := &catalog{seed: o.RandomSeed, createdBase: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	g.categories = make([]string, o.Categories)
	for i := range g.categories {
		g.categories[i] = odata.NewID()
	}
	g.products = make([]string, o.Products)
	for i := range g.products {
		g.products[i] = odata.NewID()
	}
	g.links = g.makeLinks(o.LinksPerProduct)
	return g
}

// hash returns a pseudo-random number for row i and field f (splitmix64).
func (g *catalog) hash(i int, f uint64) uint64 {
	z := g.seed + uint64(i)*0x9e3779b97f4a7c15 + f*0xbf58476d1ce4e5b9
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// makeLinks gives each product 1 to 3 distinct categories, avg of them on average.
func (g *catalog) makeLinks(avg float64) []link {
	n := len(g.categories)
	links := make([]link, 0, int(float64(len(g.products))*avg)+len(g.products))
	for p := range g.products {
		// k is floor(avg) or one more, with the probability of the fraction.
		k := int(avg)
		if float64(g.hash(p, 1)%1000)/1000 < avg-float64(k) {
			k++
		}
		k = min(k, 3, n)
		first := int(g.hash(p, 2) % uint64(n))
		step := 1
		if n > 2 {
			step = 1 + int(g.hash(p, 3)%uint64((n-1)/2))
		}
		for j := range k {
			links = append(links, link{product: p, category: (first + j*step) % n, order: j})
		}
	}
	return links
}

var (
	adjectives = []string{"Compact", "Classic", "Modern", "Rustic", "Elegant", "Sturdy", "Handmade", "Vintage",
		"Minimal", "Deluxe", "Portable", "Folding", "Large", "Small", "Bright", "Quiet"}
	materials = []string{"oak", "walnut", "brass", "steel", "glass", "ceramic", "linen", "wool", "copper", "bamboo",
		"marble", "leather"}
	// nouns: one product in twenty is a lamp, which $filter=contains(Name,'lamp') finds.
	nouns = []string{"lamp", "chair", "table", "shelf", "mug", "kettle", "pen", "notebook", "rug", "clock", "vase",
		"bowl", "desk", "stool", "bench", "mirror", "cushion", "blanket", "candle", "frame"}
)

func (g *catalog) words(i int) (adj, material, noun string) {
	return adjectives[g.hash(i, 10)%uint64(len(adjectives))], materials[g.hash(i, 11)%uint64(len(materials))],
		nouns[g.hash(i, 12)%uint64(len(nouns))]
}

func (g *catalog) productName(i int) string {
	adj, material, noun := g.words(i)
	return adj + " " + material + " " + noun + " " + strconv.Itoa(i+1)
}

// cents returns an amount of money with two decimals.
func cents(c uint64) decimal.Decimal { return decimal.New(int64(c), -2) }

func (g *catalog) price(i int) decimal.Decimal { return cents(100 + g.hash(i, 20)%99900) } // 1.00 to 999.99

func (g *catalog) created(i int) time.Time {
	return g.createdBase.Add(time.Duration(i)*time.Second + time.Duration(g.hash(i, 30)%1000)*time.Millisecond)
}

// productTable is the product table: every column of a product a shop fills, the others their defaults.
func (g *catalog) productTable(m *edm.Model) *bulkTable {
	return &bulkTable{table: "product", typ: m.EntityType("Product"), rows: len(g.products),
		values: map[string]func(i int) any{
			"id":   func(i int) any { return g.products[i] },
			"name": func(i int) any { return g.productName(i) },
			"se_name": func(i int) any {
				return strings.ToLower(strings.ReplaceAll(g.productName(i), " ", "-"))
			},
			"short_description": func(i int) any {
				adj, material, noun := g.words(i)
				return "A " + strings.ToLower(adj) + " " + noun + " of " + material + ", made to last."
			},
			"full_description": func(i int) any {
				adj, material, noun := g.words(i)
				return "This " + strings.ToLower(adj) + " " + noun + " is made of " + material + " in a small " +
					"workshop. It is finished by hand, checked twice and packed in recycled paper. Care: wipe with a " +
					"dry cloth; keep away from direct heat. Ships within two working days."
			},
			"sku":                      func(i int) any { return fmt.Sprintf("LB-%07d", i+1) },
			"manufacturer_part_number": func(i int) any { return fmt.Sprintf("MPN-%06d", g.hash(i, 40)%1000000) },
			"gtin":                     func(i int) any { return fmt.Sprintf("%013d", g.hash(i, 41)%10000000000000) },
			"meta_keywords": func(i int) any {
				_, material, noun := g.words(i)
				return noun + ", " + material
			},
			"meta_title":             func(i int) any { return g.productName(i) },
			"show_on_home_page":      func(i int) any { return i%50 == 0 },
			"mark_as_new":            func(i int) any { return g.hash(i, 50)%10 == 0 },
			"display_order":          func(i int) any { return int64(g.hash(i, 51) % 100) },
			"allow_customer_reviews": func(i int) any { return true },
			"price":                  func(i int) any { return g.price(i) },
			"old_price": func(i int) any {
				if g.hash(i, 21)%4 != 0 {
					return decimal.Zero
				}
				return g.price(i).Mul(decimal.NewFromInt(6)).Div(decimal.NewFromInt(5)).Round(2)
			},
			"product_cost":               func(i int) any { return g.price(i).Div(decimal.NewFromInt(2)).Round(2) },
			"stock_quantity":             func(i int) any { return int64(g.hash(i, 52) % 500) },
			"display_stock_availability": func(i int) any { return true },
			"is_free_shipping":           func(i int) any { return i%10 == 0 },
			"weight":                     func(i int) any { return cents(g.hash(i, 53) % 5000) },
			"length":                     func(i int) any { return cents(g.hash(i, 54) % 20000) },
			"width":                      func(i int) any { return cents(g.hash(i, 55) % 20000) },
			"height":                     func(i int) any { return cents(g.hash(i, 56) % 20000) },
			"created_on_utc":             func(i int) any { return g.created(i) },
			"updated_on_utc": func(i int) any {
				return g.created(i).Add(time.Duration(g.hash(i, 31)%100000) * time.Second)
			},
		}}
}

// categoryTable is the category table: the first fifth are top-level categories, the others their children.
func (g *catalog) categoryTable(m *edm.Model) *bulkTable {
	top := max(1, len(g.categories)/5)
	name := func(i int) string { return fmt.Sprintf("Category %03d", i+1) }
	return &bulkTable{table: "category", typ: m.EntityType("Category"), rows: len(g.categories),
		values: map[string]func(i int) any{
			"id":      func(i int) any { return g.categories[i] },
			"name":    func(i int) any { return name(i) },
			"se_name": func(i int) any { return fmt.Sprintf("category-%03d", i+1) },
			"description": func(i int) any {
				return "Everything of " + name(i) + ", chosen for the shop."
			},
			"parent_category_id": func(i int) any {
				if i < top {
					return nil
				}
				return g.categories[i%top]
			},
			"include_in_top_menu": func(i int) any { return i < top },
			"display_order":       func(i int) any { return int64(i) },
			"page_size":           func(i int) any { return int64(24) },
			"created_on_utc":      func(i int) any { return g.createdBase },
			"updated_on_utc":      func(i int) any { return g.createdBase },
		}}
}

// linkTable is the product_category table.
func (g *catalog) linkTable(m *edm.Model) *bulkTable {
	return &bulkTable{table: "product_category", typ: m.EntityType("ProductCategory"), rows: len(g.links),
		values: map[string]func(i int) any{
			"product_id":          func(i int) any { return g.products[g.links[i].product] },
			"category_id":         func(i int) any { return g.categories[g.links[i].category] },
			"is_featured_product": func(i int) any { return g.hash(i, 60)%20 == 0 },
			"display_order":       func(i int) any { return int64(g.links[i].order) },
		}}
}

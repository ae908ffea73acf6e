package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/postgres"
	"github.com/storekit/store/odata/sqldb"
)

// planCases exercise the whole read planner: scopes, keys, $select, $expand, collections, $search and a resumed
// page. A query containing {token} gets the $skiptoken after the second row of the same query's first page.
var planCases = []struct{ path, query string }{
	{"Product('p01')", ""},
	{"Product('p01')", "$select=Name,Dimensions/Width&$expand=Manufacturer($select=Name)"},
	{"Product('p05')", "$select=*,Thumbnail"},
	{"Customer('ALICE@example.com')", "$select=LastName,BillingAddress/Location"},
	{"OrderItem(OrderId='o1',LineNumber=2)", "$expand=Product($select=Name)"},
	{"Category('c1')/Products", "$orderby=Price desc&$top=2&$select=Name"},
	{"Customer('alice@example.com')/Addresses", "$filter=City ne 'Paris'"},
	{"Customer('carol@example.org')/Addresses('a3')/Country", ""},
	{"Order('o1')/Items", "$count=true"},
	{"Product", "$filter=Id in ('p01','p03')&$select=Id,Tags,Sizes"},
	{"Product", "$filter=Id in ('p01','p02','p06')&$select=Id&$expand=Categories($orderby=Name;$top=1;$skip=1;$count=true;$expand=Parent($select=Name))"},
	{"Product", "$filter=Id in ('p01','p08')&$select=Id&$expand=TierPrices/$count,Categories/$ref"},
	{"Product", "$filter=Id eq 'p06'&$select=Id&$expand=*"},
	{"Category", "$filter=Published&$select=Name&$expand=Products($filter=Price gt 100;$select=Name;$expand=Manufacturer($select=Name;$expand=Products($select=Id)))"},
	{"Customer", "$search=smith OR o'neil&$select=Email"},
	{"Product", `$search="phone x" OR NOT laptop&$select=Name&$count=true`},
	{"Product", "$orderby=Rating desc,Name&$select=Name&$top=5&$skiptoken={token}"},
	{"Product", "$orderby=Manufacturer/Name,OldPrice desc&$select=Name&$skiptoken={token}"},
	{"Customer", "$orderby=BillingAddress/City desc&$select=Email&$skiptoken={token}"},
	// The side table of CustomerRoles refers to the id column, not to the key.
	{"Customer", "$filter=CustomerRoles/any(r:r eq 'registered')&$select=CustomerRoles"},
	{"Flagship", "$select=Name&$expand=Categories($select=Name)"},
	{"Flagship/Manufacturer", ""},
	// $crossjoin: one statement over the sets' tables, ordered by every set's key; expanded members carry their
	// columns (and their own expansions), the others their key.
	{"$crossjoin(Product,Manufacturer)", "$filter=Product/Manufacturer/Id eq Manufacturer/Id and Product/Price gt 100&$orderby=Manufacturer/Name,Product/Price desc"},
	{"$crossjoin(Category,Manufacturer)", "$expand=Category($select=Name;$expand=Products($select=Id;$top=1)),Manufacturer($select=Name)&$top=3&$count=true"},
	{"$crossjoin(Product,Manufacturer)", "$orderby=Product/Rating desc&$select=Manufacturer&$skiptoken={token}"},
	{"$crossjoin(Customer,Country)", "$filter=Customer/Addresses/any(a:a/Country/Id eq Country/Id)&$skip=1"},
}

// TestPlanGolden records the full SQL of planned reads (page, count, expansions and collections, the latter
// for the rows the page returned) for both dialects, and executes all of it.
func TestPlanGolden(t *testing.T) {
	m := builtModel(t)
	dbs := fixtureDBs(t, m)
	var b strings.Builder
	b.WriteString("# Planned reads: the rows (keys) and every statement of each dialect with its arguments.\n" +
		"# go test -update rewrites this file.\n\n")
	for _, c := range planCases {
		query := c.query
		if strings.Contains(query, "{token}") {
			first := strings.Replace(query, "&$skiptoken={token}", "", 1)
			p := newPlanner(m, dbs[0].Dialect())
			r, err := p.Read(scopeOf(t, m, c.path), encodeOptions(first))
			if err != nil {
				t.Fatalf("Read(%s?%s) = %v", c.path, first, err)
			}
			rows, _, err := fetch(dbs[0], r, 2)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := r.SkipToken(rows[1])
			if err != nil {
				t.Fatal(err)
			}
			query = strings.Replace(query, "{token}", tok, 1)
		}
		fmt.Fprintf(&b, "### %s?%s\n", c.path, query)
		var want string
		for i, db := range dbs {
			out, keys, err := planRun(t, db, c.path, query)
			if err != nil {
				t.Errorf("%s: %s?%s: %v", db.Dialect().Name(), c.path, query, err)
				break
			}
			if i == 0 {
				want = keys
				fmt.Fprintf(&b, "rows: %s\n", keys)
			} else if keys != want {
				t.Errorf("%s: %s?%s: rows %s, want %s", db.Dialect().Name(), c.path, query, keys, want)
			}
			b.WriteString(out)
		}
		if len(dbs) == 1 {
			// Without PostgreSQL, still record its SQL (for the same link values as SQLite's rows).
			out, err := planText(t, c.path, query, postgres.Dialect{}, dbs[0])
			if err != nil {
				t.Error(err)
			}
			b.WriteString(out)
		}
		b.WriteByte('\n')
	}
	golden(t, "plan.golden", b.String())
}

// planRun plans and executes one read with its expansions (recursively) and collections on db.
func planRun(t *testing.T, db *dbtest.DB, path, query string) (string, string, error) {
	m := builtModel(t)
	p := newPlanner(m, db.Dialect())
	r, err := p.Read(scopeOf(t, m, path), encodeOptions(query))
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	name := db.Dialect().Name()
	s, args := r.Select(100)
	fmt.Fprintf(&b, "%s select: %s\n  args: %s\n", name, s, formatArgs(args))
	rows, keys, err := fetchSQL(db, s, args, r.Projection)
	if err != nil {
		return "", "", err
	}
	if !r.Single() {
		cs, ca := r.Count()
		fmt.Fprintf(&b, "%s count: %s\n  args: %s\n", name, cs, formatArgs(ca))
		if _, err := count(db, cs, ca); err != nil {
			return "", "", err
		}
	}
	summary := strings.Join(keys, " ")
	sub, err := children(db, name, r.Projection, rows, 1)
	if err != nil {
		return "", "", err
	}
	b.WriteString(sub.sql)
	if sub.keys != "" {
		summary += " {" + sub.keys + "}"
	}
	for _, member := range r.Members() {
		memberRows := make([][]any, len(rows))
		for i, row := range rows {
			memberRows[i] = row[member.Offset : member.Offset+len(member.Columns)]
		}
		sub, err := children(db, name, &member.Projection, memberRows, 1)
		if err != nil {
			return "", "", err
		}
		b.WriteString(sub.sql)
		if sub.keys != "" {
			summary += " " + member.Set.Name + "{" + sub.keys + "}"
		}
	}
	return b.String(), summary, nil
}

type childOut struct{ sql, keys string }

// children runs the collection and expansion queries of a page, and those of the children's children.
func children(db *dbtest.DB, name string, proj *plan.Projection, rows [][]any, depth int) (childOut, error) {
	var out childOut
	var sum []string
	indent := strings.Repeat("  ", depth)
	for _, coll := range proj.Collections {
		s, args := coll.Select(rows)
		out.sql += fmt.Sprintf("%s%s collection %s: %s\n%s  args: %s\n", indent, name, coll.Property.Name, s, indent, formatArgs(args))
		if s == "" {
			continue
		}
		crows, _, err := fetchSQL(db, s, args, nil)
		if err != nil {
			return out, err
		}
		sum = append(sum, fmt.Sprintf("%s:%d", coll.Property.Name, len(crows)))
	}
	for _, e := range proj.Expands {
		s, args := e.Select(rows)
		out.sql += fmt.Sprintf("%s%s expand %s: %s\n%s  args: %s\n", indent, name, e.Nav.Name, s, indent, formatArgs(args))
		if e.WithCount || e.CountOnly {
			cs, ca := e.Counts(rows)
			out.sql += fmt.Sprintf("%s%s counts %s: %s\n%s  args: %s\n", indent, name, e.Nav.Name, cs, indent, formatArgs(ca))
			if cs != "" {
				crows, _, err := fetchSQL(db, cs, ca, nil)
				if err != nil {
					return out, err
				}
				var counts []string
				for _, cr := range crows {
					counts = append(counts, fmt.Sprint(cr[len(cr)-1]))
				}
				sum = append(sum, e.Nav.Name+"/$count:"+strings.Join(counts, ","))
			}
		}
		if s == "" {
			continue
		}
		crows, _, err := fetchSQL(db, s, args, nil)
		if err != nil {
			return out, err
		}
		var keys []string
		inner := make([][]any, len(crows))
		for i, cr := range crows {
			inner[i] = cr[len(e.Link):]
			k, err := keyString(&e.Projection, inner[i])
			if err != nil {
				return out, err
			}
			keys = append(keys, k)
		}
		sum = append(sum, e.Nav.Name+":"+strings.Join(keys, ","))
		sub, err := children(db, name, &e.Projection, inner, depth+1)
		if err != nil {
			return out, err
		}
		out.sql += sub.sql
		if sub.keys != "" {
			sum = append(sum, "{"+sub.keys+"}")
		}
	}
	out.keys = strings.Join(sum, " ")
	return out, nil
}

// planText renders the statements of a read for dialect d, with link values from rows read on db.
func planText(t *testing.T, path, query string, d sqldb.Dialect, db *dbtest.DB) (string, error) {
	m := builtModel(t)
	r, err := newPlanner(m, d).Read(scopeOf(t, m, path), encodeOptions(query))
	if err != nil {
		return "", err
	}
	rd, err := newPlanner(m, db.Dialect()).Read(scopeOf(t, m, path), encodeOptions(query))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	s, args := r.Select(100)
	fmt.Fprintf(&b, "%s select: %s\n  args: %s\n", d.Name(), s, formatArgs(args))
	if !r.Single() {
		cs, ca := r.Count()
		fmt.Fprintf(&b, "%s count: %s\n  args: %s\n", d.Name(), cs, formatArgs(ca))
	}
	ds, dargs := rd.Select(100)
	rows, _, err := fetchSQL(db, ds, dargs, rd.Projection)
	if err != nil {
		return "", err
	}
	var walk func(proj *plan.Projection, dproj *plan.Projection, rows [][]any, depth int) error
	walk = func(proj, dproj *plan.Projection, rows [][]any, depth int) error {
		indent := strings.Repeat("  ", depth)
		for _, coll := range proj.Collections {
			s, args := coll.Select(rows)
			fmt.Fprintf(&b, "%s%s collection %s: %s\n%s  args: %s\n", indent, d.Name(), coll.Property.Name, s, indent, formatArgs(args))
		}
		for i, e := range proj.Expands {
			s, args := e.Select(rows)
			fmt.Fprintf(&b, "%s%s expand %s: %s\n%s  args: %s\n", indent, d.Name(), e.Nav.Name, s, indent, formatArgs(args))
			if e.WithCount || e.CountOnly {
				cs, ca := e.Counts(rows)
				fmt.Fprintf(&b, "%s%s counts %s: %s\n%s  args: %s\n", indent, d.Name(), e.Nav.Name, cs, indent, formatArgs(ca))
			}
			de := dproj.Expands[i]
			ds, dargs := de.Select(rows)
			if ds == "" {
				continue
			}
			crows, _, err := fetchSQL(db, ds, dargs, nil)
			if err != nil {
				return err
			}
			inner := make([][]any, len(crows))
			for j, cr := range crows {
				inner[j] = cr[len(de.Link):]
			}
			if err := walk(&e.Projection, &de.Projection, inner, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err = walk(r.Projection, rd.Projection, rows, 1); err != nil {
		return "", err
	}
	for i, member := range r.Members() {
		memberRows := make([][]any, len(rows))
		for j, row := range rows {
			memberRows[j] = row[member.Offset : member.Offset+len(member.Columns)]
		}
		if err := walk(&member.Projection, &rd.Members()[i].Projection, memberRows, 1); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// TestDeepSkip reads pages with $skip in two steps (the keys of the page, then their rows) and checks that each
// returns the rows the one-step read returns, on both databases: plain and composite keys, scope conditions,
// filters, and orders through a join.
func TestDeepSkip(t *testing.T) {
	m := builtModel(t)
	dbs := fixtureDBs(t, m)
	for _, c := range []struct{ path, query string }{
		{"Product", "$orderby=Price desc&$skip=2&$top=3&$select=Name"},
		{"Product", "$skip=1"},
		{"Product", "$filter=Price gt 10&$orderby=Name&$skip=3&$count=true&$expand=Categories($select=Name)"},
		{"Product", "$orderby=Manufacturer/Name,OldPrice desc&$select=Name&$skip=2"},
		{"Category('c1')/Products", "$orderby=Price desc&$skip=1&$select=Name"},
		{"Order('o1')/Items", "$orderby=Quantity desc&$skip=1"},
		{"OrderItem", "$skip=2&$top=2"},
		{"Customer", "$orderby=BillingAddress/City desc&$select=Email&$skip=1"},
	} {
		for _, db := range dbs {
			_, want, err := planRun(t, db, c.path, c.query)
			if err != nil {
				t.Fatalf("%s: %s?%s: %v", db.Dialect().Name(), c.path, c.query, err)
			}
			restore := plan.SetDeepSkip(1)
			out, got, err := planRun(t, db, c.path, c.query)
			restore()
			if err != nil {
				t.Fatalf("%s: %s?%s in two steps: %v", db.Dialect().Name(), c.path, c.query, err)
			}
			if !strings.Contains(out, " IN (SELECT ") {
				t.Errorf("%s: %s?%s: no two-step read in\n%s", db.Dialect().Name(), c.path, c.query, out)
			}
			if got != want {
				t.Errorf("%s: %s?%s in two steps: rows %s, want %s", db.Dialect().Name(), c.path, c.query, got, want)
			}
		}
	}
}

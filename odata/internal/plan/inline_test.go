package plan_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/plan"
)

// TestInlineCollections reads collections of primitives in the owner's row (Options.InlineCollections), at the
// top level and in expansions, and checks that every collection of the ETag has its column.
func TestInlineCollections(t *testing.T) {
	m := builtModel(t)
	cases := []struct {
		path, query string
		want        []string // per row: the key, then each selected collection as JSON
	}{
		{"Product", "$filter=Id in ('p01','p03','p05')&$select=Id,Tags,Sizes",
			[]string{`p01 ["laptop","computer"] [13,15]`, `p03 ["cotton","shirt","Sale"] [1,2,3]`, `p05 [] []`}},
		{"Product('p04')", "$select=Sizes", []string{`p04 []`}},
		// The side table refers to the id column, not to the key (Email).
		{"Customer", "$select=Email,CustomerRoles",
			[]string{`Alice@Example.com ["admin","registered"]`, `bob@example.com ["registered"]`, `carol@example.org []`, `dave@example.com ["guest"]`}},
		{"Customer('BOB@example.com')", "", []string{`bob@example.com ["registered"]`}},
	}
	for _, db := range fixtureDBs(t, m) {
		p := plan.NewPlanner(m, db.Dialect(), plan.Options{InlineCollections: true, CaseInsensitiveKeys: []string{"Customer"}})
		for _, c := range cases {
			r, err := p.Read(scopeOf(t, m, c.path), encodeOptions(c.query))
			if err != nil {
				t.Fatalf("Read(%s?%s) = %v", c.path, c.query, err)
			}
			if len(r.Collections) != 0 {
				t.Errorf("Read(%s?%s): %d collection queries, want none", c.path, c.query, len(r.Collections))
			}
			rows, keys, err := fetch(db, r, 100)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, row := range rows {
				line := keys[i]
				for j, col := range r.Columns {
					if n := len(col.Path); n == 1 && col.Path[0].Collection && col.Selected {
						line += " " + compactArray(t, row[j])
					}
				}
				got = append(got, line)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s: Read(%s?%s) rows mismatch (-want +got):\n%s", db.Dialect().Name(), c.path, c.query, diff)
			}
		}
		// Collections of the ETag are read when not selected; selected ones only in expansions that ask.
		r, err := p.Read(scopeOf(t, m, "Manufacturer"), encodeOptions("$filter=Id eq 'm2'&$expand=Products($select=Name;$filter=Id eq 'p06')"))
		if err != nil {
			t.Fatal(err)
		}
		e := r.Expands[0]
		etag := map[string]bool{}
		for _, i := range e.ETag {
			etag[e.Columns[i].Path[0].Name] = true
		}
		for _, name := range []string{"Tags", "Sizes"} {
			if !etag[name] {
				t.Errorf("expanded Products: ETag lacks the collection %s", name)
			}
		}
		rows, _, err := fetch(db, r, 100)
		if err != nil {
			t.Fatal(err)
		}
		s, args := e.Select(rows)
		crows, _, err := fetchSQL(db, s, args, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(crows) != 1 {
			t.Fatalf("expanded Products: %d rows, want 1", len(crows))
		}
		var got []string
		for j, col := range e.Columns {
			if len(col.Path) == 1 && col.Path[0].Collection {
				if col.Selected {
					t.Errorf("expanded Products: %s is selected", col.Path[0].Name)
				}
				got = append(got, col.Path[0].Name+"="+compactArray(t, crows[0][len(e.Link)+j]))
			}
		}
		if diff := cmp.Diff([]string{`Tags=["phone","5g"]`, `Sizes=[6]`}, got); diff != "" {
			t.Errorf("%s: expanded collections mismatch (-want +got):\n%s", db.Dialect().Name(), diff)
		}
	}
}

// compactArray returns the aggregated JSON array of a column as compact JSON ("[]" for NULL).
func compactArray(t *testing.T, v any) string {
	t.Helper()
	var text string
	switch x := v.(type) {
	case nil:
		return "[]"
	case string:
		text = x
	case []byte:
		text = string(x)
	default:
		t.Fatalf("aggregated column of type %T", v)
	}
	var items []any
	if err := json.Unmarshal([]byte(text), &items); err != nil {
		t.Fatalf("aggregated column %q: %v", text, err)
	}
	parts := make([]string, len(items))
	for i, it := range items {
		b, _ := json.Marshal(it)
		parts[i] = string(b)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// TestScopeParent checks Scope.Parent on the scopes of navigation paths.
func TestScopeParent(t *testing.T) {
	m := builtModel(t)
	for _, c := range []struct {
		path string
		want string // the parent's navigations, "-" without a parent
	}{
		{"Product", "-"},
		{"Product('p01')", "-"},
		{"Category('c1')/Products", ""},
		{"Customer('x')/Addresses('a1')/Country", "Addresses"},
	} {
		s := scopeOf(t, m, c.path)
		parent, ok := s.Parent()
		got := "-"
		if ok {
			var names []string
			for _, st := range parent.Path {
				names = append(names, st.Nav.Name)
			}
			got = strings.Join(names, "/")
			if parent.Set != s.Set || fmt.Sprint(parent.Key) != fmt.Sprint(s.Key) {
				t.Errorf("Scope(%q).Parent() changed the set or key", c.path)
			}
		}
		if got != c.want {
			t.Errorf("Scope(%q).Parent() = %q, want %q", c.path, got, c.want)
		}
	}
	_ = edm.KindString
}

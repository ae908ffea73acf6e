package entities

import (
	"context"
	"strings"
	"testing"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/sqldb"
)

func TestSlug(t *testing.T) {
	long := strings.Repeat("abcdefghi ", 30) // 300 characters
	tests := []struct {
		in, want string
	}{
		{"Laptop Pro 14", "laptop-pro-14"},
		{"USB-C Cable 1 m", "usb-c-cable-1-m"},
		{"  Books & Media  ", "books-media"},
		{"Men's Shirts", "mens-shirts"},
		{"Men’s Shirts", "mens-shirts"},
		{"1.5 m cable", "1-5-m-cable"},
		{"C++/C#", "c-c"},
		{"Crème Brûlée", "creme-brulee"},
		{"Straße", "strasse"},
		{"ŁÓDŹ", "lodz"},
		{"Æsop's Fables", "aesops-fables"},
		{"already-a-slug", "already-a-slug"},
		{"--a--b--", "a-b"},
		{"UPPER_snake_case", "upper-snake-case"},
		{"日本語 Tokyo", "tokyo"},
		{"日本語", ""},
		{"!!!", ""},
		{"", ""},
		{"tab\tand\nnewline", "tab-and-newline"},
		{"x" + strings.Repeat("é", 250), "x" + strings.Repeat("e", 199)},
		{long, strings.TrimRight(strings.Repeat("abcdefghi-", 20), "-")},
		{strings.Repeat("a", 199) + " b", strings.Repeat("a", 199)},
	}
	for _, tt := range tests {
		got := slug(tt.in)
		if got != tt.want {
			t.Errorf("slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if len(got) > maxSeNameLength || strings.Trim(got, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" ||
			strings.Contains(got, "--") || strings.HasPrefix(got, "-") || strings.HasSuffix(got, "-") {
			t.Errorf("slug(%q) = %q is not a slug", tt.in, got)
		}
	}
}

func TestSeNameBase(t *testing.T) {
	tests := []struct{ seName, name, want string }{
		{"", "Laptop Pro", "laptop-pro"},
		{"Custom Slug", "Laptop Pro", "custom-slug"},
		{"!!!", "Laptop Pro", "laptop-pro"},
		{"", "日本語", "product"},
	}
	for _, tt := range tests {
		if got := seNameBase(tt.seName, tt.name, "product"); got != tt.want {
			t.Errorf("seNameBase(%q, %q) = %q, want %q", tt.seName, tt.name, got, tt.want)
		}
	}
}

func TestFreeSeName(t *testing.T) {
	full := strings.Repeat("a", maxSeNameLength)
	dashAtCut := strings.Repeat("a", maxSeNameLength-3) + "-bc" // cutting 2 characters leaves a trailing "-"
	tests := []struct {
		base  string
		taken []string
		want  string
	}{
		{"shoes", nil, "shoes"},
		{"shoes", []string{"shoes-2"}, "shoes"},
		{"shoes", []string{"shoes"}, "shoes-2"},
		{"shoes", []string{"shoes", "shoes-2", "shoes-3"}, "shoes-4"},
		{"shoes", []string{"shoes", "shoes-3"}, "shoes-2"},
		{full, []string{full}, strings.Repeat("a", maxSeNameLength-2) + "-2"},
		{dashAtCut, []string{dashAtCut}, strings.Repeat("a", maxSeNameLength-3) + "-2"},
	}
	for _, tt := range tests {
		taken := map[string]bool{}
		for _, s := range tt.taken {
			taken[s] = true
		}
		got := freeSeName(tt.base, taken)
		if got != tt.want || len(got) > maxSeNameLength {
			t.Errorf("freeSeName(%q, %v) = %q, want %q", tt.base, tt.taken, got, tt.want)
		}
	}
}

func TestUniqueSeName(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		long := strings.Repeat("x", 250)
		exec := func(query string, args ...any) {
			t.Helper()
			q, err := db.Dialect().Placeholder().ReplacePlaceholders(query)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(q, args...); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
		}
		// Demo catalog: products laptop-pro-14, ...; categories electronics, computers, books; manufacturers
		// northwind-devices, contoso-press; fixture: manufacturer acme.
		exec(`INSERT INTO category (id, name, se_name) VALUES (?, 'Shoes', 'shoes'), (?, 'Shoes', 'shoes-2')`,
			odata.NewID(), odata.NewID())
		exec(`INSERT INTO product (id, name, se_name) VALUES (?, 'X', ?)`, odata.NewID(), strings.Repeat("x", maxSeNameLength))
		for _, slug := range []string{"lamp-1", "lamp-10", "lamp-1-2", "lamp-1a", "bulb-10"} {
			exec(`INSERT INTO product (id, name, se_name) VALUES (?, 'X', ?)`, odata.NewID(), slug)
		}
		tests := []struct {
			name                      string
			table, id, seName, entity string
			want                      string
		}{
			{"OKFree", "product", "", "", "Boots", "boots"},
			{"OKTakenByCategory", "product", "", "", "Shoes", "shoes-3"},
			{"OKTakenByManufacturer", "category", "", "", "Contoso Press", "contoso-press-2"},
			{"OKTakenByProduct", "manufacturer", "", "", "Laptop Pro 14", "laptop-pro-14-2"},
			{"OKOwnSlug", "manufacturer", f.manufacturer, "acme", "Acme", "acme"},
			{"OKOwnSlugOtherTable", "product", f.manufacturer, "acme", "Acme", "acme-2"},
			{"OKGivenNormalized", "product", "", "Books!", "Anything", "books-2"},
			{"OKFallback", "manufacturer", "", "", "???", "manufacturer"},
			{"OKLong", "category", "", "", long, strings.Repeat("x", maxSeNameLength-2) + "-2"},
			{"OKSuffixedNotPrefixed", "product", "", "", "Lamp 1", "lamp-1-3"}, // lamp-10 and lamp-1a are not its
			{"OKOnlyLongerTaken", "product", "", "", "Bulb 1", "bulb-1"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f.inTx(t, func(ctx context.Context, tx *sqldb.Tx) {
					got, err := uniqueSeName(ctx, tx, tt.table, tt.id, tt.seName, tt.entity)
					if err != nil || got != tt.want {
						t.Errorf("uniqueSeName(%q, %q, %q, %q) = %q, %v, want %q", tt.table, tt.id, tt.seName, tt.entity, got, err, tt.want)
					}
				})
			})
		}
	})
}

// TestUniqueSeName_Concurrent checks that two transactions naming an item alike get different slugs: the second
// waits for the first (PostgreSQL advisory lock; SQLite's one writer) and then sees its row.
func TestUniqueSeName_Concurrent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		newFixture(t, db)
		ctx := context.Background()
		insert := func(tx *sqldb.Tx, seName string) error {
			q, err := db.Dialect().Placeholder().ReplacePlaceholders(`INSERT INTO product (id, name, se_name) VALUES (?, 'Tent', ?)`)
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, q, odata.NewID(), seName)
			return err
		}
		tx1, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx1.Rollback()
		first, err := uniqueSeName(ctx, tx1, "product", "", "", "Tent")
		if err != nil {
			t.Fatal(err)
		}
		if err := insert(tx1, first); err != nil {
			t.Fatal(err)
		}
		type result struct {
			s   string
			err error
		}
		done := make(chan result)
		go func() {
			tx2, err := db.BeginTx(ctx, nil)
			if err != nil {
				done <- result{err: err}
				return
			}
			defer tx2.Rollback()
			if err := tx2.QueryRowContext(ctx, "SELECT 1").Scan(new(int)); err != nil { // SQLite: take the write lock
				done <- result{err: err}
				return
			}
			s, err := uniqueSeName(ctx, tx2, "product", "", "", "Tent")
			if err == nil {
				err = insert(tx2, s)
			}
			if err == nil {
				err = tx2.Commit()
			}
			done <- result{s, err}
		}()
		if err := tx1.Commit(); err != nil {
			t.Fatal(err)
		}
		second := <-done
		if first != "tent" || second.err != nil || second.s != "tent-2" {
			t.Errorf("uniqueSeName in two transactions = %q, then %q, %v; want tent, then tent-2", first, second.s, second.err)
		}
	})
}

func TestSeNameRange(t *testing.T) {
	long := strings.Repeat("ab", maxSeNameLength)[:maxSeNameLength]
	for _, tt := range []struct{ base, lo, hi string }{
		{"lamp-1", "lamp-1", "lamp-1."},
		{long, long[:seNamePrefix], long[:seNamePrefix-1] + string(long[seNamePrefix-1]+1)},
	} {
		lo, hi := seNameRange(tt.base)
		if lo != tt.lo || hi != tt.hi {
			t.Errorf("seNameRange(%q) = %q, %q, want %q, %q", tt.base, lo, hi, tt.lo, tt.hi)
		}
		for _, in := range []string{tt.base, withSuffix(tt.base, 2), withSuffix(tt.base, 123456)} {
			if in < lo || in >= hi {
				t.Errorf("seNameRange(%q) = [%q, %q) leaves out the candidate %q", tt.base, lo, hi, in)
			}
		}
	}
}

func TestSeNameLockKeys(t *testing.T) {
	long := strings.Repeat("x", seNameLongBase+1)
	same := [][]string{{"lamp", "lamp-2", "lamp-2-3", "lamp-10"}, {"2024-model", "2024-model-7"}, {long, long + "-2"}}
	for _, group := range same {
		for _, b := range group[1:] {
			if seNameLockKeys(group[0])[0] != seNameLockKeys(b)[0] {
				t.Errorf("root locks of %q and %q differ; candidates of both meet", group[0], b)
			}
		}
	}
	if seNameLockKeys("lamp")[0] == seNameLockKeys("lamps")[0] {
		t.Errorf("lamp and lamps share a lock; their candidates never meet")
	}
	if got := len(seNameLockKeys("lamp")); got != 1 {
		t.Errorf("short base: %d locks, want its root's only", got)
	}
	if got := seNameLockKeys(long); len(got) != 2 || got[1] != seNameLockKey {
		t.Errorf("long base: locks %v, want its root's and the long bases' one", got)
	}
	for base, root := range map[string]string{"lamp-2-3": "lamp", "2024": "2024", "a-b": "a-b", "-2": "-2", "x-": "x-"} {
		if got := seNameRoot(base); got != root {
			t.Errorf("seNameRoot(%q) = %q, want %q", base, got, root)
		}
	}
}

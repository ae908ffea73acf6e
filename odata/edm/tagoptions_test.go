package edm

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTagOptions_Documented: the options the struct deriver applies are the ones the did-you-mean table knows,
// and the package documentation's table names each with the field it sets, in the same order.
func TestTagOptions_Documented(t *testing.T) {
	known := func(options []tagOption) map[string]bool {
		m := map[string]bool{}
		for _, o := range options {
			m[o.name] = o.value
		}
		return m
	}
	applied := map[string]bool{"key": false, "nullable": false, "type": true}
	for name := range flagOptions {
		applied[name] = false
	}
	for name := range valueOptions {
		applied[name] = true
	}
	if diff := cmp.Diff(applied, known(propertyTagOptions)); diff != "" {
		t.Errorf("property options applied vs propertyTagOptions (-applied +table):\n%s", diff)
	}
	navigation := map[string]bool{"nullable": false, "contains": false}
	for name := range navigationOptions {
		navigation[name] = true
	}
	if diff := cmp.Diff(navigation, known(navigationTagOptions)); diff != "" {
		t.Errorf("navigation options applied vs navigationTagOptions (-applied +table):\n%s", diff)
	}

	src, err := os.ReadFile("model.go")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(src), "// The options of a property, with the field")
	table, _, _ = strings.Cut(table, "\n//\n// An unknown option")
	row := regexp.MustCompile(`(?m)^//\t([a-z0-9]+)(=\S+)?\s+((?:[A-Z][A-Za-z]*\.)?[A-Z][A-Za-z0-9]*(?: or [A-Z][A-Za-z]*)?)`)
	var got, want []string
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		got = append(got, m[1]+strings.Repeat("=", min(len(m[2]), 1))+" "+m[3])
	}
	for _, options := range [][]tagOption{propertyTagOptions, navigationTagOptions} {
		for _, o := range options {
			sets := strings.Join(o.sets, " or ")
			if len(o.sets) == 2 {
				_, second, _ := strings.Cut(o.sets[1], ".")
				sets = o.sets[0] + " or " + second
			}
			want = append(want, o.spelling()+" "+sets)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the package documentation's option table (-want +got):\n%s", diff)
	}
}

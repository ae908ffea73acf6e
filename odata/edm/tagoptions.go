package edm

import (
	"fmt"
	"slices"
	"strings"
)

// tagOption is an option of a struct tag and the field of the declarations it sets: the tag spelling differs
// from the Go name (storage= sets Property.DecimalStorage), so an unknown option is looked up by either.
type tagOption struct {
	name  string   // the option as a tag spells it
	value bool     // it takes a value (name=...)
	sets  []string // the fields it sets, as "Type.Field"
}

// propertyTagOptions are the options of a property's tag, in the order of the package documentation's table.
var propertyTagOptions = []tagOption{
	{"key", false, []string{"EntityType.Key"}},
	{"generated", false, []string{"Property.Generated"}},
	{"readonly", false, []string{"Property.ReadOnly"}},
	{"immutable", false, []string{"Property.Immutable"}},
	{"required", false, []string{"Property.Required"}},
	{"searchable", false, []string{"Property.Searchable"}},
	{"lazy", false, []string{"Property.Lazy"}},
	{"nullable", false, []string{"Property.Nullable"}},
	{"stdbase64", false, []string{"Property.StandardBase64"}},
	{"maxlength", true, []string{"Property.MaxLength"}},
	{"precision", true, []string{"Property.Precision"}},
	{"scale", true, []string{"Property.Scale"}},
	{"storage", true, []string{"Property.DecimalStorage", "Property.TimeStorage"}},
	{"default", true, []string{"Property.Default"}},
	{"column", true, []string{"Property.Column"}},
	{"type", true, []string{"Property.Type"}},
	{"description", true, []string{"Property.Description"}},
}

// navigationTagOptions are the options of a navigation's tag, in the order of the package documentation's
// table.
var navigationTagOptions = []tagOption{
	{"fk", true, []string{"Join.SourceColumns", "Join.TargetColumns"}},
	{"fkcolumns", true, []string{"Join.SourceColumns", "Join.TargetColumns"}},
	{"link", true, []string{"Join.Through"}},
	{"linksource", true, []string{"LinkTable.SourceColumns"}},
	{"linktarget", true, []string{"LinkTable.TargetColumns"}},
	{"partner", true, []string{"NavigationProperty.Partner"}},
	{"nullable", false, []string{"NavigationProperty.Nullable"}},
	{"contains", false, []string{"NavigationProperty.ContainsTarget"}},
	{"description", true, []string{"NavigationProperty.Description"}},
	{"hierarchy", true, []string{"EntityType.RecursiveHierarchies"}},
}

// unknownOption is the message for the tag option key that none of options is: it names the option meant when
// the key is spelt as the Go field it sets (DecimalStorage for storage=), differs only in case, dashes or
// underscores (MaxLength, max_length), or is a near miss (requird).
func unknownOption(key string, options []tagOption) string {
	msg := fmt.Sprintf("unknown option %q", key)
	if o, ok := meantOption(key, options); ok {
		msg += fmt.Sprintf(": did you mean %s (it sets %s)?", o.spelling(), strings.Join(o.sets, " or "))
	}
	return msg
}

// propertyOptionProblem is the message for the option key that no property has: a navigation's option names the
// tag options that make a navigation, any other the option it probably means (unknownOption).
func propertyOptionProblem(key string) string {
	if o, ok := navigationOnly(key); ok {
		return fmt.Sprintf("option %s applies to navigations only (a field whose tag names fk=, fkcolumns= or link=)", o.spelling())
	}
	return unknownOption(key, propertyTagOptions)
}

// navigationOptionProblem is the message for the option key that no navigation has: a property's option says
// so, any other names the option it probably means (unknownOption).
func navigationOptionProblem(key string) string {
	if slices.ContainsFunc(propertyTagOptions, func(o tagOption) bool { return o.name == key }) {
		return fmt.Sprintf("option %q does not apply to a navigation", key)
	}
	return unknownOption(key, navigationTagOptions)
}

// decimalStorageProblem is the error of storage=s for a Decimal when s is none of the DecimalStorage names: the
// name meant when s is one in another case or spelt as the Go constant (Float or DecimalFloat for float).
func decimalStorageProblem(s string) error {
	for st := DecimalAuto; st <= DecimalFloat; st++ {
		if folded := foldOption(s); folded == st.String() || folded == "decimal"+st.String() {
			return fmt.Errorf("not auto, scaled, exact or float: did you mean storage=%s (it sets Property.DecimalStorage to Decimal%s)?",
				st, strings.ToUpper(st.String()[:1])+st.String()[1:])
		}
	}
	return fmt.Errorf("not auto, scaled, exact or float (DecimalStorage DecimalAuto, DecimalScaled, DecimalExact or DecimalFloat)")
}

// timeStorageProblem is the error of storage=s for a DateTimeOffset or TimeOfDay when s is none of the
// TimeStorage names: the name meant when s is one in another case or spelt as the Go constant (SQL or TimeSQL
// for sql).
func timeStorageProblem(s string) error {
	for st, constant := range [...]string{TimeAuto: "TimeAuto", TimeSQL: "TimeSQL", TimeUnix: "TimeUnix"} {
		if folded := foldOption(s); folded == TimeStorage(st).String() || folded == strings.ToLower(constant) {
			return fmt.Errorf("not auto, sql or unix: did you mean storage=%s (it sets Property.TimeStorage to %s)?",
				TimeStorage(st), constant)
		}
	}
	return fmt.Errorf("not auto, sql or unix (TimeStorage TimeAuto, TimeSQL or TimeUnix)")
}

// navigationOnly returns the option of a navigation named key that properties do not have, if there is one.
func navigationOnly(key string) (tagOption, bool) {
	for _, o := range navigationTagOptions {
		if o.name == key && !slices.ContainsFunc(propertyTagOptions, func(p tagOption) bool { return p.name == key }) {
			return o, true
		}
	}
	return tagOption{}, false
}

// spelling is the option as a tag writes it: "storage=" for an option with a value, "readonly" for a flag.
func (o tagOption) spelling() string {
	if o.value {
		return o.name + "="
	}
	return o.name
}

// meantOption returns the option of options that key probably means: the same up to case, dashes and
// underscores; the name of a field it sets; or, for keys of four letters or more, at most two edits away.
func meantOption(key string, options []tagOption) (tagOption, bool) {
	k := foldOption(key)
	for _, o := range options {
		if k == o.name {
			return o, true
		}
		for _, field := range o.sets {
			_, name, _ := strings.Cut(field, ".")
			if k == foldOption(name) {
				return o, true
			}
		}
	}
	if len(k) < 4 {
		return tagOption{}, false
	}
	for _, o := range options {
		if editDistance(k, o.name) <= 2 {
			return o, true
		}
	}
	return tagOption{}, false
}

// foldOption lower-cases s and drops dashes, underscores and spaces.
func foldOption(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', ' ':
			return -1
		}
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

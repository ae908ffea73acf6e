package edm_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
)

// Structs whose tags spell an option as its Go field, in another case, or nearly right.
type (
	spelledAsField struct {
		Id    int64            `odata:",key"`
		Price *decimal.Decimal `odata:",precision=10,scale=2,DecimalStorage=float"`
	}
	spelledInCase struct {
		Id   int64  `odata:",key"`
		Name string `odata:",MaxLength=20,read_only"`
	}
	spelledNearly struct {
		Id   int64  `odata:",key,generatd"`
		Name string `odata:",requird,searchable,bogus"`
	}
	storageAsConstant struct {
		Id    int64            `odata:",key"`
		Price *decimal.Decimal `odata:",precision=10,scale=2,storage=DecimalFloat"`
		At    time.Time        `odata:",storage=TimeSQL"`
	}
	navigationOnProperty struct {
		Id   int64  `odata:",key"`
		Name string `odata:",partner=Names"`
	}
	navigationSpelledAsField struct {
		Id      int64                       `odata:",key"`
		OwnerId int64                       `odata:",required"`
		Owner   *navigationSpelledAsField   `odata:",fk=OwnerId,ContainsTarget"`
		Others  []*navigationSpelledAsField `odata:",fk=OwnerId,partnr=Owner"`
	}
)

// TestEntityTypesOf_OptionSpelling: an option spelt as the Go field it sets, in another case or with a typo is
// refused with the spelling a tag takes and the field it sets.
func TestEntityTypesOf_OptionSpelling(t *testing.T) {
	for _, tc := range []struct {
		value any
		want  []string
	}{
		{spelledAsField{}, []string{`edm: struct "spelledAsField": field "Price": unknown option "DecimalStorage": did you mean storage= (it sets Property.DecimalStorage or Property.TimeStorage)?`}},
		{spelledInCase{}, []string{
			`edm: struct "spelledInCase": field "Name": unknown option "MaxLength": did you mean maxlength= (it sets Property.MaxLength)?`,
			`edm: struct "spelledInCase": field "Name": unknown option "read_only": did you mean readonly (it sets Property.ReadOnly)?`,
		}},
		{spelledNearly{}, []string{
			`edm: struct "spelledNearly": field "Id": unknown option "generatd": did you mean generated (it sets Property.Generated)?`,
			`edm: struct "spelledNearly": field "Name": unknown option "requird": did you mean required (it sets Property.Required)?`,
			`edm: struct "spelledNearly": field "Name": unknown option "bogus"`,
		}},
		{storageAsConstant{}, []string{
			`edm: struct "storageAsConstant": field "Price": storage=DecimalFloat: not auto, scaled, exact or float: did you mean storage=float (it sets Property.DecimalStorage to DecimalFloat)?`,
			`edm: struct "storageAsConstant": field "At": storage=TimeSQL: not auto, sql or unix: did you mean storage=sql (it sets Property.TimeStorage to TimeSQL)?`,
		}},
		{navigationOnProperty{}, []string{`edm: struct "navigationOnProperty": field "Name": option partner= applies to navigations only (a field whose tag names fk=, fkcolumns= or link=)`}},
		{navigationSpelledAsField{}, []string{
			`edm: struct "navigationSpelledAsField": field "Owner": unknown option "ContainsTarget": did you mean contains (it sets NavigationProperty.ContainsTarget)?`,
			`edm: struct "navigationSpelledAsField": field "Others": unknown option "partnr": did you mean partner= (it sets NavigationProperty.Partner)?`,
		}},
	} {
		_, err := edm.EntityTypesOf(tc.value)
		if err == nil {
			t.Errorf("EntityTypesOf(%T) = nil error, want %q", tc.value, tc.want)
			continue
		}
		if diff := cmp.Diff(tc.want, strings.Split(err.Error(), "\n")); diff != "" {
			t.Errorf("EntityTypesOf(%T) errors mismatch (-want +got):\n%s", tc.value, diff)
		}
	}
}

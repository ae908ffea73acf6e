package gostruct

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

type inner struct {
	A string `odata:"Alpha,key"`
	b string
}

type outer struct {
	inner
	N    int    `odata:",maxlength= 3 ,description=a, b,c"`
	Skip string `odata:"-"`
	Rel  *outer `odata:",fk=X;Y"`
}

// TestFields checks the fields of a struct with an embedded one: names, index paths, options, navigations.
func TestFields(t *testing.T) {
	s := Fields(reflect.TypeFor[outer]())
	want := []Field{
		{Index: []int{0, 0}, GoName: "A", Type: reflect.TypeFor[string](), Name: "Alpha", Options: []Option{{Key: "key"}}},
		{Index: []int{1}, GoName: "N", Type: reflect.TypeFor[int](), Name: "N", Options: []Option{
			{Key: "maxlength", Value: "3", HasValue: true}, {Key: "description", Value: "a, b,c", HasValue: true}}},
		{Index: []int{3}, GoName: "Rel", Type: reflect.TypeFor[*outer](), Name: "Rel", Options: []Option{{Key: "fk", Value: "X;Y", HasValue: true}}},
	}
	if diff := cmp.Diff(want, s.Fields, cmpopts.IgnoreInterfaces(struct{ reflect.Type }{})); diff != "" || s.Err() != nil {
		t.Errorf("Fields(outer) = %v (-want +got):\n%s", s.Err(), diff)
	}
	for i, f := range s.Fields {
		if f.Type != want[i].Type {
			t.Errorf("Fields(outer)[%d].Type = %s, want %s", i, f.Type, want[i].Type)
		}
	}
	if nav := []bool{s.Fields[0].Navigation(), s.Fields[2].Navigation()}; nav[0] || !nav[1] {
		t.Errorf("Navigation() of Alpha, Rel = %v, want false, true", nav)
	}
	if got := List(" X ; Y"); !reflect.DeepEqual(got, []string{"X", "Y"}) {
		t.Errorf("List(%q) = %q, want [X Y]", " X ; Y", got)
	}
	if Fields(reflect.TypeFor[outer]()) != s {
		t.Errorf("Fields(outer) is not cached")
	}
}

package edm_test

import (
	"testing"

	"github.com/storekit/store/odata/edm"
)

func TestEnumType(t *testing.T) {
	flags := &edm.EnumType{Name: "Permissions", Flags: true, Members: []edm.EnumMember{
		{Name: "None", Value: 0}, {Name: "Read", Value: 1}, {Name: "Write", Value: 2}, {Name: "ReadWrite", Value: 3},
		{Name: "Delete", Value: 4},
	}}
	plain := &edm.EnumType{Name: "Status", Members: []edm.EnumMember{{Name: "Pending", Value: 10}, {Name: "Paid", Value: 20}}}
	m := &edm.Model{Namespace: "N", EnumTypes: []*edm.EnumType{flags, plain}}
	// The enums work before and after Build (Build indexes them).
	for _, built := range []bool{false, true} {
		if built {
			if err := m.Build(); err != nil {
				t.Fatal(err)
			}
		}
		if mb, ok := plain.Member("paid"); !ok || mb.Value != 20 {
			t.Errorf("Member(%q) = %v, %v, want Paid", "paid", mb, ok)
		}
		if _, ok := plain.Member("Refunded"); ok {
			t.Errorf("Member(%q) found a member", "Refunded")
		}
		if mb, ok := plain.MemberByValue(10); !ok || mb.Name != "Pending" {
			t.Errorf("MemberByValue(10) = %v, %v, want Pending", mb, ok)
		}
		if _, ok := plain.MemberByValue(11); ok {
			t.Error("MemberByValue(11) found a member")
		}
		formats := []struct {
			e    *edm.EnumType
			v    int64
			want string
		}{
			{plain, 20, "Paid"},
			{plain, 30, "30"},
			{flags, 0, "None"},
			{flags, 3, "ReadWrite"},
			{flags, 5, "Read,Delete"},
			{flags, 7, "ReadWrite,Delete"},
			{flags, 6, "Write,Delete"},
			{flags, 8, "8"},
			{flags, -1, "-1"},
		}
		for _, tt := range formats {
			if got := tt.e.Format(tt.v); got != tt.want {
				t.Errorf("%s.Format(%d) = %q, want %q", tt.e.Name, tt.v, got, tt.want)
			}
		}
		parses := []struct {
			e    *edm.EnumType
			in   string
			want int64
			ok   bool
		}{
			{plain, "Paid", 20, true},
			{plain, "pending", 10, true},
			{plain, "20", 20, true},
			{plain, "21", 0, false},
			{plain, "Paid,Pending", 0, false},
			{plain, "Refunded", 0, false},
			{flags, "Read,Delete", 5, true},
			{flags, "read, write", 3, true},
			{flags, "6", 6, true},
			{flags, "8", 0, false},
			{flags, "Read,Execute", 0, false},
		}
		for _, tt := range parses {
			got, err := tt.e.Parse(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("%s.Parse(%q) = %d, %v, want %d, ok=%v", tt.e.Name, tt.in, got, err, tt.want, tt.ok)
			}
		}
	}
}

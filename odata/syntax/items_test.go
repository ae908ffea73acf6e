package syntax

import (
	"strings"
	"testing"
)

func TestParseSelect(t *testing.T) {
	tests := []struct{ in, want string }{
		{"*", "*"},
		{"Rating,ReleaseDate", "Rating,ReleaseDate"},
		{"Model.*", "Model.*"},
		{"Address/Model.AddressWithLocation/Location", "Address/Model.AddressWithLocation/Location"},
		{"Model.MostPopularName(Location,Kind)", "Model.MostPopularName(Location,Kind)"},
		{"@Core.Messages($top=5)", "@Core.Messages($top=5)"},
		{"Addresses($filter=startswith(City,'H');$top=5;$skip=0;$count=true;$orderby=$it;$search=blue;@c=15)",
			"Addresses($filter=startswith(City,'H');$search=blue;$orderby=$it;$skip=0;$top=5;$count=true;@c=15)"},
		{"Address($select=Street,City)", "Address($select=Street,City)"},
		{"Addresses(top=1)", "Addresses($top=1)"},
	}
	for _, tt := range tests {
		items, err := ParseSelect(tt.in)
		if err != nil {
			t.Errorf("ParseSelect(%q) = %v, want %q", tt.in, err, tt.want)
			continue
		}
		q := &Query{Select: items}
		if got := strings.TrimPrefix(q.String(), "$select="); got != tt.want {
			t.Errorf("ParseSelect(%q) = %q, want %q", tt.in, got, tt.want)
		}
		queryRoundTrip(t, tt.in, q)
	}
}

func TestParseExpand(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Items", "Items"},
		{"Items/$ref", "Items/$ref"},
		{"Items/$count($filter=Name eq 'Hugo')", "Items/$count($filter=Name eq 'Hugo')"},
		{"Customer,Items(expand=Product)", "Customer,Items($expand=Product)"},
		{"Category($levels=4),Category($levels=max)", "Category($levels=4),Category($levels=max)"},
		{"*,*/$ref,*($levels=2)", "*,*/$ref,*($levels=2)"},
		{"Model.VipCustomer/Address/*", "Model.VipCustomer/Address/*"},
		{"$value,Thumbnail", "$value,Thumbnail"},
		{"Items($select=Quantity;$expand=Product($select=Name,Price);@c=15)", "Items($select=Quantity;$expand=Product($select=Name,Price);@c=15)"},
		{"Manager($search='gr(een')", `Manager($search="gr(een")`},
		{"Manager($search=a%3Bb)", "Manager($search=a%3Bb)"},
		{"Sales($compute=Amount mul Product/TaxRate as Tax)", "Sales($compute=Amount mul Product/TaxRate as Tax)"},
		{"A($expand=B($expand=C))", "A($expand=B($expand=C))"},
	}
	for _, tt := range tests {
		items, err := ParseExpand(tt.in)
		if err != nil {
			t.Errorf("ParseExpand(%q) = %v, want %q", tt.in, err, tt.want)
			continue
		}
		q := &Query{Expand: items}
		if got := strings.TrimPrefix(q.String(), "$expand="); got != tt.want {
			t.Errorf("ParseExpand(%q) = %q, want %q", tt.in, got, tt.want)
		}
		queryRoundTrip(t, tt.in, q)
	}
	items, err := ParseExpand("Orders/$ref")
	if err != nil || len(items) != 1 || !items[0].Ref || items[0].Path[0].Name != "Orders" {
		t.Errorf("ParseExpand(%q) = %+v, %v, want one Ref item Orders", "Orders/$ref", items, err)
	}
}

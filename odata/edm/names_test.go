package edm_test

import (
	"testing"

	"github.com/storekit/store/odata/edm"
)

func TestSnakeCase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SeName", "se_name"},
		{"FeaturedProductsOnHomaPage", "featured_products_on_homa_page"},
		{"ID", "id"},
		{"Id", "id"},
		{"CustomerGuid", "customer_guid"},
		{"HTTPServer", "http_server"},
		{"Order", "order"},
		{"CustomerRole", "customer_role"},
		{"StreetAddress2", "street_address2"},
		{"Int32Value", "int32_value"},
		{"PictureID", "picture_id"},
		{"already_snake", "already_snake"},
		{"Mixed_Case", "mixed_case"},
		{"TwoLetterIsoCode", "two_letter_iso_code"},
		{"X", "x"},
		{"", ""},
		{"ÄrgerNis", "ärger_nis"},
	}
	for _, tt := range tests {
		if got := edm.SnakeCase(tt.in); got != tt.want {
			t.Errorf("SnakeCase(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKind(t *testing.T) {
	kinds := []edm.Kind{
		edm.KindString, edm.KindBoolean, edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32,
		edm.KindInt64, edm.KindDecimal, edm.KindDouble, edm.KindSingle, edm.KindDate, edm.KindTimeOfDay,
		edm.KindDateTimeOffset, edm.KindDuration, edm.KindGuid, edm.KindBinary, edm.KindStream,
	}
	for _, k := range kinds {
		name := k.String()
		got, ok := edm.ParseKind(name)
		if !ok || got != k {
			t.Errorf("ParseKind(%q) = %v, %v, want %v, true", name, got, ok, k)
		}
	}
	if got := edm.KindDateTimeOffset.String(); got != "Edm.DateTimeOffset" {
		t.Errorf("KindDateTimeOffset.String() = %q, want %q", got, "Edm.DateTimeOffset")
	}
	if got, ok := edm.ParseKind("edm.int32"); !ok || got != edm.KindInt32 {
		t.Errorf("ParseKind(%q) = %v, %v, want %v, true", "edm.int32", got, ok, edm.KindInt32)
	}
	for _, bad := range []string{"", "String", "Edm.Strin", "Edm.Untyped", "Store.Product"} {
		if got, ok := edm.ParseKind(bad); ok {
			t.Errorf("ParseKind(%q) = %v, true, want false", bad, got)
		}
	}
	if got := edm.KindNone.String(); got != "" {
		t.Errorf("KindNone.String() = %q, want \"\"", got)
	}
}

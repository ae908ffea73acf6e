package odata_test

import (
	"testing"

	"github.com/storekit/store/odata/dbtest"
)

// TestService_BinaryJSON checks that Binary values are written in base64url, as OData JSON has it, and read in
// either alphabet, with or without padding.
func TestService_BinaryJSON(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		f := newFixture(t, db)
		f.seed()
		for _, tc := range []struct {
			sent string
			want string
		}{
			{`"+/+/"`, "-_-_"},
			{`"-_-_"`, "-_-_"},
			{`"AAEC/w=="`, "AAEC_w=="},
			{`"AAEC_w"`, "AAEC_w=="},
			{`"AAEC/w"`, "AAEC_w=="},
			{`""`, ""},
		} {
			got := decodeJSON(t, f.must(200, "PATCH", "/odata/Book('b1')", `{"Stamp":`+tc.sent+`}`).Body)["Stamp"]
			if got != tc.want {
				t.Errorf("PATCH Stamp %s: answer %v, want %q", tc.sent, got, tc.want)
			}
			if got := decodeJSON(t, f.must(200, "GET", "/odata/Book('b1')?$select=Stamp", "").Body)["Stamp"]; got != tc.want {
				t.Errorf("PATCH Stamp %s, then GET: %v, want %q", tc.sent, got, tc.want)
			}
		}
	})
}

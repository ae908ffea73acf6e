package storefront

import (
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"
)

func TestFormatMoney(t *testing.T) {
	for in, want := range map[string]string{
		"19.99": "$19.99", "0": "$0.00", "1234.5": "$1,234.50", "-1": "-$1.00", "999.999": "$1,000.00",
		"1234567.891": "$1,234,567.89", "100": "$100.00", "-0.001": "$0.00", "0.005": "$0.01", "-1234.5": "-$1,234.50",
		"81.97": "$81.97",
	} {
		if got := formatMoney(decimal.RequireFromString(in)); got != want {
			t.Errorf("formatMoney(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNumber_MarshalJSON(t *testing.T) {
	for in, want := range map[string]string{
		"19.99": "19.99", "20.0000": "20", "0": "0", "-1.5": "-1.5", "81.97": "81.97", "0.1": "0.1",
		"922337203685477.5807": "922337203685477.5807",
	} {
		b, err := json.Marshal(struct{ V number }{number(decimal.RequireFromString(in))})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b); got != `{"V":`+want+`}` {
			t.Errorf("json.Marshal(number(%q)) = %s, want %s", in, got, want)
		}
	}
}

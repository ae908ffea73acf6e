package edm_test

import (
	"testing"

	"github.com/storekit/store/odata/edm"
)

// The parsers accept untrusted text from URLs and JSON bodies: they must never panic, and what they accept must
// format back to a form they parse to the same value.

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"P1DT2H3M4.5S", "-PT0.25S", "PT0S", "P106751DT23H47M16.854775807S", "PT", "p1dt1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := edm.ParseDuration(s)
		if err != nil {
			return
		}
		text := edm.FormatDuration(d)
		back, err := edm.ParseDuration(text)
		if err != nil || back != d {
			t.Errorf("ParseDuration(FormatDuration(%v) = %q) = %v, %v", d, text, back, err)
		}
	})
}

func FuzzParseTimeOfDay(f *testing.F) {
	for _, s := range []string{"12:30", "23:59:59.999999999", "00:00:00.1", "24:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := edm.ParseTimeOfDay(s)
		if err != nil {
			return
		}
		if !v.IsValid() {
			t.Fatalf("ParseTimeOfDay(%q) = %d, not a valid time of day", s, int64(v))
		}
		back, err := edm.ParseTimeOfDay(v.String())
		if err != nil || back != v {
			t.Errorf("ParseTimeOfDay(%q) = %v, %v, want %v", v.String(), back, err, v)
		}
	})
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2024-02-29", "0000-01-01", "2023-02-29", "9999-12-31"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := edm.ParseDate(s)
		if err != nil {
			return
		}
		if d.String() != s {
			t.Errorf("ParseDate(%q).String() = %q", s, d.String())
		}
	})
}

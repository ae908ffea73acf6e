package temporal

import (
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	type date struct {
		year  int
		month time.Month
		day   int
		ok    bool
	}
	for _, tt := range []struct {
		in   string
		want date
	}{
		{"2024-02-29", date{2024, 2, 29, true}},
		{"0000-02-29", date{0, 2, 29, true}},
		{"9999-12-31", date{9999, 12, 31, true}},
		{"12345-01-02", date{12345, 1, 2, true}},
		{"-0044-03-15", date{-44, 3, 15, true}},
		{"2023-02-29", date{}},
		{"1900-02-29", date{}},
		{"2024-13-01", date{}},
		{"2024-00-01", date{}},
		{"2024-04-31", date{}},
		{"2024-01-00", date{}},
		{"+2024-01-01", date{}},
		{"999-01-01", date{}},
		{"1234567890-01-01", date{}},
		{"2024-1-01", date{}},
		{"2024-01-011", date{}},
		{"2024/01/01", date{}},
		{"", date{}},
	} {
		year, month, day, ok := ParseDate(tt.in)
		if got := (date{year, month, day, ok}); got != tt.want {
			t.Errorf("ParseDate(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestDaysInMonth compares the calendar with package time's over years with and without leap days, negative
// ones included.
func TestDaysInMonth(t *testing.T) {
	for year := -2000; year <= 2500; year++ {
		for month := time.January; month <= time.December; month++ {
			want := time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
			if got := DaysInMonth(month, year); got != want {
				t.Fatalf("DaysInMonth(%v, %d) = %d, want %d", month, year, got, want)
			}
		}
	}
}

func TestParseTimeOfDay(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"00:00", 0, true},
		{"23:59", 23*time.Hour + 59*time.Minute, true},
		{"12:34:56", 12*time.Hour + 34*time.Minute + 56*time.Second, true},
		{"12:34:56.5", 12*time.Hour + 34*time.Minute + 56*time.Second + 500*time.Millisecond, true},
		{"00:00:00.123456789999", 123456789, true},
		{"00:00:00.1234567899999", 0, false},
		{"24:00", 0, false},
		{"12:60", 0, false},
		{"12:00:60", 0, false},
		{"12:00:00.", 0, false},
		{"12:00:00.x", 0, false},
		{"1:00", 0, false},
		{"12:00:5", 0, false},
	} {
		got, ok := ParseTimeOfDay(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseTimeOfDay(%q) = %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"P1DT2H3M4.5S", 26*time.Hour + 3*time.Minute + 4500*time.Millisecond, ""},
		{"-PT0.25S", -250 * time.Millisecond, ""},
		{"+p1dt1s", Day + time.Second, ""},
		{"PT0S", 0, ""},
		{"PT1.0000000019S", time.Second + 1, ""},
		{"P106751DT23H47M16.854775807S", 1<<63 - 1, ""},
		{"-P106751DT23H47M16.854775808S", -1 << 63, ""},
		{"P106751DT23H47M16.854775808S", 0, "out of range"},
		{"", 0, "want P"},
		{"1D", 0, "want P"},
		{"P", 0, "no components"},
		{"PT", 0, "nothing after T"},
		{"PT1HT", 0, "second T"},
		{"PTH", 0, "want a number"},
		{"P99999999999999999999D", 0, "number too large"},
		{"PT1.S", 0, "want digits after the decimal point"},
		{"P1.5D", 0, "a fraction is allowed on seconds only"},
		{"P1", 0, "number without unit"},
		{"P1H", 0, `unexpected 'H'`},
		{"PT1D", 0, `unexpected 'D'`},
		{"PT1M1H", 0, "components out of order"},
		{"PT1M1M", 0, "components out of order"},
		{"P999999999DT1S", 0, "out of range"},
	} {
		got, err := ParseDuration(tt.in)
		errText := ""
		if err != nil {
			errText = err.Error()
		}
		if got != tt.want || errText != tt.err {
			t.Errorf("ParseDuration(%q) = %v, %q, want %v, %q", tt.in, got, errText, tt.want, tt.err)
		}
	}
}

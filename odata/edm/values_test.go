package edm_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/storekit/store/odata/edm"
)

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want edm.Date
		ok   bool
	}{
		{"2024-02-29", edm.Date{Year: 2024, Month: time.February, Day: 29}, true},
		{"0000-01-01", edm.Date{Year: 0, Month: time.January, Day: 1}, true},
		{"9999-12-31", edm.Date{Year: 9999, Month: time.December, Day: 31}, true},
		{"2023-02-29", edm.Date{}, false},
		{"1900-02-29", edm.Date{}, false},
		{"2000-02-29", edm.Date{Year: 2000, Month: time.February, Day: 29}, true},
		{"2024-04-31", edm.Date{}, false},
		{"2024-13-01", edm.Date{}, false},
		{"2024-00-10", edm.Date{}, false},
		{"2024-1-01", edm.Date{}, false},
		{"24-01-01", edm.Date{}, false},
		{"2024/01/01", edm.Date{}, false},
		{"2024-01-01T00:00:00Z", edm.Date{}, false},
		{"+024-01-01", edm.Date{}, false},
		{"", edm.Date{}, false},
	}
	for _, tt := range tests {
		got, err := edm.ParseDate(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseDate(%q) = %v, %v, want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
			continue
		}
		if tt.ok && got.String() != tt.in {
			t.Errorf("ParseDate(%q).String() = %q, want %q", tt.in, got.String(), tt.in)
		}
	}
}

func TestDateConversions(t *testing.T) {
	d := edm.DateOf(time.Date(2024, 3, 9, 23, 59, 0, 0, time.FixedZone("x", 3600)))
	if want := (edm.Date{Year: 2024, Month: time.March, Day: 9}); d != want {
		t.Errorf("DateOf = %v, want %v", d, want)
	}
	if got, want := d.Time(), time.Date(2024, 3, 9, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("Date.Time() = %v, want %v", got, want)
	}
	if got := d.Compare(edm.Date{Year: 2024, Month: time.March, Day: 10}); got != -1 {
		t.Errorf("Compare = %d, want -1", got)
	}
	if got := d.Compare(edm.Date{Year: 2023, Month: time.December, Day: 31}); got != 1 {
		t.Errorf("Compare = %d, want 1", got)
	}
	if got := d.Compare(d); got != 0 {
		t.Errorf("Compare = %d, want 0", got)
	}
	b, err := json.Marshal(struct{ D edm.Date }{d})
	if err != nil || string(b) != `{"D":"2024-03-09"}` {
		t.Errorf("json.Marshal = %s, %v", b, err)
	}
	var back struct{ D edm.Date }
	if err := json.Unmarshal(b, &back); err != nil || back.D != d {
		t.Errorf("json.Unmarshal = %v, %v, want %v", back.D, err, d)
	}
	if _, err := json.Marshal(edm.Date{}); err == nil {
		t.Error("json.Marshal(Date{}) succeeded, want an error")
	}
	v, err := d.Value()
	if err != nil || v != "2024-03-09" {
		t.Errorf("Value() = %v, %v", v, err)
	}
	for _, src := range []any{"2024-03-09", []byte("2024-03-09"), time.Date(2024, 3, 9, 0, 0, 0, 0, time.UTC)} {
		var s edm.Date
		if err := s.Scan(src); err != nil || s != d {
			t.Errorf("Scan(%#v) = %v, %v, want %v", src, s, err, d)
		}
	}
	var s edm.Date
	if err := s.Scan(42); err == nil {
		t.Error("Scan(42) succeeded, want an error")
	}
}

func TestParseTimeOfDay(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"00:00", "00:00:00", true},
		{"23:59:59", "23:59:59", true},
		{"12:30:15.5", "12:30:15.5", true},
		{"12:30:15.1234567", "12:30:15.1234567", true},
		{"12:30:15.123456789", "12:30:15.123456789", true},
		{"12:30:15.123456789999", "12:30:15.123456789", true},
		{"12:30:15.000", "12:30:15", true},
		{"24:00:00", "", false},
		{"12:60:00", "", false},
		{"12:30:60", "", false},
		{"12:30:1", "", false},
		{"12:30:15.", "", false},
		{"12:30:15.1234567890123", "", false},
		{"1:30", "", false},
		{"12-30", "", false},
		{"12:30:15Z", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, err := edm.ParseTimeOfDay(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("ParseTimeOfDay(%q) = %v, %v, want ok=%v", tt.in, got, err, tt.ok)
			continue
		}
		if tt.ok && got.String() != tt.want {
			t.Errorf("ParseTimeOfDay(%q).String() = %q, want %q", tt.in, got.String(), tt.want)
		}
	}
}

func TestTimeOfDay(t *testing.T) {
	tod := edm.NewTimeOfDay(7, 5, 3, 120_000_000)
	if tod.Hour() != 7 || tod.Minute() != 5 || tod.Second() != 3 || tod.Nanosecond() != 120_000_000 {
		t.Errorf("parts of %v = %d %d %d %d", tod, tod.Hour(), tod.Minute(), tod.Second(), tod.Nanosecond())
	}
	for digits, want := range map[int]string{0: "07:05:03", 3: "07:05:03.120", 6: "07:05:03.120000", 9: "07:05:03.120000000", 12: "07:05:03.120000000"} {
		if got := tod.Format(digits); got != want {
			t.Errorf("Format(%d) = %q, want %q", digits, got, want)
		}
	}
	if got := edm.TimeOfDayOf(time.Date(2024, 1, 1, 7, 5, 3, 120_000_000, time.UTC)); got != tod {
		t.Errorf("TimeOfDayOf = %v, want %v", got, tod)
	}
	if v, err := tod.Value(); err != nil || v != "07:05:03.120000" {
		t.Errorf("Value() = %v, %v", v, err)
	}
	var s edm.TimeOfDay
	if err := s.Scan("07:05:03.120000"); err != nil || s != tod {
		t.Errorf("Scan = %v, %v, want %v", s, err, tod)
	}
	if edm.TimeOfDay(-1).IsValid() || edm.TimeOfDay(24*time.Hour).IsValid() {
		t.Error("IsValid accepted a value outside the day")
	}
	if _, err := json.Marshal(edm.TimeOfDay(-1)); err == nil {
		t.Error("json.Marshal(TimeOfDay(-1)) succeeded, want an error")
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		text string // canonical form, when different from in
	}{
		{"P1DT2H3M4.5S", 26*time.Hour + 3*time.Minute + 4500*time.Millisecond, ""},
		{"PT0S", 0, ""},
		{"P0D", 0, "PT0S"},
		{"-PT0.25S", -250 * time.Millisecond, ""},
		{"P2D", 48 * time.Hour, ""},
		{"PT36H", 36 * time.Hour, "P1DT12H"},
		{"PT1M", time.Minute, ""},
		{"pt1h", time.Hour, "PT1H"},
		{"PT0.000000001S", time.Nanosecond, ""},
		{"PT1.0000000019S", time.Second + time.Nanosecond, "PT1.000000001S"},
		{"+PT1S", time.Second, "PT1S"},
		{"P106751DT23H47M16.854775807S", time.Duration(1<<63 - 1), ""},
		{"-P106751DT23H47M16.854775808S", time.Duration(-1 << 63), ""},
	}
	for _, tt := range tests {
		got, err := edm.ParseDuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
			continue
		}
		text := tt.text
		if text == "" {
			text = tt.in
		}
		if got := edm.FormatDuration(got); got != text {
			t.Errorf("FormatDuration(%v) = %q, want %q", tt.want, got, text)
		}
	}
	for _, bad := range []string{
		"", "P", "PT", "1D", "P1H", "PT1D", "P1DT", "P1.5D", "PT1.5M", "PT1H2H", "PT1M1H", "P1D2D", "PT1", "PT.5S",
		"PT1.S", "P106751DT23H47M16.854775808S", "P99999999999999999999D", "P1Y", "PT1S ", "--PT1S",
	} {
		if got, err := edm.ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) = %v, nil, want an error", bad, got)
		}
	}
}

func TestGuid(t *testing.T) {
	got, err := edm.ParseGuid("01234567-89AB-cdef-0123-456789ABCDEF")
	if want := "01234567-89ab-cdef-0123-456789abcdef"; err != nil || got != want {
		t.Errorf("ParseGuid = %q, %v, want %q", got, err, want)
	}
	for _, bad := range []string{
		"", "01234567-89ab-cdef-0123-456789abcde", "01234567-89ab-cdef-0123-456789abcdeg",
		"0123456789ab-cdef-0123-456789abcdef0", "{01234567-89ab-cdef-0123-456789abcdef}",
		"01234567_89ab-cdef-0123-456789abcdef",
	} {
		if got, err := edm.ParseGuid(bad); err == nil {
			t.Errorf("ParseGuid(%q) = %q, nil, want an error", bad, got)
		}
	}
	g := edm.NewGuid()
	if back, err := edm.ParseGuid(g); err != nil || back != g || g[14] != '4' || !strings.ContainsAny(g[19:20], "89ab") {
		t.Errorf("NewGuid() = %q is not a canonical version 4 GUID (%v)", g, err)
	}
	if edm.NewGuid() == g {
		t.Error("NewGuid returned the same value twice")
	}
}

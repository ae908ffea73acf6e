package edm

import (
	"crypto/rand"
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/storekit/store/odata/internal/temporal"
)

// Date is an Edm.Date value: a day of the proleptic Gregorian calendar without a time zone. Its text form is
// YYYY-MM-DD with years 0000 to 9999, which is also how SQLite stores it (so text order is date order).
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// ParseDate parses a date in the form YYYY-MM-DD.
func ParseDate(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, fmt.Errorf("edm: invalid date %q: want YYYY-MM-DD", s)
	}
	year, month, day, ok := temporal.ParseDate(s)
	if !ok {
		return Date{}, fmt.Errorf("edm: invalid date %q", s)
	}
	return Date{Year: year, Month: month, Day: day}, nil
}

// IsValid reports whether d names a real day between 0000-01-01 and 9999-12-31.
func (d Date) IsValid() bool {
	return d.Year >= 0 && d.Year <= 9999 && temporal.ValidDate(d.Year, d.Month, d.Day)
}

// String returns the date as YYYY-MM-DD.
func (d Date) String() string { return string(d.appendText(make([]byte, 0, 10))) }

func (d Date) appendText(b []byte) []byte {
	b = appendInt(b, d.Year, 4)
	b = append(b, '-')
	b = appendInt(b, int(d.Month), 2)
	b = append(b, '-')
	return appendInt(b, d.Day, 2)
}

// appendInt appends n (non-negative) zero-padded to width digits.
func appendInt(b []byte, n, width int) []byte {
	var buf [20]byte
	i := len(buf)
	for n >= 10 || width > 1 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		width--
	}
	i--
	buf[i] = byte('0' + n)
	return append(b, buf[i:]...)
}

// Time returns midnight UTC at the start of d.
func (d Date) Time() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// Compare returns -1, 0 or +1 as d is before, equal to or after o.
func (d Date) Compare(o Date) int {
	switch {
	case d.Year != o.Year:
		return compareInts(d.Year, o.Year)
	case d.Month != o.Month:
		return compareInts(int(d.Month), int(o.Month))
	}
	return compareInts(d.Day, o.Day)
}

func compareInts(a, b int) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// MarshalText returns the YYYY-MM-DD form (used by encoding/json).
func (d Date) MarshalText() ([]byte, error) {
	if !d.IsValid() {
		return nil, fmt.Errorf("edm: invalid date %04d-%02d-%02d", d.Year, int(d.Month), d.Day)
	}
	return d.appendText(nil), nil
}

// UnmarshalText parses the YYYY-MM-DD form (used by encoding/json).
func (d *Date) UnmarshalText(b []byte) error {
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Value returns the storage form YYYY-MM-DD (database/sql/driver.Valuer).
func (d Date) Value() (driver.Value, error) {
	b, err := d.MarshalText()
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// Scan reads a date stored as text (SQLite) or returned as a time.Time (PostgreSQL DATE) (database/sql.Scanner).
func (d *Date) Scan(src any) error {
	switch v := src.(type) {
	case string:
		return d.UnmarshalText([]byte(v))
	case []byte:
		return d.UnmarshalText(v)
	case time.Time:
		*d = DateOf(v)
		return nil
	}
	return fmt.Errorf("edm: cannot scan %T into a Date", src)
}

// TimeOfDay is an Edm.TimeOfDay value: nanoseconds since midnight, from 0 to 24h minus 1ns. Its text form is
// HH:MM:SS with a fraction of seconds when there is one (HH:MM:SS.fffffff).
type TimeOfDay int64

// NewTimeOfDay returns the time of day hour:min:sec.nsec. The result is valid only when each part is in range.
func NewTimeOfDay(hour, min, sec, nsec int) TimeOfDay {
	return TimeOfDay(time.Duration(hour)*time.Hour + time.Duration(min)*time.Minute +
		time.Duration(sec)*time.Second + time.Duration(nsec))
}

// TimeOfDayOf returns the clock time of t in t's location.
func TimeOfDayOf(t time.Time) TimeOfDay {
	return NewTimeOfDay(t.Hour(), t.Minute(), t.Second(), t.Nanosecond())
}

// ParseTimeOfDay parses HH:MM, HH:MM:SS or HH:MM:SS.f with 1 to 12 fraction digits (digits beyond nanoseconds
// are dropped).
func ParseTimeOfDay(s string) (TimeOfDay, error) {
	clock, ok := temporal.ParseTimeOfDay(s)
	if !ok {
		return 0, fmt.Errorf("edm: invalid time of day %q", s)
	}
	return TimeOfDay(clock), nil
}

// IsValid reports whether t is within a day.
func (t TimeOfDay) IsValid() bool { return t >= 0 && time.Duration(t) < temporal.Day }

// Hour returns the hour, 0 to 23.
func (t TimeOfDay) Hour() int { return int(time.Duration(t) / time.Hour) }

// Minute returns the minute within the hour, 0 to 59.
func (t TimeOfDay) Minute() int { return int(time.Duration(t) % time.Hour / time.Minute) }

// Second returns the second within the minute, 0 to 59.
func (t TimeOfDay) Second() int { return int(time.Duration(t) % time.Minute / time.Second) }

// Nanosecond returns the fraction of the second in nanoseconds.
func (t TimeOfDay) Nanosecond() int { return int(time.Duration(t) % time.Second) }

// String returns HH:MM:SS followed by the fraction of the second without trailing zeros, if any.
func (t TimeOfDay) String() string { return string(t.appendText(nil, -1)) }

// Format returns HH:MM:SS with exactly digits fraction digits (0 to 9; the fraction is truncated). Fixed widths
// keep text order equal to time order, which the SQLite storage form (6 digits) relies on.
func (t TimeOfDay) Format(digits int) string {
	return string(t.appendText(nil, max(0, min(digits, 9))))
}

// appendText appends the text form; digits < 0 means as many as needed.
func (t TimeOfDay) appendText(b []byte, digits int) []byte {
	b = appendInt(b, t.Hour(), 2)
	b = append(b, ':')
	b = appendInt(b, t.Minute(), 2)
	b = append(b, ':')
	b = appendInt(b, t.Second(), 2)
	return appendFraction(b, t.Nanosecond(), digits)
}

// appendFraction appends "." and nanoseconds as a fraction of a second: with exactly digits digits, or, when
// digits is negative, without trailing zeros (nothing at all for 0).
func appendFraction(b []byte, nanoseconds, digits int) []byte {
	if digits == 0 || (digits < 0 && nanoseconds == 0) {
		return b
	}
	var buf [9]byte
	for i := 8; i >= 0; i-- {
		buf[i] = byte('0' + nanoseconds%10)
		nanoseconds /= 10
	}
	n := digits
	if n < 0 {
		n = 9
		for n > 0 && buf[n-1] == '0' {
			n--
		}
	}
	b = append(b, '.')
	return append(b, buf[:n]...)
}

// MarshalText returns the String form (used by encoding/json).
func (t TimeOfDay) MarshalText() ([]byte, error) {
	if !t.IsValid() {
		return nil, fmt.Errorf("edm: invalid time of day %d", int64(t))
	}
	return t.appendText(nil, -1), nil
}

// UnmarshalText parses the text form (used by encoding/json).
func (t *TimeOfDay) UnmarshalText(b []byte) error {
	v, err := ParseTimeOfDay(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Value returns the storage form HH:MM:SS.ffffff (database/sql/driver.Valuer).
func (t TimeOfDay) Value() (driver.Value, error) {
	if !t.IsValid() {
		return nil, fmt.Errorf("edm: invalid time of day %d", int64(t))
	}
	return t.Format(6), nil
}

// Scan reads a time of day stored as text or returned as a time.Time (database/sql.Scanner).
func (t *TimeOfDay) Scan(src any) error {
	switch v := src.(type) {
	case string:
		return t.UnmarshalText([]byte(v))
	case []byte:
		return t.UnmarshalText(v)
	case time.Time:
		*t = TimeOfDayOf(v)
		return nil
	}
	return fmt.Errorf("edm: cannot scan %T into a TimeOfDay", src)
}

// ParseDuration parses an Edm.Duration in its literal and JSON form, ISO 8601 restricted to days, hours,
// minutes and seconds: [-]P[nD][T[nH][nM][n[.f]S]], such as "P1DT2H3M4.5S" or "-PT0.25S". Letters may be
// lower-case. Digits beyond nanoseconds are dropped; a duration beyond time.Duration's range is an error.
func ParseDuration(s string) (time.Duration, error) {
	d, err := temporal.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("edm: invalid duration %q: %w", s, err)
	}
	return d, nil
}

// FormatDuration returns the ISO 8601 form of d used in OData literals and JSON, such as "P1DT2H3M4.5S",
// "-PT1M" or "PT0S".
func FormatDuration(d time.Duration) string {
	var b []byte
	u := uint64(d)
	if d < 0 {
		b = append(b, '-')
		u = -u
	}
	b = append(b, 'P')
	days := u / uint64(temporal.Day)
	u %= uint64(temporal.Day)
	if days > 0 {
		b = strconv.AppendUint(b, days, 10)
		b = append(b, 'D')
	}
	if u == 0 && days > 0 {
		return string(b)
	}
	b = append(b, 'T')
	h, m := u/uint64(time.Hour), u%uint64(time.Hour)/uint64(time.Minute)
	s, nanoseconds := u%uint64(time.Minute)/uint64(time.Second), u%uint64(time.Second)
	if h > 0 {
		b = strconv.AppendUint(b, h, 10)
		b = append(b, 'H')
	}
	if m > 0 {
		b = strconv.AppendUint(b, m, 10)
		b = append(b, 'M')
	}
	if s > 0 || nanoseconds > 0 || (h == 0 && m == 0) {
		b = strconv.AppendUint(b, s, 10)
		b = appendFraction(b, int(nanoseconds), -1)
		b = append(b, 'S')
	}
	return string(b)
}

// ParseGuid parses an Edm.Guid in its literal and JSON form, 8-4-4-4-12 hexadecimal digits, and returns its
// canonical lower-case form.
func ParseGuid(s string) (string, error) {
	if len(s) != 36 {
		return "", fmt.Errorf("edm: invalid guid %q: want 8-4-4-4-12 hexadecimal digits", s)
	}
	b := []byte(s)
	for i, c := range b {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return "", fmt.Errorf("edm: invalid guid %q: want 8-4-4-4-12 hexadecimal digits", s)
			}
			continue
		}
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
		case c >= 'A' && c <= 'F':
			b[i] = c + 'a' - 'A'
		default:
			return "", fmt.Errorf("edm: invalid guid %q: want 8-4-4-4-12 hexadecimal digits", s)
		}
	}
	return string(b), nil
}

// NewGuid returns a random (version 4) GUID in canonical lower-case form.
func NewGuid() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(36)
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b.WriteByte('-')
		}
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0x0f])
	}
	return b.String()
}

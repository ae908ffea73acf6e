// Package temporal parses the text forms of OData's temporal values: dates, times of day and durations. It is
// the one implementation behind the literals of the query syntax (odata/syntax) and the value types of the
// model (odata/edm), so a date, time of day or duration reads the same in a URL, a request body and a database
// row. It imports no project package.
package temporal

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Day is the length of a day: the unit of the D component of a duration.
const Day = 24 * time.Hour

// ParseDate parses a date [-]YYYY-MM-DD whose year has four to nine digits, as the OData ABNF writes it, and
// reports whether it names a real day of the proleptic Gregorian calendar. A caller with a narrower range
// (Edm.Date values have years 0000 to 9999) checks the form before.
func ParseDate(s string) (year int, month time.Month, day int, ok bool) {
	negative := len(s) > 0 && s[0] == '-'
	if negative {
		s = s[1:]
	}
	yearEnd := 0
	for yearEnd < len(s) && isDigit(s[yearEnd]) {
		yearEnd++
	}
	if yearEnd < 4 || len(s) != yearEnd+6 || s[yearEnd] != '-' || s[yearEnd+3] != '-' {
		return 0, 0, 0, false
	}
	year, yearOK := Digits(s[:yearEnd])
	monthNumber, monthOK := Digits(s[yearEnd+1 : yearEnd+3])
	day, dayOK := Digits(s[yearEnd+4:])
	if negative {
		year = -year
	}
	month = time.Month(monthNumber)
	if !yearOK || !monthOK || !dayOK || !ValidDate(year, month, day) {
		return 0, 0, 0, false
	}
	return year, month, day, true
}

// ValidDate reports whether month and day name a real day of year in the proleptic Gregorian calendar.
func ValidDate(year int, month time.Month, day int) bool {
	return month >= time.January && month <= time.December && day >= 1 && day <= DaysInMonth(month, year)
}

// DaysInMonth returns the number of days of month in year of the proleptic Gregorian calendar (year 0 and
// every fourth year before it are leap years, as in package time).
func DaysInMonth(month time.Month, year int) int {
	switch month {
	case time.February:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// ParseTimeOfDay parses HH:MM, HH:MM:SS or HH:MM:SS.f with 1 to 12 fraction digits (digits beyond nanoseconds
// are dropped) into the time since midnight.
func ParseTimeOfDay(s string) (time.Duration, bool) {
	if len(s) < 5 || s[2] != ':' {
		return 0, false
	}
	hour, hourOK := Digits(s[0:2])
	minute, minuteOK := Digits(s[3:5])
	if !hourOK || !minuteOK || hour > 23 || minute > 59 {
		return 0, false
	}
	clock := time.Duration(hour)*time.Hour + time.Duration(minute)*time.Minute
	seconds := s[5:]
	if seconds == "" {
		return clock, true
	}
	if len(seconds) < 3 || seconds[0] != ':' {
		return 0, false
	}
	second, ok := Digits(seconds[1:3])
	if !ok || second > 59 {
		return 0, false
	}
	clock += time.Duration(second) * time.Second
	fraction := seconds[3:]
	if fraction == "" {
		return clock, true
	}
	if fraction[0] != '.' || len(fraction) < 2 || len(fraction) > 13 {
		return 0, false
	}
	nanoseconds, ok := Fraction(fraction[1:])
	if !ok {
		return 0, false
	}
	return clock + time.Duration(nanoseconds), true
}

// Digits parses s as an unsigned decimal number of ASCII digits only, at most nine of them (so the result
// always fits an int).
func Digits(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// Fraction parses the digits after a decimal point as nanoseconds, dropping digits beyond the ninth.
func Fraction(s string) (int, bool) {
	nanoseconds := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		if i < 9 {
			nanoseconds = nanoseconds*10 + int(s[i]-'0')
		}
	}
	for i := len(s); i < 9; i++ {
		nanoseconds *= 10
	}
	return nanoseconds, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// ParseDuration parses a duration in the ISO 8601 form OData uses, restricted to days, hours, minutes and
// seconds: [-+]P[nD][T[nH][nM][n[.f]S]], such as "P1DT2H3M4.5S" or "-PT0.25S". Letters may be lower-case.
// Digits beyond nanoseconds are dropped; a duration beyond time.Duration's range is an error. The error says
// what is wrong ("components out of order"); callers add which text it was.
func ParseDuration(s string) (time.Duration, error) {
	body := s
	negative := false
	if body != "" && (body[0] == '-' || body[0] == '+') {
		negative = body[0] == '-'
		body = body[1:]
	}
	if body == "" || body[0]|0x20 != 'p' {
		return 0, errors.New("want P")
	}
	reader := durationReader{rest: body[1:]}
	for reader.rest != "" {
		if err := reader.next(); err != nil {
			return 0, err
		}
	}
	if reader.components == 0 {
		return 0, errors.New("no components")
	}
	return reader.result(negative)
}

// durationUnits are the components of a duration in the order they must appear.
var durationUnits = [...]struct {
	letter byte // lower-case
	inTime bool // after the T
	length time.Duration
}{{'d', false, Day}, {'h', true, time.Hour}, {'m', true, time.Minute}, {'s', true, time.Second}}

// durationLimit is one more than the largest time.Duration: the magnitude of the smallest.
const durationLimit = uint64(1 << 63)

// durationReader reads the components after the P of a duration.
type durationReader struct {
	rest       string
	inTime     bool   // the T was read
	nextUnit   int    // the index in durationUnits the next component may start at
	components int    // components read
	total      uint64 // nanoseconds, at most durationLimit
}

// next reads the T or one component.
func (r *durationReader) next() error {
	if r.rest[0]|0x20 == 't' {
		if r.inTime {
			return errors.New("second T")
		}
		r.inTime = true
		r.rest = r.rest[1:]
		if r.rest == "" {
			return errors.New("nothing after T")
		}
		return nil
	}
	return r.component()
}

// component reads a number with its unit letter, such as 12H or 4.5S.
func (r *durationReader) component() error {
	count, nanoseconds, err := r.number()
	if err != nil {
		return err
	}
	if r.rest == "" {
		return errors.New("number without unit")
	}
	unit := r.unit(r.rest[0] | 0x20)
	if unit < 0 {
		return fmt.Errorf("unexpected %q", r.rest[0])
	}
	if unit < r.nextUnit {
		return errors.New("components out of order")
	}
	r.nextUnit = unit + 1
	if !r.add(count, uint64(durationUnits[unit].length)) || !r.add(nanoseconds, 1) {
		return errors.New("out of range")
	}
	r.rest = r.rest[1:]
	r.components++
	return nil
}

// number reads the digits of a component and, before an S, a fraction of them in nanoseconds.
func (r *durationReader) number() (count, nanoseconds uint64, err error) {
	i := 0
	for i < len(r.rest) && isDigit(r.rest[i]) {
		i++
	}
	if i == 0 {
		return 0, 0, errors.New("want a number")
	}
	count, err = strconv.ParseUint(r.rest[:i], 10, 64)
	if err != nil {
		return 0, 0, errors.New("number too large")
	}
	r.rest = r.rest[i:]
	if r.rest == "" || r.rest[0] != '.' {
		return count, 0, nil
	}
	j := 1
	for j < len(r.rest) && isDigit(r.rest[j]) {
		j++
	}
	fraction, ok := Fraction(r.rest[1:j])
	if !ok || j == 1 {
		return 0, 0, errors.New("want digits after the decimal point")
	}
	r.rest = r.rest[j:]
	if r.rest == "" || r.rest[0]|0x20 != 's' {
		return 0, 0, errors.New("a fraction is allowed on seconds only")
	}
	return count, uint64(fraction), nil
}

// unit returns the index in durationUnits of the unit letter, or -1 where the letter is not a unit (a D after
// the T, an H, M or S before it).
func (r *durationReader) unit(letter byte) int {
	for i, u := range durationUnits {
		if u.letter == letter && u.inTime == r.inTime {
			return i
		}
	}
	return -1
}

// add adds count times length to the total and reports whether the total stays within durationLimit.
func (r *durationReader) add(count, length uint64) bool {
	if count > durationLimit/length {
		return false
	}
	r.total += count * length
	return r.total <= durationLimit
}

// result returns the total with its sign.
func (r *durationReader) result(negative bool) (time.Duration, error) {
	if negative {
		return -time.Duration(r.total-1) - 1, nil // the total may be 1<<63
	}
	if r.total == durationLimit {
		return 0, errors.New("out of range")
	}
	return time.Duration(r.total), nil
}

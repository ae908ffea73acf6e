package odata

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

func TestAppendValue(t *testing.T) {
	flags := &edm.EnumType{Name: "F", Flags: true, Members: []edm.EnumMember{{Name: "A", Value: 1}, {Name: "B", Value: 2}, {Name: "C", Value: 4}}}
	prop := func(k edm.Kind) *edm.Property { return &edm.Property{Name: "P", Type: k, Precision: 19, Scale: 4} }
	for _, tc := range []struct {
		p    *edm.Property
		v    any
		want string
	}{
		{prop(edm.KindString), "a\"b\\c\n\x01é\u2028", `"a\"b\\c\n\u0001é\u2028"`},
		{prop(edm.KindString), "bad \xff utf8", `"bad \ufffd utf8"`},
		{prop(edm.KindBoolean), true, `true`},
		{prop(edm.KindInt64), int64(math.MinInt64), `-9223372036854775808`},
		{prop(edm.KindDecimal), decimal.RequireFromString("19.9900"), `19.99`},
		{prop(edm.KindDecimal), decimal.RequireFromString("-0.0001"), `-0.0001`},
		{prop(edm.KindDecimal), decimal.RequireFromString("20.0000"), `20`},
		{prop(edm.KindDecimal), decimal.RequireFromString("922337203685477.5807"), `922337203685477.5807`},
		{prop(edm.KindDecimal), decimal.New(5, 3), `5000`},
		{prop(edm.KindDouble), 0.1, `0.1`},
		{prop(edm.KindDouble), 1e21, `1e+21`},
		{prop(edm.KindDouble), 1e-7, `1e-7`},
		{prop(edm.KindDouble), math.Inf(-1), `"-INF"`},
		{prop(edm.KindDouble), math.NaN(), `"NaN"`},
		{prop(edm.KindSingle), 1.1, `1.1`},
		{prop(edm.KindDate), edm.Date{Year: 2024, Month: 2, Day: 29}, `"2024-02-29"`},
		{prop(edm.KindTimeOfDay), edm.NewTimeOfDay(1, 2, 3, 400000000), `"01:02:03.4"`},
		{prop(edm.KindDateTimeOffset), time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC), `"2026-11-22T01:02:03Z"`},
		{prop(edm.KindDateTimeOffset), time.Date(2026, 11, 22, 3, 2, 3, 500000, time.FixedZone("x", 7200)), `"2026-11-22T01:02:03.0005Z"`},
		{prop(edm.KindDuration), 26 * time.Hour, `"P1DT2H"`},
		{prop(edm.KindGuid), "0f8fad5b-d9cb-469f-a165-70867728950e", `"0f8fad5b-d9cb-469f-a165-70867728950e"`},
		{prop(edm.KindBinary), []byte{0, 1, 2, 255}, `"AAEC_w"`},
		{&edm.Property{Name: "E", Enum: flags}, int64(5), `"A,C"`},
		{prop(edm.KindString), nil, `null`},
	} {
		got, err := appendValue(nil, tc.p, tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("appendValue(%s, %#v) = %s, %v, want %s", tc.p.Type, tc.v, got, err, tc.want)
		}
	}
	if _, err := appendValue(nil, prop(edm.KindInt32), 5); err == nil {
		t.Errorf("appendValue(Int32, int) = nil error, want a type error")
	}
}

// TestAppendColumn_MatchesValue checks that the fast paths for driver values write what the Go value path
// writes, for the storage forms of both databases: the ETag of a row read from the database must equal the
// ETag of the same entity held as Go values.
func TestAppendColumn_MatchesValue(t *testing.T) {
	dec := &edm.Property{Name: "M", Type: edm.KindDecimal, Precision: 19, Scale: 4}
	for _, tc := range []struct {
		p   *edm.Property
		src any
	}{
		{&edm.Property{Name: "S", Type: edm.KindString}, "plain"},
		{&edm.Property{Name: "S", Type: edm.KindString}, []byte("with \"quote\"")},
		{&edm.Property{Name: "B", Type: edm.KindBoolean}, int64(1)},
		{&edm.Property{Name: "B", Type: edm.KindBoolean}, false},
		{&edm.Property{Name: "I", Type: edm.KindInt32}, int64(-7)},
		{dec, int64(199900)},
		{dec, int64(-1)},
		{dec, int64(math.MinInt64)},
		{dec, int64(0)},
		{dec, "19.9900"},
		{dec, "-0.0001"},
		{dec, "0.0000"},
		{dec, "1000.0000"},
		{&edm.Property{Name: "D", Type: edm.KindDouble}, 3.25e-7},
		{&edm.Property{Name: "T", Type: edm.KindDateTimeOffset}, "2026-11-22T01:02:03.000000Z"},
		{&edm.Property{Name: "T", Type: edm.KindDateTimeOffset}, "2026-11-22T01:02:03.450000Z"},
		{&edm.Property{Name: "T", Type: edm.KindDateTimeOffset}, time.Date(2026, 11, 22, 1, 2, 3, 450000000, time.UTC)},
		{&edm.Property{Name: "G", Type: edm.KindGuid}, "0f8fad5b-d9cb-469f-a165-70867728950e"},
		{&edm.Property{Name: "G", Type: edm.KindGuid}, "0F8FAD5B-D9CB-469F-A165-70867728950E"},
	} {
		fast, err := appendColumn(nil, tc.p, tc.src)
		if err != nil {
			t.Fatalf("appendColumn(%s, %#v): %v", tc.p.Name, tc.src, err)
		}
		v, err := sqldb.Scan(tc.p, tc.src)
		if err != nil {
			t.Fatalf("Scan(%s, %#v): %v", tc.p.Name, tc.src, err)
		}
		slow, err := appendValue(nil, tc.p, v)
		if err != nil || string(fast) != string(slow) {
			t.Errorf("appendColumn(%s, %#v) = %s, appendValue(Scan) = %s (%v)", tc.p.Name, tc.src, fast, slow, err)
		}
	}
}

func TestScanArray(t *testing.T) {
	type item struct {
		K itemKind
		V string
	}
	for _, tc := range []struct {
		in   string
		want []item
		err  bool
	}{
		{`[]`, nil, false},
		{` [ "a" , 1.5e3,-2, true,false ,null ] `, []item{{itemString, "a"}, {itemNumber, "1.5e3"}, {itemNumber, "-2"},
			{itemTrue, ""}, {itemFalse, ""}, {itemNull, ""}}, false},
		{`["q\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\u2028"]`, []item{{itemString, "q\"\\/\b\f\n\r\té😀\u2028"}}, false},
		{`["\ud83d"]`, []item{{itemString, "\ufffd"}}, false},
		{`[`, nil, true},
		{`["a"`, nil, true},
		{`["a",]`, nil, true},
		{`[x]`, nil, true},
		{`{"a":1}`, nil, true},
		{`["\x"]`, nil, true},
	} {
		var got []item
		_, err := scanArray([]byte(tc.in), nil, func(k itemKind, v []byte) error {
			got = append(got, item{k, string(v)})
			return nil
		})
		if (err != nil) != tc.err {
			t.Errorf("scanArray(%q) error = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if !tc.err {
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scanArray(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
		}
	}
}

func TestETagMatches(t *testing.T) {
	sum := uint64(0x0123456789abcdef)
	if got := formatETag(sum); got != `W/"0123456789abcdef"` {
		t.Errorf("formatETag = %s", got)
	}
	if got := string(appendETagJSON(nil, sum)); got != `"W/\"0123456789abcdef\""` {
		t.Errorf("appendETagJSON = %s", got)
	}
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{`*`, true},
		{`W/"0123456789abcdef"`, true},
		{`"0123456789abcdef"`, true},
		{`"x", W/"0123456789abcdef"`, true},
		{`W/"0123456789abcdee"`, false},
		{`0123456789abcdef`, false},
	} {
		if got := etagMatches(tc.header, sum); got != tc.want {
			t.Errorf("etagMatches(%q) = %v, want %v", tc.header, got, tc.want)
		}
	}
}

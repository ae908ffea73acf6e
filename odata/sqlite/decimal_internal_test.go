package sqlite

import "testing"

// TestCompareDecimalText_NoAllocation checks that the collation compares the engine's decimal text without
// allocating.
func TestCompareDecimalText_NoAllocation(t *testing.T) {
	a, b := "99999999999999999999.999999999999999998", "-123.450000000000000000"
	if n := testing.AllocsPerRun(100, func() { compareDecimalText(a, b) }); n != 0 {
		t.Errorf("compareDecimalText allocates %v times, want 0", n)
	}
}

func BenchmarkCompareDecimalText(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		compareDecimalText("123.450000000000000000", "123.449999999999999999")
	}
}

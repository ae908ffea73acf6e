package edm

import "strings"

// Kind is an EDM primitive type. The zero Kind, KindNone, is no primitive type: the type of a property whose
// type is an enum or complex type.
type Kind uint8

// The EDM primitive kinds. Go values per kind follow odata/DESIGN.md: string, bool, int64 (all integer
// kinds), decimal.Decimal, float64 (Double, Single), Date, TimeOfDay, time.Time (DateTimeOffset, UTC),
// time.Duration, string (Guid, lower-case canonical), []byte (Binary).
const (
	KindNone Kind = iota
	KindString
	KindBoolean
	KindByte
	KindSByte
	KindInt16
	KindInt32
	KindInt64
	KindDecimal
	KindDouble
	KindSingle
	KindDate
	KindTimeOfDay
	KindDateTimeOffset
	KindDuration
	KindGuid
	KindBinary
	KindStream
	kindCount
)

var kindNames = [kindCount]string{
	KindNone:           "",
	KindString:         "Edm.String",
	KindBoolean:        "Edm.Boolean",
	KindByte:           "Edm.Byte",
	KindSByte:          "Edm.SByte",
	KindInt16:          "Edm.Int16",
	KindInt32:          "Edm.Int32",
	KindInt64:          "Edm.Int64",
	KindDecimal:        "Edm.Decimal",
	KindDouble:         "Edm.Double",
	KindSingle:         "Edm.Single",
	KindDate:           "Edm.Date",
	KindTimeOfDay:      "Edm.TimeOfDay",
	KindDateTimeOffset: "Edm.DateTimeOffset",
	KindDuration:       "Edm.Duration",
	KindGuid:           "Edm.Guid",
	KindBinary:         "Edm.Binary",
	KindStream:         "Edm.Stream",
}

// String returns the qualified name of the kind ("Edm.String"), or "" for KindNone and unknown values.
func (k Kind) String() string {
	if k < kindCount {
		return kindNames[k]
	}
	return ""
}

// ParseKind returns the kind named by a qualified EDM type name such as "Edm.Int32", compared
// case-insensitively. It reports false for any other name.
func ParseKind(name string) (Kind, bool) {
	for k := KindString; k < kindCount; k++ {
		if strings.EqualFold(name, kindNames[k]) {
			return k, true
		}
	}
	return KindNone, false
}

// isInteger reports whether k is one of the integer kinds (Byte, SByte, Int16, Int32, Int64).
func (k Kind) isInteger() bool { return k >= KindByte && k <= KindInt64 }

// isTemporal reports whether k carries fractional seconds (its Precision counts their digits).
func (k Kind) isTemporal() bool {
	return k == KindTimeOfDay || k == KindDateTimeOffset || k == KindDuration
}

// intRange returns the range of values of an integer kind.
func (k Kind) intRange() (lo, hi int64) {
	switch k {
	case KindByte:
		return 0, 255
	case KindSByte:
		return -128, 127
	case KindInt16:
		return -1 << 15, 1<<15 - 1
	case KindInt32:
		return -1 << 31, 1<<31 - 1
	}
	return -1 << 63, 1<<63 - 1
}

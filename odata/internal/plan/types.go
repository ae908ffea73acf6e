package plan

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/sqldb"
)

// boundType is the type of a bound expression: a primitive kind, an enum, a complex type or an entity type, single
// or a collection; or the type of the null literal, which fits every nullable type.
type boundType struct {
	kind       edm.Kind
	enum       *edm.EnumType
	complex    *edm.ComplexType
	entity     *edm.EntityType
	collection bool
	null       bool // the null literal
	nullable   bool // the value may be null at run time
}

func primitive(k edm.Kind) boundType { return boundType{kind: k} }

var (
	typeBoolean        = primitive(edm.KindBoolean)
	typeString         = primitive(edm.KindString)
	typeInt32          = primitive(edm.KindInt32)
	typeInt64          = primitive(edm.KindInt64)
	typeDecimal        = primitive(edm.KindDecimal)
	typeDouble         = primitive(edm.KindDouble)
	typeDate           = primitive(edm.KindDate)
	typeTimeOfDay      = primitive(edm.KindTimeOfDay)
	typeDateTimeOffset = primitive(edm.KindDateTimeOffset)
	typeDuration       = primitive(edm.KindDuration)
	typeNull           = boundType{null: true, nullable: true}
)

// propType is the type of a property's values.
func propType(p *edm.Property) boundType {
	return boundType{kind: p.Type, enum: p.Enum, complex: p.Complex, collection: p.Collection, nullable: p.Nullable}
}

func (t boundType) withNullable(n bool) boundType { t.nullable = n; return t }

// single is the type of one item of a collection type.
func (t boundType) single() boundType { t.collection = false; return t }

func (t boundType) isScalar() bool {
	return !t.collection && t.entity == nil && t.complex == nil && !t.null
}

func (t boundType) isBool() bool { return t.isScalar() && t.enum == nil && t.kind == edm.KindBoolean }
func (t boundType) isString() bool {
	return t.isScalar() && t.enum == nil && t.kind == edm.KindString
}
func (t boundType) isNumeric() bool { return t.isScalar() && t.enum == nil && numericRank(t.kind) > 0 }

func (t boundType) isNumericOrNull() bool { return t.isNumeric() || t.null }

func (t boundType) isDuration() bool {
	return t.isScalar() && t.enum == nil && t.kind == edm.KindDuration
}

// isDateOrTime reports whether t is a Date, a TimeOfDay or a DateTimeOffset.
func (t boundType) isDateOrTime() bool {
	if !t.isScalar() || t.enum != nil {
		return false
	}
	return t.kind == edm.KindDate || t.kind == edm.KindDateTimeOffset || t.kind == edm.KindTimeOfDay
}

// String names the type as OData does.
func (t boundType) String() string {
	var s string
	switch {
	case t.null:
		return "null"
	case t.entity != nil:
		s = t.entity.Name
	case t.complex != nil:
		s = t.complex.Name
	case t.enum != nil:
		s = t.enum.Name
	default:
		s = t.kind.String()
	}
	if t.collection {
		return "Collection(" + s + ")"
	}
	return s
}

// sameType reports whether a and b are the same scalar type (ignoring nullability).
func sameType(a, b boundType) bool {
	return a.kind == b.kind && a.enum == b.enum && a.complex == b.complex && a.entity == b.entity && a.collection == b.collection
}

// numericRank orders the numeric kinds for promotion: integers 1, Decimal 2, Single 3, Double 4; 0 for others.
func numericRank(k edm.Kind) int {
	switch k {
	case edm.KindByte, edm.KindSByte, edm.KindInt16, edm.KindInt32, edm.KindInt64:
		return 1
	case edm.KindDecimal:
		return 2
	case edm.KindSingle:
		return 3
	case edm.KindDouble:
		return 4
	}
	return 0
}

// promote returns the kind two numeric operands are promoted to: Int64 for integers, else the wider kind.
func promote(a, b edm.Kind) edm.Kind {
	leftRank, rightRank := numericRank(a), numericRank(b)
	switch max(leftRank, rightRank) {
	case 1:
		return edm.KindInt64
	case 2:
		return edm.KindDecimal
	case 3:
		return edm.KindSingle
	}
	return edm.KindDouble
}

// coerce converts a literal value of type from to the type to, when OData allows the literal to stand for a value
// of that type: integers as decimals and floating point, decimals as floating point, strings as enum members or
// durations, integers as the enum members of that value. ok is false when it does not.
func coerce(v any, from, to boundType) (any, bool) {
	if from.null {
		return nil, true
	}
	if to.enum != nil {
		switch x := v.(type) {
		case string:
			if from.enum == nil && from.kind != edm.KindString {
				return nil, false
			}
			if from.enum != nil && from.enum != to.enum {
				return nil, false
			}
			n, err := to.enum.Parse(x)
			if err != nil {
				return nil, false
			}
			return n, true
		case int64:
			if from.enum == nil && numericRank(from.kind) == 1 {
				// An integer stands for the member of that value (OData 4.01 enumMemberValue): Status eq 1.
				n, err := to.enum.Parse(strconv.FormatInt(x, 10))
				return n, err == nil
			}
			return x, from.enum == to.enum
		}
		return nil, false
	}
	if from.enum != nil {
		return nil, false
	}
	switch to.kind {
	case edm.KindDuration:
		switch x := v.(type) {
		case time.Duration:
			return x, true
		case string:
			d, err := edm.ParseDuration(x)
			return d, err == nil
		}
		return nil, false
	case edm.KindDecimal:
		switch x := v.(type) {
		case int64:
			return decimal.NewFromInt(x), true
		case decimal.Decimal:
			return x, true
		}
		return nil, false
	case edm.KindDouble, edm.KindSingle:
		switch x := v.(type) {
		case int64:
			return float64(x), true
		case decimal.Decimal:
			f, _ := x.Float64()
			return f, true
		case float64:
			return x, true
		}
		return nil, false
	}
	if numericRank(to.kind) == 1 {
		x, ok := v.(int64)
		return x, ok
	}
	if from.kind == to.kind {
		return v, true
	}
	return nil, false
}

// literalArg converts the Go value of a literal of type t (the value types of odata/DESIGN.md) to the argument d
// binds, in natural (unscaled) form: decimals as float64 on SQLite, where only columns are scaled.
func literalArg(d sqldb.Dialect, t boundType, v any) any {
	if v == nil {
		return nil
	}
	switch x := v.(type) {
	case decimal.Decimal:
		if d.ScaledDecimals() {
			f, _ := x.Float64()
			return f
		}
		return x.String()
	case edm.Date:
		return x.String()
	case edm.TimeOfDay:
		return x.Format(6)
	case time.Time:
		return sqldb.TimeArg(d, x)
	case time.Duration:
		return int64(x / time.Microsecond)
	case float64:
		if !d.StoresNaN() && math.IsNaN(x) {
			// SQLite has no NaN (it would read NULL). The translator folds comparisons with NaN; the infinities
			// are REAL values on SQLite too.
			return nil
		}
		return x
	}
	return v
}

// formatLiteral prints a bound literal value for messages.
func formatLiteral(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case []byte:
		return "binary'" + base64.URLEncoding.EncodeToString(x) + "'"
	case time.Duration:
		return "duration'" + edm.FormatDuration(x) + "'"
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

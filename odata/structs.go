package odata

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/internal/gostruct"
)

// The Go types whose values an Entity holds as they are (the other kinds convert by their reflect.Kind).
var (
	timeType      = reflect.TypeFor[time.Time]()
	durationType  = reflect.TypeFor[time.Duration]()
	dateType      = reflect.TypeFor[edm.Date]()
	timeOfDayType = reflect.TypeFor[edm.TimeOfDay]()
	decimalType   = reflect.TypeFor[decimal.Decimal]()
	goEnumType    = reflect.TypeFor[edm.GoEnum]()
)

// EntityOf returns the Entity that v, a struct or a pointer to one whose fields follow edm.EntityTypesOf,
// stands for: each property's value in the Go type of odata/DESIGN.md (integers as int64, float32 as float64,
// a time.Time in UTC, a nil pointer as nil, a slice as a []any, a struct as a map[string]any). Navigation
// fields are left out; an action may return the result as its entity.
func EntityOf(v any) (Entity, error) {
	rv, ok := structValue(v)
	if !ok {
		return nil, fmt.Errorf("odata: EntityOf(%T): not a struct or a pointer to one", v)
	}
	return encodeStruct(rv)
}

// structValue returns the struct v is or points to, and whether it is one.
func structValue(v any) (reflect.Value, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	return rv, rv.Kind() == reflect.Struct
}

// Decode sets the fields of the struct v points to from the properties of e, as edm.EntityTypesOf maps them:
// the inverse of EntityOf. Fields whose property e does not hold (a lazy property not read, a navigation) keep
// their values; a nil value sets the zero value (a nil pointer). A value the field cannot hold (another type,
// an integer out of its range) is an error naming the property.
func (e Entity) Decode(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("odata: Decode(%T): not a pointer to a struct", v)
	}
	return decodeStruct(e, rv.Elem())
}

// GetAs reads the entity with the given key values (Tx.Get) of T's entity type, the one named as the Go type T
// (edm.EntityTypesOf), as a T.
func GetAs[T any](ctx context.Context, tx *Tx, key ...any) (T, error) {
	var out T
	et, err := tx.structType(reflect.TypeFor[T]())
	if err != nil {
		return out, err
	}
	e, err := tx.Get(ctx, et, key...)
	if err != nil {
		return out, err
	}
	return out, e.Decode(&out)
}

// QueryAs reads the entities of T's entity type that match where (Tx.Query) as T values.
func QueryAs[T any](ctx context.Context, tx *Tx, where sq.Sqlizer, orderBy ...string) ([]T, error) {
	et, err := tx.structType(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	list, err := tx.Query(ctx, et, where, orderBy...)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(list))
	for i, e := range list {
		if err := e.Decode(&out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// InsertStruct stores the struct v points to as a new entity of its entity type (Tx.Insert with every
// property of v). A key the database generates (edm.Property.Generated) that v leaves zero is generated and
// set in v. Like Insert it applies no defaults: a key the engine generates for requests (a string from NewID)
// must be set.
func (tx *Tx) InsertStruct(ctx context.Context, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("odata: InsertStruct(%T): not a pointer to a struct", v)
	}
	et, err := tx.structType(rv.Elem().Type())
	if err != nil {
		return err
	}
	e, err := encodeStruct(rv.Elem())
	if err != nil {
		return err
	}
	keys := et.KeyProperties()
	generated := len(keys) == 1 && keys[0].Generated && (e[keys[0].Name] == int64(0) || e[keys[0].Name] == "")
	if generated {
		delete(e, keys[0].Name)
	}
	if err := tx.Insert(ctx, et, e); err != nil || !generated {
		return err
	}
	return Entity{keys[0].Name: e[keys[0].Name]}.Decode(v)
}

// UpdateStruct stores every property of v, a struct or a pointer to one, on the existing entity of its entity
// type whose key v holds (Tx.Update). A missing entity is a 404 *Error wrapping ErrNotFound.
func (tx *Tx) UpdateStruct(ctx context.Context, v any) error {
	e, err := EntityOf(v)
	if err != nil {
		return err
	}
	et, err := tx.structType(reflect.Indirect(reflect.ValueOf(v)).Type())
	if err != nil {
		return err
	}
	return tx.Update(ctx, et, e)
}

// structType returns the entity type of the model named as the struct type t.
func (tx *Tx) structType(t reflect.Type) (*edm.EntityType, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("odata: %s is not a struct type", t)
	}
	if !tx.Model.Built() {
		return nil, fmt.Errorf("odata: Tx.Model: %w", edm.ErrNotBuilt)
	}
	et := tx.Model.EntityType(t.Name())
	if et == nil || et.Name != t.Name() {
		return nil, fmt.Errorf("odata: the model has no entity type %q for the Go type %s", t.Name(), t)
	}
	return et, nil
}

// asEntity returns an operation's entity result: an Entity (or map), or a struct or pointer to one (EntityOf).
func asEntity(v any) (Entity, error) {
	if m, ok := asMap(v); ok {
		return m, nil
	}
	rv, ok := structValue(v)
	if !ok {
		return nil, fmt.Errorf("the result is a %T, want an Entity or a struct", v)
	}
	return encodeStruct(rv)
}

// structFields returns the fields of the struct type t, or its problems as one error.
func structFields(t reflect.Type) ([]gostruct.Field, error) {
	s := gostruct.Fields(t)
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("odata: struct %s: %w", t, err)
	}
	return s.Fields, nil
}

// encodeStruct returns the properties of the struct value rv.
func encodeStruct(rv reflect.Value) (Entity, error) {
	fields, err := structFields(rv.Type())
	if err != nil {
		return nil, err
	}
	e := make(Entity, len(fields))
	for _, f := range fields {
		if f.Navigation() {
			continue
		}
		_, nullable := f.Option("nullable")
		v, err := encodeValue(rv.FieldByIndex(f.Index), nullable)
		if err != nil {
			return nil, fmt.Errorf("odata: property %s (field %s of %s): %w", f.Name, f.GoName, rv.Type(), err)
		}
		e[f.Name] = v
	}
	return e, nil
}

// encodeValue returns the Entity value of the field value v; nullable says that a nil []byte is null (else
// empty).
func encodeValue(v reflect.Value, nullable bool) (any, error) {
	t := v.Type()
	switch t {
	case timeType:
		return v.Interface().(time.Time).UTC(), nil
	case durationType, dateType, timeOfDayType, decimalType:
		return v.Interface(), nil
	}
	switch k := t.Kind(); {
	case k == reflect.Pointer:
		if v.IsNil() {
			return nil, nil
		}
		return encodeValue(v.Elem(), false)
	case k == reflect.String:
		return v.String(), nil
	case k == reflect.Bool:
		return v.Bool(), nil
	case v.CanInt():
		return v.Int(), nil
	case v.CanUint():
		if v.Uint() > math.MaxInt64 {
			return nil, fmt.Errorf("%d is out of range", v.Uint())
		}
		return int64(v.Uint()), nil
	case v.CanFloat():
		return v.Float(), nil
	case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		if v.IsNil() && nullable {
			return nil, nil
		}
		return append([]byte{}, v.Bytes()...), nil
	case k == reflect.Slice:
		items := make([]any, v.Len())
		for i := range items {
			var err error
			if items[i], err = encodeValue(v.Index(i), false); err != nil {
				return nil, err
			}
		}
		return items, nil
	case k == reflect.Struct:
		e, err := encodeStruct(v)
		return map[string]any(e), err
	}
	return nil, fmt.Errorf("the Go type %s has no EDM type", t)
}

// decodeStruct sets the fields of the struct value rv (addressable) from the properties in m.
func decodeStruct(m map[string]any, rv reflect.Value) error {
	fields, err := structFields(rv.Type())
	if err != nil {
		return err
	}
	for _, f := range fields {
		x, ok := m[f.Name]
		if !ok || f.Navigation() {
			continue
		}
		if err := decodeValue(rv.FieldByIndex(f.Index), x); err != nil {
			return fmt.Errorf("odata: property %s (field %s of %s): %w", f.Name, f.GoName, rv.Type(), err)
		}
	}
	return nil
}

// decodeValue sets the field value v (settable) from the Entity value x.
func decodeValue(v reflect.Value, x any) error {
	t := v.Type()
	if x == nil {
		v.SetZero()
		return nil
	}
	if t.Kind() == reflect.Pointer {
		p := reflect.New(t.Elem())
		if err := decodeValue(p.Elem(), x); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
	xv := reflect.ValueOf(x)
	switch t {
	case timeType, durationType, dateType, timeOfDayType, decimalType:
		if xv.Type() != t {
			return fmt.Errorf("cannot set a %s from a %T", t, x)
		}
		v.Set(xv)
		return nil
	}
	if s, ok := x.(string); ok && t.Implements(goEnumType) && v.CanInt() {
		n, err := reflect.Zero(t).Interface().(edm.GoEnum).EnumType().Parse(s)
		if err != nil {
			return err
		}
		xv = reflect.ValueOf(n)
	}
	return decodeKind(v, xv)
}

// decodeKind sets v from xv by their reflect.Kinds: strings, booleans, numbers in range, []byte, collections
// ([]any) and complex values (maps).
func decodeKind(v, xv reflect.Value) error {
	t := v.Type()
	switch k := t.Kind(); {
	case k == reflect.String && xv.Kind() == reflect.String:
		v.SetString(xv.String())
	case k == reflect.Bool && xv.Kind() == reflect.Bool:
		v.SetBool(xv.Bool())
	case v.CanInt() && (xv.CanInt() || xv.CanUint()):
		n, ok := integerOf(xv)
		if !ok || v.OverflowInt(n) {
			return fmt.Errorf("%v is out of the range of %s", xv, t)
		}
		v.SetInt(n)
	case v.CanUint() && (xv.CanInt() || xv.CanUint()):
		n, ok := integerOf(xv)
		if !ok || n < 0 || v.OverflowUint(uint64(n)) {
			return fmt.Errorf("%v is out of the range of %s", xv, t)
		}
		v.SetUint(uint64(n))
	case v.CanFloat() && xv.CanFloat():
		v.SetFloat(xv.Float())
	case k == reflect.Slice && xv.Kind() == reflect.Slice:
		return decodeSlice(v, xv)
	case k == reflect.Struct:
		m, ok := asMap(xv.Interface())
		if !ok {
			return fmt.Errorf("cannot set a %s from a %s", t, xv.Type())
		}
		return decodeStruct(m, v)
	default:
		return fmt.Errorf("cannot set a %s from a %s", t, xv.Type())
	}
	return nil
}

// decodeSlice sets the slice v from the slice xv: a []byte from a []byte, a collection item by item.
func decodeSlice(v, xv reflect.Value) error {
	t := v.Type()
	if t.Elem().Kind() == reflect.Uint8 {
		if xv.Type().Elem().Kind() != reflect.Uint8 {
			return fmt.Errorf("cannot set a %s from a %s", t, xv.Type())
		}
		v.SetBytes(append([]byte{}, xv.Bytes()...))
		return nil
	}
	items := reflect.MakeSlice(t, xv.Len(), xv.Len())
	for i := range xv.Len() {
		if err := decodeValue(items.Index(i), xv.Index(i).Interface()); err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
	}
	v.Set(items)
	return nil
}

// integerOf returns the integer value of xv (a signed or unsigned integer) as an int64.
func integerOf(xv reflect.Value) (int64, bool) {
	if xv.CanInt() {
		return xv.Int(), true
	}
	u := xv.Uint()
	return int64(u), u <= math.MaxInt64
}

package odata_test

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
)

// Shade is an enum type of Gadget.
type Shade int32

func (Shade) EnumType() *edm.EnumType {
	return &edm.EnumType{Name: "Shade", Members: []edm.EnumMember{{Name: "Light", Value: 1}, {Name: "Dark", Value: 2}}}
}

// Dims is a complex type of Gadget.
type Dims struct {
	Width  float64
	Height *int32
	Label  *Label
}

// Label is a complex type inside Dims.
type Label struct{ Text string }

// Audit is embedded in Gadget: its fields are Gadget's properties.
type Audit struct {
	Note string `odata:"AuditNote"`
}

// Gadget has a property of every kind the struct API maps, non-null and nullable.
type Gadget struct {
	Audit
	Id       int64  `odata:",key,generated"`
	Text     string `odata:",maxlength=50"`
	Guid     string `odata:",type=Guid"`
	Flag     bool
	Byte     uint8
	SByte    int8
	Int16    int16
	Int32    int32
	Int64    int64
	Int      int
	Price    decimal.Decimal `odata:",precision=19,scale=4"`
	Exact    decimal.Decimal `odata:",precision=12,scale=3,storage=exact"`
	Double   float64
	Single   float32
	Day      edm.Date
	Clock    edm.TimeOfDay
	At       time.Time
	Span     time.Duration
	Bytes    []byte
	Shade    Shade
	Dims     Dims
	MaybeDim *Dims
	Tags     []string
	Scores   []*int32
	Shades   []Shade

	OptText   *string
	OptGuid   *string `odata:",type=Guid"`
	OptFlag   *bool
	OptByte   *uint8
	OptInt16  *int16
	OptInt64  *int64
	OptPrice  *decimal.Decimal `odata:",precision=10,scale=2"`
	OptDouble *float64
	OptSingle *float32
	OptDay    *edm.Date
	OptClock  *edm.TimeOfDay
	OptAt     *time.Time
	OptSpan   *time.Duration
	OptBytes  []byte `odata:",nullable"`
	OptShade  *Shade

	Parts []Part `odata:",fk=GadgetId,partner=Gadget"`
}

// Part belongs to a Gadget.
type Part struct {
	Id       string `odata:",key"`
	GadgetId int64
	Gadget   *Gadget `odata:",fk=GadgetId,partner=Parts"`
}

// gadgetModel is the model of Gadget and Part with a table each in db, and an action that copies a gadget.
func gadgetModel(t *testing.T, db *dbtest.DB) *edm.Model {
	t.Helper()
	types, err := edm.EntityTypesOf(Gadget{}, Part{})
	if err != nil {
		t.Fatal(err)
	}
	m := &edm.Model{Namespace: "Shop", EntityTypes: types,
		EntitySets: []*edm.EntitySet{{Name: "Gadgets", Type: "Gadget"}, {Name: "Parts", Type: "Part"}},
		Actions: []*edm.Action{{Name: "Copy", Bound: true, BindingType: "Gadget",
			ReturnType: &edm.ReturnType{Entity: "Gadget"}}}}
	return createSchema(t, db, m)
}

func ptr[T any](v T) *T { return &v }

// fullGadget has a value in every property, at the edges of the ranges.
func fullGadget() Gadget {
	return Gadget{Audit: Audit{Note: "checked"}, Text: "naïve ☃", Guid: "0f8fad5b-d9cb-469f-a165-70867728950e", Flag: true, Byte: 255,
		SByte: -128, Int16: math.MinInt16, Int32: math.MaxInt32, Int64: math.MinInt64 + 1, Int: math.MaxInt64,
		Price: decimal.RequireFromString("922337203685477.5807"), Exact: decimal.RequireFromString("-123456789.125"),
		Double: 1e300, Single: math.MaxFloat32, Day: edm.Date{Year: 9999, Month: 12, Day: 31},
		Clock: edm.NewTimeOfDay(23, 59, 59, 999999000), At: time.Date(2026, 11, 23, 22, 1, 2, 123456000, time.FixedZone("", 3600)),
		Span: -(36*time.Hour + 1*time.Microsecond), Bytes: []byte{0, 1, 254, 255}, Shade: 2,
		Dims: Dims{Width: 0.5, Height: ptr[int32](7), Label: &Label{Text: "front"}}, MaybeDim: &Dims{Width: 2},
		Tags: []string{"b", "a", ""}, Scores: []*int32{ptr[int32](3), nil, ptr[int32](-1)}, Shades: []Shade{2, 1, 2},
		OptText: ptr(""), OptGuid: ptr("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), OptFlag: ptr(false), OptByte: ptr[uint8](0),
		OptInt16: ptr[int16](-1), OptInt64: ptr[int64](math.MaxInt64), OptPrice: ptr(decimal.RequireFromString("-0.01")),
		OptDouble: ptr(-0.25), OptSingle: ptr[float32](1.5), OptDay: &edm.Date{Year: 1, Month: 1, Day: 1},
		OptClock: ptr(edm.NewTimeOfDay(0, 0, 0, 0)), OptAt: ptr(time.Date(1970, 1, 1, 0, 0, 0, 1000, time.UTC)),
		OptSpan: ptr(time.Duration(0)), OptBytes: []byte{}, OptShade: ptr[Shade](1)}
}

// inTx runs fn in a transaction of db over m and commits it.
func inTx(t *testing.T, db *dbtest.DB, m *edm.Model, fn func(ctx context.Context, tx *odata.Tx) error) {
	t.Helper()
	ctx := context.Background()
	sqlTx, err := db.BeginTx(ctx, &sql.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sqlTx.Rollback()
	if err := fn(ctx, &odata.Tx{Tx: sqlTx, Model: m}); err != nil {
		t.Fatal(err)
	}
	if err := sqlTx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// sameGadgets compares gadgets as stored: an empty collection or byte slice equals a nil one, and times and
// decimals are compared by their Equal methods (cmp's rule).
var sameGadgets = cmpopts.EquateEmpty()

// TestTx_Structs writes gadgets with every kind of property as structs and reads them back exactly, on each
// database: InsertStruct (a generated key), GetAs, UpdateStruct (values to null and back), QueryAs.
func TestTx_Structs(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		m := gadgetModel(t, db)
		full, empty := fullGadget(), Gadget{Guid: "00000000-0000-0000-0000-000000000000", Day: edm.Date{Year: 2000, Month: 2, Day: 29}}
		inTx(t, db, m, func(ctx context.Context, tx *odata.Tx) error {
			for _, g := range []*Gadget{&full, &empty} {
				if err := tx.InsertStruct(ctx, g); err != nil {
					return err
				}
				if g.Id == 0 {
					t.Errorf("InsertStruct: the generated key is not set in the struct")
				}
				got, err := odata.GetAs[Gadget](ctx, tx, g.Id)
				if err != nil {
					return err
				}
				if diff := cmp.Diff(*g, got, sameGadgets); diff != "" {
					t.Errorf("GetAs(%d) after InsertStruct (-want +got):\n%s", g.Id, diff)
				}
			}
			return tx.InsertStruct(ctx, &Part{Id: "p1", GadgetId: full.Id})
		})
		// Swap the values: every nullable property of the full gadget becomes null, and back.
		updated, cleared := fullGadget(), empty
		updated.Id, cleared.Id = empty.Id, full.Id
		inTx(t, db, m, func(ctx context.Context, tx *odata.Tx) error {
			for _, g := range []Gadget{updated, cleared} {
				if err := tx.UpdateStruct(ctx, g); err != nil {
					return err
				}
			}
			got, err := odata.QueryAs[Gadget](ctx, tx, nil)
			if err != nil {
				return err
			}
			if diff := cmp.Diff([]Gadget{cleared, updated}, got, sameGadgets); diff != "" {
				t.Errorf("QueryAs after UpdateStruct (-want +got):\n%s", diff)
			}
			parts, err := odata.QueryAs[Part](ctx, tx, sq.Eq{"gadget_id": full.Id})
			if diff := cmp.Diff([]Part{{Id: "p1", GadgetId: full.Id}}, parts); diff != "" || err != nil {
				t.Errorf("QueryAs[Part] = %v (-want +got):\n%s", err, diff)
			}
			return nil
		})
		inTx(t, db, m, func(ctx context.Context, tx *odata.Tx) error {
			_, err := odata.GetAs[Gadget](ctx, tx, int64(-1))
			if !errors.Is(err, odata.ErrNotFound) {
				t.Errorf("GetAs of a missing key: error %v, want ErrNotFound", err)
			}
			missing := empty
			missing.Id = -1
			if err := tx.UpdateStruct(ctx, missing); !errors.Is(err, odata.ErrNotFound) {
				t.Errorf("UpdateStruct of a missing key: error %v, want ErrNotFound", err)
			}
			if _, err := odata.GetAs[Dims](ctx, tx, int64(1)); err == nil || !strings.Contains(err.Error(), `no entity type "Dims"`) {
				t.Errorf("GetAs[Dims]: error %v, want no entity type", err)
			}
			return nil
		})
	})
}

// TestEntityOf converts a struct to an Entity and back.
func TestEntityOf(t *testing.T) {
	g := Gadget{Audit: Audit{Note: "n"}, Id: 7, Text: "x", Int32: -3, Single: 0.5, At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("", -3600)),
		Shade: 1, Dims: Dims{Width: 1, Label: &Label{Text: "l"}}, Tags: []string{"t"}, Scores: []*int32{nil},
		OptInt16: ptr[int16](4), Parts: []Part{{Id: "ignored"}}}
	e, err := odata.EntityOf(&g)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"AuditNote": "n", "Id": int64(7), "Text": "x", "Int32": int64(-3), "Single": 0.5,
		"At": time.Date(2026, 1, 2, 4, 4, 5, 0, time.UTC), "Shade": int64(1),
		"Dims": map[string]any{"Width": 1.0, "Height": nil, "Label": map[string]any{"Text": "l"}},
		"Tags": []any{"t"}, "Scores": []any{nil}, "OptInt16": int64(4), "Bytes": []byte{}, "OptBytes": nil}
	for name, v := range want {
		if diff := cmp.Diff(v, e[name]); diff != "" {
			t.Errorf("EntityOf(gadget)[%q] (-want +got):\n%s", name, diff)
		}
	}
	if _, ok := e["Parts"]; ok {
		t.Errorf("EntityOf(gadget) has the navigation Parts")
	}
	var back Gadget
	if err := e.Decode(&back); err != nil {
		t.Fatal(err)
	}
	g.Parts = nil
	if diff := cmp.Diff(g, back, sameGadgets); diff != "" {
		t.Errorf("Decode(EntityOf(g)) (-want +got):\n%s", diff)
	}
}

// TestEntity_Decode checks the values Decode accepts besides the canonical ones, and those it refuses.
func TestEntity_Decode(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    odata.Entity
		want Gadget
		err  string
	}{
		{name: "loose numbers", e: odata.Entity{"Int32": 5, "Byte": uint16(7), "Single": float32(2.5), "OptInt64": int32(-2)},
			want: Gadget{Int32: 5, Byte: 7, Single: 2.5, OptInt64: ptr[int64](-2)}},
		{name: "enum member name", e: odata.Entity{"Shade": "Dark", "OptShade": "light"}, want: Gadget{Shade: 2, OptShade: ptr[Shade](1)}},
		{name: "nil", e: odata.Entity{"Text": nil, "OptText": nil, "Tags": nil}, want: Gadget{}},
		{name: "an Entity as a complex value", e: odata.Entity{"Dims": odata.Entity{"Width": 3.0}}, want: Gadget{Dims: Dims{Width: 3}}},
		{name: "out of range", e: odata.Entity{"SByte": int64(128)}, err: "property SByte (field SByte of odata_test.Gadget): 128 is out of the range of int8"},
		{name: "negative byte", e: odata.Entity{"Byte": int64(-1)}, err: "-1 is out of the range of uint8"},
		{name: "wrong type", e: odata.Entity{"Text": int64(1)}, err: "property Text (field Text of odata_test.Gadget): cannot set a string from a int64"},
		{name: "wrong time", e: odata.Entity{"At": "2026-01-01T00:00:00Z"}, err: "cannot set a time.Time from a string"},
		{name: "wrong item", e: odata.Entity{"Tags": []any{"a", 1.5}}, err: "item 1: cannot set a string from a float64"},
		{name: "unknown member", e: odata.Entity{"Shade": "Blue"}, err: "Blue"},
		{name: "complex from a string", e: odata.Entity{"Dims": "x"}, err: "cannot set a odata_test.Dims from a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got Gadget
			err := tc.e.Decode(&got)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Decode(%v) error = %v, want %q", tc.e, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, sameGadgets); diff != "" {
				t.Errorf("Decode(%v) (-want +got):\n%s", tc.e, diff)
			}
		})
	}
}

// TestStructs_NotStructs checks the errors for values that are not structs or have wrong tags.
func TestStructs_NotStructs(t *testing.T) {
	type twice struct {
		A string `odata:"X"`
		B string `odata:"X"`
	}
	var g Gadget
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"EntityOf(int)", second(odata.EntityOf(3)), "odata: EntityOf(int): not a struct or a pointer to one"},
		{"EntityOf(nil pointer)", second(odata.EntityOf((*Gadget)(nil))), "odata: EntityOf(*odata_test.Gadget): not a struct or a pointer to one"},
		{"Decode(struct)", odata.Entity{}.Decode(g), "odata: Decode(odata_test.Gadget): not a pointer to a struct"},
		{"EntityOf(two fields of one name)", second(odata.EntityOf(twice{})), `odata: struct odata_test.twice: fields A and B both name "X"`},
	} {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("%s error = %v, want %q", tc.name, tc.err, tc.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestService_Structs uses the struct API where plug-ins work: a BeforeSave hook that reads the new entity as
// a Gadget, and an action that inserts a struct and returns it as its entity.
func TestService_Structs(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		m := gadgetModel(t, db)
		beforeSave := func(ctx context.Context, tx *odata.Tx, c *odata.Change) error {
			var g Gadget
			if err := c.New.Decode(&g); err != nil {
				return err
			}
			if g.Int32 < 0 {
				return odata.ValidationError(odata.ErrorDetail{Code: odata.CodeInvalidValue, Target: "Int32", Message: "Int32 must not be negative."})
			}
			c.New["Text"] = strings.ToUpper(g.Text)
			return nil
		}
		copyGadget := func(ctx context.Context, call *odata.ActionCall) (any, error) {
			var g Gadget
			if err := call.Entity.Decode(&g); err != nil {
				return nil, err
			}
			g.Id, g.Text = 0, g.Text+" (copy)"
			return &g, call.Tx.InsertStruct(ctx, &g)
		}
		svc, err := odata.NewService(odata.Config{Model: m, DB: db.DB, Mount: "/odata", Logger: discardLogger(),
			Sets:    map[string]odata.SetOptions{"Gadgets": {Writes: odata.WriteAll, Hooks: odata.Hooks{BeforeSave: beforeSave}}, "Parts": {}},
			Actions: map[string]odata.ActionFunc{"Gadget/Copy": copyGadget}})
		if err != nil {
			t.Fatal(err)
		}
		g := fullGadget()
		inTx(t, db, m, func(ctx context.Context, tx *odata.Tx) error { return tx.InsertStruct(ctx, &g) })
		f := &fixture{t: t, db: db, svc: svc}
		f.must(400, "PATCH", "/odata/Gadgets(1)", `{"Int32":-1}`)
		f.must(200, "PATCH", "/odata/Gadgets(1)", `{"Text":"lamp","Int32":3}`, "Prefer", "return=representation")
		resp := f.must(200, "POST", "/odata/Gadgets(1)/Shop.Copy", `{}`)
		for _, want := range []string{`"Id":2,`, `"Text":"LAMP (copy)"`, `"Day":"9999-12-31"`, `"Int32":3`, `"Tags":["b","a",""]`} {
			if !strings.Contains(resp.Body, want) {
				t.Errorf("POST Gadgets(1)/Shop.Copy: the answer has no %s\n%s", want, resp.Body)
			}
		}
		f.must(200, "GET", "/odata/Gadgets(2)", "")
	})
}

// BenchmarkEntityOf measures the conversion of a struct with every kind of property into an Entity.
func BenchmarkEntityOf(b *testing.B) {
	g := fullGadget()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := odata.EntityOf(&g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEntity_Decode measures the conversion of an Entity with every kind of property into a struct.
func BenchmarkEntity_Decode(b *testing.B) {
	g := fullGadget()
	e, err := odata.EntityOf(&g)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var out Gadget
		if err := e.Decode(&out); err != nil {
			b.Fatal(err)
		}
	}
}

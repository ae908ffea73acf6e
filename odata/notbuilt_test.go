package odata_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/edm"
)

// TestNewService_ModelNotBuilt: a model whose Build was forgotten is one of the configuration's mistakes, and its
// message says to call Build.
func TestNewService_ModelNotBuilt(t *testing.T) {
	_, err := odata.NewService(odata.Config{Model: libraryModel()})
	if !errors.Is(err, edm.ErrNotBuilt) {
		t.Fatalf("NewService(model not built) = %v, want edm.ErrNotBuilt among its errors", err)
	}
	const want = "odata: Config.Model: edm: model not built: call its Build method (edm.Model.Build) first"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("NewService(model not built) = %q, want it to hold %q", err, want)
	}
}

// TestTx_StructsModelNotBuilt: a Tx whose model was never built answers edm.ErrNotBuilt, not "no entity type".
func TestTx_StructsModelNotBuilt(t *testing.T) {
	types, err := edm.EntityTypesOf(Gadget{}, Part{})
	if err != nil {
		t.Fatal(err)
	}
	tx := &odata.Tx{Model: &edm.Model{Namespace: "Shop", EntityTypes: types}}
	g := fullGadget()
	if err := tx.InsertStruct(context.Background(), &g); !errors.Is(err, edm.ErrNotBuilt) {
		t.Errorf("InsertStruct(model not built) = %v, want edm.ErrNotBuilt", err)
	}
}

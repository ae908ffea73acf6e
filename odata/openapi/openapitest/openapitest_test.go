package openapitest_test

import (
	"strings"
	"testing"

	"github.com/storekit/store/odata/openapi/openapitest"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name, doc string
		want      string // a part of the error; "" for a valid document
	}{
		{"minimal", `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{}}`, ""},
		{"schema types", `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{},
			"components":{"schemas":{"a":{"type":["integer","string"],"format":"int64"}}}}`, ""},
		{"no info", `{"openapi":"3.1.0","paths":{}}`, "info"},
		{"wrong version", `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{}}`, "openapi"},
		{"bad schema", `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{},
			"components":{"schemas":{"a":{"type":"integer","maxLength":"ten"}}}}`, "maxLength"},
		{"bad parameter", `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{
			"parameters":[{"name":"x","in":"body"}],"responses":{"200":{"description":"ok"}}}}}}`, "parameters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := openapitest.Validate([]byte(tt.doc))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate(%s) = %v, want nil", tt.name, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate(%s) = %v, want an error about %s", tt.name, err, tt.want)
			}
		})
	}
}

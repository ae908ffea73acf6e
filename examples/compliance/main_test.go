package main

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// TestRun starts the program on a free port, on a SQLite file and (when STORE_TEST_POSTGRES is set) on a fresh
// PostgreSQL database, and checks a few answers of the reference model.
func TestRun(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		checkService(t, start(t, filepath.Join(t.TempDir(), "compliance.db")))
	})
	t.Run("postgres", func(t *testing.T) {
		checkService(t, start(t, dbtest.Postgres(t).URL))
	})
}

// start runs the program on dsn and returns its root URL; the program stops when the test ends.
func start(t *testing.T, dsn string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	done := make(chan error, 1)
	args := []string{"compliance", "-addr", "127.0.0.1:0", "-db", dsn}
	go func() {
		done <- run(ctx, args, func(string) string { return "" }, w, io.Discard)
		w.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run = %v", err)
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no first line: %v (run: %v)", err, <-done)
	}
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first line = %q, want listening on http://ADDR", line)
	}
	go io.Copy(io.Discard, out)
	return base
}

func checkService(t *testing.T, base string) {
	var document struct {
		Value []struct{ Name, Kind string } `json:"value"`
	}
	get(t, base+"/", &document)
	var names []string
	for _, v := range document.Value {
		names = append(names, v.Name+" "+v.Kind)
	}
	wantNames := []string{"Products EntitySet", "Categories EntitySet", "ProductDescriptions EntitySet",
		"MediaItems EntitySet", "ReadOnlyItems EntitySet", "DecimalSamples EntitySet", "RestrictedItems EntitySet", "HierarchyNodes EntitySet", "Company Singleton",
		"GetTopProducts FunctionImport", "FindProducts FunctionImport", "Calculate FunctionImport", "Convert FunctionImport"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("service document mismatch (-want +got):\n%s", diff)
	}

	checkMetadata(t, base)
	checkPowerQuery(t, base)

	var laptop struct {
		Name, Status    string
		Version         int
		ShippingAddress struct{ City string }
		ETag            string `json:"@odata.etag"`
	}
	get(t, base+"/Products("+laptopID+")", &laptop)
	if laptop.Name != "Laptop" || laptop.Status != "InStock,Featured" || laptop.Version != 1 ||
		laptop.ShippingAddress.City != "Seattle" || laptop.ETag == "" {
		t.Errorf("GET Products(%s) = %+v, want the seeded Laptop with an ETag", laptopID, laptop)
	}

	tests := []struct {
		query string
		want  []string
	}{
		{"$filter=Price gt 500&$orderby=Price desc", []string{"Premium Laptop Pro", "Laptop", "Smartphone"}},
		{"$filter=Category/Name eq 'Kitchen'", []string{"Coffee Mug"}},
		{"$filter=Status has ComplianceService.ProductStatus'Discontinued'", []string{"Office Chair"}},
		{"$filter=Descriptions/any(d: d/LanguageKey eq 'FR')", []string{"Wireless Mouse"}},
		{"$filter=isof(ComplianceService.SpecialProduct)", []string{"Laptop", "Premium Laptop Pro", "Gaming Mouse Ultra"}},
		{"$filter=ComplianceService.SpecialProduct/SpecialFeature eq 'Premium support'", []string{"Laptop"}},
	}
	for _, tt := range tests {
		if got := productNames(t, base, tt.query); !cmp.Equal(got, tt.want) {
			t.Errorf("GET Products?%s = %q, want %q", tt.query, got, tt.want)
		}
	}

	checkFunctions(t, base)
	checkDecimals(t, base)
	checkSpecialProducts(t, base)
	checkRestricted(t, base)
	checkHierarchy(t, base)
	answer := send(t, http.MethodPatch, base+"/Company", `{"CEO": "Ada"}`)
	if !strings.Contains(string(answer), `"CEO":"Ada"`) || !strings.Contains(string(answer), `"Version":2`) {
		t.Errorf("PATCH /Company = %s, want CEO Ada and Version 2", answer)
	}
	// Deep update: the EN description (composite key ProductID, LanguageKey: the ProductID comes from the
	// product) is updated, the others are deleted (they cannot be without their product).
	send(t, http.MethodPatch, base+"/Products("+laptopID+")", `{"Descriptions":[{"LanguageKey":"EN","Description":"Updated inline"}]}`)
	var descriptions struct {
		Value []struct{ LanguageKey, Description string }
	}
	get(t, base+"/Products("+laptopID+")/Descriptions", &descriptions)
	if want := `[{EN Updated inline}]`; fmt.Sprint(descriptions.Value) != want {
		t.Errorf("descriptions after a deep update = %v, want %s", descriptions.Value, want)
	}
	checkReseed(t, base)
}

// checkSpecialProducts reads the derived type SpecialProduct through a cast and creates one: its rows are in
// Products, the hook sets ProductType to the type's name.
func checkSpecialProducts(t *testing.T, base string) {
	t.Helper()
	var special struct {
		Value []struct{ Name, SpecialProperty string }
	}
	get(t, base+"/Products/ComplianceService.SpecialProduct?$select=Name,SpecialProperty&$top=1", &special)
	if want := `[{Laptop Extended warranty included}]`; fmt.Sprint(special.Value) != want {
		t.Errorf("GET Products/ComplianceService.SpecialProduct = %v, want %s", special.Value, want)
	}
	answer := send(t, http.MethodPost, base+"/Products",
		`{"@odata.type":"#ComplianceService.SpecialProduct","Name":"Tablet","Price":300,"SpecialFeature":"Pen"}`)
	for _, want := range []string{`"@odata.type":"#ComplianceService.SpecialProduct"`, `"ProductType":"SpecialProduct"`, `"SpecialFeature":"Pen"`} {
		if !strings.Contains(string(answer), want) {
			t.Errorf("POST /Products of a SpecialProduct = %s, want %s", answer, want)
		}
	}
}

// checkFunctions calls the contract's functions: overloads, bound to a product and to the collection.
func checkFunctions(t *testing.T, base string) {
	t.Helper()
	names := func(path string) []string {
		var page struct{ Value []struct{ Name string } }
		get(t, base+path, &page)
		var out []string
		for _, p := range page.Value {
			out = append(out, p.Name)
		}
		return out
	}
	for path, want := range map[string][]string{
		"/GetTopProducts(count=2)":                          {"Premium Laptop Pro", "Laptop"},
		"/Products/GetTopProducts(count=1)":                 {"Premium Laptop Pro"},
		"/GetTopProducts(count=1,category='Kitchen')":       {"Coffee Mug"},
		"/FindProducts(name='Laptop',maxPrice=1000)":        {"Laptop"},
		"/FindProducts(name=@n,maxPrice=@p)?@n='Mug'&@p=50": {"Coffee Mug"},
	} {
		if got := names(path); !cmp.Equal(got, want) {
			t.Errorf("GET %s = %q, want %q", path, got, want)
		}
	}
	var value struct{ Value any }
	for path, want := range map[string]any{
		"/Calculate(a=3,b=7)":                                    float64(10),
		"/Convert(input='hello')":                                "HELLO",
		"/Products(" + laptopID + ")/GetTotalPrice(taxRate=0.1)": 999.99 * 1.1,
	} {
		get(t, base+path, &value)
		if f, ok := want.(float64); ok && f > 100 {
			if got, _ := value.Value.(float64); got < f-0.001 || got > f+0.001 {
				t.Errorf("GET %s = %v, want %v", path, value.Value, want)
			}
			continue
		}
		if value.Value != want {
			t.Errorf("GET %s = %v, want %v", path, value.Value, want)
		}
	}
}

// checkMetadata checks that $metadata is CSDL XML with the model's namespace and entity sets.
func checkMetadata(t *testing.T, base string) {
	t.Helper()
	resp, err := http.Get(base + "/$metadata")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/xml") {
		t.Fatalf("GET $metadata = %d %s, want 200 application/xml", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var edmx struct {
		Schema struct {
			Namespace string `xml:"Namespace,attr"`
			Container struct {
				Sets []struct {
					Name string `xml:"Name,attr"`
				} `xml:"EntitySet"`
			} `xml:"EntityContainer"`
		} `xml:"DataServices>Schema"`
	}
	if err := xml.NewDecoder(resp.Body).Decode(&edmx); err != nil {
		t.Fatalf("GET $metadata: %v", err)
	}
	if want := len(model().EntitySets); edmx.Schema.Namespace != namespace || len(edmx.Schema.Container.Sets) != want {
		t.Errorf("$metadata: namespace %q with %d entity sets, want %q with %d",
			edmx.Schema.Namespace, len(edmx.Schema.Container.Sets), namespace, want)
	}
}

// powerQueryHeaders are the headers Microsoft Power Query (Excel, Power BI: OData.Feed) sends with each request.
var powerQueryHeaders = map[string]string{
	"Accept": "application/json;odata.metadata=minimal;q=1.0,application/json;odata=minimalmetadata;q=0.9," +
		"application/atomsvc+xml;q=0.8,application/atom+xml;q=0.8,application/xml;q=0.7,text/plain;q=0.7",
	"OData-MaxVersion":      "4.0",
	"MaxDataServiceVersion": "3.0",
}

// checkPowerQuery replays Power Query over HTTP: the service document, $metadata (CSDL XML, which is all it
// reads), then Products page by page (two a page), following each next link to the last page; and the CSRF token
// fetch SAP clients send before writes, on $batch and an action URL.
func checkPowerQuery(t *testing.T, base string) {
	t.Helper()
	do := func(method, url string, headers map[string]string) (*http.Response, []byte) {
		t.Helper()
		return request(t, method, url, "", headers)
	}
	check := func(url string, resp *http.Response, body []byte, contentType string) {
		t.Helper()
		got := []string{fmt.Sprint(resp.StatusCode), resp.Header.Get("Content-Type"), resp.Header.Get("OData-Version")}
		if diff := cmp.Diff([]string{"200", contentType, "4.0"}, got); diff != "" {
			t.Fatalf("GET %s: status, Content-Type, OData-Version (-want +got):\n%s%.300s", url, diff, body)
		}
	}
	const jsonType = "application/json;odata.metadata=minimal"
	resp, body := do("GET", base+"/", powerQueryHeaders)
	check(base+"/", resp, body, jsonType)
	resp, body = do("GET", base+"/$metadata", powerQueryHeaders)
	check(base+"/$metadata", resp, body, "application/xml")
	if !strings.Contains(string(body), `<edmx:Edmx Version="4.0"`) {
		t.Errorf("$metadata for Power Query: %.200s, want CSDL XML of version 4.0", body)
	}

	var all struct {
		Value []struct{ ID any } `json:"value"`
	}
	get(t, base+"/Products?$select=ID&$top=1000", &all)
	headers := map[string]string{"Prefer": "odata.maxpagesize=2"}
	for name, value := range powerQueryHeaders {
		headers[name] = value
	}
	var ids []any
	next := base + "/Products?$select=ID"
	for pages := 0; next != ""; pages++ {
		if pages > len(all.Value) {
			t.Fatalf("more pages than products; the last next link was %s", next)
		}
		resp, body = do("GET", next, headers)
		check(next, resp, body, jsonType)
		var page struct {
			Value    []struct{ ID any } `json:"value"`
			NextLink string             `json:"@odata.nextLink"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatalf("GET %s: %v", next, err)
		}
		for _, p := range page.Value {
			ids = append(ids, p.ID)
		}
		next = page.NextLink
	}
	var want []any
	for _, p := range all.Value {
		want = append(want, p.ID)
	}
	if diff := cmp.Diff(want, ids); diff != "" || len(ids) < 3 {
		t.Errorf("the pages hold (-every product +paged), want all (at least 3):\n%s", diff)
	}

	for _, path := range []string{"/", "/$batch", "/Reseed", "/Products"} {
		resp, body := do("HEAD", base+path, map[string]string{"X-CSRF-Token": "Fetch"})
		if resp.StatusCode != http.StatusOK || len(body) != 0 || resp.Header.Get("X-CSRF-Token") != "" {
			t.Errorf("HEAD %s with X-CSRF-Token: Fetch = %d, %d bytes, X-CSRF-Token %q; want 200 without either",
				path, resp.StatusCode, len(body), resp.Header.Get("X-CSRF-Token"))
		}
	}
}

// checkDecimals reads the seed row of DecimalSamples, a Decimal(38,18), exactly and finds it by exact
// comparisons and arithmetic at the 18th decimal.
func checkDecimals(t *testing.T, base string) {
	t.Helper()
	for _, tc := range []struct {
		filter string
		want   []string // Name=Amount, the amount as the JSON text of the answer
	}{
		{"Amount eq 123.45", []string{"Seed Decimal=123.45"}},
		{"Amount eq 123.450000000000000001", nil},
		{"Amount gt 123.449999999999999999 and Amount lt 123.450000000000000001", []string{"Seed Decimal=123.45"}},
		{"Amount add 0.000000000000000001 eq 123.450000000000000001", []string{"Seed Decimal=123.45"}},
		{"Amount mul 2 eq 246.9", []string{"Seed Decimal=123.45"}},
	} {
		var page struct {
			Value []struct {
				Name   string
				Amount json.RawMessage
			}
		}
		get(t, base+"/DecimalSamples?$select=Name,Amount&$filter="+url.PathEscape(tc.filter), &page)
		var got []string
		for _, v := range page.Value {
			got = append(got, v.Name+"="+string(v.Amount))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("GET DecimalSamples?$filter=%s (-want +got):\n%s", tc.filter, diff)
		}
	}
}

// checkReseed changes a product (its Version, the ETag source, goes up) and restores it with Reseed.
func checkReseed(t *testing.T, base string) {
	t.Helper()
	var mug struct {
		Price   float64
		Version int
	}
	answer := send(t, http.MethodPatch, base+"/Products("+mugID+")", `{"Price": 20}`)
	if err := json.Unmarshal(answer, &mug); err != nil || mug.Price != 20 || mug.Version != 2 {
		t.Errorf("PATCH Products(%s) = %s, want Price 20 and Version 2", mugID, answer)
	}
	send(t, http.MethodPost, base+"/Reseed", `{}`)
	get(t, base+"/Products("+mugID+")", &mug)
	if mug.Price != 15.5 || mug.Version != 1 {
		t.Errorf("after Reseed Products(%s) = %+v, want Price 15.5 and Version 1", mugID, mug)
	}
}

func productNames(t *testing.T, base, query string) []string {
	t.Helper()
	values, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	values.Set("$select", "Name")
	var page struct {
		Value []struct{ Name string } `json:"value"`
	}
	get(t, base+"/Products?"+strings.ReplaceAll(values.Encode(), "+", "%20"), &page)
	var names []string
	for _, p := range page.Value {
		names = append(names, p.Name)
	}
	return names
}

func get(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d %s", url, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// send sends a JSON body and returns the answer's body; anything but 200 (or 201 for a POST) fails the test.
func send(t *testing.T, method, url, body string) []byte {
	t.Helper()
	status, answer := sendJSON(t, method, url, body)
	if status != http.StatusOK && (method != http.MethodPost || status != http.StatusCreated) {
		t.Fatalf("%s %s = %d %s", method, url, status, answer)
	}
	return answer
}

// sendJSON sends a JSON body and returns the answer's status and body.
func sendJSON(t *testing.T, method, url, body string) (int, []byte) {
	t.Helper()
	resp, answer := request(t, method, url, body, map[string]string{"Content-Type": "application/json"})
	return resp.StatusCode, answer
}

// request sends a request with body (none when empty) and headers, and returns the answer and its body.
func request(t *testing.T, method, url, body string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for name, value := range headers {
		req.Header.Set(name, value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, answer
}

// checkRestricted reads RestrictedItems, whose reads take no $filter, $orderby, $count, $expand or $select and
// which takes no writes: those answer 400 OptionNotAllowed (405 for a POST), a plain read the seed rows.
func checkRestricted(t *testing.T, base string) {
	tests := []struct {
		method, query string
		status        int
		code          string
	}{
		{http.MethodGet, "?$filter=" + url.QueryEscape("ID ne null"), 400, "OptionNotAllowed"},
		{http.MethodGet, "?$orderby=" + url.QueryEscape("ID asc"), 400, "OptionNotAllowed"},
		{http.MethodGet, "?$count=true", 400, "OptionNotAllowed"},
		{http.MethodGet, "/$count", 400, "OptionNotAllowed"},
		{http.MethodGet, "?$expand=*", 400, "OptionNotAllowed"},
		{http.MethodGet, "?$select=ID", 400, "OptionNotAllowed"},
		{http.MethodPost, "", 405, "MethodNotAllowed"},
		{http.MethodGet, "?$top=1", 200, ""},
	}
	for _, tt := range tests {
		status, body := sendJSON(t, tt.method, base+"/"+restrictedSet+tt.query, `{"Name":"x"}`)
		var answer struct {
			Error struct{ Code string }
			Value []struct{ Name string }
		}
		if err := json.Unmarshal(body, &answer); err != nil {
			t.Fatalf("%s %s%s: %v", tt.method, restrictedSet, tt.query, err)
		}
		if status != tt.status || answer.Error.Code != tt.code || tt.status == 200 && len(answer.Value) != 1 {
			t.Errorf("%s %s%s = %d %s %v, want %d %q", tt.method, restrictedSet, tt.query, status,
				answer.Error.Code, answer.Value, tt.status, tt.code)
		}
	}
}

// checkHierarchy walks the tree of HierarchyNodes (1 > 2 > 4, 1 > 3, 5) with the hierarchical transformations
// of $apply; an unknown hierarchy and a distance of 0 answer 400.
func checkHierarchy(t *testing.T, base string) {
	tests := []struct {
		apply  string
		status int
		ids    []int
	}{
		{"ancestors($root/HierarchyNodes,Tree,ID,filter(ID eq 4),keep start)", 200, []int{1, 2, 4}},
		{"descendants($root/HierarchyNodes,Tree,ID,filter(ID eq 1),1)", 200, []int{2, 3}},
		{"traverse($root/HierarchyNodes,Tree,ID,preorder,Name desc)", 200, []int{5, 1, 3, 2, 4}},
		{"traverse($root/HierarchyNodes,Tree,ID,postorder)", 200, []int{4, 2, 3, 1, 5}},
		{"ancestors($root/HierarchyNodes,Forest,ID,filter(ID eq 4))", 400, nil},
		{"descendants($root/HierarchyNodes,Tree,ID,filter(ID eq 1),0)", 400, nil},
	}
	for _, tt := range tests {
		status, body := sendJSON(t, http.MethodGet, base+"/"+hierarchySet+"?$apply="+url.QueryEscape(tt.apply), "")
		var answer struct{ Value []struct{ ID int } }
		if err := json.Unmarshal(body, &answer); err != nil {
			t.Fatalf("$apply=%s: %v", tt.apply, err)
		}
		var ids []int
		for _, v := range answer.Value {
			ids = append(ids, v.ID)
		}
		if status != tt.status || !slices.Equal(ids, tt.ids) {
			t.Errorf("$apply=%s = %d %v, want %d %v", tt.apply, status, ids, tt.status, tt.ids)
		}
	}
}

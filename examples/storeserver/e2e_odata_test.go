package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/storekit/store/odata/dbtest"
)

// pngImage returns a real PNG image of w x h pixels.
func pngImage(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{R: 200, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// setCase is the walk of one writable entity set through the rows of SPEC part 3.
type setCase struct {
	set string
	// create is a valid body; want holds fields the created entity must have (also defaults of fields not
	// sent).
	create, want map[string]any
	// patch changes one field; reset is a field that create sets and a full update without it resets to the
	// value given.
	patch        map[string]any
	resetField   string
	resetDefault any
	// key returns the key segment of an entity: ('<Id>') or, for customers, ('<Email>').
	key func(e map[string]any) string
	// invalid is a body that breaks rules, and the details the answer must list.
	invalid     map[string]any
	wantDetails []string
}

func idKey(e map[string]any) string { return "('" + str(e, "Id") + "')" }

// withKeys returns a copy of m with the pairs set.
func withKeys(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// jsonValue is v as the test's JSON decoder reads it (numbers as json.Number).
func jsonValue(v any) any {
	b, _ := json.Marshal(v)
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	_ = d.Decode(&out)
	return out
}

func TestStore_EntitySets(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false")
		admin := s.admin(t)
		pic := base64.StdEncoding.EncodeToString(pngImage(t, 2, 2))
		cases := []setCase{
			{set: "Manufacturer",
				create: map[string]any{"Name": "Acme Tools", "DisplayOrder": 3, "PageSizeOptions": "6, 12"},
				want: map[string]any{"Name": "Acme Tools", "SeName": "acme-tools", "DisplayOrder": 3, "Published": true,
					"PageSize": 0, "Description": nil, "FeaturedProductsOnHomaPage": false},
				patch: map[string]any{"Description": "Hand tools"}, resetField: "DisplayOrder", resetDefault: 0,
				key: idKey, invalid: map[string]any{"Name": " ", "PictureId": "nope", "PageSizeOptions": "6,6", "PageSize": -1},
				wantDetails: []string{
					"Required Name: Manufacturer name is required",
					"InvalidValue PictureId: Picture 'nope' does not exist",
					"InvalidValue PageSize: PageSize must not be negative",
					"InvalidValue PageSizeOptions: PageSizeOptions lists 6 more than once",
				}},
			{set: "Category",
				create: map[string]any{"Name": "Pens & Pencils", "IncludeInTopMenu": true},
				want: map[string]any{"Name": "Pens & Pencils", "SeName": "pens-pencils", "IncludeInTopMenu": true,
					"Published": true, "ParentCategoryId": nil},
				patch: map[string]any{"Flag": "New"}, resetField: "IncludeInTopMenu", resetDefault: false,
				key: idKey, invalid: map[string]any{"ParentCategoryId": "nope", "PageSizeOptions": "x"},
				wantDetails: []string{
					"Required Name: Category name is required",
					`InvalidValue PageSizeOptions: PageSizeOptions must be a comma-separated list of distinct positive integers, such as "6, 12, 24"`,
					"InvalidValue ParentCategoryId: Category 'nope' does not exist",
				}},
			{set: "CustomerRole",
				create: map[string]any{"Name": "Wholesale", "FreeShipping": true, "SystemName": "Wholesale"},
				want: map[string]any{"Name": "Wholesale", "FreeShipping": true, "Active": true, "IsSystemRole": false,
					"SystemName": "Wholesale", "PurchasedWithProductId": nil},
				patch: map[string]any{"TaxExempt": true}, resetField: "FreeShipping", resetDefault: false,
				key: idKey, invalid: map[string]any{"Name": "Administrators", "PurchasedWithProductId": "nope"},
				wantDetails: []string{
					"InvalidValue Name: A customer role named 'Administrators' already exists",
					"InvalidValue PurchasedWithProductId: Product 'nope' does not exist",
				}},
			{set: "Product",
				create: map[string]any{"Name": "Fountain Pen", "Price": 19.99, "Sku": "PEN-1", "ManageInventoryMethod": "ManageStock",
					"StockQuantity": 10},
				want: map[string]any{"Name": "Fountain Pen", "SeName": "fountain-pen", "Price": 19.99, "Sku": "PEN-1",
					"ManageInventoryMethod": "ManageStock", "StockQuantity": 10, "ProductType": "SimpleProduct",
					"OrderMinimumQuantity": 1, "OrderMaximumQuantity": 10000, "Published": true, "VisibleIndividually": true,
					"IsShipEnabled": true, "BackorderMode": "NoBackorders", "LowStockActivity": "Nothing", "Sold": 0,
					"OldPrice": 0},
				patch: map[string]any{"OldPrice": 24.5}, resetField: "StockQuantity", resetDefault: 0,
				key: idKey, invalid: map[string]any{"Price": -1, "OrderMinimumQuantity": 0, "Sku": "PEN-1",
					"AvailableStartDateTimeUtc": "2030-01-02T00:00:00Z", "AvailableEndDateTimeUtc": "2030-01-01T00:00:00Z"},
				wantDetails: []string{
					"Required Name: Product name is required",
					"InvalidValue Price: Price must not be negative",
					"InvalidValue Sku: Sku 'PEN-1' is already used by another product",
					"InvalidValue OrderMinimumQuantity: OrderMinimumQuantity must be at least 1",
					"InvalidValue AvailableEndDateTimeUtc: AvailableEndDateTimeUtc must not be before AvailableStartDateTimeUtc",
				}},
			{set: "Customer",
				create: map[string]any{"Email": "Jane.Doe@example.com", "FirstName": "Jane", "DateOfBirth": "1990-04-01",
					"CountryId": "US", "StateProvinceId": "US-NY"},
				want: map[string]any{"Email": "Jane.Doe@example.com", "Username": "Jane.Doe@example.com", "FirstName": "Jane",
					"DateOfBirth": "1990-04-01", "Active": true, "HasPassword": false, "CountryId": "US"},
				patch: map[string]any{"LastName": "Doe"}, resetField: "FirstName", resetDefault: nil,
				key: func(e map[string]any) string { return "('" + url.PathEscape(str(e, "Email")) + "')" },
				invalid: map[string]any{"Email": "admin@EXAMPLE.com", "CustomerRoles": []string{"nope"}, "CountryId": "CA",
					"StateProvinceId": "US-NY", "DateOfBirth": "2999-01-01"},
				wantDetails: []string{
					"InvalidValue Email: Email is already registered",
					"InvalidValue CustomerRoles: Customer role 'nope' does not exist",
					"InvalidValue StateProvinceId: State or province 'US-NY' is not in country 'CA'",
					"InvalidValue DateOfBirth: DateOfBirth must not be in the future",
				}},
			{set: "Picture",
				create: map[string]any{"MimeType": "image/png", "PictureBinary": pic, "AltAttribute": "A red dot"},
				want:   map[string]any{"MimeType": "image/png", "AltAttribute": "A red dot", "Size": len(pngImage(t, 2, 2))},
				patch:  map[string]any{"TitleAttribute": "Dot"}, resetField: "AltAttribute", resetDefault: nil,
				key: idKey, invalid: map[string]any{"MimeType": "image/jpeg", "PictureBinary": pic},
				wantDetails: []string{
					"InvalidValue MimeType: MimeType image/jpeg does not match the picture, which is image/png",
				}},
		}
		for _, c := range cases {
			t.Run(c.set, func(t *testing.T) { walkSet(t, s, admin, c) })
		}
	})
}

// walkSet walks one set through create, list, get, PATCH, PUT, POST-as-update, the error rows and DELETE.
func walkSet(t *testing.T, s *storeServer, admin *client, c setCase) {
	base := s.url + "/odata/"
	setURL := "/odata/" + c.set

	// Create: 201, the entity, Location, ETag.
	r := admin.must(t, http.StatusCreated, "POST", setURL, c.create)
	checkJSONHeaders(t, "POST "+c.set, r)
	created := r.json(t)
	id := str(created, "Id")
	if !idPattern.MatchString(id) {
		t.Fatalf("POST %s: Id = %q, want 24 hex digits", c.set, id)
	}
	key := c.key(created)
	if got, want := r.header.Get("Location"), base+c.set+key; got != want {
		t.Errorf("POST %s: Location = %q, want %q", c.set, got, want)
	}
	if got, want := str(created, "@odata.context"), base+"$metadata#"+c.set+"/$entity"; got != want {
		t.Errorf("POST %s: @odata.context = %q, want %q", c.set, got, want)
	}
	if etag := r.header.Get("ETag"); etag == "" || etag != str(created, "@odata.etag") {
		t.Errorf("POST %s: ETag header %q, @odata.etag %q, want the same", c.set, etag, created["@odata.etag"])
	}
	for k, want := range c.want {
		if diff := cmp.Diff(jsonValue(want), created[k]); diff != "" {
			t.Errorf("POST %s: %s (-want +got):\n%s", c.set, k, diff)
		}
	}
	if c.set != "Customer" && c.set != "CustomerRole" && c.set != "Picture" {
		if str(created, "CreatedOnUtc") == "" || created["CreatedOnUtc"] != created["UpdatedOnUtc"] {
			t.Errorf("POST %s: CreatedOnUtc %v, UpdatedOnUtc %v, want both set and equal", c.set, created["CreatedOnUtc"], created["UpdatedOnUtc"])
		}
	}
	if c.set == "Picture" {
		if _, ok := created["PictureBinary"]; ok {
			t.Errorf("POST Picture: the answer holds PictureBinary; it is returned only when selected")
		}
	}

	// The collection and the entity.
	r = admin.must(t, http.StatusOK, "GET", setURL, nil)
	checkJSONHeaders(t, "GET "+c.set, r)
	list := r.json(t)
	if got, want := str(list, "@odata.context"), base+"$metadata#"+c.set; got != want {
		t.Errorf("GET %s: @odata.context = %q, want %q", c.set, got, want)
	}
	found := false
	for _, v := range list["value"].([]any) {
		if str(v.(map[string]any), "Id") == id {
			found = true
		}
	}
	if !found {
		t.Errorf("GET %s: the new entity %s is not in the collection", c.set, id)
	}
	r = admin.must(t, http.StatusOK, "GET", setURL+key, nil)
	got := r.json(t)
	if diff := cmp.Diff(created, got); diff != "" {
		t.Errorf("GET %s%s (-created +got):\n%s", c.set, key, diff)
	}
	if r.header.Get("ETag") != str(created, "@odata.etag") {
		t.Errorf("GET %s%s: ETag %q, want %q", c.set, key, r.header.Get("ETag"), created["@odata.etag"])
	}

	// PATCH changes only the fields sent.
	oldETag := r.header.Get("ETag")
	r = admin.must(t, http.StatusOK, "PATCH", setURL+key, c.patch)
	patched := r.json(t)
	want := withKeys(created)
	for k, v := range c.patch {
		want[k] = jsonValue(v)
	}
	ignore := func(m map[string]any) map[string]any {
		return withKeys(m, "@odata.etag", nil, "UpdatedOnUtc", nil)
	}
	if diff := cmp.Diff(ignore(want), ignore(patched)); diff != "" {
		t.Errorf("PATCH %s%s (-want +got):\n%s", c.set, key, diff)
	}
	if r.header.Get("ETag") == oldETag {
		t.Errorf("PATCH %s%s: the ETag did not change", c.set, key)
	}

	// If-Match: a stale ETag is 412 and changes nothing; the current one works.
	admin.fails(t, http.StatusPreconditionFailed, "PreconditionFailed", "PATCH", setURL+key, c.patch, "If-Match", oldETag)
	admin.must(t, http.StatusOK, "PATCH", setURL+key, c.patch, "If-Match", r.header.Get("ETag"))
	admin.fails(t, http.StatusPreconditionFailed, "PreconditionFailed", "DELETE", setURL+key, nil, "If-Match", oldETag)

	// Prefer: return=minimal: 204 with OData-EntityId.
	r = admin.must(t, http.StatusNoContent, "PATCH", setURL+key, c.patch, "Prefer", "return=minimal")
	if got, want := r.header.Get("OData-EntityId"), base+c.set+key; got != want {
		t.Errorf("PATCH %s minimal: OData-EntityId = %q, want %q", c.set, got, want)
	}
	if len(r.body) != 0 {
		t.Errorf("PATCH %s minimal: body %q, want none", c.set, r.body)
	}

	// PUT replaces: fields not sent take their defaults. The body's key must match.
	full := withKeys(c.create, "Id", id)
	delete(full, c.resetField)
	if c.set == "Picture" {
		delete(full, "PictureBinary") // kept when not sent
	}
	r = admin.must(t, http.StatusOK, "PUT", setURL+key, full)
	replaced := r.json(t)
	if diff := cmp.Diff(jsonValue(c.resetDefault), replaced[c.resetField]); diff != "" {
		t.Errorf("PUT %s without %s (-want +got):\n%s", c.set, c.resetField, diff)
	}
	for k, v := range c.patch {
		if cmp.Equal(jsonValue(v), replaced[k]) {
			t.Errorf("PUT %s without %s: %s = %v, want the default", c.set, k, k, replaced[k])
		}
	}
	e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "PUT", setURL+key, withKeys(full, "Id", "0123456789abcdef01234567"))
	if e.Target != "Id" {
		t.Errorf("PUT %s with another Id: target %q, want Id", c.set, e.Target)
	}

	// POST with the Id of an existing entity is a full update (200); an unknown Id is a 400.
	r = admin.must(t, http.StatusOK, "POST", setURL, withKeys(c.create, "Id", id))
	if diff := cmp.Diff(jsonValue(c.create[c.resetField]), r.json(t)[c.resetField]); diff != "" {
		t.Errorf("POST %s with its Id: %s (-want +got):\n%s", c.set, c.resetField, diff)
	}
	e = admin.fails(t, http.StatusBadRequest, "InvalidValue", "POST", setURL, withKeys(c.create, "Id", "0123456789abcdef01234567"))
	if e.Target != "Id" || e.Message != c.set+" Id does not exist" {
		t.Errorf("POST %s with an unknown Id: target %q, message %q, want Id, %q", c.set, e.Target, e.Message, c.set+" Id does not exist")
	}

	// Read-only fields are ignored whatever their value (SPEC part 3): the stored value stays.
	current := admin.must(t, http.StatusOK, "GET", setURL+key, nil).json(t)
	for _, ro := range []string{"CreatedOnUtc", "UpdatedOnUtc", "Size", "IsSystemRole", "HasPassword"} {
		v, ok := current[ro]
		if !ok {
			continue
		}
		var other any = "2001-01-01T00:00:00Z"
		switch v.(type) {
		case bool:
			other = !v.(bool)
		case json.Number:
			other = 12345
		}
		for _, sent := range []any{v, other, "not a value"} {
			got := admin.must(t, http.StatusOK, "PATCH", setURL+key, map[string]any{ro: sent}).json(t)
			if ro != "UpdatedOnUtc" && !cmp.Equal(got[ro], v) {
				t.Errorf("PATCH %s %s=%v: %s = %v, want the stored %v", c.set, ro, sent, ro, got[ro], v)
			}
			if ro == "UpdatedOnUtc" && got[ro] == "2001-01-01T00:00:00Z" {
				t.Errorf("PATCH %s %s=%v: the sent value was stored", c.set, ro, sent)
			}
		}
	}

	// An entity read with its navigations expanded and sent back whole is accepted: the navigations change only
	// through the actions of SPEC part 5, so the related entities sent inline are ignored like read-only fields.
	expanded := admin.must(t, http.StatusOK, "GET", setURL+key+"?$expand=*", nil).json(t)
	sentBack := map[string]any{}
	for name, v := range expanded {
		if !strings.Contains(name, "@") {
			sentBack[name] = v
		}
	}
	admin.must(t, http.StatusOK, "PATCH", setURL+key, sentBack)
	again := admin.must(t, http.StatusOK, "GET", setURL+key+"?$expand=*", nil).json(t)
	for name, v := range expanded {
		if _, isArray := v.([]any); isArray && !cmp.Equal(v, again[name]) {
			t.Errorf("PATCH %s%s sent back with $expand=*: %s changed from %v to %v", c.set, key, name, v, again[name])
		}
	}

	// Validation: one detail per failed rule, in one answer; nothing is stored.
	before := s.count(t, `SELECT 1 FROM `+tableOf(c.set))
	e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", setURL, c.invalid)
	gotDetails, wantDetails := e.details(), append([]string(nil), c.wantDetails...)
	sort.Strings(gotDetails)
	sort.Strings(wantDetails)
	if diff := cmp.Diff(wantDetails, gotDetails); diff != "" {
		t.Errorf("POST %s %v: details (-want +got):\n%s", c.set, c.invalid, diff)
	}
	if after := s.count(t, `SELECT 1 FROM `+tableOf(c.set)); after != before {
		t.Errorf("POST %s invalid: %d rows before, %d after", c.set, before, after)
	}
	e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "PATCH", setURL+key, map[string]any{"NoSuchField": 1})
	if e.Target != "NoSuchField" || e.Details[0].Code != "UnknownField" {
		t.Errorf("PATCH %s unknown field: %+v, want UnknownField NoSuchField", c.set, e)
	}
	e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "PATCH", setURL+key, map[string]any{"Id": 5})
	if e.Target != "Id" {
		t.Errorf("PATCH %s with a number for Id: target %q, want Id", c.set, e.Target)
	}
	admin.fails(t, http.StatusUnsupportedMediaType, "UnsupportedMediaType", "PATCH", setURL+key, "x", "Content-Type", "text/plain")
	admin.fails(t, http.StatusBadRequest, "InvalidJson", "PATCH", setURL+key, "{")

	// DELETE: 200 with an empty body; then every method on the key is 404.
	r = admin.must(t, http.StatusOK, "DELETE", setURL+key, nil, "Content-Type", "text/plain")
	if len(r.body) != 0 {
		t.Errorf("DELETE %s: body %q, want empty", c.set, r.body)
	}
	for _, m := range []string{"GET", "DELETE", "PATCH", "PUT"} {
		var body any
		if m == "PATCH" || m == "PUT" {
			body = full
		}
		admin.fails(t, http.StatusNotFound, "NotFound", m, setURL+key, body)
	}
}

// tableOf is the table of an entity set.
func tableOf(set string) string {
	return map[string]string{"Manufacturer": "manufacturer", "Category": "category", "CustomerRole": "customer_role",
		"Product": "product", "Customer": "customer", "Picture": "picture"}[set]
}

func TestStore_ODataProtocol(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil)
		admin := s.admin(t)
		base := s.url + "/odata/"

		t.Run("OKServiceDocument", func(t *testing.T) {
			r := admin.must(t, http.StatusOK, "GET", "/odata/", nil)
			checkJSONHeaders(t, "GET /odata/", r)
			var names []string
			for _, v := range r.json(t)["value"].([]any) {
				names = append(names, str(v.(map[string]any), "name"))
			}
			sort.Strings(names)
			want := []string{"Category", "Country", "Customer", "CustomerRole", "Manufacturer", "NewsletterSubscription",
				"Order", "Picture", "Product", "StateProvince"}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("service document sets (-want +got):\n%s", diff)
			}
		})
		t.Run("OKMetadata", func(t *testing.T) {
			r := admin.must(t, http.StatusOK, "GET", "/odata/$metadata", nil)
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/xml") {
				t.Errorf("$metadata Content-Type = %q, want application/xml", ct)
			}
			for _, want := range []string{`Namespace="Store"`, `<Action Name="SetPassword" IsBound="true">`,
				`Org.OData.Authorization.V1.Authorizations`, `<EntitySet Name="Product" EntityType="Store.Product">`} {
				if !bytes.Contains(r.body, []byte(want)) {
					t.Errorf("$metadata has no %s", want)
				}
			}
			j := admin.must(t, http.StatusOK, "GET", "/odata/$metadata?$format=json", nil).json(t)
			if path(j, "Store", "Product", "$Key", 0) != "Id" {
				t.Errorf("CSDL JSON: Store.Product.$Key = %v, want [Id]", path(j, "Store", "Product", "$Key"))
			}
		})
		t.Run("OKQueryInBody", func(t *testing.T) {
			// POST .../$query (the options in a text/plain body) answers as the GET with those options.
			const options = "$filter=Id%20eq%20'US'%20or%20Id%20eq%20'CA'&$select=Name&$orderby=Id"
			get := admin.must(t, http.StatusOK, "GET", "/odata/Country?"+options, nil)
			post := admin.must(t, http.StatusOK, "POST", "/odata/Country/$query", options, "Content-Type", "text/plain")
			if !bytes.Equal(get.body, post.body) {
				t.Errorf("POST Country/$query = %s\nGET Country?... = %s", post.body, get.body)
			}
		})
		t.Run("OKAll", func(t *testing.T) {
			r := admin.must(t, http.StatusOK, "GET", "/odata/$all/Store.Country?$top=2&$select=Name", nil).json(t)
			values := r["value"].([]any)
			if str(r, "@odata.context") != base+"$metadata#Collection(Edm.EntityType)" || len(values) != 2 ||
				str(values[0].(map[string]any), "@odata.type") != "#Store.Country" {
				t.Errorf("GET $all/Store.Country?$top=2 = %v", r)
			}
		})
		t.Run("OKCaseInsensitiveSet", func(t *testing.T) {
			r := admin.must(t, http.StatusOK, "GET", "/odata/product", nil)
			if got := str(r.json(t), "@odata.context"); got != base+"$metadata#Product" {
				t.Errorf("GET /odata/product: @odata.context = %q", got)
			}
		})
		t.Run("OKDemoCatalogPaging", func(t *testing.T) {
			r := admin.must(t, http.StatusOK, "GET", "/odata/Country?$count=true", nil).json(t)
			if n := num(r, "@odata.count"); n < "2" || len(r["value"].([]any)) != 100 || str(r, "@odata.nextLink") == "" {
				t.Errorf("GET Country?$count=true: count %s, %d entities, nextLink %q; want all countries, 100, a link",
					n, len(r["value"].([]any)), str(r, "@odata.nextLink"))
			}
			us := admin.must(t, http.StatusOK, "GET", "/odata/Country('US')", nil).json(t)
			if str(us, "Name") == "" || str(us, "ThreeLetterIsoCode") != "USA" {
				t.Errorf("GET Country('US') = %v", us)
			}
			ny := admin.must(t, http.StatusOK, "GET", "/odata/StateProvince('US-NY')", nil).json(t)
			if str(ny, "Name") != "New York" || str(ny, "CountryId") != "US" {
				t.Errorf("GET StateProvince('US-NY') = %v", ny)
			}
		})
		t.Run("OKCustomerByEmailIgnoringCase", func(t *testing.T) {
			r := admin.must(t, http.StatusOK, "GET", "/odata/Customer('ADMIN@Example.COM')", nil).json(t)
			if str(r, "Email") != adminEmail || r["HasPassword"] != true || len(r["CustomerRoles"].([]any)) != 2 {
				t.Errorf("GET Customer('ADMIN@Example.COM') = %v, want the admin with two roles", r)
			}
			if _, ok := r["Password"]; ok {
				t.Errorf("a customer answer carries a password field")
			}
		})
		t.Run("ErrReadOnlySets", func(t *testing.T) {
			for _, c := range []struct{ method, path, allow string }{
				{"POST", "/odata/Country", "GET"},
				{"PATCH", "/odata/Country('US')", "GET"},
				{"PUT", "/odata/StateProvince('US-NY')", "GET"},
				{"DELETE", "/odata/StateProvince('US-NY')", "GET"},
				{"POST", "/odata/NewsletterSubscription", "GET"},
				{"POST", "/odata/Order", "GET"},
			} {
				var body any
				if c.method != "DELETE" {
					body = map[string]any{"Name": "x"}
				}
				admin.fails(t, http.StatusMethodNotAllowed, "MethodNotAllowed", c.method, c.path, body)
				r := admin.do(t, c.method, c.path, body)
				if allow := r.header.Get("Allow"); !strings.Contains(allow, c.allow) || strings.Contains(allow, c.method) {
					t.Errorf("%s %s: Allow = %q, want it to list %s and not %s", c.method, c.path, allow, c.allow, c.method)
				}
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			admin.fails(t, http.StatusNotFound, "NotFound", "GET", "/odata/NoSuchSet", nil)
			admin.fails(t, http.StatusNotFound, "NotFound", "GET", "/odata/Product('0123456789abcdef01234567')", nil)
			admin.fails(t, http.StatusNotFound, "NotFound", "GET", "/odata/Customer('nobody@example.com')", nil)
			admin.fails(t, http.StatusNotFound, "NotFound", "POST", "/odata/Product('0123456789abcdef01234567')/UpdateStock", map[string]any{"Stock": 1})
			admin.fails(t, http.StatusNotFound, "NotFound", "POST", "/odata/Order('0123456789abcdef01234567')/Ship", nil)
		})
		t.Run("ErrCreateRequiresJSON", func(t *testing.T) {
			admin.fails(t, http.StatusUnsupportedMediaType, "UnsupportedMediaType", "POST", "/odata/Manufacturer", "Name=x",
				"Content-Type", "application/x-www-form-urlencoded")
			admin.fails(t, http.StatusUnsupportedMediaType, "UnsupportedMediaType", "POST", "/odata/Product('x')/UpdateStock", "{}",
				"Content-Type", "text/plain")
		})
		t.Run("OKRequestHeaders", func(t *testing.T) {
			// GET ignores a Content-Type; OData-Version and OData-MaxVersion 4.0 or 4.01 are accepted, not needed.
			for _, h := range [][]string{{"Content-Type", "text/plain"}, {"OData-MaxVersion", "4.01"},
				{"OData-MaxVersion", "4.0"}, {"OData-Version", "4.0"}, {"Accept", "application/json"}} {
				r := admin.must(t, http.StatusOK, "GET", "/odata/Country('US')", nil, h...)
				checkJSONHeaders(t, "GET Country('US') with "+strings.Join(h, ": "), r)
			}
			admin.fails(t, http.StatusNotAcceptable, "NotAcceptable", "GET", "/odata/Country('US')", nil, "Accept", "text/csv")
		})
		t.Run("OKPreferMinimalCreate", func(t *testing.T) {
			// SPEC part 3: 204 with OData-EntityId, and a create also sends Location.
			r := admin.must(t, http.StatusNoContent, "POST", "/odata/Manufacturer", map[string]any{"Name": "Minimal"}, "Prefer", "return=minimal")
			location := r.header.Get("Location")
			if !strings.HasPrefix(location, base+"Manufacturer('") || r.header.Get("OData-EntityId") != location || len(r.body) != 0 {
				t.Errorf("POST minimal: Location %q, OData-EntityId %q, body %q; want the new entity's URL in both, no body",
					location, r.header.Get("OData-EntityId"), r.body)
			}
		})
		t.Run("OKSeNameUnique", func(t *testing.T) {
			a := admin.must(t, http.StatusCreated, "POST", "/odata/Category", map[string]any{"Name": "Summer Sale!"}).json(t)
			b := admin.must(t, http.StatusCreated, "POST", "/odata/Manufacturer", map[string]any{"Name": "Summer sale"}).json(t)
			c := admin.must(t, http.StatusCreated, "POST", "/odata/Product", map[string]any{"Name": "x", "SeName": "Summer Sale"}).json(t)
			got := []string{str(a, "SeName"), str(b, "SeName"), str(c, "SeName")}
			if diff := cmp.Diff([]string{"summer-sale", "summer-sale-2", "summer-sale-3"}, got); diff != "" {
				t.Errorf("SeNames (-want +got):\n%s", diff)
			}
		})
		t.Run("OKCustomerKeyRules", func(t *testing.T) {
			c := admin.must(t, http.StatusCreated, "POST", "/odata/Customer", map[string]any{"Email": "keys@example.com"}).json(t)
			// PUT: the body's Id and Email must match the entity (Email ignoring case).
			admin.must(t, http.StatusOK, "PUT", "/odata/Customer('KEYS@example.com')", map[string]any{"Id": c["Id"], "Email": "Keys@Example.com"})
			e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "PUT", "/odata/Customer('keys@example.com')",
				map[string]any{"Id": c["Id"], "Email": "other@example.com"})
			if e.Target != "Email" {
				t.Errorf("PUT Customer with another Email: target %q, want Email", e.Target)
			}
			e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "PATCH", "/odata/Customer('keys@example.com')",
				map[string]any{"Email": "other@example.com"})
			if e.Target != "Email" {
				t.Errorf("PATCH Customer Email: target %q, want Email", e.Target)
			}
			// POST upserts by Id: the customer's roles reset to Registered when not sent.
			admin.must(t, http.StatusOK, "PATCH", "/odata/Customer('keys@example.com')", map[string]any{"CustomerRoles": []string{}})
			r := admin.must(t, http.StatusOK, "POST", "/odata/Customer", map[string]any{"Id": c["Id"], "Email": "keys@example.com"}).json(t)
			if diff := cmp.Diff(c["CustomerRoles"], r["CustomerRoles"]); diff != "" {
				t.Errorf("POST Customer by Id without CustomerRoles (-want +got):\n%s", diff)
			}
		})
		t.Run("OKFilterProductName", func(t *testing.T) {
			admin.must(t, http.StatusCreated, "POST", "/odata/Product", map[string]any{"Name": "Filter Me", "Price": 1})
			r := admin.do(t, "GET", "/odata/Product?$filter="+queryEscape("Name eq 'Filter Me'"), nil)
			if r.status != http.StatusOK {
				t.Fatalf("GET Product?$filter=Name eq 'Filter Me' = %s", r)
			}
			v := r.json(t)["value"].([]any)
			if len(v) != 1 || str(v[0].(map[string]any), "Name") != "Filter Me" {
				t.Errorf("GET Product?$filter=Name eq 'Filter Me' = %s, want the one product", r)
			}
			r = admin.must(t, http.StatusOK, "GET", "/odata/Product?$filter="+queryEscape("contains(Name,'ilter M')")+"&$select=Name", nil)
			if v := r.json(t)["value"].([]any); len(v) != 1 {
				t.Errorf("GET Product?$filter=contains(Name,'ilter M') = %s, want one product", r)
			}
			e := admin.fails(t, http.StatusBadRequest, "SyntaxError", "GET", "/odata/Product?$filter="+queryEscape("Name eq"), nil)
			if e.Target != "$filter" {
				t.Errorf("$filter syntax error: target %q, want $filter", e.Target)
			}
			e = admin.fails(t, http.StatusBadRequest, "TypeMismatch", "GET", "/odata/Product?$filter="+queryEscape("Name eq 5"), nil)
			if e.Target != "$filter" {
				t.Errorf("$filter type mismatch: target %q, want $filter", e.Target)
			}
		})
	})
}

func TestStore_Picture(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false")
		admin := s.admin(t)
		img := pngImage(t, 3, 3)
		p := admin.must(t, http.StatusCreated, "POST", "/odata/Picture",
			map[string]any{"MimeType": "image/png", "PictureBinary": base64.StdEncoding.EncodeToString(img)}).json(t)
		key := "/odata/Picture('" + str(p, "Id") + "')"

		t.Run("OKValue", func(t *testing.T) {
			r := admin.must(t, http.StatusOK, "GET", key+"/$value", nil)
			if ct := r.header.Get("Content-Type"); ct != "image/png" {
				t.Errorf("GET %s/$value: Content-Type = %q, want image/png", key, ct)
			}
			if !bytes.Equal(r.body, img) {
				t.Errorf("GET %s/$value: %d bytes, want the %d uploaded", key, len(r.body), len(img))
			}
		})
		t.Run("OKSelectBinary", func(t *testing.T) {
			r := admin.must(t, http.StatusOK, "GET", key+"?$select=Id,PictureBinary", nil)
			// Standard base64, as SPEC 4.7 promises (the engine's default for Edm.Binary is OData's base64url;
			// both alphabets are accepted in bodies).
			if base64.StdEncoding.EncodeToString(img) == base64.URLEncoding.EncodeToString(img) {
				t.Fatal("the test image does not tell base64 from base64url: it needs a '+' or '/' in base64")
			}
			if got := str(r.json(t), "PictureBinary"); got != base64.StdEncoding.EncodeToString(img) {
				t.Errorf("GET %s?$select=PictureBinary = %.80s..., want the image in standard base64", key, got)
			}
		})
		t.Run("ErrMimeTypeOfTheBytes", func(t *testing.T) {
			e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "PATCH", key, map[string]any{"MimeType": "image/gif"})
			if diff := cmp.Diff([]string{"InvalidValue MimeType: MimeType image/gif does not match the picture, which is image/png"}, e.details()); diff != "" {
				t.Errorf("PATCH MimeType gif (-want +got):\n%s", diff)
			}
			e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", "/odata/Picture",
				map[string]any{"MimeType": "text/plain", "PictureBinary": base64.StdEncoding.EncodeToString([]byte("hello"))})
			want := []string{"InvalidValue MimeType: MimeType must be image/jpeg, image/png, image/gif or image/webp",
				"InvalidValue PictureBinary: PictureBinary is not a JPEG, PNG, GIF or WebP image"}
			if diff := cmp.Diff(want, e.details()); diff != "" {
				t.Errorf("POST a text file (-want +got):\n%s", diff)
			}
			e = admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", "/odata/Picture", map[string]any{"MimeType": "image/png"})
			if diff := cmp.Diff([]string{"Required PictureBinary: PictureBinary is required"}, e.details()); diff != "" {
				t.Errorf("POST without bytes (-want +got):\n%s", diff)
			}
		})
		t.Run("ErrTooLarge", func(t *testing.T) {
			// Over 10 MiB decoded, under 16 MiB of body: a rule of the picture.
			big := append(append([]byte(nil), img...), make([]byte, 10<<20)...)
			body := `{"MimeType":"image/png","PictureBinary":"` + base64.StdEncoding.EncodeToString(big) + `"}`
			e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "POST", "/odata/Picture", body)
			if e.Target != "PictureBinary" {
				t.Errorf("POST a picture over 10 MiB: target %q, want PictureBinary", e.Target)
			}
			// Over 16 MiB of body: 413 before anything is decoded.
			huge := `{"MimeType":"image/png","PictureBinary":"` + strings.Repeat("A", 16<<20) + `"}`
			e = admin.fails(t, http.StatusRequestEntityTooLarge, "PayloadTooLarge", "POST", "/odata/Picture", huge)
			if !strings.Contains(e.Message, "16 MiB") {
				t.Errorf("413 message %q does not name the limit", e.Message)
			}
			// Other sets: 1 MiB.
			e = admin.fails(t, http.StatusRequestEntityTooLarge, "PayloadTooLarge", "POST", "/odata/Manufacturer",
				`{"Name":"`+strings.Repeat("a", 1<<20)+`"}`)
			if !strings.Contains(e.Message, "1 MiB") {
				t.Errorf("413 message %q does not name the limit", e.Message)
			}
		})
		t.Run("OKDeleteRemovesProductLinks", func(t *testing.T) {
			prod := admin.must(t, http.StatusCreated, "POST", "/odata/Product", map[string]any{"Name": "Framed"}).json(t)
			admin.must(t, http.StatusOK, "POST", "/odata/Product('"+str(prod, "Id")+"')/CreateProductPicture", map[string]any{"PictureId": p["Id"]})
			admin.must(t, http.StatusOK, "DELETE", key, nil)
			if n := s.count(t, `SELECT 1 FROM product_picture WHERE product_id = ?`, prod["Id"]); n != 0 {
				t.Errorf("product_picture rows after the picture is deleted = %d, want 0", n)
			}
		})
	})
}

// queryEscape percent-encodes a query option value, spaces as %20 (a + is a plus sign in OData URLs).
func queryEscape(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }

// TestStore_OpaqueReferences checks the nullable strings ManufacturerTemplateId (SPEC 4.1) and TaxCategoryId
// (SPEC 4.4): null by default, null and text accepted in writes, a number refused, and both filterable.
func TestStore_OpaqueReferences(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil, "-demo=false")
		admin := s.admin(t)
		for _, tc := range []struct{ set, field string }{
			{"Manufacturer", "ManufacturerTemplateId"},
			{"Product", "TaxCategoryId"},
		} {
			t.Run(tc.set, func(t *testing.T) {
				plain := admin.must(t, http.StatusCreated, "POST", "/odata/"+tc.set, map[string]any{"Name": "Plain"}).json(t)
				if v, ok := plain[tc.field]; !ok || v != nil {
					t.Errorf("POST %s without %s: %s = %v, want null", tc.set, tc.field, tc.field, v)
				}
				explicit := admin.must(t, http.StatusCreated, "POST", "/odata/"+tc.set,
					map[string]any{"Name": "Explicit null", tc.field: nil}).json(t)
				if v := explicit[tc.field]; v != nil {
					t.Errorf("POST %s with %s null: %v, want null", tc.set, tc.field, v)
				}
				tagged := admin.must(t, http.StatusCreated, "POST", "/odata/"+tc.set,
					map[string]any{"Name": "Tagged", tc.field: "5f1a2b3c4d5e6f7a8b9c0d1e"}).json(t)
				if v := str(tagged, tc.field); v != "5f1a2b3c4d5e6f7a8b9c0d1e" {
					t.Errorf("POST %s with a string %s: %v", tc.set, tc.field, tagged[tc.field])
				}
				key := "/odata/" + tc.set + "('" + str(tagged, "Id") + "')"
				if v := str(admin.must(t, http.StatusOK, "PATCH", key, map[string]any{tc.field: "B-7"}).json(t), tc.field); v != "B-7" {
					t.Errorf("PATCH %s = %q, want B-7", tc.field, v)
				}
				if e := admin.fails(t, http.StatusBadRequest, "ValidationFailed", "PATCH", key, map[string]any{tc.field: 7}); e.Target != tc.field {
					t.Errorf("PATCH %s with a number: target %q, want %s", tc.field, e.Target, tc.field)
				}
				if v := admin.must(t, http.StatusOK, "PATCH", key, map[string]any{tc.field: nil}).json(t)[tc.field]; v != nil {
					t.Errorf("PATCH %s null = %v, want null", tc.field, v)
				}
				admin.must(t, http.StatusOK, "PATCH", key, map[string]any{tc.field: "B-7"})

				names := func(filter string) []string {
					page := admin.must(t, http.StatusOK, "GET", "/odata/"+tc.set+"?$select=Name&$orderby=Name&$filter="+queryEscape(filter), nil).json(t)
					var out []string
					for _, v := range page["value"].([]any) {
						out = append(out, str(v.(map[string]any), "Name"))
					}
					return out
				}
				for filter, want := range map[string][]string{
					tc.field + " eq null":                            {"Explicit null", "Plain"},
					tc.field + " ne null":                            {"Tagged"},
					tc.field + " eq 'B-7'":                           {"Tagged"},
					"startswith(" + tc.field + ",'B')":               {"Tagged"},
					tc.field + " in ('A-1','B-7')":                   {"Tagged"},
					"length(" + tc.field + ") eq 3":                  {"Tagged"},
					tc.field + " eq 'b-7'":                           nil,
					"not (" + tc.field + " eq 'B-7')":                {"Explicit null", "Plain"},
					"tolower(" + tc.field + ") eq 'b-7'":             {"Tagged"},
					tc.field + " gt 'A' and " + tc.field + " lt 'C'": {"Tagged"},
				} {
					if diff := cmp.Diff(want, names(filter)); diff != "" {
						t.Errorf("$filter=%s (-want +got):\n%s", filter, diff)
					}
				}
				if e := admin.fails(t, http.StatusBadRequest, "TypeMismatch", "GET", "/odata/"+tc.set+"?$filter="+queryEscape(tc.field+" eq 7"), nil); e.Target != "$filter" {
					t.Errorf("$filter=%s eq 7: target %q, want $filter", tc.field, e.Target)
				}
			})
		}
	})
}

// TestStore_FormEncodedQuery reads the catalog with queries built by url.Values.Encode, as Go clients (and curl
// --data-urlencode, Python, browsers) write them: a space as "+", a plus sign and the delimiters percent-encoded.
func TestStore_FormEncodedQuery(t *testing.T) {
	each(t, func(t *testing.T, db *dbtest.DB) {
		s := start(t, db, nil)
		admin := s.admin(t)
		for _, p := range []map[string]any{
			{"Name": "Fountain Pen", "Sku": "FP-1", "Price": 19.99},
			{"Name": "Fountain Pen Ink", "Sku": "FP-2", "Price": 4.5},
			{"Name": "Pencil", "Sku": "PC-1", "Price": 0.99},
		} {
			p["ManageInventoryMethod"] = "DontManageStock"
			admin.must(t, http.StatusCreated, "POST", "/odata/Product", p)
		}
		admin.must(t, http.StatusCreated, "POST", "/odata/Customer", map[string]any{"Email": "ann+shop@example.com", "FirstName": "Ann", "LastName": "Lee"})

		for _, c := range []struct {
			path  string
			query url.Values
			key   string
			want  string
		}{
			{"/odata/Product", url.Values{"$filter": {"Name eq 'Fountain Pen'"}}, "Name", "Fountain Pen"},
			{"/odata/Product", url.Values{"$filter": {"startswith(Name,'Fountain Pen') and Price gt 1"}, "$orderby": {"Name desc"},
				"$select": {"Name,Price"}, "$top": {"5"}, "$count": {"true"}}, "Name", "Fountain Pen Ink|Fountain Pen"},
			{"/odata/Product", url.Values{"$search": {"Fountain Pen"}, "$orderby": {"Name"}}, "Name", "Fountain Pen|Fountain Pen Ink"},
			// Words, through the full-text index the server finds after its migrations: pen is not Pencil's
			// (a scan would match it), pen* is.
			{"/odata/Product", url.Values{"$search": {"pen"}, "$orderby": {"Name"}}, "Name", "Fountain Pen|Fountain Pen Ink"},
			{"/odata/Product", url.Values{"$search": {"pen* OR fp-2"}, "$orderby": {"Name"}, "$count": {"true"}}, "Name", "Fountain Pen|Fountain Pen Ink|Pencil"},
			{"/odata/Product", url.Values{"$filter": {"Name eq @name"}, "@name": {"'Pencil'"}}, "Name", "Pencil"},
			{"/odata/Customer", url.Values{"$filter": {"Email eq 'ann+shop@example.com'"}, "$select": {"Email,FirstName"}}, "Email", "ann+shop@example.com"},
		} {
			target := c.path + "?" + c.query.Encode()
			var got []string
			for _, v := range admin.must(t, http.StatusOK, "GET", target, nil).json(t)["value"].([]any) {
				got = append(got, str(v.(map[string]any), c.key))
			}
			if strings.Join(got, "|") != c.want {
				t.Errorf("GET %s = %q, want %q", target, got, c.want)
			}
		}
		// A plus sign in the path is a plus: the customer's key is its e-mail.
		if e := admin.must(t, http.StatusOK, "GET", "/odata/Customer('ann+shop@example.com')", nil).json(t); str(e, "FirstName") != "Ann" {
			t.Errorf("GET Customer('ann+shop@example.com') = %v", e)
		}
		target := "/odata/Product?" + url.Values{"$filter": {"Name eq 'Fountain Pen' or"}}.Encode()
		if e := admin.fails(t, http.StatusBadRequest, "SyntaxError", "GET", target, nil); e.Target != "$filter" || e.Message != "$filter:1:30: expected expression, found end of input (invalid $filter)" {
			t.Errorf("GET %s: error %+v", target, e)
		}
	})
}

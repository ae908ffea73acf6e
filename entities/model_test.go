package entities_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/storekit/store/entities"
	"github.com/storekit/store/odata/dbtest"
	"github.com/storekit/store/odata/edm"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func newModel(t testing.TB) *edm.Model {
	t.Helper()
	m, err := entities.NewModel()
	if err != nil {
		t.Fatalf("NewModel() = %v", err)
	}
	return m
}

func TestNewModel(t *testing.T) {
	m := newModel(t)
	t.Run("OKSets", func(t *testing.T) {
		var sets []string
		for _, s := range m.EntitySets {
			sets = append(sets, s.Name+":"+s.Type)
		}
		want := []string{"Manufacturer:Manufacturer", "Category:Category", "CustomerRole:CustomerRole",
			"Product:Product", "Customer:Customer", "Picture:Picture", "Country:Country",
			"StateProvince:StateProvince", "Order:Order", "NewsletterSubscription:NewsletterSubscription"}
		if diff := cmp.Diff(want, sets); diff != "" {
			t.Errorf("entity sets (-want +got):\n%s", diff)
		}
		if m.Namespace != "Store" || m.EntitySet("product") == nil {
			t.Errorf("Namespace = %q, EntitySet(product) = %v", m.Namespace, m.EntitySet("product"))
		}
	})
	t.Run("OKFreshModel", func(t *testing.T) {
		other := newModel(t)
		if other == m || other.EntityType("Product") == m.EntityType("Product") ||
			other.EntityType("Product").Property("Name") == m.EntityType("Product").Property("Name") {
			t.Error("NewModel() shares declarations between calls")
		}
	})
	t.Run("OKKeys", func(t *testing.T) {
		for typ, want := range map[string]string{
			"Manufacturer": "Id", "Customer": "Email", "Country": "Id", "StateProvince": "Id",
			"ProductCategory": "CategoryId", "ProductCollection": "CollectionId", "ProductPicture": "PictureId",
			"ProductTierPrice": "Id", "Address": "Id", "OrderItem": "Id",
		} {
			keys := m.EntityType(typ).KeyProperties()
			if len(keys) != 1 || keys[0].Name != want {
				t.Errorf("%s key = %v, want %s", typ, keys, want)
			}
		}
	})
	t.Run("OKEnums", func(t *testing.T) {
		want := map[string]string{
			"ProductType":           "SimpleProduct=5 GroupedProduct=10",
			"ManageInventoryMethod": "DontManageStock=0 ManageStock=1",
			"LowStockActivity":      "Nothing=0 DisableBuyButton=1 Unpublish=2",
			"BackorderMode":         "NoBackorders=0 AllowQtyBelow0=1",
			"OrderStatus":           "Pending=10 Processing=20 Complete=30 Cancelled=40",
			"PaymentStatus":         "Pending=10 Paid=30 Refunded=40 Voided=50",
			"ShippingStatus":        "ShippingNotRequired=10 NotYetShipped=20 Shipped=30 Delivered=40",
		}
		got := map[string]string{}
		for _, e := range m.EnumTypes {
			var ms []string
			for _, mb := range e.Members {
				ms = append(ms, fmt.Sprintf("%s=%d", mb.Name, mb.Value))
			}
			got[e.Name] = strings.Join(ms, " ")
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("enum types (-want +got):\n%s", diff)
		}
	})
	t.Run("OKFacets", func(t *testing.T) {
		tests := []struct {
			path string // Type.Property
			want string
		}{
			{"Manufacturer.Name", "Edm.String notnull max=400 required=Manufacturer name is required search"},
			{"Category.Name", "Edm.String notnull max=400 required=Category name is required search"},
			{"Product.Name", "Edm.String notnull max=400 required=Product name is required search"},
			{"Product.Sku", "Edm.String max=400 search"},
			{"Product.SeName", "Edm.String max=200"},
			{"Product.Price", "Edm.Decimal notnull 19,4 default=0"},
			{"Product.Published", "Edm.Boolean notnull default=true"},
			{"Product.VisibleIndividually", "Edm.Boolean notnull default=true"},
			{"Product.IsShipEnabled", "Edm.Boolean notnull default=true"},
			{"Product.OrderMinimumQuantity", "Edm.Int32 notnull default=1"},
			{"Product.OrderMaximumQuantity", "Edm.Int32 notnull default=10000"},
			{"Product.ProductType", "Store.ProductType notnull default=5"},
			{"Product.BackorderMode", "Store.BackorderMode notnull default=0"},
			{"Product.AvailableStartDateTimeUtc", "Edm.DateTimeOffset"},
			{"Product.Sold", "Edm.Int32 notnull readonly"},
			{"Product.CreatedOnUtc", "Edm.DateTimeOffset notnull readonly"},
			{"Product.UpdatedOnUtc", "Edm.DateTimeOffset notnull readonly"},
			{"Manufacturer.Id", "Edm.String notnull max=24 readonly"},
			{"Customer.Id", "Edm.String notnull max=24 readonly"},
			{"Customer.Email", "Edm.String notnull max=255 required=Email is required search immutable"},
			{"Customer.CustomerGuid", "Edm.Guid notnull readonly"},
			{"Customer.DateOfBirth", "Edm.Date"},
			{"Customer.Active", "Edm.Boolean notnull default=true"},
			{"Customer.HasPassword", "Edm.Boolean notnull readonly"},
			{"Customer.LastActivityDateUtc", "Edm.DateTimeOffset notnull readonly"},
			{"Customer.CustomerRoles", "Collection(Edm.String) notnull max=24"},
			{"CustomerRole.IsSystemRole", "Edm.Boolean notnull readonly"},
			{"CustomerRole.Active", "Edm.Boolean notnull default=true"},
			{"Picture.MimeType", "Edm.String notnull max=40 required=MimeType is required"},
			{"Picture.PictureBinary", "Edm.Binary notnull max=10485760 lazy"},
			{"Picture.Size", "Edm.Int32 notnull readonly"},
			{"Country.Id", "Edm.String notnull max=2"},
			{"StateProvince.Id", "Edm.String notnull max=6"},
			{"Order.OrderNumber", "Edm.Int64 notnull readonly"},
			{"Order.OrderTotal", "Edm.Decimal notnull 19,4 default=0"},
			{"Order.BillingAddress", "Store.OrderAddress"},
			{"OrderItem.Price", "Edm.Decimal notnull 19,4 default=0"},
			{"ProductTierPrice.Quantity", "Edm.Int32 notnull required="},
		}
		for _, tt := range tests {
			typ, name, _ := strings.Cut(tt.path, ".")
			p := m.EntityType(typ).Property(name)
			if p == nil {
				t.Errorf("Property(%q) = nil", tt.path)
				continue
			}
			if got := facets(m, p); got != tt.want {
				t.Errorf("facets(%q) = %q, want %q", tt.path, got, tt.want)
			}
		}
	})
	t.Run("OKCustomerRoles", func(t *testing.T) {
		ct := m.EntityType("Customer").Property("CustomerRoles").CollectionTable
		want := edm.CollectionTable{Table: "customer_role_mapping", OwnerColumns: []string{"customer_id"},
			SourceColumns: []string{"id"}, ValueColumn: "customer_role_id", OrdinalColumn: "ordinal"}
		if diff := cmp.Diff(want, *ct); diff != "" {
			t.Errorf("CustomerRoles side table (-want +got):\n%s", diff)
		}
	})
	t.Run("OKMediaEntity", func(t *testing.T) {
		pic := m.EntityType("Picture")
		data, ct := pic.Stream()
		if !pic.HasStream || data == nil || data.Name != "PictureBinary" || ct == nil || ct.Name != "MimeType" {
			t.Errorf("Picture.Stream() = %v, %v", data, ct)
		}
		for _, p := range pic.ETagProperties() {
			if p.Lazy {
				t.Errorf("Picture ETag includes the lazy %s", p.Name)
			}
		}
	})
	t.Run("OKNavigations", func(t *testing.T) {
		tests := []struct {
			path string
			want string
		}{
			{"Manufacturer.Products", "Collection(Product) via product_collection(collection_id->product_id)"},
			{"Category.Products", "Collection(Product) via product_category(category_id->product_id)"},
			{"Category.Parent", "Category [parent_category_id]=[id] partner=Children"},
			{"Category.Children", "Collection(Category) [id]=[parent_category_id] partner=Parent"},
			{"Product.Categories", "Collection(ProductCategory) [id]=[product_id] contained"},
			{"Product.Collections", "Collection(ProductCollection) [id]=[product_id] contained"},
			{"Product.Pictures", "Collection(ProductPicture) [id]=[product_id] contained"},
			{"Product.TierPrices", "Collection(ProductTierPrice) [id]=[product_id] contained"},
			{"Customer.Addresses", "Collection(Address) [id]=[customer_id] contained"},
			{"Customer.Orders", "Collection(Order) [id]=[customer_id]"},
			{"Country.StateProvinces", "Collection(StateProvince) [id]=[country_id] partner=Country"},
			{"Order.Items", "Collection(OrderItem) [id]=[order_id] contained"},
			{"ProductCategory.Category", "Category [category_id]=[id]"},
			{"NewsletterSubscription.Customer", "Customer [customer_id]=[id]"},
		}
		for _, tt := range tests {
			typ, name, _ := strings.Cut(tt.path, ".")
			n := m.EntityType(typ).Navigation(name)
			if n == nil {
				t.Errorf("Navigation(%q) = nil", tt.path)
				continue
			}
			if got := navigation(n); got != tt.want {
				t.Errorf("navigation(%q) = %q, want %q", tt.path, got, tt.want)
			}
		}
	})
	t.Run("OKAuthorization", func(t *testing.T) {
		if len(m.Authorizations) != 1 || m.Authorizations[0].Name != "Bearer" || m.Authorizations[0].Scheme != "bearer" {
			t.Errorf("Authorizations = %+v, want the Bearer scheme", m.Authorizations)
		}
	})
}

// facets describes a property for comparison in tests.
func facets(m *edm.Model, p *edm.Property) string {
	var b strings.Builder
	typ := p.Type.String()
	switch {
	case p.Enum != nil:
		typ = m.Namespace + "." + p.Enum.Name
	case p.Complex != nil:
		typ = m.Namespace + "." + p.Complex.Name
	}
	if p.Collection {
		typ = "Collection(" + typ + ")"
	}
	b.WriteString(typ)
	if !p.Nullable {
		b.WriteString(" notnull")
	}
	if p.MaxLength > 0 {
		fmt.Fprintf(&b, " max=%d", p.MaxLength)
	}
	if p.Type == edm.KindDecimal {
		fmt.Fprintf(&b, " %d,%d", p.Precision, p.Scale)
	}
	if p.Default != nil {
		fmt.Fprintf(&b, " default=%v", p.Default)
	}
	if p.ReadOnly {
		b.WriteString(" readonly")
	}
	if p.Required {
		b.WriteString(" required=" + p.RequiredMessage)
	}
	if p.Searchable {
		b.WriteString(" search")
	}
	if p.Lazy {
		b.WriteString(" lazy")
	}
	if p.Immutable {
		b.WriteString(" immutable")
	}
	return b.String()
}

func navigation(n *edm.NavigationProperty) string {
	typ := n.Target
	if n.Collection {
		typ = "Collection(" + typ + ")"
	}
	j := n.Join
	s := fmt.Sprintf("%s %v=%v", typ, j.SourceColumns, j.TargetColumns)
	if l := j.Through; l != nil {
		s = fmt.Sprintf("%s via %s(%s->%s)", typ, l.Table, strings.Join(l.SourceColumns, ","), strings.Join(l.TargetColumns, ","))
	}
	if n.Partner != "" {
		s += " partner=" + n.Partner
	}
	if n.ContainsTarget {
		s += " contained"
	}
	return s
}

// TestModel_Actions checks every bound action against the service contract's table: binding, parameters in
// order (name, type, required, nullable) and return type.
func TestModel_Actions(t *testing.T) {
	m := newModel(t)
	address := "FirstName:Edm.String:opt:null LastName:Edm.String:opt:null Email:Edm.String:opt:null " +
		"Company:Edm.String:opt:null CountryId:Edm.String:opt:null StateProvinceId:Edm.String:opt:null " +
		"City:Edm.String:opt:null Address1:Edm.String:opt:null Address2:Edm.String:opt:null " +
		"ZipPostalCode:Edm.String:opt:null PhoneNumber:Edm.String:opt:null FaxNumber:Edm.String:opt:null"
	link := func(id string) string {
		return id + ":Edm.String:req IsFeaturedProduct:Edm.Boolean:opt DisplayOrder:Edm.Int32:opt"
	}
	picture := "PictureId:Edm.String:req DisplayOrder:Edm.Int32:opt SeoFilename:Edm.String:opt:null " +
		"AltAttribute:Edm.String:opt:null TitleAttribute:Edm.String:opt:null"
	tier := "Quantity:Edm.Int32:req Price:Edm.Decimal:opt CustomerRoleId:Edm.String:opt:null " +
		"StartDateTimeUtc:Edm.DateTimeOffset:opt:null EndDateTimeUtc:Edm.DateTimeOffset:opt:null"
	want := map[string]string{
		"Customer/SetPassword":            "password:Edm.String:req -> Edm.Boolean",
		"Customer/AddAddress":             address + " -> Store.Address",
		"Customer/UpdateAddress":          "Id:Edm.String:req " + address + " -> Store.Address",
		"Customer/DeleteAddress":          "Id:Edm.String:req -> Edm.Boolean",
		"Product/UpdateStock":             "Stock:Edm.Int32:req WarehouseId:Edm.String:opt:null -> Edm.Boolean",
		"Product/CreateProductCategory":   link("CategoryId") + " -> Edm.Boolean",
		"Product/UpdateProductCategory":   link("CategoryId") + " -> Edm.Boolean",
		"Product/DeleteProductCategory":   "CategoryId:Edm.String:req -> Edm.Boolean",
		"Product/CreateProductCollection": link("CollectionId") + " -> Edm.Boolean",
		"Product/UpdateProductCollection": link("CollectionId") + " -> Edm.Boolean",
		"Product/DeleteProductCollection": "CollectionId:Edm.String:req -> Edm.Boolean",
		"Product/CreateProductPicture":    picture + " -> Edm.Boolean",
		"Product/UpdateProductPicture":    picture + " -> Edm.Boolean",
		"Product/DeleteProductPicture":    "PictureId:Edm.String:req -> Edm.Boolean",
		"Product/CreateProductTierPrice":  tier + " -> Store.ProductTierPrice",
		"Product/UpdateProductTierPrice":  "Id:Edm.String:req " + tier + " -> Store.ProductTierPrice",
		"Product/DeleteProductTierPrice":  "Id:Edm.String:req -> Edm.Boolean",
		"Order/MarkAsPaid":                "-> Edm.Boolean",
		"Order/Ship":                      "-> Edm.Boolean",
		"Order/Deliver":                   "-> Edm.Boolean",
		"Order/Cancel":                    "-> Edm.Boolean",
	}
	got := map[string]string{}
	for _, a := range m.Actions {
		if !a.Bound || a.BindingCollection {
			t.Errorf("action %s is not bound to a single entity", a.Name)
		}
		var parts []string
		for _, p := range a.Parameters {
			s := p.Name + ":" + p.Type.String()
			if p.Required {
				s += ":req"
			} else {
				s += ":opt"
			}
			if p.Nullable {
				s += ":null"
			}
			parts = append(parts, s)
		}
		r := a.ReturnType
		ret := r.Type.String()
		if r.Entity != "" {
			ret = m.Namespace + "." + r.Entity
		}
		if r.Nullable || r.Collection {
			t.Errorf("%s returns a nullable or collection value", a.Name)
		}
		parts = append(parts, "-> "+ret)
		got[a.BindingType+"/"+a.Name] = strings.Join(parts, " ")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
	customer := m.EntityType("Customer")
	if p := m.Action("DeleteAddress", customer, false).Parameter("addressId"); p == nil || p.Name != "Id" {
		t.Errorf(`DeleteAddress.Parameter("addressId") = %v, want Id`, p)
	}
	if a := m.Action("store.setpassword", customer, false); a == nil {
		t.Error(`Action("store.setpassword", Customer) = nil`)
	}
}

// colInfo is what a database says about a column.
type colInfo struct {
	Type    string
	NotNull bool
	Default string
}

func columnInfo(t *testing.T, db *dbtest.DB, table string) map[string]colInfo {
	t.Helper()
	query := `SELECT name, type, "notnull" = 1, COALESCE(dflt_value, '') FROM pragma_table_info(?)`
	if db.Dialect().Name() == "postgres" {
		query = `SELECT column_name, CASE WHEN data_type = 'numeric'
	THEN 'numeric(' || numeric_precision || ',' || numeric_scale || ')' ELSE data_type END,
	is_nullable = 'NO', COALESCE(column_default, '')
FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`
	}
	rows, err := db.Query(query, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols := map[string]colInfo{}
	for rows.Next() {
		var name string
		var c colInfo
		if err := rows.Scan(&name, &c.Type, &c.NotNull, &c.Default); err != nil {
			t.Fatal(err)
		}
		cols[name] = c
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols
}

// columnType is the column type of a property's kind on each dialect (odata/DESIGN.md).
func columnType(p *edm.Property, postgres bool) string {
	types := map[edm.Kind][2]string{
		edm.KindString:         {"TEXT", "text"},
		edm.KindBoolean:        {"INTEGER", "boolean"},
		edm.KindInt32:          {"INTEGER", "integer"},
		edm.KindInt64:          {"INTEGER", "bigint"},
		edm.KindDecimal:        {"INTEGER", "numeric(19,4)"},
		edm.KindDateTimeOffset: {"TEXT", "timestamp with time zone"},
		edm.KindDate:           {"TEXT", "date"},
		edm.KindGuid:           {"TEXT", "uuid"},
		edm.KindBinary:         {"BLOB", "bytea"},
	}
	k := p.Type
	if p.Enum != nil {
		k = edm.KindInt32
	}
	i := 0
	if postgres {
		i = 1
	}
	return types[k][i]
}

// columnDefault is the column default a property's Default must have, as the database reports it.
func columnDefault(p *edm.Property, postgres bool) string {
	switch v := p.Default.(type) {
	case bool:
		if postgres {
			return strconv.FormatBool(v)
		}
		if v {
			return "1"
		}
		return "0"
	case int64:
		return strconv.FormatInt(v, 10)
	case decimal.Decimal:
		if postgres {
			return v.String()
		}
		return v.Shift(int32(p.Scale)).String()
	}
	return fmt.Sprintf("unexpected default %T", p.Default)
}

// TestModel_MatchesSchema selects every column the model names (properties, complex members, side tables and
// join columns) from a migrated database, and compares each property's type, nullability and default with its
// column, so a descriptor that does not match the migrations fails here.
func TestModel_MatchesSchema(t *testing.T) {
	m := newModel(t)
	dbtest.Each(t, func(t *testing.T, db *dbtest.DB) {
		migrated(t, db)
		postgres := db.Dialect().Name() == "postgres"
		selected := map[string]map[string]bool{} // table -> columns
		use := func(table string, cols ...string) {
			if selected[table] == nil {
				selected[table] = map[string]bool{}
			}
			for _, c := range cols {
				selected[table][c] = true
			}
		}
		for _, et := range m.EntityTypes {
			info := columnInfo(t, db, et.Table)
			if len(info) == 0 {
				t.Errorf("entity type %s: table %q does not exist", et.Name, et.Table)
				continue
			}
			check := func(name string, p *edm.Property, nullable bool) {
				use(et.Table, p.Column)
				c, ok := info[p.Column]
				if !ok {
					return // reported by the SELECT below
				}
				if want := columnType(p, postgres); c.Type != want {
					t.Errorf("%s: column %s.%s is %s, want %s", name, et.Table, p.Column, c.Type, want)
				}
				if c.NotNull == nullable {
					t.Errorf("%s: column %s.%s NOT NULL = %v, want %v (the property's Nullable = %v)", name, et.Table, p.Column, c.NotNull, !nullable, nullable)
				}
				if p.Default != nil {
					if want := columnDefault(p, postgres); c.Default != want {
						t.Errorf("%s: column %s.%s DEFAULT %q, want %q", name, et.Table, p.Column, c.Default, want)
					}
				} else if !p.ReadOnly && !p.IsKey() && c.Default != "" {
					t.Errorf("%s: column %s.%s has DEFAULT %q, the property none", name, et.Table, p.Column, c.Default)
				}
			}
			for _, p := range et.Properties {
				name := et.Name + "." + p.Name
				switch {
				case p.Complex != nil:
					for _, f := range p.Properties() {
						check(name+"."+f.Name, f, true)
					}
				case p.Collection:
					ct := p.CollectionTable
					use(et.Table, ct.SourceColumns...)
					use(ct.Table, append(append([]string{}, ct.OwnerColumns...), ct.ValueColumn, ct.OrdinalColumn)...)
				case p.SQL != "":
				default:
					check(name, p, p.Nullable)
				}
			}
			for _, n := range et.Navigations {
				j := n.Join
				use(et.Table, j.SourceColumns...)
				use(n.TargetType().Table, j.TargetColumns...)
				if l := j.Through; l != nil {
					use(l.Table, append(append([]string{}, l.SourceColumns...), l.TargetColumns...)...)
				}
			}
		}
		// SQLite reads a double-quoted name that is no column as a string literal, so the SELECT alone would not
		// catch a wrong column there: compare with the table's columns too.
		for table, cols := range selected {
			info := columnInfo(t, db, table)
			var list []string
			for c := range cols {
				if _, ok := info[c]; !ok {
					t.Errorf("column %s.%s does not exist", table, c)
				}
				list = append(list, db.Dialect().QuoteIdent(c))
			}
			sort.Strings(list)
			query := fmt.Sprintf("SELECT %s FROM %s WHERE 1=0", strings.Join(list, ", "), db.Dialect().QuoteIdent(table))
			rows, err := db.Query(query)
			if err != nil {
				t.Errorf("%s: %v", query, err)
				continue
			}
			rows.Close()
		}
		var tables []string
		for table := range selected {
			tables = append(tables, table)
		}
		sort.Strings(tables)
		want := []string{"address", "category", "country", "customer", "customer_role", "customer_role_mapping",
			"manufacturer", "newsletter_subscription", "order", "order_item", "picture", "product",
			"product_category", "product_collection", "product_picture", "product_tier_price", "state_province"}
		if diff := cmp.Diff(want, tables); diff != "" {
			t.Errorf("tables the model uses (-want +got):\n%s", diff)
		}
	})
}

// TestModel_CSDL compares the $metadata documents with the golden files (rewritten with -update) and validates
// the XML against the OASIS CSDL schemas when xmllint is installed.
func TestModel_CSDL(t *testing.T) {
	m := newModel(t)
	var x, j bytes.Buffer
	if err := m.WriteXML(&x); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(j.Bytes()) {
		t.Fatal("WriteJSON wrote invalid JSON")
	}
	for name, got := range map[string][]byte{"metadata.xml.golden": x.Bytes(), "metadata.json.golden": j.Bytes()} {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s mismatch (-want +got; go test -update rewrites it):\n%s", name, diff)
		}
	}

	t.Run("OKJSONStructure", func(t *testing.T) {
		var doc map[string]any
		if err := json.Unmarshal(j.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		schema := doc["Store"].(map[string]any)
		for _, name := range []string{"SetPassword", "UpdateStock", "MarkAsPaid", "CreateProductTierPrice"} {
			if overloads, ok := schema[name].([]any); !ok || len(overloads) != 1 {
				t.Errorf("%s = %v, want an array of one overload", name, schema[name])
			}
		}
		roles := schema["Customer"].(map[string]any)["CustomerRoles"].(map[string]any)
		if roles["$Collection"] != true || roles["$Type"] != nil && roles["$Type"] != "Edm.String" {
			t.Errorf("Customer.CustomerRoles = %v, want $Collection of Edm.String", roles)
		}
		auths := schema["Container"].(map[string]any)["@Org.OData.Authorization.V1.Authorizations"].([]any)
		if len(auths) != 1 || auths[0].(map[string]any)["Scheme"] != "bearer" {
			t.Errorf("Authorizations = %v", auths)
		}
	})

	t.Run("OKSchemaValid", func(t *testing.T) {
		xmllint, err := osexec.LookPath("xmllint")
		if err != nil {
			t.Skip("xmllint is not installed (Debian package libxml2-utils)")
		}
		path := filepath.Join(t.TempDir(), "metadata.xml")
		if err := os.WriteFile(path, x.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		xsd := filepath.Join("..", "odata", "edm", "testdata", "oasis", "edmx.xsd")
		out, err := osexec.Command(xmllint, "--noout", "--nonet", "--schema", xsd, path).CombinedOutput()
		if err != nil {
			t.Errorf("xmllint: %v\n%s", err, out)
		}
	})
}

// ExampleNewModel builds the store model and looks up what a request names: an entity set (case-insensitively),
// a property's facets and a bound action's parameter.
func ExampleNewModel() {
	m, err := entities.NewModel()
	if err != nil {
		panic(err)
	}
	product := m.EntitySet("product").EntityType()
	price := product.Property("Price")
	fmt.Println(product.Name, price.Type, price.Precision, price.Scale)

	customer := m.EntityType("Customer")
	fmt.Println(customer.KeyProperties()[0].Name, customer.Property("Id").ReadOnly)

	del := m.Action("DeleteAddress", customer, false)
	fmt.Println(del.Parameter("addressId").Name, del.Parameter("addressId").Required)
	// Output:
	// Product Edm.Decimal 19 4
	// Email true
	// Id true
}

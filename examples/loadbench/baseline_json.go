package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"hash"
	"hash/fnv"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// colKind is how the baseline scans a column and writes its value.
type colKind uint8

const (
	kString  colKind = iota // TEXT, null when NULL
	kBool                   // Boolean
	kInt                    // integer
	kEnum                   // enum: the member's name
	kDecimal                // Decimal(19,4): a scaled integer (SQLite) or NUMERIC text (PostgreSQL)
	kTime                   // DateTimeOffset: text (SQLite) or a time (PostgreSQL); RFC 3339 in UTC
)

// moneyScale is the scale of the store's Decimal properties.
const moneyScale = 4

// productColumn is a property of Product as the baseline writes it: its JSON member, its column and kind.
type productColumn struct {
	member, column string
	kind           colKind
	enum           map[int64]string
	few            bool // in $select=Id,Name,Price
}

var (
	productTypes     = map[int64]string{5: "SimpleProduct", 10: "GroupedProduct"}
	inventoryMethods = map[int64]string{0: "DontManageStock", 1: "ManageStock"}
	lowStock         = map[int64]string{0: "Nothing", 1: "DisableBuyButton", 2: "Unpublish"}
	backorderModes   = map[int64]string{0: "NoBackorders", 1: "AllowQtyBelow0"}
)

// productColumns are the properties of Product in the order of the model, which is the order of the members.
// The ETag hashes UpdatedOnUtc alone (the store's model declares it as Product's ETag).
var productColumns = []productColumn{
	{member: "Id", column: "id", kind: kString, few: true},
	{member: "ProductType", column: "product_type", kind: kEnum, enum: productTypes},
	{member: "ParentGroupedProductId", column: "parent_grouped_product_id"},
	{member: "VisibleIndividually", column: "visible_individually", kind: kBool},
	{member: "Name", column: "name", few: true},
	{member: "SeName", column: "se_name"},
	{member: "ShortDescription", column: "short_description"},
	{member: "FullDescription", column: "full_description"},
	{member: "AdminComment", column: "admin_comment"},
	{member: "Flag", column: "flag"},
	{member: "Sku", column: "sku"},
	{member: "ManufacturerPartNumber", column: "manufacturer_part_number"},
	{member: "Gtin", column: "gtin"},
	{member: "ExternalId", column: "external_id"},
	{member: "MetaKeywords", column: "meta_keywords"},
	{member: "MetaDescription", column: "meta_description"},
	{member: "MetaTitle", column: "meta_title"},
	{member: "Published", column: "published", kind: kBool},
	{member: "ShowOnHomePage", column: "show_on_home_page", kind: kBool},
	{member: "MarkAsNew", column: "mark_as_new", kind: kBool},
	{member: "DisplayOrder", column: "display_order", kind: kInt},
	{member: "AllowCustomerReviews", column: "allow_customer_reviews", kind: kBool},
	{member: "Price", column: "price", kind: kDecimal, few: true},
	{member: "OldPrice", column: "old_price", kind: kDecimal},
	{member: "ProductCost", column: "product_cost", kind: kDecimal},
	{member: "CallForPrice", column: "call_for_price", kind: kBool},
	{member: "DisableBuyButton", column: "disable_buy_button", kind: kBool},
	{member: "DisableWishlistButton", column: "disable_wishlist_button", kind: kBool},
	{member: "NotReturnable", column: "not_returnable", kind: kBool},
	{member: "AvailableStartDateTimeUtc", column: "available_start_date_time_utc", kind: kTime},
	{member: "AvailableEndDateTimeUtc", column: "available_end_date_time_utc", kind: kTime},
	{member: "OrderMinimumQuantity", column: "order_minimum_quantity", kind: kInt},
	{member: "OrderMaximumQuantity", column: "order_maximum_quantity", kind: kInt},
	{member: "AllowedQuantities", column: "allowed_quantities"},
	{member: "ManageInventoryMethod", column: "manage_inventory_method", kind: kEnum, enum: inventoryMethods},
	{member: "StockQuantity", column: "stock_quantity", kind: kInt},
	{member: "DisplayStockAvailability", column: "display_stock_availability", kind: kBool},
	{member: "DisplayStockQuantity", column: "display_stock_quantity", kind: kBool},
	{member: "MinStockQuantity", column: "min_stock_quantity", kind: kInt},
	{member: "LowStockActivity", column: "low_stock_activity", kind: kEnum, enum: lowStock},
	{member: "BackorderMode", column: "backorder_mode", kind: kEnum, enum: backorderModes},
	{member: "IsShipEnabled", column: "is_ship_enabled", kind: kBool},
	{member: "IsFreeShipping", column: "is_free_shipping", kind: kBool},
	{member: "AdditionalShippingCharge", column: "additional_shipping_charge", kind: kDecimal},
	{member: "Weight", column: "weight", kind: kDecimal},
	{member: "Length", column: "length", kind: kDecimal},
	{member: "Width", column: "width", kind: kDecimal},
	{member: "Height", column: "height", kind: kDecimal},
	{member: "IsTaxExempt", column: "is_tax_exempt", kind: kBool},
	{member: "TaxCategoryId", column: "tax_category_id"},
	{member: "Sold", column: "sold", kind: kInt},
	{member: "CreatedOnUtc", column: "created_on_utc", kind: kTime},
	{member: "UpdatedOnUtc", column: "updated_on_utc", kind: kTime},
}

// columnSet is the columns of productColumns one kind of read selects: their indexes, in order, and their
// SELECT list.
type columnSet struct {
	indexes []int
	list    string
}

// allColumns are every column of productColumns; fewColumns those of $select=Id,Name,Price and the ETag's.
var allColumns, fewColumns = func() (all, few columnSet) {
	var allNames, fewNames []string
	for i, c := range productColumns {
		all.indexes, allNames = append(all.indexes, i), append(allNames, c.column)
		if c.few || c.member == etagMember {
			few.indexes, fewNames = append(few.indexes, i), append(fewNames, c.column)
		}
	}
	all.list, few.list = strings.Join(allNames, ", "), strings.Join(fewNames, ", ")
	return all, few
}()

// etagMember is the property the ETag hashes; priceColumn is the index of Price, etagColumn of etagMember.
const etagMember = "UpdatedOnUtc"

var priceColumn, etagColumn = func() (price, etag int) {
	for i, c := range productColumns {
		switch c.member {
		case "Price":
			price = i
		case etagMember:
			etag = i
		}
	}
	return price, etag
}()

// holder receives one scanned column.
type holder struct {
	s sql.NullString
	b bool
	i int64
	v any
}

// pageBuffer holds the scanned rows of one answer as JSON, reused across requests.
type pageBuffer struct {
	holders   []holder
	destAll   []any  // where each column of allColumns scans to
	destFew   []any  // the same for fewColumns
	values    []byte // the JSON of each column of the current row, back to back
	offsets   []int
	selectFew bool
	columns   columnSet // the columns read

	rows       []byte // the page's rows as JSON objects without their closing brace
	rowEnds    []int
	ids        []string
	lastPrice  []byte
	more       bool
	categories map[string][]byte // the JSON of each product's category links, by product key
	out        []byte
	hash       hash.Hash64 // FNV-1a 64, of the ETags
}

func newPageBuffer() *pageBuffer {
	pb := &pageBuffer{holders: make([]holder, len(productColumns)), offsets: make([]int, len(productColumns)+1),
		categories: map[string][]byte{}, hash: fnv.New64a()}
	dest := make([]any, len(productColumns))
	for i, c := range productColumns {
		h := &pb.holders[i]
		switch c.kind {
		case kString:
			dest[i] = &h.s
		case kBool:
			dest[i] = &h.b
		case kInt, kEnum:
			dest[i] = &h.i
		default:
			dest[i] = &h.v
		}
	}
	pb.destAll = dest
	for _, i := range fewColumns.indexes {
		pb.destFew = append(pb.destFew, dest[i])
	}
	return pb
}

// dest is where the columns of the current read scan to.
func (pb *pageBuffer) dest() []any {
	if pb.selectFew {
		return pb.destFew
	}
	return pb.destAll
}

func (pb *pageBuffer) reset(selectFew bool) {
	pb.selectFew, pb.columns = selectFew, allColumns
	if selectFew {
		pb.columns = fewColumns
	}
	pb.rows, pb.rowEnds, pb.ids, pb.lastPrice, pb.more = pb.rows[:0], pb.rowEnds[:0], pb.ids[:0], pb.lastPrice[:0], false
	clear(pb.categories)
}

// addRow writes the scanned row as a JSON object with its ETag: an FNV-1a hash of the JSON of UpdatedOnUtc
// followed by a zero byte, as the engine computes it.
func (pb *pageBuffer) addRow() error {
	pb.values = pb.values[:0]
	cols := pb.columns.indexes
	for k, i := range cols {
		pb.offsets[k] = len(pb.values)
		pb.values = appendColumn(pb.values, productColumns[i], &pb.holders[i])
	}
	pb.offsets[len(cols)] = len(pb.values)
	value := func(i int) []byte {
		for k, j := range cols {
			if j == i {
				return pb.values[pb.offsets[k]:pb.offsets[k+1]]
			}
		}
		return nil
	}
	pb.hash.Reset()
	pb.hash.Write(value(etagColumn))
	pb.hash.Write(zero)
	pb.rows = appendETagMember(append(pb.rows, '{'), pb.hash.Sum64())
	for k, i := range cols {
		c := productColumns[i]
		if pb.selectFew && !c.few {
			continue
		}
		pb.rows = append(append(append(append(pb.rows, ',', '"'), c.member...), '"', ':'), pb.values[pb.offsets[k]:pb.offsets[k+1]]...)
	}
	pb.rowEnds = append(pb.rowEnds, len(pb.rows))
	pb.ids = append(pb.ids, pb.holders[0].s.String)
	pb.lastPrice = append(pb.lastPrice[:0], value(priceColumn)...)
	return nil
}

// appendRow appends row i, without its closing brace (expansions may follow).
func (pb *pageBuffer) appendRow(b []byte, i int) []byte {
	start := 0
	if i > 0 {
		start = pb.rowEnds[i-1]
	}
	return append(b, pb.rows[start:pb.rowEnds[i]]...)
}

// lastToken is the $skiptoken after the last row of the page.
func (pb *pageBuffer) lastToken(byPrice bool) string {
	id := pb.ids[len(pb.ids)-1]
	if byPrice {
		return string(pb.lastPrice) + "," + id
	}
	return id
}

// addCategory adds a category link of a product of the page, with the link's ETag.
func (pb *pageBuffer) addCategory(product, category string, featured bool, order int64) {
	var v [3][]byte
	v[0] = appendJSONString(nil, category)
	v[1] = strconv.AppendBool(nil, featured)
	v[2] = strconv.AppendInt(nil, order, 10)
	pb.hash.Reset()
	for _, x := range v {
		pb.hash.Write(x)
		pb.hash.Write(zero)
	}
	b := pb.categories[product]
	if len(b) > 0 {
		b = append(b, ',')
	}
	b = appendETagMember(append(b, '{'), pb.hash.Sum64())
	b = append(append(b, `,"CategoryId":`...), v[0]...)
	b = append(append(b, `,"IsFeaturedProduct":`...), v[1]...)
	b = append(append(b, `,"DisplayOrder":`...), v[2]...)
	pb.categories[product] = append(b, '}')
}

// appendColumn appends the JSON of a scanned column.
func appendColumn(b []byte, c productColumn, h *holder) []byte {
	switch c.kind {
	case kString:
		if !h.s.Valid {
			return append(b, "null"...)
		}
		return appendJSONString(b, h.s.String)
	case kBool:
		return strconv.AppendBool(b, h.b)
	case kInt:
		return strconv.AppendInt(b, h.i, 10)
	case kEnum:
		if name, ok := c.enum[h.i]; ok {
			return append(append(append(b, '"'), name...), '"')
		}
		return strconv.AppendInt(b, h.i, 10)
	case kDecimal:
		return appendDecimal(b, h.v)
	default:
		return appendTime(b, h.v)
	}
}

// appendDecimal writes a Decimal(19,4) column as the shortest JSON number: an integer holding value x 10^4
// (SQLite), or the NUMERIC text (PostgreSQL) without trailing zeros.
func appendDecimal(b []byte, v any) []byte {
	switch v := v.(type) {
	case int64:
		if v < 0 {
			b = append(b, '-')
			v = -v
		}
		b = strconv.AppendInt(b, v/10000, 10)
		if frac := v % 10000; frac != 0 {
			digits := strconv.AppendInt(nil, frac+10000, 10)[1:] // four digits, leading zeros kept
			b = append(append(b, '.'), strings.TrimRight(string(digits), "0")...)
		}
		return b
	case string:
		return append(b, trimDecimal(v)...)
	case []byte:
		return append(b, trimDecimal(string(v))...)
	case nil:
		return append(b, "null"...)
	}
	return append(b, "null"...)
}

func trimDecimal(s string) string {
	if strings.IndexByte(s, '.') < 0 {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// appendTime writes a DateTimeOffset column as RFC 3339 in UTC with as many fraction digits as it needs.
func appendTime(b []byte, v any) []byte {
	switch v := v.(type) {
	case time.Time:
		return append(v.UTC().AppendFormat(append(b, '"'), time.RFC3339Nano), '"')
	case string:
		return appendTimeText(b, v)
	case []byte:
		return appendTimeText(b, string(v))
	}
	return append(b, "null"...)
}

// appendTimeText writes the text form YYYY-MM-DDTHH:MM:SS.ffffffZ without the fraction's trailing zeros.
func appendTimeText(b []byte, s string) []byte {
	s = strings.TrimSuffix(s, "Z")
	if dot := strings.IndexByte(s, '.'); dot >= 0 {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return append(append(append(b, '"'), s...), 'Z', '"')
}

// An ETag is an FNV-1a 64 hash of the JSON of each property, each followed by a zero byte, as the engine
// computes it.
var zero = []byte{0}

const hexDigits = "0123456789abcdef"

// appendETagMember appends "@odata.etag":"W/\"<hash>\"".
func appendETagMember(b []byte, h uint64) []byte {
	b = append(b, `"@odata.etag":"W/\"`...)
	for i := 60; i >= 0; i -= 4 {
		b = append(b, hexDigits[(h>>uint(i))&0xf])
	}
	return append(b, `\""`...)
}

// appendJSONString appends s as a JSON string, as encoding/json writes it without HTML escaping: most text
// needs no escape and is copied; the rest goes through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return appendEncodedString(b, s)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// appendEncodedString appends s as encoding/json encodes it, HTML characters left as they are.
func appendEncodedString(b []byte, s string) []byte {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

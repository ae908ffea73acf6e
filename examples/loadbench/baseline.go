package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/shopspring/decimal"

	"github.com/storekit/store/odata/sqldb"
)

// baseline is the hand-written server of the read scenarios: net/http and database/sql, the SQL written out,
// answering the same JSON as the engine (the same members, ETags and page size, next links of its own) for the
// query options the scenarios use and nothing else. It is the least code a developer would write for these
// requests by hand, so that the engine's throughput can be compared with it.
//
// It answers
//
//	GET /odata/Product('<id>')
//	GET /odata/Product?$filter=Price gt <n>|contains(Name,'<s>')&$search=<words>&$count=true
//	    &$orderby=Price desc&$select=Id,Name,Price&$expand=Categories&$top=<n>&$skip=<n>&$skiptoken=<its own>
//	GET /odata/Product/$count?$filter=...&$search=...
//
// $search takes words of letters and digits, all of which must match (OData's implicit AND), and asks the
// store's full-text index of the product's name, short description and SKU the way a developer would by hand
// (see searchSQL). Options are parsed by splitting, and any other option or value is a 400.
type baseline struct {
	db *sqldb.DB
	// vector is the tsvector $search asks on PostgreSQL: the stored column search_vector where the table has
	// it, else the expression of the index (see findSearchVector).
	vector string

	mu   sync.Mutex
	sqls map[string]string // statements by their ?-placeholder text, in the dialect's placeholders
	pool sync.Pool         // *pageBuffer
}

func newBaseline(db *sqldb.DB) *baseline {
	return &baseline{db: db, sqls: map[string]string{}, vector: productSearchVector,
		pool: sync.Pool{New: func() any { return newPageBuffer() }}}
}

// sql returns q in the dialect's placeholders, converted once.
func (b *baseline) sql(q string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.sqls[q]
	if !ok {
		s = sqldb.NewStatement(q).For(b.db.Dialect())
		b.sqls[q] = s
	}
	return s
}

const pageSize = 100

// errBadOption is the answer to a request the baseline does not serve.
var errBadOption = errors.New("the baseline does not serve this request")

func (b *baseline) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/odata")
	var err error
	switch {
	case path == "/Product":
		err = b.collection(w, r)
	case path == "/Product/$count":
		err = b.count(w, r)
	case strings.HasPrefix(path, "/Product('") && strings.HasSuffix(path, "')"):
		err = b.entity(w, r, path[len("/Product('"):len(path)-2])
	default:
		err = errNotFound
	}
	switch {
	case err == nil:
	case errors.Is(err, errNotFound):
		writeJSONError(w, http.StatusNotFound, "NotFound", "No such resource.")
	case errors.Is(err, errBadOption):
		writeJSONError(w, http.StatusBadRequest, "BadRequest", err.Error())
	default:
		writeJSONError(w, http.StatusInternalServerError, "InternalError", "The server failed.")
	}
}

var errNotFound = errors.New("not found")

func writeJSONError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"code":%q,"message":%q}}`, code, msg)
}

// listQuery is what the baseline understands of a collection's query options.
type listQuery struct {
	where     []string // conditions, each with ? placeholders
	args      []any
	byPrice   bool // $orderby=Price desc; by Id otherwise
	top, skip int  // -1: not given
	selectFew bool // $select=Id,Name,Price
	expand    bool // $expand=Categories
	count     bool // $count=true
	// countWhere and countArgs are the conditions of the count: those of $filter and $search, not the token's.
	countWhere []string
	countArgs  []any
	// ftsCount is the count's statement when its only condition is $search on SQLite: the FTS4 table alone
	// counts the matches, without looking up their rows in product.
	ftsCount bool
	// link holds the options a next link repeats, as the engine writes them.
	link []string
}

// fixedOptions are the query options the baseline takes with one value only, what each sets and how a next
// link repeats it.
var fixedOptions = []struct {
	name, value, link string
	set               func(q *listQuery)
}{
	{"$orderby", "Price desc", "$orderby=Price%20desc", func(q *listQuery) { q.byPrice = true }},
	{"$select", "Id,Name,Price", "$select=Id,Name,Price", func(q *listQuery) { q.selectFew = true }},
	{"$expand", "Categories", "$expand=Categories", func(q *listQuery) { q.expand = true }},
}

// parseList reads the query options of a collection request.
func (b *baseline) parseList(raw string) (*listQuery, error) {
	q := &listQuery{top: -1, skip: -1}
	vals, err := url.ParseQuery(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadOption, err)
	}
	for name := range vals {
		switch name {
		case "$filter", "$search", "$count", "$orderby", "$select", "$expand", "$top", "$skip", "$skiptoken":
		default:
			return nil, fmt.Errorf("%w: %s", errBadOption, name)
		}
	}
	if f := vals.Get("$filter"); f != "" {
		if err := b.parseFilter(q, f); err != nil {
			return nil, err
		}
		q.link = append(q.link, "$filter="+strings.ReplaceAll(url.PathEscape(f), "'", "%27"))
	}
	if f := vals.Get("$search"); f != "" {
		if err := b.parseSearch(q, f); err != nil {
			return nil, err
		}
		q.link = append(q.link, "$search="+url.PathEscape(f))
	}
	switch c := vals.Get("$count"); c {
	case "", "false":
	case "true":
		q.count = true
		q.link = append(q.link, "$count=true")
	default:
		return nil, fmt.Errorf("%w: $count=%s", errBadOption, c)
	}
	for _, o := range fixedOptions {
		switch v := vals.Get(o.name); v {
		case "":
		case o.value:
			o.set(q)
			q.link = append(q.link, o.link)
		default:
			return nil, fmt.Errorf("%w: %s=%s", errBadOption, o.name, v)
		}
	}
	if q.top, err = intOption(vals, "$top"); err != nil {
		return nil, err
	}
	if q.top > pageSize {
		return nil, fmt.Errorf("%w: $top above %d", errBadOption, pageSize)
	}
	if q.skip, err = intOption(vals, "$skip"); err != nil {
		return nil, err
	}
	q.countWhere, q.countArgs = slices.Clip(q.where), slices.Clip(q.args)
	q.ftsCount = vals.Get("$search") != "" && vals.Get("$filter") == "" && b.db.Dialect().Name() == "sqlite"
	if t := vals.Get("$skiptoken"); t != "" {
		if err := b.parseToken(q, t); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// parseFilter reads "Price gt <number>" and "contains(Name,'<text>')".
func (b *baseline) parseFilter(q *listQuery, f string) error {
	if n, ok := strings.CutPrefix(f, "Price gt "); ok {
		v, err := decimal.NewFromString(n)
		if err != nil {
			return fmt.Errorf("%w: $filter=%s", errBadOption, f)
		}
		arg, err := sqldb.DecimalArg(b.db.Dialect(), v, moneyScale)
		if err != nil {
			return fmt.Errorf("%w: %v", errBadOption, err)
		}
		q.where, q.args = append(q.where, "price > ?"), append(q.args, arg)
		return nil
	}
	if s, ok := strings.CutPrefix(f, "contains(Name,'"); ok && strings.HasSuffix(s, "')") {
		s = strings.ReplaceAll(s[:len(s)-2], "''", "'")
		pattern := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s) + "%"
		q.where, q.args = append(q.where, `name LIKE ? ESCAPE '\'`), append(q.args, pattern)
		return nil
	}
	return fmt.Errorf("%w: $filter=%s", errBadOption, f)
}

// parseSearch reads $search: words of ASCII letters and digits separated by spaces, each of which must match.
// OData's operators (AND, OR, NOT), phrases and anything else are a 400.
func (b *baseline) parseSearch(q *listQuery, f string) error {
	words := strings.Fields(f)
	if len(words) == 0 {
		return fmt.Errorf("%w: $search=%s", errBadOption, f)
	}
	for _, w := range words {
		if w == "AND" || w == "OR" || w == "NOT" || strings.IndexFunc(w, notWordRune) >= 0 {
			return fmt.Errorf("%w: $search=%s", errBadOption, f)
		}
	}
	cond, arg := searchSQL(b.db.Dialect().Name(), b.vector, words)
	q.where, q.args = append(q.where, cond), append(q.args, arg)
	return nil
}

func notWordRune(r rune) bool {
	return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9')
}

// productSearchVector is the expression of the store's full-text index of products on PostgreSQL (the GIN
// index product_search on the expression); a query must write it as the index does to be answered from the
// index. Where the store keeps it in the stored generated column search_vector instead, with the GIN index on
// the column, a query asks the column.
const productSearchVector = `to_tsvector('simple'::regconfig, coalesce(name, '') || ' ' || ` +
	`coalesce(short_description, '') || ' ' || coalesce(sku, ''))`

// findSearchVector asks PostgreSQL whether product has the stored search_vector column, which $search then asks.
func (b *baseline) findSearchVector(ctx context.Context) error {
	if b.db.Dialect().Name() != "postgres" {
		return nil
	}
	var n int
	err := b.db.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'product' AND column_name = 'search_vector'`).Scan(&n)
	if n > 0 {
		b.vector = "search_vector"
	}
	return err
}

// countSQL is the statement of the count of the query's products (of $filter and $search, not of a token).
func (q *listQuery) countSQL() string {
	if q.ftsCount {
		return "SELECT count(*) FROM product_search WHERE product_search MATCH ?"
	}
	return "SELECT count(*) FROM product" + whereSQL(q.countWhere)
}

// searchSQL returns the condition on product that all the words match in the store's full-text index, and its
// argument: on SQLite a MATCH of the FTS4 table product_search, whose docid is the product's rowid (words
// side by side must all match); on PostgreSQL the index's tsvector against a tsquery of the words joined by &.
// (On SQLite a count of the search alone asks the FTS4 table only, see listQuery.countSQL.)
func searchSQL(dialect, vector string, words []string) (cond string, arg string) {
	if dialect == "postgres" {
		return vector + ` @@ to_tsquery('simple', ?)`, strings.Join(words, " & ")
	}
	return "rowid IN (SELECT docid FROM product_search WHERE product_search MATCH ?)", strings.Join(words, " ")
}

// The baseline's $skiptoken is the last row's key, or its price and key when ordered by price:
// "01a2...", "893.07,01a2...".
func (b *baseline) parseToken(q *listQuery, t string) error {
	if !q.byPrice {
		q.where, q.args = append(q.where, "id > ?"), append(q.args, t)
		return nil
	}
	price, id, ok := strings.Cut(t, ",")
	v, err := decimal.NewFromString(price)
	if !ok || err != nil {
		return fmt.Errorf("%w: $skiptoken", errBadOption)
	}
	arg, err := sqldb.DecimalArg(b.db.Dialect(), v, moneyScale)
	if err != nil {
		return fmt.Errorf("%w: $skiptoken", errBadOption)
	}
	q.where, q.args = append(q.where, "(price < ? OR (price = ? AND id < ?))"), append(q.args, arg, arg, id)
	return nil
}

func intOption(vals url.Values, name string) (int, error) {
	s := vals.Get(name)
	if s == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: %s=%s", errBadOption, name, s)
	}
	return n, nil
}

// whereSQL returns the WHERE clause of the conditions, "" without any.
func whereSQL(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// collection answers a page of products.
func (b *baseline) collection(w http.ResponseWriter, r *http.Request) error {
	q, err := b.parseList(r.URL.RawQuery)
	if err != nil {
		return err
	}
	limit := pageSize + 1 // one more tells whether there is a next page
	if q.top >= 0 {
		limit = q.top
	}
	order := " ORDER BY id"
	if q.byPrice {
		order = " ORDER BY price DESC, id DESC"
	}
	columns := allColumns
	if q.selectFew {
		columns = fewColumns
	}
	stmt := "SELECT " + columns.list + " FROM product" + whereSQL(q.where) + order + " LIMIT ? OFFSET ?"
	args := append(slices.Clip(q.args), limit, max(q.skip, 0))
	pb := b.pool.Get().(*pageBuffer)
	defer b.pool.Put(pb)
	if err := b.readPage(r.Context(), pb, b.sql(stmt), args, q.top < 0, q.selectFew); err != nil {
		return err
	}
	if q.expand && len(pb.ids) > 0 {
		if err := b.readCategories(r.Context(), pb); err != nil {
			return err
		}
	}
	var total int64
	if q.count {
		if err := b.db.QueryRowContext(r.Context(), b.sql(q.countSQL()), q.countArgs...).Scan(&total); err != nil {
			return err
		}
	}
	out := pb.out[:0]
	out = append(out, `{"@odata.context":"`...)
	out = appendServiceRoot(out, r)
	out = append(out, "/$metadata#Product"...)
	switch {
	case q.selectFew && q.expand:
		out = append(out, "(Id,Name,Price,Categories())"...)
	case q.selectFew:
		out = append(out, "(Id,Name,Price)"...)
	case q.expand:
		out = append(out, "(Categories())"...)
	}
	out = append(out, '"')
	if q.count {
		out = strconv.AppendInt(append(out, `,"@odata.count":`...), total, 10)
	}
	out = append(out, `,"value":[`...)
	for i := range pb.ids {
		if i > 0 {
			out = append(out, ',')
		}
		out = pb.appendRow(out, i)
		if q.expand {
			out = append(out, `,"Categories":[`...)
			out = append(out, pb.categories[pb.ids[i]]...)
			out = append(out, ']')
		}
		out = append(out, '}')
	}
	out = append(out, ']')
	if pb.more {
		out = append(out, `,"@odata.nextLink":"`...)
		out = appendServiceRoot(out, r)
		out = append(out, "/Product?"...)
		for _, o := range q.link {
			out = append(append(out, o...), '&')
		}
		out = append(out, "$skiptoken="...)
		out = append(out, url.QueryEscape(pb.lastToken(q.byPrice))...)
		out = append(out, '"')
	}
	out = append(out, '}')
	pb.out = out
	return writeAnswer(w, out, "")
}

// entity answers one product.
func (b *baseline) entity(w http.ResponseWriter, r *http.Request, key string) error {
	if r.URL.RawQuery != "" {
		return fmt.Errorf("%w: query options on an entity", errBadOption)
	}
	pb := b.pool.Get().(*pageBuffer)
	defer b.pool.Put(pb)
	stmt := b.sql("SELECT " + allColumns.list + " FROM product WHERE id = ?")
	if err := b.readPage(r.Context(), pb, stmt, []any{strings.ReplaceAll(key, "''", "'")}, false, false); err != nil {
		return err
	}
	if len(pb.ids) == 0 {
		return errNotFound
	}
	out := append(pb.out[:0], `{"@odata.context":"`...)
	out = appendServiceRoot(out, r)
	out = append(out, `/$metadata#Product/$entity",`...)
	out = append(append(out, pb.rows[1:pb.rowEnds[0]]...), '}')
	pb.out = out
	return writeAnswer(w, out, "")
}

// count answers /Product/$count.
func (b *baseline) count(w http.ResponseWriter, r *http.Request) error {
	q, err := b.parseList(r.URL.RawQuery)
	if err != nil {
		return err
	}
	var n int64
	if err := b.db.QueryRowContext(r.Context(), b.sql(q.countSQL()), q.countArgs...).Scan(&n); err != nil {
		return err
	}
	return writeAnswer(w, strconv.AppendInt(nil, n, 10), "text/plain;charset=utf-8")
}

// readPage runs a product query into pb; with paged, a row beyond the page size tells that there are more.
func (b *baseline) readPage(ctx context.Context, pb *pageBuffer, stmt string, args []any, paged, selectFew bool) error {
	pb.reset(selectFew)
	rows, err := b.db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if paged && len(pb.ids) == pageSize {
			pb.more = true
			break
		}
		if err := rows.Scan(pb.dest()...); err != nil {
			return err
		}
		if err := pb.addRow(); err != nil {
			return err
		}
	}
	return rows.Err()
}

// readCategories reads the category links of the page's products.
func (b *baseline) readCategories(ctx context.Context, pb *pageBuffer) error {
	marks := strings.TrimSuffix(strings.Repeat("?,", len(pb.ids)), ",")
	stmt := b.sql("SELECT product_id, category_id, is_featured_product, display_order FROM product_category " +
		"WHERE product_id IN (" + marks + ") ORDER BY product_id, category_id")
	args := make([]any, len(pb.ids))
	for i, id := range pb.ids {
		args[i] = id
	}
	rows, err := b.db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var product, category string
		var featured bool
		var order int64
		if err := rows.Scan(&product, &category, &featured, &order); err != nil {
			return err
		}
		pb.addCategory(product, category, featured, order)
	}
	return rows.Err()
}

// appendServiceRoot appends the request's scheme, host and /odata, as the engine's absolute URLs start.
func appendServiceRoot(b []byte, r *http.Request) []byte {
	if r.TLS != nil {
		b = append(b, "https://"...)
	} else {
		b = append(b, "http://"...)
	}
	b = append(b, r.Host...)
	return append(b, "/odata"...)
}

// writeAnswer writes a whole answer with its length and the engine's headers.
func writeAnswer(w http.ResponseWriter, body []byte, contentType string) error {
	h := w.Header()
	if contentType == "" {
		contentType = "application/json;odata.metadata=minimal"
	}
	h.Set("Content-Type", contentType)
	h.Set("OData-Version", "4.0")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	_, err := w.Write(body)
	return err
}

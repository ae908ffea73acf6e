package odata

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/storekit/store/odata/sqldb"
)

// batchItem is one request of a batch, in either format.
type batchItem struct {
	id        string   // the request id (JSON) or Content-ID (multipart); "" when none
	group     string   // the atomicity group or change set it belongs to; "" for none
	dependsOn []string // ids of earlier requests and groups that must have succeeded (JSON)
	method    string
	url       string
	header    http.Header
	body      []byte
}

// batchResult is the answer to one request of a batch.
type batchResult struct {
	item   *batchItem
	status int
	header http.Header
	body   []byte
	// cause marks, in a group that failed, the request whose failure rolled the group back.
	cause bool
}

// batchRun executes the requests of one batch, in order.
type batchRun struct {
	service *Service
	r       *http.Request // the batch request
	root    string        // the path of the service root as the batch request addresses it, such as "/odata"
	// continueOnError is Prefer: odata.continue-on-error: requests after a failure are still processed.
	continueOnError bool
	locations       map[string]string // request id -> path of the entity it created or addressed
	failed          map[string]bool   // ids of the requests and groups that failed
}

// batchKey marks the context of the requests of a batch: a batch inside a batch is refused.
type batchKey struct{}

// groupKey is the context key of the transaction the requests of an atomicity group share.
type groupKey struct{}

// txGroup is the transaction of one atomicity group (change set), carried in the context of its requests so
// that Service.inTx runs their writes in it rather than in a transaction of their own.
type txGroup struct {
	service *Service
	tx      *sqldb.Tx
	err     error           // the first error a write of the group returned, for sqldb.RunTx's retry decision
	changes *trackedChanges // the changes of tracked sets the group's writes made, appended to the log before the commit
}

// sharedTx returns the group transaction ctx carries for s, or nil.
func sharedTx(ctx context.Context, s *Service) *txGroup {
	if g, ok := ctx.Value(groupKey{}).(*txGroup); ok && g.service == s {
		return g
	}
	return nil
}

// run runs fn in the group's transaction; an error is recorded, and the whole group rolls back.
func (g *txGroup) run(fn func(tx *Tx) error) error {
	tx := g.service.tx(g.tx)
	tx.changes = g.changes
	err := fn(tx)
	if err != nil && g.err == nil {
		g.err = err
	}
	return err
}

// batch answers POST $batch: a JSON batch (application/json, OData 4.01) or a multipart batch
// (multipart/mixed). Each request is served by the service as if it came alone, with the batch request's
// context (its principal, its time budget) and headers it does not set itself; the requests of an atomicity
// group or change set share one transaction.
func (s *Service) batch(req *request) error {
	r := req.r
	if r.Context().Value(batchKey{}) != nil {
		return BadRequest(CodeBadRequest, "", "A batch cannot contain another $batch request.")
	}
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "application/json" && mediaType != "multipart/mixed" {
		return &Error{Code: CodeUnsupportedMediaType,
			Message: "A batch body must be sent with Content-Type: application/json or multipart/mixed;boundary=..."}
	}
	// A body past the limit, or past the limit of the server (http.MaxBytesReader), is a 413.
	data, err := readBody(r, s.batchBytes, "batch body", CodeBadRequest)
	if err != nil {
		return err
	}
	run := newBatchRun(s, r)
	ctx := context.WithValue(r.Context(), batchKey{}, run)
	if mediaType == "application/json" {
		if !readsVersion401(r.Header) {
			return notAcceptable("A JSON batch is answered in OData 4.01, above the request's OData-MaxVersion " +
				r.Header.Get("OData-MaxVersion") + "; send a multipart/mixed batch instead.")
		}
		items, err := parseJSONBatch(data, s.batchRequests)
		if err != nil {
			return err
		}
		return run.writeJSON(req, run.run(ctx, items))
	}
	items, err := parseMultipartBatch(data, params["boundary"], s.batchRequests)
	if err != nil {
		return err
	}
	return run.writeMultipart(req, run.run(ctx, items))
}

// newBatchRun returns the run of the batch request r.
func newBatchRun(s *Service, r *http.Request) *batchRun {
	root := strings.TrimSuffix(r.URL.EscapedPath(), "/")
	root = root[:strings.LastIndex(root, "/")]
	run := &batchRun{service: s, r: r, root: root, locations: map[string]string{}, failed: map[string]bool{}}
	for _, v := range r.Header.Values("Prefer") {
		for _, part := range strings.Split(v, ",") {
			name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
			name = strings.ToLower(strings.TrimSpace(name))
			if (name == "odata.continue-on-error" || name == "continue-on-error") &&
				!strings.EqualFold(strings.Trim(strings.TrimSpace(value), `"`), "false") {
				run.continueOnError = true
			}
		}
	}
	return run
}

// tooManyRequests is the error of a batch with more than limit requests (Limits.BatchRequests).
func tooManyRequests(n, limit int) error {
	return BadRequest(CodeLimitExceeded, "$batch",
		fmt.Sprintf("The batch holds %d requests; the limit is %d requests per batch.", n, limit))
}

// run executes the items in order, each atomicity group in one transaction, and returns their results. Unless
// the client prefers odata.continue-on-error, processing stops after the first request or group that fails.
func (b *batchRun) run(ctx context.Context, items []*batchItem) []*batchResult {
	var out []*batchResult
	for i := 0; i < len(items); {
		end := i + 1
		var results []*batchResult
		if g := items[i].group; g != "" {
			for end < len(items) && items[end].group == g {
				end++
			}
			results = b.runGroup(ctx, items[i:end])
		} else {
			results = []*batchResult{b.runOne(ctx, items[i])}
		}
		out = append(out, results...)
		if b.failedAny(results) && !b.continueOnError {
			break
		}
		i = end
	}
	return out
}

// failedAny reports whether one of results failed.
func (b *batchRun) failedAny(results []*batchResult) bool {
	for _, res := range results {
		if res.status >= 400 {
			return true
		}
	}
	return false
}

// runOne serves a request outside any group.
func (b *batchRun) runOne(ctx context.Context, item *batchItem) *batchResult {
	res := b.serve(ctx, item)
	b.record(res)
	return res
}

// record notes the outcome of a result: the entity a success addressed, for $id references, or the failure.
func (b *batchRun) record(res *batchResult) {
	id := res.item.id
	if id == "" {
		return
	}
	if res.status >= 400 {
		b.failed[id] = true
		return
	}
	loc := res.header.Get("Location")
	if loc == "" {
		loc = res.header.Get("OData-EntityId")
	}
	if loc != "" {
		b.locations[id] = b.relativePath(loc)
	}
}

// relativePath turns an absolute URL the service answered with into a path under the batch's service root.
func (b *batchRun) relativePath(loc string) string {
	base := (&request{r: b.r, service: b.service}).base()
	if rest, ok := strings.CutPrefix(loc, base); ok {
		return b.root + rest
	}
	if u, err := url.Parse(loc); err == nil {
		return u.EscapedPath()
	}
	return loc
}

// runGroup serves the requests of one atomicity group in one transaction: they all succeed and are committed,
// or the first failure rolls all of them back. The results of a failed group are the failing request's answer
// (marked cause) and 424 Failed Dependency for the others.
func (b *batchRun) runGroup(ctx context.Context, items []*batchItem) []*batchResult {
	s := b.service
	group := items[0].group
	if dep := b.failedDependency(items...); dep != "" {
		return b.failGroup(ctx, items, nil, fmt.Sprintf("The atomicity group %s depends on %s, which failed.", group, dep))
	}
	locations := maps.Clone(b.locations)
	var results []*batchResult
	err := sqldb.RunTx(ctx, s.db, func(tx *sqldb.Tx) error {
		g := &txGroup{service: s, tx: tx, changes: &trackedChanges{}}
		groupCtx := context.WithValue(ctx, groupKey{}, g)
		b.locations, results = maps.Clone(locations), results[:0]
		for _, item := range items {
			res := b.serve(groupCtx, item)
			results = append(results, res)
			if res.status >= 400 {
				if g.err != nil {
					return g.err // the retry decision of RunTx needs the database's own error
				}
				return errGroupFailed
			}
			b.record(res)
		}
		return s.changes.flush(ctx, tx, g.changes)
	})
	if err == nil {
		return results
	}
	b.locations = locations
	var cause *batchResult
	if n := len(results); n > 0 && results[n-1].status >= 400 {
		cause = results[n-1]
	} else {
		// The commit failed: every request of the group answers the commit's error.
		cause = b.errorResult(ctx, items[len(items)-1], s.dbError(err, false))
	}
	return b.failGroup(ctx, items, cause, fmt.Sprintf("The atomicity group %s was rolled back: one of its requests failed.", group))
}

// errGroupFailed ends the transaction of a group whose request failed without an error of a write (a request
// refused before any write ran).
var errGroupFailed = errors.New("odata: a request of the atomicity group failed")

// failGroup returns the results of a group that failed: cause (when not nil) for its request, 424 Failed
// Dependency with message for the others; the group and all its requests count as failed.
func (b *batchRun) failGroup(ctx context.Context, items []*batchItem, cause *batchResult, message string) []*batchResult {
	b.failed[items[0].group] = true
	results := make([]*batchResult, len(items))
	for i, item := range items {
		if item.id != "" {
			b.failed[item.id] = true
		}
		if cause != nil && cause.item == item {
			cause.cause = true
			results[i] = cause
			continue
		}
		results[i] = b.errorResult(ctx, item, &Error{Code: CodeFailedDependency, Message: message})
	}
	return results
}

// failedDependency returns the first id the items depend on that failed, or "".
func (b *batchRun) failedDependency(items ...*batchItem) string {
	for _, item := range items {
		for _, dep := range item.dependsOn {
			if b.failed[dep] {
				return dep
			}
		}
	}
	return ""
}

// serve serves one request of the batch with the service's own handler and returns its answer.
func (b *batchRun) serve(ctx context.Context, item *batchItem) *batchResult {
	if dep := b.failedDependency(item); dep != "" {
		return b.errorResult(ctx, item, &Error{Code: CodeFailedDependency,
			Message: fmt.Sprintf("The request %s depends on %s, which failed.", item.id, dep)})
	}
	part, err := b.partRequest(ctx, item)
	if err != nil {
		return b.errorResult(ctx, item, err)
	}
	if item.group != "" && part.Method == http.MethodGet {
		return b.errorResult(ctx, item, BadRequest(CodeBadRequest, "$batch",
			"A GET request cannot be part of an atomicity group or change set."))
	}
	w := &batchRecorder{header: http.Header{}}
	b.service.handle(w, part, true)
	return &batchResult{item: item, status: w.code(), header: w.header, body: w.body.Bytes()}
}

// errorResult is the answer of err to item, as WriteError renders it.
func (b *batchRun) errorResult(ctx context.Context, item *batchItem, err error) *batchResult {
	w := &batchRecorder{header: http.Header{}}
	WriteError(w, b.r.WithContext(ctx), b.service.logger, err)
	return &batchResult{item: item, status: w.code(), header: w.header, body: w.body.Bytes()}
}

// partHeadersNotInherited are the headers of the batch request that describe the batch itself, so its requests
// do not inherit them; the others (Authorization, Accept-Language, ...) apply to each request that does not set
// them itself.
var partHeadersNotInherited = map[string]bool{"Content-Type": true, "Content-Length": true,
	"Content-Encoding": true, "Content-Transfer-Encoding": true, "Transfer-Encoding": true, "Content-Id": true,
	"Accept": true, "Prefer": true, "If-Match": true, "If-None-Match": true, "Odata-Version": true,
	"Odata-Maxversion": true}

// partRequest builds the HTTP request of item: its URL resolved ($id references, relative to the service
// root), the batch request's context, host and inherited headers.
func (b *batchRun) partRequest(ctx context.Context, item *batchItem) (*http.Request, error) {
	target, err := b.resolveURL(item.url)
	if err != nil {
		return nil, err
	}
	part, err := http.NewRequestWithContext(ctx, item.method, target, bytes.NewReader(item.body))
	if err != nil {
		return nil, BadRequest(CodeBadRequest, "$batch", fmt.Sprintf("The request %s has an invalid URL %q.", item.id, item.url))
	}
	for name, values := range b.r.Header {
		if !partHeadersNotInherited[name] {
			part.Header[name] = values
		}
	}
	for name, values := range item.header {
		part.Header[name] = values
	}
	part.Host, part.TLS, part.RemoteAddr = b.r.Host, b.r.TLS, b.r.RemoteAddr
	part.URL.Scheme, part.URL.Host = b.r.URL.Scheme, b.r.URL.Host
	if len(item.body) == 0 {
		part.Body, part.ContentLength = http.NoBody, 0
	}
	return part, nil
}

// resolveURL returns the path and query a request of the batch addresses: a URL relative to the service root,
// an absolute path, an absolute URL, or a reference $id/... to the entity an earlier request created.
func (b *batchRun) resolveURL(raw string) (string, error) {
	reference := raw
	if strings.HasPrefix(reference, "/$") { // "/$1": clients write a reference as an absolute path too
		reference = reference[1:]
	}
	if rest, ok := strings.CutPrefix(reference, "$"); ok {
		end := strings.IndexAny(rest, "/?")
		if end < 0 {
			end = len(rest)
		}
		id := rest[:end]
		if b.failed[id] {
			return "", &Error{Code: CodeFailedDependency,
				Message: fmt.Sprintf("The URL %s refers to the request %s, which failed.", raw, id)}
		}
		if loc, ok := b.locations[id]; ok {
			return loc + rest[end:], nil
		}
	}
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return "", BadRequest(CodeBadRequest, "$batch", fmt.Sprintf("The URL %q of a batch request is not valid.", raw))
	}
	path := u.EscapedPath()
	switch {
	case u.IsAbs() || strings.HasPrefix(raw, "/"):
	case path == "":
		path = b.root + "/"
	default:
		path = b.root + "/" + path
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	return path, nil
}

// batchRecorder is the http.ResponseWriter a request of a batch answers into.
type batchRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *batchRecorder) Header() http.Header { return w.header }

func (w *batchRecorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *batchRecorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}

// code returns the status answered, 200 when the handler wrote nothing.
func (w *batchRecorder) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// batchMethods are the methods a request of a batch may have.
var batchMethods = map[string]bool{http.MethodGet: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true}

// jsonBatch is the body of a JSON batch request (OData JSON Format 4.01, section 19).
type jsonBatch struct {
	Requests []jsonBatchRequest `json:"requests"`
}

// jsonBatchRequest is one request of a JSON batch.
type jsonBatchRequest struct {
	ID             string            `json:"id"`
	Method         string            `json:"method"`
	URL            string            `json:"url"`
	AtomicityGroup string            `json:"atomicityGroup"`
	DependsOn      []string          `json:"dependsOn"`
	Headers        map[string]string `json:"headers"`
	Body           json.RawMessage   `json:"body"`
	If             json.RawMessage   `json:"if"`
}

// parseJSONBatch decodes and checks a JSON batch body: ids present and unique, methods known, the requests of a
// group adjacent, dependsOn naming earlier requests or groups, at most limit requests.
func parseJSONBatch(data []byte, limit int) ([]*batchItem, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	var doc jsonBatch
	if err := decoder.Decode(&doc); err != nil {
		return nil, BadRequest(CodeInvalidJSON, "$batch", "The body is not a JSON batch: "+err.Error()+".")
	}
	if decoder.More() {
		return nil, BadRequest(CodeInvalidJSON, "$batch", "The body holds more than one JSON value.")
	}
	if doc.Requests == nil {
		return nil, BadRequest(CodeInvalidJSON, "$batch", `A JSON batch is an object with a "requests" array.`)
	}
	if len(doc.Requests) > limit {
		return nil, tooManyRequests(len(doc.Requests), limit)
	}
	check := newBatchChecker()
	items := make([]*batchItem, 0, len(doc.Requests))
	for i := range doc.Requests {
		item, err := jsonBatchItem(&doc.Requests[i])
		if err == nil {
			err = check.add(item)
		}
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	return items, nil
}

// jsonBatchItem converts one request of a JSON batch.
func jsonBatchItem(req *jsonBatchRequest) (*batchItem, error) {
	if req.ID == "" {
		return nil, BadRequest(CodeInvalidJSON, "$batch", "Every request of a JSON batch needs an id.")
	}
	if len(req.If) > 0 {
		return nil, Errorf(CodeNotImplemented, "The if member of the batch request %s is not supported.", req.ID)
	}
	item := &batchItem{id: req.ID, group: req.AtomicityGroup, dependsOn: req.DependsOn,
		method: strings.ToUpper(req.Method), url: req.URL, header: http.Header{}}
	if !batchMethods[item.method] {
		return nil, BadRequest(CodeBadRequest, "$batch", fmt.Sprintf("The request %s has the method %q; want GET, POST, PUT, PATCH or DELETE.", req.ID, req.Method))
	}
	if item.url == "" {
		return nil, BadRequest(CodeBadRequest, "$batch", fmt.Sprintf("The request %s has no url.", req.ID))
	}
	for name, value := range req.Headers {
		item.header.Set(name, value)
	}
	body, err := jsonBatchBody(req, item.header)
	if err != nil {
		return nil, err
	}
	item.body = body
	return item, nil
}

// jsonBatchBody returns the bytes of a request's body: JSON as it is (Content-Type application/json unless the
// headers say otherwise), a string as text for a text/* type, base64url-decoded for any other type.
func jsonBatchBody(req *jsonBatchRequest, header http.Header) ([]byte, error) {
	raw := bytes.TrimSpace(req.Body)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if header.Get("Content-Type") == "" {
		header.Set("Content-Type", "application/json")
	}
	mediaType, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	if mediaType == "application/json" || strings.HasSuffix(mediaType, "+json") {
		return raw, nil
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return nil, BadRequest(CodeInvalidJSON, "$batch",
			fmt.Sprintf("The body of the request %s is of type %s: send it as a JSON string.", req.ID, mediaType))
	}
	if strings.HasPrefix(mediaType, "text/") {
		return []byte(text), nil
	}
	data, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(text, "="))
	if err != nil {
		return nil, BadRequest(CodeInvalidJSON, "$batch",
			fmt.Sprintf("The body of the request %s is of type %s: send it base64url-encoded.", req.ID, mediaType))
	}
	return data, nil
}

// batchChecker checks the ids, groups and dependencies of the requests of a batch as they come.
type batchChecker struct {
	ids     map[string]bool // request ids seen
	groups  map[string]bool // groups seen, the last one open
	current string          // the group of the previous request
}

func newBatchChecker() *batchChecker {
	return &batchChecker{ids: map[string]bool{}, groups: map[string]bool{}}
}

// add checks the next request.
func (c *batchChecker) add(item *batchItem) error {
	if item.id != "" {
		if c.ids[item.id] || c.groups[item.id] {
			return BadRequest(CodeBadRequest, "$batch", fmt.Sprintf("The id %s is used twice in the batch.", item.id))
		}
	}
	if g := item.group; g != "" && g != c.current {
		if c.groups[g] {
			return BadRequest(CodeBadRequest, "$batch", fmt.Sprintf("The requests of the atomicity group %s must be adjacent.", g))
		}
		if c.ids[g] {
			return BadRequest(CodeBadRequest, "$batch", fmt.Sprintf("The atomicity group %s has the id of a request.", g))
		}
		c.groups[g] = true
	}
	c.current = item.group
	for _, dep := range item.dependsOn {
		known := c.ids[dep] || c.groups[dep] && dep != item.group
		if !known {
			return BadRequest(CodeBadRequest, "$batch", fmt.Sprintf(
				"The request %s depends on %s, which is not an earlier request or atomicity group of the batch.", item.id, dep))
		}
	}
	if item.id != "" {
		c.ids[item.id] = true
	}
	return nil
}

// jsonBatchResponse is one answer of a JSON batch response.
type jsonBatchResponse struct {
	ID             string            `json:"id"`
	AtomicityGroup string            `json:"atomicityGroup,omitempty"`
	Status         int               `json:"status"`
	Headers        map[string]string `json:"headers,omitempty"`
	Body           json.RawMessage   `json:"body,omitempty"`
}

// writeJSON answers a JSON batch: 200 with one response per request processed, in order.
func (b *batchRun) writeJSON(req *request, results []*batchResult) error {
	doc := struct {
		Responses []jsonBatchResponse `json:"responses"`
	}{Responses: make([]jsonBatchResponse, 0, len(results))}
	for _, res := range results {
		out := jsonBatchResponse{ID: res.item.id, AtomicityGroup: res.item.group, Status: res.status,
			Headers: map[string]string{}}
		for _, name := range sortedHeaderNames(res.header) {
			if name != "Content-Length" {
				out.Headers[strings.ToLower(name)] = strings.Join(res.header.Values(name), ", ")
			}
		}
		body, err := jsonResponseBody(res)
		if err != nil {
			return err
		}
		out.Body = body
		doc.Responses = append(doc.Responses, out)
	}
	var buf bytes.Buffer
	encoder := json.NewEncoder(&buf)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(doc); err != nil {
		return err
	}
	return b.writeAnswer(req, "application/json", "4.01", buf.Bytes())
}

// writeAnswer writes the batch's answer: 200 with its content type, the OData version of its format and whether
// the run went on after failures.
func (b *batchRun) writeAnswer(req *request, contentType, version string, body []byte) error {
	h := req.w.Header()
	h.Set("Content-Type", contentType)
	h.Set("OData-Version", version)
	if b.continueOnError {
		h.Set("Preference-Applied", "odata.continue-on-error")
	}
	req.w.WriteHeader(http.StatusOK)
	_, err := req.w.Write(body)
	return err
}

// jsonResponseBody returns the body of an answer as a JSON value: JSON as it is, text as a string, other
// content base64url-encoded; nil when the answer has no body.
func jsonResponseBody(res *batchResult) (json.RawMessage, error) {
	if len(res.body) == 0 {
		return nil, nil
	}
	mediaType, _, _ := mime.ParseMediaType(res.header.Get("Content-Type"))
	switch {
	case mediaType == "application/json":
		return bytes.TrimSpace(res.body), nil
	case strings.HasPrefix(mediaType, "text/") || mediaType == "application/xml":
		return json.Marshal(string(res.body))
	}
	return json.Marshal(base64.RawURLEncoding.EncodeToString(res.body))
}

// sortedHeaderNames returns the names of h in order.
func sortedHeaderNames(h http.Header) []string {
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

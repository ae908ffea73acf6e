package odata

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/storekit/store/odata/internal/plan"
	"github.com/storekit/store/odata/sqldb"
	"github.com/storekit/store/odata/syntax"
)

// ServeHTTP answers one OData request. The path is read still percent-encoded (r.URL.EscapedPath), with or
// without the Mount prefix. A request that WithTimeBudget already gave a budget keeps that one.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A client reads its own writes (replica.go), also when the handler around the service does not see to it;
	// without read replicas there is nothing to carry.
	if s.db.Replicated() {
		ReadYourWrites(http.HandlerFunc(s.serveHTTP)).ServeHTTP(w, r)
		return
	}
	s.serveHTTP(w, r)
}

func (s *Service) serveHTTP(w http.ResponseWriter, r *http.Request) {
	// Every answer, errors and asynchronous ones included, may differ by these request headers (DESIGN.md,
	// "Format negotiation"); the parts of a batch are answered inside the batch's answer and need none.
	if h := w.Header(); len(h["Vary"]) == 0 {
		h["Vary"] = varyHeader
	} else {
		h["Vary"] = append(h["Vary"], varyHeader...)
	}
	if s.async != nil {
		path := s.servicePath(r)
		if id, ok := strings.CutPrefix(path, asyncPath); ok {
			s.async.monitor(w, r, id)
			return
		}
		if s.async.wants(r, path) {
			s.async.start(w, r)
			return
		}
	}
	if s.budgetCause != nil && !hasBudget(r) {
		var cancel context.CancelFunc
		r, cancel = budgeted(r, s.budgetCause, false)
		defer cancel()
	}
	s.handle(w, r, false)
}

// handle answers r, a request alone or (part) one request of a batch, observed by the service's telemetry when
// anything records it (telemetry.go).
func (s *Service) handle(w http.ResponseWriter, r *http.Request, part bool) {
	o := s.telemetry.begin(w, r, part)
	if o == nil {
		s.answer(w, r)
		return
	}
	defer o.end() // also when the handler panics
	o.finish(s.answer(&o.w, o.r))
}

// answer serves r without a time budget of its own: a request alone (under ServeHTTP's budget) or one request of
// a batch (under the batch's). It returns the target the path resolved to (nil when it did not) and the error
// it answered with.
func (s *Service) answer(w http.ResponseWriter, r *http.Request) (*target, error) {
	version, err := negotiateVersion(r.Header, s.maxVersion)
	// Every answer, errors included, says the version it is written in; a batch's answer says its own.
	w.Header()["Odata-Version"] = version.header()
	var t *target
	if err == nil {
		t, err = s.serve(w, r, version)
	}
	switch err {
	case errNoContent:
		w.WriteHeader(http.StatusNoContent)
		return t, nil
	case errTokenFetch:
		w.WriteHeader(http.StatusOK)
		return t, nil
	}
	if err != nil {
		// A server error's log line says which request met it and what of the model the request reached.
		writeError(w, r, s.logger, err, requestAttrs(r, t))
	}
	return t, err
}

// serve answers the request in version; it returns the target the path resolved to (nil when it did not) and
// the error to answer with.
func (s *Service) serve(w http.ResponseWriter, r *http.Request, version Version) (*target, error) {
	if err := checkIsolation(r.Header); err != nil {
		return nil, err
	}
	if err := s.checkSchemaVersion(r); err != nil {
		return nil, err
	}
	// The path under the service root, found once and again only when a step below gives another request.
	raw := s.servicePath(r)
	next, err := s.queryInBody(r, raw)
	if err != nil {
		return nil, err
	}
	if next != r {
		r, raw = next, s.servicePath(next)
	}
	if next, err = s.filterInPath(r, raw); err != nil {
		return nil, err
	}
	if next != r {
		r, raw = next, s.servicePath(next)
	}
	byID := isEntityPath(raw)
	if byID {
		if r, err = s.entityRequest(r); err != nil {
			return nil, err
		}
		raw = s.servicePath(r)
	}
	t, query, err := s.route(r, raw)
	if err != nil {
		return t, err
	}
	if byID && (t.kind != tEntity || !t.direct) {
		return t, BadRequest(CodeInvalidValue, "$id", "$id must name an entity of an entity set: Set(key).")
	}
	req := t.room
	if req == nil {
		req = new(request)
	}
	t.room = nil // a target answers one request
	*req = request{w: w, r: r, target: t, query: query, service: s, version: version}
	return t, s.dispatch(req)
}

// route parses and resolves the request's path, parses its query when the planner does not (anything but reads
// of entities), and checks the method against what the target allows.
// raw is the request's path under the service root (servicePath).
func (s *Service) route(r *http.Request, raw string) (*target, *syntax.Query, error) {
	x := new(routed)    // the target, its request and its path's tree in one allocation
	path := openAPIPath // a segment the URL grammar does not know
	if !isOpenAPIPath(raw) {
		var err error
		if path, err = s.limits.read.Query.ParsePathIn(raw, &x.path); err != nil {
			return nil, nil, syntaxError(err)
		}
	}
	t, err := s.resolveIn(&x.target, raw, path)
	if err != nil {
		return nil, nil, err
	}
	t.room = &x.req
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	// Reads of entities are parsed by the planner, which caches the parsed options with the plan.
	var query *syntax.Query
	if method != http.MethodGet || t.kind != tCollection && t.kind != tEntity && t.kind != tCount && t.kind != tCrossJoin {
		rawQuery := r.URL.RawQuery
		if t.kind == tFunction {
			t.funcQuery, t.funcOptions = splitParameterOptions(syntax.SplitQuery(rawQuery), t.functions)
			rawQuery = t.funcQuery.String()
		}
		if query, err = s.limitsOf(t).read.Query.ParseQuery(rawQuery); err != nil {
			return t, nil, syntaxError(err)
		}
	}
	allow := s.allowed(t)
	if r.Method == http.MethodHead && tokenFetch(r.Header) && (t.kind == tRoot || offersWrite(allow)) {
		return t, nil, errTokenFetch
	}
	if !inList(allow, method) {
		return t, nil, s.methodNotAllowed(t, r.Method, method, allow)
	}
	return t, query, nil
}

// errTokenFetch is route's answer to a CSRF token fetch: a HEAD with X-CSRF-Token: Fetch, which SAP's clients
// (UI5, the Cloud SDK) send before they write, to the service root or to the URL they write to. On the service
// root and on any target that offers a write, answer gives 200 without a body and without reading the target,
// alike on $batch and action URLs (which offer no GET) and on entity sets and entities (which do). The service
// needs no CSRF token (it reads bearer tokens, which a browser does not send on its own), so the answer carries
// none. Allow is unchanged: a HEAD without the fetch is answered as GET is, 405 where GET is not offered.
var errTokenFetch = errors.New("odata: CSRF token fetch")

// tokenFetch reports whether h asks for a CSRF token (X-CSRF-Token: Fetch, without regard to case).
func tokenFetch(h http.Header) bool {
	return strings.EqualFold(strings.TrimSpace(h.Get("X-CSRF-Token")), "fetch")
}

// offersWrite reports whether the Allow list names a method that writes.
func offersWrite(allow string) bool {
	return inList(allow, http.MethodPost) || inList(allow, http.MethodPut) || inList(allow, http.MethodPatch) ||
		inList(allow, http.MethodDelete)
}

// servicePath returns the path of r below the service root, still percent-encoded, Mount cut off when r has it.
func (s *Service) servicePath(r *http.Request) string {
	raw := r.URL.EscapedPath()
	if s.mount != "" && (raw == s.mount || strings.HasPrefix(raw, s.mount+"/")) {
		raw = raw[len(s.mount):]
	}
	return raw
}

// dispatch answers a routed request by its target and method.
func (s *Service) dispatch(req *request) error {
	t := req.target
	if err := s.checkReadable(req.r.Context(), t); err != nil {
		return err
	}
	method := req.r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	switch t.kind {
	case tRoot:
		return s.serviceDocument(req)
	case tMetadata:
		return s.metadata(req)
	case tOpenAPI:
		return s.openAPI(req)
	case tAction:
		return s.invoke(req)
	case tFunction:
		return s.callFunction(req)
	case tBatch:
		return s.batch(req)
	}
	if err := checkIndex(req, method); err != nil {
		return err
	}
	if method == http.MethodGet && s.db.Replicated() && !readsChanges(req.r) {
		// The one place the engine chooses where a request reads: a GET of data (alone or in a $batch) writes
		// nothing and may read a replica (sqldb.DB.Replicate). Writes, change sets, actions and functions run in
		// transactions, which use the primary; so do delta links, whose positions in the change log are the
		// primary's.
		req.r = req.r.WithContext(sqldb.ForRead(req.r.Context()))
	}
	if t.ref {
		return s.refRequest(req, method)
	}
	if t.kind == tProperty && method != http.MethodGet {
		return s.writeCollection(req, method)
	}
	switch method {
	case http.MethodGet:
		return s.read(req)
	case http.MethodPost:
		return s.post(req)
	case http.MethodPut:
		if t.kind == tMediaValue {
			return s.putMedia(req)
		}
		return s.put(req, OpUpdate)
	case http.MethodPatch:
		return s.put(req, OpPatch)
	case http.MethodDelete:
		return s.delete(req)
	}
	return nil
}

// allowed lists the methods a target offers, for the Allow header.
func (s *Service) allowed(t *target) string {
	if t.ref {
		return s.refMethods(t)
	}
	switch t.kind {
	case tAction, tBatch:
		return "POST"
	case tFunction:
		return "GET"
	case tProperty:
		return s.collectionMethods(t)
	case tMediaValue:
		if s.mediaWritable(t) {
			return "GET, PUT"
		}
	case tCollection:
		if t.direct && s.sets[t.set].Writes&WritePost != 0 {
			return "GET, POST"
		}
	case tEntity:
		if sg := writtenSingleton(t); sg != nil {
			return methodList(s.singletons[sg].Writes)
		}
		if t.direct {
			return methodList(s.sets[t.set].Writes)
		}
	}
	return "GET"
}

// methodList is the Allow header of an entity offering the writes w.
func methodList(w Writes) string {
	i := 0
	for bit, m := range []Writes{WritePut, WritePatch, WriteDelete} {
		if w&m != 0 {
			i |= 1 << bit
		}
	}
	return methodLists[i]
}

// methodLists are the Allow headers of entities, indexed by the bits PUT 1, PATCH 2 and DELETE 4, made once so
// that no request builds one.
var methodLists = func() (lists [8]string) {
	for i := range lists {
		list := []string{"GET"}
		for bit, m := range []string{"PUT", "PATCH", "DELETE"} {
			if i&(1<<bit) != 0 {
				list = append(list, m)
			}
		}
		lists[i] = strings.Join(list, ", ")
	}
	return lists
}()

// inList reports whether the comma-separated list (an Allow header) names method.
func inList(list, method string) bool {
	for list != "" {
		var item string
		item, list, _ = strings.Cut(list, ",")
		if strings.TrimSpace(item) == method {
			return true
		}
	}
	return false
}

// syntaxError turns a parse error of the path or a query option into a 400 naming the option, or a 501 for
// what the parser recognizes but the engine does not implement.
func syntaxError(err error) error {
	var syntaxErr *syntax.Error
	if errors.As(err, &syntaxErr) {
		code := syntaxErr.Code
		if code == syntax.CodeNotSupported {
			code = CodeNotImplemented
		}
		return &Error{Code: code, Target: syntaxErr.Option, Message: optionMessage(syntaxErr.Code, syntaxErr.Option, syntaxErr.Error())}
	}
	return BadRequest(CodeBadRequest, "", err.Error())
}

// optionMessage words the error of a query option or of the resource path for the client: the parser's wording
// with the option and the position, as SPEC part 8 has it ("$filter:1:9: expected operator, found \"syntax\""),
// and for a client error (a syntax error, an unknown name, a type mismatch, an invalid value) the words clients
// and tools search for after it: " (invalid $filter)", the option as the client spelt it, or "(invalid resource
// path)". A limit exceeded, a value the request may not read, a form not implemented and an error that names no
// option keep the parser's wording alone.
func optionMessage(code, option, plain string) string {
	switch {
	case option == "", code == syntax.CodeLimitExceeded, code == syntax.CodeNotSupported, code == plan.CodeNotReadable:
		return plain
	case option == "path":
		return plain + " (invalid resource path)"
	}
	return plain + " (invalid " + option + ")"
}

// request is one request being answered.
type request struct {
	w       http.ResponseWriter
	r       *http.Request
	target  *target
	query   *syntax.Query
	service *Service
	format  jsonFormat     // what negotiateJSON read from $format or Accept, and Prefer: omit-values
	answers *answerFormat  // made by answer
	version Version        // the version the answer is written in (negotiateVersion)
	applied string         // the preferences a JSON answer applies (prefs.applied), noted by negotiateJSON
	limits  *requestLimits // the limits of a composed read (readComposed); nil for the target's
	// tracking is the change tracking of a read of entities (delta.go); nil when it tracks none.
	tracking *tracking
	// answerRoom holds the first format answer makes, which needs no allocation of its own then.
	answerRoom answerFormat
	// readRoom holds the first read planQuery plans (readRoomUsed), and lengthRoom the Content-Length header's
	// value of an answer written in one piece: no allocation of their own then.
	readRoom     plan.Read
	readRoomUsed bool
	lengthRoom   [1]string
}

// setLength sets the Content-Length header h of the request's answer to n bytes, in the request's own room.
func (req *request) setLength(h http.Header, n int) {
	req.lengthRoom[0] = strconv.Itoa(n)
	h["Content-Length"] = req.lengthRoom[:]
}

// noMetadata reports whether the answer carries no control information but counts and next links
// (odata.metadata=none).
func (req *request) noMetadata() bool { return req.format.metadata == metadataNone }

// answer returns the format of the request's answer for the writers of entities.
func (req *request) answer() *answerFormat {
	switch {
	case req.answers == nil:
		req.answerRoom = answerFormat{jsonFormat: req.format, req: req, namespace: req.service.model.Namespace}
		req.answers = &req.answerRoom
	case req.answers.jsonFormat != req.format:
		req.answers = &answerFormat{jsonFormat: req.format, req: req, namespace: req.service.model.Namespace}
	}
	return req.answers
}

// base returns the absolute URL of the service root: Config.PublicURL and Mount when a public URL is configured,
// else the request's scheme and host, then Mount.
func (req *request) base() string {
	if req.service.publicRoot != "" {
		return req.service.publicRoot
	}
	return requestScheme(req.r) + "://" + req.r.Host + req.service.mount
}

// requestScheme returns the scheme a request came with: r.URL.Scheme when a middleware that knows the trusted
// proxies set it (the server sees no scheme in a request line), else https over TLS and http otherwise. Headers
// such as X-Forwarded-Proto are not read here: only the server knows whether the peer sending them is trusted.
func requestScheme(r *http.Request) string {
	switch {
	case r.URL.Scheme == "https" || r.URL.Scheme == "http":
		return r.URL.Scheme
	case r.TLS != nil:
		return "https"
	}
	return "http"
}

// contextMember returns the @odata.context member for a context URL fragment, or nil without metadata.
func (req *request) contextMember(fragment string) []byte {
	if req.noMetadata() {
		return nil
	}
	return req.appendContext(nil, fragment)
}

// appendContext appends the @odata.context member for a context URL fragment.
func (req *request) appendContext(b []byte, fragment string) []byte {
	b = append(b, `"@odata.context":"`...)
	if req.service.publicRoot != "" {
		b = appendJSONText(b, req.service.publicRoot)
	} else {
		b = append(b, requestScheme(req.r)...)
		b = append(b, "://"...)
		b = appendJSONText(b, req.r.Host)
		b = appendJSONText(b, req.service.mount)
	}
	b = append(b, "/$metadata#"...)
	b = appendJSONText(b, fragment)
	return append(b, '"')
}

// appendJSONText appends s escaped for a JSON string, without the quotes.
func appendJSONText(b []byte, s string) []byte {
	n := len(b)
	b = appendString(b, s)
	copy(b[n:], b[n+1:len(b)-1])
	return b[:len(b)-2]
}

// Header values shared by every answer (net/http only reads them).
var (
	hdrText = []string{"text/plain;charset=utf-8"}
	// varyHeader names the request headers an answer's representation depends on: Accept (the media type and
	// its odata.metadata and IEEE754Compatible parameters, $metadata's XML or JSON), OData-MaxVersion (the
	// version) and Prefer (page size, return=minimal, omit-values, respond-async, track-changes). The engine
	// reads no Accept-Language: messages are in English whatever it says.
	varyHeader = []string{"Accept, OData-MaxVersion, Prefer"}
)

// jsonHeaders sets the headers of a JSON answer.
func (req *request) jsonHeaders() {
	h := req.w.Header()
	h["Content-Type"] = req.format.contentType()
	h["Odata-Version"] = req.version.header()
	if req.applied != "" {
		addPreferenceApplied(h, req.applied)
	}
}

// negotiateJSON checks that the client accepts JSON ($format, else Accept) and notes the format it asks for:
// odata.metadata (minimal, full or none) and IEEE754Compatible. A value of those the service does not know is
// not acceptable (406), as a media type other than JSON is.
func (req *request) negotiateJSON() error {
	err := req.negotiateMedia()
	if len(req.r.Header["Prefer"]) > 0 {
		p := parsePrefer(req.r.Header)
		req.format.omitNulls = p.omitNulls != ""
		req.applied = p.applied()
	}
	return err
}

// negotiateMedia is negotiateJSON's reading of $format or Accept.
func (req *request) negotiateMedia() error {
	if f := req.query.Format; f != "" {
		if strings.EqualFold(f, "json") {
			return nil
		}
		mediaType, params, err := mime.ParseMediaType(f)
		if err == nil && mediaType == "application/json" {
			var ok bool
			if req.format, ok = parseJSONFormat(params); ok {
				return nil
			}
		}
		return notAcceptable("The requested format ($format=" + f + ") cannot be served; this resource is available as application/json " +
			"with odata.metadata minimal, full or none and IEEE754Compatible true or false.")
	}
	accept := strings.Join(req.r.Header.Values("Accept"), ",")
	if strings.TrimSpace(accept) == "" {
		return nil
	}
	for _, accepted := range parseAccept(accept) {
		switch accepted.typ {
		case "application/json":
			if format, ok := parseJSONFormat(accepted.params); ok {
				req.format = format
				return nil
			}
		case "application/*", "*/*":
			return nil
		}
	}
	return notAcceptable("The requested format (Accept: " + accept + ") cannot be served; this resource is available as application/json " +
		"with odata.metadata minimal, full or none and IEEE754Compatible true or false.")
}

func notAcceptable(msg string) error {
	return &Error{Code: CodeNotAcceptable, Message: msg}
}

// mediaRange is one entry of an Accept header.
type mediaRange struct {
	typ    string
	params map[string]string
	q      float64
}

// parseAccept returns the acceptable ranges of an Accept header, most preferred first (q > 0 only).
func parseAccept(h string) []mediaRange {
	var out []mediaRange
	for _, part := range strings.Split(h, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		mediaType, params, err := mime.ParseMediaType(part)
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if q <= 0 {
			continue
		}
		out = append(out, mediaRange{typ: mediaType, params: params, q: q})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].q > out[j].q })
	return out
}

// prefs are the preferences of a Prefer header the service honours.
type prefs struct {
	maxPageSize int
	minimal     bool
	// omitNulls is the omit-values=nulls preference as the client wrote its name (omit-values or, as 4.0
	// clients write it, odata.omit-values); "" when not asked.
	omitNulls string
	// includeAnnotations is the odata.include-annotations preference (or include-annotations) as sent, name
	// and value; "" when not asked. The engine writes no instance annotations but control information, so it
	// is always met: the answer's annotations are those the client may ask to include or exclude.
	includeAnnotations string
	// respondAsync is Prefer: respond-async.
	respondAsync bool
	// trackChanges is Prefer: odata.track-changes (delta.go).
	trackChanges bool
}

func parsePrefer(h http.Header) prefs {
	var p prefs
	for _, v := range h.Values("Prefer") {
		for _, part := range splitPreferences(v) {
			name, val, _ := strings.Cut(part, "=")
			name = strings.ToLower(strings.TrimSpace(name))
			raw := strings.TrimSpace(val)
			val = strings.Trim(raw, `"`)
			switch name {
			case "odata.maxpagesize", "maxpagesize":
				if n, err := strconv.Atoi(val); err == nil && n > 0 {
					p.maxPageSize = n
				}
			case "return":
				p.minimal = strings.EqualFold(val, "minimal")
			case "omit-values", "odata.omit-values":
				if strings.EqualFold(val, "nulls") {
					p.omitNulls = name + "=nulls"
				}
			case "include-annotations", "odata.include-annotations":
				p.includeAnnotations = name + "=" + raw
			case "respond-async":
				p.respondAsync = true
			case "odata.track-changes", "track-changes":
				p.trackChanges = true
			}
		}
	}
	return p
}

// splitPreferences splits a Prefer header value at its commas, but not at those inside a quoted value
// (odata.include-annotations="*,-Core.Description"), trimming each preference.
func splitPreferences(v string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, strings.TrimSpace(v[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(v[start:]))
}

// applied returns the preferences among p an answer of entities applies, for Preference-Applied (omit-values
// and include-annotations; maxpagesize and return are reported where they apply), "" when none.
func (p prefs) applied() string {
	switch {
	case p.omitNulls == "":
		return p.includeAnnotations
	case p.includeAnnotations == "":
		return p.omitNulls
	}
	return p.omitNulls + ", " + p.includeAnnotations
}

// addPreferenceApplied adds the applied preference v to the Preference-Applied header of h, one comma-separated
// list.
func addPreferenceApplied(h http.Header, v string) {
	if old := h["Preference-Applied"]; len(old) > 0 && old[0] != "" {
		v = old[0] + ", " + v
	}
	h["Preference-Applied"] = []string{v}
}

// serviceDocument answers the service root: the entity sets, singletons and function imports.
func (s *Service) serviceDocument(req *request) error {
	if err := req.negotiateJSON(); err != nil {
		return err
	}
	b := []byte{'{'}
	if !req.noMetadata() {
		b = append(b, `"@odata.context":`...)
		b = appendString(b, req.base()+"/$metadata")
		b = append(b, ',')
	}
	b = append(b, `"value":[`...)
	n := 0
	item := func(name, kind string) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"name":`...)
		b = appendString(b, name)
		b = append(b, `,"kind":`...)
		b = appendString(b, kind)
		b = append(b, `,"url":`...)
		b = appendString(b, name)
		b = append(b, '}')
	}
	for _, es := range s.model.EntitySets {
		item(es.Name, "EntitySet")
	}
	for _, sg := range s.model.Singletons {
		item(sg.Name, "Singleton")
	}
	// A function import is listed once, whatever the number of its overloads; action imports are not listed
	// (OData JSON Format, section 5: they are not read with GET).
	listed := map[string]bool{}
	for _, f := range s.model.Functions {
		if !f.Bound && !listed[f.Name] {
			listed[f.Name] = true
			item(f.Name, "FunctionImport")
		}
	}
	b = append(b, "]}"...)
	req.jsonHeaders()
	_, err := req.w.Write(b)
	return err
}

// metadata answers $metadata: CSDL XML, or CSDL JSON when metadataFormat chooses it, each saying the version the
// answer is written in (Edmx Version, "$Version").
func (s *Service) metadata(req *request) error {
	asJSON, err := metadataFormat(req.query.Format, req.r.Header)
	if err != nil {
		return err
	}
	h := req.w.Header()
	h["Odata-Version"] = req.version.header()
	document := s.metadataXML
	switch {
	case asJSON && req.version == Version401:
		document = s.metadataJS401
	case asJSON:
		document = s.metadataJS
	case req.version == Version401:
		document = s.metadataXML401
	}
	if asJSON {
		h.Set("Content-Type", "application/json")
	} else {
		h.Set("Content-Type", "application/xml")
	}
	_, err = req.w.Write(document)
	return err
}

// metadataFormat chooses the form of $metadata (DESIGN.md, "Format negotiation"): $format json or xml when the
// request has it; else CSDL XML, the format every OData 4 client reads (OData 4.01 Part 1, 11.1.2), unless
// Accept ranks application/json first and the client reads 4.01 (OData-MaxVersion 4.01 or above: CSDL JSON is
// a 4.01 format), or Accept takes JSON and no XML at all. An Accept that takes neither is 406.
func metadataFormat(format string, h http.Header) (asJSON bool, err error) {
	switch f := strings.ToLower(format); {
	case f == "json" || strings.HasPrefix(f, "application/json"):
		return true, nil
	case f == "xml" || strings.HasPrefix(f, "application/xml"):
		return false, nil
	case f != "":
		return false, notAcceptable("The requested format ($format=" + format + ") cannot be served; $metadata is available as xml and json.")
	}
	accept := strings.Join(h.Values("Accept"), ",")
	if strings.TrimSpace(accept) == "" {
		return false, nil
	}
	jsonFirst, takesJSON, takesXML := false, false, false
	for _, accepted := range parseAccept(accept) {
		switch accepted.typ {
		case "application/xml", "text/xml", "application/*", "*/*":
			takesXML = true
		case "application/json":
			jsonFirst = jsonFirst || !takesXML
			takesJSON = true
		}
	}
	switch {
	case !takesJSON && !takesXML:
		return false, notAcceptable("The requested format (Accept: " + accept + ") cannot be served; $metadata is available as application/xml and application/json.")
	case !takesXML:
		return true, nil
	}
	return jsonFirst && declaresVersion401(h), nil
}

// checkIsolation refuses a request for snapshot isolation (OData-Isolation: snapshot, or 4.01's Isolation):
// the pages, counts and expansions of a read are separate statements and next links are stateless, so the
// engine cannot serve a snapshot, and OData says such a request is then not processed but answered 412.
func checkIsolation(h http.Header) error {
	for _, name := range []string{"Odata-Isolation", "Isolation"} {
		for _, v := range h[name] {
			if strings.EqualFold(strings.TrimSpace(v), "snapshot") {
				return &Error{Code: CodePreconditionFailed, Target: name,
					Message: "The service does not support snapshot isolation (" + name + ": snapshot)."}
			}
		}
	}
	return nil
}

package openapi

import (
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/storekit/store/odata/edm"
)

// The document of a Service, built by Build from the model, what the sets allow and the Options. Every path and
// method in it is one the service answers: the methods of an entity set are those its Set offers, navigations are
// read-only; a function is a GET whose required parameters are parameter aliases in the query.

// protocolURL is the OData 4.01 protocol specification, which the query options' descriptions link to.
const protocolURL = "https://docs.oasis-open.org/odata/odata/v4.01/odata-v4.01-part1-protocol.html"

// serviceTag groups the service document and $metadata; it holds a space, so no entity set has its name.
const serviceTag = "OData service"

// docBuilder builds the document.
type docBuilder struct {
	svc      *Service
	m        *edm.Model
	cfg      *Options
	writable map[*edm.EntityType]writable
	schemas  *jsObject
	params   *jsObject // components.parameters
	paths    *jsObject
	ids      map[string]int
	note     string // the roles Options.Security asks for, for descriptions
	fail     func(string, ...any)
}

// writable is what clients may send for the entities of a type: a create or full replace (POST, PUT) and a PATCH,
// and the property a POST is matched on.
type writable struct {
	create, update bool
	upsert         *edm.Property
}

// pathItem is an OpenAPI path item; its fields keep the methods in the order documentation shows them.
type pathItem struct {
	Parameters []any     `json:"parameters,omitempty"`
	Get        *jsObject `json:"get,omitempty"`
	Put        *jsObject `json:"put,omitempty"`
	Post       *jsObject `json:"post,omitempty"`
	Patch      *jsObject `json:"patch,omitempty"`
	Delete     *jsObject `json:"delete,omitempty"`
	Head       *jsObject `json:"head,omitempty"`
	Options    *jsObject `json:"options,omitempty"`
	Trace      *jsObject `json:"trace,omitempty"`
}

// build builds the document of svc; fail reports the mistakes of cfg.
func build(svc *Service, cfg *Options, fail func(string, ...any)) []byte {
	g := &docBuilder{svc: svc, m: svc.Model, cfg: cfg, writable: map[*edm.EntityType]writable{}, schemas: newObject(),
		params: newObject(), paths: newObject(), ids: map[string]int{}, fail: fail}
	schemes := map[string]bool{}
	for _, a := range g.m.Authorizations {
		schemes[a.Name] = true
	}
	for _, es := range g.m.EntitySets {
		set := svc.Sets[es.Name]
		w := g.writable[es.EntityType()]
		w.create = w.create || set.Post || set.Put
		w.update = w.update || set.Patch
		if w.upsert == nil && set.Post {
			w.upsert = set.UpsertBy
		}
		g.writable[es.EntityType()] = w
	}
	for _, sg := range g.m.Singletons {
		w := g.writable[sg.EntityType()]
		w.create = w.create || svc.Singletons[sg.Name].Put
		w.update = w.update || svc.Singletons[sg.Name].Patch
		g.writable[sg.EntityType()] = w
	}
	g.note = securityNote(cfg.Security)
	g.typeSchemas()
	modelSchemas := map[string]bool{}
	for _, k := range g.schemas.keys {
		modelSchemas[k] = true
	}
	check(cfg, schemes, modelSchemas, fail)

	tags := []any{}
	for _, t := range cfg.Tags {
		tags = append(tags, describe(newObject().set("name", t.Name), t.Description))
	}
	for _, es := range g.m.EntitySets {
		tags = append(tags, describe(newObject().set("name", es.Name), firstText(es.Description, es.EntityType().Description)))
		g.entitySetPaths(es)
	}
	for _, sg := range g.m.Singletons {
		tags = append(tags, describe(newObject().set("name", sg.Name), firstText(sg.Description, sg.EntityType().Description)))
		g.singletonPaths(sg)
	}
	if g.actionImports() {
		tags = append(tags, newObject().set("name", "Actions").set("description", "Actions bound to nothing."))
	}
	if g.functionImports() {
		tags = append(tags, newObject().set("name", "Functions").set("description", "Functions bound to nothing."))
	}
	g.servicePaths()
	tags = append(tags, newObject().set("name", serviceTag).set("description", "The service document and the model ($metadata)."))
	g.extraOperations(cfg.Operations)

	doc := newObject().set("openapi", "3.1.0").set("info", g.info())
	doc.set("servers", []any{newObject().set("url", "/").set("description", "This host")})
	doc.set("tags", tags)
	doc.set("paths", g.paths)
	doc.set("components", g.components())
	if requirements := g.defaultSecurity(); requirements != nil {
		doc.set("security", requirements)
	}
	b, err := marshalDocument(doc)
	if err != nil {
		fail("writing the document: %v", err)
	}
	return b
}

func firstText(texts ...string) string {
	for _, t := range texts {
		if t != "" {
			return t
		}
	}
	return ""
}

// info is the document's info object.
func (g *docBuilder) info() *jsObject {
	title := firstText(g.cfg.Title, g.m.Description, "OData service "+g.m.Namespace)
	version := firstText(g.cfg.Version, "1")
	return describe(newObject().set("title", title).set("version", version), g.cfg.Description)
}

// defaultSecurity is the document's requirement: any one scheme of the model; nil when it has none.
func (g *docBuilder) defaultSecurity() []any {
	var requirements []any
	for _, a := range g.m.Authorizations {
		requirements = append(requirements, map[string][]string{a.Name: {}})
	}
	return requirements
}

// securityNote says which roles a requirement asks for, for operation descriptions; "" when it names none.
func securityNote(requirements []SecurityRequirement) string {
	var alternatives []string
	for _, requirement := range requirements {
		names := make([]string, 0, len(requirement))
		for name := range requirement {
			names = append(names, name)
		}
		sort.Strings(names)
		var parts []string
		for _, name := range names {
			if roles := requirement[name]; len(roles) > 0 {
				parts = append(parts, name+" credentials with the role "+strings.Join(roles, " and "))
			}
		}
		if len(parts) > 0 {
			alternatives = append(alternatives, strings.Join(parts, " and "))
		}
	}
	if len(alternatives) == 0 {
		return ""
	}
	return "Requires " + strings.Join(alternatives, ", or ") + "."
}

// components is the document's components object.
func (g *docBuilder) components() *jsObject {
	for _, name := range sortedKeys(g.cfg.Schemas) {
		g.schemas.set(name, g.cfg.Schemas[name])
	}
	g.schemas.set("error", errorSchema())
	c := newObject().set("schemas", g.schemas)
	for _, p := range standardParameters() {
		g.params.set(p.name, p.value)
	}
	c.set("parameters", g.params)
	c.set("responses", newObject().set("error", newObject().set("description", "Error").set("content",
		jsonContent(newObject().set("$ref", "#/components/schemas/error")))))
	if len(g.m.Authorizations) > 0 {
		schemes := newObject()
		for _, a := range g.m.Authorizations {
			s := newObject().set("type", "http").set("scheme", a.Scheme)
			if a.BearerFormat != "" {
				s.set("bearerFormat", a.BearerFormat)
			}
			schemes.set(a.Name, describe(s, a.Description))
		}
		c.set("securitySchemes", schemes)
	}
	return c
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// errorSchema is the error body of every answer that is not a success (the OData JSON error format).
func errorSchema() *jsObject {
	detail := newObject().set("type", "object").set("required", []string{"code", "message"}).set("properties",
		newObject().set("code", Schema{"type": "string"}).set("target", Schema{"type": "string"}).
			set("message", Schema{"type": "string"}))
	inner := newObject().set("type", "object").set("required", []string{"code", "message"}).set("properties",
		newObject().set("code", Schema{"type": "string", "description": "A PascalCase code, such as ValidationFailed."}).
			set("message", Schema{"type": "string", "description": "A sentence for people."}).
			set("target", Schema{"type": "string", "description": "The field, parameter or query option the error is about."}).
			set("details", newObject().set("type", "array").set("items", detail).
				set("description", "One entry per failed rule.")))
	return newObject().set("title", "Error").set("type", "object").set("required", []string{"error"}).
		set("properties", newObject().set("error", inner))
}

type namedParameter struct {
	name  string
	value *jsObject
}

// standardParameters are the query options whose rules are the same on every collection.
func standardParameters() []namedParameter {
	option := func(name, description, section string, schema any) *jsObject {
		return newObject().set("name", name).set("in", "query").
			set("description", description+" See ["+name+"]("+protocolURL+"#sec_SystemQueryOption"+section+").").
			set("schema", schema)
	}
	return []namedParameter{
		{"filter", option("$filter", "Filters the entities with an OData expression, such as `Price lt 10 and "+
			"startswith(Name,'A')`. String comparison is case-sensitive.", "filter", Schema{"type": "string"})},
		{"top", option("$top", "Returns at most this many entities. An answer holds one page at a time (the "+
			"service's page size, or what Prefer: odata.maxpagesize asks, up to its maximum); more follow through "+
			"@odata.nextLink.", "top", Schema{"type": "integer", "minimum": 0})},
		{"skip", option("$skip", "Skips this many entities.", "skip", Schema{"type": "integer", "minimum": 0})},
		{"count", option("$count", "Adds @odata.count, the number of entities that match $filter and $search.",
			"count", Schema{"type": "boolean"})},
		{"search", option("$search", "Keeps the entities whose searchable properties contain the terms, "+
			"ignoring case; AND, OR, NOT and \"phrases\" combine them.", "search", Schema{"type": "string"})},
		{"If-Match", newObject().set("name", "If-Match").set("in", "header").set("description",
			"The ETag the entity must still have (else 412), or *.").set("schema", Schema{"type": "string"})},
	}
}

// paramRef refers to a parameter of components.parameters.
func paramRef(name string) *jsObject {
	return newObject().set("$ref", "#/components/parameters/"+name)
}

// typeParameter adds $orderby, $select or $expand of an entity type to components.parameters (once) and refers
// to it; nil when the type offers no value for it.
func (g *docBuilder) typeParameter(et *edm.EntityType, option string) *jsObject {
	name := g.schemaName(et.Name) + "-" + option
	if g.params.get(name) != nil {
		return paramRef(name)
	}
	var values []string
	var description, section string
	switch option {
	case "orderby":
		for _, path := range sortablePaths(et) {
			values = append(values, path, path+" desc")
		}
		description, section = "Orders the entities by these properties (then by key).", "orderby"
	case "select":
		values = append(values, "*")
		for _, p := range et.Properties {
			if p.Type != edm.KindStream {
				values = append(values, p.Name)
			}
		}
		description, section = "Returns only these properties (and the key).", "select"
	case "expand":
		if len(et.Navigations) == 0 {
			return nil
		}
		values = append(values, "*")
		for _, n := range et.Navigations {
			values = append(values, n.Name)
		}
		description, section = "Includes the related entities of these navigation properties (options may "+
			"follow in parentheses, such as Items($top=5)).", "expand"
	}
	g.params.set(name, newObject().set("name", "$"+option).set("in", "query").
		set("description", description+" See [$"+option+"]("+protocolURL+"#sec_SystemQueryOption"+section+").").
		set("explode", false).
		set("schema", newObject().set("type", "array").set("uniqueItems", true).
			set("items", newObject().set("type", "string").set("enum", values))))
	return paramRef(name)
}

// sortablePaths are the properties $orderby takes: primitive and enum values, and members of complex values.
func sortablePaths(et *edm.EntityType) []string {
	var out []string
	var walk func(prefix string, props []*edm.Property)
	walk = func(prefix string, props []*edm.Property) {
		for _, p := range props {
			switch {
			case p.Collection || p.Type == edm.KindStream:
			case p.Complex != nil:
				walk(prefix+p.Name+"/", p.Properties())
			default:
				out = append(out, prefix+p.Name)
			}
		}
	}
	walk("", et.Properties)
	return out
}

// searchable reports whether $search applies to a type.
func searchable(et *edm.EntityType) bool {
	for _, p := range et.Properties {
		if p.Searchable {
			return true
		}
	}
	return false
}

// operation starts an OData operation: its id (made unique), tag and summary, and the security of
// Options.Security.
func (g *docBuilder) operation(id, tag, summary, description string) *jsObject {
	o := newObject().set("operationId", g.uniqueID(id)).set("tags", []string{tag}).set("summary", summary)
	describe(o, joinSentences(description, g.note))
	if g.cfg.Security != nil {
		o.set("security", g.cfg.Security)
	}
	return o
}

func (g *docBuilder) uniqueID(id string) string {
	g.ids[id]++
	if n := g.ids[id]; n > 1 {
		return id + "_" + strconv.Itoa(n)
	}
	return id
}

// withParameters adds parameters, leaving out nil ones.
func withParameters(o *jsObject, params ...*jsObject) *jsObject {
	var list []any
	for _, p := range params {
		if p != nil {
			list = append(list, p)
		}
	}
	if len(list) > 0 {
		o.set("parameters", list)
	}
	return o
}

// responses sets the operation's responses: the given ones, then the error body for 4XX and 5XX.
func responses(o *jsObject, list ...namedParameter) *jsObject {
	r := newObject()
	for _, it := range list {
		r.set(it.name, it.value)
	}
	r.set("4XX", newObject().set("$ref", "#/components/responses/error"))
	r.set("5XX", newObject().set("$ref", "#/components/responses/error"))
	return o.set("responses", r)
}

func response(status, description string, content *jsObject) namedParameter {
	r := newObject().set("description", description)
	if content != nil {
		r.set("content", content)
	}
	return namedParameter{status, r}
}

func jsonContent(schema any) *jsObject {
	return newObject().set("application/json", newObject().set("schema", schema))
}

// collectionSchema is the answer of a collection read, added to components.schemas once per type.
func (g *docBuilder) collectionSchema(et *edm.EntityType) *jsObject {
	name := g.schemaName(et.Name) + "-collection"
	if g.schemas.get(name) == nil {
		g.schemas.set(name, newObject().set("title", "Collection of "+et.Name).set("type", "object").set("properties",
			newObject().set("@odata.context", Schema{"type": "string", "format": "uri"}).
				set("@odata.count", Schema{"type": "integer", "minimum": 0, "description": "With $count=true."}).
				set("@odata.nextLink", Schema{"type": "string", "format": "uri", "description": "The next page, when there is one."}).
				set("value", newObject().set("type", "array").set("items", g.ref(et.Name)))))
	}
	return newObject().set("$ref", "#/components/schemas/"+name)
}

// readRestrictions returns what es allows, whose No* fields are the query options its entities do not take
// (Set.NoFilter, ...); nothing refused for nil (contained entities, a type of several sets).
func (g *docBuilder) readRestrictions(es *edm.EntitySet) *Set {
	if es == nil {
		return &Set{}
	}
	set := g.svc.Sets[es.Name]
	return &set
}

// navigationSet returns the entity set of the targets of n, nil when they are contained or of several sets.
func (g *docBuilder) navigationSet(n *edm.NavigationProperty) *edm.EntitySet {
	if n.ContainsTarget {
		return nil
	}
	return g.m.EntitySetOf(n.TargetType())
}

// unless returns p, or nil (no parameter) when refused.
func unless(refused bool, p *jsObject) *jsObject {
	if refused {
		return nil
	}
	return p
}

// listOperation reads a collection of et: of an entity set or through a collection navigation, whose entities
// do not take the options r refuses.
func (g *docBuilder) listOperation(id, tag, what string, et *edm.EntityType, r *Set) *jsObject {
	o := g.operation(id, tag, "Read "+what, "")
	var search *jsObject
	if searchable(et) {
		search = paramRef("search")
	}
	withParameters(o, unless(r.NoFilter, paramRef("filter")), unless(r.NoOrderBy, g.typeParameter(et, "orderby")),
		paramRef("top"), paramRef("skip"), unless(r.NoCount, paramRef("count")), search,
		unless(r.NoSelect, g.typeParameter(et, "select")), unless(r.NoExpand, g.typeParameter(et, "expand")))
	return responses(o, response("200", "The entities, one page at a time.", jsonContent(g.collectionSchema(et))))
}

// countOperation reads /$count of a collection, whose entities do not take the options r refuses.
func (g *docBuilder) countOperation(id, tag, what string, et *edm.EntityType, r *Set) *jsObject {
	o := g.operation(id, tag, "Count "+what, "")
	var search *jsObject
	if searchable(et) {
		search = paramRef("search")
	}
	withParameters(o, unless(r.NoFilter, paramRef("filter")), search)
	return responses(o, response("200", "The number of entities that match.", newObject().set("text/plain",
		newObject().set("schema", Schema{"type": "integer", "minimum": 0}))))
}

// getOperation reads one entity, which does not take the options r refuses; optional says that the entity may
// not exist (a to-one navigation: 204).
func (g *docBuilder) getOperation(id, tag, what string, et *edm.EntityType, r *Set, optional bool) *jsObject {
	o := g.operation(id, tag, "Read "+what, "")
	withParameters(o, unless(r.NoSelect, g.typeParameter(et, "select")), unless(r.NoExpand, g.typeParameter(et, "expand")))
	list := []namedParameter{response("200", "The entity, with its ETag.", jsonContent(g.ref(et.Name)))}
	if optional {
		list = append(list, response("204", "There is no related entity.", nil))
	}
	return responses(o, list...)
}

// keyTemplate returns the key predicate of et with path parameters, ('{Id}') or (A='{A}',B={B}), and the
// parameters; level > 0 suffixes their names (Id_1) as the OASIS mapping does below the first key.
func (g *docBuilder) keyTemplate(et *edm.EntityType, level int) (string, []any) {
	props := et.KeyProperties()
	var b strings.Builder
	var params []any
	b.WriteByte('(')
	for i, p := range props {
		name := p.Name
		if level > 0 {
			name += "_" + strconv.Itoa(level)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		if len(props) > 1 {
			b.WriteString(p.Name + "=")
		}
		quoted := p.Type == edm.KindString || p.Enum != nil
		if quoted {
			b.WriteString("'{" + name + "}'")
		} else {
			b.WriteString("{" + name + "}")
		}
		s := g.valueSchema(p.Type, p.Enum, p.Complex, p.MaxLength, p.Precision, p.Scale, false)
		desc := "The key " + p.Name + " of " + et.Name + "."
		if quoted {
			desc += " A ' in it is written twice."
		}
		params = append(params, newObject().set("name", name).set("in", "path").set("required", true).
			set("description", desc).set("schema", s))
	}
	b.WriteByte(')')
	return b.String(), params
}

// entitySetPaths adds the paths of an entity set: the collection, /$count, the actions bound to the collection,
// the entity, its media value, its actions and its navigations.
func (g *docBuilder) entitySetPaths(es *edm.EntitySet) {
	et := es.EntityType()
	set := g.svc.Sets[es.Name]
	base := g.svc.Mount + "/" + es.Name
	tag := es.Name
	item := &pathItem{Get: g.listOperation(es.Name+".list", tag, "the entities of "+es.Name, et, &set)}
	if set.Post {
		item.Post = g.createOperation(es, &set)
	}
	g.paths.set(base, item)
	if !set.NoCount {
		g.paths.set(base+"/$count", &pathItem{Get: g.countOperation(es.Name+".count", tag, "the entities of "+es.Name, et,
			&set)})
	}
	g.boundActions(base, nil, et, true, tag, es.Name)
	g.boundFunctions(base, nil, et, true, tag, es.Name)

	key, params := g.keyTemplate(et, 0)
	entity := base + key
	item = &pathItem{Parameters: params, Get: g.getOperation(es.Name+".get", tag, "one "+et.Name+" of "+es.Name, et,
		&set, false)}
	if set.Put {
		item.Put = g.writeOperation(es.Name, et, "replace", "Replace", "a "+et.Name+" in full: omitted properties take their defaults. "+
			keyRule(&set), "-create")
	}
	if set.Patch {
		item.Patch = g.writeOperation(es.Name, et, "update", "Update", "the properties of a "+et.Name+" that the body holds.", "-update")
	}
	if set.Delete {
		o := g.operation(es.Name+".delete", tag, "Delete a "+et.Name, "")
		withParameters(o, paramRef("If-Match"))
		item.Delete = responses(o, response(strconv.Itoa(g.deleteStatus()), "Deleted; the body is empty.", nil))
	}
	g.paths.set(entity, item)
	if data, contentType := et.Stream(); data != nil {
		o := g.operation(es.Name+".getValue", tag, "Read the media value of a "+et.Name,
			"The bytes, with the content type the entity's "+contentType.Name+" holds.")
		g.paths.set(entity+"/$value", &pathItem{Parameters: params, Get: responses(o, response("200",
			"The media value.", newObject().set("*/*", newObject().set("schema", Schema{"type": "string", "format": "binary"}))))})
	}
	g.boundActions(entity, params, et, false, tag, es.Name)
	g.boundFunctions(entity, params, et, false, tag, es.Name)
	for _, n := range et.Navigations {
		g.navigationPaths(entity, params, n, 1, tag, es.Name)
	}
}

// singletonPaths adds the paths of a singleton: the entity and its navigations (read-only).
func (g *docBuilder) singletonPaths(sg *edm.Singleton) {
	et := sg.EntityType()
	base := g.svc.Mount + "/" + sg.Name
	item := &pathItem{Get: g.getOperation(sg.Name+".get", sg.Name, sg.Name, et, &Set{}, false)}
	writes := g.svc.Singletons[sg.Name]
	if writes.Put {
		item.Put = g.writeOperation(sg.Name, et, "replace", "Replace", "the "+sg.Name+" in full: omitted properties take their defaults; the key and read-only properties are kept.", "-create")
	}
	if writes.Patch {
		item.Patch = g.writeOperation(sg.Name, et, "update", "Update", "the properties of the "+sg.Name+" that the body holds.", "-update")
	}
	g.paths.set(base, item)
	for _, n := range et.Navigations {
		g.navigationPaths(base, nil, n, 1, sg.Name, sg.Name)
	}
}

// navigationPaths adds the read paths of a navigation from the entity at prefix (with its key parameters
// params): to-one, the related entity; to-many, the collection, its /$count and, for contained entities (which
// have no entity set of their own), one entity by key and its navigations.
func (g *docBuilder) navigationPaths(prefix string, params []any, n *edm.NavigationProperty, level int, tag, id string) {
	path := prefix + "/" + n.Name
	id += "." + n.Name
	target := n.TargetType()
	r := g.readRestrictions(g.navigationSet(n))
	if !n.Collection {
		g.paths.set(path, &pathItem{Parameters: params,
			Get: g.getOperation(id+".get", tag, "the "+n.Name+" of a "+n.SourceType().Name, target, r, n.Nullable)})
		if n.ContainsTarget && level < 3 {
			for _, next := range target.Navigations {
				g.navigationPaths(path, params, next, level+1, tag, id)
			}
		}
		return
	}
	what := "the " + n.Name + " of a " + n.SourceType().Name
	g.paths.set(path, &pathItem{Parameters: params, Get: g.listOperation(id+".list", tag, what, target, r)})
	if !r.NoCount {
		g.paths.set(path+"/$count", &pathItem{Parameters: params, Get: g.countOperation(id+".count", tag, what, target, r)})
	}
	if !n.ContainsTarget || level >= 3 {
		return
	}
	key, keyParams := g.keyTemplate(target, level)
	all := append(append([]any{}, params...), keyParams...)
	g.paths.set(path+key, &pathItem{Parameters: all,
		Get: g.getOperation(id+".get", tag, "one of "+what, target, r, false)})
	for _, next := range target.Navigations {
		g.navigationPaths(path+key, all, next, level+1, tag, id)
	}
}

// createOperation is POST to an entity set: a create, or with the UpsertBy value of an existing entity a full
// update.
func (g *docBuilder) createOperation(es *edm.EntitySet, set *Set) *jsObject {
	et := es.EntityType()
	description := "Omitted properties take their defaults; computed ones are ignored."
	if set.UpsertBy != nil {
		description += " A body whose " + set.UpsertBy.Name + " names an existing entity replaces it in full (200)."
	}
	o := g.operation(es.Name+".create", es.Name, "Create a "+et.Name, description)
	o.set("requestBody", newObject().set("required", true).set("content", jsonContent(g.ref(et.Name+"-create"))))
	url := func(description string) *jsObject {
		return newObject().set("description", description).set("schema", Schema{"type": "string", "format": "uri"})
	}
	list := []namedParameter{{"201", newObject().set("description", "Created: the entity, with its ETag.").
		set("headers", newObject().set("Location", url("The entity's URL."))).
		set("content", jsonContent(g.ref(et.Name)))}}
	if set.UpsertBy != nil {
		list = append(list, response("200", "Replaced: the entity, with its ETag.", jsonContent(g.ref(et.Name))))
	}
	list = append(list, namedParameter{"204", newObject().set("description", "Stored, with Prefer: return=minimal.").
		set("headers", newObject().
			set("Location", url("The URL of the entity created (not sent for a replace).")).
			set("OData-EntityId", url("The entity's URL.")))})
	return responses(o, list...)
}

// deleteStatus is the status of a successful DELETE.
func (g *docBuilder) deleteStatus() int {
	if g.svc.DeleteStatus == 0 {
		return http.StatusNoContent
	}
	return g.svc.DeleteStatus
}

// keyRule says what becomes of the values of the key and immutable properties a full replace sends.
func keyRule(set *Set) string {
	if set.RejectKeyChange {
		return "The key and immutable properties, when sent, must hold the entity's values."
	}
	return "Values sent for the key and for read-only and immutable properties are ignored."
}

// writeOperation is PUT (schema "-create") or PATCH ("-update") on an entity of the set or singleton name.
func (g *docBuilder) writeOperation(name string, et *edm.EntityType, id, verb, what, schema string) *jsObject {
	o := g.operation(name+"."+id, name, verb+" a "+et.Name, verb+" "+what)
	withParameters(o, paramRef("If-Match"))
	o.set("requestBody", newObject().set("required", true).set("content", jsonContent(g.ref(et.Name+schema))))
	return responses(o, response("200", "The entity as stored, with its ETag.", jsonContent(g.ref(et.Name))),
		response("204", "Stored, with Prefer: return=minimal.", nil))
}

// boundActions adds the actions bound to et (collection: to a collection of et) at prefix.
func (g *docBuilder) boundActions(prefix string, params []any, et *edm.EntityType, collection bool, tag, id string) {
	for _, a := range g.m.Actions {
		if !a.Bound || a.Binding() != et || a.BindingCollection != collection {
			continue
		}
		o := g.actionOperation(a, id+"."+a.Name, tag)
		if !collection {
			withParameters(o, paramRef("If-Match"))
		}
		g.paths.set(prefix+"/"+g.m.Namespace+"."+a.Name, &pathItem{Parameters: params, Post: o})
	}
}

// actionImports adds the unbound actions at the service root and reports whether there are any.
func (g *docBuilder) actionImports() bool {
	found := false
	for _, a := range g.m.Actions {
		if !a.Bound {
			found = true
			g.paths.set(g.svc.Mount+"/"+a.Name, &pathItem{Post: g.actionOperation(a, a.Name, "Actions")})
		}
	}
	return found
}

// actionOperation is the POST of an action: its parameters as a JSON object, its result.
func (g *docBuilder) actionOperation(a *edm.Action, id, tag string) *jsObject {
	o := g.operation(id, tag, firstText(a.Description, "Invoke "+a.Name), "")
	if a.Description != "" {
		o.set("summary", a.Name+": "+a.Description)
	}
	props := newObject()
	var required []string
	for _, p := range a.Parameters {
		var s *jsObject
		if et := p.EntityType(); et != nil {
			s = g.ref(et.Name)
		} else {
			s = g.valueSchema(p.Type, p.Enum, p.Complex, p.MaxLength, p.Precision, p.Scale, p.Nullable)
		}
		if p.Collection {
			s = newObject().set("type", "array").set("items", s)
		}
		desc := p.Description
		if len(p.Aliases) > 0 {
			desc = joinSentences(desc, "Also accepted as "+strings.Join(p.Aliases, ", ")+".")
		}
		props.set(p.Name, describe(s, desc))
		if p.Required {
			required = append(required, p.Name)
		}
	}
	body := newObject().set("type", "object").set("properties", props)
	if len(required) > 0 {
		body.set("required", required)
	}
	o.set("requestBody", newObject().set("description", "The parameters ({} when there are none).").
		set("required", len(required) > 0).set("content", jsonContent(body)))
	return responses(o, g.operationResult(a.ReturnType)...)
}

// boundFunctions adds the functions bound to et (collection: to a collection of et) at prefix.
func (g *docBuilder) boundFunctions(prefix string, params []any, et *edm.EntityType, collection bool, tag, id string) {
	for _, f := range g.m.Functions {
		if f.Bound && f.Binding() == et && f.BindingCollection == collection {
			path, o := g.functionOperation(f, id+"."+f.Name, tag)
			g.paths.set(prefix+"/"+g.m.Namespace+"."+path, &pathItem{Parameters: params, Get: o})
		}
	}
}

// functionImports adds the unbound functions at the service root and reports whether there are any.
func (g *docBuilder) functionImports() bool {
	found := false
	for _, f := range g.m.Functions {
		if !f.Bound {
			found = true
			path, o := g.functionOperation(f, f.Name, "Functions")
			g.paths.set(g.svc.Mount+"/"+path, &pathItem{Get: o})
		}
	}
	return found
}

// functionOperation is the GET of a function overload, and its path after the binding: the name with its
// required parameters as aliases, Fn(Id=@Id), each alias a query parameter holding a URL literal. Optional
// parameters are named in the description.
func (g *docBuilder) functionOperation(f *edm.Function, id, tag string) (string, *jsObject) {
	var names, optional []string
	for _, p := range f.Parameters {
		if p.Required {
			names = append(names, p.Name+"=@"+p.Name)
			id += "_" + p.Name
		} else {
			optional = append(optional, p.Name)
		}
	}
	o := g.operation(id, tag, firstText(f.Description, "Call "+f.Name), "")
	if len(optional) > 0 {
		o.set("description", joinSentences(f.Description, "Optional parameters, added inside the parentheses as name=value: "+strings.Join(optional, ", ")+"."))
	}
	for _, p := range f.Parameters {
		if !p.Required {
			continue
		}
		s := g.valueSchema(p.Type, p.Enum, p.Complex, p.MaxLength, p.Precision, p.Scale, p.Nullable)
		desc := p.Description
		if p.Type == edm.KindString || p.Enum != nil {
			s = newObject().set("type", "string")
			desc = joinSentences(desc, "A URL literal: the text in single quotes, with quotes doubled.")
		}
		withParameters(o, describe(newObject().set("name", "@"+p.Name).set("in", "query").set("required", true).set("schema", s), desc))
	}
	return f.Name + "(" + strings.Join(names, ",") + ")", responses(o, g.operationResult(f.ReturnType)...)
}

// operationResult is the success answer of an action or function with the return type rt.
func (g *docBuilder) operationResult(rt *edm.ReturnType) []namedParameter {
	if rt == nil {
		return []namedParameter{response("204", "Done.", nil)}
	}
	var item *jsObject
	if et := rt.EntityType(); et != nil {
		item = g.ref(et.Name)
	} else {
		item = g.valueSchema(rt.Type, rt.Enum, rt.Complex, rt.MaxLength, rt.Precision, rt.Scale, rt.Nullable)
	}
	var body *jsObject
	switch {
	case rt.Collection:
		body = valueWrapper(newObject().set("type", "array").set("items", item))
	case rt.EntityType() != nil || rt.Complex != nil:
		body = item
	default:
		body = valueWrapper(item)
	}
	list := []namedParameter{response("200", "The result.", jsonContent(body))}
	if rt.Nullable {
		list = append(list, response("204", "The result is null.", nil))
	}
	return list
}

// valueWrapper is the object an OData answer wraps a value or a collection in.
func valueWrapper(value *jsObject) *jsObject {
	return newObject().set("type", "object").set("properties", newObject().
		set("@odata.context", Schema{"type": "string", "format": "uri"}).set("value", value))
}

// servicePaths adds the service document and $metadata.
func (g *docBuilder) servicePaths() {
	o := g.operation("serviceDocument", serviceTag, "List the entity sets", "The OData service document.")
	doc := newObject().set("type", "object").set("properties", newObject().
		set("@odata.context", Schema{"type": "string", "format": "uri"}).
		set("value", newObject().set("type", "array").set("items", newObject().set("type", "object").
			set("properties", newObject().set("name", Schema{"type": "string"}).
				set("kind", Schema{"type": "string", "enum": []string{"EntitySet", "Singleton", "FunctionImport"}}).
				set("url", Schema{"type": "string"})))))
	g.paths.set(g.svc.Mount+"/", &pathItem{Get: responses(o, response("200", "The service document.", jsonContent(doc)))})
	o = g.operation("metadata", serviceTag, "Read the model (CSDL)",
		"CSDL XML, or CSDL JSON with $format=json or Accept: application/json.")
	withParameters(o, newObject().set("name", "$format").set("in", "query").set("schema",
		Schema{"type": "string", "enum": []string{"xml", "json"}}))
	g.paths.set(g.svc.Mount+"/$metadata", &pathItem{Get: responses(o, response("200", "The model.",
		newObject().set("application/xml", newObject().set("schema", Schema{"type": "string"})).
			set("application/json", newObject().set("schema", Schema{"type": "object"}))))})
	g.batchPath()
}

// batchPath adds POST $batch: its bodies are described by the OData formats, not by schemas here.
func (g *docBuilder) batchPath() {
	limit := ""
	if g.svc.BatchRequests > 0 {
		limit = "at most " + strconv.Itoa(g.svc.BatchRequests) + " "
	}
	o := g.operation("batch", serviceTag, "Send a batch of requests",
		"A JSON batch (OData 4.01) or a multipart/mixed batch of "+limit+
			"requests; each atomicity group (change set) runs in one transaction.")
	content := newObject().set("application/json", newObject().set("schema", Schema{"type": "object"})).
		set("multipart/mixed", newObject().set("schema", Schema{"type": "string"}))
	o.set("requestBody", newObject().set("required", true).set("content", content))
	g.paths.set(g.svc.Mount+"/$batch", &pathItem{Post: responses(o, response("200",
		"One response per request processed, in the format of the request.", content))})
}

// extraOperations adds the embedding program's operations.
func (g *docBuilder) extraOperations(ops []Operation) {
	for _, op := range ops {
		item, _ := g.paths.get(op.Path).(*pathItem)
		if item == nil {
			item = &pathItem{}
			g.paths.set(op.Path, item)
		} else if item.method(op.Method) != nil {
			g.fail("Operations: %s %s is an operation of the OData service", op.Method, op.Path)
			continue
		}
		o := newObject()
		if op.OperationID != "" {
			o.set("operationId", g.uniqueID(op.OperationID))
		}
		if len(op.Tags) > 0 {
			o.set("tags", op.Tags)
		}
		if op.Summary != "" {
			o.set("summary", op.Summary)
		}
		describe(o, joinSentences(op.Description, securityNote(op.Security)))
		g.extraParameters(o, op)
		if rb := op.RequestBody; rb != nil {
			body := newObject()
			describe(body, rb.Description)
			body.set("required", rb.Required)
			content := newObject()
			for _, mt := range sortedKeys(rb.Content) {
				content.set(mt, newObject().set("schema", rb.Content[mt]))
			}
			o.set("requestBody", body.set("content", content))
		}
		o.set("responses", extraResponses(op.Responses))
		if op.Security != nil {
			requirements := make([]any, len(op.Security))
			for i, r := range op.Security {
				requirements[i] = r
			}
			o.set("security", requirements)
		}
		setMethod(item, op.Method, o)
	}
}

func (g *docBuilder) extraParameters(o *jsObject, op Operation) {
	var params []any
	for _, p := range op.Parameters {
		s := p.Schema
		if s == nil {
			s = Schema{"type": "string"}
		}
		po := newObject().set("name", p.Name).set("in", p.In)
		describe(po, p.Description)
		if p.Required || p.In == "path" {
			po.set("required", true)
		}
		params = append(params, po.set("schema", s))
	}
	if len(params) > 0 {
		o.set("parameters", params)
	}
}

// extraResponses writes an operation's responses; one from status 400 on without a schema has the error body.
func extraResponses(list []Response) *jsObject {
	r := newObject()
	for _, resp := range list {
		ro := newObject().set("description", firstText(resp.Description, http.StatusText(atoi(resp.Status))))
		if len(resp.Headers) > 0 {
			h := newObject()
			for _, name := range sortedKeys(resp.Headers) {
				h.set(name, newObject().set("description", resp.Headers[name]).set("schema", Schema{"type": "string"}))
			}
			ro.set("headers", h)
		}
		switch {
		case resp.Schema != nil:
			ct := firstText(resp.ContentType, "application/json")
			ro.set("content", newObject().set(ct, newObject().set("schema", resp.Schema)))
		case resp.Status >= "4":
			ro.set("content", jsonContent(newObject().set("$ref", "#/components/schemas/error")))
		}
		r.set(resp.Status, ro)
	}
	return r
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// method returns the operation of a method, nil when there is none.
func (item *pathItem) method(method string) *jsObject {
	switch strings.ToUpper(method) {
	case http.MethodGet:
		return item.Get
	case http.MethodPut:
		return item.Put
	case http.MethodPost:
		return item.Post
	case http.MethodPatch:
		return item.Patch
	case http.MethodDelete:
		return item.Delete
	case http.MethodHead:
		return item.Head
	case http.MethodOptions:
		return item.Options
	case http.MethodTrace:
		return item.Trace
	}
	return nil
}

// setMethod puts an operation into a path item under its method.
func setMethod(item *pathItem, method string, o *jsObject) {
	switch strings.ToUpper(method) {
	case http.MethodGet:
		item.Get = o
	case http.MethodPut:
		item.Put = o
	case http.MethodPost:
		item.Post = o
	case http.MethodPatch:
		item.Patch = o
	case http.MethodDelete:
		item.Delete = o
	case http.MethodHead:
		item.Head = o
	case http.MethodOptions:
		item.Options = o
	case http.MethodTrace:
		item.Trace = o
	}
}

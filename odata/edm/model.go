// Package edm describes the entity data model an OData service serves: entity types mapped to tables, their
// properties mapped to columns, keys, navigation properties with the joins behind them, enum and complex types,
// entity sets, singletons, actions and functions. It writes the model as CSDL XML and CSDL JSON ($metadata).
//
// A model is declared as plain Go values and then built once:
//
//	m := &edm.Model{Namespace: "Store", EntityTypes: ..., EntitySets: ...}
//	if err := m.Build(); err != nil { ... } // every wrong declaration, joined
//
// Build fills in defaults in place (table and column names, join columns, side tables), resolves names to
// pointers and builds the lookup indexes. After Build the model must not be changed; it is then safe for
// concurrent use, and its lookups (EntitySet, EntityType.Property, Model.Action, ...) run in constant time
// without allocating.
//
// The package holds no SQL beyond table and column names and the optional read-only SQL expression of a
// computed property.
//
// # Tables and columns
//
// A model maps onto existing tables or onto the tables odata/schema creates from it, by these conventions;
// every name can be declared instead, so a model can describe tables another program made:
//
//   - An entity type is a table: EntityType.Table, by default the snake_case of its name (SnakeCase:
//     CustomerRole -> customer_role). A type derived from another (EntityType.BaseType) has no table of its own:
//     a hierarchy is one table, its root's, with a column per property of every type of it and a discriminator
//     column (EntityType.DiscriminatorColumn, "odata_type") holding each row's qualified type name.
//   - A primitive or enum property is a column: Property.Column, by default the snake_case of its name
//     (SeName -> se_name). An enum is stored as its member's integer value. A property with SQL has no column.
//   - A complex property P is a column per member, "<P column>_<member column>" (address_city), nested members
//     likewise.
//   - A collection property is a side table (CollectionTable): "<entity table>_<property column>" with the
//     owner's key columns "<entity table>_<key column>", "value" and "ordinal".
//   - A to-one navigation names its foreign key columns (Join.SourceColumns); they refer to the target's key
//     columns unless Join.TargetColumns says otherwise. A to-many navigation names the target's columns that
//     refer to the source (Join.TargetColumns), which refer to the source's key columns by default. A
//     many-to-many navigation goes through a LinkTable whose columns equal the two keys (or the join's columns).
//   - A key the database generates (Property.Generated) is an integer primary key or an identity column, or a
//     UUID default.
//
// Column types follow the kind, as odata/schema declares and checks them (TEXT, INTEGER, REAL and BLOB on
// SQLite; TEXT COLLATE "C", BOOLEAN, SMALLINT to BIGINT, NUMERIC(p,s), DOUBLE PRECISION, DATE, TIME, TIMESTAMPTZ,
// UUID and BYTEA on PostgreSQL; see odata/schema). A Decimal property says how its column keeps values in
// DecimalStorage: a scaled integer (value x 10^Scale, SQLite's default up to 19 digits), an exact decimal
// (PostgreSQL's NUMERIC, the default there; on SQLite text under an exact decimal collation, the default beyond 19
// digits) or a floating-point number. A DateTimeOffset or TimeOfDay property says so in TimeStorage: the
// database's own form, SQL's date and time text without a zone read as UTC (SQLite DATETIME, PostgreSQL
// timestamp without time zone) or whole seconds since 1970. odata.NewService reads from each column's declared
// type which form a table another program made holds (odata/schema.Adapt).
//
// # Entity types from Go structs
//
// EntityTypesOf derives the entity types of a model from Go struct types instead, one per struct, named as
// the Go type; the declarations are those a literal model would have, so both give the same CSDL and tables:
//
//	type Book struct {
//		Id       int64            `odata:",key,generated"`
//		Title    string           `odata:",maxlength=200,required,searchable"`
//		Price    *decimal.Decimal `odata:",precision=10,scale=2"`
//		AuthorId string           `odata:",required"`
//		Author   *Author          `odata:",fk=AuthorId,partner=Books"`
//	}
//	types, err := edm.EntityTypesOf(Author{}, Book{})
//	m := &edm.Model{Namespace: "Library", EntityTypes: types, EntitySets: ...}
//
// Every exported field is a property (or a navigation) named as the field; the fields of an embedded struct
// without a tag count as the outer struct's. A field's tag `odata:"Name,option,option=value"` renames it
// (an empty name keeps the field's), and `odata:"-"` leaves it out. The Go type gives the kind:
//
//	string                      Edm.String (type=Guid: Edm.Guid)
//	bool                        Edm.Boolean
//	int8, int16, int32          Edm.SByte, Edm.Int16, Edm.Int32
//	int64, int                  Edm.Int64 (type=Int32, Int16, SByte or Byte: a narrower integer)
//	uint8                       Edm.Byte (other unsigned integers have no EDM type)
//	float32, float64            Edm.Single, Edm.Double
//	decimal.Decimal             Edm.Decimal (shopspring/decimal; precision= is required)
//	edm.Date, edm.TimeOfDay     Edm.Date, Edm.TimeOfDay
//	time.Time, time.Duration    Edm.DateTimeOffset, Edm.Duration
//	[]byte                      Edm.Binary (type=Stream: Edm.Stream)
//	an integer type with an     the enum type its EnumType method returns (GoEnum)
//	EnumType method
//	*T                          T, nullable
//	[]T, []*T                   a collection of T (primitive or enum), of nullable items for []*T
//	another struct S, *S        a complex property of the complex type S derived from S's fields (nullable for *S)
//
// The options of a property, with the field of the declarations each sets as a literal model would (a tag
// spells an option in lower case, sometimes shorter than the Go name: storage= sets DecimalStorage or
// TimeStorage):
//
//	key              EntityType.Key           part of the key (the key fields in field order)
//	generated        Property.Generated       a key the database generates
//	readonly         Property.ReadOnly
//	immutable        Property.Immutable
//	required         Property.Required
//	searchable       Property.Searchable
//	lazy             Property.Lazy
//	nullable         Property.Nullable        for []byte (nil is null); other types are nullable as pointers
//	stdbase64        Property.StandardBase64
//	maxlength=N      Property.MaxLength
//	precision=N      Property.Precision
//	scale=N          Property.Scale
//	storage=S        Property.DecimalStorage or TimeStorage
//	                                          of a Decimal: auto, scaled, exact or float (DecimalAuto, ...);
//	                                          of a DateTimeOffset or TimeOfDay: auto, sql or unix (TimeAuto, ...)
//	default=V        Property.Default         the literal form of the kind without quotes (9.99, true,
//	                                          2026-01-02, 2026-01-02T03:04:05Z, PT1H, an enum member's name); no
//	                                          commas
//	column=C         Property.Column          by default the snake_case of the property's name
//	type=K           Property.Type            another kind whose Go values the field holds (Guid for a string,
//	                                          Int32 for an int64, Stream for []byte)
//	description=text Property.Description     the rest of the tag, commas included
//
// Without a key option, a field named ID (in any case) is the key, generated by the database when it is an
// integer (tag another field key, or tag ID key alone, to give keys in requests).
//
// A field of an entity struct of the same call is a navigation property, to-one for S or *S, to-many for []S or
// []*S. Without a tag naming its join, the foreign key is found by name: for a to-one navigation Team, the
// source's property TeamID; for a to-many navigation in Team, the target's property TeamID (any case of "ID"
// in both). A tag gives the Join a literal model declares instead:
//
//	fk=P             Join.SourceColumns or TargetColumns  the properties (P;Q for several) whose columns hold
//	                                                      the foreign key: the source's for a to-one navigation
//	                                                      (SourceColumns), the target's for a to-many one
//	fkcolumns=c      Join.SourceColumns or TargetColumns  the same by column names (c;d), for columns without
//	                                                      a property
//	link=T           Join.Through                         many-to-many through the link table T, whose columns
//	                                                      default to "<table>_<key column>" of both sides
//	linksource=c     LinkTable.SourceColumns              the link table's columns (c;d) when they differ from
//	linktarget=c     LinkTable.TargetColumns              the defaults
//	partner=N        NavigationProperty.Partner
//	nullable         NavigationProperty.Nullable          to-one only
//	contains         NavigationProperty.ContainsTarget
//	description=text NavigationProperty.Description
//	hierarchy=Q      EntityType.RecursiveHierarchies      the navigation leads to the parent in the recursive
//	                                                      hierarchy Q, whose node property is the key
//
// An unknown option is an error that names the option meant when it is spelt as the field it sets
// (DecimalStorage=float: did you mean storage=), in another case or with a typo.
//
// Wrong declarations (an unknown option, a Go type without an EDM type, a foreign key property that does not
// exist) are reported by EntityTypesOf all at once, each naming its struct and field; Build then checks the
// declarations as it checks literal ones. What tags do not say (a table name, SQL, a collection's side table,
// RequiredMessage) is set on the returned declarations before Build. odata's EntityOf, Entity.Decode, GetAs,
// QueryAs, Tx.InsertStruct and Tx.UpdateStruct read and write entities as the same structs.
package edm

import (
	"fmt"
	"slices"
	"strings"
)

// Model is an entity data model: one schema (namespace) with its entity container.
type Model struct {
	// Namespace is the schema namespace, such as "Store". Edm, odata, System and Transient are reserved.
	Namespace string
	// Container is the name of the entity container; "Container" when empty.
	Container string
	// Description is emitted as a Core.Description annotation on the entity container.
	Description string

	// EntityTypes, ComplexTypes and EnumTypes are the schema's types in declaration order. Enum and complex
	// types that properties or parameters refer to are added by Build when they are not listed.
	EntityTypes  []*EntityType
	ComplexTypes []*ComplexType
	EnumTypes    []*EnumType

	// EntitySets and Singletons are the entity container's children.
	EntitySets []*EntitySet
	Singletons []*Singleton

	// Actions and Functions are the schema's operations; bound operations may be overloaded (same name,
	// different binding). Unbound operations get an action or function import in the container.
	Actions   []*Action
	Functions []*Function

	// Authorizations are the authentication schemes of the service, emitted as the container annotations
	// Org.OData.Authorization.V1.Authorizations and SecuritySchemes (each scheme is sufficient on its own).
	Authorizations []Authorization

	// Annotations apply vocabulary terms to the model's elements (see Annotations); Vocabularies lists the
	// vocabularies other than the OASIS ones their terms come from.
	Annotations  []Annotations
	Vocabularies []Vocabulary

	built          bool
	entityTypes    index[*EntityType]
	complexTypes   index[*ComplexType]
	enumTypes      index[*EnumType]
	entitySets     index[*EntitySet]
	singletons     index[*Singleton]
	actions        index[int] // name -> position in actionGroups
	functions      index[int] // name -> position in functionGroups
	actionGroups   [][]*Action
	functionGroups [][]*Function
}

// Authorization is an HTTP authentication scheme (RFC 7235) the service accepts, such as a bearer token. It
// becomes a record of type Org.OData.Authorization.V1.Http, from which OpenAPI converters derive a security
// scheme.
type Authorization struct {
	// Name identifies the scheme, such as "Bearer".
	Name string
	// Description says how to obtain credentials.
	Description string
	// Scheme is the HTTP authentication scheme, such as "bearer" or "basic".
	Scheme string
	// BearerFormat optionally hints at the token format, such as "JWT".
	BearerFormat string
}

// EntityType is an entity type stored in a table.
type EntityType struct {
	// Name is the simple name; the qualified name is "<namespace>.<Name>".
	Name string
	// Table is the table name; SnakeCase(Name) when empty.
	Table string
	// Key names the key properties (one, or several for a composite key), in key order.
	Key []string
	// Properties are the structural properties in declaration order.
	Properties []*Property
	// Navigations are the navigation properties in declaration order.
	Navigations []*NavigationProperty
	// HasStream marks a media entity: its StreamProperty holds the bytes served as the entity's $value, with
	// the content type held by ContentTypeProperty.
	HasStream           bool
	StreamProperty      string
	ContentTypeProperty string
	// ETag names the properties an entity's ETag is computed over; all non-lazy properties when empty.
	ETag []string
	// Description is emitted as a Core.Description annotation.
	Description string

	// BaseType names the entity type this one derives from (simple or qualified name; "" for none). A derived
	// type inherits its base's key, properties, navigations, ETag and media stream, and declares only what it
	// adds: no Key, ETag or Table of its own. Its rows live in the table of the root of its hierarchy (table per
	// hierarchy), whose discriminator column (DiscriminatorColumn) holds each row's qualified type name.
	BaseType string
	// Abstract marks a type that has no instances of its own: only its derived types are created.
	Abstract bool
	// DiscriminatorColumn is, on the root of a hierarchy with derived types, the column of its table that holds
	// each row's qualified type name; "odata_type" when empty. Only a root declares it.
	DiscriminatorColumn string
	// RecursiveHierarchies are the trees the type's entities form through a parent navigation (see
	// RecursiveHierarchy), which $apply's ancestors, descendants and traverse walk.
	RecursiveHierarchies []RecursiveHierarchy

	key             []*Property
	etag            []*Property
	rowVersion      *Property
	propertyIndex   index[*Property]
	navigationIndex index[*NavigationProperty]
	stream          *Property
	contentType     *Property
	sets            []*EntitySet

	// The hierarchy: base and derived types (the direct ones, in declaration order), the number of
	// properties and navigations at the front of Properties and Navigations that are inherited, and the
	// declarations as written, restored when a Build fails.
	base          *EntityType
	derived       []*EntityType
	inherited     int
	inheritedNavs int
	declared      *entityDeclaration
}

// entityDeclaration keeps what Build changes in a derived type's declaration, to restore it when Build fails.
type entityDeclaration struct {
	properties  []*Property
	navigations []*NavigationProperty
	key, etag   []string
	table       string
	stream      [3]string
	hasStream   bool
}

// DefaultDiscriminatorColumn is the discriminator column of a hierarchy whose root declares none.
const DefaultDiscriminatorColumn = "odata_type"

// Base returns the type this one derives from; nil for a type without a base.
func (t *EntityType) Base() *EntityType { return t.base }

// Root returns the root of the type's hierarchy: the type itself when it has no base.
func (t *EntityType) Root() *EntityType {
	for t.base != nil {
		t = t.base
	}
	return t
}

// DerivedTypes returns the types derived from t, directly or not, in depth-first declaration order; nil when
// there is none.
func (t *EntityType) DerivedTypes() []*EntityType {
	var out []*EntityType
	var walk func(u *EntityType)
	walk = func(u *EntityType) {
		for _, d := range u.derived {
			out = append(out, d)
			walk(d)
		}
	}
	walk(t)
	return out
}

// IsA reports whether t is u or derives from u.
func (t *EntityType) IsA(u *EntityType) bool {
	for ; t != nil; t = t.base {
		if t == u {
			return true
		}
	}
	return false
}

// Polymorphic reports whether the type's hierarchy has more than one type: its table then has a discriminator
// column.
func (t *EntityType) Polymorphic() bool {
	root := t.Root()
	return len(root.derived) > 0
}

// Discriminator returns the column of the hierarchy's table that holds each row's qualified type name; "" when
// the hierarchy is the type alone.
func (t *EntityType) Discriminator() string {
	root := t.Root()
	if len(root.derived) == 0 {
		return ""
	}
	return root.DiscriminatorColumn
}

// DeclaredProperties returns the properties the type declares itself (Properties without the inherited ones).
func (t *EntityType) DeclaredProperties() []*Property { return t.Properties[t.inherited:] }

// DeclaredNavigations returns the navigation properties the type declares itself.
func (t *EntityType) DeclaredNavigations() []*NavigationProperty {
	return t.Navigations[t.inheritedNavs:]
}

// HierarchyProperties returns the properties of t and, after them, those its derived types declare, in the
// order of DerivedTypes: every property an instance of t (of t or of a derived type) may have.
func (t *EntityType) HierarchyProperties() []*Property {
	derived := t.DerivedTypes()
	if len(derived) == 0 {
		return t.Properties
	}
	out := slices.Clip(t.Properties)
	for _, d := range derived {
		out = append(out, d.DeclaredProperties()...)
	}
	return out
}

// KeyProperties returns the key properties in key order.
func (t *EntityType) KeyProperties() []*Property { return t.key }

// ETagProperties returns the properties the ETag is computed over, in declaration order: the declared ETag
// properties, else every property that is not lazy or a stream; the row version alone when the type has one
// (RowVersion).
func (t *EntityType) ETagProperties() []*Property { return t.etag }

// RowVersionColumn is the column of the row version that odata/schema gives the table of an entity type without
// declared ETag properties: an integer the database changes with every change of the row (odata/DESIGN.md,
// "ETags and row versions").
const RowVersionColumn = "row_version"

// RowVersionName is the name under which an entity read by the engine holds its row version (an int64); it is
// no property of the type and no client sees it.
const RowVersionName = "@rowVersion"

// RowVersion returns the row version of t, nil when its ETag comes from properties: a property of no
// declaration (Name RowVersionName, an Int64 in column RowVersionColumn) that only reads and ETags know.
func (t *EntityType) RowVersion() *Property { return t.rowVersion }

// UseRowVersion makes the ETag of t, the root of its hierarchy, and of the types derived from it come from the
// integer column named column alone, a row version the database changes with every change of a row (the
// trigger odata/schema creates with the column). schema.Adapt calls it at start-up for a type without declared
// ETag properties whose table has them. It does nothing for a derived type or one with declared ETag properties.
func (t *EntityType) UseRowVersion(column string) {
	if t.base != nil || len(t.ETag) > 0 {
		return
	}
	t.rowVersion = &Property{Name: RowVersionName, Column: column, Type: KindInt64}
	t.etag = []*Property{t.rowVersion}
	for _, d := range t.DerivedTypes() {
		d.rowVersion, d.etag = t.rowVersion, t.etag
	}
}

// Property returns the structural property with the given name: the exact name, else the one property whose
// name matches case-insensitively; nil if there is none.
func (t *EntityType) Property(name string) *Property {
	p, _ := t.propertyIndex.get(name)
	return p
}

// Navigation returns the navigation property with the given name: the exact name, else the one navigation
// property whose name matches case-insensitively; nil if there is none.
func (t *EntityType) Navigation(name string) *NavigationProperty {
	n, _ := t.navigationIndex.get(name)
	return n
}

// Stream returns the properties that hold a media entity's bytes and content type; nil for other types.
func (t *EntityType) Stream() (data, contentType *Property) { return t.stream, t.contentType }

// Property is a structural property: a primitive, enum or complex value, or a collection of primitive or enum
// values. Exactly one of Type, Enum and Complex is set.
type Property struct {
	// Name is the property name as clients see it.
	Name string
	// Column is the column name; SnakeCase(Name) when empty. For a complex property it is the prefix of its
	// members' columns: member M of property P is stored in column "<P column>_<M column>" (see Property).
	// Empty after Build for a property computed by SQL.
	Column string
	// Type is the primitive kind; KindNone for enum and complex properties.
	Type Kind
	// Enum is the enum type of an enum property.
	Enum *EnumType
	// Complex is the complex type of a complex property.
	Complex *ComplexType
	// Collection marks a collection of primitive or enum values, stored in the side table CollectionTable.
	Collection bool
	// CollectionTable is the side table of a collection property; Build fills in defaults.
	CollectionTable *CollectionTable
	// Nullable allows null (for a collection: null items).
	Nullable bool
	// MaxLength limits String (characters) and Binary (bytes) values; 0 means no limit.
	MaxLength int
	// Precision is the number of significant digits of a Decimal (required), or of fractional-second digits of
	// a DateTimeOffset, TimeOfDay or Duration (0 to 6; 0 means 6, the storage precision).
	Precision int
	// Scale is the number of digits after the decimal point of a Decimal (0 to Precision).
	Scale int
	// DecimalStorage says how the column of a Decimal stores its values (see DecimalStorage); DecimalAuto, the
	// zero value, is the database's own way. A struct tag sets it as storage=auto, scaled, exact or float.
	DecimalStorage DecimalStorage
	// TimeStorage says how the column of a DateTimeOffset or TimeOfDay stores its values (see TimeStorage);
	// TimeAuto, the zero value, is the database's own way or, at odata.NewService, the form the column's
	// declared type says.
	TimeStorage TimeStorage
	// Default is the value a create uses when the field is omitted, as the Go value of the property's type
	// (see Kind); an enum default may also be given as a member name. Build converts integer defaults to int64
	// and float defaults to float64.
	Default any
	// ReadOnly marks a value computed by the server (Core.Computed): clients cannot set it.
	ReadOnly bool
	// Generated marks a key whose values the database generates when a row is inserted without one: the single
	// key property of its entity type, of type Int32, Int64 or Guid. The table declares how (odata/schema:
	// INTEGER PRIMARY KEY AUTOINCREMENT or a random UUID default on SQLite, an identity column or
	// gen_random_uuid() on PostgreSQL); a create leaves the column out and reads the value back. Clients cannot
	// set it: Build makes the property ReadOnly (Core.Computed).
	Generated bool
	// Immutable marks a value set on create only (Core.Immutable).
	Immutable bool
	// StandardBase64 writes a Binary value in JSON answers in standard base64 (RFC 4648 section 4, "+" and "/")
	// instead of OData's base64url, for services whose clients were promised it; bodies are read in either.
	StandardBase64 bool
	// Required makes a create or full update without a value fail with RequiredMessage (or a generic one).
	Required        bool
	RequiredMessage string
	// Searchable makes $search match this String property: its words, through the full-text index of the type's
	// searchable properties where the database has one (odata/schema.Create), else a contains over it.
	Searchable bool
	// Lazy leaves the property out of the default projection: it is returned only when $select-ed.
	Lazy bool
	// SQL is an optional read-only SQL expression computing the value instead of a column. "{{.}}" stands for
	// the alias (or quoted name) of the entity's table, as in "{{.}}.password_hash IS NOT NULL"; see ExpandSQL.
	// A property with SQL is read-only.
	SQL string
	// Description is emitted as a Core.Description annotation.
	Description string

	isKey    bool
	sqlParts []string // SQL split at the placeholders
	members  index[*Property]
	fields   []*Property
}

// DecimalStorage is how the column of an Edm.Decimal property stores its values. Every kind reads and writes
// the property's values exactly and compares and orders them as numbers; they differ in what the column holds,
// so that the engine can serve tables that another program made:
//
//	DecimalAuto           the database's own: on PostgreSQL DecimalExact; on SQLite DecimalScaled up to
//	                      MaxScaledDecimalPrecision digits of Precision (the values of such a property must fit
//	                      the 64-bit integer on every database), DecimalExact beyond, so that a Decimal(38,18)
//	                      just works
//	DecimalScaled         an integer column holding value x 10^Scale (19.99 at Scale 2 is 1999): SQLite
//	                      INTEGER, PostgreSQL SMALLINT, INTEGER or BIGINT as wide as the Precision needs; a
//	                      value is accepted only when that integer fits in 64 bits
//	DecimalExact          the exact decimal: PostgreSQL NUMERIC(p,s) (or NUMERIC); on SQLite a TEXT column
//	                      holding the decimal's text at the Scale (123.450 at Scale 3), declared COLLATE
//	                      odata_decimal, a collation the engine's SQLite driver registers that compares decimal
//	                      texts exactly, so comparisons, ORDER BY and indexes are exact at any Precision; $filter
//	                      arithmetic and rounding on it compute exactly through the driver's decimal functions
//	DecimalFloat          a floating-point column: SQLite REAL (or a NUMERIC or DECIMAL(p,s) column, which SQLite
//	                      keeps as REAL), PostgreSQL DOUBLE PRECISION (REAL for a Precision up to 6); at most 15
//	                      digits of Precision, so every value of the property round-trips: the engine rounds what
//	                      it reads to the Scale and compares at the Scale. A value another program wrote with
//	                      more digits is read rounded, and $filter arithmetic on such a column is floating-point
//	                      arithmetic.
//
// A column stored in another way than the database's own (DecimalScaled and DecimalFloat on PostgreSQL,
// DecimalFloat on SQLite, DecimalScaled beside a wider DecimalAuto) is compared through an expression, which an
// index on the column does not serve.
type DecimalStorage uint8

// The decimal storage kinds.
const (
	DecimalAuto DecimalStorage = iota
	DecimalScaled
	DecimalExact
	DecimalFloat
)

// MaxFloatDecimalPrecision is the largest Precision of a Decimal stored as DecimalFloat: a decimal of at most 15
// significant digits survives the round trip through a 64-bit floating-point number.
const MaxFloatDecimalPrecision = 15

// MaxScaledDecimalPrecision is the largest Precision of a DecimalAuto property that SQLite keeps as a scaled
// 64-bit integer: the money of the store's model is Decimal(19,4), kept that way since its first release. A
// wider DecimalAuto property is DecimalExact there.
const MaxScaledDecimalPrecision = 19

// Scaled reports whether a Decimal of the given Precision stored as s keeps value x 10^Scale in a 64-bit integer
// on some database: DecimalScaled, and DecimalAuto up to MaxScaledDecimalPrecision digits (SQLite's own). The
// values of such a property are accepted only when that integer fits, on every database alike.
func (s DecimalStorage) Scaled(precision int) bool {
	return s == DecimalScaled || s == DecimalAuto && precision <= MaxScaledDecimalPrecision
}

// String returns "auto", "scaled", "exact" or "float".
func (s DecimalStorage) String() string {
	switch s {
	case DecimalAuto:
		return "auto"
	case DecimalScaled:
		return "scaled"
	case DecimalExact:
		return "exact"
	case DecimalFloat:
		return "float"
	}
	return fmt.Sprintf("DecimalStorage(%d)", uint8(s))
}

// TimeStorage is how the column of an Edm.DateTimeOffset or Edm.TimeOfDay property stores its values. Every
// kind reads and writes the property's values in UTC and compares and orders them as points in time; they
// differ in what the column holds, so that the engine can serve tables that another program made:
//
//	TimeAuto   the database's own: SQLite TEXT 2006-01-02T15:04:05.000000Z (UTC, always six fraction digits,
//	           so that text order is time order) or 15:04:05.000000; PostgreSQL timestamp with time zone or
//	           time. odata.NewService (odata/schema.Adapt) serves a column declared otherwise in the form its
//	           declaration says: TimeSQL for SQLite DATETIME, TIMESTAMP or TIME and PostgreSQL timestamp
//	           without time zone, TimeUnix for a SQLite INTEGER DateTimeOffset column
//	TimeSQL    SQL's text without a zone, read as UTC: on SQLite '2006-01-02 15:04:05' with or without a
//	           fraction of any length ('15:04:05[.fff]' for a TimeOfDay), as SQLite's CURRENT_TIMESTAMP,
//	           datetime() and most programs write it (a 'T' for the space and a trailing 'Z' or '+00:00' are
//	           read too); PostgreSQL timestamp without time zone holding the UTC wall clock (time for a TimeOfDay)
//	TimeUnix   whole seconds since 1970-01-01 UTC in an integer column (SQLite INTEGER, PostgreSQL bigint);
//	           DateTimeOffset only, and a value with a fraction of a second cannot be stored
//
// A column stored in another way than the database's own is compared and ordered through an expression that
// turns it into the database's own form, which an index on the column does not serve.
type TimeStorage uint8

// The time storage kinds.
const (
	TimeAuto TimeStorage = iota
	TimeSQL
	TimeUnix
)

// String returns "auto", "sql" or "unix".
func (s TimeStorage) String() string {
	switch s {
	case TimeAuto:
		return "auto"
	case TimeSQL:
		return "sql"
	case TimeUnix:
		return "unix"
	}
	return fmt.Sprintf("TimeStorage(%d)", uint8(s))
}

// IsKey reports whether the property is part of its entity type's key.
func (p *Property) IsKey() bool { return p.isKey }

// Computed reports whether the server computes the property's value, so that clients cannot set it: ReadOnly, or
// computed by SQL (the Core.Computed annotation).
func (p *Property) Computed() bool { return p.ReadOnly || p.SQL != "" }

// Property returns the member of a complex property with the given name (exact, else a unique
// case-insensitive match), with its Column being the full column name on the entity's table; nil if there is
// none or p is not complex.
func (p *Property) Property(name string) *Property {
	m, _ := p.members.get(name)
	return m
}

// Properties returns the members of a complex property in declaration order, each with its full column name
// (see Property); nil for other properties.
func (p *Property) Properties() []*Property { return p.fields }

// ExpandSQL returns the SQL expression of a computed property with every "{{.}}" replaced by alias, which must
// be the quoted alias or name of the entity's table. It returns "" for a property without SQL. Expansion is a
// plain concatenation of pieces split once by Build: the placeholder cannot inject anything but alias.
func (p *Property) ExpandSQL(alias string) string {
	switch len(p.sqlParts) {
	case 0:
		return ""
	case 1:
		return p.sqlParts[0]
	}
	n := len(alias) * (len(p.sqlParts) - 1)
	for _, s := range p.sqlParts {
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n)
	for i, s := range p.sqlParts {
		if i > 0 {
			b.WriteString(alias)
		}
		b.WriteString(s)
	}
	return b.String()
}

// CollectionTable is the side table of a collection property: one row per item.
type CollectionTable struct {
	// Table is the side table; "<entity table>_<property column>" when empty.
	Table string
	// OwnerColumns are the side table's columns that refer to the owner row: they equal the owner's
	// SourceColumns, in order. "<entity table>_<key column>" per key property when empty.
	OwnerColumns []string
	// SourceColumns are the owner table's columns the side table refers to; the owner's key columns when empty.
	// Set them when the side table refers to a column other than the OData key (a customer keyed by e-mail whose
	// side tables refer to its id column).
	SourceColumns []string
	// ValueColumn holds the item; "value" when empty.
	ValueColumn string
	// OrdinalColumn holds the item's position (0-based); "ordinal" when empty.
	OrdinalColumn string
}

// ComplexType is a structured type without identity; a complex property of an entity is stored in one column
// per member.
type ComplexType struct {
	// Name is the simple name; the qualified name is "<namespace>.<Name>".
	Name string
	// Properties are the members in declaration order; their Column is relative to the complex property's.
	Properties []*Property
	// Description is emitted as a Core.Description annotation.
	Description string

	propertyIndex index[*Property]
}

// Property returns the member with the given name (exact, else a unique case-insensitive match); nil if there is
// none. Its Column is relative: use the entity property's Property method for full column names.
func (c *ComplexType) Property(name string) *Property {
	p, _ := c.propertyIndex.get(name)
	return p
}

// NavigationProperty relates an entity to one or many entities of the Target type. Join describes the SQL.
type NavigationProperty struct {
	// Name is the property name as clients see it.
	Name string
	// Target is the name of the target entity type (resolved by Build: see TargetType).
	Target string
	// Collection marks a to-many navigation.
	Collection bool
	// Nullable allows a to-one navigation to have no target; it does not apply to collections.
	Nullable bool
	// Partner names the navigation property of the target type that leads back.
	Partner string
	// ContainsTarget marks containment: the targets exist only under their owner and have no entity set.
	ContainsTarget bool
	// Join says how source rows relate to target rows.
	Join Join
	// Description is emitted as a Core.Description annotation.
	Description string

	source      *EntityType
	target      *EntityType
	partner     *NavigationProperty
	constraints []ReferentialConstraint
}

// TargetType returns the resolved target entity type.
func (n *NavigationProperty) TargetType() *EntityType { return n.target }

// SourceType returns the entity type that declares the navigation property.
func (n *NavigationProperty) SourceType() *EntityType { return n.source }

// PartnerNavigation returns the resolved partner, nil if there is none.
func (n *NavigationProperty) PartnerNavigation() *NavigationProperty { return n.partner }

// Constraints returns the referential constraints of a to-one navigation whose source columns are the
// columns of properties of the source type (a foreign key), in column order.
func (n *NavigationProperty) Constraints() []ReferentialConstraint { return n.constraints }

// Join describes a navigation in SQL.
//
// Direct (Through nil): source.SourceColumns[i] = target.TargetColumns[i]. A to-one navigation by foreign key
// lists the foreign key columns as SourceColumns (TargetColumns default to the target's key columns); a to-many
// navigation by back reference lists the target's referencing columns as TargetColumns (SourceColumns default
// to the source's key columns).
//
// Through a link table: source.SourceColumns[i] = link.SourceColumns[i] and link.TargetColumns[j] =
// target.TargetColumns[j]; SourceColumns and TargetColumns default to the key columns of the source and target.
type Join struct {
	SourceColumns []string
	TargetColumns []string
	Through       *LinkTable
}

// LinkTable is the link table of a many-to-many navigation.
type LinkTable struct {
	Table string
	// SourceColumns are the link table's columns equal to the join's SourceColumns.
	SourceColumns []string
	// TargetColumns are the link table's columns equal to the join's TargetColumns.
	TargetColumns []string
}

// ReferentialConstraint says that the dependent Property of a navigation's source equals the
// ReferencedProperty of its target.
type ReferentialConstraint struct {
	Property           string
	ReferencedProperty string
}

// EntitySet is an entity set of the container: the entities of one type.
type EntitySet struct {
	// Name is the set name as it appears in URLs.
	Name string
	// Type is the name of the entity type.
	Type string
	// Description is emitted as a Core.Description annotation.
	Description string

	entityType *EntityType
	bindings   []NavigationBinding
}

// EntityType returns the resolved entity type of the set.
func (s *EntitySet) EntityType() *EntityType { return s.entityType }

// Bindings returns the navigation property bindings: for each navigation path from the set's type whose target
// type has exactly one entity set, that set. Paths go through containment navigations ("Addresses/Country").
func (s *EntitySet) Bindings() []NavigationBinding { return s.bindings }

// Binding returns the entity set a navigation path leads to, nil if it is not bound.
func (s *EntitySet) Binding(path string) *EntitySet { return binding(s.bindings, path) }

// Singleton is a single entity of the container.
type Singleton struct {
	// Name is the singleton name as it appears in URLs.
	Name string
	// Type is the name of the entity type.
	Type string
	// Description is emitted as a Core.Description annotation.
	Description string

	entityType *EntityType
	bindings   []NavigationBinding
}

// EntityType returns the resolved entity type of the singleton.
func (s *Singleton) EntityType() *EntityType { return s.entityType }

// Bindings returns the navigation property bindings (see EntitySet.Bindings).
func (s *Singleton) Bindings() []NavigationBinding { return s.bindings }

// Binding returns the entity set a navigation path leads to, nil if it is not bound.
func (s *Singleton) Binding(path string) *EntitySet { return binding(s.bindings, path) }

// NavigationBinding binds a navigation path of an entity set or singleton to the entity set of its targets.
type NavigationBinding struct {
	Path   string
	Target *EntitySet
}

func binding(bindings []NavigationBinding, path string) *EntitySet {
	for _, b := range bindings {
		if b.Path == path {
			return b.Target
		}
	}
	for _, b := range bindings {
		if strings.EqualFold(b.Path, path) {
			return b.Target
		}
	}
	return nil
}

// Action is an operation with side effects, invoked with POST. A bound action is invoked on an entity (or a
// collection of entities, with BindingCollection) of BindingType; its binding parameter is implicit and named
// "bindingParameter" in CSDL.
type Action struct {
	Name              string
	Bound             bool
	BindingType       string
	BindingCollection bool
	// Parameters are the non-binding parameters in order; optional ones must follow the required ones.
	Parameters []Parameter
	// ReturnType is nil for an action that returns nothing.
	ReturnType *ReturnType
	// Description is emitted as a Core.Description annotation.
	Description string

	binding *EntityType
}

// Binding returns the resolved binding entity type, nil for an unbound action.
func (a *Action) Binding() *EntityType { return a.binding }

// Parameter returns the non-binding parameter with the given name or alias (exact, else case-insensitive); nil if
// none.
func (a *Action) Parameter(name string) *Parameter { return parameter(a.Parameters, name) }

// Function is an operation without side effects, invoked with GET; it always returns a value. Bound functions
// work like bound actions.
type Function struct {
	Name              string
	Bound             bool
	BindingType       string
	BindingCollection bool
	// IsComposable allows further path segments or query options to apply to the result.
	IsComposable bool
	// Parameters are the non-binding parameters in order; optional ones must follow the required ones.
	Parameters []Parameter
	// ReturnType is required.
	ReturnType *ReturnType
	// Description is emitted as a Core.Description annotation.
	Description string

	binding *EntityType
}

// Binding returns the resolved binding entity type, nil for an unbound function.
func (f *Function) Binding() *EntityType { return f.binding }

// Parameter returns the non-binding parameter with the given name or alias (exact, else case-insensitive); nil if
// none.
func (f *Function) Parameter(name string) *Parameter { return parameter(f.Parameters, name) }

func parameter(ps []Parameter, name string) *Parameter {
	for i := range ps {
		if ps[i].Name == name || slices.Contains(ps[i].Aliases, name) {
			return &ps[i]
		}
	}
	for i := range ps {
		if strings.EqualFold(ps[i].Name, name) {
			return &ps[i]
		}
		for _, a := range ps[i].Aliases {
			if strings.EqualFold(a, name) {
				return &ps[i]
			}
		}
	}
	return nil
}

// Parameter is a non-binding parameter of an action or function. Exactly one of Type, Enum, Complex and Entity
// is set.
type Parameter struct {
	Name    string
	Type    Kind
	Enum    *EnumType
	Complex *ComplexType
	// Entity is the name of an entity type.
	Entity     string
	Collection bool
	Nullable   bool
	// Required parameters must be supplied; others are annotated Core.OptionalParameter.
	Required  bool
	MaxLength int
	Precision int
	Scale     int
	// Description is emitted as a Core.Description annotation.
	Description string
	// Aliases are other names a request may use for the parameter (an older spelling kept for clients that send
	// it). Lookups match them like Name; CSDL shows only Name.
	Aliases []string

	entity *EntityType
}

// EntityType returns the resolved entity type of an entity parameter, nil otherwise.
func (p *Parameter) EntityType() *EntityType { return p.entity }

// ReturnType is the type of an operation's result. Exactly one of Type, Enum, Complex and Entity is set.
type ReturnType struct {
	Type    Kind
	Enum    *EnumType
	Complex *ComplexType
	// Entity is the name of an entity type.
	Entity     string
	Collection bool
	Nullable   bool
	MaxLength  int
	Precision  int
	Scale      int

	entity *EntityType
}

// EntityType returns the resolved entity type of an entity result, nil otherwise.
func (r *ReturnType) EntityType() *EntityType { return r.entity }

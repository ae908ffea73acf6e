// Package plan is the query planner of the odata engine: it binds OData query options against an edm model and
// translates them to SQL through squirrel, for SQLite and PostgreSQL alike. Everything that differs between the
// databases lives behind sqldb.Dialect; values move between Go and columns with sqldb.Arg and sqldb.Scan
// (odata/DESIGN.md's storage table). Only odata uses this package; plug-ins and adapters use odata/sqldb. The SQL
// that follows from the model alone (qualified columns, key conditions, tuple IN, the JSON array of a
// collection) comes from odata/internal/modelsql, which odata's own reads and writes share.
//
// # Files
//
// planner.go holds the Planner (options, quoted names, Read); scope.go the Scope a read addresses and its
// conditions; compile.go the compiled read and its statements; projection.go the columns of each level
// ($select: Projection, Column, Collection); expand.go the expansions ($expand: Expand); order.go $orderby and the
// total order; paging.go $top, $skiptoken, next links and resuming after a token; read.go the Read of one
// request; boundtree.go and types.go the bound tree and its types, which bind.go, funcs.go and search.go build
// and translate.go turns into SQL; cache.go the plan cache; errors.go the Error type; rowfilter.go the
// row filters of a request (RowFilters, ReadFiltered), added wherever a read reaches a filtered type's rows;
// limits.go the limits of a read (Limits, ReadOptions, ReadWith: the parser's, the largest $top, the number of
// expansions), part of the plan cache key.
//
// # Planning a read
//
// A Planner (one per model and dialect, safe for concurrent use) plans every GET of the service with Read: the
// Scope names the rows (an entity set, one entity by key, or the rows reached through navigation properties),
// the raw query string gives the options. The result is a *Read with the page SELECT (Select), the COUNT (Count),
// the next page's link (NextQuery), and the queries of the expansions and collections of primitives, each run
// once per page for all the page's rows (Projection.Expands, Projection.Collections). With
// Options.InlineCollections a collection of primitives is instead a column of its owner's row holding a JSON array
// (a correlated subquery), so a page without expansions is one statement whose rows can be written as they
// arrive. Compiled plans are cached by (scope shape, query text without $top and $skiptoken); a repeated query,
// or a key lookup Set('k'), costs a map lookup and the conversion of its key literal, $top and $skiptoken.
//
// Side tables of collections join their owner on edm.CollectionTable.SourceColumns (the key by default, another
// column such as an id when the key is an e-mail address). A singleton (Scope.Singleton) is the first row of its
// type's table in key order.
//
// # Binding
//
// Names resolve against the model: properties and navigation properties by exact name, else by a unique
// case-insensitive match; enum types with or without namespace; lambda variables, $it, $this and parameter
// aliases (@p). A call of a name that is no canonical function, no function of the model and no navigation
// followed by a key (lenght(Name), geo.foo(x)) is a SyntaxError naming it, and so is in (). Every expression is type-checked: comparing a string with a number is a TypeMismatch *Error, never
// a SQL error. Literals take the type of the other operand where OData allows it ('SimpleProduct' for an enum
// member, 'P1D' for a duration, 5 for a decimal); numeric operands are promoted Int64 -> Decimal -> Single ->
// Double. Canonical functions check their arity and argument types.
//
// # Semantics
//
//   - Comparisons are two-valued, as OData defines them: null eq null is true, null ne 'x' is true, null gt 1 is
//     false, and a null Boolean (a null property, or a function of a null argument) counts as false, so that
//     "not" of anything is its exact complement: not (Name eq 'x') includes the rows where Name is null. The
//     translator writes T(e) and F(e) (true exactly when e is true, false) so SQL's NULL never leaks.
//   - String comparison is case-sensitive on both databases (SQLite BINARY collation and _cslike=1, PostgreSQL
//     columns COLLATE "C"); contains, startswith and endswith are LIKE ... ESCAPE '\' with %, _ and \ escaped.
//     tolower and toupper change ASCII letters only, on both databases (PostgreSQL applies them under COLLATE
//     "C", whatever the database's default collation).
//   - $search matches an entity when one of its Searchable properties contains the term, ignoring the case of
//     ASCII letters (lower() on both sides); phrases match as one string, AND/OR/NOT combine terms. A type
//     without searchable properties answers NotSupported.
//   - Decimals: SQLite stores value x 10^scale; a literal compared with such a column is scaled exactly (when it
//     has more digits than the scale the operator is adjusted, so Price gt 79.00009 is price > 790000 and
//     Price eq 19.98999 is false). Addition, subtraction and remainder of decimals stay exact integers; other
//     arithmetic computes in REAL, inside filters only. A Decimal SQLite keeps as text (sqldb.TextDecimal:
//     precision beyond 19, or DecimalExact) is compared under COLLATE odata_decimal with literals bound as their
//     exact text, and its arithmetic and rounding are the driver's exact decimal functions, so Decimal(38,18)
//     compares, orders and computes exactly. DateTimeOffset literals are converted to UTC first.
//   - Division by zero (div, divby, mod) is null, on both databases.
//   - Int64 values never go through floating point: a literal beyond the range of Int64 compares exactly (Sold eq
//     9223372036854775808 is false for every row; Sold lt 9223372036854775808 is true for every value).
//   - INF, -INF and NaN compare as IEEE 754 says: every number is below INF and above -INF, and NaN equals
//     nothing, itself included (only ne is true). SQLite stores neither NaN nor the infinities
//     (sqldb.Dialect.StoresNaN): the infinities are REAL parameters there, comparisons with NaN are constants on
//     both databases. (A NaN stored on PostgreSQL still sorts above every number, as PostgreSQL has it.)
//   - Casts that widen an integer (cast(Rating,Edm.Int32) from a Byte) keep the value; casts that narrow one, or
//     turn an enum into an integer kind, are null where the value does not fit the kind (cast(Sold,Edm.Byte) is
//     null for 1000).
//   - Type hierarchies (edm.EntityType.BaseType) are one table with a discriminator column holding each row's
//     qualified type name (hierarchy.go): a Scope.Cast or Step.Cast narrows to a derived type and its own
//     derived types (odata_type IN ('Ns.Book', 'Ns.Ebook')); isof(Ns.Book), isof(x,Ns.Book) and the null tests
//     of cast(Ns.Book) are the same test, on $it, a lambda variable or a joined single-valued navigation
//     (constants when the range's type settles them); a member path Ns.Book/Pages names a property the derived
//     type declares (its column, null for rows of other types); reads of a type include the columns of its
//     derived types' properties and the discriminator (Projection.TypeColumn), $select=Ns.Book/Pages selects
//     one of them.
//   - Paths through single-valued navigations are LEFT JOINs (one per navigation and range; measured faster than
//     correlated subqueries on both databases); any/all are correlated EXISTS/NOT EXISTS (through the link table
//     of a many-to-many navigation, over the side table of a collection of primitives); $count is a correlated
//     COUNT subquery.
//   - Order: nulls first ascending, last descending, spelt NULLS FIRST/LAST for nullable expressions; the key
//     always ends the order, so it is total and keyset paging is exact.
//
// # Paging
//
// Pages are keyset-based: a $skiptoken is base64url (no padding) of a JSON array holding a fingerprint of the
// $orderby, then the last row's order-by values and key values. Decoding checks the fingerprint and every
// value's type (a tampered token is an InvalidValue *Error, a 400); the next page's WHERE resumes strictly
// after that row, with nulls and descending items handled. $skip applies to the first page only (next links
// drop it); $top beyond the page size is served across pages (next links carry the rest of it). From a $skip
// of 1,000 the first page is read in two steps: a subquery with the conditions, order, LIMIT and OFFSET picks
// the keys, and the outer query reads only those rows, so the rows skipped are stepped over in an index of the
// order and the key and never read from the table.
//
// $compute (compute.go) binds each item on the range it belongs to (the read's, an expansion's); $filter, $orderby
// (keyset paging included) and $select name the alias as a property, and the projection adds a column of the
// expression's value whose Column.Path is a property made for it.
//
// $crossjoin(Set1,...,SetN) (crossjoin.go, Scope.CrossJoin) is one statement over the sets' tables joined by CROSS
// JOIN, each with its alias (t0 for the first) and its row filter; $filter and $orderby bind their paths from
// the name of a set as from a lambda variable (Products/Price, Sales/Product/Name: to-one paths are LEFT JOINs of
// that set's range), and a path that names no set is an UnknownProperty error. The order ends with the key of
// every set, first set first, so keyset paging works as for a set. $select names the sets in the answer and
// $expand those whose entities it has (with nested $select, $expand and $compute); each Member gives its
// columns in a row: the projection of an expanded set (its own expansions read per page with Expand, their
// links counted from the member's first column), else its key. At most MaxCrossJoinSets sets; $search and
// $compute at the top, $apply that does not aggregate, and $ref or $count of a member, are NotSupported.
//
// $index positions an insert into an ordered collection (a write, served by odata): in a read it is a Syntax
// error.
//
// $levels in $expand (expand.go, withLevels) plans as the nested expansions it stands for: a recursive navigation
// (the target type has a navigation of the same name) repeated with the same options, one level less each time;
// max expands as deep as Limits.Query.ExpandDepth allows (8 levels without a limit); a navigation that is not
// recursive is expanded once.
//
// $schemaversion is left to the service, which checks it before it plans a read: a plan is the same whatever
// version the request names.
//
// # Not supported
//
// Valid OData this engine does not translate is a NotSupported *Error (the service answers 501 Not Implemented): the
// $apply transformations apply.go lists as such and $apply nested in $expand, $deltatoken; $root paths; key predicates and
// bound functions inside member paths; geography and geometry; hassubset and hassubsequence; arithmetic on dates, times
// and timestamps (adding a duration to a timestamp); mod on floating-point values; casts to complex types and to types
// other than entity types, numeric kinds, String (from integers and GUIDs), Date and TimeOfDay (from a DateTimeOffset), and casts that
// turn a decimal or floating-point value into an integer (an integer or an enum cast to a narrower integer kind is
// null where it does not fit, as OData's failed cast); complex values as operands (compare
// their members); member access on parameter aliases; $expand through complex properties and nested options in $select;
// after a cast to a derived type in a member path, the properties the type inherits (Ns.Book/Name: select Name) and a
// cast alone in $select (select the type's properties).
package plan

// Package syntax parses OData 4.01 resource paths and query options into a syntax tree: the first stage of
// the engine's query pipeline (syntax -> the internal planner's binder -> SQL). It is pure: no model, no SQL.
//
// Every entry point takes raw, still percent-encoded text, as it arrives in the URL. Query text is read as
// clients write it: a '+' is a space (form encoding, as Go's url.Values, curl --data-urlencode, Python and
// browsers send it; a plus sign arrives as %2B), and percent-decoding happens inside the lexer wherever the
// grammar allows the character, so every delimiter works encoded, in nested $expand options too
// ("Items%28%24top%3D2%3B%24skip%3D1%29"), and an encoded quote inside a string literal ends the string. Where
// the grammar allows a sign (a date-time's offset, an exponent, a duration), a space reads as "+", so
// 2012-09-03T08:00:00+02:00 reads right whether its "+" arrives as %2B, as itself or as a space. In a resource
// path a '+' is a plus ("Customers('a+b')"). Positions in the tree and in errors count bytes of the raw text
// (a '+' is one byte, an escape such as %27 three); messages quote the decoded text.
//
//   - ParsePath parses a resource path into a ResourcePath: a list of Segments whose meaning (entity set,
//     navigation, function, key as segment) the binder decides with the model.
//   - ParseQuery parses a query string into a Query; ParseFilter, ParseOrderBy, ParseSelect, ParseExpand,
//     ParseSearch, ParseCompute and ParseExpr parse one option value.
//   - SplitQuery splits a query string into a QueryString of parameters whose names it reads as ParseQuery
//     does (a system option with or without "$", in any case, percent-encoded or not), for callers that look
//     at a query, or rewrite it, before or without parsing it (the planner's cache key, next and delta links,
//     the $id of /$entity, a function's parameters given as query options); Unescape and Escape decode and
//     encode one name or value the way ParseQuery reads it. No other package of the engine splits or decodes
//     query strings.
//   - Errors are *Error values: "$filter:1:14: expected expression, found ")"", with Code SyntaxError or
//     LimitExceeded (nesting over 64 levels, and past any of Limits: lambdas nested too deep or too many in one
//     expression, a literal too long, a matchesPattern pattern too large, $expand too deep, an in list, an
//     expression or an option value too long; each limit's default is a Default* constant).
//   - $apply (OData Data Aggregation) is parsed into Query.Apply, a sequence of Transformation values: the
//     participle grammar reads a sequence as a member path whose argument lists may end in a tail ("with sum
//     as Total", "as Alias", "desc"; "with" and "from" are keywords after an operand, as the operators are),
//     and the converter checks what each transformation takes. The aggregate function of expressions
//     (Sales/aggregate(Amount with sum), $these/aggregate(...)) is an *Aggregate. PrintApply prints a
//     sequence back as canonical text.
//   - The options of the Temporal extension ($at, $from, $to, $toInclusive; with their "$" only, so "from" and
//     "to" stay custom options) are parsed as expressions into Query.Temporal.
//   - Limits holds those limits; its methods ParseQuery, ParsePath, ParseFilter and ParseExpr parse under other
//     values (a zero field is the default, a negative one no limit).
//
// Expressions follow OData's precedence: primary (member access, calls, lambdas) > not, - > mul div divby mod >
// add sub > gt ge lt le has in > eq ne > and > or. Operator keywords, function names and option names are
// case-insensitive; a keyword is only an operator after an operand and whitespace, so properties called
// "android" or "order" are plain names.
//
// The grammar is a github.com/alecthomas/participle/v2 grammar (unexported structs, one per production,
// precedence by layering) over a hand-written lexer; the parsers are built once at package level and are safe
// for concurrent use. String on every node prints canonical OData that parses back to an equal tree (a plus
// sign is printed as %2B, which reads back as a plus in a query string and in a path).
package syntax

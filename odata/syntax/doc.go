// Package syntax parses OData 4.01 resource paths and query options into a syntax tree: the first stage of
// the engine's query pipeline (syntax -> the internal planner's binder -> SQL). It is pure: no model, no SQL.
//
// Every entry point takes raw, still percent-encoded text, as it arrives in the URL. Percent-decoding
// happens inside the lexer where the grammar allows it, so "Customers(%27O%27%27Neil%27)" is a key, an
// encoded quote inside a string literal ends the string, and "+" stays a plus (a date-time offset such as
// 2012-09-03T08:00:00+02:00 survives). Positions in the tree and in errors refer to the raw text.
//
//   - ParsePath parses a resource path into a ResourcePath: a list of Segments whose meaning (entity set,
//     navigation, function, key as segment) the binder decides with the model.
//   - ParseQuery parses a query string into a Query; ParseFilter, ParseOrderBy, ParseSelect, ParseExpand,
//     ParseSearch, ParseCompute and ParseExpr parse one option value; SplitQuery and Unescape split a query
//     into its options and percent-decode text the way ParseQuery does, for callers that look at a query
//     before parsing it (the planner's cache key).
//   - Errors are *Error values: "$filter:1:14: expected expression, found ")"", with Code SyntaxError or
//     LimitExceeded (nesting over 64 levels, lambdas over 4, $expand over 3).
//
// Expressions follow OData's precedence: primary (member access, calls, lambdas) > not, - > mul div divby mod >
// add sub > gt ge lt le has in > eq ne > and > or. Operator keywords, function names and option names are
// case-insensitive; a keyword is only an operator after an operand and whitespace, so properties called
// "android" or "order" are plain names.
//
// The grammar is a github.com/alecthomas/participle/v2 grammar (unexported structs, one per production,
// precedence by layering) over a hand-written lexer; the parsers are built once at package level and are safe
// for concurrent use. String on every node prints canonical OData that parses back to an equal tree.
package syntax

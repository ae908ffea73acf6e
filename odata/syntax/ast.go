package syntax

import (
	"strings"
)

// Node is implemented by every node of the syntax tree. The set of nodes is closed: the unexported marker
// method keeps other packages from adding to it, so a type switch over the node types below is complete.
//
// Pos is the byte offset (0-based) of the node in the raw, still percent-encoded text of the query option (or
// path) it was parsed from; an *Error reports it 1-based as a column. String prints the node back as canonical
// OData that parses to an equal tree.
type Node interface {
	Position() int
	String() string
	node()
}

// Expr is an expression of $filter, $orderby, $compute, a parameter alias value or a function argument:
// *Literal, *Path, *Lambda, *Count, *Binary, *Unary, *Call, *List, *JSON, *TypeName or *Case.
type Expr interface {
	Node
	expr()
}

// LiteralKind says which kind of primitive literal a Literal is.
type LiteralKind uint8

// Literal kinds and the dynamic type of Literal.Value for each.
const (
	LitNull           LiteralKind = iota // nil
	LitBool                              // bool
	LitInt                               // int64 (an integer outside the Int64 range is a LitDecimal)
	LitDecimal                           // string: the exact decimal digits as written, e.g. "-12.50"
	LitDouble                            // float64 (also INF, -INF, NaN)
	LitString                            // string: the unescaped text ('' and percent-encoding resolved)
	LitDate                              // time.Time at midnight UTC
	LitDateTimeOffset                    // time.Time in the literal's offset
	LitTimeOfDay                         // time.Duration since midnight
	LitDuration                          // time.Duration
	LitGuid                              // string: lower-case canonical form
	LitBinary                            // []byte
	LitEnum                              // string: the member text ("Yellow" or "Red,Blue" or "32"); Type holds the enum type
	LitGeography                         // string: the text between the quotes, e.g. "SRID=0;Point(1 2)"
	LitGeometry                          // string: as LitGeography
)

var literalKindNames = [...]string{"null", "boolean", "integer", "decimal", "double", "string", "date",
	"date-time", "time of day", "duration", "GUID", "binary", "enum", "geography", "geometry"}

// String names the kind ("integer", "date-time", ...).
func (k LiteralKind) String() string {
	if int(k) < len(literalKindNames) {
		return literalKindNames[k]
	}
	return "literal"
}

// Literal is a primitive literal. A bare quoted string is always a LitString, even where OData allows it to
// mean an enum member or a duration ('Yellow', 'P1D'): the binder converts it once it knows the expected type.
// A JSON string inside an array or object ("text") is a LitString whose Text keeps the double quotes.
type Literal struct {
	Pos   int
	Kind  LiteralKind
	Text  string // the literal's source text, percent-decoded ('O''Neil', 12.50, Model.Color'Red')
	Type  string // LitEnum: the qualified enum type name; empty otherwise
	Value any    // see LiteralKind
}

// PathBase is what a member path starts from.
type PathBase uint8

// Path bases.
const (
	BaseImplicit PathBase = iota // the current instance: Name, Address/City
	BaseIt                       // $it
	BaseThis                     // $this
	BaseRoot                     // $root: the first segment names an entity set, singleton or function import
	BaseAlias                    // @name: a parameter alias (Alias holds the name without "@")
	BaseThese                    // $these: the input set of a $apply transformation (Data Aggregation)
)

// Path is a member path such as Address/City, Products(1)/Name, Model.VipCustomer/Discount,
// Model.Fn(p=1)/Name, $it/Price, $root/Customers('A')/Name or @alias/Street. Each segment is one "/"-separated
// part; a namespace-qualified segment without arguments is a type cast, with arguments a bound function call.
// Whether a name is a property, navigation, function or key is for the binder to decide with the model.
// A bare $it, $this or @alias is a Path with that Base and no segments.
type Path struct {
	Pos      int
	Base     PathBase
	Alias    string // BaseAlias: the alias name without "@"
	Segments []Segment
}

// Segment is one part of a Path, a resource path, or a $select/$expand item.
//
// Name is an identifier, possibly namespace-qualified ("Model.BestProduct", "geo.distance"), a "$"-keyword
// ("$filter", "$each", "$ref", "$value", "$entity", "$query", "$crossjoin", "$all"), an annotation
// ("@Core.Messages#Q"), "*", "Namespace.*", or in a resource path the raw text of a key given as a segment
// (Literal is then true). Args holds each parenthesised argument list that follows the name, in order:
// Products(1) has one, ProductsByCategoryId(categoryId=2)(2) has two, Products has none and Fn() has one empty
// list. In a resource path, "$filter(expr)" has one list with one unnamed argument.
type Segment struct {
	Pos     int
	Name    string
	Literal bool
	Args    []ArgList
}

// ArgList is one parenthesised argument list: a key predicate, function parameters or canonical function
// arguments.
type ArgList struct {
	Pos  int
	Args []Arg
}

// Arg is one argument; Name is set for "name=value" arguments (named keys, function parameters).
type Arg struct {
	Pos   int
	Name  string
	Value Expr
}

// LambdaKind is any or all.
type LambdaKind uint8

// Lambda kinds.
const (
	Any LambdaKind = iota
	All
)

// String returns "any" or "all".
func (k LambdaKind) String() string {
	if k == All {
		return "all"
	}
	return "any"
}

// Lambda is Path/any(Var:Body) or Path/all(Var:Body). Var and Body are empty for any().
type Lambda struct {
	Pos  int
	Path *Path // the collection
	Kind LambdaKind
	Var  string
	Body Expr
}

// Count is Path/$count, optionally with nested options ($filter and $search only).
type Count struct {
	Pos     int
	Path    *Path
	Options *Query // nil without parentheses
}

// BinaryOp is a binary operator.
type BinaryOp uint8

// Binary operators.
const (
	OpOr BinaryOp = iota
	OpAnd
	OpEq
	OpNe
	OpGt
	OpGe
	OpLt
	OpLe
	OpHas
	OpIn
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpDivBy
	OpMod
)

var binaryOpNames = [...]string{"or", "and", "eq", "ne", "gt", "ge", "lt", "le", "has", "in", "add", "sub",
	"mul", "div", "divby", "mod"}

// String returns the operator keyword ("eq", "divby", ...).
func (op BinaryOp) String() string {
	if int(op) < len(binaryOpNames) {
		return binaryOpNames[op]
	}
	return "?"
}

// Precedence is the operator's binding strength: or 1, and 2, eq ne 3, gt ge lt le has in 4, add sub 5,
// mul div divby mod 6 (higher binds tighter).
func (op BinaryOp) Precedence() int {
	switch op {
	case OpOr:
		return 1
	case OpAnd:
		return 2
	case OpEq, OpNe:
		return 3
	case OpGt, OpGe, OpLt, OpLe, OpHas, OpIn:
		return 4
	case OpAdd, OpSub:
		return 5
	}
	return 6
}

// Binary is Left Op Right. All binary operators are left-associative.
type Binary struct {
	Pos   int // position of the operator keyword
	Op    BinaryOp
	Left  Expr
	Right Expr
}

// UnaryOp is not or negation.
type UnaryOp uint8

// Unary operators.
const (
	OpNot UnaryOp = iota
	OpNeg
)

// String returns "not" or "-".
func (op UnaryOp) String() string {
	if op == OpNeg {
		return "-"
	}
	return "not"
}

// Unary is "not X" or "-X".
type Unary struct {
	Pos int
	Op  UnaryOp
	X   Expr
}

// Call is a call of a canonical function: Name is lower-cased ("contains", "matchespattern", "geo.distance").
// In cast and isof the type argument is a *TypeName. Any other function call (a namespace-qualified unbound
// or bound function, "Model.Fn(p=1)") is a Path segment with Args, and case(...) is a *Case.
type Call struct {
	Pos  int
	Name string
	Args []Arg
}

// List is a parenthesised list of literals after in ("('a','b')") or a JSON array ("["a",Name,[1]]").
type List struct {
	Pos      int
	Brackets bool // a JSON array in square brackets; false for a parenthesised list
	Items    []Expr
}

// JSON is a JSON object literal ({"Name":"Value"}); Raw is its percent-decoded source text.
type JSON struct {
	Pos int
	Raw string
}

// TypeName is the type argument of cast and isof: "Edm.String", "Model.Customer", "Customer",
// "Collection(Edm.String)".
type TypeName struct {
	Pos  int
	Name string
}

// Case is the 4.01 case(cond:value, ...) function.
type Case struct {
	Pos      int
	Branches []CaseBranch
}

// CaseBranch is one "When:Then" pair of a Case.
type CaseBranch struct {
	When Expr
	Then Expr
}

func (*Literal) node()   {}
func (*Path) node()      {}
func (*Lambda) node()    {}
func (*Count) node()     {}
func (*Binary) node()    {}
func (*Unary) node()     {}
func (*Call) node()      {}
func (*List) node()      {}
func (*JSON) node()      {}
func (*TypeName) node()  {}
func (*Case) node()      {}
func (*Aggregate) node() {}

func (*Literal) expr()   {}
func (*Path) expr()      {}
func (*Lambda) expr()    {}
func (*Count) expr()     {}
func (*Binary) expr()    {}
func (*Unary) expr()     {}
func (*Call) expr()      {}
func (*List) expr()      {}
func (*JSON) expr()      {}
func (*TypeName) expr()  {}
func (*Case) expr()      {}
func (*Aggregate) expr() {}

// Position returns the node's byte offset.
func (n *Literal) Position() int { return n.Pos }

// Position returns the node's byte offset.
func (n *Path) Position() int { return n.Pos }

// Position returns the node's byte offset.
func (n *Lambda) Position() int { return n.Pos }

// Position returns the node's byte offset.
func (n *Count) Position() int { return n.Pos }

// Position returns the node's byte offset.
func (n *Binary) Position() int { return n.Pos }

// Position returns the node's byte offset.
func (n *Unary) Position() int { return n.Pos }

// Position returns the node's byte offset.
func (n *Call) Position() int { return n.Pos }

// Position returns the node's byte offset.
func (n *List) Position() int { return n.Pos }

// Position returns the node's byte offset.
func (n *JSON) Position() int { return n.Pos }

// Position returns the node's byte offset.
func (n *TypeName) Position() int { return n.Pos }

// Position returns the node's byte offset.
func (n *Case) Position() int { return n.Pos }

// Position returns the offset of the node.
func (n *Aggregate) Position() int { return n.Pos }

// String prints the node as canonical OData.
func (n *Aggregate) String() string { return printExpr(n) }

// String prints the node.
func (n *Literal) String() string { return printExpr(n) }

// String prints the node.
func (n *Path) String() string { return printExpr(n) }

// String prints the node.
func (n *Lambda) String() string { return printExpr(n) }

// String prints the node.
func (n *Count) String() string { return printExpr(n) }

// String prints the node.
func (n *Binary) String() string { return printExpr(n) }

// String prints the node.
func (n *Unary) String() string { return printExpr(n) }

// String prints the node.
func (n *Call) String() string { return printExpr(n) }

// String prints the node.
func (n *List) String() string { return printExpr(n) }

// String prints the node.
func (n *JSON) String() string { return printExpr(n) }

// String prints the node.
func (n *TypeName) String() string { return printExpr(n) }

// String prints the node.
func (n *Case) String() string { return printExpr(n) }

// IsQualified reports whether the segment name is namespace-qualified (contains a dot), as a type cast or a
// qualified function or action is.
func (s Segment) IsQualified() bool { return !s.Literal && strings.IndexByte(s.Name, '.') > 0 }

// String prints the segment.
func (s Segment) String() string {
	var b strings.Builder
	writeSegment(&b, s)
	return b.String()
}

// Aggregate is the aggregate function of Data Aggregation in an expression: Path/aggregate(Item), the aggregate
// of the related entities (or primitive items) Path reaches, or $these/aggregate(Item), of the input set of a
// $apply transformation (Path then has Base BaseThese and no segments). Item has no alias.
type Aggregate struct {
	Pos  int
	Path *Path
	Item AggregateItem
}

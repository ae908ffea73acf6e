package plan

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/storekit/store/odata/syntax"
)

// Error codes of *Error. Every code but CodeNotSupported is a client error (HTTP 400); CodeNotSupported is valid
// OData this engine does not translate (HTTP 501 Not Implemented).
const (
	CodeUnknownProperty = "UnknownProperty"
	CodeTypeMismatch    = "TypeMismatch"
	CodeNotSupported    = "NotSupported"
	CodeLimitExceeded   = "LimitExceeded"
	CodeSyntax          = "SyntaxError"
	CodeInvalidValue    = "InvalidValue"
	CodeNotReadable     = "NotReadable" // a query uses a property the request may not read (Redactions)
)

// Error is a query option (or key predicate) that cannot be bound or translated: an unknown name, a type error,
// a limit, a syntax error found while parsing for the planner, a tampered $skiptoken, or something valid that the
// engine does not support.
type Error struct {
	// Code is one of the Code constants.
	Code string
	// Option is the query option as the client spelt it ("$filter", "filter", "@p"), "$skiptoken", or "key" for
	// a key predicate. For an error inside a nested option of $expand it is the top-level option.
	Option string
	// Pos is the 1-based column in the option's raw (still percent-encoded) value; 0 when not known.
	Pos int
	// Msg is one human sentence without the position.
	Msg string
}

// Error formats the error as "$filter:1:14: message".
func (e *Error) Error() string {
	s := e.Option
	if e.Pos > 0 {
		s += ":1:" + strconv.Itoa(e.Pos)
	}
	if s != "" {
		s += ": "
	}
	return s + e.Msg
}

// fromSyntax converts a parser error.
func fromSyntax(err error) error {
	var syntaxError *syntax.Error
	if errors.As(err, &syntaxError) {
		return &Error{Code: syntaxError.Code, Option: syntaxError.Option, Pos: syntaxError.Pos, Msg: syntaxError.Msg}
	}
	return err
}

func errorf(code string, node syntax.Node, format string, args ...any) *Error {
	e := &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
	if node != nil {
		e.Pos = node.Position() + 1
	}
	return e
}

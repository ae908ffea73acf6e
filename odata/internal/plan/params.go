package plan

import (
	"fmt"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// ParameterValue converts the value of a function parameter written in a URL, Fn(p=5) or Fn(p=@a) with the
// alias in aliases (aliases may refer to aliases), to the parameter's Go value (the types of odata/DESIGN.md): a
// primitive or enum literal of the parameter's type, or null for a nullable parameter. Complex, collection and
// entity parameters are not supported in URLs.
func (p *Planner) ParameterValue(param *edm.Parameter, e syntax.Expr, aliases map[string]syntax.Expr) (any, error) {
	fail := func(code, format string, args ...any) error {
		return &Error{Code: code, Option: "path", Msg: fmt.Sprintf(format, args...)}
	}
	for depth := 0; ; depth++ {
		path, ok := e.(*syntax.Path)
		if !ok || path.Base != syntax.BaseAlias || len(path.Segments) > 0 {
			break
		}
		if depth >= maxAliasDepth {
			return nil, fail(CodeLimitExceeded, "parameter aliases nest deeper than %d", maxAliasDepth)
		}
		v, ok := aliases[path.Alias]
		if !ok {
			return nil, &Error{Code: CodeSyntax, Option: "@" + path.Alias, Msg: "parameter alias @" + path.Alias + " is not defined"}
		}
		e = v
	}
	if param.Complex != nil || param.Collection || param.EntityType() != nil {
		return nil, fail(CodeNotSupported, "parameter %s: complex, collection and entity values are not supported in a URL", param.Name)
	}
	literal, ok := e.(*syntax.Literal)
	if !ok {
		return nil, fail(CodeTypeMismatch, "parameter %s: the value must be a literal", param.Name)
	}
	from, v, err := literalValue(p.model, literal)
	if err != nil {
		err.Option = "path"
		return nil, err
	}
	if v == nil {
		if !param.Nullable {
			return nil, fail(CodeTypeMismatch, "parameter %s cannot be null", param.Name)
		}
		return nil, nil
	}
	to := boundType{kind: param.Type, enum: param.Enum}
	converted, ok := coerce(v, from, to)
	if !ok || converted == nil {
		name := param.Type.String()
		if param.Enum != nil {
			name = param.Enum.Name
		}
		return nil, fail(CodeTypeMismatch, "parameter %s is %s, not %s", param.Name, name, literal.Text)
	}
	return converted, nil
}

package plan

import (
	"slices"
	"strings"

	"github.com/storekit/store/odata/syntax"
)

// The hierarchy functions of the Aggregation vocabulary (Data Aggregation 4.0, section 5.5.2.1), for $filter and
// other expressions over entities:
//
//	Org.OData.Aggregation.V1.isroot(HierarchyNodes=$root/Set,HierarchyQualifier='Q',Node=ID)
//	isleaf(..., Node=ID)
//	issibling(..., Node=ID, Other=3)
//	isdescendant(..., Node=ID, Ancestor=1 [, MaxDistance=2] [, IncludeSelf=true])
//	isancestor(..., Node=ID, Descendant=4 [, MaxDistance=2] [, IncludeSelf=true])
//
// spelt with the vocabulary's namespace or its alias Aggregation. Each is a condition with subqueries on the
// hierarchy's table; isdescendant and isancestor walk it as the transformations do (WITH RECURSIVE, a cycle ends
// the walk). A null node identifier makes the function null.

// hierarchyFunctionParameters are the parameters of each hierarchy function after HierarchyNodes,
// HierarchyQualifier and Node; the first, when any, is required.
var hierarchyFunctionParameters = map[string][]string{
	"isroot":       nil,
	"isleaf":       nil,
	"issibling":    {"Other"},
	"isdescendant": {"Ancestor", "MaxDistance", "IncludeSelf"},
	"isancestor":   {"Descendant", "MaxDistance", "IncludeSelf"},
}

// hierarchyFunctionName returns the function a path's only segment names (without the namespace or alias),
// "" when it names none of the hierarchy functions.
func hierarchyFunctionName(p *syntax.Path) string {
	if p.Base != syntax.BaseImplicit || len(p.Segments) != 1 || len(p.Segments[0].Args) != 1 {
		return ""
	}
	name := p.Segments[0].Name
	for _, prefix := range []string{"Org.OData.Aggregation.V1.", "Aggregation."} {
		if local, ok := strings.CutPrefix(name, prefix); ok {
			if _, known := hierarchyFunctionParameters[local]; known {
				return local
			}
		}
	}
	return ""
}

// hierarchyArgs returns the named arguments of the call of the hierarchy function name that p starts with, and
// the names it allows: the three every function takes, then its own (the first of them required too).
func (b *binder) hierarchyArgs(p *syntax.Path, name string) (map[string]syntax.Expr, []string, error) {
	args := map[string]syntax.Expr{}
	allowed := append([]string{"HierarchyNodes", "HierarchyQualifier", "Node"}, hierarchyFunctionParameters[name]...)
	for _, a := range p.Segments[0].Args[0].Args {
		if a.Name == "" {
			return nil, nil, b.fail(CodeSyntax, a.Value, "the parameters of %s are named (HierarchyNodes=..., HierarchyQualifier=..., Node=...)", name)
		}
		if !slices.Contains(allowed, a.Name) {
			return nil, nil, b.fail(CodeSyntax, a.Value, "%s has no parameter %s", name, a.Name)
		}
		if args[a.Name] != nil {
			return nil, nil, b.fail(CodeSyntax, a.Value, "the parameter %s is given twice", a.Name)
		}
		args[a.Name] = a.Value
	}
	for _, r := range allowed[:min(len(allowed), 4)] {
		if args[r] == nil {
			return nil, nil, b.fail(CodeSyntax, p, "%s needs the parameter %s", name, r)
		}
	}
	return args, allowed, nil
}

// hierarchyFunction binds a call of a hierarchy function.
func (b *binder) hierarchyFunction(p *syntax.Path, name string) (boundExpr, error) {
	c := b.c
	args, allowed, err := b.hierarchyArgs(p, name)
	if err != nil {
		return nil, err
	}
	set, ok := args["HierarchyNodes"].(*syntax.Path)
	if !ok {
		return nil, b.fail(CodeInvalidValue, args["HierarchyNodes"], "the nodes of a hierarchy are an entity set ($root/Set)")
	}
	q, ok := args["HierarchyQualifier"].(*syntax.Literal)
	qualifier, isString := "", false
	if ok {
		qualifier, isString = q.Value.(string)
	}
	if !isString {
		return nil, b.fail(CodeTypeMismatch, args["HierarchyQualifier"], "HierarchyQualifier is the qualifier of a recursive hierarchy, a string")
	}
	h, herr := c.recursiveHierarchy(set, qualifier, q.Pos)
	if herr != nil {
		herr.Option = b.option
		return nil, herr
	}
	node, err := b.nodeIdentifier(args["Node"], "Node")
	if err != nil {
		return nil, err
	}
	var other string
	if len(allowed) > 3 {
		if other, err = b.nodeIdentifier(args[allowed[3]], allowed[3]); err != nil {
			return nil, err
		}
	}
	var distance int64
	if d := args["MaxDistance"]; d != nil {
		l, ok := d.(*syntax.Literal)
		if ok {
			distance, ok = l.Value.(int64)
		}
		if !ok || distance < 1 {
			return nil, b.fail(CodeInvalidValue, d, "MaxDistance must be a positive integer")
		}
	}
	includeSelf := false
	if s := args["IncludeSelf"]; s != nil {
		l, ok := s.(*syntax.Literal)
		if ok {
			includeSelf, ok = l.Value.(bool)
		}
		if !ok {
			return nil, b.fail(CodeTypeMismatch, s, "IncludeSelf must be true or false")
		}
	}
	x, y := c.newAlias(), c.newAlias()
	col := func(alias, column string) string { return c.qualifiedColumn(alias, column) }
	var condition string
	switch name {
	case "isroot":
		condition = "EXISTS (SELECT 1 FROM " + c.nodes(h, x, "", col(x, h.nodeCol)+" = "+node,
			"("+col(x, h.fk)+" IS NULL OR NOT EXISTS (SELECT 1 FROM "+c.nodes(h, y, "", col(y, h.nodeCol)+" = "+col(x, h.fk))+"))") + ")"
	case "isleaf":
		condition = "(EXISTS (SELECT 1 FROM " + c.nodes(h, x, "", col(x, h.nodeCol)+" = "+node) + ") AND NOT EXISTS (SELECT 1 FROM " +
			c.nodes(h, y, "", col(y, h.fk)+" = "+node) + "))"
	case "issibling":
		condition = "(" + node + " <> " + other + " AND EXISTS (SELECT 1 FROM " + c.nodes(h, x, "", col(x, h.nodeCol)+" = "+node,
			col(x, h.fk)+" IN (SELECT "+col(y, h.fk)+" FROM "+c.nodes(h, y, "", col(y, h.nodeCol)+" = "+other)+")") + "))"
	default:
		condition = node + " IN (" + c.walk(h, name == "isancestor", other, distance) + ")"
		if includeSelf {
			condition = "(" + condition + " OR " + node + " = " + other + ")"
		}
	}
	null := node + " IS NULL"
	if other != "" {
		null += " OR " + other + " IS NULL"
	}
	return &boundSQL{t: boundType{kind: typeBoolean.kind, nullable: true},
		sql: "CASE WHEN " + null + " THEN NULL ELSE (" + condition + ") END"}, nil
}

// nodeIdentifier binds a node identifier argument of a hierarchy function: a primitive value.
func (b *binder) nodeIdentifier(e syntax.Expr, parameter string) (string, error) {
	bound, err := b.expr(e)
	if err != nil {
		return "", err
	}
	if t := bound.typeOf(); !t.isScalar() && !t.null {
		return "", b.fail(CodeTypeMismatch, e, "%s is a node identifier, a primitive value, not %s", parameter, t)
	}
	sql, _ := b.c.value(bound)
	return sql, nil
}

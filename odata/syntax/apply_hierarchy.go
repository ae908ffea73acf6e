package syntax

import (
	"strconv"
	"strings"
)

// The hierarchical transformations of Data Aggregation 4.0 (section 6): ancestors, descendants and traverse.
// Their first three arguments name a recursive hierarchy: the node entities ($root/Set), the qualifier of the
// hierarchy's RecursiveHierarchy annotation, and the path of the node value in the input set.

// HierarchyArgs are the arguments of ancestors, descendants and traverse other than the transformation
// sequence (Transformation.Sequence) and the order of siblings (Transformation.OrderBy).
type HierarchyArgs struct {
	// Set is the collection of the hierarchy's nodes, a path starting with $root.
	Set *Path
	// Qualifier is the qualifier of the RecursiveHierarchy annotation; QualifierPos its position.
	Qualifier    string
	QualifierPos int
	// Node is the path of the node value in the input set.
	Node Expr
	// Distance is the maximal distance of ancestors and descendants from their start nodes, 0 when not given.
	Distance int64
	// KeepStart says the start nodes are kept ("keep start").
	KeepStart bool
	// Postorder is true for traverse(..., postorder), false for preorder.
	Postorder bool
}

// hierarchy converts the arguments of ancestors(H, Q, p, T [, d] [, keep start]),
// descendants(H, Q, p, T [, d] [, keep start]) and traverse(H, Q, p, preorder|postorder [, orderby items]).
func (c *converter) hierarchy(t *Transformation, a *grammarArguments, depth int) *Error {
	if len(a.Args) < 4 {
		return syntaxErrorAt(a.Open.Pos.Offset, t.Name+"() takes the node set, the hierarchy, the node property and "+
			map[bool]string{true: "preorder or postorder", false: "a transformation sequence"}[t.Name == "traverse"])
	}
	h, err := c.hierarchyReference(a, depth)
	if err != nil {
		return err
	}
	t.Hierarchy = h
	if t.Name == "traverse" {
		return c.traverse(t, a, depth)
	}
	if err := tailError(a.Args[3]); err != nil {
		return err
	}
	if t.Sequence, err = c.sequence(a.Args[3].Value, depth); err != nil {
		return err
	}
	rest := a.Args[4:]
	if len(rest) > 0 && !isKeepStart(rest[0]) {
		d, err := c.plainValue(rest[0], depth)
		if err != nil {
			return err
		}
		if !isNonNegativeInteger(d) || d.(*Literal).Value.(int64) < 1 {
			return syntaxErrorAt(d.Position(), "expected the maximal distance, a positive integer, in "+t.Name+"()")
		}
		h.Distance = d.(*Literal).Value.(int64)
		rest = rest[1:]
	}
	if len(rest) > 0 && isKeepStart(rest[0]) {
		h.KeepStart = true
		rest = rest[1:]
	}
	if len(rest) > 0 {
		return syntaxErrorAt(exprStart(rest[0].Value), `expected ")"`)
	}
	return nil
}

// hierarchyReference converts the first three arguments of ancestors, descendants, traverse and
// rolluprecursive: the node set ($root/...), the hierarchy's qualifier and the path of the node property.
func (c *converter) hierarchyReference(a *grammarArguments, depth int) (*HierarchyArgs, *Error) {
	h := &HierarchyArgs{}
	set, err := c.plainValue(a.Args[0], depth)
	if err != nil {
		return nil, err
	}
	if p, ok := set.(*Path); !ok || p.Base != BaseRoot || len(p.Segments) == 0 {
		return nil, syntaxErrorAt(set.Position(), "expected the nodes of the hierarchy as $root/...")
	}
	h.Set = set.(*Path)
	q, err := c.plainValue(a.Args[1], depth)
	if err != nil {
		return nil, err
	}
	name, ok := simpleName(q)
	if !ok {
		return nil, syntaxErrorAt(q.Position(), "expected the qualifier of a recursive hierarchy")
	}
	h.Qualifier, h.QualifierPos = name, q.Position()
	if h.Node, err = c.plainValue(a.Args[2], depth); err != nil {
		return nil, err
	}
	if p, ok := h.Node.(*Path); !ok || p.Base != BaseImplicit {
		return nil, syntaxErrorAt(h.Node.Position(), "expected the path of the node property")
	}
	return h, nil
}

// rollupRecursive converts the arguments of rolluprecursive(H, Q, p [, transformations]) in groupby: the
// hierarchy, as ancestors names it, and the preserving transformations that pick its nodes.
func (c *converter) rollupRecursive(a *grammarArguments, depth int) (*Transformation, *Error) {
	t := &Transformation{Pos: a.Open.Pos.Offset, Name: "rolluprecursive"}
	if len(a.Args) < 3 {
		return nil, syntaxErrorAt(a.Open.Pos.Offset, "rolluprecursive() takes the node set, the hierarchy and the node property")
	}
	h, err := c.hierarchyReference(a, depth)
	if err != nil {
		return nil, err
	}
	t.Hierarchy = h
	if len(a.Args) == 3 {
		return t, nil
	}
	if err := tailError(a.Args[3]); err != nil {
		return nil, err
	}
	if t.Sequence, err = c.sequence(a.Args[3].Value, depth); err != nil {
		return nil, err
	}
	if len(a.Args) > 4 {
		return nil, syntaxErrorAt(exprStart(a.Args[4].Value), `expected ")"`)
	}
	return t, nil
}

// traverse converts the fourth and later arguments of traverse: preorder or postorder, then the order of
// siblings.
func (c *converter) traverse(t *Transformation, a *grammarArguments, depth int) *Error {
	mode, err := c.plainValue(a.Args[3], depth)
	if err != nil {
		return err
	}
	switch name, _ := simpleName(mode); strings.ToLower(name) {
	case "preorder":
	case "postorder":
		t.Hierarchy.Postorder = true
	default:
		return syntaxErrorAt(mode.Position(), "expected preorder or postorder in traverse()")
	}
	if len(a.Args) == 4 {
		return nil
	}
	return c.applyOrderBy(t, &grammarArguments{Open: a.Open, Args: a.Args[4:]}, depth)
}

// simpleName returns the name e consists of when it is a single identifier.
func simpleName(e Expr) (string, bool) {
	p, ok := e.(*Path)
	if !ok || p.Base != BaseImplicit || len(p.Segments) != 1 || len(p.Segments[0].Args) > 0 ||
		p.Segments[0].Literal || strings.ContainsAny(p.Segments[0].Name, ".$@*") {
		return "", false
	}
	return p.Segments[0].Name, true
}

// isKeepStart reports whether a is "keep start".
func isKeepStart(a *grammarArgument) bool {
	if a.Tail == nil || a.Tail.Start.Type == 0 || a.Name.Type != 0 || a.Then != nil {
		return false
	}
	p := solePath(a.Value)
	return p != nil && strings.EqualFold(p.Name.Value, "keep") && len(p.Args) == 0 && len(p.Rest) == 0
}

// writeHierarchy prints the arguments of ancestors, descendants, traverse or rolluprecursive.
func writeHierarchy(b *strings.Builder, t *Transformation) {
	h := t.Hierarchy
	writeExpr(b, h.Set, 0)
	b.WriteString("," + h.Qualifier + ",")
	writeExpr(b, h.Node, 0)
	if t.Name == "traverse" {
		if h.Postorder {
			b.WriteString(",postorder")
		} else {
			b.WriteString(",preorder")
		}
		for _, o := range t.OrderBy {
			b.WriteByte(',')
			writeExpr(b, o.Expr, 0)
			if o.Desc {
				b.WriteString(" desc")
			}
		}
		return
	}
	if t.Name == "rolluprecursive" && len(t.Sequence) == 0 {
		return
	}
	b.WriteByte(',')
	writeSequence(b, t.Sequence)
	if h.Distance > 0 {
		b.WriteString("," + strconv.FormatInt(h.Distance, 10))
	}
	if h.KeepStart {
		b.WriteString(",keep start")
	}
}

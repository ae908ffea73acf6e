package syntax

import (
	"sort"
	"strconv"
	"strings"
)

// printExpr returns e printed as canonical OData.
func printExpr(e Expr) string {
	var b strings.Builder
	writeExpr(&b, e, 0)
	return b.String()
}

// Printing precedence of node kinds; binary operators use BinaryOp.Precedence.
const (
	precedenceUnary   = 7
	precedencePrimary = 8
)

func exprPrecedence(e Expr) int {
	switch e := e.(type) {
	case *Binary:
		return e.Op.Precedence()
	case *Unary:
		return precedenceUnary
	}
	return precedencePrimary
}

// writeExpr prints e, in parentheses when it binds weaker than minPrec.
func writeExpr(b *strings.Builder, e Expr, minPrec int) {
	if e == nil {
		return
	}
	if exprPrecedence(e) < minPrec {
		b.WriteByte('(')
		writeExpr(b, e, 0)
		b.WriteByte(')')
		return
	}
	switch e := e.(type) {
	case *Literal:
		escapeText(b, e.Text)
	case *Path:
		writeMemberPath(b, e)
	case *Lambda:
		writeLambda(b, e)
	case *Count:
		writePath(b, e.Path)
		b.WriteString("/$count")
		if e.Options != nil {
			b.WriteByte('(')
			writeOptions(b, e.Options, ';')
			b.WriteByte(')')
		}
	case *Binary:
		p := e.Op.Precedence()
		writeExpr(b, e.Left, p)
		b.WriteByte(' ')
		b.WriteString(e.Op.String())
		b.WriteByte(' ')
		writeExpr(b, e.Right, p+1)
	case *Unary:
		writeUnary(b, e)
	case *Call:
		b.WriteString(e.Name)
		writeArgs(b, e.Args)
	case *Aggregate:
		writePath(b, e.Path)
		if e.Path.Base != BaseImplicit || len(e.Path.Segments) > 0 {
			b.WriteByte('/')
		}
		b.WriteString("aggregate(")
		writeAggregateItem(b, &e.Item)
		b.WriteByte(')')
	case *List:
		writeList(b, e)
	case *JSON:
		escapeText(b, e.Raw)
	case *TypeName:
		b.WriteString(e.Name)
	case *Case:
		writeCase(b, e)
	}
}

// writeMemberPath prints a path of an expression so that a property called "not" does not read back as the
// operator.
func writeMemberPath(b *strings.Builder, p *Path) {
	if p.Base == BaseImplicit && len(p.Segments) > 0 && strings.EqualFold(p.Segments[0].Name, "not") {
		if len(p.Segments[0].Args) > 0 {
			b.WriteString("$it/")
		} else if len(p.Segments) == 1 {
			b.WriteString("(")
			writePath(b, p)
			b.WriteString(")")
			return
		}
	}
	writePath(b, p)
}

func writeLambda(b *strings.Builder, l *Lambda) {
	writePath(b, l.Path)
	b.WriteByte('/')
	b.WriteString(l.Kind.String())
	b.WriteByte('(')
	if l.Body != nil {
		b.WriteString(l.Var)
		b.WriteByte(':')
		writeExpr(b, l.Body, 0)
	}
	b.WriteByte(')')
}

func writeUnary(b *strings.Builder, u *Unary) {
	if u.Op == OpNot {
		b.WriteString("not ")
		writeExpr(b, u.X, precedenceUnary)
		return
	}
	b.WriteByte('-')
	switch x := u.X.(type) {
	case *Literal, *Unary:
		// "- 1" is the negation of 1 ("-1" is the literal); a space costs no nesting level, unlike "(".
		b.WriteByte(' ')
		writeExpr(b, x, precedenceUnary)
	default:
		writeExpr(b, x, precedenceUnary)
	}
}

func writeList(b *strings.Builder, l *List) {
	open, closing := byte('('), byte(')')
	if l.Brackets {
		open, closing = '[', ']'
	}
	b.WriteByte(open)
	for i, it := range l.Items {
		if i > 0 {
			b.WriteByte(',')
		}
		writeExpr(b, it, 0)
	}
	b.WriteByte(closing)
}

func writeCase(b *strings.Builder, c *Case) {
	b.WriteString("case(")
	for i, branch := range c.Branches {
		if i > 0 {
			b.WriteByte(',')
		}
		writeExpr(b, branch.When, 0)
		b.WriteByte(':')
		writeExpr(b, branch.Then, 0)
	}
	b.WriteByte(')')
}

func writeArgs(b *strings.Builder, args []Arg) {
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteByte(',')
		}
		if a.Name != "" {
			b.WriteString(a.Name)
			b.WriteByte('=')
		}
		writeExpr(b, a.Value, 0)
	}
	b.WriteByte(')')
}

func writePath(b *strings.Builder, p *Path) {
	if p == nil {
		return
	}
	sep := false
	switch p.Base {
	case BaseIt:
		b.WriteString("$it")
		sep = true
	case BaseThis:
		b.WriteString("$this")
		sep = true
	case BaseRoot:
		b.WriteString("$root")
		sep = true
	case BaseThese:
		b.WriteString("$these")
		sep = true
	case BaseAlias:
		b.WriteByte('@')
		b.WriteString(p.Alias)
		sep = true
	}
	for _, s := range p.Segments {
		if sep {
			b.WriteByte('/')
		}
		sep = true
		writeSegment(b, s)
	}
}

func writeSegment(b *strings.Builder, s Segment) {
	if s.Literal {
		writeLiteralSegment(b, s.Name)
	} else {
		escapeText(b, s.Name)
	}
	for _, argumentList := range s.Args {
		writeArgs(b, argumentList.Args)
	}
}

// writeOptions prints the options of q separated by sep ('&' in a query string, ';' inside parentheses).
func writeOptions(b *strings.Builder, q *Query, sep byte) {
	w := &optionWriter{b: b, sep: sep}
	w.expressionOptions(q)
	w.pagingOptions(q)
	w.itemOptions(q)
	w.textOptions(q)
	w.aliases(q.Aliases)
	w.customOptions(q.Custom)
}

// optionWriter prints options one after the other.
type optionWriter struct {
	b       *strings.Builder
	sep     byte
	written int
}

// next writes the separator before every option but the first.
func (w *optionWriter) next() {
	if w.written > 0 {
		w.b.WriteByte(w.sep)
	}
	w.written++
}

// option starts the option name: "name=".
func (w *optionWriter) option(name string) {
	w.next()
	w.b.WriteString(name)
	w.b.WriteByte('=')
}

// expressionOptions prints $filter, $search and $orderby.
func (w *optionWriter) expressionOptions(q *Query) {
	if len(q.Apply) > 0 {
		w.option("$apply")
		writeSequence(w.b, q.Apply)
	}
	for _, o := range q.Temporal {
		w.option(o.Name)
		writeExpr(w.b, o.Value, 0)
	}
	if q.Filter != nil {
		w.option("$filter")
		writeExpr(w.b, q.Filter, 0)
	}
	if q.Search != nil {
		w.option("$search")
		writeSearch(w.b, q.Search, 0)
	}
	if len(q.OrderBy) > 0 {
		w.option("$orderby")
		for i, it := range q.OrderBy {
			if i > 0 {
				w.b.WriteByte(',')
			}
			writeExpr(w.b, it.Expr, 0)
			if it.Desc {
				w.b.WriteString(" desc")
			}
		}
	}
}

// pagingOptions prints $skip, $top and $count.
func (w *optionWriter) pagingOptions(q *Query) {
	if q.Skip != nil {
		w.option("$skip")
		w.b.WriteString(strconv.FormatInt(*q.Skip, 10))
	}
	if q.Top != nil {
		w.option("$top")
		w.b.WriteString(strconv.FormatInt(*q.Top, 10))
	}
	if q.Count != nil {
		w.option("$count")
		w.b.WriteString(strconv.FormatBool(*q.Count))
	}
}

// itemOptions prints $select, $expand, $compute, $levels and $index.
func (w *optionWriter) itemOptions(q *Query) {
	if len(q.Select) > 0 {
		w.option("$select")
		for i, it := range q.Select {
			w.item(i, it.Path, "", it.Options)
		}
	}
	if len(q.Expand) > 0 {
		w.option("$expand")
		for i, it := range q.Expand {
			suffix := ""
			if it.Ref {
				suffix += "/$ref"
			}
			if it.Count {
				suffix += "/$count"
			}
			w.item(i, it.Path, suffix, it.Options)
		}
	}
	if len(q.Compute) > 0 {
		w.option("$compute")
		for i, it := range q.Compute {
			if i > 0 {
				w.b.WriteByte(',')
			}
			writeExpr(w.b, it.Expr, 0)
			w.b.WriteString(" as ")
			w.b.WriteString(it.Alias)
		}
	}
	if q.Levels != nil {
		w.option("$levels")
		if q.Levels.Max {
			w.b.WriteString("max")
		} else {
			w.b.WriteString(strconv.FormatInt(q.Levels.N, 10))
		}
	}
	if q.Index != nil {
		w.option("$index")
		w.b.WriteString(strconv.FormatInt(*q.Index, 10))
	}
}

// item prints the i-th item of $select or $expand: its path, a suffix (/$ref, /$count) and its nested options.
func (w *optionWriter) item(i int, path []Segment, suffix string, options *Query) {
	if i > 0 {
		w.b.WriteByte(',')
	}
	writeItemPath(w.b, path)
	w.b.WriteString(suffix)
	if options != nil {
		w.b.WriteByte('(')
		writeOptions(w.b, options, ';')
		w.b.WriteByte(')')
	}
}

// textOptions prints the options whose values are text: $skiptoken, $deltatoken, $format, $schemaversion, $id.
func (w *optionWriter) textOptions(q *Query) {
	for _, o := range [...]struct{ name, value string }{{"$skiptoken", q.SkipToken}, {"$deltatoken", q.DeltaToken},
		{"$format", q.Format}, {"$schemaversion", q.SchemaVersion}, {"$id", q.ID}} {
		if o.value != "" {
			w.option(o.name)
			writeOptionText(w.b, o.value, w.sep)
		}
	}
}

// aliases prints the parameter aliases sorted by name.
func (w *optionWriter) aliases(aliases map[string]Expr) {
	names := make([]string, 0, len(aliases))
	for name := range aliases {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		w.option("@" + name)
		writeExpr(w.b, aliases[name], 0)
	}
}

// customOptions prints the custom options in order; one without a value has no "=".
func (w *optionWriter) customOptions(custom []CustomOption) {
	for _, c := range custom {
		w.next()
		writeOptionText(w.b, c.Name, '=')
		if c.Value != "" {
			w.b.WriteByte('=')
			writeOptionText(w.b, c.Value, w.sep)
		}
	}
}

func writeItemPath(b *strings.Builder, path []Segment) {
	for i, s := range path {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(s.Name)
		for _, argumentList := range s.Args {
			b.WriteByte('(')
			for j, a := range argumentList.Args {
				if j > 0 {
					b.WriteByte(',')
				}
				writeExpr(b, a.Value, 0)
			}
			b.WriteByte(')')
		}
	}
}

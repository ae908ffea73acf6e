package syntax

import (
	"testing"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The baseline of BenchmarkParseFilter: the smallest participle grammar that reads the short filter (or/and,
// comparisons, names, strings, numbers) with participle's own regexp lexer. The project's parser reads the whole
// OData expression language through a hand-written lexer; running both in one benchmark run shows what that costs
// or saves against this floor on the same machine.

type baseOr struct {
	Left  *baseAnd   `parser:"@@"`
	Right []*baseAnd `parser:"( 'or' @@ )*"`
}

type baseAnd struct {
	Left  *baseCmp   `parser:"@@"`
	Right []*baseCmp `parser:"( 'and' @@ )*"`
}

type baseCmp struct {
	Left  *baseTerm `parser:"@@"`
	Op    string    `parser:"( @('eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le')"`
	Right *baseTerm `parser:"  @@ )?"`
}

type baseTerm struct {
	Name   *string `parser:"  @Ident"`
	String *string `parser:"| @String"`
	Number *string `parser:"| @Number"`
	Sub    *baseOr `parser:"| '(' @@ ')'"`
}

var baselineParser = participle.MustBuild[baseOr](
	participle.Lexer(lexer.MustSimple([]lexer.SimpleRule{
		{Name: "Keyword", Pattern: `\b(or|and|eq|ne|gt|ge|lt|le)\b`},
		{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
		{Name: "String", Pattern: `'(?:[^']|'')*'`},
		{Name: "Number", Pattern: `-?[0-9]+(?:\.[0-9]+)?`},
		{Name: "Punct", Pattern: `[()]`},
		{Name: "Whitespace", Pattern: `\s+`},
	})),
	participle.Elide("Whitespace"),
)

func BenchmarkParseFilterBaseline(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := baselineParser.ParseString("", shortFilter); err != nil {
			b.Fatal(err)
		}
	}
}

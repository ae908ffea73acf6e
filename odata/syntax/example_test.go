package syntax_test

import (
	"fmt"

	"github.com/storekit/store/odata/syntax"
)

func ExampleParseFilter() {
	e, err := syntax.ParseFilter("Price%20gt%20100%20and%20(Name%20eq%20'O''Neil'%20or%20contains(Name,'x'))")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e)
	b := e.(*syntax.Binary)
	fmt.Println(b.Op, b.Left, "|", b.Right)

	_, err = syntax.ParseFilter("Name eq )")
	fmt.Println(err)
	// Output:
	// Price gt 100 and (Name eq 'O''Neil' or contains(Name,'x'))
	// and Price gt 100 | Name eq 'O''Neil' or contains(Name,'x')
	// $filter:1:9: expected expression, found ")"
}

func ExampleParseQuery() {
	// As url.Values.Encode writes it: a space is "+", a plus sign and the delimiters are percent-encoded.
	q, err := syntax.ParseQuery("%24filter=CreatedOnUtc+ge+2024-01-01T00%3A00%3A00%2B02%3A00&top=10&%24orderby=Price+desc&%24expand=Categories%28%24select%3DName%29")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(q)
	fmt.Println(*q.Top, q.OrderBy[0].Desc, q.Expand[0].Path[0].Name)
	// Output:
	// $filter=CreatedOnUtc ge 2024-01-01T00:00:00%2B02:00&$orderby=Price desc&$top=10&$expand=Categories($select=Name)
	// 10 true Categories
}

func ExampleParsePath() {
	p, err := syntax.ParsePath("Customers(%27O%27%27Neil%27)/Orders(1)/Items/$count")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range p.Segments {
		fmt.Printf("%s %d\n", s.Name, len(s.Args))
	}
	// Output:
	// Customers 1
	// Orders 1
	// Items 0
	// $count 0
}

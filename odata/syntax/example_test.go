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
	q, err := syntax.ParseQuery("$filter=CreatedOnUtc%20ge%202024-01-01T00:00:00+02:00&top=10&$orderby=Price%20desc&$expand=Categories($select=Name)")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(q)
	fmt.Println(*q.Top, q.OrderBy[0].Desc, q.Expand[0].Path[0].Name)
	// Output:
	// $filter=CreatedOnUtc ge 2024-01-01T00:00:00+02:00&$orderby=Price desc&$top=10&$expand=Categories($select=Name)
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

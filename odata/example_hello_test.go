package odata_test

import (
	"github.com/storekit/store/odata"
	"github.com/storekit/store/odata/sqlite"
	"log"
)

type Team struct {
	ID      int
	Name    string
	Players []Player
}
type Player struct {
	ID, TeamID int
	Name       string
}

// This program is examples/hello: it serves Teams and Players from the SQLite file hello.db, which it creates
// with their tables (Migrate), with $metadata and $openapi, on http://localhost:8080/. Try
//
//	curl -d '{"Name":"Ajax"}' -H 'Content-Type: application/json' localhost:8080/Teams
//	curl -d '{"Name":"Jan","TeamID":1}' -H 'Content-Type: application/json' localhost:8080/Players
//	curl "localhost:8080/Teams?\$expand=Players&\$filter=startswith(Name,'A')"
//
// It grows by options of Config: Sets for hooks, row filters and per-set writes, Model for actions and
// functions, postgres.Open for PostgreSQL, NewService for a service mounted beside other handlers.
func Example() {
	db, err := sqlite.Open("hello.db")
	if err == nil {
		err = odata.ListenAndServe("localhost:8080", odata.Config{DB: db, Structs: []any{Team{}, Player{}}, Migrate: true, Writes: odata.WriteAll})
	}
	log.Fatal(err)
}

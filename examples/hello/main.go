package main

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

func main() {
	db, err := sqlite.Open("hello.db")
	if err == nil {
		err = odata.ListenAndServe("localhost:8080", odata.Config{DB: db, Structs: []any{Team{}, Player{}}, Migrate: true, Writes: odata.WriteAll})
	}
	log.Fatal(err)
}
